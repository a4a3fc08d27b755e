/* SPDX-License-Identifier: MIT */
/* drivers/intel/ixgbe_sriov.c: the 82599 physical function's SR-IOV side
 * (the datasheet's 7.10, "Virtualization", and 4.6.10's initialisation):
 * VFs enabled (drivers/pci/pci_sriov.c), the pools that sort frames among
 * them, and the PF's end of their mailboxes (igb_mbx.c's register moves on
 * the 82599's PFMAILBOX/PFMBMEM) speaking Linux ixgbe's protocol up to
 * API 1.3, so that Linux's ixgbevf and ours (ixgbevf.c) both work here.
 *
 * Pools: up to 31 VFs, 32 pools of 4 queues; more, 64 pools of 2 (Linux
 * chooses the same). VF n is pool n, the PF the pool after the last VF,
 * its queue pairs that pool's queues with RSS inside it (MRQC's VMDq+RSS,
 * PSRTYPE.RQPL). A frame goes to the pools whose receive address holds its
 * destination (RAR with MPSAR's pool bits: RAR 0 the PF's, RAR 1 + n VF
 * n's); broadcast to every pool with BAM; multicast to the PF's (MPE) and
 * to each VF as it asked (UPDATE_XCAST, SET_MULTICAST); unknown unicast
 * to the PF's (PFVTCTL.DEF_PL). PFDTXGSWC's loopback carries frames
 * between pools. A VF's queues drop when full (QDE): a VF that stops
 * refilling cannot stall the port's packet buffer.
 *
 * A VF's MAC is its PF's with the locally administered bit set and byte 4
 * xored with n + 1 (igb_sriov.c's rule, 63 VFs apart). This PF trusts its
 * VFs (every multicast when asked; `debug ixgbe-untrust-vfs` makes them
 * untrusted as a Linux host's are, for the VF's side of that to be
 * tested) but offers no VLAN filters, no frames
 * above 1522 bytes, no unicast promiscuous mode (the 82599 has none per
 * pool) and no RSS queries: those are refused (NACK) and counted. */
#include "drivers/intel/ixgbe_dev.h"

#include "kernel/console/console.h"
#include "kernel/lib.h"

#define VF_MAX_FRAME 1522 /* SET_LPE: MTU 1500, an 802.1Q tag, the FCS */
#define VF_JUMBO_MAX (NETDEV_MTU_MAX + 14 + 8 + 4) /* SET_LPE past 1522: a VF's jumbo frames */

static void serve_vfs(struct igb *g);

static struct ixgbe *of(struct igb *g) { return (struct ixgbe *)g; }

