/* SPDX-License-Identifier: MIT */
/* drivers/mlx5/mlx5.c: NVIDIA/Mellanox ConnectX-4/5/6 (mlx5), bring-up
 * through the firmware's command interface, as the PRM's "HCA Driver
 * Start-up" orders it:
 *
 *   function-level reset; `initializing` awaited (bounded), the command
 *   interface revision and the health syndrome checked; the command queue
 *   placed; ENABLE_HCA; QUERY_ISSI and SET_ISSI; the boot pages; the host
 *   endianness register (a PF's); the command checksums off; the init
 *   pages; INIT_HCA; the
 *   current capabilities (Ethernet port, wqe_inline_mode); QUERY_ADAPTER
 *   (the PSID, for the canary); a UAR and an event queue for the
 *   firmware's page requests and port changes, served from the status
 *   poll for as long as the port runs; the reserved lkey, a protection
 *   domain and a transport domain; the NIC vport's MAC, MTU and minimal
 *   inline mode; the vport's state.
 *
 * Then the port's registers (mlx5_port.c), the TIS, a queue pair a core
 * (mlx5_rxtx.c) and the receive steering (mlx5_steer.c). The status poll
 * serves the event queue, follows the vport's state and watches the
 * firmware's health: a syndrome resets a port of one queue pair and brings
 * it up again on the same memory (as `debug mlx5-reset` does). */
#include "drivers/mlx5/mlx5_dev.h"

#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/mem/kalloc.h"
#include "kernel/mem/memmap.h"
#include "kernel/time.h"
#include "lib/fmt.h"

#define INIT_TIMEOUT_NS 120000000000ull /* as Linux waits for `initializing` after a reset */
#define PAGES_PER_CMD 512u              /* MANAGE_PAGES: 4 KB of addresses, 8 mailboxes */

static const struct {
    uint16_t pf, vf;
    const char *name;
} models[] = {
    {0x1013, 0x1014, "ConnectX-4"},    {0x1015, 0x1016, "ConnectX-4 Lx"}, {0x1017, 0x1018, "ConnectX-5"},
    {0x1019, 0x101a, "ConnectX-5 Ex"}, {0x101b, 0x101c, "ConnectX-6"},    {0x101d, 0x101e, "ConnectX-6 Dx"},
};

static const char *model_of(uint16_t device, bool *vf)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (device == models[i].pf || device == models[i].vf) {
            *vf = device == models[i].vf;
            return models[i].name;
        }
    return NULL;
}

static bool mlx5_match(const struct pci_dev *pci)
{
    bool vf;
    return pci->vendor == MLX5_VENDOR && model_of(pci->device, &vf) != NULL;
}

static inline uint32_t rd32(const struct mlx5 *m, uint32_t off)
{
    return __builtin_bswap32(*(volatile const uint32_t *)(m->bar + off));
}
static inline void wr32(struct mlx5 *m, uint32_t off, uint32_t v)
{
    *(volatile uint32_t *)(m->bar + off) = __builtin_bswap32(v);
}

/* PRM "Initialization Segment": the firmware clears `initializing` when it
 * takes commands. */
static bool wait_initialized(struct mlx5 *m, const char *when)
{
    uint64_t deadline = time_now_ns() + INIT_TIMEOUT_NS;
    while (rd32(m, MLX5_ISEG_INITIALIZING) >> 31) {
        if (time_now_ns() > deadline) {
            mlx5_log(m, "mlx5: firmware still initializing %s after %u s\n", when,
                     (unsigned)(INIT_TIMEOUT_NS / 1000000000ull));
            return false;
        }
        time_delay_us(1000);
    }
    return true;
}

/* ---- the firmware's pages (PRM "QUERY_PAGES", "MANAGE_PAGES") ---- */

