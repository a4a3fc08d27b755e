/* SPDX-License-Identifier: MIT */
/* net/route/route_text.h: splitting the untrusted text of a routes file into
 * lines, for route4_load_text and route6_load_text. */
#ifndef NET_ROUTE_TEXT_H
#define NET_ROUTE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

static inline bool route_text_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Take the next line from *p (up to end): *tok and *tok_len get the line
 * without its '#' comment and surrounding blanks (possibly empty). False
 * when the text is used up. */
static inline bool route_text_line(const char **p, const char *end, const char **tok,
                                   size_t *tok_len)
{
    const char *s = *p;
    if (s >= end)
        return false;
    const char *e = s;
    while (e < end && *e != '\n')
        e++;
    *p = e < end ? e + 1 : e;
    const char *hash = s;
    while (hash < e && *hash != '#')
        hash++;
    e = hash;
    while (s < e && route_text_space(*s))
        s++;
    while (e > s && route_text_space(e[-1]))
        e--;
    *tok = s;
    *tok_len = (size_t)(e - s);
    return true;
}

#endif
