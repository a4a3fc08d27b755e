/* SPDX-License-Identifier: MIT */
/* kernel/loop_cmds.c: `show cpus`, the `debug selftest` commands
 * (kernel/console/selftest.c) and the `idle` statement. Counters of
 * other cores are read as they are (each is written by its own core only),
 * so a line is a recent snapshot, not an atomic one. */
#include "loop_cmds.h"

#include "kernel/arch/x86_64/fpu.h"
#include "kernel/arch/x86_64/lapic.h"
#include "kernel/console/cli.h"
#include "kernel/console/config.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/loop.h"
#include "kernel/platform/percpu.h"
#include "kernel/console/selftest.h"
#include "kernel/platform/smp.h"
#include "kernel/time.h"

struct cpu_view {
    uint64_t elapsed_tsc, passes_per_s, busy_ppm;
    int64_t skew_lo_ns, skew_hi_ns;
};

static struct cpu_view view(const struct percpu *p)
{
    struct cpu_view v = {0};
    uint64_t start = p->loop_start_tsc;
    if (start)
        v.elapsed_tsc = rdtsc() - start;
    uint64_t ms = time_tsc_to_ns(v.elapsed_tsc) / 1000000, per_ppm = v.elapsed_tsc / 1000000;
    if (ms)
        v.passes_per_s = p->loop_passes * 1000 / ms;
    if (per_ppm)
        v.busy_ppm = p->busy_tsc / per_ppm;
    bool measured = p->index != 0 && p->tsc_skew_lo != INT64_MIN;
    v.skew_lo_ns = measured ? time_ticks_signed_ns(p->tsc_skew_lo) : 0;
    v.skew_hi_ns = measured ? time_ticks_signed_ns(p->tsc_skew_hi) : 0;
    return v;
}

static void cpu_json(struct json *j, const struct percpu *p)
{
    struct cpu_view v = view(p);
    json_obj_begin(j, 0);
    json_u64(j, "cpu", p->index);
    json_u64(j, "apic_id", p->apic_id);
    json_bool(j, "running", p->loop_start_tsc != 0);
    json_u64(j, "loop_passes", p->loop_passes);
    json_u64(j, "passes_per_s", v.passes_per_s);
    json_u64(j, "work_passes", p->work_passes);
    json_fixed(j, "busy_share", v.busy_ppm, 6);
    json_u64(j, "irqs", p->irqs);
    json_u64(j, "timer_irqs", p->timer_irqs);
    json_u64(j, "wake_irqs", p->wake_irqs);
    json_u64(j, "halts", p->halts);
    json_u64(j, "msgs_handled", p->msgs_handled);
    json_u64(j, "msgs_sent", p->msgs_sent);
    json_u64(j, "msgs_ring_full", p->msgs_ring_full);
    json_u64(j, "calls", p->calls);
    json_u64(j, "calls_busy", p->calls_busy);
    json_u64(j, "calls_timeout", p->calls_timeout);
    json_u64(j, "timers_fired", p->timers_fired);
    json_u64(j, "start_ns", p->start_ns);
    json_i64(j, "tsc_skew_lo_ns", v.skew_lo_ns);
    json_i64(j, "tsc_skew_hi_ns", v.skew_hi_ns);
    json_bool(j, "tsc_skew_measured", p->index == 0 || p->tsc_skew_lo != INT64_MIN);
    json_arr_begin(j, "pollers");
    for (unsigned i = 0; i < loop_poller_count(p->index); i++)
        json_str(j, 0, loop_poller_name(p->index, i));
    json_arr_end(j);
    json_obj_end(j);
}

static void show_json(void)
{
    struct json j;
    cli_json_begin(&j);
    json_obj_begin(&j, 0);
    json_u64(&j, "cpus", cpu_count());
    json_str(&j, "idle", loop_idle_name());
    json_str(&j, "apic_mode", lapic_mode());
    json_str(&j, "timer_mode", lapic_timer_mode());
    json_u64(&j, "tsc_hz", time_tsc_hz());
    json_str(&j, "tsc_source", time_tsc_source());
    json_bool(&j, "tsc_invariant", time_tsc_invariant());
    json_str(&j, "vector_state", fpu_describe());
    json_u64(&j, "smp_start_ns", smp_start_ns());
    json_arr_begin(&j, "per_cpu");
    for (unsigned i = 0; i < cpu_count(); i++)
        cpu_json(&j, percpu_at(i));
    json_arr_end(&j);
    json_obj_end(&j);
    cli_json_end(&j);
}

static void cmd_show_cpus(const struct cli_args *a)
{
    if (a->json) {
        show_json();
        return;
    }
    kprintf("%3s %5s %12s %10s %7s %6s %6s %6s %8s %8s  %s\n", "cpu", "apic", "passes", "passes/s", "busy%",
            "irqs", "timer", "wake", "msgs", "timers", "start, TSC offset");
    for (unsigned i = 0; i < cpu_count(); i++) {
        const struct percpu *p = percpu_at(i);
        struct cpu_view v = view(p);
        kprintf("%3u %5u %12lu %10lu %3lu.%03lu %6lu %6lu %6lu %8lu %8lu  ", i, p->apic_id, p->loop_passes,
                v.passes_per_s, v.busy_ppm / 10000, v.busy_ppm / 10 % 1000, p->irqs, p->timer_irqs, p->wake_irqs,
                p->msgs_handled, p->timers_fired);
        if (i == 0)
            kprintf("boot core\n");
        else
            kprintf("%lu us, [%ld, %ld] ns\n", p->start_ns / 1000, v.skew_lo_ns, v.skew_hi_ns);
    }
    kprintf("idle %s; %s, timer %s; TSC %lu kHz (%s), %s; %s\n", loop_idle_name(), lapic_mode(),
            lapic_timer_mode(), time_tsc_hz() / 1000, time_tsc_source(),
            time_tsc_invariant() ? "invariant" : "not invariant", fpu_describe());
}

static int stmt_idle(int argc, char **argv, char *err, size_t errlen)
{
    if (argc == 2 && strcmp(argv[1], "poll") == 0)
        loop_set_idle(LOOP_IDLE_POLL);
    else if (argc == 2 && strcmp(argv[1], "halt") == 0)
        loop_set_idle(LOOP_IDLE_HALT);
    else {
        strncpy_z(err, "usage: idle poll|halt", errlen);
        return -1;
    }
    return 0;
}

void loop_cmds_init(void)
{
    cli_register("show cpus", "show cpus [json]", "cores: loop passes, busy share, interrupts, messages",
                 cmd_show_cpus);
    cli_register("debug selftest timers", "debug selftest timers",
                 "timers on every core: order, never early (JSON)", selftest_timers);
    cli_register("debug selftest messages", "debug selftest messages",
                 "messages between all cores: none lost or repeated (JSON)", selftest_messages);
    cli_register("debug selftest vector", "debug selftest vector",
                 "vector registers survive an interrupt, every core (JSON)", selftest_vector);
    config_register("idle", stmt_idle);
}
