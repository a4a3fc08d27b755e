/* SPDX-License-Identifier: MIT */
/* kernel/main.c: kernel_main64, entered from boot/multiboot2.asm on the
 * bootstrap core with the early page tables. One init call a line. */
#include "drivers/pci/pci.h"
#include "drivers/pci/pci_cmds.h"
#include "kernel/platform/acpi.h"
#include "kernel/app_runner.h"
#include "kernel/arch/x86_64/trap.h"
#include "kernel/console/cli.h"
#include "kernel/console/config.h"
#include "kernel/console/console.h"
#include "kernel/loop.h"
#include "kernel/loop_cmds.h"
#include "kernel/mem/memmap.h"
#include "kernel/platform/multiboot.h"
#include "kernel/netsvc/netsvc.h"
#include "kernel/platform/percpu.h"
#include "kernel/mem/pktmem.h"
#include "kernel/mem/pmm.h"
#include "kernel/ports.h"
#include "kernel/platform/smp.h"
#include "kernel/console/sys_cmds.h"
#include "kernel/time.h"
#include "kernel/console/version.h"
#include "kernel/mem/vm.h"
#include "kernel/arch/x86_64/cpu.h"
#include "kernel/arch/x86_64/fpu.h"

#define MB2_BOOTED 0x36d76289u

/* The bootstrap core's stack (boot/multiboot2.asm switches to it). */
__attribute__((aligned(16))) static uint8_t boot_stack[64 * 1024];
uint8_t *const boot_stack_top_ptr = boot_stack + sizeof boot_stack;
static struct cpu_tables bsp_tables;

/* Used when no configuration module was given. */
static const char default_config[] = "hostname hayate\n";

static void report_config_error(int line_no, const char *msg) { kprintf("config: line %d: %s\n", line_no, msg); }

/* The configuration is the first module (tools/mkiso puts it there). */
static const char *config_text(size_t *len)
{
    if (boot_info.nmodules == 0) {
        *len = sizeof default_config - 1;
        return default_config;
    }
    const struct boot_module *m = &boot_info.modules[0];
    *len = m->end - m->start;
    return phys_to_virt(m->start);
}

/* What decides which ports there are, before they are probed. */
static void apply_config_early(void)
{
    size_t len;
    const char *text = config_text(&len);
    config_apply_only(text, len, "sriov", ports_sriov_stmt, report_config_error);
}

static void apply_config(void)
{
    size_t len;
    const char *text = config_text(&len);
    if (boot_info.nmodules > 0)
        kprintf("config: %s (%lu bytes)\n", boot_info.modules[0].name, len);
    else
        kprintf("config: none given, using the built-in default\n");
    config_apply(text, len, report_config_error);
}

void kernel_main64(uint64_t mbi_phys, uint32_t magic);
void kernel_main64(uint64_t mbi_phys, uint32_t magic)
{
    console_init();                         /* COM1, 115200 8N1 */
    kprintf("\nhayate %s booting (commit %s)\n", HAYATE_VERSION, version_commit);
    trap_init();                            /* IDT: every exception reports */
    trap_init_cpu(&bsp_tables);             /* GDT, TSS with IST stacks */
    percpu_init_bsp();                      /* GS: this core's per-core data */
    fpu_init_cpu();                         /* x87, SSE, AVX state (XSAVE) */
    if (magic != MB2_BOOTED || multiboot_parse(mbi_phys) != 0)
        panic("bad multiboot2 information");
    pmm_init();                             /* physical pages */
    vm_init();                              /* final page tables, direct map */
    acpi_init();                            /* RSDP, XSDT, FADT */
    time_init();                            /* TSC frequency (HPET, PIT) */
    kprintf("memory: %lu MiB usable, %lu MiB free; TSC %lu MHz (%s)\n", pmm_total_pages() >> 8,
            pmm_free_pages() >> 8, time_tsc_hz() / 1000000, time_tsc_source());
    smp_init();                             /* local APICs, every core up */
    loop_init();                            /* per-core loops, timers, messages */
    pci_init();                             /* ECAM (MCFG) or port I/O; every function */
    pktmem_init(cpu_count());               /* per-core packet buffer pools */
    apply_config_early();                   /* sriov: VFs to offer, before probing */
    ports_init(cpu_count());                /* NIC drivers claim eth0, eth1, ... */
    cli_init();                             /* console commands, hostname */
    sys_cmds_init();                        /* show version, shutdown, debug */
    loop_cmds_init();                       /* show cpus, selftests, idle */
    pci_cmds_init();                        /* show pci */
    netsvc_init();                          /* route tables; interface, route(s), tcp, xconnect */
    app_init();                             /* apps/apps.c's table; the app statement */
    apply_config();                         /* statements registered above */
    netsvc_start();                         /* a stack and forwarding per core, the apps on it */
    sys_mark_ready();
    kprintf("hayate: ready\n");
    cli_prompt();
    loop_add_poller(0, "cli", cli_poll, 0); /* the console lives on core 0 */
    ports_start_status_polling(time_now_ns()); /* link state, from core 0 */
    loop_start_all();                       /* every core's loop; no return */
}
