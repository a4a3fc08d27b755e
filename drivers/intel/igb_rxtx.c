/* SPDX-License-Identifier: MIT */
/* drivers/intel/igb_rxtx.c: the 82576's data path, polled, shared by the
 * physical function (igb.c) and the virtual function (igbvf.c): no
 * interrupts, no register read, one tail write per burst.
 *
 * RX: advanced one-buffer descriptors (7.1.5), 2 KiB buffers from the
 * queue's pool, frame at the usual data offset; with jumbo frames 1 KiB
 * buffers, a longer frame over several descriptors taken as a chain.
 * Completed descriptors are found by their DD bit; RDT is written once per
 * refill, after a burst.
 * TX: advanced data descriptors (7.2.2.3), one per buffer, EOP on a
 * frame's last, RS on a burst's last alone; completions by its DD,
 * reclaimed lazily; TDT written once per burst. Checksum offload and TSO (TCP over IPv4 and IPv6) through
 * advanced context descriptors (7.2.2.2), written only when the queue's
 * two context slots hold nothing that fits. docs/igb.md has the rest. */
#include "drivers/intel/igb_dev.h"

#include "kernel/console/console.h"
#include "kernel/mem/kalloc.h"
#include "kernel/lib.h"
#include "kernel/mem/memmap.h"
#include "kernel/time.h"
#include "net/core/core.h"

#define REFILL_BATCH 32u      /* refill once this many RX descriptors are empty */
#define TX_RECLAIM_AT 64u     /* reclaim once this many TX descriptors are in use */
#define TX_CHAIN_MAX 64u      /* data descriptors of one frame (QEMU takes 64) */
#define RX_CHAIN_MAX 16u      /* descriptors of one received frame: 16 KiB, over any RLPML */

_Static_assert((IGB_RX_RING * sizeof(union igb_rx_desc)) % 128 == 0, "RDLEN: 128-byte multiple (8.10.5)");
_Static_assert((IGB_TX_RING * sizeof(struct igb_tx_desc)) % 128 == 0, "TDLEN: 128-byte multiple (8.12.4)");
_Static_assert((IGB_RX_RING & (IGB_RX_RING - 1)) == 0 && (IGB_TX_RING & (IGB_TX_RING - 1)) == 0,
               "rings are powers of two");
/* SRRCTL.BSIZEPACKET (8.10.2), 1 KiB units: the device fills that much of
 * a buffer, so it must not pass the room at p->data. */
#define RX_BUF_KB 2u       /* LPE off: every frame (1522 bytes at most) in one */
#define RX_BUF_KB_CHAINED 1u /* jumbo: 2 KiB would overrun the 1856 bytes there */
_Static_assert(PKT_DATA_ROOM >= 1522, "a 1522-byte frame (LPE off) fits one buffer");
_Static_assert(RX_BUF_KB_CHAINED * IGB_SRRCTL_BSIZEPKT_UNIT <= PKT_DATA_ROOM, "jumbo RX buffers fit the room");
_Static_assert(RX_CHAIN_MAX * RX_BUF_KB_CHAINED * IGB_SRRCTL_BSIZEPKT_UNIT >= NETDEV_FRAME_MAX, "a jumbo frame fits");

static struct igb *to_igb(struct netdev *dev) { return dev->priv; }


/* Descriptors are ordinary write-back memory and the tail registers
 * uncached: x86 keeps stores in order, so the compiler is all that must not
 * move the tail write above the descriptor stores. */
static inline void dma_wmb(void) { __atomic_signal_fence(__ATOMIC_RELEASE); }
static inline void dma_rmb(void) { __atomic_signal_fence(__ATOMIC_ACQUIRE); }

/* ---- data path ---- */

