/* SPDX-License-Identifier: MIT */
/* drivers/mlx5/mlx5_dev.h: the mlx5 driver's own state, shared by its
 * files (mlx5.c bring-up, mlx5_cmd.c the command queue, mlx5_cmds.c the
 * console). */
#ifndef DRIVERS_MLX5_DEV_H
#define DRIVERS_MLX5_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/driver.h"
#include "drivers/mlx5/mlx5_enc.h"

#define MLX5_MB_BLOCKS 16 /* a direction's mailboxes: 8 KB of command beyond the inline 16 bytes */
#define MLX5_CMD_MAX (MLX5_INLINE_LEN + MLX5_MB_BLOCKS * MLX5_MB_DATA)
#define MLX5_EQ_LOG_SIZE 6  /* 64 events of 64 bytes: one page */

#define MLX5_MAX_PAIRS 8
#define MLX5_CQE_SYNDROMES 0x30 /* completion error syndromes counted by value */
#define MLX5_MAC_ENTRIES 14     /* the root flow table's MAC entries (mlx5_steer.c) */

/* A doorbell-record line (PRM "Doorbell Record"): the RQ's receive counter
 * at word 0, the SQ's record at words 2-3 (its send counter at 3), each
 * CQ's consumer counter (and arm word) at 4-5 and 6-7. */
enum { MLX5_DBR_RQ = 0, MLX5_DBR_SQ_REC = 2, MLX5_DBR_SQ = 3, MLX5_DBR_RCQ = 4, MLX5_DBR_SCQ = 6 };

struct mlx5_cq {
    uint8_t *cqe;
    volatile uint32_t *dbr;
    uint32_t num, cc;
    uint8_t log;     /* 2^log CQEs */
};

/* The send path's offload counters, named as igb's and ixgbe's in the canary. */
struct mlx5_txstats {
    uint64_t csum_offload;  /* tx-csum-offload: frames whose checksums the device fills */
    uint64_t tso_frames;    /* tx-tso-frames: LSO WQEs */
    uint64_t tso_segments;  /* tx-tso-segments: what the device cuts them into */
    uint64_t offload_bad;   /* tx-offload-bad: dropped, no WQE can carry them */
};

/* One queue pair; its core's alone. */
struct mlx5_queue {
    uint8_t *rq, *sq;           /* the work queues */
    struct pkt **rx_slot, **tx_slot;
    volatile uint32_t *dbr;     /* the doorbell records (MLX5_DBR_*) */
    volatile uint64_t *doorbell; /* this pair's UAR doorbell register */
    struct mlx5_cq rcq, scq;
    struct pkt_pool *pool;
    uint32_t rqn, sqn, uar, lkey;
    uint8_t min_inline;         /* MLX5_MIN_INLINE_*: headers each send WQE inlines */
    /* The RQ: 2^rq_log_stride bytes a WQE (16: one data segment; more: a
     * scatter list for jumbo frames, rx_segs segments of it posted), as
     * many WQEs as fill its ring. rx_slot has a buffer a 16-byte segment. */
    uint8_t rq_log_stride, rx_segs;
    uint32_t rq_wqes;
    uint32_t rq_pc, rq_cc, rcq_seen; /* posted, completed; the CQ counter last handed back */
    uint16_t sq_pc, sq_cc;      /* WQEs posted, completed */
    struct mlx5_txstats tx;
};

/* What failed last, for the canary. */
struct mlx5_cmd_error {
    uint16_t opcode;
    uint8_t delivery, status; /* delivery 0 and status 0: a timeout when timed_out */
    bool timed_out;
    uint32_t syndrome;
};

