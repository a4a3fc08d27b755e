/* SPDX-License-Identifier: MIT */
/* drivers/intel/ixgbe.c: the Intel 82599 10 GbE controller (X520: ixgbe),
 * physical function, SFP+ ports, polled: interrupts masked, no register
 * read on the data path.
 *
 * Set-up follows the 82599 datasheet's 4.6: reset and its waits (4.6.3,
 * ixgbe_hw.c), the SFP+ module read (ixgbe_sfp.c), link through AUTOC
 * (4.6.4), the error counters cleared (4.6.5), receive (4.6.7) and
 * transmit (4.6.8) initialisation: per queue pair the Intel ring code's
 * rings (igb_rxtx.c) on the 82599's queue blocks, each queue's enable
 * read back before its tail moves, DMATXCTL.TE before any TXDCTL.ENABLE,
 * RXCTRL.RXEN last. RSS over the pairs (7.1.2.8). The status poll (core 0,
 * every 100 ms) follows the link, restarts its set-up when it stays down
 * (the watchdog) and sums the error counters; nothing on the data path
 * waits for a link. docs/ixgbe.md has the rest. */
#include "drivers/intel/ixgbe_dev.h"

#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/mem/kalloc.h"
#include "kernel/time.h"
#include "lib/fmt.h"

#define IXGBE_MAX_PAIRS 8u
_Static_assert(IXGBE_MAX_PAIRS <= IGB_RSS_MAX_PAIRS, "queue arrays");
#define LINK_WAIT_MS 1000u      /* at probe only */
#define WATCHDOG_DOWN_NS 3000000000ull /* down this long: link set-up restarted */
#define MTU_STANDARD 1500u    /* over it, jumbo frames: HLREG0.JUMBOEN, MAXFRS, 1 KiB buffers chained */

/* MAXFRS.MFS (8.2.3.22.13) for an MTU: the longest frame, CRC in, that
 * the MAC takes with HLREG0.JUMBOEN (one VLAN tag more is let by on top).
 * Ethernet header, two tags (what set_mtu promises, netdev.h) and the
 * CRC: a QinQ frame whose outer tag the MAC does not count passes too. */
#define FRAME_LIMIT(mtu) ((uint32_t)(mtu) + 14u + 8u + 4u)
#define MFS_MAX 15872u        /* 15.5 KB: the 82599's largest jumbo frame */
_Static_assert(FRAME_LIMIT(NETDEV_MTU_MAX) <= MFS_MAX, "the largest MTU fits what the 82599 takes");

/* The SFP+ parts of the 82599 (every other link setting differs: KX4, KR,
 * CX4, XAUI, 10GBASE-T are not set up here). */
static const uint16_t sfp_ids[] = {
    IXGBE_DEVICE_82599_SFP, /* 10fb: X520-DA2, -SR2, -LR1 */
    0x1507,                 /* SFP+ EM */
    0x1529,                 /* SFP+ with FCoE */
    0x154d,                 /* SFP+ SF2 */
    0x1557,                 /* 82599EN, single port */
};

/* The 82599's queue blocks: queue n's RX registers at 0x01000 + 0x40n
 * (8.2.3.8), TX at 0x06000 + 0x40n (8.2.3.9); SRRCTL at +0x14 with DROP_EN
 * at bit 28; the RX errors and TX CC where 7.1.6.2 and 7.2.3.2.4 put
 * them. The VFs' mailboxes: PFMAILBOX(n), 16 words at PFMBMEM(n). */
