/* SPDX-License-Identifier: MIT */
/* tests/support/snapshot.c: see snapshot.h. */
#include "tests/support/snapshot.h"

#include <stdlib.h>
#include <string.h>

void snap_add(struct snap *sn, void *at, size_t len)
{
    if (sn->n == SNAP_REGIONS)
        abort();
    void *copy = malloc(len);
    if (copy == NULL)
        abort();
    memcpy(copy, at, len);
    sn->r[sn->n].at = at;
    sn->r[sn->n].copy = copy;
    sn->r[sn->n].len = len;
    sn->n++;
}

void snap_add_stack(struct snap *sn, struct net_stack *s)
{
    snap_add(sn, s, offsetof(struct net_stack, iface) + s->nports * sizeof(s->iface[0]));
    /* Not reassembly's 64 KiB scratch buffer: a datagram is copied into it
     * whole before it is read. */
    snap_add(sn, &s->reasm, offsetof(struct reasm, buf));
}

void snap_add_pool(struct snap *sn, struct pkt_pool *pool)
{
    if (pool->nfree != pool->total)
        abort(); /* a buffer out would be freed by one input and lost to the next */
    snap_add(sn, pool, sizeof(*pool));
    snap_add(sn, pool->stack, pool->total * sizeof(pool->stack[0]));
}

/* Unchecked by ASan: its memcpy checks the shadow of both regions, every
 * byte of every input's restore, for regions that are ours and valid. */
__attribute__((no_sanitize("address", "undefined"))) static void copy_unchecked(uint8_t *to, const uint8_t *from,
                                                                                size_t n)
{
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        __builtin_memcpy_inline(to + i, from + i, 64);
    for (; i < n; i++)
        to[i] = from[i];
}

void snap_restore(const struct snap *sn)
{
    for (unsigned i = 0; i < sn->n; i++)
        copy_unchecked(sn->r[i].at, sn->r[i].copy, sn->r[i].len);
}

/* Not instrumented by the sanitizers, so the loop vectorises: the buffers
 * are the checks' own, valid throughout. */
__attribute__((no_sanitize("address", "undefined"))) bool snap_bytes_equal(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;
    uint8_t diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= x[i] ^ y[i];
    return diff == 0;
}
