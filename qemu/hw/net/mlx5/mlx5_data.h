/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/mlx5/mlx5_data.h: the data path's shared pieces (CQs, SQ
 * transmit, RQ receive) and the CQE layout (PRM "CQE Format").
 */
#ifndef HW_NET_MLX5_DATA_H
#define HW_NET_MLX5_DATA_H

#include "mlx5_int.h"

/* CQE byte offsets (64-byte CQE) */
#define CQE_RSS_HASH        0x0c
#define CQE_RSS_HASH_TYPE   0x10
#define CQE_HDS_IP_EXT      0x1c    /* bit 1 l3_ok, bit 2 l4_ok */
#define CQE_L4_L3_HDR_TYPE  0x1d    /* l4 6:4, l3 3:2 */
#define CQE_BYTE_CNT        0x2c
#define CQE_ERR_SYNDROME    0x37
#define CQE_SOP_DROP_QPN    0x38
#define CQE_WQE_COUNTER     0x3c
#define CQE_OP_OWN          0x3f    /* opcode 7:4, owner 0 */

#define CQE_OP_REQ          0x0     /* send completed */
#define CQE_OP_RESP_SEND    0x2     /* receive completed */
#define CQE_OP_REQ_ERR      0xd
#define CQE_OP_RESP_ERR     0xe

/* error CQE syndromes (PRM "Error CQE") */
#define CQE_SYND_LOCAL_LENGTH   0x01
#define CQE_SYND_LOCAL_QP_OP    0x02
#define CQE_SYND_LOCAL_PROT     0x04

Mlx5Cq *mlx5_cq(Mlx5State *s, uint32_t cqn);
bool mlx5_cq_post(Mlx5State *s, uint32_t cqn, uint8_t *cqe);
void mlx5_cq_doorbell(Mlx5State *s, uint32_t uar, uint64_t val);

void mlx5_sq_doorbell(Mlx5State *s, uint32_t uar, uint64_t ctrl);
void mlx5_tx_init(Mlx5State *s);
void mlx5_tx_uninit(Mlx5State *s);

bool mlx5_can_receive(NetClientState *nc);
ssize_t mlx5_receive(NetClientState *nc, const uint8_t *buf, size_t size);

#endif