static const struct igb_layout ixgbe_pf_layout = {
    .rxq = IXGBE_RXQ(0), .rxq_hi = IXGBE_RXQ_HI, .txq = IXGBE_TXQ(0), .q_stride = IGB_Q_STRIDE,
    .bal = IGB_Q_BAL, .bah = IGB_Q_BAH, .len = IGB_Q_LEN, .srrctl = IXGBE_Q_SRRCTL,
    .head = IGB_Q_HEAD, .tail = IGB_Q_TAIL, .dctl = IGB_Q_DCTL, .srrctl_drop_en = IXGBE_SRRCTL_DROP_EN,
    .xdctl_enable = IGB_XDCTL_ENABLE, .txdctl_wthresh_mask = IGB_XDCTL_WTHRESH_MASK,
    .rxd_err_frame = IXGBE_RXD_ERR_RXE, .rxd_err_ipe = IXGBE_RXD_ERR_IPE, .rxd_err_l4e = IXGBE_RXD_ERR_L4E,
    .txd_cc = IXGBE_TXD_CC,
    .mbx = IXGBE_PFMAILBOX(0), .mbx_stride = 4, .mbmem = IXGBE_PFMBMEM(0), .mbmem_stride = 0x40,
};

static bool ixgbe_match(const struct pci_dev *pci)
{
    if (pci->vendor != IGB_VENDOR_INTEL)
        return false;
    for (size_t i = 0; i < sizeof sfp_ids / sizeof sfp_ids[0]; i++)
        if (pci->device == sfp_ids[i])
            return true;
    return false;
}

/* ---- link (4.6.4) ---- */

/* 10 GbE serial (SFI) for the SFP+ cage, then the set-up restarted. AUTOC
 * is shared with the firmware: written under MAC_CSR's semaphore. */
static void link_setup(struct ixgbe *x)
{
    if (!ixgbe_sync_take(x, IXGBE_SYNC_MAC_CSR))
        return;
    uint32_t autoc = (ixgbe_rd(x, IXGBE_AUTOC) & ~IXGBE_AUTOC_LMS_MASK) | IXGBE_AUTOC_LMS_10G_SFI;
    ixgbe_wr(x, IXGBE_AUTOC, autoc | IXGBE_AUTOC_RESTART_AN);
    ixgbe_sync_give(x, IXGBE_SYNC_MAC_CSR);
    x->autoc = autoc;
}

static bool link_is_up(struct ixgbe *x)
{
    x->links = ixgbe_rd(x, IXGBE_LINKS);
    return (x->links & IXGBE_LINKS_UP) != 0;
}

/* ---- status poll: core 0, every 100 ms ---- */

static void ixgbe_poll_status(struct netdev *dev)
{
    struct ixgbe *x = to_ixgbe(dev);
    uint64_t now = time_now_ns();
    bool up = link_is_up(x);
    dev->stats[0].rx_miss += ixgbe_read_errors(x);
    if (x->core.nvfs) {
        igb_sriov_serve();
        if (up != dev->link_up)
            ixgbe_sriov_link(x);
    }
    netdev_set_link(dev, up);
    if (up) {
        x->down_since_ns = 0;
        return;
    }
    if (x->down_since_ns == 0) {
        x->down_since_ns = now;
        return;
    }
    /* The watchdog: a link down for seconds gets its set-up again (a
     * module plugged in since, a peer that came up). The module is read
     * again only while none answered: bit-banging its 96 bytes holds this
     * core's loop for milliseconds. Said on the 1st, 2nd, 4th, 8th...
     * restart: an empty cage must not fill the console. */
    if (now - x->down_since_ns >= WATCHDOG_DOWN_NS) {
        x->link_restarts++;
        if (!x->sfp.present && ixgbe_sfp_identify(x))
            ixgbe_sfp_phy_init(x); /* a module plugged in since */
        link_setup(x);
        if ((x->link_restarts & (x->link_restarts - 1)) == 0)
            kprintf("%s: link down: set-up restarted, %u times so far (AUTOC 0x%x, LINKS 0x%x)\n", dev->name,
                    x->link_restarts, x->autoc, x->links);
        x->down_since_ns = now;
    }
}

static void setup_rss(struct ixgbe *x);

