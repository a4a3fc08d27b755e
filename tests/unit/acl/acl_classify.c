/* SPDX-License-Identifier: MIT */
/* tests/unit/acl/acl_classify.c: the compiled classifier against a linear
 * first match, and acl_rule_matches against the model, on random lists of
 * overlapping rules and keys at their edges; the inline IPv4 classifier;
 * hit counting; acl_build's limits and its memory: an allocation refused
 * part way leaves nothing behind, and acl_free gives back exactly what was
 * taken. */
#include "tests/unit/acl/acl_util.h"

/* ---- the classifier ----------------------------------------------------- */

/* Build rules[0..n), check acl_rule_at and the rest, then nkeys random keys:
 * acl_classify equals the linear first match, acl_rule_matches the model,
 * acl_permits the rule's. Returns the failures. */
static int differential(const struct acl_rule *rules, uint32_t n, uint32_t nkeys, const char *what)
{
    char err[128] = "";
    struct acl *a = acl_build("diff", rules, n, &plain_mem, err, sizeof err);
    if (a == NULL) {
        fprintf(stderr, "  %s: acl_build: %s\n", what, err);
        return 1;
    }
    int bad = 0;
    if (acl_nrules(a) != n || strcmp(acl_name(a), "diff") != 0)
        bad++;
    for (uint32_t i = 0; i < n; i++)
        if (!rule_eq(acl_rule_at(a, i), &rules[i]))
            bad++;
    if (acl_permits(a, n))
        bad++;
    uint32_t *hits = calloc(n + 1, sizeof(uint32_t));
    for (uint32_t j = 0; j < nkeys && bad < 5; j++) {
        struct acl_key k = random_key(rules, n);
        uint32_t want = linear(rules, n, &k), got = acl_classify(a, &k);
        for (uint32_t i = 0; i < n; i++)
            if (acl_rule_matches(&rules[i], &k) != model_matches(&rules[i], &k)) {
                fprintf(stderr, "  %s: acl_rule_matches says %d\n", what, acl_rule_matches(&rules[i], &k));
                rule_print("rule", &rules[i]);
                key_print(&k);
                bad++;
                break;
            }
        if (got != want) {
            fprintf(stderr, "  %s: key %u: acl_classify %u, first match %u\n", what, j, got, want);
            key_print(&k);
            if (want < n)
                rule_print("first match", &rules[want]);
            if (got < n)
                rule_print("classify's", &rules[got]);
            bad++;
        }
        if (acl_permits(a, got) != (got < n && rules[got].permit))
            bad++;
        hits[want]++;
    }
    /* The keys must reach the rules, not only the implicit deny
     * (ACL_STATS=1 in the environment prints how many did). */
    uint32_t reached = 0;
    for (uint32_t i = 0; i < n; i++)
        reached += hits[i] != 0;
    if (getenv("ACL_STATS"))
        fprintf(stderr, "  %s: %u of %u rules decided\n", what, reached, n);
    if (n >= 5 && reached < (n < 50 ? 2 : n / 20)) {
        fprintf(stderr, "  %s: only %u of %u rules ever decided\n", what, reached, n);
        bad++;
    }
    free(hits);
    acl_free(a, &plain_mem);
    return bad;
}

/* rules[0..n) at random, the same for the same seed. */
static void random_list(struct acl_rule *rules, uint32_t n, uint64_t seed)
{
    rng_state = seed;
    for (uint32_t i = 0; i < n; i++)
        rules[i] = random_rule();
}

TEST(acl_classify_equals_first_match_on_random_lists)
{
    static const uint32_t sizes[] = {1, 5, 50, 64, 65, 200, 1000, ACL_RULES_MAX};
    static struct acl_rule rules[ACL_RULES_MAX];
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            uint32_t n = sizes[si];
            random_list(rules, n, seed * 1000003u + n);
            if (seed == 2) /* a catch-all part way: everything after it unreachable */
                rules[n / 2] = any_rule(true);
            if (seed == 3) /* one family only */
                for (uint32_t i = 0; i < n; i++)
                    while (rules[i].family != ACL_V6)
                        rules[i] = random_rule();
            char what[64];
            snprintf(what, sizeof what, "%u rules, seed %llu", n, (unsigned long long)seed);
            int bad = differential(rules, n, n >= 1000 ? 8000 : 20000, what);
            CHECK_EQ(bad, 0);
        }
}

