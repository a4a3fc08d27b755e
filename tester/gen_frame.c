/* SPDX-License-Identifier: MIT */
/* tester/gen_frame.c: the generator's frame templates and the stamp's
 * parser (gen_frame.h). */
#include "gen_frame.h"

#include "net/core/core.h"

static uint16_t rd16(const uint8_t *p)
{
    uint16_t v;
    __builtin_memcpy(&v, p, 2);
    return v;
}

static void wr16(uint8_t *p, uint16_t v) { __builtin_memcpy(p, &v, 2); }

/* A 32-bit mix (a multiply-xorshift finaliser): consecutive flows get
 * ports with no visible pattern, as RFC 4814 4.5 asks. */
static uint32_t mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

void gen_flow_ports(uint32_t seed, uint32_t flow, uint16_t *sport, uint16_t *dport)
{
    uint32_t h = mix32(flow * 2u + 1u + seed * 0x9e3779b9u);
    *sport = (uint16_t)(1024u + (h & 0xffffu) % (65536u - 1024u));
    *dport = (uint16_t)(1u + (mix32(h) & 0xffffu) % 49151u);
}

uint16_t gen_flow_src_low(uint16_t base, uint32_t flow)
{
    /* The index among the host bytes 1-254 that base's last byte starts at. */
    uint32_t first = base & 0xffu;
    uint32_t idx = (first == 0 || first == 0xff ? 1u : first) - 1u + flow;
    return (uint16_t)((base & 0xff00u) + (idx / 254u) * 256u + 1u + idx % 254u);
}

uint16_t gen_imix_size(uint64_t i)
{
    static const uint16_t pattern[GEN_IMIX_PERIOD] = {1518, 64, 570, 64, 64, 570, 64, 64, 570, 64, 570, 64};
    return pattern[i % GEN_IMIX_PERIOD];
}

int gen_tmpl_build(struct gen_tmpl *t, const struct gen_flow_spec *f, uint16_t frame_size)
{
    uint16_t min = f->ip6 ? GEN_MIN_FRAME6 : GEN_MIN_FRAME4;
    if (frame_size < min || frame_size > GEN_MAX_FRAME || f->flows == 0 || f->flows > 65536u)
        return -1;
    *t = (struct gen_tmpl){.len = (uint16_t)(frame_size - GEN_FCS_LEN), .flows = f->flows, .seed = f->seed};
    uint8_t *p = t->frame;
    __builtin_memcpy(p, f->dst_mac, 6);
    __builtin_memcpy(p + 6, f->src_mac, 6);
    wr16(p + 12, net_htons(f->ip6 ? ETH_TYPE_IP6 : ETH_TYPE_IP4));
    uint16_t l3 = ETH_HDR_LEN, l3_len = (uint16_t)(t->len - l3);
    uint32_t pseudo;
    if (f->ip6) {
        t->l4_off = l3 + IP6_HDR_LEN;
        struct ip6_hdr *h = (struct ip6_hdr *)(p + l3);
        h->vtf_be = net_htonl(6u << 28);
        h->plen_be = net_htons((uint16_t)(l3_len - IP6_HDR_LEN));
        h->next = IP4_PROTO_UDP;
        h->hlim = 64;
        __builtin_memcpy(h->src, f->src, 16);
        __builtin_memcpy(h->dst, f->dst, 16);
        t->src_low_off = (uint16_t)(l3 + 8 + 14);
        t->src_low = (uint16_t)(f->src[14] << 8 | f->src[15]);
        h->src[14] = h->src[15] = 0;
        /* RFC 8200 8.1: the pseudo-header's length and next header. */
        pseudo = csum_partial(h->src, 32, 0);
        pseudo = csum_add(pseudo, net_htons((uint16_t)(l3_len - IP6_HDR_LEN)));
        pseudo = csum_add(pseudo, net_htons(IP4_PROTO_UDP));
    } else {
        /* A 64-byte frame's IP packet is shorter than Ethernet's 60-byte
         * minimum: the rest is padding, outside IP's total length. */
        uint16_t ip_len = IP4_HDR_LEN + UDP_HDR_LEN + GEN_STAMP_LEN;
        if (l3_len > ip_len)
            ip_len = l3_len;
        t->l4_off = l3 + IP4_HDR_LEN;
        struct ip4_hdr *h = (struct ip4_hdr *)(p + l3);
        h->ver_ihl = 0x45;
        h->len_be = net_htons(ip_len);
        h->ttl = 64;
        h->proto = IP4_PROTO_UDP;
        uint32_t src, dst;
        __builtin_memcpy(&src, f->src, 4);
        __builtin_memcpy(&dst, f->dst, 4);
        t->src_low = (uint16_t)(f->src[2] << 8 | f->src[3]);
        h->src_be = src;
        h->dst_be = dst;
        t->src_low_off = (uint16_t)(l3 + 14);
        wr16(p + t->src_low_off, 0);
        t->ip4_csum_off = (uint16_t)(l3 + 10);
        t->ip4_sum = csum_partial(h, IP4_HDR_LEN, 0);
        __builtin_memcpy(&src, &h->src_be, 4);
        pseudo = csum_pseudo4(src, dst, IP4_PROTO_UDP, (uint16_t)(ip_len - IP4_HDR_LEN));
        l3_len = ip_len;
    }
    t->stamp_off = t->l4_off + UDP_HDR_LEN;
    _Static_assert(ETH_HDR_LEN + IP6_HDR_LEN + UDP_HDR_LEN + GEN_STAMP_LEN == GEN_VARIABLE_END, "the variable words");
    struct udp_hdr *u = (struct udp_hdr *)(p + t->l4_off);
    uint16_t udp_len = (uint16_t)(l3_len - (t->l4_off - l3));
    u->len_be = net_htons(udp_len);
    /* The payload after the stamp: a counting pattern, never old memory. */
    for (uint16_t i = t->stamp_off + GEN_STAMP_LEN; i < t->len; i++)
        p[i] = (uint8_t)i;
    t->udp_sum = csum_partial(u, udp_len, pseudo);
    return 0;
}

