/* SPDX-License-Identifier: MIT */
/* net/route/route_fib.c: building, updating and freeing the Poptrie (route_fib.h;
 * Asai & Ohara, SIGCOMM 2015, sections 3 and 4).
 *
 * Builds come from the RIB: a node's 64 slots are the RIB expanded 6 bits
 * down (leaf pushing: each leaf carries the longest prefix above it), a slot
 * becomes a child only if the RIB below it is not one next hop everywhere,
 * so the structure is canonical whatever the update history.
 *
 * An update of prefix P rebuilds the direct entries P touches; in each, a
 * node whose slots P covers only in part keeps its other children as they
 * are (their subtrees are reused, not copied), so the cost is the path from
 * the direct entry down to P plus what lies below P. The new direct
 * entries are published last (direct_publish), then the epoch advances.
 * Memory (runs, roots, growth, retiring) is route_fib_mem.c. */
#include "route_fib.h"

#include "core/env.h"

#define FIB_NONUNIFORM 0xffffffffu

/* Writer's views of the pools: only ever slots no reader can reach yet. */
static struct route_fib_node *wnode(struct route_fib *f, uint32_t i)
{
    return (struct route_fib_node *)&f->cur->nodes[i];
}

static uint16_t *wleaf(struct route_fib *f, uint32_t i)
{
    return (uint16_t *)&f->cur->leaves[i];
}

/* A node or a record as the builder reads it. */
struct fib_view {
    uint64_t vec, leafvec;
    uint32_t base_node, base_leaf;
    uint32_t rec;  /* record index, 0 for a plain node */
    bool rec_long; /* a long record */
};

static struct route_fib_rec *wrec(struct route_fib *f, uint32_t i)
{
    return (struct route_fib_rec *)&f->cur->recs[i];
}

static struct route_fib_srec *wsrec(struct route_fib *f, uint32_t i)
{
    return (struct route_fib_srec *)&f->cur->recs[i];
}

static uint32_t rec_units(bool rec_long, uint32_t nleaf)
{
    return rec_long ? ROUTE_FIB_REC_UNITS(nleaf) : ROUTE_FIB_SREC_UNITS(nleaf);
}

static struct fib_view view_node(const struct route_fib *f, uint32_t i)
{
    struct route_fib_node n = f->cur->nodes[i];
    return (struct fib_view){n.vec, n.leafvec, n.base_node, n.base_leaf, 0, false};
}

/* The record a direct entry e (not a leaf) points to. */
static struct fib_view view_rec(struct route_fib *f, uint32_t e)
{
    uint32_t i = e & ~ROUTE_FIB_REC_LONG;
    if (!(e & ROUTE_FIB_REC_LONG))
        return (struct fib_view){0, wsrec(f, i)->leafvec, 0, 0, i, false};
    const struct route_fib_rec *r = wrec(f, i);
    return (struct fib_view){r->vec, r->leafvec, r->base_node, 0, i, true};
}

/* Retire v's leaves (its record, for a record) and everything below it;
 * a plain node's own slot is in its parent's run, retired with that. */
static int retire_view(struct route_fib *f, const struct fib_view *v)
{
    uint32_t nkids = (uint32_t)__builtin_popcountll(v->vec);
    uint32_t nleaf = (uint32_t)__builtin_popcountll(v->leafvec);
    int err = ROUTE_OK;
    for (uint32_t k = 0; k < nkids && err == ROUTE_OK; k++) {
        struct fib_view c = view_node(f, v->base_node + k);
        err = retire_view(f, &c);
    }
    if (err == ROUTE_OK)
        err = route_fib_run_retire(f, ROUTE_FIB_NODES, v->base_node, nkids);
    if (err == ROUTE_OK && v->rec)
        err = route_fib_run_retire(f, ROUTE_FIB_RECS, v->rec, rec_units(v->rec_long, nleaf));
    else if (err == ROUTE_OK)
        err = route_fib_run_retire(f, ROUTE_FIB_LEAVES, v->base_leaf, nleaf);
    return err;
}