static void rx_refill(struct netdev *dev, struct igb_queue *q, uint16_t qi)
{
    struct pkt *fresh[REFILL_BATCH];
    uint16_t before = q->rx_tail;
    while (q->rx_posted < IGB_RX_RING - 1) { /* off by one on purpose: RDT == RDH means empty */
        uint32_t want = IGB_RX_RING - 1 - q->rx_posted;
        want = want < REFILL_BATCH ? want : REFILL_BATCH;
        uint32_t got = pkt_alloc_bulk(q->pool, fresh, want);
        for (uint32_t i = 0; i < got; i++) {
            uint16_t t = q->rx_tail;
            q->rx_slot[t] = fresh[i];
            q->rx[t].read.pkt_addr = pkt_data_phys(fresh[i]);
            q->rx[t].read.hdr_addr = 0; /* clears DD (7.1.5) */
            q->rx_tail = (uint16_t)((t + 1) & (IGB_RX_RING - 1));
        }
        q->rx_posted = (uint16_t)(q->rx_posted + got);
        if (got < want) {
            dev->stats[qi].rx_no_buf += want - got;
            break;
        }
    }
    if (q->rx_tail != before) {
        dma_wmb();
        *q->rdt = q->rx_tail;
        dev->stats[qi].rx_doorbells++;
    }
}

/* Offload results of a completed descriptor (7.1.5.2). */
static void rx_meta(const struct igb_queue *q, struct pkt *p, const volatile union igb_rx_desc *d, uint32_t status)
{
    if ((status & IGB_RXD_L4CS) && !(status & q->rx_err_l4e))
        p->flags |= PKT_RX_L4_CSUM_OK;
    if ((status & IGB_RXD_IPCS) && !(status & q->rx_err_ipe))
        p->flags |= PKT_RX_IP_CSUM_OK;
    if (d->wb.info & IGB_RXD_RSS_TYPE_MASK) { /* only with RXCSUM.PCSD: RSS is on */
        p->rss_hash = d->wb.rss_hash;
        p->flags |= PKT_F_RSS_HASH;
    }
}

/* The bursts the device has completed (tx_close), found first; then one
 * loop frees their buffers, so a reclaim mispredicts one loop's end, not
 * one a burst. */
static void tx_reclaim(struct igb_queue *q)
{
    uint16_t done = q->tx_clean, used = q->tx_used;
    while (used) {
        uint16_t last = q->tx_last[done];
        if (!(q->tx[last].olinfo_status & IGB_TXD_STAT_DD))
            break;
        used = (uint16_t)(used - (((last - done) & (IGB_TX_RING - 1)) + 1));
        done = (uint16_t)((last + 1) & (IGB_TX_RING - 1));
    }
    for (uint16_t k = q->tx_clean; k != done; k = (uint16_t)((k + 1) & (IGB_TX_RING - 1))) {
        if (q->tx_slot[k]) /* each buffer of a chain has its own; a context descriptor none */
            pkt_free(q->tx_slot[k]);
        q->tx_slot[k] = NULL;
    }
    q->tx_clean = done;
    q->tx_used = used;
}

/* A broadcast or multicast of our own, back through VMDq's loopback, which
 * delivers to every pool the frame's destination matches, its source's too. */
static bool looped(const struct netdev *dev, const struct pkt *p)
{
    const uint8_t *f = p->data;
    return p->len >= ETH_HDR_LEN && (f[0] & 1) && memcmp(f + ETH_ALEN, dev->mac, ETH_ALEN) == 0;
}

/* A descriptor that is not a whole, sound frame of its own: part of a
 * frame over several (DD without EOP: only its length is valid; the last,
 * EOP, holds the frame's status and errors, 7.1.5.2), or one with a MAC
 * error. Returns the frame once whole, chained when jumbo frames are on
 * (q->rx_chained); NULL while more is to come or when it was dropped:
 * with an error, longer than the MTU allows (Ethernet and two VLAN tags
 * over it), over RX_CHAIN_MAX descriptors or with jumbo frames off,
 * counted once in rx-error, every buffer freed. */
static struct pkt *rx_frame_part(struct netdev *dev, struct igb_queue *q, struct pkt *p, uint32_t status,
                                 struct netdev_qstats *st)
{
    bool eop = (status & IGB_RXD_EOP) != 0, dropping = q->rx_midframe && !q->rx_frame.head;
    q->rx_midframe = !eop;
    if (dropping || (p->len == 0 && q->rx_frame.head)) { /* (an empty one after the first: not chained) */
        pkt_free(p);
        if (dropping || !eop)
            return NULL;
    } else {
        pkt_chain_add(&q->rx_frame, p);
    }
    if (!eop && q->rx_chained && q->rx_frame.n < RX_CHAIN_MAX)
        return NULL;
    struct pkt *f = pkt_chain_take(&q->rx_frame);
    if (!eop || (status & q->rx_err_frame) || pkt_frame_len(f) > dev->mtu + 22u) {
        st->rx_error++; /* (not EOP: the rest is dropped as it comes) */
        pkt_free_frame(f);
        return NULL;
    }
    return f; /* a chain that would fit one buffer too: the stack copies it into one (pkt_linearize) */
}

