/* SPDX-License-Identifier: MIT */
/* net/acl/acl.h: stateless access lists, compiled into a classifier.
 *
 * An access list is rules in order; the first that matches a datagram
 * decides (permit or deny), and a datagram no rule matches is denied (the
 * implicit last rule). A rule tests any of: the protocol, the source and
 * destination prefixes, and the TCP or UDP source and destination port
 * ranges. A rule with IPv4 prefixes or `icmp` is for IPv4 alone, one with
 * IPv6 prefixes or `icmp6` for IPv6 alone, any other for both.
 *
 * acl_build compiles a list, per family, into a bit-vector classifier
 * (Lakshman and Stiliadis, SIGCOMM 1998) over equivalence classes: each
 * field's value space is cut where some rule's range starts or ends; a
 * table of 8-bit levels maps a field to its piece's class, and each class
 * to the set of rules whose range holds it, as a bitmap (kept in the
 * table's entries themselves for a list of at most 63 rules). A
 * datagram's rule is the first bit of the five bitmaps ANDed: five table
 * walks and an AND a 64 rules, however many rules there are, where a
 * linear walk tests every rule before the one that matches. The rules and
 * a datagram's key are acl_rule.c, the classifier acl.c.
 *
 * The compiled list is read-only: every core may match with it at once.
 * Hits are counted by the caller (acl_use: one array a core). */
#ifndef NET_ACL_H
#define NET_ACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACL_RULES_MAX 1024
#define ACL_NAME_MAX 32

enum { ACL_V4 = 1, ACL_V6 = 2 };

struct acl_rule {
    bool permit;
    uint8_t family;             /* ACL_V4 | ACL_V6: the families it applies to */
    int16_t proto;              /* IP protocol / IPv6 next header; -1: any */
    uint8_t src_len, dst_len;   /* prefix lengths; 0: any */
    uint8_t src[16], dst[16];   /* network order; IPv4 in the first 4 bytes */
    uint16_t sport_lo, sport_hi; /* inclusive; 0-65535: any (then ports are not needed) */
    uint16_t dport_lo, dport_hi;
};

/* The words after `acl NAME`: permit|deny [proto tcp|udp|icmp|icmp6|N]
 * [src PREFIX] [dst PREFIX] [sport N[-M]] [dport N[-M]] (an address
 * without /LEN is one host). Ports need proto tcp or udp; the prefixes
 * one family. 0, or -1 with a message. */
int acl_rule_parse(struct acl_rule *r, int argc, char **argv, char *err, size_t errlen);
/* The rule as acl_rule_parse takes it (show acl). */
void acl_rule_format(const struct acl_rule *r, char *buf, size_t n);

/* What a datagram offers the rules: acl_key4 and acl_key6 read it from the
 * wire. has_ports: a TCP or UDP header with its ports was there (not a
 * later fragment); a rule with ports matches no datagram without. */
struct acl_key {
    uint8_t family;             /* ACL_V4 or ACL_V6 */
    uint8_t proto;
    bool has_ports;
    uint16_t sport, dport;
    uint8_t src[16], dst[16];   /* IPv4 in the first 4 bytes */
};
/* From an IPv4 header at ip, len bytes there (header checked by the caller). */
void acl_key4(struct acl_key *k, const uint8_t *ip, uint32_t len);
/* From an IPv6 header at ip, len bytes there: the next header after the
 * extension headers the walk knows (hop-by-hop, routing, fragment,
 * destination options, authentication), at most 8 of them. Both read no
 * further than the datagram's own length says (not into link padding). */
void acl_key6(struct acl_key *k, const uint8_t *ip, uint32_t len);
/* Whether rule r matches k (what the classifier must agree with). */
bool acl_rule_matches(const struct acl_rule *r, const struct acl_key *k);

/* Memory for acl_build: alloc returns size bytes 64-byte aligned (NULL when
 * there is none), free takes them back with the same size. */
struct acl_mem {
    void *(*alloc)(void *ctx, size_t size);
    void (*free)(void *ctx, void *p, size_t size);
    void *ctx;
};

struct acl;
/* Compiles rules[0..n) (n <= ACL_RULES_MAX, copied). NULL with a message
 * when memory runs out or the tables would be too large. */
struct acl *acl_build(const char *name, const struct acl_rule *rules, uint32_t n, const struct acl_mem *m,
                      char *err, size_t errlen);
void acl_free(struct acl *a, const struct acl_mem *m);

const char *acl_name(const struct acl *a);
uint32_t acl_nrules(const struct acl *a);
const struct acl_rule *acl_rule_at(const struct acl *a, uint32_t i);
size_t acl_bytes(const struct acl *a); /* the classifier's tables */

/* The rule that decides k: its index, or acl_nrules(a) for the implicit
 * deny. */
