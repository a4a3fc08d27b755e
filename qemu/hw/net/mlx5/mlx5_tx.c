/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/mlx5/mlx5_tx.c: the send queue at run time (PRM "Send Queue",
 * "Send WQE Format": "Control Segment", "Ethernet Segment", "Data Segments",
 * "Send Doorbell"): the doorbell (UAR 0x800: the first 8 bytes of the
 * WQE's control segment, or the whole first 64 bytes as BlueFlame) runs
 * the SQ up to the send counter in the doorbell record; each WQE's frame is
 * its inline L2 header plus its data segments, checksummed and segmented
 * (LSO) as asked, sent to the netdev, completed by a CQE.
 */
#include "qemu/osdep.h"
#include "hw/pci/pci.h"
#include "hw/net/net_tx_pkt.h"
#include "net/net.h"
#include "mlx5_int.h"
#include "mlx5_data.h"

#define OPC_NOP         0x00
#define OPC_SEND        0x0a
#define OPC_LSO         0x0e
#define CTRL_CE_ALWAYS  (2 << 2)    /* fm_ce_se: a CQE for every WQE */
#define ETH_CS_L3       0x40
#define ETH_CS_L4       0x80
#define INLINE_SEG      0x80000000u
#define MIN_INLINE_L2   14          /* wqe_inline_mode L2: ConnectX-4 */
#define MAX_WQE_BB      16          /* ds is 6 bits: 63 x 16 bytes */
#define MAX_FRAME       (256 * KiB + 256) /* max_lso_cap 18: 256 KB */

static hwaddr wq_addr(const Mlx5Wq *wq, uint32_t idx)
{
    uint64_t off = (uint64_t)(idx & ((1u << wq->log_sz) - 1)) << wq->log_stride;
    uint64_t pg = (uint64_t)MLX5_PAGE << wq->log_pg_sz;

    return wq->pas[off / pg] + off % pg;
}

/* one frame out; the Ethernet padding a short frame carried past its IP
 * datagram (held aside by send_frame) goes back on after it */
static void emit(void *opaque, const struct iovec *iov, int iovcnt,
                 const struct iovec *virt_iov, int virt_iovcnt)
{
    Mlx5State *s = opaque;
    struct iovec v[64];
    int n = MIN(iovcnt, (int)ARRAY_SIZE(v) - 1);

    if (s->paos_admin == 2) {
        return;                 /* PAOS admin down: the port sends nothing */
    }
    s->tx_packets++;
    memcpy(v, iov, n * sizeof(v[0]));
    if (s->tx_pad_len) {
        v[n++] = (struct iovec) { s->tx_pad, s->tx_pad_len };
    }
    qemu_sendv_packet(qemu_get_queue(s->nic), v, n);
}

static void free_frag(void *ctx, void *base, size_t len)
{
}

/* the bytes of the frame up to the end of its IP datagram (IPv4 total
 * length, IPv6 payload length): checksums cover the datagram, never the
 * padding a driver added to reach 60 bytes */
static size_t ip_end(const uint8_t *f, size_t len)
{
    size_t l3 = 14, end;
    uint16_t et = len >= 14 ? be16(f + 12) : 0;

    if (et == 0x8100 && len >= 18) {
        et = be16(f + 16);
        l3 = 18;
    }
    if (et == 0x0800 && len >= l3 + 20) {
        end = l3 + be16(f + l3 + 2);
    } else if (et == 0x86dd && len >= l3 + 40) {
        end = l3 + 40 + be16(f + l3 + 4);
    } else {
        return len;
    }
    return end >= l3 + 20 && end < len ? end : len;
}

static bool is_ipv4(const uint8_t *f, size_t len)
{
    uint16_t et = len >= 14 ? be16(f + 12) : 0;

    if (et == 0x8100 && len >= 18) {
        et = be16(f + 16);
    }
    return et == 0x0800;
}

static void send_frame(Mlx5State *s, uint8_t *buf, size_t len, uint8_t cs,
                       uint16_t mss, bool lso)
{
    size_t end = lso ? len : ip_end(buf, len);  /* LSO: no padding */

    s->tx_pad = buf + end;
    s->tx_pad_len = len - end;
    if (!net_tx_pkt_add_raw_fragment(s->tx_pkt, buf, end) ||
        !net_tx_pkt_parse(s->tx_pkt)) {
        s->tx_pad_len = 0;
        emit(s, &(struct iovec) { buf, len }, 1, NULL, 0);
    } else {
        if (lso) {
            net_tx_pkt_build_vheader(s->tx_pkt, true, true, mss);
        } else if (cs & ETH_CS_L4) {
            net_tx_pkt_build_vheader(s->tx_pkt, false, true, 0);
        }
        /* l3_csum means the IPv4 header's checksum: an IPv6 header has
         * none, and the card leaves it alone (Linux sets l3_csum for every
         * checksummed frame, IPv6 too) */
        if ((cs & ETH_CS_L3) && is_ipv4(buf, end)) {
            net_tx_pkt_update_ip_hdr_checksum(s->tx_pkt);
        }
        net_tx_pkt_send_custom(s->tx_pkt, false, emit, s);
    }
    s->tx_pad_len = 0;
    net_tx_pkt_reset(s->tx_pkt, free_frag, NULL);
}

static void sq_cqe(Mlx5State *s, Mlx5Sq *sq, uint32_t sqn, uint16_t wqe_idx,
                   uint8_t err)
{
    uint8_t cqe[64] = { 0 };

    cqe[CQE_OP_OWN] = (err ? CQE_OP_REQ_ERR : CQE_OP_REQ) << 4;
    cqe[CQE_ERR_SYNDROME] = err;
    stl_be_p(cqe + CQE_SOP_DROP_QPN, sqn);
    stw_be_p(cqe + CQE_WQE_COUNTER, wqe_idx);
    mlx5_cq_post(s, sq->cqn, cqe);
}

/* one WQE at the SQ's ci; returns the number of WQEBBs it used, 0 on
 * error (the SQ then goes to ERR with an error CQE, PRM "Error CQE") */
static int run_wqe(Mlx5State *s, Mlx5Sq *sq, uint32_t sqn)
{
    PCIDevice *d = PCI_DEVICE(s);
    uint8_t w[MAX_WQE_BB * 64], opc, cs, synd = 0;
    uint32_t ds, bbs, pos, inl;
    uint16_t idx, mss;
    g_autofree uint8_t *frame = NULL;
    size_t len = 0;
    const char *why = NULL;

    pci_dma_read(d, wq_addr(&sq->wq, sq->ci), w, 64);
    opc = w[3];
    idx = be16(w + 1);
    ds = w[7] & 0x3f;
    bbs = DIV_ROUND_UP(ds * 16, 64);
    if (ds == 0 || bbs > MAX_WQE_BB || (be32(w + 4) >> 8) != sqn) {
        why = "control segment: ds 0 or sqn not this SQ's";
        synd = CQE_SYND_LOCAL_QP_OP;
        bbs = 1;
        goto error;
    }
    for (uint32_t b = 1; b < bbs; b++) {
        pci_dma_read(d, wq_addr(&sq->wq, sq->ci + b), w + 64 * b, 64);
    }
    if (opc == OPC_NOP) {
        goto done;
    }
    if ((opc != OPC_SEND && opc != OPC_LSO) || ds < 2) {
        why = "opcode not SEND/LSO/NOP, or no Ethernet segment";
        synd = CQE_SYND_LOCAL_QP_OP;
        goto error;
    }
    /* Ethernet segment at 0x10: cs_flags 0x14, mss 0x16, inline_hdr_sz
     * 0x1c, inline header from 0x1e */
    cs = w[0x14];
    mss = be16(w + 0x16);
    inl = be16(w + 0x1c);
    if (inl < MIN_INLINE_L2 || 0x1e + inl > ds * 16 ||
        (opc == OPC_LSO && !mss)) {
        why = "inline header shorter than L2 (14 bytes), past ds, or LSO "
              "without MSS";
        synd = CQE_SYND_LOCAL_QP_OP;
        goto error;
    }
    frame = g_malloc(MAX_FRAME);
    memcpy(frame, w + 0x1e, inl);
    len = inl;
    pos = 0x20 + ROUND_UP(inl - 2, 16);
    while (pos + 16 <= ds * 16) {
        uint32_t bc = be32(w + pos), lkey = be32(w + pos + 4);
        uint64_t addr = be64(w + pos + 8);
        if (bc & INLINE_SEG) {
            bc &= 0x3ff;
            if (pos + 4 + bc > ds * 16 || len + bc > MAX_FRAME) {
                why = "inline data segment past the WQE";
                synd = CQE_SYND_LOCAL_LENGTH;
                goto error;
            }
            memcpy(frame + len, w + pos + 4, bc);
            len += bc;
            pos += ROUND_UP(4 + bc, 16);
            continue;
        }
        if (!mlx5_lkey_ok(s, lkey, addr, bc)) {
            why = "data segment lkey neither the reserved lkey nor a PA "
                  "mkey covering it";
            synd = CQE_SYND_LOCAL_PROT;
            goto error;
        }
        if (len + bc > MAX_FRAME) {
            why = "frame longer than max_lso_cap (256 KB)";
            synd = CQE_SYND_LOCAL_LENGTH;
            goto error;
        }
        pci_dma_read(d, addr, frame + len, bc);
        len += bc;
        pos += 16;
    }
    send_frame(s, frame, len, cs, mss, opc == OPC_LSO);
done:
    if (w[11] & CTRL_CE_ALWAYS) {
        sq_cqe(s, sq, sqn, idx, 0);
    }
    return bbs;
error:
    mlx5_guest_error(s, &s->strict.bad_wqe, "SQ %#x WQE %u (opcode %#x): "
                     "%s; the SQ goes to error", sqn, idx, opc, why);
    sq->state = 3;
    sq_cqe(s, sq, sqn, idx, synd);
    return 0;
}

/* the doorbell: `ctrl` is the control segment's first 8 bytes (opmod,
 * wqe_index, opcode; sqn 31:8 and ds of the second dword) */
void mlx5_sq_doorbell(Mlx5State *s, uint32_t uar, uint64_t ctrl)
{
    uint32_t sqn = (uint32_t)ctrl >> 8;
    Mlx5Sq *sq = sqn >= SQ_BASE && sqn < SQ_BASE + MAX_OBJ ?
                 &s->sq[sqn - SQ_BASE] : NULL;
    uint8_t rec[4];
    uint16_t pc;
    int n;

    if (!sq || !sq->valid || sq->state != 1) {
        mlx5_guest_error(s, &s->strict.bad_doorbell, "send doorbell %#"
                         PRIx64 " on UAR %#x: SQ %#x %s", ctrl, uar, sqn,
                         sq && sq->valid ? "not ready (MODIFY_SQ to RDY)" :
                         "does not exist");
        return;
    }
    pci_dma_read(PCI_DEVICE(s), sq->wq.dbr + 4, rec, sizeof(rec));
    pc = ldl_be_p(rec);
    while (sq->ci != pc && sq->state == 1) {
        n = run_wqe(s, sq, sqn);
        if (!n) {
            break;
        }
        sq->ci += n;
    }
}

void mlx5_tx_init(Mlx5State *s)
{
    net_tx_pkt_init(&s->tx_pkt, 1);
}

void mlx5_tx_uninit(Mlx5State *s)
{
    net_tx_pkt_uninit(s->tx_pkt);
}
