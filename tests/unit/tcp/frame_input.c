/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/frame_input.c: eth_input's frame paths into TCP
 * (tcp_input_frame4 and tcp_input_frame6, net/tcp/tcp_input.c): each takes the
 * usual frame of a connection and leaves every other frame untouched for
 * the layers, and a whole exchange through it (loss, duplicates,
 * reordering, both FINs) counts and delivers exactly what the layers do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "tests/support/tcp_app.h"

#define SEC 1000000000ull

static uint64_t *counters(struct tl *l, int side)
{
    size_t n = 0;
    while (net_counter_at(n))
        n++;
    uint64_t *v = calloc(n + 1, sizeof(*v));
    for (size_t i = 0; i < n; i++)
        v[i] = net_counter_get(&l->s[side]->ctr, net_counter_at(i));
    return v;
}

/* The counters of side that differ between a and b (none: 0). */
static int counters_differ(const uint64_t *a, const uint64_t *b)
{
    int d = 0;
    for (size_t i = 0; net_counter_at(i); i++)
        if (a[i] != b[i]) {
            fprintf(stderr, "  %s: %llu against %llu\n", net_counter_at(i)->name, (unsigned long long)a[i],
                    (unsigned long long)b[i]);
            d++;
        }
    return d;
}

/* Side 1 receives frame f as the NIC hands it over, with flags. */
static struct pkt *rx(struct tl *l, const uint8_t *f, size_t len, uint16_t flags)
{
    struct pkt *p = pkt_alloc(&l->pool[1]);
    memcpy(p->data, f, len);
    p->len = (uint16_t)len;
    p->flags = flags;
    p->port = 0;
    return p;
}

/* The usual frame f (3 bytes of the pattern to side 1's connection a[1]):
 * the frame path takes it, TCP delivers it, and it is counted as the
 * layers count it (eth-rx is eth_input's, before the frame path), since
 * mid; then the pair ends. */