/* The RSS table over the first n pairs only. */
static int ixgbe_limit_queues(struct netdev *dev, uint16_t n)
{
    struct ixgbe *x = to_ixgbe(dev);
    if (n == x->core.pairs)
        return 0;
    if (n == 0 || n > x->core.pairs)
        return -1;
    x->core.pairs = n;
    dev->nqueues = n;
    setup_rss(x);
    return 0;
}

static bool ixgbe_promiscuous(struct netdev *dev);
static bool ixgbe_set_mtu(struct netdev *dev, uint16_t mtu);

static const struct netdev_ops ixgbe_ops = {
    .rx_burst = igb_rx_burst,
    .tx_burst = igb_tx_burst,
    .poll_status = ixgbe_poll_status,
    .limit_queues = ixgbe_limit_queues,
    .promiscuous = ixgbe_promiscuous,
    .set_mtu = ixgbe_set_mtu,
};

static bool jumbo(const struct ixgbe *x) { return x->core.dev.mtu > MTU_STANDARD; }

/* ---- receive and transmit set-up (4.6.7, 4.6.8) ---- */

/* MRQC.MRQE: RSS alone, or inside each VT pool (7.1.2.1). */
static uint32_t mrqe(const struct ixgbe *x)
{
    if (!x->core.nvfs)
        return IXGBE_MRQC_RSS;
    return x->qpp == 2 ? IXGBE_MRQC_VMDQ_RSS64 : IXGBE_MRQC_VMDQ_RSS32;
}

/* 7.1.2.8: the ring code's key and table (igb_rss_fill), hashes over IPv4/IPv6 addresses and TCP/UDP
 * ports; PCSD puts the hash in the descriptor. */
static void setup_rss(struct ixgbe *x)
{
    _Static_assert(NETDEV_RSS_RETA_LEN == 4 * IXGBE_RETA_REGS && NETDEV_RSS_KEY_LEN == 4 * IXGBE_RSSRK_REGS,
                   "layout");
    igb_rss_fill(&x->core, IXGBE_RSSRK(0), IXGBE_RETA(0));
    ixgbe_wr(x, IXGBE_RXCSUM, ixgbe_rd(x, IXGBE_RXCSUM) | IXGBE_RXCSUM_PCSD);
    ixgbe_wr(x, IXGBE_MRQC, mrqe(x) | IGB_MRQC_TCPIPV4 | IGB_MRQC_IPV4 | IGB_MRQC_IPV6 | IGB_MRQC_TCPIPV6 |
                                IGB_MRQC_UDPIPV4 | IGB_MRQC_UDPIPV6);
}

/* The frame size the MTU and the VFs ask for: 1518 bytes (the MAC's own
 * limit with JUMBOEN clear), or HLREG0.JUMBOEN and MAXFRS past it. Only
 * with RXCTRL.RXEN clear. */
static void rx_frame_size(struct ixgbe *x)
{
    uint32_t mfs = jumbo(x) ? FRAME_LIMIT(x->core.dev.mtu) : 1518u;
    mfs = x->core.vf_frame > mfs ? x->core.vf_frame : mfs;
    uint32_t hlreg0 = ixgbe_rd(x, IXGBE_HLREG0) & ~IXGBE_HLREG0_JUMBOEN;
    ixgbe_wr(x, IXGBE_HLREG0, hlreg0 | (mfs > 1518u ? IXGBE_HLREG0_JUMBOEN : 0));
    ixgbe_wr(x, IXGBE_MAXFRS, mfs << IXGBE_MAXFRS_MFS_SHIFT);
}

/* RX's global settings (4.6.7), the receive path stopped meanwhile: CRC
 * stripped (HLREG0 and RDRXCTL alike, as RDRXCTL demands, with its
 * must-be fields), broadcast and every multicast accepted (the stack's
 * neighbour discovery), frames as long as the MTU says. */