uint16_t igb_rx_burst(struct netdev *dev, uint16_t qi, struct pkt **pkts, uint16_t n)
{
    struct igb_queue *q = to_igb(dev)->q[qi];
    struct netdev_qstats *st = &dev->stats[qi];
    uint16_t got = 0;
    uint64_t bytes = 0;
    while (got < n && q->rx_posted) {
        volatile union igb_rx_desc *d = &q->rx[q->rx_next];
        uint32_t status = d->wb.status_error;
        if (!(status & IGB_RXD_DD))
            break;
        dma_rmb(); /* the rest of the descriptor after DD */
        struct pkt *p = q->rx_slot[q->rx_next];
        q->rx_slot[q->rx_next] = NULL;
        q->rx_next = (uint16_t)((q->rx_next + 1) & (IGB_RX_RING - 1));
        q->rx_posted--;
        p->len = d->wb.length;
        uint32_t len = p->len;
        /* One test for what is not a whole frame in one buffer: EOP
         * missing, an error bit set, or a frame under way. */
        uint32_t unusual = ((status ^ IGB_RXD_EOP) & (IGB_RXD_EOP | q->rx_err_frame)) | q->rx_midframe;
        if (__builtin_expect(unusual != 0, 0)) {
            if ((p = rx_frame_part(dev, q, p, status, st)) == NULL)
                continue;
            len = pkt_frame_len(p);
        }
        if (q->rx_drop_looped && looped(dev, p)) {
            q->ctr.rx_looped++;
            pkt_free_frame(p);
            continue;
        }
        p->port = dev->index;
        p->queue = qi;
        rx_meta(q, p, d, status); /* the EOP descriptor's, for the whole frame */
        bytes += len;
        pkts[got++] = p;
    }
    if (IGB_RX_RING - 1 - q->rx_posted >= REFILL_BATCH || (got == 0 && q->rx_posted < IGB_RX_RING - 1))
        rx_refill(dev, q, qi);
    if (got == 0 && q->tx_used)
        tx_reclaim(q); /* idle: give finished TX buffers back to the pool */
    netdev_count_rx(st, got, bytes);
    return got;
}

/* ---- TX offloads: checksums and TSO (7.2.2.2, 7.2.2.3) ---- */

/* What a frame asks of the device: the context it needs and the data
 * descriptor's options. */
struct tx_off {
    struct igb_txctx ctx;
    uint32_t popts;       /* TXSM, and IXSM for TSO */
    uint32_t mac_len;     /* MACLEN */
    uint32_t hdr_len;     /* TSO: MAC, IP and TCP headers */
    bool tso;
};

enum tx_how {
    TX_PLAIN,    /* no offload asked */
    TX_HW,       /* the device does it: *o filled */
    TX_SOFTWARE, /* a checksum the device cannot place (not TCP/UDP): csum_pkt_finish */
    TX_BAD,      /* cannot be sent right: dropped */
};

/* Reads the headers of p (a PKT_TX_L4_CSUM, TSO4 or TSO6 frame, headers
 * in its first buffer): MACLEN from the Ethernet header (one 802.1Q tag
 * counted in), IPLEN = csum_start - MACLEN, the L4 type from csum_offset
 * (16: TCP, 6: UDP), and for TSO the TCP header length. p is not changed. */
