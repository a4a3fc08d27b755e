/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/ixgbe/ixgbe_mbx.c: the 82599's PF/VF mailboxes (datasheet
 * 7.10.2.x): one 16-word buffer a VF (PFMBMEM(n) on the PF's side,
 * VFMBMEM on the VF's), PFMAILBOX(n)/VFMAILBOX to hand it over (PFU/VFU
 * lock it, STS/REQ say a message is in, ACK that it was taken), PFMBICR
 * and EICR.MAILBOX to tell the PF, the VF's mailbox interrupt to tell the
 * VF; VF resets (VFCTRL.RST, FLR: PFVFLRE) and the PF's (RSTI, RSTD).
 */
#include "qemu/osdep.h"
#include "ixgbe_int.h"

static hwaddr mbmem(int n, int word)
{
    return IXGBE_PFMBMEM0 + 0x40 * n + 4 * word;
}

/* PFMBIMR reset value: every VF's interrupt enabled (Linux never writes
 * it); PFMBIMR(n) bit b is VF 16n + b. */
void ixgbe_mbx_reset(IxgbeState *s)
{
    for (int i = 0; i < 4; i++) {
        s->mac[(IXGBE_PFMBIMR0 + 4 * i) >> 2] = 0xFFFF;
    }
    memset(s->vf, 0, sizeof(s->vf));
    memset(s->qde, 0, sizeof(s->qde));
    s->pf_reset_done = false;
}

/* 7.10.2.x: a VF's REQ or ACK sets its PFMBICR bit and, unmasked in
 * PFMBIMR, EICR.MAILBOX (bit 19, 8.2.3.5.1). */
static void tell_pf(IxgbeState *s, int n, bool ack)
{
    hwaddr icr = IXGBE_PFMBICR0 + 4 * (n / 16);

    s->mac[icr >> 2] |= 1u << (n % 16 + (ack ? 16 : 0));
    if (ixgbe_reg(s, IXGBE_PFMBIMR0 + 4 * (n / 16)) & (1u << (n % 16))) {
        ixgbe_raise_mailbox(s);
    }
}

bool ixgbe_mbx_read(IxgbeState *s, hwaddr off, uint32_t *val)
{
    if (off >= IXGBE_PFMAILBOX0 && off < IXGBE_PFMAILBOX0 + 4 * 64) {
        int n = (off - IXGBE_PFMAILBOX0) / 4;
        if (n >= IXGBE_MAX_VFS) {
            *val = 0;
            return true;
        }
        /* STS, ACK and RVFU are write-only */
        *val = (s->vf[n].pfu ? IXGBE_PFMBX_PFU : 0) |
               (s->vf[n].mbx & IXGBEVF_MBX_VFU ? IXGBE_PFMBX_VFU : 0);
        return true;
    }
    if (off == IXGBE_PFVFLREC0 || off == IXGBE_PFVFLREC0 + 4) {
        *val = ixgbe_reg(s, off == IXGBE_PFVFLREC0 ? IXGBE_PFVFLRE0
                                                   : IXGBE_PFVFLRE1);
        return true;
    }
    return false;
}

bool ixgbe_mbx_write(IxgbeState *s, hwaddr off, uint32_t val)
{
    if (off >= IXGBE_PFMAILBOX0 && off < IXGBE_PFMAILBOX0 + 4 * 64) {
        int n = (off - IXGBE_PFMAILBOX0) / 4;
        IxgbeVf *v;
        if (n >= IXGBE_MAX_VFS) {
            return true;
        }
        v = &s->vf[n];
        if (val & IXGBE_PFMBX_RVFU) {
            v->mbx &= ~IXGBEVF_MBX_VFU;
        }
        /* PFU is taken only while the VF does not hold the buffer */
        v->pfu = (val & IXGBE_PFMBX_PFU) && !(v->mbx & IXGBEVF_MBX_VFU);
        if (val & (IXGBE_PFMBX_STS | IXGBE_PFMBX_ACK)) {
            v->mbx |= (val & IXGBE_PFMBX_STS ? IXGBEVF_MBX_PFSTS : 0) |
                      (val & IXGBE_PFMBX_ACK ? IXGBEVF_MBX_PFACK : 0);
            ixgbe_vf_raise_mbx(s, n);
        }
        return true;
    }
    if (off >= IXGBE_PFMBMEM0 && off < mbmem(IXGBE_MAX_VFS, 0)) {
        int n = (off - IXGBE_PFMBMEM0) / 0x40;
        /* 7.10.2.x: the PF writes the buffer only holding PFU. Linux 6.1
         * clears it without (16 words a VF at SR-IOV enable): kept and
         * counted, as the datasheet decides. */
        if (!s->vf[n].pfu) {
            ixgbe_guest_error(s, &s->strict.pfmbmem_unlocked,
                              "PFMBMEM(%d) word %d written without "
                              "PFMAILBOX.PFU", n, (int)(off & 0x3F) / 4);
        }
        s->mac[off >> 2] = val;
        return true;
    }
    if (off >= IXGBE_PFMBICR0 && off < IXGBE_PFMBICR0 + 16) {
        s->mac[off >> 2] &= ~val;       /* write 1 to clear */
        return true;
    }
    if (off == IXGBE_PFVFLREC0 || off == IXGBE_PFVFLREC0 + 4) {
        hwaddr lre = off == IXGBE_PFVFLREC0 ? IXGBE_PFVFLRE0 : IXGBE_PFVFLRE1;
        s->mac[lre >> 2] &= ~val;
        return true;
    }
    if (off == IXGBE_PFVFLRE0 || off == IXGBE_PFVFLRE1) {
        return true;                    /* read-only */
    }
    return false;
}

