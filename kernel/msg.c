/* SPDX-License-Identifier: MIT */
/* kernel/msg.c: core-to-core messages (kernel/msg.h).
 *
 * Ring [from][to] is written only by core `from` and read only by core
 * `to` (lib/spsc.h). So that a core need not look at every ring on each
 * pass, a sender also sets its bit in the target's inbox bitmap (an atomic
 * OR, after the message is in the ring); the target swaps the word to zero
 * and drains the rings whose bits it got. The swap is a full barrier, so a
 * message pushed before a bit was set is always seen. A sleeping target is
 * woken with an IPI (kernel/loop.c's halt).
 *
 * msg_call's record lives with the ring, one per ordered pair (a core waits
 * for one call at a time). Its state decides who owns the arguments:
 * QUEUED -> RUNNING -> DONE on the target; on a timeout the caller moves
 * QUEUED -> CANCELLED and the target, finding that, skips the call and
 * frees the record. A call already RUNNING is waited for, since its
 * arguments live in the caller's frame. */
#include "msg.h"

#include "kernel/arch/x86_64/lapic.h"
#include "kernel/console/console.h"
#include "kernel/mem/kalloc.h"
#include "kernel/loop.h"
#include "kernel/platform/percpu.h"
#include "lib/spsc.h"
#include "kernel/time.h"

#define INBOX_WORDS (MAX_CPUS / 64)
#define CALL_RUNNING_LIMIT_NS 60000000000ull /* a handler this slow is a bug */

enum { CALL_FREE, CALL_QUEUED, CALL_RUNNING, CALL_DONE, CALL_CANCELLED };

struct msg_call {
    _Atomic uint32_t state;
    msg_fn fn;
    void *arg;
};

struct msg_chan {
    struct spsc_ring *ring;
    struct msg_call call;
};

struct msg_inbox {
    _Alignas(64) _Atomic uint64_t pending[INBOX_WORDS]; /* bit: a sender */
};

static struct msg_chan *chans; /* [from * ncpus + to] */
static struct msg_inbox *inbox;  /* [to] */
static unsigned ncpus, nwords;

void msg_init(void)
{
    ncpus = cpu_count();
    nwords = (ncpus + 63) / 64;
    chans = kalloc(sizeof *chans * ncpus * ncpus);
    inbox = kalloc(sizeof *inbox * ncpus);
    for (unsigned i = 0; i < ncpus * ncpus; i++) {
        chans[i].ring = kalloc(spsc_bytes(MSG_RING_SLOTS));
        spsc_init(chans[i].ring, MSG_RING_SLOTS);
    }
}

int msg_send(unsigned to, msg_fn fn, void *arg)
{
    struct percpu *self = percpu_self();
    if (to >= ncpus)
        return -1;
    unsigned from = self->index;
    if (!spsc_push(chans[from * ncpus + to].ring, (struct spsc_msg){fn, arg})) {
        self->msgs_ring_full++;
        return -1;
    }
    self->msgs_sent++;
    atomic_fetch_or(&inbox[to].pending[from / 64], 1ull << (from % 64));
    struct percpu *target = percpu_at(to);
    if (atomic_load(&target->sleeping))
        lapic_send_ipi(target->apic_id, LAPIC_WAKE_VECTOR);
    return 0;
}

bool msg_pending(void)
{
    struct msg_inbox *in = &inbox[cpu_index()];
    for (unsigned w = 0; w < nwords; w++)
        if (atomic_load(&in->pending[w]))
            return true;
    return false;
}

unsigned msg_poll(void)
{
    if (!inbox)
        return 0;
    struct percpu *self = percpu_self();
    unsigned me = self->index, handled = 0;
    struct msg_inbox *in = &inbox[me];
    for (unsigned w = 0; w < nwords; w++) {
        if (!atomic_load_explicit(&in->pending[w], memory_order_relaxed))
            continue;
        uint64_t bits = atomic_exchange(&in->pending[w], 0);
        while (bits) {
            unsigned from = w * 64 + (unsigned)__builtin_ctzll(bits);
            bits &= bits - 1;
            struct spsc_ring *r = chans[from * ncpus + me].ring;
            struct spsc_msg m;
            unsigned k = 0;
            while (k < MSG_BURST && spsc_pop(r, &m)) {
                k++;
                self->msgs_handled++;
                m.fn(m.arg); /* popped first: fn may nest a loop pass */
            }
            if (k == MSG_BURST) /* more may wait: look again next pass */
                atomic_fetch_or(&in->pending[w], 1ull << (from % 64));
            handled += k;
        }
    }
    return handled;
}

static void call_run(void *arg)
{
    struct msg_call *c = arg;
    uint32_t queued = CALL_QUEUED;
    if (atomic_compare_exchange_strong(&c->state, &queued, CALL_RUNNING)) {
        c->fn(c->arg);
        atomic_store(&c->state, CALL_DONE);
    } else { /* the caller gave up on it */
        atomic_store(&c->state, CALL_FREE);
    }
}

static bool call_done(void *arg) { return atomic_load(&((struct msg_call *)arg)->state) == CALL_DONE; }

struct call_send {
    unsigned to;
    struct msg_call *c;
};

static bool call_queued(void *arg)
{
    struct call_send *s = arg;
    return msg_send(s->to, call_run, s->c) == 0;
}

int msg_call(unsigned cpu, msg_fn fn, void *arg)
{
    if (cpu >= ncpus)
        return -1;
    struct percpu *me = percpu_self();
    unsigned self = me->index;
    me->calls++;
    if (cpu == self) {
        fn(arg);
        return 0;
    }
    struct msg_call *c = &chans[self * ncpus + cpu].call;
    if (atomic_load(&c->state) != CALL_FREE) { /* a cancelled call not yet seen there */
        me->calls_busy++;
        return -1;
    }
    c->fn = fn;
    c->arg = arg;
    atomic_store(&c->state, CALL_QUEUED);
    uint64_t t0 = time_now_ns();
    struct call_send s = {cpu, c};
    if (loop_run_until(call_queued, &s, MSG_CALL_TIMEOUT_NS) != 0) { /* the ring stayed full */
        atomic_store(&c->state, CALL_FREE);
        me->calls_timeout++;
        return -1;
    }
    uint64_t used = time_now_ns() - t0;
    if (loop_run_until(call_done, c, used < MSG_CALL_TIMEOUT_NS ? MSG_CALL_TIMEOUT_NS - used : 0) != 0) {
        uint32_t queued = CALL_QUEUED;
        me->calls_timeout++;
        if (atomic_compare_exchange_strong(&c->state, &queued, CALL_CANCELLED))
            return -1;
        if (loop_run_until(call_done, c, CALL_RUNNING_LIMIT_NS) != 0)
            panic("msg_call: cpu %u has run a call for over %llu s", cpu, CALL_RUNNING_LIMIT_NS / 1000000000ull);
    }
    atomic_store(&c->state, CALL_FREE);
    return 0;
}
