/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/mlx5/mlx5_cq.c: completion queues at run time (PRM
 * "Completion Queue", "CQE Format", "CQ Doorbell Record", "CQ Doorbell"):
 * writing a CQE with the owner bit of the producer's wrap, the overflow
 * check against the consumer counter software keeps in the doorbell
 * record, arming, and the completion event on the CQ's EQ.
 */
#include "qemu/osdep.h"
#include "hw/pci/pci.h"
#include "mlx5_int.h"
#include "mlx5_data.h"

#define EVENT_COMPLETION    0x00

Mlx5Cq *mlx5_cq(Mlx5State *s, uint32_t cqn)
{
    if (cqn < CQ_BASE || cqn >= CQ_BASE + MAX_OBJ ||
        !s->cq[cqn - CQ_BASE].valid) {
        return NULL;
    }
    return &s->cq[cqn - CQ_BASE];
}

static void completion_event(Mlx5State *s, Mlx5Cq *cq)
{
    uint8_t data[28] = { 0 };

    /* PRM "Completion Event": cqn 23:0 of event_data dword 6 */
    stl_be_p(data + 24, (uint32_t)(cq - s->cq) + CQ_BASE);
    cq->armed = false;
    mlx5_post_event_to(s, cq->eqn, EVENT_COMPLETION, 0, data, sizeof(data));
}

/* write one 64-byte CQE (the caller fills all but op_own's owner bit);
 * false when the CQ has no room (counted) */
bool mlx5_cq_post(Mlx5State *s, uint32_t cqn, uint8_t *cqe)
{
    Mlx5Cq *cq = mlx5_cq(s, cqn);
    PCIDevice *d = PCI_DEVICE(s);
    uint32_t ci, size, off;
    uint64_t pg;
    uint8_t rec[4];

    if (!cq) {
        return false;
    }
    size = 1u << cq->log_size;
    pci_dma_read(d, cq->dbr, rec, sizeof(rec));
    ci = ldl_be_p(rec) & 0xffffff;
    if (((cq->pi - ci) & 0xffffff) >= size) {
        mlx5_guest_error(s, &s->strict.cq_overflow, "CQ %#x overflow: "
                         "producer %u, consumer counter %u, size %u", cqn,
                         cq->pi & 0xffffff, ci, size);
        return false;
    }
    cqe[0x3f] = (cqe[0x3f] & 0xfe) | ((cq->pi >> cq->log_size) & 1);
    off = (cq->pi & (size - 1)) * 64;
    pg = (uint64_t)MLX5_PAGE << cq->log_page_size;
    /* the body first, op_own last: software polls op_own */
    pci_dma_write(d, cq->pas[off / pg] + off % pg, cqe, 63);
    pci_dma_write(d, cq->pas[off / pg] + off % pg + 63, cqe + 63, 1);
    cq->pi++;
    if (cq->armed) {
        completion_event(s, cq);
    }
    return true;
}

/* PRM "CQ Doorbell" (UAR offset 0x20, 64 bits): sn 29:28, cmd 27:24
 * (0 next completion, 1 solicited), ci 23:0 in the high dword, cqn in the
 * low one. Arms the CQ: an event when a CQE past ci is (or gets) written */
void mlx5_cq_doorbell(Mlx5State *s, uint32_t uar, uint64_t val)
{
    uint32_t cqn = val & 0xffffff, ci = (val >> 32) & 0xffffff;
    Mlx5Cq *cq = mlx5_cq(s, cqn);

    if (!cq || cq->uar != uar) {
        mlx5_guest_error(s, &s->strict.bad_doorbell, "CQ doorbell %#" PRIx64
                         " on UAR %#x: no such CQ on that UAR", val, uar);
        return;
    }
    cq->armed = true;
    if (((cq->pi - ci) & 0xffffff) != 0) {
        completion_event(s, cq);
    }
}
