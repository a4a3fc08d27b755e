/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/ipv6.c: TCP over IPv6 (tcp_input6, the IPv6 header
 * template, tcp_connect6_from): two stacks on the in-memory link talking
 * IPv6, neighbour discovery resolving the first SYN; handshake and data
 * both ways, SACK recovery at loss, RST to a closed port, SYN cookies over
 * the IPv6 tuple, checksums against a byte-by-byte reference, receive
 * checksum offload, TSO6, and IPv4 beside IPv6 on one listener. Counters
 * exact, every buffer back. */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "tests/support/tcp_app.h"

#include "net/core/csum.h"
#include "net/ip/ip6.h"

struct pair {
    struct ta a[2];
};

static bool both_done(void *ctx)
{
    struct pair *x = ctx;
    return x->a[0].closed && x->a[1].closed;
}

/* bytes[i] from side i to the other over IPv6 (port 5001), both close. */
static void transfer6(struct tl *l, struct pair *x, uint64_t b0, uint64_t b1)
{
    memset(x, 0, sizeof(*x));
    x->a[0].tx_total = b0;
    x->a[1].tx_total = b1;
    for (int i = 0; i < 2; i++) {
        x->a[i].zero_copy = i == 0;
        x->a[i].close_when_sent = true;
    }
    CHECK_EQ(ta_listen(l, 1, 5001, &x->a[1]), 0);
    CHECK(ta_connect6(l, 0, 5001, &x->a[0]) != NULL);
    CHECK(tl_run(l, both_done, x, 600000000000ull));
    CHECK_EQ(x->a[1].rx_bytes, b0);
    CHECK_EQ(x->a[0].rx_bytes, b1);
    CHECK_EQ(x->a[0].rx_bad + x->a[1].rx_bad, 0);
    CHECK_EQ(x->a[0].close_reason, TCP_CLOSE_NORMAL);
    CHECK_EQ(x->a[1].close_reason, TCP_CLOSE_NORMAL);
    CHECK_EQ(tcp_unlisten(l->s[1], 5001), 0);
}

static void no_malformed(struct tl *l)
{
    static const char *const bad[] = {"tcp-bad-checksum", "tcp-bad-option", "tcp-bad-offset", "tcp-timeout",
                                      "tcp-no-buf",       "tcp-rst-tx",     "ip6-no-route",   "eth-tx-no-room"};
    for (int i = 0; i < 2; i++)
        for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
            CHECK_EQ(tl_ctr(l, i, bad[k]), 0);
}

/* The TCP checksum of an IPv6 frame, by the definition (RFC 8200 8.1,
 * RFC 9293 3.1): 16-bit words one at a time, nothing of net/core/csum.c. With
 * partial, the pseudo-header's sum alone (what a NIC is handed). */
static uint16_t ref_csum6(const uint8_t *f, uint32_t len, bool partial)
{
    const uint8_t *ip = f + 14, *tcp = f + 54;
    uint32_t tl = (uint32_t)(ip[4] << 8 | ip[5]), sum = 0;
    for (int i = 8; i < 40; i += 2)
        sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
    sum += tl + IP4_PROTO_TCP;
    for (uint32_t i = 0; !partial && i < tl && 54 + i < len; i += 2) {
        if (i == 16)
            continue; /* the field itself */
        uint32_t hi = tcp[i], lo = i + 1 < tl ? tcp[i + 1] : 0;
        sum += hi << 8 | lo;
    }
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)(partial ? sum : ~sum & 0xffff);
}

struct csum_count {
    uint64_t full, partial, wrong, v4;
};

static bool csum_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct csum_count *n = ctx;
    const uint8_t *f = p->data;
    if (p->len < 74 || f[12] != 0x86 || f[13] != 0xdd || f[20] != IP4_PROTO_TCP) {
        n->v4 += f[12] == 0x08 && f[13] == 0x00;
        return true;
    }
    bool partial = (p->flags & PKT_TX_L4_CSUM) != 0;
    uint16_t want = ref_csum6(f, p->len, partial), got = (uint16_t)(f[54 + 16] << 8 | f[54 + 17]);
    if (!partial && want == 0)
        want = 0xffff;
    if (got != want)
        n->wrong++;
    if (partial)
        n->partial++;
    else
        n->full++;
    return true;
}

