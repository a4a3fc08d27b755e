/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/ixgbe/ixgbe_nvm.c: the 82599 model's EEPROM (datasheet
 * chapter 6: its map, pointers and checksum; EERD/EEWR in 8.2.3.2) and
 * its SFP+ module: an SFF-8472 10GBASE-SR transceiver that says it is a
 * model, on the I2C bus the driver bit-bangs through I2CCTL.
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "hw/i2c/i2c.h"
#include "ixgbe_int.h"

/* Word offsets (datasheet 6.2, the EEPROM map) */
enum {
    NVM_LAN_CORE0_PTR = 0x09,   /* module with the port's MAC address */
    NVM_FW_PTR = 0x0F,          /* firmware module */
    NVM_PBA0 = 0x15,            /* 0xFAFA: PBA given as a pointer ... */
    NVM_PBA1 = 0x16,            /* ... to a length-prefixed string */
    NVM_PHY_INIT_PTR = 0x2B,    /* SFP+ init lists by module type */
    NVM_DEVICE_CAPS = 0x2C,
    NVM_ETRACK_LO = 0x2D,
    NVM_ETRACK_HI = 0x2E,
    NVM_CHECKSUM = 0x3F,        /* 0xBABA minus the sum (6.3.x) */
    /* our sections, past the fixed header */
    SEC_LAN_CORE0 = 0x100,
    SEC_FW = 0x110,
    SEC_FW_LESM = 0x118,
    SEC_FW_PATCH = 0x120,
    SEC_PBA = 0x130,
    SEC_PHY_INIT = 0x140,
    SEC_PHY_SEQ = 0x150,
};

#define DEVICE_CAPS_ALLOW_ANY_SFP 0x0001  /* no module vendor whitelist */
#define PBA_STRING "HAYATEMDL1"           /* 10 characters, 5 words */
#define ETRACK_ID 0x80000001u             /* NVM version the model reports */

static void put_string(uint16_t *w, const char *str)
{
    for (size_t i = 0; str[i]; i += 2) {
        w[i / 2] = (uint16_t)str[i] << 8 | (uint8_t)(str[i + 1]);
    }
}

/* 6.3.x: the checksum covers words 0..0x3F and every section named by a
 * pointer in words 0x03..0x0E, each section's first word its length. */
static void nvm_fix_checksum(uint16_t *e)
{
    uint16_t sum = 0;

    for (int i = 0; i < NVM_CHECKSUM; i++) {
        sum += e[i];
    }
    for (int p = 0x03; p < NVM_FW_PTR; p++) {
        uint16_t ptr = e[p], len;
        if (ptr == 0 || ptr == 0xFFFF || ptr >= IXGBE_EEPROM_WORDS) {
            continue;
        }
        len = e[ptr];
        if (len == 0 || len == 0xFFFF) {
            continue;
        }
        for (int j = ptr + 1; j <= ptr + len && j < IXGBE_EEPROM_WORDS; j++) {
            sum += e[j];
        }
    }
    e[NVM_CHECKSUM] = 0xBABA - sum;
}

