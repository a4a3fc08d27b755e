/* SPDX-License-Identifier: MIT */
/* drivers/mlx5/mlx5_rxtx.c: a queue pair's objects and the data path.
 *
 * Per core: a receive queue (RQ) of 16-byte WQEs, one data segment each
 * (at an MTU over one buffer, WQEs of a scatter list, a frame received
 * over several buffers and chained), and a send queue (SQ) of 64-byte
 * WQEs, each with its completion queue
 * (CQ), and a UAR page of its own for the send doorbell (PRM "Send
 * Queue", "Receive Queue", "Completion Queues", "Doorbells"). A send WQE
 * is control, Ethernet (checksum flags, for LSO the MSS; the first 18
 * bytes of the frame inline, as a ConnectX-4's wqe_inline_mode asks, or
 * more where the vport asks, every header for LSO) and a pointer a
 * buffer: one 64-byte basic block for a plain frame, a WQE may run past
 * the ring's end. A burst writes its WQEs, asks a completion for the
 * last only, sets the SQ's doorbell record once and writes the last
 * WQE's first 8 bytes to the UAR's doorbell register once. The receive
 * side reads CQEs by their owner bit, posts the buffers back and sets the
 * RQ's and the CQ's doorbell records once a burst. No MMIO read. */
#include "drivers/mlx5/mlx5_dev.h"

#include "kernel/lib.h"
#include "kernel/mem/kalloc.h"
#include "kernel/mem/memmap.h"

#define RQ_LOG 10 /* 1024 WQEs of 16 bytes: four pages (a burst at 10G and more) */
#define SQ_LOG 8  /* 256 WQEs of 64 bytes: four pages */
#define RCQ_LOG RQ_LOG /* a CQE for every WQE the RQ may complete */
#define SCQ_LOG 8      /* 256 CQEs: at most one a send WQE */
#define RQ_SIZE (1u << RQ_LOG)
#define SQ_SIZE (1u << SQ_LOG)
/* The RQ's ring, whatever its stride: jumbo frames get fewer, longer WQEs
 * (128 of 128 bytes at MTU 9000: 640 buffers posted, not 1024). */
#define RQ_BYTES (RQ_SIZE * MLX5_DATA_SEG)
#define RX_FRAME_EXTRA 22 /* Ethernet header and two VLAN tags on the MTU */
#define INLINE_HDR 18 /* destination, source, type and room for a VLAN tag */
_Static_assert(SQ_SIZE <= 65536 && (SQ_SIZE & (SQ_SIZE - 1)) == 0, "WQE counters are 16 bits");

static inline void dma_wmb(void) { __atomic_signal_fence(__ATOMIC_RELEASE); }
static inline void dma_rmb(void) { __atomic_signal_fence(__ATOMIC_ACQUIRE); }

static struct mlx5 *to_mlx5(struct netdev *dev) { return dev->priv; }

/* A CQ's buffer, every CQE invalid and the device's (owner 1) until written. */
static bool create_cq(struct mlx5 *m, struct mlx5_cq *cq, volatile uint32_t *dbr, uint32_t uar)
{
    unsigned size = 1u << cq->log;
    if (!cq->cqe)
        cq->cqe = kalloc_pages(size * MLX5_CQE_SIZE / MLX5_PAGE_SIZE, 1);
    cq->cc = 0;
    for (unsigned i = 0; i < size; i++)
        cq->cqe[i * MLX5_CQE_SIZE + MLX5_CQE_OP_OWN] = MLX5_CQE_INVALID << 4 | 1;
    cq->dbr = dbr;
    struct mlx5_cq_params p = {.uar = uar, .eqn = m->eqn, .log_size = cq->log,
                               .npages = size * MLX5_CQE_SIZE / MLX5_PAGE_SIZE,
                               .buf = virt_to_phys(cq->cqe), .dbr = virt_to_phys((const void *)dbr)};
    return mlx5_cmd_object(m, mlx5_enc_create_cq(m->in, &p), &cq->num) == 0;
}