TEST(tcp6_handshake_and_1mb_each_way)
{
    struct tl_opts o = {.seed = 1};
    struct tl *l = tl_new(&o);
    struct csum_count cc = {0};
    l->tap = csum_tap;
    l->tap_ctx = &cc;
    struct pair *x = calloc(1, sizeof(*x));
    memset(x, 0, sizeof(*x));
    CHECK_EQ(ta_listen(l, 1, 5001, &x->a[1]), 0);
    CHECK(ta_connect6(l, 0, 5001, &x->a[0]) != NULL);
    tl_run(l, NULL, NULL, 10000000ull);
    CHECK_EQ(x->a[0].connected, 1);
    CHECK_EQ(x->a[1].accepted, 1);
    /* What both ends say of the connection. */
    struct tcp_info in[2];
    tcp_get_info(x->a[0].c, &in[0]);
    tcp_get_info(x->a[1].c, &in[1]);
    for (int i = 0; i < 2; i++) {
        CHECK(in[i].v6);
        CHECK_EQ(in[i].laddr_be, 0);
        CHECK(memcmp(in[i].laddr6, tl_addr6[i], 16) == 0);
        CHECK(memcmp(in[i].raddr6, tl_addr6[!i], 16) == 0);
        CHECK_EQ(in[i].mss, 1500 - 60);
        CHECK(in[i].sack && in[i].timestamps && in[i].wscale);
        CHECK_EQ(tcp_conn_state(x->a[i].c), TCP_ESTABLISHED);
    }
    CHECK_EQ(in[0].rport, 5001);
    CHECK_EQ(in[1].lport, 5001);
    CHECK(in[0].lport >= 49152);
    CHECK_EQ(tcp_mss(x->a[0].c), 1440 - 12);
    /* Neighbour discovery: one solicitation from the SYN's side (the
     * SYN-ACK's side learned from it). */
    CHECK_EQ(tl_ctr(l, 0, "nd6-tx-ns"), 1);
    CHECK_EQ(tl_ctr(l, 1, "nd6-tx-ns"), 0);
    tcp_close(x->a[0].c, l->now_ns);
    tcp_close(x->a[1].c, l->now_ns);
    CHECK(tl_run(l, both_done, x, 1000000000ull));
    CHECK_EQ(tcp_unlisten(l->s[1], 5001), 0);

    transfer6(l, x, 1u << 20, 1u << 20);
    no_malformed(l);
    for (int i = 0; i < 2; i++) {
        /* A lossless link: every segment sent arrives, nothing again. */
        CHECK_EQ(tl_ctr(l, i, "tcp-tx"), tl_ctr(l, !i, "tcp-rx"));
        CHECK_EQ(tl_ctr(l, i, "tcp-retransmit"), 0);
        CHECK_EQ(tl_ctr(l, i, "ip4-tx"), 0);
        CHECK_EQ(tl_ctr(l, i, "tcp-tso"), 0);
        CHECK(tl_ctr(l, i, "ip6-tx") >= tl_ctr(l, i, "tcp-tx"));
    }
    CHECK_EQ(tl_ctr(l, 1, "tcp-accepted"), 2);
    CHECK_EQ(tl_ctr(l, 0, "tcp-connected"), 2);
    CHECK_EQ(cc.v4, 0);
    CHECK_EQ(cc.wrong, 0);
    CHECK_EQ(cc.partial, 0); /* no offload: summed in software */
    CHECK(cc.full > 1400);
    free(x);
    CHECK(tl_free(l));
}

TEST(tcp6_checksum_offload_partial_sums)
{
    struct tl_opts o = {.offloads = NETDEV_OFF_TX_CSUM | NETDEV_OFF_RX_CSUM, .seed = 2};
    struct tl *l = tl_new(&o);
    struct csum_count cc = {0};
    l->tap = csum_tap;
    l->tap_ctx = &cc;
    struct pair *x = calloc(1, sizeof(*x));
    transfer6(l, x, 1u << 20, 64u << 10);
    no_malformed(l);
    CHECK_EQ(cc.wrong, 0);
    CHECK(cc.partial > 700); /* the template's segments: the NIC sums */
    CHECK(cc.full > 0);      /* SYNs through ip6_output: summed here */
    free(x);
    CHECK(tl_free(l));
}

struct corrupt {
    int left;                   /* data segments still to damage */
    bool field_only;            /* the checksum field, else the urgent pointer */
};

static bool corrupt_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct corrupt *k = ctx;
    struct ta_seg s;
    if (k->left == 0 || from != 0 || !ta_parse(p, &s) || s.len < 100)
        return true;
    k->left--;
    if (p->flags & PKT_TX_L4_CSUM)
        csum_pkt_finish(p); /* as the NIC would, then the damage */
    /* (Header bytes: the payload is the send queue's own buffer, sent
     * again as it is; every header byte is written anew each time.) */
    p->data[k->field_only ? 54 + 16 : 54 + 18] ^= 0x5a;
    return true;
}

/* A damaged segment is dropped as tcp-bad-checksum and sent again; a NIC
 * that checked the sum (PKT_RX_L4_CSUM_OK) is believed. */
