/* SPDX-License-Identifier: MIT */
/* net/route/route_fib_mem.c: the memory of the Poptrie (route_fib.h): roots and
 * their pools, runs from exact-size free stacks or a pool's tail (IPv4
 * records kept from crossing cache lines they need not cross), growing a
 * full pool behind a new root, and the retire and fresh logs that epochs
 * and failed updates need (route.h has the epoch rule). */
#include "core/env.h"
#include "route_fib.h"

static const size_t pool_elem[ROUTE_FIB_POOLS] = {sizeof(struct route_fib_node), 2, 0, 8};

static size_t elem_bytes(const struct route_fib *f, unsigned pool)
{
    return pool == ROUTE_FIB_BLOCKS ? (size_t)4 << (f->direct_bits - f->l1_bits) : pool_elem[pool];
}

static size_t direct_len(const struct route_fib *f)
{
    return (size_t)1 << (f->l1_bits ? f->l1_bits : f->direct_bits);
}

static void *fib_alloc(struct route_fib *f, size_t bytes)
{
    return f->alloc.alloc(f->alloc.ctx, bytes ? bytes : 1, 64);
}

static void fib_free(struct route_fib *f, void *p, size_t bytes)
{
    if (p)
        f->alloc.free(f->alloc.ctx, p, bytes ? bytes : 1);
}

/* The shared one-leaf records in front of r's record pool (route_fib.h). */
static size_t shared_bytes(const struct route_fib_root *r)
{
    return 16 * (size_t)r->shared;
}

size_t route_fib_root_bytes(const struct route_fib *f, const struct route_fib_root *r)
{
    size_t b = sizeof(*r) + 4 * direct_len(f) + shared_bytes(r);
    for (unsigned p = 0; p < ROUTE_FIB_POOLS; p++)
        b += (size_t)r->cap[p] * elem_bytes(f, p);
    return b;
}

void route_fib_root_free(struct route_fib *f, struct route_fib_root *r)
{
    fib_free(f, (void *)r->nodes, (size_t)r->cap[ROUTE_FIB_NODES] * elem_bytes(f, ROUTE_FIB_NODES));
    fib_free(f, (void *)r->leaves, (size_t)r->cap[ROUTE_FIB_LEAVES] * 2);
    fib_free(f, (void *)r->blocks, (size_t)r->cap[ROUTE_FIB_BLOCKS] * elem_bytes(f, ROUTE_FIB_BLOCKS));
    if (r->recs)
        fib_free(f, (char *)r->recs - shared_bytes(r), (size_t)r->cap[ROUTE_FIB_RECS] * 8 + shared_bytes(r));
    fib_free(f, (void *)r->direct, 4 * direct_len(f));
    fib_free(f, r, sizeof(*r));
}

