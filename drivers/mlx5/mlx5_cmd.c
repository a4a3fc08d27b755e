/* SPDX-License-Identifier: MIT */
/* drivers/mlx5/mlx5_cmd.c: the command queue (PRM "Command Interface"):
 * one entry used one command at a time, polled. A command's first 16
 * bytes travel in the entry, the rest in a chain of 576-byte mailboxes
 * (PRM "Command Mailbox": 512 data bytes, the next block's address, the
 * block's number and the entry's token); the reply comes back the same
 * way. The device owns the entry from the doorbell until it clears the
 * ownership bit; every wait is bounded. */
#include "drivers/mlx5/mlx5_dev.h"

#include <stdarg.h>

#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/mem/kalloc.h"
#include "kernel/mem/memmap.h"
#include "kernel/time.h"

#define CMD_TIMEOUT_NS 60000000000ull /* as long as Linux waits: MANAGE_PAGES of thousands of pages is slow */

void mlx5_log(const struct mlx5 *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kprintf("%s: ", m->dev.name[0] ? m->dev.name : m->where);
    kvprintf(fmt, ap);
    va_end(ap);
}

static inline void wr32(struct mlx5 *m, uint32_t off, uint32_t v)
{
    *(volatile uint32_t *)(m->bar + off) = __builtin_bswap32(v);
}

/* Links a direction's blocks: each one's next pointer and number. */
static void chain(uint8_t **mb, int n)
{
    for (int i = 0; i < n; i++) {
        mlx5_put64(mb[i], MLX5_MB_NEXT, i + 1 < n ? virt_to_phys(mb[i + 1]) : 0);
        mlx5_put32(mb[i], MLX5_MB_BLOCK_NUM, (uint32_t)i);
    }
}

bool mlx5_cmd_init(struct mlx5 *m)
{
    m->cmd_dead = false;
    if (m->cmdq) /* a reset: the same memory again */
        return true;
    m->cmdq = kalloc_pages(1, 1);
    uint8_t *pages = kalloc_pages(2 * MLX5_MB_BLOCKS * MLX5_MB_ALIGN / 4096, 1);
    for (int i = 0; i < MLX5_MB_BLOCKS; i++) {
        m->mb_in[i] = pages + (size_t)i * MLX5_MB_ALIGN;
        m->mb_out[i] = pages + (size_t)(MLX5_MB_BLOCKS + i) * MLX5_MB_ALIGN;
    }
    chain(m->mb_in, MLX5_MB_BLOCKS);
    chain(m->mb_out, MLX5_MB_BLOCKS);
    return true;
}

static int blocks(size_t len) { return len > MLX5_INLINE_LEN ? (int)((len - MLX5_INLINE_LEN + MLX5_MB_DATA - 1) / MLX5_MB_DATA) : 0; }

static void failed(struct mlx5 *m, uint16_t op, uint8_t delivery, uint8_t status, uint32_t syndrome, bool timeout)
{
    m->cmd_failed++;
    m->last_error = (struct mlx5_cmd_error){.opcode = op, .delivery = delivery, .status = status,
                                            .timed_out = timeout, .syndrome = syndrome};
    if (timeout)
        mlx5_log(m, "mlx5: %s (0x%x) timed out: the device kept the command\n", mlx5_cmd_name(op), op);
    else if (delivery)
        mlx5_log(m, "mlx5: %s (0x%x) not delivered: %s (0x%x)\n", mlx5_cmd_name(op), op, mlx5_delivery_name(delivery),
                 delivery);
    else
        mlx5_log(m, "mlx5: %s (0x%x) failed: status %s (0x%x), syndrome 0x%08x\n", mlx5_cmd_name(op), op,
                 mlx5_status_name(status), status, syndrome);
}

int mlx5_cmd_object(struct mlx5 *m, size_t inlen, uint32_t *num)
{
    if (mlx5_cmd(m, inlen, 0x10) != 0)
        return -1;
    *num = mlx5_get32(m->out, MLX5_OUT_OBJECT) & 0xffffff;
    return 0;
}

