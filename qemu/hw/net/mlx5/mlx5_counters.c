/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/mlx5/mlx5_counters.c: Q counters (PRM "Q Counters":
 * ALLOC_Q_COUNTER, DEALLOC_Q_COUNTER, QUERY_Q_COUNTER), the sets an RQ
 * counts its out_of_buffer drops into (rqc counter_set_id).
 */
#include "qemu/osdep.h"
#include "mlx5_int.h"
#include "mlx5_cmd.h"
#include "mlx5_steer.h"

/* PRM "ALLOC_Q_COUNTER" (counter_set_id 7:0 at output 0x0b),
 * "DEALLOC_Q_COUNTER" (at input 0x0b), "QUERY_Q_COUNTER" (clear bit 31
 * of 0x18, counter_set_id at 0x1f; out_of_buffer at output 0x30: frames
 * dropped for want of a WQE on an RQ counting into this set) */
int mlx5_alloc_q_counter(Mlx5State *s, Mlx5Cmd *c)
{
    for (int i = 1; i <= MAX_QCOUNTER; i++) {
        if (!s->qc[i]) {
            s->qc[i] = true;
            s->qc_out_of_buffer[i] = 0;
            c->out[0x0b] = i;
            return ST_OK;
        }
    }
    return mlx5_out_of(s, c, "Q counters");
}

static int q_counter(Mlx5State *s, Mlx5Cmd *c, uint8_t id)
{
    if (!id || id > MAX_QCOUNTER || !s->qc[id]) {
        return mlx5_no_object(s, c, "Q counter", id);
    }
    return ST_OK;
}

int mlx5_dealloc_q_counter(Mlx5State *s, Mlx5Cmd *c)
{
    int st = q_counter(s, c, c->in[0x0b]);

    if (st == ST_OK) {
        s->qc[c->in[0x0b]] = false;
    }
    return st;
}

int mlx5_query_q_counter(Mlx5State *s, Mlx5Cmd *c)
{
    uint8_t id = c->in[0x1f];
    int st = q_counter(s, c, id);

    if (st != ST_OK) {
        return st;
    }
    if (c->out_len < 0x34) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_OUT_LEN,
                        SYND_LENGTH, "QUERY_Q_COUNTER output %u", c->out_len);
    }
    stl_be_p(c->out + 0x30, s->qc_out_of_buffer[id]);
    if (c->in[0x18] & 0x80) {
        s->qc_out_of_buffer[id] = 0;
    }
    return ST_OK;
}

