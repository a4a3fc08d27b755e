/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_rss.c: the Toeplitz hash NICs use for receive-side scaling
 * (Microsoft, "Verifying the RSS Hash Calculation"), so that an active open
 * can pick a source port whose replies land on the opening core.
 *
 * For TCP the input is source address, destination address, source port,
 * destination port, all as on the wire, of the packet as it arrives (the
 * peer is the source): 12 bytes over IPv4, 36 over IPv6. */
#include "core/env.h"
#include "tcp_impl.h"

uint32_t tcp_toeplitz(const uint8_t *key, uint32_t key_len, const uint8_t *in, uint32_t len)
{
    uint32_t result = 0;
    uint32_t window = (uint32_t)key[0] << 24 | (uint32_t)key[1] << 16 | (uint32_t)key[2] << 8 | key[3];
    uint32_t next_bit = 32;

    for (uint32_t i = 0; i < len; i++) {
        for (int b = 7; b >= 0; b--) {
            if (in[i] & (1u << b))
                result ^= window;
            uint32_t kb = 0;
            if (next_bit < key_len * 8)
                kb = (key[next_bit / 8] >> (7 - next_bit % 8)) & 1u;
            window = window << 1 | kb;
            next_bit++;
        }
    }
    return result;
}

static uint32_t reta_core(const struct tcp_rss_reta *r, const uint8_t *in, uint32_t len)
{
    uint32_t h = tcp_toeplitz(r->key, r->key_len, in, len);
    return r->reta_size ? r->reta[h % r->reta_size] : 0;
}

static void put_ports(uint8_t *in, uint16_t sport, uint16_t dport)
{
    in[0] = (uint8_t)(sport >> 8);
    in[1] = (uint8_t)sport;
    in[2] = (uint8_t)(dport >> 8);
    in[3] = (uint8_t)dport;
}

uint32_t tcp_rss_reta_core(void *reta_ctx, uint32_t src_be, uint32_t dst_be, uint16_t sport,
                           uint16_t dport)
{
    uint8_t in[12];
    net_memcpy(in, &src_be, 4);
    net_memcpy(in + 4, &dst_be, 4);
    put_ports(in + 8, sport, dport);
    return reta_core(reta_ctx, in, sizeof(in));
}

uint32_t tcp_rss6_reta_core(void *reta_ctx, const uint8_t *src, const uint8_t *dst, uint16_t sport, uint16_t dport)
{
    uint8_t in[36];
    net_memcpy(in, src, 16);
    net_memcpy(in + 16, dst, 16);
    put_ports(in + 32, sport, dport);
    return reta_core(reta_ctx, in, sizeof(in));
}
