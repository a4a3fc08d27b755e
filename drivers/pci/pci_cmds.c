/* SPDX-License-Identifier: MIT */
/* drivers/pci/pci_cmds.c: `show pci [json]`: functions with their BARs,
 * and the bridges with their bus numbers and memory windows. */
#include "pci.h"
#include "pci_cmds.h"

#include "kernel/console/cli.h"
#include "kernel/console/console.h"

static void bridge_json(struct json *j, const struct pci_bridge *b)
{
    char addr[16];
    fmt_snprintf(addr, sizeof addr, "%04x:%02x:%02x.%x", 0, b->bus, b->dev, b->fn);
    json_obj_begin(j, 0);
    json_str(j, "address", addr);
    json_u64(j, "secondary", b->secondary);
    json_u64(j, "subordinate", b->subordinate);
    for (int pref = 0; pref < 2; pref++) {
        uint64_t base, end;
        json_obj_begin(j, pref ? "prefetchable" : "memory");
        json_bool(j, "open", pci_bridge_window(b, pref, &base, &end));
        json_u64(j, "base", base);
        json_u64(j, "end", end);
        json_obj_end(j);
    }
    json_obj_end(j);
}

static void bridge_text(const struct pci_bridge *b)
{
    kprintf("  %04x:%02x:%02x.%x bridge to buses %02x-%02x", 0, b->bus, b->dev, b->fn, b->secondary, b->subordinate);
    for (int pref = 0; pref < 2; pref++) {
        uint64_t base, end;
        if (pci_bridge_window(b, pref, &base, &end))
            kprintf(", %s %lx-%lx", pref ? "prefetchable" : "memory", base, end - 1);
    }
    kprintf("\n");
}

static void cmd_show_pci(const struct cli_args *a)
{
    if (a->json) {
        struct json j;
        cli_json_begin(&j);
        json_obj_begin(&j, 0);
        json_str(&j, "access", pci_access_method());
        json_arr_begin(&j, "devices");
        for (int i = 0; i < pci_count(); i++) {
            const struct pci_dev *d = pci_at(i);
            char addr[16];
            fmt_snprintf(addr, sizeof addr, "%04x:%02x:%02x.%x", d->seg, d->bus, d->dev, d->fn);
            json_obj_begin(&j, 0);
            json_str(&j, "address", addr);
            json_u64(&j, "vendor", d->vendor);
            json_u64(&j, "device", d->device);
            json_u64(&j, "class", (uint64_t)d->class_code << 16 | (uint64_t)d->subclass << 8 | d->prog_if);
            json_bool(&j, "claimed", d->claimed);
            json_arr_begin(&j, "bars");
            for (int b = 0; b < 6; b++) {
                if (!d->bar[b].size)
                    continue;
                json_obj_begin(&j, 0);
                json_u64(&j, "index", (uint64_t)b);
                json_u64(&j, "address", d->bar[b].phys);
                json_u64(&j, "size", d->bar[b].size);
                json_str(&j, "type", d->bar[b].io ? "io" : d->bar[b].is64 ? "mem64" : "mem32");
                json_obj_end(&j);
            }
            json_arr_end(&j);
            json_obj_end(&j);
        }
        json_arr_end(&j);
        json_arr_begin(&j, "bridges");
        for (int i = 0; i < pci_bridge_count(); i++)
            bridge_json(&j, pci_bridge_at(i));
        json_arr_end(&j);
        json_obj_end(&j);
        cli_json_end(&j);
        return;
    }
    kprintf("PCI (%s), %d functions\n", pci_access_method(), pci_count());
    for (int i = 0; i < pci_count(); i++) {
        const struct pci_dev *d = pci_at(i);
        kprintf("  %04x:%02x:%02x.%x %04x:%04x class %02x%02x%02x%s\n", d->seg, d->bus, d->dev, d->fn, d->vendor,
                d->device, d->class_code, d->subclass, d->prog_if, d->claimed ? "  [in use]" : "");
        for (int b = 0; b < 6; b++)
            if (d->bar[b].size)
                kprintf("      BAR%d %s %016lx size %lx\n", b, d->bar[b].io ? "io   " : d->bar[b].is64 ? "mem64" : "mem32",
                        d->bar[b].phys, d->bar[b].size);
    }
    for (int i = 0; i < pci_bridge_count(); i++)
        bridge_text(pci_bridge_at(i));
}

void pci_cmds_init(void) { cli_register("show pci", "show pci [json]", "PCI functions and their BARs", cmd_show_pci); }
