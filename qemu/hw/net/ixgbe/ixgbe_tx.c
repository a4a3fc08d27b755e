/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/ixgbe/ixgbe_tx.c: the 82599 transmit path (datasheet 7.2):
 * advanced context and data descriptors (checksum offload, TSO, VLAN
 * insertion), legacy data descriptors, DD and head write-back, and the
 * queue registers with their strict checks (4.6.8: DMATXCTL.TE before
 * any TXDCTL.ENABLE, the tail moved only once the enable reads back).
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/iov.h"
#include "net/eth.h"
#include "net/net.h"
#include "hw/pci/pci_device.h"
#include "hw/net/net_tx_pkt.h"
#include "ixgbe_int.h"

#define TX_MAX_FRAGS 64         /* descriptors one packet may span */

typedef struct TxEmit {
    IxgbeState *s;
    int q;
} TxEmit;

static hwaddr txq_reg(int q, hwaddr r)
{
    return IXGBE_TXQ + 0x40 * q + r;
}

static void count_tx(IxgbeState *s, int q, const uint8_t *da, size_t len)
{
    static const hwaddr ptc[] = { 0x040D8, 0x040DC, 0x040E0, 0x040E4,
                                  0x040E8, 0x040EC };  /* PTC64..PTC1522 */
    static const size_t lim[] = { 64, 127, 255, 511, 1023, SIZE_MAX };
    uint32_t tqsm = ixgbe_reg(s, 0x08600 + 4 * (q >> 2));
    int c = (tqsm >> (8 * (q & 3))) & 0xF;
    size_t wire = MAX(len, 60) + 4;

    ixgbe_stat_add(s, IXGBE_GPTC, 1);
    ixgbe_stat_add(s, IXGBE_TPT, 1);
    ixgbe_stat_add64(s, IXGBE_GOTCL, wire);
    if (is_broadcast_ether_addr(da)) {
        ixgbe_stat_add(s, IXGBE_BPTC, 1);
    } else if (is_multicast_ether_addr(da)) {
        ixgbe_stat_add(s, IXGBE_MPTC, 1);
    }
    for (int i = 0; i < 6; i++) {
        if (wire <= lim[i]) {
            ixgbe_stat_add(s, ptc[i], 1);
            break;
        }
    }
    ixgbe_stat_add(s, IXGBE_QPTC0 + 4 * c, 1);
    ixgbe_stat_add64(s, IXGBE_QBTC_L0 + 8 * c, wire);
}

/* Each frame on the wire (one per TSO segment): to the backend, or back
 * into our own receiver under HLREG0.LPBK (MAC loopback). */
static void tx_emit(void *opaque, const struct iovec *iov, int iovcnt,
                    const struct iovec *virt_iov, int virt_iovcnt)
{
    TxEmit *e = opaque;
    NetClientState *nc = qemu_get_queue(e->s->nic);
    uint8_t da[6] = { 0 };
    int sw;

    iov_to_buf(iov, iovcnt, 0, da, sizeof(da));
    /* 7.10.3.x: the pool switch first (PFVFTE, anti-spoof, loopback) */
    sw = ixgbe_pool_tx(e->s, e->q, iov, iovcnt);
    if (sw < 0) {
        return;                 /* dropped: not sent, not counted */
    }
    ixgbe_vf_count_tx(e->s, e->q, iov_size(iov, iovcnt));
    if (sw == 0) {
        return;                 /* another pool took it, the wire not */
    }
    count_tx(e->s, e->q, da, iov_size(iov, iovcnt));
    if (ixgbe_reg(e->s, IXGBE_HLREG0) & IXGBE_HLREG0_LPBK) {
        ixgbe_receive_iov(nc, iov, iovcnt);
    } else {
        qemu_sendv_packet(nc, iov, iovcnt);
    }
}

static void tx_send(IxgbeState *s, int q)
{
    IxgbeTxQueue *t = &s->txq[q];
    IxgbeTxCtx *c = &t->ctx[t->ctx_idx];
    TxEmit e = { s, q };

    if (t->bad || !net_tx_pkt_parse(t->pkt)) {
        return;
    }
    if (t->vle) {
        net_tx_pkt_setup_vlan_header_ex(t->pkt, t->vlan,
                                        ixgbe_reg(s, IXGBE_DMATXCTL) >> 16);
    }
    /* 7.2.4 TSO: MSS and header lengths from the context; 7.2.5 L4
     * checksum (TXSM), IPv4 header checksum (IXSM) */
    if (t->tse && (c->mss_l4len >> 16) == 0) {
        /* 7.2.4: TSO needs an MSS; a zero one would never end */
        ixgbe_guest_error(s, &s->strict.bad_descriptor,
                          "TXQ %d: TSO with context %d's MSS 0", q, t->ctx_idx);
        return;
    }
    if (t->tse) {
        net_tx_pkt_build_vheader(t->pkt, true, true, c->mss_l4len >> 16);
    } else if (t->txsm) {
        net_tx_pkt_build_vheader(t->pkt, false, true, 0);
    }
    if (t->ixsm) {
        net_tx_pkt_update_ip_hdr_checksum(t->pkt);
    }
    net_tx_pkt_send_custom(t->pkt, false, tx_emit, &e);
}