static bool give_pages(struct mlx5 *m, uint32_t n)
{
    static uint64_t batch[PAGES_PER_CMD];
    while (n) {
        uint32_t k = n < PAGES_PER_CMD ? n : PAGES_PER_CMD;
        if (m->pages_out + k > m->pages_cap) {
            mlx5_log(m, "mlx5: the firmware asks for more than %u pages\n", m->pages_cap);
            mlx5_enc_manage_pages(m->in, MLX5_PAGES_CANT_GIVE, 0, NULL);
            mlx5_cmd(m, 0x10, 0x10);
            return false;
        }
        for (uint32_t i = 0; i < k; i++) {
            if (m->pages_free) {
                batch[i] = m->page_free[--m->pages_free];
                continue;
            }
            void *p = kalloc_pages_try(1, 1);
            if (!p) {
                while (i) /* kept for a later request */
                    m->page_free[m->pages_free++] = batch[--i];
                mlx5_log(m, "mlx5: out of memory for the firmware's pages (%lu given)\n", m->pages_given);
                mlx5_enc_manage_pages(m->in, MLX5_PAGES_CANT_GIVE, 0, NULL);
                mlx5_cmd(m, 0x10, 0x10);
                return false;
            }
            batch[i] = virt_to_phys(p);
        }
        if (mlx5_cmd(m, mlx5_enc_manage_pages(m->in, MLX5_PAGES_GIVE, k, batch), 0x10) != 0) {
            while (k) /* kept for a later request */
                m->page_free[m->pages_free++] = batch[--k];
            return false;
        }
        for (uint32_t i = 0; i < k; i++)
            m->page_given[m->pages_out++] = batch[i];
        m->pages_given += k;
        n -= k;
    }
    return true;
}

/* The firmware returns n pages: kept for its next request. */
static void take_pages(struct mlx5 *m, uint32_t n)
{
    while (n) {
        uint32_t k = n < PAGES_PER_CMD ? n : PAGES_PER_CMD;
        mlx5_enc_manage_pages(m->in, MLX5_PAGES_TAKE, k, NULL);
        if (mlx5_cmd(m, 0x10, 0x10 + 8u * k) != 0)
            return;
        uint32_t got = mlx5_get32(m->out, MLX5_OUT_MANAGE_PAGES_N);
        for (uint32_t i = 0; i < got && i < k; i++) {
            uint64_t page = mlx5_get64(m->out, 0x10 + 8u * i);
            uint32_t j = m->pages_out;
            while (j && m->page_given[j - 1] != page)
                j--;
            if (!j) { /* never given: not ours to keep */
                m->pages_foreign++;
                continue;
            }
            m->page_given[j - 1] = m->page_given[--m->pages_out];
            m->page_free[m->pages_free++] = page;
        }
        m->pages_taken += got;
        if (got < k)
            return;
        n -= k;
    }
}

/* QUERY_PAGES of kind op_mod, then as many given. */
static bool satisfy_pages(struct mlx5 *m, uint16_t op_mod, uint64_t *count)
{
    if (mlx5_cmd(m, mlx5_enc_query_pages(m->in, op_mod), 0x10) != 0)
        return false;
    int32_t n = (int32_t)mlx5_get32(m->out, MLX5_OUT_NUM_PAGES);
    *count = n > 0 ? (uint64_t)n : 0;
    return n <= 0 || give_pages(m, (uint32_t)n);
}

/* ---- the event queue (PRM "Event Queues") ---- */

static bool create_eq(struct mlx5 *m)
{
    if (!m->eq)
        m->eq = kalloc_pages(1, 1);
    m->eq_cc = 0;
    for (unsigned i = 0; i < 1u << MLX5_EQ_LOG_SIZE; i++)
        m->eq[i * MLX5_EQE_SIZE + MLX5_EQE_OWNER] = 1; /* the device's until it writes one */
    uint64_t page = virt_to_phys(m->eq);
    uint64_t mask = 1ull << MLX5_EVENT_PAGE_REQUEST | 1ull << MLX5_EVENT_PORT_CHANGE;
    if (mlx5_cmd(m, mlx5_enc_create_eq(m->in, m->uar, MLX5_EQ_LOG_SIZE, mask, &page, 1), 0x10) != 0)
        return false;
    m->eqn = m->out[MLX5_OUT_EQN];
    return true;
}

