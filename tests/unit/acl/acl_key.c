/* SPDX-License-Identifier: MIT */
/* tests/unit/acl/acl_key.c: access-list keys read from wire bytes (ports,
 * ICMP, fragments, truncation, IPv6 extension headers), each parse on an
 * exact-size copy for ASan. */
#include "tests/unit/acl/acl_util.h"

/* ---- keys from the wire ------------------------------------------------- */

TEST(acl_key4_from_the_wire)
{
    uint8_t b[128], l4[64];
    struct acl_key k;
    const uint8_t src[4] = {192, 0, 2, 10}, dst[4] = {198, 51, 100, 20};

    uint32_t n = v4(b, 5, 6, 0, l4, l4hdr(l4, 6, 40000, 443));
    memset(&k, 0xee, sizeof k);
    key4(&k, b, n);
    CHECK(k.family == ACL_V4 && k.proto == 6 && k.has_ports && k.sport == 40000 && k.dport == 443);
    CHECK(!memcmp(k.src, src, 4) && !memcmp(k.dst, dst, 4));

    n = v4(b, 5, 17, 0, l4, l4hdr(l4, 17, 5353, 53));
    key4(&k, b, n);
    CHECK(k.family == ACL_V4 && k.proto == 17 && k.has_ports && k.sport == 5353 && k.dport == 53);

    /* Options before UDP: the ports are past them. */
    n = v4(b, 15, 17, 0, l4, l4hdr(l4, 17, 1, 65535));
    key4(&k, b, n);
    CHECK(k.proto == 17 && k.has_ports && k.sport == 1 && k.dport == 65535);

    /* ICMP, other protocols: no ports, whatever follows. */
    memset(l4, 0x55, 8);
    l4[0] = 8;
    n = v4(b, 5, 1, 0, l4, 8);
    key4(&k, b, n);
    CHECK(k.family == ACL_V4 && k.proto == 1 && !k.has_ports);
    n = v4(b, 5, 47, 0, l4, 8);
    key4(&k, b, n);
    CHECK(k.proto == 47 && !k.has_ports);

    /* Fragments: the first (MF, offset 0) has the ports, a later one
     * (with MF or not) has none. */
    n = v4(b, 5, 17, 0x2000, l4, l4hdr(l4, 17, 1000, 2000));
    key4(&k, b, n);
    CHECK(k.has_ports && k.sport == 1000 && k.dport == 2000);
    n = v4(b, 5, 17, 0x4000, l4, l4hdr(l4, 17, 1000, 2000)); /* DF alone: not a fragment */
    key4(&k, b, n);
    CHECK(k.has_ports && k.sport == 1000);
    n = v4(b, 5, 17, 0x2000 | 185, l4, l4hdr(l4, 17, 1000, 2000));
    key4(&k, b, n);
    CHECK(k.proto == 17 && !k.has_ports);
    n = v4(b, 5, 6, 1, l4, l4hdr(l4, 6, 1000, 2000)); /* last fragment, offset 8 bytes */
    key4(&k, b, n);
    CHECK(k.proto == 6 && !k.has_ports);
    CHECK(!memcmp(k.src, src, 4) && !memcmp(k.dst, dst, 4));

    /* Truncated: nothing past the header, or less than the two ports. */
    n = v4(b, 5, 6, 0, l4, 0);
    key4(&k, b, n);
    CHECK(k.proto == 6 && !k.has_ports);
    n = v4(b, 5, 17, 0, l4, l4hdr(l4, 17, 7, 9));
    key4(&k, b, 20 + 3);
    CHECK(k.proto == 17 && !k.has_ports);
    n = v4(b, 6, 6, 0, l4, l4hdr(l4, 6, 7, 9));
    key4(&k, b, 24 + 2);
    CHECK(!k.has_ports);
    CHECK(!memcmp(k.src, src, 4) && !memcmp(k.dst, dst, 4));
}