static uint32_t mac_lo(const uint8_t *m)
{
    return (uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24;
}
static uint32_t mac_hi(const uint8_t *m) { return (uint32_t)m[4] | (uint32_t)m[5] << 8; }

/* RAR i holds mac for pool (RAH.AV bit 31; the pools in MPSAR). */
static void rar_set(struct ixgbe *x, uint32_t i, const uint8_t *mac, uint32_t pool)
{
    ixgbe_wr(x, IXGBE_RAH(i), 0); /* invalid while half written */
    ixgbe_wr(x, IXGBE_MPSAR_LO(i), pool < 32 ? 1u << pool : 0);
    ixgbe_wr(x, IXGBE_MPSAR_HI(i), pool >= 32 ? 1u << (pool - 32) : 0);
    ixgbe_wr(x, IXGBE_RAL(i), mac_lo(mac));
    ixgbe_wr(x, IXGBE_RAH(i), mac_hi(mac) | 1u << 31);
}

static void rar_clear(struct ixgbe *x, uint32_t i)
{
    ixgbe_wr(x, IXGBE_RAH(i), 0);
    ixgbe_wr(x, IXGBE_MPSAR_LO(i), 0);
    ixgbe_wr(x, IXGBE_MPSAR_HI(i), 0);
}

/* Sets or clears pool n's bit in a pair of pool registers. */
static void pool_bit(struct ixgbe *x, uint32_t reg0, uint32_t n, bool on)
{
    uint32_t reg = reg0 + 4 * (n / 32), bit = 1u << (n % 32);
    uint32_t v = ixgbe_rd(x, reg);
    ixgbe_wr(x, reg, on ? v | bit : v & ~bit);
}

uint8_t ixgbe_sriov_enable(struct ixgbe *x, uint8_t nvfs)
{
    struct igb *g = &x->core;
    struct pci_dev *vfs[PCI_SRIOV_MAX_VFS];
    int n = pci_sriov_enable(x->pci, nvfs, vfs);
    if (n <= 0) {
        kprintf("%s: no SR-IOV (no capability, or configuration space out of reach)\n", g->where);
        return 0;
    }
    g->nvfs = (uint8_t)n;
    x->qpp = n < 32 ? 4 : 2;
    for (int i = 0; i < n; i++) {
        uint8_t *m = x->vf[i].mac;
        memcpy(m, g->dev.mac, 6);
        m[0] = (uint8_t)((m[0] | 2) & ~1);
        m[4] ^= (uint8_t)(i + 1);
        pci_enable(vfs[i]);
        kprintf("%s: VF %d at %02x:%02x.%x\n", g->where, i, vfs[i]->bus, vfs[i]->dev, vfs[i]->fn);
    }
    g->serve_vfs = serve_vfs;
    igb_sriov_register(g);
    return g->nvfs;
}

uint16_t ixgbe_pf_queue(const struct ixgbe *x, uint16_t i) { return (uint16_t)(x->core.nvfs * x->qpp + i); }

/* 4.6.10.1: VT mode and the pools, before the PF's rings. The PF's pool
 * opens here; a VF's when its reset is answered (vf_reset). */
void ixgbe_sriov_pools(struct ixgbe *x)
{
    uint32_t pf = x->core.nvfs;
    bool p64 = x->qpp == 2;
    ixgbe_wr(x, IXGBE_GCR_EXT, (ixgbe_rd(x, IXGBE_GCR_EXT) & ~3u) | (p64 ? IXGBE_GCR_EXT_VT_64 : IXGBE_GCR_EXT_VT_32));
    ixgbe_wr(x, IXGBE_PFVTCTL, IXGBE_PFVTCTL_VT_ENA | IXGBE_PFVTCTL_RPL_EN | pf << IXGBE_PFVTCTL_DEF_PL_SHIFT);
    rar_set(x, 0, x->core.dev.mac, pf);
    for (uint32_t i = 1; i < IXGBE_RAR_COUNT; i++)
        rar_clear(x, i);
    for (uint32_t n = 0; n <= pf; n++)
        ixgbe_wr(x, IXGBE_PFVML2FLT(n), n == pf ? IXGBE_L2FLT_BAM | IXGBE_L2FLT_MPE | IXGBE_L2FLT_AUPE : 0);
    for (int i = 0; i < IXGBE_MTA_COUNT; i++)
        ixgbe_wr(x, IXGBE_MTA(i), 0);
    ixgbe_wr(x, IXGBE_MCSTCTRL, IXGBE_MCSTCTRL_MFE); /* the groups VFs name (SET_MULTICAST), hashed on bits 47:36 */
    /* RSS over the PF's pairs inside its pool: RQPL 0, 1, 2 = 1, 2, 4 queues. */
    uint32_t rqpl = x->core.pairs >= 4 ? 2 : x->core.pairs >= 2 ? 1 : 0;
    ixgbe_wr(x, IXGBE_PSRTYPE(pf), rqpl << IXGBE_PSRTYPE_RQPL_SHIFT);
    for (uint32_t i = 0; i < 2; i++) {
        ixgbe_wr(x, IXGBE_PFVFRE(i), 0);
        ixgbe_wr(x, IXGBE_PFVFTE(i), 0);
    }
    pool_bit(x, IXGBE_PFVFRE(0), pf, true);
    pool_bit(x, IXGBE_PFVFTE(0), pf, true);
    ixgbe_wr(x, IXGBE_PFDTXGSWC, IXGBE_PFDTXGSWC_LBE);
    for (uint32_t i = 0; i < 2; i++) /* VF Enable reset the VFs: nothing to answer for that */
        ixgbe_wr(x, IXGBE_PFVFLREC(i), ixgbe_rd(x, IXGBE_PFVFLRE(i)));
    for (uint32_t n = 0; n < pf; n++)
        x->vf[n].cts = false;
}

/* VFs may talk to the PF now (their RSTI clears). */
void ixgbe_sriov_ready(struct ixgbe *x)
{
    ixgbe_wr(x, IXGBE_CTRL_EXT, ixgbe_rd(x, IXGBE_CTRL_EXT) | IXGBE_CTRL_EXT_PFRSTD);
}

/* The PF's link changed: each VF that talks to us hears (Linux's ping). */
void ixgbe_sriov_link(struct ixgbe *x)
{
    for (uint32_t n = 0; n < x->core.nvfs; n++)
        if (x->vf[n].cts) {
            uint32_t w = IXGBE_MSG_PF_CONTROL | IGB_MSG_CTS;
            igb_pf_mbx_send(&x->core, n, &w, 1);
        }
}

bool ixgbe_cmd_untrust_vfs(struct netdev *dev, const struct cli_args *a)
{
    struct ixgbe *x = dev->priv;
    if (!x->core.nvfs)
        return false;
    for (uint32_t n = 0; n < x->core.nvfs; n++) {
        x->vf[n].untrusted = true;
        x->vf[n].cts = false; /* Linux's PF on a trust change: the VF must reset */
        uint32_t w = IXGBE_MSG_PF_CONTROL;
        igb_pf_mbx_send(&x->core, n, &w, 1);
    }
    kprintf("%s: %u VFs untrusted, told to start over\n", dev->name, x->core.nvfs);
    return true;
}

/* VF n's queues drop what finds no buffer (QDE, one write a queue). */
static void vf_queues_drop(struct ixgbe *x, uint32_t n)
{
    for (uint32_t q = n * x->qpp; q < (n + 1) * x->qpp; q++)
        ixgbe_wr(x, IXGBE_QDE, IXGBE_QDE_WRITE | IXGBE_QDE_ENABLE | q << IXGBE_QDE_IDX_SHIFT);
}

/* VF_RESET: its address, filter and pool on; its MAC in the reply. */
static void vf_reset(struct ixgbe *x, uint32_t n)
{
    struct ixgbe_vf *v = &x->vf[n];
    rar_set(x, 1 + n, v->mac, n);
    ixgbe_wr(x, IXGBE_PFVML2FLT(n), IXGBE_L2FLT_BAM | IXGBE_L2FLT_ROMPE | IXGBE_L2FLT_AUPE);
    ixgbe_wr(x, IXGBE_PSRTYPE(n), 0);
    vf_queues_drop(x, n);
    pool_bit(x, IXGBE_PFVFRE(0), n, true);
    pool_bit(x, IXGBE_PFVFTE(0), n, true);
    v->cts = true;
    v->api = IXGBE_API_10;
    v->xcast = IXGBE_XCAST_MULTI;
    x->core.sriov.vf_resets++;
    uint32_t w[IXGBE_MSG_RESET_WORDS] = {IGB_MSG_VF_RESET | IGB_MSG_ACK, mac_lo(v->mac), mac_hi(v->mac), 0};
    igb_pf_mbx_send(&x->core, n, w, IXGBE_MSG_RESET_WORDS);
}

/* A VF reset by FLR, or gone: no CTS, its address and pool closed. */
static void vf_gone(struct ixgbe *x, uint32_t n)
{
    x->vf[n].cts = false;
    rar_clear(x, 1 + n);
    pool_bit(x, IXGBE_PFVFRE(0), n, false);
    pool_bit(x, IXGBE_PFVFTE(0), n, false);
}

static bool api_known(uint32_t api)
{
    return api == IXGBE_API_10 || api == IXGBE_API_11 || api == IXGBE_API_12 || api == IXGBE_API_13;
}

/* UPDATE_XCAST: what pool n takes beyond its own address. */
static bool vf_xcast(struct ixgbe *x, uint32_t n, uint32_t *w)
{
    struct ixgbe_vf *v = &x->vf[n];
    if (v->api < IXGBE_API_12 || w[1] > IXGBE_XCAST_ALLMULTI)
        return false; /* PROMISC: the 82599 has no per-pool unicast promiscuous mode */
    if (v->untrusted && w[1] > IXGBE_XCAST_MULTI)
        w[1] = IXGBE_XCAST_MULTI; /* granted less, and told so in the reply, as Linux's PF does */
    uint32_t f = IXGBE_L2FLT_BAM | IXGBE_L2FLT_AUPE;
    f |= w[1] >= IXGBE_XCAST_MULTI ? IXGBE_L2FLT_ROMPE : 0;
    f |= w[1] == IXGBE_XCAST_ALLMULTI ? IXGBE_L2FLT_MPE : 0;
    ixgbe_wr(x, IXGBE_PFVML2FLT(n), f);
    v->xcast = (uint8_t)w[1];
    return true;
}

/* SET_MULTICAST: up to 30 12-bit MTA hashes (the hash type 0 the reset
 * reply gave), two a word; set in the one table all pools share. */
static bool vf_multicast(struct ixgbe *x, const uint32_t *w)
{
    uint32_t count = (w[0] >> IGB_MSG_INFO_SHIFT) & 0xff;
    if (count > 30)
        return false;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t hash = (w[1 + i / 2] >> (16 * (i % 2))) & 0xfff;
        uint32_t reg = IXGBE_MTA(hash >> 5);
        ixgbe_wr(x, reg, ixgbe_rd(x, reg) | 1u << (hash & 31));
    }
    return true;
}

