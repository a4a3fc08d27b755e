/* SPDX-License-Identifier: MIT */
/* tests/unit/acl/acl_rule.c: access-list rule words (net/acl/acl.h), good
 * and bad, host bits, and their format read back the same. */
#include "tests/unit/acl/acl_util.h"

/* ---- rule words --------------------------------------------------------- */

TEST(acl_rule_parse_good_lines)
{
    struct acl_rule r;
    CHECK_EQ(parse(&r, "permit"), 0);
    struct acl_rule want = any_rule(true);
    CHECK(rule_eq(&r, &want));
    CHECK_EQ(parse(&r, "deny"), 0);
    want = any_rule(false);
    CHECK(rule_eq(&r, &want));

    CHECK_EQ(parse(&r, "permit proto tcp"), 0);
    CHECK(r.permit && r.proto == 6 && r.family == (ACL_V4 | ACL_V6) && r.src_len == 0 && r.dst_len == 0);
    CHECK_EQ(parse(&r, "deny proto udp"), 0);
    CHECK(!r.permit && r.proto == 17 && r.family == (ACL_V4 | ACL_V6));
    CHECK_EQ(parse(&r, "permit proto icmp"), 0);
    CHECK(r.proto == 1 && r.family == ACL_V4);
    CHECK_EQ(parse(&r, "permit proto icmp6"), 0);
    CHECK(r.proto == 58 && r.family == ACL_V6);
    CHECK_EQ(parse(&r, "deny proto 47"), 0);
    CHECK(r.proto == 47 && r.family == (ACL_V4 | ACL_V6));
    CHECK_EQ(parse(&r, "deny proto 0"), 0);
    CHECK(r.proto == 0);
    CHECK_EQ(parse(&r, "deny proto 255"), 0);
    CHECK(r.proto == 255);

    CHECK_EQ(parse(&r, "deny src 10.0.0.0/8"), 0);
    CHECK(r.family == ACL_V4 && r.src_len == 8 && r.src[0] == 10 && r.dst_len == 0 && r.proto == -1);
    CHECK(r.sport_lo == 0 && r.sport_hi == 65535 && r.dport_lo == 0 && r.dport_hi == 65535);
    CHECK_EQ(parse(&r, "permit dst 192.0.2.7"), 0); /* one host */
    CHECK(r.family == ACL_V4 && r.dst_len == 32 && r.src_len == 0);
    CHECK(r.dst[0] == 192 && r.dst[1] == 0 && r.dst[2] == 2 && r.dst[3] == 7);
    CHECK_EQ(parse(&r, "permit src 0.0.0.0/0"), 0);
    CHECK(r.src_len == 0 && r.family == ACL_V4); /* a /0 is "any IPv4" */
    CHECK_EQ(parse(&r, "permit src 198.51.100.0/24 dst 203.0.113.128/25"), 0);
    CHECK(r.family == ACL_V4 && r.src_len == 24 && r.dst_len == 25 && r.dst[3] == 128);

    CHECK_EQ(parse(&r, "permit src 2001:db8::/32"), 0);
    CHECK(r.family == ACL_V6 && r.src_len == 32 && r.src[0] == 0x20 && r.src[1] == 0x01 && r.src[2] == 0x0d &&
          r.src[3] == 0xb8);
    CHECK_EQ(parse(&r, "deny dst 2001:db8::1"), 0);
    CHECK(r.family == ACL_V6 && r.dst_len == 128 && r.dst[15] == 1);
    CHECK_EQ(parse(&r, "permit src fe80::/10 dst ff02::1"), 0);
    CHECK(r.family == ACL_V6 && r.src_len == 10 && r.dst_len == 128 && r.src[0] == 0xfe && r.src[1] == 0x80);
    CHECK_EQ(parse(&r, "permit proto icmp6 src 2001:db8::/48"), 0);
    CHECK(r.family == ACL_V6 && r.proto == 58);
    CHECK_EQ(parse(&r, "permit proto icmp dst 10.0.0.0/8"), 0);
    CHECK(r.family == ACL_V4 && r.proto == 1);

    CHECK_EQ(parse(&r, "permit proto tcp dport 80"), 0);
    CHECK(r.proto == 6 && r.dport_lo == 80 && r.dport_hi == 80 && r.sport_lo == 0 && r.sport_hi == 65535);
    CHECK_EQ(parse(&r, "permit proto udp sport 1024-65535 dport 53"), 0);
    CHECK(r.proto == 17 && r.sport_lo == 1024 && r.sport_hi == 65535 && r.dport_lo == 53 && r.dport_hi == 53);
    CHECK(r.family == (ACL_V4 | ACL_V6));
    CHECK_EQ(parse(&r, "deny proto tcp src 10.1.2.0/24 dst 10.9.0.0/16 sport 0-1023 dport 135-139"), 0);
    CHECK(!r.permit && r.family == ACL_V4 && r.proto == 6 && r.src_len == 24 && r.dst_len == 16);
    CHECK(r.sport_lo == 0 && r.sport_hi == 1023 && r.dport_lo == 135 && r.dport_hi == 139);
    CHECK_EQ(parse(&r, "permit proto tcp dst 2001:db8::80 dport 443"), 0);
    CHECK(r.family == ACL_V6 && r.dport_lo == 443);
    CHECK_EQ(parse(&r, "permit proto udp dport 0"), 0);
    CHECK(r.dport_lo == 0 && r.dport_hi == 0);
    CHECK_EQ(parse(&r, "permit proto udp dport 65535"), 0);
    CHECK(r.dport_lo == 65535 && r.dport_hi == 65535);
    CHECK_EQ(parse(&r, "permit proto tcp sport 7-7"), 0);
    CHECK(r.sport_lo == 7 && r.sport_hi == 7);
    CHECK_EQ(parse(&r, "permit proto tcp sport 0-65535"), 0); /* the whole range: any */
    CHECK(r.sport_lo == 0 && r.sport_hi == 65535);
    CHECK_EQ(parse(&r, "permit proto 6 dport 22"), 0); /* tcp by number */
    CHECK(r.proto == 6 && r.dport_lo == 22);
    CHECK_EQ(parse(&r, "permit proto 17 sport 53"), 0);
    CHECK(r.proto == 17 && r.sport_lo == 53);
}

