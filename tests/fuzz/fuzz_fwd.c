/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_fwd.c: the forwarding input path (net/fwd/fwd4.c,
 * net/fwd/fwd_slow.c, net/fwd/fwd6.c, net/fwd/nexthop.c): bursts through fwd_burst on
 * the router of tests/support/fwd_fixture.h and tests/support/fwd6_fixture.h (IPv4 and IPv6),
 * with the stack behind it, ARP and neighbour discovery resolving or not,
 * next hops changing, the NIC refusing frames and time moving.
 *
 * Input: records of [ctl][len lo][len hi][bytes...]. ctl bit 0: input port.
 * Bit 1 set: bytes describe a transit datagram that the target builds (so
 * mutation starts past the checks): b[0] destination (one of the routes),
 * b[1..2] its low bits, b[3] TTL, b[4] flags (DF, MF, an offset), b[5]
 * payload length / 4, b[6] where to XOR the rest of the bytes into the
 * frame, b[7] bit 0: fix the header checksum after. With b[0] bit 7 set
 * it is an IPv6 packet instead: b[0] % 8 picks one of eight destinations (the
 * routes of tests/support/fwd6_fixture.h, none, link-local, multicast), b[1..2] its last
 * two bytes, b[3] the hop limit, b[4] bit 0 a hop-by-hop header first,
 * bit 1 a link-local source; b[5] and b[6] as above. Bit 1 clear: bytes
 * are a raw frame. Bit 2: PKT_RX_IP_CSUM_OK. Bit 3: end the burst here. Bits
 * 4-5: advance time by that many 400 ms steps. Bit 6: jump 100 s ahead,
 * so ARP and neighbour entries go stale and are forgotten (both peers start
 * resolved); then the gateway answers again (ARP and IPv6) if bit 0 is set.
 * Bit 7: flip next hop nh_gw1 between eth1 and eth0 (IPv4; the IPv6 tables
 * stay as fwd_set_route6 requires), and let eth1 take at most 3 frames a
 * burst from now on.
 * Afterwards the stack lets go of all it holds and every buffer must be
 * back in the pool, or the target aborts. The tables, the stack and fwd
 * (both peers resolved) are built once; every input starts from a
 * snapshot of them (tests/support/snapshot.h).
 * A burst of 32 built datagrams fits well within libFuzzer: -max_len=1024 */
#include <stdlib.h>
#include <string.h>

#include "tests/support/fwd6_fixture.h"
#include "tests/support/snapshot.h"

static const uint32_t dsts[] = {
    NET_IP4(192, 168, 0, 0), NET_IP4(198, 51, 100, 0), NET_IP4(10, 0, 0, 0),  NET_IP4(10, 0, 1, 0),
    NET_IP4(172, 16, 0, 0),  NET_IP4(203, 0, 113, 0),  NET_IP4(100, 64, 0, 0), NET_IP4(8, 8, 0, 0),
};

static const uint8_t *const dsts6[] = {
    fwd6_far, fwd6_far0, fwd6_peer0, fwd6_peer1, fwd6_past, fwd6_nowhere,
    (const uint8_t[16]){0xfe, 0x80, [15] = 0xbb}, (const uint8_t[16]){0xff, 0x0e, [15] = 1},
};

/* XOR bytes 8.. of b into the frame from c6 on. */
static void mutate(uint8_t *f, size_t len, const uint8_t *b, size_t n, uint8_t c6)
{
    size_t at = c6 % len;
    for (size_t i = 8; i < n && at < len; i++, at++)
        f[at] ^= b[i];
}

static size_t build6(uint8_t *f, uint16_t port, const uint8_t *c, const uint8_t *b, size_t n)
{
    static const uint8_t ll_src[16] = {0xfe, 0x80, [15] = 0xaa};
    uint8_t dst[16], l4[1024 + 8] = {IP4_PROTO_UDP, 0, 1, 4};
    memcpy(dst, dsts6[c[0] % 8], 16);
    dst[14] = c[1];
    dst[15] = c[2];
    const uint8_t *src = c[4] & 2 ? ll_src : port ? fwd6_peer1 : fwd6_peer0;
    size_t len;
    if (c[4] & 1) { /* a hop-by-hop header (PadN), then a pattern as UDP */
        for (size_t i = 8; i < 8 + (size_t)c[5] * 4u; i++)
            l4[i] = (uint8_t)i;
        len = fwd6_fix_ip6(f, port ? fake_mac1 : fake_mac0, port ? fwd_peer1_mac : fake_peer_mac, src, dst, c[3],
                           0, l4, 8 + (size_t)c[5] * 4u);
    } else {
        len = fwd6_fix_frame(f, port, src, dst, c[3], (size_t)c[5] * 4u, c[1]);
    }
    if (n > 8)
        mutate(f, len, b, n, c[6]);
    return len;
}

