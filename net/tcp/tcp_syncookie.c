/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_syncookie.c: SYN cookies (RFC 4987 section 3.6), answered when a
 * listener's backlog or the connection arena is full.
 *
 * The SYN-ACK's ISN carries what the connection needs, authenticated by a
 * keyed hash, so no state is kept until the ACK comes back with ISN + 1:
 *
 *   31..29  time counter mod 8 (units of 2^36 ns, ~69 s; this one or the last)
 *   28..27  MSS, an index into mss_table
 *   26      SACK permitted
 *   25..22  the peer's window scale + 1 (0: none)
 *   21..0   SipHash(cookie key; addresses (IPv4 or IPv6), ports, full
 *           counter, bits 31..22)
 *
 * Timestamps need no bits: the ACK carries the option exactly when both
 * sides offered it. */
#include "core/env.h"
#include "tcp_impl.h"

#define COOKIE_T_SHIFT 36
static const uint16_t mss_table[4] = {536, 1220, 1440, 1460};

static uint32_t cookie_hash(const struct tcp_stack *t, const struct tcp_in *seg, uint64_t tc,
                            uint32_t top)
{
    uint32_t m[6] = {seg->dst_be, seg->src_be, (uint32_t)seg->dport << 16 | seg->sport,
                     (uint32_t)tc, (uint32_t)(tc >> 32), top};
    if (tcp_in_is6(seg)) { /* the IPv6 tuple: both addresses in front */
        uint8_t m6[32 + sizeof(m)];
        net_memcpy(m6, seg->dst6, 16);
        net_memcpy(m6 + 16, seg->src6, 16);
        net_memcpy(m6 + 32, m, sizeof(m));
        return (uint32_t)tcp_siphash(t->cookie_key, m6, sizeof(m6)) & 0x3fffffu;
    }
    return (uint32_t)tcp_siphash(t->cookie_key, m, sizeof(m)) & 0x3fffffu;
}

uint32_t tcp_cookie_make(const struct tcp_stack *t, const struct tcp_in *seg, uint64_t now_ns,
                         uint16_t *mss_out)
{
    uint64_t tc = now_ns >> COOKIE_T_SHIFT;
    uint16_t want = seg->opt.has_mss ? seg->opt.mss : tcp_in_is6(seg) ? TCP_DEFAULT_MSS6 : TCP_DEFAULT_MSS;
    uint16_t ours = tcp_in_is6(seg) ? tcp_our_mss6((struct tcp_stack *)t, seg->src6)
                                    : tcp_our_mss((struct tcp_stack *)t, seg->src_be);
    if (want > ours)
        want = ours;
    uint32_t idx = 0;
    for (uint32_t i = 0; i < 4; i++)
        if (mss_table[i] <= want)
            idx = i;
    bool sack = seg->opt.sack_ok && t->cfg.sack;
    uint32_t ws = (seg->opt.has_ws && t->cfg.wscale) ? seg->opt.wscale + 1u : 0;
    uint32_t top = (uint32_t)(tc & 7) << 29 | idx << 27 | (sack ? 1u : 0) << 26 | ws << 22;
    *mss_out = ours; /* the SYN-ACK offers what we take, as any SYN-ACK does (RFC 9293 3.7.1) */
    return top | cookie_hash(t, seg, tc, top);
}

bool tcp_cookie_check(const struct tcp_stack *t, const struct tcp_in *seg, uint64_t now_ns,
                      struct tcp_opts *syn)
{
    uint32_t cookie = seg->ack - 1;
    uint32_t top = cookie & ~0x3fffffu;
    uint64_t now_tc = now_ns >> COOKIE_T_SHIFT;
    for (uint64_t back = 0; back < 2 && back <= now_tc; back++) {
        uint64_t tc = now_tc - back;
        if ((tc & 7) != cookie >> 29 || cookie_hash(t, seg, tc, top) != (cookie & 0x3fffffu))
            continue;
        uint32_t ws = (cookie >> 22) & 0xf;
        if (ws > TCP_WS_MAX + 1u)
            return false;
        *syn = (struct tcp_opts){0};
        syn->has_mss = true;
        syn->mss = mss_table[(cookie >> 27) & 3];
        syn->sack_ok = (cookie >> 26) & 1;
        syn->has_ws = ws != 0;
        syn->wscale = (uint8_t)(ws ? ws - 1 : 0);
        syn->has_ts = seg->opt.has_ts;
        syn->tsval = seg->opt.tsval;
        return true;
    }
    return false;
}
