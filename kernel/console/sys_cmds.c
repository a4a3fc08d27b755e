/* SPDX-License-Identifier: MIT */
/* kernel/console/sys_cmds.c: console commands about the machine itself:
 * show version, shutdown, and debug (faults on purpose, for the tests). */
#include "sys_cmds.h"

#include "kernel/platform/acpi.h"
#include "kernel/arch/x86_64/cpu.h"
#include "cli.h"
#include "console.h"
#include "kernel/lib.h"
#include "kernel/platform/multiboot.h"
#include "kernel/platform/percpu.h"
#include "kernel/mem/pmm.h"
#include "kernel/time.h"
#include "version.h"

#define ISA_DEBUG_EXIT_PORT 0xf4 /* QEMU -device isa-debug-exit,iobase=0xf4 */

static uint64_t boot_ready_ns;

void sys_mark_ready(void) { boot_ready_ns = time_now_ns(); }

static void cmd_show_version(const struct cli_args *a)
{
    uint64_t mem = pmm_total_pages() * PAGE_SIZE_BYTES, up = time_now_ns();
    if (a->json) {
        struct json j;
        cli_json_begin(&j);
        json_obj_begin(&j, 0);
        json_str(&j, "name", "hayate");
        json_str(&j, "version", HAYATE_VERSION);
        json_str(&j, "commit", version_commit);
        json_str(&j, "built", version_built);
        json_str(&j, "hostname", cli_hostname());
        json_u64(&j, "cpus", cpu_count());
        json_u64(&j, "memory_bytes", mem);
        json_u64(&j, "tsc_hz", time_tsc_hz());
        json_str(&j, "tsc_source", time_tsc_source());
        json_u64(&j, "boot_ns", boot_ready_ns);
        json_u64(&j, "uptime_ns", up);
        json_obj_end(&j);
        cli_json_end(&j);
        return;
    }
    kprintf("hayate %s (commit %s, built %s)\n", HAYATE_VERSION, version_commit, version_built);
    kprintf("  cpus %u, memory %lu MiB, TSC %lu.%03lu MHz (%s)\n", cpu_count(), mem >> 20,
            time_tsc_hz() / 1000000, time_tsc_hz() / 1000 % 1000, time_tsc_source());
    kprintf("  booted in %lu ms, up %lu.%03lu s\n", boot_ready_ns / 1000000, up / 1000000000,
            up / 1000000 % 1000);
}

void sys_poweroff(void)
{
    kprintf("hayate: powering off\n");
    acpi_poweroff();
    /* Only under QEMU, and only when ACPI failed: exits with status 1. */
    outb(ISA_DEBUG_EXIT_PORT, 0);
    kprintf("hayate: power-off failed; halting\n");
    cpu_halt_forever();
}

static void cmd_shutdown(const struct cli_args *a) { sys_poweroff(); }

static void cmd_debug_fault(const struct cli_args *a)
{
    const char *kind = a->argc ? a->argv[0] : "";
    if (strcmp(kind, "page") == 0) {
        volatile uint64_t *bad = (volatile uint64_t *)0xdead000;
        *bad = 1;
    } else if (strcmp(kind, "gp") == 0) {
        volatile uint64_t *noncanonical = (volatile uint64_t *)0x8000000000000000ull;
        (void)*noncanonical;
    } else if (strcmp(kind, "ud") == 0) {
        __asm__ volatile("ud2");
    } else {
        kprintf("usage: debug fault page|gp|ud\n");
    }
}

void sys_cmds_init(void)
{
    cli_register("show version", "show version [json]", "release, build, uptime", cmd_show_version);
    cli_register("shutdown", "shutdown", "power off (ACPI S5)", cmd_shutdown);
    cli_register("debug fault", "debug fault page|gp|ud", "raise a CPU exception on purpose", cmd_debug_fault);
}
