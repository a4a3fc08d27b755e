/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_reasm.c: sequences of valid-looking IPv4 and IPv6
 * fragments into the stack, so the fuzzer spends its time in reassembly
 * rather than in header checks.
 *
 * Input: 7-byte records. b0: bits 0-4 datagram (id), bit 5 MF (IPv6: M),
 * bit 6 UDP (else ICMP), bit 7 IPv6 (a Fragment header; UDP's checksum is
 * never right there, so what completes is dropped after reassembly). b1-b2: offset in 8-byte units (13 bits); the top 3 bits of
 * b2 are taken off the length. b3: length in 8-byte units. b4-b5: UDP
 * length in a first fragment's UDP header. b6: from 0xf0 up, the burst so
 * far goes in and time advances by (b6 & 0xf) 4-second steps (else the
 * fragment joins a burst of up to 32, as a NIC hands them over).
 *
 * Payload byte k of datagram d is pattern(d, k), so any datagram that is
 * delivered must carry exactly that after its UDP header, or the target
 * aborts. After the input the reassembly timeout passes: nothing may be
 * held any more, and every buffer must be back in the pool. The stack
 * (both peers resolved) is built once; every input starts from a snapshot
 * of it (tests/support/snapshot.h). At most 73 records, more than a
 * datagram's REASM_MAX_FRAGS; libFuzzer: -max_len=512 */
#include <stdlib.h>
#include <string.h>

#include "tests/support/fake_netdev.h"
#include "tests/support/snapshot.h"

static struct fake_net fn;
static struct snap snap;
static const uint8_t us6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1}, peer6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};

/* An IPv6 fragment from peer6 to us6: the Fragment header (next, offset
 * and M, id), then len bytes of payload. */
static size_t frame6(uint8_t *buf, uint8_t next, uint32_t id, uint32_t off, bool more, const uint8_t *payload,
                     uint32_t len)
{
    size_t n = fake_eth(buf, fake_mac0, fake_peer_mac, ETH_TYPE_IP6);
    struct ip6_hdr h = {.vtf_be = net_htonl(6u << 28), .plen_be = net_htons((uint16_t)(IP6_FRAG_HDR_LEN + len)),
                        .next = IP6_PROTO_FRAG, .hlim = 64};
    memcpy(h.src, peer6, 16);
    memcpy(h.dst, us6, 16);
    memcpy(buf + n, &h, sizeof(h));
    uint8_t *f = buf + n + IP6_HDR_LEN;
    uint16_t offlg_be = net_htons((uint16_t)(off | (more ? 1u : 0u)));
    uint32_t id_be = net_htonl(id);
    f[0] = next;
    f[1] = 0;
    memcpy(f + 2, &offlg_be, 2);
    memcpy(f + 4, &id_be, 4);
    memcpy(f + IP6_FRAG_HDR_LEN, payload, len);
    return n + IP6_HDR_LEN + IP6_FRAG_HDR_LEN + len;
}

static uint8_t pattern(uint32_t id, uint32_t k)
{
    return (uint8_t)(k * 31u + id * 7u + (k >> 8));
}

/* pattern(id, k) for every id and every k an input can reach (offset up to
 * 8191 * 8 plus a fragment), computed once: the loops that would otherwise
 * fill and check it byte by byte were most of the target's time. */
#define PAT_LEN (8192u * 8u + 1480u)
static uint8_t pat[32][PAT_LEN];

static void pattern_init(void)
{
    for (uint32_t id = 0; id < 32; id++)
        for (uint32_t k = 0; k < PAT_LEN; k++)
            pat[id][k] = pattern(id, k);
}

