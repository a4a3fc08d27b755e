/* SPDX-License-Identifier: MIT */
/* drivers/intel/igb_dev.h: what the 82576 drivers share, physical
 * function (igb.c) and virtual function (igbvf.c): both use the same
 * advanced descriptors and so the same data path (igb_rxtx.c), each on
 * the ring registers of its own queues. Only drivers/intel includes it. */
#ifndef DRIVERS_INTEL_IGB_DEV_H
#define DRIVERS_INTEL_IGB_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/intel/igb.h"
#include "drivers/intel/igb_regs.h"
#include "lib/json.h"
#include "net/core/core.h"

#define IGB_RX_RING 512u /* descriptors (RDLEN: a multiple of 128 bytes) */
#define IGB_TX_RING 512u
#define IGB_RSS_MAX_PAIRS 8u
_Static_assert(IGB_RSS_MAX_PAIRS <= NETDEV_MAX_QUEUES, "queue arrays");

/* Where one device's BAR keeps what the ring code (igb_rxtx.c) and the
 * mailbox code program: a table per function kind (igb.c: the 82576 PF;
 * igbvf.c: its VF; ixgbe.c: the 82599 PF, whose queues lie elsewhere and
 * whose RX error bits moved). The advanced descriptors are the same. The
 * 82599's mailboxes: PFMAILBOX(n) 0x04B00 +
 * 4n, PFMBMEM(n) 0x13000 + 0x40n; VFMAILBOX 0x002FC, VFMBMEM 0x00200. */
struct igb_layout {
    /* Hardware queue n's RX registers start at rxq + n * q_stride (on the
     * 82599, queues 64 and up at rxq_hi + (n - 64) * q_stride when rxq_hi
     * is set), its TX ones at txq + n * q_stride; the offsets of each
     * inside such a block: */
    uint32_t rxq, rxq_hi, txq, q_stride;
    uint16_t bal, bah, len, srrctl, head, tail, dctl; /* srrctl: RX only */
    uint32_t srrctl_drop_en;                           /* SRRCTL.DROP_EN */
    uint32_t xdctl_enable, txdctl_wthresh_mask;        /* RXDCTL / TXDCTL */
    /* The RX write-back's error bits, which moved between the two (82576
     * 7.1.5.2, 82599 7.1.6.2), and the TX data descriptor's CC bit (82599
     * 7.2.3.2.4: use the context IDX names; 0 on the 82576). */
    uint32_t rxd_err_frame, rxd_err_ipe, rxd_err_l4e, txd_cc;
    /* The mailbox of VF n (a VF's own: n = 0): its control register at
     * mbx + n * mbx_stride (P2VMAILBOX on a PF, V2PMAILBOX on a VF), its
     * IGB_MBX_WORDS of memory at mbmem + n * mbmem_stride. */
    uint32_t mbx, mbx_stride, mbmem, mbmem_stride;
};

/* The 82576's queue block and its bits, PF and VF alike (igb_regs.h). */
#define IGB_82576_QUEUE_LAYOUT                                                                                         \
    .q_stride = IGB_Q_STRIDE, .bal = IGB_Q_BAL, .bah = IGB_Q_BAH, .len = IGB_Q_LEN, .srrctl = IGB_Q_SRRCTL,            \
    .head = IGB_Q_HEAD, .tail = IGB_Q_TAIL, .dctl = IGB_Q_DCTL, .srrctl_drop_en = IGB_SRRCTL_DROP_EN,                  \
    .xdctl_enable = IGB_XDCTL_ENABLE, .txdctl_wthresh_mask = IGB_XDCTL_WTHRESH_MASK,                           \
    .rxd_err_frame = IGB_RXD_ERR_RXE, .rxd_err_ipe = IGB_RXD_ERR_IPE, .rxd_err_l4e = IGB_RXD_ERR_L4E, .txd_cc = 0

static inline uint32_t igb_rxq_reg(const struct igb_layout *l, uint32_t n, uint32_t off)
{
    if (l->rxq_hi && n >= 64)
        return l->rxq_hi + (n - 64) * l->q_stride + off;
    return l->rxq + n * l->q_stride + off;
}
static inline uint32_t igb_txq_reg(const struct igb_layout *l, uint32_t n, uint32_t off)
{
    return l->txq + n * l->q_stride + off;
}
static inline uint32_t igb_mbx_reg(const struct igb_layout *l, uint32_t n) { return l->mbx + n * l->mbx_stride; }
static inline uint32_t igb_mbmem_reg(const struct igb_layout *l, uint32_t n, uint32_t word)
{
    return l->mbmem + n * l->mbmem_stride + 4 * word;
}