/* A root with pools of the given sizes and an uninitialised direct array. */
struct route_fib_root *route_fib_root_new(struct route_fib *f, const uint32_t cap[])
{
    struct route_fib_root *r = fib_alloc(f, sizeof(*r));
    if (r == NULL)
        return NULL;
    net_memset(r, 0, sizeof(*r));
    for (unsigned p = 0; p < ROUTE_FIB_POOLS; p++)
        r->cap[p] = (p == ROUTE_FIB_BLOCKS && !f->l1_bits) || (p == ROUTE_FIB_RECS && !f->l1_records)
                        ? 0
                        : cap[p];
    r->direct = fib_alloc(f, 4 * direct_len(f));
    r->nodes = fib_alloc(f, (size_t)r->cap[ROUTE_FIB_NODES] * elem_bytes(f, ROUTE_FIB_NODES));
    r->leaves = fib_alloc(f, (size_t)r->cap[ROUTE_FIB_LEAVES] * 2);
    if (f->l1_records) {
        r->shared = f->shared;
        uint64_t *sh = fib_alloc(f, (size_t)r->cap[ROUTE_FIB_RECS] * 8 + shared_bytes(r));
        if (sh) {
            for (uint32_t nh = 0; nh < r->shared; nh++) { /* nh's at recs[-2 (nh + 1)] */
                uint64_t *rec = sh + 2 * (r->shared - 1 - nh);
                rec[0] = 1; /* leafvec */
                rec[1] = 0;
                net_memcpy(&rec[1], &(uint16_t){(uint16_t)nh}, 2);
            }
            r->recs = sh + 2 * r->shared;
            /* An IPv4 burst compares a long record's address, recs + 8 e,
             * e < 2^31, against the pool's: it must not wrap (never for the
             * kernel's direct map or a process's heap). */
            if ((uintptr_t)r->recs > UINTPTR_MAX - ((uintptr_t)8 << 31)) {
                fib_free(f, sh, (size_t)r->cap[ROUTE_FIB_RECS] * 8 + shared_bytes(r));
                r->recs = NULL;
            }
        }
    }
    if (f->l1_bits) {
        r->blocks = fib_alloc(f, (size_t)r->cap[ROUTE_FIB_BLOCKS] * elem_bytes(f, ROUTE_FIB_BLOCKS));
        if (r->blocks) /* block 0, the dummy */
            for (size_t i = 0; i < ((size_t)1 << (f->direct_bits - f->l1_bits)); i++)
                atomic_store_explicit(&r->blocks[i], 0, memory_order_relaxed);
    }
    if (r->direct == NULL || r->nodes == NULL || r->leaves == NULL ||
        (f->l1_bits && r->blocks == NULL) || (f->l1_records && r->recs == NULL)) {
        route_fib_root_free(f, r);
        return NULL;
    }
    /* Node 0, leaf 0 and record 0 are "none"; IPv6 lookups may read node 0
     * and leaf 0 as dummies. Record 0, a short one, answers ROUTE_NH_NONE
     * for every slot (IPv4 readers never reach it: a direct leaf reads its
     * shared record). */
    net_memset((void *)r->nodes, 0, sizeof(*r->nodes));
    net_memset((void *)r->leaves, 0, 2);
    if (f->l1_records) {
        struct route_fib_srec *r0 = (struct route_fib_srec *)(void *)r->recs;
        net_memset(r0, 0, 8 * ROUTE_FIB_SREC_UNITS(1));
        r0->leafvec = 1;
    }
    return r;
}

uint32_t route_fib_direct_get(const struct route_fib *f, uint32_t d)
{
    const struct route_fib_root *r = f->cur;
    if (f->l1_bits == 0)
        return atomic_load_explicit(&r->direct[d], memory_order_relaxed);
    unsigned bb = f->direct_bits - f->l1_bits;
    uint32_t e1 = atomic_load_explicit(&r->direct[d >> bb], memory_order_relaxed);
    if (e1 & ROUTE_FIB_LEAF)
        return e1;
    return atomic_load_explicit(&r->blocks[(size_t)e1 << bb | (d & ((1u << bb) - 1))],
                                memory_order_relaxed);
}

/* cur into a root with pools of cap elements (at least the tails). */
struct route_fib_root *route_fib_root_copy(struct route_fib *f, const uint32_t cap[])
{
    struct route_fib_root *r = route_fib_root_new(f, cap);
    if (r == NULL)
        return NULL;
    const struct route_fib_root *o = f->cur;
    for (size_t i = 0; i < direct_len(f); i++)
        atomic_store_explicit(&r->direct[i], atomic_load_explicit(&o->direct[i], memory_order_relaxed),
                              memory_order_relaxed);
    size_t nb = ((size_t)f->top[ROUTE_FIB_BLOCKS] << (f->direct_bits - f->l1_bits));
    for (size_t i = 0; f->l1_bits && i < nb; i++)
        atomic_store_explicit(&r->blocks[i], atomic_load_explicit(&o->blocks[i], memory_order_relaxed),
                              memory_order_relaxed);
    net_memcpy((void *)r->nodes, o->nodes, (size_t)f->top[ROUTE_FIB_NODES] * sizeof(*o->nodes));
    net_memcpy((void *)r->leaves, o->leaves, (size_t)f->top[ROUTE_FIB_LEAVES] * 2);
    if (f->l1_records)
        net_memcpy((void *)r->recs, o->recs, (size_t)f->top[ROUTE_FIB_RECS] * 8);
    return r;
}

