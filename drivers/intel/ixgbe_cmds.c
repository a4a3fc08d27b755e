/* SPDX-License-Identifier: MIT */
/* drivers/intel/ixgbe_cmds.c: `show ixgbe [json]`, the hardware canary:
 * what hayate saw of each 82599 port (device and revision, the EEPROM's
 * eTrack ID and part number, the SFP+ module's identification and its raw
 * ID bytes, AUTOC and LINKS, the link watchdog, the MAC's error counters
 * under DPDK's names, the VFs and their mailbox), for a user of a real
 * X520 to send back. The registers are as the last status poll read them. */
#include "drivers/intel/ixgbe_dev.h"

#include "kernel/console/cli.h"
#include "kernel/console/console.h"
#include "lib/fmt.h"

static struct ixgbe *ports[DRIVER_PORTS_MAX];
static int nports;

void ixgbe_show_add(struct ixgbe *x)
{
    if (nports < DRIVER_PORTS_MAX)
        ports[nports++] = x;
}

static const struct {
    const char *name;
    size_t off;
} error_names[] = {
    {"rx_crc_errors", offsetof(struct ixgbe_errors, crc)},
    {"rx_illegal_byte_errors", offsetof(struct ixgbe_errors, illegal_byte)},
    {"rx_error_bytes", offsetof(struct ixgbe_errors, error_byte)},
    {"mac_local_errors", offsetof(struct ixgbe_errors, local_fault)},
    {"mac_remote_errors", offsetof(struct ixgbe_errors, remote_fault)},
    {"rx_length_errors", offsetof(struct ixgbe_errors, length)},
    {"rx_undersize_errors", offsetof(struct ixgbe_errors, undersize)},
    {"rx_fragment_errors", offsetof(struct ixgbe_errors, fragment)},
    {"rx_oversize_errors", offsetof(struct ixgbe_errors, oversize)},
    {"rx_jabber_errors", offsetof(struct ixgbe_errors, jabber)},
    {"rx_missed_errors", offsetof(struct ixgbe_errors, missed)},
    {"rx_no_buffer_count", offsetof(struct ixgbe_errors, no_buf)},
    {"rx_l3_l4_xsum_error", offsetof(struct ixgbe_errors, l3_l4_xsum)},
    {"rx_queue_drops", offsetof(struct ixgbe_errors, queue_drop)},
};

static uint64_t error_at(const struct ixgbe_errors *e, size_t off) { return *(const uint64_t *)((const char *)e + off); }

/* The module's 96 ID bytes as hex, for what the fields above leave out. */
static void hex_bytes(char *out, const uint8_t *b, int n)
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = 0;
}

static void show_text(const struct ixgbe *x)
{
    const struct sff8472_module *m = &x->sfp.m;
    kprintf("%s (%s): 82599 %04x rev %u, port %u, eTrack %04x%04x, PBA %s\n", x->core.dev.name,
            x->core.where, x->pci->device, x->pci->revision, x->lan_id, x->etrack[1], x->etrack[0], x->pba);
    if (x->sfp.present)
        kprintf("  SFP+: %s, vendor \"%s\", part \"%s\", serial \"%s\"%s; EEPROM init type %u: %s, %u words\n",
                m->kind, m->vendor, m->part, m->serial, m->ten_gig ? "" : " (not a 10 GbE module)",
                x->sfp.init_type, x->sfp.init_found ? "found" : "none", x->sfp.init_words);
    else
        kprintf("  SFP+: none answered\n");
    kprintf("  link %s, AUTOC 0x%x, LINKS 0x%x, watchdog restarts %u, semaphore timeouts %u%s\n",
            x->core.dev.link_up ? "up" : "down", x->autoc, x->links, x->link_restarts, x->sync_timeouts,
            x->double_reset ? ", reset twice (master disable stuck)" : "");
    if (x->core.nvfs) {
        const struct igb_sriov_stats *v = &x->core.sriov;
        kprintf("  %u VFs, %u queues a pool: %lu messages, %lu refused, %lu replies lost, %lu resets\n", x->core.nvfs,
                x->qpp, v->mbx_rx, v->mbx_refused, v->mbx_lost, v->vf_resets);
    }
    kprintf("  errors:");
    for (size_t i = 0; i < sizeof error_names / sizeof error_names[0]; i++)
        kprintf(" %s %lu", error_names[i].name, error_at(&x->err, error_names[i].off));
    kprintf("\n");
}

