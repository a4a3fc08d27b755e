/* SPDX-License-Identifier: MIT */
/* tests/unit/link/arp.c: ARP input checks, replies, learning rules,
 * resolution with a bounded queue, retries, staleness, gratuitous ARP
 * (net/link/arp.c). */
#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"

static const uint8_t zero_mac[6];
static const uint8_t mac_b[6] = {0x02, 0, 0, 0, 0, 0xbb};
#define HOST_B NET_IP4(10, 0, 0, 3)

static size_t arp_frame(uint8_t *f, const uint8_t *dst, uint16_t op, const uint8_t *sha, uint32_t spa,
                        const uint8_t *tha, uint32_t tpa)
{
    size_t n = fake_eth(f, dst, sha, ETH_TYPE_ARP);
    return n + fake_arp(f + n, op, sha, spa, tha, tpa);
}

static int entries(struct fake_net *fn, uint16_t port)
{
    struct arp_info ai;
    uint32_t idx = 0;
    int n = 0;
    while (arp_entry_next(fn->s, port, &idx, &ai))
        n++;
    return n;
}

static const struct arp_info *entry(struct fake_net *fn, uint32_t ip_be)
{
    static struct arp_info ai;
    uint32_t idx = 0;
    while (arp_entry_next(fn->s, 0, &idx, &ai))
        if (ai.ip_be == ip_be)
            return &ai;
    return NULL;
}

