/* SPDX-License-Identifier: MIT */
/* drivers/intel/igb_mbx.c: the PF-VF mailbox of the 82576 (the
 * datasheet's virtualization chapter), both ends, as register moves only:
 * what the messages mean is igb_sriov.c's (the PF answering) and igbvf.c's
 * (the VF asking), in Linux igb's protocol (igb_regs.h, IGB_MSG_*). Each
 * VF has one buffer of IGB_MBX_WORDS words and a control register on each
 * side; whoever writes the buffer first holds it (PFU, VFU). Where they
 * lie is the device's struct igb_layout, so a device with the same
 * protocol elsewhere in its BAR (the 82599) reuses this file. */
#include "drivers/intel/igb_dev.h"

#include "kernel/console/console.h"
#include "kernel/mem/kalloc.h"
#include "lib/fmt.h"
#include "kernel/random.h"
#include "kernel/time.h"

#define MBX_WAIT_US 1000000u /* for the PF's answer (Linux igbvf: 1 s) */

/* ---- this kernel's PFs with VFs, igb's and ixgbe's alike ---- */

static struct igb *pfs[DRIVER_PORTS_MAX];
static int npfs;

void igb_sriov_register(struct igb *g)
{
    if (npfs < DRIVER_PORTS_MAX)
        pfs[npfs++] = g;
}

void igb_sriov_serve(void)
{
    for (int i = 0; i < npfs; i++)
        pfs[i]->serve_vfs(pfs[i]);
}

/* ---- the PF's end: VF n's mailbox ---- */

bool igb_pf_mbx_lock(struct igb *g, uint32_t n)
{
    igb_wr32(g, igb_mbx_reg(g->layout, n), IGB_P2V_PFU);
    return (igb_rd32(g, igb_mbx_reg(g->layout, n)) & IGB_P2V_PFU) != 0;
}

void igb_pf_mbx_take(struct igb *g, uint32_t n, uint32_t *w)
{
    for (uint32_t i = 0; i < IGB_MBX_WORDS; i++)
        w[i] = igb_rd32(g, igb_mbmem_reg(g->layout, n, i));
    igb_wr32(g, igb_mbx_reg(g->layout, n), IGB_P2V_ACK); /* taken; PFU released */
}

void igb_pf_mbx_send(struct igb *g, uint32_t n, const uint32_t *w, uint32_t nw)
{
    for (int tries = 0; !igb_pf_mbx_lock(g, n); tries++)
        if (tries == 100) { /* the VF holds it far longer than a message takes */
            g->sriov.mbx_lost++;
            return;
        }
    for (uint32_t i = 0; i < nw; i++)
        igb_wr32(g, igb_mbmem_reg(g->layout, n, i), w[i]);
    igb_wr32(g, igb_mbx_reg(g->layout, n), IGB_P2V_STS); /* and PFU released */
}

/* ---- the VF's end ---- */

/* PFSTS, PFACK and RSTD clear when read: kept until taken. */
uint32_t igb_vf_mbx_read(struct igb *g)
{
    uint32_t r = igb_rd32(g, igb_mbx_reg(g->layout, 0));
    g->mbx_seen |= r & (IGB_V2P_PFSTS | IGB_V2P_PFACK | IGB_V2P_RSTD);
    return r | g->mbx_seen;
}

bool igb_vf_mbx_take(struct igb *g, uint32_t bit)
{
    if (!(igb_vf_mbx_read(g) & bit))
        return false;
    g->mbx_seen &= ~bit;
    return true;
}

/* Bounded wait for bit; a PF of this kernel's answers meanwhile. */
static bool vf_wait(struct igb *g, uint32_t bit)
{
    for (uint32_t us = 0; us < MBX_WAIT_US; us += 10) {
        if (igb_vf_mbx_take(g, bit))
            return true;
        igb_sriov_serve();
        time_delay_us(10);
    }
    return false;
}

bool igb_vf_mbx_lock(struct igb *g)
{
    for (uint32_t us = 0; us < MBX_WAIT_US; us += 10) {
        igb_wr32(g, igb_mbx_reg(g->layout, 0), IGB_V2P_VFU);
        if (igb_vf_mbx_read(g) & IGB_V2P_VFU)
            return true;
        igb_sriov_serve();
        time_delay_us(10);
    }
    return false;
}

bool igb_vf_mbx_send(struct igb *g, const uint32_t *w, uint32_t n)
{
    if (!igb_vf_mbx_lock(g))
        return false;
    g->mbx_seen &= ~(uint32_t)(IGB_V2P_PFSTS | IGB_V2P_PFACK); /* stale: the buffer is ours now */
    for (uint32_t i = 0; i < n; i++)
        igb_wr32(g, igb_mbmem_reg(g->layout, 0, i), w[i]);
    igb_wr32(g, igb_mbx_reg(g->layout, 0), IGB_V2P_REQ); /* and VFU released */
    return vf_wait(g, IGB_V2P_PFACK);
}

bool igb_vf_mbx_recv(struct igb *g, uint32_t *w, uint32_t n)
{
    if (!vf_wait(g, IGB_V2P_PFSTS) || !igb_vf_mbx_lock(g))
        return false;
    for (uint32_t i = 0; i < n; i++)
        w[i] = igb_rd32(g, igb_mbmem_reg(g->layout, 0, i));
    igb_wr32(g, igb_mbx_reg(g->layout, 0), IGB_V2P_ACK); /* and VFU released */
    return true;
}

