/* SPDX-License-Identifier: MIT */
/* tests/unit/link/vlan_subif.c: VLAN sub-interfaces (net_subif_add,
 * net_subif_demux): eth0.100 and eth0.200 (802.1Q) and eth0.300.400
 * (802.1ad QinQ) beside eth0's untagged address. Each answers ARP and
 * pings in its own VLAN only; forwarding between two VLANs of one port, and
 * between a VLAN and another port, takes the fast path, the frames tagged
 * as they leave and all of a burst in one tx_burst on the device; an
 * unknown VLAN is dropped and counted; nothing leaks. */
#include "tests/support/fwd_fixture.h"
#include "tests/unit/check.h"

enum { V100 = 16, V200 = 17, Q300 = 18 };
static const uint8_t host100[6] = {0x02, 0, 0, 0, 0x01, 0x00}, host200[6] = {0x02, 0, 0, 0, 0x02, 0x00};
static const uint8_t hostq[6] = {0x02, 0, 0, 0, 0x03, 0x00};

/* frame (len bytes, untagged) with tags inserted after its MACs: vid, and
 * outer (an S-tag) around it when not 0. The new length. */
static size_t tagged(uint8_t *out, const uint8_t *frame, size_t len, uint16_t outer, uint16_t vid)
{
    size_t o = 12;
    memcpy(out, frame, 12);
    if (outer) {
        const uint8_t s[4] = {0x88, 0xa8, (uint8_t)(outer >> 8), (uint8_t)outer};
        memcpy(out + o, s, 4);
        o += 4;
    }
    const uint8_t c[4] = {0x81, 0x00, (uint8_t)(0x20 | vid >> 8), (uint8_t)vid}; /* priority 1: ignored */
    memcpy(out + o, c, 4);
    o += 4;
    memcpy(out + o, frame + 12, len - 12);
    return o + len - 12;
}

static void setup(struct fwd_fix *x)
{
    fwd_fix_init(x, 512);
    struct net_stack *s = x->fn.s;
    CHECK_EQ(net_subif_add(s, V100, 0, 0, 100, NET_IP4(10, 1, 100, 1), 24), 0);
    CHECK_EQ(net_subif_add(s, V200, 0, 0, 200, NET_IP4(10, 1, 200, 1), 24), 0);
    CHECK_EQ(net_subif_add(s, Q300, 0, 300, 400, NET_IP4(10, 3, 0, 1), 24), 0);
    CHECK_EQ(net_subif_add(s, V200, 0, 0, 201, 0, 0), -1); /* taken */
    CHECK_EQ(net_subif_add(s, 19, 5, 0, 100, 0, 0), -1);   /* no such parent */
    CHECK_EQ(net_subif_add(s, 19, V100, 0, 7, 0, 0), -1);  /* a sub-interface is no parent */
    CHECK_EQ(net_subif_add(s, 19, 0, 0, 4095, 0, 0), -1);  /* 802.1Q: 4095 reserved */
    route4_add(x->rt, 0x0a016400, 24, fwd_fix_nh(x, NEXTHOP_VIA, V100, 0, 0)); /* connected */
    route4_add(x->rt, 0x0a01c800, 24, fwd_fix_nh(x, NEXTHOP_VIA, V200, 0, 0));
    route4_add(x->rt, 0x0a030000, 24, fwd_fix_nh(x, NEXTHOP_VIA, Q300, 0, 0));
    fwd_sync(x->f, s);
    fwd_fix_learn(x);
}

/* A host's ARP request for target in VLAN (outer, vid) on eth0. */
static void arp_from(struct fwd_fix *x, const uint8_t *mac, uint32_t ip, uint32_t target, uint16_t outer,
                     uint16_t vid)
{
    static const uint8_t zero[6];
    uint8_t f[128], t[128];
    size_t n = fake_eth(f, eth_bcast_addr, mac, ETH_TYPE_ARP);
    n += fake_arp(f + n, ARP_OP_REQUEST, mac, ip, zero, target);
    fake_net_input(&x->fn, 0, t, tagged(t, f, n, outer, vid));
}

/* The frame at d carries exactly the tags (outer, vid) after its MACs, then type. */
static bool has_tags(const uint8_t *d, uint16_t outer, uint16_t vid, uint16_t type)
{
    size_t o = 12;
    if (outer) {
        if (d[o] != 0x88 || d[o + 1] != 0xa8 || (d[o + 2] << 8 | d[o + 3]) != outer)
            return false;
        o += 4;
    }
    return d[o] == 0x81 && d[o + 1] == 0 && (d[o + 2] << 8 | d[o + 3]) == vid && (d[o + 4] << 8 | d[o + 5]) == type;
}

TEST(vlan_subif_answers_arp_in_its_vlan_only)
{
    struct fwd_fix x;
    setup(&x);
    struct fake_netdev *e0 = &x.fn.nd[0];
    arp_from(&x, host100, NET_IP4(10, 1, 100, 2), NET_IP4(10, 1, 100, 1), 0, 100);
    CHECK_EQ(e0->nsent, 1);
    if (e0->nsent == 1) {
        const uint8_t *d = e0->sent[0]->data;
        CHECK(memcmp(d, host100, 6) == 0 && memcmp(d + 6, fake_mac0, 6) == 0);
        CHECK(has_tags(d, 0, 100, ETH_TYPE_ARP));
        CHECK_EQ(d[18 + 7], ARP_OP_REPLY);
    }
    fake_netdev_clear(e0);
    arp_from(&x, host200, NET_IP4(10, 1, 200, 2), NET_IP4(10, 1, 100, 1), 0, 200); /* another VLAN's address */
    arp_from(&x, host100, NET_IP4(10, 1, 100, 2), NET_IP4(10, 1, 100, 1), 0, 999); /* no such VLAN */
    CHECK_EQ(e0->nsent, 0);
    arp_from(&x, hostq, NET_IP4(10, 3, 0, 2), NET_IP4(10, 3, 0, 1), 300, 400);
    CHECK_EQ(e0->nsent, 1);
    if (e0->nsent == 1)
        CHECK(has_tags(e0->sent[0]->data, 300, 400, ETH_TYPE_ARP));
    fake_netdev_clear(e0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "eth-rx=4 eth-vlan-drop=1 arp-rx-request=3 arp-tx-reply=2 "
                                          "arp-not-for-us=1 eth-tx=2"), 0);
    struct net_iface *v100 = net_iface_get(x.fn.s, V100);
    CHECK(v100 && v100->sub_rx == 1 && v100->sub_tx == 1);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

