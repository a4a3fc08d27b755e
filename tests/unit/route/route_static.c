/* SPDX-License-Identifier: MIT */
/* tests/unit/route/route_static.c: the static routes' list
 * (net/route/route_static.h): exact and longest matches in both families,
 * replacement, removal, refusals, growth and every byte given back. */
#include "net/route/route_static.h"
#include "tests/support/route_alloc.h"
#include "tests/unit/check.h"

static const uint8_t v4_10[4] = {10, 0, 0, 0}, v4_10_1[4] = {10, 1, 0, 0}, gw_a[4] = {192, 168, 1, 2},
                     gw_b[4] = {192, 168, 1, 3};

TEST(route_static_match)
{
    struct test_alloc ta = {.fail_after = -1};
    struct route_cfg cfg = test_route_cfg(&ta);
    struct route_statics s;
    route_statics_init(&s, &cfg.alloc);
    CHECK_EQ(route_statics_set(&s, false, v4_10, 8, gw_a), ROUTE_OK);
    CHECK_EQ(route_statics_set(&s, false, v4_10_1, 16, gw_b), ROUTE_OK);
    const uint8_t in_1[4] = {10, 1, 2, 3}, in_2[4] = {10, 2, 0, 1}, out[4] = {11, 0, 0, 1};
    const struct route_static *m = route_statics_match(&s, false, in_1);
    CHECK(m && m->len == 16 && memcmp(m->gw, gw_b, 4) == 0);
    m = route_statics_match(&s, false, in_2);
    CHECK(m && m->len == 8 && memcmp(m->gw, gw_a, 4) == 0);
    CHECK(route_statics_match(&s, false, out) == NULL);
    CHECK(route_statics_find(&s, false, v4_10, 8) != NULL);
    CHECK(route_statics_find(&s, false, v4_10, 9) == NULL);
    const uint8_t v6_10[16] = {10};
    CHECK(route_statics_find(&s, true, v6_10, 8) == NULL); /* the other family's */
    /* a change of gateway replaces, not adds */
    CHECK_EQ(route_statics_set(&s, false, v4_10, 8, gw_b), ROUTE_OK);
    CHECK_EQ(s.n, 2);
    CHECK(memcmp(route_statics_match(&s, false, in_2)->gw, gw_b, 4) == 0);
    /* the /16 goes: 10.1.2.3 falls back to the /8 */
    CHECK_EQ(route_statics_unset(&s, false, v4_10_1, 16), ROUTE_OK);
    CHECK_EQ(route_statics_unset(&s, false, v4_10_1, 16), ROUTE_ENOENT);
    CHECK_EQ(route_statics_match(&s, false, in_1)->len, 8);
    /* host bits, lengths past the family's */
    CHECK_EQ(route_statics_set(&s, false, in_1, 16, gw_a), ROUTE_EINVAL);
    CHECK_EQ(route_statics_set(&s, false, v4_10, 33, gw_a), ROUTE_EINVAL);
    /* a default route holds everything */
    const uint8_t zero[16] = {0};
    CHECK_EQ(route_statics_set(&s, false, zero, 0, gw_a), ROUTE_OK);
    CHECK_EQ(route_statics_match(&s, false, out)->len, 0);
    route_statics_fini(&s);
    CHECK_EQ(ta.live_bytes, 0);
}

TEST(route_static_v6_and_growth)
{
    struct test_alloc ta = {.fail_after = -1};
    struct route_cfg cfg = test_route_cfg(&ta);
    struct route_statics s;
    route_statics_init(&s, &cfg.alloc);
    uint8_t p[16] = {0x20, 0x01, 0x0d, 0xb8}, gw[16] = {0xfe, 0x80, [15] = 1};
    /* 2001:db8:N::/48 for N < 100: the list grows past its first size */
    for (unsigned n = 0; n < 100; n++) {
        p[4] = (uint8_t)(n >> 8);
        p[5] = (uint8_t)n;
        gw[14] = (uint8_t)n;
        CHECK_EQ(route_statics_set(&s, true, p, 48, gw), ROUTE_OK);
    }
    CHECK_EQ(s.n, 100);
    uint8_t a[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 42, 0, 0, [15] = 7};
    const struct route_static *m = route_statics_match(&s, true, a);
    CHECK(m && m->len == 48 && m->gw[0][14] == 42 && m->ngw == 1);
    p[5] = 0;
    CHECK_EQ(route_statics_set(&s, true, p, 32, gw), ROUTE_OK); /* 2001:db8::/32 under them */
    a[5] = 200;
    CHECK_EQ(route_statics_match(&s, true, a)->len, 32);
    CHECK(route_statics_match(&s, false, a) == NULL); /* no IPv4 route */
    /* no memory: the list stays as it was */
    struct route_statics f;
    ta.fail_after = ta.calls;
    route_statics_init(&f, &cfg.alloc);
    CHECK_EQ(route_statics_set(&f, true, p, 32, gw), ROUTE_ENOMEM);
    CHECK_EQ(f.n, 0);
    route_statics_fini(&f);
    route_statics_fini(&s);
    CHECK_EQ(ta.live_bytes, 0);
}

/* A static route over several gateways keeps them all, in order. */
TEST(route_statics_keep_every_gateway)
{
    struct test_alloc ta = {.fail_after = -1};
    struct route_cfg cfg = test_route_cfg(&ta);
    struct route_statics s;
    route_statics_init(&s, &cfg.alloc);
    const uint8_t net[4] = {10, 9, 0, 0}, gws[3][4] = {{10, 0, 1, 2}, {10, 0, 1, 3}, {10, 0, 1, 4}};
    CHECK_EQ(route_statics_set_gws(&s, false, net, 16, gws[0], 3), ROUTE_OK);
    const uint8_t in[4] = {10, 9, 7, 7};
    const struct route_static *m = route_statics_match(&s, false, in);
    CHECK(m && m->ngw == 3 && memcmp(m->gw[2], gws[2], 4) == 0 && memcmp(m->gw[0], gws[0], 4) == 0);
    CHECK_EQ(route_statics_set_gws(&s, false, net, 16, gws[1], 1), ROUTE_OK); /* down to one */
    CHECK(m->ngw == 1 && memcmp(m->gw[0], gws[1], 4) == 0 && m->gw[1][0] == 0);
    CHECK_EQ(route_statics_set_gws(&s, false, net, 16, gws[0], 0), ROUTE_EINVAL);
    CHECK_EQ(route_statics_set_gws(&s, false, net, 16, gws[0], ROUTE_STATIC_GWS + 1), ROUTE_EINVAL);
    route_statics_fini(&s);
    CHECK_EQ(ta.live_bytes, 0);
}
