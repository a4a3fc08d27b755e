/* SPDX-License-Identifier: MIT */
/* tests/unit/fwd/access_lists.c: access lists where the forwarding path and
 * the stack apply them (net.h's acl_in, acl_out, acl_control): the fast
 * path's burst pass on the input, the output list as a frame leaves, the
 * slow path's (a fragment) counted once, and `acl control` on what comes
 * for the router; exact counters, every buffer back. */
#include "tests/support/fwd_fixture.h"
#include "tests/unit/check.h"

static void *mem_alloc(void *ctx, size_t n) { return aligned_alloc(64, (n + 63) & ~(size_t)63); }
static void mem_free(void *ctx, void *p, size_t n) { free(p); }
static const struct acl_mem mem = {mem_alloc, mem_free, NULL};

static struct acl *list_of(const char *const *lines, uint32_t n)
{
    struct acl_rule r[8];
    char buf[128], err[128], *argv[16];
    for (uint32_t i = 0; i < n; i++) {
        int argc = 0;
        snprintf(buf, sizeof buf, "%s", lines[i]);
        for (char *t = strtok(buf, " "); t && argc < 16; t = strtok(NULL, " "))
            argv[argc++] = t;
        CHECK_EQ(acl_rule_parse(&r[i], argc, argv, err, sizeof err), 0);
    }
    struct acl *a = acl_build("t", r, n, &mem, err, sizeof err);
    CHECK(a != NULL);
    return a;
}

/* The router with UDP to 192.168.1.0/24 port 9 denied on eth0's input and
 * 192.168.2.7 on eth1's output; in and out are the lists, their hit
 * counters in_hits and out_hits. */
static void two_lists(struct fwd_fix *x, struct acl **in, struct acl **out, uint64_t *in_hits, uint64_t *out_hits)
{
    fwd_fix_init(x, 256);
    fwd_fix_learn(x);
    static const char *const in_rules[] = {"deny proto udp dst 192.168.1.0/24 dport 9", "permit"};
    static const char *const out_rules[] = {"deny dst 192.168.2.7", "permit"};
    *in = list_of(in_rules, 2);
    *out = list_of(out_rules, 2);
    x->fn.s->iface[0].acl_in = (struct acl_use){*in, in_hits};
    x->fn.s->iface[1].acl_out = (struct acl_use){*out, out_hits};
    fwd_sync(x->f, x->fn.s);
}

TEST(acl_forwarding_input_and_output_lists)
{
    struct fwd_fix x;
    struct acl *in, *out;
    uint64_t in_hits[3] = {0}, out_hits[3] = {0};
    two_lists(&x, &in, &out, in_hits, out_hits);
    uint8_t(*fr)[2048] = calloc(33, 2048);
    size_t len[33];
    for (uint32_t i = 0; i < 32; i++) /* even: to 192.168.1.x (denied on input), odd: 192.168.2.x */
        len[i] = fwd_fix_frame(fr[i], 0, FAKE_PEER, NET_IP4(192, 168, 1 + (i & 1), i), 64, 0, 20, i);
    fwd_fix_burst(&x, 0, fr, len, 32);
    CHECK_EQ(x.fn.nd[1].nsent, 15); /* 16 odd ones, 192.168.2.7 denied on output */
    CHECK_EQ(x.fn.nd[1].tx_calls, 1);
    CHECK(in_hits[0] == 16 && in_hits[1] == 16 && in_hits[2] == 0);
    CHECK(out_hits[0] == 1 && out_hits[1] == 15);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=32 fwd-fast=15 fwd-tx=15"), 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "acl-in-deny=16 acl-out-deny=1"), 0);
    fake_netdev_clear(&x.fn.nd[1]);
    /* A first fragment takes the slow path: tested there, counted once */
    len[32] = fwd_fix_frame(fr[32], 0, FAKE_PEER, NET_IP4(192, 168, 1, 3), 64, IP4_MF, 64, 1);
    fwd_fix_one(&x, 0, fr[32], len[32]);
    CHECK(in_hits[0] == 17 && x.fn.nd[1].nsent == 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "eth-rx=1 ip4-rx=1 acl-in-deny=17 acl-out-deny=1"), 0); /* via the stack */
    CHECK(fake_net_all_free(&x.fn));
    x.fn.s->iface[0].acl_in = x.fn.s->iface[1].acl_out = (struct acl_use){0};
    acl_free(in, &mem);
    acl_free(out, &mem);
    free(fr);
    fwd_fix_free(&x);
}