static void tx_end_packet(IxgbeState *s, int q)
{
    IxgbeTxQueue *t = &s->txq[q];

    net_tx_pkt_reset(t->pkt, net_tx_pkt_unmap_frag_pci, PCI_DEVICE(s));
    t->in_packet = t->bad = false;
}

/* A data descriptor, advanced (7.2.3.2.4) or legacy (7.2.3.2.2). */
static void tx_data(IxgbeState *s, int q, uint64_t addr, uint32_t cmd_len,
                    uint32_t olinfo, bool dext)
{
    IxgbeTxQueue *t = &s->txq[q];
    uint32_t len = cmd_len & 0xFFFF;

    if (!t->in_packet) {
        /* the first descriptor of a packet carries its offload requests */
        t->in_packet = true;
        t->vle = cmd_len & IXGBE_TXD_CMD_VLE;
        if (dext) {
            t->tse = cmd_len & IXGBE_TXD_CMD_TSE;
            t->ixsm = (olinfo >> 8) & IXGBE_TXD_POPTS_IXSM;
            t->txsm = (olinfo >> 8) & IXGBE_TXD_POPTS_TXSM;
            t->ctx_idx = (olinfo >> 4) & 1;
            t->vlan = t->ctx[t->ctx_idx].vlan_macip_lens >> 16;
            if (t->tse && !t->txsm) {
                ixgbe_guest_error(s, &s->strict.bad_descriptor,
                                  "TXQ %d: TSE without POPTS.TXSM", q);
            }
        } else {
            t->tse = t->ixsm = t->txsm = false;
            t->vlan = olinfo >> 16;
        }
    }
    if (len && !net_tx_pkt_add_raw_fragment_pci(t->pkt, PCI_DEVICE(s),
                                                addr, len)) {
        ixgbe_guest_error(s, &s->strict.bad_descriptor,
                          "TXQ %d: packet over %d descriptors or unmappable",
                          q, TX_MAX_FRAGS);
        t->bad = true;
    }
    if (cmd_len & IXGBE_TXD_CMD_EOP) {
        tx_send(s, q);
        tx_end_packet(s, q);
    }
}

/* Fetch and run every descriptor from TDH to TDT. */
static void tx_process(IxgbeState *s, int q)
{
    PCIDevice *d = PCI_DEVICE(s);
    IxgbeTxQueue *t = &s->txq[q];
    uint32_t ndesc = ixgbe_reg(s, txq_reg(q, IXGBE_TXQ_TDLEN)) / 16;
    uint64_t base = ixgbe_reg(s, txq_reg(q, IXGBE_TXQ_TDBAL)) |
                    (uint64_t)ixgbe_reg(s, txq_reg(q, IXGBE_TXQ_TDBAH)) << 32;
    uint32_t head = ixgbe_reg(s, txq_reg(q, IXGBE_TXQ_TDH));
    uint32_t tail = ixgbe_reg(s, txq_reg(q, IXGBE_TXQ_TDT));
    uint32_t wbal = ixgbe_reg(s, txq_reg(q, IXGBE_TXQ_TDWBAL));
    bool reported = false;

    if (!(ixgbe_reg(s, IXGBE_DMATXCTL) & IXGBE_DMATXCTL_TE) ||
        !(ixgbe_reg(s, txq_reg(q, IXGBE_TXQ_TXDCTL)) & IXGBE_TXDCTL_ENABLE) ||
        ndesc == 0) {
        return;
    }
    if (head >= ndesc || tail >= ndesc) {
        ixgbe_guest_error(s, &s->strict.other, "TXQ %d: TDH %u/TDT %u past "
                          "the ring's %u descriptors", q, head, tail, ndesc);
        return;
    }
    while (head != tail) {
        hwaddr da = base + 16ull * head;
        uint8_t desc[16];
        uint32_t cmd_len, olinfo, dtyp;
        bool dext;

        pci_dma_read(d, da, desc, sizeof(desc));
        cmd_len = ldl_le_p(desc + 8);
        olinfo = ldl_le_p(desc + 12);
        dext = cmd_len & IXGBE_TXD_CMD_DEXT;
        dtyp = (cmd_len >> 20) & 0xF;
        if (dext && dtyp == IXGBE_TXD_DTYP_CTXT) {
            /* 7.2.3.2.3 context descriptor: kept by its IDX */
            IxgbeTxCtx *c = &t->ctx[(olinfo >> 4) & 1];
            c->vlan_macip_lens = ldl_le_p(desc);
            c->type_tucmd = cmd_len;
            c->mss_l4len = olinfo;
        } else if (!dext || dtyp == IXGBE_TXD_DTYP_DATA) {
            tx_data(s, q, ldq_le_p(desc), cmd_len, olinfo, dext);
        } else {
            ixgbe_guest_error(s, &s->strict.bad_descriptor,
                              "TXQ %d: descriptor type %u", q, dtyp);
        }
        if (cmd_len & IXGBE_TXD_CMD_RS) {
            /* write-back: STA.DD in the last dword, unless head WB */
            if (!(wbal & IXGBE_TDWBAL_HEAD_WB_EN)) {
                uint32_t sta = cpu_to_le32(olinfo | IXGBE_TXD_STAT_DD);
                pci_dma_write(d, da + 12, &sta, 4);
            }
            reported = true;
        }
        head = (head + 1) % ndesc;
        s->mac[txq_reg(q, IXGBE_TXQ_TDH) >> 2] = head;
    }
    if (reported) {
        if (wbal & IXGBE_TDWBAL_HEAD_WB_EN) {
            uint64_t wb = (wbal & ~3u) |
                (uint64_t)ixgbe_reg(s, txq_reg(q, IXGBE_TXQ_TDWBAH)) << 32;
            uint32_t h = cpu_to_le32(head);
            pci_dma_write(d, wb, &h, 4);
        }
        ixgbe_raise_queue(s, q, true);
    }
}

