/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/syn_flood.c: a flood of 100,000 spoofed SYNs against a
 * listener with an established connection busy beside it: SYN cookies past
 * the backlog, the transfer unharmed, a real client admitted by cookie,
 * and every connection and buffer back afterwards (net/tcp/tcp_input.c,
 * tcp_syncookie.c, tcp_conn.c). */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/tcp_app.h"

#define SEC 1000000000ull

/* Side 1 reaches every spoofed source through side 0 (which drops what it
 * gets as not for it). */
static bool via_side0(void *ctx, uint32_t dst_be, uint16_t *port, uint32_t *gw_be)
{
    *port = 0;
    *gw_be = TL_ADDR0;
    return true;
}

static size_t spoofed_syn(uint8_t *f, uint32_t src_be, uint16_t sport, uint32_t seq)
{
    static const uint8_t mac0[6] = {0x02, 0, 0, 0, 0x10, 0x01}, mac1[6] = {0x02, 0, 0, 0, 0x10, 0x02};
    uint8_t t[24] = {0};
    uint32_t dst_be = TL_ADDR1;
    t[0] = (uint8_t)(sport >> 8);
    t[1] = (uint8_t)sport;
    t[3] = 80;
    t[4] = (uint8_t)(seq >> 24);
    t[5] = (uint8_t)(seq >> 16);
    t[6] = (uint8_t)(seq >> 8);
    t[7] = (uint8_t)seq;
    t[12] = 6 << 4;
    t[13] = TCP_SYN;
    t[14] = 0xff;
    t[15] = 0xff;
    t[20] = TCP_OPT_MSS;
    t[21] = 4;
    t[22] = 1460 >> 8;
    t[23] = 1460 & 0xff;
    uint8_t ph[12];
    memcpy(ph, &src_be, 4);
    memcpy(ph + 4, &dst_be, 4);
    ph[8] = 0;
    ph[9] = IP4_PROTO_TCP;
    ph[10] = 0;
    ph[11] = 24;
    uint32_t sum = 0;
    for (int i = 0; i < 12; i += 2)
        sum += (uint32_t)(ph[i] << 8 | ph[i + 1]);
    uint16_t c = fake_csum(t, 24, sum);
    t[16] = (uint8_t)(c >> 8);
    t[17] = (uint8_t)c;
    size_t n = fake_eth(f, mac1, mac0, ETH_TYPE_IP4);
    return n + fake_ip4(f + n, src_be, dst_be, IP4_PROTO_TCP, 1, 0x4000, t, 24);
}

struct flood {
    struct ta a[2];             /* the established transfer */
    struct ta late[2];          /* a client that comes during the flood */
};

static bool flood_done(void *ctx)
{
    struct flood *f = ctx;
    return f->a[0].closed && f->a[1].closed && f->late[0].closed && f->late[1].closed;
}