static void nvm_build(IxgbeState *s, const uint8_t *mac)
{
    uint16_t *e = s->eeprom;

    memset(e, 0xFF, sizeof(s->eeprom));   /* erased flash reads all ones */
    e[0x00] = 0x0040;           /* control word 1: signature 01b (7:6) */
    e[0x01] = 0x0000;
    e[0x02] = 0x0000;
    /* pointers 0x03..0x0E: absent (0xFFFF) but for LAN core 0 */
    e[NVM_LAN_CORE0_PTR] = SEC_LAN_CORE0;
    e[SEC_LAN_CORE0] = 3;       /* length, then the MAC address */
    for (int i = 0; i < 3; i++) {
        e[SEC_LAN_CORE0 + 1 + i] = mac[2 * i] | mac[2 * i + 1] << 8;
    }
    /* firmware module: no LESM, pass-through patch version 6 */
    e[NVM_FW_PTR] = SEC_FW;
    e[SEC_FW] = 5;
    e[SEC_FW + 2] = SEC_FW_LESM;
    e[SEC_FW + 4] = SEC_FW_PATCH;
    e[SEC_FW_LESM] = 2;
    e[SEC_FW_LESM + 1] = 0x0000;    /* LESM state: not enabled */
    e[SEC_FW_PATCH] = 8;
    e[SEC_FW_PATCH + 7] = 0x0006;
    /* PBA number as a pointer to a string (6.2.x) */
    e[NVM_PBA0] = 0xFAFA;
    e[NVM_PBA1] = SEC_PBA;
    e[SEC_PBA] = 1 + strlen(PBA_STRING) / 2;
    put_string(&e[SEC_PBA + 1], PBA_STRING);
    /* SFP+ init: list of (module type, sequence) pairs ending 0xFFFF;
     * every type shares one sequence with no CORECTL writes. */
    e[NVM_PHY_INIT_PTR] = SEC_PHY_INIT;
    e[SEC_PHY_INIT] = 0x0000;
    for (int t = 0; t < 7; t++) {
        e[SEC_PHY_INIT + 1 + 2 * t] = t;
        e[SEC_PHY_INIT + 2 + 2 * t] = SEC_PHY_SEQ;
    }
    e[SEC_PHY_INIT + 15] = 0xFFFF;
    e[SEC_PHY_SEQ] = 0x0000;
    e[SEC_PHY_SEQ + 1] = 0xFFFF;
    e[NVM_DEVICE_CAPS] = DEVICE_CAPS_ALLOW_ANY_SFP;
    e[NVM_ETRACK_LO] = ETRACK_ID & 0xFFFF;
    e[NVM_ETRACK_HI] = ETRACK_ID >> 16;
    nvm_fix_checksum(e);
}

/* SFF-8472 page A0 (identification) and A2 (diagnostics). */
/* The module kinds `-device ixgbe,sfp=` offers: what a driver meets in
 * the field, including a module it cannot use. */
static void sfp_kind(IxgbeState *s, uint8_t *a)
{
    switch (s->sfp_kind) {
    case IXGBE_SFP_LR:
        a[2] = 0x07;            /* LC */
        a[3] = 0x20;            /* 10GBASE-LR */
        a[14] = 10;             /* 10 km single mode */
        a[15] = 100;
        memcpy(&a[40], "QEMU-SFP-LR-MDL ", 16);
        stw_be_p(&a[60], 1310);
        break;
    case IXGBE_SFP_DA:
        a[2] = 0x21;            /* copper pigtail */
        a[8] = 0x04;            /* SFP+ passive cable */
        a[18] = 3;              /* 3 m */
        memcpy(&a[40], "QEMU-SFP-DA-MDL ", 16);
        a[60] = 0x01;           /* SFF-8431 appendix E compliant */
        break;
    case IXGBE_SFP_UNKNOWN:
        a[2] = 0x07;            /* an SFP claiming no Ethernet code at all */
        memcpy(&a[40], "QEMU-SFP-UNKNOWN", 16);
        break;
    default:                    /* IXGBE_SFP_SR */
        a[2] = 0x07;
        a[3] = 0x10;            /* 10GBASE-SR */
        a[16] = 8;              /* OM2 80 m, OM1 30 m, OM3 300 m */
        a[17] = 3;
        a[19] = 30;
        memcpy(&a[40], "QEMU-SFP-SR-MDL ", 16);
        stw_be_p(&a[60], 850);  /* wavelength, nm */
        break;
    }
}