static bool ready(struct mlx5 *m, uint16_t opcode, uint32_t num)
{
    return mlx5_cmd(m, mlx5_enc_modify_queue(m->in, opcode, num, MLX5_QUEUE_RST, MLX5_QUEUE_RDY), 0x10) == 0;
}

static void put_data_seg(uint8_t *seg, uint32_t bytes, uint32_t lkey, uint64_t addr)
{
    mlx5_put32(seg, 0, bytes);
    mlx5_put32(seg, 4, lkey);
    mlx5_put64(seg, 8, addr);
}

/* Buffers a frame of the MTU takes (Ethernet and two VLAN tags on it). */
unsigned mlx5_rx_segs(uint16_t mtu) { return (mtu + RX_FRAME_EXTRA + PKT_DATA_ROOM - 1u) / PKT_DATA_ROOM; }

/* PRM "Work Queue Format" log_wq_stride: a receive WQE's bytes, a 16-byte
 * data segment a buffer (PRM "Receive WQE Format": the scatter list),
 * rounded up to a power of two. */
unsigned mlx5_rq_log_stride(uint16_t mtu)
{
    unsigned log = 4;
    while ((1u << (log - 4)) < mlx5_rx_segs(mtu))
        log++;
    return log;
}

/* One-segment WQEs: each completed one posted again with a fresh buffer,
 * 32 at a time. False when the pool ran short. */
static bool rx_post_single(struct mlx5_queue *q)
{
    struct pkt *fresh[32];
    while (q->rq_pc - q->rq_cc < q->rq_wqes) {
        uint32_t want = q->rq_wqes - (q->rq_pc - q->rq_cc);
        want = want < 32 ? want : 32;
        uint32_t got = pkt_alloc_bulk(q->pool, fresh, want);
        for (uint32_t i = 0; i < got; i++) {
            uint32_t k = q->rq_pc++ & (q->rq_wqes - 1);
            q->rx_slot[k] = fresh[i];
            put_data_seg(q->rq + k * MLX5_DATA_SEG, PKT_DATA_ROOM, q->lkey, pkt_data_phys(fresh[i]));
        }
        if (got < want)
            return false;
    }
    return true;
}

/* Scatter-list WQEs (PRM "Receive WQE Format"): rx_segs data segments, a
 * buffer each, a segment of the invalid lkey ending the list where it is
 * shorter than the stride. A completed WQE's segments that a frame used
 * get fresh buffers; the others kept theirs. False when the pool ran
 * short (the WQE's buffers so far stay in its slots for the next try). */
static bool rx_post_scatter(struct mlx5_queue *q)
{
    unsigned per_wqe = 1u << (q->rq_log_stride - 4);
    while (q->rq_pc - q->rq_cc < q->rq_wqes) {
        uint32_t k = q->rq_pc & (q->rq_wqes - 1);
        struct pkt **slot = q->rx_slot + k * per_wqe;
        uint8_t *wqe = q->rq + (k << q->rq_log_stride);
        for (unsigned s = 0; s < q->rx_segs; s++) {
            if (!slot[s] && (slot[s] = pkt_alloc(q->pool)) == NULL)
                return false;
            put_data_seg(wqe + s * MLX5_DATA_SEG, PKT_DATA_ROOM, q->lkey, pkt_data_phys(slot[s]));
        }
        if (q->rx_segs < per_wqe)
            put_data_seg(wqe + q->rx_segs * MLX5_DATA_SEG, 0, MLX5_INVALID_LKEY, 0);
        q->rq_pc++;
    }
    return true;
}

static void rx_refill(struct mlx5_queue *q, struct netdev_qstats *st)
{
    uint32_t before = q->rq_pc;
    if (!(q->rx_segs == 1 ? rx_post_single(q) : rx_post_scatter(q)))
        st->rx_no_buf++;
    if (q->rq_pc != before) {
        dma_wmb();
        q->dbr[MLX5_DBR_RQ] = __builtin_bswap32(q->rq_pc & 0xffff); /* a record in memory: no MMIO */
        st->rx_doorbells++;
    }
}

