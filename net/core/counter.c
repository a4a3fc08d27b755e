/* SPDX-License-Identifier: MIT */
/* net/core/counter.c: the name table of the stack's counters (net/core/counter.h). */
#include "counter.h"

#include <stdbool.h>

static const struct net_counter_desc table[] = {
#define NET_COUNTER_DESC(layer, field, name) {#layer, name, offsetof(struct net_counters, layer##_##field)},
    NET_COUNTERS(NET_COUNTER_DESC)
#undef NET_COUNTER_DESC
};

_Static_assert(sizeof(table) / sizeof(table[0]) * sizeof(uint64_t) == sizeof(struct net_counters),
               "one table row per counter");

const struct net_counter_desc *net_counter_at(size_t i)
{
    return i < sizeof(table) / sizeof(table[0]) ? &table[i] : NULL;
}

static bool str_eq(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

const struct net_counter_desc *net_counter_find(const char *name)
{
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (str_eq(table[i].name, name))
            return &table[i];
    return NULL;
}