/* The one next hop the whole region below RIB node rn (at depth, inheriting
 * v) maps to, or FIB_NONUNIFORM. The node's summary answers (route_rib.h)
 * unless the prefixes below disagree: then the walk, since a prefix may
 * be hidden under more specific ones that cover it. */
static uint32_t rib_uniform(const struct route_rib *r, uint32_t rn, uint32_t v,
                            unsigned depth, unsigned key_bits)
{
    if (depth == key_bits)
        return v;
    uint32_t sub = r->n[rn].sub, nh = route_rib_sub_nh(sub);
    if (nh == ROUTE_NH_NONE || nh == v)
        return v;              /* nothing below, or all of it v as around it */
    if (nh != ROUTE_RIB_MIXED) /* all below one other next hop: uniform only if it covers the region */
        return (sub & ROUTE_RIB_COVERED) ? nh : FIB_NONUNIFORM;
    uint32_t first = v;
    for (unsigned b = 0; b < 2; b++) {
        uint32_t c = r->n[rn].child[b], cv = v;
        if (c)
            cv = rib_uniform(r, c, r->n[c].nh ? r->n[c].nh : v, depth + 1, key_bits);
        if (cv == FIB_NONUNIFORM || (b == 1 && cv != first))
            return FIB_NONUNIFORM;
        first = cv;
    }
    return first;
}

/* What a region at `depth` whose RIB node is rn (0: none) and whose longest
 * prefix so far is `best` becomes: FIB_NONUNIFORM (a node) or a next hop. */
static uint32_t region_value(const struct route_fib *f, uint32_t rn, uint32_t best, unsigned depth)
{
    const struct route_rib *r = f->rib;
    if (rn == 0 || (r->n[rn].child[0] == 0 && r->n[rn].child[1] == 0))
        return best;
    return rib_uniform(r, rn, best, depth, f->key_bits);
}

/* Fill slots [j << (6 - d), (j + 1) << (6 - d)) from RIB node rn at depth
 * off + d (best includes rn's own next hop). */
static void slots_expand(const struct route_fib *f, struct route_fib_slots *s, uint32_t rn,
                         unsigned off, unsigned d, unsigned j, uint32_t best)
{
    const struct route_rib *r = f->rib;
    bool leafy = rn == 0 || off + d == f->key_bits ||
                 (r->n[rn].child[0] == 0 && r->n[rn].child[1] == 0);
    if (d == 6 || leafy) {
        uint32_t v = d == 6 ? region_value(f, rn, best, off + 6) : best;
        if (v == FIB_NONUNIFORM) {
            s->internal |= 1ull << j;
            s->nh[j] = best;
            s->rib[j] = rn;
            return;
        }
        for (unsigned i = j << (6 - d); i < (j + 1) << (6 - d); i++)
            s->nh[i] = v;
        return;
    }
    for (unsigned b = 0; b < 2; b++) {
        uint32_t c = r->n[rn].child[b];
        uint32_t cb = c && r->n[c].nh ? r->n[c].nh : best;
        slots_expand(f, s, c, off, d + 1, 2 * j + b, cb);
    }
}

/* Slots of the node at off that prefix k/plen overlaps: [*lo, *hi). */
static void slots_touched(const struct route_key *k, unsigned plen, unsigned off,
                          unsigned *lo, unsigned *hi)
{
    if (plen <= off) {
        *lo = 0;
        *hi = 64;
        return;
    }
    *lo = route_key_bits6(k, off);
    *hi = *lo + (plen < off + 6 ? 1u << (off + 6 - plen) : 1u);
}

static uint32_t child_of(const struct fib_view *n, unsigned j)
{
    if (!((n->vec >> j) & 1))
        return 0;
    return n->base_node + (uint32_t)__builtin_popcountll(n->vec & ((2ull << j) - 1)) - 1;
}

/* Unlink what of old (being replaced) the new node `vec` does not reuse:
 * the subtrees of touched slots that are leaves now, old's children run
 * and its leaves (or record). */