TEST(tcp_syn_flood_100k)
{
    struct tl_opts o = {.nconns = 512, .nbufs = 4096};
    struct tl *l = tl_new(&o);
    struct flood *f = calloc(1, sizeof(*f));
    net_set_route(l->s[1], via_side0, NULL);
    uint32_t base_conns = l->t[1]->nfree;
    uint32_t base_bufs = tl_in_use(l);

    ta_listen(l, 1, 80, &f->a[1]);
    f->a[1].next = &f->late[1];
    f->a[0].tx_total = 8u << 20;
    f->a[0].zero_copy = true;
    f->a[0].close_when_sent = true;
    f->a[1].close_on_fin = true;
    ta_connect(l, 0, 80, &f->a[0]);
    tl_run(l, NULL, NULL, 1000000);
    CHECK_EQ(f->a[1].accepted, 1);

    uint8_t frame[128];
    uint64_t rng = 12345;
    uint32_t max_half_open = 0, max_bufs = 0;
    for (uint32_t i = 0; i < 100000; i++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t src = NET_IP4(192, 168, (rng >> 40) & 0xff, 1 + ((rng >> 48) % 254));
        size_t n = spoofed_syn(frame, src, (uint16_t)(1024 + (rng >> 20) % 60000), (uint32_t)(rng >> 16));
        struct pkt *p = pkt_alloc(&l->pool[1]);
        memcpy(p->data, frame, n);
        p->len = (uint16_t)n;
        net_input(l->s[1], &p, 1, l->now_ns);
        if (i % 500 == 499) {
            tl_run(l, NULL, NULL, 200000); /* the transfer goes on meanwhile */
            uint32_t ho = l->t[1]->nconns - l->t[1]->nfree;
            if (ho > max_half_open)
                max_half_open = ho;
            if (tl_in_use(l) > max_bufs)
                max_bufs = tl_in_use(l);
        }
        if (i == 50000) {
            /* A real client now: the backlog is full, it gets a cookie. */
            f->late[1].close_on_fin = true;
            f->late[0].tx_total = 100000;
            f->late[0].close_when_sent = true;
            ta_connect(l, 0, 80, &f->late[0]);
        }
    }
    tl_flush(l);
    CHECK_EQ(tl_ctr(l, 1, "tcp-syncookie-tx"), 100000 + 1 - 128);
    CHECK_EQ(l->t[1]->listen[0].pending, 128);
    CHECK(max_half_open <= 128 + 2);
    CHECK(max_bufs < 1500);
    CHECK(tl_run(l, flood_done, f, 60 * SEC));
    CHECK_EQ(f->a[1].rx_bytes, 8u << 20);
    CHECK_EQ(f->a[1].rx_bad, 0);
    CHECK_EQ(f->late[1].accepted, 1);
    CHECK_EQ(f->late[1].rx_bytes, 100000);
    CHECK_EQ(tl_ctr(l, 1, "tcp-syncookie-ok"), 1);
    /* Half-open connections give up after their SYN-ACK retries: all
     * memory is back to what it was before. */
    tl_advance(l, 200 * SEC);
    CHECK_EQ(l->t[1]->listen[0].pending, 0);
    CHECK_EQ(l->t[1]->nfree, base_conns);
    CHECK_EQ(tl_in_use(l), base_bufs);
    free(f);
    CHECK(tl_free(l));
}

TEST(tcp_syn_cookie_when_the_backlog_is_zero)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.backlog = 0;
    struct tl_opts o = {.cfg = {NULL, &cfg}, .loss_ppm = 0};
    struct tl *l = tl_new(&o);
    struct ta a[2] = {{0}};
    ta_listen(l, 1, 80, &a[1]);
    a[0].tx_total = 200000;
    a[0].close_when_sent = true;
    a[1].close_on_fin = true;
    a[1].tx_total = 3000;
    ta_connect(l, 0, 80, &a[0]);
    tl_run(l, NULL, NULL, 10 * SEC);
    CHECK_EQ(a[1].accepted, 1);
    CHECK_EQ(a[1].rx_bytes, 200000);
    CHECK_EQ(a[0].rx_bytes, 3000);
    CHECK_EQ(a[0].rx_bad + a[1].rx_bad, 0);
    CHECK_EQ(tl_ctr(l, 1, "tcp-syncookie-tx"), 1);
    CHECK_EQ(tl_ctr(l, 1, "tcp-syncookie-ok"), 1);
    /* The options came through the cookie: SACK, timestamps, scaling. */
    CHECK_EQ(a[0].closed + a[1].closed, 2);
    /* A forged ACK to the listener is answered with a RST. */
    uint8_t fr[128];
    size_t n = ta_frame(fr, 1, 33333, 80, 1000, 0x12345678, TCP_ACK, 1000, NULL, 0, NULL, 0);
    tl_inject(l, 1, fr, n);
    CHECK_EQ(tl_ctr(l, 1, "tcp-syncookie-bad"), 1);
    CHECK(tl_free(l));
}