static enum tx_how tx_classify(const struct pkt *p, struct tx_off *o)
{
    if (!(p->flags & (PKT_TX_L4_CSUM | PKT_TX_TSO4 | PKT_TX_TSO6)))
        return TX_PLAIN;
    bool tso = (p->flags & (PKT_TX_TSO4 | PKT_TX_TSO6)) != 0;
    const uint8_t *f = p->data;
    uint32_t mac = ETH_HDR_LEN, l4 = p->csum_start;
    if (p->len >= ETH_HDR_LEN && (f[12] << 8 | f[13]) == ETH_TYPE_VLAN)
        mac += ETH_VLAN_LEN;
    uint32_t type = p->len >= mac ? (uint32_t)(f[mac - 2] << 8 | f[mac - 1]) : 0;
    bool tcp = p->csum_offset == 16, udp = p->csum_offset == 6;
    bool fits = (type == ETH_TYPE_IP4 || type == ETH_TYPE_IP6) && (tcp || udp) && l4 > mac &&
                l4 - mac <= IGB_TXCTX_IPLEN_MAX && l4 + p->csum_offset + 2u <= p->len;
    if (!fits && !tso)
        return TX_SOFTWARE; /* csum_pkt_finish: every buffer of a chain summed */
    uint32_t tso_type = p->flags & PKT_TX_TSO4 ? ETH_TYPE_IP4 : ETH_TYPE_IP6;
    if (!fits || (tso && (type != tso_type || !tcp || p->tso_mss == 0)))
        return TX_BAD;
    *o = (struct tx_off){
        .ctx = {.macip = mac << IGB_TXCTX_MACLEN_SHIFT | (l4 - mac),
                .tucmd = (type == ETH_TYPE_IP4 ? IGB_TXCTX_TUCMD_IPV4 : 0) | (tcp ? IGB_TXCTX_TUCMD_L4T_TCP : 0),
                .valid = true},
        .popts = IGB_TXD_POPTS_TXSM,
        .mac_len = mac,
    };
    if (tso) {
        uint32_t l4len = (uint32_t)(f[l4 + 12] >> 4) * 4;
        if (l4len < 20 || l4 + l4len > p->len || l4 + l4len >= 512) /* headers in 512 bytes (7.2.2.2) */
            return TX_BAD;
        o->ctx.mss_l4len = (uint32_t)p->tso_mss << IGB_TXCTX_MSS_SHIFT | l4len << IGB_TXCTX_L4LEN_SHIFT;
        if (type == ETH_TYPE_IP4) /* each segment's IPv4 header checksum; IPv6 has none */
            o->popts |= IGB_TXD_POPTS_IXSM;
        o->hdr_len = l4 + l4len;
        o->tso = true;
    }
    return TX_HW;
}

/* A context slot that already holds o's parameters, or -1. A plain
 * checksum ignores MSS and L4LEN (7.2.2.2), so a TSO context serves it. */
static int ctx_lookup(const struct igb_queue *q, const struct tx_off *o)
{
    for (int i = 0; i < IGB_TXCTX_SLOTS; i++) {
        const struct igb_txctx *c = &q->ctx[i];
        if (c->valid && c->macip == o->ctx.macip && c->tucmd == o->ctx.tucmd &&
            (!o->tso || c->mss_l4len == o->ctx.mss_l4len))
            return i;
    }
    return -1;
}

/* The slot a new context for o goes to: for TSO, one holding the same
 * headers without TSO (the new one serves its frames too), else the one
 * used less recently. */
static uint32_t ctx_victim(const struct igb_queue *q, const struct tx_off *o)
{
    for (uint32_t i = 0; o->tso && i < IGB_TXCTX_SLOTS; i++)
        if (q->ctx[i].valid && q->ctx[i].macip == o->ctx.macip && q->ctx[i].tucmd == o->ctx.tucmd)
            return i;
    return q->ctx_next;
}

static void ctx_write(struct igb_queue *q, uint16_t t, uint32_t slot, const struct tx_off *o)
{
    volatile struct igb_tx_ctx_desc *c = (volatile struct igb_tx_ctx_desc *)&q->tx[t];
    c->vlan_macip_lens = o->ctx.macip;
    c->seqnum_seed = 0;
    c->type_tucmd_mlhl = o->ctx.tucmd | IGB_TXD_DTYP_CTXT | IGB_TXD_CMD_DEXT;
    c->mss_l4len_idx = o->ctx.mss_l4len | slot << IGB_TXD_IDX_SHIFT;
    q->tx_slot[t] = NULL;
    q->ctx[slot] = o->ctx;
    q->ctr.ctx_descs++;
}

