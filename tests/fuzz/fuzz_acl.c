/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_acl.c: access lists (net/acl/): a datagram's key
 * read from the wire (acl_key4, acl_key6: IPv4 fragments, IPv6 extension
 * header chains, truncation anywhere) and the compiled classifier.
 *
 * Input: [ctl][aim][edges][datagram...]. ctl bits 0-1: one of four lists
 * built once (a hand-written edge list of both families; 64 rules at
 * random for IPv4 alone, 65 and 300 for both, prefixes clustered so that
 * they overlap). Bit 2: the datagram is IPv6 (at least 40 bytes), else
 * IPv4 (at least 20; its version made 4 and, where the header length is
 * under 5 words or longer than the bytes there, 5 words: what acl_key4's
 * caller checks). Bit 3: aim at rule aim % n first: its protocol, its
 * prefixes written into the addresses and its ports into a TCP or UDP
 * header right after the fixed one, each at an edge of the rule's range
 * that two bits of edges pick (first, last, one before, one past). The
 * datagram ends where a buffer does, so a read past it is ASan's to catch.
 *
 * Checks: the key against a walk written here from RFC 791 and RFC 8200
 * (the protocol; ports only in a first fragment with four bytes of TCP or
 * UDP there; at most 8 extension headers: hop-by-hop, routing, fragment,
 * destination options, and the authentication header as acl.c takes it);
 * acl_classify, acl_classify4 and acl_use_pass4_burst against the linear
 * first match over acl_rule_matches;
 * acl_use_pass counting that rule and answering its permit. Any difference
 * aborts. Nothing is allocated per input. libFuzzer: -max_len=512 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/acl/acl.h"
#include "net/core/pkt.h"

#define NLISTS 4
#define BUF 4096

static struct acl *lists[NLISTS];
static uint64_t *hits[NLISTS];

static void *mem_alloc(void *ctx, size_t size)
{
    return aligned_alloc(64, (size + 63) / 64 * 64);
}

static void mem_free(void *ctx, void *p, size_t size)
{
    free(p);
}

static const struct acl_mem mem = {mem_alloc, mem_free, NULL};

/* ---- the lists, built once ---------------------------------------------- */

static const char *const edge_list[] = {
    "deny src 10.0.0.0/8",
    "deny src 2001:db8:dead::/48",
    "deny proto tcp dst 192.0.2.0/24 dport 23",
    "deny proto udp sport 0-1023 dport 0",
    "permit proto tcp src 198.51.100.0/25 dport 80-443",
    "permit proto udp dst 2001:db8::53 dport 53",
    "deny proto tcp dst 2001:db8::/32 sport 1024-65535 dport 22",
    "permit proto icmp dst 203.0.113.1",
    "permit proto icmp6 src fe80::/10",
    "deny proto 47",
    "deny proto 50 src 2001:db8:1::/64",
    "permit proto udp sport 65535",
    "permit proto tcp dport 0",
    "deny dst 0.0.0.0/32",
    "deny src ::/128",
    "permit src 192.168.0.0/16 dst 192.168.128.0/17",
    "permit proto tcp src 2001:db8:1:2:3:4:5:6 dst 2001:db8:1:2:3:4:5:7 sport 1 dport 2",
    "deny proto udp dport 1-65534",
    "permit proto 0",
    "permit proto 60",
    "permit proto 44",
    "deny proto 255 dst 255.255.255.255",
    "deny proto tcp",
};

static uint64_t seed;