TEST(tcp6_bad_checksum_and_rx_offload)
{
    for (int rx_off = 0; rx_off < 2; rx_off++) {
        struct tl_opts o = {.offloads = rx_off ? NETDEV_OFF_RX_CSUM : 0, .seed = 3};
        struct tl *l = tl_new(&o);
        struct corrupt k = {.left = 3, .field_only = true};
        l->tap = corrupt_tap;
        l->tap_ctx = &k;
        struct pair *x = calloc(1, sizeof(*x));
        transfer6(l, x, 256u << 10, 0);
        CHECK_EQ(k.left, 0);
        CHECK_EQ(tl_ctr(l, 1, "tcp-bad-checksum"), rx_off ? 0 : 3);
        CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit") > 0, !rx_off);
        free(x);
        CHECK(tl_free(l));
    }
    struct tl_opts o = {.seed = 4};
    struct tl *l = tl_new(&o);
    struct corrupt k = {.left = 2, .field_only = false};
    l->tap = corrupt_tap;
    l->tap_ctx = &k;
    struct pair *x = calloc(1, sizeof(*x));
    transfer6(l, x, 256u << 10, 0); /* intact: the damaged segments never got in */
    CHECK_EQ(tl_ctr(l, 1, "tcp-bad-checksum"), 2);
    free(x);
    CHECK(tl_free(l));
}

/* 1% loss, reordering, duplicates: SACK recovery over IPv6 without
 * timeouts doing the work. */
TEST(tcp6_sack_recovery_at_loss)
{
    struct tl_opts o = {.loss_ppm = 10000, .reorder_ppm = 10000, .dup_ppm = 5000, .seed = 61};
    struct tl *l = tl_new(&o);
    struct pair *x = calloc(1, sizeof(*x));
    transfer6(l, x, 4u << 20, 1u << 20);
    CHECK(l->lost > 0);
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(tl_ctr(l, i, "tcp-bad-checksum"), 0);
        CHECK_EQ(tl_ctr(l, i, "tcp-timeout"), 0);
        /* Resets only to strays (a late duplicate ACK) after the close. */
        CHECK_EQ(tl_ctr(l, i, "tcp-rst-tx"), tl_ctr(l, i, "tcp-no-port"));
    }
    CHECK(tl_ctr(l, 0, "tcp-fast-recovery") > 0);
    CHECK(tl_ctr(l, 1, "tcp-ooo-queued") > 0);
    CHECK(tl_ctr(l, 0, "tcp-retransmit") > 0);
    CHECK(tl_ctr(l, 0, "tcp-rto") * 4 < tl_ctr(l, 0, "tcp-fast-recovery"));
    free(x);
    CHECK(tl_free(l));
}

TEST(tcp6_rst_to_closed_port)
{
    struct tl_opts o = {.seed = 5};
    struct tl *l = tl_new(&o);
    struct ta a = {0};
    CHECK(ta_connect6(l, 0, 9, &a) != NULL);
    tl_run(l, NULL, NULL, 100000000ull);
    CHECK_EQ(a.closed, 1);
    CHECK_EQ(a.close_reason, TCP_CLOSE_REFUSED);
    CHECK_EQ(tl_ctr(l, 1, "tcp-rx"), 1);
    CHECK_EQ(tl_ctr(l, 1, "tcp-no-port"), 1);
    CHECK_EQ(tl_ctr(l, 1, "tcp-rst-tx"), 1);
    CHECK_EQ(tl_ctr(l, 1, "tcp-tx"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-tx"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rx"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rst-rx"), 1);
    uint32_t idx = 0;
    CHECK(tcp_conn_next(l->t[0], &idx) == NULL);
    CHECK(tl_free(l));
}

/* Backlog 0: every SYN gets a cookie (over the IPv6 tuple); the ACK makes
 * the connection, with the MSS, SACK and window scale it encoded. */
TEST(tcp6_syn_cookies)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.backlog = 0;
    struct tl_opts o = {.seed = 6, .cfg = {NULL, &cfg}};
    struct tl *l = tl_new(&o);
    struct pair *x = calloc(1, sizeof(*x));
    transfer6(l, x, 512u << 10, 100000);
    no_malformed(l);
    CHECK_EQ(tl_ctr(l, 1, "tcp-syncookie-tx"), 1);
    CHECK_EQ(tl_ctr(l, 1, "tcp-syncookie-ok"), 1);
    CHECK_EQ(tl_ctr(l, 1, "tcp-syncookie-bad"), 0);
    CHECK_EQ(tl_ctr(l, 1, "tcp-accepted"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-connected"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit"), 0);
    free(x);
    CHECK(tl_free(l));
}

static bool info_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    uint16_t *mss = ctx;
    struct ta_seg s;
    if (from == 1 && ta_parse(p, &s) && (s.flags & TCP_SYN) && s.opt.has_mss)
        *mss = s.opt.mss;
    return true;
}

