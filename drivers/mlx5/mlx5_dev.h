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
    uint8_t in[MLX5_CMD_MAX], out[MLX5_CMD_MAX]; /* a command's input and reply */
    uint64_t cmds, cmd_failed, cmd_timeouts;
    struct mlx5_cmd_error last_error;
    /* The firmware's pages (PRM "Firmware Pages"): given and taken back. */
    uint64_t *page_free; /* physical addresses of pages the driver holds for it */
    uint32_t pages_free, pages_cap;
    uint64_t pages_boot, pages_init, pages_given, pages_taken, page_requests;
    /* What the device said. */
    uint16_t fw_major, fw_minor, fw_sub, cmdif_rev;
    uint8_t issi;
    uint8_t port_type, log_max_wq_sz, log_max_rqt_size, cqe_version, max_lso_log;
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
    uint16_t vport_mtu;
    uint8_t vport_state;  /* QUERY_VPORT_STATE: oper 3:0 */
    uint8_t health_synd;
};

/* mlx5_cmd.c */
bool mlx5_cmd_init(struct mlx5 *m);
/* Runs the command at m->in (inlen bytes); the reply's outlen bytes land
 * in m->out. 0 when delivered and answered ok; else -1, reported with the
 * opcode's name, the status and the syndrome, and kept in last_error. */
int mlx5_cmd(struct mlx5 *m, size_t inlen, size_t outlen);
void mlx5_log(const struct mlx5 *m, const char *fmt, ...);

/* mlx5.c: the firmware's events (page requests, port changes), served from the status poll. */
void mlx5_poll_events(struct mlx5 *m);

/* mlx5_cmds.c: `show mlx5 [json]`. */
extern const struct nic_driver_cmd mlx5_cmds[];
extern const int mlx5_ncmds;

#endif