void ixgbe_tx_queue_write(IxgbeState *s, int q, hwaddr reg, uint32_t val)
{
    hwaddr off = txq_reg(q, reg);
    bool enabled = ixgbe_reg(s, txq_reg(q, IXGBE_TXQ_TXDCTL)) &
                   IXGBE_TXDCTL_ENABLE;

    switch (reg) {
    case IXGBE_TXQ_TDT:
        /* TDT = head while the queue is off (an empty ring, as the
         * 82598/82599 per-queue init sets it to 0) offers nothing; past
         * the head it offers descriptors not yet allowed. */
        if (!enabled && val != ixgbe_reg(s, txq_reg(q, IXGBE_TXQ_TDH))) {
            ixgbe_guest_error(s, &s->strict.tail_before_enable,
                              "TDT(%d) moved to %u before TXDCTL.ENABLE "
                              "read back set", q, val);
        }
        s->mac[off >> 2] = val & 0xFFFF;
        tx_process(s, q);
        return;
    case IXGBE_TXQ_TDH:
        if (enabled) {
            ixgbe_guest_error(s, &s->strict.other,
                              "TDH(%d) written while the queue is enabled", q);
        }
        s->mac[off >> 2] = val & 0xFFFF;
        return;
    case IXGBE_TXQ_TDBAL:
        s->mac[off >> 2] = val & ~0x7Fu;
        return;
    case IXGBE_TXQ_TDLEN:
        if (val & 0x7F) {
            ixgbe_guest_error(s, &s->strict.other, "TDLEN(%d) 0x%x is not "
                              "a multiple of 128 bytes", q, val);
        }
        s->mac[off >> 2] = val & 0xFFF80;
        return;
    case IXGBE_TXQ_TXDCTL:
        if ((val & IXGBE_TXDCTL_ENABLE) && !enabled &&
            !(ixgbe_reg(s, IXGBE_DMATXCTL) & IXGBE_DMATXCTL_TE)) {
            ixgbe_guest_error(s, &s->strict.tx_enable_before_te,
                              "TXDCTL(%d).ENABLE before DMATXCTL.TE", q);
        }
        s->mac[off >> 2] = val;
        if (!(val & IXGBE_TXDCTL_ENABLE)) {
            tx_end_packet(s, q);    /* a half-fetched packet is gone */
        } else {
            tx_process(s, q);
        }
        return;
    }
    s->mac[off >> 2] = val;
}

/* A VF reset stops its queues (4.2.x): enable off, half a packet gone. */
void ixgbe_tx_queue_stop(IxgbeState *s, int q)
{
    s->mac[txq_reg(q, IXGBE_TXQ_TXDCTL) >> 2] &= ~IXGBE_TXDCTL_ENABLE;
    tx_end_packet(s, q);
}

void ixgbe_dmatxctl_write(IxgbeState *s, uint32_t val)
{
    bool was = ixgbe_reg(s, IXGBE_DMATXCTL) & IXGBE_DMATXCTL_TE;

    s->mac[IXGBE_DMATXCTL >> 2] = val;
    if (!was && (val & IXGBE_DMATXCTL_TE)) {
        for (int q = 0; q < IXGBE_NUM_QUEUES; q++) {
            tx_process(s, q);
        }
    }
}

void ixgbe_tx_reset(IxgbeState *s)
{
    for (int q = 0; q < IXGBE_NUM_QUEUES; q++) {
        if (s->txq[q].pkt) {
            tx_end_packet(s, q);
        }
        memset(s->txq[q].ctx, 0, sizeof(s->txq[q].ctx));
    }
}

void ixgbe_tx_init(IxgbeState *s)
{
    for (int q = 0; q < IXGBE_NUM_QUEUES; q++) {
        net_tx_pkt_init(&s->txq[q].pkt, TX_MAX_FRAGS);
    }
}

void ixgbe_tx_uninit(IxgbeState *s)
{
    for (int q = 0; q < IXGBE_NUM_QUEUES; q++) {
        tx_end_packet(s, q);
        net_tx_pkt_uninit(s->txq[q].pkt);
    }
}
