/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/ixgbe/ixgbe_rx.c: the 82599 receive path (datasheet 7.1):
 * L2 filters (RAR exact match, MTA hash, FCTRL promiscuous and broadcast,
 * VFTA), RSS queue choice (MRQC, RETA, RSSRK), and the advanced one-buffer
 * descriptors written back with RSS hash, packet type, checksum status and
 * a stripped VLAN tag. Queue registers and their strict checks (4.6.7).
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/iov.h"
#include "net/eth.h"
#include "net/net.h"
#include "hw/pci/pci_device.h"
#include "hw/net/net_rx_pkt.h"
#include "ixgbe_int.h"

#define RX_MAX_FRAME 16384      /* MAXFRS.MFS limit (8.2.3.22.x) */
#define RX_MIN_FRAME 60         /* padded like the wire's 64 with FCS */

/* RSS types of the write-back (7.1.2.8.x), in the order tried */
static const struct {
    uint32_t mrqc_bit;
    NetRxPktRssType type;
    uint8_t wb;
    bool v6, l4, udp;
} rss_types[] = {
    { IXGBE_MRQC_TCPIPV4, NetPktRssIpV4Tcp, 0x1, false, true, false },
    { IXGBE_MRQC_UDPIPV4, NetPktRssIpV4Udp, 0x7, false, true, true },
    { IXGBE_MRQC_IPV4, NetPktRssIpV4, 0x2, false, false, false },
    { IXGBE_MRQC_TCPIPV6, NetPktRssIpV6Tcp, 0x3, true, true, false },
    { IXGBE_MRQC_UDPIPV6, NetPktRssIpV6Udp, 0x8, true, true, true },
    { IXGBE_MRQC_IPV6, NetPktRssIpV6, 0x5, true, false, false },
};

static hwaddr rxq_reg(int q, hwaddr r)
{
    return ixgbe_rxq_base(q) + r;
}

bool ixgbe_can_receive(NetClientState *nc)
{
    IxgbeState *s = qemu_get_nic_opaque(nc);

    return s->link_up;
}

/* 7.1.1.x: the 12 hash bits of a multicast address MCSTCTRL.MO picks. */
static bool mta_match(IxgbeState *s, const uint8_t *da)
{
    uint32_t mcst = ixgbe_reg(s, IXGBE_MCSTCTRL);
    unsigned shift = 4 - (mcst & 3);
    uint32_t h;

    if (!(mcst & IXGBE_MCSTCTRL_MFE)) {
        return false;
    }
    if ((mcst & 3) == 3) {
        h = da[4] | da[5] << 8;
    } else {
        h = (da[4] >> shift) | (da[5] << (8 - shift));
    }
    h &= 0xFFF;
    return ixgbe_reg(s, IXGBE_MTA0 + 4 * (h >> 5)) & (1u << (h & 31));
}

static bool rar_match(IxgbeState *s, const uint8_t *da)
{
    uint32_t lo = ldl_le_p(da), hi = lduw_le_p(da + 4);

    for (int n = 0; n < IXGBE_NUM_RAR; n++) {
        hwaddr r = ixgbe_rar_off(n);
        uint32_t rah = ixgbe_reg(s, r + 4);
        if ((rah & IXGBE_RAH_AV) && ixgbe_reg(s, r) == lo &&
            (rah & 0xFFFF) == hi) {
            return true;
        }
    }
    return false;
}

/* 7.1.1.2: a tagged frame passes VFTA when VLNCTRL.VFE is set. */
static bool vlan_accept(IxgbeState *s, const uint8_t *frame, size_t len)
{
    if (len >= 18 && lduw_be_p(frame + 12) ==
        (ixgbe_reg(s, IXGBE_VLNCTRL) & 0xFFFF) &&
        (ixgbe_reg(s, IXGBE_VLNCTRL) & IXGBE_VLNCTRL_VFE)) {
        uint16_t vid = lduw_be_p(frame + 14) & 0xFFF;
        return ixgbe_reg(s, IXGBE_VFTA0 + 4 * (vid >> 5)) & (1u << (vid & 31));
    }
    return true;
}

