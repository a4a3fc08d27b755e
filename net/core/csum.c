/* SPDX-License-Identifier: MIT */
/* net/core/csum.c: Internet checksum (RFC 1071) with 64-bit accumulation, and
 * incremental update (RFC 1624). See net/core/csum.h. */
#include "csum.h"

#include "env.h"
#include "wire.h"

/* Add v to a 64-bit one's complement accumulator (end-around carry). */
static inline uint64_t add64(uint64_t acc, uint64_t v)
{
    acc += v;
    return acc + (acc < v);
}

uint32_t csum_partial(const void *buf, size_t len, uint32_t sum)
{
    const uint8_t *p = buf;
    uint64_t acc = sum;
    uint64_t a, b, c, d;

    /* 2^64 - 1 is a multiple of 2^16 - 1, so 64-bit words folded down at the
     * end give the same sum as 16-bit words. Loads are unaligned on purpose:
     * x86 pays nothing for them. */
    while (len >= 32) {
        net_memcpy(&a, p, 8);
        net_memcpy(&b, p + 8, 8);
        net_memcpy(&c, p + 16, 8);
        net_memcpy(&d, p + 24, 8);
        acc = add64(add64(add64(add64(acc, a), b), c), d);
        p += 32;
        len -= 32;
    }
    while (len >= 8) {
        net_memcpy(&a, p, 8);
        acc = add64(acc, a);
        p += 8;
        len -= 8;
    }
    if (len >= 4) {
        uint32_t w;
        net_memcpy(&w, p, 4);
        acc = add64(acc, w);
        p += 4;
        len -= 4;
    }
    if (len >= 2) {
        uint16_t h;
        net_memcpy(&h, p, 2);
        acc = add64(acc, h);
        p += 2;
        len -= 2;
    }
    if (len) {
        /* The odd last byte is the high-order byte of a zero-padded word. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        acc = add64(acc, (uint64_t)p[0] << 8);
#else
        acc = add64(acc, p[0]);
#endif
    }
    acc = (acc & 0xffffffffu) + (acc >> 32);
    acc = (acc & 0xffffffffu) + (acc >> 32);
    return (uint32_t)acc;
}

uint32_t csum_pseudo4(uint32_t src_be, uint32_t dst_be, uint8_t proto, uint16_t len)
{
    uint32_t sum = csum_add(src_be, dst_be);
    sum = csum_add(sum, net_htons(proto));
    return csum_add(sum, net_htons(len));
}

uint16_t csum_update16(uint16_t csum, uint16_t old, uint16_t new_word)
{
    /* HC' = ~(~HC + ~m + m') */
    uint32_t sum = (uint16_t)~csum;
    sum += (uint16_t)~old;
    sum += new_word;
    return (uint16_t)~csum_fold(sum);
}

uint16_t csum_update32(uint16_t csum, uint32_t old, uint32_t new_word)
{
    csum = csum_update16(csum, (uint16_t)old, (uint16_t)new_word);
    return csum_update16(csum, (uint16_t)(old >> 16), (uint16_t)(new_word >> 16));
}

void csum_pkt_finish(struct pkt *p)
{
    p->flags &= (uint16_t)~PKT_TX_L4_CSUM;
    if ((uint32_t)p->csum_start + p->csum_offset + 2 > p->len)
        return; /* a request from outside (virtio NEEDS_CSUM) the frame, trimmed, no longer holds */
    uint8_t *l4 = p->data + p->csum_start;
    uint8_t *field = l4 + p->csum_offset;
    uint16_t pseudo, csum;

    net_memcpy(&pseudo, field, 2);
    net_memset(field, 0, 2);
    uint32_t sum = csum_fold(csum_partial(l4, p->len - p->csum_start, pseudo));
    bool odd = ((p->len - p->csum_start) & 1) != 0;
    for (const struct pkt *e = p; e->flags & PKT_F_CHAIN;) { /* a jumbo frame's other buffers */
        e = e->next;
        uint16_t part = csum_fold(csum_partial(e->data, e->len, 0));
        sum += odd ? (uint16_t)(part << 8 | part >> 8) : part; /* RFC 1071 2(B): swapped at an odd start */
        odd ^= (e->len & 1) != 0;
    }
    csum = csum_finish(sum);
    if (csum == 0)
        csum = 0xffff;
    net_memcpy(field, &csum, 2);
}