static void rx_global(struct ixgbe *x)
{
    ixgbe_wr(x, IXGBE_RXCTRL, ixgbe_rd(x, IXGBE_RXCTRL) & ~IXGBE_RXCTRL_RXEN);
    ixgbe_wr(x, IXGBE_HLREG0, ixgbe_rd(x, IXGBE_HLREG0) | IXGBE_HLREG0_RXCRCSTRP | IXGBE_HLREG0_TXCRCEN |
                                  IXGBE_HLREG0_TXPADEN);
    rx_frame_size(x);
    ixgbe_wr(x, IXGBE_RDRXCTL, (ixgbe_rd(x, IXGBE_RDRXCTL) & ~IXGBE_RDRXCTL_RSCFRSTSIZE) | IXGBE_RDRXCTL_CRCSTRIP |
                                   IXGBE_RDRXCTL_RSCACKC | IXGBE_RDRXCTL_FCOE_WRFIX);
    /* With VFs each pool's PFVML2FLT says which multicast it takes (ixgbe_sriov_pools). */
    uint32_t fctrl = (ixgbe_rd(x, IXGBE_FCTRL) & ~(IXGBE_FCTRL_UPE | IXGBE_FCTRL_MPE)) | IXGBE_FCTRL_BAM;
    ixgbe_wr(x, IXGBE_FCTRL, fctrl | (x->core.nvfs ? 0 : IXGBE_FCTRL_MPE) | (x->core.promisc ? IXGBE_FCTRL_UPE : 0));
    if (x->core.nvfs) {
        ixgbe_sriov_pools(x);
    } else {
        for (int i = 0; i < IXGBE_MTA_COUNT; i++)
            ixgbe_wr(x, IXGBE_MTA(i), 0);
    }
    if (x->core.pairs > 1 || x->core.nvfs)
        setup_rss(x);
    else
        ixgbe_wr(x, IXGBE_MRQC, 0);
}

/* TX's global settings (4.6.8): the arbiter held while MTQC is set (one
 * traffic class; with VFs, their 32 or 64 pools), then DMATXCTL.TE: it
 * must precede every queue's enable. */
static void tx_global(struct ixgbe *x)
{
    uint32_t mtqc = 0;
    if (x->core.nvfs)
        mtqc = IXGBE_MTQC_VT_ENA | (x->qpp == 2 ? IXGBE_MTQC_64VF : IXGBE_MTQC_32VF);
    ixgbe_wr(x, IXGBE_RTTDCS, ixgbe_rd(x, IXGBE_RTTDCS) | IXGBE_RTTDCS_ARBDIS);
    ixgbe_wr(x, IXGBE_MTQC, mtqc);
    ixgbe_wr(x, IXGBE_RTTDCS, ixgbe_rd(x, IXGBE_RTTDCS) & ~IXGBE_RTTDCS_ARBDIS);
    ixgbe_wr(x, IXGBE_DMATXCTL, ixgbe_rd(x, IXGBE_DMATXCTL) | IXGBE_DMATXCTL_TE);
}

/* RXCTRL.RXEN last, with the security block's RX path halted around it
 * (4.6.7: SECRXCTRL.RX_DIS until SECRXSTAT.SECRX_RDY). */
static void rx_enable(struct ixgbe *x)
{
    ixgbe_wr(x, IXGBE_SECRXCTRL, ixgbe_rd(x, IXGBE_SECRXCTRL) | IXGBE_SECRXCTRL_RX_DIS);
    if (!ixgbe_wait(x, IXGBE_SECRXSTAT, IXGBE_SECRXSTAT_RDY, IXGBE_SECRXSTAT_RDY, 10000))
        kprintf("%s: RX security block not ready; enabling RX anyway\n", x->core.where);
    ixgbe_wr(x, IXGBE_RXCTRL, ixgbe_rd(x, IXGBE_RXCTRL) | IXGBE_RXCTRL_RXEN);
    ixgbe_wr(x, IXGBE_SECRXCTRL, ixgbe_rd(x, IXGBE_SECRXCTRL) & ~IXGBE_SECRXCTRL_RX_DIS);
}

