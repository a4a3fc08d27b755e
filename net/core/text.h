/* SPDX-License-Identifier: MIT */
/* net/core/text.h: the little text net/'s parsers of configuration words
 * need (access lists, capture filters), with no libc to lean on. */
#ifndef NET_CORE_TEXT_H
#define NET_CORE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool net_str_eq(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

static inline size_t net_str_len(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

/* The decimal number that is all of s[0..n) (n > 0), if at most max. */
static inline bool net_decimal(const char *s, size_t n, uint32_t max, uint32_t *out)
{
    uint64_t v = 0;
    if (n == 0 || n > 10)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > max)
        return false;
    *out = (uint32_t)v;
    return true;
}

#endif