/* What a context slot holds (7.2.2.2), as written. */
struct igb_txctx {
    uint32_t macip;       /* vlan_macip_lens */
    uint32_t tucmd;       /* type_tucmd_mlhl, TUCMD bits only */
    uint32_t mss_l4len;   /* mss_l4len_idx without IDX; 0: no TSO */
    bool valid;
};

/* The driver's own counters, per queue (`show igb`). */
struct igb_drvstats {
    uint64_t csum_offload;   /* tx-csum-offload: non-TSO frames with TXSM */
    uint64_t csum_software;  /* tx-csum-software: finished by csum_pkt_finish */
    uint64_t tso_frames;     /* tx-tso-frames: frames with TSE */
    uint64_t tso_segments;   /* tx-tso-segments: what the device cut them into */
    uint64_t ctx_descs;      /* tx-context-descriptors: ring slots spent on contexts */
    uint64_t tx_writebacks;  /* tx-writebacks: descriptors with RS, one a burst (tx_close) */
    uint64_t offload_bad;    /* tx-offload-bad: dropped, an offload the device cannot do */
    uint64_t rx_looped;      /* rx-looped: our own broadcast back from VMDq loopback, dropped */
};

/* One queue pair; its owner's alone. */
struct igb_queue {
    volatile union igb_rx_desc *rx;
    volatile struct igb_tx_desc *tx;
    struct pkt **rx_slot; /* the buffer posted at each RX descriptor */
    struct pkt **tx_slot; /* the buffer behind each TX descriptor */
    uint16_t *tx_last;    /* at a burst's first TX descriptor: its last (RS) one (tx_close) */
    volatile uint32_t *rdt, *tdt;
    struct pkt_pool *pool;
    uint16_t rx_next;     /* next RX descriptor to complete */
    uint16_t rx_tail;     /* next to post; RDT's value */
    uint16_t rx_posted;   /* descriptors holding a buffer */
    bool rx_drop_looped;  /* VMDq loopback on: our own broadcasts come back */
    /* Jumbo frames (igb.c, an MTU over 1500): 1 KiB buffers, a frame over
     * several descriptors taken as a chain (pkt.h). Else 2 KiB, and a
     * frame over several is dropped. Read by igb_queue_start. */
    bool rx_chained;
    uint32_t rx_err_frame, rx_err_ipe, rx_err_l4e, tx_cc; /* the layout's, at hand */
    bool rx_midframe;     /* inside a frame over several descriptors: */
    struct pkt_chain rx_frame; /* ... its buffers so far; empty: being dropped */
    uint16_t tx_tail;     /* next to fill; TDT's value */
    uint16_t tx_clean;    /* oldest not reclaimed */
    uint16_t tx_used;     /* descriptors between tx_clean and tx_tail */
    uint8_t ctx_next;     /* context slot to overwrite next: the one used less recently */
    struct igb_txctx ctx[IGB_TXCTX_SLOTS];
    struct igb_drvstats ctr;
} __attribute__((aligned(64)));

/* A PF's SR-IOV counters (`show igb`). */
struct igb_sriov_stats {
    uint64_t mbx_rx;      /* vf-messages: mailbox messages from VFs */
    uint64_t mbx_refused; /* vf-refused: answered NACK (VLAN, jumbo, unicast promiscuous) */
    uint64_t mbx_lost;    /* vf-replies-lost: a VF held its mailbox too long for the reply */
    uint64_t vf_resets;   /* vf-resets: VF_RESET answered */
    uint64_t pf_resets;   /* pf-resets, a VF's: its PF reset, it started over */
};