/* A frame's bytes from the template: inline 32-byte moves for the small
 * sizes a generator sends most (64 to 128 bytes on the wire; the last
 * move overlaps the one before), the library's copy for bigger ones.
 * Exactly len bytes either way; len is at least 32 (the smallest frame). */
static inline void copy_frame(uint8_t *d, const uint8_t *s, uint32_t len)
{
    if (len <= 64) {
        __builtin_memcpy(d, s, 32);
        __builtin_memcpy(d + len - 32, s + len - 32, 32);
    } else if (len <= 128) {
        __builtin_memcpy(d, s, 64);
        __builtin_memcpy(d + len - 64, s + len - 64, 64);
    } else {
        __builtin_memcpy(d, s, len);
    }
}

void gen_tmpl_write(const struct gen_tmpl *t, uint8_t *dst, uint32_t room, uint32_t flow, uint16_t stream,
                    uint32_t seq, uint64_t ticks)
{
    copy_frame(dst, t->frame, t->len < room ? t->len : room);
    uint32_t n = t->flows, k = (n & (n - 1)) == 0 ? flow & (n - 1) : flow % n;
    uint16_t sport, dport;
    gen_flow_ports(t->seed, k, &sport, &dport);
    uint16_t src_be = net_htons(gen_flow_src_low(t->src_low, k)), sport_be = net_htons(sport), dport_be = net_htons(dport);
    wr16(dst + t->src_low_off, src_be);
    wr16(dst + t->l4_off, sport_be);
    wr16(dst + t->l4_off + 2, dport_be);
    /* The stamp as two 64-bit stores, struct gen_stamp's layout (x86 is
     * little-endian), and its sum from the same two words: no stamp built
     * in memory and read back (a store-to-load forwarding stall), no call. */
    uint64_t w0 = GEN_STAMP_MAGIC | (uint64_t)stream << 16 | (uint64_t)seq << 32;
    __builtin_memcpy(dst + t->stamp_off, &w0, 8);
    __builtin_memcpy(dst + t->stamp_off + 8, &ticks, 8);
    uint64_t sum = (uint64_t)t->udp_sum + src_be + sport_be + dport_be + (w0 & 0xffffffffu) + (w0 >> 32) +
                   (ticks & 0xffffffffu) + (ticks >> 32);
    sum = (sum & 0xffffffffu) + (sum >> 32);
    sum = (sum & 0xffffffffu) + (sum >> 32);
    uint16_t udp = csum_finish((uint32_t)sum);
    wr16(dst + t->l4_off + 6, udp ? udp : 0xffff); /* RFC 768: a computed 0 is sent as all ones */
    if (t->ip4_csum_off)
        wr16(dst + t->ip4_csum_off, csum_finish(csum_add(t->ip4_sum, src_be)));
}

bool gen_stamp_parse(const uint8_t *frame, uint32_t len, struct gen_stamp *out)
{
    uint32_t off = ETH_HDR_LEN;
    if (len < off)
        return false;
    uint16_t type = net_ntohs(rd16(frame + 12));
    if (type == ETH_TYPE_VLAN) {
        if (len < off + ETH_VLAN_LEN)
            return false;
        type = net_ntohs(rd16(frame + 16));
        off += ETH_VLAN_LEN;
    }
    uint32_t l4;
    if (type == ETH_TYPE_IP4) {
        if (len < off + IP4_HDR_LEN)
            return false;
        const struct ip4_hdr *h = (const struct ip4_hdr *)(frame + off);
        uint32_t ihl = (h->ver_ihl & 0xfu) * 4u;
        /* Not a fragment (MF clear, offset 0): a stamp is in the first. */
        if ((h->ver_ihl >> 4) != 4 || ihl < IP4_HDR_LEN || h->proto != IP4_PROTO_UDP ||
            (net_ntohs(h->frag_be) & 0x3fffu) != 0)
            return false;
        l4 = off + ihl;
    } else if (type == ETH_TYPE_IP6) {
        if (len < off + IP6_HDR_LEN)
            return false;
        const struct ip6_hdr *h = (const struct ip6_hdr *)(frame + off);
        if ((frame[off] >> 4) != 6 || h->next != IP4_PROTO_UDP)
            return false;
        l4 = off + IP6_HDR_LEN;
    } else {
        return false;
    }
    if (len < l4 + UDP_HDR_LEN + GEN_STAMP_LEN ||
        net_ntohs(rd16(frame + l4 + 4)) < UDP_HDR_LEN + GEN_STAMP_LEN)
        return false;
    __builtin_memcpy(out, frame + l4 + UDP_HDR_LEN, GEN_STAMP_LEN);
    return out->magic == GEN_STAMP_MAGIC;
}
