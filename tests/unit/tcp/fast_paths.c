/* tests/unit/tcp/fast_paths.c: what the fast ways through TCP must keep
 * of the slow ones: header prediction's window update (RFC 9293 3.10.7.4,
 * SND.WL1 and SND.WL2), the per-connection header template (Ethernet, VLAN,
 * IPv4 length and checksum, TCP data offset and checksum, with and without
 * timestamps, with SACK blocks, RSTs, ip4_output's way while ARP resolves,
 * TSO heads), the congestion window growing only when it limits (RFC 9438
 * 5.8, RFC 7661) and the send queue starting again at slot 0 (net/tcp/tcp_input.c,
 * tcp_output.c, tcp_impl.h). Every frame is checked byte by byte against
 * fake_csum, independently of net/core/csum.c. */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/tcp_app.h"

#define SEC 1000000000ull

/* ---- A frame, parsed and checked ---- */

struct fr {
    uint32_t l2;                /* 14, or 18 with a VLAN tag */
    uint16_t vid;
    const uint8_t *ip, *tcp;
    uint32_t tot, hlen;         /* IPv4 total length, TCP header length */
    uint32_t seq, ack, len;     /* len: payload */
    uint8_t flags;
    uint16_t wnd;
    struct tcp_opts opt;
};

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd16(p) << 16 | rd16(p + 2); }

/* The pseudo-header's sum as fake_csum's running sum. */
static uint32_t pseudo(const uint8_t *ip, uint32_t tcp_len)
{
    uint32_t sum = 0;
    for (int i = 12; i < 20; i += 2)
        sum += rd16(ip + i);
    return sum + IP4_PROTO_TCP + tcp_len;
}

/* A TCP/IPv4 frame (tagged or not), else false. */
static bool fr_parse(const struct pkt *p, struct fr *f)
{
    const uint8_t *d = p->data;
    memset(f, 0, sizeof(*f));
    if (p->len < 14)
        return false;
    f->l2 = 14;
    uint16_t type = rd16(d + 12);
    if (type == ETH_TYPE_VLAN) {
        f->vid = rd16(d + 14) & 0xfff;
        type = rd16(d + 16);
        f->l2 = 18;
    }
    if (type != ETH_TYPE_IP4 || p->len < f->l2 + 40 || d[f->l2 + 9] != IP4_PROTO_TCP)
        return false;
    f->ip = d + f->l2;
    f->tot = rd16(f->ip + 2);
    f->tcp = f->ip + 20;
    f->seq = rd32(f->tcp + 4);
    f->ack = rd32(f->tcp + 8);
    f->hlen = (uint32_t)(f->tcp[12] >> 4) * 4;
    f->flags = f->tcp[13];
    f->wnd = rd16(f->tcp + 14);
    f->len = f->tot >= 20 + f->hlen ? f->tot - 20 - f->hlen : 0;
    if (f->hlen >= 20 && f->hlen <= 60 && f->l2 + 20 + f->hlen <= p->len)
        tcp_opt_parse(f->tcp + 20, f->hlen - 20, &f->opt);
    return true;
}

/* What the frames seen so far were, and what was wrong with them. */
struct chk {
    uint16_t vid;               /* the tag every frame must carry (0: none) */
    int ts;                     /* 1: timestamps on every segment, 0: on none, -1: either */
    int frames, bad, padded, sacks, data_sacks, rsts, offloaded, tso, ts_seen;
};

#define BAD(k, what)                                                                     \
    do {                                                                                 \
        if ((k)->bad++ < 5)                                                              \
            fprintf(stderr, "  frame %d: %s\n", (k)->frames, what);                      \
    } while (0)

/* Check one frame a stack hands its NIC: every header field the template,
 * the SACK blocks and the patching make. */