uint32_t acl_classify(const struct acl *a, const struct acl_key *k);
/* The same for the IPv4 datagram at ip (len bytes, its header checked),
 * read where it lies: acl_key4 and acl_classify in one. */
uint32_t acl_classify4(const struct acl *a, const uint8_t *ip, uint32_t len);
/* Whether rule i (acl_nrules(a): the implicit deny) permits. */
bool acl_permits(const struct acl *a, uint32_t i);

/* An access list applied somewhere, with the hit counters of the core that
 * applies it (acl_nrules + 1 of them, the implicit deny last). */
struct acl_use {
    const struct acl *acl;      /* NULL: none applied */
    uint64_t *hits;
};

/* Counts the deciding rule; true when it permits. */
bool acl_use_pass(const struct acl_use *u, const struct acl_key *k);
bool acl_use_pass4(const struct acl_use *u, const uint8_t *ip, uint32_t len); /* acl_classify4's */
/* acl_use_pass4 on p[0..n)'s IPv4 headers (n <= 64), off bytes into each
 * frame: bit i set when p[i] is denied. One call a burst, the classifier
 * inlined. Reads 24 bytes from each header however short the frame: a
 * packet buffer has that room. */
struct pkt;
uint64_t acl_use_pass4_burst(const struct acl_use *u, struct pkt *const *p, uint32_t n, uint32_t off);

/* A list of at most 63 IPv4 rules classified inline, in a loop that reads
 * the headers anyway (the forwarding fast path's): acl_fast4_bits gives a
 * datagram's rules as a bitmap, acl_use_count4 counts and decides a burst
 * of them. Per field (protocol, source, destination, source port,
 * destination port) a table by its first byte holds the bitmap of the
 * rules whose range holds the piece, or (ACL_FAST4_CHILD) where a node of
 * 256 by the next byte is, present only under a byte some rule cuts: its
 * byte offset from the table, which the nodes follow. Bit 63 of a bitmap
 * stands for "no rule" (never set in a table). */
#define ACL_FAST4_CHILD (1ull << 63)
struct acl_fast4 {
    const uint64_t *root[5];
    uint64_t ported;            /* the rules that test ports */
};
/* NULL for a list with more than 63 IPv4 rules, or none. */
const struct acl_fast4 *acl_fast4(const struct acl *a);

/* Field fi's bitmap for the key whose first byte is b0 (key: its bytes,
 * network order): b0's entry, then a node a byte while that is a child
 * (a port's high byte 0, an address's first byte where some rule cuts:
 * met by whole flows). A loop, not a call: nothing in the caller's
 * registers has to be saved around it. */
static inline uint64_t acl_fast4_field(const struct acl_fast4 *t, int fi, uint32_t b0, const uint8_t *key)
{
    const uint64_t *root = t->root[fi];
    uint64_t e = root[b0];
    while (__builtin_expect((e & ACL_FAST4_CHILD) != 0, 0))
        e = ((const uint64_t *)(const void *)((const char *)root + (e & ~ACL_FAST4_CHILD)))[*++key];
    return e;
}

/* The rules matching the IPv4 datagram at ip, ANDed: a plain one (a
 * 20-byte header, not a fragment, its total length within the buffer, as
 * the fast path takes). Its ports are read where they lie, whatever its
 * protocol and length: a rule with ports is a TCP or UDP rule
 * (acl_build), which the protocol's bitmap leaves out for the others;
 * one without matches every port; and a datagram shorter than 24 bytes
 * (no ports) matches no rule with ports. Reads 24 bytes at ip, in three
 * words (byte k of a word at bits 8k: as the bytes lie, on a
 * little-endian machine). */
static inline uint64_t acl_fast4_bits(const struct acl_fast4 *t, const uint8_t *ip)
{
    uint64_t w0, w1, w2;
    __builtin_memcpy(&w0, ip, 8);
    __builtin_memcpy(&w1, ip + 8, 8);
    __builtin_memcpy(&w2, ip + 16, 8);
    uint32_t tot = (uint32_t)(w0 >> 8 & 0xff00) | (uint32_t)(w0 >> 24 & 0xff);
    return t->root[0][w1 >> 8 & 0xff] & /* the protocol: one byte, no node below */
           acl_fast4_field(t, 1, w1 >> 32 & 0xff, ip + 12) & acl_fast4_field(t, 2, w2 & 0xff, ip + 16) &
           acl_fast4_field(t, 3, w2 >> 32 & 0xff, ip + 20) & acl_fast4_field(t, 4, w2 >> 48 & 0xff, ip + 22) &
           ~(tot >= 24 ? 0 : t->ported);
}

/* u's list decides m[0..n) (n <= 64; acl_fast4_bits of u->acl's
 * acl_fast4): each counted on its rule; bit i set when m[i]'s denies. */
uint64_t acl_use_count4(const struct acl_use *u, const uint64_t *m, uint32_t n);

#endif
