/* SPDX-License-Identifier: MIT */
/* tests/unit/lib/timerwheel.c: lib/timerwheel.c against a reference
 * model (an array scanned in full): random arms, re-arms, cancels and
 * advances over every magnitude of delay; each advance must fire exactly
 * the timers the model says are due, in (deadline, arm order) order, none
 * early, and timerwheel_next must name the model's earliest deadline. */
#include <stdlib.h>

#include "lib/timerwheel.h"
#include "tests/unit/check.h"

#define N 1500

struct model {
    struct timerwheel_timer t;
    int armed;
    uint64_t deadline, seq;
};

static struct timerwheel wheel;
static struct model m[N];
static uint64_t seq, rng = 0x9e3779b97f4a7c15ull;
static int fired[N * 4], nfired;
static uint64_t fire_now;

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Delays spread over every magnitude from 0 to 2^62 ns, a few in the past. */
static uint64_t random_deadline(uint64_t now)
{
    uint64_t r = next_rand();
    unsigned bits = (unsigned)(r % 63);
    uint64_t delta = bits ? next_rand() & ((1ull << bits) - 1) : 0;
    if (r % 17 == 0)
        return now > delta ? now - delta : 0;
    return now + delta;
}

static void on_fire(void *arg, uint64_t now)
{
    struct model *x = arg;
    CHECK(x->armed);
    CHECK(x->deadline <= now); /* never early */
    CHECK_EQ(now, fire_now);
    x->armed = 0;
    fired[nfired++] = (int)(x - m);
}

static void arm(int i, uint64_t d)
{
    timerwheel_arm(&wheel, &m[i].t, d);
    m[i].armed = 1;
    m[i].deadline = d;
    m[i].seq = seq++;
}

static int cmp_due(const void *a, const void *b)
{
    const struct model *x = &m[*(const int *)a], *y = &m[*(const int *)b];
    if (x->deadline != y->deadline)
        return x->deadline < y->deadline ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void advance_and_check(uint64_t t)
{
    if (t < wheel.now_ns)
        t = wheel.now_ns;
    int expect[N], n = 0;
    for (int i = 0; i < N; i++)
        if (m[i].armed && m[i].deadline <= t)
            expect[n++] = i;
    qsort(expect, (size_t)n, sizeof expect[0], cmp_due);
    nfired = 0;
    fire_now = t;
    unsigned got = timerwheel_advance(&wheel, t);
    CHECK_EQ(got, n);
    CHECK_EQ(nfired, n);
    for (int k = 0; k < n && k < nfired; k++)
        if (fired[k] != expect[k]) {
            CHECK_EQ(fired[k], expect[k]);
            break;
        }
}

static void check_next(void)
{
    uint64_t best = UINT64_MAX, got = 0;
    int any = 0;
    size_t armed = 0;
    for (int i = 0; i < N; i++)
        if (m[i].armed) {
            armed++;
            any = 1;
            if (m[i].deadline < best)
                best = m[i].deadline;
        }
    CHECK_EQ(wheel.pending, armed);
    CHECK_EQ(timerwheel_next(&wheel, &got), any);
    if (any)
        CHECK(got == best);
}

static void setup(uint64_t start)
{
    timerwheel_init(&wheel, start);
    for (int i = 0; i < N; i++) {
        timerwheel_timer_init(&m[i].t, on_fire, &m[i]);
        m[i].armed = 0;
    }
}

static void run_random(uint64_t start, int rounds)
{
    setup(start);
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 40; k++) {
            int i = (int)(next_rand() % N);
            if (next_rand() % 5 == 0) {
                timerwheel_cancel(&wheel, &m[i].t);
                m[i].armed = 0;
                CHECK(!timerwheel_pending(&m[i].t));
            } else {
                arm(i, random_deadline(wheel.now_ns));
                CHECK(timerwheel_pending(&m[i].t));
            }
        }
        check_next();
        uint64_t step = next_rand() % 4 == 0 ? next_rand() >> (next_rand() % 64) : next_rand() % 5000;
        uint64_t t = wheel.now_ns + step < wheel.now_ns ? UINT64_MAX : wheel.now_ns + step;
        advance_and_check(t);
        check_next();
    }
    advance_and_check(UINT64_MAX);
    CHECK_EQ(wheel.pending, 0);
}

