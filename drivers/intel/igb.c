/* SPDX-License-Identifier: MIT */
/* drivers/intel/igb.c: the Intel 82576 GbE controller (igb), physical
 * function, polled: no interrupts, no register read on the data path.
 *
 * Set-up follows the 82576EB datasheet 4.5 (initialisation): reset
 * (CTRL.RST, 4.3.1), interrupts masked (IMC/EIMC), the MAC from RAL0/RAH0,
 * link up (CTRL.SLU, PHY autonegotiation restarted), then per queue pair
 * the RX ring (4.5.9) and TX ring (4.5.10), RSS over the pairs (7.1.2.8),
 * and last RCTL.EN / TCTL.EN. One queue pair per core; a core touches only
 * its own pair.
 *
 * The data path, shared with the virtual function, is igb_rxtx.c;
 * docs/igb.md has the rest. */
#include "igb.h"

#include "drivers/intel/igb_dev.h"
#include "kernel/console/console.h"
#include "lib/fmt.h"
#include "kernel/mem/kalloc.h"
#include "kernel/lib.h"
#include "kernel/time.h"

/* Queue pairs used at most: flows spread over them with RSS (7.1.2.8,
 * setup_rss). The 82576 steers what it cannot hash (ARP) to queue 0; the
 * router passes what core 0 learns to the others (kernel/netsvc/netsvc_neigh.c). */
#define IGB_MAX_PAIRS 8u
_Static_assert(IGB_MAX_PAIRS <= IGB_RSS_MAX_PAIRS, "queue arrays");
#define LINK_WAIT_MS 1500u    /* at probe; QEMU's autonegotiation takes 500 ms */
#define MTU_STANDARD 1500u    /* over it, jumbo frames: RCTL.LPE, 1 KiB buffers, chains */

/* RLPML (8.10.12) for an MTU: the longest frame as the size filter
 * counts it, CRC and every VLAN tag in (1518 bytes untagged with LPE off):
 * Ethernet header, two tags (what set_mtu promises, netdev.h) and the
 * CRC, stripped or not. Linux's igb counts one tag (docs/igb.md). */
#define FRAME_LIMIT(mtu) ((uint32_t)(mtu) + 14u + 8u + 4u)
_Static_assert(FRAME_LIMIT(NETDEV_MTU_MAX) <= IGB_RLPML_MAX, "the largest MTU fits what the 82576 takes");

/* The PF's BAR0: sixteen queues (8.10, 8.12), a mailbox per VF (P2VMAILBOX,
 * VMBMEM). */
static const struct igb_layout igb_pf_layout = {
    .rxq = IGB_RXQ(0), .txq = IGB_TXQ(0),
    IGB_82576_QUEUE_LAYOUT,
    .mbx = IGB_P2VMAILBOX(0), .mbx_stride = 4, .mbmem = IGB_VMBMEM(0), .mbmem_stride = 0x40,
};

static struct igb *to_igb(struct netdev *dev) { return dev->priv; }

static bool igb_match(const struct pci_dev *pci)
{
    return pci->vendor == IGB_VENDOR_INTEL && pci->device == IGB_DEVICE_82576;
}

/* Slow path, core 0: link state, the device's missed-packet counter (RX
 * FIFO overflow for want of descriptors) into queue 0, core 0's, and the
 * VFs' mailboxes. */
static void igb_poll_status(struct netdev *dev)
{
    struct igb *g = to_igb(dev);
    bool up = (igb_rd32(g, IGB_STATUS) & IGB_STATUS_LU) != 0;
    if (g->nvfs)
        igb_sriov_serve();
    dev->stats[0].rx_miss += igb_rd32(g, IGB_MPC);
    netdev_set_link(dev, up);
}

static void setup_rss(struct igb *g);

static bool jumbo(const struct igb *g) { return g->dev.mtu > MTU_STANDARD; }

/* RCTL (8.10.1): broadcast and every multicast (IPv6 neighbour discovery)
 * accepted, CRC stripped, buffer sizes from SRRCTL (igb_rxtx.c), long
 * packets up to RLPML with jumbo frames, the PF's or a VF's (whose pool
 * then has its own limit too, VMOLR: igb_sriov.c). */
static uint32_t rctl_value(const struct igb *g)
{
    return IGB_RCTL_EN | IGB_RCTL_BAM | IGB_RCTL_MPE | IGB_RCTL_SECRC | IGB_RCTL_BSIZE_2048 |
           (g->promisc ? IGB_RCTL_UPE : 0) | (jumbo(g) || g->vf_frame ? IGB_RCTL_LPE : 0);
}