/* SFF-8472 page A0 (identification) and A2 (diagnostics). */
static void sfp_build(IxgbeState *s, const uint8_t *mac)
{
    uint8_t *a = s->sfp_a0, *d = s->sfp_a2;
    uint8_t sum = 0;
    char sn[17];

    memset(a, 0, 256);
    a[0] = 0x03;                /* identifier: SFP/SFP+ */
    a[1] = 0x04;                /* extended identifier: serial ID */
    a[11] = 0x06;               /* encoding: 64B/66B */
    a[12] = 0x67;               /* nominal rate 10.3 Gb/s */
    memcpy(&a[20], "HAYATE MODEL    ", 16);   /* vendor name */
    memcpy(&a[56], "1.0 ", 4);
    sfp_kind(s, a);
    for (int i = 0; i < 63; i++) {
        sum += a[i];
    }
    a[63] = sum;                /* CC_BASE */
    a[65] = 0x1A;               /* RX_LOS, TX_FAULT, TX_DISABLE */
    snprintf(sn, sizeof(sn), "MDL%02X%02X%02X%-7s", mac[3], mac[4], mac[5], "");
    memcpy(&a[68], sn, 16);
    memcpy(&a[84], "261128  ", 8);           /* date code */
    a[92] = 0x68;               /* DDM, internally calibrated, avg power */
    a[93] = 0x00;
    a[94] = 0x05;               /* SFF-8472 rev 11.0 */
    sum = 0;
    for (int i = 64; i < 95; i++) {
        sum += a[i];
    }
    a[95] = sum;                /* CC_EXT */

    memset(d, 0, 256);
    d[96] = 37;                 /* temperature 37 C */
    d[98] = 33000 >> 8;         /* Vcc 3.3 V in 100 uV */
    d[99] = 33000 & 0xFF;
    d[100] = 3000 >> 8;         /* TX bias 6 mA in 2 uA */
    d[101] = 3000 & 0xFF;
    d[102] = 5000 >> 8;         /* TX power 0.5 mW in 0.1 uW */
    d[103] = 5000 & 0xFF;
    d[104] = 4000 >> 8;         /* RX power 0.4 mW */
    d[105] = 4000 & 0xFF;
    sum = 0;
    for (int i = 0; i < 95; i++) {
        sum += d[i];
    }
    d[95] = sum;                /* CC_DMI */
}

void ixgbe_nvm_init(IxgbeState *s, const uint8_t *macaddr)
{
    nvm_build(s, macaddr);
    sfp_build(s, macaddr);
}

/* What the hardware loads from the EEPROM at reset (4.6.3, 6.x):
 * RAR0 from the LAN core module's MAC address. */
void ixgbe_nvm_load_defaults(IxgbeState *s)
{
    const uint16_t *m = &s->eeprom[s->eeprom[NVM_LAN_CORE0_PTR] + 1];
    hwaddr rar = ixgbe_rar_off(0);

    s->mac[rar >> 2] = m[0] | (uint32_t)m[1] << 16;
    s->mac[(rar + 4) >> 2] = m[2] | IXGBE_RAH_AV;
}

/* 8.2.3.2.2 EERD: the read completes at once, DONE with the data. */
void ixgbe_eerd_write(IxgbeState *s, uint32_t val)
{
    uint32_t addr = (val >> IXGBE_EERW_ADDR_SHIFT) & 0x3FFF;

    if (!(val & IXGBE_EERW_START)) {
        s->mac[IXGBE_EERD >> 2] = val & ~IXGBE_EERW_DONE;
        return;
    }
    if (addr >= IXGBE_EEPROM_WORDS) {
        ixgbe_guest_error(s, &s->strict.other,
                          "EERD: word 0x%x past the EEPROM's 0x%x", addr,
                          IXGBE_EEPROM_WORDS);
        s->mac[IXGBE_EERD >> 2] = (val & 0xFFFC) | IXGBE_EERW_DONE |
                                  0xFFFF0000u;
        return;
    }
    s->mac[IXGBE_EERD >> 2] = (addr << IXGBE_EERW_ADDR_SHIFT) |
        IXGBE_EERW_DONE | (uint32_t)s->eeprom[addr] << IXGBE_EERW_DATA_SHIFT;
}

/* 8.2.3.2.3 EEWR: writes the word (not kept past the VM). */
void ixgbe_eewr_write(IxgbeState *s, uint32_t val)
{
    uint32_t addr = (val >> IXGBE_EERW_ADDR_SHIFT) & 0x3FFF;

    if (val & IXGBE_EERW_START) {
        if (addr < IXGBE_EEPROM_WORDS) {
            s->eeprom[addr] = val >> IXGBE_EERW_DATA_SHIFT;
        }
    }
    s->mac[IXGBE_EEWR >> 2] = (val & ~IXGBE_EERW_START) | IXGBE_EERW_DONE;
}

/* The module: one I2C target per SFF-8472 page (0xA0 -> 0x50, 0xA2 ->
 * 0x51); a write sets the byte offset, reads return bytes from there. */
#define TYPE_IXGBE_SFP_PAGE "ixgbe-sfp-page"
OBJECT_DECLARE_SIMPLE_TYPE(IxgbeSfpPage, IXGBE_SFP_PAGE)

struct IxgbeSfpPage {
    I2CSlave parent_obj;
    uint8_t *page;
    uint8_t offset;
    bool offset_next;
    bool present;
};

