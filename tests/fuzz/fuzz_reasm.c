/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_reasm.c: sequences of valid-looking IPv4 and IPv6
 * fragments into the stack, so the fuzzer spends its time in reassembly
 * rather than in header checks.
 *
 * Input: 7-byte records. b0: bits 0-4 datagram (id), bit 5 MF (IPv6: M),
 * bit 6 UDP (else ICMP), bit 7 IPv6 (a Fragment header; UDP's checksum is
 * never right there, so what completes is dropped after reassembly). b1-b2: offset in 8-byte units (13 bits); the top 3 bits of
 * b2 are taken off the length. b3: length in 8-byte units. b4-b5: UDP
 * length in a first fragment's UDP header. b6: time advance, 250 ms steps.
 *
 * Payload byte k of datagram d is pattern(d, k), so any datagram that is
 * delivered must carry exactly that after its UDP header, or the target
 * aborts. After the input every timer is run out and every buffer must be
 * back in the pool. */
#include <stdlib.h>
#include <string.h>

#include "tests/support/fake_netdev.h"

static struct fake_net fn;
static bool ready;
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

static void udp_cb(void *ctx, struct net_stack *s, const struct udp_meta *m, const uint8_t *data,
                   uint16_t len, struct pkt *p, uint64_t now_ns)
{
    uint32_t id = m->sport - 1000;
    for (uint32_t k = 0; k < len; k++)
        if (data[k] != pattern(id, 8 + k))
            abort();
    if (p)
        pkt_free(p);
    if (len > 2000) /* answer big ones: fragmented output from the scratch area */
        udp_send_copy(s, data, len, m->dst_be, m->src_be, m->dport, m->sport, now_ns);
}

static void drain(void)
{
    for (int i = 0; i < 1000; i++) {
        uint64_t next = net_poll(fn.s, fn.now_ns);
        net_flush(fn.s);
        fake_netdev_clear(&fn.nd[0]);
        fake_netdev_clear(&fn.nd[1]);
        if (next == UINT64_MAX)
            break;
        fn.now_ns = next > fn.now_ns ? next : fn.now_ns + 1;
    }
    if (fn.pool.nfree != fn.pool.total || fn.s->reasm.bufs || fn.s->arp_queued)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t payload[2048], frame[2048 + 64];
    if (!ready) {
        fake_net_init(&fn, 1024);
        udp_bind(fn.s, 9, udp_cb, NULL);
        net_iface_set_addr6(fn.s, 0, us6, 64);
        fake_net_learn_peer(&fn);
        ready = true;
    }
    for (; size >= 7; data += 7, size -= 7) {
        uint32_t id = data[0] & 0x1f, off = (uint32_t)(data[1] | (data[2] & 0x1f) << 8) * 8;
        bool mf = data[0] & 0x20, udp = data[0] & 0x40;
        uint32_t len = (uint32_t)data[3] * 8, cut = (uint32_t)data[2] >> 5;
        len = len > cut ? len - cut : 0;
        if (len > 1480)
            len = 1480;
        for (uint32_t k = 0; k < len; k++)
            payload[k] = pattern(id, off + k);
        if (off == 0 && len >= 8 && udp) {
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
            n = frame6(frame, udp ? IP4_PROTO_UDP : IP6_PROTO_ICMP6, 0x100 + id, off, mf, payload,
                       len < 1448 ? len : 1448);
        } else {
            uint16_t fr = (uint16_t)((mf ? IP4_MF : 0) | off / 8);
            n = fake_frame_ip4(frame, udp ? IP4_PROTO_UDP : IP4_PROTO_ICMP, (uint16_t)(0x100 + id), fr, payload,
                               len);
        }
        fake_net_input(&fn, 0, frame, n);
        fake_netdev_clear(&fn.nd[0]);
        fn.now_ns += (uint64_t)data[6] * 250000000ull;
        net_poll(fn.s, fn.now_ns);
        net_flush(fn.s);
        fake_netdev_clear(&fn.nd[0]);
        if (fn.s->reasm.bufs > REASM_MAX_BUFS)
            abort();
    }
    drain();
    fake_net_learn_peer(&fn); /* the drain let it expire */
    return 0;
}