TEST(arp_request_answered_and_learned)
{
    struct fake_net fn;
    fake_net_init(&fn, 16);
    uint8_t f[64];
    fake_net_input(&fn, 0, f, arp_frame(f, eth_bcast_addr, ARP_OP_REQUEST, fake_peer_mac, FAKE_PEER, zero_mac, FAKE_ADDR0));
    CHECK_EQ(fn.nd[0].nsent, 1);
    uint8_t want[60] = {0};
    size_t n = arp_frame(want, fake_peer_mac, ARP_OP_REPLY, fake_mac0, FAKE_ADDR0, fake_peer_mac, FAKE_PEER);
    memcpy(want, fake_peer_mac, 6);
    memcpy(want + 6, fake_mac0, 6);
    CHECK_EQ(n, 42);
    if (fn.nd[0].nsent == 1) {
        CHECK_EQ(fn.nd[0].sent[0]->len, 60);
        CHECK(memcmp(fn.nd[0].sent[0]->data, want, 60) == 0);
    }
    const struct arp_info *e = entry(&fn, FAKE_PEER);
    CHECK(e != NULL);
    if (e) {
        CHECK_EQ(e->state, ARP_REACHABLE);
        CHECK(memcmp(e->mac, fake_peer_mac, 6) == 0);
    }
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=1 arp-rx-request=1 arp-tx-reply=1 eth-tx=1"), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(arp_no_entry_from_unsolicited_traffic)
{
    struct fake_net fn;
    fake_net_init(&fn, 16);
    uint8_t f[64];
    /* A request for someone else, a reply to someone else, a gratuitous ARP. */
    fake_net_input(&fn, 0, f, arp_frame(f, eth_bcast_addr, ARP_OP_REQUEST, mac_b, HOST_B, zero_mac, FAKE_PEER));
    fake_net_input(&fn, 0, f, arp_frame(f, fake_mac0, ARP_OP_REPLY, mac_b, HOST_B, fake_peer_mac, FAKE_PEER));
    fake_net_input(&fn, 0, f, arp_frame(f, eth_bcast_addr, ARP_OP_REQUEST, mac_b, HOST_B, zero_mac, HOST_B));
    CHECK_EQ(entries(&fn, 0), 0);
    CHECK_EQ(fn.nd[0].nsent, 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=3 arp-rx-request=2 arp-rx-reply=1 arp-not-for-us=3"), 0);
    /* Known hosts are refreshed by gratuitous ARP (RFC 826 merge). */
    fake_net_learn_peer(&fn);
    fake_net_input(&fn, 0, f, arp_frame(f, eth_bcast_addr, ARP_OP_REQUEST, mac_b, FAKE_PEER, zero_mac, FAKE_PEER));
    const struct arp_info *e = entry(&fn, FAKE_PEER);
    CHECK(e && memcmp(e->mac, mac_b, 6) == 0);
    CHECK_EQ(entries(&fn, 0), 1);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(arp_malformed_dropped)
{
    struct fake_net fn;
    fake_net_init(&fn, 16);
    uint8_t f[64];
    size_t n;
    const uint8_t group[6] = {0x01, 0, 0x5e, 0, 0, 9};
#define REQ() arp_frame(f, eth_bcast_addr, ARP_OP_REQUEST, fake_peer_mac, FAKE_PEER, zero_mac, FAKE_ADDR0)
    n = REQ();
    f[14 + 1] = 6; /* htype 6 */
    fake_net_input(&fn, 0, f, n);
    n = REQ();
    f[14 + 3] = 0x06; /* ptype 0x0806 */
    fake_net_input(&fn, 0, f, n);
    n = REQ();
    f[14 + 4] = 8; /* hlen */
    fake_net_input(&fn, 0, f, n);
    n = REQ();
    f[14 + 4] = 0;
    fake_net_input(&fn, 0, f, n);
    n = REQ();
    f[14 + 5] = 16; /* plen */
    fake_net_input(&fn, 0, f, n);
    n = REQ();
    fake_net_input(&fn, 0, f, n - 1); /* one byte short */
    fake_net_input(&fn, 0, f, 14 + 7); /* not even the fixed part */
    n = REQ();
    f[14 + 7] = 3; /* op */
    fake_net_input(&fn, 0, f, n);
    n = arp_frame(f, eth_bcast_addr, ARP_OP_REQUEST, group, FAKE_PEER, zero_mac, FAKE_ADDR0);
    memcpy(f + 6, fake_peer_mac, 6);
    fake_net_input(&fn, 0, f, n);
    fake_net_input(&fn, 0, f, arp_frame(f, eth_bcast_addr, ARP_OP_REQUEST, fake_peer_mac, NET_IP4(127, 0, 0, 1), zero_mac, FAKE_ADDR0));
    fake_net_input(&fn, 0, f, arp_frame(f, eth_bcast_addr, ARP_OP_REQUEST, fake_peer_mac, NET_IP4(10, 0, 0, 255), zero_mac, FAKE_ADDR0));
    fake_net_input(&fn, 0, f, arp_frame(f, fake_mac0, ARP_OP_REPLY, fake_peer_mac, 0, fake_mac0, FAKE_ADDR0));
    fake_net_input(&fn, 0, f, arp_frame(f, eth_bcast_addr, ARP_OP_REQUEST, fake_peer_mac, FAKE_ADDR0, zero_mac, FAKE_ADDR0));
#undef REQ
    CHECK_EQ(fn.nd[0].nsent, 0);
    CHECK_EQ(entries(&fn, 0), 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=13 arp-bad-htype=1 arp-bad-ptype=1 arp-bad-hlen=2 "
                                        "arp-bad-plen=1 arp-truncated=2 arp-bad-op=1 arp-rx-request=4 "
                                        "arp-rx-reply=1 arp-bad-sender=4 arp-addr-conflict=1"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(arp_probe_answered_not_learned)
{
    struct fake_net fn;
    fake_net_init(&fn, 16);
    uint8_t f[64];
    fake_net_input(&fn, 0, f, arp_frame(f, eth_bcast_addr, ARP_OP_REQUEST, fake_peer_mac, 0, zero_mac, FAKE_ADDR0));
    CHECK_EQ(fn.nd[0].nsent, 1);
    CHECK_EQ(entries(&fn, 0), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

static void send_udp(struct fake_net *fn, uint32_t dst, int n)
{
    for (int i = 0; i < n; i++) {
        struct pkt *p = pkt_alloc(&fn->pool);
        memset(p->data, 'x', 10);
        p->len = 10;
        udp_send(fn->s, p, 0, dst, 1000, 2000, fn->now_ns);
    }
    net_flush(fn->s);
}

static bool is_request_for(const struct pkt *p, uint32_t tpa)
{
    const uint8_t *a = p->data + 14;
    return p->data[12] == 0x08 && p->data[13] == 0x06 && a[7] == ARP_OP_REQUEST &&
           memcmp(p->data, eth_bcast_addr, 6) == 0 && memcmp(a + 24, &tpa, 4) == 0 &&
           memcmp(a + 14, &(uint32_t){FAKE_ADDR0}, 4) == 0;
}

TEST(arp_resolves_then_sends_queued)
{
    struct fake_net fn;
    fake_net_init(&fn, 64);
    uint8_t f[64];
    send_udp(&fn, HOST_B, 3);
    CHECK_EQ(fn.nd[0].nsent, 1); /* one request for three datagrams */
    CHECK(fn.nd[0].nsent == 1 && is_request_for(fn.nd[0].sent[0], HOST_B));
    fake_net_all_free(&fn);
    CHECK_EQ(fn.pool.nfree, fn.pool.total - 3);
    fake_net_input(&fn, 0, f, arp_frame(f, fake_mac0, ARP_OP_REPLY, mac_b, HOST_B, fake_mac0, FAKE_ADDR0));
    CHECK_EQ(fn.nd[0].nsent, 3);
    for (uint32_t i = 0; i < fn.nd[0].nsent; i++) {
        CHECK(memcmp(fn.nd[0].sent[i]->data, mac_b, 6) == 0);
        CHECK(memcmp(fn.nd[0].sent[i]->data + 6, fake_mac0, 6) == 0);
    }
    fake_net_all_free(&fn);
    send_udp(&fn, HOST_B, 1); /* now resolved: straight out */
    CHECK_EQ(fn.nd[0].nsent, 1);
    CHECK_EQ(fake_expect_counters(fn.s, "arp-tx-request=1 arp-rx-reply=1 eth-rx=1 eth-tx=5 ip4-tx=4 udp-tx=4"), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* What one core's ARP input learns reaches the others (net_arp_seen_fn,
 * arp_learn_remote): two stacks as two cores; the reply to B's request
 * arrives at A, which passes it on. */
struct seen_log {
    int n;
    uint16_t port;
    uint32_t ip_be;
    uint8_t mac[6];
};

static void log_seen(void *ctx, uint16_t port, uint32_t ip_be, const uint8_t *mac)
{
    struct seen_log *l = ctx;
    l->n++;
    l->port = port;
    l->ip_be = ip_be;
    memcpy(l->mac, mac, 6);
}

TEST(arp_learned_on_one_core_resolves_another)
{
    struct fake_net a, b;
    fake_net_init(&a, 64);
    fake_net_init(&b, 64);
    struct seen_log log = {0};
    net_set_arp_seen(a.s, log_seen, &log);
    uint8_t f[64];
    /* Nothing to learn from traffic that is neither ours nor known. */
    fake_net_input(&a, 0, f, arp_frame(f, eth_bcast_addr, ARP_OP_REQUEST, mac_b, HOST_B, zero_mac,
                                       NET_IP4(10, 0, 0, 77)));
    CHECK_EQ(log.n, 0);
    /* B's core asks; the reply reaches A's. */
    send_udp(&b, HOST_B, 2);
    CHECK_EQ(b.nd[0].nsent, 1);
    fake_net_all_free(&b);
    arp_learn_remote(b.s, 0, NET_IP4(10, 0, 0, 9), mac_b, 0); /* no entry: none made */
    CHECK_EQ(entries(&b, 0), 1);
    fake_net_input(&a, 0, f, arp_frame(f, fake_mac0, ARP_OP_REPLY, mac_b, HOST_B, fake_mac0, FAKE_ADDR0));
    CHECK_EQ(log.n, 1);
    CHECK(log.port == 0 && log.ip_be == HOST_B && memcmp(log.mac, mac_b, 6) == 0);
    arp_learn_remote(b.s, log.port, log.ip_be, log.mac, 0);
    net_flush(b.s);
    CHECK_EQ(b.nd[0].nsent, 2); /* what waited went out to B's MAC */
    for (uint32_t i = 0; i < b.nd[0].nsent; i++)
        CHECK(memcmp(b.nd[0].sent[i]->data, mac_b, 6) == 0);
    CHECK_EQ(fake_expect_counters(b.s, "arp-tx-request=1 arp-learned-remote=1 eth-tx=3 ip4-tx=2 udp-tx=2"), 0);
    CHECK(fake_net_all_free(&a));
    CHECK(fake_net_all_free(&b));
    fake_net_free(&a);
    fake_net_free(&b);
}

TEST(arp_retries_rate_limited_then_gives_up)
{
    struct fake_net fn;
    fake_net_init(&fn, 64);
    uint64_t t0 = fn.now_ns;
    send_udp(&fn, HOST_B, 2);
    CHECK_EQ(fn.nd[0].nsent, 1);
    fake_net_all_free(&fn);
    uint64_t next = net_poll(fn.s, t0 + 500000000ull); /* nothing due yet */
    CHECK_EQ(next, t0 + ARP_RETRY_NS);
    fn.now_ns = t0 + 600000000ull;
    send_udp(&fn, HOST_B, 1); /* queued, no new request inside the second */
    CHECK_EQ(fn.nd[0].nsent, 0);
    for (int i = 1; i <= 3; i++) {
        next = net_poll(fn.s, t0 + (uint64_t)i * ARP_RETRY_NS);
        net_flush(fn.s);
    }
    CHECK_EQ(fn.nd[0].nsent, 2); /* retries 2 and 3 */
    CHECK_EQ(next, UINT64_MAX);
    CHECK_EQ(entries(&fn, 0), 0);
    CHECK_EQ(fake_expect_counters(fn.s, "arp-tx-request=3 arp-timeout-drop=3 eth-tx=3 ip4-tx=3 udp-tx=3"), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(arp_queue_bounded)
{
    struct fake_net fn;
    fake_net_init(&fn, 256);
    send_udp(&fn, HOST_B, ARP_QUEUE_PER_DEST + 8);
    CHECK_EQ(fn.s->ctr.arp_queue_full, 8);
    CHECK_EQ(fn.s->arp_queued, ARP_QUEUE_PER_DEST);
    for (uint32_t i = 0; i < 8; i++) /* other destinations until the stack-wide bound */
        send_udp(&fn, NET_IP4(10, 0, 0, 10 + i), ARP_QUEUE_PER_DEST);
    CHECK_EQ(fn.s->arp_queued, ARP_QUEUE_MAX);
    CHECK_EQ(fn.s->ctr.arp_queue_full, 8 + 8 * ARP_QUEUE_PER_DEST - (ARP_QUEUE_MAX - ARP_QUEUE_PER_DEST));
    for (int i = 1; i <= 3; i++)
        net_poll(fn.s, fn.now_ns + (uint64_t)i * ARP_RETRY_NS);
    CHECK_EQ(fn.s->arp_queued, 0);
    CHECK_EQ(fn.s->ctr.arp_timeout_drop, ARP_QUEUE_MAX);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(arp_reachable_goes_stale_and_refreshes)
{
    struct fake_net fn;
    fake_net_init(&fn, 64);
    fake_net_learn_peer(&fn);
    uint64_t t0 = fn.now_ns;
    net_poll(fn.s, t0 + ARP_REACHABLE_NS);
    CHECK_EQ(entry(&fn, FAKE_PEER)->state, ARP_STALE);
    fn.now_ns = t0 + ARP_REACHABLE_NS + 1;
    send_udp(&fn, FAKE_PEER, 2); /* sent to the stale MAC, one refresh request */
    CHECK_EQ(fn.nd[0].nsent, 3);
    CHECK(is_request_for(fn.nd[0].sent[0], FAKE_PEER));
    CHECK(memcmp(fn.nd[0].sent[1]->data, fake_peer_mac, 6) == 0);
    fake_net_all_free(&fn);
    uint8_t f[64];
    fake_net_input(&fn, 0, f, arp_frame(f, fake_mac0, ARP_OP_REPLY, fake_peer_mac, FAKE_PEER, fake_mac0, FAKE_ADDR0));
    CHECK_EQ(entry(&fn, FAKE_PEER)->state, ARP_REACHABLE);
    net_poll(fn.s, fn.now_ns + ARP_REACHABLE_NS);
    net_poll(fn.s, fn.now_ns + ARP_REACHABLE_NS + ARP_STALE_NS); /* stale, unused: forgotten */
    CHECK_EQ(entries(&fn, 0), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(arp_gratuitous_on_link_up)
{
    struct fake_net fn;
    fake_net_init(&fn, 16);
    fn.nd[1].dev.link_up = false;
    net_poll(fn.s, fn.now_ns);
    net_flush(fn.s);
    CHECK_EQ(fn.nd[1].nsent, 0);
    fn.nd[1].dev.link_up = true;
    net_poll(fn.s, fn.now_ns);
    net_flush(fn.s);
    CHECK_EQ(fn.nd[1].nsent, 1);
    if (fn.nd[1].nsent == 1) {
        const uint8_t *a = fn.nd[1].sent[0]->data + 14;
        CHECK(memcmp(fn.nd[1].sent[0]->data, eth_bcast_addr, 6) == 0);
        CHECK_EQ(a[7], ARP_OP_REQUEST);
        CHECK(memcmp(a + 14, &(uint32_t){FAKE_ADDR1}, 4) == 0);
        CHECK(memcmp(a + 24, &(uint32_t){FAKE_ADDR1}, 4) == 0);
    }
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(arp_cache_bounded)
{
    struct fake_net fn;
    fake_net_init(&fn, 16);
    net_iface_add(fn.s, &fn.nd[0].dev, 0, FAKE_ADDR0, 16); /* room for many hosts */
    uint8_t f[64];
    for (uint32_t i = 0; i < 3000; i++) {
        uint8_t mac[6] = {0x02, 1, 0, 0, (uint8_t)(i >> 8), (uint8_t)i};
        uint32_t ip = NET_IP4(10, 0, 1 + i / 250, 1 + i % 250);
        fake_net_input(&fn, 0, f, arp_frame(f, eth_bcast_addr, ARP_OP_REQUEST, mac, ip, zero_mac, FAKE_ADDR0));
        fake_net_all_free(&fn);
    }
    CHECK(entries(&fn, 0) <= ARP_SETS * ARP_WAYS);
    CHECK(entries(&fn, 0) > ARP_SETS * ARP_WAYS * 3 / 4);
    CHECK_EQ(fn.s->ctr.arp_tx_reply, 3000);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(arp_static_entry_sends_waiting_frames_and_never_changes)
{
    struct fake_net fn;
    fake_net_init(&fn, 64);
    net_iface_add(fn.s, &fn.nd[0].dev, 0, FAKE_ADDR0, 16); /* room for many hosts */
    send_udp(&fn, HOST_B, 2); /* waits on a request */
    fake_net_all_free(&fn);
    CHECK_EQ(arp_add_static(fn.s, 0, HOST_B, mac_b), 0);
    net_flush(fn.s);
    CHECK_EQ(fn.nd[0].nsent, 2); /* what waited is sent to the configured MAC */
    for (uint32_t i = 0; i < fn.nd[0].nsent; i++)
        CHECK(memcmp(fn.nd[0].sent[i]->data, mac_b, 6) == 0);
    fake_net_all_free(&fn);
    CHECK_EQ(entry(&fn, HOST_B)->state, ARP_STATIC);
    CHECK(strcmp(arp_state_name(ARP_STATIC), "static") == 0);
    /* A reply claiming another MAC, hours of time, a flood of other hosts
     * in the same cache: the entry stays as configured. */
    uint8_t f[64];
    static const uint8_t other[6] = {0x02, 0, 0, 0, 0, 0xcc};
    fake_net_input(&fn, 0, f, arp_frame(f, fake_mac0, ARP_OP_REPLY, other, HOST_B, fake_mac0, FAKE_ADDR0));
    net_poll(fn.s, fn.now_ns + 10 * ARP_STALE_NS);
    for (uint32_t i = 0; i < 3000; i++) {
        uint8_t mac[6] = {0x02, 1, 0, 0, (uint8_t)(i >> 8), (uint8_t)i};
        uint32_t ip = NET_IP4(10, 0, 1 + i / 250, 1 + i % 250);
        fake_net_input(&fn, 0, f, arp_frame(f, eth_bcast_addr, ARP_OP_REQUEST, mac, ip, zero_mac, FAKE_ADDR0));
        fake_net_all_free(&fn);
    }
    const struct arp_info *e = entry(&fn, HOST_B);
    CHECK(e != NULL && e->state == ARP_STATIC && memcmp(e->mac, mac_b, 6) == 0);
    fn.now_ns += 10 * ARP_STALE_NS;
    send_udp(&fn, HOST_B, 1); /* straight out, no refresh request */
    CHECK_EQ(fn.nd[0].nsent, 1);
    CHECK(fn.nd[0].nsent == 1 && memcmp(fn.nd[0].sent[0]->data, mac_b, 6) == 0);
    fake_net_all_free(&fn);
    CHECK_EQ(arp_add_static(fn.s, 5, HOST_B, mac_b), -1); /* no such interface */
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}