static int sfp_event(I2CSlave *i2c, enum i2c_event event)
{
    IxgbeSfpPage *p = IXGBE_SFP_PAGE(i2c);

    if (!p->present) {
        return -1;              /* empty cage: nobody answers (NACK) */
    }
    if (event == I2C_START_SEND) {
        p->offset_next = true;
    }
    return 0;
}

static int sfp_send(I2CSlave *i2c, uint8_t data)
{
    IxgbeSfpPage *p = IXGBE_SFP_PAGE(i2c);

    if (p->offset_next) {
        p->offset = data;
        p->offset_next = false;
    }
    /* further bytes would be writes: the ID page is read-only */
    return 0;
}

static uint8_t sfp_recv(I2CSlave *i2c)
{
    IxgbeSfpPage *p = IXGBE_SFP_PAGE(i2c);

    return p->page ? p->page[p->offset++] : 0xFF;
}

static void sfp_class_init(ObjectClass *klass, void *data)
{
    I2CSlaveClass *k = I2C_SLAVE_CLASS(klass);

    k->event = sfp_event;
    k->send = sfp_send;
    k->recv = sfp_recv;
    DEVICE_CLASS(klass)->user_creatable = false;   /* part of ixgbe */
}

static const TypeInfo sfp_page_info = {
    .name = TYPE_IXGBE_SFP_PAGE,
    .parent = TYPE_I2C_SLAVE,
    .instance_size = sizeof(IxgbeSfpPage),
    .class_init = sfp_class_init,
};

static void sfp_register_types(void)
{
    type_register_static(&sfp_page_info);
}
type_init(sfp_register_types)

void ixgbe_sfp_realize(IxgbeState *s)
{
    static const uint8_t addr[2] = { 0x50, 0x51 };
    uint8_t *pages[2] = { s->sfp_a0, s->sfp_a2 };

    s->i2c = i2c_init_bus(DEVICE(s), "sfp-i2c");
    bitbang_i2c_init(&s->bitbang, s->i2c);
    for (int i = 0; i < 2; i++) {
        I2CSlave *dev = i2c_slave_new(TYPE_IXGBE_SFP_PAGE, addr[i]);
        IXGBE_SFP_PAGE(dev)->page = pages[i];
        IXGBE_SFP_PAGE(dev)->present = s->sfp_kind != IXGBE_SFP_NONE;
        i2c_slave_realize_and_unref(dev, s->i2c, &error_fatal);
    }
    s->i2c_scl = s->i2c_sda = s->i2c_sda_in = 1;
}

/* I2CCTL (8.2.3.1.x): CLK_OUT and DATA_OUT drive the open-drain lines;
 * CLK_IN and DATA_IN read them back (the module never stretches SCL). */
void ixgbe_i2cctl_write(IxgbeState *s, uint32_t val)
{
    int scl = !!(val & IXGBE_I2C_CLK_OUT), sda = !!(val & IXGBE_I2C_DATA_OUT);

    /* a falling clock goes first, a rising one last: data moves while
     * SCL is low unless the driver means a START or STOP */
    if (scl != s->i2c_scl && !scl) {
        s->i2c_sda_in = bitbang_i2c_set(&s->bitbang, BITBANG_I2C_SCL, 0);
    }
    if (sda != s->i2c_sda) {
        s->i2c_sda_in = bitbang_i2c_set(&s->bitbang, BITBANG_I2C_SDA, sda);
    }
    if (scl != s->i2c_scl && scl) {
        s->i2c_sda_in = bitbang_i2c_set(&s->bitbang, BITBANG_I2C_SCL, 1);
    }
    s->i2c_scl = scl;
    s->i2c_sda = sda;
    s->mac[IXGBE_I2CCTL >> 2] = val & (IXGBE_I2C_CLK_OUT | IXGBE_I2C_DATA_OUT);
}

uint32_t ixgbe_i2cctl_read(IxgbeState *s)
{
    uint32_t v = s->mac[IXGBE_I2CCTL >> 2];

    if (s->i2c_scl) {
        v |= IXGBE_I2C_CLK_IN;
    }
    if (s->i2c_sda && s->i2c_sda_in) {
        v |= IXGBE_I2C_DATA_IN;
    }
    return v;
}
