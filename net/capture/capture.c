/* SPDX-License-Identifier: MIT */
/* net/capture/capture.c: filters, rings, header summaries and pcapng
 * blocks for packet capture (capture.h). */
#include "capture.h"

#include "core/env.h"
#include "core/pkt.h"
#include "core/text.h"
#include "core/wire.h"
#include "route/route4.h"
#include "route/route6.h"


static void say(char *err, size_t errlen, const char *msg)
{
    size_t i = 0;
    for (; errlen && i + 1 < errlen && msg[i]; i++)
        err[i] = msg[i];
    if (errlen)
        err[i] = 0;
}

static bool number(const char *s, uint32_t max, uint32_t *v) { return net_decimal(s, net_str_len(s), max, v); }

/* "A" (a host: /32 or /128) or "A/LEN" into f's net. */
static bool address(struct cap_filter *f, const char *s, bool prefix)
{
    size_t n = net_str_len(s), a = n;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '/')
            a = i;
    if ((a != n) != prefix)
        return false;
    uint32_t len = 0;
    f->v6 = false;
    for (size_t i = 0; i < a; i++)
        f->v6 |= s[i] == ':';
    if (prefix && !number(s + a + 1, f->v6 ? 128 : 32, &len))
        return false;
    net_memset(f->net, 0, 16);
    if (f->v6) {
        if (!route6_parse_addr(s, a, f->net))
            return false;
    } else {
        uint32_t host;
        if (!route4_parse_addr(s, a, &host))
            return false;
        uint32_t mask = prefix ? (len ? ~0u << (32 - len) : 0) : ~0u;
        host &= mask;
        f->net[0] = (uint8_t)(host >> 24), f->net[1] = (uint8_t)(host >> 16);
        f->net[2] = (uint8_t)(host >> 8), f->net[3] = (uint8_t)host;
    }
    f->net_len = (uint8_t)(prefix ? len : f->v6 ? 128 : 32);
    f->has_net = true;
    return true;
}

int cap_filter_parse(struct cap_filter *f, int argc, char **argv, uint32_t *count, char *err, size_t errlen)
{
    net_memset(f, 0, sizeof *f);
    f->dirs = CAP_RX | CAP_TX | CAP_DROP;
    f->proto = -1;
    f->l4port = -1;
    *count = 0;
    int i = 0;
    if (i < argc && (net_str_eq(argv[i], "rx") || net_str_eq(argv[i], "tx") || net_str_eq(argv[i], "drop") || net_str_eq(argv[i], "any"))) {
        f->dirs = net_str_eq(argv[i], "rx") ? CAP_RX : net_str_eq(argv[i], "tx") ? CAP_TX : net_str_eq(argv[i], "drop") ? CAP_DROP : f->dirs;
        i++;
    }
    if (i + 1 < argc && net_str_eq(argv[i], "count")) {
        if (!number(argv[i + 1], 100000000, count) || *count == 0) {
            say(err, errlen, "bad count (1 to 100000000)");
            return -1;
        }
        i += 2;
    }
    if (i < argc && net_str_eq(argv[i], "match"))
        i++;
    else if (i < argc) {
        say(err, errlen, "expected [rx|tx|drop|any] [count N] [match host A|net P|proto P|port N ...]");
        return -1;
    }
    for (; i < argc; i += 2) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        uint32_t x;
        if (net_str_eq(k, "host") || net_str_eq(k, "net")) {
            if (f->has_net || !address(f, v, net_str_eq(k, "net"))) {
                say(err, errlen, "bad or second host/net (A.B.C.D, X:X::X, or with /LEN for net)");
                return -1;
            }
        } else if (net_str_eq(k, "proto")) {
            f->proto = net_str_eq(v, "tcp") ? 6 : net_str_eq(v, "udp") ? 17 : net_str_eq(v, "icmp") ? 1 : net_str_eq(v, "icmp6") ? 58 : -1;
            if (f->proto < 0 && number(v, 255, &x))
                f->proto = (int16_t)x;
            if (f->proto < 0) {
                say(err, errlen, "bad proto (tcp, udp, icmp, icmp6 or 0-255)");
                return -1;
            }
        } else if (net_str_eq(k, "port") && number(v, 65535, &x)) {
            f->l4port = (int32_t)x;
        } else {
            say(err, errlen, "match takes host A, net P, proto P, port N");
            return -1;
        }
    }
    return 0;
}

