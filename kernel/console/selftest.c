/* SPDX-License-Identifier: MIT */
/* kernel/console/selftest.c: `debug selftest timers|messages`, run from the
 * console on core 0 against every core's real loop.
 *
 * timers: each core arms SELFTEST_TIMERS timers in one go (deadlines over
 * the next 20 ms, a tenth already past, a tenth tied with their
 * neighbour), cancels every seventh and re-arms every eleventh. Each
 * firing checks it is not early (against the pass time and the clock), not
 * before a timer with an earlier deadline, not repeated and not cancelled.
 * messages: every core sends SELFTEST_MSGS numbered messages to every core
 * (itself too) from a timer that refills its rings each pass; receivers
 * check each sender's numbers arrive in order, none missing or repeated.
 * Then msg_call runs a function on each core and checks where it ran, and
 * loop_wait_quiescent waits for every core to pass a quiescent point.
 * vector: kernel/arch/x86_64/fpu.c's fpu_selftest on every core.
 * State is allocated at the first run (kalloc, on core 0) and reused. */
#include "selftest.h"

#include "kernel/arch/x86_64/fpu.h"
#include "cli.h"
#include "console.h"
#include "kernel/mem/kalloc.h"
#include "kernel/loop.h"
#include "kernel/msg.h"
#include "kernel/platform/percpu.h"
#include "kernel/time.h"

#define SELFTEST_TIMERS 1000
#define SELFTEST_SPAN_NS 20000000ull
#define SELFTEST_MSGS 2000
#define SELFTEST_TIMEOUT_NS 30000000000ull

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static bool time_reached(void *arg) { return time_now_ns() >= *(uint64_t *)arg; }

/* ---- timers ---- */

struct st_core;
struct st_timer {
    struct loop_timer t;
    uint64_t deadline;
    uint32_t fires;
    bool cancelled;
    struct st_core *core;
};

struct st_core {
    struct st_timer *timers;
    bool ready;
    uint64_t last_deadline, max_deadline, max_late_ns;
    uint32_t armed, cancelled, expected, fired, early, out_of_order, repeated, fired_cancelled;
    _Atomic int done;
};

static struct st_core *tcores;

static void on_timer(void *arg, uint64_t now)
{
    struct st_timer *x = arg;
    struct st_core *c = x->core;
    if (x->cancelled)
        c->fired_cancelled++;
    if (x->fires++)
        c->repeated++;
    if (now < x->deadline || time_now_ns() < x->deadline)
        c->early++;
    else if (now - x->deadline > c->max_late_ns)
        c->max_late_ns = now - x->deadline;
    if (x->deadline < c->last_deadline)
        c->out_of_order++;
    c->last_deadline = x->deadline;
    if (++c->fired == c->expected)
        atomic_store(&c->done, 1);
}

static void timers_start(void *arg) /* on the core under test */
{
    struct st_core *c = arg;
    uint64_t now = time_now_ns(), seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)c;
    for (unsigned i = 0; i < SELFTEST_TIMERS; i++) {
        struct st_timer *x = &c->timers[i];
        if (!c->ready)
            loop_timer_init(&x->t, on_timer, x);
        else
            loop_timer_cancel(&x->t);
    }
    c->ready = true;
    c->last_deadline = c->max_deadline = c->max_late_ns = 0;
    c->cancelled = c->fired = c->early = c->out_of_order = c->repeated = c->fired_cancelled = 0;
    for (unsigned i = 0; i < SELFTEST_TIMERS; i++) {
        struct st_timer *x = &c->timers[i];
        uint64_t r = next_rand(&seed), past = r % 1000000;
        if (i % 10 == 0)
            x->deadline = now > past ? now - past : 0;
        else if (i % 10 == 1)
            x->deadline = c->timers[i - 1].deadline;
        else
            x->deadline = now + r % SELFTEST_SPAN_NS;
        x->core = c;
        x->fires = 0;
        x->cancelled = false;
        loop_timer_arm(&x->t, x->deadline);
    }
    for (unsigned i = 0; i < SELFTEST_TIMERS; i++) {
        struct st_timer *x = &c->timers[i];
        if (i % 7 == 3) {
            loop_timer_cancel(&x->t);
            x->cancelled = true;
            c->cancelled++;
        } else if (i % 11 == 5) {
            x->deadline = now + next_rand(&seed) % SELFTEST_SPAN_NS;
            loop_timer_arm(&x->t, x->deadline);
        }
        if (x->deadline > c->max_deadline)
            c->max_deadline = x->deadline;
    }
    c->armed = SELFTEST_TIMERS;
    c->expected = SELFTEST_TIMERS - c->cancelled;
    atomic_store(&c->done, c->expected == 0);
}

