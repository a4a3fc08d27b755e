/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/ixgbe/ixgbe_int.h: the 82599 model's state and the calls
 * between its parts (ixgbe.c registers and PCI, ixgbe_nvm.c EEPROM and
 * SFP+ module, ixgbe_intr.c interrupts, ixgbe_rx.c, ixgbe_tx.c).
 */
#ifndef HW_NET_IXGBE_INT_H
#define HW_NET_IXGBE_INT_H

#include "hw/pci/pci_device.h"
#include "hw/i2c/bitbang_i2c.h"
#include "net/net.h"
#include "qemu/timer.h"
#include "ixgbe_regs.h"

#define TYPE_IXGBE "ixgbe"
OBJECT_DECLARE_SIMPLE_TYPE(IxgbeState, IXGBE)

struct NetTxPkt;
struct NetRxPkt;

/* What a TX queue keeps between descriptors of one packet (7.2.3). */
typedef struct IxgbeTxCtx {
    uint32_t vlan_macip_lens;   /* context descriptor words, by IDX */
    uint32_t type_tucmd;
    uint32_t mss_l4len;
} IxgbeTxCtx;

typedef struct IxgbeTxQueue {
    struct NetTxPkt *pkt;
    IxgbeTxCtx ctx[2];
    bool in_packet;             /* a packet's first descriptor was seen */
    bool tse, ixsm, txsm, vle;
    uint16_t vlan;
    uint8_t ctx_idx;
    bool bad;                   /* a descriptor of it was malformed */
} IxgbeTxQueue;

typedef struct IxgbeStrictCounts {
    uint32_t tail_before_enable;    /* RDT/TDT moved, queue not enabled */
    uint32_t tx_enable_before_te;   /* TXDCTL.ENABLE, DMATXCTL.TE clear */
    uint32_t rx_enable_unready;     /* RXDCTL.ENABLE with no ring set */
    uint32_t reset_while_master;    /* CTRL.RST without GIO master off */
    uint32_t eerd_while_busy;       /* EERD start, read in flight */
    uint32_t semaphore_misuse;      /* SW_FW_SYNC written w/o SWSM */
    uint32_t bad_descriptor;        /* a descriptor the datasheet forbids */
    uint32_t other;
    uint32_t pfmbmem_unlocked;      /* PFMBMEM written without PFU */
    uint32_t vfmbmem_unlocked;      /* VFMBMEM written without VFU */
    uint32_t vf_unmapped;           /* a VF queue access with no pool */
} IxgbeStrictCounts;

/* One VF as the device sees it (7.10, 8.3): its mailbox bits, its
 * interrupt registers, its counters. Its queues are its pool's. */
typedef struct IxgbeVf {
    uint32_t mbx;               /* VFMAILBOX: VFU, PFSTS, PFACK, RSTD */
    bool pfu;                   /* PFMAILBOX.PFU */
    uint8_t eicr, eims, eiac, eiam;
    uint32_t ivar[4], ivar_misc, eitr[IXGBE_VF_VECTORS];
    uint64_t gprc, gptc, gorc, gotc, mprc;
} IxgbeVf;

/* The SFP+ cage's content (-device ixgbe,sfp=sr|lr|da|unknown|none) */
typedef enum IxgbeSfpKind {
    IXGBE_SFP_SR, IXGBE_SFP_LR, IXGBE_SFP_DA, IXGBE_SFP_UNKNOWN, IXGBE_SFP_NONE,
} IxgbeSfpKind;

struct IxgbeState {
    PCIDevice parent_obj;
    NICState *nic;
    NICConf conf;

    MemoryRegion mmio, msix, io;
    uint32_t ioaddr;

    uint32_t mac[IXGBE_BAR0_SIZE / 4];  /* plain registers, by offset */
    uint16_t eeprom[IXGBE_EEPROM_WORDS];
    uint8_t sfp_a0[256], sfp_a2[256];   /* SFF-8472 pages */

    /* interrupts: 64 vector causes (EICR 15:0 alias 0..15 in MSI-X) */
    uint64_t vec_cause, vec_mask, vec_autoclear, vec_automask;
    uint32_t misc_cause;        /* EICR 31:16 */
    uint32_t misc_mask;         /* EIMS 31:16 */
    QEMUTimer *eitr_timer[IXGBE_MSIX_VECTORS];
    bool eitr_pending[IXGBE_MSIX_VECTORS];

    /* SFP+ I2C: our SCL/SDA drive and what the bus returns */
    I2CBus *i2c;
    bitbang_i2c_interface bitbang;
    int i2c_scl, i2c_sda, i2c_sda_in;

    IxgbeTxQueue txq[IXGBE_NUM_QUEUES];
    struct NetRxPkt *rx_pkt;
    bool link_up;
    uint32_t gorc_hi_latch, gotc_hi_latch, tor_hi_latch;
    IxgbeStrictCounts strict;
    char *sfp;                  /* property: the module kind, by name */
    bool sriov;                 /* property: the SR-IOV capability */
    bool pf_reset_done;         /* CTRL_EXT.PFRSTD since the last reset */
    uint64_t qde[2];            /* QDE: per-queue drop enable */
    IxgbeVf vf[IXGBE_MAX_VFS];
    IxgbeSfpKind sfp_kind;
};

