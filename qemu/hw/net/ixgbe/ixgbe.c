/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/ixgbe/ixgbe.c: the Intel 82599 10 GbE controller (X520,
 * SFP+, 8086:10fb) as a QEMU PCIe device: PCI functions and BARs, the
 * register file and its side effects (reset, semaphores, link, statistics),
 * and the strict checks that log a guest's departures from the 82599
 * datasheet. Queues live in ixgbe_rx.c/ixgbe_tx.c, interrupts in
 * ixgbe_intr.c, EEPROM and SFP+ module in ixgbe_nvm.c.
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "hw/pci/pcie.h"
#include "hw/pci/pcie_sriov.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "ixgbe_int.h"

#define IXGBE_DEV_ID_82599_SFP  0x10FB
#define IXGBE_SUBSYS_ID         0x0003  /* as an X520 SR module card */
#define ANLP1_AN_STATE_DONE     (0x4u << IXGBE_ANLP1_AN_STATE_SHIFT)

void ixgbe_guest_error(IxgbeState *s, uint32_t *counter, const char *fmt, ...)
{
    va_list ap;
    char *msg;

    (*counter)++;
    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    qemu_log_mask(LOG_GUEST_ERROR, "ixgbe %s: %s\n",
                  DEVICE(s)->id ? DEVICE(s)->id : "", msg);
    g_free(msg);
}

hwaddr ixgbe_rxq_base(int q)
{
    return q < 64 ? IXGBE_RXQ_LO + 0x40 * q : IXGBE_RXQ_HI + 0x40 * (q - 64);
}

hwaddr ixgbe_srrctl_off(int q)
{
    return ixgbe_rxq_base(q) + IXGBE_RXQ_SRRCTL;
}

hwaddr ixgbe_rar_off(int n)
{
    return IXGBE_RAL0 + 8 * n;
}

void ixgbe_stat_add64(IxgbeState *s, hwaddr lo, uint64_t n)
{
    uint64_t v = s->mac[lo >> 2] | (uint64_t)s->mac[(lo + 4) >> 2] << 32;

    v += n;
    s->mac[lo >> 2] = v;
    s->mac[(lo + 4) >> 2] = v >> 32;
}

/* Registers with a second address (8.2.3: "also mapped at"): fold each
 * alias onto the one storage offset. */
static hwaddr canonical(hwaddr off)
{
    if (off >= IXGBE_SRRCTL_LO && off < IXGBE_SRRCTL_LO + 64) {
        return ixgbe_rxq_base((off - IXGBE_SRRCTL_LO) / 4) + IXGBE_RXQ_SRRCTL;
    }
    if (off >= IXGBE_DCA_RXCTRL_LO && off < IXGBE_DCA_RXCTRL_LO + 64) {
        return ixgbe_rxq_base((off - IXGBE_DCA_RXCTRL_LO) / 4) + IXGBE_RXQ_DCA;
    }
    if (off >= IXGBE_RAL_LO0 && off < IXGBE_RAL_LO0 + 16 * 8) {
        return IXGBE_RAL0 + (off - IXGBE_RAL_LO0);
    }
    if (off == IXGBE_CTRL_ALIAS) {
        return IXGBE_CTRL;
    }
    return off;
}

/* 8.2.3.23: statistics clear when read. */
static bool is_stat(hwaddr off)
{
    if (off >= IXGBE_STATS_LO && off < IXGBE_STATS_HI) {
        return true;
    }
    if (off >= IXGBE_QPTC0 && off < IXGBE_QBTC_L0 + 16 * 8) {
        return true;            /* QPTC, QBTC */
    }
    if (off >= IXGBE_RXQ_LO && off < IXGBE_RXQ_LO + 32 * 0x40) {
        hwaddr r = off & 0x3F;  /* QPRC/QBRC (0..15), QPRDC (16..31) */
        return r >= IXGBE_RXQ_QPRC && r <= IXGBE_RXQ_QBRC_H;
    }
    return false;
}

static bool is_rxq(hwaddr off)
{
    return (off >= IXGBE_RXQ_LO && off < IXGBE_RXQ_LO + 64 * 0x40) ||
           (off >= IXGBE_RXQ_HI && off < IXGBE_RXQ_HI + 64 * 0x40);
}

static bool is_txq(hwaddr off)
{
    return off >= IXGBE_TXQ && off < IXGBE_TXQ + IXGBE_NUM_QUEUES * 0x40;
}

static int rxq_of(hwaddr off)
{
    return off < IXGBE_RXQ_HI ? (off - IXGBE_RXQ_LO) / 0x40
                              : 64 + (off - IXGBE_RXQ_HI) / 0x40;
}