static void chk_frame(struct chk *k, const struct pkt *p)
{
    struct fr f;
    if (!fr_parse(p, &f))
        return;
    k->frames++;
    bool tso = (p->flags & PKT_TX_TSO4) != 0;
    uint32_t flen = pkt_frame_len(p);
    if (f.vid != k->vid || (k->vid && f.l2 != 18) || (!k->vid && f.l2 != 14))
        BAD(k, "VLAN tag");
    if (flen < ETH_MIN_LEN)
        BAD(k, "shorter than the Ethernet minimum");
    if (f.ip[0] != 0x45 || f.ip[8] != 64 || rd16(f.ip + 6) != IP4_DF)
        BAD(k, "IPv4 version, TTL or DF");
    if (fake_csum(f.ip, 20, 0) != 0)
        BAD(k, "IPv4 header checksum");
    if (f.l2 + f.tot > flen || f.tot < 40)
        BAD(k, "IPv4 total length beyond the frame");
    else if (f.l2 + f.tot < flen) {
        /* Padding: only up to the minimum, only zeros. */
        if (tso || flen != ETH_MIN_LEN)
            BAD(k, "IPv4 total length short of the frame");
        for (uint32_t i = f.l2 + f.tot; i < p->len; i++)
            if (p->data[i] != 0)
                BAD(k, "padding not zero");
        k->padded++;
    }
    uint32_t tcp_len = f.tot - 20;
    if (f.hlen < 20 || f.hlen > tcp_len || (f.tcp[12] & 0x0f))
        BAD(k, "TCP data offset");
    if (!(f.flags & TCP_SYN)) {
        uint32_t want = 20 + (f.opt.has_ts ? TCP_TS_ALIGNED_LEN : 0) + (f.opt.nsack ? 4 + 8u * f.opt.nsack : 0);
        if (f.hlen != want)
            BAD(k, "TCP data offset not what the options need");
        if (k->ts >= 0 && f.opt.has_ts != (k->ts == 1))
            BAD(k, "timestamps option");
        if (f.opt.has_ts && f.opt.tsecr == 0 && (f.flags & TCP_ACK))
            BAD(k, "timestamps option with no echo");
        if (f.opt.has_mss || f.opt.has_ws || f.opt.sack_ok)
            BAD(k, "SYN options outside a SYN");
    }
    if ((f.flags & TCP_RST) && f.opt.nsack)
        BAD(k, "SACK blocks on a RST");
    k->ts_seen += f.opt.has_ts;
    k->sacks += f.opt.nsack != 0;
    k->data_sacks += f.opt.nsack != 0 && f.len != 0;
    k->rsts += (f.flags & TCP_RST) != 0;
    if (p->flags & PKT_TX_L4_CSUM) {
        /* Left to the NIC: the pseudo-header's sum, at the right place. */
        uint16_t field = rd16(f.tcp + 16);
        uint16_t want = (uint16_t)~fake_csum(NULL, 0, pseudo(f.ip, tcp_len));
        if (p->csum_start != f.l2 + 20 || p->csum_offset != 16)
            BAD(k, "csum_start / csum_offset");
        if (field != want)
            BAD(k, "pseudo-header sum for the NIC");
        k->offloaded++;
    } else if (tso) {
        BAD(k, "TSO without checksum offload");
    } else if (fake_csum(f.tcp, tcp_len, pseudo(f.ip, tcp_len)) != 0) {
        BAD(k, "TCP checksum");
    }
    if (tso) {
        k->tso++;
        if (!(p->flags & PKT_F_CHAIN) || p->tso_mss == 0 || f.len <= p->tso_mss)
            BAD(k, "TSO frame fields");
    }
}

/* Taps: check every frame; drop chosen first transmissions of side 0's
 * data (offsets from base), so that side 1 sends SACK blocks. */
struct tapctx {
    struct chk k;
    uint32_t base;
    uint32_t drop[8];
    bool dropped[8];
    int ndrop;
    bool drop_all[2];
};

static bool chk_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct tapctx *t = ctx;
    struct fr f;
    chk_frame(&t->k, p);
    if (t->drop_all[from])
        return false;
    if (from != 0 || !fr_parse(p, &f) || f.len == 0 || (f.flags & TCP_SYN))
        return true;
    for (int i = 0; i < t->ndrop; i++)
        if (f.seq - t->base == t->drop[i] && !t->dropped[i]) {
            t->dropped[i] = true;
            return false;
        }
    return true;
}

static bool both_open(void *ctx)
{
    struct ta *a = ctx;
    return a[0].c && a[1].c && a[0].connected && a[1].accepted;
}

static bool got_all(void *ctx)
{
    struct ta *a = ctx;
    return a[1].rx_bytes >= a[0].tx_total;
}

/* A link whose two ports carry vid (0: untagged), with cfg on both sides,
 * checking every frame. */
static struct tl *link_new(struct tapctx *t, uint16_t vid, const struct tcp_config *cfg, uint32_t offloads)
{
    struct tl_opts o = {.offloads = offloads, .seed = 5, .cfg = {cfg, cfg}};
    struct tl *l = tl_new(&o);
    for (int i = 0; i < 2; i++)
        l->s[i]->iface[0].vlan_id = vid;
    t->k.vid = vid;
    l->tap = chk_tap;
    l->tap_ctx = t;
    return l;
}