static void query_vport_state(struct mlx5 *m)
{
    if (mlx5_cmd(m, mlx5_enc_query_vport_state(m->in), 0x10) == 0)
        m->vport_state = m->out[MLX5_OUT_VPORT_STATE] & 0xf;
}

/* Each event the firmware wrote (owner bit equal to the pass's parity),
 * then the consumer counter handed back without arming (we poll). */
void mlx5_poll_events(struct mlx5 *m)
{
    unsigned size = 1u << MLX5_EQ_LOG_SIZE, seen = 0;
    for (;;) {
        uint8_t *e = m->eq + (m->eq_cc & (size - 1)) * MLX5_EQE_SIZE;
        if ((*(volatile uint8_t *)&e[MLX5_EQE_OWNER] & 1) != ((m->eq_cc >> MLX5_EQ_LOG_SIZE) & 1))
            break;
        m->events++;
        seen++;
        if (e[MLX5_EQE_TYPE] == MLX5_EVENT_PAGE_REQUEST) {
            /* PRM "Page Request Event": num_pages signed, negative returns pages. */
            int32_t n = (int32_t)mlx5_get32(e, MLX5_EQE_DATA + 4);
            m->page_requests++;
            if (n > 0)
                give_pages(m, (uint32_t)n);
            else if (n < 0)
                take_pages(m, (uint32_t)-n);
        } else if (e[MLX5_EQE_TYPE] == MLX5_EVENT_PORT_CHANGE) {
            m->port_events++;
            query_vport_state(m);
            mlx5_port_speed(m);
        }
        m->eq_cc++;
    }
    if (seen)
        *(volatile uint32_t *)(m->uar_page + MLX5_UAR_EQ_CI_NOARM) =
            __builtin_bswap32((uint32_t)m->eqn << 24 | (m->eq_cc & 0xffffff));
}

/* ---- bring-up ---- */

static bool reset_and_attach(struct mlx5 *m)
{
    if (!pci_flr(m->pci))
        mlx5_log(m, "mlx5: no function-level reset offered; started as found\n");
    pci_enable(m->pci);
    if (!wait_initialized(m, "after reset"))
        return false;
    uint32_t fw = rd32(m, MLX5_ISEG_FW_REV), sub = rd32(m, MLX5_ISEG_CMDIF_REV_FW_SUB);
    m->fw_major = (uint16_t)fw;
    m->fw_minor = (uint16_t)(fw >> 16);
    m->fw_sub = (uint16_t)sub;
    m->cmdif_rev = (uint16_t)(sub >> 16);
    m->health_synd = m->bar[MLX5_ISEG_HEALTH_SYND];
    if (m->cmdif_rev != MLX5_CMDIF_REV) {
        mlx5_log(m, "mlx5: command interface revision %u, this driver speaks %u\n", m->cmdif_rev, MLX5_CMDIF_REV);
        return false;
    }
    if (m->health_synd) {
        mlx5_log(m, "mlx5: firmware unhealthy: syndrome 0x%x\n", m->health_synd);
        return false;
    }
    if (!mlx5_cmd_init(m))
        return false;
    uint32_t lsz = rd32(m, MLX5_ISEG_CMDQ_ADDR_L_SZ);
    uint64_t q = virt_to_phys(m->cmdq);
    if ((lsz >> 4 & 0xf) == 0 && (lsz & 0xf) == 0) {
        mlx5_log(m, "mlx5: the command queue reads 1 entry of 1 byte: not a usable device\n");
        return false;
    }
    wr32(m, MLX5_ISEG_CMDQ_ADDR_H, (uint32_t)(q >> 32));
    wr32(m, MLX5_ISEG_CMDQ_ADDR_L_SZ, (uint32_t)q | MLX5_NIC_IFC_FULL << 8);
    return wait_initialized(m, "after the command queue was placed");
}