TEST(acl_rule_parse_bad_lines)
{
    const char *bad[] = {
        "",                                           /* no action */
        "allow",                                      /* unknown action */
        "permit frob 1",                              /* unknown word */
        "permit permit",                              /* the action twice */
        "permit dport 80",                            /* ports without tcp or udp */
        "permit sport 1-2",
        "permit proto icmp dport 80",
        "permit proto 47 sport 1",
        "permit proto icmp6 sport 1",
        "permit src 10.0.0.0/8 dst 2001:db8::/32",    /* two families */
        "permit src 2001:db8::/32 dst 10.0.0.1",
        "permit proto icmp src 2001:db8::/32",        /* icmp is IPv4's */
        "permit proto icmp dst 2001:db8::1",
        "permit proto icmp6 dst 10.0.0.1",            /* icmp6 is IPv6's */
        "permit proto icmp6 src 10.0.0.0/8",
        "permit proto tcp dport 90-80",               /* lo > hi */
        "permit proto tcp sport 2-1",
        "permit proto tcp dport 65536",               /* past 65535 */
        "permit proto udp sport 1-65536",
        "permit proto udp dport 99999999999",
        "permit proto tcp dport -80",
        "permit proto tcp dport 80-",
        "permit proto tcp dport 8o",
        "permit proto tcp dport 1--2",
        "permit proto tcp proto udp",                 /* a word twice */
        "permit proto tcp proto tcp",
        "permit src 10.0.0.0/8 src 11.0.0.0/8",
        "permit dst 10.0.0.1 dst 10.0.0.1",
        "permit proto tcp dport 1 dport 2",
        "permit proto tcp sport 1 sport 1",
        "permit src",                                 /* a word without its value */
        "permit dst",
        "permit proto",
        "permit proto tcp dport",
        "permit proto udp sport",
        "permit proto xyz",                           /* bad values */
        "permit proto 256",
        "permit proto -1",
        "permit src 10.0.0",
        "permit src 10.0.0.0/33",
        "permit src 10.0.0.0/",
        "permit src 10.0.0.256",
        "permit src 2001:db8::/129",
        "permit dst 2001:db8:::1",
        "permit dst any",
        "deny proto tcp src 10.0.0.0/8 dst 2001:db8::1 dport 1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct acl_rule r;
        int rc = parse(&r, bad[i]);
        if (rc != -1)
            fprintf(stderr, "  \"%s\" taken\n", bad[i]);
        CHECK_EQ(rc, -1);
        if (rc == -1 && last_err[0] == 0)
            fprintf(stderr, "  \"%s\": no message\n", bad[i]);
        CHECK(rc != -1 || last_err[0] != 0);
    }
}

/* Host bits past the length: the rule stores the prefix masked (or the
 * line is refused). Either way what is stored never has them. */