/* ixgbe.c */
void ixgbe_guest_error(IxgbeState *s, uint32_t *counter, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);
static inline uint32_t ixgbe_reg(IxgbeState *s, hwaddr off)
{
    return s->mac[off >> 2];
}
static inline void ixgbe_stat_add(IxgbeState *s, hwaddr off, uint32_t n)
{
    s->mac[off >> 2] += n;
}
void ixgbe_stat_add64(IxgbeState *s, hwaddr lo, uint64_t n);
hwaddr ixgbe_rxq_base(int q);
hwaddr ixgbe_srrctl_off(int q);
hwaddr ixgbe_rar_off(int n);

/* ixgbe_pool.c: VT mode, pools, the switch between them (7.10.3) */
bool ixgbe_vt_on(IxgbeState *s);
int ixgbe_pool_qpp(IxgbeState *s);
int ixgbe_vf_qpp(IxgbeState *s);
int ixgbe_num_vfs(IxgbeState *s);
int ixgbe_queue_vf(IxgbeState *s, int q);
uint64_t ixgbe_pool_select(IxgbeState *s, const uint8_t *frame, size_t len);
int ixgbe_pool_tx(IxgbeState *s, int q, const struct iovec *iov, int iovcnt);
bool ixgbe_queue_drops(IxgbeState *s, int q, uint32_t srrctl);
bool ixgbe_pool_read(IxgbeState *s, hwaddr off, uint32_t *val);
bool ixgbe_pool_write(IxgbeState *s, hwaddr off, uint32_t val);

/* ixgbe_mbx.c: the PF/VF mailboxes, VF reset and FLR (7.10.2) */
void ixgbe_mbx_reset(IxgbeState *s);
bool ixgbe_mbx_read(IxgbeState *s, hwaddr off, uint32_t *val);
bool ixgbe_mbx_write(IxgbeState *s, hwaddr off, uint32_t val);
uint32_t ixgbe_vf_mbx_read(IxgbeState *s, int n);
void ixgbe_vf_mbx_write(IxgbeState *s, int n, uint32_t val);
void ixgbe_vf_mbmem_write(IxgbeState *s, int n, int word, uint32_t val);
void ixgbe_pf_reset_done(IxgbeState *s);
void ixgbe_vf_reset(IxgbeState *s, int n, bool flr);

/* ixgbe_vf.c: the VF function (8086:10ED) and its register file */
#define TYPE_IXGBEVF "ixgbevf"
void ixgbe_vf_raise(IxgbeState *s, int n, int vec);
bool ixgbe_vf_raise_queue(IxgbeState *s, int q, bool tx);
void ixgbe_vf_raise_mbx(IxgbeState *s, int n);
void ixgbe_vf_count_rx(IxgbeState *s, int q, const uint8_t *da, size_t len);
void ixgbe_vf_count_tx(IxgbeState *s, int q, size_t len);
bool ixgbe_sriov_realize(IxgbeState *s, Error **errp);

/* ixgbe_nvm.c */
void ixgbe_nvm_init(IxgbeState *s, const uint8_t *macaddr);
void ixgbe_nvm_load_defaults(IxgbeState *s);
void ixgbe_eerd_write(IxgbeState *s, uint32_t val);
void ixgbe_eewr_write(IxgbeState *s, uint32_t val);
void ixgbe_sfp_realize(IxgbeState *s);
void ixgbe_i2cctl_write(IxgbeState *s, uint32_t val);
uint32_t ixgbe_i2cctl_read(IxgbeState *s);

/* ixgbe_intr.c */
void ixgbe_intr_reset(IxgbeState *s);
void ixgbe_intr_uninit(IxgbeState *s);
void ixgbe_intr_init(IxgbeState *s);
bool ixgbe_intr_read(IxgbeState *s, hwaddr off, uint32_t *val);
bool ixgbe_intr_write(IxgbeState *s, hwaddr off, uint32_t val);
void ixgbe_raise_misc(IxgbeState *s, uint32_t cause);
void ixgbe_raise_queue(IxgbeState *s, int queue, bool tx);
void ixgbe_raise_mailbox(IxgbeState *s);

/* ixgbe_rx.c */
void ixgbe_rx_init(IxgbeState *s);
void ixgbe_rx_uninit(IxgbeState *s);
bool ixgbe_can_receive(NetClientState *nc);
ssize_t ixgbe_receive_iov(NetClientState *nc, const struct iovec *iov,
                          int iovcnt);
ssize_t ixgbe_receive(NetClientState *nc, const uint8_t *buf, size_t size);
void ixgbe_rx_queue_write(IxgbeState *s, int q, hwaddr reg, uint32_t val);
void ixgbe_rx_local(IxgbeState *s, uint64_t pools, const uint8_t *frame,
                    size_t len);

/* ixgbe_tx.c */
void ixgbe_tx_init(IxgbeState *s);
void ixgbe_tx_uninit(IxgbeState *s);
void ixgbe_tx_reset(IxgbeState *s);
void ixgbe_tx_queue_write(IxgbeState *s, int q, hwaddr reg, uint32_t val);
void ixgbe_dmatxctl_write(IxgbeState *s, uint32_t val);
void ixgbe_tx_queue_stop(IxgbeState *s, int q);

/* ixgbe.c, for the VF's register file */
uint64_t ixgbe_csr_read(IxgbeState *s, hwaddr off);
void ixgbe_csr_write(IxgbeState *s, hwaddr off, uint32_t val);
uint32_t ixgbe_links_value(IxgbeState *s);

#endif