static int retire_replaced(struct route_fib *f, const struct fib_view *o, uint64_t vec,
                           unsigned lo, unsigned hi)
{
    int err = ROUTE_OK;
    for (unsigned j = lo; j < hi && err == ROUTE_OK; j++)
        if (((o->vec >> j) & 1) && !((vec >> j) & 1)) {
            struct fib_view c = view_node(f, child_of(o, j));
            err = retire_view(f, &c);
        }
    uint32_t nleaf = (uint32_t)__builtin_popcountll(o->leafvec);
    if (err == ROUTE_OK)
        err = route_fib_run_retire(f, ROUTE_FIB_NODES, o->base_node,
                                   (uint32_t)__builtin_popcountll(o->vec));
    if (err == ROUTE_OK && o->rec)
        err = route_fib_run_retire(f, ROUTE_FIB_RECS, o->rec, rec_units(o->rec_long, nleaf));
    else if (err == ROUTE_OK)
        err = route_fib_run_retire(f, ROUTE_FIB_LEAVES, o->base_leaf, nleaf);
    return err;
}

/* Build the node at key offset off for RIB node rn with inherited next hop
 * def: into node slot *dst, or as a new record (as_rec) whose direct entry
 * (index, ROUTE_FIB_REC_LONG if long) goes to *dst. old (NULL: none) is what it replaces after a change of prefix
 * k/plen: children outside the slots k/plen touches are reused from it. */
static int build_node(struct route_fib *f, unsigned lvl, uint32_t rn, unsigned off,
                      uint32_t def, const struct route_key *k, unsigned plen,
                      const struct fib_view *old, bool as_rec, uint32_t *dst)
{
    struct route_fib_slots *s = &f->scratch[lvl];
    s->internal = 0;
    slots_expand(f, s, rn, off, 0, 0, def);
    uint64_t vec = s->internal, leafvec = 0;
    uint32_t prev = FIB_NONUNIFORM, nleaf = 0, lbase, nbase;
    for (unsigned j = 0; j < 64; j++)
        if (!((vec >> j) & 1) && s->nh[j] != prev) {
            leafvec |= 1ull << j;
            prev = s->nh[j];
        }
    leafvec |= 1; /* slot 0 a child: a dummy leaf, so that no rank is 0 */
    uint32_t nl = (uint32_t)__builtin_popcountll(leafvec);
    bool rec_long = vec != 0;
    int err = as_rec ? route_fib_run_alloc(f, ROUTE_FIB_RECS, rec_units(rec_long, nl), &lbase)
                     : route_fib_run_alloc(f, ROUTE_FIB_LEAVES, nl, &lbase);
    if (err == ROUTE_OK)
        err = route_fib_run_alloc(f, ROUTE_FIB_NODES, (uint32_t)__builtin_popcountll(vec), &nbase);
    if (err)
        return err;
    for (unsigned j = 0; j < 64; j++)
        if ((leafvec >> j) & 1) {
            uint16_t *l = !as_rec ? wleaf(f, lbase + nleaf)
                          : rec_long ? &wrec(f, lbase)->leaf[nleaf]
                                     : &wsrec(f, lbase)->leaf[nleaf];
            *l = (vec >> j) & 1 ? (uint16_t)ROUTE_NH_NONE : (uint16_t)s->nh[j];
            nleaf++;
        }
    unsigned lo = 0, hi = 64;
    slots_touched(k, plen, off, &lo, &hi);
    uint32_t kid = nbase;
    for (uint64_t m = vec; m && err == ROUTE_OK; m &= m - 1, kid++) {
        unsigned j = (unsigned)__builtin_ctzll(m);
        uint32_t oc = old ? child_of(old, j) : 0;
        struct fib_view ov = oc ? view_node(f, oc) : (struct fib_view){0};
        if (oc && (j < lo || j >= hi))
            *wnode(f, kid) = f->cur->nodes[oc];
        else
            err = build_node(f, lvl + 1, s->rib[j], off + 6, s->nh[j], k, plen, oc ? &ov : NULL,
                             false, &kid);
    }
    if (err == ROUTE_OK && old)
        err = retire_replaced(f, old, vec, lo, hi);
    if (as_rec && rec_long) {
        struct route_fib_rec *r = wrec(f, lbase);
        r->vec = vec;
        r->leafvec = leafvec;
        r->base_node = nbase;
        *dst = lbase | ROUTE_FIB_REC_LONG;
    } else if (as_rec) {
        wsrec(f, lbase)->leafvec = leafvec;
        *dst = lbase;
    } else {
        *wnode(f, *dst) = (struct route_fib_node){vec, leafvec, lbase, nbase};
    }
    return err;
}