/* Every buffer the pair holds back to its pool (a reset: the device has
 * forgotten the queues): every RQ slot (a scatter-list WQE's unused
 * segments keep theirs past its completion), every send WQE outstanding. */
void mlx5_queue_drain(struct mlx5 *m, uint16_t qi)
{
    struct mlx5_queue *q = m->q[qi];
    for (uint32_t k = 0; k < RQ_SIZE; k++) {
        if (q->rx_slot[k])
            pkt_free(q->rx_slot[k]);
        q->rx_slot[k] = NULL;
    }
    q->rq_cc = q->rq_pc;
    for (; q->sq_cc != q->sq_pc; q->sq_cc++) {
        uint32_t k = q->sq_cc & (SQ_SIZE - 1);
        if (q->tx_slot[k])
            pkt_free_frame(q->tx_slot[k]);
        q->tx_slot[k] = NULL;
    }
}

bool mlx5_queue_create(struct mlx5 *m, uint16_t qi, struct pkt_pool *pool)
{
    struct mlx5_queue *q = m->q[qi];
    if (!q) { /* else a reset: the same memory, drained */
        q = kalloc(sizeof *q);
        q->dbr = kalloc(64); /* the RQ's, the SQ's and the two CQs' records, one cache line */
        q->rq = kalloc_pages(RQ_BYTES / MLX5_PAGE_SIZE, 1);
        q->rcq.log = RCQ_LOG;
        q->scq.log = SCQ_LOG;
        q->sq = kalloc_pages(SQ_SIZE * 64 / MLX5_PAGE_SIZE, 1);
        q->rx_slot = kalloc(RQ_SIZE * sizeof *q->rx_slot); /* a slot a 16-byte segment of the ring */
        q->tx_slot = kalloc(SQ_SIZE * sizeof *q->tx_slot);
        m->q[qi] = q;
    }
    q->pool = pool;
    q->lkey = m->resd_lkey;
    q->min_inline = m->min_inline;
    q->rx_segs = (uint8_t)mlx5_rx_segs(m->mtu);
    q->rq_log_stride = (uint8_t)mlx5_rq_log_stride(m->mtu);
    q->rq_wqes = RQ_BYTES >> q->rq_log_stride;
    q->rq_pc = q->rq_cc = q->rcq_seen = 0;
    q->sq_pc = q->sq_cc = 0;
    memset((void *)q->dbr, 0, 64);
    if (mlx5_cmd_object(m, mlx5_enc_alloc_uar(m->in), &q->uar) != 0)
        return false;
    q->doorbell = (volatile uint64_t *)(m->bar + (uint64_t)q->uar * MLX5_PAGE_SIZE + MLX5_UAR_BF);
    if (!create_cq(m, &q->rcq, q->dbr + MLX5_DBR_RCQ, q->uar) || !create_cq(m, &q->scq, q->dbr + MLX5_DBR_SCQ, q->uar))
        return false;
    struct mlx5_wq_params rp = {.pd = m->pd, .uar = q->uar, .cqn = q->rcq.num,
                                .log_size = RQ_LOG + 4 - q->rq_log_stride, .log_stride = q->rq_log_stride,
                                .npages = RQ_BYTES / MLX5_PAGE_SIZE,
                                .buf = virt_to_phys(q->rq), .dbr = virt_to_phys((const void *)(q->dbr + MLX5_DBR_RQ))};
    if (mlx5_cmd_object(m, mlx5_enc_create_rq(m->in, &rp), &q->rqn) != 0)
        return false;
    struct mlx5_wq_params sp = {.pd = m->pd, .uar = q->uar, .cqn = q->scq.num, .log_size = SQ_LOG,
                                .npages = SQ_SIZE * 64 / MLX5_PAGE_SIZE, .buf = virt_to_phys(q->sq),
                                .dbr = virt_to_phys((const void *)(q->dbr + MLX5_DBR_SQ_REC))};
    /* The SQ's own minimal inline mode only where the vport decides it. */
    if (mlx5_cmd_object(m, mlx5_enc_create_sq(m->in, &sp, m->tisn, m->inline_from_vport ? m->min_inline : 0),
                        &q->sqn) != 0)
        return false;
    if (!ready(m, MLX5_CMD_MODIFY_RQ, q->rqn) || !ready(m, MLX5_CMD_MODIFY_SQ, q->sqn))
        return false;
    rx_refill(q, &m->dev.stats[qi]);
    return true;
}