/* Rules built to cut the fields at every kind of boundary: nested
 * prefixes of every length along one address, port ranges that touch. */
TEST(acl_classify_nested_prefixes_and_touching_ranges)
{
    static struct acl_rule rules[400];
    uint32_t n = 0;
    const uint8_t base4[4] = {10, 20, 30, 40};
    const uint8_t base6[16] = {0x20, 0x01, 0x0d, 0xb8, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4};
    for (int len = 32; len >= 1; len--) {
        struct acl_rule r = any_rule(len & 1);
        memcpy(r.src, base4, 4);
        r.src_len = (uint8_t)len;
        mask(r.src, (uint32_t)len, 4);
        r.family = ACL_V4;
        rules[n++] = r;
        memcpy(r.dst, r.src, 16);
        r.dst_len = r.src_len;
        r.src_len = 0;
        memset(r.src, 0, 16);
        rules[n++] = r;
    }
    for (int len = 128; len >= 1; len -= 3) {
        struct acl_rule r = any_rule(len & 1);
        memcpy(r.dst, base6, 16);
        r.dst_len = (uint8_t)len;
        mask(r.dst, (uint32_t)len, 16);
        r.family = ACL_V6;
        rules[n++] = r;
    }
    for (uint32_t lo = 0; lo < 65536 && n < 380; lo += 1000) {
        struct acl_rule r = any_rule(lo & 1000);
        r.proto = (lo / 1000) & 1 ? 6 : 17;
        r.dport_lo = (uint16_t)lo;
        r.dport_hi = (uint16_t)(lo + 999 > 65535 ? 65535 : lo + 999);
        r.sport_lo = (uint16_t)(lo / 2);
        r.sport_hi = 65535;
        rules[n++] = r;
    }
    rng_state = 77;
    CHECK_EQ(differential(rules, n, 50000, "nested"), 0);
    /* The same reversed: the widest first, the narrow ones unreachable. */
    for (uint32_t i = 0; i < n / 2; i++) {
        struct acl_rule t = rules[i];
        rules[i] = rules[n - 1 - i];
        rules[n - 1 - i] = t;
    }
    CHECK_EQ(differential(rules, n, 50000, "nested, reversed"), 0);
}

/* Keys read from wire bytes decide as the rules say. */
TEST(acl_classify_wire_datagrams)
{
    const char *lines[] = {
        "deny src 192.0.2.0/24 proto tcp dport 23",
        "permit proto tcp dport 443",
        "deny proto udp dst 198.51.100.0/24 dport 5000-5999",
        "permit proto icmp",
        "permit proto icmp6",
        "permit proto udp src 2001:db8::/32 sport 4000",
        "deny proto udp",
    };
    struct acl_rule rules[8];
    uint32_t n = 0;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        CHECK_EQ(parse(&rules[n++], lines[i]), 0);
    char err[128];
    struct acl *a = acl_build("edge", rules, n, &plain_mem, err, sizeof err);
    CHECK(a != NULL);
    if (a == NULL)
        return;
    uint8_t b[256], l4[64];
    struct acl_key k;
    key4(&k, b, v4(b, 5, 6, 0, l4, l4hdr(l4, 6, 1000, 23)));
    CHECK_EQ(acl_classify(a, &k), 0);
    key4(&k, b, v4(b, 5, 6, 0, l4, l4hdr(l4, 6, 1000, 443)));
    CHECK_EQ(acl_classify(a, &k), 1);
    CHECK(acl_permits(a, 1));
    key4(&k, b, v4(b, 5, 6, 0x2000 | 3, l4, l4hdr(l4, 6, 1000, 443))); /* a later fragment: no ports */
    CHECK_EQ(acl_classify(a, &k), n);
    key4(&k, b, v4(b, 5, 17, 0, l4, l4hdr(l4, 17, 1, 5999)));
    CHECK_EQ(acl_classify(a, &k), 2);
    key4(&k, b, v4(b, 5, 17, 0, l4, l4hdr(l4, 17, 1, 6000)));
    CHECK_EQ(acl_classify(a, &k), 6);
    CHECK(!acl_permits(a, 6));
    key4(&k, b, v4(b, 5, 1, 0, l4, 8));
    CHECK_EQ(acl_classify(a, &k), 3);
    uint32_t m = v6(b, 58, 8);
    memset(b + m, 0, 8);
    key6(&k, b, m + 8);
    CHECK_EQ(acl_classify(a, &k), 4);
    m = v6(b, 0, 8 + 8 + 8);
    m += ext(b + m, 44, 0);
    m += frag6(b + m, 17, 0, true);
    m += l4hdr(b + m, 17, 4000, 53);
    key6(&k, b, m);
    CHECK_EQ(acl_classify(a, &k), 5);
    acl_free(a, &plain_mem);
}