/* Whether a message other than VF_RESET is done; w[] is the reply's body. */
static bool vf_request(struct ixgbe *x, uint32_t n, uint32_t *w)
{
    struct ixgbe_vf *v = &x->vf[n];
    uint32_t info = (w[0] >> IGB_MSG_INFO_SHIFT) & 0xff;
    switch (w[0] & IGB_MSG_ID_MASK) {
    case IGB_MSG_SET_MAC: {
        uint8_t m[6] = {(uint8_t)w[1], (uint8_t)(w[1] >> 8), (uint8_t)(w[1] >> 16), (uint8_t)(w[1] >> 24),
                        (uint8_t)w[2], (uint8_t)(w[2] >> 8)};
        if ((m[0] & 1) || (m[0] | m[1] | m[2] | m[3] | m[4] | m[5]) == 0)
            return false;
        memcpy(v->mac, m, 6);
        rar_set(x, 1 + n, m, n);
        return true;
    }
    case IGB_MSG_SET_MULTICAST:
        return vf_multicast(x, w);
    case IGB_MSG_SET_VLAN: /* only VLAN 0, untagged, which every pool takes (AUPE) */
        return (w[1] & 0xfff) == 0;
    case IGB_MSG_SET_LPE:
        /* Longer frames (a jumbo MTU): the port's MAXFRS grows to take
         * them, for every pool. Only for a VF of API 1.1 or later: one of
         * 1.0 (Linux's rule for the 82599 too) predates jumbo VFs. */
        if (w[1] <= VF_MAX_FRAME)
            return true;
        if (w[1] > VF_JUMBO_MAX || v->api < IXGBE_API_11)
            return false;
        ixgbe_vf_frame(x, (uint16_t)w[1]);
        return true;
    case IXGBE_MSG_SET_MACVLAN: /* index 0 clears extra addresses: there are none */
        return info == 0;
    case IXGBE_MSG_API_NEGOTIATE:
        if (!api_known(w[1]))
            return false;
        v->api = (uint8_t)w[1];
        return true;
    case IXGBE_MSG_GET_QUEUES:
        if (v->api < IXGBE_API_11)
            return false;
        w[1] = w[2] = x->qpp;
        w[3] = 0; /* no port VLAN, no traffic classes */
        w[4] = 0; /* the default queue: the pool's first */
        return true;
    case IXGBE_MSG_UPDATE_XCAST:
        return vf_xcast(x, n, w);
    default: /* GET_RETA, GET_RSS_KEY (no RSS queries), IPsec, later APIs */
        return false;
    }
}