static bool query_caps(struct mlx5 *m)
{
    if (mlx5_cmd(m, mlx5_enc_query_hca_cap(m->in, MLX5_CAP_GENERAL, MLX5_CAP_CUR), 0x10 + MLX5_CAP_LEN) != 0)
        return false;
    const uint8_t *c = m->out + MLX5_OUT_CAP;
    m->port_type = c[MLX5_HCA_PORT_TYPE] & 3;
    m->log_max_wq_sz = c[MLX5_HCA_LOG_MAX_WQ_SZ] & 0x1f;
    m->log_max_rqt_size = c[MLX5_HCA_LOG_MAX_RQT_SIZE] & 0x1f;
    m->cqe_version = c[MLX5_HCA_CQE_VERSION] & 0xf;
    m->max_rq_wqe = mlx5_get16(c, MLX5_HCA_MAX_WQE_SZ_RQ);
    bool eth = c[MLX5_HCA_ETH_NET_OFFLOADS] & 0x08;
    if (m->port_type != MLX5_PORT_TYPE_ETH) {
        mlx5_log(m, "mlx5: port type %u, not Ethernet (InfiniBand ports are not driven)\n", m->port_type);
        return false;
    }
    /* What the queues and steering need (mlx5_rxtx.c, mlx5_steer.c). */
    if (m->log_max_rqt_size < 7 || m->log_max_wq_sz < 8 || !(c[MLX5_HCA_NIC_FLOW_TABLE] & 0x02)) {
        mlx5_log(m, "mlx5: too small for this driver: RQT 2^%u, WQ 2^%u, NIC flow table %s\n", m->log_max_rqt_size,
                 m->log_max_wq_sz, c[MLX5_HCA_NIC_FLOW_TABLE] & 0x02 ? "yes" : "no");
        return false;
    }
    if (!eth)
        return true;
    if (mlx5_cmd(m, mlx5_enc_query_hca_cap(m->in, MLX5_CAP_ETHERNET, MLX5_CAP_CUR), 0x10 + MLX5_CAP_LEN) != 0)
        return false;
    m->eth_caps = mlx5_get32(m->out, MLX5_OUT_CAP);
    m->csum_cap = m->eth_caps & MLX5_ETH_CSUM_CAP;
    m->max_lso_log = (uint8_t)(m->eth_caps >> MLX5_ETH_MAX_LSO_SHIFT & 0x1f);
    unsigned mode = m->eth_caps >> MLX5_ETH_INLINE_SHIFT & 3;
    m->min_inline = mode == MLX5_INLINE_NOT_REQUIRED ? MLX5_MIN_INLINE_NONE : MLX5_MIN_INLINE_L2;
    m->inline_from_vport = mode == MLX5_INLINE_VPORT_CONTEXT;
    return true;
}

/* Mailboxes are sent unsigned: the command interface's checksums must be
 * off (cmdif_checksum 0, as Linux sets it), turned off where found on. */
static bool checksums_off(struct mlx5 *m)
{
    if (mlx5_cmd(m, mlx5_enc_query_hca_cap(m->in, MLX5_CAP_GENERAL, MLX5_CAP_CUR), 0x10 + MLX5_CAP_LEN) != 0)
        return false;
    if (!(m->out[MLX5_OUT_CAP + MLX5_HCA_CMDIF_CHECKSUM] & 0xc0))
        return true;
    static uint8_t cap[MLX5_CAP_LEN];
    memcpy(cap, m->out + MLX5_OUT_CAP, MLX5_CAP_LEN);
    cap[MLX5_HCA_CMDIF_CHECKSUM] &= 0x3f;
    return mlx5_cmd(m, mlx5_enc_set_hca_cap(m->in, MLX5_CAP_GENERAL, cap), 0x10) == 0;
}

