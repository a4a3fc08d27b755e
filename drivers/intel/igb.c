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
 * RX: advanced one-buffer descriptors (7.1.5), 2 KiB buffers from the
 * queue's pool, frame at the usual data offset. Completed descriptors are
 * found by their DD bit; RDT is written once per refill, after a burst.
 * TX: advanced data descriptors (7.2.2.3), one per buffer, EOP and RS on a
 * frame's last; completions by DD, reclaimed lazily; TDT written once per
 * burst. Checksum offload and TSO (TCP over IPv4 and IPv6) through advanced context
 * descriptors (7.2.2.2), written only when the queue's two context slots
 * hold nothing that fits. docs/igb.md has the rest. */
#include "igb.h"

#include "drivers/intel/igb_regs.h"
#include "kernel/arch/x86_64/cpu.h"
#include "kernel/cli.h"
#include "kernel/console.h"
#include "kernel/kalloc.h"
#include "kernel/lib.h"
#include "kernel/memmap.h"
#include "kernel/ports.h"
#include "kernel/time.h"
#include "net/csum.h"
#include "net/wire.h"

#define RX_RING 512u          /* descriptors (RDLEN: a multiple of 128 bytes) */
#define TX_RING 512u
/* Queue pairs used at most: flows spread over them with RSS (7.1.2.8,
 * setup_rss). The 82576 steers what it cannot hash (ARP) to queue 0; the
 * router passes what core 0 learns to the others (userland/router_arp.c). */
#define IGB_MAX_PAIRS 8u
#define IGB_RSS_MAX_PAIRS 8u
_Static_assert(IGB_MAX_PAIRS <= IGB_RSS_MAX_PAIRS && IGB_RSS_MAX_PAIRS <= NETDEV_MAX_QUEUES, "queue arrays");
#define REFILL_BATCH 32u      /* refill once this many RX descriptors are empty */
#define TX_RECLAIM_AT 64u     /* reclaim once this many TX descriptors are in use */
#define TX_CHAIN_MAX 64u      /* data descriptors of one frame (QEMU takes 64) */
#define LINK_WAIT_MS 1500u    /* at probe; QEMU's autonegotiation takes 500 ms */

_Static_assert((RX_RING * sizeof(union igb_rx_desc)) % 128 == 0, "RDLEN: 128-byte multiple (8.10.5)");
_Static_assert((TX_RING * sizeof(struct igb_tx_desc)) % 128 == 0, "TDLEN: 128-byte multiple (8.12.4)");
_Static_assert((RX_RING & (RX_RING - 1)) == 0 && (TX_RING & (TX_RING - 1)) == 0, "rings are powers of two");
_Static_assert(PKT_DATA_ROOM >= 1522, "a 1522-byte frame (LPE off) fits one buffer");

/* What a context slot holds (7.2.2.2), as written. */
struct igb_txctx {
    uint32_t macip;       /* vlan_macip_lens */
    uint32_t tucmd;       /* type_tucmd_mlhl, TUCMD bits only */
    uint32_t mss_l4len;   /* mss_l4len_idx without IDX; 0: no TSO */
    bool valid;
};

/* The driver's own TX counters, per queue (`show igb`). */
struct igb_txstats {
    uint64_t csum_offload;   /* tx-csum-offload: non-TSO frames with TXSM */
    uint64_t csum_software;  /* tx-csum-software: finished by csum_pkt_finish */
    uint64_t tso_frames;     /* tx-tso-frames: frames with TSE */
    uint64_t tso_segments;   /* tx-tso-segments: what the device cut them into */
    uint64_t ctx_descs;      /* tx-context-descriptors: ring slots spent on contexts */
    uint64_t offload_bad;    /* tx-offload-bad: dropped, an offload the device cannot do */
};

