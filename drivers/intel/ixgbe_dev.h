/* SPDX-License-Identifier: MIT */
/* drivers/intel/ixgbe_dev.h: what the 82599 driver's files share (ixgbe.c
 * the set-up and status poll, ixgbe_hw.c the EEPROM, semaphores and reset,
 * ixgbe_sfp.c the SFP+ module, ixgbe_cmds.c `show ixgbe`). The rings are
 * the Intel ring code's (igb_dev.h, igb_rxtx.c), on the 82599's layout.
 * Only drivers/intel includes it. */
#ifndef DRIVERS_INTEL_IXGBE_DEV_H
#define DRIVERS_INTEL_IXGBE_DEV_H

#include "drivers/intel/igb_dev.h"
#include "drivers/intel/ixgbe.h"
#include "drivers/intel/ixgbe_regs.h"
#include "drivers/sff/sff8472.h"

/* The SFP+ module in the cage: its ID EEPROM's bytes and what they say. */
struct ixgbe_sfp {
    bool present;                /* its ID EEPROM answered */
    uint8_t id[SFF8472_ID_BYTES];
    struct sff8472_module m;
    uint16_t init_type;      /* its type in the EEPROM's PHY init list */
    bool init_found;         /* the EEPROM has a sequence for it */
    uint16_t init_words;     /* CORECTL writes that sequence made */
};

/* The MAC's error counters, summed since probe (each register clears when
 * read), under DPDK's names for them (`show ixgbe`). */
struct ixgbe_errors {
    uint64_t crc;            /* rx_crc_errors: CRCERRS */
    uint64_t illegal_byte;   /* rx_illegal_byte_errors: ILLERRC */
    uint64_t error_byte;     /* rx_error_bytes: ERRBC */
    uint64_t local_fault;    /* mac_local_errors: MLFC */
    uint64_t remote_fault;   /* mac_remote_errors: MRFC */
    uint64_t length;         /* rx_length_errors: RLEC */
    uint64_t undersize;      /* rx_undersize_errors: RUC */
    uint64_t fragment;       /* rx_fragment_errors: RFC */
    uint64_t oversize;       /* rx_oversize_errors: ROC */
    uint64_t jabber;         /* rx_jabber_errors: RJC */
    uint64_t missed;         /* rx_missed_errors: MPC, every packet buffer */
    uint64_t no_buf;         /* rx_no_buffer_count: RNBC */
    uint64_t l3_l4_xsum;     /* rx_l3_l4_xsum_error: XEC */
    uint64_t queue_drop;     /* rx_queue_drops: QPRDC of our queues */
};

/* What the PF keeps of each of its VFs (ixgbe_sriov.c). */
struct ixgbe_vf {
    uint8_t mac[6];
    bool cts;                 /* its reset answered: its requests are taken */
    uint8_t api;              /* the mailbox API it negotiated (IXGBE_API_*) */
    uint8_t xcast;            /* the multicast mode it has (IXGBE_XCAST_*) */
    bool untrusted;           /* named multicast groups only, as Linux's default (debug ixgbe-untrust-vfs) */
};

struct ixgbe {
    struct igb core;          /* what the ring code sees: first, dev.priv points here */
    struct pci_dev *pci;
    uint8_t lan_id;           /* the port's function in the device (STATUS.LAN_ID) */
    uint32_t phy_sync;        /* SW_FW_SYNC's bit for this port's PHY (and I2C) */
    uint16_t etrack[2];       /* EEPROM words 0x2d, 0x2e: the NVM's eTrack ID */
    char pba[24];             /* the board's part number (EEPROM words 0x15-0x16) */
    uint32_t autoc, links;    /* as last read */
    struct ixgbe_sfp sfp;
    struct ixgbe_errors err;
    uint64_t down_since_ns;   /* link down since then (0: up) */
    uint32_t link_restarts;   /* the watchdog restarted link set-up */
    uint32_t sync_timeouts;   /* a semaphore the firmware held past our bound */
    bool double_reset;        /* master disable never finished: reset twice */
    uint8_t qpp;              /* with VFs: queues a pool (4 or 2); the PF's pool is core.nvfs */
    struct ixgbe_vf vf[PCI_SRIOV_MAX_VFS];
};

static inline struct ixgbe *to_ixgbe(struct netdev *dev) { return dev->priv; }
static inline uint32_t ixgbe_rd(const struct ixgbe *x, uint32_t reg) { return igb_rd32(&x->core, reg); }
static inline void ixgbe_wr(struct ixgbe *x, uint32_t reg, uint32_t v) { igb_wr32(&x->core, reg, v); }
static inline bool ixgbe_wait(struct ixgbe *x, uint32_t reg, uint32_t mask, uint32_t want, uint32_t us)
{
    return igb_wait_reg(&x->core, reg, mask, want, us);
}

/* ixgbe_hw.c. ixgbe_reset: master disable, device reset, the waits after
 * it (4.6.3.2); false if the device never came back. ixgbe_sync_take /
 * _give: a resource of SW_FW_SYNC (IXGBE_SYNC_*), bounded (1 s; false
 * and counted when the firmware keeps it). ixgbe_eeprom_read: one EEPROM
 * word through EERD, false on timeout. */
bool ixgbe_reset(struct ixgbe *x);
bool ixgbe_sync_take(struct ixgbe *x, uint32_t bits);
void ixgbe_sync_give(struct ixgbe *x, uint32_t bits);
bool ixgbe_eeprom_read(struct ixgbe *x, uint16_t word, uint16_t *out);
/* Adds what the error counters counted since the last call to x->err and
 * returns the packets missed for want of packet-buffer room. */
uint64_t ixgbe_read_errors(struct ixgbe *x);

/* ixgbe_sfp.c: reads the module in the cage into x->sfp and logs it (every
 * module, no vendor list); true when one answered. ixgbe_sfp_phy_init then
 * writes the EEPROM's init sequence for its type to CORECTL, before link
 * set-up (what it found in x->sfp; a missing one is logged). */
bool ixgbe_sfp_identify(struct ixgbe *x);
void ixgbe_sfp_phy_init(struct ixgbe *x);

/* ixgbe_sriov.c: the PF's VFs. ixgbe_sriov_enable, once at probe:
 * enables up to nvfs VFs (PCI functions for ixgbevf) and returns how many.
 * After each reset: ixgbe_sriov_pools before the PF's rings (its pair i is
 * then device queue ixgbe_pf_queue(x, i)), ixgbe_sriov_ready once the PF
 * is up. ixgbe_sriov_link tells the VFs the link changed. */
uint8_t ixgbe_sriov_enable(struct ixgbe *x, uint8_t nvfs);
void ixgbe_sriov_pools(struct ixgbe *x);
void ixgbe_sriov_ready(struct ixgbe *x);
void ixgbe_sriov_link(struct ixgbe *x);
/* `debug ixgbe-untrust-vfs PORT`: every VF of the port untrusted, as a
 * Linux host's are by default, and told to start over. */
bool ixgbe_cmd_untrust_vfs(struct netdev *dev, const struct cli_args *a);
uint16_t ixgbe_pf_queue(const struct ixgbe *x, uint16_t i);
/* ixgbe.c: MAXFRS raised (never lowered: a VF's frames stay welcome
 * until the next reset) to take a VF's frames of up to frame bytes, CRC
 * in, receive paused around it. */
void ixgbe_vf_frame(struct ixgbe *x, uint16_t frame);

/* ixgbe_cmds.c: `show ixgbe [json]` over every port ixgbe_show_add gave. */
void ixgbe_show_add(struct ixgbe *x);
void ixgbe_cmd_show(const struct cli_args *a);

#endif
