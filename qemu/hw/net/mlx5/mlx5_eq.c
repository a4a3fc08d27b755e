/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/mlx5/mlx5_eq.c: event queues (PRM "Event Queues (EQ)",
 * "EQ Context", "Event Queue Entry (EQE) Format", "EQ Doorbell") and the
 * firmware side of the page protocol (PRM "Pages Management": the
 * PAGE_REQUEST event).
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hw/pci/msix.h"
#include "mlx5_int.h"
#include "mlx5_cmd.h"

#define EQE_SIZE        64
#define LOG_MAX_EQ_SZ   22

static Mlx5Eq *eq_by_num(Mlx5State *s, uint32_t eqn)
{
    if (eqn < EQ_FIRST || eqn >= EQ_FIRST + MAX_EQ ||
        !s->eq[eqn - EQ_FIRST].valid) {
        return NULL;
    }
    return &s->eq[eqn - EQ_FIRST];
}

/* PRM "CREATE_EQ": eq_context at 0x10 (log_eq_size 28:24 and uar_page
 * 23:0 of dword 3, intr 7:0 of dword 5, log_page_size 28:24 of dword 6),
 * event_bitmask at 0x58, pas[] at 0x110. The card numbers EQs from 0x10. */
int mlx5_create_eq(Mlx5State *s, Mlx5Cmd *c)
{
    const uint8_t *ctx = c->in + 0x10;
    Mlx5Eq eq = { .valid = true };
    uint64_t bytes, pgsz;
    uint32_t i, slot;

    if (c->in_len < 0x110) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_IN_LEN,
                        SYND_LENGTH, "CREATE_EQ input %u bytes", c->in_len);
    }
    eq.log_size = (be32(ctx + 0x0c) >> 24) & 0x1f;
    eq.uar = be32(ctx + 0x0c) & 0xffffff;
    eq.intr = be32(ctx + 0x14) & 0xff;
    eq.log_page_size = (be32(ctx + 0x18) >> 24) & 0x1f;
    eq.bitmask = be64(c->in + 0x58);
    if (eq.log_size > LOG_MAX_EQ_SZ || eq.intr >= MLX5_MSIX_VECTORS) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_PARAM,
                        "CREATE_EQ log_eq_size %u intr %u", eq.log_size,
                        eq.intr);
    }
    if (eq.uar >= UAR_MAX || !(s->uar_alloc[eq.uar / 32] &
                               (1u << (eq.uar % 32)))) {
        return cmd_fail(s, c, &s->strict.bad_resource, ST_BAD_RESOURCE,
                        SYND_RESOURCE, "CREATE_EQ on UAR %#x, not allocated",
                        eq.uar);
    }
    bytes = (uint64_t)EQE_SIZE << eq.log_size;
    pgsz = (uint64_t)MLX5_PAGE << eq.log_page_size;
    eq.npas = DIV_ROUND_UP(bytes, pgsz);
    if (eq.npas > MAX_PAS) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_EXCEED_LIM, SYND_LIMIT,
                        "CREATE_EQ of %u pages: the model keeps %u",
                        eq.npas, MAX_PAS);
    }
    if (c->in_len < 0x110 + 8 * eq.npas) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_IN_LEN,
                        SYND_LENGTH, "CREATE_EQ needs %u pas, input %u bytes",
                        eq.npas, c->in_len);
    }
    for (i = 0; i < eq.npas; i++) {
        eq.pas[i] = be64(c->in + 0x110 + 8 * i);
        if (eq.pas[i] & (MLX5_PAGE - 1)) {
            return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM,
                            SYND_PARAM, "CREATE_EQ pas[%u] %#" PRIx64
                            " not 4 KB aligned", i, eq.pas[i]);
        }
    }
    for (slot = 0; slot < MAX_EQ && s->eq[slot].valid; slot++) {
    }
    if (slot == MAX_EQ) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_NO_RESOURCES,
                        SYND_LIMIT, "CREATE_EQ: %u EQs exist", MAX_EQ);
    }
    s->eq[slot] = eq;
    c->out[0x0b] = EQ_FIRST + slot;
    return ST_OK;
}

/* PRM "DESTROY_EQ": eq_number 7:0 of dword 2 */
int mlx5_destroy_eq(Mlx5State *s, Mlx5Cmd *c)
{
    Mlx5Eq *eq = eq_by_num(s, c->in[0x0b]);

    if (!eq) {
        return cmd_fail(s, c, &s->strict.bad_resource, ST_BAD_RESOURCE,
                        SYND_RESOURCE, "DESTROY_EQ %#x does not exist",
                        c->in[0x0b]);
    }
    eq->valid = false;
    return ST_OK;
}