/* VFMAILBOX (8.3.5.x): PFSTS, PFACK and RSTD clear when read; RSTI is
 * set while the PF has not said CTRL_EXT.PFRSTD since its reset. */
uint32_t ixgbe_vf_mbx_read(IxgbeState *s, int n)
{
    IxgbeVf *v = &s->vf[n];
    uint32_t r = v->mbx | (v->pfu ? IXGBEVF_MBX_PFU : 0) |
                 (s->pf_reset_done ? 0 : IXGBEVF_MBX_RSTI);

    v->mbx &= ~(IXGBEVF_MBX_PFSTS | IXGBEVF_MBX_PFACK | IXGBEVF_MBX_RSTD);
    return r;
}

void ixgbe_vf_mbx_write(IxgbeState *s, int n, uint32_t val)
{
    IxgbeVf *v = &s->vf[n];
    bool vfu = (val & IXGBEVF_MBX_VFU) && !v->pfu;

    v->mbx = (v->mbx & ~IXGBEVF_MBX_VFU) | (vfu ? IXGBEVF_MBX_VFU : 0);
    if (val & IXGBEVF_MBX_REQ) {
        tell_pf(s, n, false);
    }
    if (val & IXGBEVF_MBX_ACK) {
        tell_pf(s, n, true);
    }
}

void ixgbe_vf_mbmem_write(IxgbeState *s, int n, int word, uint32_t val)
{
    if (!(s->vf[n].mbx & IXGBEVF_MBX_VFU)) {
        ixgbe_guest_error(s, &s->strict.vfmbmem_unlocked,
                          "VF %d: VFMBMEM word %d written without "
                          "VFMAILBOX.VFU", n, word);
    }
    s->mac[mbmem(n, word) >> 2] = val;
}

/* CTRL_EXT.PFRSTD (8.2.3.1.3): every VF's RSTI clears and RSTD sets. */
void ixgbe_pf_reset_done(IxgbeState *s)
{
    s->pf_reset_done = true;
    for (int n = 0; n < IXGBE_MAX_VFS; n++) {
        s->vf[n].mbx |= IXGBEVF_MBX_RSTD;
    }
}

/*
 * A VF reset: VFCTRL.RST (4.2.x) or an FLR of its function. Its queues
 * stop, its interrupt registers clear, its mailbox is released. An FLR
 * also sets its PFVFLRE bit and EICR.MAILBOX (7.10.2.x). After
 * VFCTRL.RST the model sets RSTD at once (no PF action is needed for a
 * VF's own reset; a modelling choice, noted in qemu/README.md).
 */
void ixgbe_vf_reset(IxgbeState *s, int n, bool flr)
{
    IxgbeVf *v = &s->vf[n];
    int qpp = ixgbe_vf_qpp(s);

    static const hwaddr rx_regs[] = { IXGBE_RXQ_RDBAL, IXGBE_RXQ_RDBAH,
        IXGBE_RXQ_RDLEN, IXGBE_RXQ_RDH, IXGBE_RXQ_RDT, IXGBE_RXQ_RXDCTL };
    static const hwaddr tx_regs[] = { IXGBE_TXQ_TDBAL, IXGBE_TXQ_TDBAH,
        IXGBE_TXQ_TDLEN, IXGBE_TXQ_TDH, IXGBE_TXQ_TDT };

    /* the VF's queue registers to their reset values; TDWBAL/H stay
     * (Linux's PF clears them after a VF reset for that reason) */
    for (int i = 0; i < qpp; i++) {
        int q = n * qpp + i;
        ixgbe_tx_queue_stop(s, q);
        for (size_t r = 0; r < ARRAY_SIZE(rx_regs); r++) {
            s->mac[(ixgbe_rxq_base(q) + rx_regs[r]) >> 2] = 0;
        }
        s->mac[ixgbe_srrctl_off(q) >> 2] = 0x402;
        for (size_t r = 0; r < ARRAY_SIZE(tx_regs); r++) {
            s->mac[(IXGBE_TXQ + 0x40 * q + tx_regs[r]) >> 2] = 0;
        }
    }
    memset(v, 0, sizeof(*v));
    if (flr) {
        hwaddr lre = n < 32 ? IXGBE_PFVFLRE0 : IXGBE_PFVFLRE1;
        s->mac[lre >> 2] |= 1u << (n % 32);
        ixgbe_raise_mailbox(s);
    } else {
        v->mbx = IXGBEVF_MBX_RSTD;
    }
}