/* A direct entry for no route. */
static uint32_t no_route(const struct route_fib *f)
{
    return f->l1_records ? route_fib_shared_leaf(ROUTE_NH_NONE) : ROUTE_FIB_LEAF;
}

/* The new value of direct entry d, whose RIB node is rn (0: none) with
 * longest prefix best, after a change of k/plen. Not stored yet. */
static int direct_compute(struct route_fib *f, uint32_t d, uint32_t rn, uint32_t best,
                          const struct route_key *k, unsigned plen, uint32_t *entry)
{
    uint32_t old = route_fib_direct_get(f, d);
    uint32_t oldn = (old & ROUTE_FIB_LEAF) ? 0 : old;
    struct fib_view ov = {0};
    if (oldn)
        ov = f->l1_records ? view_rec(f, oldn) : view_node(f, oldn);
    uint32_t v = region_value(f, rn, best, f->direct_bits);
    int err;
    if (v != FIB_NONUNIFORM) {
        err = f->l1_records ? route_fib_shared_room(f, v) : ROUTE_OK;
        *entry = f->l1_records ? route_fib_shared_leaf(v) : ROUTE_FIB_LEAF | v;
        if (err == ROUTE_OK && oldn)
            err = retire_view(f, &ov);
    } else {
        err = f->l1_records ? ROUTE_OK : route_fib_run_alloc(f, ROUTE_FIB_NODES, 1, entry);
        if (err == ROUTE_OK)
            err = build_node(f, 0, rn, f->direct_bits, best, k, plen, oldn ? &ov : NULL,
                             f->l1_records, entry);
    }
    if (err == ROUTE_OK && oldn && !f->l1_records)
        err = route_fib_run_retire(f, ROUTE_FIB_NODES, oldn, 1);
    return err;
}

/* The direct entries below RIB node rn at depth (< direct_bits), index idx
 * of that depth, into ent[] (ent[0] is entry d0). */
static int direct_fill(struct route_fib *f, uint32_t rn, unsigned depth, uint32_t idx,
                       uint32_t best, const struct route_key *k, unsigned plen, uint32_t d0,
                       uint32_t *ent)
{
    unsigned s = f->direct_bits;
    const struct route_rib *r = f->rib;
    if (depth == s)
        return direct_compute(f, idx, rn, best, k, plen, &ent[idx - d0]);
    if (rn == 0 || (r->n[rn].child[0] == 0 && r->n[rn].child[1] == 0)) {
        uint32_t first = idx << (s - depth), end = (idx + 1) << (s - depth);
        for (uint32_t d = first; d < end; d++) {
            int err = direct_compute(f, d, 0, best, k, plen, &ent[d - d0]);
            if (err)
                return err;
        }
        return ROUTE_OK;
    }
    for (unsigned b = 0; b < 2; b++) {
        uint32_t c = r->n[rn].child[b];
        uint32_t cb = c && r->n[c].nh ? r->n[c].nh : best;
        int err = direct_fill(f, c, depth + 1, 2 * idx + b, cb, k, plen, d0, ent);
        if (err)
            return err;
    }
    return ROUTE_OK;
}

/* Store ent[0..n) as direct entries d0... (n > 1 only within one block of
 * a two-level array). Two-level: a region that becomes one next hop is one
 * L1 entry; one that stops being so gets a block, filled before the L1
 * store publishes it. */
