/* SPDX-License-Identifier: MIT */
/* drivers/intel/ixgbe_sfp.c: the SFP+ module in an 82599 port's cage,
 * read over the two-wire bus the 82599 leaves to software (I2CCTL: clock
 * and data out, their levels in), as SFF-8472 lays out its ID EEPROM at
 * address A0h (parsed by drivers/sff/sff8472.c). Every module is logged with its type, vendor, part and
 * serial number; none is refused. One that cannot carry 10 GbE is said to
 * be so, and the port is set up all the same. Before link set-up the
 * module's PHY initialisation sequence, which the EEPROM keeps per module
 * type, is written to CORECTL (ixgbe_sfp_phy_init). */
#include "drivers/intel/ixgbe_dev.h"

#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/time.h"

#define I2C_HALF_US 5u      /* 100 kHz standard mode: 5 us a half period */
#define I2C_STRETCH_US 500u /* a slave may hold the clock low this long */
#define SFF_ADDR 0xa0u      /* the ID EEPROM (SFF-8472 4.1); A2h holds diagnostics */
#define NVM_PHY_INIT 0x2bu  /* EEPROM word: the SFP+ PHY init list */
#define NVM_END 0xffffu     /* ends the list and each sequence */
#define SEQ_MAX_WORDS 256u  /* bound on a sequence: a corrupt EEPROM ends here */
#define CORECTL 0x14f00u

/* Drives the open-drain lines (1: released) and waits half a period; the
 * read in between pushes the write out first (specification update,
 * "serial interfaces programmed by bit banging"). */
static void lines(struct ixgbe *x, bool clk, bool data)
{
    uint32_t v = ixgbe_rd(x, IXGBE_I2CCTL) & ~(IXGBE_I2C_CLK_OUT | IXGBE_I2C_DATA_OUT);
    v |= (clk ? IXGBE_I2C_CLK_OUT : 0) | (data ? IXGBE_I2C_DATA_OUT : 0);
    ixgbe_wr(x, IXGBE_I2CCTL, v);
    (void)ixgbe_rd(x, IXGBE_I2CCTL);
    time_delay_us(I2C_HALF_US);
}

/* The clock released and, unless the slave stretches it too long, high. */
static bool clock_high(struct ixgbe *x, bool data)
{
    lines(x, true, data);
    return ixgbe_wait(x, IXGBE_I2CCTL, IXGBE_I2C_CLK_IN, IXGBE_I2C_CLK_IN, I2C_STRETCH_US);
}

static void start(struct ixgbe *x)
{
    lines(x, true, true);
    lines(x, true, false); /* data falls while the clock is high */
    lines(x, false, false);
}

static void stop(struct ixgbe *x)
{
    lines(x, false, false);
    lines(x, true, false);
    lines(x, true, true); /* data rises while the clock is high */
}

/* One bit out (data set while the clock is low), or in (data released,
 * sampled while the clock is high). */
static bool bit_io(struct ixgbe *x, bool out, bool *in)
{
    lines(x, false, out);
    if (!clock_high(x, out))
        return false;
    *in = (ixgbe_rd(x, IXGBE_I2CCTL) & IXGBE_I2C_DATA_IN) != 0;
    lines(x, false, out);
    return true;
}

/* A byte out, MSB first; true when the slave acknowledged it. */
static bool byte_out(struct ixgbe *x, uint8_t b)
{
    bool in;
    for (int i = 7; i >= 0; i--)
        if (!bit_io(x, (b >> i) & 1, &in))
            return false;
    return bit_io(x, true, &in) && !in; /* ACK: the slave pulls data low */
}

/* A byte in, then our ACK (more to come) or NACK (the last). */
static bool byte_in(struct ixgbe *x, bool ack, uint8_t *b)
{
    bool in;
    *b = 0;
    for (int i = 0; i < 8; i++) {
        if (!bit_io(x, true, &in))
            return false;
        *b = (uint8_t)(*b << 1 | in);
    }
    return bit_io(x, !ack, &in);
}

/* n bytes from offset off of the device at addr: a random read, then
 * sequential ones (SFF-8472 4.1, the two-wire protocol of AT24C02-type
 * EEPROMs). */
