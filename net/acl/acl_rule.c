/* SPDX-License-Identifier: MIT */
/* net/acl/acl_rule.c: access-list rules: their words (parse, format), a
 * datagram's key read from the wire, and the linear first match that the
 * classifier (acl.c) must agree with. */
#include "acl_impl.h"

#include "core/env.h"
#include "core/text.h"
#include "route/route4.h"
#include "route/route6.h"

/* ---- Rules ------------------------------------------------------------ */


/* "A.B.C.D[/LEN]" or "X:X::X[/LEN]": the family's bit, 0 when bad. Host
 * bits are cleared. */
static uint8_t parse_prefix(const char *s, uint8_t *addr, uint8_t *len)
{
    size_t n = net_str_len(s), a = 0;
    while (a < n && s[a] != '/')
        a++;
    bool v6 = false;
    for (size_t i = 0; i < a; i++)
        v6 |= s[i] == ':';
    uint32_t l = v6 ? 128 : 32;
    if (a < n && !net_decimal(s + a + 1, n - a - 1, l, &l))
        return 0;
    net_memset(addr, 0, 16);
    uint32_t h = 0;
    if (v6 ? !route6_parse_addr(s, a, addr) : !route4_parse_addr(s, a, &h))
        return 0;
    if (!v6)
        addr[0] = (uint8_t)(h >> 24), addr[1] = (uint8_t)(h >> 16), addr[2] = (uint8_t)(h >> 8), addr[3] = (uint8_t)h;
    for (uint32_t i = l; i < 128; i++)
        addr[i / 8] &= (uint8_t)~(0x80u >> (i % 8));
    *len = (uint8_t)l;
    return v6 ? ACL_V6 : ACL_V4;
}

/* "N" or "N-M", N <= M. */
static bool parse_range(const char *s, uint16_t *lo, uint16_t *hi)
{
    size_t n = net_str_len(s), d = 0;
    while (d < n && s[d] != '-')
        d++;
    uint32_t a, b;
    if (!net_decimal(s, d, 65535, &a))
        return false;
    b = a;
    if (d < n && !net_decimal(s + d + 1, n - d - 1, 65535, &b))
        return false;
    *lo = (uint16_t)a;
    *hi = (uint16_t)b;
    return a <= b;
}

static const struct {
    const char *name;
    uint8_t proto, family;
} protos[] = {
    {"tcp", IP4_PROTO_TCP, ACL_V4 | ACL_V6},
    {"udp", IP4_PROTO_UDP, ACL_V4 | ACL_V6},
    {"icmp", IP4_PROTO_ICMP, ACL_V4},
    {"icmp6", IP6_PROTO_ICMP6, ACL_V6},
};

