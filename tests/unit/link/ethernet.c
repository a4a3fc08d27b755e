/* SPDX-License-Identifier: MIT */
/* tests/unit/link/ethernet.c: Ethernet input checks, 802.1Q tags, TX bursts and
 * doorbells (net/link/eth.c, net/net.c). */
#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"

static const uint8_t zero_mac[6];

/* A frame of n bytes: peer -> dst, type, zero payload. */
static size_t frame(uint8_t *f, const uint8_t *dst, const uint8_t *src, uint16_t type, size_t n)
{
    memset(f, 0, n);
    fake_eth(f, dst, src, type);
    return n;
}

TEST(eth_runt_dropped)
{
    struct fake_net fn;
    fake_net_init(&fn, 16);
    uint8_t f[64];
    frame(f, fake_mac0, fake_peer_mac, ETH_TYPE_IP4, 64);
    fake_net_input(&fn, 0, f, 13);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=1 eth-runt=1"), 0);
    CHECK_EQ(fn.nd[0].nsent, 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(eth_unknown_type_dropped)
{
    struct fake_net fn;
    fake_net_init(&fn, 16);
    uint8_t f[64];
    fake_net_input(&fn, 0, f, frame(f, fake_mac0, fake_peer_mac, 0x88cc, 60)); /* LLDP */
    fake_net_input(&fn, 0, f, frame(f, eth_bcast_addr, fake_peer_mac, 0x88b5, 60)); /* local experimental */
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=2 eth-unknown-type=2"), 0);
    CHECK_EQ(fn.nd[0].nsent, 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(eth_address_checks)
{
    struct fake_net fn;
    fake_net_init(&fn, 16);
    uint8_t f[64];
    const uint8_t other[6] = {0x02, 0, 0, 0, 0, 0x77}, group_src[6] = {0x01, 0, 0x5e, 0, 0, 1};
    fake_net_input(&fn, 0, f, frame(f, other, fake_peer_mac, ETH_TYPE_IP4, 60));
    fake_net_input(&fn, 0, f, frame(f, fake_mac0, group_src, ETH_TYPE_IP4, 60));
    fake_net_input(&fn, 1, f, frame(f, fake_mac0, fake_peer_mac, ETH_TYPE_IP4, 60)); /* eth0's MAC on eth1 */
    fake_net_input(&fn, 5, f, frame(f, fake_mac0, fake_peer_mac, ETH_TYPE_IP4, 60));
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=4 eth-not-for-us=2 eth-bad-src=1 eth-no-iface=1"), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* An ARP request for 10.0.0.1 behind tag (tpid, vid), or untagged if tpid 0. */
static size_t tagged_arp(uint8_t *f, uint16_t tpid, uint16_t vid, uint16_t tpid2)
{
    size_t n = fake_eth(f, eth_bcast_addr, fake_peer_mac, tpid ? tpid : ETH_TYPE_ARP);
    if (tpid) {
        f[n] = (uint8_t)(vid >> 8);
        f[n + 1] = (uint8_t)vid;
        f[n + 2] = (uint8_t)((tpid2 ? tpid2 : ETH_TYPE_ARP) >> 8);
        f[n + 3] = (uint8_t)(tpid2 ? tpid2 : ETH_TYPE_ARP);
        n += 4;
        if (tpid2) {
            f[n] = 0;
            f[n + 1] = 9;
            f[n + 2] = 0x08;
            f[n + 3] = 0x06;
            n += 4;
        }
    }
    return n + fake_arp(f + n, ARP_OP_REQUEST, fake_peer_mac, FAKE_PEER, zero_mac, FAKE_ADDR0);
}

TEST(eth_vlan_tags)
{
    struct fake_net fn;
    fake_net_init(&fn, 16);
    uint8_t f[96];
    fake_net_input(&fn, 0, f, tagged_arp(f, ETH_TYPE_VLAN, 5, 0));        /* wrong VLAN */
    fake_net_input(&fn, 0, f, tagged_arp(f, ETH_TYPE_QINQ, 0, ETH_TYPE_VLAN)); /* stacked */
    fake_net_input(&fn, 0, f, 16);                                         /* truncated tag */
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=3 eth-vlan-drop=2 eth-runt=1"), 0);
    memset(&fn.s->ctr, 0, sizeof(fn.s->ctr));
    fake_net_input(&fn, 0, f, tagged_arp(f, ETH_TYPE_VLAN, 0x2000, 0)); /* priority-tagged, VID 0 */
    CHECK_EQ(fn.nd[0].nsent, 1);
    CHECK_EQ(fn.nd[0].sent[0]->data[12] << 8 | fn.nd[0].sent[0]->data[13], ETH_TYPE_ARP);
    fake_net_all_free(&fn);

    net_iface_get(fn.s, 0)->vlan_id = 5; /* port 0 now carries VLAN 5 */
    fake_net_input(&fn, 0, f, tagged_arp(f, 0, 0, 0));
    CHECK_EQ(fn.nd[0].nsent, 0);
    fake_net_input(&fn, 0, f, tagged_arp(f, ETH_TYPE_VLAN, 0x6005, 0)); /* PCP 3, VID 5 */
    CHECK_EQ(fn.nd[0].nsent, 1);
    if (fn.nd[0].nsent == 1) {
        const uint8_t *r = fn.nd[0].sent[0]->data;
        CHECK_EQ(r[12] << 8 | r[13], ETH_TYPE_VLAN);
        CHECK_EQ((r[14] << 8 | r[15]) & 0xfff, 5);
        CHECK_EQ(r[16] << 8 | r[17], ETH_TYPE_ARP);
        CHECK_EQ(r[18 + 7], ARP_OP_REPLY);
    }
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=3 eth-vlan-drop=1 eth-tx=2 arp-rx-request=2 "
                                        "arp-tx-reply=2"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* Echo requests in one burst: one tx_burst per port per flush. */
static void ping_burst(struct fake_net *fn, int n)
{
    struct pkt *pkts[2 * NET_TX_BURST];
    uint8_t f[128], icmp[16];
    for (int i = 0; i < n; i++) {
        size_t len = fake_icmp(icmp, ICMP4_ECHO, 0, (uint32_t)i, NULL, 0);
        size_t flen = fake_frame_ip4(f, IP4_PROTO_ICMP, (uint16_t)i, 0, icmp, len);
        pkts[i] = fake_net_rx(fn, 0, f, flen);
    }
    net_input(fn->s, pkts, (uint16_t)n, fn->now_ns);
    net_flush(fn->s);
}

TEST(eth_tx_one_doorbell_per_burst)
{
    struct fake_net fn;
    fake_net_init(&fn, 2 * NET_TX_BURST);
    fake_net_learn_peer(&fn);
    ping_burst(&fn, 20);
    CHECK_EQ(fn.nd[0].tx_calls, 1);
    CHECK_EQ(fn.nd[0].nsent, 20);
    CHECK_EQ(fn.nd[1].tx_calls, 0);
    fake_net_all_free(&fn);
    ping_burst(&fn, NET_TX_BURST + 8); /* flushed once on the way */
    CHECK_EQ(fn.nd[0].tx_calls, 2);
    CHECK_EQ(fn.nd[0].nsent, NET_TX_BURST + 8);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* A driver whose ring is full: what it did not take waits, in order, for
 * the next flush; the port is busy until then. */
TEST(eth_tx_not_taken_kept_in_order)
{
    struct fake_net fn;
    fake_net_init(&fn, 64);
    fake_net_learn_peer(&fn);
    fn.nd[0].tx_accept = 2;
    ping_burst(&fn, 5);
    CHECK_EQ(fn.nd[0].tx_calls, 1);
    CHECK_EQ(fn.nd[0].nsent, 2);
    CHECK(fn.s->iface[0].tx_busy);
    CHECK_EQ(fn.s->iface[0].ntx, 3);
    fn.nd[0].tx_accept = 0xffff;
    net_flush(fn.s);
    CHECK_EQ(fn.nd[0].nsent, 5);
    CHECK(!fn.s->iface[0].tx_busy);
    for (uint32_t i = 0; i < 5; i++) { /* the echo replies' identifier and sequence: i */
        uint32_t rest;
        memcpy(&rest, fn.nd[0].sent[i]->data + ETH_HDR_LEN + IP4_HDR_LEN + 4, 4);
        CHECK_EQ(net_ntohl(rest), i);
    }
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=5 ip4-rx=5 ip4-local=5 icmp4-rx=5 icmp4-rx-echo=5 "
                                        "icmp4-tx-echo-reply=5 ip4-tx=5 eth-tx=5 eth-tx-busy=1"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

static uint64_t ctr(const struct fake_net *fn, const char *name)
{
    return net_counter_get(&fn->s->ctr, net_counter_find(name));
}

/* A driver that takes nothing: a full burst drops what comes after it,
 * and the link going down drops what waited. */
TEST(eth_tx_refused_dropped_when_full_or_down)
{
    struct fake_net fn;
    fake_net_init(&fn, 2 * NET_TX_BURST);
    fake_net_learn_peer(&fn);
    fn.nd[0].tx_accept = 0;
    ping_burst(&fn, NET_TX_BURST + 8);
    CHECK_EQ(fn.nd[0].nsent, 0);
    CHECK_EQ(fn.s->iface[0].ntx, NET_TX_BURST);
    CHECK_EQ(ctr(&fn, "eth-tx-drop"), 8);
    fn.nd[0].dev.link_up = false;
    net_poll(fn.s, fn.now_ns);
    CHECK_EQ(fn.s->iface[0].ntx, 0);
    CHECK(!fn.s->iface[0].tx_busy);
    CHECK_EQ(ctr(&fn, "eth-tx-drop"), NET_TX_BURST + 8);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(eth_short_frames_padded)
{
    struct fake_net fn;
    fake_net_init(&fn, 16);
    uint8_t f[96];
    fake_net_input(&fn, 0, f, tagged_arp(f, 0, 0, 0));
    CHECK_EQ(fn.nd[0].nsent, 1);
    CHECK_EQ(fn.nd[0].sent[0]->len, ETH_MIN_LEN);
    for (int i = 14 + 28; i < ETH_MIN_LEN; i++)
        CHECK_EQ(fn.nd[0].sent[0]->data[i], 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(net_counter_table_names)
{
    const struct net_counter_desc *d;
    size_t n = 0;
    for (size_t i = 0; (d = net_counter_at(i)) != NULL; i++, n++) {
        size_t l = strlen(d->layer);
        CHECK(strncmp(d->name, d->layer, l) == 0 && d->name[l] == '-');
        CHECK(net_counter_find(d->name) == d);
        CHECK(d->offset % 8 == 0 && d->offset < sizeof(struct net_counters));
    }
    CHECK_EQ(n * 8, sizeof(struct net_counters));
    CHECK(net_counter_find("ip4-bad-checksum") != NULL);
    CHECK(net_counter_find("no-such") == NULL);
}

TEST(eth_full_buffer_sent_without_tailroom)
{
    struct fake_net fn;
    fake_net_init(&fn, 16);
    fn.nd[0].dev.mtu = 9000;
    net_iface_add(fn.s, &fn.nd[0].dev, 0, FAKE_ADDR0, 24);
    fake_net_learn_peer(&fn);
    struct pkt *p = pkt_alloc(&fn.pool);
    memset(p->data, 0x5a, PKT_DATA_ROOM);
    p->len = PKT_DATA_ROOM; /* payload up to the end of the buffer */
    CHECK_EQ(udp_send(fn.s, p, 0, FAKE_PEER, 1, 2, fn.now_ns), 0);
    net_flush(fn.s);
    CHECK_EQ(fn.nd[0].nsent, 1);
    if (fn.nd[0].nsent == 1)
        CHECK_EQ(fn.nd[0].sent[0]->len, 14 + 20 + 8 + PKT_DATA_ROOM);
    CHECK_EQ(fake_expect_counters(fn.s, "udp-tx=1 ip4-tx=1 eth-tx=1"), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}