/* The PF's VFs: what each negotiated, and the mailbox's counters. */
static void sriov_json(struct json *j, const struct ixgbe *x)
{
    const struct igb_sriov_stats *s = &x->core.sriov;
    char mac[18];
    json_obj_begin(j, "sriov");
    json_u64(j, "vfs", x->core.nvfs);
    json_u64(j, "queues-per-pool", x->core.nvfs ? x->qpp : 0);
    json_u64(j, "vf-messages", s->mbx_rx);
    json_u64(j, "vf-refused", s->mbx_refused);
    json_u64(j, "vf-replies-lost", s->mbx_lost);
    json_u64(j, "vf-resets", s->vf_resets);
    json_arr_begin(j, "per-vf");
    for (uint32_t n = 0; n < x->core.nvfs; n++) {
        const struct ixgbe_vf *v = &x->vf[n];
        fmt_snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", v->mac[0], v->mac[1], v->mac[2], v->mac[3],
                     v->mac[4], v->mac[5]);
        json_obj_begin(j, 0);
        json_u64(j, "vf", n);
        json_str(j, "mac", mac);
        json_bool(j, "ready", v->cts);
        json_u64(j, "api", v->api); /* Linux's numbering: 1.0 = 0, 1.1 = 2, 1.2 = 3, 1.3 = 4 */
        json_u64(j, "xcast", v->xcast);
        json_obj_end(j);
    }
    json_arr_end(j);
    json_obj_end(j);
}

static void show_json(struct json *j, const struct ixgbe *x)
{
    const struct sff8472_module *m = &x->sfp.m;
    char hex[2 * SFF8472_ID_BYTES + 1], etrack[9];
    json_obj_begin(j, 0);
    json_str(j, "name", x->core.dev.name);
    json_str(j, "pci", x->core.where);
    json_u64(j, "device-id", x->pci->device);
    json_u64(j, "revision", x->pci->revision);
    json_u64(j, "lan-id", x->lan_id);
    fmt_snprintf(etrack, sizeof etrack, "%04x%04x", x->etrack[1], x->etrack[0]);
    json_str(j, "etrack-id", etrack);
    json_str(j, "pba", x->pba);
    json_obj_begin(j, "sfp");
    json_bool(j, "present", x->sfp.present);
    if (x->sfp.present) {
        json_str(j, "kind", m->kind);
        json_bool(j, "ten-gig", m->ten_gig);
        json_str(j, "vendor", m->vendor);
        json_str(j, "part", m->part);
        json_str(j, "serial", m->serial);
        hex_bytes(hex, x->sfp.id, SFF8472_ID_BYTES);
        json_bool(j, "checksum-ok", m->checksum_ok);
        json_str(j, "id-bytes", hex);
        json_u64(j, "init-type", x->sfp.init_type);
        json_bool(j, "init-found", x->sfp.init_found);
        json_u64(j, "init-words", x->sfp.init_words);
    }
    json_obj_end(j);
    json_bool(j, "link-up", x->core.dev.link_up);
    json_u64(j, "autoc", x->autoc);
    json_u64(j, "links", x->links);
    json_u64(j, "link-restarts", x->link_restarts);
    json_u64(j, "semaphore-timeouts", x->sync_timeouts);
    json_bool(j, "double-reset", x->double_reset);
    json_obj_begin(j, "errors");
    for (size_t i = 0; i < sizeof error_names / sizeof error_names[0]; i++)
        json_u64(j, error_names[i].name, error_at(&x->err, error_names[i].off));
    json_obj_end(j);
    /* The ring code's own counters, as `show igb` gives them. */
    struct igb_drvstats t = {0};
    for (uint16_t qi = 0; qi < x->core.pairs; qi++)
        igb_drvstats_add(&t, &x->core.q[qi]->ctr);
    json_obj_begin(j, "counters");
    igb_drvstats_json(j, &t);
    json_obj_end(j);
    sriov_json(j, x);
    json_obj_end(j);
}

void ixgbe_cmd_show(const struct cli_args *a)
{
    if (!a->json) {
        for (int i = 0; i < nports; i++)
            show_text(ports[i]);
        if (nports == 0)
            kprintf("no ixgbe ports\n");
        return;
    }
    struct json j;
    cli_json_begin(&j);
    json_obj_begin(&j, 0);
    json_arr_begin(&j, "ports");
    for (int i = 0; i < nports; i++)
        show_json(&j, ports[i]);
    json_arr_end(&j);
    json_obj_end(&j);
    cli_json_end(&j);
}
