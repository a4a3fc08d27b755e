/* SPDX-License-Identifier: MIT */
/* drivers/intel/igb_sriov.c: the 82576 physical function's SR-IOV side:
 * its virtual functions enabled (drivers/pci/pci_sriov.c), VMDq pools that
 * sort frames among them, and the answers to their mailbox messages, in
 * the protocol of Linux's igb (igb_regs.h), so that a VF driver written for
 * a Linux host, ours included (igbvf.c), works against this one.
 *
 * Pools (the datasheet's virtualization chapter): pool k owns queues k and k + 8; VF n is
 * pool n, the PF takes pool nvfs, on one queue pair (the 82576 has no RSS
 * inside VMDq pools). A frame goes to the pools whose receive address
 * matches its destination (VF n's MAC in RAR 23 - n, as Linux does);
 * broadcast to every pool with VMOLR.BAM; multicast, the MTA being all
 * ones, to every pool with VMOLR.ROMPE: all of them, as RCTL.MPE gave the
 * PF alone before (IPv6 neighbour discovery); unknown unicast to the PF.
 * DTXSWC's loopback carries frames between pools without the wire.
 *
 * A VF's MAC is its PF's with the locally administered bit set and byte 4
 * xored with 0x10 (n + 1): distinct from every PF's and VF's whose MACs
 * differ in byte 5, as QEMU's and most vendors' consecutive ones do. */
#include "drivers/intel/igb_dev.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"

#define VF_MAX_FRAME 1522 /* SET_LPE without LPE: MTU 1500, an 802.1Q tag, the FCS */
#define VF_JUMBO_MAX (NETDEV_MTU_MAX + 14 + 8 + 4) /* SET_LPE past 1522: a VF's jumbo frames */

static void rar_set(struct igb *g, uint32_t i, const uint8_t *mac, uint32_t pool)
{
    igb_wr32(g, IGB_RAH(i), 0); /* invalid while half written */
    igb_wr32(g, IGB_RAL(i), (uint32_t)mac[0] | (uint32_t)mac[1] << 8 | (uint32_t)mac[2] << 16 | (uint32_t)mac[3] << 24);
    igb_wr32(g, IGB_RAH(i), (uint32_t)mac[4] | (uint32_t)mac[5] << 8 | IGB_RAH_AV | 1u << (IGB_RAH_POOL_SHIFT + pool));
}

static uint32_t vf_rar(uint32_t n) { return IGB_RAR_COUNT - 1 - n; }
static void serve_vfs(struct igb *g);

uint8_t igb_sriov_enable(struct igb *g, struct pci_dev *pci, uint8_t nvfs)
{
    struct pci_dev *vfs[PCI_SRIOV_MAX_VFS];
    if (nvfs > IGB_SRIOV_MAX_VFS) /* pool 7 is the PF's when all 7 are VFs */
        nvfs = IGB_SRIOV_MAX_VFS;
    int n = pci_sriov_enable(pci, nvfs, vfs);
    if (n <= 0) {
        kprintf("%s: no SR-IOV (no capability, or configuration space out of reach)\n", g->where);
        return 0;
    }
    g->nvfs = (uint8_t)n;
    for (int i = 0; i < n; i++) {
        memcpy(g->vf_mac[i], g->dev.mac, 6);
        g->vf_mac[i][0] = (uint8_t)((g->vf_mac[i][0] | 2) & ~1);
        g->vf_mac[i][4] ^= (uint8_t)(0x10 * (i + 1));
        pci_enable(vfs[i]); /* the VF's own memory decoding and bus mastering */
        kprintf("%s: VF %d at %02x:%02x.%x\n", g->where, i, vfs[i]->bus, vfs[i]->dev, vfs[i]->fn);
    }
    g->serve_vfs = serve_vfs;
    igb_sriov_register(g);
    return g->nvfs;
}

void igb_sriov_pools(struct igb *g)
{
    uint32_t pf_pool = g->nvfs;
    igb_wr32(g, IGB_MRQC, IGB_MRQC_VMDQ);
    igb_wr32(g, IGB_VT_CTL, pf_pool << IGB_VT_CTL_DEF_PL_SHIFT);
    rar_set(g, 0, g->dev.mac, pf_pool);
    for (uint32_t k = 0; k <= pf_pool; k++)
        igb_wr32(g, IGB_VMOLR(k), IGB_VMOLR_BAM | IGB_VMOLR_ROMPE | IGB_VMOLR_AUPE);
    for (int i = 0; i < IGB_MTA_COUNT; i++)
        igb_wr32(g, IGB_MTA(i), 0xffffffffu);
    /* VF pools open when the VF's reset is answered (vf_reset). */
    igb_wr32(g, IGB_VFRE, 1u << pf_pool);
    igb_wr32(g, IGB_VFTE, 1u << pf_pool);
    igb_wr32(g, IGB_DTXSWC, IGB_DTXSWC_LOOPBACK);
    /* VF Enable reset the VFs: nothing to answer for that. */
    igb_wr32(g, IGB_VFLRE, (1u << g->nvfs) - 1);
}

void igb_sriov_ready(struct igb *g)
{
    igb_wr32(g, IGB_CTRL_EXT, igb_rd32(g, IGB_CTRL_EXT) | IGB_CTRL_EXT_PFRSTD);
}