/* One queue pair; its owner's alone. */
struct igb_queue {
    volatile union igb_rx_desc *rx;
    volatile struct igb_tx_desc *tx;
    struct pkt **rx_slot; /* the buffer posted at each RX descriptor */
    struct pkt **tx_slot; /* the buffer behind each TX descriptor */
    uint16_t *tx_last;    /* at a frame's first TX descriptor: its last (RS) one */
    volatile uint32_t *rdt, *tdt;
    struct pkt_pool *pool;
    uint16_t rx_next;     /* next RX descriptor to complete */
    uint16_t rx_tail;     /* next to post; RDT's value */
    uint16_t rx_posted;   /* descriptors holding a buffer */
    bool rx_discard;      /* inside a multi-descriptor frame being dropped */
    uint16_t tx_tail;     /* next to fill; TDT's value */
    uint16_t tx_clean;    /* oldest not reclaimed */
    uint16_t tx_used;     /* descriptors between tx_clean and tx_tail */
    uint8_t ctx_next;     /* context slot to overwrite next: the one used less recently */
    struct igb_txctx ctx[IGB_TXCTX_SLOTS];
    struct igb_txstats txs;
} __attribute__((aligned(64)));

struct igb {
    struct netdev dev;
    volatile uint8_t *regs;
    struct igb_queue *q[IGB_RSS_MAX_PAIRS];
    uint16_t pairs;
};

/* Symmetric Toeplitz key (0x6d5a repeated): both directions of a flow hash
 * alike, so a forwarded flow and its replies meet on one core. */
static const uint8_t rss_key[NETDEV_RSS_KEY_LEN] = {
    0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
    0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
    0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
};

static uint32_t rd32(const struct igb *g, uint32_t reg) { return *(volatile const uint32_t *)(g->regs + reg); }
static void wr32(struct igb *g, uint32_t reg, uint32_t v) { *(volatile uint32_t *)(g->regs + reg) = v; }
static struct igb *to_igb(struct netdev *dev) { return dev->priv; }

static struct igb *igb_ports[PORTS_MAX]; /* for `show igb` */
static int igb_nports;

/* Descriptors are ordinary write-back memory and the tail registers
 * uncached: x86 keeps stores in order, so the compiler is all that must not
 * move the tail write above the descriptor stores. */
static inline void dma_wmb(void) { __atomic_signal_fence(__ATOMIC_RELEASE); }
static inline void dma_rmb(void) { __atomic_signal_fence(__ATOMIC_ACQUIRE); }

bool igb_match(const struct pci_dev *pci)
{
    return pci->vendor == IGB_VENDOR_INTEL && pci->device == IGB_DEVICE_82576;
}

/* ---- data path ---- */