/* TSO's prototype header (the datasheet's TCP segmentation rules, as in
 * Linux and FreeBSD igb): IPv4 total length and header checksum, or IPv6
 * payload length, zero (the device writes each segment's), and in the TCP checksum field the
 * pseudo-header sum without the length, which the device adds per
 * segment. The stack summed the whole frame's TCP length in (net/tcp/tcp_output.c
 * fill_hdr): taken back out here. */
static void tso_headers(struct pkt *p, const struct tx_off *o, uint32_t frame_len)
{
    uint8_t *ip = p->data + o->mac_len, *field = p->data + p->csum_start + p->csum_offset;
    uint16_t sum;
    memcpy(&sum, field, 2);
    sum = csum_fold(csum_add(sum, (uint16_t)~net_htons((uint16_t)(frame_len - p->csum_start))));
    memcpy(field, &sum, 2);
    if (o->ctx.tucmd & IGB_TXCTX_TUCMD_IPV4) {
        memset(ip + 2, 0, 2);  /* total length */
        memset(ip + 10, 0, 2); /* header checksum */
    } else {
        memset(ip + 4, 0, 2);  /* payload length */
    }
}

/* The bytes of a checksummed frame to send: an IPv4 frame's padding left
 * off (PSP pads on the wire), for a checksum engine that counts every byte
 * after the IP header into the length (QEMU's, on a backend without vnet
 * headers) would sum it in. */
static uint32_t unpadded_len(const struct pkt *p, const struct tx_off *o, uint32_t len)
{
    const uint8_t *ip = p->data + o->mac_len;
    uint32_t end = o->mac_len + (uint32_t)(ip[2] << 8 | ip[3]);
    bool v4 = (o->ctx.tucmd & IGB_TXCTX_TUCMD_IPV4) != 0;
    return v4 && !(p->flags & PKT_F_CHAIN) && end < len && end >= p->csum_start + p->csum_offset + 2u ? end : len;
}

/* Descriptors for frame p from tx_tail on: a context descriptor when o
 * needs one that no slot holds, then one data descriptor per buffer; false
 * (nothing written, p unchanged) when they do not fit. */
static bool tx_frame(struct igb_queue *q, struct pkt *p, const struct tx_off *o, uint32_t *frame_len)
{
    uint32_t nbuf = 1, len = p->len;
    for (const struct pkt *e = p; e->flags & PKT_F_CHAIN; e = e->next) {
        nbuf++;
        len += e->next->len;
    }
    int slot = o ? ctx_lookup(q, o) : 0;
    uint32_t need = nbuf + (slot < 0);
    if (nbuf > TX_CHAIN_MAX || need > IGB_TX_RING - 1u - q->tx_used)
        return false;
    uint16_t first = q->tx_tail, t = first;
    uint32_t cmd = IGB_TXD_DTYP_DATA | IGB_TXD_CMD_DEXT | IGB_TXD_CMD_IFCS;
    uint32_t olinfo = len << IGB_TXD_PAYLEN_SHIFT; /* PAYLEN: the whole frame (7.2.2.3) */
    if (o) {
        if (slot < 0) {
            slot = (int)ctx_victim(q, o);
            ctx_write(q, t, (uint32_t)slot, o);
            t = (uint16_t)((t + 1) & (IGB_TX_RING - 1));
        }
        q->ctx_next = (uint8_t)(slot ^ 1);
        olinfo = o->popts | (uint32_t)slot << IGB_TXD_IDX_SHIFT | q->tx_cc;
        if (o->tso) {
            uint32_t pay = len - o->hdr_len, mss = p->tso_mss;
            tso_headers(p, o, len);
            cmd |= IGB_TXD_CMD_TSE;
            olinfo |= pay << IGB_TXD_PAYLEN_SHIFT; /* with TSE: the payload after the headers */
            q->ctr.tso_frames++;
            q->ctr.tso_segments += (pay + mss - 1) / mss;
        } else {
            len = unpadded_len(p, o, len);
            olinfo |= len << IGB_TXD_PAYLEN_SHIFT;
            q->ctr.csum_offload++;
        }
    }
    for (struct pkt *e = p;; e = e->next) {
        bool last = !(e->flags & PKT_F_CHAIN);
        q->tx_slot[t] = e;
        q->tx[t].addr = pkt_data_phys(e);
        uint32_t dlen = e == p && last ? len : e->len; /* one buffer: maybe unpadded */
        q->tx[t].cmd_type_len = dlen | cmd | (last ? IGB_TXD_CMD_EOP : 0); /* RS: tx_close */
        q->tx[t].olinfo_status = e == p ? olinfo : 0; /* PAYLEN, POPTS, IDX: the first's count */
        if (last)
            break;
        t = (uint16_t)((t + 1) & (IGB_TX_RING - 1));
    }
    q->tx_tail = (uint16_t)((t + 1) & (IGB_TX_RING - 1));
    q->tx_used = (uint16_t)(q->tx_used + need);
    *frame_len = len;
    return true;
}