TEST(tcp_cookie_options_round_trip)
{
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    struct tcp_in seg = {.src_be = TL_ADDR0, .dst_be = TL_ADDR1, .sport = 40000, .dport = 80, .seq = 77};
    seg.opt.has_mss = true;
    seg.opt.mss = 1400;
    seg.opt.sack_ok = true;
    seg.opt.has_ws = true;
    seg.opt.wscale = 9;
    uint16_t mss = 0;
    uint32_t cookie = tcp_cookie_make(l->t[1], &seg, l->now_ns, &mss);
    CHECK_EQ(mss, 1460); /* ours, offered in the SYN-ACK; the cookie keeps the peer's, rounded down */
    struct tcp_in ack = seg;
    ack.ack = cookie + 1;
    ack.opt = (struct tcp_opts){0};
    struct tcp_opts syn;
    CHECK(tcp_cookie_check(l->t[1], &ack, l->now_ns + 60 * SEC, &syn));
    CHECK_EQ(syn.mss, 1220);
    CHECK(syn.sack_ok);
    CHECK(syn.has_ws);
    CHECK_EQ(syn.wscale, 9);
    CHECK(!syn.has_ts);
    CHECK(!tcp_cookie_check(l->t[1], &ack, l->now_ns + 200 * SEC, &syn)); /* too old */
    ack.sport++;
    CHECK(!tcp_cookie_check(l->t[1], &ack, l->now_ns, &syn)); /* another tuple */
    ack.sport--;
    ack.ack ^= 0x100;
    CHECK(!tcp_cookie_check(l->t[1], &ack, l->now_ns, &syn));
    CHECK(tl_free(l));
}

/* What the server says to port 4444 (a client we play by hand): the SYN-
 * ACK's sequence number, and whether it reset. */
struct hand {
    uint32_t synack_seq;
    int synacks, rsts;
};

static bool watch_4444(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct hand *h = ctx;
    struct ta_seg s;
    if (from != 1 || !ta_parse(p, &s) || s.dport != 4444)
        return true;
    if ((s.flags & (TCP_SYN | TCP_ACK)) == (TCP_SYN | TCP_ACK)) {
        h->synacks++;
        h->synack_seq = s.seq;
    }
    h->rsts += (s.flags & TCP_RST) != 0;
    return false; /* nobody is there */
}

/* Every slot an established connection: a new client's SYN gets a cookie
 * (nothing to evict), and its ACK, with nowhere to go, a reset: the client
 * learns at once instead of sending into silence. */
TEST(tcp_full_arena_resets_a_cookie_ack)
{
    struct tl_opts o = {.nconns = 2};
    struct tl *l = tl_new(&o);
    struct ta srv[2] = {{0}}, cli[2] = {{0}};
    srv[0].next = &srv[1];
    ta_listen(l, 1, 80, &srv[0]);
    for (int i = 0; i < 2; i++) {
        ta_connect(l, 0, 80, &cli[i]);
        tl_run(l, NULL, NULL, SEC);
        CHECK_EQ(cli[i].connected, 1);
    }
    CHECK_EQ(l->t[1]->nfree, 0);
    struct hand h = {0};
    l->tap = watch_4444;
    l->tap_ctx = &h;
    uint8_t fr[128];
    size_t n = ta_frame(fr, 1, 4444, 80, 1000, 0, TCP_SYN, 1000, NULL, 0, NULL, 0);
    tl_inject(l, 1, fr, n);
    tl_flush(l);
    tl_run(l, NULL, NULL, 10000000ull);
    CHECK_EQ(h.synacks, 1);
    CHECK_EQ(tl_ctr(l, 1, "tcp-syncookie-tx"), 1);
    n = ta_frame(fr, 1, 4444, 80, 1001, h.synack_seq + 1, TCP_ACK | TCP_PSH, 1000, NULL, 0, "hi", 2);
    tl_inject(l, 1, fr, n);
    tl_flush(l);
    tl_run(l, NULL, NULL, 10000000ull);
    CHECK_EQ(tl_ctr(l, 1, "tcp-conn-full"), 1);
    CHECK_EQ(h.rsts, 1);
    CHECK_EQ(srv[0].accepted + srv[1].accepted, 2);
    CHECK(tl_free(l));
}
