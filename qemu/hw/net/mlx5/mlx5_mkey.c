/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/mlx5/mlx5_mkey.c: memory keys (PRM "Memory Key Context",
 * "CREATE_MKEY", "DESTROY_MKEY") in physical-address mode, and the check
 * a data segment's lkey passes (PRM "Data Segment").
 */
#include "qemu/osdep.h"
#include "mlx5_int.h"
#include "mlx5_cmd.h"
#include "mlx5_steer.h"

#define OBJ(c, off)     (be32((c)->in + (off)) & 0xffffff)

/* PRM "CREATE_MKEY": the mkey context at 0x10 (access_mode_1_0 9:8 and
 * access_mode_4_2 28:26 of dword 0: 0 is PA, physical addresses; mkey_7_0
 * 7:0 of dword 1; length64 bit 31 and pd 23:0 of dword 3; start_addr
 * 0x10, len 0x18). Only PA keys: MTT/KLM translation is not modelled.
 * mkey_index at output 0x08; the key is index << 8 | mkey_7_0 */
int mlx5_create_mkey(Mlx5State *s, Mlx5Cmd *c)
{
    const uint8_t *m = c->in + 0x10;
    uint32_t d0 = be32(m), mode = ((d0 >> 8) & 3) | ((d0 >> 26) & 7) << 2;
    uint32_t pd = be32(m + 0x0c) & 0xffffff;
    int i = mlx5_obj_free_slot(&s->mkey[0].valid, sizeof(Mlx5Mkey));

    if (mode != 0) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_PARAM,
                        "CREATE_MKEY access mode %u: only PA (0) modelled",
                        mode);
    }
    if (mlx5_obj_slot(pd, PD_BASE, s->pd, sizeof(bool)) < 0) {
        return mlx5_no_object(s, c, "PD", pd);
    }
    if (i < 0) {
        return mlx5_out_of(s, c, "mkeys");
    }
    s->mkey[i] = (Mlx5Mkey) {
        .valid = true, .length64 = m[0x0c] >> 7, .pd = pd,
        .key = (MKEY_BASE + i) << 8 | m[7],
        .start = be64(m + 0x10), .len = be64(m + 0x18),
    };
    stl_be_p(c->out + 0x08, MKEY_BASE + i);
    return ST_OK;
}

/* PRM "DESTROY_MKEY": mkey_index 23:0 at 0x08 */
int mlx5_destroy_mkey(Mlx5State *s, Mlx5Cmd *c)
{
    int i = mlx5_obj_slot(OBJ(c, 0x08), MKEY_BASE, &s->mkey[0].valid,
                          sizeof(Mlx5Mkey));

    if (i < 0) {
        return mlx5_no_object(s, c, "mkey", OBJ(c, 0x08));
    }
    s->mkey[i].valid = false;
    return ST_OK;
}

/* a data segment's key: the reserved lkey, or a PA mkey covering the
 * range (addresses are physical either way) */
bool mlx5_lkey_ok(Mlx5State *s, uint32_t lkey, uint64_t addr, uint32_t len)
{
    int i = (int)(lkey >> 8) - MKEY_BASE;
    const Mlx5Mkey *k = i >= 0 && i < MAX_OBJ ? &s->mkey[i] : NULL;

    if (lkey == RESERVED_LKEY) {
        return true;
    }
    if (!k || !k->valid || k->key != lkey) {
        return false;
    }
    return k->length64 ||
           (addr >= k->start && addr + len <= k->start + k->len);
}