int acl_rule_parse(struct acl_rule *r, int argc, char **argv, char *err, size_t errlen)
{
    net_memset(r, 0, sizeof(*r));
    r->family = ACL_V4 | ACL_V6;
    r->proto = -1;
    r->sport_hi = r->dport_hi = 65535;
    if (argc < 1 || !(net_str_eq(argv[0], "permit") || net_str_eq(argv[0], "deny"))) {
        acl_err(err, errlen, "permit or deny first", NULL);
        return -1;
    }
    r->permit = net_str_eq(argv[0], "permit");
    unsigned seen = 0;
    static const char *const words[] = {"proto", "src", "dst", "sport", "dport"};
    for (int i = 1; i < argc; i += 2) {
        unsigned w = 0;
        while (w < 5 && !net_str_eq(argv[i], words[w]))
            w++;
        if (w == 5 || i + 1 >= argc || (seen >> w) & 1) {
            acl_err(err, errlen, w == 5 ? "unknown word " : (seen >> w) & 1 ? "twice: " : "no value for ", argv[i]);
            return -1;
        }
        seen |= 1u << w;
        const char *v = argv[i + 1];
        uint8_t fam = ACL_V4 | ACL_V6;
        bool ok = true;
        if (w == 0) {
            uint32_t p;
            size_t k = 0;
            while (k < sizeof protos / sizeof protos[0] && !net_str_eq(v, protos[k].name))
                k++;
            if (k < sizeof protos / sizeof protos[0]) {
                r->proto = protos[k].proto;
                fam = protos[k].family;
            } else if ((ok = net_decimal(v, net_str_len(v), 255, &p))) {
                r->proto = (int16_t)p;
                fam = p == IP4_PROTO_ICMP ? ACL_V4 : p == IP6_PROTO_ICMP6 ? ACL_V6 : fam; /* as their names */
            }
        } else if (w == 1) {
            ok = (fam = parse_prefix(v, r->src, &r->src_len)) != 0;
        } else if (w == 2) {
            ok = (fam = parse_prefix(v, r->dst, &r->dst_len)) != 0;
        } else if (w == 3) {
            ok = parse_range(v, &r->sport_lo, &r->sport_hi);
        } else {
            ok = parse_range(v, &r->dport_lo, &r->dport_hi);
        }
        if (!ok) {
            acl_err(err, errlen, "bad value: ", v);
            return -1;
        }
        if (!(r->family & fam)) {
            acl_err(err, errlen, "IPv4 and IPv6 in one rule: ", v);
            return -1;
        }
        r->family &= fam;
    }
    if ((seen & (3u << 3)) && r->proto != IP4_PROTO_TCP && r->proto != IP4_PROTO_UDP) {
        acl_err(err, errlen, "ports need proto tcp or udp", NULL);
        return -1;
    }
    return 0;
}

/* A bounded string writer for acl_rule_format. */
struct out {
    char *b;
    size_t n, o;
};

static void put(struct out *w, const char *s)
{
    for (; *s; s++)
        if (w->o + 1 < w->n)
            w->b[w->o++] = *s;
    if (w->n)
        w->b[w->o < w->n ? w->o : w->n - 1] = 0;
}