/* The CQE at cc, when the device has written it: its owner bit says which
 * pass of the ring wrote it. */
static const uint8_t *cqe_at(struct mlx5_cq *cq)
{
    const uint8_t *c = cq->cqe + (cq->cc & ((1u << cq->log) - 1)) * MLX5_CQE_SIZE;
    uint8_t op_own = *(volatile const uint8_t *)&c[MLX5_CQE_OP_OWN];
    if ((op_own & 1) != ((cq->cc >> cq->log) & 1) || op_own >> 4 == MLX5_CQE_INVALID)
        return NULL;
    dma_rmb();
    return c;
}

static void cq_done(struct mlx5_cq *cq) { *cq->dbr = __builtin_bswap32(cq->cc & 0xffffff); }

/* Send completions: the CQE names the last WQE it covers (only a burst's
 * last asks for one); every WQE up to it is done. */
static void tx_reclaim(struct mlx5 *m, struct mlx5_queue *q, struct netdev_qstats *st)
{
    const uint8_t *c;
    bool seen = false;
    while ((c = cqe_at(&q->scq)) != NULL) {
        q->scq.cc++;
        seen = true;
        unsigned op = c[MLX5_CQE_OP_OWN] >> 4;
        if (op == MLX5_CQE_REQ_ERR) {
            m->cqe_errors[c[MLX5_CQE_SYNDROME] < MLX5_CQE_SYNDROMES ? c[MLX5_CQE_SYNDROME] : 0]++;
            st->tx_error++;
        }
        uint16_t last = mlx5_get16(c, MLX5_CQE_WQE_COUNTER);
        while (q->sq_cc != (uint16_t)(last + 1) && q->sq_cc != q->sq_pc) {
            uint32_t k = q->sq_cc++ & (SQ_SIZE - 1);
            if (q->tx_slot[k])
                pkt_free_frame(q->tx_slot[k]);
            q->tx_slot[k] = NULL;
        }
    }
    if (seen)
        cq_done(&q->scq);
}

static void rx_count_error(struct mlx5 *m, const uint8_t *c, struct netdev_qstats *st)
{
    if (c[MLX5_CQE_OP_OWN] >> 4 == MLX5_CQE_RESP_ERR)
        m->cqe_errors[c[MLX5_CQE_SYNDROME] < MLX5_CQE_SYNDROMES ? c[MLX5_CQE_SYNDROME] : 0]++;
    st->rx_error++;
}

/* A one-segment WQE's frame, its buffer taken (a new one is posted). */
static struct pkt *rx_single(struct mlx5 *m, struct mlx5_queue *q, const uint8_t *c, uint32_t len,
                             struct netdev_qstats *st)
{
    uint32_t k = q->rq_cc++ & (q->rq_wqes - 1);
    struct pkt *p = q->rx_slot[k];
    q->rx_slot[k] = NULL;
    if (c[MLX5_CQE_OP_OWN] >> 4 != MLX5_CQE_RESP_SEND || len > PKT_DATA_ROOM) {
        rx_count_error(m, c, st);
        pkt_free(p);
        return NULL;
    }
    p->len = (uint16_t)len;
    p->flags = 0;
    return p;
}

