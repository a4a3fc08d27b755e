/* SPDX-License-Identifier: MIT */
/* drivers/mlx5/mlx5_cmds.c: `show mlx5 [json]`, the hardware canary: what
 * hayate saw of each ConnectX function (model and PCI ID, firmware
 * version, command interface and ISSI, the PSID, the capabilities that
 * shaped the bring-up, the firmware's pages and events, the vport) and
 * every error it counted: failed commands (the last one's opcode, status
 * and syndrome), command timeouts, completion errors by syndrome. For a
 * user of a real card to send back. */
#include "drivers/mlx5/mlx5_dev.h"

#include "kernel/console/cli.h"
#include "kernel/console/console.h"
#include "lib/fmt.h"
#include "lib/json.h"

static struct mlx5 *ports[DRIVER_PORTS_MAX];
static int nports;

void mlx5_show_add(struct mlx5 *m)
{
    if (nports < DRIVER_PORTS_MAX)
        ports[nports++] = m;
}

uint64_t mlx5_cqe_errors(const struct mlx5 *m)
{
    uint64_t n = 0;
    for (int i = 0; i < MLX5_CQE_SYNDROMES; i++)
        n += m->cqe_errors[i];
    return n;
}

static void show_json(void)
{
    struct json j;
    char s[32];
    cli_json_begin(&j);
    json_obj_begin(&j, 0);
    json_arr_begin(&j, "ports");
    for (int i = 0; i < nports; i++) {
        const struct mlx5 *m = ports[i];
        json_obj_begin(&j, 0);
        json_str(&j, "name", m->dev.name);
        json_str(&j, "model", m->model);
        json_bool(&j, "vf", m->vf);
        fmt_snprintf(s, sizeof s, "15b3:%04x", m->pci->device);
        json_str(&j, "pci_id", s);
        fmt_snprintf(s, sizeof s, "%u.%u.%u", m->fw_major, m->fw_minor, m->fw_sub);
        json_str(&j, "firmware", s);
        json_str(&j, "psid", m->psid);
        json_u64(&j, "cmdif_rev", m->cmdif_rev);
        json_u64(&j, "issi", m->issi);
        json_obj_begin(&j, "caps");
        json_u64(&j, "port_type", m->port_type);
        json_u64(&j, "cqe_version", m->cqe_version);
        json_u64(&j, "log_max_wq_sz", m->log_max_wq_sz);
        json_u64(&j, "log_max_rqt_size", m->log_max_rqt_size);
        json_u64(&j, "max_wqe_sz_rq", m->max_rq_wqe);
        json_bool(&j, "csum", m->csum_cap);
        json_u64(&j, "max_lso_log", m->max_lso_log);
        json_str(&j, "min_inline", mlx5_inline_name(m->min_inline));
        json_bool(&j, "inline_from_vport", m->inline_from_vport);
        json_obj_end(&j);
        json_obj_begin(&j, "pages");
        json_u64(&j, "boot", m->pages_boot);
        json_u64(&j, "init", m->pages_init);
        json_u64(&j, "given", m->pages_given);
        json_u64(&j, "taken", m->pages_taken);
        json_u64(&j, "held", m->pages_free);
        json_u64(&j, "foreign", m->pages_foreign);
        json_u64(&j, "requests", m->page_requests);
        json_obj_end(&j);
        json_u64(&j, "events", m->events);
        json_u64(&j, "port_events", m->port_events);
        json_u64(&j, "vport_state", m->vport_state);
        json_u64(&j, "vport_mtu", m->vport_mtu);
        json_u64(&j, "port_max_mtu", m->port_max_mtu);
        json_u64(&j, "mtu", m->mtu);
        json_u64(&j, "rq_wqe_buffers", m->q[0] ? m->q[0]->rx_segs : 0); /* data segments a receive WQE posts */
        json_u64(&j, "rq_wqe_bytes", m->q[0] ? 1u << m->q[0]->rq_log_stride : 0);
        json_u64(&j, "eth_proto_cap", m->eth_proto_cap);
        json_u64(&j, "eth_proto_oper", m->eth_proto_oper);
        json_u64(&j, "speed_mbps", m->speed_mbps);
        json_u64(&j, "health_syndrome", m->health_synd);
        json_u64(&j, "resets", m->resets);
        json_u64(&j, "commands", m->cmds);
        json_u64(&j, "command_errors", m->cmd_failed);
        json_u64(&j, "command_timeouts", m->cmd_timeouts);
        json_obj_begin(&j, "last_error");
        json_str(&j, "command", m->cmd_failed ? mlx5_cmd_name(m->last_error.opcode) : "");
        json_u64(&j, "opcode", m->last_error.opcode);
        json_u64(&j, "delivery", m->last_error.delivery);
        json_u64(&j, "status", m->last_error.status);
        json_u64(&j, "syndrome", m->last_error.syndrome);
        json_obj_end(&j);
        struct mlx5_txstats t = {0};
        for (int q = 0; q < m->dev.nqueues; q++) {
            t.csum_offload += m->q[q]->tx.csum_offload;
            t.tso_frames += m->q[q]->tx.tso_frames;
            t.tso_segments += m->q[q]->tx.tso_segments;
            t.offload_bad += m->q[q]->tx.offload_bad;
        }
        json_obj_begin(&j, "counters");
        json_u64(&j, "tx-csum-offload", t.csum_offload);
        json_u64(&j, "tx-csum-software", 0); /* the device checksums every TCP and UDP frame */
        json_u64(&j, "tx-tso-frames", t.tso_frames);
        json_u64(&j, "tx-tso-segments", t.tso_segments);
        json_u64(&j, "tx-context-descriptors", 0); /* offloads ride in each WQE's Ethernet segment */
        json_u64(&j, "tx-offload-bad", t.offload_bad);
        json_obj_end(&j);
        json_u64(&j, "cqe_errors", mlx5_cqe_errors(m));
        json_obj_begin(&j, "cqe_syndromes");
        for (int k = 0; k < MLX5_CQE_SYNDROMES; k++)
            if (m->cqe_errors[k]) {
                fmt_snprintf(s, sizeof s, "0x%02x", k);
                json_u64(&j, s, m->cqe_errors[k]);
            }
        json_obj_end(&j);
        json_obj_end(&j);
    }
    json_arr_end(&j);
    json_obj_end(&j);
    cli_json_end(&j);
}

