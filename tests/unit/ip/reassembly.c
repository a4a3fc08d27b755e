/* SPDX-License-Identifier: MIT */
/* tests/unit/ip/reassembly.c: fragment checks, reassembly in and out of order,
 * overlap and inconsistency, bounds and timeouts, fragmented replies
 * (net/ip/reasm.c, net/ip/ip4_output.c). */
#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"

static size_t frag(uint8_t *f, uint16_t id, uint32_t off, bool mf, const void *payload, size_t len)
{
    return fake_frame_ip4(f, IP4_PROTO_ICMP, id, (uint16_t)((mf ? IP4_MF : 0) | off / 8), payload, len);
}

static uint8_t big[8 + 4000];

/* An echo request with 4000 bytes of data (ping -s 4000). */
static size_t big_ping(void)
{
    uint8_t data[4000];
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(i * 13 + 1);
    return fake_icmp(big, ICMP4_ECHO, 0, 0x00070001, data, sizeof(data));
}

/* Feed the ping as MTU-1500 fragments in the given order. */
static void send_big_ping(struct fake_net *fn, uint16_t id, const int *order)
{
    size_t total = big_ping();
    uint8_t f[1600];
    for (int i = 0; i < 3; i++) {
        uint32_t off = (uint32_t)order[i] * 1480;
        size_t len = total - off < 1480 ? total - off : 1480;
        fake_net_input(fn, 0, f, frag(f, id, off, off + len < total, big + off, len));
    }
}

/* Reassemble what the stack sent on nd, checking each fragment's header.
 * Returns the payload length, 0 if it does not add up. */
static size_t collect(struct fake_netdev *nd, uint8_t *out)
{
    size_t got = 0, end = 0;
    for (uint32_t i = 0; i < nd->nsent; i++) {
        const uint8_t *ip = nd->sent[i]->data + 14;
        uint16_t tot = (uint16_t)(ip[2] << 8 | ip[3]), fr = (uint16_t)(ip[6] << 8 | ip[7]);
        CHECK(tot <= 1500);
        CHECK_EQ(fake_csum(ip, 20, 0), 0);
        CHECK(memcmp(ip + 4, nd->sent[0]->data + 14 + 4, 2) == 0); /* one id */
        uint32_t off = (uint32_t)(fr & IP4_OFF_MASK) * 8, len = tot - 20u;
        if (fr & IP4_MF)
            CHECK_EQ(len % 8, 0);
        else
            end = off + len;
        memcpy(out + off, ip + 20, len);
        got += len;
    }
    return got == end ? end : 0;
}

static void check_big_reply(struct fake_net *fn)
{
    static uint8_t reply[8 + 4000];
    CHECK_EQ(fn->nd[0].nsent, 3);
    CHECK_EQ(collect(&fn->nd[0], reply), sizeof(reply));
    CHECK_EQ(reply[0], ICMP4_ECHO_REPLY);
    CHECK(memcmp(reply + 4, big + 4, sizeof(reply) - 4) == 0);
    CHECK_EQ(fake_csum(reply, sizeof(reply), 0), 0);
}

