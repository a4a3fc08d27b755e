/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/ixgbe/ixgbe_intr.c: 82599 interrupt causes, masks and their
 * delivery (datasheet 7.3): MSI-X with one vector per queue through IVAR,
 * the other causes through IVAR_MISC; MSI or INTx with EICR bits
 * otherwise. EITR moderation is accepted and not modelled (no delay).
 */
#include "qemu/osdep.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "ixgbe_int.h"

#define IVAR_VALID 0x80u

static bool msix_mode(IxgbeState *s)
{
    return (ixgbe_reg(s, IXGBE_GPIE) & IXGBE_GPIE_MSIX_MODE) &&
           msix_enabled(PCI_DEVICE(s));
}

/* 7.3.4: a vector fires when one of its causes is unmasked; EIAM (with
 * GPIE.EIAME) masks it as it fires, EIAC clears its cause. */
static void fire_vectors(IxgbeState *s)
{
    PCIDevice *d = PCI_DEVICE(s);
    uint64_t ready = s->vec_cause & s->vec_mask;

    while (ready) {
        int v = ctz64(ready);
        uint64_t bit = 1ull << v;
        ready &= ~bit;
        if (ixgbe_reg(s, IXGBE_GPIE) & IXGBE_GPIE_EIAME) {
            s->vec_mask &= ~(bit & s->vec_automask);
        }
        /* EIAC covers vectors 0..15; 16..63 always auto-clear */
        if (v >= 16 || (s->vec_autoclear & bit)) {
            s->vec_cause &= ~bit;
        }
        msix_notify(d, v);
    }
    if (s->misc_cause & s->misc_mask) {
        /* 8.2.3.5.x IVAR_MISC: byte 0 the TCP timer (not modelled), byte 1
         * every other cause */
        uint32_t ivar = ixgbe_reg(s, IXGBE_IVAR_MISC) >> 8;
        if (ivar & IVAR_VALID) {
            uint32_t fired = s->misc_cause & s->misc_mask;
            uint32_t automask = ixgbe_reg(s, IXGBE_EIAM) & IXGBE_EIMS_MISC_MASK;
            if (ixgbe_reg(s, IXGBE_GPIE) & IXGBE_GPIE_EIAME) {
                s->misc_mask &= ~(fired & automask);
            }
            s->misc_cause &= ~(fired & ixgbe_reg(s, IXGBE_EIAC) &
                               IXGBE_EIMS_MISC_MASK);
            msix_notify(d, ivar & 0x3F);
        }
    }
}

static uint32_t legacy_eicr(IxgbeState *s)
{
    return s->misc_cause | (uint32_t)(s->vec_cause & IXGBE_EICR_RTX_QUEUE);
}

static uint32_t legacy_eims(IxgbeState *s)
{
    return s->misc_mask | (uint32_t)(s->vec_mask & IXGBE_EICR_RTX_QUEUE);
}

static void update(IxgbeState *s)
{
    PCIDevice *d = PCI_DEVICE(s);

    if (msix_mode(s)) {
        fire_vectors(s);
        return;
    }
    bool pending = legacy_eicr(s) & legacy_eims(s);
    if (msi_enabled(d)) {
        if (pending) {
            msi_notify(d, 0);
        }
    } else {
        pci_set_irq(d, pending);
    }
}

/* EICR 31:16: link, mailbox and the rest (7.3.1.2); in MSI-X mode they
 * share the vector IVAR_MISC names, gated by EIMS 30:16. */
void ixgbe_raise_misc(IxgbeState *s, uint32_t cause)
{
    s->misc_cause |= cause & 0xFFFF0000u;
    update(s);
}

/* 7.10.2.x: a VF's mailbox message or acknowledgement, or a VFLR. */
void ixgbe_raise_mailbox(IxgbeState *s)
{
    ixgbe_raise_misc(s, IXGBE_EICR_MAILBOX);
}

/* IVAR(n) holds RX queue 2n in byte 0, TX 2n in byte 1, RX 2n+1 in byte 2,
 * TX 2n+1 in byte 3 (8.2.3.5.16); a valid entry names a vector (MSI-X)
 * or an EICR bit (legacy). */
void ixgbe_raise_queue(IxgbeState *s, int queue, bool tx)
{
    uint32_t ivar = ixgbe_reg(s, IXGBE_IVAR0 + 4 * (queue >> 1));
    unsigned shift = 16 * (queue & 1) + 8 * tx;
    uint32_t e = (ivar >> shift) & 0xFF;

    if (ixgbe_vf_raise_queue(s, queue, tx)) {
        return;                 /* a VF's queue: the VF's vectors */
    }
    if (!(e & IVAR_VALID)) {
        return;
    }
    s->vec_cause |= 1ull << (msix_mode(s) ? (e & 0x3F) : (e & 0xF));
    update(s);
}