static size_t build(uint8_t *f, uint16_t port, const uint8_t *b, size_t n)
{
    uint8_t c[8] = {0};
    memcpy(c, b, n < 8 ? n : 8);
    if (c[0] & 0x80)
        return build6(f, port, c, b, n);
    uint32_t dst = dsts[c[0] % 8];
    dst |= net_htonl((uint32_t)c[1] << 8 | c[2]) & net_htonl(0xffffu);
    uint16_t frag = (uint16_t)((c[4] & 0x60) << 8 | (c[4] & 0x1f));
    size_t len = fwd_fix_frame(f, port, port ? FAKE_PEER1 : FAKE_PEER, dst, c[3], frag, (size_t)c[5] * 4u,
                               c[1]);
    if (n > 8)
        mutate(f, len, b, n, c[6]);
    if (c[7] & 1)
        fwd_fix_csum_ip(f + 14);
    return len;
}

static void resolve(struct fwd_fix *x)
{
    uint8_t a[128]; /* an advertisement: 86 bytes */
    size_t n = fake_eth(a, fake_mac1, fwd_peer1_mac, ETH_TYPE_ARP);
    n += fake_arp(a + n, ARP_OP_REPLY, fwd_peer1_mac, FAKE_PEER1, fake_mac1, FAKE_ADDR1);
    fwd_fix_one(x, 1, a, n);
    n = fwd6_fix_na(a, fake_mac1, fwd_peer1_mac, fwd6_peer1, fwd6_a1, ND6_NA_SOLICITED | ND6_NA_OVERRIDE);
    fwd_fix_one(x, 1, a, n);
}

static void after_burst(struct fwd_fix *x, uint8_t ctl)
{
    x->fn.now_ns += (uint64_t)((ctl >> 4) & 3) * 400000000ull;
    net_poll(x->fn.s, x->fn.now_ns);
    net_flush(x->fn.s);
    fake_netdev_clear(&x->fn.nd[0]);
    fake_netdev_clear(&x->fn.nd[1]);
    if (ctl & 0x40) {
        x->fn.now_ns += 100000000000ull;
        net_poll(x->fn.s, x->fn.now_ns);
        if (ctl & 1)
            resolve(x);
    }
    if (ctl & 0x80) {
        struct nexthop nh = nexthop_get(&x->nht, x->nh_gw1);
        nh.port ^= 1;
        nh.gw_be = nh.port ? FAKE_PEER1 : FAKE_PEER;
        nexthop_set(&x->nht, x->nh_gw1, &nh);
        x->fn.nd[1].tx_accept = 3;
    }
}

/* Past the reassembly timeout nothing may wait for fragments; then the
 * stack lets go of what waits on ARP and ND, and every buffer is back. */
static void finish(struct fwd_fix *x)
{
    x->fn.now_ns += REASM_TIMEOUT_NS + 1;
    reasm_timer(x->fn.s, x->fn.now_ns);
    if (x->fn.s->reasm.bufs)
        abort();
    net_stack_release(x->fn.s);
    if (!fake_net_all_free(&x->fn) || x->fn.s->arp_queued)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fwd6_fix y;
    static struct snap snap;
    static uint8_t frame[2048];
    if (snap.n == 0) {
        fwd6_fix_init(&y, 256);
        struct nexthop gw = {.kind = NEXTHOP_VIA, .port = 1, .gw_be = FAKE_PEER1};
        nexthop_set(&y.x.nht, y.x.nh_gw1, &gw);
        fwd6_fix_learn(&y);
        snap_add(&snap, &y.x.fn.now_ns, sizeof y.x.fn.now_ns);
        snap_add(&snap, &y.x.fn.nd[1].tx_accept, sizeof y.x.fn.nd[1].tx_accept);
        snap_add_stack(&snap, y.x.fn.s);
        snap_add_pool(&snap, &y.x.fn.pool);
        snap_add(&snap, y.x.f, sizeof *y.x.f);
        snap_add(&snap, &y.x.nht, sizeof y.x.nht);
    }
    snap_restore(&snap);
    struct pkt *burst[32];
    uint16_t n = 0, port = 0;
    while (size >= 3) {
        uint8_t ctl = data[0];
        size_t len = (size_t)(data[1] | data[2] << 8);
        data += 3;
        size -= 3;
        if (len > size)
            len = size;
        const uint8_t *b = data;
        data += len;
        size -= len;
        if (n && (ctl & 1) != port) { /* a burst comes from one queue */
            fwd_burst(y.x.f, y.x.fn.s, burst, n, y.x.fn.now_ns);
            n = 0;
        }
        port = ctl & 1;
        if (ctl & 2)
            len = build(frame, port, b, len);
        else {
            if (len > PKT_DATA_ROOM)
                len = PKT_DATA_ROOM;
            memcpy(frame, b, len);
        }
        struct pkt *p = fake_net_rx(&y.x.fn, port, frame, len);
        if (p == NULL)
            abort();
        p->flags = (ctl & 4) ? PKT_RX_IP_CSUM_OK : 0;
        burst[n++] = p;
        if (n == 32 || (ctl & 0xf8) || size < 3) {
            fwd_burst(y.x.f, y.x.fn.s, burst, n, y.x.fn.now_ns);
            n = 0;
            after_burst(&y.x, ctl);
        }
    }
    if (n)
        fwd_burst(y.x.f, y.x.fn.s, burst, n, y.x.fn.now_ns);
    finish(&y.x);
    return 0;
}