static uint32_t rlpml_value(const struct igb *g)
{
    uint32_t own = FRAME_LIMIT(g->dev.mtu);
    return g->vf_frame > own ? g->vf_frame : own;
}

void igb_vf_frame(struct igb *g, uint16_t frame)
{
    if (frame <= g->vf_frame)
        return;
    g->vf_frame = frame;
    igb_wr32(g, IGB_RLPML, rlpml_value(g));
    igb_wr32(g, IGB_RCTL, rctl_value(g));
    kprintf("%s: a VF asked for frames of up to %u bytes: RLPML raised\n", g->where, frame);
}

/* The RSS table over the first n pairs only (7.1.2.8); the others keep
 * their buffers and see no more frames. */
static int igb_limit_queues(struct netdev *dev, uint16_t n)
{
    struct igb *g = to_igb(dev);
    if (n == g->pairs)
        return 0;
    if (n == 0 || n > g->pairs)
        return -1;
    g->pairs = n; /* (a PF with VFs has one pair: not here) */
    dev->nqueues = n;
    setup_rss(g);
    return 0;
}

/* Every unicast frame taken (RCTL.UPE, 8.10.1), for an xconnect; not
 * with VFs, whose pools are chosen by destination MAC. */
static bool igb_promiscuous(struct netdev *dev)
{
    struct igb *g = to_igb(dev);
    if (g->nvfs)
        return false;
    g->promisc = true;
    igb_wr32(g, IGB_RCTL, igb_rd32(g, IGB_RCTL) | IGB_RCTL_UPE);
    return true;
}

static bool full_restart(struct igb *g);

/* Jumbo frames (netdev set_mtu; core 0, no loop running yet): receive
 * off, each RX queue stopped and started again with the buffers the MTU
 * needs (1 KiB ones chained over 1500, else 2 KiB: igb_rxtx.c), RLPML
 * set, receive on with RCTL.LPE over 1500. Not with VFs (max_mtu 0): the
 * PF's pool would need its own VMOLR limit, which it keeps at 1522 (its
 * VFs' pools take theirs: SET_LPE, igb_sriov.c). A queue that does not
 * stop: the whole device reset instead. */
static bool igb_set_mtu(struct netdev *dev, uint16_t mtu)
{
    struct igb *g = to_igb(dev);
    uint16_t was = dev->mtu;
    if (mtu > MTU_STANDARD && (g->nvfs || mtu > dev->max_mtu))
        return false;
    bool was_jumbo = jumbo(g);
    dev->mtu = mtu;
    igb_wr32(g, IGB_RLPML, rlpml_value(g));
    if (jumbo(g) == was_jumbo) /* the buffers and RCTL.LPE stay */
        return true;
    igb_wr32(g, IGB_RCTL, igb_rd32(g, IGB_RCTL) & ~IGB_RCTL_EN);
    for (uint16_t i = 0; i < g->pairs; i++) {
        g->q[i]->rx_chained = jumbo(g);
        if (!igb_rxq_restart(g, i, (uint16_t)(i + g->nvfs))) {
            if (!full_restart(g)) { /* (every pair as the MTU says, RCTL written) */
                dev->mtu = was;
                return false;
            }
            break;
        }
    }
    igb_wr32(g, IGB_RCTL, rctl_value(g));
    if (jumbo(g))
        kprintf("%s: mtu %u: frames up to %u bytes, over 1 KiB buffers\n", dev->name, mtu, FRAME_LIMIT(mtu) - 4u);
    return true;
}

static const struct netdev_ops igb_ops = {
    .rx_burst = igb_rx_burst,
    .tx_burst = igb_tx_burst,
    .poll_status = igb_poll_status,
    .limit_queues = igb_limit_queues,
    .promiscuous = igb_promiscuous,
    .set_mtu = igb_set_mtu,
};

/* ---- set-up ---- */

/* A PHY register through MDIC (8.2.4); -1 on error or timeout. */
static int phy_read(struct igb *g, uint32_t reg)
{
    igb_wr32(g, IGB_MDIC, reg << IGB_MDIC_REG_SHIFT | IGB_PHY_ADDR << IGB_MDIC_PHY_SHIFT | IGB_MDIC_OP_READ);
    if (!igb_wait_reg(g, IGB_MDIC, IGB_MDIC_READY, IGB_MDIC_READY, 10000))
        return -1;
    uint32_t v = igb_rd32(g, IGB_MDIC);
    return (v & IGB_MDIC_ERROR) ? -1 : (int)(v & 0xffff);
}