/* A scatter-list WQE's frame: the device filled the segments in order
 * (PRM "Receive WQE Format") and byte_cnt says the frame's bytes in all
 * (PRM "Completion Queue Entry"), so the first byte_cnt / PKT_DATA_ROOM
 * buffers, rounded up, hold it: taken, chained (pkt.h). The segments it
 * did not reach keep their buffers for the WQE's next posting, and so do
 * all of them for a frame dropped: an error, or longer than the MTU with
 * two VLAN tags (what a port set to it would not pass). */
static struct pkt *rx_scatter(struct netdev *dev, uint16_t qi, const uint8_t *c, uint32_t len,
                              struct netdev_qstats *st)
{
    struct mlx5_queue *q = to_mlx5(dev)->q[qi];
    uint32_t k = q->rq_cc++ & (q->rq_wqes - 1);
    struct pkt **slot = q->rx_slot + (k << (q->rq_log_stride - 4));
    if (c[MLX5_CQE_OP_OWN] >> 4 != MLX5_CQE_RESP_SEND || len == 0 || len > dev->mtu + RX_FRAME_EXTRA ||
        len > q->rx_segs * PKT_DATA_ROOM) {
        rx_count_error(to_mlx5(dev), c, st);
        return NULL;
    }
    struct pkt_chain frame = {0};
    for (unsigned s = 0; len; s++) {
        struct pkt *p = slot[s];
        slot[s] = NULL;
        p->len = (uint16_t)(len < PKT_DATA_ROOM ? len : PKT_DATA_ROOM);
        p->flags = 0;
        p->port = dev->index;
        p->queue = qi;
        len -= p->len;
        pkt_chain_add(&frame, p);
    }
    return pkt_chain_take(&frame);
}

/* What the CQE says the device checked and hashed. */
static void rx_offloads(struct pkt *p, const uint8_t *c)
{
    uint8_t ok = c[MLX5_CQE_HDS_IP_EXT];
    if (ok & MLX5_CQE_L4_OK)
        p->flags |= PKT_RX_L4_CSUM_OK;
    if (ok & MLX5_CQE_L3_OK)
        p->flags |= PKT_RX_IP_CSUM_OK;
    if (c[MLX5_CQE_RSS_HASH_TYPE]) {
        p->rss_hash = mlx5_get32(c, MLX5_CQE_RSS_HASH);
        p->flags |= PKT_F_RSS_HASH;
    }
}

uint16_t mlx5_rx_burst(struct netdev *dev, uint16_t qi, struct pkt **pkts, uint16_t n)
{
    struct mlx5 *m = to_mlx5(dev);
    struct mlx5_queue *q = m->q[qi];
    struct netdev_qstats *st = &dev->stats[qi];
    uint16_t got = 0;
    uint64_t bytes = 0;
    const uint8_t *c;
    while (got < n && (c = cqe_at(&q->rcq)) != NULL) {
        q->rcq.cc++;
        uint32_t len = mlx5_get32(c, MLX5_CQE_BYTE_CNT);
        struct pkt *p = __builtin_expect(q->rx_segs == 1, 1) ? rx_single(m, q, c, len, st)
                                                             : rx_scatter(dev, qi, c, len, st);
        if (p == NULL)
            continue;
        p->port = dev->index;
        p->queue = qi;
        rx_offloads(p, c);
        bytes += len;
        pkts[got++] = p;
    }
    if (q->rcq.cc != q->rcq_seen) {
        q->rcq_seen = q->rcq.cc;
        cq_done(&q->rcq);
        rx_refill(q, st);
    }
    if (got == 0 && q->sq_cc != q->sq_pc)
        tx_reclaim(m, q, st); /* idle: finished send buffers back to the pool */
    netdev_count_rx(st, got, bytes);
    return got;
}

/* A WQE's 16-byte segments, in ring order: a WQE may run past the
 * buffer's end and go on at its start (the ring is cyclic to the device). */
struct seg_writer {
    uint8_t *ring, *at;
    unsigned ds;
};

static uint8_t *next_seg(struct seg_writer *sw)
{
    uint8_t *s = sw->at;
    sw->at += 16;
    if (sw->at == sw->ring + SQ_SIZE * 64)
        sw->at = sw->ring;
    sw->ds++;
    return s;
}