static bool bring_up(struct mlx5 *m)
{
    if (!reset_and_attach(m) || mlx5_cmd(m, mlx5_enc_enable_hca(m->in), 0x10) != 0)
        return false;
    /* ISSI 1 (PRM "QUERY_ISSI"): the queue, TIR and flow commands exist from it on. */
    if (mlx5_cmd(m, mlx5_enc_query_issi(m->in), MLX5_QUERY_ISSI_OUT_LEN) != 0 ||
        !(mlx5_get32(m->out, MLX5_OUT_ISSI_SUPPORTED) & 2)) {
        mlx5_log(m, "mlx5: the firmware offers no ISSI 1: too old for this driver\n");
        return false;
    }
    if (mlx5_cmd(m, mlx5_enc_set_issi(m->in, 1), 0x10) != 0)
        return false;
    m->issi = 1;
    if (!satisfy_pages(m, MLX5_PAGES_BOOT, &m->pages_boot))
        return false;
    /* HOST_ENDIANNESS (PRM "Host Endianness Register"): little-endian host, as zeros say. */
    static const uint8_t host_endianness[16];
    if (!m->vf && mlx5_cmd(m, mlx5_enc_access_reg(m->in, MLX5_REG_HOST_ENDIANNESS, 1, host_endianness, 16), 0x20) != 0)
        return false;
    if (!checksums_off(m) || !satisfy_pages(m, MLX5_PAGES_INIT, &m->pages_init) ||
        mlx5_cmd(m, mlx5_enc_init_hca(m->in), 0x10) != 0 || !query_caps(m))
        return false;
    if (mlx5_cmd(m, mlx5_enc_query_adapter(m->in), MLX5_QUERY_ADAPTER_OUT_LEN) == 0) {
        memcpy(m->psid, m->out + MLX5_OUT_ADAPTER + MLX5_ADAPTER_PSID, 16);
        for (int i = 0; i < 16; i++)
            m->psid[i] = m->psid[i] >= 0x20 && m->psid[i] < 0x7f ? m->psid[i] : 0;
    }
    if (mlx5_cmd_object(m, mlx5_enc_alloc_uar(m->in), &m->uar) != 0)
        return false;
    m->uar_page = m->bar + (uint64_t)m->uar * MLX5_PAGE_SIZE;
    if (!create_eq(m) || mlx5_cmd(m, mlx5_enc_query_special_contexts(m->in), MLX5_QUERY_SPECIAL_OUT_LEN) != 0)
        return false;
    m->resd_lkey = mlx5_get32(m->out, MLX5_OUT_RESD_LKEY);
    if (mlx5_cmd_object(m, mlx5_enc_alloc_pd(m->in), &m->pd) != 0 ||
        mlx5_cmd_object(m, mlx5_enc_alloc_transport_domain(m->in), &m->td) != 0)
        return false;
    if (mlx5_cmd(m, mlx5_enc_query_nic_vport_context(m->in), MLX5_QUERY_NIC_VPORT_OUT_LEN) != 0)
        return false;
    const uint8_t *v = m->out + MLX5_OUT_VPORT_CTX;
    memcpy(m->dev.mac, v + MLX5_VPORT_CTX_PERM_ADDR, 6);
    m->vport_mtu = mlx5_get16(v, MLX5_VPORT_CTX_MTU);
    if (m->inline_from_vport) /* ConnectX-4 and 4 Lx: the vport says how much to inline */
        m->min_inline = (uint8_t)mlx5_getbits(v, MLX5_VPORT_CTX_MIN_INLINE, 24, 3);
    query_vport_state(m);
    return true;
}

/* The queues and the receive steering, on a function brought up, for m->mtu. */
static bool start_port(struct mlx5 *m, uint16_t pairs, struct pkt_pool **pools)
{
    bool ok = mlx5_port_setup(m, m->mtu) && mlx5_create_tis(m);
    for (uint16_t qi = 0; ok && qi < pairs; qi++) {
        ok = mlx5_queue_create(m, qi, pools[qi]);
        mlx5_poll_events(m); /* pages the firmware asks for while its objects are made */
    }
    return ok && mlx5_steer_rx(m);
}

/* Start over: every buffer back, a function-level reset (the firmware
 * forgets the objects and releases its pages), the bring-up again on the
 * same memory, the groups joined and promiscuity as they were. Core 0 only,
 * on a port of one queue pair or before the loops run (no other core is
 * in its rings). */