TEST(tcp6_syn_cookie_mss)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.backlog = 0;
    struct tl_opts o = {.seed = 7, .cfg = {NULL, &cfg}};
    struct tl *l = tl_new(&o);
    uint16_t mss = 0;
    l->tap = info_tap;
    l->tap_ctx = &mss;
    struct pair *x = calloc(1, sizeof(*x));
    transfer6(l, x, 10000, 10000);
    CHECK_EQ(mss, 1440); /* IPv6's 1500 - 60, in the cookie's table */
    free(x);
    CHECK(tl_free(l));
}

/* TSO6 on a TSO6 device: whole slots leave as one frame, cut by the
 * "NIC"; a TSO4-only device gets none for IPv6. */
TEST(tcp6_tso_frames)
{
    for (int six = 0; six < 2; six++) {
        uint32_t tso = six ? NETDEV_OFF_TSO6 : NETDEV_OFF_TSO4;
        struct tl_opts o = {.offloads = NETDEV_OFF_TX_CSUM | NETDEV_OFF_RX_CSUM | tso,
                            .loss_ppm = 5000,
                            .seed = 31};
        struct tl *l = tl_new(&o);
        struct pair *x = calloc(1, sizeof(*x));
        transfer6(l, x, 8u << 20, 0);
        CHECK_EQ(tl_ctr(l, 1, "tcp-bad-checksum"), 0);
        uint64_t n = tl_ctr(l, 0, "tcp-tso");
        CHECK_EQ(l->tso_frames, n);
        if (six) {
            CHECK(n > 0);
            CHECK(tl_ctr(l, 0, "tcp-tx") >= 2 * n);
            fprintf(stderr, "  8 MB over IPv6: %lu TSO frames for %lu segments\n", (unsigned long)n,
                    (unsigned long)tl_ctr(l, 0, "tcp-tx"));
        } else {
            CHECK_EQ(n, 0);
        }
        free(x);
        CHECK(tl_free(l));
    }
}

static bool all_closed(void *ctx)
{
    struct ta *a = ctx;
    for (int i = 0; i < 16; i++)
        if (!a[i].closed)
            return false;
    return true;
}

/* One listener, both families at once: four IPv4 and four IPv6
 * connections to port 80, each with its own data. */
TEST(tcp6_listener_serves_both_families)
{
    struct tl_opts o = {.seed = 8};
    struct tl *l = tl_new(&o);
    struct ta *a = calloc(16, sizeof(*a)); /* 0..7 clients, 8..15 servers */
    for (int i = 0; i < 8; i++) {
        a[i].tx_total = 10000u + 1000u * (unsigned)i;
        a[i].close_when_sent = true;
        a[8 + i].close_on_fin = true;
        a[8 + i].next = i < 7 ? &a[9 + i] : NULL;
    }
    CHECK_EQ(ta_listen(l, 1, 80, &a[8]), 0);
    for (int i = 0; i < 8; i++)
        CHECK((i & 1 ? ta_connect6(l, 0, 80, &a[i]) : ta_connect(l, 0, 80, &a[i])) != NULL);
    CHECK(tl_run(l, all_closed, a, 10000000000ull));
    uint64_t got = 0, want = 0;
    for (int i = 0; i < 8; i++) {
        want += a[i].tx_total;
        got += a[8 + i].rx_bytes;
        CHECK_EQ(a[8 + i].rx_bad, 0);
        CHECK_EQ(a[i].close_reason, TCP_CLOSE_NORMAL);
    }
    CHECK_EQ(got, want);
    CHECK_EQ(tl_ctr(l, 1, "tcp-accepted"), 8);
    CHECK(tl_ctr(l, 0, "ip4-tx") > 0 && tl_ctr(l, 0, "ip6-tx") > 0);
    no_malformed(l);
    free(a);
    CHECK(tl_free(l));
}

/* A link-local peer: the port comes from where the SYN came in. */
TEST(tcp6_link_local_peer)
{
    struct tl_opts o = {.seed = 9};
    struct tl *l = tl_new(&o);
    struct pair *x = calloc(1, sizeof(*x));
    x->a[0].tx_total = 100000;
    x->a[0].close_when_sent = true;
    x->a[1].close_on_fin = true;
    CHECK_EQ(ta_listen(l, 1, 7, &x->a[1]), 0);
    x->a[0].c = tcp_connect6_from(l->s[0], 0, l->s[1]->iface[0].ll6, 7, &ta_cb, &x->a[0], l->now_ns);
    CHECK(x->a[0].c != NULL);
    CHECK(tl_run(l, both_done, x, 10000000000ull));
    CHECK_EQ(x->a[1].rx_bytes, 100000);
    CHECK_EQ(x->a[1].rx_bad, 0);
    no_malformed(l);
    free(x);
    CHECK(tl_free(l));
}