/* The header bytes a send WQE carries inline (PRM "Ethernet Segment"):
 * L2 with room for a VLAN tag, or, where the vport asks for more, through
 * the IP header or through TCP/UDP (inside the first buffer). */
static uint32_t inline_len(const struct mlx5_queue *q, const struct pkt *p)
{
    if (q->min_inline <= MLX5_MIN_INLINE_L2)
        return INLINE_HDR;
    const uint8_t *d = p->data;
    uint32_t l2 = 14, n;
    uint16_t type = (uint16_t)(d[12] << 8 | d[13]);
    uint8_t proto;
    if (type == 0x8100 && p->len >= 18) {
        l2 = 18;
        type = (uint16_t)(d[16] << 8 | d[17]);
    }
    if (type == 0x0800 && p->len >= l2 + 20) {
        n = l2 + (d[l2] & 0xfu) * 4u;
        proto = d[l2 + 9];
    } else if (type == 0x86dd && p->len >= l2 + 40) {
        n = l2 + 40;
        proto = d[l2 + 6];
    } else {
        return INLINE_HDR;
    }
    if (q->min_inline == MLX5_MIN_INLINE_TCP_UDP && proto == 6 && p->len >= n + 20)
        n += (uint32_t)(d[n + 12] >> 4) * 4u;
    else if (q->min_inline == MLX5_MIN_INLINE_TCP_UDP && proto == 17)
        n += 8;
    n = n < p->len ? n : p->len;
    return n > INLINE_HDR ? n : INLINE_HDR;
}

/* The header bytes an LSO WQE carries inline: L2, L3 and TCP. */
static uint32_t lso_header_len(const struct pkt *p)
{
    uint32_t l4 = p->csum_start;
    return l4 + 20u <= p->len ? l4 + (uint32_t)(p->data[l4 + 12] >> 4) * 4u : 0;
}

/* Writes p's WQE at the SQ's producer index; returns its basic blocks,
 * or 0 when it cannot be sent (counted by the caller). */
static unsigned write_wqe(struct mlx5_queue *q, const struct pkt *p, unsigned room)
{
    bool lso = (p->flags & (PKT_TX_TSO4 | PKT_TX_TSO6)) && p->tso_mss;
    uint32_t inl = lso ? lso_header_len(p) : inline_len(q, p);
    unsigned nseg = 0; /* data segments: none for an empty buffer (a byte count of 0 is not empty) */
    for (const struct pkt *e = p; e; e = e->flags & PKT_F_CHAIN ? e->next : NULL)
        nseg += e->len > (e == p ? inl : 0);
    unsigned ds = 2 + (inl - 2 + 15) / 16 + nseg;
    unsigned bbs = (ds + 3) / 4;
    if (inl < INLINE_HDR || inl > p->len || ds > MLX5_WQE_MAX_DS)
        return 0;
    if (bbs > room)
        return ~0u;
    struct seg_writer sw = {.ring = q->sq, .at = q->sq + (q->sq_pc & (SQ_SIZE - 1)) * 64};
    uint8_t *ctrl = next_seg(&sw), *eth = next_seg(&sw);
    /* Ethernet (PRM "Ethernet Segment"): checksums, the MSS, the headers inline. */
    memset(eth, 0, 16);
    if (p->flags & (PKT_TX_L4_CSUM | PKT_TX_TSO4 | PKT_TX_TSO6)) /* L3 too: LSO rewrites each segment's IPv4 header */
        eth[4] = MLX5_ETH_L4_CSUM | MLX5_ETH_L3_CSUM;
    if (lso)
        mlx5_put16(eth, 6, p->tso_mss);
    mlx5_put16(eth, 12, (uint16_t)inl);
    memcpy(eth + 14, p->data, 2);
    for (uint32_t off = 2; off < inl; off += 16) {
        uint8_t *seg = next_seg(&sw);
        uint32_t n = inl - off < 16 ? inl - off : 16;
        memcpy(seg, p->data + off, n);
    }
    /* Data pointers (PRM "Data Segment"): the rest of the first buffer, then each one chained
     * (an LSO frame's payload, or a jumbo frame as it was received: a segment a buffer). */
    for (const struct pkt *e = p; e; e = e->flags & PKT_F_CHAIN ? e->next : NULL) {
        uint32_t skip = e == p ? inl : 0;
        if (e->len == skip)
            continue;
        uint8_t *seg = next_seg(&sw);
        mlx5_put32(seg, 0, e->len - skip);
        mlx5_put32(seg, 4, q->lkey);
        mlx5_put64(seg, 8, pkt_data_phys(e) + skip);
    }
    /* Control (PRM "Control Segment"): written last, the WQE whole behind it. */
    mlx5_put32(ctrl, 0, (uint32_t)(q->sq_pc & 0xffff) << 8 | (lso ? MLX5_OPCODE_LSO : MLX5_OPCODE_SEND));
    mlx5_put32(ctrl, 4, q->sqn << 8 | sw.ds);
    mlx5_put32(ctrl, 8, 0);
    mlx5_put32(ctrl, 12, 0);
    return bbs;
}

