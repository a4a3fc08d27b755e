/* SPDX-License-Identifier: MIT */
/* kernel/loop.c: the per-core run loop (kernel/loop.h). Share-nothing, as
 * in mTCP and iip: each core has its own pollers, timer wheel, counters
 * (struct percpu) and inbound message rings; cores meet only through
 * kernel/msg.c and the quiescent-state epoch below. */
#include "loop.h"

#include "kernel/arch/x86_64/lapic.h"
#include "kernel/console/console.h"
#include "kernel/mem/kalloc.h"
#include "kernel/msg.h"
#include "kernel/platform/percpu.h"
#include "kernel/time.h"

#define HALT_AFTER_IDLE_NS 50000ull /* idle this long before halting */
#define HALT_MIN_NS 5000ull         /* a shorter sleep is not worth it */
#define MAX_NESTING 2
#define QS_TIMEOUT_NS 1000000000ull

struct loop_poller {
    loop_fn fn;
    void *arg;
    const char *name;
    bool active; /* running now: a nested pass skips it */
};

struct loop_core {
    struct timerwheel wheel;
    struct loop_poller poller[LOOP_MAX_POLLERS];
    unsigned npollers;
    unsigned depth;     /* nested passes running (loop_run_until) */
    bool in_timers;     /* the wheel is not re-entrant */
    uint64_t last_work_ns;
};

static _Atomic int started;
static _Atomic uint64_t epoch = 1;
static _Atomic int idle_policy = LOOP_IDLE_POLL;

void loop_init(void)
{
    uint64_t now = time_now_ns();
    for (unsigned i = 0; i < cpu_count(); i++) {
        struct loop_core *l = kalloc(sizeof *l);
        timerwheel_init(&l->wheel, now);
        percpu_at(i)->loop = l;
    }
    msg_init();
}

static struct loop_core *core_loop(unsigned cpu)
{
    struct percpu *p = percpu_at(cpu);
    return p ? p->loop : 0;
}

int loop_add_poller(unsigned cpu, const char *name, loop_fn fn, void *arg)
{
    struct loop_core *l = core_loop(cpu);
    if (!l || l->npollers == LOOP_MAX_POLLERS || (loop_started() && cpu != cpu_index()))
        return -1;
    l->poller[l->npollers] = (struct loop_poller){fn, arg, name, false};
    l->npollers++;
    return 0;
}

bool loop_started(void) { return atomic_load_explicit(&started, memory_order_acquire) != 0; }
void loop_note_work(unsigned n) { percpu_self()->work += n; }

/* One pass. Only an outer pass is a quiescent point: a nested one runs
 * inside a poller that may hold references. */
static void pass(struct percpu *c, struct loop_core *l, bool outer)
{
    uint64_t t0 = rdtsc(), now = time_ns_at(t0);
    c->work = msg_poll();
    if (!l->in_timers) {
        l->in_timers = true;
        unsigned n = timerwheel_advance(&l->wheel, now);
        l->in_timers = false;
        c->timers_fired += n;
        c->work += n;
    }
    for (unsigned i = 0; i < l->npollers; i++) {
        struct loop_poller *p = &l->poller[i];
        if (p->active)
            continue;
        p->active = true;
        p->fn(p->arg, now);
        p->active = false;
    }
    c->loop_passes++;
    if (outer)
        atomic_store_explicit(&c->qs_epoch, atomic_load_explicit(&epoch, memory_order_acquire),
                              memory_order_release);
    if (c->work) {
        c->work_passes++;
        if (outer) /* a nested pass's time is inside its outer pass's */
            c->busy_tsc += rdtsc() - t0;
        l->last_work_ns = now;
    }
}

/* Sleep until the next timer (or LOOP_HALT_MAX_NS). A message sent meanwhile
 * wakes the core with an IPI: kernel/msg.c sends one when it sees sleeping
 * set, and we look for messages after setting it (both sequentially
 * consistent, so one of the two sides sees the other). */
static void halt(struct percpu *c, struct loop_core *l)
{
    uint64_t now = time_now_ns(), next, sleep = LOOP_HALT_MAX_NS;
    if (now - l->last_work_ns < HALT_AFTER_IDLE_NS)
        return;
    if (timerwheel_next(&l->wheel, &next) && next < now + sleep)
        sleep = next > now ? next - now : 0;
    if (sleep < HALT_MIN_NS)
        return;
    atomic_store(&c->sleeping, 1);
    if (!msg_pending()) {
        lapic_timer_arm_ns(sleep);
        c->halts++;
        cpu_sti_hlt();
        cpu_cli();
        lapic_timer_stop();
    }
    atomic_store(&c->sleeping, 0);
}