TEST(vlan_subif_forwards_between_vlans_on_the_fast_path)
{
    struct fwd_fix x;
    setup(&x);
    struct fake_netdev *e0 = &x.fn.nd[0], *e1 = &x.fn.nd[1];
    arp_from(&x, host100, NET_IP4(10, 1, 100, 2), NET_IP4(10, 1, 100, 1), 0, 100); /* both hosts known */
    arp_from(&x, host200, NET_IP4(10, 1, 200, 2), NET_IP4(10, 1, 200, 1), 0, 200);
    fake_netdev_clear(e0);
    memset(&x.f->ctr, 0, sizeof x.f->ctr);
    uint8_t(*fr)[2048] = calloc(32, 2048);
    size_t len[32];
    uint8_t plain[2048];
    for (uint32_t i = 0; i < 32; i++) {
        /* 100 -> 200 for the even ones, 100 -> eth1's 192.168/16 for the odd */
        size_t n = fwd_fix_frame(plain, 0, NET_IP4(10, 1, 100, 2), i & 1 ? NET_IP4(192, 168, 0, i)
                                                                           : NET_IP4(10, 1, 200, 2), 64, 0, 20 + i, i);
        memcpy(plain + 6, host100, 6);
        len[i] = tagged(fr[i], plain, n, 0, 100);
    }
    fwd_fix_burst(&x, 0, fr, len, 32);
    CHECK_EQ(e0->tx_calls, 1); /* one doorbell for all of VLAN 200's */
    CHECK_EQ(e0->nsent, 16);
    CHECK_EQ(e1->tx_calls, 1);
    CHECK_EQ(e1->nsent, 16);
    for (uint32_t i = 0; i < e0->nsent; i++) {
        const uint8_t *d = e0->sent[i]->data;
        CHECK(memcmp(d, host200, 6) == 0 && memcmp(d + 6, fake_mac0, 6) == 0);
        CHECK(has_tags(d, 0, 200, ETH_TYPE_IP4));
        CHECK_EQ(d[18 + 8], 63); /* TTL */
        CHECK_EQ(e0->sent[i]->len, len[2 * i]);
    }
    for (uint32_t i = 0; i < e1->nsent; i++) {
        const uint8_t *d = e1->sent[i]->data;
        CHECK(memcmp(d, fwd_peer1_mac, 6) == 0 && (d[12] << 8 | d[13]) == ETH_TYPE_IP4); /* untagged */
    }
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=32 fwd-fast=32 fwd-tx=32"), 0);
    struct net_iface *v100 = net_iface_get(x.fn.s, V100), *v200 = net_iface_get(x.fn.s, V200);
    CHECK(v100->sub_rx == 1 + 32 && v200->sub_tx == 1 + 16);
    fake_netdev_clear(e0);
    fake_netdev_clear(e1);

    /* eth1 -> VLAN 100: tagged on the way out */
    size_t n = fwd_fix_frame(plain, 1, FAKE_PEER1, NET_IP4(10, 1, 100, 2), 64, 0, 30, 1);
    fwd_fix_burst(&x, 1, (uint8_t(*)[2048])plain, &n, 1);
    CHECK_EQ(e0->nsent, 1);
    if (e0->nsent == 1) {
        CHECK(has_tags(e0->sent[0]->data, 0, 100, ETH_TYPE_IP4));
        CHECK(memcmp(e0->sent[0]->data, host100, 6) == 0);
        CHECK_EQ(e0->sent[0]->len, n + 4);
    }
    fake_netdev_clear(e0);
    CHECK(fake_net_all_free(&x.fn));
    free(fr);
    fwd_fix_free(&x);
}

TEST(vlan_subif_qinq_ping)
{
    struct fwd_fix x;
    setup(&x);
    struct fake_netdev *e0 = &x.fn.nd[0];
    arp_from(&x, hostq, NET_IP4(10, 3, 0, 2), NET_IP4(10, 3, 0, 1), 300, 400);
    fake_netdev_clear(e0);
    uint8_t icmp[16], f[128], t[128];
    size_t n = fake_icmp(icmp, ICMP4_ECHO, 0, 0x12340001, "abcdefgh", 8);
    size_t e = fake_eth(f, fake_mac0, hostq, ETH_TYPE_IP4);
    n = e + fake_ip4(f + e, NET_IP4(10, 3, 0, 2), NET_IP4(10, 3, 0, 1), IP4_PROTO_ICMP, 7, 0, icmp, n);
    size_t tn = tagged(t, f, n, 300, 400);
    fwd_fix_burst(&x, 0, (uint8_t(*)[2048])t, &tn, 1);
    CHECK_EQ(e0->nsent, 1);
    if (e0->nsent == 1) {
        const uint8_t *d = e0->sent[0]->data;
        CHECK(has_tags(d, 300, 400, ETH_TYPE_IP4));
        CHECK_EQ(d[22 + 20], ICMP4_ECHO_REPLY);
    }
    fake_netdev_clear(e0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}