/* 7.1.1: does this frame pass the port's L2 and VLAN filters? */
static bool l2_accept(IxgbeState *s, const uint8_t *frame, size_t len)
{
    uint32_t fctrl = ixgbe_reg(s, IXGBE_FCTRL);
    const uint8_t *da = frame;
    bool ok;

    if (is_broadcast_ether_addr(da)) {
        ok = fctrl & IXGBE_FCTRL_BAM;
    } else if (is_multicast_ether_addr(da)) {
        ok = (fctrl & IXGBE_FCTRL_MPE) || rar_match(s, da) || mta_match(s, da);
    } else {
        ok = (fctrl & IXGBE_FCTRL_UPE) || rar_match(s, da);
    }
    return ok && vlan_accept(s, frame, len);
}

/* 7.1.2.8: the RSS hash of the frame attached and its RETA entry (-1
 * when MRQC hashes none of its types). */
static int rss_entry(IxgbeState *s, uint32_t *hash, uint8_t *type)
{
    uint32_t mrqc = ixgbe_reg(s, IXGBE_MRQC);
    bool v4, v6;
    EthL4HdrProto l4;
    uint8_t key[40];

    net_rx_pkt_get_protocols(s->rx_pkt, &v4, &v6, &l4);
    for (size_t i = 0; i < ARRAY_SIZE(rss_types); i++) {
        if (!(mrqc & rss_types[i].mrqc_bit) || rss_types[i].v6 != v6 ||
            (!rss_types[i].v6 && !v4)) {
            continue;
        }
        if (rss_types[i].l4 && l4 != (rss_types[i].udp ? ETH_L4_HDR_PROTO_UDP
                                                        : ETH_L4_HDR_PROTO_TCP)) {
            continue;
        }
        for (int k = 0; k < 10; k++) {
            stl_le_p(&key[4 * k], ixgbe_reg(s, IXGBE_RSSRK0 + 4 * k));
        }
        *hash = net_rx_pkt_calc_rss_hash(s->rx_pkt, rss_types[i].type, key);
        *type = rss_types[i].wb;
        /* 7.1.2.8.x: the hash's 7 low bits index the 128-entry RETA */
        uint32_t idx = *hash & 0x7F;
        uint32_t reta = ixgbe_reg(s, IXGBE_RETA0 + 4 * (idx >> 2));
        return (reta >> (8 * (idx & 3))) & 0xF;
    }
    return -1;
}

static int rss_pick(IxgbeState *s, uint32_t *hash, uint8_t *type)
{
    uint32_t mrqe = ixgbe_reg(s, IXGBE_MRQC) & IXGBE_MRQC_MRQE_MASK;
    int e;

    *hash = 0;
    *type = 0;
    if (mrqe != 1) {
        if (mrqe) {
            qemu_log_mask(LOG_UNIMP, "ixgbe: MRQC.MRQE %u (DCB, or VMDq "
                          "without PFVTCTL.VT_Ena) not modelled; queue 0\n",
                          mrqe);
        }
        return 0;
    }
    e = rss_entry(s, hash, type);
    return e < 0 ? 0 : e;
}

/* 7.1.2.x VMDq+RSS: pool p's queue, the RETA entry's low bits over the
 * 1, 2 or 4 queues PSRTYPE(p).RQPL gives RSS inside the pool. */
static int pool_queue(IxgbeState *s, int p, uint32_t *hash, uint8_t *type)
{
    uint32_t mrqe = ixgbe_reg(s, IXGBE_MRQC) & IXGBE_MRQC_MRQE_MASK;
    int qpp = ixgbe_pool_qpp(s);
    int nq = 1 << ((ixgbe_reg(s, IXGBE_PSRTYPE0 + 4 * p) >>
                    IXGBE_PSRTYPE_RQPL_SHIFT) & 3);
    int e;

    *hash = 0;
    *type = 0;
    if (mrqe != IXGBE_MRQE_VMDQ_RSS32 && mrqe != IXGBE_MRQE_VMDQ_RSS64) {
        return p * qpp;
    }
    e = rss_entry(s, hash, type);
    return p * qpp + (e < 0 ? 0 : e & (MIN(nq, qpp) - 1));
}