static void count_offloads(struct mlx5_txstats *t, const struct pkt *p)
{
    if (p->flags & (PKT_TX_L4_CSUM | PKT_TX_TSO4 | PKT_TX_TSO6))
        t->csum_offload++;
    if ((p->flags & (PKT_TX_TSO4 | PKT_TX_TSO6)) && p->tso_mss) {
        uint32_t payload = pkt_frame_len(p) - lso_header_len(p);
        t->tso_frames++;
        t->tso_segments += (payload + p->tso_mss - 1) / p->tso_mss;
    }
}

uint16_t mlx5_tx_burst(struct netdev *dev, uint16_t qi, struct pkt **pkts, uint16_t n)
{
    struct mlx5 *m = to_mlx5(dev);
    struct mlx5_queue *q = m->q[qi];
    struct netdev_qstats *st = &dev->stats[qi];
    tx_reclaim(m, q, st);
    uint16_t sent = 0, posted = 0;
    uint64_t bytes = 0;
    uint8_t *last = NULL;
    while (sent < n) {
        struct pkt *p = pkts[sent];
        unsigned bbs = write_wqe(q, p, SQ_SIZE - (uint16_t)(q->sq_pc - q->sq_cc));
        if (bbs == ~0u)
            break; /* the ring is full */
        sent++;
        if (bbs == 0) { /* a runt, or more buffers than a WQE holds */
            st->tx_error++;
            q->tx.offload_bad++;
            pkt_free_frame(p);
            continue;
        }
        count_offloads(&q->tx, p);
        last = q->sq + (q->sq_pc & (SQ_SIZE - 1)) * 64;
        /* The buffers are freed when the WQE's block comes back: the first
         * block holds the frame, the rest none. */
        q->tx_slot[q->sq_pc & (SQ_SIZE - 1)] = p;
        for (unsigned b = 1; b < bbs; b++)
            q->tx_slot[(q->sq_pc + b) & (SQ_SIZE - 1)] = NULL;
        q->sq_pc = (uint16_t)(q->sq_pc + bbs);
        for (const struct pkt *e = p; e; e = e->flags & PKT_F_CHAIN ? e->next : NULL)
            bytes += e->len;
        posted++;
    }
    if (last) {
        last[11] = MLX5_WQE_CQ_UPDATE; /* the burst's last WQE reports */
        dma_wmb();
        q->dbr[MLX5_DBR_SQ] = __builtin_bswap32(q->sq_pc);
        dma_wmb();
        *q->doorbell = *(const uint64_t *)last; /* the UAR doorbell: the last WQE's first 8 bytes */
        st->tx_doorbells++;
        st->tx_batches++;
        st->tx_packets += posted;
        st->tx_bytes += bytes;
    }
    if (sent < n)
        st->tx_full += (uint64_t)(n - sent);
    return sent;
}