static bool restart_port(struct mlx5 *m)
{
    struct pkt_pool *pools[MLX5_MAX_PAIRS];
    uint16_t pairs = m->dev.nqueues;
    for (uint16_t qi = 0; qi < pairs; qi++) {
        mlx5_queue_drain(m, qi);
        pools[qi] = m->q[qi]->pool;
    }
    while (m->pages_out)
        m->page_free[m->pages_free++] = m->page_given[--m->pages_out];
    bool promisc = m->promisc;
    m->promisc = false;
    m->mac_entries = 0;
    if (!bring_up(m) || !start_port(m, pairs, pools))
        return false;
    for (uint8_t i = 0; i < m->njoined; i++)
        mlx5_join_group(&m->dev, m->joined[i]);
    return !promisc || mlx5_promiscuous(&m->dev);
}

static bool reset_port(struct mlx5 *m)
{
    m->resets++;
    return restart_port(m);
}

static void after_reset(struct mlx5 *m, bool ok)
{
    if (!ok) {
        mlx5_log(m, "mlx5: reset failed; the port stays down\n");
        netdev_set_link(&m->dev, false);
        return;
    }
    netdev_set_link(&m->dev, m->vport_state == MLX5_VPORT_UP);
    kprintf("%s: reset, link %s\n", m->dev.name, m->dev.link_up ? "up" : "down");
}

/* `debug mlx5-reset PORT`: what the health watch does, on demand. */
static bool cmd_debug_reset(struct netdev *dev, const struct cli_args *a)
{
    struct mlx5 *m = dev->priv;
    if (dev->nqueues != 1)
        return false;
    after_reset(m, reset_port(m));
    return true;
}

/* `interface ethN mtu N` (core 0, before the loops run): the port's and
 * the vport's MTU (mlx5_port_mtu). Where a frame of the new MTU takes
 * another number of buffers, the RQs need WQEs of another stride, which
 * only CREATE_RQ sets (PRM "Work Queue Format": log_wq_stride) and the
 * direct TIR names the RQ it was made with: the function is brought up
 * again with them, as after a reset, on the same memory. */
static bool mlx5_set_mtu(struct netdev *dev, uint16_t mtu)
{
    struct mlx5 *m = dev->priv;
    uint16_t was = m->mtu;
    if (mtu > mlx5_max_mtu(m))
        return false;
    if (mlx5_rx_segs(mtu) == mlx5_rx_segs(was)) {
        if (!mlx5_port_mtu(m, mtu))
            return false;
        m->mtu = mtu;
        return true;
    }
    m->mtu = mtu;
    if (restart_port(m)) {
        netdev_set_link(dev, m->vport_state == MLX5_VPORT_UP);
        kprintf("%s: mtu %u: receive WQEs of %u buffers, the function brought up again\n", dev->name, mtu,
                mlx5_rx_segs(mtu));
        return true;
    }
    mlx5_log(m, "mlx5: mtu %u not taken; back to %u\n", mtu, was);
    m->mtu = was;
    after_reset(m, restart_port(m));
    return false;
}

/* Core 0, every STATUS period: the firmware's events, its health, the link. */
static void mlx5_poll_status(struct netdev *dev)
{
    struct mlx5 *m = dev->priv;
    mlx5_poll_events(m);
    uint8_t synd = m->bar[MLX5_ISEG_HEALTH_SYND];
    if (synd != m->health_synd) {
        m->health_synd = synd;
        mlx5_log(m, "mlx5: firmware health syndrome 0x%x%s\n", synd, synd ? ": the device needs a reset" : " (cleared)");
        if (synd && dev->nqueues == 1) { /* with more pairs, other cores are in the rings: down until rebooted */
            after_reset(m, reset_port(m));
            return;
        }
    }
    netdev_set_link(dev, m->vport_state == MLX5_VPORT_UP && !synd);
}

static void mlx5_info(const struct netdev *dev, struct netdev_info *out)
{
    const struct mlx5 *m = dev->priv;
    out->note = m->vf ? " (VF)" : "";
    out->nfields = 2;
    out->field[0].key = "model";
    out->field[0].str = m->model;
    out->field[1].key = "cqe-errors";
    out->field[1].num = mlx5_cqe_errors(m);
}