/* Side 1 answers each delivery with 10 bytes of the pattern: segments
 * with data and SACK blocks both. */
static void echo_recv(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    struct ta *a = ctx;
    ta_cb.recv(ctx, c, p, now_ns);
    uint8_t b[10];
    for (uint32_t i = 0; i < sizeof(b); i++)
        b[i] = ta_byte(a->tx_queued + i);
    a->tx_queued += tcp_write(c, b, sizeof(b), now_ns);
}

static struct tcp_callbacks echo_cb;

/* 300 KB from side 0 with three first transmissions lost, 10 bytes back
 * for each delivery, then an abort: data, ACKs and data with SACK blocks,
 * a RST, every frame checked. */
static void headers_case(uint16_t vid, bool ts, uint32_t offloads)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.timestamps = ts;
    struct tapctx *t = calloc(1, sizeof(*t));
    t->k.ts = ts;
    t->ndrop = 3;
    uint32_t seg = ts ? 1448 : 1460;
    t->drop[0] = 20 * seg;
    t->drop[1] = 23 * seg;
    t->drop[2] = 40 * seg;
    struct tl *l = link_new(t, vid, &cfg, offloads);
    struct ta *a = calloc(2, sizeof(*a));
    CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
    CHECK(ta_connect(l, 0, 80, &a[0]) != NULL);
    CHECK(tl_run(l, both_open, a, SEC));
    echo_cb = ta_cb;
    echo_cb.recv = echo_recv;
    tcp_set_ctx(a[1].c, &echo_cb, &a[1]);
    t->base = a[0].c->snd_nxt;
    CHECK_EQ(tcp_mss(a[0].c), seg);
    a[0].tx_total = 300000;
    a[0].zero_copy = true;
    ta_pump(&a[0], l->now_ns);
    CHECK(tl_run(l, got_all, a, 10 * SEC));
    CHECK_EQ(a[1].rx_bytes, 300000);
    CHECK_EQ(a[1].rx_bad, 0);
    CHECK(t->dropped[0] && t->dropped[1] && t->dropped[2]);
    tl_run(l, NULL, NULL, SEC);
    CHECK(a[1].tx_queued > 1000);
    CHECK_EQ(a[0].rx_bytes, a[1].tx_queued);
    CHECK_EQ(a[0].rx_bad, 0);
    tcp_abort(a[0].c, l->now_ns); /* a RST from the template */
    tl_run(l, NULL, NULL, SEC);
    CHECK_EQ(a[1].closed, 1);
    CHECK_EQ(a[1].close_reason, TCP_CLOSE_RESET);
    CHECK_EQ(t->k.bad, 0);
    CHECK(t->k.frames > 200);
    CHECK(t->k.sacks >= 3);
    CHECK(t->k.data_sacks >= 1);
    CHECK_EQ(t->k.rsts, 1);
    CHECK(ts ? t->k.ts_seen == t->k.frames : t->k.ts_seen == 0);
    if (!ts)
        CHECK(t->k.padded > 0); /* 54- and 58-byte ACKs */
    if (offloads & NETDEV_OFF_TX_CSUM)
        CHECK(t->k.offloaded > 0);
    else
        CHECK_EQ(t->k.offloaded, 0);
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(tl_ctr(l, i, "tcp-bad-checksum"), 0);
        CHECK_EQ(tl_ctr(l, i, "tcp-bad-offset"), 0);
        CHECK_EQ(tl_ctr(l, i, "tcp-bad-option"), 0);
        CHECK_EQ(tl_ctr(l, i, "ip4-bad-checksum"), 0);
        CHECK_EQ(tl_ctr(l, i, "ip4-truncated"), 0);
        CHECK_EQ(tl_ctr(l, i, "eth-vlan-drop"), 0);
        CHECK_EQ(tl_ctr(l, i, "eth-tx-no-room"), 0);
    }
    free(a);
    free(t);
    CHECK(tl_free(l));
}

TEST(tcp_template_headers_vlan_timestamps_sack)
{
    headers_case(7, true, 0);
}

TEST(tcp_template_headers_vlan_no_timestamps_sack)
{
    headers_case(4000, false, 0);
}

TEST(tcp_template_headers_no_timestamps_sack)
{
    headers_case(0, false, 0);
}

TEST(tcp_template_headers_timestamps_sack)
{
    headers_case(0, true, 0);
}