static void put_num(struct out *w, uint32_t v, unsigned base)
{
    char t[12];
    int i = 11;
    t[i] = 0;
    do {
        t[--i] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    put(w, t + i);
}

/* RFC 5952 for IPv6 (the longest run of two or more zero groups as "::"). */
static void put_prefix(struct out *w, bool v6, const uint8_t *a, uint8_t len)
{
    if (!v6) {
        for (int i = 0; i < 4; i++) {
            put_num(w, a[i], 10);
            put(w, i < 3 ? "." : "");
        }
    } else {
        int best = -1, best_len = 1;
        for (int i = 0; i < 8;) {
            int j = i;
            while (j < 8 && (a[2 * j] | a[2 * j + 1]) == 0)
                j++;
            if (j - i > best_len)
                best = i, best_len = j - i;
            i = j > i ? j : i + 1;
        }
        for (int i = 0; i < 8; i++) {
            if (i == best) {
                put(w, "::");
                i += best_len - 1;
                continue;
            }
            if (i && i != best + best_len)
                put(w, ":");
            put_num(w, (uint32_t)a[2 * i] << 8 | a[2 * i + 1], 16);
        }
    }
    put(w, "/");
    put_num(w, len, 10);
}

static void put_range(struct out *w, const char *word, uint16_t lo, uint16_t hi)
{
    if (lo == 0 && hi == 65535)
        return;
    put(w, word);
    put_num(w, lo, 10);
    if (hi != lo) {
        put(w, "-");
        put_num(w, hi, 10);
    }
}

void acl_rule_format(const struct acl_rule *r, char *buf, size_t n)
{
    struct out w = {buf, n, 0};
    put(&w, r->permit ? "permit" : "deny");
    if (r->proto >= 0) {
        put(&w, " proto ");
        size_t k = 0;
        while (k < sizeof protos / sizeof protos[0] && protos[k].proto != r->proto)
            k++;
        if (k < sizeof protos / sizeof protos[0])
            put(&w, protos[k].name);
        else
            put_num(&w, (uint32_t)r->proto, 10);
    }
    bool v6 = r->family == ACL_V6;
    bool proto_says = r->proto == IP4_PROTO_ICMP || r->proto == IP6_PROTO_ICMP6;
    if (r->src_len || (r->family != (ACL_V4 | ACL_V6) && !r->dst_len && !proto_says)) {
        /* A rule for one family with nothing else to say so: "src 0.0.0.0/0". */
        put(&w, " src ");
        put_prefix(&w, v6, r->src, r->src_len);
    }
    if (r->dst_len) {
        put(&w, " dst ");
        put_prefix(&w, v6, r->dst, r->dst_len);
    }
    put_range(&w, " sport ", r->sport_lo, r->sport_hi);
    put_range(&w, " dport ", r->dport_lo, r->dport_hi);
}

/* ---- A datagram's key ------------------------------------------------- */

static void ports_at(struct acl_key *k, const uint8_t *l4)
{
    k->has_ports = true;
    k->sport = (uint16_t)(l4[0] << 8 | l4[1]);
    k->dport = (uint16_t)(l4[2] << 8 | l4[3]);
}

void acl_key4(struct acl_key *k, const uint8_t *ip, uint32_t len)
{
    net_memset(k, 0, sizeof(*k));
    k->family = ACL_V4;
    k->proto = ip[9];
    net_memcpy(k->src, ip + 12, 4);
    net_memcpy(k->dst, ip + 16, 4);
    const uint8_t *l4 = acl_ports4(ip, len);
    if (l4)
        ports_at(k, l4);
}

void acl_key6(struct acl_key *k, const uint8_t *ip, uint32_t len)
{
    net_memset(k, 0, sizeof(*k));
    k->family = ACL_V6;
    if (len < IP6_HDR_LEN)
        return; /* proto 0, no ports: the caller checked the header, so never */
    uint32_t tot = IP6_HDR_LEN + ((uint32_t)ip[4] << 8 | ip[5]);
    len = tot < len ? tot : len; /* link padding is no header */
    net_memcpy(k->src, ip + 8, 16);
    net_memcpy(k->dst, ip + 24, 16);
    uint8_t next = ip[6];
    uint32_t off = IP6_HDR_LEN;
    for (int i = 0; i < 8; i++) {
        uint32_t hl;
        if (next == 0 || next == 43 || next == 60) /* hop-by-hop, routing, destination options: RFC 8200 4.3-4.6 */
            hl = off + 2 <= len ? (ip[off + 1] + 1u) * 8 : 0;
        else if (next == 51) /* authentication header, RFC 4302 2.2: in 4-byte words, less 2 */
            hl = off + 2 <= len ? (ip[off + 1] + 2u) * 4 : 0;
        else if (next == IP6_PROTO_FRAG)
            hl = off + 8 <= len ? 8 : 0;
        else
            break;
        if (hl == 0 || off + hl > len) {
            k->proto = next; /* cut short: no upper layer to see */
            return;
        }
        bool later = next == IP6_PROTO_FRAG && ((ip[off + 2] << 8 | ip[off + 3]) & 0xfff8) != 0;
        next = ip[off];
        off += hl;
        if (later) { /* RFC 8200 4.5: only the first fragment has the upper-layer header */
            k->proto = next;
            return;
        }
    }
    k->proto = next;
    if ((next == IP4_PROTO_TCP || next == IP4_PROTO_UDP) && off + 4 <= len)
        ports_at(k, ip + off);
}

static bool prefix_holds(const uint8_t *p, uint8_t plen, const uint8_t *a)
{
    for (uint32_t i = 0; i < plen; i++)
        if (((p[i / 8] ^ a[i / 8]) >> (7 - i % 8)) & 1)
            return false;
    return true;
}

bool acl_rule_matches(const struct acl_rule *r, const struct acl_key *k)
{
    if (!(r->family & k->family) || (r->proto >= 0 && r->proto != k->proto))
        return false;
    if (!prefix_holds(r->src, r->src_len, k->src) || !prefix_holds(r->dst, r->dst_len, k->dst))
        return false;
    if (!acl_rule_ported(r))
        return true;
    return k->has_ports && k->sport >= r->sport_lo && k->sport <= r->sport_hi && k->dport >= r->dport_lo &&
           k->dport <= r->dport_hi;
}