TEST(reasm_ping_4000_in_order_reply_fragmented)
{
    struct fake_net fn;
    fake_net_init(&fn, 64);
    fake_net_learn_peer(&fn);
    send_big_ping(&fn, 1, (const int[]){0, 1, 2});
    check_big_reply(&fn);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=3 ip4-rx=3 ip4-reasm-ok=1 ip4-local=1 icmp4-rx=1 "
                                        "icmp4-rx-echo=1 icmp4-tx-echo-reply=1 ip4-tx=1 ip4-frag-tx=3 eth-tx=3"),
             0);
    CHECK_EQ(fn.s->reasm.bufs, 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(reasm_out_of_order)
{
    struct fake_net fn;
    fake_net_init(&fn, 64);
    fake_net_learn_peer(&fn);
    static const int orders[][3] = {{2, 1, 0}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {1, 0, 2}};
    for (int i = 0; i < 5; i++) {
        send_big_ping(&fn, (uint16_t)(10 + i), orders[i]);
        check_big_reply(&fn);
        fake_net_all_free(&fn);
    }
    CHECK_EQ(fn.s->ctr.ip4_reasm_ok, 5);
    CHECK_EQ(fn.s->ctr.icmp4_tx_echo_reply, 5);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(reasm_bad_fragments_dropped)
{
    struct fake_net fn;
    fake_net_init(&fn, 64);
    fake_net_learn_peer(&fn);
    uint8_t f[256], d[64] = {0};
    fake_net_input(&fn, 0, f, frag(f, 1, 65512, false, d, 40)); /* ends past 65535 */
    fake_net_input(&fn, 0, f, frag(f, 2, 65528, true, d, 8));
    fake_net_input(&fn, 0, f, frag(f, 3, 16, true, d, 0));      /* empty */
    fake_net_input(&fn, 0, f, frag(f, 4, 0, true, d, 12));      /* not 8n, not last */
    fake_net_input(&fn, 0, f, frag(f, 5, 8, false, d, 24));     /* offset 1 */
    CHECK_EQ(fn.nd[0].nsent, 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=5 ip4-rx=5 ip4-frag-too-big=2 ip4-frag-bad-len=2 "
                                        "ip4-frag-tiny=1"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(reasm_overlap_drops_datagram)
{
    struct fake_net fn;
    fake_net_init(&fn, 64);
    fake_net_learn_peer(&fn);
    uint8_t f[256], d[64] = {0};
    fake_net_input(&fn, 0, f, frag(f, 1, 0, true, d, 24));
    fake_net_input(&fn, 0, f, frag(f, 1, 16, true, d, 16)); /* overlaps the first */
    CHECK_EQ(fn.s->reasm.bufs, 0);
    fake_net_input(&fn, 0, f, frag(f, 2, 16, true, d, 16));
    fake_net_input(&fn, 0, f, frag(f, 2, 0, true, d, 24)); /* overlaps the next */
    fake_net_input(&fn, 0, f, frag(f, 4, 16, true, d, 8));
    fake_net_input(&fn, 0, f, frag(f, 4, 24, false, d, 8));
    fake_net_input(&fn, 0, f, frag(f, 4, 0, true, d, 32)); /* covers both */
    CHECK_EQ(fn.s->reasm.bufs, 0);
    CHECK_EQ(fn.nd[0].nsent, 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=7 ip4-rx=7 ip4-reasm-overlap=3"), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* A fragment the network duplicated: the copy alone is dropped (RFC 8200
 * 4.5 allows it; Linux does it for IPv4 too), and the ping is answered. */
TEST(reasm_exact_duplicate_dropped_alone)
{
    struct fake_net fn;
    fake_net_init(&fn, 64);
    fake_net_learn_peer(&fn);
    send_big_ping(&fn, 1, (const int[]){0, 1, 1}); /* the middle one twice, no last yet */
    CHECK_EQ(fn.s->reasm.bufs, 2);
    send_big_ping(&fn, 1, (const int[]){2, 2, 2}); /* the last; then a copy begins anew, and its copy */
    check_big_reply(&fn);
    CHECK_EQ(fn.s->ctr.ip4_reasm_duplicate, 2);
    CHECK_EQ(fn.s->ctr.ip4_reasm_ok, 1);
    CHECK_EQ(fn.s->ctr.ip4_reasm_overlap, 0);
    fake_net_all_free(&fn);
    fn.now_ns += 60000000000ull;
    net_poll(fn.s, fn.now_ns); /* that one, never complete, times out */
    CHECK_EQ(fn.s->reasm.bufs, 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(reasm_inconsistent_end_drops_datagram)
{
    struct fake_net fn;
    fake_net_init(&fn, 64);
    fake_net_learn_peer(&fn);
    uint8_t f[256], d[64] = {0};
    fake_net_input(&fn, 0, f, frag(f, 1, 16, false, d, 8)); /* ends at 24 */
    fake_net_input(&fn, 0, f, frag(f, 1, 24, true, d, 8));  /* past the end */
    fake_net_input(&fn, 0, f, frag(f, 2, 16, false, d, 8));
    fake_net_input(&fn, 0, f, frag(f, 2, 32, false, d, 8)); /* a second, other end */
    fake_net_input(&fn, 0, f, frag(f, 3, 32, true, d, 8));
    fake_net_input(&fn, 0, f, frag(f, 3, 16, false, d, 8)); /* ends before data held */
    CHECK_EQ(fn.s->reasm.bufs, 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=6 ip4-rx=6 ip4-reasm-inconsistent=3"), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(reasm_10000_incomplete_bounded_and_expire)
{
    struct fake_net fn;
    fake_net_init(&fn, 64);
    fake_net_learn_peer(&fn);
    uint8_t f[256], d[64] = {0};
    for (uint32_t i = 0; i < 10000; i++) {
        fake_net_input(&fn, 0, f, frag(f, (uint16_t)i, 0, true, d, 8));
        CHECK(fn.pool.nfree >= fn.pool.total - REASM_SLOTS - 2);
    }
    CHECK_EQ(fn.s->reasm.bufs, REASM_SLOTS);
    CHECK_EQ(fn.nd[0].nsent, 0);
    uint64_t next = net_poll(fn.s, fn.now_ns);
    CHECK_EQ(next, fn.now_ns + REASM_TIMEOUT_NS);
    net_poll(fn.s, fn.now_ns + REASM_TIMEOUT_NS);
    net_flush(fn.s);
    CHECK_EQ(fn.s->reasm.bufs, 0);
    /* Time exceeded (reassembly) for each, as each had its first fragment;
     * the peer's ARP entry went stale meanwhile: one refresh request. */
    CHECK_EQ(fn.nd[0].nsent, 1 + REASM_SLOTS);
    if (fn.nd[0].nsent > 1)
        CHECK(fn.nd[0].sent[1]->data[34] == ICMP4_TIME_EXCEEDED && fn.nd[0].sent[1]->data[35] == ICMP4_EXC_REASM);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=10000 ip4-rx=10000 ip4-reasm-evicted=9984 ip4-reasm-timeout=16 "
                                        "icmp4-tx-time-exceeded=16 ip4-tx=16 eth-tx=17 arp-tx-request=1"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(reasm_timeout_without_first_is_silent)
{
    struct fake_net fn;
    fake_net_init(&fn, 64);
    fake_net_learn_peer(&fn);
    uint8_t f[256], d[64] = {0};
    fake_net_input(&fn, 0, f, frag(f, 1, 64, false, d, 8));
    net_poll(fn.s, fn.now_ns + REASM_TIMEOUT_NS);
    CHECK(fake_net_all_free(&fn));
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=1 ip4-rx=1 ip4-reasm-timeout=1"), 0);
    fake_net_free(&fn);
}

TEST(reasm_buffers_bounded)
{
    struct fake_net fn;
    fake_net_init(&fn, 256);
    fake_net_learn_peer(&fn);
    uint8_t f[256], d[64] = {0};
    for (uint32_t i = 0; i <= REASM_MAX_FRAGS; i++) /* one too many for one datagram */
        fake_net_input(&fn, 0, f, frag(f, 1, 16 + i * 8, true, d, 8));
    CHECK_EQ(fn.s->ctr.ip4_reasm_too_many, 1);
    CHECK_EQ(fn.s->reasm.bufs, 0);
    for (uint16_t id = 2; id < 5; id++) /* 3 x 60 buffers > the budget */
        for (uint32_t i = 0; i < 60; i++)
            fake_net_input(&fn, 0, f, frag(f, id, 16 + i * 8, true, d, 8));
    CHECK(fn.s->reasm.bufs <= REASM_MAX_BUFS);
    CHECK_EQ(fn.s->ctr.ip4_reasm_evicted, 1);
    CHECK_EQ(fn.s->reasm.bufs, 2 * 60); /* the oldest gave way */
    net_stack_release(fn.s);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}
