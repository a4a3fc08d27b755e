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

void snap_restore(const struct snap *sn)
{
    for (unsigned i = 0; i < sn->n; i++)
        memcpy(sn->r[i].at, sn->r[i].copy, sn->r[i].len);
}

bool snap_bytes_equal(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;
    uint8_t diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= x[i] ^ y[i];
    return diff == 0;
}