static int direct_publish(struct route_fib *f, uint32_t d0, uint32_t n, const uint32_t *ent)
{
    if (f->l1_bits == 0) {
        for (uint32_t i = 0; i < n; i++)
            atomic_store_explicit(&f->cur->direct[d0 + i], ent[i], memory_order_release);
        return ROUTE_OK;
    }
    unsigned bb = f->direct_bits - f->l1_bits;
    uint32_t c = d0 >> bb, bs = 1u << bb, off = d0 & (bs - 1), blk;
    uint32_t e1 = atomic_load_explicit(&f->cur->direct[c], memory_order_relaxed);
    bool uniform = n == bs && (ent[0] & ROUTE_FIB_LEAF);
    for (uint32_t i = 1; i < n && uniform; i++)
        uniform = ent[i] == ent[0];
    if (uniform) {
        atomic_store_explicit(&f->cur->direct[c], ent[0], memory_order_release);
        return (e1 & ROUTE_FIB_LEAF) ? ROUTE_OK : route_fib_run_retire(f, ROUTE_FIB_BLOCKS, e1, 1);
    }
    if (!(e1 & ROUTE_FIB_LEAF)) {
        for (uint32_t i = 0; i < n; i++)
            atomic_store_explicit(&f->cur->blocks[(size_t)e1 << bb | (off + i)], ent[i],
                                  memory_order_release);
        return ROUTE_OK;
    }
    int err = route_fib_run_alloc(f, ROUTE_FIB_BLOCKS, 1, &blk);
    if (err)
        return err;
    _Atomic uint32_t *b = &f->cur->blocks[(size_t)blk << bb];
    for (uint32_t i = 0; i < bs; i++)
        atomic_store_explicit(&b[i], i - off < n ? ent[i - off] : e1, memory_order_relaxed);
    atomic_store_explicit(&f->cur->direct[c], blk, memory_order_release);
    return ROUTE_OK;
}

int route_fib_update(struct route_fib *f, const struct route_key *k, unsigned plen)
{
    unsigned s = f->direct_bits;
    if (f->l1_bits && plen < f->l1_bits)
        return route_fib_rebuild(f); /* rare (IPv6 shorter than /12): swap it all */
    uint32_t best, one, *ent = &one;
    uint32_t n = plen >= s ? 1u : 1u << (s - plen);
    uint32_t d0 = plen >= s ? route_key_top(k, s) : route_key_top(k, plen) << (s - plen);
    int err;
    f->log_fresh = true;
    if (n > 1 && (ent = f->alloc.alloc(f->alloc.ctx, (size_t)n * 4, 64)) == NULL)
        return ROUTE_ENOMEM;
    if (plen >= s) {
        uint32_t rn = route_rib_descend(f->rib, k, s, &best);
        err = direct_compute(f, d0, rn, best, k, plen, ent);
    } else {
        uint32_t rn = route_rib_descend(f->rib, k, plen, &best);
        err = direct_fill(f, rn, plen, route_key_top(k, plen), best, k, plen, d0, ent);
    }
    if (err == ROUTE_OK)
        err = direct_publish(f, d0, n, ent);
    if (err == ROUTE_OK)
        route_fib_commit(f);
    else
        route_fib_abort(f);
    if (n > 1)
        f->alloc.free(f->alloc.ctx, ent, (size_t)n * 4);
    return err;
}

/* Two-level rebuild: each L1 region below RIB node rn at depth, one block
 * (ent) at a time. */
static int rebuild_blocks(struct route_fib *f, uint32_t rn, unsigned depth, uint32_t idx,
                          uint32_t best, uint32_t *ent)
{
    const struct route_rib *r = f->rib;
    unsigned l1 = f->l1_bits, bb = f->direct_bits - l1;
    struct route_key k = {0, 0};
    if (depth == l1) {
        int err = direct_fill(f, rn, l1, idx, best, &k, 0, idx << bb, ent);
        return err ? err : direct_publish(f, idx << bb, 1u << bb, ent);
    }
    if (rn == 0 || (r->n[rn].child[0] == 0 && r->n[rn].child[1] == 0)) {
        for (uint32_t c = idx << (l1 - depth); c < (idx + 1) << (l1 - depth); c++)
            atomic_store_explicit(&f->cur->direct[c], ROUTE_FIB_LEAF | best, memory_order_relaxed);
        return ROUTE_OK;
    }
    for (unsigned b = 0; b < 2; b++) {
        uint32_t c = r->n[rn].child[b];
        uint32_t cb = c && r->n[c].nh ? r->n[c].nh : best;
        int err = rebuild_blocks(f, c, depth + 1, 2 * idx + b, cb, ent);
        if (err)
            return err;
    }
    return ROUTE_OK;
}