static const struct netdev_ops mlx5_ops = {
    .rx_burst = mlx5_rx_burst,
    .tx_burst = mlx5_tx_burst,
    .poll_status = mlx5_poll_status,
    .limit_queues = mlx5_limit_queues,
    .info = mlx5_info,
    .join_group = mlx5_join_group,
    .promiscuous = mlx5_promiscuous,
    .set_mtu = mlx5_set_mtu,
};

static struct netdev *mlx5_probe(struct pci_dev *pci, uint16_t max_pairs, struct pkt_pool **pools, uint8_t nvfs)
{
    struct mlx5 *m = kalloc(sizeof *m);
    m->pci = pci;
    m->model = model_of(pci->device, &m->vf);
    fmt_snprintf(m->where, sizeof m->where, "mlx5 %02x:%02x.%x", pci->bus, pci->dev, pci->fn);
    m->bar = pci_map_bar(pci, 0);
    m->pages_cap = 1u << 16; /* pages the driver can hold back for the firmware: 256 MB */
    m->page_free = kalloc(m->pages_cap * sizeof *m->page_free);
    m->page_given = kalloc(m->pages_cap * sizeof *m->page_given);
    if (!m->bar) {
        mlx5_log(m, "mlx5: BAR0 not mapped\n");
        return NULL;
    }
    struct netdev *dev = &m->dev;
    uint16_t pairs = max_pairs < MLX5_MAX_PAIRS ? max_pairs : MLX5_MAX_PAIRS;
    dev->nqueues = pairs;
    dev->priv = m;
    m->mtu = 1500;
    if (!bring_up(m) || !start_port(m, pairs, pools)) {
        mlx5_log(m, "mlx5: %s%s bring-up failed; not a port\n", m->model, m->vf ? " VF" : "");
        return NULL;
    }
    dev->driver = "mlx5";
    dev->ops = &mlx5_ops;
    dev->mtu = m->mtu;
    dev->max_mtu = mlx5_max_mtu(m); /* jumbo frames: a receive WQE of several buffers (mlx5_rxtx.c) */
    dev->offloads = (m->csum_cap ? NETDEV_OFF_RX_CSUM | NETDEV_OFF_TX_CSUM : 0) |
                    (m->csum_cap && m->max_lso_log >= 16 ? NETDEV_OFF_TSO4 | NETDEV_OFF_TSO6 : 0) |
                    (pairs > 1 ? NETDEV_OFF_RSS | NETDEV_OFF_RSS_TCP6 : 0);
    for (uint16_t qi = 0; qi < pairs; qi++)
        dev->rx_pool[qi] = pools[qi];
    dev->link_up = m->vport_state == MLX5_VPORT_UP;
    mlx5_log(m, "mlx5: %s%s firmware %u.%u.%u, cmdif %u, ISSI %u, pages %lu boot %lu init, inline %s, %u Mbit/s\n",
             m->model, m->vf ? " VF" : "", m->fw_major, m->fw_minor, m->fw_sub, m->cmdif_rev, m->issi, m->pages_boot,
             m->pages_init, mlx5_inline_name(m->min_inline), m->speed_mbps);
    mlx5_show_add(m);
    (void)nvfs;
    return dev;
}

static const struct nic_driver_cmd mlx5_cmds[] = {
    {.words = "show mlx5", .usage = "show mlx5 [json]",
     .help = "ConnectX ports: model, firmware, capabilities, pages, events, command and completion errors",
     .fn = mlx5_cmd_show},
    {.words = "debug mlx5-reset", .usage = "debug mlx5-reset PORT",
     .help = "reset a ConnectX port with one queue pair and bring it up again, as after a firmware error",
     .port_fn = cmd_debug_reset, .port_hint = "an mlx5 port with one queue pair"},
};

const struct nic_driver mlx5_driver = {
    .name = "mlx5",
    .match = mlx5_match,
    .probe = mlx5_probe,
    NIC_DRIVER_CMDS(mlx5_cmds),
};