struct igb {
    struct netdev dev;
    volatile uint8_t *regs;
    const struct igb_layout *layout; /* where regs keeps its queues and mailboxes */
    struct igb_queue *q[IGB_RSS_MAX_PAIRS];
    uint16_t pairs;
    /* A PF with VFs (igb_sriov.c) */
    uint8_t nvfs;          /* VFs enabled; the PF's pool is nvfs */
    bool promisc;          /* every unicast frame taken (netdev_promiscuous) */
    uint8_t vf_cts;        /* bit n: VF n's reset answered, its requests are taken */
    uint16_t vf_frame;     /* the longest frame a VF asked for past 1522 (SET_LPE), CRC in; 0: none */
    uint8_t vf_mac[IGB_SRIOV_MAX_VFS][6];
    struct igb_sriov_stats sriov;
    void (*serve_vfs)(struct igb *g); /* answers its VFs' mailboxes (igb_sriov.c, ixgbe_sriov.c) */
    char where[24];        /* "igb 00:03.0": messages from before the port has a name */
    uint32_t mbx_seen;     /* a VF's: V2PMAILBOX's read-to-clear bits seen, not yet taken */
};

static inline uint32_t igb_rd32(const struct igb *g, uint32_t reg) { return *(volatile const uint32_t *)(g->regs + reg); }
static inline void igb_wr32(struct igb *g, uint32_t reg, uint32_t v) { *(volatile uint32_t *)(g->regs + reg) = v; }
/* Bounded wait for (reg & mask) == want; false on timeout. */
bool igb_wait_reg(struct igb *g, uint32_t reg, uint32_t mask, uint32_t want, uint32_t timeout_us);

/* igb_rxtx.c: the data path (netdev_ops' bursts). */
uint16_t igb_rx_burst(struct netdev *dev, uint16_t qi, struct pkt **pkts, uint16_t n);
uint16_t igb_tx_burst(struct netdev *dev, uint16_t qi, struct pkt **pkts, uint16_t n);
/* RSS's key (symmetric Toeplitz) into the 10 key registers from rssrk0
 * and the 128 one-byte table entries, round-robin over the pairs, into
 * the 32 registers from reta0: the 82576 and the 82599 lay them out alike
 * at other addresses. The netdev learns both. */
void igb_rss_fill(struct igb *g, uint32_t rssrk0, uint32_t reta0);
/* The MAC address in a receive-address pair (RAL, RAH). */
void igb_read_mac(struct igb *g, uint32_t ral, uint32_t rah);
/* A queue pair's rings and slots, refilled from pool. */
struct igb_queue *igb_queue_alloc(struct pkt_pool *pool);
/* Programs and enables pair qi on the device's queue hwq (g->layout says
 * where its registers are), then posts its RX buffers. */
void igb_queue_start(struct igb *g, uint16_t qi, uint16_t hwq);
/* RX of pair qi (on hwq) stopped, every buffer it held given back, and
 * started again as igb_queue_start does (the buffer size rx_chained
 * says); TX untouched. Only while no core polls the pair. False, the
 * queue left running as it was, when it did not stop. */
bool igb_rxq_restart(struct igb *g, uint16_t qi, uint16_t hwq);
/* Every buffer the pair held back to its pool, its state as new: after
 * the device dropped the rings (a VF under a PF reset), before
 * igb_queue_start again. */
void igb_queue_drain(struct igb *g, uint16_t qi);

/* igb_cmds.c: `show igb`, the driver's own counters of every port
 * igb_show_add gave it; in igb's, igbvf's and ixgbevf's tables (IGB_CMD_SHOW). */
void igb_show_add(struct igb *g);
void igb_cmd_show(const struct cli_args *a);
/* The ring code's counters summed over queues, and as JSON (ixgbe's
 * `show ixgbe` gives them too). */
void igb_drvstats_add(struct igb_drvstats *sum, const struct igb_drvstats *s);
void igb_drvstats_json(struct json *j, const struct igb_drvstats *s);
#define IGB_CMD_SHOW                                                                                                   \
    {.words = "show igb", .usage = "show igb [json]",                                                                  \
     .help = "igb, igbvf and ixgbevf ports: TX offloads, VFs and their mailboxes", .fn = igb_cmd_show}

/* igb_sriov.c: a PF's VFs. igb_sriov_enable, once: enables up to nvfs
 * VFs (they become PCI functions for igbvf_probe) and returns how many
 * (the PF's pool and queue are then that number). After each reset:
 * igb_sriov_pools before the PF's rings, igb_sriov_ready once the PF is
 * up (VFs may talk to it). */
uint8_t igb_sriov_enable(struct igb *g, struct pci_dev *pci, uint8_t nvfs);
void igb_sriov_pools(struct igb *g);
void igb_sriov_ready(struct igb *g);
/* igb.c: the port's frame limit raised (RCTL.LPE, RLPML; never lowered:
 * a VF's frames stay welcome until the next reset) to let a VF's frames
 * of up to frame bytes, CRC in, reach its pool (SET_LPE). */