/* Room in l for one more entry. */
static int log_room(struct route_fib *f, struct route_fib_log *l)
{
    if (l->len < l->cap)
        return ROUTE_OK;
    uint32_t cap = l->cap ? l->cap * 2 : 256;
    struct route_fib_logent *n = fib_alloc(f, (size_t)cap * sizeof(*n));
    if (n == NULL)
        return ROUTE_ENOMEM;
    if (l->len)
        net_memcpy(n, l->e, (size_t)l->len * sizeof(*n));
    fib_free(f, l->e, (size_t)l->cap * sizeof(*n));
    l->e = n;
    l->cap = cap;
    return ROUTE_OK;
}

static int log_push(struct route_fib *f, struct route_fib_log *l, struct route_fib_logent e)
{
    int err = log_room(f, l);
    if (err)
        return err;
    l->e[l->len++] = e;
    return ROUTE_OK;
}

int route_fib_retire_room(struct route_fib *f) { return log_room(f, &f->retired); }

static int stack_push(struct route_fib *f, struct route_fib_stack *s, uint32_t idx)
{
    if (s->len == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 64;
        uint32_t *n = fib_alloc(f, (size_t)cap * 4);
        if (n == NULL)
            return ROUTE_ENOMEM;
        if (s->len)
            net_memcpy(n, s->idx, (size_t)s->len * 4);
        fib_free(f, s->idx, (size_t)s->cap * 4);
        s->idx = n;
        s->cap = cap;
    }
    s->idx[s->len++] = idx;
    return ROUTE_OK;
}

static struct route_fib_stack *free_stack(struct route_fib *f, unsigned pool, uint32_t len)
{
    return pool == ROUTE_FIB_BLOCKS ? &f->free_blocks
           : pool == ROUTE_FIB_RECS ? &f->free_runs[2][len]
                                    : &f->free_runs[pool][len];
}

/* Back to its free stack (unreachable runs only). If the stack cannot grow
 * the run is lost until the next rebuild: never wrong. */
void route_fib_run_free(struct route_fib *f, unsigned pool, uint32_t idx, uint32_t len)
{
    (void)stack_push(f, free_stack(f, pool, len), idx);
    f->used[pool] -= len;
    f->nrecs -= pool == ROUTE_FIB_RECS;
}

/* Retire the published root old under a new epoch of its own, ahead of
 * this update's staged entries (it must be freed even if the update fails).
 * The caller made room in the log first (route_fib_retire_room), before
 * publishing the new root: an old root with no entry would never be freed. */
int route_fib_retire_root(struct route_fib *f, struct route_fib_root *old)
{
    uint64_t e = atomic_fetch_add_explicit(f->epoch, 1, memory_order_acq_rel) + 1;
    struct route_fib_logent ent = {.epoch = e, .mem = old, .bytes = route_fib_root_bytes(f, old)};
    if (log_push(f, &f->retired, ent) != ROUTE_OK)
        return ROUTE_ENOMEM; /* no room made: the old root leaks */
    struct route_fib_logent *l = f->retired.e;
    for (uint32_t i = f->retired.len - 1; i > f->staged; i--)
        l[i] = l[i - 1];
    l[f->staged++] = ent;
    f->retired_bytes += ent.bytes;
    return ROUTE_OK;
}

/* Move everything into pools with room for `more` past the tail of pool.
 * Readers of a published root switch with the root store and the old root
 * is retired; an unpublished one is freed at once. */