bool igb_vf_mbx_call(struct igb *g, uint32_t *w, uint32_t nsend, uint32_t nrecv)
{
    uint32_t id = w[0] & IGB_MSG_ID_MASK;
    if (!igb_vf_mbx_send(g, w, nsend) || !igb_vf_mbx_recv(g, w, nrecv))
        return false;
    return (w[0] & IGB_MSG_ID_MASK) == id && (w[0] & IGB_MSG_ACK);
}

/* ---- a VF's reset handshake, igbvf's and ixgbevf's ---- */

#define PF_UP_WAIT_US 2000000u /* for RSTI to clear after the VF's reset */

bool igb_vf_hello(struct igb *g, uint32_t *w, uint32_t nrecv)
{
    uint8_t *mac = g->dev.mac;
    g->mbx_seen = 0;
    bool up = false;
    for (uint32_t us = 0; us < PF_UP_WAIT_US && !up; us += 100) {
        up = !(igb_vf_mbx_read(g) & IGB_V2P_RSTI);
        if (!up)
            time_delay_us(100);
    }
    g->mbx_seen = 0;
    w[0] = IGB_MSG_VF_RESET;
    if (!up || !igb_vf_mbx_send(g, w, 1) || !igb_vf_mbx_recv(g, w, nrecv) ||
        (w[0] & IGB_MSG_ID_MASK) != IGB_MSG_VF_RESET) {
        kprintf("%s: the PF did not answer its reset (%s)\n", g->where, up ? "mailbox" : "PF in reset");
        return false;
    }
    if (w[0] & IGB_MSG_ACK) {
        for (int i = 0; i < 4; i++)
            mac[i] = (uint8_t)(w[1] >> (8 * i));
        mac[4] = (uint8_t)w[2];
        mac[5] = (uint8_t)(w[2] >> 8);
        return true;
    }
    if (!(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5])) { /* kept over a PF reset */
        random_bytes(mac, 6);
        mac[0] = (uint8_t)((mac[0] | 2) & ~1); /* locally administered unicast */
    }
    uint32_t m[3] = {IGB_MSG_SET_MAC,
                     (uint32_t)mac[0] | (uint32_t)mac[1] << 8 | (uint32_t)mac[2] << 16 | (uint32_t)mac[3] << 24,
                     (uint32_t)mac[4] | (uint32_t)mac[5] << 8};
    if (!igb_vf_mbx_call(g, m, 3, 1)) {
        kprintf("%s: the PF assigned no MAC and refused ours\n", g->where);
        return false;
    }
    return true;
}

/* ---- a VF's port, igbvf's and ixgbevf's ---- */

void *igb_vf_alloc(struct pci_dev *pci, size_t size, const char *kind, const struct igb_layout *l,
                   struct pkt_pool *pool)
{
    struct igb *g = kalloc(size);
    fmt_snprintf(g->where, sizeof g->where, "%s %02x:%02x.%x", kind, pci->bus, pci->dev, pci->fn);
    g->layout = l;
    g->regs = pci_map_bar(pci, 0);
    if (!g->regs)
        return NULL;
    pci_enable(pci);
    g->pairs = 1;
    g->q[0] = igb_queue_alloc(pool);
    g->dev.rx_pool[0] = pool;
    return g;
}

bool igb_vf_ask_frame(struct igb *g)
{
    uint16_t mtu = g->dev.mtu;
    uint32_t w[2] = {IGB_MSG_SET_LPE, mtu > 1500 ? mtu + 14u + 8u + 4u : 1522u};
    if (igb_vf_mbx_call(g, w, 2, 1))
        return true;
    kprintf("%s: the PF refused %u-byte frames\n", g->where, w[1]);
    return false;
}

bool igb_vf_set_mtu(struct netdev *dev, uint16_t mtu)
{
    struct igb *g = dev->priv;
    uint16_t was = dev->mtu;
    if (mtu > netdev_max_mtu(dev))
        return false;
    dev->mtu = mtu;
    if (!igb_vf_ask_frame(g)) {
        dev->mtu = was;
        return false;
    }
    bool chained = mtu > 1500;
    if (chained == g->q[0]->rx_chained)
        return true;
    g->q[0]->rx_chained = chained;
    if (!igb_rxq_restart(g, 0, 0)) { /* the queue did not stop: its old buffers stay */
        g->q[0]->rx_chained = !chained;
        dev->mtu = was;
        return false;
    }
    if (chained)
        kprintf("%s: mtu %u: frames up to %u bytes, over 1 KiB buffers\n", dev->name, mtu, mtu + 22u);
    return true;
}

void igb_vf_netdev(struct igb *g, const char *driver, const struct netdev_ops *ops)
{
    struct netdev *dev = &g->dev;
    dev->driver = driver;
    dev->ops = ops;
    dev->priv = g;
    dev->nqueues = 1;
    dev->mtu = 1500;
    /* Checksums as the PF's RXCSUM says (Linux's and ours: on); TX
     * offloads are the queue's own. */
    dev->offloads = NETDEV_OFF_RX_CSUM | NETDEV_OFF_TX_CSUM | NETDEV_OFF_TSO4 | NETDEV_OFF_TSO6;
    ops->poll_status(dev);
    igb_show_add(g);
}