static int phy_write(struct igb *g, uint32_t reg, uint16_t val)
{
    igb_wr32(g, IGB_MDIC, val | reg << IGB_MDIC_REG_SHIFT | IGB_PHY_ADDR << IGB_MDIC_PHY_SHIFT | IGB_MDIC_OP_WRITE);
    if (!igb_wait_reg(g, IGB_MDIC, IGB_MDIC_READY, IGB_MDIC_READY, 10000))
        return -1;
    return (igb_rd32(g, IGB_MDIC) & IGB_MDIC_ERROR) ? -1 : 0;
}

/* 4.3.1 software reset: RX and TX stopped first, interrupts masked before
 * and after (the reset restores the defaults). */
static bool reset(struct igb *g)
{
    igb_wr32(g, IGB_IMC, 0xffffffffu);
    igb_wr32(g, IGB_EIMC, 0xffffffffu);
    igb_wr32(g, IGB_RCTL, 0);
    igb_wr32(g, IGB_TCTL, IGB_TCTL_PSP);
    (void)igb_rd32(g, IGB_STATUS); /* flush the writes */
    time_delay_us(10000);
    igb_wr32(g, IGB_CTRL, igb_rd32(g, IGB_CTRL) | IGB_CTRL_RST);
    time_delay_us(1000); /* no register access for 1 ms after RST (4.3.1) */
    if (!igb_wait_reg(g, IGB_CTRL, IGB_CTRL_RST, 0, 100000))
        return false;
    igb_wr32(g, IGB_IMC, 0xffffffffu);
    igb_wr32(g, IGB_EIMC, 0xffffffffu);
    (void)igb_rd32(g, IGB_ICR); /* clears anything pending */
    return true;
}

/* Link: CTRL.SLU for the MAC, autonegotiation (re)started in the PHY. The
 * reset stops it in QEMU's model, which then never brings the link up. */
static void link_up(struct igb *g)
{
    igb_wr32(g, IGB_CTRL, igb_rd32(g, IGB_CTRL) | IGB_CTRL_SLU);
    igb_wr32(g, IGB_CTRL_EXT, igb_rd32(g, IGB_CTRL_EXT) | IGB_CTRL_EXT_DRV_LOAD);
    int bmcr = phy_read(g, IGB_PHY_BMCR);
    if (bmcr < 0 || phy_write(g, IGB_PHY_BMCR, (uint16_t)(bmcr | IGB_BMCR_AN_ENABLE | IGB_BMCR_RESTART_AN)) < 0)
        kprintf("%s: PHY access failed; link left to the hardware\n", g->where);
}


/* RSS (7.1.2.8): our key, the table round-robin over the pairs, hashes
 * over IPv4/IPv6 addresses and TCP/UDP ports. */
static void setup_rss(struct igb *g)
{
    _Static_assert(NETDEV_RSS_RETA_LEN == 4 * IGB_RETA_REGS && NETDEV_RSS_KEY_LEN == 4 * IGB_RSSRK_REGS, "layout");
    igb_rss_fill(g, IGB_RSSRK(0), IGB_RETA(0));
    igb_wr32(g, IGB_MRQC, IGB_MRQC_RSS | IGB_MRQC_TCPIPV4 | IGB_MRQC_IPV4 | IGB_MRQC_TCPIPV6EX | IGB_MRQC_IPV6 |
                          IGB_MRQC_TCPIPV6 | IGB_MRQC_UDPIPV4 | IGB_MRQC_UDPIPV6);
}

/* What a reset undoes, in the order of 4.5: link, filters, pools, RX
 * checksums and RSS, the rings, RX and TX on; VFs told last. */
static void bring_up(struct igb *g)
{
    uint16_t nvfs = g->nvfs;
    link_up(g);
    for (int i = 0; i < IGB_MTA_COUNT; i++)
        igb_wr32(g, IGB_MTA(i), 0);
    if (nvfs)
        igb_sriov_pools(g);
    /* RX checksum offload; PCSD puts the RSS hash in the descriptor (and is
     * what turns RSS on). */
    igb_wr32(g, IGB_RXCSUM, IGB_RXCSUM_IPOFLD | IGB_RXCSUM_TUOFLD | (g->pairs > 1 ? IGB_RXCSUM_PCSD : 0));
    if (g->pairs > 1)
        setup_rss(g);
    else if (!nvfs)
        igb_wr32(g, IGB_MRQC, 0);
    if (nvfs) { /* queue 0 is VF 0's now */
        uint32_t rxdctl = igb_rxq_reg(g->layout, 0, g->layout->dctl);
        igb_wr32(g, rxdctl, igb_rd32(g, rxdctl) & ~g->layout->xdctl_enable);
    }
    for (uint16_t i = 0; i < g->pairs; i++) { /* with VFs: the PF's pool's queue */
        g->q[i]->rx_drop_looped = nvfs != 0;
        g->q[i]->rx_chained = jumbo(g); /* the MTU set_mtu took, kept over a reset */
        igb_queue_start(g, i, (uint16_t)(i + nvfs));
    }
    igb_wr32(g, IGB_RLPML, rlpml_value(g));
    igb_wr32(g, IGB_RCTL, rctl_value(g));
    igb_wr32(g, IGB_TCTL, igb_rd32(g, IGB_TCTL) | IGB_TCTL_EN | IGB_TCTL_PSP);
    igb_wait_reg(g, IGB_STATUS, IGB_STATUS_LU, IGB_STATUS_LU, LINK_WAIT_MS * 1000);
    if (nvfs)
        igb_sriov_ready(g);
}

