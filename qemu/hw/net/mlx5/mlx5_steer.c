/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/mlx5/mlx5_steer.c: receive steering (PRM "Transport Interface
 * Receive (TIR)", "RQ Table (RQT)", "Flow Table", "Flow Group", "Flow Table
 * Entry", "Toeplitz Hash"): the commands that build it and the lookup a
 * received frame takes: root flow table -> entry -> TIR -> (RQT by hash)
 * -> RQ.
 */
#include "qemu/osdep.h"
#include "mlx5_int.h"
#include "mlx5_cmd.h"
#include "mlx5_steer.h"

#define OBJ(c, off)     (be32((c)->in + (off)) & 0xffffff)
#define FT_NIC_RX       0

/* PRM "CREATE_TIR": tirc at 0x20: disp_type 31:28 of dword 1, inline_rqn
 * 23:0 at 0x1c, indirect_table 23:0 at 0x20, rx_hash_fn 31:28 and
 * transport_domain 23:0 at 0x24, rx_hash_toeplitz_key at 0x28 (40 bytes),
 * rx_hash_field_selector_outer at 0x50; tirn at output 0x08 */
static int cmd_create_tir(Mlx5State *s, Mlx5Cmd *c)
{
    const uint8_t *t = c->in + 0x20;
    Mlx5Tir tir = { .valid = true };
    int i = mlx5_obj_free_slot(&s->tir[0].valid, sizeof(Mlx5Tir));

    if (c->in_len < 0x20 + 0x58) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_IN_LEN,
                        SYND_LENGTH, "CREATE_TIR input %u", c->in_len);
    }
    tir.disp_type = t[4] >> 4;
    tir.inline_rqn = be32(t + 0x1c) & 0xffffff;
    tir.rqtn = be32(t + 0x20) & 0xffffff;
    tir.hash_fn = t[0x24] >> 4;
    tir.td = be32(t + 0x24) & 0xffffff;
    memcpy(tir.key, t + 0x28, sizeof(tir.key));
    tir.sel_outer = be32(t + 0x50);
    if (mlx5_obj_slot(tir.td, TD_BASE, s->td, sizeof(bool)) < 0) {
        return mlx5_no_object(s, c, "transport domain", tir.td);
    }
    if (tir.disp_type == 0) {
        if (mlx5_obj_slot(tir.inline_rqn, RQ_BASE, &s->rq[0].valid,
                          sizeof(Mlx5Rq)) < 0) {
            return mlx5_no_object(s, c, "RQ", tir.inline_rqn);
        }
    } else if (tir.disp_type == 1) {
        if (mlx5_obj_slot(tir.rqtn, RQT_BASE, &s->rqt[0].valid,
                          sizeof(Mlx5Rqt)) < 0) {
            return mlx5_no_object(s, c, "RQT", tir.rqtn);
        }
        if (tir.hash_fn > 2) {
            return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM,
                            SYND_PARAM, "CREATE_TIR rx_hash_fn %u: 0 (none), "
                            "1 (inverted XOR8), 2 (Toeplitz)", tir.hash_fn);
        }
    } else {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_PARAM,
                        "CREATE_TIR disp_type %u", tir.disp_type);
    }
    if (i < 0) {
        return mlx5_out_of(s, c, "TIRs");
    }
    s->tir[i] = tir;
    stl_be_p(c->out + 0x08, TIR_BASE + i);
    return ST_OK;
}

/* PRM "CREATE_RQT": rqtc at 0x20, rqt_max_size 15:0 at 0x14,
 * rqt_actual_size 15:0 at 0x18, rq_num[] from 0xf0 */
