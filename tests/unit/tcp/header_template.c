/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/header_template.c: what the per-connection header template
 * must keep of the slow way (Ethernet, VLAN, IPv4 length and checksum, TCP
 * data offset and checksum, with and without timestamps, with SACK blocks,
 * RSTs, ip4_output's way while ARP resolves, TSO heads; net/tcp/tcp_output.c,
 * tcp_header_template.c). Every frame is checked byte by byte against
 * fake_csum (tests/support/tcp_frame_check.c), independently of
 * net/core/csum.c. */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/tcp_app.h"
#include "tests/support/tcp_frame_check.h"

#define SEC 1000000000ull

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