static bool in_net(const uint8_t *a, const uint8_t *net, unsigned len)
{
    unsigned full = len / 8, rest = len % 8;
    if (net_memcmp(a, net, full) != 0)
        return false;
    return !rest || ((a[full] ^ net[full]) & (uint8_t)(0xff00u >> rest)) == 0;
}

bool cap_summarize(const uint8_t *d, uint32_t len, struct cap_summary *s)
{
    net_memset(s, 0, sizeof *s);
    s->proto = -1;
    s->sport = s->dport = -1;
    if (len < ETH_HDR_LEN)
        return false;
    uint32_t off = 12;
    s->ethertype = (uint16_t)(d[off] << 8 | d[off + 1]);
    for (int k = 0; k < 2 && (s->ethertype == 0x8100 || s->ethertype == 0x88a8) && len >= off + 6; k++) {
        s->vlan = (uint16_t)((d[off + 2] << 8 | d[off + 3]) & 0xfff); /* IEEE 802.1Q, 802.1ad: the inner one's */
        off += 4;
        s->ethertype = (uint16_t)(d[off] << 8 | d[off + 1]);
    }
    off += 2;
    const uint8_t *ip = d + off;
    uint32_t rest = len - off, hl = 0;
    if (s->ethertype == 0x0800 && rest >= 20 && (ip[0] >> 4) == 4 && (ip[0] & 15) >= 5) {
        s->ip = 4;
        s->src = ip + 12, s->dst = ip + 16;
        s->proto = ip[9];
        s->ip_len = (uint32_t)(ip[2] << 8 | ip[3]);
        hl = (ip[0] & 15) * 4u;
        if ((ip[6] & 0x1f) | ip[7]) /* a later fragment: no transport header */
            return true;
    } else if (s->ethertype == 0x86dd && rest >= 40 && (ip[0] >> 4) == 6) {
        s->ip = 6;
        s->src = ip + 8, s->dst = ip + 24;
        s->proto = ip[6];
        s->ip_len = 40u + (uint32_t)(ip[4] << 8 | ip[5]);
        hl = 40;
    } else {
        return true;
    }
    const uint8_t *l4 = ip + hl;
    if (hl + 4 <= rest && (s->proto == 6 || s->proto == 17)) {
        s->sport = l4[0] << 8 | l4[1];
        s->dport = l4[2] << 8 | l4[3];
        if (s->proto == 6 && hl + 14 <= rest)
            s->tcp_flags = l4[13];
    } else if (hl + 1 <= rest && (s->proto == 1 || s->proto == 58)) {
        s->icmp_type = l4[0];
    }
    return true;
}

bool cap_match(const struct cap_filter *f, const uint8_t *d, uint32_t len)
{
    if (!f->has_net && f->proto < 0 && f->l4port < 0)
        return true;
    struct cap_summary s;
    if (!cap_summarize(d, len, &s) || !s.ip)
        return false;
    if (f->proto >= 0 && s.proto != f->proto)
        return false;
    if (f->l4port >= 0 && s.sport != f->l4port && s.dport != f->l4port)
        return false;
    if (f->has_net) {
        if ((s.ip == 6) != f->v6)
            return false;
        uint8_t a[16] = {0}, b[16] = {0};
        net_memcpy(a, s.src, s.ip == 6 ? 16 : 4);
        net_memcpy(b, s.dst, s.ip == 6 ? 16 : 4);
        if (!in_net(a, f->net, f->net_len) && !in_net(b, f->net, f->net_len))
            return false;
    }
    return true;
}

void cap_put(struct cap_ring *r, uint64_t ts_ns, uint16_t port, uint8_t dir, const char *reason, const struct pkt *p)
{
    uint32_t len = pkt_frame_len(p);
    uint32_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (h - atomic_load_explicit(&r->tail, memory_order_acquire) >= CAP_RING) {
        r->lost++;
        return;
    }
    struct cap_rec *c = &r->r[h % CAP_RING];
    c->ts_ns = ts_ns;
    c->port = port;
    c->dir = dir;
    c->len = (uint16_t)(len < 0xffff ? len : 0xffff);
    c->caplen = (uint16_t)(len < CAP_SNAP ? len : CAP_SNAP);
    size_t i = 0;
    for (; reason && reason[i] && i + 1 < CAP_REASON; i++)
        c->reason[i] = reason[i];
    c->reason[i] = 0;
    pkt_frame_read(p, 0, c->data, c->caplen);
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
}