static void udp_cb(void *ctx, struct net_stack *s, const struct udp_meta *m, const uint8_t *data,
                   uint16_t len, struct pkt *p, uint64_t now_ns)
{
    uint32_t id = (uint32_t)(m->sport - 1000) & 31;
    if (m->sport < 1000 || m->sport >= 1032 || 8u + len > PAT_LEN || !snap_bytes_equal(data, pat[id] + 8, len))
        abort();
    if (p)
        pkt_free(p);
    if (len > 2000) /* answer big ones: fragmented output from the scratch area */
        udp_send_copy(s, data, len, m->dst_be, m->src_be, m->dport, m->sport, now_ns);
}

/* Past the reassembly timeout, every datagram in progress is dropped;
 * then nothing may hold a buffer. */
static void finish(void)
{
    fn.now_ns += REASM_TIMEOUT_NS + 1;
    reasm_timer(fn.s, fn.now_ns); /* alone: the ARP and ND entries due too would be walked for nothing */
    net_flush(fn.s);
    fake_netdev_clear(&fn.nd[0]);
    if (fn.s->reasm.bufs)
        abort();
    if (fn.s->arp_queued) /* errors waiting on a neighbour */
        net_stack_release(fn.s);
    if (!fake_net_all_free(&fn))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t payload[2048], frame[2048 + 64];
    struct pkt *burst[32];
    uint32_t nb = 0;
    if (snap.n == 0) {
        pattern_init();
        fake_net_init(&fn, 1024);
        udp_bind(fn.s, 9, udp_cb, NULL);
        net_iface_set_addr6(fn.s, 0, us6, 64);
        fake_net_learn_peer(&fn);
        fake_net_learn_peer6(&fn, us6, peer6);
        snap_add(&snap, &fn.now_ns, sizeof fn.now_ns); /* the rest of fn: as it was once the frames are cleared */
        snap_add_stack(&snap, fn.s);
        snap_add_pool(&snap, &fn.pool);
    }
    snap_restore(&snap);
    for (; size >= 7; data += 7, size -= 7) {
        uint32_t id = data[0] & 0x1f, off = (uint32_t)(data[1] | (data[2] & 0x1f) << 8) * 8;
        bool mf = data[0] & 0x20, udp = data[0] & 0x40;
        uint32_t len = (uint32_t)data[3] * 8, cut = (uint32_t)data[2] >> 5;
        len = len > cut ? len - cut : 0;
        if (len > 1480)
            len = 1480;
        const uint8_t *pl = pat[id] + off;
        if (off == 0 && len >= 8 && udp) { /* a UDP header first: a copy to write it in */
            memcpy(payload, pl, len);
            pl = payload;
            uint16_t sport = (uint16_t)(1000 + id);
            payload[0] = (uint8_t)(sport >> 8);
            payload[1] = (uint8_t)sport;
            payload[2] = 0;
            payload[3] = 9;
            payload[4] = data[4];
            payload[5] = data[5];
            payload[6] = payload[7] = 0; /* no checksum */
        }
        size_t n;
        if (data[0] & 0x80) {
            n = frame6(frame, udp ? IP4_PROTO_UDP : IP6_PROTO_ICMP6, 0x100 + id, off, mf, pl,
                       len < 1448 ? len : 1448);
        } else {
            uint16_t fr = (uint16_t)((mf ? IP4_MF : 0) | off / 8);
            n = fake_frame_ip4(frame, udp ? IP4_PROTO_UDP : IP4_PROTO_ICMP, (uint16_t)(0x100 + id), fr, pl,
                               len);
        }
        burst[nb++] = fake_net_rx(&fn, 0, frame, n);
        bool later = data[6] >= 0xf0;
        if (nb < 32 && !later && size >= 14)
            continue;
        net_input(fn.s, burst, nb, fn.now_ns);
        nb = 0;
        if (later) {
            fn.now_ns += (uint64_t)(data[6] & 0xf) * 4000000000ull;
            net_poll(fn.s, fn.now_ns);
        }
        net_flush(fn.s);
        fake_netdev_clear(&fn.nd[0]);
        if (fn.s->reasm.bufs > REASM_MAX_BUFS)
            abort();
    }
    finish();
    return 0;
}