static uint32_t pkt_type_bits(IxgbeState *s)
{
    bool v4, v6;
    EthL4HdrProto l4;
    uint32_t t = 0;

    net_rx_pkt_get_protocols(s->rx_pkt, &v4, &v6, &l4);
    t |= v4 ? IXGBE_RXD_PKT_IPV4 : 0;
    t |= v6 ? IXGBE_RXD_PKT_IPV6 : 0;
    t |= l4 == ETH_L4_HDR_PROTO_TCP ? IXGBE_RXD_PKT_TCP : 0;
    t |= l4 == ETH_L4_HDR_PROTO_UDP ? IXGBE_RXD_PKT_UDP : 0;
    return t;
}

/* 7.1.11: IPv4 header and TCP/UDP checksums checked, status and error
 * bits of the write-back's extended status word. */
static uint32_t csum_status(IxgbeState *s)
{
    bool v4, v6, valid;
    EthL4HdrProto l4;
    uint32_t st = 0;

    net_rx_pkt_get_protocols(s->rx_pkt, &v4, &v6, &l4);
    if (v4 && net_rx_pkt_validate_l3_csum(s->rx_pkt, &valid)) {
        st |= IXGBE_RXD_STAT_IPCS | (valid ? 0 : IXGBE_RXD_ERR_IPE);
    }
    if ((l4 == ETH_L4_HDR_PROTO_TCP || l4 == ETH_L4_HDR_PROTO_UDP) &&
        net_rx_pkt_validate_l4_csum(s->rx_pkt, &valid)) {
        st |= IXGBE_RXD_STAT_L4CS | (valid ? 0 : IXGBE_RXD_ERR_TCPE);
        if (l4 == ETH_L4_HDR_PROTO_UDP) {
            st |= IXGBE_RXD_STAT_UDPCS;
        }
    }
    return st;
}

static void count_rx(IxgbeState *s, int q, const uint8_t *da, size_t len)
{
    static const hwaddr prc[] = { 0x0405C, 0x04060, 0x04064, 0x04068,
                                  0x0406C, 0x04070 };  /* PRC64..PRC1522 */
    static const size_t lim[] = { 64, 127, 255, 511, 1023, SIZE_MAX };
    uint32_t rqsmr = ixgbe_reg(s, 0x02300 + 4 * (q >> 2));
    int c = (rqsmr >> (8 * (q & 3))) & 0xF;
    size_t wire = len + 4;      /* counted with the FCS */

    ixgbe_stat_add(s, IXGBE_GPRC, 1);
    ixgbe_stat_add(s, IXGBE_TPR, 1);
    ixgbe_stat_add64(s, IXGBE_GORCL, wire);
    ixgbe_stat_add64(s, IXGBE_TORL, wire);
    if (is_broadcast_ether_addr(da)) {
        ixgbe_stat_add(s, IXGBE_BPRC, 1);
    } else if (is_multicast_ether_addr(da)) {
        ixgbe_stat_add(s, IXGBE_MPRC, 1);
    }
    for (int i = 0; i < 6; i++) {
        if (wire <= lim[i]) {
            ixgbe_stat_add(s, prc[i], 1);
            break;
        }
    }
    ixgbe_stat_add(s, rxq_reg(c, IXGBE_RXQ_QPRC), 1);
    ixgbe_stat_add64(s, rxq_reg(c, IXGBE_RXQ_QBRC_L), wire);
}

/* Write one frame into queue q's ring: -1 no room (kept for later),
 * 0 dropped, 1 delivered. 7.1.6 advanced one-buffer descriptors. */