TEST(timerwheel_matches_model)
{
    run_random(0, 3000);
    run_random(123456789, 3000);
    run_random(0x7fffffffffff0000ull, 2000);
}

TEST(timerwheel_edges)
{
    setup(1000);
    arm(0, 1000);       /* exactly now: due at once */
    arm(1, 999);        /* in the past */
    arm(2, 1001);
    arm(3, UINT64_MAX); /* the far end of time */
    arm(4, 1001);       /* tie with 2: fires after it */
    check_next();
    advance_and_check(1000);
    CHECK(!m[0].armed && !m[1].armed && m[2].armed);
    advance_and_check(1001);
    CHECK(!m[2].armed && !m[4].armed && m[3].armed);
    advance_and_check(500); /* backwards: nothing, the wheel keeps its time */
    CHECK_EQ(wheel.now_ns, 1001);
    advance_and_check(UINT64_MAX - 1);
    CHECK(m[3].armed);
    advance_and_check(UINT64_MAX);
    CHECK(!m[3].armed);
    CHECK_EQ(wheel.pending, 0);
}

/* Callbacks that re-arm themselves and cancel others, as protocol timers do. */
static struct timerwheel_timer chain[64];
static uint64_t chain_dl[64], chain_fires[64], chain_prev;
static int chain_order_bad, chain_early;

static void on_chain(void *arg, uint64_t now)
{
    int i = (int)(intptr_t)arg;
    if (chain_dl[i] > now)
        chain_early++;
    if (chain_dl[i] < chain_prev)
        chain_order_bad++;
    chain_prev = chain_dl[i];
    chain_fires[i]++;
    if (chain_fires[i] < 50) {
        chain_dl[i] = now + 1 + (uint64_t)(i * 7919 % 1000) * (i % 3 ? 1 : 100000);
        timerwheel_arm(&wheel, &chain[i], chain_dl[i]);
    }
    int victim = (i * 13 + 5) % 64;
    if (victim % 9 == 0 && timerwheel_pending(&chain[victim]) && chain_fires[victim] > 40) {
        timerwheel_cancel(&wheel, &chain[victim]);
        chain_fires[victim] = 1000; /* cancelled for good */
    }
}

TEST(timerwheel_callbacks_rearm_and_cancel)
{
    timerwheel_init(&wheel, 0);
    chain_prev = 0;
    chain_order_bad = chain_early = 0;
    for (int i = 0; i < 64; i++) {
        timerwheel_timer_init(&chain[i], on_chain, (void *)(intptr_t)i);
        chain_dl[i] = (uint64_t)(i + 1) * 1000;
        chain_fires[i] = 0;
        timerwheel_arm(&wheel, &chain[i], chain_dl[i]);
    }
    for (uint64_t t = 0; wheel.pending && t < 1000000000000ull; t += 777)
        timerwheel_advance(&wheel, t);
    CHECK_EQ(wheel.pending, 0);
    CHECK_EQ(chain_early, 0);
    CHECK_EQ(chain_order_bad, 0);
    for (int i = 0; i < 64; i++)
        CHECK(chain_fires[i] == 50 || chain_fires[i] == 1000);
}

/* A callback that re-arms itself for "now" runs once per advance. */
static struct timerwheel_timer self_timer;
static unsigned self_runs;

static void on_self(void *arg, uint64_t now)
{
    self_runs++;
    timerwheel_arm(&wheel, &self_timer, now);
}

TEST(timerwheel_rearm_now_runs_once_per_advance)
{
    timerwheel_init(&wheel, 0);
    self_runs = 0;
    timerwheel_timer_init(&self_timer, on_self, 0);
    timerwheel_arm(&wheel, &self_timer, 10);
    CHECK_EQ(timerwheel_advance(&wheel, 5), 0);
    CHECK_EQ(timerwheel_advance(&wheel, 10), 1);
    CHECK_EQ(timerwheel_advance(&wheel, 10), 1);
    CHECK_EQ(timerwheel_advance(&wheel, 1000), 1);
    CHECK_EQ(self_runs, 3);
    CHECK(timerwheel_pending(&self_timer));
    timerwheel_cancel(&wheel, &self_timer);
    CHECK_EQ(wheel.pending, 0);
    CHECK_EQ(timerwheel_advance(&wheel, 2000), 0);
}
