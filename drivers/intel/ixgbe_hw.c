/* SPDX-License-Identifier: MIT */
/* drivers/intel/ixgbe_hw.c: the 82599's housekeeping: reset, the
 * software/firmware semaphores, EEPROM words, the error counters. Every
 * wait on the device is bounded: a card whose firmware hangs is reported,
 * it does not hang the boot. */
#include "drivers/intel/ixgbe_dev.h"

#include "kernel/console/console.h"
#include "kernel/time.h"

#define MASTER_DISABLE_US 100000u /* STATUS.GIO clearing after CTRL.GIO_DIS */
#define RESET_US 100000u          /* CTRL.RST self-clearing */
#define AUTO_READ_US 200000u      /* EEC.ARD after a reset */
#define DMA_INIT_US 200000u       /* RDRXCTL.DMAIDONE after a reset */
#define SYNC_TRIES 200u           /* SW_FW_SYNC: 200 x 5 ms, the datasheet's 1 s of ownership */
#define EERD_US 10000u

static void mask_interrupts(struct ixgbe *x)
{
    ixgbe_wr(x, IXGBE_EIMC, 0x7fffffffu);
    ixgbe_wr(x, IXGBE_EIMC_EX(0), 0xffffffffu);
    ixgbe_wr(x, IXGBE_EIMC_EX(1), 0xffffffffu);
    (void)ixgbe_rd(x, IXGBE_EICR); /* clears what was pending */
}

/* 4.6.3.2: interrupts masked, the PCIe master disabled and its pending
 * requests drained (5.2.5.3.2), then CTRL.RST (with LNK_RST: the MAC's
 * link too). When master disable never completes (a link down or flow
 * control can hold it, specification update #9), two resets in a row
 * stand in for it. After the reset: the EEPROM's auto-read (EEC.ARD) and
 * the DMA's initialisation (RDRXCTL.DMAIDONE) finish before anything is
 * programmed. */
bool ixgbe_reset(struct ixgbe *x)
{
    mask_interrupts(x);
    ixgbe_wr(x, IXGBE_CTRL, ixgbe_rd(x, IXGBE_CTRL) | IXGBE_CTRL_GIO_DIS);
    x->double_reset = !ixgbe_wait(x, IXGBE_STATUS, IXGBE_STATUS_GIO, 0, MASTER_DISABLE_US);
    for (int round = 0; round < (x->double_reset ? 2 : 1); round++) {
        ixgbe_wr(x, IXGBE_CTRL, ixgbe_rd(x, IXGBE_CTRL) | IXGBE_CTRL_RST | IXGBE_CTRL_LNK_RST);
        time_delay_us(1000); /* no access right after RST */
        if (!ixgbe_wait(x, IXGBE_CTRL, IXGBE_CTRL_RST, 0, RESET_US))
            return false;
        time_delay_us(10000);
    }
    mask_interrupts(x); /* the reset restored the defaults */
    if ((ixgbe_rd(x, IXGBE_EEC) & IXGBE_EEC_PRES) &&
        !ixgbe_wait(x, IXGBE_EEC, IXGBE_EEC_ARD, IXGBE_EEC_ARD, AUTO_READ_US))
        kprintf("%s: EEPROM auto-read did not finish; going on\n", x->core.where);
    if (!ixgbe_wait(x, IXGBE_RDRXCTL, IXGBE_RDRXCTL_DMAIDONE, IXGBE_RDRXCTL_DMAIDONE, DMA_INIT_US))
        return false;
    return true;
}

/* SWSM: SMBI between software agents (a read that finds it clear sets it:
 * ours), then SWESMBI between software and firmware (set, read back). */
static bool swsm_take(struct ixgbe *x)
{
    if (ixgbe_rd(x, IXGBE_SWSM) & IXGBE_SWSM_SMBI)
        return false;
    ixgbe_wr(x, IXGBE_SWSM, IXGBE_SWSM_SMBI | IXGBE_SWSM_SWESMBI);
    if (ixgbe_rd(x, IXGBE_SWSM) & IXGBE_SWSM_SWESMBI)
        return true;
    ixgbe_wr(x, IXGBE_SWSM, 0);
    return false;
}

