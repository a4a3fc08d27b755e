/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/mlx5/mlx5_cmd.h: what a command handler sees (one command's
 * input and output buffers, PRM "Command Input/Output Header") and the
 * syndromes this model returns with a failing status. The PRM leaves
 * syndrome values to the firmware; these are the model's own.
 */
#ifndef HW_NET_MLX5_CMD_H
#define HW_NET_MLX5_CMD_H

#include "mlx5_int.h"

struct Mlx5Cmd {
    uint16_t opcode, op_mod;
    const uint8_t *in;
    uint32_t in_len;
    uint8_t *out;
    uint32_t out_len;
    uint32_t syndrome;
};

typedef enum { NEED_ANY, NEED_ENABLED, NEED_PRE_INIT, NEED_INIT } Mlx5Need;

typedef struct Mlx5CmdDesc {
    uint16_t opcode;
    const char *name;
    Mlx5Need need;
    int (*fn)(Mlx5State *s, Mlx5Cmd *c);
} Mlx5CmdDesc;

/* syndromes: 0x6d35 ("m5") then the rule */
#define SYND_OPCODE     0x6d350001  /* opcode not supported */
#define SYND_STATE      0x6d350002  /* command before its prerequisite */
#define SYND_PAGES      0x6d350003  /* INIT_HCA before boot + init pages */
#define SYND_PARAM      0x6d350004  /* field out of range */
#define SYND_LENGTH     0x6d350005  /* input/output shorter than needed */
#define SYND_LIMIT      0x6d350006  /* out of objects/pages */
#define SYND_RESOURCE   0x6d350007  /* object number that does not exist */
#define SYND_NO_REPLY   0x6d350008  /* op_mod/register not modelled */
#define SYND_CQ_SIZE    0x6d350009  /* CQ smaller than its queue needs */
#define SYND_BAD_STATE  0x6d35000a  /* object in the wrong state */
#define SYND_VF_PORT    0x6d35000b  /* a VF: no port register (BAD_OP) */
#define SYND_VF_PROMISC 0x6d35000c  /* untrusted VF: no promisc (BAD_PARAM) */

int cmd_fail(Mlx5State *s, Mlx5Cmd *c, uint32_t *counter, int status,
             uint32_t syndrome, const char *fmt, ...) G_GNUC_PRINTF(6, 7);

/* mlx5_reg.c */
int mlx5_access_reg(Mlx5State *s, Mlx5Cmd *c);

/* mlx5_vf.c */
int mlx5_vf_access_reg(Mlx5State *s, Mlx5Cmd *c);
int mlx5_vf_promisc(Mlx5State *s, Mlx5Cmd *c, uint8_t bits);
int mlx5_vport_set_list(Mlx5State *s, Mlx5Cmd *c, const uint8_t *v);
void mlx5_vport_get_list(Mlx5State *s, Mlx5Cmd *c, uint8_t *v);

/* mlx5_obj.c */
extern const Mlx5CmdDesc mlx5_object_cmds[];

#endif