TEST(acl_key6_from_the_wire)
{
    uint8_t b[512];
    struct acl_key k;
    const uint8_t src[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x0a}, dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 0x14};

    uint32_t n = v6(b, 6, 20);
    n += l4hdr(b + n, 6, 50000, 22);
    memset(&k, 0xee, sizeof k);
    key6(&k, b, n);
    CHECK(k.family == ACL_V6 && k.proto == 6 && k.has_ports && k.sport == 50000 && k.dport == 22);
    CHECK(!memcmp(k.src, src, 16) && !memcmp(k.dst, dst, 16));

    n = v6(b, 17, 8);
    n += l4hdr(b + n, 17, 546, 547);
    key6(&k, b, n);
    CHECK(k.proto == 17 && k.has_ports && k.sport == 546 && k.dport == 547);

    n = v6(b, 58, 8);
    memset(b + n, 0, 8);
    b[n] = 128;
    n += 8;
    key6(&k, b, n);
    CHECK(k.family == ACL_V6 && k.proto == 58 && !k.has_ports);

    /* Hop-by-hop, then destination options (16 bytes), then TCP. */
    n = v6(b, 0, 8 + 16 + 20);
    n += ext(b + n, 60, 0);
    n += ext(b + n, 6, 1);
    n += l4hdr(b + n, 6, 1234, 80);
    key6(&k, b, n);
    CHECK(k.proto == 6 && k.has_ports && k.sport == 1234 && k.dport == 80);
    CHECK(!memcmp(k.src, src, 16) && !memcmp(k.dst, dst, 16));

    /* Hop-by-hop, routing, destination options, then UDP. */
    n = v6(b, 0, 8 + 24 + 8 + 8);
    n += ext(b + n, 43, 0);
    n += ext(b + n, 60, 2);
    n += ext(b + n, 17, 0);
    n += l4hdr(b + n, 17, 9, 10);
    key6(&k, b, n);
    CHECK(k.proto == 17 && k.has_ports && k.sport == 9 && k.dport == 10);

    /* A fragment header: offset 0 (M set) has the ports, a later one none. */
    n = v6(b, 44, 8 + 8);
    n += frag6(b + n, 17, 0, true);
    n += l4hdr(b + n, 17, 4000, 5000);
    key6(&k, b, n);
    CHECK(k.proto == 17 && k.has_ports && k.sport == 4000 && k.dport == 5000);
    n = v6(b, 44, 8 + 8);
    n += frag6(b + n, 17, 0, false); /* an atomic fragment (RFC 6946) */
    n += l4hdr(b + n, 17, 4000, 5000);
    key6(&k, b, n);
    CHECK(k.proto == 17 && k.has_ports && k.sport == 4000);
    n = v6(b, 44, 8 + 8);
    n += frag6(b + n, 17, 181, true);
    n += l4hdr(b + n, 17, 4000, 5000);
    key6(&k, b, n);
    CHECK(k.proto == 17 && !k.has_ports);
    n = v6(b, 0, 8 + 8 + 20);
    n += ext(b + n, 44, 0);
    n += frag6(b + n, 6, 1, false);
    n += l4hdr(b + n, 6, 4000, 5000);
    key6(&k, b, n);
    CHECK(k.proto == 6 && !k.has_ports);

    /* Truncated: the TCP header cut before its ports. */
    n = v6(b, 0, 8 + 20);
    n += ext(b + n, 6, 0);
    n += l4hdr(b + n, 6, 1234, 80);
    key6(&k, b, 48 + 3);
    CHECK(k.proto == 6 && !k.has_ports);
    key6(&k, b, 48);
    CHECK(k.proto == 6 && !k.has_ports);
    key6(&k, b, 40);
    CHECK(k.family == ACL_V6 && !k.has_ports && !memcmp(k.src, src, 16));
}

/* A walk past the 8 extension headers it takes, or into one cut short,
 * never reads past len nor claims ports it did not see. */
TEST(acl_key6_long_or_cut_chains)
{
    uint8_t b[512];
    struct acl_key k;
    for (uint32_t hdrs = 1; hdrs <= 12; hdrs++) {
        uint32_t n = v6(b, 60, 0);
        for (uint32_t i = 0; i < hdrs; i++)
            n += ext(b + n, i + 1 < hdrs ? 60 : 17, 0);
        n += l4hdr(b + n, 17, 111, 222);
        put16(b + 4, (uint16_t)(n - 40));
        for (uint32_t cut = 40; cut <= n; cut++) {
            key6(&k, b, cut); /* exactly cut bytes: ASan sees a read past */
            CHECK(k.family == ACL_V6);
            if (k.has_ports) {
                CHECK(cut >= n - 8 + 4 && k.proto == 17 && k.sport == 111 && k.dport == 222);
                CHECK(hdrs <= 8);
            }
        }
        key6(&k, b, n);
        CHECK_EQ(k.has_ports, hdrs <= 8);
    }
}
