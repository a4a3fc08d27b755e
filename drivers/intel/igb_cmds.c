/* SPDX-License-Identifier: MIT */
/* drivers/intel/igb_cmds.c: `show igb`, the console view of the 82576
 * drivers' own counters (TX offloads and write-backs asked, VMDq
 * loopback, the PF-VF mailbox)
 * for igb and igbvf ports alike; kept out of the data path (igb_rxtx.c),
 * which only counts. */
#include "drivers/intel/igb_dev.h"

#include "kernel/console/cli.h"
#include "kernel/console/console.h"

static struct igb *igb_ports[DRIVER_PORTS_MAX];
static int igb_nports;

void igb_drvstats_add(struct igb_drvstats *sum, const struct igb_drvstats *s)
{
    sum->csum_offload += s->csum_offload;
    sum->csum_software += s->csum_software;
    sum->tso_frames += s->tso_frames;
    sum->tso_segments += s->tso_segments;
    sum->ctx_descs += s->ctx_descs;
    sum->tx_writebacks += s->tx_writebacks;
    sum->offload_bad += s->offload_bad;
    sum->rx_looped += s->rx_looped;
}

void igb_drvstats_json(struct json *j, const struct igb_drvstats *s)
{
    json_u64(j, "tx-csum-offload", s->csum_offload);
    json_u64(j, "tx-csum-software", s->csum_software);
    json_u64(j, "tx-tso-frames", s->tso_frames);
    json_u64(j, "tx-tso-segments", s->tso_segments);
    json_u64(j, "tx-context-descriptors", s->ctx_descs);
    json_u64(j, "tx-writebacks", s->tx_writebacks);
    json_u64(j, "tx-offload-bad", s->offload_bad);
    json_u64(j, "rx-looped", s->rx_looped);
}

/* Counts of other cores' queues are recent, not exact. */
void igb_cmd_show(const struct cli_args *a)
{
    struct json j;
    if (a->json) {
        cli_json_begin(&j);
        json_obj_begin(&j, 0);
        json_arr_begin(&j, "ports");
    }
    for (int i = 0; i < igb_nports; i++) {
        const struct igb *g = igb_ports[i];
        struct igb_drvstats t = {0};
        for (uint16_t qi = 0; qi < g->pairs; qi++)
            igb_drvstats_add(&t, &g->q[qi]->ctr);
        const struct igb_sriov_stats *v = &g->sriov;
        if (!a->json) {
            kprintf("%s (%s): tx checksums offloaded %lu, in software %lu; TSO %lu frames, %lu segments; "
                    "%lu context descriptors; %lu write-backs asked; %lu bad offload requests; %lu own broadcasts "
                    "dropped\n",
                    g->dev.name, g->dev.driver, t.csum_offload, t.csum_software, t.tso_frames, t.tso_segments,
                    t.ctx_descs, t.tx_writebacks, t.offload_bad, t.rx_looped);
            if (g->nvfs)
                kprintf("  %u VFs: %lu messages, %lu refused, %lu replies lost, %lu resets\n", g->nvfs, v->mbx_rx,
                        v->mbx_refused, v->mbx_lost, v->vf_resets);
            if (v->pf_resets)
                kprintf("  the PF reset %lu times\n", v->pf_resets);
            continue;
        }
        json_obj_begin(&j, 0);
        json_str(&j, "name", g->dev.name);
        json_str(&j, "driver", g->dev.driver);
        json_u64(&j, "vfs", g->nvfs);
        json_obj_begin(&j, "counters");
        igb_drvstats_json(&j, &t);
        if (g->nvfs) {
            json_u64(&j, "vf-messages", v->mbx_rx);
            json_u64(&j, "vf-refused", v->mbx_refused);
            json_u64(&j, "vf-replies-lost", v->mbx_lost);
            json_u64(&j, "vf-resets", v->vf_resets);
        }
        json_u64(&j, "pf-resets", v->pf_resets);
        json_obj_end(&j);
        json_arr_begin(&j, "per-queue");
        for (uint16_t qi = 0; qi < g->pairs; qi++) {
            json_obj_begin(&j, 0);
            json_u64(&j, "queue", qi);
            igb_drvstats_json(&j, &g->q[qi]->ctr);
            json_obj_end(&j);
        }
        json_arr_end(&j);
        json_obj_end(&j);
    }
    if (a->json) {
        json_arr_end(&j);
        json_obj_end(&j);
        cli_json_end(&j);
    } else if (igb_nports == 0) {
        kprintf("no igb ports\n");
    }
}

void igb_show_add(struct igb *g)
{
    if (igb_nports < DRIVER_PORTS_MAX)
        igb_ports[igb_nports++] = g;
}