/* Reset, every pair's buffers given back, brought up again (as the MTU
 * says); false when the reset did not complete. Only while no core polls
 * the pairs. */
static bool full_restart(struct igb *g)
{
    if (!reset(g))
        return false;
    for (uint16_t i = 0; i < g->pairs; i++)
        igb_queue_drain(g, i);
    g->vf_cts = 0;
    bring_up(g);
    return true;
}

/* debug igb-reset PORT: the PF reset and brought up again, as a host's
 * driver does on a link or MTU change; its VFs see RSTI, then RSTD, and
 * start over. Only with one queue pair, core 0's, the console's own: no
 * other core is in the rings meanwhile. */
static bool cmd_debug_reset(struct netdev *dev, const struct cli_args *a)
{
    struct igb *g = to_igb(dev);
    if (g->pairs != 1)
        return false;
    if (!full_restart(g)) {
        kprintf("%s: reset did not complete\n", dev->name);
        return true;
    }
    kprintf("%s: reset, link %s\n", dev->name, igb_rd32(g, IGB_STATUS) & IGB_STATUS_LU ? "up" : "down");
    return true;
}

static struct netdev *igb_probe(struct pci_dev *pci, uint16_t max_pairs, struct pkt_pool **pools, uint8_t nvfs)
{
    struct igb *g = kalloc(sizeof *g);
    struct netdev *dev = &g->dev;
    fmt_snprintf(g->where, sizeof g->where, "igb %02x:%02x.%x", pci->bus, pci->dev, pci->fn);
    g->layout = &igb_pf_layout;
    g->regs = pci_map_bar(pci, 0);
    if (!g->regs)
        return NULL;
    pci_enable(pci);
    if (!reset(g)) {
        kprintf("%s: reset did not complete\n", g->where);
        return NULL;
    }
    igb_read_mac(g, IGB_RAL(0), IGB_RAH(0));
    if (nvfs)
        nvfs = igb_sriov_enable(g, pci, nvfs);
    uint16_t pairs = max_pairs < IGB_MAX_PAIRS ? max_pairs : IGB_MAX_PAIRS;
    g->pairs = nvfs || !pairs ? 1 : pairs;
    for (uint16_t i = 0; i < g->pairs; i++) {
        g->q[i] = igb_queue_alloc(pools[i]);
        dev->rx_pool[i] = pools[i];
    }
    dev->mtu = MTU_STANDARD;
    dev->max_mtu = nvfs ? 0 : NETDEV_MTU_MAX; /* jumbo frames up to 9.5 KB (8.10.12); a VF's pool: not here */
    bring_up(g);

    dev->driver = "igb";
    dev->ops = &igb_ops;
    dev->priv = g;
    dev->nqueues = g->pairs;
    dev->offloads = NETDEV_OFF_RX_CSUM | NETDEV_OFF_TX_CSUM | NETDEV_OFF_TSO4 | NETDEV_OFF_TSO6 |
                    (g->pairs > 1 ? NETDEV_OFF_RSS | NETDEV_OFF_RSS_TCP6 : 0);
    igb_poll_status(dev);
    igb_show_add(g);
    kprintf("%s: %u RX / %u TX descriptors a queue, %u queue pair%s%s\n", g->where, IGB_RX_RING, IGB_TX_RING, g->pairs, g->pairs == 1 ? "" : "s", g->pairs > 1 ? ", RSS" : "");
    return dev;
}

static const struct nic_driver_cmd igb_cmds[] = {
    IGB_CMD_SHOW,
    {.words = "debug igb-reset", .usage = "debug igb-reset PORT",
     .help = "reset an igb PF with one queue pair, as a host does", .port_fn = cmd_debug_reset,
     .port_hint = "an igb port with one queue pair"},
};

const struct nic_driver igb_driver = {
    .name = "igb",
    .match = igb_match,
    .probe = igb_probe,
    .sriov_max_vfs = IGB_SRIOV_MAX_VFS,
    NIC_DRIVER_CMDS(igb_cmds),
};