TEST(acl_rule_parse_host_bits)
{
    struct acl_rule r;
    static const struct {
        const char *line;
        bool dst;
    } lines[] = {{"permit src 10.1.2.3/8", false},         {"permit dst 192.168.255.255/17", true},
                 {"permit src 2001:db8::1/32", false},     {"permit dst 2001:db8:ffff:ffff::/33", true},
                 {"permit src 1.2.3.4/0", false},          {"permit proto tcp dst ::1/127 dport 9", true}};
    int taken = 0;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        if (parse(&r, lines[i].line) != 0)
            continue;
        taken++;
        const uint8_t *a = lines[i].dst ? r.dst : r.src;
        uint8_t len = lines[i].dst ? r.dst_len : r.src_len;
        for (uint32_t bit = len; bit < 128; bit++)
            if ((a[bit / 8] >> (7 - bit % 8)) & 1) {
                fprintf(stderr, "  \"%s\": bit %u set past /%u\n", lines[i].line, bit, len);
                CHECK(0);
                break;
            }
    }
    /* The two behaviours must not mix: all taken or none. */
    CHECK(taken == 0 || taken == (int)(sizeof lines / sizeof lines[0]));
    if (taken) {
        CHECK_EQ(parse(&r, "permit src 10.1.2.3/8"), 0);
        struct acl_rule m;
        CHECK_EQ(parse(&m, "permit src 10.0.0.0/8"), 0);
        CHECK(rule_eq(&r, &m));
        CHECK_EQ(parse(&r, "permit dst 2001:db8:ffff:ffff::/33"), 0);
        CHECK_EQ(parse(&m, "permit dst 2001:db8:8000::/33"), 0);
        CHECK(rule_eq(&r, &m));
    }
    /* The unused bytes of an IPv4 rule's addresses are zero too. */
    CHECK_EQ(parse(&r, "permit src 10.1.2.3 dst 10.4.5.6"), 0);
    for (int i = 4; i < 16; i++)
        CHECK(r.src[i] == 0 && r.dst[i] == 0);
}

/* Lines that parse, format and parse back to the same rule; random rules
 * through format and parse come back the same. */
TEST(acl_rule_format_round_trip)
{
    const char *lines[] = {
        "permit",
        "deny",
        "permit proto tcp",
        "deny proto udp",
        "permit proto icmp",
        "permit proto icmp6",
        "deny proto 47",
        "deny proto 0",
        "deny src 10.0.0.0/8",
        "permit dst 192.0.2.7",
        "permit src 198.51.100.0/24 dst 203.0.113.128/25",
        "permit src 2001:db8::/32",
        "deny dst 2001:db8::1",
        "permit src fe80::/10 dst ff02::1",
        "permit proto tcp dport 80",
        "permit proto udp sport 1024-65535 dport 53",
        "deny proto tcp src 10.1.2.0/24 dst 10.9.0.0/16 sport 0-1023 dport 135-139",
        "permit proto tcp dst 2001:db8::80 dport 443",
        "permit proto udp dport 0",
        "permit proto udp dport 65535",
        "permit proto icmp src 0.0.0.0/1",
        "permit proto icmp6 dst ::/1",
        "permit src 255.255.255.255 dst 0.0.0.0/32",
        "permit src ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff dst ::",
        "deny proto 6 src 2001:db8:0:1::/64 dport 1-2",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct acl_rule r, back;
        char buf[256];
        CHECK_EQ(parse(&r, lines[i]), 0);
        acl_rule_format(&r, buf, sizeof buf);
        int rc = parse(&back, buf);
        CHECK_EQ(rc, 0);
        if (rc != 0 || !rule_eq(&r, &back)) {
            fprintf(stderr, "  \"%s\" formats as \"%s\" (%s)\n", lines[i], buf, last_err);
            CHECK(0);
        }
    }
    rng_state = 11;
    for (int i = 0; i < 5000; i++) {
        struct acl_rule r = random_rule(), back;
        char buf[256];
        acl_rule_format(&r, buf, sizeof buf);
        int rc = parse(&back, buf);
        if (rc != 0 || !rule_eq(&r, &back)) {
            fprintf(stderr, "  \"%s\": %s\n", buf, rc ? last_err : "parsed back differently");
            rule_print("rule", &r);
            if (rc == 0)
                rule_print("back", &back);
            CHECK(0);
            break;
        }
    }
    /* A buffer too short is cut, terminated, and not overrun. */
    struct acl_rule r;
    CHECK_EQ(parse(&r, "deny proto tcp src 10.1.2.0/24 dst 10.9.0.0/16 sport 0-1023 dport 135-139"), 0);
    char small[12];
    memset(small, 'x', sizeof small);
    acl_rule_format(&r, small, 8);
    CHECK(memchr(small, 0, 8) != NULL);
    CHECK(small[8] == 'x' && small[11] == 'x');
}

/* What the words say of the family survives format and parse: ICMP by
 * number, and a /0 prefix, which says "this family, any address". */
TEST(acl_rule_format_keeps_the_family)
{
    const char *lines[] = {
        "permit proto 1",
        "deny proto 58",
        "permit proto 1 src 2001:db8::/32",
        "permit proto 58 dst 10.0.0.0/8",
        "permit src 0.0.0.0/0",
        "deny dst ::/0",
        "permit proto tcp src 0.0.0.0/0 dport 80",
        "deny proto udp src ::/0 dst ::/0",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct acl_rule r, back;
        char buf[256];
        if (parse(&r, lines[i]) != 0)
            continue; /* refusing the line is consistent too */
        acl_rule_format(&r, buf, sizeof buf);
        int rc = parse(&back, buf);
        if (rc != 0 || !rule_eq(&r, &back)) {
            fprintf(stderr, "  \"%s\" (family %u) formats as \"%s\": %s\n", lines[i], r.family, buf,
                    rc ? last_err : "");
            if (rc == 0)
                rule_print("parsed back", &back);
            CHECK(0);
        }
    }
}
