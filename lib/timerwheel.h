/* SPDX-License-Identifier: MIT */
/* lib/timerwheel.h: a hierarchical timing wheel (Varghese and Lauck,
 * "Hashed and Hierarchical Timing Wheels", SOSP 1987, scheme 7) with exact
 * nanosecond deadlines. Portable (host-tested); one wheel per core, used by
 * kernel/loop.c, never shared.
 *
 * Level L holds the timers whose deadline first differs from the wheel's
 * time in bits [6L, 6L+6); the slot is those six bits. So every timer at
 * level L is later than every timer at level L-1, slots within a level are
 * in deadline order, and a level-0 slot holds one exact deadline. A bitmap
 * per level finds the earliest non-empty slot with one ctz. Arm and cancel
 * are O(1) (a timer armed at or before the wheel's time goes to a sorted
 * "due" list: O(1) when armed in order); a timer moves down at most
 * TIMERWHEEL_LEVELS - 1 times in its life.
 *
 * Guarantees: a timer fires only from timerwheel_advance(w, t) with
 * t >= its deadline (never early), exactly once per arm, and the timers
 * pending at the same time fire in deadline order (ties in arming order).
 * A timer armed by a callback fires in a later advance at the earliest,
 * even if already due, so a callback that re-arms itself for "now" runs
 * once per advance instead of looping. */
#ifndef LIB_TIMERWHEEL_H
#define LIB_TIMERWHEEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TIMERWHEEL_BITS 6
#define TIMERWHEEL_SLOTS (1u << TIMERWHEEL_BITS)
#define TIMERWHEEL_LEVELS 11 /* 11 x 6 bits cover 64-bit deadlines */

struct timerwheel_link {
    struct timerwheel_link *next, *prev;
};

typedef void (*timerwheel_fn)(void *arg, uint64_t now_ns);

struct timerwheel_timer {
    struct timerwheel_link link; /* first: the list code casts back */
    uint64_t deadline_ns;
    timerwheel_fn fn;
    void *arg;
    uint16_t where; /* level * SLOTS + slot, or one of the values below */
};

struct timerwheel {
    uint64_t now_ns; /* every timer in a slot is later than this */
    uint64_t occupied[TIMERWHEEL_LEVELS];
    struct timerwheel_link slot[TIMERWHEEL_LEVELS][TIMERWHEEL_SLOTS];
    struct timerwheel_link due;      /* deadline <= now_ns, sorted */
    struct timerwheel_link deferred; /* armed by a callback of this advance */
    size_t pending;
    bool firing;
};

void timerwheel_init(struct timerwheel *w, uint64_t now_ns);
void timerwheel_timer_init(struct timerwheel_timer *t, timerwheel_fn fn, void *arg);
/* Arms (or re-arms) t for deadline_ns. fn may arm and cancel any timer. */
void timerwheel_arm(struct timerwheel *w, struct timerwheel_timer *t, uint64_t deadline_ns);
/* Cancels t if it is pending; harmless otherwise. */
void timerwheel_cancel(struct timerwheel *w, struct timerwheel_timer *t);
bool timerwheel_pending(const struct timerwheel_timer *t);
/* Fires, in deadline order, every timer due at now_ns; returns how many.
 * Each gets now_ns. Time never goes back: an earlier now_ns is ignored. */
unsigned timerwheel_advance(struct timerwheel *w, uint64_t now_ns);
/* The earliest pending deadline, exact; false when nothing is pending. */
bool timerwheel_next(const struct timerwheel *w, uint64_t *deadline_ns);

#endif