/* The IPv4 datagram of key k (family ACL_V4) on the wire: a plain
 * 20-byte header, then its ports when it has them, else (for TCP or UDP)
 * a datagram too short for them; 24 bytes always readable after b. */
static uint32_t wire4(uint8_t *b, const struct acl_key *k)
{
    memset(b, 0, 64);
    uint32_t len = k->has_ports ? 28 : 20 + rnd_below(4);
    b[0] = 0x45;
    put16(b + 2, (uint16_t)len);
    b[8] = 64;
    b[9] = k->proto;
    memcpy(b + 12, k->src, 4);
    memcpy(b + 16, k->dst, 4);
    if (k->has_ports) {
        put16(b + 20, k->sport);
        put16(b + 22, k->dport);
    } else {
        for (uint32_t i = len; i < 24; i++)
            b[i] = (uint8_t)rnd(); /* what lies past a short datagram: not ports */
    }
    return len;
}

/* The inline IPv4 classifier (acl_fast4_bits, acl_use_count4) against the
 * linear first match on random lists of up to 63 rules: each datagram's
 * rule, and bursts of one rule and of many counted and decided as
 * acl_use_pass4 does one at a time. */
TEST(acl_fast4_equals_first_match)
{
    static const uint32_t sizes[] = {1, 7, 40, 63};
    static struct acl_rule rules[63];
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            uint32_t n = sizes[si];
            random_list(rules, n, seed * 7919u + n);
            char err[128];
            struct acl *a = acl_build("fast4", rules, n, &plain_mem, err, sizeof err);
            CHECK(a != NULL);
            if (a == NULL)
                continue;
            const struct acl_fast4 *t = acl_fast4(a);
            uint32_t n4 = 0, idx4[63]; /* bit j: the list's j-th IPv4 rule */
            for (uint32_t i = 0; i < n; i++)
                if (rules[i].family & ACL_V4)
                    idx4[n4++] = i;
            CHECK_EQ(t == NULL, n4 == 0);
            if (t == NULL) {
                acl_free(a, &plain_mem);
                continue;
            }
            uint64_t *hits = calloc(n + 1, 8), *want_hits = calloc(n + 1, 8);
            struct acl_use u = {a, hits}, w = {a, want_hits};
            static uint8_t b[64][64];
            uint64_t m[64];
            for (int burst = 0; burst < 200; burst++) {
                uint32_t len[64], cnt = 1 + rnd_below(64);
                bool same = burst & 1; /* every datagram the first: one rule throughout */
                uint64_t want_deny = 0;
                for (uint32_t i = 0; i < cnt; i++) {
                    struct acl_key k;
                    do
                        k = random_key(rules, n);
                    while (k.family != ACL_V4);
                    if (same && i > 0) {
                        memcpy(b[i], b[0], 64);
                        len[i] = len[0];
                    } else {
                        len[i] = wire4(b[i], &k);
                    }
                    struct acl_key wk;
                    acl_key4(&wk, b[i], len[i]);
                    uint32_t want = linear(rules, n, &wk);
                    m[i] = acl_fast4_bits(t, b[i]);
                    uint32_t bit = (uint32_t)__builtin_ctzll(m[i] | 1ull << 63);
                    CHECK_EQ(bit < 63 ? idx4[bit] : n, want);
                    CHECK_EQ(acl_classify4(a, b[i], len[i]), want);
                    want_deny |= (uint64_t)!acl_use_pass4(&w, b[i], len[i]) << i;
                }
                CHECK_EQ(acl_use_count4(&u, m, cnt), want_deny);
            }
            CHECK_EQ(memcmp(hits, want_hits, (n + 1) * 8), 0);
            free(hits);
            free(want_hits);
            acl_free(a, &plain_mem);
        }
}

