/* SPDX-License-Identifier: MIT */
/* drivers/sff/sff8472.c: an SFP/SFP+ module's ID bytes read
 * (drivers/sff/sff8472.h), by SFF-8472's table 4-1 (the A0h map) and table
 * 5-3 (the transceiver compliance codes). */
#include "drivers/sff/sff8472.h"

enum {
    SFF_IDENTIFIER = 0,
    SFF_10G_CODES = 3,   /* bit 4 SR, 5 LR, 6 LRM, 7 ER */
    SFF_1G_CODES = 6,    /* bit 0 SX, 1 LX, 2 CX, 3 T */
    SFF_CABLE_TECH = 8,  /* bit 2 passive, 3 active (SFP+ direct attach) */
    SFF_BIT_RATE = 12,   /* nominal, in 100 Mb/s */
    SFF_VENDOR = 20,
    SFF_PART = 40,
    SFF_SERIAL = 68,
    SFF_FIELD = 16,
    SFF_CC_BASE = 63,
};

/* An ASCII field, its padding (spaces, NULs) cut, anything unprintable as
 * '?': these strings go to the console and into JSON. */
static void field(char *out, const uint8_t *in)
{
    int len = SFF_FIELD;
    while (len > 0 && (in[len - 1] == ' ' || in[len - 1] == 0))
        len--;
    for (int i = 0; i < len; i++)
        out[i] = in[i] >= 0x20 && in[i] < 0x7f && in[i] != '"' && in[i] != '\\' ? (char)in[i] : '?';
    out[len] = 0;
}

static void classify(const uint8_t *b, struct sff8472_module *m)
{
    static const char *const ten[4] = {"10GBASE-SR", "10GBASE-LR", "10GBASE-LRM", "10GBASE-ER"};
    static const char *const one[4] = {"1000BASE-SX", "1000BASE-LX", "1000BASE-CX", "1000BASE-T"};
    m->kind = "unknown";
    m->ten_gig = false;
    for (int i = 0; i < 4; i++)
        if (b[SFF_10G_CODES] & (0x10u << i)) {
            m->kind = ten[i];
            m->ten_gig = true;
            return;
        }
    if (b[SFF_CABLE_TECH] & 0x0c) { /* a cable: 10 GbE when its rate says so */
        m->kind = b[SFF_CABLE_TECH] & 0x04 ? "direct attach copper, passive" : "direct attach, active";
        m->ten_gig = b[SFF_BIT_RATE] >= 100;
        return;
    }
    for (int i = 0; i < 4; i++)
        if (b[SFF_1G_CODES] & (1u << i)) {
            m->kind = one[i];
            return;
        }
}

void sff8472_parse(const uint8_t id[SFF8472_ID_BYTES], struct sff8472_module *m)
{
    m->identifier = id[SFF_IDENTIFIER];
    classify(id, m);
    field(m->vendor, id + SFF_VENDOR);
    field(m->part, id + SFF_PART);
    field(m->serial, id + SFF_SERIAL);
    uint8_t sum = 0;
    for (int i = 0; i < SFF_CC_BASE; i++)
        sum = (uint8_t)(sum + id[i]);
    m->checksum_ok = sum == id[SFF_CC_BASE];
}