/* VF_RESET: its address and pools on, its MAC in the reply. */
static void vf_reset(struct igb *g, uint32_t n)
{
    const uint8_t *m = g->vf_mac[n];
    rar_set(g, vf_rar(n), m, n);
    igb_wr32(g, IGB_VMOLR(n), IGB_VMOLR_BAM | IGB_VMOLR_ROMPE | IGB_VMOLR_AUPE);
    igb_wr32(g, IGB_VFRE, igb_rd32(g, IGB_VFRE) | 1u << n);
    igb_wr32(g, IGB_VFTE, igb_rd32(g, IGB_VFTE) | 1u << n);
    g->vf_cts |= (uint8_t)(1u << n);
    g->sriov.vf_resets++;
    uint32_t w[3] = {IGB_MSG_VF_RESET | IGB_MSG_ACK,
                     (uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24,
                     (uint32_t)m[4] | (uint32_t)m[5] << 8};
    igb_pf_mbx_send(g, n, w, 3);
}

/* SET_LPE: the pool's own limit (VMOLR.RLPML with LPE past 1522: the
 * others' frames stay as long as they were), and the port's (RCTL.LPE,
 * RLPML: igb.c) raised to let it through, never lowered until a reset. */
static void vf_frame(struct igb *g, uint32_t n, uint32_t frame)
{
    uint32_t vmolr = igb_rd32(g, IGB_VMOLR(n)) & ~(IGB_VMOLR_RLPML_MASK | IGB_VMOLR_LPE);
    igb_wr32(g, IGB_VMOLR(n), vmolr | (frame > VF_MAX_FRAME ? frame | IGB_VMOLR_LPE : 0));
    if (frame > VF_MAX_FRAME)
        igb_vf_frame(g, (uint16_t)frame);
}

/* Whether a message other than VF_RESET is done; what it asks is refused
 * (NACK) where this PF cannot give it. */
static bool vf_request(struct igb *g, uint32_t n, const uint32_t *w)
{
    uint32_t info = w[0] >> IGB_MSG_INFO_SHIFT & 0xff;
    switch (w[0] & IGB_MSG_ID_MASK) {
    case IGB_MSG_SET_MAC: {
        uint8_t m[6] = {(uint8_t)w[1], (uint8_t)(w[1] >> 8), (uint8_t)(w[1] >> 16), (uint8_t)(w[1] >> 24),
                        (uint8_t)w[2], (uint8_t)(w[2] >> 8)};
        if (info != 0 || (m[0] & 1) || (m[0] | m[1] | m[2] | m[3] | m[4] | m[5]) == 0)
            return false;
        memcpy(g->vf_mac[n], m, 6);
        rar_set(g, vf_rar(n), m, n);
        return true;
    }
    case IGB_MSG_SET_MULTICAST: /* every multicast reaches every pool already */
        return true;
    case IGB_MSG_SET_PROMISC: /* multicast promiscuous is what it has; unicast is not offered */
        return (w[0] & ~(uint32_t)IGB_MSG_ID_MASK & ~(uint32_t)IGB_MSG_PROMISC_MULTICAST) == 0;
    case IGB_MSG_SET_LPE:
        if (w[1] > VF_JUMBO_MAX)
            return false;
        vf_frame(g, n, w[1]);
        return true;
    default: /* VLAN filters are not offered */
        return false;
    }
}

static void serve_vf(struct igb *g, uint32_t n)
{
    uint32_t w[IGB_MBX_WORDS];
    if (!igb_pf_mbx_lock(g, n))
        return; /* asked again next time: the request bit stays set */
    igb_wr32(g, IGB_MBVFICR, 1u << n);
    igb_pf_mbx_take(g, n, w);
    g->sriov.mbx_rx++;
    if (w[0] & (IGB_MSG_ACK | IGB_MSG_NACK))
        return; /* a reply is not a request */
    if ((w[0] & IGB_MSG_ID_MASK) == IGB_MSG_VF_RESET) {
        vf_reset(g, n);
        return;
    }
    uint32_t reply = w[0] & ~(uint32_t)(IGB_MSG_ACK | IGB_MSG_NACK | IGB_MSG_CTS);
    if (!(g->vf_cts & (1u << n))) {
        reply |= IGB_MSG_NACK; /* not before its reset: no CTS */
    } else if (vf_request(g, n, w)) {
        reply |= IGB_MSG_ACK | IGB_MSG_CTS;
    } else {
        reply |= IGB_MSG_NACK | IGB_MSG_CTS;
        g->sriov.mbx_refused++;
    }
    igb_pf_mbx_send(g, n, &reply, 1);
}

static void serve_vfs(struct igb *g)
{
    uint32_t mask = (1u << g->nvfs) - 1;
    uint32_t lre = igb_rd32(g, IGB_VFLRE) & mask;
    if (lre) { /* reset VFs start over: no CTS, no address, pools closed (by the device) */
        igb_wr32(g, IGB_VFLRE, lre);
        g->vf_cts &= (uint8_t)~lre;
        for (uint32_t n = 0; n < g->nvfs; n++)
            if (lre & (1u << n))
                igb_wr32(g, IGB_RAH(vf_rar(n)), 0);
    }
    uint32_t icr = igb_rd32(g, IGB_MBVFICR);
    igb_wr32(g, IGB_MBVFICR, icr & (mask << 16)); /* the VFs' ACKs of our messages: none sent */
    for (uint32_t n = 0; n < g->nvfs; n++)
        if (icr & (1u << n))
            serve_vf(g, n);
}
