/* SPDX-License-Identifier: MIT */
/* lib/timerwheel.c: the hierarchical timing wheel (timerwheel.h).
 *
 * Why the order is exact: a timer sits at the level of the highest 6-bit
 * group in which its deadline differs from the wheel's time, and its slot
 * is that group's value, which is above the wheel's own. Moving the wheel's
 * time forward without reaching a slot's start keeps that true for every
 * timer in the slot, so the wheel only has to act when its time reaches
 * the start of the earliest occupied slot: it then redistributes that slot
 * one level down (or, at level 0, where all share one deadline, onto the
 * due list) and looks again. */
#include "timerwheel.h"

enum { WHERE_IDLE = 0xffff, WHERE_DUE = 0xfffe, WHERE_DEFERRED = 0xfffd };

static void list_init(struct timerwheel_link *l) { l->next = l->prev = l; }
static bool list_empty(const struct timerwheel_link *l) { return l->next == l; }

static void list_insert_after(struct timerwheel_link *pos, struct timerwheel_link *e)
{
    e->prev = pos;
    e->next = pos->next;
    pos->next->prev = e;
    pos->next = e;
}

static void list_unlink(struct timerwheel_link *e)
{
    e->prev->next = e->next;
    e->next->prev = e->prev;
    e->next = e->prev = e;
}

static struct timerwheel_timer *timer_of(const struct timerwheel_link *l)
{
    return (struct timerwheel_timer *)(uintptr_t)l; /* link is the first member */
}

/* Where slot s of level lvl begins, for the wheel's time now. */
static uint64_t slot_start(uint64_t now, unsigned lvl, unsigned s)
{
    unsigned above = TIMERWHEEL_BITS * (lvl + 1);
    uint64_t prefix = above >= 64 ? 0 : now >> above << above;
    return prefix | (uint64_t)s << (TIMERWHEEL_BITS * lvl);
}

static void insert(struct timerwheel *w, struct timerwheel_timer *t)
{
    uint64_t d = t->deadline_ns;
    if (d <= w->now_ns) { /* due: sorted, after equal deadlines */
        struct timerwheel_link *pos = w->due.prev;
        while (pos != &w->due && timer_of(pos)->deadline_ns > d)
            pos = pos->prev;
        list_insert_after(pos, &t->link);
        t->where = WHERE_DUE;
        return;
    }
    unsigned lvl = (unsigned)(63 - __builtin_clzll(d ^ w->now_ns)) / TIMERWHEEL_BITS;
    unsigned s = (unsigned)(d >> (TIMERWHEEL_BITS * lvl)) & (TIMERWHEEL_SLOTS - 1);
    list_insert_after(w->slot[lvl][s].prev, &t->link);
    w->occupied[lvl] |= 1ull << s;
    t->where = (uint16_t)(lvl * TIMERWHEEL_SLOTS + s);
}

void timerwheel_init(struct timerwheel *w, uint64_t now_ns)
{
    w->now_ns = now_ns;
    w->pending = 0;
    w->firing = false;
    list_init(&w->due);
    list_init(&w->deferred);
    for (unsigned l = 0; l < TIMERWHEEL_LEVELS; l++) {
        w->occupied[l] = 0;
        for (unsigned s = 0; s < TIMERWHEEL_SLOTS; s++)
            list_init(&w->slot[l][s]);
    }
}

void timerwheel_timer_init(struct timerwheel_timer *t, timerwheel_fn fn, void *arg)
{
    list_init(&t->link);
    t->deadline_ns = 0;
    t->fn = fn;
    t->arg = arg;
    t->where = WHERE_IDLE;
}

bool timerwheel_pending(const struct timerwheel_timer *t) { return t->where != WHERE_IDLE; }

void timerwheel_cancel(struct timerwheel *w, struct timerwheel_timer *t)
{
    if (t->where == WHERE_IDLE)
        return;
    list_unlink(&t->link);
    if (t->where < TIMERWHEEL_LEVELS * TIMERWHEEL_SLOTS) {
        unsigned lvl = t->where / TIMERWHEEL_SLOTS, s = t->where % TIMERWHEEL_SLOTS;
        if (list_empty(&w->slot[lvl][s]))
            w->occupied[lvl] &= ~(1ull << s);
    }
    t->where = WHERE_IDLE;
    w->pending--;
}

void timerwheel_arm(struct timerwheel *w, struct timerwheel_timer *t, uint64_t deadline_ns)
{
    timerwheel_cancel(w, t);
    t->deadline_ns = deadline_ns;
    w->pending++;
    if (w->firing) { /* placed when this advance ends */
        list_insert_after(w->deferred.prev, &t->link);
        t->where = WHERE_DEFERRED;
        return;
    }
    insert(w, t);
}

/* The lowest occupied level, or TIMERWHEEL_LEVELS. */
static unsigned first_level(const struct timerwheel *w)
{
    unsigned lvl = 0;
    while (lvl < TIMERWHEEL_LEVELS && !w->occupied[lvl])
        lvl++;
    return lvl;
}

unsigned timerwheel_advance(struct timerwheel *w, uint64_t now_ns)
{
    unsigned fired = 0;
    if (now_ns < w->now_ns)
        now_ns = w->now_ns;
    w->firing = true;
    for (;;) {
        if (!list_empty(&w->due)) {
            struct timerwheel_timer *t = timer_of(w->due.next);
            list_unlink(&t->link);
            t->where = WHERE_IDLE;
            w->pending--;
            fired++;
            t->fn(t->arg, now_ns); /* may arm or cancel anything */
            continue;
        }
        unsigned lvl = first_level(w);
        if (lvl == TIMERWHEEL_LEVELS)
            break;
        unsigned s = (unsigned)__builtin_ctzll(w->occupied[lvl]);
        uint64_t start = slot_start(w->now_ns, lvl, s);
        if (start > now_ns)
            break;
        /* Every timer here is at or after start and within this slot, so
         * each lands one level down or more (or on the due list). */
        w->now_ns = start;
        w->occupied[lvl] &= ~(1ull << s);
        struct timerwheel_link *head = &w->slot[lvl][s];
        while (!list_empty(head)) {
            struct timerwheel_timer *t = timer_of(head->next);
            list_unlink(&t->link);
            insert(w, t);
        }
    }
    w->now_ns = now_ns;
    w->firing = false;
    while (!list_empty(&w->deferred)) {
        struct timerwheel_timer *t = timer_of(w->deferred.next);
        list_unlink(&t->link);
        insert(w, t);
    }
    return fired;
}

bool timerwheel_next(const struct timerwheel *w, uint64_t *deadline_ns)
{
    if (!list_empty(&w->due)) {
        *deadline_ns = timer_of(w->due.next)->deadline_ns;
        return true;
    }
    unsigned lvl = first_level(w);
    if (lvl == TIMERWHEEL_LEVELS)
        return false;
    unsigned s = (unsigned)__builtin_ctzll(w->occupied[lvl]);
    if (lvl == 0) {
        *deadline_ns = slot_start(w->now_ns, 0, s);
        return true;
    }
    /* The earliest slot holds the earliest timer, but not in order. */
    const struct timerwheel_link *head = &w->slot[lvl][s];
    uint64_t best = UINT64_MAX;
    for (const struct timerwheel_link *l = head->next; l != head; l = l->next)
        if (timer_of(l)->deadline_ns < best)
            best = timer_of(l)->deadline_ns;
    *deadline_ns = best;
    return true;
}
