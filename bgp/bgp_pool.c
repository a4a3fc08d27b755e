/* SPDX-License-Identifier: MIT */
/* bgp/bgp_pool.c: pools of fixed-size objects for the RIB's routes and
 * paths, a full table's million of each: carved from 64 KiB chunks (no
 * allocator header or 16-byte rounding per object), freed ones kept on a
 * list for reuse, the chunks handed back at bgp_rib_fini. */
#include "bgp_rib_impl.h"

/* In the host tests, freed objects are poisoned so ASan still sees a use
 * after free inside a chunk; the kernel has no ASan. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BGP_POOL_ASAN 1
#endif
#endif
#ifdef BGP_POOL_ASAN
void __asan_poison_memory_region(void const volatile *addr, size_t size);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
#define POISON(p, n) __asan_poison_memory_region((p), (n))
#define UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define POOL_CHUNK 65536u
#define POOL_HDR 16u /* the chunk list's link, keeping objects 16-byte aligned */

void *bgp_pool_get(struct bgp_rib *r, struct bgp_pool *pl)
{
    uint8_t *o = pl->free;
    if (o) {
        UNPOISON(o, pl->size);
        pl->free = *(void **)o;
        __builtin_memset(o, 0, pl->size);
        return o;
    }
    if (!pl->bump || (size_t)(pl->end - pl->bump) < pl->size) {
        uint8_t *c = r->al.alloc(r->al.ctx, POOL_CHUNK);
        if (!c)
            return NULL;
        r->bytes += POOL_CHUNK;
        *(void **)c = pl->chunks;
        pl->chunks = c;
        pl->bump = c + POOL_HDR;
        pl->end = c + POOL_CHUNK;
        POISON(pl->bump, (size_t)(pl->end - pl->bump));
    }
    o = pl->bump; /* zeroed by alloc */
    pl->bump += pl->size;
    UNPOISON(o, pl->size);
    return o;
}

void bgp_pool_put(struct bgp_pool *pl, void *o)
{
    *(void **)o = pl->free;
    pl->free = o;
    POISON(o, pl->size);
}

void bgp_pool_fini(struct bgp_rib *r, struct bgp_pool *pl)
{
    for (uint8_t *c = pl->chunks, *next; c; c = next) {
        UNPOISON(c, POOL_CHUNK); /* the allocator may write in it */
        next = *(void **)c;
        r->al.free(r->al.ctx, c, POOL_CHUNK);
        r->bytes -= POOL_CHUNK;
    }
    pl->chunks = pl->free = NULL;
    pl->bump = pl->end = NULL;
}