void mlx5_cmd_show(const struct cli_args *a)
{
    if (a->json) {
        show_json();
        return;
    }
    for (int i = 0; i < nports; i++) {
        const struct mlx5 *m = ports[i];
        kprintf("%s (%s): %s%s 15b3:%04x, firmware %u.%u.%u, PSID %s, cmdif %u, ISSI %u\n", m->dev.name, m->where,
                m->model, m->vf ? " VF" : "", m->pci->device, m->fw_major, m->fw_minor, m->fw_sub,
                m->psid[0] ? m->psid : "-", m->cmdif_rev, m->issi);
        kprintf("  inline %s%s, csum %s, LSO 2^%u, CQE version %u, WQ 2^%u, RQT 2^%u\n", mlx5_inline_name(m->min_inline),
                m->inline_from_vport ? " (vport)" : "", m->csum_cap ? "yes" : "no", m->max_lso_log, m->cqe_version,
                m->log_max_wq_sz, m->log_max_rqt_size);
        kprintf("  pages: %lu boot, %lu init, %lu given, %lu taken back, %u held; %lu page requests, %lu events\n",
                m->pages_boot, m->pages_init, m->pages_given, m->pages_taken, m->pages_free, m->page_requests,
                m->events);
        kprintf("  mtu %u (port frames to %u, vport %u), receive WQEs of %u buffers\n", m->mtu, m->port_max_mtu,
                m->vport_mtu, m->q[0] ? m->q[0]->rx_segs : 0);
        kprintf("  vport %s, %u Mbit/s (PTYS oper 0x%x), health syndrome 0x%x; commands %lu, failed %lu, timed out %lu, CQE errors %lu\n",
                m->vport_state == MLX5_VPORT_UP ? "up" : "down", m->speed_mbps, m->eth_proto_oper, m->health_synd, m->cmds, m->cmd_failed,
                m->cmd_timeouts, mlx5_cqe_errors(m));
        if (m->cmd_failed)
            kprintf("  last failed: %s (0x%x) delivery 0x%x status 0x%x syndrome 0x%08x\n",
                    mlx5_cmd_name(m->last_error.opcode), m->last_error.opcode, m->last_error.delivery,
                    m->last_error.status, m->last_error.syndrome);
    }
}
