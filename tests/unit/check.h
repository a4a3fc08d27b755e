/* SPDX-License-Identifier: MIT */
/* tests/unit/check.h: the host unit-test framework.
 *
 * TEST(name) { ... } defines a test that registers itself; CHECK* record a
 * failure and go on; main.c runs every test (or those whose name contains
 * argv[1]) and prints "N passed, N failed". Tests build with ASan+UBSan. */
#ifndef TESTS_UNIT_CHECK_H
#define TESTS_UNIT_CHECK_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct unit_test {
    const char *name;
    void (*fn)(void);
    struct unit_test *next;
};

void unit_register(struct unit_test *t);
extern int unit_failures; /* failures in the running test */

#define TEST(name)                                                         \
    static void test_##name(void);                                         \
    static struct unit_test unit_##name = {#name, test_##name, 0};         \
    __attribute__((constructor)) static void unit_reg_##name(void)         \
    {                                                                      \
        unit_register(&unit_##name);                                       \
    }                                                                      \
    static void test_##name(void)

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__,       \
                    __LINE__, #cond);                                      \
            unit_failures++;                                               \
        }                                                                  \
    } while (0)

#define CHECK_EQ(a, b)                                                     \
    do {                                                                   \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);    \
        if (check_a_ != check_b_) {                                        \
            fprintf(stderr, "  %s:%d: %s == %lld, expected %s == %lld\n",  \
                    __FILE__, __LINE__, #a, check_a_, #b, check_b_);       \
            unit_failures++;                                               \
        }                                                                  \
    } while (0)

#define CHECK_STR(a, b)                                                    \
    do {                                                                   \
        const char *check_a_ = (a), *check_b_ = (b);                       \
        if (strcmp(check_a_, check_b_) != 0) {                             \
            fprintf(stderr, "  %s:%d: %s is \"%s\", expected \"%s\"\n",    \
                    __FILE__, __LINE__, #a, check_a_, check_b_);           \
            unit_failures++;                                               \
        }                                                                  \
    } while (0)

#endif