static uint64_t rnd(void)
{
    uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void masked(uint8_t *a, uint8_t len, unsigned alen)
{
    for (unsigned bit = len; bit < alen * 8; bit++)
        a[bit / 8] &= (uint8_t)~(0x80u >> (bit % 8));
}

/* A rule at random, valid as the words would give it; prefixes near two
 * anchors a family, so that they nest and overlap. */
static struct acl_rule random_rule(bool v4_only)
{
    static const uint8_t anchor[2][2][16] = {
        {{10, 0, 0, 0}, {192, 168, 1, 0}},
        {{0x20, 0x01, 0x0d, 0xb8}, {0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}},
    };
    static const uint16_t points[] = {0, 1, 53, 80, 443, 1023, 1024, 65535};
    struct acl_rule r;
    memset(&r, 0, sizeof r);
    r.permit = rnd() & 1;
    r.family = ACL_V4 | ACL_V6;
    r.proto = -1;
    r.sport_hi = r.dport_hi = 65535;
    uint64_t x = rnd();
    unsigned v6 = v4_only ? 0 : x & 1, alen = v6 ? 16 : 4, pick = (x >> 1) % 8;
    r.proto = pick < 3 ? 6 : pick < 6 ? 17 : pick == 6 ? (v6 ? 58 : 1) : -1;
    unsigned sides = (unsigned)(x >> 4) & 3; /* bit 0 src, bit 1 dst */
    if (sides == 0 && (r.proto == -1 || v4_only))
        sides = 1; /* no rule that takes in a whole family; IPv4 alone a prefix */
    for (int side = 0; side < 2; side++) {
        if (!((sides >> side) & 1))
            continue;
        uint8_t *a = side ? r.dst : r.src, *len = side ? &r.dst_len : &r.src_len;
        memcpy(a, anchor[v6][(x >> (6 + side)) & 1], 16);
        for (int k = 0; k < 3; k++) {
            unsigned bit = (unsigned)(rnd() % (alen * 8));
            a[bit / 8] ^= (uint8_t)(0x80u >> (bit % 8));
        }
        *len = (uint8_t)(alen * 4 + rnd() % (alen * 4 + 1));
        masked(a, *len, alen);
    }
    if (r.src_len || r.dst_len || r.proto == 1 || r.proto == 58)
        r.family = v6 ? ACL_V6 : ACL_V4;
    if (r.proto == 6 || r.proto == 17) {
        for (int side = 0; side < 2; side++) {
            if ((x >> (8 + side)) & 1)
                continue;
            uint32_t lo = points[rnd() % 8], hi = lo + (uint32_t)(rnd() % 2000);
            if (hi > 65535)
                hi = 65535;
            *(side ? &r.dport_lo : &r.sport_lo) = (uint16_t)lo;
            *(side ? &r.dport_hi : &r.sport_hi) = (uint16_t)hi;
        }
    }
    return r;
}

static void build(int i, struct acl_rule *rules, uint32_t n)
{
    char err[128];
    lists[i] = acl_build("fuzz", rules, n, &mem, err, sizeof err);
    if (lists[i] == NULL)
        abort();
    hits[i] = calloc(n + 1, sizeof(uint64_t));
}

static void build_lists(void)
{
    static struct acl_rule rules[300];
    uint32_t n = 0;
    for (size_t i = 0; i < sizeof edge_list / sizeof edge_list[0]; i++) {
        char line[160], *argv[16];
        int argc = 0;
        snprintf(line, sizeof line, "%s", edge_list[i]);
        for (char *t = strtok(line, " "); t && argc < 16; t = strtok(NULL, " "))
            argv[argc++] = t;
        char err[128];
        if (acl_rule_parse(&rules[n++], argc, argv, err, sizeof err) != 0)
            abort();
    }
    build(0, rules, n);
    static const uint32_t sizes[] = {64, 65, 300};
    for (int i = 0; i < 3; i++) {
        seed = 1000u + (uint64_t)i;
        for (uint32_t k = 0; k < sizes[i]; k++)
            rules[k] = random_rule(i == 0);
        build(1 + i, rules, sizes[i]);
    }
}

/* ---- the reference walk ------------------------------------------------- */

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

/* What acl.h says the key of an IPv4 datagram is. */
static void model4(struct acl_key *k, const uint8_t *ip, uint32_t len)
{
    memset(k, 0, sizeof *k);
    k->family = ACL_V4;
    k->proto = ip[9];
    memcpy(k->src, ip + 12, 4);
    memcpy(k->dst, ip + 16, 4);
    uint32_t hl = (ip[0] & 15u) * 4;
    if (be16(ip + 2) < len) /* the datagram's own length: what follows is link padding */
        len = be16(ip + 2);
    if ((be16(ip + 6) & 0x1fff) == 0 && (k->proto == 6 || k->proto == 17) && len >= hl + 4) {
        k->has_ports = true;
        k->sport = be16(ip + hl);
        k->dport = be16(ip + hl + 2);
    }
}

/* IPv6: hop-by-hop (0), routing (43), destination options (60) in 8-byte
 * units past the first 8; the authentication header (51) in 4-byte units
 * past the first 8; the fragment header (44), 8 bytes, after which a later
 * fragment has no upper-layer header. A header cut short, or a ninth: the
 * walk stops there with its number as the protocol. */
static void model6(struct acl_key *k, const uint8_t *ip, uint32_t len)
{
    memset(k, 0, sizeof *k);
    k->family = ACL_V6;
    memcpy(k->src, ip + 8, 16);
    memcpy(k->dst, ip + 24, 16);
    if (40u + be16(ip + 4) < len) /* the same: the payload length says where it ends */
        len = 40u + be16(ip + 4);
    uint8_t nh = ip[6];
    uint32_t at = 40;
    for (int hdrs = 0;; hdrs++) {
        uint32_t size;
        if (nh == 0 || nh == 43 || nh == 60 || nh == 51) {
            if (at + 2 > len)
                break;
            size = nh == 51 ? 4u * ip[at + 1] + 8 : 8u * ip[at + 1] + 8;
        } else if (nh == 44) {
            size = 8;
        } else {
            if ((nh == 6 || nh == 17) && len >= at + 4) {
                k->has_ports = true;
                k->sport = be16(ip + at);
                k->dport = be16(ip + at + 2);
            }
            break;
        }
        if (hdrs == 8 || at + size > len)
            break;
        uint8_t next = ip[at];
        bool later = nh == 44 && (be16(ip + at + 2) & 0xfff8) != 0;
        at += size;
        nh = next;
        if (later)
            break;
    }
    k->proto = nh;
}

static bool key_eq(const struct acl_key *a, const struct acl_key *b)
{
    return a->family == b->family && a->proto == b->proto && a->has_ports == b->has_ports &&
           (!a->has_ports || (a->sport == b->sport && a->dport == b->dport)) && !memcmp(a->src, b->src, 16) &&
           !memcmp(a->dst, b->dst, 16);
}

/* ---- aiming at a rule --------------------------------------------------- */

/* The address at an edge of (net, len): first, last, one before, one past. */
static void edge_addr(uint8_t *out, const uint8_t *net, uint8_t len, unsigned alen, unsigned how)
{
    uint8_t a[16];
    memcpy(a, net, alen);
    if (how & 1) /* the last address */
        for (unsigned bit = len; bit < alen * 8; bit++)
            a[bit / 8] |= (uint8_t)(0x80u >> (bit % 8));
    if (how & 2) { /* one before the first, one past the last */
        int delta = how & 1 ? 1 : -1;
        for (int i = (int)alen - 1; i >= 0; i--) {
            int v = a[i] + delta;
            a[i] = (uint8_t)v;
            if (v >= 0 && v <= 255)
                break;
        }
    }
    memcpy(out, a, alen);
}

static uint16_t edge_port(uint16_t lo, uint16_t hi, unsigned how)
{
    uint16_t v = how & 1 ? hi : lo;
    return how & 2 ? (uint16_t)(how & 1 ? v + 1 : v - 1) : v;
}

static void aim(uint8_t *ip, uint32_t len, bool v6, const struct acl_rule *r, uint8_t edges)
{
    unsigned alen = v6 ? 16 : 4, src_at = v6 ? 8 : 12, dst_at = v6 ? 24 : 16;
    uint32_t l4 = v6 ? 40 : (ip[0] & 15u) * 4;
    uint8_t proto = v6 ? ip[6] : ip[9];
    /* The rule's protocol, where the datagram has no chain to follow. */
    if (r->proto >= 0 && (!v6 || proto == 6 || proto == 17 || proto == 1 || proto == 58)) {
        proto = (uint8_t)r->proto;
        ip[v6 ? 6 : 9] = proto;
    }
    if ((r->family & (v6 ? ACL_V6 : ACL_V4)) != 0) {
        edge_addr(ip + src_at, r->src, r->src_len, alen, edges & 3);
        edge_addr(ip + dst_at, r->dst, r->dst_len, alen, (edges >> 2) & 3);
    }
    if ((proto == 6 || proto == 17) && len >= l4 + 4) {
        uint16_t s = edge_port(r->sport_lo, r->sport_hi, (edges >> 4) & 3);
        uint16_t d = edge_port(r->dport_lo, r->dport_hi, (edges >> 6) & 3);
        ip[l4] = (uint8_t)(s >> 8), ip[l4 + 1] = (uint8_t)s;
        ip[l4 + 2] = (uint8_t)(d >> 8), ip[l4 + 3] = (uint8_t)d;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t buf[BUF];
    if (lists[0] == NULL)
        build_lists();
    if (size < 3 || size - 3 > BUF)
        return 0;
    uint8_t ctl = data[0], aim_at = data[1], edges = data[2];
    uint32_t len = (uint32_t)(size - 3);
    bool v6 = ctl & 4;
    if (len < (v6 ? 40u : 20u))
        return 0;
    int li = ctl & 3;
    const struct acl *a = lists[li];
    uint32_t n = acl_nrules(a);
    uint8_t *ip = buf + BUF - len; /* ends where buf does */
    memcpy(ip, data + 3, len);
    if (v6) {
        ip[0] = (uint8_t)(0x60 | (ip[0] & 15));
    } else { /* what acl_key4's caller checks: IPv4, a header that is there */
        uint32_t ihl = ip[0] & 15;
        if (ihl < 5 || ihl * 4 > len)
            ihl = 5;
        ip[0] = (uint8_t)(0x40 | ihl);
    }
    if (ctl & 8)
        aim(ip, len, v6, acl_rule_at(a, aim_at % n), edges);

    struct acl_key k, m;
    if (v6) {
        acl_key6(&k, ip, len);
        model6(&m, ip, len);
    } else {
        acl_key4(&k, ip, len);
        model4(&m, ip, len);
    }
    if (!key_eq(&k, &m))
        abort();
    if (k.has_ports && k.proto != 6 && k.proto != 17)
        abort();

    uint32_t want = n;
    for (uint32_t i = 0; i < n; i++)
        if (acl_rule_matches(acl_rule_at(a, i), &k)) {
            want = i;
            break;
        }
    uint32_t got = acl_classify(a, &k);
    if (got != want || (!v6 && acl_classify4(a, ip, len) != want)) /* the header read in place: the same */
        abort();
    if (!v6 && len <= 0xffff) { /* and the burst's way, which reads the usual datagram's ports as they lie */
        static uint64_t burst_hits[ACL_RULES_MAX + 1];
        static uint8_t room[BUF + 24]; /* a buffer's room past the frame, as a pkt has: the burst reads 24 bytes */
        memcpy(room, ip, len);
        struct pkt pk = {.data = room, .len = (uint16_t)len}, *pp = &pk;
        struct acl_use bu = {a, burst_hits};
        uint64_t before_b = burst_hits[want];
        bool denied = acl_use_pass4_burst(&bu, &pp, 1, 0) & 1;
        if (denied != !(want < n && acl_rule_at(a, want)->permit) || burst_hits[want] != before_b + 1)
            abort();
    }
    uint64_t before = hits[li][got];
    struct acl_use u = {a, hits[li]};
    bool pass = acl_use_pass(&u, &k);
    if (hits[li][got] != before + 1 || pass != (got < n && acl_rule_at(a, got)->permit) ||
        pass != acl_permits(a, got))
        abort();
    return 0;
}