static int rx_to_queue(IxgbeState *s, int q, uint8_t *buf, size_t len,
                       uint32_t hash, uint8_t rss_type, uint16_t vlan, bool vp)
{
    PCIDevice *d = PCI_DEVICE(s);
    uint32_t rxdctl = ixgbe_reg(s, rxq_reg(q, IXGBE_RXQ_RXDCTL));
    uint32_t srrctl = ixgbe_reg(s, rxq_reg(q, IXGBE_RXQ_SRRCTL));
    uint32_t ndesc = ixgbe_reg(s, rxq_reg(q, IXGBE_RXQ_RDLEN)) / 16;
    uint64_t base = ixgbe_reg(s, rxq_reg(q, IXGBE_RXQ_RDBAL)) |
                    (uint64_t)ixgbe_reg(s, rxq_reg(q, IXGBE_RXQ_RDBAH)) << 32;
    uint32_t head = ixgbe_reg(s, rxq_reg(q, IXGBE_RXQ_RDH));
    uint32_t tail = ixgbe_reg(s, rxq_reg(q, IXGBE_RXQ_RDT));
    size_t bufsz = (srrctl & IXGBE_SRRCTL_BSIZEPKT_MASK) * 1024;
    uint32_t desctype = (srrctl >> IXGBE_SRRCTL_DESCTYPE_SHIFT) & 7;
    uint32_t status = csum_status(s);
    uint32_t dw0 = rss_type | pkt_type_bits(s);
    uint32_t dw1 = (ixgbe_reg(s, IXGBE_RXCSUM) & IXGBE_RXCSUM_PCSD) ? hash : 0;
    size_t need, done = 0;

    if (!(rxdctl & IXGBE_RXDCTL_ENABLE) || ndesc == 0 || bufsz == 0) {
        return 0;               /* a disabled queue drops */
    }
    if (desctype != 1) {
        qemu_log_mask(LOG_UNIMP, "ixgbe: SRRCTL.DESCTYPE %u not modelled, "
                      "advanced one-buffer used\n", desctype);
    }
    need = DIV_ROUND_UP(len, bufsz);
    if (head >= ndesc || tail >= ndesc ||
        (tail + ndesc - head) % ndesc < need) {
        if (ixgbe_queue_drops(s, q, srrctl)) {
            ixgbe_stat_add(s, IXGBE_RNBC0 + 4 * (q & 7), 1);
            return 0;
        }
        return -1;
    }
    for (size_t i = 0; i < need; i++) {
        hwaddr da = base + 16ull * head;
        uint64_t pkt_addr;
        size_t chunk = MIN(bufsz, len - done);
        uint8_t wb[16];
        bool eop = i == need - 1;

        pci_dma_read(d, da, &pkt_addr, 8);
        pci_dma_write(d, le64_to_cpu(pkt_addr), buf + done, chunk);
        done += chunk;
        stl_le_p(wb, dw0);
        stl_le_p(wb + 4, dw1);
        stl_le_p(wb + 8, IXGBE_RXD_STAT_DD |
                 (eop ? IXGBE_RXD_STAT_EOP | status : 0) |
                 (vp ? IXGBE_RXD_STAT_VP : 0));
        stw_le_p(wb + 12, chunk);
        stw_le_p(wb + 14, vp ? vlan : 0);
        /* the status dword last, so DD never shows before the rest */
        pci_dma_write(d, da, wb, 8);
        pci_dma_write(d, da + 12, wb + 12, 4);
        pci_dma_write(d, da + 8, wb + 8, 4);
        head = (head + 1) % ndesc;
    }
    s->mac[rxq_reg(q, IXGBE_RXQ_RDH) >> 2] = head;
    return 1;
}

/* One frame into pool's queue (pool -1: no VT, RSS over the port): VLAN
 * stripped as the queue says, CRC kept or not. -1: no room (may_wait:
 * QEMU keeps it), 0 dropped, 1 delivered. */