bool ixgbe_intr_read(IxgbeState *s, hwaddr off, uint32_t *val)
{
    switch (off) {
    case IXGBE_EICR:
        /* clear on read (7.3.1.2); Linux reads EICS in MSI-X mode instead */
        *val = legacy_eicr(s);
        s->misc_cause = 0;
        s->vec_cause &= ~(uint64_t)IXGBE_EICR_RTX_QUEUE;
        update(s);
        return true;
    case IXGBE_EICS:            /* reads EICR without clearing it */
        *val = legacy_eicr(s);
        return true;
    case IXGBE_EIMS:
        *val = legacy_eims(s);
        return true;
    case IXGBE_EIMS_EX0:
    case IXGBE_EIMS_EX0 + 4:
        *val = s->vec_mask >> (off == IXGBE_EIMS_EX0 ? 0 : 32);
        return true;
    case IXGBE_EIAM_EX0:
    case IXGBE_EIAM_EX0 + 4:
        *val = s->vec_automask >> (off == IXGBE_EIAM_EX0 ? 0 : 32);
        return true;
    case IXGBE_EIMC:
    case IXGBE_EIMC_EX0:
    case IXGBE_EIMC_EX0 + 4:
    case IXGBE_EICS_EX0:
    case IXGBE_EICS_EX0 + 4:
        *val = 0;               /* write-only */
        return true;
    }
    return false;
}

static void set_half(uint64_t *r, int half, uint32_t val, bool set)
{
    uint64_t bits = (uint64_t)val << (32 * half);
    *r = set ? (*r | bits) : (*r & ~bits);
}

bool ixgbe_intr_write(IxgbeState *s, hwaddr off, uint32_t val)
{
    uint32_t q = val & IXGBE_EICR_RTX_QUEUE;

    switch (off) {
    case IXGBE_EICR:            /* write 1 to clear */
        s->misc_cause &= ~val;
        s->vec_cause &= ~(uint64_t)q;
        break;
    case IXGBE_EICS:
        s->misc_cause |= val & 0xFFFF0000u;
        s->vec_cause |= q;
        break;
    case IXGBE_EIMS:
        s->misc_mask |= val & IXGBE_EIMS_MISC_MASK;
        s->vec_mask |= q;
        break;
    case IXGBE_EIMC:
        s->misc_mask &= ~val;
        s->vec_mask &= ~(uint64_t)q;
        break;
    case IXGBE_EIAC:
        s->mac[off >> 2] = val;
        s->vec_autoclear = (s->vec_autoclear & ~0xFFFFull) | q;
        break;
    case IXGBE_EIAM:
        s->mac[off >> 2] = val;
        s->vec_automask = (s->vec_automask & ~0xFFFFull) | q;
        break;
    case IXGBE_EICS_EX0:
    case IXGBE_EICS_EX0 + 4:
        set_half(&s->vec_cause, off != IXGBE_EICS_EX0, val, true);
        break;
    case IXGBE_EIMS_EX0:
    case IXGBE_EIMS_EX0 + 4:
        set_half(&s->vec_mask, off != IXGBE_EIMS_EX0, val, true);
        break;
    case IXGBE_EIMC_EX0:
    case IXGBE_EIMC_EX0 + 4:
        set_half(&s->vec_mask, off != IXGBE_EIMC_EX0, val, false);
        break;
    case IXGBE_EIAM_EX0:
    case IXGBE_EIAM_EX0 + 4: {
        int half = off != IXGBE_EIAM_EX0;
        s->vec_automask &= ~(0xFFFFFFFFull << (32 * half));
        set_half(&s->vec_automask, half, val, true);
        break;
    }
    case IXGBE_GPIE:
        s->mac[off >> 2] = val;
        break;
    default:
        return false;
    }
    update(s);
    return true;
}

void ixgbe_intr_reset(IxgbeState *s)
{
    s->vec_cause = s->vec_mask = s->vec_autoclear = s->vec_automask = 0;
    s->misc_cause = s->misc_mask = 0;
    pci_set_irq(PCI_DEVICE(s), 0);
}

void ixgbe_intr_init(IxgbeState *s)
{
    PCIDevice *d = PCI_DEVICE(s);

    for (int v = 0; v < IXGBE_MSIX_VECTORS; v++) {
        msix_vector_use(d, v);
    }
}

void ixgbe_intr_uninit(IxgbeState *s)
{
    msix_unuse_all_vectors(PCI_DEVICE(s));
}
