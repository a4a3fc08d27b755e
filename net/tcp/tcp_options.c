/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_options.c: TCP options, parsed and built (RFC 9293 section 3.2;
 * window scale and timestamps RFC 7323 sections 2 and 3; SACK RFC 2018).
 *
 * A known option with the wrong length, or any option whose length is under
 * 2 or runs past the header, makes the whole segment bad (RFC 9293 3.1
 * asks that illegal lengths be survived; we drop and count). Unknown kinds
 * are skipped by their length. */
#include "core/env.h"
#include "tcp_impl.h"
#include "core/wire.h"

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static bool parse_one(uint8_t kind, const uint8_t *v, uint32_t olen, struct tcp_opts *o)
{
    switch (kind) {
    case TCP_OPT_MSS:
        if (olen != TCP_OPT_MSS_LEN)
            return false;
        o->has_mss = true;
        o->mss = (uint16_t)(v[0] << 8 | v[1]);
        return true;
    case TCP_OPT_WS:
        if (olen != TCP_OPT_WS_LEN)
            return false;
        o->has_ws = true;
        o->wscale = v[0] > TCP_WS_MAX ? TCP_WS_MAX : v[0]; /* RFC 7323 2.3 */
        return true;
    case TCP_OPT_SACK_PERM:
        if (olen != TCP_OPT_SACK_PERM_LEN)
            return false;
        o->sack_ok = true;
        return true;
    case TCP_OPT_TS:
        if (olen != TCP_OPT_TS_LEN)
            return false;
        o->has_ts = true;
        o->tsval = get32(v);
        o->tsecr = get32(v + 4);
        return true;
    case TCP_OPT_SACK: {
        uint32_t n = (olen - 2) / 8;
        if (olen < 10 || (olen - 2) % 8 || n > TCP_SACK_MAX_BLOCKS)
            return false;
        for (uint32_t i = 0; i < n; i++) {
            o->sack[i][0] = get32(v + 8 * i);
            o->sack[i][1] = get32(v + 8 * i + 4);
        }
        o->nsack = (uint8_t)n;
        return true;
    }
    default:
        return true;
    }
}

int tcp_opt_parse(const uint8_t *opt, uint32_t len, struct tcp_opts *o)
{
    uint32_t i = 0;
    while (i < len) {
        uint8_t kind = opt[i];
        if (kind == TCP_OPT_EOL)
            break;
        if (kind == TCP_OPT_NOP) {
            i++;
            continue;
        }
        if (len - i < 2)
            return -1;
        uint32_t olen = opt[i + 1];
        if (olen < 2 || olen > len - i || !parse_one(kind, opt + i + 2, olen, o))
            return -1;
        i += olen;
    }
    return 0;
}

uint32_t tcp_opt_sack(uint8_t *buf, const uint32_t (*blocks)[2], uint32_t n)
{
    buf[0] = TCP_OPT_NOP;
    buf[1] = TCP_OPT_NOP;
    buf[2] = TCP_OPT_SACK;
    buf[3] = (uint8_t)(2 + 8 * n);
    for (uint32_t i = 0; i < n; i++) {
        put32(buf + 4 + 8 * i, blocks[i][0]);
        put32(buf + 8 + 8 * i, blocks[i][1]);
    }
    return 4 + 8 * n;
}

uint32_t tcp_opt_syn(uint8_t *buf, uint16_t mss, bool sack, bool ts, int wscale, uint32_t tsval,
                     uint32_t tsecr)
{
    uint32_t n = 0;
    buf[n++] = TCP_OPT_MSS;
    buf[n++] = TCP_OPT_MSS_LEN;
    buf[n++] = (uint8_t)(mss >> 8);
    buf[n++] = (uint8_t)mss;
    if (ts) {
        if (sack) {
            buf[n++] = TCP_OPT_SACK_PERM;
            buf[n++] = TCP_OPT_SACK_PERM_LEN;
            buf[n++] = TCP_OPT_TS;
            buf[n++] = TCP_OPT_TS_LEN;
            put32(buf + n, tsval);
            put32(buf + n + 4, tsecr);
            n += 8;
        } else {
            n += tcp_opt_ts(buf + n, tsval, tsecr);
        }
    } else if (sack) {
        buf[n++] = TCP_OPT_NOP;
        buf[n++] = TCP_OPT_NOP;
        buf[n++] = TCP_OPT_SACK_PERM;
        buf[n++] = TCP_OPT_SACK_PERM_LEN;
    }
    if (wscale >= 0) {
        buf[n++] = TCP_OPT_NOP;
        buf[n++] = TCP_OPT_WS;
        buf[n++] = TCP_OPT_WS_LEN;
        buf[n++] = (uint8_t)wscale;
    }
    return n;
}