void igb_vf_frame(struct igb *g, uint16_t frame);
/* Answers the mailbox messages of every PF's VFs (each PF's serve_vfs,
 * igb's and ixgbe's): from the PF's status poll, and from a VF of this
 * kernel's waiting for an answer. igb_sriov_register (igb_mbx.c) adds a
 * PF with VFs, its serve_vfs set. */
void igb_sriov_serve(void);
void igb_sriov_register(struct igb *g);

/* igb_mbx.c: the PF-VF mailbox's register moves. The PF's end, VF n:
 * igb_pf_mbx_lock takes the buffer (false while the VF holds it);
 * igb_pf_mbx_take then reads the VF's IGB_MBX_WORDS into w and acknowledges
 * them; igb_pf_mbx_send writes a message (counted lost when the VF keeps
 * the buffer). The VF's end: igb_vf_mbx_read gives V2PMAILBOX with the
 * read-to-clear bits seen since, igb_vf_mbx_take clears one of them when
 * set; igb_vf_mbx_send waits for the PF to take the message (PFACK),
 * igb_vf_mbx_recv for the PF's message; igb_vf_mbx_call is both, in w, true
 * when the PF acknowledged it. Waits are bounded (1 s), answering this
 * kernel's own PFs meanwhile. */
bool igb_pf_mbx_lock(struct igb *g, uint32_t n);
void igb_pf_mbx_take(struct igb *g, uint32_t n, uint32_t *w);
void igb_pf_mbx_send(struct igb *g, uint32_t n, const uint32_t *w, uint32_t nw);
uint32_t igb_vf_mbx_read(struct igb *g);
bool igb_vf_mbx_take(struct igb *g, uint32_t bit);
bool igb_vf_mbx_lock(struct igb *g);
bool igb_vf_mbx_send(struct igb *g, const uint32_t *w, uint32_t n);
bool igb_vf_mbx_recv(struct igb *g, uint32_t *w, uint32_t n);
bool igb_vf_mbx_call(struct igb *g, uint32_t *w, uint32_t nsend, uint32_t nrecv);
/* A VF's handshake after its own reset (its CTRL.RST): waits (bounded)
 * for the PF to be up (RSTI clear), asks VF_RESET, takes the nrecv-word
 * reply into w and the MAC the PF assigned (ACK); with none (NACK) offers
 * its own (kept from before, else random) with SET_MAC, as Linux's igbvf
 * and ixgbevf do. False, and logged, when the PF does not answer. */
bool igb_vf_hello(struct igb *g, uint32_t *w, uint32_t nrecv);
/* A VF port's start, igbvf's and ixgbevf's: igb_vf_alloc gives size bytes
 * (a struct whose first member is the struct igb) with BAR0 mapped on
 * layout l, the function enabled and one queue pair refilled from pool
 * (NULL: no BAR); igb_vf_netdev, once the VF answered, makes it a netdev
 * of one pair with the offloads the queue does, and polls its status once. */
void *igb_vf_alloc(struct pci_dev *pci, size_t size, const char *kind, const struct igb_layout *l,
                   struct pkt_pool *pool);
void igb_vf_netdev(struct igb *g, const char *driver, const struct netdev_ops *ops);
/* The VF's frame size asked of the PF (SET_LPE) for its MTU: 1522 bytes
 * at 1500, MTU + 14 + 8 + 4 past it (two tags, netdev.h; the CRC); false
 * when the PF refused. igb_vf_set_mtu (netdev set_mtu, core 0, before the
 * loops): that asked, then queue 0 restarted with the buffers the MTU
 * needs (1 KiB ones chained over 1500: igb_rxtx.c); false, the MTU as it
 * was, when the PF refused. A VF's start sets rx_chained from dev.mtu. */
bool igb_vf_ask_frame(struct igb *g);
bool igb_vf_set_mtu(struct netdev *dev, uint16_t mtu);
/* A VF takes only the frames its PF sorts to it by MAC: no unicast
 * promiscuous mode (the 82599 PF has none to grant, 7.10.3.3). */
static inline bool igb_vf_promiscuous(struct netdev *dev) { (void)dev; return false; }

#endif