static void rx_refill(struct netdev *dev, struct igb_queue *q, uint16_t qi)
{
    struct pkt *fresh[REFILL_BATCH];
    uint16_t before = q->rx_tail;
    while (q->rx_posted < RX_RING - 1) { /* off by one on purpose: RDT == RDH means empty */
        uint32_t want = RX_RING - 1 - q->rx_posted;
        want = want < REFILL_BATCH ? want : REFILL_BATCH;
        uint32_t got = pkt_alloc_bulk(q->pool, fresh, want);
        for (uint32_t i = 0; i < got; i++) {
            uint16_t t = q->rx_tail;
            q->rx_slot[t] = fresh[i];
            q->rx[t].read.pkt_addr = pkt_data_phys(fresh[i]);
            q->rx[t].read.hdr_addr = 0; /* clears DD (7.1.5) */
            q->rx_tail = (uint16_t)((t + 1) & (RX_RING - 1));
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
static void rx_meta(struct pkt *p, const volatile union igb_rx_desc *d, uint32_t status)
{
    if ((status & IGB_RXD_L4CS) && !(status & IGB_RXD_ERR_L4E))
        p->flags |= PKT_RX_L4_CSUM_OK;
    if ((status & IGB_RXD_IPCS) && !(status & IGB_RXD_ERR_IPE))
        p->flags |= PKT_RX_IP_CSUM_OK;
    if (d->wb.info & IGB_RXD_RSS_TYPE_MASK) { /* only with RXCSUM.PCSD: RSS is on */
        p->rss_hash = d->wb.rss_hash;
        p->flags |= PKT_F_RSS_HASH;
    }
}

static void tx_reclaim(struct igb_queue *q)
{
    while (q->tx_used) {
        uint16_t last = q->tx_last[q->tx_clean];
        if (!(q->tx[last].olinfo_status & IGB_TXD_STAT_DD))
            break;
        uint16_t n = (uint16_t)(((last - q->tx_clean) & (TX_RING - 1)) + 1);
        for (uint16_t i = 0; i < n; i++) {
            uint16_t k = (uint16_t)((q->tx_clean + i) & (TX_RING - 1));
            if (q->tx_slot[k]) /* each buffer of a chain has its own; a context descriptor none */
                pkt_free(q->tx_slot[k]);
            q->tx_slot[k] = NULL;
        }
        q->tx_clean = (uint16_t)((last + 1) & (TX_RING - 1));
        q->tx_used = (uint16_t)(q->tx_used - n);
    }
}

static uint16_t igb_rx_burst(struct netdev *dev, uint16_t qi, struct pkt **pkts, uint16_t n)
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
        q->rx_next = (uint16_t)((q->rx_next + 1) & (RX_RING - 1));
        q->rx_posted--;
        /* A frame over several descriptors (larger than a buffer: not with
         * LPE off) or with a MAC error: every buffer of it dropped, once
         * counted. */
        if (q->rx_discard || !(status & IGB_RXD_EOP) || (status & IGB_RXD_ERR_RXE)) {
            if (!q->rx_discard)
                st->rx_error++;
            q->rx_discard = !(status & IGB_RXD_EOP);
            pkt_free(p);
            continue;
        }
        p->len = d->wb.length;
        p->port = dev->index;
        p->queue = qi;
        rx_meta(p, d, status);
        bytes += p->len;
        pkts[got++] = p;
    }
    if (RX_RING - 1 - q->rx_posted >= REFILL_BATCH || (got == 0 && q->rx_posted < RX_RING - 1))
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
    bool tso = (p->flags & (PKT_TX_TSO4 | PKT_TX_TSO6)) != 0, chain = (p->flags & PKT_F_CHAIN) != 0;
    const uint8_t *f = p->data;
    uint32_t mac = ETH_HDR_LEN, l4 = p->csum_start;
    if (p->len >= ETH_HDR_LEN && (f[12] << 8 | f[13]) == ETH_TYPE_VLAN)
        mac += ETH_VLAN_LEN;
    uint32_t type = p->len >= mac ? (uint32_t)(f[mac - 2] << 8 | f[mac - 1]) : 0;
    bool tcp = p->csum_offset == 16, udp = p->csum_offset == 6;
    bool fits = (type == ETH_TYPE_IP4 || type == ETH_TYPE_IP6) && (tcp || udp) && l4 > mac &&
                l4 - mac <= IGB_TXCTX_IPLEN_MAX && l4 + p->csum_offset + 2u <= p->len;
    if (!fits && !tso)
        return chain ? TX_BAD : TX_SOFTWARE; /* csum_pkt_finish sums one buffer only */
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
    q->txs.ctx_descs++;
}

/* TSO's prototype header (the datasheet's TCP segmentation rules, as in
 * Linux and FreeBSD igb): IPv4 total length and header checksum, or IPv6
 * payload length, zero (the device writes each segment's), and in the TCP checksum field the
 * pseudo-header sum without the length, which the device adds per
 * segment. The stack summed the whole frame's TCP length in (net/tcp_out.c
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
    if (nbuf > TX_CHAIN_MAX || need > TX_RING - 1u - q->tx_used)
        return false;
    uint16_t first = q->tx_tail, t = first;
    uint32_t cmd = IGB_TXD_DTYP_DATA | IGB_TXD_CMD_DEXT | IGB_TXD_CMD_IFCS;
    uint32_t olinfo = len << IGB_TXD_PAYLEN_SHIFT; /* PAYLEN: the whole frame (7.2.2.3) */
    if (o) {
        if (slot < 0) {
            slot = (int)ctx_victim(q, o);
            ctx_write(q, t, (uint32_t)slot, o);
            t = (uint16_t)((t + 1) & (TX_RING - 1));
        }
        q->ctx_next = (uint8_t)(slot ^ 1);
        olinfo = o->popts | (uint32_t)slot << IGB_TXD_IDX_SHIFT;
        if (o->tso) {
            uint32_t pay = len - o->hdr_len, mss = p->tso_mss;
            tso_headers(p, o, len);
            cmd |= IGB_TXD_CMD_TSE;
            olinfo |= pay << IGB_TXD_PAYLEN_SHIFT; /* with TSE: the payload after the headers */
            q->txs.tso_frames++;
            q->txs.tso_segments += (pay + mss - 1) / mss;
        } else {
            len = unpadded_len(p, o, len);
            olinfo |= len << IGB_TXD_PAYLEN_SHIFT;
            q->txs.csum_offload++;
        }
    }
    for (struct pkt *e = p;; e = e->next) {
        bool last = !(e->flags & PKT_F_CHAIN);
        q->tx_slot[t] = e;
        q->tx[t].addr = pkt_data_phys(e);
        uint32_t dlen = e == p && last ? len : e->len; /* one buffer: maybe unpadded */
        q->tx[t].cmd_type_len = dlen | cmd | (last ? IGB_TXD_CMD_EOP | IGB_TXD_CMD_RS : 0);
        q->tx[t].olinfo_status = e == p ? olinfo : 0; /* PAYLEN, POPTS, IDX: the first's count */
        if (last)
            break;
        t = (uint16_t)((t + 1) & (TX_RING - 1));
    }
    q->tx_last[first] = t;
    q->tx_tail = (uint16_t)((t + 1) & (TX_RING - 1));
    q->tx_used = (uint16_t)(q->tx_used + need);
    *frame_len = len;
    return true;
}