/* An empty list denies everything (the implicit rule alone). */
TEST(acl_build_empty_list)
{
    char err[128] = "";
    struct acl *a = acl_build("none", NULL, 0, &plain_mem, err, sizeof err);
    if (a == NULL) { /* refusing it is fine too, with a message */
        CHECK(err[0] != 0);
        return;
    }
    CHECK_EQ(acl_nrules(a), 0);
    CHECK(!acl_permits(a, 0));
    rng_state = 5;
    struct acl_rule any = any_rule(true);
    for (int i = 0; i < 1000; i++) {
        struct acl_key k = random_key(&any, 1);
        CHECK_EQ(acl_classify(a, &k), 0);
    }
    acl_free(a, &plain_mem);
}

/* ---- counting ----------------------------------------------------------- */

TEST(acl_use_pass_counts_hits)
{
    struct acl_rule rules[3];
    CHECK_EQ(parse(&rules[0], "deny proto tcp dport 23"), 0);
    CHECK_EQ(parse(&rules[1], "permit proto tcp"), 0);
    CHECK_EQ(parse(&rules[2], "permit proto udp src 10.0.0.0/8"), 0);
    char err[128];
    struct acl *a = acl_build("count", rules, 3, &plain_mem, err, sizeof err);
    CHECK(a != NULL);
    if (a == NULL)
        return;
    uint64_t hits[4] = {0};
    struct acl_use u = {a, hits};
    uint8_t b[256], l4[64];
    uint32_t telnet = v4(b, 5, 6, 0, l4, l4hdr(l4, 6, 1000, 23));
    for (int i = 0; i < 3; i++)
        CHECK(!acl_use_pass4(&u, b, telnet));
    uint32_t web = v4(b, 5, 6, 0, l4, l4hdr(l4, 6, 1000, 80));
    for (int i = 0; i < 5; i++)
        CHECK(acl_use_pass4(&u, b, web));
    uint32_t udp = v4(b, 5, 17, 0, l4, l4hdr(l4, 17, 1000, 80)); /* from 192.0.2.10: none matches */
    for (int i = 0; i < 7; i++)
        CHECK(!acl_use_pass4(&u, b, udp));
    uint32_t tcp6 = v6(b, 6, 20);
    tcp6 += l4hdr(b + tcp6, 6, 5, 80);
    struct acl_key k6;
    acl_key6(&k6, b, tcp6);
    CHECK(acl_use_pass(&u, &k6));
    CHECK(hits[0] == 3 && hits[1] == 6 && hits[2] == 0 && hits[3] == 7);
    struct acl_key k;
    memset(&k, 0, sizeof k);
    k.family = ACL_V4;
    k.proto = 17;
    k.src[0] = 10;
    CHECK(acl_use_pass(&u, &k));
    CHECK_EQ(hits[2], 1);
    acl_free(a, &plain_mem);
}

/* ---- limits and memory -------------------------------------------------- */