const struct cap_rec *cap_peek(struct cap_ring *r)
{
    uint32_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    if (t == atomic_load_explicit(&r->head, memory_order_acquire))
        return NULL;
    return &r->r[t % CAP_RING];
}

void cap_done(struct cap_ring *r)
{
    atomic_store_explicit(&r->tail, atomic_load_explicit(&r->tail, memory_order_relaxed) + 1, memory_order_release);
}

/* ---- pcapng: blocks little-endian (the byte-order magic says so) ---- */

static void le16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void le32(uint8_t *p, uint32_t v) { le16(p, v), le16(p + 2, v >> 16); }

/* An option: code, length, value padded to 4. The bytes it took. */
static size_t option(uint8_t *p, uint16_t code, const void *v, size_t len)
{
    le16(p, code);
    le16(p + 2, (uint32_t)len);
    net_memcpy(p + 4, v, len);
    size_t pad = (4 - len % 4) % 4;
    net_memset(p + 4 + len, 0, pad);
    return 4 + len + pad;
}

/* Type and both lengths of a block of n bytes at p. */
static size_t block(uint8_t *p, uint32_t type, size_t n)
{
    le32(p, type);
    le32(p + 4, (uint32_t)n);
    le32(p + n - 4, (uint32_t)n);
    return n;
}

size_t cap_pcapng_header(uint8_t *out, size_t n, const char *const *port_names, unsigned nports)
{
    size_t need = 28;
    for (unsigned i = 0; i < nports; i++)
        need += 20 + 4 + (net_str_len(port_names[i]) + 3) / 4 * 4 + 4 + 4 + 4;
    if (n < need)
        return 0;
    /* Section Header Block: magic, version 1.0, section length unknown */
    uint8_t *p = out;
    le32(p + 8, 0x1a2b3c4d);
    le16(p + 12, 1);
    le16(p + 14, 0);
    le32(p + 16, 0xffffffff);
    le32(p + 20, 0xffffffff);
    p += block(p, 0x0a0d0d0a, 28);
    for (unsigned i = 0; i < nports; i++) {
        /* Interface Description Block: LINKTYPE_ETHERNET, snap length;
         * options if_name, if_tsresol (10^-9 s), end */
        uint8_t *b = p;
        le16(b + 8, 1);
        le16(b + 10, 0);
        le32(b + 12, CAP_SNAP);
        size_t o = 16;
        o += option(b + o, 2, port_names[i], net_str_len(port_names[i]));
        const uint8_t ns = 9;
        o += option(b + o, 9, &ns, 1);
        o += option(b + o, 0, "", 0);
        p += block(b, 1, o + 4);
    }
    return (size_t)(p - out);
}

size_t cap_pcapng_packet(uint8_t *out, size_t n, const struct cap_rec *r)
{
    size_t pad = (4 - r->caplen % 4) % 4, rlen = net_str_len(r->reason);
    size_t need = 28 + r->caplen + pad + 12 + (rlen ? 4 + (rlen + 3) / 4 * 4 : 0) + 4 + 4;
    if (n < need)
        return 0;
    /* Enhanced Packet Block: interface, time, lengths, data; options
     * epb_flags (direction: 1 inbound, 2 outbound), a drop's comment */
    uint8_t *b = out;
    le32(b + 8, r->port);
    le32(b + 12, (uint32_t)(r->ts_ns >> 32));
    le32(b + 16, (uint32_t)r->ts_ns);
    le32(b + 20, r->caplen);
    le32(b + 24, r->len);
    net_memcpy(b + 28, r->data, r->caplen);
    net_memset(b + 28 + r->caplen, 0, pad);
    size_t o = 28 + r->caplen + pad;
    uint8_t flags[4] = {0};
    le32(flags, r->dir == CAP_TX ? 2 : 1);
    o += option(b + o, 2, flags, 4);
    if (rlen)
        o += option(b + o, 1, r->reason, rlen);
    o += option(b + o, 0, "", 0);
    return block(b, 6, o + 4);
}
