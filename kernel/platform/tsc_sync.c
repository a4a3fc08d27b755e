/* SPDX-License-Identifier: MIT */
/* kernel/platform/tsc_sync.c: how far a starting core's TSC is from core 0's.
 *
 * First IA32_TSC_ADJUST (Intel SDM vol. 3, 20.17.3), where the CPU has it:
 * firmware should leave it equal on all cores; if it did not, the starting
 * core copies core 0's value, which moves its TSC by the difference.
 *
 * Then the offset d = TSC(ap) - TSC(0) is bounded by causality, over
 * ROUNDS round trips through one cache line: core 0 publishes its TSC t0;
 * the AP, having seen it, reads a later TSC a, so d <= a - t0. The AP
 * publishes a; core 0, having seen it, reads b, so d >= a - b. The tightest
 * bounds [lo, hi] are kept (the AP publishes hi each round; core 0 stops
 * after MIN_ROUNDS once the interval is under a microsecond or BUDGET_NS
 * have passed, at most ROUNDS: a virtual CPU may wait milliseconds for
 * its host thread, and the bounds then just stay wide). If they include 0 the TSCs agree as far as can
 * be measured; otherwise the middle of the interval becomes the core's
 * correction (percpu->tsc_base, used by time_now_ns). Under TCG and on
 * invariant-TSC hardware they agree. Every wait is bounded: a core that
 * stops answering leaves its skew unmeasured (lo = INT64_MIN). */
#include "tsc_sync.h"

#include "kernel/console/console.h"
#include "kernel/time.h"

#define ROUNDS 32
#define MIN_ROUNDS 4
#define BUDGET_NS 20000000ull
#define WAIT_NS 1000000000ull
#define DONE (2 * ROUNDS + 1)

/* phase: (AP index << 32) | step, so a core that gave up never answers for
 * the next one. Steps 2r+1: core 0 published; 2r+2: the AP answered. */
static struct {
    _Alignas(64) _Atomic uint64_t phase;
    _Atomic uint64_t tsc0, tsc_ap;
    _Atomic int64_t ap_hi;
} s;
static bool has_adjust;
static uint64_t adjust0;

void tsc_sync_init(void)
{
    has_adjust = (cpuid(0, 0).eax >= 7) && (cpuid(7, 0).ebx & (1u << 1));
    if (has_adjust)
        adjust0 = rdmsr(MSR_TSC_ADJUST);
}

/* Waits for want (or also, if nonzero, want2); returns the phase seen, 0
 * on timeout. */
static uint64_t wait_phase2(uint64_t want, uint64_t want2)
{
    uint64_t t0 = rdtsc(), limit = WAIT_NS / 1000000000ull * time_tsc_hz();
    for (;;) {
        uint64_t ph = atomic_load(&s.phase);
        if (ph == want || (want2 && ph == want2))
            return ph;
        if (rdtsc() - t0 > limit)
            return 0;
        cpu_pause();
    }
}

static int wait_phase(uint64_t want) { return wait_phase2(want, 0) ? 0 : -1; }

void tsc_sync_bsp(struct percpu *ap)
{
    uint64_t tag = (uint64_t)ap->index << 32;
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    uint64_t tight = time_tsc_hz() / 1000000, end = rdtsc() + BUDGET_NS / 1000000 * tight;
    int ok = 1;
    for (uint64_t r = 0; r < ROUNDS && ok; r++) {
        atomic_store(&s.tsc0, rdtsc());
        atomic_store(&s.phase, tag | (2 * r + 1));
        ok = wait_phase(tag | (2 * r + 2)) == 0;
        uint64_t a = atomic_load(&s.tsc_ap);
        int64_t d = (int64_t)(a - rdtsc_ordered());
        if (ok && d > lo)
            lo = d;
        hi = atomic_load(&s.ap_hi);
        if (ok && r + 1 >= MIN_ROUNDS && ((uint64_t)hi - (uint64_t)lo < tight || rdtsc() > end))
            break;
    }
    atomic_store(&s.phase, tag | DONE);
    if (ok && wait_phase(tag | (DONE + 1)) == 0)
        hi = atomic_load(&s.ap_hi);
    else
        lo = INT64_MIN;
    ap->tsc_skew_lo = lo;
    ap->tsc_skew_hi = hi;
    int64_t off = 0;
    if (lo != INT64_MIN && (lo > 0 || hi < 0))
        off = lo / 2 + hi / 2;
    ap->tsc_base = time_tsc_boot() + (uint64_t)off;
    atomic_store(&s.phase, tag | (DONE + 2)); /* the AP may read its clock */
}

void tsc_sync_ap(struct percpu *self)
{
    uint64_t tag = (uint64_t)self->index << 32;
    if (has_adjust && rdmsr(MSR_TSC_ADJUST) != adjust0)
        wrmsr(MSR_TSC_ADJUST, adjust0);
    int64_t hi = INT64_MAX;
    atomic_store(&s.ap_hi, hi);
    for (uint64_t r = 0; r < ROUNDS; r++) {
        uint64_t ph = wait_phase2(tag | (2 * r + 1), tag | DONE);
        if (ph == 0)
            return;
        if (ph == (tag | DONE))
            break;
        uint64_t t0 = atomic_load(&s.tsc0);
        int64_t d = (int64_t)(rdtsc_ordered() - t0);
        if (d < hi)
            hi = d;
        atomic_store(&s.ap_hi, hi);
        atomic_store(&s.tsc_ap, rdtsc());
        atomic_store(&s.phase, tag | (2 * r + 2));
    }
    if (wait_phase(tag | DONE) != 0)
        return;
    atomic_store(&s.phase, tag | (DONE + 1));
    wait_phase(tag | (DONE + 2));
}