TEST(acl_build_too_many_rules)
{
    static struct acl_rule rules[ACL_RULES_MAX + 1];
    for (uint32_t i = 0; i <= ACL_RULES_MAX; i++)
        rules[i] = any_rule(i & 1);
    struct mem_track t;
    struct acl_mem m = track_mem(&t);
    char err[128] = "";
    CHECK(acl_build("big", rules, ACL_RULES_MAX + 1, &m, err, sizeof err) == NULL);
    CHECK(err[0] != 0);
    CHECK_EQ(t.live_bytes, 0);
    CHECK(acl_build("huge", rules, UINT32_MAX, &m, err, sizeof err) == NULL);
    CHECK_EQ(t.live_bytes, 0);
    /* The most it takes builds. */
    struct acl *a = acl_build("max", rules, ACL_RULES_MAX, &m, err, sizeof err);
    CHECK(a != NULL);
    if (a) {
        CHECK_EQ(acl_nrules(a), ACL_RULES_MAX);
        acl_free(a, &m);
    }
    CHECK_EQ(t.live_bytes, 0);
    CHECK_EQ(t.bad_free, 0);
    track_done(&t);
}

/* A long name is cut, not overrun. */
TEST(acl_build_long_name)
{
    char name[ACL_NAME_MAX * 3], err[128];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = 0;
    struct acl_rule r = any_rule(true);
    struct acl *a = acl_build(name, &r, 1, &plain_mem, err, sizeof err);
    if (a == NULL) {
        CHECK(err[0] != 0);
        return;
    }
    CHECK(strlen(acl_name(a)) < ACL_NAME_MAX);
    CHECK(strncmp(acl_name(a), name, strlen(acl_name(a))) == 0);
    acl_free(a, &plain_mem);
}

/* Every allocation refused in turn (and all after it, or only that one):
 * NULL with a message and nothing left allocated. Then a build that
 * succeeds: acl_free gives back exactly the blocks acl_build took, with
 * their sizes, and acl_bytes is within them. */
TEST(acl_build_memory_exact)
{
    static struct acl_rule rules[300];
    rng_state = 99;
    for (uint32_t i = 0; i < 300; i++)
        rules[i] = random_rule();
    const uint32_t sizes[] = {1, 64, 65, 300};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        uint32_t n = sizes[si];
        struct mem_track t;
        struct acl_mem m = track_mem(&t);
        char err[128] = "";
        struct acl *a = acl_build("mem", rules, n, &m, err, sizeof err);
        CHECK(a != NULL);
        if (a == NULL) {
            track_done(&t);
            continue;
        }
        uint32_t calls = t.calls;
        size_t taken = t.alloc_bytes, kept = t.live_bytes; /* scratch already back */
        CHECK(calls >= 1);
        CHECK_EQ(t.misaligned, 0);
        CHECK(acl_bytes(a) > 0 && acl_bytes(a) <= kept && kept - acl_bytes(a) <= 4096);
        acl_free(a, &m);
        CHECK_EQ(t.live_bytes, 0);
        CHECK_EQ(t.freed_bytes, taken);
        CHECK_EQ(t.nblk, 0);
        CHECK_EQ(t.bad_free, 0);
        track_done(&t);
        /* The same list again takes the same. */
        m = track_mem(&t);
        a = acl_build("mem", rules, n, &m, err, sizeof err);
        CHECK(a != NULL && t.calls == calls && t.alloc_bytes == taken);
        if (a)
            acl_free(a, &m);
        CHECK_EQ(t.live_bytes, 0);
        track_done(&t);
        for (uint32_t fail = 0; fail < calls; fail++)
            for (int only = 0; only < 2; only++) {
                m = track_mem(&t);
                if (only)
                    t.fail_only = fail;
                else
                    t.fail_from = fail;
                err[0] = 0;
                a = acl_build("mem", rules, n, &m, err, sizeof err);
                CHECK(a == NULL);
                if (a)
                    acl_free(a, &m);
                CHECK(err[0] != 0);
                CHECK_EQ(t.refused >= 1, 1);
                CHECK_EQ(t.live_bytes, 0);
                CHECK_EQ(t.nblk, 0);
                CHECK_EQ(t.bad_free, 0);
                track_done(&t);
            }
    }
}