__attribute__((noreturn)) static void run(void)
{
    struct percpu *c = percpu_self();
    struct loop_core *l = c->loop;
    c->loop_start_tsc = rdtsc();
    l->last_work_ns = time_now_ns();
    for (;;) {
        pass(c, l, true);
        if (c->work)
            continue;
        if (atomic_load_explicit(&idle_policy, memory_order_relaxed) == LOOP_IDLE_HALT)
            halt(c, l);
        else
            cpu_pause();
    }
}

/* The other cores wait halted (not spinning: that would take an SMT
 * sibling's, or under TCG a host thread's, time from core 0's boot) and
 * get one wake-up IPI. The same store/load pairing as halt(). */
void loop_start_all(void)
{
    atomic_store(&started, 1);
    for (unsigned i = 1; i < cpu_count(); i++)
        if (atomic_load(&percpu_at(i)->sleeping))
            lapic_send_ipi(percpu_at(i)->apic_id, LAPIC_WAKE_VECTOR);
    run();
}

void loop_run_ap(void)
{
    struct percpu *c = percpu_self();
    for (;;) {
        atomic_store(&c->sleeping, 1);
        if (loop_started())
            break;
        cpu_sti_hlt();
        cpu_cli();
    }
    atomic_store(&c->sleeping, 0);
    run();
}

int loop_run_until(bool (*done)(void *arg), void *arg, uint64_t timeout_ns)
{
    struct percpu *c = percpu_self();
    struct loop_core *l = c->loop;
    uint64_t end = time_now_ns() + timeout_ns;
    uint32_t work = c->work;
    int r = 0;
    while (!done(arg)) {
        if (time_now_ns() >= end) {
            r = -1;
            break;
        }
        if (l && l->depth < MAX_NESTING) {
            l->depth++;
            pass(c, l, false);
            l->depth--;
        }
        cpu_pause();
    }
    c->work = work + 1; /* the caller's pass did work: it waited for some */
    return r;
}

void loop_timer_init(struct loop_timer *t, loop_fn fn, void *arg)
{
    timerwheel_timer_init(&t->tw, fn, arg);
    t->cpu = 0;
}

static struct loop_core *timer_core(const struct loop_timer *t)
{
    struct percpu *c = percpu_self();
    if (!c->loop)
        panic("loop: timer used before loop_init");
    if (timerwheel_pending(&t->tw) && t->cpu != c->index)
        panic("loop: timer pending on cpu %u, touched from cpu %u", t->cpu, c->index);
    return c->loop;
}

void loop_timer_arm(struct loop_timer *t, uint64_t deadline_ns)
{
    struct loop_core *l = timer_core(t);
    t->cpu = cpu_index();
    timerwheel_arm(&l->wheel, &t->tw, deadline_ns);
}

void loop_timer_cancel(struct loop_timer *t) { timerwheel_cancel(&timer_core(t)->wheel, &t->tw); }
bool loop_timer_pending(const struct loop_timer *t) { return timerwheel_pending(&t->tw); }
size_t loop_timers_pending(void) { return percpu_self()->loop ? percpu_self()->loop->wheel.pending : 0; }

uint64_t loop_quiescent_epoch(void) { return atomic_fetch_add(&epoch, 1) + 1; }

bool loop_quiescent_since(uint64_t e)
{
    if (!loop_started())
        return true; /* only core 0 runs: nobody else holds anything */
    unsigned self = cpu_index(), n = cpu_count();
    for (unsigned i = 0; i < n; i++)
        if (i != self && atomic_load_explicit(&percpu_at(i)->qs_epoch, memory_order_acquire) < e)
            return false;
    return true;
}

static bool qs_done(void *arg) { return loop_quiescent_since(*(uint64_t *)arg); }

int loop_wait_quiescent(void)
{
    uint64_t e = loop_quiescent_epoch();
    return loop_run_until(qs_done, &e, QS_TIMEOUT_NS);
}

void loop_set_idle(enum loop_idle policy) { atomic_store(&idle_policy, policy); }
const char *loop_idle_name(void) { return atomic_load(&idle_policy) == LOOP_IDLE_HALT ? "halt" : "poll"; }

unsigned loop_poller_count(unsigned cpu)
{
    struct loop_core *l = core_loop(cpu);
    return l ? l->npollers : 0;
}

const char *loop_poller_name(unsigned cpu, unsigned i)
{
    struct loop_core *l = core_loop(cpu);
    return l && i < l->npollers ? l->poller[i].name : 0;
}
