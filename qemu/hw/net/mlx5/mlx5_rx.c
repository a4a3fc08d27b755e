/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/mlx5/mlx5_rx.c: receive (PRM "Receive Queue", "Receive WQE
 * Format", "RQ Doorbell Record", "Receive Side Scaling", "CQE Format"): a
 * frame is steered (flow table -> TIR -> RQT by Toeplitz hash -> RQ),
 * copied into the RQ's next posted WQE (its data segments), and completed
 * with a CQE: byte count, hash, l3_ok/l4_ok, owner bit. No WQE posted:
 * dropped and counted (rx-out-of-buffer). Longer than the port's MTU
 * (PMTU): dropped and counted (rx-frame-too-long, PPCNT).
 */
#include "qemu/osdep.h"
#include "hw/pci/pci.h"
#include "net/eth.h"
#include "net/checksum.h"
#include "mlx5_int.h"
#include "mlx5_data.h"
#include "mlx5_steer.h"

/* rx_hash_field_select (PRM "RX Hash Field Select"): l3_prot_type 31
 * (0 IPv4, 1 IPv6), l4_prot_type 30 (0 TCP, 1 UDP), selected_fields:
 * 0 src IP, 1 dst IP, 2 L4 sport, 3 L4 dport */
#define SEL_IPV6        (1u << 31)
#define SEL_UDP         (1u << 30)
#define SEL_SRC_IP      (1u << 0)
#define SEL_DST_IP      (1u << 1)
#define SEL_SPORT       (1u << 2)
#define SEL_DPORT       (1u << 3)

typedef struct RxInfo {
    uint8_t hdr[64];            /* fte_match_set_lyr_2_4 of the frame */
    int l3;                     /* 4, 6 or 0 */
    int proto;                  /* IPPROTO_TCP/UDP or other */
    size_t l3off, l4off, l4len;
    bool l3_ok, l4_ok;
} RxInfo;

static uint16_t csum_fold(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return sum;
}

/* the frame in the match layout (PRM "fte_match_set_lyr_2_4"): smac 0x00,
 * ethertype 0x06, dmac 0x08, ip_protocol 0x10, ip_version 4:1 of 0x12,
 * tcp ports 0x14/0x16, udp ports 0x1c/0x1e, src IP 0x20, dst IP 0x30
 * (IPv4 in the last 4 bytes); and the checksums' verdicts */
static void parse(const uint8_t *f, size_t n, RxInfo *r)
{
    uint16_t et;
    size_t l3 = 14;

    memset(r, 0, sizeof(*r));
    if (n < 14) {
        return;
    }
    memcpy(r->hdr + 0x00, f + 6, 6);
    memcpy(r->hdr + 0x08, f, 6);
    et = be16(f + 12);
    if (et == 0x8100 && n >= 18) {
        et = be16(f + 16);
        l3 = 18;
    }
    stw_be_p(r->hdr + 0x06, et);
    r->l3off = l3;
    if (et == 0x0800 && n >= l3 + 20 && (f[l3] >> 4) == 4) {
        size_t ihl = (f[l3] & 0xf) * 4;
        r->l3 = 4;
        r->proto = f[l3 + 9];
        memcpy(r->hdr + 0x2c, f + l3 + 12, 4);
        memcpy(r->hdr + 0x3c, f + l3 + 16, 4);
        r->l3_ok = ihl >= 20 && n >= l3 + ihl &&
                   csum_fold(net_checksum_add(ihl, (uint8_t *)f + l3)) ==
                   0xffff;
        r->l4off = l3 + ihl;
        r->l4len = MIN(n, l3 + be16(f + l3 + 2)) > r->l4off ?
                   MIN(n, l3 + be16(f + l3 + 2)) - r->l4off : 0;
        if (be16(f + l3 + 6) & 0x3fff) {
            r->proto = -1;      /* a fragment: no L4 */
        }
    } else if (et == 0x86dd && n >= l3 + 40) {
        r->l3 = 6;
        r->l3_ok = true;
        r->proto = f[l3 + 6];
        memcpy(r->hdr + 0x20, f + l3 + 8, 16);
        memcpy(r->hdr + 0x30, f + l3 + 24, 16);
        r->l4off = l3 + 40;
        r->l4len = MIN(n - r->l4off, be16(f + l3 + 4));
    } else {
        return;
    }
    r->hdr[0x10] = r->proto;
    r->hdr[0x12] = r->l3 << 1;
    if ((r->proto == 6 && r->l4len >= 20) ||
        (r->proto == 17 && r->l4len >= 8)) {
        uint32_t sum = net_checksum_add(r->l4len, (uint8_t *)f + r->l4off);
        if (r->l3 == 4) {
            sum += net_checksum_add(8, (uint8_t *)f + r->l3off + 12);
        } else {
            sum += net_checksum_add(32, (uint8_t *)f + r->l3off + 8);
        }
        sum += r->proto + r->l4len;
        r->l4_ok = csum_fold(sum) == 0xffff ||
                   (r->proto == 17 && r->l3 == 4 && !be16(f + r->l4off + 6));
        memcpy(r->hdr + (r->proto == 6 ? 0x14 : 0x1c), f + r->l4off, 4);
    } else {
        r->proto = -1;
    }
}

/* PRM "Toeplitz Hash" (or inverted XOR8) over the TIR's selected fields,
 * in the order src IP, dst IP, src port, dst port; a frame not of the
 * TIR's L3 type hashes 0 */
static uint32_t rx_hash(const Mlx5Tir *t, const RxInfo *r)
{
    uint8_t in[36];
    size_t n = 0, ip = r->l3 == 4 ? 4 : 16;
    const uint8_t *src = r->hdr + 0x30 - ip, *dst = r->hdr + 0x40 - ip;
    const uint8_t *ports = r->hdr + (r->proto == 6 ? 0x14 : 0x1c);
    bool l4 = r->proto == ((t->sel_outer & SEL_UDP) ? 17 : 6);

    if (!t->hash_fn || !r->l3 ||
        (r->l3 == 6) != !!(t->sel_outer & SEL_IPV6)) {
        return 0;
    }
    if (t->sel_outer & SEL_SRC_IP) {
        memcpy(in + n, src, ip);
        n += ip;
    }
    if (t->sel_outer & SEL_DST_IP) {
        memcpy(in + n, dst, ip);
        n += ip;
    }
    if (l4 && (t->sel_outer & SEL_SPORT)) {
        memcpy(in + n, ports, 2);
        n += 2;
    }
    if (l4 && (t->sel_outer & SEL_DPORT)) {
        memcpy(in + n, ports + 2, 2);
        n += 2;
    }
    if (t->hash_fn == 1) {      /* inverted XOR8: ~ the XOR of the bytes */
        uint8_t x = 0;
        for (size_t i = 0; i < n; i++) {
            x ^= in[i];
        }
        return (uint8_t)~x;
    }
    return mlx5_toeplitz(t->key, sizeof(t->key), in, n);
}

bool mlx5_can_receive(NetClientState *nc)
{
    return true;                /* no room: dropped and counted */
}

static hwaddr rq_addr(const Mlx5Wq *wq, uint32_t idx)
{
    uint64_t off = (uint64_t)(idx & ((1u << wq->log_sz) - 1)) << wq->log_stride;
    uint64_t pg = (uint64_t)MLX5_PAGE << wq->log_pg_sz;

    return wq->pas[off / pg] + off % pg;
}

/* PRM "Receive WQE Format": scatter into the WQE's data segments in
 * order (byte_count, lkey, address; a zero byte_count, the invalid lkey
 * 0x100 or the stride's end, log_wq_stride, ends the list); the CQE's
 * byte_cnt is the whole frame's. A frame longer than the list: a local
 * length error */
static uint8_t scatter(Mlx5State *s, Mlx5Rq *rq, const uint8_t *buf,
                       size_t size)
{
    PCIDevice *d = PCI_DEVICE(s);
    hwaddr wqe = rq_addr(&rq->wq, rq->ci);
    size_t done = 0;

    for (uint32_t k = 0; k < (1u << rq->wq.log_stride) / 16 && done < size;
         k++) {
        uint8_t seg[16];
        pci_dma_read(d, wqe + 16 * k, seg, 16);
        uint32_t bc = be32(seg), lkey = be32(seg + 4);
        if (!bc || lkey == INVALID_LKEY) {
            break;
        }
        if (!mlx5_lkey_ok(s, lkey, be64(seg + 8), bc)) {
            return CQE_SYND_LOCAL_PROT;
        }
        bc = MIN(bc, size - done);
        pci_dma_write(d, be64(seg + 8), buf + done, bc);
        done += bc;
    }
    return done < size ? CQE_SYND_LOCAL_LENGTH : 0;
}

ssize_t mlx5_receive(NetClientState *nc, const uint8_t *buf, size_t size)
{
    Mlx5State *s = qemu_get_nic_opaque(nc);
    uint8_t cqe[64] = { 0 }, rec[4], synd;
    uint32_t hash = 0, rqn;
    Mlx5Tir *t;
    Mlx5Rq *rq;
    RxInfo r;
    int ti;

    if (s->hca != HCA_INITIALIZED || s->paos_admin == 2) {
        return size;
    }
    /* PRM "PMTU - Port MTU Register": the port takes frames of up to
     * oper_mtu bytes with their FCS (which QEMU's frames leave out); a
     * longer one goes no further than the MAC, counted in PPCNT's IEEE
     * 802.3 a_frame_too_long_errors */
    if (size + ETH_FCS_LEN > s->port_mtu) {
        s->rx_frame_too_long++;
        return size;
    }
    if (!mlx5_vf_rx_allowed(s, buf, size)) {
        return size;            /* the e-switch's multicast filter */
    }
    parse(buf, size, &r);
    ti = mlx5_steer_tir(s, r.hdr);
    if (ti < 0) {
        s->rx_steer_miss++;     /* no root table, or no rule takes it */
        return size;
    }
    t = &s->tir[ti];
    rqn = t->inline_rqn;
    if (t->disp_type == 1) {
        Mlx5Rqt *q = &s->rqt[t->rqtn - RQT_BASE];
        if (!q->valid) {
            return size;
        }
        hash = rx_hash(t, &r);
        rqn = q->rqn[hash % q->size];
    }
    rq = rqn >= RQ_BASE && rqn < RQ_BASE + MAX_OBJ ? &s->rq[rqn - RQ_BASE]
                                                   : NULL;
    if (!rq || !rq->valid || rq->state != 1) {
        s->rx_out_of_buffer++;
        return size;
    }
    pci_dma_read(PCI_DEVICE(s), rq->wq.dbr, rec, sizeof(rec));
    if ((uint16_t)ldl_be_p(rec) == rq->ci) {
        s->rx_out_of_buffer++;  /* PRM "out_of_buffer": no WQE posted */
        s->qc_out_of_buffer[rq->counter_set_id]++;
        return size;
    }
    synd = scatter(s, rq, buf, size);
    if (synd) {
        mlx5_guest_error(s, &s->strict.bad_wqe, "RQ %#x WQE %u: %s", rqn,
                         rq->ci, synd == CQE_SYND_LOCAL_PROT ?
                         "lkey not the reserved lkey" :
                         "buffers shorter than the frame");
        cqe[CQE_ERR_SYNDROME] = synd;
        cqe[CQE_OP_OWN] = CQE_OP_RESP_ERR << 4;
    } else {
        stl_be_p(cqe + CQE_RSS_HASH, hash);
        /* rss_hash_type: IPv4 1 / IPv6 2 in 3:2, TCP 1 / UDP 2 in 7:6 */
        cqe[CQE_RSS_HASH_TYPE] =
            (r.l3 == 4 ? 1 : r.l3 == 6 ? 2 : 0) << 2 |
            (r.proto == 6 ? 1 : r.proto == 17 ? 2 : 0) << 6;
        cqe[CQE_HDS_IP_EXT] = (r.l3_ok ? 1 << 1 : 0) | (r.l4_ok ? 1 << 2 : 0);
        /* l4_hdr_type 6:4 (TCP 4: with ACK and data; UDP 2), l3 3:2 */
        cqe[CQE_L4_L3_HDR_TYPE] = (r.proto == 6 ? 4 : r.proto == 17 ? 2 : 0)
                                  << 4 | (r.l3 == 4 ? 2 : r.l3 == 6 ? 1 : 0)
                                  << 2;
        stl_be_p(cqe + CQE_BYTE_CNT, size);
        cqe[CQE_OP_OWN] = CQE_OP_RESP_SEND << 4;
        s->rx_packets++;
    }
    stl_be_p(cqe + CQE_SOP_DROP_QPN, rqn);
    stw_be_p(cqe + CQE_WQE_COUNTER, rq->ci);
    rq->ci++;
    mlx5_cq_post(s, rq->cqn, cqe);
    return size;
}