struct mlx5 {
    struct netdev dev;
    struct pci_dev *pci;
    volatile uint8_t *bar;
    char where[24];        /* "mlx5 01:00.0": messages before the port has a name */
    const char *model;     /* "ConnectX-4", ... */
    bool vf;
    /* The command queue (mlx5_cmd.c): entry 0 of the device's queue, used
     * one command at a time, its mailbox chains built once. */
    uint8_t *cmdq;
    uint8_t *mb_in[MLX5_MB_BLOCKS], *mb_out[MLX5_MB_BLOCKS];
    uint8_t token;
    bool cmd_dead;         /* a command timed out: the entry is the device's, none may follow */
    uint8_t in[MLX5_CMD_MAX], out[MLX5_CMD_MAX]; /* a command's input and reply */
    uint64_t cmds, cmd_failed, cmd_timeouts;
    struct mlx5_cmd_error last_error;
    /* The firmware's pages (PRM "Firmware Pages"): given and taken back. */
    uint64_t *page_free; /* physical addresses of pages the driver holds for it */
    uint64_t *page_given; /* ... and of those the firmware has: back to page_free at a reset */
    uint32_t pages_free, pages_out, pages_cap;
    uint64_t pages_foreign; /* returned by the firmware, never given: not kept */
    uint64_t pages_boot, pages_init, pages_given, pages_taken, page_requests;
    /* What the device said. */
    uint16_t fw_major, fw_minor, fw_sub, cmdif_rev;
    uint8_t issi;
    uint8_t port_type, log_max_wq_sz, log_max_rqt_size, cqe_version, max_lso_log;
    uint16_t max_rq_wqe;    /* max_wqe_sz_rq: a receive WQE's most bytes (its scatter list) */
    uint8_t min_inline;     /* MLX5_MIN_INLINE_*: headers a send WQE must carry inline */
    bool inline_from_vport; /* wqe_inline_mode said: ask the vport context */
    bool csum_cap;
    uint32_t eth_caps; /* the Ethernet offload capabilities' first dword */
    char psid[17];
    /* Objects. */
    uint32_t uar, pd, td, resd_lkey;
    volatile uint8_t *uar_page;
    uint8_t eqn;
    uint8_t *eq;          /* 2^MLX5_EQ_LOG_SIZE entries */
    uint32_t eq_cc;       /* consumer counter */
    uint64_t events, port_events;
    /* Queues and steering (mlx5_rxtx.c, mlx5_steer.c). */
    struct mlx5_queue *q[MLX5_MAX_PAIRS];
    uint32_t tisn, rqtn, tir[7], table[2];
    uint32_t group_mac, group_any, mac_entries;
    uint8_t table_mac[MLX5_MAC_ENTRIES][6]; /* the root table's MACs, in entry order */
    uint8_t joined[8][6];  /* the groups the stack joined, again after a reset */
    uint8_t njoined;
    bool promisc;
    uint64_t resets;
    uint64_t cqe_errors[MLX5_CQE_SYNDROMES]; /* by syndrome (PRM "Completion Error Syndromes") */
    uint16_t mtu;         /* the IP MTU the port's PMTU, vport and receive WQEs are set for */
    uint16_t vport_mtu;
    uint8_t vport_state;  /* QUERY_VPORT_STATE: oper 3:0 */
    uint16_t port_max_mtu;          /* PMTU: the largest frame */
    uint32_t eth_proto_cap, eth_proto_oper, speed_mbps; /* PTYS */
    uint8_t health_synd;
};

/* mlx5_cmd.c */
bool mlx5_cmd_init(struct mlx5 *m);
/* Runs the command at m->in (inlen bytes); the reply's outlen bytes land
 * in m->out. 0 when delivered and answered ok; else -1, reported with the
 * opcode's name, the status and the syndrome, and kept in last_error. */
int mlx5_cmd(struct mlx5 *m, size_t inlen, size_t outlen);
/* A command that makes an object (ALLOC_*, CREATE_*): its number, 23:0 of the reply's 0x08. */
int mlx5_cmd_object(struct mlx5 *m, size_t inlen, uint32_t *num);
void mlx5_log(const struct mlx5 *m, const char *fmt, ...);

/* mlx5.c: the firmware's events (page requests, port changes), served from the status poll. */
void mlx5_poll_events(struct mlx5 *m);

/* mlx5_port.c: the port's MTU and admin state (a PF's), its speed. */
bool mlx5_port_setup(struct mlx5 *m, uint16_t mtu);
bool mlx5_port_mtu(struct mlx5 *m, uint16_t mtu);
uint16_t mlx5_max_mtu(const struct mlx5 *m); /* the largest IP MTU the port (a VF: its vport) takes */
void mlx5_port_speed(struct mlx5 *m);

/* mlx5_rxtx.c: queue pair qi's objects, RX posted; the data path. */
bool mlx5_queue_create(struct mlx5 *m, uint16_t qi, struct pkt_pool *pool); /* its RQ's WQEs for m->mtu */
unsigned mlx5_rx_segs(uint16_t mtu);       /* receive buffers (data segments) a frame of that MTU takes */
unsigned mlx5_rq_log_stride(uint16_t mtu); /* ... the receive WQE's bytes, log2 */
void mlx5_queue_drain(struct mlx5 *m, uint16_t qi);
uint16_t mlx5_rx_burst(struct netdev *dev, uint16_t qi, struct pkt **pkts, uint16_t n);
uint16_t mlx5_tx_burst(struct netdev *dev, uint16_t qi, struct pkt **pkts, uint16_t n);

/* mlx5_steer.c: the TIS, the RQT over the pairs, the TIRs and the flow
 * tables that lead frames for the port's addresses to them. */
bool mlx5_create_tis(struct mlx5 *m);   /* before the SQs */
bool mlx5_steer_rx(struct mlx5 *m);     /* the rest, once the RQs exist */
int mlx5_limit_queues(struct netdev *dev, uint16_t n);
void mlx5_join_group(struct netdev *dev, const uint8_t mac[6]);
bool mlx5_promiscuous(struct netdev *dev);

/* mlx5_cmds.c: `show mlx5 [json]`. */
void mlx5_show_add(struct mlx5 *m);
uint64_t mlx5_cqe_errors(const struct mlx5 *m); /* completion errors, every syndrome */
void mlx5_cmd_show(const struct cli_args *a);

#endif
