/* SPDX-License-Identifier: MIT */
/* tests/unit/lib/fmt.c: lib/fmt.c against the host's snprintf. */
#include <stdint.h>
#include <stdio.h>

#include "lib/fmt.h"
#include "tests/unit/check.h"

#define SAME(...)                                                          \
    do {                                                                   \
        char ours_[128], libc_[128];                                       \
        int n1_ = fmt_snprintf(ours_, sizeof ours_, __VA_ARGS__);          \
        int n2_ = snprintf(libc_, sizeof libc_, __VA_ARGS__);              \
        CHECK_STR(ours_, libc_);                                           \
        CHECK_EQ(n1_, n2_);                                                \
    } while (0)

TEST(fmt_matches_libc)
{
    SAME("%d %i %u", 0, -1, 4000000000u);
    SAME("%5d|%-5d|%05d|%+d|% d", 42, 42, -42, 7, 7);
    SAME("%x %X %08x", 0xbeefu, 0xbeefu, 0x1234u);
    SAME("%lx %llu %lld", 0xffffffffffffffffUL, 18446744073709551615ULL, (long long)INT64_MIN);
    SAME("%zu %hhu %hd", (size_t)123456789, (unsigned char)300, (short)70000);
    SAME("%s|%10s|%-10s|%.3s|%.*s", "abc", "abc", "abc", "abcdef", 2, "xyz");
    SAME("%c%c %% %o", 'h', 'i', 8u);
    SAME("%.0d|%.5u|%8.3x", 0, 42u, 0xabu);
    SAME("%*d|%-*d", 6, 1, 6, 2);
}

TEST(fmt_truncates_and_terminates)
{
    char buf[6];
    CHECK_EQ(fmt_snprintf(buf, sizeof buf, "hello world"), 11);
    CHECK_STR(buf, "hello");
    CHECK_EQ(fmt_snprintf(buf, 0, "x"), 1);
    fmt_snprintf(buf, sizeof buf, "%s", (char *)NULL);
    CHECK_STR(buf, "(null");
}