static void taken_then_end(struct tl *l, struct ta *a, const uint8_t *f, size_t len, bool v6, uint64_t *before,
                           uint64_t *mid)
{
    struct tcp_conn *c = a[1].c;
    uint32_t rcv_nxt = c->rcv_nxt;
    struct pkt *p = rx(l, f, len, PKT_RX_L4_CSUM_OK);
    struct net_iface *ifc = &l->s[1]->iface[0];
    CHECK(v6 ? tcp_input_frame6(l->s[1], ifc, p, l->now_ns) : tcp_input_frame4(l->s[1], ifc, p, l->now_ns));
    tl_flush(l);
    CHECK_EQ(a[1].rx_bytes, 3);
    CHECK_EQ(a[1].rx_bad, 0);
    CHECK_EQ(c->rcv_nxt, rcv_nxt + 3);
    uint64_t *after = counters(l, 1);
    const char *ip = v6 ? "ip6" : "ip4";
    char rx_name[16], local[16], tx[16];
    snprintf(rx_name, sizeof(rx_name), "%s-rx", ip);
    snprintf(local, sizeof(local), "%s-local", ip);
    snprintf(tx, sizeof(tx), "%s-tx", ip);
    for (size_t i = 0; net_counter_at(i); i++) {
        const char *name = net_counter_at(i)->name;
        bool one = !strcmp(name, rx_name) || !strcmp(name, local) || !strcmp(name, "tcp-rx");
        bool sent = !strcmp(name, "tcp-tx") || !strcmp(name, tx) || !strcmp(name, "eth-tx");
        if (one)
            CHECK_EQ(after[i] - mid[i], 1);
        else if (!sent)
            CHECK_EQ(after[i] - mid[i], 0);
    }
    free(before);
    free(mid);
    free(after);
    tcp_abort(a[0].c, l->now_ns);
    tcp_abort(a[1].c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    CHECK(tl_free(l));
}

static void ip_sum(uint8_t *f)
{
    uint8_t *ip = f + ETH_HDR_LEN;
    ip[10] = ip[11] = 0;
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
        sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    ip[10] = (uint8_t)(~sum >> 8);
    ip[11] = (uint8_t)~sum;
}

TEST(tcp_frame_path_takes_the_usual_frame_only)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.timestamps = false;
    struct tl_opts o = {.cfg = {&cfg, &cfg}};
    struct ta a[2] = {{0}};
    struct tl *l = ta_pair(a, &o);
    struct tcp_conn *c = a[1].c;
    struct net_iface *ifc = &l->s[1]->iface[0];
    uint8_t good[200], f[200], data[3] = {ta_byte(0), ta_byte(1), ta_byte(2)};
    size_t good_len = ta_frame(good, 1, c->rport, c->lport, c->rcv_nxt, c->snd_nxt, TCP_ACK | TCP_PSH, 1000, NULL,
                               0, data, 3);
    uint64_t *before = counters(l, 1);

    /* Each of these goes to the layers: false, the frame as it was, no
     * counter moved. */
    static const uint8_t sack[12] = {1, 1, 5, 10, 0, 0, 0, 1, 0, 0, 0, 2};
    for (int k = 0; k < 17; k++) {
        memcpy(f, good, good_len);
        size_t len = good_len;
        uint16_t flags = PKT_RX_L4_CSUM_OK;
        uint8_t *ip = f + ETH_HDR_LEN, *tcp = ip + IP4_HDR_LEN;
        switch (k) {
        case 0: flags = 0; break;                                      /* checksum not checked */
        case 1: flags |= PKT_RX_L4_CSUM_BAD; break;
        case 2: ip[0] = 0x46; break;                                   /* IP options */
        case 3: ip[6] |= 0x20; ip_sum(f); break;                       /* more fragments */
        case 4: ip[19] = 77; ip_sum(f); break;                         /* another address */
        case 5: ip[11] ^= 1; break;                                    /* IP checksum */
        case 6: tcp[13] |= TCP_SYN; break;
        case 7: tcp[13] |= TCP_RST; break;
        case 8: tcp[13] = TCP_PSH; break;                              /* no ACK */
        case 9: memcpy(ip + 12, ip + 16, 4); ip_sum(f); break;         /* land */
        case 10: tcp[0] ^= 0x40; break;                                /* no connection */
        case 11: ip[2] = 0; ip[3] = 30; ip_sum(f); break;              /* total length short of the headers */
        case 12: ip[3] = (uint8_t)(ip[3] + 100); ip_sum(f); break;     /* beyond the frame */
        case 13: tcp[12] = 4 << 4; break;                              /* data offset under 5 */
        case 14: len = ETH_HDR_LEN + IP4_HDR_LEN + 10; break;          /* runt */
        case 15: ip[9] = IP4_PROTO_UDP; ip_sum(f); break;
        case 16: /* SACK blocks: the full option parser's */
            len = ta_frame(f, 1, c->rport, c->lport, c->rcv_nxt, c->snd_nxt, TCP_ACK, 1000, sack, 12, data, 3);
            break;
        }
        struct pkt *p = rx(l, f, len, flags);
        CHECK(!tcp_input_frame4(l->s[1], ifc, p, l->now_ns));
        CHECK_EQ(p->len, len);
        CHECK(memcmp(p->data, f, len) == 0);
        pkt_free(p);
    }
    uint64_t *mid = counters(l, 1);
    CHECK_EQ(counters_differ(before, mid), 0);
    CHECK_EQ(a[1].rx_bytes, 0);

    /* A connection still in SYN-SENT: the layers'. */
    struct ta a2 = {0};
    struct tcp_conn *c2 = ta_connect(l, 1, 81, &a2);
    CHECK(c2 != NULL && c2->state == TCP_SYN_SENT);
    size_t n = ta_frame(f, 1, c2->rport, c2->lport, 1, c2->snd_nxt, TCP_ACK, 1000, NULL, 0, NULL, 0);
    struct pkt *p = rx(l, f, n, PKT_RX_L4_CSUM_OK);
    CHECK(!tcp_input_frame4(l->s[1], ifc, p, l->now_ns));
    pkt_free(p);
    tcp_abort(c2, l->now_ns);

    /* The usual one: taken, delivered, counted as the layers count it
     * (eth-rx is eth_input's, before it). */
    taken_then_end(l, a, good, good_len, false, before, mid);
}

static bool both_open(void *ctx)
{
    struct ta *a = ctx;
    return a[0].connected && a[1].accepted;
}

/* One exchange: 200 KB from side 0 over a lossy, duplicating, reordering
 * link, IPv4 or IPv6, then both FINs and TIME-WAIT. The counters of both
 * sides after. */
static void exchange(uint32_t offloads, bool v6, uint64_t *ctr[2], uint64_t *rx_bytes)
{
    struct tl_opts o = {.offloads = offloads, .seed = 11, .loss_ppm = 20000, .dup_ppm = 5000, .reorder_ppm = 5000};
    struct ta a[2] = {{0}};
    struct tl *l = tl_new(&o);
    CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
    CHECK((v6 ? ta_connect6(l, 0, 80, &a[0]) : ta_connect(l, 0, 80, &a[0])) != NULL);
    tl_run(l, both_open, a, 10 * SEC);
    CHECK(a[0].connected && a[1].accepted);
    a[0].tx_total = 200000;
    a[0].zero_copy = true;
    a[0].close_when_sent = true;
    a[1].close_on_fin = true;
    ta_pump(&a[0], l->now_ns);
    tl_run(l, NULL, NULL, 600 * SEC);
    CHECK_EQ(a[1].rx_bad, 0);
    CHECK_EQ(a[0].closed, 1);
    CHECK_EQ(a[1].closed, 1);
    CHECK_EQ(a[0].close_reason, TCP_CLOSE_NORMAL);
    *rx_bytes = a[1].rx_bytes;
    for (int i = 0; i < 2; i++)
        ctr[i] = counters(l, i);
    CHECK(tl_free(l));
}