static bool timers_done(void *arg)
{
    for (unsigned i = 0; i < cpu_count(); i++)
        if (!atomic_load(&tcores[i].done))
            return false;
    return true;
}

static void copy_timer_result(void *arg) /* on the core under test */
{
    struct st_core *out = arg;
    *out = tcores[cpu_index()];
}

static bool timer_result_ok(const struct st_core *c)
{
    return c->fired == c->expected && !c->early && !c->out_of_order && !c->repeated && !c->fired_cancelled;
}

void selftest_timers(const struct cli_args *a)
{
    unsigned n = cpu_count();
    if (!tcores) {
        tcores = kalloc(sizeof *tcores * n);
        for (unsigned i = 0; i < n; i++)
            tcores[i].timers = kalloc(sizeof(struct st_timer) * SELFTEST_TIMERS);
    }
    uint64_t t0 = time_now_ns();
    bool ok = true;
    for (unsigned i = 0; i < n; i++)
        if (msg_call(i, timers_start, &tcores[i]) != 0)
            ok = false;
    bool finished = ok && loop_run_until(timers_done, 0, SELFTEST_TIMEOUT_NS) == 0;
    uint64_t elapsed = time_now_ns() - t0, settle = 0;
    for (unsigned i = 0; i < n; i++) /* past every deadline, cancelled ones too */
        if (tcores[i].max_deadline > settle)
            settle = tcores[i].max_deadline;
    settle += 2000000;
    loop_run_until(time_reached, &settle, SELFTEST_TIMEOUT_NS);
    struct json j;
    cli_json_begin(&j);
    json_obj_begin(&j, 0);
    json_str(&j, "selftest", "timers");
    json_u64(&j, "cpus", n);
    json_u64(&j, "timers_per_cpu", SELFTEST_TIMERS);
    json_bool(&j, "finished", finished);
    json_u64(&j, "elapsed_ns", elapsed);
    json_arr_begin(&j, "per_cpu");
    for (unsigned i = 0; i < n; i++) {
        struct st_core r = {0};
        if (msg_call(i, copy_timer_result, &r) != 0)
            ok = false;
        ok = ok && timer_result_ok(&r);
        json_obj_begin(&j, 0);
        json_u64(&j, "cpu", i);
        json_u64(&j, "armed", r.armed);
        json_u64(&j, "cancelled", r.cancelled);
        json_u64(&j, "expected", r.expected);
        json_u64(&j, "fired", r.fired);
        json_u64(&j, "early", r.early);
        json_u64(&j, "out_of_order", r.out_of_order);
        json_u64(&j, "repeated", r.repeated);
        json_u64(&j, "fired_cancelled", r.fired_cancelled);
        json_u64(&j, "max_late_ns", r.max_late_ns);
        json_obj_end(&j);
    }
    json_arr_end(&j);
    json_bool(&j, "ok", ok && finished);
    json_obj_end(&j);
    cli_json_end(&j);
}

/* ---- messages ---- */

struct sm_core {
    uint32_t sent[MAX_CPUS];   /* by this core, to each */
    uint32_t expect[MAX_CPUS]; /* the next number from each sender */
    uint32_t bad;              /* out of order, repeated or from nowhere */
    _Atomic uint32_t received;
    _Atomic int send_done;
    struct loop_timer pump;
    bool ready;
};

static struct sm_core *mcores;

static void on_message(void *arg)
{
    struct sm_core *c = &mcores[cpu_index()];
    uint64_t v = (uint64_t)(uintptr_t)arg;
    unsigned from = (unsigned)(v >> 32);
    if (from >= cpu_count() || (uint32_t)v != c->expect[from])
        c->bad++;
    else
        c->expect[from]++;
    atomic_store_explicit(&c->received, atomic_load_explicit(&c->received, memory_order_relaxed) + 1,
                          memory_order_release);
}

/* A burst to every core; again next pass until all are sent. A burst is
 * half a ring, so the rings fill (and msg_send says so) but msg_call
 * still finds room. */
static void pump(void *arg, uint64_t now)
{
    struct sm_core *c = arg;
    unsigned me = cpu_index(), n = cpu_count();
    bool more = false;
    for (unsigned to = 0; to < n; to++) {
        for (unsigned k = 0; k < MSG_RING_SLOTS / 2 && c->sent[to] < SELFTEST_MSGS; k++) {
            void *m = (void *)(uintptr_t)((uint64_t)me << 32 | c->sent[to]);
            if (msg_send(to, on_message, m) != 0)
                break;
            c->sent[to]++;
        }
        more |= c->sent[to] < SELFTEST_MSGS;
    }
    if (more)
        loop_timer_arm(&c->pump, now);
    else
        atomic_store(&c->send_done, 1);
}