/* LINKS (8.2.3.22.x): 10 Gb/s up whenever the backend's link is. */
static void update_link(IxgbeState *s)
{
    NetClientState *nc = qemu_get_queue(s->nic);
    /* an empty cage or a module no 10G link runs on never links */
    bool up = !nc->link_down && (!nc->peer || !nc->peer->link_down) &&
              s->sfp_kind != IXGBE_SFP_NONE && s->sfp_kind != IXGBE_SFP_UNKNOWN;

    if (up != s->link_up) {
        s->link_up = up;
        ixgbe_raise_misc(s, IXGBE_EICR_LSC);
    }
}

static void ixgbe_set_link_status(NetClientState *nc)
{
    update_link(qemu_get_nic_opaque(nc));
}

uint32_t ixgbe_links_value(IxgbeState *s)
{
    return s->link_up ? IXGBE_LINKS_UP | IXGBE_LINKS_SPEED_10G |
                        IXGBE_LINKS_STATUS | IXGBE_LINKS_KX_AN_COMP : 0;
}

/* Power-on and software reset (4.6.3.1, 4.6.3.2): registers to their
 * defaults, then what the EEPROM auto-load sets. */
static void ixgbe_hw_reset(IxgbeState *s)
{
    memset(s->mac, 0, sizeof(s->mac));
    s->mac[IXGBE_FWSM >> 2] = 0x8000;           /* FW_VAL: firmware ready */
    s->mac[IXGBE_AUTOC >> 2] = IXGBE_AUTOC_LMS_10G_SERIAL;   /* SFI */
    s->mac[IXGBE_AUTOC2 >> 2] = 2u << 16;       /* 10G serial PMA: SFI */
    s->mac[IXGBE_ANLP1 >> 2] = ANLP1_AN_STATE_DONE;
    s->mac[IXGBE_HLREG0 >> 2] = 0x00002403;     /* CRC on, strip, pad */
    s->mac[IXGBE_MAXFRS >> 2] = 1518u << 16;
    s->mac[IXGBE_RDRXCTL >> 2] = IXGBE_RDRXCTL_DMAIDONE;
    s->mac[IXGBE_RXPBSIZE0 >> 2] = 0x80000;     /* 512 KB */
    s->mac[0x0CC00 >> 2] = 0xA0000;             /* TXPBSIZE0: 160 KB */
    s->mac[IXGBE_VLNCTRL >> 2] = 0x8100;        /* VET */
    s->mac[IXGBE_DMATXCTL >> 2] = 0x81000000u;  /* VT 0x8100, TE off */
    s->mac[IXGBE_EEC >> 2] = IXGBE_EEC_PRES | IXGBE_EEC_ARD |
                             (5u << IXGBE_EEC_SIZE_SHIFT);   /* 2K words */
    for (int q = 0; q < IXGBE_NUM_QUEUES; q++) {
        /* 2 KB packet buffers, 256-byte headers, legacy descriptors */
        s->mac[ixgbe_srrctl_off(q) >> 2] = 0x402;
    }
    ixgbe_nvm_load_defaults(s);
    ixgbe_mbx_reset(s);         /* every VF's RSTI set until PFRSTD */
    ixgbe_intr_reset(s);
    ixgbe_tx_reset(s);
    s->i2c_scl = s->i2c_sda = 1;
    s->mac[IXGBE_I2CCTL >> 2] = IXGBE_I2C_CLK_OUT | IXGBE_I2C_DATA_OUT;
    s->link_up = false;
    if (s->nic) {
        update_link(s);
    }
}

static void ctrl_write(IxgbeState *s, uint32_t val)
{
    if (val & (IXGBE_CTRL_RST | IXGBE_CTRL_LRST)) {
        /* 4.6.3.2: master disable (CTRL.GIO_DIS, STATUS.GIO clear) first */
        if (!(s->mac[IXGBE_CTRL >> 2] & IXGBE_CTRL_GIO_DIS) &&
            !(val & IXGBE_CTRL_GIO_DIS)) {
            ixgbe_guest_error(s, &s->strict.reset_while_master,
                              "CTRL.%s without PCIe master disable first",
                              val & IXGBE_CTRL_RST ? "RST" : "LRST");
        }
        ixgbe_hw_reset(s);      /* both bits self-clear at once */
        return;
    }
    s->mac[IXGBE_CTRL >> 2] = val;
}