static void swsm_give(struct ixgbe *x) { ixgbe_wr(x, IXGBE_SWSM, 0); }

/* The SW_FW_SYNC flow of the datasheet (its "Software/Firmware
 * Synchronization"): under SWSM, take the software bits of a resource
 * when neither the firmware's nor another agent's are set. */
bool ixgbe_sync_take(struct ixgbe *x, uint32_t bits)
{
    uint32_t both = bits | bits << IXGBE_SYNC_FW_SHIFT;
    for (uint32_t i = 0; i < SYNC_TRIES; i++) {
        if (swsm_take(x)) {
            uint32_t s = ixgbe_rd(x, IXGBE_SW_FW_SYNC);
            if (!(s & both)) {
                ixgbe_wr(x, IXGBE_SW_FW_SYNC, s | bits);
                swsm_give(x);
                return true;
            }
            swsm_give(x);
        }
        time_delay_us(5000);
    }
    x->sync_timeouts++;
    kprintf("%s: firmware held SW_FW_SYNC 0x%x for 1 s (FWSM 0x%x)\n", x->core.where, bits, ixgbe_rd(x, IXGBE_FWSM));
    return false;
}

void ixgbe_sync_give(struct ixgbe *x, uint32_t bits)
{
    for (uint32_t i = 0; i < SYNC_TRIES && !swsm_take(x); i++)
        time_delay_us(5000);
    ixgbe_wr(x, IXGBE_SW_FW_SYNC, ixgbe_rd(x, IXGBE_SW_FW_SYNC) & ~bits);
    swsm_give(x);
}

/* EERD: the word's address and START, then DONE with the data in 31:16. */
bool ixgbe_eeprom_read(struct ixgbe *x, uint16_t word, uint16_t *out)
{
    if (!ixgbe_sync_take(x, IXGBE_SYNC_EEP))
        return false;
    ixgbe_wr(x, IXGBE_EERD, (uint32_t)word << IXGBE_EERD_ADDR_SHIFT | IXGBE_EERD_START);
    bool done = ixgbe_wait(x, IXGBE_EERD, IXGBE_EERD_DONE, IXGBE_EERD_DONE, EERD_US);
    *out = (uint16_t)(ixgbe_rd(x, IXGBE_EERD) >> IXGBE_EERD_DATA_SHIFT);
    ixgbe_sync_give(x, IXGBE_SYNC_EEP);
    return done;
}

uint64_t ixgbe_read_errors(struct ixgbe *x)
{
    struct ixgbe_errors *e = &x->err;
    uint64_t missed = 0;
    e->crc += ixgbe_rd(x, IXGBE_CRCERRS);
    e->illegal_byte += ixgbe_rd(x, IXGBE_ILLERRC);
    e->error_byte += ixgbe_rd(x, IXGBE_ERRBC);
    e->local_fault += ixgbe_rd(x, IXGBE_MLFC);
    e->remote_fault += ixgbe_rd(x, IXGBE_MRFC);
    e->length += ixgbe_rd(x, IXGBE_RLEC);
    e->undersize += ixgbe_rd(x, IXGBE_RUC);
    e->fragment += ixgbe_rd(x, IXGBE_RFC);
    e->oversize += ixgbe_rd(x, IXGBE_ROC);
    e->jabber += ixgbe_rd(x, IXGBE_RJC);
    e->l3_l4_xsum += ixgbe_rd(x, IXGBE_XEC);
    for (int i = 0; i < IXGBE_PB_COUNT; i++) {
        missed += ixgbe_rd(x, IXGBE_MPC(i));
        e->no_buf += ixgbe_rd(x, IXGBE_RNBC(i));
    }
    for (uint16_t q = 0; q < x->core.pairs; q++)
        e->queue_drop += ixgbe_rd(x, IXGBE_QPRDC(q));
    e->missed += missed;
    return missed;
}
