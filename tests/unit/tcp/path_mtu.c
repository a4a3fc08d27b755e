/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/path_mtu.c: path MTU discovery (net/tcp/tcp_icmp.c). A
 * "router" on the link drops side 0's packets larger than its MTU and
 * answers each with ICMP fragmentation needed (RFC 1191) or packet too big
 * (RFC 8201), as Linux does; the transfer must finish intact at the
 * smaller size without a retransmission timeout. Errors that quote no
 * segment in flight, or a larger size, change nothing. */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "tests/support/tcp_app.h"

#include "net/core/csum.h"
#include "net/ip/ip6.h"
#include "net/core/wire.h"

#define ROUTER4 NET_IP4(10, 0, 0, 254)
static const uint8_t router6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0xfe};

/* The router: errors waiting to go to side 0 (sent from done()). */
struct narrow {
    struct tl *l;
    uint32_t mtu;               /* of IP packets; 0: let all through */
    bool heals;                 /* the black hole goes once it has been found */
    uint32_t largest_after;     /* side 0's largest IP packet that passed after healing */
    uint32_t reported;          /* the MTU the errors give (normally mtu; 0: no errors, a black hole) */
    uint32_t dropped;
    uint8_t err[16][1600];
    size_t err_len[16];
    uint32_t nerr;
    struct ta a[2];
};

static size_t icmp4_error(uint8_t *f, struct tl *l, const uint8_t *ip, uint32_t mtu)
{
    uint32_t quote = (uint32_t)(ip[0] & 0x0f) * 4 + 8; /* RFC 792's minimum */
    memcpy(f, l->nd[0].dev.mac, 6);
    memcpy(f + 6, l->nd[1].dev.mac, 6);
    f[12] = 0x08, f[13] = 0x00;
    uint8_t *h = f + ETH_HDR_LEN, *m = h + IP4_HDR_LEN;
    uint16_t tot = (uint16_t)(IP4_HDR_LEN + ICMP4_HDR_LEN + quote);
    uint32_t src = ROUTER4, dst;
    memcpy(&dst, ip + 12, 4);
    memset(h, 0, IP4_HDR_LEN);
    h[0] = 0x45, h[2] = (uint8_t)(tot >> 8), h[3] = (uint8_t)tot, h[8] = 64, h[9] = IP4_PROTO_ICMP;
    memcpy(h + 12, &src, 4);
    memcpy(h + 16, &dst, 4);
    uint16_t c = csum_finish(csum_partial(h, IP4_HDR_LEN, 0));
    memcpy(h + 10, &c, 2);
    memset(m, 0, ICMP4_HDR_LEN);
    m[0] = ICMP4_UNREACH, m[1] = ICMP4_UNREACH_NEEDFRAG, m[6] = (uint8_t)(mtu >> 8), m[7] = (uint8_t)mtu;
    memcpy(m + ICMP4_HDR_LEN, ip, quote);
    c = csum_finish(csum_partial(m, ICMP4_HDR_LEN + quote, 0));
    memcpy(m + 2, &c, 2);
    return ETH_HDR_LEN + tot;
}

static size_t icmp6_error(uint8_t *f, struct tl *l, const uint8_t *ip, uint32_t len, uint32_t mtu)
{
    uint32_t quote = len < 1000 ? len : 1000; /* as much as fits in 1280 (RFC 4443 3.2) */
    memcpy(f, l->nd[0].dev.mac, 6);
    memcpy(f + 6, l->nd[1].dev.mac, 6);
    f[12] = 0x86, f[13] = 0xdd;
    uint8_t *h = f + ETH_HDR_LEN, *m = h + IP6_HDR_LEN;
    uint16_t plen = (uint16_t)(ICMP6_HDR_LEN + quote);
    memset(h, 0, IP6_HDR_LEN);
    h[0] = 0x60, h[4] = (uint8_t)(plen >> 8), h[5] = (uint8_t)plen, h[6] = IP6_PROTO_ICMP6, h[7] = 64;
    memcpy(h + 8, router6, 16);
    memcpy(h + 24, ip + 8, 16); /* to the quoted packet's source */
    memset(m, 0, ICMP6_HDR_LEN);
    m[0] = ICMP6_TOO_BIG;
    m[4] = (uint8_t)(mtu >> 24), m[5] = (uint8_t)(mtu >> 16), m[6] = (uint8_t)(mtu >> 8), m[7] = (uint8_t)mtu;
    memcpy(m + ICMP6_HDR_LEN, ip, quote);
    uint16_t c = ip6_l4_csum(h + 8, h + 24, IP6_PROTO_ICMP6, m, plen);
    memcpy(m + 2, &c, 2);
    return ETH_HDR_LEN + IP6_HDR_LEN + plen;
}