static void serve_vf(struct ixgbe *x, uint32_t n)
{
    struct igb *g = &x->core;
    uint32_t w[IGB_MBX_WORDS];
    if (!igb_pf_mbx_lock(g, n))
        return; /* asked again next time: the request bit stays set */
    ixgbe_wr(x, IXGBE_PFMBICR(n / 16), 1u << (n % 16));
    igb_pf_mbx_take(g, n, w);
    g->sriov.mbx_rx++;
    if (w[0] & (IGB_MSG_ACK | IGB_MSG_NACK))
        return; /* a reply is not a request */
    if ((w[0] & IGB_MSG_ID_MASK) == IGB_MSG_VF_RESET) {
        vf_reset(x, n);
        return;
    }
    uint32_t words = 1;
    if (!x->vf[n].cts) {
        w[0] |= IGB_MSG_NACK; /* not before its reset: no CTS */
    } else if (vf_request(x, n, w)) {
        w[0] |= IGB_MSG_ACK | IGB_MSG_CTS;
        words = IGB_MBX_WORDS;
    } else {
        w[0] |= IGB_MSG_NACK | IGB_MSG_CTS;
        g->sriov.mbx_refused++;
    }
    igb_pf_mbx_send(g, n, w, words);
}

/* 7.10.2: PFVFLRE names the VFs an FLR reset; PFMBICR the VFs whose
 * message (REQ, 15:0) or acknowledgement (ACK, 31:16) waits, 16 a
 * register, each bit cleared by writing it. */
static void serve_vfs(struct igb *g)
{
    struct ixgbe *x = of(g);
    for (uint32_t i = 0; i < 2; i++) {
        uint32_t lre = ixgbe_rd(x, IXGBE_PFVFLRE(i));
        if (!lre)
            continue;
        ixgbe_wr(x, IXGBE_PFVFLREC(i), lre);
        for (uint32_t b = 0; b < 32; b++)
            if ((lre & (1u << b)) && 32 * i + b < g->nvfs)
                vf_gone(x, 32 * i + b);
    }
    for (uint32_t i = 0; i < (g->nvfs + 15u) / 16; i++) {
        uint32_t icr = ixgbe_rd(x, IXGBE_PFMBICR(i));
        if (!icr)
            continue;
        ixgbe_wr(x, IXGBE_PFMBICR(i), icr & 0xffff0000u); /* the VFs' ACKs of our pings: nothing to do */
        for (uint32_t b = 0; b < 16; b++) {
            uint32_t n = 16 * i + b;
            if ((icr & (1u << b)) && n < g->nvfs)
                serve_vf(x, n);
        }
    }
}