static int cmd_create_rqt(Mlx5State *s, Mlx5Cmd *c)
{
    const uint8_t *t = c->in + 0x20;
    uint32_t n = be32(t + 0x18) & 0xffff, max = be32(t + 0x14) & 0xffff;
    int i = mlx5_obj_free_slot(&s->rqt[0].valid, sizeof(Mlx5Rqt));

    if (!n || n > max || n > MAX_RQT_SIZE) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_PARAM,
                        "CREATE_RQT actual size %u, max %u (model %u)", n,
                        max, MAX_RQT_SIZE);
    }
    if (c->in_len < 0x20 + 0xf0 + 4 * n) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_IN_LEN,
                        SYND_LENGTH, "CREATE_RQT of %u in %u bytes", n,
                        c->in_len);
    }
    if (i < 0) {
        return mlx5_out_of(s, c, "RQTs");
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t rqn = be32(t + 0xf0 + 4 * k) & 0xffffff;
        if (mlx5_obj_slot(rqn, RQ_BASE, &s->rq[0].valid, sizeof(Mlx5Rq)) < 0) {
            return mlx5_no_object(s, c, "RQ", rqn);
        }
        s->rqt[i].rqn[k] = rqn;
    }
    s->rqt[i].size = n;
    s->rqt[i].valid = true;
    stl_be_p(c->out + 0x08, RQT_BASE + i);
    return ST_OK;
}

/* PRM "MODIFY_TIR": tirn 23:0 at 0x08, modify_bitmask at 0x10 (bit 2:
 * the hash fields; lro and self_lb_en, bits 0 and 4, not modelled), the
 * context at 0x20 */
static int cmd_modify_tir(Mlx5State *s, Mlx5Cmd *c)
{
    const uint8_t *t = c->in + 0x20;
    int i = mlx5_obj_slot(OBJ(c, 0x08), TIR_BASE, &s->tir[0].valid,
                          sizeof(Mlx5Tir));

    if (i < 0) {
        return mlx5_no_object(s, c, "TIR", OBJ(c, 0x08));
    }
    if (be64(c->in + 0x10) & 4) {
        if ((t[0x24] >> 4) > 2) {
            return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM,
                            SYND_PARAM, "MODIFY_TIR rx_hash_fn %u",
                            t[0x24] >> 4);
        }
        s->tir[i].hash_fn = t[0x24] >> 4;
        memcpy(s->tir[i].key, t + 0x28, sizeof(s->tir[i].key));
        s->tir[i].sel_outer = be32(t + 0x50);
    }
    return ST_OK;
}

/* PRM "MODIFY_RQT": rqtn 23:0 at 0x08, modify_bitmask at 0x10 (bit 0: the
 * RQ list), the context at 0x20 as CREATE_RQT's */
static int cmd_modify_rqt(Mlx5State *s, Mlx5Cmd *c)
{
    const uint8_t *t = c->in + 0x20;
    uint32_t n = be32(t + 0x18) & 0xffff, rqn[MAX_RQT_SIZE];
    int i = mlx5_obj_slot(OBJ(c, 0x08), RQT_BASE, &s->rqt[0].valid,
                          sizeof(Mlx5Rqt));

    if (i < 0) {
        return mlx5_no_object(s, c, "RQT", OBJ(c, 0x08));
    }
    if (!(be64(c->in + 0x10) & 1)) {
        return ST_OK;
    }
    if (!n || n > MAX_RQT_SIZE || c->in_len < 0x20 + 0xf0 + 4 * n) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_PARAM,
                        "MODIFY_RQT of %u RQs in %u bytes", n, c->in_len);
    }
    for (uint32_t k = 0; k < n; k++) {
        rqn[k] = be32(t + 0xf0 + 4 * k) & 0xffffff;
        if (mlx5_obj_slot(rqn[k], RQ_BASE, &s->rq[0].valid,
                          sizeof(Mlx5Rq)) < 0) {
            return mlx5_no_object(s, c, "RQ", rqn[k]);
        }
    }
    memcpy(s->rqt[i].rqn, rqn, n * sizeof(rqn[0]));
    s->rqt[i].size = n;
    return ST_OK;
}

static int destroy(Mlx5State *s, Mlx5Cmd *c, bool *valid, size_t stride,
                   uint32_t base, const char *kind)
{
    int i = mlx5_obj_slot(OBJ(c, 0x08), base, valid, stride);

    if (i < 0) {
        return mlx5_no_object(s, c, kind, OBJ(c, 0x08));
    }
    *(bool *)((char *)valid + i * stride) = false;
    return ST_OK;
}

static int cmd_destroy_tir(Mlx5State *s, Mlx5Cmd *c)
{
    return destroy(s, c, &s->tir[0].valid, sizeof(Mlx5Tir), TIR_BASE, "TIR");
}

static int cmd_destroy_rqt(Mlx5State *s, Mlx5Cmd *c)
{
    return destroy(s, c, &s->rqt[0].valid, sizeof(Mlx5Rqt), RQT_BASE, "RQT");
}