/* The same lists and frames with every fourth one a first fragment, which
 * goes to the stack from the middle of the burst: the fast frames' rules,
 * found as their headers were read, must stay with them as the burst is
 * split, and each frame is counted on one rule of each list. */
TEST(acl_lists_with_frames_for_the_stack_in_the_burst)
{
    struct fwd_fix x;
    struct acl *in, *out;
    uint64_t in_hits[3] = {0}, out_hits[3] = {0};
    two_lists(&x, &in, &out, in_hits, out_hits);
    uint8_t(*fr)[2048] = calloc(32, 2048);
    size_t len[32];
    for (uint32_t i = 0; i < 32; i++) /* 3, 7, ..., 31: fragments to 192.168.2.x, 192.168.2.7 among them */
        len[i] = fwd_fix_frame(fr[i], 0, FAKE_PEER, NET_IP4(192, 168, 1 + (i & 1), i), 64, i % 4 == 3 ? IP4_MF : 0,
                               64, i);
    fwd_fix_burst(&x, 0, fr, len, 32);
    CHECK_EQ(x.fn.nd[1].nsent, 15); /* 8 fast (1, 5, ..., 29), 7 of the 8 fragments */
    CHECK(in_hits[0] == 16 && in_hits[1] == 16 && in_hits[2] == 0);
    CHECK(out_hits[0] == 1 && out_hits[1] == 15);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=32 fwd-fast=8 fwd-to-stack=8 fwd-slow=8 fwd-tx=15"), 0);
    CHECK(fake_net_all_free(&x.fn));
    x.fn.s->iface[0].acl_in = x.fn.s->iface[1].acl_out = (struct acl_use){0};
    acl_free(in, &mem);
    acl_free(out, &mem);
    free(fr);
    fwd_fix_free(&x);
}

TEST(acl_control_guards_the_router)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 256);
    fwd_fix_learn(&x);
    static const char *const rules[] = {"permit proto icmp src 10.0.1.0/24"};
    struct acl *a = list_of(rules, 1);
    uint64_t hits[2] = {0};
    x.fn.s->acl_control = (struct acl_use){a, hits};
    uint8_t f[128], icmp[16];
    for (uint16_t port = 0; port < 2; port++) { /* from eth0's peer: denied; eth1's: answered */
        size_t n = fake_icmp(icmp, ICMP4_ECHO, 0, 0x12340001, "abcdefgh", 8);
        size_t e = fake_eth(f, port ? fake_mac1 : fake_mac0, port ? fwd_peer1_mac : fake_peer_mac, ETH_TYPE_IP4);
        n = e + fake_ip4(f + e, port ? FAKE_PEER1 : FAKE_PEER, port ? FAKE_ADDR1 : FAKE_ADDR0, IP4_PROTO_ICMP, 7, 0,
                         icmp, n);
        fwd_fix_one(&x, port, f, n);
    }
    CHECK_EQ(x.fn.nd[0].nsent, 0);
    CHECK_EQ(x.fn.nd[1].nsent, 1);
    CHECK(hits[0] == 1 && hits[1] == 1);
    CHECK_EQ(fake_expect_counters(x.fn.s, "eth-rx=2 ip4-rx=2 ip4-local=1 acl-control-deny=1 icmp4-rx=1 "
                                          "icmp4-rx-echo=1 icmp4-tx-echo-reply=1 ip4-tx=1 eth-tx=1"),
             0);
    fake_netdev_clear(&x.fn.nd[1]);
    CHECK(fake_net_all_free(&x.fn));
    x.fn.s->acl_control = (struct acl_use){0};
    acl_free(a, &mem);
    fwd_fix_free(&x);
}