static void eq_notify(Mlx5State *s, Mlx5Eq *eq)
{
    if (eq->armed && eq->pi != eq->ci) {
        eq->armed = false;
        msix_notify(PCI_DEVICE(s), eq->intr);
    }
}

/* write one EQE (PRM "Event Queue Entry (EQE) Format": event_type byte 1,
 * event_sub_type byte 3, event_data 0x20..0x3b, owner bit 0 of byte 0x3f:
 * the producer's wrap count, software's value is valid when it equals
 * its consumer index's) to EQ `eqn` */
bool mlx5_post_event_to(Mlx5State *s, uint32_t eqn, uint8_t type,
                        uint8_t sub_type, const uint8_t *data, size_t len)
{
    uint8_t eqe[EQE_SIZE] = { 0 };
    uint64_t off, pgsz;
    Mlx5Eq *eq = eq_by_num(s, eqn);

    if (!eq) {
        return false;
    }
    if (eq->pi - eq->ci >= (1u << eq->log_size)) {
        mlx5_guest_error(s, &s->strict.eq_overflow, "EQ %#lx overflow: "
                         "producer %u consumer %u, event %#x lost",
                         (long)(eq - s->eq) + EQ_FIRST, eq->pi, eq->ci, type);
        return false;
    }
    eqe[1] = type;
    eqe[3] = sub_type;
    memcpy(eqe + 0x20, data, MIN(len, 28));
    eqe[0x3f] = (eq->pi >> eq->log_size) & 1;
    off = (uint64_t)(eq->pi & ((1u << eq->log_size) - 1)) * EQE_SIZE;
    pgsz = (uint64_t)MLX5_PAGE << eq->log_page_size;
    pci_dma_write(PCI_DEVICE(s), eq->pas[off / pgsz] + off % pgsz, eqe,
                  sizeof(eqe));
    eq->pi++;
    eq_notify(s, eq);
    return true;
}

/* an asynchronous event: to the first EQ whose event_bitmask has it
 * (completion events go to their CQ's EQ instead, mlx5_cq.c) */
bool mlx5_post_event(Mlx5State *s, uint8_t type, uint8_t sub_type,
                     const uint8_t *data, size_t len)
{
    for (int i = 0; i < MAX_EQ; i++) {
        if (s->eq[i].valid && s->eq[i].bitmask & (1ull << type)) {
            return mlx5_post_event_to(s, EQ_FIRST + i, type, sub_type, data,
                                      len);
        }
    }
    return false;
}

/* PRM "EQ Doorbell": eq_number 31:24, consumer_index 23:0, at UAR offset
 * 0x40 (update and arm) or 0x48 (update only) */
void mlx5_eq_doorbell(Mlx5State *s, uint32_t uar, hwaddr off, uint32_t val)
{
    Mlx5Eq *eq = eq_by_num(s, val >> 24);
    uint32_t ci = val & 0xffffff;

    if (!eq || eq->uar != uar) {
        mlx5_guest_error(s, &s->strict.bad_doorbell, "EQ doorbell %#x on UAR "
                         "%#x: no such EQ on that UAR", val, uar);
        return;
    }
    /* the 24-bit counter extended against the producer's */
    eq->ci = (eq->pi & ~0xffffffu) | ci;
    if (eq->ci > eq->pi) {
        eq->ci -= 1u << 24;
    }
    if (off == UAR_EQ_ARM) {
        eq->armed = true;
        eq_notify(s, eq);
    }
}

/* PRM "Page Request Event" (type 0xb): event_data ec_function 15:0 of
 * dword 0... here function_id at bytes 2..3 and num_pages (signed: more
 * than 0 asks for pages, less returns them) at bytes 4..7 */
void mlx5_page_request(Mlx5State *s, int32_t n)
{
    uint8_t data[28] = { 0 };

    if (s->hca != HCA_INITIALIZED || !n) {
        qemu_log_mask(LOG_GUEST_ERROR, "mlx5: page-request %d ignored: the "
                      "HCA is not initialized\n", n);
        return;
    }
    if (n < 0 && (uint32_t)-n > s->npages) {
        n = -(int32_t)s->npages;
    }
    stw_be_p(data + 2, 0);              /* function 0: the PF itself */
    stl_be_p(data + 4, n);
    if (mlx5_post_event(s, EVENT_PAGE_REQUEST, 0, data, sizeof(data))) {
        s->regular_pages += n;
    } else {
        qemu_log_mask(LOG_GUEST_ERROR, "mlx5: page-request %d not posted: "
                      "no EQ takes PAGE_REQUEST events, or it is full\n", n);
    }
}
