/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/ixgbe/ixgbe_pool.c: the 82599's virtualization pools
 * (datasheet 7.10.3): how many queues a pool has (GCR_EXT.VT_Mode, MRQC),
 * which pools a received frame goes to (RAR + MPSAR, PFVML2FLT, MTA,
 * PFVTCTL's default pool and replication, PFVFRE), and the switch a pool's
 * frame crosses on its way out (PFVFTE, PFVFSPOOF, PFDTXGSWC loopback).
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/iov.h"
#include "net/eth.h"
#include "hw/pci/pcie_sriov.h"
#include "ixgbe_int.h"

#define MAX_POOLS 64

bool ixgbe_vt_on(IxgbeState *s)
{
    return ixgbe_reg(s, IXGBE_PFVTCTL) & IXGBE_PFVTCTL_VT_ENA;
}

/* 8.2.3.1.x GCR_EXT.VT_Mode: 01 16 pools of 8 queues, 10 32 of 4, 11 64
 * of 2; it also sets how a VF's queue registers map onto the PF's. */
int ixgbe_vf_qpp(IxgbeState *s)
{
    static const int qpp[] = { 0, 8, 4, 2 };

    return qpp[ixgbe_reg(s, IXGBE_GCR_EXT) & IXGBE_GCR_EXT_VT_MASK];
}

/* RX pools: MRQC.MRQE VMDq+RSS 32 or 64 (8.2.3.7.12) say it; with MRQE
 * other than a VMDq mode (Linux 6.1 writes MRQC 0 in VT mode) the pools
 * are GCR_EXT.VT_Mode's. A modelling choice, noted in qemu/README.md. */
int ixgbe_pool_qpp(IxgbeState *s)
{
    uint32_t mrqe = ixgbe_reg(s, IXGBE_MRQC) & IXGBE_MRQC_MRQE_MASK;

    if (mrqe == IXGBE_MRQE_VMDQ_RSS32) {
        return 4;
    }
    if (mrqe == IXGBE_MRQE_VMDQ_RSS64) {
        return 2;
    }
    return ixgbe_vf_qpp(s) ? ixgbe_vf_qpp(s) : 2;
}

int ixgbe_num_vfs(IxgbeState *s)
{
    return s->sriov ? pcie_sriov_num_vfs(PCI_DEVICE(s)) : 0;
}

/* The VF whose pool holds queue q, or -1 (the PF's, or no VT). */
int ixgbe_queue_vf(IxgbeState *s, int q)
{
    int qpp = ixgbe_vf_qpp(s);
    int n;

    if (!qpp) {
        return -1;
    }
    n = q / qpp;
    return n < ixgbe_num_vfs(s) ? n : -1;
}

static bool pool_bit(IxgbeState *s, hwaddr reg0, int pool)
{
    return ixgbe_reg(s, reg0 + 4 * (pool / 32)) & (1u << (pool % 32));
}

static uint32_t l2flt(IxgbeState *s, int pool)
{
    return ixgbe_reg(s, IXGBE_PFVML2FLT0 + 4 * pool);
}

/* Pools whose L2 filter has any of bits. */
static uint64_t pools_with(IxgbeState *s, uint32_t bits)
{
    uint64_t m = 0;

    for (int p = 0; p < MAX_POOLS; p++) {
        if (l2flt(s, p) & bits) {
            m |= 1ull << p;
        }
    }
    return m;
}

/* 7.10.3.2: the pools of every valid RAR holding da (MPSAR). */
static uint64_t rar_pools(IxgbeState *s, const uint8_t *da)
{
    uint32_t lo = ldl_le_p(da), hi = lduw_le_p(da + 4);
    uint64_t m = 0;

    for (int n = 0; n < IXGBE_NUM_RAR; n++) {
        hwaddr r = ixgbe_rar_off(n);
        uint32_t rah = ixgbe_reg(s, r + 4);
        if ((rah & IXGBE_RAH_AV) && ixgbe_reg(s, r) == lo &&
            (rah & 0xFFFF) == hi) {
            m |= ixgbe_reg(s, IXGBE_MPSAR_LO(n)) |
                 (uint64_t)ixgbe_reg(s, IXGBE_MPSAR_HI(n)) << 32;
        }
    }
    return m;
}

/* 7.1.1.x: the 12 MTA hash bits MCSTCTRL.MO picks. */
static bool mta_hit(IxgbeState *s, const uint8_t *da)
{
    uint32_t mcst = ixgbe_reg(s, IXGBE_MCSTCTRL);
    unsigned shift = 4 - (mcst & 3);
    uint32_t h = (mcst & 3) == 3 ? (da[4] | da[5] << 8)
                                 : (da[4] >> shift) | (da[5] << (8 - shift));

    h &= 0xFFF;
    return (mcst & IXGBE_MCSTCTRL_MFE) &&
           (ixgbe_reg(s, IXGBE_MTA0 + 4 * (h >> 5)) & (1u << (h & 31)));
}

/*
 * 7.10.3.2-7.10.3.4: the pools a frame goes to. Unicast: the RAR's pools;
 * none, and FCTRL.UPE: the default pool. Broadcast: pools with BAM.
 * Multicast: RAR pools, ROMPE pools on an MTA hit, MPE pools; none, and
 * FCTRL.MPE: the default pool. Untagged frames only to AUPE pools (tagged
 * ones: pool VLAN filters, PFVLVF, are not modelled). Without
 * PFVTCTL.Rpl_En a frame several pools take goes to the default pool
 * alone. Then PFVFRE: a pool not enabled to receive gets nothing.
 */
uint64_t ixgbe_pool_select(IxgbeState *s, const uint8_t *frame, size_t len)
{
    uint32_t vtctl = ixgbe_reg(s, IXGBE_PFVTCTL);
    uint32_t fctrl = ixgbe_reg(s, IXGBE_FCTRL);
    int def = (vtctl >> IXGBE_PFVTCTL_DEF_PL_SHIFT) & 0x3F;
    uint64_t defm = vtctl & IXGBE_PFVTCTL_DIS_DEF_PL ? 0 : 1ull << def;
    uint64_t m, en;
    bool tagged = len >= 18 && lduw_be_p(frame + 12) ==
                  (ixgbe_reg(s, IXGBE_VLNCTRL) & 0xFFFF);

    if (is_broadcast_ether_addr(frame)) {
        m = pools_with(s, IXGBE_L2FLT_BAM);
    } else if (is_multicast_ether_addr(frame)) {
        m = rar_pools(s, frame) | pools_with(s, IXGBE_L2FLT_MPE) |
            (mta_hit(s, frame) ? pools_with(s, IXGBE_L2FLT_ROMPE) : 0);
        if (!m && (fctrl & IXGBE_FCTRL_MPE)) {
            m = defm;
        }
    } else {
        m = rar_pools(s, frame);
        if (!m && (fctrl & IXGBE_FCTRL_UPE)) {
            m = defm;
        }
    }
    if (!tagged) {
        m &= pools_with(s, IXGBE_L2FLT_AUPE);
    }
    if (ctpop64(m) > 1 && !(vtctl & IXGBE_PFVTCTL_RPL_EN)) {
        m &= defm;
    }
    en = ixgbe_reg(s, IXGBE_PFVFRE0) |
         (uint64_t)ixgbe_reg(s, IXGBE_PFVFRE0 + 4) << 32;
    return m & en;
}

/* 7.10.3.x MAC anti-spoofing: a pool may send only from a source address
 * a RAR gives it. */
static bool spoofed(IxgbeState *s, int pool, const uint8_t *sa)
{
    if (!(ixgbe_reg(s, IXGBE_PFVFSPOOF0 + 4 * (pool / 8)) &
          (1u << (pool % 8)))) {
        return false;
    }
    return !(rar_pools(s, sa) & (1ull << pool));
}

/*
 * A frame queue q sends (7.10.3.5-7.10.3.7): dropped when its pool may
 * not send (PFVFTE) or it is spoofed (counted in SSVPC). With
 * PFDTXGSWC.LBE the frame goes to every other pool that takes it, and out
 * the wire too when broadcast, multicast or owned by no local pool.
 * Returns -1 dropped, 0 looped back only, 1 to the wire (too).
 */
int ixgbe_pool_tx(IxgbeState *s, int q, const struct iovec *iov, int iovcnt)
{
    uint8_t buf[16384];
    size_t len;
    int tqpp, pool;
    uint64_t pools;

    if (!(ixgbe_reg(s, IXGBE_MTQC) & IXGBE_MTQC_VT_ENA) && !ixgbe_vt_on(s)) {
        return 1;
    }
    tqpp = ixgbe_vf_qpp(s) ? ixgbe_vf_qpp(s) : ixgbe_pool_qpp(s);
    pool = q / tqpp;
    if (!pool_bit(s, IXGBE_PFVFTE0, pool)) {
        return -1;
    }
    len = iov_to_buf(iov, iovcnt, 0, buf, sizeof(buf));
    if (len < 14) {
        return 1;
    }
    if (spoofed(s, pool, buf + 6)) {
        ixgbe_stat_add(s, IXGBE_SSVPC, 1);
        return -1;
    }
    if (!(ixgbe_reg(s, IXGBE_PFDTXGSWC) & IXGBE_PFDTXGSWC_LBE) ||
        !ixgbe_vt_on(s)) {
        return 1;
    }
    pools = ixgbe_pool_select(s, buf, len) & ~(1ull << pool);
    if (pools) {
        ixgbe_rx_local(s, pools, buf, len);
    }
    return !pools || is_multicast_ether_addr(buf);
}

/* SRRCTL.DROP_EN or QDE (8.2.3.8.x): a full queue drops. */
bool ixgbe_queue_drops(IxgbeState *s, int q, uint32_t srrctl)
{
    return (srrctl & IXGBE_SRRCTL_DROP_EN) ||
           (s->qde[q / 64] & (1ull << (q % 64)));
}

bool ixgbe_pool_read(IxgbeState *s, hwaddr off, uint32_t *val)
{
    if (off == IXGBE_QDE) {
        *val = ixgbe_reg(s, off);
        return true;
    }
    return false;
}

bool ixgbe_pool_write(IxgbeState *s, hwaddr off, uint32_t val)
{
    if (off == IXGBE_QDE) {
        /* 8.2.3.8.x: WRITE sets queue IDX's drop enable; READ loads it */
        int q = (val >> IXGBE_QDE_IDX_SHIFT) & 0x7F;
        uint64_t bit = 1ull << (q % 64);
        if (val & IXGBE_QDE_WRITE) {
            s->qde[q / 64] = (val & IXGBE_QDE_ENABLE) ? s->qde[q / 64] | bit
                                                      : s->qde[q / 64] & ~bit;
        }
        s->mac[off >> 2] = (val & ~(IXGBE_QDE_WRITE | IXGBE_QDE_READ |
                                    IXGBE_QDE_ENABLE)) |
                           ((s->qde[q / 64] & bit) ? IXGBE_QDE_ENABLE : 0);
        return true;
    }
    return false;
}
