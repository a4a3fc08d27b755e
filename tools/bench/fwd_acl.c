/* SPDX-License-Identifier: MIT */
/* tools/bench/fwd_acl.c: the access list of fwd_bench's ACL rows (an edge
 * router's input list of 50 rules), built, bound to eth0 and counted. */
#include <stdio.h>
#include <stdlib.h>

#include "net/acl/acl.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/fwd_bench.h"

/* The access list of the ACL rows: an edge router's input list. None of
 * the first 49 rules matches the bench traffic (UDP 1024 -> 9 from
 * 198.18.0.1, which is why 198.18.0.0/15 is not among the bogons, to the
 * table's addresses); the 50th passes everything. */
static const char *const acl_rules[] = {
    "deny src 0.0.0.0/8",
    "deny src 10.0.0.0/8",
    "deny src 100.64.0.0/10",
    "deny src 127.0.0.0/8",
    "deny src 169.254.0.0/16",
    "deny src 172.16.0.0/12",
    "deny src 192.0.0.0/24",
    "deny src 192.0.2.0/24",
    "deny src 192.168.0.0/16",
    "deny src 198.51.100.0/24",
    "deny src 203.0.113.0/24",
    "deny src 224.0.0.0/4",
    "deny src 240.0.0.0/4",
    "deny src ::/128",
    "deny src ::1/128",
    "deny src fc00::/7",
    "deny src fe80::/10",
    "deny src 2001:db8::/32",
    "deny src ff00::/8",
    "deny proto tcp dport 23",
    "deny proto tcp dport 135-139",
    "deny proto tcp dport 445",
    "deny proto udp dport 135-139",
    "deny proto udp dport 161-162",
    "deny proto udp dport 1900",
    "deny proto udp dport 11211",
    "deny proto udp dport 19",
    "deny proto udp sport 19",
    "deny proto udp dport 0",
    "deny proto tcp dport 0",
    "deny proto udp sport 0",
    "deny proto tcp dport 1433-1434",
    "deny proto udp dport 1433-1434",
    "deny proto tcp dport 3389",
    "deny proto udp dport 69",
    "deny proto udp sport 1900",
    "deny proto udp sport 11211",
    "deny proto udp sport 389",
    "deny proto 47",
    "deny proto 41",
    "permit proto tcp dst 198.51.100.10 dport 80",
    "permit proto tcp dst 198.51.100.10 dport 443",
    "permit proto udp dst 198.51.100.53 dport 53",
    "permit proto tcp dst 198.51.100.25 dport 25",
    "permit proto icmp dst 198.51.100.0/24",
    "permit proto tcp src 185.199.108.0/22 dst 198.51.100.22 dport 22",
    "permit proto udp src 185.199.108.0/22 dport 161",
    "permit proto icmp6",
    "permit proto tcp dst 2001:db8:100::/48 dport 443",
    "permit",
};
#define ACL_NRULES (sizeof(acl_rules) / sizeof(acl_rules[0]))
const size_t fwd_acl_nrules = ACL_NRULES;
static struct acl *bench_acl;
static uint64_t acl_hits[ACL_NRULES + 1];

/* The access list's tables as the route tables' (2 MiB pages with --huge). */
static void *acl_alloc(void *ctx, size_t size)
{
    return bench_alloc(ctx, size, 64);
}

static const struct acl_mem acl_mem = {acl_alloc, bench_free, NULL};

/* Parse and build acl_rules; the template's key must reach the last rule. */
void fwd_acl_make(struct rig *r)
{
    struct acl_rule rules[ACL_NRULES];
    char err[128];
    for (size_t i = 0; i < ACL_NRULES; i++) {
        char line[128], *argv[16];
        int argc = 0;
        snprintf(line, sizeof(line), "%s", acl_rules[i]);
        for (char *t = strtok(line, " "); t && argc < 16; t = strtok(NULL, " "))
            argv[argc++] = t;
        if (acl_rule_parse(&rules[i], argc, argv, err, sizeof(err)) != 0) {
            fprintf(stderr, "fwd_bench: acl rule \"%s\": %s\n", acl_rules[i], err);
            exit(1);
        }
    }
    bench_acl = acl_build("bench", rules, ACL_NRULES, &acl_mem, err, sizeof(err));
    if (bench_acl == NULL) {
        fprintf(stderr, "fwd_bench: acl_build: %s\n", err);
        exit(1);
    }
    struct acl_key k;
    uint8_t ip[FRAME_LEN - 14];
    memcpy(ip, r->tmpl + 14, sizeof(ip));
    memcpy(ip + 16, &r->dst_be[0], 4);
    acl_key4(&k, ip, sizeof(ip));
    fprintf(stderr, "fwd_bench: access list of %zu rules, %zu bytes of tables\n", ACL_NRULES, acl_bytes(bench_acl));
    if (acl_classify(bench_acl, &k) != ACL_NRULES - 1) {
        fprintf(stderr, "fwd_bench: the bench traffic matches acl rule %u, not the last\n",
                acl_classify(bench_acl, &k));
        exit(1);
    }
}

/* eth0's input list for side (the ACL rows' or none), fwd_sync on a change. */
void fwd_acl_bind(struct rig *r, int side)
{
    struct acl_use want = {side == ACL ? bench_acl : NULL, side == ACL ? acl_hits : NULL};
    if (r->s->iface[0].acl_in.acl == want.acl)
        return;
    r->s->iface[0].acl_in = want;
    fwd_sync(r->f, r->s);
}

void fwd_acl_reset(void) { memset(acl_hits, 0, sizeof(acl_hits)); }

void fwd_acl_hits(uint64_t *last, uint64_t *other)
{
    for (size_t i = 0; i <= ACL_NRULES; i++) /* [ACL_NRULES]: no rule matched */
        *(i == ACL_NRULES - 1 ? last : other) += acl_hits[i];
}