static bool i2c_read(struct ixgbe *x, uint8_t addr, uint8_t off, uint8_t *buf, uint32_t n)
{
    bool ok = false;
    start(x);
    if (byte_out(x, addr) && byte_out(x, off)) {
        start(x); /* repeated start, now reading */
        ok = byte_out(x, addr | 1);
        for (uint32_t i = 0; ok && i < n; i++)
            ok = byte_in(x, i + 1 < n, &buf[i]);
    }
    stop(x);
    return ok;
}

bool ixgbe_sfp_identify(struct ixgbe *x)
{
    struct ixgbe_sfp *sfp = &x->sfp;
    const struct sff8472_module *m = &sfp->m;
    memset(sfp, 0, sizeof *sfp);
    if (!ixgbe_sync_take(x, x->phy_sync))
        return false;
    sfp->present = i2c_read(x, SFF_ADDR, 0, sfp->id, sizeof sfp->id);
    ixgbe_sync_give(x, x->phy_sync);
    const char *who = x->core.where;
    if (!sfp->present) {
        if (x->link_restarts == 0) /* the watchdog asks again every 3 s: said once */
            kprintf("%s: no SFP+ module answers in the cage\n", who);
        return false;
    }
    sff8472_parse(sfp->id, &sfp->m);
    kprintf("%s: SFP+ module: %s, vendor \"%s\", part \"%s\", serial \"%s\"%s\n", who, m->kind, m->vendor,
            m->part, m->serial, m->checksum_ok ? "" : " (its ID checksum is wrong)");
    if (m->identifier != 0x03)
        kprintf("%s: the module's identifier is 0x%x, not SFP/SFP+ (3); going on\n", who, m->identifier);
    if (!m->ten_gig)
        kprintf("%s: this module does not say it carries 10 GbE; the port is set up for 10 GbE all the same\n",
                who);
    return true;
}

/* The init list's module types (the EEPROM map's SFP+ PHY init list, the
 * codes Intel's drivers share): 3/4 direct-attach copper on LAN port 0/1,
 * 5/6 SR/LR, which every other module (optical, active cable, 1 GbE)
 * takes too. SFF-8472 byte 8 bit 2: a passive cable. */
static uint16_t init_type(const struct ixgbe *x)
{
    bool passive = (x->sfp.id[8] & 0x04) != 0;
    return (uint16_t)((passive ? 3 : 5) + (x->lan_id & 1));
}

void ixgbe_sfp_phy_init(struct ixgbe *x)
{
    struct ixgbe_sfp *sfp = &x->sfp;
    uint16_t list, id, seq = 0, w;
    sfp->init_type = init_type(x);
    sfp->init_words = 0;
    sfp->init_found = false;
    if (!ixgbe_eeprom_read(x, NVM_PHY_INIT, &list) || list == 0 || list == NVM_END) {
        kprintf("%s: the EEPROM has no SFP+ init list; link set-up without it\n", x->core.where);
        return;
    }
    /* The list: one word, then (type, sequence) pairs until NVM_END. */
    for (uint16_t at = (uint16_t)(list + 1); at < list + 2 * 64 && ixgbe_eeprom_read(x, at, &id) && id != NVM_END;
         at = (uint16_t)(at + 2)) {
        if (id == sfp->init_type && ixgbe_eeprom_read(x, (uint16_t)(at + 1), &seq))
            break;
    }
    if (id != sfp->init_type || seq == 0 || seq == NVM_END) {
        kprintf("%s: the EEPROM has no init sequence for this module (type %u); link set-up without it\n",
                x->core.where, sfp->init_type);
        return;
    }
    sfp->init_found = true;
    /* The sequence: one word, then CORECTL values until NVM_END, written
     * while the firmware keeps off the MAC's registers. */
    if (!ixgbe_sync_take(x, IXGBE_SYNC_MAC_CSR))
        return;
    for (uint16_t at = (uint16_t)(seq + 1); sfp->init_words < SEQ_MAX_WORDS && ixgbe_eeprom_read(x, at, &w) &&
                                            w != NVM_END;
         at++) {
        ixgbe_wr(x, CORECTL, w);
        (void)ixgbe_rd(x, IXGBE_STATUS); /* each write out before the next */
        sfp->init_words++;
    }
    ixgbe_sync_give(x, IXGBE_SYNC_MAC_CSR);
}