uint64_t ixgbe_csr_read(IxgbeState *s, hwaddr off)
{
    uint32_t v;

    off = canonical(off & ~3ull);
    if (off >= IXGBE_BAR0_SIZE) {
        return 0;
    }
    if (ixgbe_intr_read(s, off, &v) || ixgbe_mbx_read(s, off, &v) ||
        ixgbe_pool_read(s, off, &v)) {
        return v;
    }
    switch (off) {
    case IXGBE_STATUS:
        v = IXGBE_STATUS_LINKUP * s->link_up;
        if (!(s->mac[IXGBE_CTRL >> 2] & IXGBE_CTRL_GIO_DIS)) {
            v |= IXGBE_STATUS_GIO;
        }
        if (ixgbe_num_vfs(s)) {
            v |= IXGBE_STATUS_IOV;  /* 8.2.3.1.2: the VFs are enabled */
        }
        return v;
    case IXGBE_EEC:
        v = s->mac[off >> 2];
        return v & IXGBE_EEC_REQ ? v | IXGBE_EEC_GNT : v;
    case IXGBE_SWSM:            /* 8.2.3.4.x: reading takes SMBI */
        v = s->mac[off >> 2];
        s->mac[off >> 2] |= IXGBE_SWSM_SMBI;
        return v;
    case IXGBE_I2CCTL:
        return ixgbe_i2cctl_read(s);
    case IXGBE_ESDP:
        /* SDP2, an input on SFP+ boards, reads the module present pin */
        v = s->mac[off >> 2];
        if (v & IXGBE_ESDP_SDP2_DIR || s->sfp_kind == IXGBE_SFP_NONE) {
            return v;
        }
        return v | IXGBE_ESDP_SDP2;
    case IXGBE_LINKS:
        return ixgbe_links_value(s);
    case IXGBE_SECRXSTAT:
        return IXGBE_SECRXSTAT_RDY;
    case IXGBE_SECTXSTAT:
        return IXGBE_SECTXSTAT_RDY;
    }
    v = s->mac[off >> 2];
    if (is_stat(off)) {
        s->mac[off >> 2] = 0;
    }
    return v;
}

void ixgbe_csr_write(IxgbeState *s, hwaddr off, uint32_t val)
{
    off = canonical(off & ~3ull);
    if (off >= IXGBE_BAR0_SIZE || ixgbe_intr_write(s, off, val) ||
        ixgbe_mbx_write(s, off, val) || ixgbe_pool_write(s, off, val)) {
        return;
    }
    if (is_rxq(off) && !is_stat(off)) {
        ixgbe_rx_queue_write(s, rxq_of(off), off & 0x3F, val);
        return;
    }
    if (is_txq(off)) {
        ixgbe_tx_queue_write(s, (off - IXGBE_TXQ) / 0x40, off & 0x3F, val);
        return;
    }
    if (is_stat(off)) {
        return;                 /* read-only */
    }
    switch (off) {
    case IXGBE_CTRL:
        ctrl_write(s, val);
        return;
    case IXGBE_STATUS:
    case IXGBE_LINKS:
    case IXGBE_SECRXSTAT:
    case IXGBE_SECTXSTAT:
    case IXGBE_FWSM:
        return;                 /* read-only */
    case IXGBE_EEC:             /* only the request bit is the driver's */
        s->mac[off >> 2] = (s->mac[off >> 2] & ~IXGBE_EEC_REQ) |
                           (val & IXGBE_EEC_REQ);
        return;
    case IXGBE_EERD:
        ixgbe_eerd_write(s, val);
        return;
    case IXGBE_EEWR:
        ixgbe_eewr_write(s, val);
        return;
    case IXGBE_SWSM:
        s->mac[off >> 2] = val & (IXGBE_SWSM_SMBI | IXGBE_SWSM_SWESMBI);
        return;
    case IXGBE_SW_FW_SYNC:
        /* 10.5.x: software owns SWSM.SWESMBI while it changes SW_FW_SYNC */
        if (!(s->mac[IXGBE_SWSM >> 2] & IXGBE_SWSM_SWESMBI)) {
            ixgbe_guest_error(s, &s->strict.semaphore_misuse,
                              "SW_FW_SYNC written without SWSM.SWESMBI");
        }
        s->mac[off >> 2] = val;
        return;
    case IXGBE_I2CCTL:
        ixgbe_i2cctl_write(s, val);
        return;
    case IXGBE_CTRL_EXT:
        /* 8.2.3.1.3 PFRSTD: its setting tells the VFs the PF is done
         * (each one's RSTD); later writes that keep it say nothing new */
        if (val & ~s->mac[off >> 2] & IXGBE_CTRL_EXT_PFRSTD) {
            ixgbe_pf_reset_done(s);
        }
        s->mac[off >> 2] = val;
        return;
    case IXGBE_AUTOC:
        /* restart AN self-clears; AN leaves state 0 at once (SFI) */
        s->mac[off >> 2] = val & ~IXGBE_AUTOC_AN_RESTART;
        s->mac[IXGBE_ANLP1 >> 2] = ANLP1_AN_STATE_DONE;
        return;
    case IXGBE_RDRXCTL:
        s->mac[off >> 2] = val | IXGBE_RDRXCTL_DMAIDONE;
        return;
    case IXGBE_RXCTRL:
        s->mac[off >> 2] = val;
        if (val & IXGBE_RXCTRL_RXEN) {
            qemu_flush_queued_packets(qemu_get_queue(s->nic));
        }
        return;
    case IXGBE_DMATXCTL:
        ixgbe_dmatxctl_write(s, val);
        return;
    }
    s->mac[off >> 2] = val;
}