int mlx5_cmd(struct mlx5 *m, size_t inlen, size_t outlen)
{
    uint16_t op = mlx5_get16(m->in, 0);
    int nin = blocks(inlen), nout = blocks(outlen);
    if (m->cmd_dead) {
        failed(m, op, 0, 0, 0, true);
        return -1;
    }
    if (nin > MLX5_MB_BLOCKS || nout > MLX5_MB_BLOCKS || outlen < MLX5_INLINE_LEN) {
        mlx5_log(m, "mlx5: %s: %u bytes in, %u out: more than the mailboxes hold\n", mlx5_cmd_name(op),
                 (unsigned)inlen, (unsigned)outlen);
        return -1;
    }
    m->token = (uint8_t)(m->token + 1 ? m->token + 1 : 1); /* never 0 */
    uint8_t *e = m->cmdq;
    memset(e, 0, MLX5_ENT_SIZE);
    e[MLX5_ENT_TYPE] = MLX5_ENT_TYPE_PCIE;
    mlx5_put32(e, MLX5_ENT_IN_LEN, (uint32_t)inlen);
    mlx5_put32(e, MLX5_ENT_OUT_LEN, (uint32_t)outlen);
    memcpy(e + MLX5_ENT_IN_INLINE, m->in, inlen < MLX5_INLINE_LEN ? inlen : MLX5_INLINE_LEN);
    for (int i = 0; i < nin; i++) {
        size_t at = MLX5_INLINE_LEN + (size_t)i * MLX5_MB_DATA, n = inlen - at < MLX5_MB_DATA ? inlen - at : MLX5_MB_DATA;
        memset(m->mb_in[i], 0, MLX5_MB_DATA);
        memcpy(m->mb_in[i], m->in + at, n);
        m->mb_in[i][MLX5_MB_TOKEN] = m->token;
    }
    for (int i = 0; i < nout; i++) {
        memset(m->mb_out[i], 0, MLX5_MB_DATA);
        m->mb_out[i][MLX5_MB_TOKEN] = m->token;
    }
    /* The chains end at the command's last block. */
    if (nin)
        mlx5_put64(m->mb_in[nin - 1], MLX5_MB_NEXT, 0);
    if (nout)
        mlx5_put64(m->mb_out[nout - 1], MLX5_MB_NEXT, 0);
    mlx5_put64(e, MLX5_ENT_IN_MB_H, nin ? virt_to_phys(m->mb_in[0]) : 0);
    mlx5_put64(e, MLX5_ENT_OUT_MB_H, nout ? virt_to_phys(m->mb_out[0]) : 0);
    e[MLX5_ENT_TOKEN] = m->token;
    e[MLX5_ENT_STATUS] = 1; /* the device's */
    e[MLX5_ENT_SIG] = mlx5_entry_signature(e);
    m->cmds++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* x86 keeps the stores in order; the compiler must too */
    wr32(m, MLX5_ISEG_CMD_DBELL, 1u << 0);   /* entry 0 */
    uint64_t deadline = time_now_ns() + CMD_TIMEOUT_NS;
    bool timed_out = false;
    while (*(volatile uint8_t *)&e[MLX5_ENT_STATUS] & 1 && !timed_out) {
        timed_out = time_now_ns() > deadline;
        __builtin_ia32_pause();
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    /* Restore the chains' links for the next command. */
    if (nin && nin < MLX5_MB_BLOCKS)
        mlx5_put64(m->mb_in[nin - 1], MLX5_MB_NEXT, virt_to_phys(m->mb_in[nin]));
    if (nout && nout < MLX5_MB_BLOCKS)
        mlx5_put64(m->mb_out[nout - 1], MLX5_MB_NEXT, virt_to_phys(m->mb_out[nout]));
    if (timed_out) { /* the device may still own the entry: no further command */
        m->cmd_timeouts++;
        m->cmd_dead = true;
        failed(m, op, 0, 0, 0, true);
        return -1;
    }
    uint8_t delivery = e[MLX5_ENT_STATUS] >> 1;
    memcpy(m->out, e + MLX5_ENT_OUT_INLINE, MLX5_INLINE_LEN);
    for (int i = 0; i < nout; i++) {
        size_t at = MLX5_INLINE_LEN + (size_t)i * MLX5_MB_DATA;
        memcpy(m->out + at, m->mb_out[i], outlen - at < MLX5_MB_DATA ? outlen - at : MLX5_MB_DATA);
    }
    uint8_t status = m->out[MLX5_OUT_STATUS];
    if (delivery || status) {
        failed(m, op, delivery, status, mlx5_get32(m->out, MLX5_OUT_SYNDROME), false);
        return -1;
    }
    return 0;
}