/* The descriptors written since group (one burst's frames) get one
 * write-back: RS on the last, an EOP descriptor. DD there says every
 * descriptor before it is done too (DCMD.RS: 82576 7.2.2.3, 82599
 * 7.2.3.2.4). With WTHRESH 0 (TXDCTL, 8.12.13) the device writes back each
 * RS descriptor at once: RS on every frame would be a descriptor write
 * over PCIe a frame, into lines the driver writes too. tx_last[group]
 * names it for tx_reclaim. Returns where the next group starts. */
static uint16_t tx_close(struct igb_queue *q, uint16_t group)
{
    if (group == q->tx_tail)
        return group;
    uint16_t last = (uint16_t)((q->tx_tail - 1) & (IGB_TX_RING - 1));
    q->tx[last].cmd_type_len |= IGB_TXD_CMD_RS;
    q->tx_last[group] = last;
    q->ctr.tx_writebacks++;
    return q->tx_tail;
}

uint16_t igb_tx_burst(struct netdev *dev, uint16_t qi, struct pkt **pkts, uint16_t n)
{
    struct igb_queue *q = to_igb(dev)->q[qi];
    struct netdev_qstats *st = &dev->stats[qi];
    bool reclaimed = q->tx_used >= TX_RECLAIM_AT || q->tx_used + n > IGB_TX_RING - 1;
    if (reclaimed)
        tx_reclaim(q);
    uint16_t sent = 0, queued = 0, group = q->tx_tail;
    uint64_t bytes = 0;
    for (; sent < n; sent++) {
        struct pkt *p = pkts[sent];
        struct tx_off o;
        uint32_t len;
        enum tx_how how = tx_classify(p, &o);
        if (how == TX_BAD) { /* taken: counted and freed */
            q->ctr.offload_bad++;
            st->tx_error++;
            pkt_free_frame(p);
            continue;
        }
        if (how == TX_SOFTWARE) {
            csum_pkt_finish(p);
            q->ctr.csum_software++;
        }
        const struct tx_off *op = how == TX_HW ? &o : NULL;
        if (!tx_frame(q, p, op, &len)) {
            if (reclaimed)
                break;
            group = tx_close(q, group); /* tx_reclaim reads only closed groups */
            tx_reclaim(q); /* once a burst: finished frames free their slots */
            reclaimed = true;
            if (!tx_frame(q, p, op, &len))
                break;
        }
        queued++;
        bytes += len;
    }
    if (queued) {
        tx_close(q, group);
        dma_wmb();
        *q->tdt = q->tx_tail;
        st->tx_doorbells++;
        st->tx_packets += queued;
        st->tx_bytes += bytes;
        st->tx_batches++;
    }
    st->tx_full += (uint64_t)(n - sent);
    return sent;
}

/* ---- set-up ---- */

bool igb_wait_reg(struct igb *g, uint32_t reg, uint32_t mask, uint32_t want, uint32_t timeout_us)
{
    for (uint32_t us = 0; us < timeout_us; us += 10) {
        if ((igb_rd32(g, reg) & mask) == want)
            return true;
        time_delay_us(10);
    }
    return (igb_rd32(g, reg) & mask) == want;
}

