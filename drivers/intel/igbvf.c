/* SPDX-License-Identifier: MIT */
/* drivers/intel/igbvf.c: the Intel 82576 SR-IOV virtual function
 * (8086:10ca), polled: what a guest sees of an 82576 port its host shares,
 * or a VF this kernel's own PF made (igb_sriov.c).
 *
 * A VF's registers are its pool's share of the PF's (igb_regs.h, IGBVF_*):
 * one queue pair, in the same advanced descriptors, so the data path is
 * the PF's (igb_rxtx.c). Everything else goes through the mailbox to the
 * PF, in Linux igb's protocol: after a reset (CTRL.RST) the VF waits for
 * the PF to be up (V2PMAILBOX.RSTI clear), asks VF_RESET, and gets its MAC
 * and its pool opened in the reply; then asks for every multicast (IPv6
 * neighbour discovery). Link is the PF's (STATUS.LU). A PF reset (RSTI or
 * RSTD seen by the status poll) clears the VF's queues: the VF starts over
 * as at probe once the PF is back, dropping what they held, and tries
 * again a second later while the PF does not answer. */
#include "drivers/intel/igbvf.h"

#include "drivers/intel/igb_dev.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/time.h"

struct igbvf {
    struct igb g;          /* first: the data path's view */
    bool restart;          /* the PF was reset: start over once it answers */
    uint64_t retry_ns;     /* not before: a PF that does not answer costs a wait a second */
};

/* The VF's BAR0: its one queue, its side of the mailbox. */
static const struct igb_layout igbvf_layout = {
    .rxq = IGBVF_RXQ0, .txq = IGBVF_TXQ0,
    IGB_82576_QUEUE_LAYOUT,
    .mbx = IGBVF_V2PMAILBOX, .mbmem = IGBVF_VMBMEM,
};

static struct igbvf *to_vf(struct netdev *dev) { return dev->priv; }

static bool igbvf_match(const struct pci_dev *pci)
{
    return pci->vendor == IGB_VENDOR_INTEL && pci->device == IGB_DEVICE_82576_VF;
}

/* ---- reset and bring-up ---- */

/* CTRL.RST, then the reset handshake (igb_vf_hello). */
static bool vf_reset(struct igbvf *v)
{
    uint32_t w[3];
    igb_wr32(&v->g, IGBVF_EIMC, 0x7); /* the VF's three vectors: polled, none wanted */
    igb_wr32(&v->g, IGBVF_CTRL, IGB_CTRL_RST);
    time_delay_us(1000);
    return igb_vf_hello(&v->g, w, 3);
}

/* What the stack needs past the MAC: every multicast (neighbour
 * discovery's solicited-node groups; the netdev interface has no group
 * list), frames as long as the MTU (1500 with a VLAN tag, or jumbo:
 * set_mtu). Refusals only logged. */
static void vf_requests(struct igbvf *v)
{
    uint32_t w[1] = {IGB_MSG_SET_PROMISC | IGB_MSG_PROMISC_MULTICAST};
    if (!igb_vf_mbx_call(&v->g, w, 1, 1))
        kprintf("%s: the PF refused multicast: IPv6 neighbour discovery may fail\n", v->g.where);
    (void)igb_vf_ask_frame(&v->g);
}

static bool vf_start(struct igbvf *v)
{
    if (!vf_reset(v))
        return false;
    vf_requests(v);
    igb_queue_drain(&v->g, 0); /* what the dead rings held meanwhile (nothing at probe) */
    v->g.q[0]->rx_drop_looped = true; /* VMDq loopback: a PF like Linux's turns it on */
    v->g.q[0]->rx_chained = v->g.dev.mtu > 1500; /* the MTU set_mtu took, kept over a restart */
    igb_queue_start(&v->g, 0, 0);
    return true;
}

/* Slow path, core 0, the queue's core too: link (the PF's), a PF reset
 * (its queues are cleared: we start over), a message from the PF. */
static void igbvf_poll_status(struct netdev *dev)
{
    struct igbvf *v = to_vf(dev);
    uint32_t m = igb_vf_mbx_read(&v->g);
    if ((m & (IGB_V2P_RSTI | IGB_V2P_RSTD)) && !v->restart) {
        v->g.sriov.pf_resets++;
        kprintf("%s: the PF was reset; starting over\n", dev->name);
        v->restart = true;
    }
    if (v->restart) {
        netdev_set_link(dev, false);
        uint64_t now = time_now_ns();
        if ((m & IGB_V2P_RSTI) || now < v->retry_ns)
            return; /* still resetting: next time */
        if (!vf_start(v)) {
            v->retry_ns = time_now_ns() + 1000000000ull;
            return;
        }
        v->restart = false;
    }
    if (igb_vf_mbx_take(&v->g, IGB_V2P_PFSTS)) { /* unasked (Linux's PF_CONTROL_MSG): taken, so the mailbox is free */
        if (igb_vf_mbx_lock(&v->g))
            igb_wr32(&v->g, igb_mbx_reg(v->g.layout, 0), IGB_V2P_ACK);
    }
    netdev_set_link(dev, (igb_rd32(&v->g, IGBVF_STATUS) & IGB_STATUS_LU) != 0);
}

static const struct netdev_ops igbvf_ops = {
    .rx_burst = igb_rx_burst,
    .tx_burst = igb_tx_burst,
    .poll_status = igbvf_poll_status,
    .promiscuous = igb_vf_promiscuous,
    .set_mtu = igb_vf_set_mtu,
};

static struct netdev *igbvf_probe(struct pci_dev *pci, uint16_t max_pairs, struct pkt_pool **pools, uint8_t nvfs)
{
    struct igbvf *v = igb_vf_alloc(pci, sizeof *v, "igbvf", &igbvf_layout, pools[0]);
    if (!v || !vf_start(v))
        return NULL;
    igb_vf_netdev(&v->g, "igbvf", &igbvf_ops);
    v->g.dev.max_mtu = NETDEV_MTU_MAX; /* as far as the PF lets (SET_LPE: Linux's up to 9.5 KB, ours 9216) */
    kprintf("%s: %u RX / %u TX descriptors, one queue pair\n", v->g.where, IGB_RX_RING, IGB_TX_RING);
    return &v->g.dev;
}

static const struct nic_driver_cmd igbvf_cmds[] = {IGB_CMD_SHOW};

const struct nic_driver igbvf_driver = {
    .name = "igbvf",
    .match = igbvf_match,
    .probe = igbvf_probe,
    NIC_DRIVER_CMDS(igbvf_cmds),
};