TEST(tcp_template_headers_offloaded_checksum)
{
    headers_case(0, true, NETDEV_OFF_TX_CSUM | NETDEV_OFF_RX_CSUM);
    headers_case(9, false, NETDEV_OFF_TX_CSUM | NETDEV_OFF_RX_CSUM);
}

/* ARP forgotten: segments take ip4_output (xmit_unrouted) while the next
 * hop resolves again, then the template: the same headers either way. */
TEST(tcp_template_headers_while_arp_resolves)
{
    for (int vid = 0; vid < 2; vid++) {
        struct tapctx *t = calloc(1, sizeof(*t));
        t->k.ts = 1;
        struct tl *l = link_new(t, (uint16_t)(vid * 5), NULL, 0);
        struct ta *a = calloc(2, sizeof(*a));
        CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
        CHECK(ta_connect(l, 0, 80, &a[0]) != NULL);
        CHECK(tl_run(l, both_open, a, SEC));
        for (int i = 0; i < 2; i++) {
            arp_release(l->s[i], &l->s[i]->iface[0]);
            a[i].c->route_until_ns = 0;
        }
        a[0].tx_total = 50000;
        ta_pump(&a[0], l->now_ns);
        CHECK(tl_run(l, got_all, a, 5 * SEC));
        CHECK_EQ(a[1].rx_bytes, 50000);
        CHECK_EQ(a[1].rx_bad, 0);
        CHECK(a[0].c->route_until_ns > l->now_ns); /* the template again */
        tcp_abort(a[1].c, l->now_ns);
        tl_run(l, NULL, NULL, SEC);
        CHECK_EQ(a[0].closed, 1);
        CHECK_EQ(t->k.bad, 0);
        CHECK(t->k.frames > 40);
        CHECK_EQ(t->k.rsts, 1);
        CHECK_EQ(tl_ctr(l, 0, "tcp-bad-checksum") + tl_ctr(l, 1, "tcp-bad-checksum"), 0);
        free(a);
        free(t);
        CHECK(tl_free(l));
    }
}

/* A RST from SYN-RECEIVED (the handshake's last ACK lost, then aborted):
 * its header has the options negotiated from the SYN, no more. */
TEST(tcp_template_rst_from_syn_received)
{
    for (int ts = 0; ts < 2; ts++) {
        struct tcp_config cfg0;
        tcp_config_default(&cfg0);
        cfg0.timestamps = ts;
        struct tapctx *t = calloc(1, sizeof(*t));
        t->k.ts = ts;
        struct tl_opts o = {.cfg = {&cfg0, NULL}};
        struct tl *l = tl_new(&o);
        l->tap = chk_tap;
        l->tap_ctx = t;
        struct ta *a = calloc(2, sizeof(*a));
        CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
        CHECK(ta_connect(l, 0, 80, &a[0]) != NULL);
        tl_run(l, NULL, NULL, 50000); /* the SYN is there */
        t->drop_all[0] = true;
        tl_run(l, NULL, NULL, 200000);
        uint32_t idx = 0;
        struct tcp_conn *c = tcp_conn_next(l->t[1], &idx);
        CHECK(c != NULL);
        if (c) {
            CHECK_EQ(c->state, TCP_SYN_RECEIVED);
            CHECK_EQ((c->flags & TCP_CF_TS) != 0, ts);
            int before = t->k.frames;
            tcp_abort(c, l->now_ns);
            tl_flush(l);
            CHECK_EQ(t->k.frames, before + 1);
            CHECK_EQ(t->k.rsts, 1);
        }
        CHECK_EQ(t->k.bad, 0);
        t->drop_all[0] = false;
        tcp_abort(a[0].c, l->now_ns);
        tl_run(l, NULL, NULL, SEC);
        free(a);
        free(t);
        CHECK(tl_free(l));
    }
}

/* TSO: the head the NIC gets has the IPv4 length and checksum of the whole
 * frame and the pseudo-header sum over it. Checked before the "NIC" cuts
 * it (the link rewrites those fields in each segment it makes). */
static struct chk *tso_chk;
static uint16_t (*tso_next)(struct netdev *, uint16_t, struct pkt **, uint16_t);

static uint16_t tso_tx(struct netdev *dev, uint16_t q, struct pkt **pkts, uint16_t n)
{
    for (uint16_t i = 0; tso_chk && i < n; i++)
        chk_frame(tso_chk, pkts[i]);
    return tso_next(dev, q, pkts, n);
}