void ixgbe_vf_frame(struct ixgbe *x, uint16_t frame)
{
    if (frame <= x->core.vf_frame)
        return;
    x->core.vf_frame = frame;
    ixgbe_wr(x, IXGBE_RXCTRL, ixgbe_rd(x, IXGBE_RXCTRL) & ~IXGBE_RXCTRL_RXEN);
    rx_frame_size(x);
    rx_enable(x);
    kprintf("%s: a VF asked for frames of up to %u bytes: MAXFRS raised\n", x->core.where, frame);
}

/* Every unicast frame taken (FCTRL.UPE), for an xconnect. The receiver
 * stopped meanwhile: FCTRL's description (8.2.3.7.1) asks RXCTRL.RXEN
 * clear while receive filters change. A PF with VFs refuses: its pools
 * are chosen by destination MAC. */
static bool ixgbe_promiscuous(struct netdev *dev)
{
    struct ixgbe *x = to_ixgbe(dev);
    if (x->core.nvfs)
        return false;
    x->core.promisc = true;
    ixgbe_wr(x, IXGBE_RXCTRL, ixgbe_rd(x, IXGBE_RXCTRL) & ~IXGBE_RXCTRL_RXEN);
    ixgbe_wr(x, IXGBE_FCTRL, ixgbe_rd(x, IXGBE_FCTRL) | IXGBE_FCTRL_UPE);
    rx_enable(x);
    return true;
}

static void bring_up(struct ixgbe *x)
{
    if (ixgbe_sfp_identify(x))
        ixgbe_sfp_phy_init(x);
    link_setup(x);
    (void)ixgbe_read_errors(x); /* 4.6.5: counters from zero */
    x->err = (struct ixgbe_errors){0};
    rx_global(x);
    tx_global(x);
    for (uint16_t i = 0; i < x->core.pairs; i++) {
        uint16_t hwq = x->core.nvfs ? ixgbe_pf_queue(x, i) : i;
        ixgbe_wr(x, IXGBE_DCA_RXCTRL(hwq), ixgbe_rd(x, IXGBE_DCA_RXCTRL(hwq)) & ~IXGBE_DCA_RXCTRL_BIT12);
        x->core.q[i]->rx_chained = jumbo(x); /* the MTU set_mtu took, kept over a reset */
        igb_queue_start(&x->core, i, hwq);
    }
    rx_enable(x);
    ixgbe_wr(x, IXGBE_CTRL_EXT, ixgbe_rd(x, IXGBE_CTRL_EXT) | IXGBE_CTRL_EXT_DRV_LOAD | IXGBE_CTRL_EXT_NS_DIS);
    if (x->core.nvfs)
        ixgbe_sriov_ready(x);
    ixgbe_wait(x, IXGBE_LINKS, IXGBE_LINKS_UP, IXGBE_LINKS_UP, LINK_WAIT_MS * 1000);
}

/* Reset, every pair's buffers given back, brought up again (as the MTU
 * says); false when the reset did not complete. Only while no other core
 * polls the pairs. */
static bool full_restart(struct ixgbe *x)
{
    if (!ixgbe_reset(x))
        return false;
    for (uint16_t i = 0; i < x->core.pairs; i++)
        igb_queue_drain(&x->core, i);
    bring_up(x);
    return true;
}

/* Jumbo frames (netdev set_mtu; core 0, no loop running yet): receive
 * off (MAXFRS and HLREG0 change only so, 4.6.7), each RX queue stopped
 * and started again with the buffers the MTU needs (1 KiB ones chained
 * over 1500, else 2 KiB: igb_rxtx.c), receive on. Sending needs nothing:
 * a frame of several buffers is several data descriptors (7.2.3.2.4).
 * Not with VFs (max_mtu 0): MAXFRS is the port's, and a VF that asked for
 * no more than 1522 bytes (SET_LPE) would be sent longer frames. A queue
 * that does not stop: the whole PF reset instead. */