static uint16_t igb_tx_burst(struct netdev *dev, uint16_t qi, struct pkt **pkts, uint16_t n)
{
    struct igb_queue *q = to_igb(dev)->q[qi];
    struct netdev_qstats *st = &dev->stats[qi];
    bool reclaimed = q->tx_used >= TX_RECLAIM_AT || q->tx_used + n > TX_RING - 1;
    if (reclaimed)
        tx_reclaim(q);
    uint16_t sent = 0, queued = 0;
    uint64_t bytes = 0;
    for (; sent < n; sent++) {
        struct pkt *p = pkts[sent];
        struct tx_off o;
        uint32_t len;
        enum tx_how how = tx_classify(p, &o);
        if (how == TX_BAD) { /* taken: counted and freed */
            q->txs.offload_bad++;
            st->tx_error++;
            pkt_free_frame(p);
            continue;
        }
        if (how == TX_SOFTWARE) {
            csum_pkt_finish(p);
            q->txs.csum_software++;
        }
        const struct tx_off *op = how == TX_HW ? &o : NULL;
        if (!tx_frame(q, p, op, &len)) {
            if (reclaimed)
                break;
            tx_reclaim(q); /* once a burst: finished frames free their slots */
            reclaimed = true;
            if (!tx_frame(q, p, op, &len))
                break;
        }
        queued++;
        bytes += len;
    }
    if (queued) {
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

/* Slow path, core 0: link state, and the device's missed-packet counter
 * (RX FIFO overflow for want of descriptors) into queue 0, core 0's. */
static void igb_poll_status(struct netdev *dev)
{
    struct igb *g = to_igb(dev);
    bool up = (rd32(g, IGB_STATUS) & IGB_STATUS_LU) != 0;
    dev->stats[0].rx_miss += rd32(g, IGB_MPC);
    ports_note_link(dev, up);
}

static const struct netdev_ops igb_ops = {
    .rx_burst = igb_rx_burst,
    .tx_burst = igb_tx_burst,
    .poll_status = igb_poll_status,
};

/* ---- `show igb`: the driver's own counters ---- */

static void txstats_add(struct igb_txstats *sum, const struct igb_txstats *s)
{
    sum->csum_offload += s->csum_offload;
    sum->csum_software += s->csum_software;
    sum->tso_frames += s->tso_frames;
    sum->tso_segments += s->tso_segments;
    sum->ctx_descs += s->ctx_descs;
    sum->offload_bad += s->offload_bad;
}

static void txstats_json(struct json *j, const struct igb_txstats *s)
{
    json_u64(j, "tx-csum-offload", s->csum_offload);
    json_u64(j, "tx-csum-software", s->csum_software);
    json_u64(j, "tx-tso-frames", s->tso_frames);
    json_u64(j, "tx-tso-segments", s->tso_segments);
    json_u64(j, "tx-context-descriptors", s->ctx_descs);
    json_u64(j, "tx-offload-bad", s->offload_bad);
}

/* Counts of other cores' queues are recent, not exact. */
static void cmd_show_igb(const struct cli_args *a)
{
    struct json j;
    if (a->json) {
        cli_json_begin(&j);
        json_obj_begin(&j, 0);
        json_arr_begin(&j, "ports");
    }
    for (int i = 0; i < igb_nports; i++) {
        const struct igb *g = igb_ports[i];
        struct igb_txstats t = {0};
        for (uint16_t qi = 0; qi < g->pairs; qi++)
            txstats_add(&t, &g->q[qi]->txs);
        if (!a->json) {
            kprintf("%s: tx checksums offloaded %lu, in software %lu; TSO %lu frames, %lu segments; "
                    "%lu context descriptors; %lu bad offload requests\n",
                    g->dev.name, t.csum_offload, t.csum_software, t.tso_frames, t.tso_segments, t.ctx_descs,
                    t.offload_bad);
            continue;
        }
        json_obj_begin(&j, 0);
        json_str(&j, "name", g->dev.name);
        json_obj_begin(&j, "counters");
        txstats_json(&j, &t);
        json_obj_end(&j);
        json_arr_begin(&j, "per-queue");
        for (uint16_t qi = 0; qi < g->pairs; qi++) {
            json_obj_begin(&j, 0);
            json_u64(&j, "queue", qi);
            txstats_json(&j, &g->q[qi]->txs);
            json_obj_end(&j);
        }
        json_arr_end(&j);
        json_obj_end(&j);
    }
    if (a->json) {
        json_arr_end(&j);
        json_obj_end(&j);
        cli_json_end(&j);
    } else if (igb_nports == 0) {
        kprintf("no igb ports\n");
    }
}

/* ---- set-up ---- */

/* Bounded wait for (reg & mask) == want; false on timeout. */
static bool wait_reg(struct igb *g, uint32_t reg, uint32_t mask, uint32_t want, uint32_t timeout_us)
{
    for (uint32_t us = 0; us < timeout_us; us += 10) {
        if ((rd32(g, reg) & mask) == want)
            return true;
        time_delay_us(10);
    }
    return (rd32(g, reg) & mask) == want;
}

/* A PHY register through MDIC (8.2.4); -1 on error or timeout. */
static int phy_read(struct igb *g, uint32_t reg)
{
    wr32(g, IGB_MDIC, reg << IGB_MDIC_REG_SHIFT | IGB_PHY_ADDR << IGB_MDIC_PHY_SHIFT | IGB_MDIC_OP_READ);
    if (!wait_reg(g, IGB_MDIC, IGB_MDIC_READY, IGB_MDIC_READY, 10000))
        return -1;
    uint32_t v = rd32(g, IGB_MDIC);
    return (v & IGB_MDIC_ERROR) ? -1 : (int)(v & 0xffff);
}

static int phy_write(struct igb *g, uint32_t reg, uint16_t val)
{
    wr32(g, IGB_MDIC, val | reg << IGB_MDIC_REG_SHIFT | IGB_PHY_ADDR << IGB_MDIC_PHY_SHIFT | IGB_MDIC_OP_WRITE);
    if (!wait_reg(g, IGB_MDIC, IGB_MDIC_READY, IGB_MDIC_READY, 10000))
        return -1;
    return (rd32(g, IGB_MDIC) & IGB_MDIC_ERROR) ? -1 : 0;
}

/* 4.3.1 software reset: RX and TX stopped first, interrupts masked before
 * and after (the reset restores the defaults). */
static bool reset(struct igb *g)
{
    wr32(g, IGB_IMC, 0xffffffffu);
    wr32(g, IGB_EIMC, 0xffffffffu);
    wr32(g, IGB_RCTL, 0);
    wr32(g, IGB_TCTL, IGB_TCTL_PSP);
    (void)rd32(g, IGB_STATUS); /* flush the writes */
    time_delay_us(10000);
    wr32(g, IGB_CTRL, rd32(g, IGB_CTRL) | IGB_CTRL_RST);
    time_delay_us(1000); /* no register access for 1 ms after RST (4.3.1) */
    if (!wait_reg(g, IGB_CTRL, IGB_CTRL_RST, 0, 100000))
        return false;
    wr32(g, IGB_IMC, 0xffffffffu);
    wr32(g, IGB_EIMC, 0xffffffffu);
    (void)rd32(g, IGB_ICR); /* clears anything pending */
    return true;
}

/* Link: CTRL.SLU for the MAC, autonegotiation (re)started in the PHY. The
 * reset stops it in QEMU's model, which then never brings the link up. */
static void link_up(struct igb *g)
{
    wr32(g, IGB_CTRL, rd32(g, IGB_CTRL) | IGB_CTRL_SLU);
    wr32(g, IGB_CTRL_EXT, rd32(g, IGB_CTRL_EXT) | IGB_CTRL_EXT_DRV_LOAD);
    int bmcr = phy_read(g, IGB_PHY_BMCR);
    if (bmcr < 0 || phy_write(g, IGB_PHY_BMCR, (uint16_t)(bmcr | IGB_BMCR_AN_ENABLE | IGB_BMCR_RESTART_AN)) < 0)
        kprintf("igb: PHY access failed; link left to the hardware\n");
}

static void setup_rx(struct igb *g, uint16_t n, struct igb_queue *q)
{
    uint64_t phys = virt_to_phys((const void *)q->rx);
    wr32(g, IGB_RXDCTL(n), rd32(g, IGB_RXDCTL(n)) & ~IGB_XDCTL_ENABLE);
    wr32(g, IGB_RDBAL(n), (uint32_t)phys);
    wr32(g, IGB_RDBAH(n), (uint32_t)(phys >> 32));
    wr32(g, IGB_RDLEN(n), RX_RING * (uint32_t)sizeof(union igb_rx_desc));
    /* 2 KiB buffers; DROP_EN: a queue without buffers drops its own
     * frames rather than holding up the others (7.1.3.1). */
    wr32(g, IGB_SRRCTL(n), (2u << IGB_SRRCTL_BSIZEPKT_SHIFT) | (2u << IGB_SRRCTL_BSIZEHDR_SHIFT) |
                               IGB_SRRCTL_DESCTYPE_ADV_ONEBUF | IGB_SRRCTL_DROP_EN);
    wr32(g, IGB_RDH(n), 0);
    wr32(g, IGB_RDT(n), 0);
    wr32(g, IGB_RXDCTL(n), rd32(g, IGB_RXDCTL(n)) | IGB_XDCTL_ENABLE);
    if (!wait_reg(g, IGB_RXDCTL(n), IGB_XDCTL_ENABLE, IGB_XDCTL_ENABLE, 10000))
        kprintf("igb: RX queue %u did not enable\n", n);
    q->rdt = (volatile uint32_t *)(g->regs + IGB_RDT(n));
}

static void setup_tx(struct igb *g, uint16_t n, struct igb_queue *q)
{
    uint64_t phys = virt_to_phys((const void *)q->tx);
    wr32(g, IGB_TDBAL(n), (uint32_t)phys);
    wr32(g, IGB_TDBAH(n), (uint32_t)(phys >> 32));
    wr32(g, IGB_TDLEN(n), TX_RING * (uint32_t)sizeof(struct igb_tx_desc));
    wr32(g, IGB_TDH(n), 0);
    wr32(g, IGB_TDT(n), 0);
    /* WTHRESH 0: each RS descriptor is written back at once; nothing waits
     * for an interrupt to flush them (8.12.13). */
    wr32(g, IGB_TXDCTL(n), (rd32(g, IGB_TXDCTL(n)) & ~IGB_XDCTL_WTHRESH_MASK) | IGB_XDCTL_ENABLE);
    if (!wait_reg(g, IGB_TXDCTL(n), IGB_XDCTL_ENABLE, IGB_XDCTL_ENABLE, 10000))
        kprintf("igb: TX queue %u did not enable\n", n);
    q->tdt = (volatile uint32_t *)(g->regs + IGB_TDT(n));
}

/* RSS (7.1.2.8): our key, the table round-robin over the pairs, hashes
 * over IPv4/IPv6 addresses and TCP/UDP ports. */
static void setup_rss(struct igb *g)
{
    struct netdev *dev = &g->dev;
    memcpy(dev->rss_key, rss_key, NETDEV_RSS_KEY_LEN);
    for (int i = 0; i < IGB_RSSRK_REGS; i++) {
        const uint8_t *k = rss_key + 4 * i; /* key byte 0 in RSSRK0's low byte */
        wr32(g, IGB_RSSRK(i), (uint32_t)k[0] | (uint32_t)k[1] << 8 | (uint32_t)k[2] << 16 | (uint32_t)k[3] << 24);
    }
    _Static_assert(NETDEV_RSS_RETA_LEN == 4 * IGB_RETA_REGS, "one netdev entry per RETA byte");
    for (int i = 0; i < IGB_RETA_REGS; i++) {
        uint32_t v = 0;
        for (int b = 0; b < 4; b++) {
            uint16_t qn = (uint16_t)((4 * i + b) % g->pairs);
            dev->rss_reta[4 * i + b] = qn;
            v |= (uint32_t)qn << (8 * b);
        }
        wr32(g, IGB_RETA(i), v);
    }
    wr32(g, IGB_MRQC, IGB_MRQC_RSS | IGB_MRQC_TCPIPV4 | IGB_MRQC_IPV4 | IGB_MRQC_TCPIPV6EX | IGB_MRQC_IPV6 |
                          IGB_MRQC_TCPIPV6 | IGB_MRQC_UDPIPV4 | IGB_MRQC_UDPIPV6);
}

static struct igb_queue *alloc_queue(struct pkt_pool *pool)
{
    struct igb_queue *q = kalloc(sizeof *q);
    q->rx = kalloc_pages(RX_RING * sizeof(union igb_rx_desc) / PAGE_SIZE, 1);
    q->tx = kalloc_pages(TX_RING * sizeof(struct igb_tx_desc) / PAGE_SIZE, 1);
    q->rx_slot = kalloc(RX_RING * sizeof *q->rx_slot);
    q->tx_slot = kalloc(TX_RING * sizeof *q->tx_slot);
    q->tx_last = kalloc(TX_RING * sizeof *q->tx_last);
    q->pool = pool;
    return q;
}

struct netdev *igb_probe(struct pci_dev *pci, uint16_t max_pairs, struct pkt_pool **pools)
{
    struct igb *g = kalloc(sizeof *g);
    struct netdev *dev = &g->dev;
    g->regs = pci_map_bar(pci, 0);
    if (!g->regs)
        return NULL;
    pci_enable(pci);
    if (!reset(g)) {
        kprintf("igb %02x:%02x.%x: reset did not complete\n", pci->bus, pci->dev, pci->fn);
        return NULL;
    }
    uint32_t ral = rd32(g, IGB_RAL0), rah = rd32(g, IGB_RAH0);
    for (int i = 0; i < 4; i++)
        dev->mac[i] = (uint8_t)(ral >> (8 * i));
    dev->mac[4] = (uint8_t)rah;
    dev->mac[5] = (uint8_t)(rah >> 8);
    link_up(g);
    for (int i = 0; i < IGB_MTA_COUNT; i++)
        wr32(g, IGB_MTA(i), 0);

    uint16_t pairs = max_pairs < IGB_MAX_PAIRS ? max_pairs : IGB_MAX_PAIRS;
    g->pairs = pairs ? pairs : 1;
    for (uint16_t i = 0; i < g->pairs; i++) {
        g->q[i] = alloc_queue(pools[i]);
        dev->rx_pool[i] = pools[i];
        setup_rx(g, i, g->q[i]);
        setup_tx(g, i, g->q[i]);
    }
    /* RX checksum offload; PCSD puts the RSS hash in the descriptor (and is
     * what turns RSS on). */
    wr32(g, IGB_RXCSUM, IGB_RXCSUM_IPOFLD | IGB_RXCSUM_TUOFLD | (g->pairs > 1 ? IGB_RXCSUM_PCSD : 0));
    if (g->pairs > 1)
        setup_rss(g);
    else
        wr32(g, IGB_MRQC, 0);
    for (uint16_t i = 0; i < g->pairs; i++)
        rx_refill(dev, g->q[i], i);
    /* 8.10.1: broadcast and every multicast (IPv6 neighbour discovery)
     * accepted, CRC stripped, 2 KiB buffers, no long packets. */
    wr32(g, IGB_RCTL, IGB_RCTL_EN | IGB_RCTL_BAM | IGB_RCTL_MPE | IGB_RCTL_SECRC | IGB_RCTL_BSIZE_2048);
    wr32(g, IGB_TCTL, rd32(g, IGB_TCTL) | IGB_TCTL_EN | IGB_TCTL_PSP);

    dev->driver = "igb";
    dev->ops = &igb_ops;
    dev->priv = g;
    dev->nqueues = g->pairs;
    dev->mtu = 1500;
    dev->offloads = NETDEV_OFF_RX_CSUM | NETDEV_OFF_TX_CSUM | NETDEV_OFF_TSO4 | NETDEV_OFF_TSO6 |
                    (g->pairs > 1 ? NETDEV_OFF_RSS | NETDEV_OFF_RSS_TCP6 : 0);
    wait_reg(g, IGB_STATUS, IGB_STATUS_LU, IGB_STATUS_LU, LINK_WAIT_MS * 1000);
    igb_poll_status(dev);
    if (igb_nports == 0)
        cli_register("show igb", "show igb [json]", "igb TX offloads: checksums, TSO, context descriptors",
                     cmd_show_igb);
    if (igb_nports < PORTS_MAX)
        igb_ports[igb_nports++] = g;
    kprintf("igb %02x:%02x.%x: %u RX / %u TX descriptors a queue, %u queue pair%s%s\n", pci->bus, pci->dev, pci->fn,
            RX_RING, TX_RING, g->pairs, g->pairs == 1 ? "" : "s", g->pairs > 1 ? ", RSS" : "");
    return dev;
}