/* Fill cur (unpublished, empty pools) from the whole RIB. */
static int rebuild_into(struct route_fib *f)
{
    uint32_t n = 1u << (f->l1_bits ? f->direct_bits - f->l1_bits : f->direct_bits);
    uint32_t nd = 1u << (f->l1_bits ? f->l1_bits : f->direct_bits);
    uint32_t *ent = f->alloc.alloc(f->alloc.ctx, (size_t)n * 4, 64);
    if (ent == NULL)
        return ROUTE_ENOMEM;
    for (uint32_t d = 0; d < nd; d++)
        atomic_store_explicit(&f->cur->direct[d], no_route(f), memory_order_relaxed);
    struct route_key k = {0, 0};
    uint32_t root_nh = f->rib->n[ROUTE_RIB_ROOT].nh;
    int err = f->l1_bits ? rebuild_blocks(f, ROUTE_RIB_ROOT, 0, 0, root_nh, ent)
                         : direct_fill(f, ROUTE_RIB_ROOT, 0, 0, root_nh, &k, 0, 0, ent);
    if (err == ROUTE_OK && f->l1_bits == 0)
        err = direct_publish(f, 0, n, ent);
    f->alloc.free(f->alloc.ctx, ent, (size_t)n * 4);
    /* Trim the pools to what is used and an eighth to spare. */
    uint32_t cap[ROUTE_FIB_POOLS];
    bool trim = false;
    for (unsigned p = 0; p < ROUTE_FIB_POOLS; p++) {
        cap[p] = f->top[p] + f->top[p] / 8 + (p == ROUTE_FIB_BLOCKS ? 1 : 64);
        trim |= cap[p] < f->cur->cap[p];
    }
    if (err == ROUTE_OK && trim) {
        struct route_fib_root *r = route_fib_root_copy(f, cap);
        if (r) {
            route_fib_root_free(f, f->cur);
            f->cur = r;
        }
    }
    return err;
}

/* The writer's allocator state, set aside while a rebuild fills new pools. */
struct fib_saved {
    uint32_t top[ROUTE_FIB_POOLS], used[ROUTE_FIB_POOLS];
    uint32_t runs[3][65], blocks, nrecs;
};

static void fib_reset(struct route_fib *f, struct fib_saved *sv)
{
    for (unsigned p = 0; p < ROUTE_FIB_POOLS; p++) {
        sv->top[p] = f->top[p];
        sv->used[p] = f->used[p];
        f->top[p] = p == ROUTE_FIB_RECS ? ROUTE_FIB_SREC_UNITS(1) : 1; /* 0: the dummies */
        f->used[p] = 0;
    }
    for (unsigned p = 0; p < 3; p++)
        for (unsigned i = 0; i < 65; i++) {
            sv->runs[p][i] = f->free_runs[p][i].len;
            f->free_runs[p][i].len = 0;
        }
    sv->blocks = f->free_blocks.len;
    f->free_blocks.len = 0;
    sv->nrecs = f->nrecs;
    f->nrecs = 0;
}

static void fib_restore(struct route_fib *f, const struct fib_saved *sv)
{
    for (unsigned p = 0; p < ROUTE_FIB_POOLS; p++) {
        f->top[p] = sv->top[p];
        f->used[p] = sv->used[p];
    }
    for (unsigned p = 0; p < 3; p++)
        for (unsigned i = 0; i < 65; i++)
            f->free_runs[p][i].len = sv->runs[p][i];
    f->free_blocks.len = sv->blocks;
    f->nrecs = sv->nrecs;
}