static uint64_t ixgbe_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    return ixgbe_csr_read(opaque, addr);
}

static void ixgbe_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                             unsigned size)
{
    ixgbe_csr_write(opaque, addr, val);
}

static const MemoryRegionOps ixgbe_mmio_ops = {
    .read = ixgbe_mmio_read,
    .write = ixgbe_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

/* 9.3.6.2 I/O BAR: IOADDR at 0 selects a CSR, IODATA at 4 reaches it. */
static uint64_t ixgbe_io_read(void *opaque, hwaddr addr, unsigned size)
{
    IxgbeState *s = opaque;

    if (addr == 0) {
        return s->ioaddr;
    }
    return addr == 4 ? ixgbe_csr_read(s, s->ioaddr & 0x1FFFC) : 0;
}

static void ixgbe_io_write(void *opaque, hwaddr addr, uint64_t val,
                           unsigned size)
{
    IxgbeState *s = opaque;

    if (addr == 0) {
        s->ioaddr = val;
    } else if (addr == 4) {
        ixgbe_csr_write(s, s->ioaddr & 0x1FFFC, val);
    }
}

static const MemoryRegionOps ixgbe_io_ops = {
    .read = ixgbe_io_read,
    .write = ixgbe_io_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

static NetClientInfo ixgbe_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = ixgbe_can_receive,
    .receive = ixgbe_receive,
    .receive_iov = ixgbe_receive_iov,
    .link_status_changed = ixgbe_set_link_status,
};

/* The strict counters, readable with qom-get (e.g. by a test). */
static void add_strict_props(IxgbeState *s)
{
    static const struct { const char *name; size_t off; } p[] = {
        { "strict-tail-before-enable",
          offsetof(IxgbeStrictCounts, tail_before_enable) },
        { "strict-tx-enable-before-te",
          offsetof(IxgbeStrictCounts, tx_enable_before_te) },
        { "strict-rx-enable-unready",
          offsetof(IxgbeStrictCounts, rx_enable_unready) },
        { "strict-reset-while-master",
          offsetof(IxgbeStrictCounts, reset_while_master) },
        { "strict-eerd-while-busy",
          offsetof(IxgbeStrictCounts, eerd_while_busy) },
        { "strict-semaphore-misuse",
          offsetof(IxgbeStrictCounts, semaphore_misuse) },
        { "strict-bad-descriptor",
          offsetof(IxgbeStrictCounts, bad_descriptor) },
        { "strict-other", offsetof(IxgbeStrictCounts, other) },
        { "strict-pfmbmem-unlocked",
          offsetof(IxgbeStrictCounts, pfmbmem_unlocked) },
        { "strict-vfmbmem-unlocked",
          offsetof(IxgbeStrictCounts, vfmbmem_unlocked) },
        { "strict-vf-unmapped", offsetof(IxgbeStrictCounts, vf_unmapped) },
    };
    for (size_t i = 0; i < ARRAY_SIZE(p); i++) {
        object_property_add_uint32_ptr(OBJECT(s), p[i].name,
            (uint32_t *)((char *)&s->strict + p[i].off), OBJ_PROP_FLAG_READ);
    }
}

static void ixgbe_realize(PCIDevice *d, Error **errp)
{
    IxgbeState *s = IXGBE(d);
    DeviceState *dev = DEVICE(d);

    static const char *const kinds[] = { "sr", "lr", "da", "unknown", "none" };
    s->sfp_kind = IXGBE_SFP_SR;
    if (s->sfp) {
        size_t k;
        for (k = 0; k < ARRAY_SIZE(kinds) && strcmp(s->sfp, kinds[k]); k++) {
        }
        if (k == ARRAY_SIZE(kinds)) {
            error_setg(errp, "ixgbe: sfp=%s: sr, lr, da, unknown or none",
                       s->sfp);
            return;
        }
        s->sfp_kind = k;
    }
    d->config[PCI_CACHE_LINE_SIZE] = 0x10;
    pci_config_set_interrupt_pin(d->config, 1);

    /* 9.3.6: BAR0 64-bit CSR, BAR2 I/O, BAR4 64-bit MSI-X */
    memory_region_init_io(&s->mmio, OBJECT(s), &ixgbe_mmio_ops, s,
                          "ixgbe-mmio", IXGBE_BAR0_SIZE);
    pci_register_bar(d, 0, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->mmio);
    memory_region_init_io(&s->io, OBJECT(s), &ixgbe_io_ops, s,
                          "ixgbe-io", IXGBE_IO_BAR_SIZE);
    pci_register_bar(d, 2, PCI_BASE_ADDRESS_SPACE_IO, &s->io);
    memory_region_init(&s->msix, OBJECT(s), "ixgbe-msix", IXGBE_MSIX_BAR_SIZE);
    pci_register_bar(d, 4, PCI_BASE_ADDRESS_MEM_TYPE_64, &s->msix);

    /* 9.3.x capability list: PM 0x40, MSI 0x50, MSI-X 0x70, PCIe 0xA0;
     * extended: AER 0x100, ARI 0x150 */
    if (pcie_endpoint_cap_init(d, 0xA0) < 0) {
        error_setg(errp, "ixgbe: PCIe capability");
        return;
    }
    if (msix_init(d, IXGBE_MSIX_VECTORS, &s->msix, 4, 0, &s->msix, 4, 0x2000,
                  0x70, errp) < 0) {
        return;
    }
    if (msi_init(d, 0x50, 1, true, true, errp) < 0) {
        return;
    }
    if (pci_pm_init(d, 0x40, errp) < 0) {
        return;
    }
    if (pcie_aer_init(d, PCI_ERR_VER, 0x100, PCI_ERR_SIZEOF, errp) < 0) {
        return;
    }
    pcie_ari_init(d, 0x150);
    if (s->sriov) {
        if (!ixgbe_sriov_realize(s, errp)) {
            return;
        }
    }

    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    ixgbe_nvm_init(s, s->conf.macaddr.a);
    ixgbe_sfp_realize(s);
    ixgbe_intr_init(s);
    ixgbe_rx_init(s);
    ixgbe_tx_init(s);
    s->nic = qemu_new_nic(&ixgbe_net_info, &s->conf,
                          object_get_typename(OBJECT(s)), dev->id,
                          &dev->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);
    add_strict_props(s);
    ixgbe_hw_reset(s);
}

static void ixgbe_exit(PCIDevice *d)
{
    IxgbeState *s = IXGBE(d);

    qemu_del_nic(s->nic);
    ixgbe_tx_uninit(s);
    ixgbe_rx_uninit(s);
    ixgbe_intr_uninit(s);
    msix_uninit(d, &s->msix, &s->msix);
    msi_uninit(d);
    pcie_sriov_pf_exit(d);
    pcie_aer_exit(d);
}

static void ixgbe_reset(DeviceState *dev)
{
    ixgbe_hw_reset(IXGBE(dev));
}

static const VMStateDescription ixgbe_vmstate = {
    .name = "ixgbe",
    .unmigratable = 1,          /* a test model: no migration stream */
};

static const Property ixgbe_properties[] = {
    DEFINE_NIC_PROPERTIES(IxgbeState, conf),
    DEFINE_PROP_STRING("sfp", IxgbeState, sfp),
    DEFINE_PROP_BOOL("sriov", IxgbeState, sriov, true),
};

static void ixgbe_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *c = PCI_DEVICE_CLASS(klass);

    c->realize = ixgbe_realize;
    c->exit = ixgbe_exit;
    c->vendor_id = PCI_VENDOR_ID_INTEL;
    c->device_id = IXGBE_DEV_ID_82599_SFP;
    c->revision = 1;
    c->class_id = PCI_CLASS_NETWORK_ETHERNET;
    c->subsystem_vendor_id = PCI_VENDOR_ID_INTEL;
    c->subsystem_id = IXGBE_SUBSYS_ID;
    device_class_set_legacy_reset(dc, ixgbe_reset);
    dc->desc = "Intel 82599 10 GbE (X520) SFP+, a model for driver tests";
    dc->vmsd = &ixgbe_vmstate;
    device_class_set_props(dc, ixgbe_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo ixgbe_info = {
    .name = TYPE_IXGBE,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(IxgbeState),
    .class_init = ixgbe_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void ixgbe_register_types(void)
{
    type_register_static(&ixgbe_info);
}
type_init(ixgbe_register_types)
