/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/mlx5/mlx5_steer.h: receive steering and the object helpers
 * and command handlers the command files share.
 */
#ifndef HW_NET_MLX5_STEER_H
#define HW_NET_MLX5_STEER_H

#include "mlx5_int.h"
#include "mlx5_cmd.h"

int mlx5_obj_slot(uint32_t num, uint32_t base, const bool *valid,
                  size_t stride);
int mlx5_obj_free_slot(const bool *valid, size_t stride);
int mlx5_no_object(Mlx5State *s, Mlx5Cmd *c, const char *kind, uint32_t n);
int mlx5_out_of(Mlx5State *s, Mlx5Cmd *c, const char *kind);

extern const Mlx5CmdDesc mlx5_steer_cmds[];
int mlx5_create_mkey(Mlx5State *s, Mlx5Cmd *c);
int mlx5_destroy_mkey(Mlx5State *s, Mlx5Cmd *c);
int mlx5_alloc_q_counter(Mlx5State *s, Mlx5Cmd *c);
int mlx5_dealloc_q_counter(Mlx5State *s, Mlx5Cmd *c);
int mlx5_query_q_counter(Mlx5State *s, Mlx5Cmd *c);
uint32_t mlx5_toeplitz(const uint8_t *key, size_t klen, const uint8_t *in,
                       size_t n);
int mlx5_steer_tir(Mlx5State *s, const uint8_t *hdr);

#endif