void igb_rss_fill(struct igb *g, uint32_t rssrk0, uint32_t reta0)
{
    struct netdev *dev = &g->dev;
    memcpy(dev->rss_key, nic_rss_key, NETDEV_RSS_KEY_LEN);
    for (uint32_t i = 0; i < NETDEV_RSS_KEY_LEN / 4; i++) {
        const uint8_t *k = nic_rss_key + 4 * i; /* key byte 0 in RSSRK0's low byte */
        igb_wr32(g, rssrk0 + 4 * i, (uint32_t)k[0] | (uint32_t)k[1] << 8 | (uint32_t)k[2] << 16 | (uint32_t)k[3] << 24);
    }
    for (uint32_t i = 0; i < NETDEV_RSS_RETA_LEN / 4; i++) {
        uint32_t v = 0;
        for (uint32_t b = 0; b < 4; b++) {
            uint16_t qn = (uint16_t)((4 * i + b) % g->pairs);
            dev->rss_reta[4 * i + b] = qn;
            v |= (uint32_t)qn << (8 * b);
        }
        igb_wr32(g, reta0 + 4 * i, v);
    }
}

void igb_read_mac(struct igb *g, uint32_t ral, uint32_t rah)
{
    uint32_t lo = igb_rd32(g, ral), hi = igb_rd32(g, rah);
    for (int i = 0; i < 4; i++)
        g->dev.mac[i] = (uint8_t)(lo >> (8 * i));
    g->dev.mac[4] = (uint8_t)hi;
    g->dev.mac[5] = (uint8_t)(hi >> 8);
}

struct igb_queue *igb_queue_alloc(struct pkt_pool *pool)
{
    struct igb_queue *q = kalloc(sizeof *q);
    q->rx = kalloc_pages(IGB_RX_RING * sizeof(union igb_rx_desc) / PAGE_SIZE, 1);
    q->tx = kalloc_pages(IGB_TX_RING * sizeof(struct igb_tx_desc) / PAGE_SIZE, 1);
    q->rx_slot = kalloc(IGB_RX_RING * sizeof *q->rx_slot);
    q->tx_slot = kalloc(IGB_TX_RING * sizeof *q->tx_slot);
    q->tx_last = kalloc(IGB_TX_RING * sizeof *q->tx_last);
    q->pool = pool;
    return q;
}

/* The RX ring of pair qi on queue hwq programmed and enabled, empty
 * (4.5.9); rx_refill posts its buffers. */
static void rxq_program(struct igb *g, uint16_t qi, uint16_t hwq)
{
    struct igb_queue *q = g->q[qi];
    const struct igb_layout *l = g->layout;
    uint64_t rx_phys = virt_to_phys((const void *)q->rx);
    uint32_t rxdctl = igb_rxq_reg(l, hwq, l->dctl);
    igb_wr32(g, rxdctl, igb_rd32(g, rxdctl) & ~l->xdctl_enable);
    igb_wr32(g, igb_rxq_reg(l, hwq, l->bal), (uint32_t)rx_phys);
    igb_wr32(g, igb_rxq_reg(l, hwq, l->bah), (uint32_t)(rx_phys >> 32));
    igb_wr32(g, igb_rxq_reg(l, hwq, l->len), IGB_RX_RING * (uint32_t)sizeof(union igb_rx_desc));
    /* Buffers of 2 KiB, or 1 KiB for jumbo frames (RX_BUF_KB); DROP_EN: a
     * queue without buffers drops its own frames rather than holding up
     * the others (7.1.3.1). */
    uint32_t kb = q->rx_chained ? RX_BUF_KB_CHAINED : RX_BUF_KB;
    igb_wr32(g, igb_rxq_reg(l, hwq, l->srrctl), (kb << IGB_SRRCTL_BSIZEPKT_SHIFT) |
                                                    (2u << IGB_SRRCTL_BSIZEHDR_SHIFT) |
                                                    IGB_SRRCTL_DESCTYPE_ADV_ONEBUF | l->srrctl_drop_en);
    igb_wr32(g, igb_rxq_reg(l, hwq, l->head), 0);
    igb_wr32(g, igb_rxq_reg(l, hwq, l->tail), 0);
    igb_wr32(g, rxdctl, igb_rd32(g, rxdctl) | l->xdctl_enable);
    if (!igb_wait_reg(g, rxdctl, l->xdctl_enable, l->xdctl_enable, 10000))
        kprintf("%s: RX queue %u did not enable\n", g->where, qi);
    q->rdt = (volatile uint32_t *)(g->regs + igb_rxq_reg(l, hwq, l->tail));
}

