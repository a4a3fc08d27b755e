/* SPDX-License-Identifier: MIT */
/* drivers/sff/sff8472.h: what an SFP/SFP+ module says of itself in its ID
 * EEPROM (SFF-8472 rev 12.4, address A0h, bytes 0-95), parsed from the
 * bytes alone: any NIC driver that can read them (ixgbe over I2CCTL, later
 * mlx5 through its firmware) shares it, and the host tests run it. */
#ifndef DRIVERS_SFF_SFF8472_H
#define DRIVERS_SFF_SFF8472_H

#include <stdbool.h>
#include <stdint.h>

#define SFF8472_ID_BYTES 96

struct sff8472_module {
    uint8_t identifier;       /* byte 0: 3 for SFP/SFP+ */
    const char *kind;         /* "10GBASE-SR", "direct attach copper, passive", "1000BASE-T", "unknown" */
    bool ten_gig;             /* says it carries 10 GbE */
    bool checksum_ok;         /* byte 63 sums bytes 0-62 (CC_BASE) */
    char vendor[17], part[17], serial[17]; /* padding cut, unprintable bytes as '?' */
};

void sff8472_parse(const uint8_t id[SFF8472_ID_BYTES], struct sff8472_module *m);

#endif
