/* SPDX-License-Identifier: MIT */
/* tests/unit/core/checksum.c: the fast checksum against a byte-by-byte
 * reference, RFC 1624 incremental update against recomputation. */
#include <stdlib.h>

#include "net/core/csum.h"
#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"

static uint32_t rng_state = 12345;

static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* The stored (wire) bytes of a checksum computed by net/core/csum.c, as the
 * reference's big-endian value. */
static uint16_t wire16(uint16_t stored)
{
    uint8_t b[2];
    memcpy(b, &stored, 2);
    return (uint16_t)(b[0] << 8 | b[1]);
}

TEST(csum_fast_matches_reference)
{
    static uint8_t buf[4096 + 8];
    int bad = 0;
    for (int iter = 0; iter < 20000; iter++) {
        size_t off = rnd() % 8, len = iter < 300 ? (size_t)iter : rnd() % 4096;
        for (size_t i = 0; i < len; i++)
            buf[off + i] = (uint8_t)((iter & 1) ? 0xff : rnd()); /* all-ones stresses carries */
        uint16_t fast = wire16(csum_finish(csum_partial(buf + off, len, 0)));
        if (fast != fake_csum(buf + off, len, 0) && bad++ < 5)
            fprintf(stderr, "  len %zu off %zu: %04x vs %04x\n", len, off, fast, fake_csum(buf + off, len, 0));
    }
    CHECK_EQ(bad, 0);
}

TEST(csum_partial_sums_chain)
{
    uint8_t buf[1500];
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)rnd();
    for (size_t cut = 0; cut < sizeof(buf); cut += 2) {
        uint32_t two = csum_partial(buf + cut, sizeof(buf) - cut, csum_partial(buf, cut, 0));
        CHECK_EQ(csum_fold(two), csum_fold(csum_partial(buf, sizeof(buf), 0)));
    }
}

TEST(csum_rfc1624_example)
{
    /* RFC 1624 section 4: eqn. 3 gives 0x0000 where eqn. 2 gave 0xffff. */
    CHECK_EQ(csum_update16(0xdd2f, 0x5555, 0x3285), 0x0000);
}

TEST(csum_incremental_matches_recompute)
{
    int bad = 0;
    for (int iter = 0; iter < 20000; iter++) {
        uint8_t h[20];
        for (int i = 0; i < 20; i++)
            h[i] = (uint8_t)rnd();
        h[0] = 0x45;
        h[10] = h[11] = 0;
        uint16_t c = csum_finish(csum_partial(h, 20, 0));
        memcpy(h + 10, &c, 2);
        int w = (int)(rnd() % 9);
        w = w >= 5 ? w + 1 : w; /* any 16-bit word but the checksum */
        uint16_t old, new_word = (uint16_t)rnd();
        memcpy(&old, h + 2 * w, 2);
        memcpy(h + 2 * w, &new_word, 2);
        uint16_t inc = csum_update16(c, old, new_word);
        memcpy(h + 10, &inc, 2);
        if (csum_fold(csum_partial(h, 20, 0)) != 0xffff)
            bad++;
        h[10] = h[11] = 0;
        uint16_t re = csum_finish(csum_partial(h, 20, 0));
        if (inc != re && !((inc | re) == 0xffff && (inc & re) == 0)) /* +0 and -0 */
            bad++;
    }
    CHECK_EQ(bad, 0);
    /* 32-bit form: rewrite an address. */
    uint8_t h[20] = {0x45, 0, 0, 20, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2};
    uint16_t c = csum_finish(csum_partial(h, 20, 0));
    uint32_t old_a, new_a = NET_IP4(192, 168, 7, 9);
    memcpy(&old_a, h + 16, 4);
    memcpy(h + 16, &new_a, 4);
    c = csum_update32(c, old_a, new_a);
    memcpy(h + 10, &c, 2);
    CHECK_EQ(csum_fold(csum_partial(h, 20, 0)), 0xffff);
}

TEST(csum_pkt_finish_completes_offload)
{
    struct fake_net fn;
    fake_net_init(&fn, 8);
    struct pkt *p = pkt_alloc(&fn.pool);
    uint8_t udp[8 + 33];
    uint8_t payload[33];
    for (size_t i = 0; i < sizeof(payload); i++)
        payload[i] = (uint8_t)(i * 7);
    size_t n = fake_udp(udp, FAKE_ADDR0, FAKE_PEER, 7, 9, payload, sizeof(payload));
    uint16_t want = (uint16_t)(udp[6] << 8 | udp[7]);
    memcpy(p->data, udp, n);
    p->len = (uint16_t)n;
    uint16_t ps = csum_fold(csum_pseudo4(FAKE_ADDR0, FAKE_PEER, IP4_PROTO_UDP, (uint16_t)n));
    memcpy(p->data + 6, &ps, 2);
    p->flags = PKT_TX_L4_CSUM;
    p->csum_start = 0;
    p->csum_offset = 6;
    csum_pkt_finish(p);
    CHECK_EQ(p->data[6] << 8 | p->data[7], want);
    CHECK_EQ(p->flags & PKT_TX_L4_CSUM, 0);
    /* A request whose field lies past the frame (a host's header, the frame
     * trimmed since) is dropped, nothing read or written (ASan). */
    p->flags = PKT_TX_L4_CSUM;
    p->len = 7;
    csum_pkt_finish(p);
    CHECK_EQ(p->flags & PKT_TX_L4_CSUM, 0);
    CHECK_EQ(p->data[6] << 8 | p->data[7], want);
    p->csum_start = 40;
    p->csum_offset = 0;
    csum_pkt_finish(p);
    CHECK_EQ(p->data[6] << 8 | p->data[7], want);
    pkt_free(p);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}