/* flow commands: table_type 31:24 at 0x10 (0: NIC receive), table_id
 * 23:0 at 0x14 */
static int flow_table_of(Mlx5State *s, Mlx5Cmd *c, int *ft)
{
    uint32_t id = OBJ(c, 0x14);

    if (c->in[0x10] != FT_NIC_RX || c->in[0x08] & 0x80) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_PARAM,
                        "flow table type %u other_vport %u: NIC receive "
                        "tables of this vport modelled", c->in[0x10],
                        c->in[0x08] >> 7);
    }
    *ft = mlx5_obj_slot(id, FT_BASE, &s->ft[0].valid, sizeof(Mlx5Ft));
    return *ft < 0 ? mlx5_no_object(s, c, "flow table", id) : ST_OK;
}

/* PRM "CREATE_FLOW_TABLE": the context at 0x18: table_miss_action 27:24
 * (1: a miss goes on to table_miss_id), level 23:16, log_size 7:0;
 * table_miss_id 23:0 at 0x1c */
static int cmd_create_flow_table(Mlx5State *s, Mlx5Cmd *c)
{
    int i = mlx5_obj_free_slot(&s->ft[0].valid, sizeof(Mlx5Ft));
    uint8_t miss = c->in[0x18] & 0xf;   /* table_miss_action 27:24 */
    uint32_t miss_id = be32(c->in + 0x1c) & 0xffffff;

    if (c->in[0x10] != FT_NIC_RX || c->in[0x1b] > 16) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_PARAM,
                        "CREATE_FLOW_TABLE type %u log_size %u", c->in[0x10],
                        c->in[0x1b]);
    }
    if (miss > 1 || (miss == 1 && mlx5_obj_slot(miss_id, FT_BASE,
                                                &s->ft[0].valid,
                                                sizeof(Mlx5Ft)) < 0)) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_PARAM,
                        "CREATE_FLOW_TABLE table_miss_action %u to %#x",
                        miss, miss_id);
    }
    if (i < 0) {
        return mlx5_out_of(s, c, "flow tables");
    }
    s->ft[i] = (Mlx5Ft) { .valid = true, .type = c->in[0x10],
                          .level = c->in[0x19], .log_size = c->in[0x1b],
                          .miss_action = miss, .miss_id = miss_id };
    stl_be_p(c->out + 0x08, FT_BASE + i);
    return ST_OK;
}

static int cmd_destroy_flow_table(Mlx5State *s, Mlx5Cmd *c)
{
    int ft, st = flow_table_of(s, c, &ft);

    if (st != ST_OK) {
        return st;
    }
    s->ft[ft].valid = false;
    if (s->root_ft == ft) {
        s->root_ft = -1;
    }
    return ST_OK;
}

/* PRM "CREATE_FLOW_GROUP": start_flow_index 0x1c, end_flow_index 0x24,
 * match_criteria_enable 7:0 at 0x3c, match_criteria at 0x40 (outer
 * headers first, 64 bytes) */
static int cmd_create_flow_group(Mlx5State *s, Mlx5Cmd *c)
{
    int ft, st = flow_table_of(s, c, &ft);
    int i = mlx5_obj_free_slot(&s->fg[0].valid, sizeof(Mlx5Fg));
    uint32_t start = be32(c->in + 0x1c), end = be32(c->in + 0x24);

    if (st != ST_OK) {
        return st;
    }
    if (c->in_len < 0x40 + 0x40 || start > end ||
        end >= (1u << s->ft[ft].log_size)) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_PARAM,
                        "CREATE_FLOW_GROUP %u..%u in a table of %u", start,
                        end, 1u << s->ft[ft].log_size);
    }
    if (c->in[0x3f] & ~1) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_PARAM,
                        "match_criteria_enable %#x: outer headers (1) "
                        "modelled", c->in[0x3f]);
    }
    if (i < 0) {
        return mlx5_out_of(s, c, "flow groups");
    }
    s->fg[i] = (Mlx5Fg) { .valid = true, .ft = ft, .start = start,
                          .end = end, .enable = c->in[0x3f] };
    memcpy(s->fg[i].mask, c->in + 0x40, sizeof(s->fg[i].mask));
    stl_be_p(c->out + 0x08, FG_BASE + i);
    return ST_OK;
}

