/* SPDX-License-Identifier: MIT */
/* tests/unit/drivers/sff8472_module.c: SFP module ID bytes read as
 * SFF-8472 lays them out (drivers/sff/sff8472.c): the kind from the
 * compliance codes, the 10 GbE verdict, the ASCII fields, the checksum. */
#include <string.h>

#include "drivers/sff/sff8472.h"
#include "tests/unit/check.h"

static void put(uint8_t *id, int at, const char *s)
{
    memset(id + at, ' ', 16);
    memcpy(id + at, s, strlen(s));
}

/* A module's ID bytes: identifier 3, the codes given, the strings, CC_BASE. */
static void module(uint8_t id[SFF8472_ID_BYTES], uint8_t ten, uint8_t one, uint8_t cable, uint8_t rate)
{
    memset(id, 0, SFF8472_ID_BYTES);
    id[0] = 0x03;
    id[3] = ten;
    id[6] = one;
    id[8] = cable;
    id[12] = rate;
    put(id, 20, "ACME OPTICS");
    put(id, 40, "SR-10G-85");
    put(id, 68, "SN0001");
    uint8_t sum = 0;
    for (int i = 0; i < 63; i++)
        sum = (uint8_t)(sum + id[i]);
    id[63] = sum;
}

TEST(sff8472_sr_module_is_ten_gig_with_its_strings)
{
    uint8_t id[SFF8472_ID_BYTES];
    struct sff8472_module m;
    module(id, 0x10, 0, 0, 103);
    sff8472_parse(id, &m);
    CHECK_STR(m.kind, "10GBASE-SR");
    CHECK(m.ten_gig);
    CHECK(m.checksum_ok);
    CHECK_EQ(m.identifier, 3);
    CHECK_STR(m.vendor, "ACME OPTICS");
    CHECK_STR(m.part, "SR-10G-85");
    CHECK_STR(m.serial, "SN0001");
}

TEST(sff8472_lr_and_er_codes_named)
{
    uint8_t id[SFF8472_ID_BYTES];
    struct sff8472_module m;
    module(id, 0x20, 0, 0, 103);
    sff8472_parse(id, &m);
    CHECK_STR(m.kind, "10GBASE-LR");
    module(id, 0x80, 0, 0, 103);
    sff8472_parse(id, &m);
    CHECK_STR(m.kind, "10GBASE-ER");
}

TEST(sff8472_direct_attach_ten_gig_by_its_rate)
{
    uint8_t id[SFF8472_ID_BYTES];
    struct sff8472_module m;
    module(id, 0, 0, 0x04, 103); /* passive copper at 10.3 Gb/s */
    sff8472_parse(id, &m);
    CHECK_STR(m.kind, "direct attach copper, passive");
    CHECK(m.ten_gig);
    module(id, 0, 0, 0x08, 12); /* an active cable for 1.2 Gb/s */
    sff8472_parse(id, &m);
    CHECK_STR(m.kind, "direct attach, active");
    CHECK(!m.ten_gig);
}

TEST(sff8472_gigabit_module_is_named_not_ten_gig)
{
    uint8_t id[SFF8472_ID_BYTES];
    struct sff8472_module m;
    module(id, 0, 0x08, 0, 12);
    sff8472_parse(id, &m);
    CHECK_STR(m.kind, "1000BASE-T");
    CHECK(!m.ten_gig);
}

TEST(sff8472_blank_eeprom_unknown_and_bad_checksum_reported)
{
    uint8_t id[SFF8472_ID_BYTES];
    struct sff8472_module m;
    memset(id, 0xff, sizeof id); /* an EEPROM nobody programmed */
    id[3] = 0;
    id[8] = 0;
    id[6] = 0;
    sff8472_parse(id, &m);
    CHECK_STR(m.kind, "unknown");
    CHECK(!m.ten_gig);
    CHECK(!m.checksum_ok);
    CHECK_STR(m.vendor, "????????????????"); /* 0xff is not printable */
}

TEST(sff8472_fields_keep_json_safe_characters_only)
{
    uint8_t id[SFF8472_ID_BYTES];
    struct sff8472_module m;
    module(id, 0x10, 0, 0, 103);
    put(id, 20, "A\"B\\C\x01");
    sff8472_parse(id, &m);
    CHECK_STR(m.vendor, "A?B?C?");
    CHECK(!m.checksum_ok); /* the bytes changed after CC_BASE was summed */
}
