/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_isn.c: initial sequence numbers (RFC 6528 section 3) and the
 * keyed hash behind them, SipHash-2-4 (Aumasson and Bernstein, 2012).
 *
 * ISN = M + F(localip, localport, remoteip, remoteport, secretkey), M a
 * 4-microsecond clock, F SipHash under the boot-time secret the embedder
 * passed to tcp_init, over the IPv4 or the IPv6 tuple. Timestamps start at
 * a per-address-pair offset the same way (RFC 7323 section 7.1). */
#include "core/env.h"
#include "tcp_impl.h"

static inline uint64_t rotl(uint64_t x, unsigned b) { return (x << b) | (x >> (64 - b)); }

#define SIPROUND()                                                          \
    do {                                                                    \
        v0 += v1;                                                           \
        v1 = rotl(v1, 13);                                                  \
        v1 ^= v0;                                                           \
        v0 = rotl(v0, 32);                                                  \
        v2 += v3;                                                           \
        v3 = rotl(v3, 16);                                                  \
        v3 ^= v2;                                                           \
        v0 += v3;                                                           \
        v3 = rotl(v3, 21);                                                  \
        v3 ^= v0;                                                           \
        v2 += v1;                                                           \
        v1 = rotl(v1, 17);                                                  \
        v1 ^= v2;                                                           \
        v2 = rotl(v2, 32);                                                  \
    } while (0)

static uint64_t load_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

uint64_t tcp_siphash(const uint64_t key[2], const void *data, uint32_t len)
{
    const uint8_t *in = data;
    uint64_t v0 = key[0] ^ 0x736f6d6570736575ull, v1 = key[1] ^ 0x646f72616e646f6dull;
    uint64_t v2 = key[0] ^ 0x6c7967656e657261ull, v3 = key[1] ^ 0x7465646279746573ull;
    uint32_t i = 0;

    for (; i + 8 <= len; i += 8) {
        uint64_t m = load_le64(in + i);
        v3 ^= m;
        SIPROUND();
        SIPROUND();
        v0 ^= m;
    }
    uint64_t b = (uint64_t)len << 56;
    for (uint32_t j = 0; i + j < len; j++)
        b |= (uint64_t)in[i + j] << (8 * j);
    v3 ^= b;
    SIPROUND();
    SIPROUND();
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND();
    SIPROUND();
    SIPROUND();
    SIPROUND();
    return v0 ^ v1 ^ v2 ^ v3;
}

uint32_t tcp_isn(const struct tcp_stack *t, uint32_t laddr_be, uint32_t raddr_be, uint16_t lport,
                 uint16_t rport, uint64_t now_ns)
{
    uint8_t m[12];
    net_memcpy(m, &laddr_be, 4);
    net_memcpy(m + 4, &raddr_be, 4);
    m[8] = (uint8_t)(lport >> 8);
    m[9] = (uint8_t)lport;
    m[10] = (uint8_t)(rport >> 8);
    m[11] = (uint8_t)rport;
    /* M: 4 us ticks; 2^12 ns is close enough and needs no division. */
    return (uint32_t)(now_ns >> 12) + (uint32_t)tcp_siphash(t->sip_key, m, sizeof(m));
}

uint32_t tcp_ts_offset(const struct tcp_stack *t, uint32_t laddr_be, uint32_t raddr_be)
{
    uint32_t m[3] = {laddr_be, raddr_be, 0x7473u};
    return (uint32_t)(tcp_siphash(t->sip_key, m, sizeof(m)) >> 32);
}

/* RFC 6528 over the IPv6 tuple: the same F over 36 bytes. */
uint32_t tcp_isn6(const struct tcp_stack *t, const uint8_t *laddr, const uint8_t *raddr, uint16_t lport,
                  uint16_t rport, uint64_t now_ns)
{
    uint8_t m[36];
    net_memcpy(m, laddr, 16);
    net_memcpy(m + 16, raddr, 16);
    m[32] = (uint8_t)(lport >> 8);
    m[33] = (uint8_t)lport;
    m[34] = (uint8_t)(rport >> 8);
    m[35] = (uint8_t)rport;
    return (uint32_t)(now_ns >> 12) + (uint32_t)tcp_siphash(t->sip_key, m, sizeof(m));
}

uint32_t tcp_ts_offset6(const struct tcp_stack *t, const uint8_t *laddr, const uint8_t *raddr)
{
    uint8_t m[34];
    net_memcpy(m, laddr, 16);
    net_memcpy(m + 16, raddr, 16);
    m[32] = 0x73;
    m[33] = 0x74;
    return (uint32_t)(tcp_siphash(t->sip_key, m, sizeof(m)) >> 32);
}