static int cmd_destroy_flow_group(Mlx5State *s, Mlx5Cmd *c)
{
    uint32_t id = be32(c->in + 0x18) & 0xffffff;
    int i = mlx5_obj_slot(id, FG_BASE, &s->fg[0].valid, sizeof(Mlx5Fg));

    if (i < 0) {
        return mlx5_no_object(s, c, "flow group", id);
    }
    s->fg[i].valid = false;
    return ST_OK;
}

/* PRM "SET_FLOW_TABLE_ENTRY": flow_index at 0x20, flow_context at 0x40:
 * group_id 0x44, action 15:0 at 0x4c (4: forward), destination_list_size
 * 23:0 at 0x50, match_value at 0x80, destinations at 0x340 (type 31:24,
 * id 23:0; 1 flow table, 2 TIR) */
static int cmd_set_fte(Mlx5State *s, Mlx5Cmd *c)
{
    int ft, st = flow_table_of(s, c, &ft), g, slot = -1;
    uint32_t idx = be32(c->in + 0x20), gid = be32(c->in + 0x44);
    Mlx5Fte e = { .valid = true, .index = idx, .group = gid };

    if (st != ST_OK) {
        return st;
    }
    e.ft = ft;
    e.action = be16(c->in + 0x4e);
    g = mlx5_obj_slot(gid, FG_BASE, &s->fg[0].valid, sizeof(Mlx5Fg));
    if (g < 0 || s->fg[g].ft != ft) {
        return mlx5_no_object(s, c, "flow group of this table", gid);
    }
    if (idx < s->fg[g].start || idx > s->fg[g].end) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_PARAM,
                        "flow_index %u outside group %#x (%u..%u)", idx, gid,
                        s->fg[g].start, s->fg[g].end);
    }
    if (e.action & 4) {
        if ((be32(c->in + 0x50) & 0xffffff) != 1 || c->in_len < 0x348) {
            return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM,
                            SYND_PARAM, "forward with %u destinations: one "
                            "modelled", be32(c->in + 0x50) & 0xffffff);
        }
        e.dest_type = c->in[0x340];
        e.dest_id = be32(c->in + 0x340) & 0xffffff;
        if (e.dest_type == 2 ?
            mlx5_obj_slot(e.dest_id, TIR_BASE, &s->tir[0].valid,
                          sizeof(Mlx5Tir)) < 0 :
            e.dest_type == 1 ?
            mlx5_obj_slot(e.dest_id, FT_BASE, &s->ft[0].valid,
                          sizeof(Mlx5Ft)) < 0 : true) {
            return mlx5_no_object(s, c, "destination", c->in[0x340] << 24 |
                                  e.dest_id);
        }
    }
    memcpy(e.value, c->in + 0x80, sizeof(e.value));
    for (int i = 0; i < FTE_MAX; i++) {
        if (s->fte[i].valid && s->fte[i].ft == ft && s->fte[i].index == idx) {
            slot = i;       /* rewriting an entry replaces it */
            break;
        }
        if (!s->fte[i].valid && slot < 0) {
            slot = i;
        }
    }
    if (slot < 0) {
        return mlx5_out_of(s, c, "flow entries");
    }
    s->fte[slot] = e;
    return ST_OK;
}

static int cmd_delete_fte(Mlx5State *s, Mlx5Cmd *c)
{
    int ft, st = flow_table_of(s, c, &ft);
    uint32_t idx = be32(c->in + 0x20);

    if (st != ST_OK) {
        return st;
    }
    for (int i = 0; i < FTE_MAX; i++) {
        if (s->fte[i].valid && s->fte[i].ft == ft && s->fte[i].index == idx) {
            s->fte[i].valid = false;
            return ST_OK;
        }
    }
    return mlx5_no_object(s, c, "flow entry", idx);
}

static int cmd_set_root(Mlx5State *s, Mlx5Cmd *c)
{
    int ft, st = flow_table_of(s, c, &ft);

    if (st == ST_OK) {
        s->root_ft = ft;
    }
    return st;
}

