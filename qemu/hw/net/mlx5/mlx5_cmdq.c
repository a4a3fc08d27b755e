/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/mlx5/mlx5_cmdq.c: the command queue (PRM "Command Interface":
 * "Command Queue", "Command Queue Entry", "Command Mailbox", "Command
 * Delivery Status"). A doorbell bit runs its entry at once: the input is
 * gathered from the 16 inline bytes and the input mailbox chain, the
 * command runs (mlx5_hca.c), the output is scattered to the 16 inline
 * bytes and the output mailbox chain, then the delivery status is written
 * and ownership given back, in that order.
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hw/pci/pci.h"
#include "mlx5_int.h"

#define ENT_TYPE        0x00
#define ENT_IN_LEN      0x04
#define ENT_IN_PTR      0x08
#define ENT_IN_INLINE   0x10
#define ENT_OUT_INLINE  0x20
#define ENT_OUT_PTR     0x30
#define ENT_OUT_LEN     0x38
#define ENT_TOKEN       0x3c
#define ENT_SIGNATURE   0x3d
#define ENT_STATUS_OWN  0x3f    /* status 7:1, ownership 0 (1: hardware) */
#define MAX_CMD_LEN     (1 << 20)
#define CMD_PAD         0x2000  /* beyond every fixed command layout */

/* walk a mailbox chain: block i must carry block number i and the entry's
 * token (PRM "Command Mailbox"). Returns the delivery status; on success
 * fills addrs[] with the blocks' addresses. */
static int walk_chain(Mlx5State *s, uint64_t ptr, uint32_t nblocks,
                      uint8_t token, uint64_t *addrs, bool input)
{
    PCIDevice *d = PCI_DEVICE(s);
    uint8_t tail[CMD_BLOCK_SIZE - CMD_BLOCK_NEXT];

    for (uint32_t i = 0; i < nblocks; i++) {
        if (!ptr || ptr & 0xf) {
            mlx5_guest_error(s, &s->strict.short_mailbox, "%s mailbox chain "
                             "%s at block %u of %u (pointer %#" PRIx64 ")",
                             input ? "input" : "output",
                             ptr ? "misaligned" : "ends", i, nblocks, ptr);
            return input ? DELIV_BAD_IN_PTR : DELIV_BAD_OUT_PTR;
        }
        addrs[i] = ptr;
        pci_dma_read(d, ptr + CMD_BLOCK_NEXT, tail, sizeof(tail));
        if (be32(tail + CMD_BLOCK_NUM - CMD_BLOCK_NEXT) != i) {
            mlx5_guest_error(s, &s->strict.bad_block_number, "%s mailbox "
                             "block %u carries block number %u",
                             input ? "input" : "output", i,
                             be32(tail + CMD_BLOCK_NUM - CMD_BLOCK_NEXT));
            return DELIV_BAD_BLOCK_NUM;
        }
        if (tail[CMD_BLOCK_TOKEN - CMD_BLOCK_NEXT] != token) {
            mlx5_guest_error(s, &s->strict.bad_token, "%s mailbox block %u "
                             "token %#x, the entry's is %#x",
                             input ? "input" : "output", i,
                             tail[CMD_BLOCK_TOKEN - CMD_BLOCK_NEXT], token);
            return DELIV_TOKEN;
        }
        ptr = be64(tail);
    }
    return DELIV_OK;
}

/* PRM "Command Queue Entry" signature: software makes the entry XOR to
 * 0xff. The card's returned entries (all 42 of the trace) carry a signature
 * that makes the entry XOR to 0xff with ownership still set and output
 * inline dword 2 (bytes 0x28..0x2b) left out: so it is computed here. */
static uint8_t entry_signature(const uint8_t *e)
{
    uint8_t x = 0xff ^ 1;

    for (int i = 0; i < 64; i++) {
        if (i != ENT_SIGNATURE && i != ENT_STATUS_OWN &&
            (i < ENT_OUT_INLINE + 8 || i >= ENT_OUT_INLINE + 12)) {
            x ^= e[i];
        }
    }
    return x ^ (e[ENT_STATUS_OWN] & 0xfe);
}

static uint32_t blocks_for(uint32_t len)
{
    return len > 16 ? DIV_ROUND_UP(len - 16, CMD_BLOCK_DATA) : 0;
}

/* post a command-completion event when an EQ asked for them (PRM
 * "Command Interface Completion Event") */
static void cmd_event(Mlx5State *s, int idx)
{
    uint8_t data[28] = { 0 };

    stl_be_p(data, 1u << idx);
    mlx5_post_event(s, EVENT_CMD, 0, data, sizeof(data));
}

static void run_entry(Mlx5State *s, int idx)
{
    PCIDevice *d = PCI_DEVICE(s);
    hwaddr ea = s->cmdq_addr + ((hwaddr)idx << LOG_CMDQ_STRIDE);
    uint8_t e[64];
    uint32_t in_len, out_len, nin, nout, i;
    uint64_t *in_addr = NULL, *out_addr = NULL;
    uint8_t *in = NULL, *out = NULL;
    int deliv = DELIV_OK;

    pci_dma_read(d, ea, e, sizeof(e));
    if (!(e[ENT_STATUS_OWN] & 1)) {
        mlx5_guest_error(s, &s->strict.doorbell_not_owned, "doorbell for "
                         "command entry %d, which software owns", idx);
        return;
    }
    in_len = be32(e + ENT_IN_LEN);
    out_len = be32(e + ENT_OUT_LEN);
    if (e[ENT_TYPE] != CQE_TYPE_PCIE) {
        mlx5_guest_error(s, &s->strict.bad_entry, "entry %d type %#x, not "
                         "0x7 (PCIe)", idx, e[ENT_TYPE]);
        deliv = DELIV_BAD_TYPE;
        goto done;
    }
    if (in_len < 8 || in_len > MAX_CMD_LEN) {
        mlx5_guest_error(s, &s->strict.bad_entry, "entry %d input length "
                         "%u", idx, in_len);
        deliv = DELIV_IN_LENGTH;
        goto done;
    }
    if (out_len < 8 || out_len > MAX_CMD_LEN) {
        mlx5_guest_error(s, &s->strict.bad_entry, "entry %d output length "
                         "%u", idx, out_len);
        deliv = DELIV_OUT_LENGTH;
        goto done;
    }
    nin = blocks_for(in_len);
    nout = blocks_for(out_len);
    in_addr = g_new(uint64_t, nin + 1);
    out_addr = g_new(uint64_t, nout + 1);
    deliv = walk_chain(s, be64(e + ENT_IN_PTR), nin, e[ENT_TOKEN], in_addr,
                       true);
    if (deliv == DELIV_OK) {
        deliv = walk_chain(s, be64(e + ENT_OUT_PTR), nout, e[ENT_TOKEN],
                           out_addr, false);
    }
    if (deliv != DELIV_OK) {
        goto done;
    }
    /* zero-padded past the lengths: a handler reading a field past a
     * short input reads 0, never past the buffer */
    in = g_malloc0(MAX(in_len, CMD_PAD));
    out = g_malloc0(MAX(out_len, CMD_PAD));
    memcpy(in, e + ENT_IN_INLINE, MIN(in_len, 16));
    for (i = 0; i < nin; i++) {
        pci_dma_read(d, in_addr[i], in + 16 + i * CMD_BLOCK_DATA,
                     MIN(CMD_BLOCK_DATA, in_len - 16 - i * CMD_BLOCK_DATA));
    }
    mlx5_exec(s, in, in_len, out, out_len);
    memcpy(e + ENT_OUT_INLINE, out, 16);
    for (i = 0; i < nout; i++) {
        pci_dma_write(d, out_addr[i], out + 16 + i * CMD_BLOCK_DATA,
                      MIN(CMD_BLOCK_DATA, out_len - 16 - i * CMD_BLOCK_DATA));
    }
    pci_dma_write(d, ea + ENT_OUT_INLINE, e + ENT_OUT_INLINE, 16);
done:
    /* the signature, then the status byte last: delivery status and
     * ownership back to software */
    e[ENT_STATUS_OWN] = deliv << 1;
    e[ENT_SIGNATURE] = entry_signature(e);
    pci_dma_write(d, ea + ENT_SIGNATURE, e + ENT_SIGNATURE, 1);
    pci_dma_write(d, ea + ENT_STATUS_OWN, e + ENT_STATUS_OWN, 1);
    g_free(in);
    g_free(out);
    g_free(in_addr);
    g_free(out_addr);
    cmd_event(s, idx);
}

/* PRM "Initialization Segment": command_doorbell_vector, bit i = entry i */
void mlx5_cmd_doorbell(Mlx5State *s, uint32_t vector)
{
    if (mlx5_initializing(s) || !s->cmdq_addr) {
        mlx5_guest_error(s, &s->strict.cmd_while_initializing, "command "
                         "doorbell %#x %s", vector, s->cmdq_addr ?
                         "while the initializing bit is set" :
                         "before the command queue address was written");
        return;
    }
    for (int i = 0; i < (1 << LOG_CMDQ_SIZE); i++) {
        if (vector & (1u << i)) {
            run_entry(s, i);
        }
    }
}