static int deliver(IxgbeState *s, int pool, const uint8_t *frame, size_t len,
                   bool may_wait)
{
    uint8_t buf[RX_MAX_FRAME + 4];
    uint32_t hash;
    uint8_t rss_type;
    uint16_t vlan = 0;
    bool vp = false;
    bool tagged = len >= 18 && lduw_be_p(frame + 12) ==
                  (ixgbe_reg(s, IXGBE_VLNCTRL) & 0xFFFF);
    int q, r;

    memcpy(buf, frame, len);
    net_rx_pkt_set_packet_type(s->rx_pkt,
                               get_eth_packet_type(PKT_GET_ETH_HDR(buf)));
    net_rx_pkt_attach_data(s->rx_pkt, buf, len, false);
    q = pool < 0 ? rss_pick(s, &hash, &rss_type)
                 : pool_queue(s, pool, &hash, &rss_type);

    /* 7.1.x VLAN strip when the queue's RXDCTL.VME says so */
    if (tagged && (ixgbe_reg(s, rxq_reg(q, IXGBE_RXQ_RXDCTL)) &
                   IXGBE_RXDCTL_VME)) {
        vlan = lduw_be_p(buf + 14);
        vp = true;
        memmove(buf + 12, buf + 16, len - 16);
        len -= 4;
        net_rx_pkt_attach_data(s->rx_pkt, buf, len, false);
    }
    /* CRC kept when neither HLREG0.RXCRCSTRP nor RDRXCTL.CRCSTRIP */
    if (!(ixgbe_reg(s, IXGBE_HLREG0) & IXGBE_HLREG0_RXCRCSTRP)) {
        stl_le_p(buf + len, net_crc32_le(buf, len) ^ 0xFFFFFFFF);
        len += 4;
    }
    r = rx_to_queue(s, q, buf, len, hash, rss_type, vlan, vp);
    if (r < 0) {
        ixgbe_stat_add(s, IXGBE_MPC0, 1);
        return may_wait ? -1 : 0;
    }
    if (r > 0) {
        count_rx(s, q, buf, len);
        ixgbe_vf_count_rx(s, q, buf, len);
        ixgbe_raise_queue(s, q, false);
    }
    return r;
}

/* 7.10.3.x: to each pool in turn. A frame several pools take cannot
 * wait for one full queue without the others getting it twice: a full
 * queue drops it. */
static int deliver_pools(IxgbeState *s, uint64_t pools, const uint8_t *frame,
                         size_t len, bool may_wait)
{
    if (ctpop64(pools) == 1) {
        return deliver(s, ctz64(pools), frame, len, may_wait);
    }
    while (pools) {
        int p = ctz64(pools);
        pools &= pools - 1;
        deliver(s, p, frame, len, false);
    }
    return 1;
}

/* A frame a pool sent that the switch loops back (PFDTXGSWC.LBE). */
void ixgbe_rx_local(IxgbeState *s, uint64_t pools, const uint8_t *frame,
                    size_t len)
{
    uint8_t buf[RX_MAX_FRAME];

    if (!(ixgbe_reg(s, IXGBE_RXCTRL) & IXGBE_RXCTRL_RXEN) ||
        len > RX_MAX_FRAME) {
        return;
    }
    memcpy(buf, frame, len);
    if (len < RX_MIN_FRAME) {
        memset(buf + len, 0, RX_MIN_FRAME - len);
        len = RX_MIN_FRAME;
    }
    deliver_pools(s, pools, buf, len, false);
}

ssize_t ixgbe_receive_iov(NetClientState *nc, const struct iovec *iov,
                          int iovcnt)
{
    IxgbeState *s = qemu_get_nic_opaque(nc);
    size_t size = iov_size(iov, iovcnt), len;
    uint8_t buf[RX_MAX_FRAME + 4];
    uint32_t maxfrs = ixgbe_reg(s, IXGBE_MAXFRS) >> 16;
    uint32_t hlreg0 = ixgbe_reg(s, IXGBE_HLREG0);
    bool tagged;
    int r;

    if (!(ixgbe_reg(s, IXGBE_RXCTRL) & IXGBE_RXCTRL_RXEN) || !s->link_up) {
        return size;            /* receiver off: the wire drops it */
    }
    if (size > RX_MAX_FRAME) {
        ixgbe_stat_add(s, IXGBE_ROC, 1);
        return size;
    }
    len = iov_to_buf(iov, iovcnt, 0, buf, size);
    if (len < RX_MIN_FRAME) {
        memset(buf + len, 0, RX_MIN_FRAME - len);
        len = RX_MIN_FRAME;
    }
    tagged = len >= 18 && lduw_be_p(buf + 12) ==
             (ixgbe_reg(s, IXGBE_VLNCTRL) & 0xFFFF);
    /* 8.2.3.22.x: longer than MFS (1518 unless jumbo; +4 with a tag) */
    if (len + 4 > (hlreg0 & IXGBE_HLREG0_JUMBOEN ? maxfrs : 1518) +
                  (tagged ? 4 : 0)) {
        ixgbe_stat_add(s, IXGBE_ROC, 1);
        return size;
    }
    if (ixgbe_vt_on(s)) {
        uint64_t pools = vlan_accept(s, buf, len) ?
                         ixgbe_pool_select(s, buf, len) : 0;
        r = pools ? deliver_pools(s, pools, buf, len, true) : 0;
    } else {
        r = l2_accept(s, buf, len) ? deliver(s, -1, buf, len, true) : 0;
    }
    return r < 0 ? 0 : size;    /* no room: QEMU keeps it until RDT moves */
}