static bool ixgbe_set_mtu(struct netdev *dev, uint16_t mtu)
{
    struct ixgbe *x = to_ixgbe(dev);
    uint16_t was = dev->mtu;
    if (mtu > MTU_STANDARD && (x->core.nvfs || mtu > dev->max_mtu))
        return false;
    bool was_jumbo = jumbo(x);
    ixgbe_wr(x, IXGBE_RXCTRL, ixgbe_rd(x, IXGBE_RXCTRL) & ~IXGBE_RXCTRL_RXEN);
    dev->mtu = mtu;
    rx_frame_size(x);
    for (uint16_t i = 0; jumbo(x) != was_jumbo && i < x->core.pairs; i++) {
        x->core.q[i]->rx_chained = jumbo(x);
        if (!igb_rxq_restart(&x->core, i, i)) {
            if (!full_restart(x)) { /* (every pair as the MTU says, RXEN set) */
                dev->mtu = was;
                return false;
            }
            break;
        }
    }
    rx_enable(x);
    if (jumbo(x))
        kprintf("%s: mtu %u: frames up to %u bytes, over 1 KiB buffers\n", dev->name, mtu, FRAME_LIMIT(mtu) - 4u);
    return true;
}

/* debug ixgbe-reset PORT: the PF reset and brought up again, as a host's
 * driver does on a link or MTU change; its VFs see RSTI, then RSTD, and
 * start over. Only with one queue pair, core 0's, the console's own: no
 * other core is in the rings meanwhile. */
static bool cmd_debug_reset(struct netdev *dev, const struct cli_args *a)
{
    struct ixgbe *x = to_ixgbe(dev);
    if (x->core.pairs != 1)
        return false;
    if (!full_restart(x)) {
        kprintf("%s: reset did not complete\n", dev->name);
        return true;
    }
    kprintf("%s: reset, link %s\n", dev->name, link_is_up(x) ? "up" : "down");
    return true;
}

/* The board's part number: words 0x15-0x16 hold it as eight hex digits,
 * or 0xfafa and a pointer to a block (its length in words, then the
 * string two characters a word, high byte first): the EEPROM map's "PBA
 * Number". */
static void read_pba(struct ixgbe *x)
{
    uint16_t w0, w1, len, w;
    if (!ixgbe_eeprom_read(x, 0x15, &w0) || !ixgbe_eeprom_read(x, 0x16, &w1))
        return;
    if (w0 != 0xfafa) {
        fmt_snprintf(x->pba, sizeof x->pba, "%04x%04x", w0, w1);
        return;
    }
    if (!ixgbe_eeprom_read(x, w1, &len) || len < 2)
        return;
    size_t n = 0;
    for (uint16_t i = 1; i < len && n + 2 < sizeof x->pba && ixgbe_eeprom_read(x, (uint16_t)(w1 + i), &w); i++) {
        char hi = (char)(w >> 8), lo = (char)w;
        x->pba[n++] = hi >= 0x20 && hi < 0x7f ? hi : '?';
        x->pba[n++] = lo >= 0x20 && lo < 0x7f ? lo : '?';
    }
    x->pba[n] = 0;
}

/* The MAC the EEPROM's auto-read left in RAL0/RAH0; the EEPROM words the
 * canary shows. */
static void read_identity(struct ixgbe *x)
{
    igb_read_mac(&x->core, IXGBE_RAL(0), IXGBE_RAH(0));
    if (!ixgbe_eeprom_read(x, 0x2d, &x->etrack[0]) || !ixgbe_eeprom_read(x, 0x2e, &x->etrack[1]))
        kprintf("%s: EEPROM did not answer through EERD\n", x->core.where);
    read_pba(x);
}