static int grow_root(struct route_fib *f, const uint32_t cap[])
{
    struct route_fib_root *old = f->cur;
    bool published = atomic_load_explicit(&f->root, memory_order_relaxed) == old;
    if (published && route_fib_retire_room(f) != ROUTE_OK)
        return ROUTE_ENOMEM;
    struct route_fib_root *r = route_fib_root_copy(f, cap);
    if (r == NULL)
        return ROUTE_ENOMEM;
    f->cur = r;
    if (!published) {
        route_fib_root_free(f, old);
        return ROUTE_OK;
    }
    atomic_store_explicit(&f->root, r, memory_order_release);
    return route_fib_retire_root(f, old);
}

static int fib_grow(struct route_fib *f, unsigned pool, uint32_t more)
{
    uint32_t cap[ROUTE_FIB_POOLS];
    for (unsigned p = 0; p < ROUTE_FIB_POOLS; p++)
        cap[p] = f->cur->cap[p];
    uint64_t c = cap[pool] ? cap[pool] : 1;
    while (c < (uint64_t)f->top[pool] + more)
        c *= 2;
    if (c > UINT32_MAX / 2)
        return ROUTE_ENOMEM;
    cap[pool] = (uint32_t)c;
    return grow_root(f, cap);
}

int route_fib_shared_room(struct route_fib *f, uint32_t nh)
{
    if (nh < f->cur->shared)
        return ROUTE_OK;
    uint32_t was = f->shared;
    while (f->shared <= nh)
        f->shared *= 2;
    int err = grow_root(f, f->cur->cap);
    if (err)
        f->shared = was;
    return err;
}

/* Records are kept from crossing a cache line they need not cross: one
 * of up to 64 bytes lies within a line, a longer one starts a line (the
 * pool starts on one). So a lookup's leaf is on its record's first line
 * for 83% of lookups in the Internet table's prefixes, not 52%, and the
 * burst's one prefetch a lane (route4.c) covers it. The units skipped go
 * to their length's free stack, so a record that short fills them. */
static uint32_t rec_line_pad(uint32_t top, uint32_t len)
{
    uint32_t off = top % 8; /* 8-byte units in a 64-byte line */
    if (off == 0 || (len <= 8 && off + len <= 8))
        return 0;
    return 8 - off;
}

int route_fib_run_alloc(struct route_fib *f, unsigned pool, uint32_t len, uint32_t *idx)
{
    *idx = 0;
    if (len == 0)
        return ROUTE_OK;
    struct route_fib_stack *s = free_stack(f, pool, len);
    if (s->len) {
        *idx = s->idx[--s->len];
    } else {
        uint32_t pad = pool == ROUTE_FIB_RECS ? rec_line_pad(f->top[pool], len) : 0;
        if (f->top[pool] + pad + len > f->cur->cap[pool]) {
            int err = fib_grow(f, pool, pad + len);
            if (err)
                return err;
        }
        if (pad) /* if the stack cannot grow, the units wait for a rebuild */
            (void)stack_push(f, free_stack(f, pool, pad), f->top[pool]);
        *idx = f->top[pool] + pad;
        f->top[pool] += pad + len;
    }
    f->used[pool] += len;
    f->nrecs += pool == ROUTE_FIB_RECS;
    if (f->log_fresh) {
        struct route_fib_logent e = {.idx = *idx, .len = len, .pool = pool};
        if (log_push(f, &f->fresh, e) != ROUTE_OK) {
            route_fib_run_free(f, pool, *idx, len);
            return ROUTE_ENOMEM;
        }
    }
    return ROUTE_OK;
}

int route_fib_run_retire(struct route_fib *f, unsigned pool, uint32_t idx, uint32_t len)
{
    if (len == 0)
        return ROUTE_OK;
    struct route_fib_logent e = {.idx = idx, .len = len, .pool = pool};
    return log_push(f, &f->retired, e);
}

static size_t logent_bytes(const struct route_fib *f, const struct route_fib_logent *e)
{
    return e->mem ? e->bytes : (size_t)e->len * elem_bytes(f, e->pool);
}