/* Every RX buffer of pair qi back to its pool, a frame half received
 * too; the ring's state as new. */
static void rxq_release(struct igb_queue *q)
{
    for (uint32_t i = 0; i < IGB_RX_RING; i++)
        if (q->rx_slot[i]) {
            pkt_free(q->rx_slot[i]);
            q->rx_slot[i] = NULL;
        }
    if (q->rx_frame.head)
        pkt_free_frame(pkt_chain_take(&q->rx_frame));
    q->rx_midframe = false;
    q->rx_next = q->rx_tail = q->rx_posted = 0;
}

void igb_queue_start(struct igb *g, uint16_t qi, uint16_t hwq)
{
    struct igb_queue *q = g->q[qi];
    const struct igb_layout *l = g->layout;
    uint64_t tx_phys = virt_to_phys((const void *)q->tx);
    uint32_t txdctl = igb_txq_reg(l, hwq, l->dctl);
    q->rx_err_frame = l->rxd_err_frame;
    q->rx_err_ipe = l->rxd_err_ipe;
    q->rx_err_l4e = l->rxd_err_l4e;
    q->tx_cc = l->txd_cc;
    rxq_program(g, qi, hwq);

    igb_wr32(g, igb_txq_reg(l, hwq, l->bal), (uint32_t)tx_phys);
    igb_wr32(g, igb_txq_reg(l, hwq, l->bah), (uint32_t)(tx_phys >> 32));
    igb_wr32(g, igb_txq_reg(l, hwq, l->len), IGB_TX_RING * (uint32_t)sizeof(struct igb_tx_desc));
    igb_wr32(g, igb_txq_reg(l, hwq, l->head), 0);
    igb_wr32(g, igb_txq_reg(l, hwq, l->tail), 0);
    /* WTHRESH 0: each RS descriptor is written back at once; nothing waits
     * for an interrupt to flush them (8.12.13). */
    igb_wr32(g, txdctl, (igb_rd32(g, txdctl) & ~l->txdctl_wthresh_mask) | l->xdctl_enable);
    if (!igb_wait_reg(g, txdctl, l->xdctl_enable, l->xdctl_enable, 10000))
        kprintf("%s: TX queue %u did not enable\n", g->where, qi);
    q->tdt = (volatile uint32_t *)(g->regs + igb_txq_reg(l, hwq, l->tail));
    rx_refill(&g->dev, q, qi);
}

bool igb_rxq_restart(struct igb *g, uint16_t qi, uint16_t hwq)
{
    struct igb_queue *q = g->q[qi];
    const struct igb_layout *l = g->layout;
    uint32_t rxdctl = igb_rxq_reg(l, hwq, l->dctl);
    /* The queue stops fetching and writing descriptors once ENABLE reads
     * back clear (8.10.10); only then are its buffers ours again. */
    igb_wr32(g, rxdctl, igb_rd32(g, rxdctl) & ~l->xdctl_enable);
    if (!igb_wait_reg(g, rxdctl, l->xdctl_enable, 0, 10000)) {
        igb_wr32(g, rxdctl, igb_rd32(g, rxdctl) | l->xdctl_enable);
        kprintf("%s: RX queue %u did not stop\n", g->where, qi);
        return false;
    }
    rxq_release(q);
    rxq_program(g, qi, hwq);
    rx_refill(&g->dev, q, qi);
    return true;
}

void igb_queue_drain(struct igb *g, uint16_t qi)
{
    struct igb_queue *q = g->q[qi];
    rxq_release(q);
    for (uint32_t i = 0; i < IGB_TX_RING; i++)
        if (q->tx_slot[i]) { /* each buffer of a chain has its own */
            pkt_free(q->tx_slot[i]);
            q->tx_slot[i] = NULL;
        }
    q->tx_tail = q->tx_clean = q->tx_used = 0;
    q->ctx_next = 0;
    memset(q->ctx, 0, sizeof q->ctx);
}