static bool narrow_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct narrow *n = ctx;
    const uint8_t *ip = p->data + ETH_HDR_LEN;
    bool v6 = p->data[12] == 0x86;
    if (n->heals && n->mtu && tl_ctr(l, 0, "tcp-pmtu-blackhole"))
        n->mtu = 0;
    if (from == 0 && n->heals && n->mtu == 0 && p->len - ETH_HDR_LEN > n->largest_after)
        n->largest_after = p->len - ETH_HDR_LEN;
    if (from != 0 || n->mtu == 0 || p->len - ETH_HDR_LEN <= n->mtu)
        return true;
    n->dropped++;
    if (n->reported && n->nerr < 16) {
        uint8_t *f = n->err[n->nerr];
        n->err_len[n->nerr++] = v6 ? icmp6_error(f, l, ip, p->len - ETH_HDR_LEN, n->reported)
                                   : icmp4_error(f, l, ip, n->reported);
    }
    return false;
}

static bool done_or_send_errors(void *ctx)
{
    struct narrow *n = ctx;
    for (uint32_t i = 0; i < n->nerr; i++)
        tl_inject(n->l, 0, n->err[i], n->err_len[i]);
    n->nerr = 0;
    return n->a[0].closed && n->a[1].closed;
}

/* size bytes from side 0 to side 1 (port 5001, IPv6 when six) through a
 * router of mtu; both close. */
static void transfer(struct narrow *n, bool six, uint64_t size)
{
    struct tl *l = n->l;
    n->a[0].tx_total = size;
    n->a[0].zero_copy = true;
    n->a[0].close_when_sent = n->a[1].close_when_sent = true;
    n->a[1].close_on_fin = true;
    l->tap = narrow_tap;
    l->tap_ctx = n;
    CHECK_EQ(ta_listen(l, 1, 5001, &n->a[1]), 0);
    CHECK((six ? ta_connect6(l, 0, 5001, &n->a[0]) : ta_connect(l, 0, 5001, &n->a[0])) != NULL);
    CHECK(tl_run(l, done_or_send_errors, n, 60000000000ull));
    CHECK_EQ(n->a[1].rx_bytes, size);
    CHECK_EQ(n->a[1].rx_bad, 0);
    CHECK_EQ(n->a[0].close_reason, TCP_CLOSE_NORMAL);
}

static struct narrow *narrow_new_opts(uint32_t mtu, uint32_t reported, struct tl_opts o)
{
    struct narrow *n = calloc(1, sizeof(*n));
    n->l = tl_new(&o);
    n->mtu = mtu;
    n->reported = reported;
    return n;
}

static struct narrow *narrow_new(uint32_t mtu, uint32_t reported)
{
    return narrow_new_opts(mtu, reported, (struct tl_opts){.seed = 7});
}

static void narrow_free(struct narrow *n)
{
    CHECK(tl_free(n->l));
    free(n);
}

/* 1500 on our link, 1200 on the way: one error lowers the segment size,
 * the flight goes again at once, the rest of the 4 MB fits. */
TEST(tcp_pmtu_ipv4_lowered_without_timeout)
{
    struct narrow *n = narrow_new(1200, 1200);
    transfer(n, false, 4u << 20);
    struct tl *l = n->l;
    CHECK_EQ(tl_ctr(l, 0, "tcp-pmtu-lowered"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-icmp-ignored"), n->dropped - 1); /* the rest report the size already taken */
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0);
    CHECK(n->dropped >= 2 && n->dropped <= 10);                 /* the first flight only */
    CHECK(tl_ctr(l, 0, "tcp-retransmit") >= n->dropped);
    narrow_free(n);
}

/* IPv6: packet too big with 1280, the minimum; as above. */
TEST(tcp_pmtu_ipv6_packet_too_big)
{
    struct narrow *n = narrow_new(1280, 1280);
    transfer(n, true, 4u << 20);
    struct tl *l = n->l;
    CHECK_EQ(tl_ctr(l, 0, "tcp-pmtu-lowered"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0);
    CHECK(n->dropped >= 2 && n->dropped <= 10);
    narrow_free(n);
}

/* No errors at all (a firewall drops them): after three timeouts in a
 * row the segments come down to 1024 bytes (IPv4) or what 1280 holds
 * (IPv6), and the rest goes through. */
TEST(tcp_pmtu_black_hole)
{
    for (int six = 0; six < 2; six++) {
        struct narrow *n = narrow_new(six ? 1400 : 1200, 0);
        transfer(n, six, 1u << 20);
        struct tl *l = n->l;
        CHECK_EQ(tl_ctr(l, 0, "tcp-pmtu-blackhole"), 1);
        CHECK_EQ(tl_ctr(l, 0, "tcp-pmtu-lowered"), 0);
        CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), TCP_BLACKHOLE_RTOS);
        fprintf(stderr, "  IPv%d black hole at %u: 1 MB after %lu timeouts, %.2f s\n", six ? 6 : 4, n->mtu,
                (unsigned long)tl_ctr(l, 0, "tcp-rto"), l->now_ns / 1e9);
        narrow_free(n);
    }
}