static void counts_as_the_layers_do(bool v6)
{
    uint64_t *frame[2], *layers[2], got_frame, got_layers;
    exchange(NETDEV_OFF_TX_CSUM | NETDEV_OFF_RX_CSUM, v6, frame, &got_frame);
    exchange(NETDEV_OFF_TX_CSUM, v6, layers, &got_layers);
    CHECK_EQ(got_frame, 200000);
    CHECK_EQ(got_layers, 200000);
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(counters_differ(frame[i], layers[i]), 0);
        free(frame[i]);
        free(layers[i]);
    }
}

TEST(tcp_frame_path_counts_as_the_layers_do) { counts_as_the_layers_do(false); }
TEST(tcp_frame_path6_counts_as_the_layers_do) { counts_as_the_layers_do(true); }

/* The first IPv6 frame with data from side 0, kept and not delivered. */
static uint8_t cap[256];
static size_t cap_len;

static bool cap_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    const uint8_t *d = p->data;
    if (from != 0 || cap_len || p->len > sizeof(cap) || p->len < 74 || d[12] != 0x86 || d[13] != 0xdd ||
        d[20] != IP4_PROTO_TCP || (uint32_t)(d[18] << 8 | d[19]) <= (uint32_t)(d[66] >> 4) * 4u)
        return true;
    memcpy(cap, d, p->len);
    cap_len = p->len;
    return false;
}

TEST(tcp_frame_path6_takes_the_usual_frame_only)
{
    struct tl_opts o = {.seed = 3};
    struct ta a[2] = {{0}};
    struct tl *l = tl_new(&o);
    CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
    CHECK(ta_connect6(l, 0, 80, &a[0]) != NULL);
    tl_run(l, both_open, a, 10 * SEC);
    CHECK(a[0].connected && a[1].accepted);
    struct net_iface *ifc = &l->s[1]->iface[0];
    uint8_t data[3] = {ta_byte(0), ta_byte(1), ta_byte(2)}, f[256];
    cap_len = 0;
    l->tap = cap_tap;
    CHECK_EQ(tcp_write(a[0].c, data, 3, l->now_ns), 3);
    tl_flush(l);
    l->tap = NULL;
    CHECK(cap_len > 0);
    uint64_t *before = counters(l, 1);
    for (int k = 0; k < 10; k++) {
        memcpy(f, cap, cap_len);
        uint16_t flags = PKT_RX_L4_CSUM_OK;
        uint8_t *ip = f + ETH_HDR_LEN, *tcp = ip + IP6_HDR_LEN;
        switch (k) {
        case 0: flags = 0; break;
        case 1: flags |= PKT_RX_L4_CSUM_BAD; break;
        case 2: ip[6] = 0; break;                       /* a hop-by-hop header first */
        case 3: ip[39] ^= 1; break;                     /* another address */
        case 4: memcpy(ip + 8, ip + 24, 16); break;     /* land */
        case 5: tcp[13] |= TCP_SYN; break;
        case 6: tcp[13] |= TCP_RST; break;
        case 7: ip[4] = 0x7f; break;                    /* payload length beyond the frame */
        case 8: tcp[12] = 15 << 4; break;               /* data offset beyond the payload */
        case 9: ip[0] = 0x45; break;                    /* not version 6 */
        }
        struct pkt *p = rx(l, f, cap_len, flags);
        CHECK(!tcp_input_frame6(l->s[1], ifc, p, l->now_ns));
        CHECK(memcmp(p->data, f, cap_len) == 0);
        pkt_free(p);
    }
    ifc->has6 = false; /* IPv6 off on the port: ip6_input's to drop */
    struct pkt *p = rx(l, cap, cap_len, PKT_RX_L4_CSUM_OK);
    CHECK(!tcp_input_frame6(l->s[1], ifc, p, l->now_ns));
    pkt_free(p);
    ifc->has6 = true;
    uint64_t *mid = counters(l, 1);
    CHECK_EQ(counters_differ(before, mid), 0);

    taken_then_end(l, a, cap, cap_len, true, before, mid);
}