void route_fib_commit(struct route_fib *f)
{
    uint64_t e = atomic_fetch_add_explicit(f->epoch, 1, memory_order_acq_rel) + 1;
    for (uint32_t i = f->staged; i < f->retired.len; i++) {
        f->retired.e[i].epoch = e;
        f->retired_bytes += logent_bytes(f, &f->retired.e[i]);
    }
    f->staged = f->retired.len;
    f->fresh.len = 0;
}

void route_fib_abort(struct route_fib *f)
{
    f->retired.len = f->staged;
    for (uint32_t i = 0; i < f->fresh.len; i++)
        route_fib_run_free(f, f->fresh.e[i].pool, f->fresh.e[i].idx, f->fresh.e[i].len);
    f->fresh.len = 0;
}

/* After a rebuild: runs retired in the old pools go with them. */
static void drop_runs(struct route_fib *f)
{
    uint32_t j = 0;
    for (uint32_t i = 0; i < f->retired.len; i++) {
        struct route_fib_logent e = f->retired.e[i];
        if (e.mem)
            f->retired.e[j++] = e;
        else if (i < f->staged)
            f->retired_bytes -= logent_bytes(f, &e);
    }
    f->retired.len = f->staged = j;
}

/* Publish cur, filled by a rebuild, in place of the old root; the caller
 * made room to retire it (route_fib_retire_room). */
int route_fib_publish_rebuilt(struct route_fib *f, struct route_fib_root *old)
{
    atomic_store_explicit(&f->root, f->cur, memory_order_release);
    drop_runs(f);
    struct route_fib_logent e = {.mem = old, .bytes = route_fib_root_bytes(f, old)};
    if (log_push(f, &f->retired, e) == ROUTE_OK)
        route_fib_commit(f); /* else (no room made) the old root leaks */
    else
        atomic_fetch_add_explicit(f->epoch, 1, memory_order_acq_rel);
    return ROUTE_OK;
}

void route_fib_reclaim(struct route_fib *f, uint64_t safe_epoch)
{
    uint32_t j = 0;
    for (uint32_t i = 0; i < f->staged; i++) {
        struct route_fib_logent e = f->retired.e[i];
        if (e.epoch > safe_epoch) {
            f->retired.e[j++] = e;
            continue;
        }
        f->retired_bytes -= logent_bytes(f, &e);
        if (e.mem)
            route_fib_root_free(f, e.mem);
        else
            route_fib_run_free(f, e.pool, e.idx, e.len);
    }
    uint32_t kept = j;
    for (uint32_t i = f->staged; i < f->retired.len; i++)
        f->retired.e[j++] = f->retired.e[i];
    f->retired.len = j;
    f->staged = kept;
}

void route_fib_fini(struct route_fib *f)
{
    if (f->cur == NULL)
        return;
    for (uint32_t i = 0; i < f->retired.len; i++)
        if (f->retired.e[i].mem)
            route_fib_root_free(f, f->retired.e[i].mem);
    route_fib_root_free(f, f->cur);
    f->cur = NULL;
    for (unsigned p = 0; p < 3; p++)
        for (unsigned i = 0; i < 65; i++)
            fib_free(f, f->free_runs[p][i].idx, (size_t)f->free_runs[p][i].cap * 4);
    fib_free(f, f->free_blocks.idx, (size_t)f->free_blocks.cap * 4);
    fib_free(f, f->retired.e, (size_t)f->retired.cap * sizeof(*f->retired.e));
    fib_free(f, f->fresh.e, (size_t)f->fresh.cap * sizeof(*f->fresh.e));
}

uint64_t route_fib_epoch(const struct route_fib *f)
{
    return atomic_load_explicit(f->epoch, memory_order_acquire);
}

void route_fib_stats(const struct route_fib *f, struct route_stats *st)
{
    st->nodes = f->used[ROUTE_FIB_NODES] + f->nrecs;
    st->leaves = f->used[ROUTE_FIB_LEAVES];
    st->fib_bytes = route_fib_root_bytes(f, f->cur);
    st->retired_bytes = f->retired_bytes;
}