/* Black holes come and go: pmtu_probe_ns after the cut (2 s here, 10
 * minutes by default) the old size is tried again. Where the hole has
 * gone, full-sized segments pass from then on; where it stays, three
 * timeouts bring the size down again, every time, and the transfer
 * finishes intact, with TSO too (frames of slots queued small, cut at the
 * probed size). */
TEST(tcp_pmtu_black_hole_probed_again)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.pmtu_probe_ns = 2000000000ull;
    for (int heals = 0; heals < 2; heals++)
        for (int tso = 0; tso < 2; tso++) {
            struct tl_opts o = {.seed = 7, .rate_bps = 100000000, .cfg = {&cfg, &cfg}};
            o.offloads = tso ? NETDEV_OFF_TX_CSUM | NETDEV_OFF_TSO4 : 0;
            struct narrow *n = narrow_new_opts(1200, 0, o);
            n->heals = heals;
            transfer(n, false, 128u << 20);
            struct tl *l = n->l;
            uint64_t holes = tl_ctr(l, 0, "tcp-pmtu-blackhole"), probes = tl_ctr(l, 0, "tcp-pmtu-probe");
            fprintf(stderr, "  black hole at 1200%s%s: 128 MB in %.1f s, %lu cuts, %lu probes\n",
                    heals ? ", healed" : "", tso ? ", TSO" : "", l->now_ns / 1e9, (unsigned long)holes,
                    (unsigned long)probes);
            if (heals) {
                CHECK_EQ(holes, 1);
                CHECK_EQ(probes, 1);
                CHECK_EQ(n->largest_after, 1500); /* full-sized again */
            } else {
                /* Each cut after three timeouts; with TSO one more may
                 * come first, of a frame of small slots, whose small
                 * retransmission passes and resets the count. */
                uint64_t rto = tl_ctr(l, 0, "tcp-rto");
                CHECK(probes >= 2 && holes == probes + 1);
                CHECK(rto >= TCP_BLACKHOLE_RTOS * holes && rto <= (TCP_BLACKHOLE_RTOS + 1) * holes);
            }
            narrow_free(n);
        }
}

/* A size under the floor counts as the floor: 552 for IPv4 (segments of
 * 512), 1280 for IPv6. */
TEST(tcp_pmtu_floor)
{
    for (int six = 0; six < 2; six++) {
        struct narrow *n = narrow_new(six ? 1280 : 552, six ? 1000 : 300);
        transfer(n, six, 1u << 20);
        CHECK_EQ(tl_ctr(n->l, 0, "tcp-pmtu-lowered"), 1);
        CHECK_EQ(tl_ctr(n->l, 0, "tcp-rto"), 0);
        narrow_free(n);
    }
}

static bool connected(void *ctx)
{
    struct narrow *n = ctx;
    return n->a[0].connected && n->a[1].accepted;
}

/* An error quoting side 0's segment of c with seq, to dport. */
static void quote_error(struct narrow *n, struct tcp_conn *c, uint16_t dport, uint32_t seq, uint8_t type,
                        uint32_t mtu)
{
    uint8_t q[IP4_HDR_LEN + 8] = {0x45, [9] = IP4_PROTO_TCP};
    uint32_t a = TL_ADDR0, b = TL_ADDR1;
    memcpy(q + 12, &a, 4);
    memcpy(q + 16, &b, 4);
    uint8_t *th = q + IP4_HDR_LEN;
    th[0] = (uint8_t)(c->lport >> 8), th[1] = (uint8_t)c->lport, th[2] = (uint8_t)(dport >> 8), th[3] = (uint8_t)dport;
    th[4] = (uint8_t)(seq >> 24), th[5] = (uint8_t)(seq >> 16), th[6] = (uint8_t)(seq >> 8), th[7] = (uint8_t)seq;
    uint8_t f[128];
    size_t len = icmp4_error(f, n->l, q, mtu);
    f[ETH_HDR_LEN + IP4_HDR_LEN] = type; /* the checksum does not cover what we change back */
    if (type != ICMP4_UNREACH) {
        uint8_t *m = f + ETH_HDR_LEN + IP4_HDR_LEN;
        memset(m + 2, 0, 2);
        uint16_t cs = csum_finish(csum_partial(m, len - ETH_HDR_LEN - IP4_HDR_LEN, 0));
        memcpy(m + 2, &cs, 2);
    }
    tl_inject(n->l, 0, f, len);
}