static struct netdev *ixgbe_probe(struct pci_dev *pci, uint16_t max_pairs, struct pkt_pool **pools, uint8_t nvfs)
{
    struct ixgbe *x = kalloc(sizeof *x);
    struct igb *g = &x->core;
    struct netdev *dev = &g->dev;
    fmt_snprintf(g->where, sizeof g->where, "ixgbe %02x:%02x.%x", pci->bus, pci->dev, pci->fn);
    x->pci = pci;
    g->layout = &ixgbe_pf_layout;
    g->regs = pci_map_bar(pci, 0);
    if (!g->regs)
        return NULL;
    pci_enable(pci);
    if (!ixgbe_reset(x)) {
        kprintf("%s: reset did not complete\n", g->where);
        return NULL;
    }
    x->lan_id = (uint8_t)((ixgbe_rd(x, IXGBE_STATUS) >> IXGBE_STATUS_LAN_ID_SHIFT) & 3);
    x->phy_sync = x->lan_id ? IXGBE_SYNC_PHY1 : IXGBE_SYNC_PHY0;
    read_identity(x);
    uint16_t most = IXGBE_MAX_PAIRS;
    if (nvfs && ixgbe_sriov_enable(x, nvfs))
        most = x->qpp; /* the PF's pool's queues */
    uint16_t pairs = max_pairs < most ? max_pairs : most;
    g->pairs = pairs ? pairs : 1;
    for (uint16_t i = 0; i < g->pairs; i++) {
        g->q[i] = igb_queue_alloc(pools[i]);
        dev->rx_pool[i] = pools[i];
    }
    bring_up(x);

    dev->driver = "ixgbe";
    dev->ops = &ixgbe_ops;
    dev->priv = x;
    dev->nqueues = g->pairs;
    dev->mtu = MTU_STANDARD;
    dev->max_mtu = g->nvfs ? 0 : NETDEV_MTU_MAX; /* jumbo frames up to 15.5 KB (MAXFRS); with VFs: not here */
    dev->offloads = NETDEV_OFF_RX_CSUM | NETDEV_OFF_TX_CSUM | NETDEV_OFF_TSO4 | NETDEV_OFF_TSO6 |
                    (g->pairs > 1 ? NETDEV_OFF_RSS | NETDEV_OFF_RSS_TCP6 : 0);
    ixgbe_poll_status(dev);
    ixgbe_show_add(x);
    kprintf("%s: 82599 %04x rev %u, port %u, eTrack %04x%04x, AUTOC 0x%x, LINKS 0x%x, %u queue pair%s%s\n",
            g->where, pci->device, pci->revision, x->lan_id, x->etrack[1], x->etrack[0], x->autoc, x->links,
            g->pairs, g->pairs == 1 ? "" : "s", g->pairs > 1 ? ", RSS" : "");
    if (g->nvfs)
        kprintf("%s: %u VFs, %u pools of %u queues; the PF is pool %u\n", g->where, g->nvfs, x->qpp == 2 ? 64 : 32,
                x->qpp, g->nvfs);
    return dev;
}

static const struct nic_driver_cmd ixgbe_cmds[] = {
    {.words = "show ixgbe", .usage = "show ixgbe [json]",
     .help = "82599 ports: device, EEPROM, SFP+ module, link registers, error counters, VFs", .fn = ixgbe_cmd_show},
    {.words = "debug ixgbe-reset", .usage = "debug ixgbe-reset PORT",
     .help = "reset an 82599 PF with one queue pair, as a host does", .port_fn = cmd_debug_reset,
     .port_hint = "an ixgbe port with one queue pair"},
    {.words = "debug ixgbe-untrust-vfs", .usage = "debug ixgbe-untrust-vfs PORT",
     .help = "make an 82599 PF's VFs untrusted (named multicast only), as a Linux host's are", .port_fn =
     ixgbe_cmd_untrust_vfs, .port_hint = "an ixgbe port with VFs"},
};

const struct nic_driver ixgbe_driver = {
    .name = "ixgbe",
    .match = ixgbe_match,
    .probe = ixgbe_probe,
    .sriov_max_vfs = PCI_SRIOV_MAX_VFS,
    NIC_DRIVER_CMDS(ixgbe_cmds),
};