TEST(tcp_template_tso_head)
{
    for (int ts = 0; ts < 2; ts++) {
        struct tcp_config cfg;
        tcp_config_default(&cfg);
        cfg.timestamps = ts;
        struct tl_opts o = {.offloads = NETDEV_OFF_TX_CSUM | NETDEV_OFF_RX_CSUM | NETDEV_OFF_TSO4,
                            .loss_ppm = 3000, .seed = 77, .cfg = {&cfg, &cfg}};
        struct tl *l = tl_new(&o);
        struct chk k = {.ts = ts};
        static struct netdev_ops ops;
        ops = *l->nd[0].dev.ops;
        tso_next = ops.tx_burst;
        ops.tx_burst = tso_tx;
        tso_chk = &k;
        l->nd[0].dev.ops = &ops;
        struct ta *a = calloc(2, sizeof(*a));
        a[0].tx_total = 4u << 20;
        a[0].zero_copy = ts;
        CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
        CHECK(ta_connect(l, 0, 80, &a[0]) != NULL);
        CHECK(tl_run(l, got_all, a, 20 * SEC));
        CHECK_EQ(a[1].rx_bytes, 4u << 20);
        CHECK_EQ(a[1].rx_bad, 0);
        CHECK_EQ(k.bad, 0);
        CHECK(k.tso > 10);
        CHECK_EQ((uint64_t)k.tso, tl_ctr(l, 0, "tcp-tso"));
        CHECK_EQ(tl_ctr(l, 1, "tcp-bad-checksum"), 0);
        tso_chk = NULL; /* the RSTs answering what was in flight carry no options */
        tcp_abort(a[0].c, l->now_ns);
        tl_run(l, NULL, NULL, SEC);
        free(a);
        CHECK(tl_free(l));
    }
}

/* ---- The congestion window grows only when it limits ---- */

struct pp {
    int n, target;
    bool client;
    uint64_t rx;
};

static void pp_recv(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    struct pp *x = ctx;
    x->rx += p->len;
    pkt_free(p);
    if (!x->client)
        tcp_write(c, "r", 1, now_ns);
    else if (++x->n < x->target)
        tcp_write(c, "q", 1, now_ns);
}

static const struct tcp_callbacks pp_cb = {.recv = pp_recv};

static bool pp_done(void *ctx)
{
    struct pp *x = ctx;
    return x[0].n >= x[0].target;
}