/* Errors a blind attacker could send, or that say nothing new: the
 * segment size stays. Then a real one, and the transfer finishes. */
TEST(tcp_pmtu_errors_that_change_nothing)
{
    struct narrow *n = narrow_new(0, 0);
    struct tl *l = n->l;
    n->a[0].zero_copy = true;
    CHECK_EQ(ta_listen(l, 1, 5001, &n->a[1]), 0);
    struct tcp_conn *c = ta_connect(l, 0, 5001, &n->a[0]);
    CHECK(c != NULL);
    CHECK(tl_run(l, connected, n, 1000000000ull));
    struct tcp_info info;
    tcp_get_info(c, &info);
    CHECK_EQ(info.mss, 1460);
    n->a[0].tx_total = 1u << 20;
    ta_pump(&n->a[0], l->now_ns);
    tl_flush(l); /* a flight on the wire, not acknowledged */
    CHECK(c->snd_nxt != c->snd_una);
    quote_error(n, c, 5001, c->snd_una - 1, ICMP4_UNREACH, 1000);       /* acknowledged already */
    quote_error(n, c, 5001, c->snd_nxt, ICMP4_UNREACH, 1000);           /* not sent */
    quote_error(n, c, 5002, c->snd_una, ICMP4_UNREACH, 1000);           /* no such connection */
    quote_error(n, c, 5001, c->snd_una, ICMP4_UNREACH, 1500);           /* no smaller */
    quote_error(n, c, 5001, c->snd_una, ICMP4_TIME_EXCEEDED, 1000);     /* soft */
    tcp_get_info(c, &info);
    CHECK_EQ(info.mss, 1460);
    CHECK_EQ(tl_ctr(l, 0, "tcp-icmp-ignored"), 5);
    CHECK_EQ(tl_ctr(l, 0, "icmp4-rx-error"), 5);
    CHECK_EQ(tl_ctr(l, 0, "tcp-pmtu-lowered"), 0);
    quote_error(n, c, 5001, c->snd_una, ICMP4_UNREACH, 1000);
    tcp_get_info(c, &info);
    CHECK_EQ(info.mss, 960);
    CHECK_EQ(tl_ctr(l, 0, "tcp-pmtu-lowered"), 1);
    n->a[0].close_when_sent = n->a[1].close_on_fin = true;
    ta_pump(&n->a[0], l->now_ns);
    CHECK(tl_run(l, done_or_send_errors, n, 60000000000ull));
    CHECK_EQ(n->a[1].rx_bytes, 1u << 20);
    CHECK_EQ(n->a[1].rx_bad, 0);
    narrow_free(n);
}

/* A slot queued before the path narrowed goes as two segments. The first
 * half of one is late, so it is sent again (both halves) and the peer
 * reports that first half twice; the second half of another was really
 * lost. The D-SACK of a half must not count for the whole copy: the
 * recovery stands. */
struct halves {
    struct narrow *n;
    bool dropped, delayed;
};

static bool halves_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct halves *h = ctx;
    struct ta_seg s;
    if (from == 0 && ta_parse(p, &s) && s.len) {
        uint32_t off = s.seq - (h->n->a[0].c->iss + 1);
        if (!h->dropped && off == 153 * 1448 + 1148) {
            h->dropped = true;
            return false;
        }
        if (!h->delayed && off == 150 * 1448) {
            h->delayed = true;
            l->tap_delay_ns = 300000;
        }
    }
    return narrow_tap(h->n, l, from, p);
}

TEST(tcp_pmtu_half_reported_twice_is_not_an_undo)
{
    struct narrow *n = narrow_new_opts(1200, 1200, (struct tl_opts){.delay_ns = 1000000});
    struct halves h = {.n = n};
    struct tl *l = n->l;
    n->a[0].tx_total = 4u << 20;
    n->a[0].zero_copy = true;
    n->a[0].close_when_sent = n->a[1].close_when_sent = true;
    n->a[1].close_on_fin = true;
    l->tap = halves_tap;
    l->tap_ctx = &h;
    CHECK_EQ(ta_listen(l, 1, 5001, &n->a[1]), 0);
    CHECK(ta_connect(l, 0, 5001, &n->a[0]) != NULL);
    CHECK(tl_run(l, done_or_send_errors, n, 60000000000ull));
    CHECK_EQ(n->a[1].rx_bytes, 4u << 20);
    CHECK(h.dropped && h.delayed);
    CHECK(tl_ctr(l, 0, "tcp-dsack-rx") > 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-undo"), 0);
    narrow_free(n);
}