ssize_t ixgbe_receive(NetClientState *nc, const uint8_t *buf, size_t size)
{
    const struct iovec iov = { .iov_base = (uint8_t *)buf, .iov_len = size };

    return ixgbe_receive_iov(nc, &iov, 1);
}

/* 4.6.7 and 8.2.3.8: RXDCTL.ENABLE reads back at once; the tail may move
 * only once it does; RDH only while the queue is off. */
void ixgbe_rx_queue_write(IxgbeState *s, int q, hwaddr reg, uint32_t val)
{
    hwaddr off = rxq_reg(q, reg);
    uint32_t rxdctl = ixgbe_reg(s, rxq_reg(q, IXGBE_RXQ_RXDCTL));
    bool enabled = rxdctl & IXGBE_RXDCTL_ENABLE;

    switch (reg) {
    case IXGBE_RXQ_RDT:
        /* RDT = head while the queue is off (an empty ring, as the
         * 82598/82599 per-queue init sets it to 0) offers nothing; past
         * the head it offers descriptors not yet allowed. */
        if (!enabled && val != ixgbe_reg(s, rxq_reg(q, IXGBE_RXQ_RDH))) {
            ixgbe_guest_error(s, &s->strict.tail_before_enable,
                              "RDT(%d) moved to %u before RXDCTL.ENABLE "
                              "read back set", q, val);
        }
        s->mac[off >> 2] = val & 0xFFFF;
        if (enabled) {
            qemu_flush_queued_packets(qemu_get_queue(s->nic));
        }
        return;
    case IXGBE_RXQ_RDH:
        if (enabled) {
            ixgbe_guest_error(s, &s->strict.other,
                              "RDH(%d) written while the queue is enabled", q);
        }
        s->mac[off >> 2] = val & 0xFFFF;
        return;
    case IXGBE_RXQ_RDBAL:
        s->mac[off >> 2] = val & ~0x7Fu;    /* 128-byte aligned */
        return;
    case IXGBE_RXQ_RDLEN:
        if (val & 0x7F) {
            ixgbe_guest_error(s, &s->strict.other, "RDLEN(%d) 0x%x is not "
                              "a multiple of 128 bytes", q, val);
        }
        s->mac[off >> 2] = val & 0xFFF80;
        return;
    case IXGBE_RXQ_RXDCTL:
        if ((val & IXGBE_RXDCTL_ENABLE) && !enabled &&
            ixgbe_reg(s, rxq_reg(q, IXGBE_RXQ_RDLEN)) == 0) {
            ixgbe_guest_error(s, &s->strict.rx_enable_unready,
                              "RXDCTL(%d).ENABLE with no ring (RDLEN 0)", q);
        }
        s->mac[off >> 2] = val;
        if (val & IXGBE_RXDCTL_ENABLE) {
            qemu_flush_queued_packets(qemu_get_queue(s->nic));
        }
        return;
    }
    s->mac[off >> 2] = val;
}

void ixgbe_rx_init(IxgbeState *s)
{
    net_rx_pkt_init(&s->rx_pkt);
}

void ixgbe_rx_uninit(IxgbeState *s)
{
    net_rx_pkt_uninit(s->rx_pkt);
}