TEST(tcp_request_response_leaves_cwnd_alone)
{
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    struct ta *a = calloc(2, sizeof(*a));
    CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
    CHECK(ta_connect(l, 0, 80, &a[0]) != NULL);
    CHECK(tl_run(l, both_open, a, SEC));
    struct pp x[2] = {{.target = 1000, .client = true}, {0}};
    for (int i = 0; i < 2; i++)
        tcp_set_ctx(a[i].c, &pp_cb, &x[i]);
    struct tcp_info before[2], after[2];
    for (int i = 0; i < 2; i++)
        tcp_get_info(a[i].c, &before[i]);
    uint64_t frames0 = l->frames;
    CHECK_EQ(tcp_write(a[0].c, "q", 1, l->now_ns), 1);
    CHECK(tl_run(l, pp_done, x, 10 * SEC));
    tl_run(l, NULL, NULL, SEC); /* the last response's delayed ACK */
    CHECK_EQ(x[0].rx, 1000);
    CHECK_EQ(x[1].rx, 1000);
    /* One segment each way per exchange, the ACKs riding on the data, and
     * the delayed ACK of the last response. */
    CHECK_EQ(l->frames - frames0, 2001);
    for (int i = 0; i < 2; i++) {
        tcp_get_info(a[i].c, &after[i]);
        CHECK_EQ(before[i].cwnd, 10 * tcp_mss(a[i].c));
        CHECK_EQ(after[i].cwnd, before[i].cwnd);
        CHECK_EQ(after[i].ssthresh, before[i].ssthresh);
        CHECK_EQ(after[i].snd_queued, 0);
        /* The empty send queue starts again at slot 0. */
        CHECK_EQ(a[i].c->sq_head, 0);
        CHECK_EQ(a[i].c->sq_n, 0);
        CHECK_EQ(a[i].c->sq_nxt, 0);
        CHECK_EQ(tl_ctr(l, i, "tcp-retransmit"), 0);
        CHECK_EQ(tl_ctr(l, i, "tcp-dup-ack"), 0);
    }
    tcp_abort(a[0].c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    free(a);
    CHECK(tl_free(l));
}

TEST(tcp_bulk_transfer_grows_cwnd)
{
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    struct ta *a = calloc(2, sizeof(*a));
    CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
    CHECK(ta_connect(l, 0, 80, &a[0]) != NULL);
    CHECK(tl_run(l, both_open, a, SEC));
    struct tcp_info before, after;
    tcp_get_info(a[0].c, &before);
    a[0].tx_total = 1u << 20;
    a[0].zero_copy = true;
    ta_pump(&a[0], l->now_ns);
    CHECK(tl_run(l, got_all, a, 10 * SEC));
    CHECK_EQ(a[1].rx_bytes, 1u << 20);
    tcp_get_info(a[0].c, &after);
    CHECK_EQ(before.cwnd, 10 * tcp_mss(a[0].c));
    /* No loss: slow start all the way, well past the send buffer. */
    CHECK(after.cwnd >= 4 * before.cwnd);
    CHECK_EQ(after.ssthresh, before.ssthresh);
    CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit"), 0);
    tcp_abort(a[0].c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    free(a);
    CHECK(tl_free(l));
}

/* Slow start stops growing once the flight is the application's, not the
 * window's: a sender that keeps under half the window leaves it. */
TEST(tcp_app_limited_flight_leaves_cwnd)
{
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    struct ta *a = calloc(2, sizeof(*a));
    CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
    CHECK(ta_connect(l, 0, 80, &a[0]) != NULL);
    CHECK(tl_run(l, both_open, a, SEC));
    uint32_t cwnd0 = a[0].c->cwnd, mss = tcp_mss(a[0].c);
    static uint8_t buf[8192];
    uint64_t sent = 0;
    for (int round = 0; round < 50; round++) {
        /* Four segments out of a ten-segment window, then wait. */
        CHECK_EQ(tcp_write(a[0].c, buf, 4 * mss, l->now_ns), 4 * mss);
        sent += 4 * mss;
        tl_run(l, NULL, NULL, SEC);
        CHECK_EQ(a[1].rx_bytes, sent);
    }
    CHECK_EQ(a[0].c->cwnd, cwnd0);
    /* Five out of ten is half: that limits it in slow start. */
    CHECK_EQ(tcp_write(a[0].c, buf, 4 * mss, l->now_ns), 4 * mss);
    CHECK_EQ(tcp_write(a[0].c, buf, mss, l->now_ns), mss);
    tl_run(l, NULL, NULL, SEC);
    CHECK(a[0].c->cwnd > cwnd0);
    tcp_abort(a[0].c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    free(a);
    CHECK(tl_free(l));
}

/* ---- The peer's window: header prediction and the full checks ---- */

/* Inject to side 1's connection c as if from its peer, no options. */
static void inj(struct tl *l, struct tcp_conn *c, uint32_t seq, uint32_t ack, uint16_t wnd, const void *data,
                uint32_t len)
{
    uint8_t f[1600];
    size_t n = ta_frame(f, 1, c->rport, c->lport, seq, ack, TCP_ACK, wnd, NULL, 0, data, len);
    tl_inject(l, 1, f, n);
}

/* An established pair without timestamps (injected segments need none)
 * whose wire then carries nothing: side 1 sees only what the test injects. */
static struct tl *quiet_pair(struct ta *a, struct tapctx *t)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.timestamps = false;
    struct tl_opts o = {.cfg = {&cfg, &cfg}};
    struct tl *l = tl_new(&o);
    t->k.ts = 0;
    l->tap = chk_tap;
    l->tap_ctx = t;
    CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
    CHECK(ta_connect(l, 0, 80, &a[0]) != NULL);
    CHECK(tl_run(l, both_open, a, SEC));
    t->drop_all[0] = t->drop_all[1] = true;
    return l;
}

TEST(tcp_fast_path_window_updates)
{
    struct ta a[2] = {{0}};
    struct tapctx *t = calloc(1, sizeof(*t));
    struct tl *l = quiet_pair(a, t);
    struct tcp_conn *c = a[1].c;
    uint32_t sh = c->snd_wscale;
    CHECK_EQ(sh, 7); /* side 0's window may grow to 4 MiB: 4194304 >> 6 is still 65536 */
    static uint8_t data[200];
    CHECK_EQ(tcp_write(c, data, 100, l->now_ns), 100);
    uint32_t una = c->snd_una, seq = c->rcv_nxt;
    CHECK_EQ(c->snd_nxt, una + 100);

    /* New data acknowledged, a new window: taken. */
    inj(l, c, seq, una + 40, 1000, NULL, 0);
    CHECK_EQ(c->snd_una, una + 40);
    CHECK_EQ(c->snd_wnd, 1000u << sh);
    CHECK_EQ(c->snd_wl1, seq);
    CHECK_EQ(c->snd_wl2, una + 40);
    /* An older ACK at the same SEQ (SND.WL2 > SEG.ACK): not taken. */
    inj(l, c, seq, una + 30, 2000, NULL, 0);
    CHECK_EQ(c->snd_una, una + 40);
    CHECK_EQ(c->snd_wnd, 1000u << sh);
    CHECK_EQ(c->snd_wl2, una + 40);
    /* A shrinking window with new data acknowledged: taken. */
    inj(l, c, seq, una + 50, 10, NULL, 0);
    CHECK_EQ(c->snd_una, una + 50);
    CHECK_EQ(c->snd_wnd, 10u << sh);
    /* Data, the same ACK, a new window: delivered and taken. */
    inj(l, c, seq, una + 50, 3000, "abc", 3);
    CHECK_EQ(a[1].rx_bytes, 3);
    CHECK_EQ(c->rcv_nxt, seq + 3);
    CHECK_EQ(c->snd_wnd, 3000u << sh);
    CHECK_EQ(c->snd_wl1, seq);
    seq += 3;
    /* A pure ACK ahead of RCV.NXT (acceptable) moves SND.WL1 ahead ... */
    uint32_t ahead = seq + 500;
    inj(l, c, ahead, una + 50, 5000, NULL, 0);
    CHECK_EQ(c->snd_wnd, 5000u << sh);
    CHECK_EQ(c->snd_wl1, ahead);
    CHECK_EQ(c->rcv_nxt, seq);
    /* ... so in-sequence segments behind it (SEG.SEQ < SND.WL1) move
     * SND.UNA but not the window, with or without data. */
    inj(l, c, seq, una + 60, 6000, NULL, 0);
    CHECK_EQ(c->snd_una, una + 60);
    CHECK_EQ(c->snd_wnd, 5000u << sh);
    inj(l, c, seq, una + 70, 5000, NULL, 0);
    CHECK_EQ(c->snd_una, una + 70);
    CHECK_EQ(c->snd_wnd, 5000u << sh);
    CHECK_EQ(c->snd_wl1, ahead);
    inj(l, c, seq, una + 80, 7000, "de", 2);
    CHECK_EQ(c->snd_una, una + 80);
    CHECK_EQ(a[1].rx_bytes, 5);
    CHECK_EQ(c->snd_wnd, 5000u << sh);
    CHECK_EQ(c->snd_wl1, ahead);
    seq += 2;
    /* Past SND.WL1 again: taken. */
    inj(l, c, ahead + 1, una + 80, 4000, NULL, 0);
    CHECK_EQ(c->snd_wnd, 4000u << sh);
    CHECK_EQ(c->snd_wl1, ahead + 1);
    CHECK_EQ(tl_ctr(l, 1, "tcp-dup-ack"), 0);
    CHECK_EQ(tl_ctr(l, 1, "tcp-ack-old"), 0);
    CHECK_EQ(tl_ctr(l, 1, "tcp-out-of-window"), 0);
    CHECK_EQ(t->k.bad, 0);
    tcp_abort(a[0].c, l->now_ns);
    tcp_abort(a[1].c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    free(t);
    CHECK(tl_free(l));
}

/* A window closed by an ACK the fast path takes: persist starts, and the
 * update that reopens it (a pure window update, the full checks) stops it
 * and lets the data go. */
TEST(tcp_fast_path_zero_window_then_persist)
{
    struct ta a[2] = {{0}};
    struct tapctx *t = calloc(1, sizeof(*t));
    struct tl *l = quiet_pair(a, t);
    struct tcp_conn *c = a[1].c;
    uint32_t sh = c->snd_wscale;
    static uint8_t data[300];
    CHECK_EQ(tcp_write(c, data, 100, l->now_ns), 100);
    uint32_t una = c->snd_una, seq = c->rcv_nxt;
    inj(l, c, seq, una + 100, 0, NULL, 0); /* everything acknowledged, window 0 */
    CHECK_EQ(c->snd_una, una + 100);
    CHECK_EQ(c->snd_wnd, 0);
    CHECK_EQ(tcp_write(c, data, 200, l->now_ns), 200);
    CHECK_EQ(c->snd_nxt, una + 100); /* held */
    CHECK(c->flags & TCP_CF_PERSIST);
    CHECK(c->rto_at != 0);
    inj(l, c, seq, una + 100, 1000, NULL, 0);
    CHECK_EQ(c->snd_wnd, 1000u << sh);
    CHECK(!(c->flags & TCP_CF_PERSIST));
    CHECK_EQ(c->snd_nxt, una + 300);
    CHECK_EQ(tl_ctr(l, 1, "tcp-window-probe"), 0);
    CHECK_EQ(t->k.bad, 0);
    tcp_abort(a[0].c, l->now_ns);
    tcp_abort(a[1].c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    free(t);
    CHECK(tl_free(l));
}

/* RFC 9293 3.10.7.4: the window is taken from an ACK only when
 * SND.UNA =< SEG.ACK =< SND.NXT; an older ACK ("a duplicate, it can be
 * ignored") does not move it, whatever its SEQ. */
TEST(tcp_window_not_taken_from_an_old_ack)
{
    struct ta a[2] = {{0}};
    struct tapctx *t = calloc(1, sizeof(*t));
    struct tl *l = quiet_pair(a, t);
    struct tcp_conn *c = a[1].c;
    uint32_t sh = c->snd_wscale;
    static uint8_t data[100];
    CHECK_EQ(tcp_write(c, data, 100, l->now_ns), 100);
    uint32_t una = c->snd_una, seq = c->rcv_nxt;
    inj(l, c, seq, una + 50, 3000, NULL, 0);
    CHECK_EQ(c->snd_una, una + 50);
    CHECK_EQ(c->snd_wnd, 3000u << sh);
    /* A later SEQ (acceptable: a pure ACK in the window) but an ACK below
     * SND.UNA. */
    inj(l, c, seq + 10, una + 20, 9, NULL, 0);
    CHECK_EQ(c->snd_una, una + 50);
    CHECK_EQ(c->snd_wnd, 3000u << sh);
    tcp_abort(a[0].c, l->now_ns);
    tcp_abort(a[1].c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    free(t);
    CHECK(tl_free(l));
}

/* RFC 9438 5.8: with the window held while the application limits the
 * flow, the time since the epoch (t of W_cubic(t)) must not count the
 * application-limited period either, else W_cubic(t) is far ahead when the
 * flow fills the window again and the window jumps (Linux shifts the epoch
 * by the time spent so, tcp_cubic.c bictcp_cwnd_event). Here: congestion
 * avoidance at 20 segments, 10 s of one byte every 100 ms (under the RTO:
 * no restart after idle, RFC 5681 4.1), then three round trips of bulk. */
TEST(tcp_cubic_app_limited_period_not_in_t)
{
    struct tl_opts o = {.delay_ns = 10000000};
    struct tl *l = tl_new(&o);
    struct ta *a = calloc(2, sizeof(*a));
    CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
    CHECK(ta_connect(l, 0, 80, &a[0]) != NULL);
    CHECK(tl_run(l, both_open, a, SEC));
    struct tcp_conn *c = a[0].c;
    uint32_t m = tcp_mss(c);
    CHECK_EQ(c->cc_algo, TCP_CC_CUBIC);
    c->cwnd = c->ssthresh = 20 * m; /* congestion avoidance, the plateau here */
    c->cubic_wmax = 20 * m;
    c->cubic_epoch_ns = 0;
    a[0].tx_total = 200000;
    a[0].zero_copy = true;
    ta_pump(&a[0], l->now_ns);
    CHECK(tl_run(l, got_all, a, 10 * SEC));
    CHECK(c->cubic_epoch_ns != 0);
    uint32_t w = c->cwnd;
    CHECK(w >= 20 * m && w <= 30 * m);
    /* Application limited: the window is left as it is ... */
    for (int i = 0; i < 100; i++) {
        CHECK_EQ(tcp_write(c, "x", 1, l->now_ns), 1);
        tl_advance(l, 100000000);
    }
    CHECK_EQ(c->cwnd, w);
    CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit"), 0);
    /* ... and grows from there, as if those 10 s had not been: about one
     * segment a round trip (Reno-friendly region), not half the window. */
    a[0].tx_total = a[0].tx_queued + (4u << 20);
    a[0].zero_copy = false;
    ta_pump(&a[0], l->now_ns);
    tl_advance(l, 3 * 20000000ull + 1000000);
    CHECK(c->cwnd <= w + 6 * m);
    fprintf(stderr, "  cwnd %u segments before, %u three round trips later\n", w / m, c->cwnd / m);
    tcp_abort(c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    free(a);
    CHECK(tl_free(l));
}