static void messages_reset(void *arg) /* on the core under test */
{
    struct sm_core *c = arg;
    if (!c->ready)
        loop_timer_init(&c->pump, pump, c);
    else
        loop_timer_cancel(&c->pump);
    c->ready = true;
    for (unsigned i = 0; i < MAX_CPUS; i++)
        c->sent[i] = c->expect[i] = 0;
    c->bad = 0;
    atomic_store(&c->received, 0);
    atomic_store(&c->send_done, 0);
}

static void messages_start(void *arg) { loop_timer_arm(&((struct sm_core *)arg)->pump, time_now_ns()); }

static bool messages_done(void *arg)
{
    for (unsigned i = 0; i < cpu_count(); i++)
        if (!atomic_load(&mcores[i].send_done) || atomic_load(&mcores[i].received) < cpu_count() * SELFTEST_MSGS)
            return false;
    return true;
}

static void whoami(void *arg) { *(unsigned *)arg = cpu_index(); }
static void read_bad(void *arg) { *(uint32_t *)arg = mcores[cpu_index()].bad; }

void selftest_messages(const struct cli_args *a)
{
    unsigned n = cpu_count();
    if (!mcores)
        mcores = kalloc(sizeof *mcores * n);
    bool ok = true;
    for (unsigned i = 0; i < n; i++)
        ok = ok && msg_call(i, messages_reset, &mcores[i]) == 0;
    uint64_t t0 = time_now_ns();
    for (unsigned i = 0; i < n && ok; i++)
        ok = msg_call(i, messages_start, &mcores[i]) == 0;
    bool finished = ok && loop_run_until(messages_done, 0, SELFTEST_TIMEOUT_NS) == 0;
    uint64_t elapsed = time_now_ns() - t0, settle = time_now_ns() + 10000000;
    loop_run_until(time_reached, &settle, SELFTEST_TIMEOUT_NS); /* anything late shows as extra */
    struct json j;
    cli_json_begin(&j);
    json_obj_begin(&j, 0);
    json_str(&j, "selftest", "messages");
    json_u64(&j, "cpus", n);
    json_u64(&j, "per_pair", SELFTEST_MSGS);
    json_bool(&j, "finished", finished);
    json_u64(&j, "elapsed_ns", elapsed);
    uint64_t call_max_ns = 0;
    json_arr_begin(&j, "per_cpu");
    for (unsigned i = 0; i < n; i++) {
        unsigned where = ~0u;
        uint32_t bad = ~0u;
        uint64_t c0 = time_now_ns();
        bool call_ok = msg_call(i, whoami, &where) == 0 && where == i;
        if (time_now_ns() - c0 > call_max_ns)
            call_max_ns = time_now_ns() - c0;
        call_ok = call_ok && msg_call(i, read_bad, &bad) == 0;
        uint32_t got = atomic_load(&mcores[i].received), sent = 0;
        for (unsigned to = 0; to < n; to++)
            sent += mcores[i].sent[to];
        ok = ok && call_ok && bad == 0 && got == n * SELFTEST_MSGS && sent == n * SELFTEST_MSGS;
        json_obj_begin(&j, 0);
        json_u64(&j, "cpu", i);
        json_u64(&j, "sent", sent);
        json_u64(&j, "received", got);
        json_u64(&j, "expected", n * SELFTEST_MSGS);
        json_u64(&j, "bad", bad);
        json_bool(&j, "call_ok", call_ok);
        json_obj_end(&j);
    }
    json_arr_end(&j);
    json_u64(&j, "call_max_ns", call_max_ns);
    uint64_t q0 = time_now_ns();
    bool quiescent = loop_wait_quiescent() == 0;
    json_bool(&j, "quiescent", quiescent);
    json_u64(&j, "quiescent_ns", time_now_ns() - q0);
    json_bool(&j, "ok", ok && finished && quiescent);
    json_obj_end(&j);
    cli_json_end(&j);
}

/* ---- vector state across an interrupt ---- */

static void vector_check(void *arg) { *(unsigned *)arg = fpu_selftest(); }

void selftest_vector(const struct cli_args *a)
{
    unsigned n = cpu_count();
    bool ok = true;
    struct json j;
    cli_json_begin(&j);
    json_obj_begin(&j, 0);
    json_str(&j, "selftest", "vector");
    json_str(&j, "state", fpu_describe());
    json_arr_begin(&j, "per_cpu");
    for (unsigned i = 0; i < n; i++) {
        unsigned bad = ~0u;
        bool ran = msg_call(i, vector_check, &bad) == 0;
        ok = ok && ran && bad == 0;
        json_obj_begin(&j, 0);
        json_u64(&j, "cpu", i);
        json_bool(&j, "ran", ran);
        json_u64(&j, "lanes_corrupted", bad);
        json_obj_end(&j);
    }
    json_arr_end(&j);
    json_bool(&j, "ok", ok);
    json_obj_end(&j);
    cli_json_end(&j);
}