int route_fib_rebuild(struct route_fib *f)
{
    struct route_fib_root *old = f->cur;
    uint32_t cap[ROUTE_FIB_POOLS];
    for (unsigned p = 0; p < ROUTE_FIB_POOLS; p++) {
        uint32_t want = f->used[p] + f->used[p] / 8 + 2;
        cap[p] = p == ROUTE_FIB_BLOCKS ? (want > 4 ? want : 4) : (want > 1024 ? want : 1024);
    }
    struct route_fib_root *r = route_fib_root_new(f, cap);
    if (r == NULL)
        return ROUTE_ENOMEM;
    struct fib_saved sv;
    fib_reset(f, &sv);
    f->cur = r;
    f->log_fresh = false;
    int err = rebuild_into(f);
    if (err == ROUTE_OK)
        err = route_fib_retire_room(f); /* for the old root: then publishing cannot fail */
    if (err) {
        route_fib_root_free(f, f->cur);
        f->cur = old;
        fib_restore(f, &sv);
        f->retired.len = f->staged;
        return err;
    }
    return route_fib_publish_rebuilt(f, old);
}

void route_fib_set_paths(struct route_fib *f, const struct route_cfg *cfg)
{
    f->popcnt = cfg->popcnt;
    f->avx512 = cfg->avx512;
    f->avx2 = cfg->avx2;
}

int route_fib_init(struct route_fib *f, const struct route_rib *rib,
                   const struct route_cfg *cfg, unsigned direct_bits, unsigned l1_bits,
                   bool l1_records, unsigned key_bits)
{
    net_memset(f, 0, sizeof(*f));
    f->rib = rib;
    f->alloc = cfg->alloc;
    f->epoch = cfg->epoch ? cfg->epoch : &f->own_epoch;
    route_fib_set_paths(f, cfg);
    f->direct_bits = direct_bits;
    f->l1_bits = l1_bits;
    f->l1_records = l1_records;
    f->shared = l1_records ? ROUTE_FIB_SHARED_MIN : 0;
    f->key_bits = key_bits;
    uint32_t cap[ROUTE_FIB_POOLS] = {1024, 1024, 4, 1024};
    for (unsigned p = 0; p < ROUTE_FIB_POOLS; p++)
        f->top[p] = p == ROUTE_FIB_RECS ? ROUTE_FIB_SREC_UNITS(1) : 1; /* 0: the dummies */
    f->cur = route_fib_root_new(f, cap);
    if (f->cur == NULL)
        return ROUTE_ENOMEM;
    for (uint32_t d = 0; d < (1u << (l1_bits ? l1_bits : direct_bits)); d++)
        atomic_store_explicit(&f->cur->direct[d], no_route(f), memory_order_relaxed);
    atomic_store_explicit(&f->root, f->cur, memory_order_release);
    return ROUTE_OK;
}

int route_fib_change(struct route_fib *f, struct route_rib *rib, const struct route_key *k,
                     unsigned len, uint32_t nh)
{
    uint32_t old, undo;
    int err = nh ? route_rib_set(rib, k, len, nh, &old) : route_rib_del(rib, k, len, &old);
    if (err) {
        if (nh)
            (void)route_rib_del(rib, k, len, &undo); /* prune a partial path */
        return err;
    }
    if (old == nh)
        return ROUTE_OK;
    if (f->defer) {
        f->deferred++;
        return ROUTE_OK;
    }
    err = route_fib_update(f, k, len);
    if (err == ROUTE_OK)
        return ROUTE_OK;
    /* Put the RIB back; a re-set reuses the nodes a delete just freed. */
    if (old)
        (void)route_rib_set(rib, k, len, old, &undo);
    else
        (void)route_rib_del(rib, k, len, &undo);
    return err;
}

int route_fib_defer(struct route_fib *f, bool on)
{
    f->defer = on;
    if (on || f->deferred == 0)
        return ROUTE_OK;
    int err = route_fib_rebuild(f);
    if (err == ROUTE_OK)
        f->deferred = 0;
    return err;
}