const Mlx5CmdDesc mlx5_steer_cmds[] = {
    { OP_CREATE_TIR, "CREATE_TIR", NEED_INIT, cmd_create_tir },
    { OP_MODIFY_TIR, "MODIFY_TIR", NEED_INIT, cmd_modify_tir },
    { OP_DESTROY_TIR, "DESTROY_TIR", NEED_INIT, cmd_destroy_tir },
    { OP_MODIFY_RQT, "MODIFY_RQT", NEED_INIT, cmd_modify_rqt },
    { OP_CREATE_RQT, "CREATE_RQT", NEED_INIT, cmd_create_rqt },
    { OP_DESTROY_RQT, "DESTROY_RQT", NEED_INIT, cmd_destroy_rqt },
    { OP_CREATE_FLOW_TABLE, "CREATE_FLOW_TABLE", NEED_INIT,
      cmd_create_flow_table },
    { OP_DESTROY_FLOW_TABLE, "DESTROY_FLOW_TABLE", NEED_INIT,
      cmd_destroy_flow_table },
    { OP_CREATE_FLOW_GROUP, "CREATE_FLOW_GROUP", NEED_INIT,
      cmd_create_flow_group },
    { OP_DESTROY_FLOW_GROUP, "DESTROY_FLOW_GROUP", NEED_INIT,
      cmd_destroy_flow_group },
    { OP_SET_FLOW_TABLE_ENTRY, "SET_FLOW_TABLE_ENTRY", NEED_INIT,
      cmd_set_fte },
    { OP_DELETE_FLOW_TABLE_ENTRY, "DELETE_FLOW_TABLE_ENTRY", NEED_INIT,
      cmd_delete_fte },
    { OP_SET_FLOW_TABLE_ROOT, "SET_FLOW_TABLE_ROOT", NEED_INIT,
      cmd_set_root },
    { 0 },
};

/* PRM "Toeplitz Hash": for each set bit of the input, XOR the 32-bit
 * window of the key that starts at that bit */
uint32_t mlx5_toeplitz(const uint8_t *key, size_t klen, const uint8_t *in,
                       size_t n)
{
    uint32_t h = 0, win = ldl_be_p(key);

    for (size_t i = 0; i < n; i++) {
        for (int b = 7; b >= 0; b--) {
            if (in[i] & (1 << b)) {
                h ^= win;
            }
            size_t kbit = i * 8 + (7 - b) + 32;    /* next key bit in */
            win = win << 1 | (kbit / 8 < klen ?
                              (key[kbit / 8] >> (7 - kbit % 8)) & 1 : 0);
        }
    }
    return h;
}

/* match the frame's outer headers (in the fte_match_set_lyr_2_4 layout,
 * built by the caller) against an entry: (frame & mask) == (value & mask) */
static bool fte_matches(Mlx5State *s, const Mlx5Fte *e, const uint8_t *hdr)
{
    const Mlx5Fg *g = &s->fg[e->group - FG_BASE];

    if (!(g->enable & 1)) {
        return true;            /* no criteria: the wildcard group */
    }
    for (int i = 0; i < 64; i++) {
        if ((hdr[i] & g->mask[i]) != (e->value[i] & g->mask[i])) {
            return false;
        }
    }
    return true;
}

/* the TIR a frame goes to: the root table's entries by flow index,
 * following forwards into other tables (depth 8); -1 when none */
int mlx5_steer_tir(Mlx5State *s, const uint8_t *hdr)
{
    int ft = s->root_ft;

    for (int depth = 0; ft >= 0 && depth < 8; depth++) {
        const Mlx5Fte *best = NULL;
        for (int i = 0; i < FTE_MAX; i++) {
            const Mlx5Fte *e = &s->fte[i];
            if (e->valid && e->ft == ft && s->fg[e->group - FG_BASE].valid &&
                (!best || e->index < best->index) && fte_matches(s, e, hdr)) {
                best = e;
            }
        }
        if (!best && s->ft[ft].miss_action == 1) {
            ft = s->ft[ft].miss_id - FT_BASE;   /* a miss goes on */
            if (!s->ft[ft].valid) {
                return -1;
            }
            continue;
        }
        if (!best || !(best->action & 4)) {
            return -1;          /* table miss or drop */
        }
        if (best->dest_type == 2) {
            int t = best->dest_id - TIR_BASE;
            return s->tir[t].valid ? t : -1;
        }
        ft = best->dest_id - FT_BASE;
        if (!s->ft[ft].valid) {
            return -1;
        }
    }
    return -1;
}
