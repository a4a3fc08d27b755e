/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/ixgbe/ixgbe_vf.c: the 82599 SR-IOV virtual function
 * (8086:10ED, datasheet 9.5 and 8.3): BAR0 16 KB CSR, BAR3 16 KB MSI-X
 * (3 vectors); its register file, whose queue blocks are its pool's PF
 * queues (GCR_EXT.VT_Mode: VF n's queue i is PF queue n * qpp + i), its
 * mailbox side, its interrupts (VTEICR and friends, VTIVAR), counters;
 * and the PF's SR-IOV capability that creates it.
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "hw/pci/msix.h"
#include "hw/pci/pcie.h"
#include "hw/pci/pcie_sriov.h"
#include "net/eth.h"
#include "ixgbe_int.h"

#define IXGBE_VF_DEV_ID     0x10ED
#define SRIOV_CAP_OFFSET    0x160   /* after ARI at 0x150 (9.4.x) */
/*
 * 9.4.4.x gives First VF Offset 0x180, VF Stride 2: the VFs on the next
 * bus number. QEMU's SR-IOV puts VFs on the PF's bus, so offset 0x80
 * (devfn 16.0 onwards), stride 2: a deviation noted in qemu/README.md.
 */
#define VF_OFFSET           0x80
#define VF_STRIDE           2
#define IVAR_VALID          0x80u

typedef struct IxgbeVfDev {
    PCIDevice parent_obj;
    MemoryRegion mmio, msix;
} IxgbeVfDev;

OBJECT_DECLARE_SIMPLE_TYPE(IxgbeVfDev, IXGBEVF)

static IxgbeState *pf_of(PCIDevice *vf)
{
    return IXGBE(pcie_sriov_get_pf(vf));
}

/* ---- interrupts (7.3.x for a VF): VTEICR bit v is vector v's cause ---- */

static void vf_update(IxgbeState *s, int n)
{
    IxgbeVf *v = &s->vf[n];
    PCIDevice *d = pcie_sriov_get_vf_at_index(PCI_DEVICE(s), n);
    uint8_t ready = v->eicr & v->eims;

    if (!d || !msix_enabled(d)) {
        return;
    }
    for (int vec = 0; vec < IXGBE_VF_VECTORS; vec++) {
        uint8_t bit = 1u << vec;
        if (!(ready & bit)) {
            continue;
        }
        v->eims &= ~(bit & v->eiam);
        v->eicr &= ~(bit & v->eiac);
        msix_notify(d, vec);
    }
}

void ixgbe_vf_raise(IxgbeState *s, int n, int vec)
{
    s->vf[n].eicr |= 1u << vec;
    vf_update(s, n);
}

/* VTIVAR(i/2): RX queue i in byte 0 or 2, TX in 1 or 3, as the PF's. */
bool ixgbe_vf_raise_queue(IxgbeState *s, int q, bool tx)
{
    int n = ixgbe_queue_vf(s, q);
    int i;
    uint32_t e;

    if (n < 0) {
        return false;
    }
    i = q - n * ixgbe_vf_qpp(s);
    e = (s->vf[n].ivar[(i / 2) & 3] >> (16 * (i & 1) + 8 * tx)) & 0xFF;
    if (e & IVAR_VALID) {
        ixgbe_vf_raise(s, n, (e & 3) % IXGBE_VF_VECTORS);
    }
    return true;
}

/* VTIVAR_MISC byte 0: the mailbox's vector. */
void ixgbe_vf_raise_mbx(IxgbeState *s, int n)
{
    uint32_t e = s->vf[n].ivar_misc & 0xFF;

    if (n < ixgbe_num_vfs(s) && (e & IVAR_VALID)) {
        ixgbe_vf_raise(s, n, (e & 3) % IXGBE_VF_VECTORS);
    }
}

/* ---- counters (8.3.x VFGPRC...): running, not clear on read ---- */

void ixgbe_vf_count_rx(IxgbeState *s, int q, const uint8_t *da, size_t len)
{
    int n = ixgbe_queue_vf(s, q);

    if (n >= 0) {
        s->vf[n].gprc++;
        s->vf[n].gorc += len;
        s->vf[n].mprc += is_multicast_ether_addr(da) &&
                         !is_broadcast_ether_addr(da);
    }
}

void ixgbe_vf_count_tx(IxgbeState *s, int q, size_t len)
{
    int n = ixgbe_queue_vf(s, q);

    if (n >= 0) {
        s->vf[n].gptc++;
        s->vf[n].gotc += len;
    }
}

/* ---- the register file ---- */

/* A VF queue register's PF offset, or -1 outside the VF's queues. */
static hwaddr vf_queue_reg(IxgbeState *s, int n, hwaddr off)
{
    int qpp = ixgbe_vf_qpp(s);
    bool rx = off < IXGBEVF_TXQ0;
    int i = (off - (rx ? IXGBEVF_RXQ0 : IXGBEVF_TXQ0)) / 0x40;
    int q = n * qpp + i;

    if (i >= qpp) {
        ixgbe_guest_error(s, &s->strict.vf_unmapped,
                          "VF %d: queue %d register 0x%x, the pool has %d "
                          "queues (GCR_EXT.VT_Mode)", n, i, (unsigned)off, qpp);
        return (hwaddr)-1;
    }
    return (rx ? ixgbe_rxq_base(q) : IXGBE_TXQ + 0x40 * q) + (off & 0x3F);
}

static bool vf_stat_read(IxgbeVf *v, hwaddr off, uint32_t *val)
{
    switch (off) {
    case IXGBEVF_GPRC:
        *val = v->gprc;
        return true;
    case IXGBEVF_GORC_LSB:
        *val = v->gorc;
        return true;
    case IXGBEVF_GORC_MSB:
        *val = (v->gorc >> 32) & 0xF;       /* 36-bit counter */
        return true;
    case IXGBEVF_MPRC:
        *val = v->mprc;
        return true;
    case IXGBEVF_GPTC:
        *val = v->gptc;
        return true;
    case IXGBEVF_GOTC_LSB:
        *val = v->gotc;
        return true;
    case IXGBEVF_GOTC_MSB:
        *val = (v->gotc >> 32) & 0xF;
        return true;
    }
    return false;
}

static uint64_t vf_mmio_read(void *opaque, hwaddr off, unsigned size)
{
    PCIDevice *d = opaque;
    IxgbeState *s = pf_of(d);
    int n = pcie_sriov_vf_number(d);
    IxgbeVf *v = &s->vf[n];
    uint32_t val;

    off &= ~3ull;
    if (vf_stat_read(v, off, &val)) {
        return val;
    }
    if (off >= IXGBEVF_RXQ0 && off < IXGBEVF_TXQ0 + 8 * 0x40) {
        hwaddr pf = vf_queue_reg(s, n, off);
        return pf == (hwaddr)-1 ? 0 : ixgbe_csr_read(s, pf);
    }
    if (off >= IXGBEVF_MBMEM && off < IXGBEVF_MBMEM + 4 * IXGBE_MBX_WORDS) {
        return ixgbe_reg(s, IXGBE_PFMBMEM0 + 0x40 * n + (off - IXGBEVF_MBMEM));
    }
    if (off >= IXGBEVF_IVAR0 && off < IXGBEVF_IVAR0 + 16) {
        return v->ivar[(off - IXGBEVF_IVAR0) / 4];
    }
    if (off >= IXGBEVF_EITR0 && off < IXGBEVF_EITR0 + 4 * IXGBE_VF_VECTORS) {
        return v->eitr[(off - IXGBEVF_EITR0) / 4];
    }
    switch (off) {
    case IXGBEVF_STATUS:
        return ixgbe_csr_read(s, IXGBE_STATUS) & IXGBE_STATUS_LINKUP;
    case IXGBEVF_LINKS:
        return ixgbe_links_value(s);
    case IXGBEVF_EICR:          /* read clears (as the PF's EICR) */
        val = v->eicr;
        v->eicr = 0;
        return val;
    case IXGBEVF_EICS:
        return v->eicr;
    case IXGBEVF_EIMS:
        return v->eims;
    case IXGBEVF_EIAC:
        return v->eiac;
    case IXGBEVF_EIAM:
        return v->eiam;
    case IXGBEVF_IVAR_MISC:
        return v->ivar_misc;
    case IXGBEVF_MAILBOX:
        return ixgbe_vf_mbx_read(s, n);
    case IXGBEVF_PSRTYPE:
        return ixgbe_reg(s, IXGBE_PSRTYPE0 + 4 * n);
    }
    return 0;
}

static void vf_mmio_write(void *opaque, hwaddr off, uint64_t val64,
                          unsigned size)
{
    PCIDevice *d = opaque;
    IxgbeState *s = pf_of(d);
    int n = pcie_sriov_vf_number(d);
    IxgbeVf *v = &s->vf[n];
    uint32_t val = val64;
    uint8_t vecs = (1u << IXGBE_VF_VECTORS) - 1;

    off &= ~3ull;
    if (vf_stat_read(v, off, &val)) {
        return;                 /* read-only */
    }
    if (off >= IXGBEVF_RXQ0 && off < IXGBEVF_TXQ0 + 8 * 0x40) {
        hwaddr pf = vf_queue_reg(s, n, off);
        if (pf != (hwaddr)-1) {
            ixgbe_csr_write(s, pf, val);
        }
        return;
    }
    if (off >= IXGBEVF_MBMEM && off < IXGBEVF_MBMEM + 4 * IXGBE_MBX_WORDS) {
        ixgbe_vf_mbmem_write(s, n, (off - IXGBEVF_MBMEM) / 4, val);
        return;
    }
    if (off >= IXGBEVF_IVAR0 && off < IXGBEVF_IVAR0 + 16) {
        v->ivar[(off - IXGBEVF_IVAR0) / 4] = val;
        return;
    }
    if (off >= IXGBEVF_EITR0 && off < IXGBEVF_EITR0 + 4 * IXGBE_VF_VECTORS) {
        v->eitr[(off - IXGBEVF_EITR0) / 4] = val;   /* no moderation */
        return;
    }
    switch (off) {
    case IXGBEVF_CTRL:
        if (val & IXGBEVF_CTRL_RST) {
            ixgbe_vf_reset(s, n, false);
        }
        return;
    case IXGBEVF_EICR:          /* write 1 to clear */
        v->eicr &= ~val;
        return;
    case IXGBEVF_EICS:
        v->eicr |= val & vecs;
        break;
    case IXGBEVF_EIMS:
        v->eims |= val & vecs;
        break;
    case IXGBEVF_EIMC:
        v->eims &= ~val;
        return;
    case IXGBEVF_EIAC:
        v->eiac = val & vecs;
        return;
    case IXGBEVF_EIAM:
        v->eiam = val & vecs;
        return;
    case IXGBEVF_IVAR_MISC:
        v->ivar_misc = val;
        return;
    case IXGBEVF_MAILBOX:
        ixgbe_vf_mbx_write(s, n, val);
        return;
    case IXGBEVF_PSRTYPE:
        s->mac[(IXGBE_PSRTYPE0 + 4 * n) >> 2] = val;
        return;
    default:
        return;
    }
    vf_update(s, n);
}

static const MemoryRegionOps vf_mmio_ops = {
    .read = vf_mmio_read,
    .write = vf_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

/* ---- the VF function ---- */

static void ixgbevf_write_config(PCIDevice *d, uint32_t addr, uint32_t val,
                                 int len)
{
    pci_default_write_config(d, addr, val, len);
    pcie_cap_flr_write_config(d, addr, val, len);   /* FLR: 9.5.x */
}

/* 9.5: PCIe 0xA0 (FLR capable), MSI-X 0x70, AER 0x100, ARI 0x150 */
static void ixgbevf_realize(PCIDevice *d, Error **errp)
{
    IxgbeVfDev *vf = IXGBEVF(d);

    d->config_write = ixgbevf_write_config;
    memory_region_init_io(&vf->mmio, OBJECT(d), &vf_mmio_ops, d,
                          "ixgbevf-mmio", IXGBE_VF_BAR0_SIZE);
    pci_register_bar(d, 0, PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &vf->mmio);
    memory_region_init(&vf->msix, OBJECT(d), "ixgbevf-msix",
                       IXGBE_VF_MSIX_SIZE);
    pci_register_bar(d, 3, PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &vf->msix);
    if (msix_init(d, IXGBE_VF_VECTORS, &vf->msix, 3, 0, &vf->msix, 3,
                  0x2000, 0x70, errp) < 0) {
        return;
    }
    for (int i = 0; i < IXGBE_VF_VECTORS; i++) {
        msix_vector_use(d, i);
    }
    if (pcie_endpoint_cap_init(d, 0xA0) < 0) {
        error_setg(errp, "ixgbevf: PCIe capability");
        return;
    }
    pcie_cap_flr_init(d);
    if (pcie_aer_init(d, PCI_ERR_VER, 0x100, PCI_ERR_SIZEOF, errp) < 0) {
        return;
    }
    pcie_ari_init(d, 0x150);
}

static void ixgbevf_exit(PCIDevice *d)
{
    IxgbeVfDev *vf = IXGBEVF(d);

    pcie_aer_exit(d);
    pcie_cap_exit(d);
    msix_unuse_all_vectors(d);
    msix_uninit(d, &vf->msix, &vf->msix);
}

/* An FLR (or any reset) of an enabled VF: 7.10.2.x VFLR to the PF. */
static void ixgbevf_reset_hold(Object *obj, ResetType type)
{
    PCIDevice *d = PCI_DEVICE(obj);
    IxgbeState *s = pf_of(d);
    int n = pcie_sriov_vf_number(d);

    if (n < ixgbe_num_vfs(s)) {
        ixgbe_vf_reset(s, n, true);
    }
}

static void ixgbevf_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *c = PCI_DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    c->realize = ixgbevf_realize;
    c->exit = ixgbevf_exit;
    c->vendor_id = PCI_VENDOR_ID_INTEL;
    c->device_id = IXGBE_VF_DEV_ID;
    c->revision = 1;
    c->class_id = PCI_CLASS_NETWORK_ETHERNET;
    rc->phases.hold = ixgbevf_reset_hold;
    dc->desc = "Intel 82599 virtual function (made by -device ixgbe)";
    dc->user_creatable = false;
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo ixgbevf_info = {
    .name = TYPE_IXGBEVF,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(IxgbeVfDev),
    .class_init = ixgbevf_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void ixgbevf_register_types(void)
{
    type_register_static(&ixgbevf_info);
}
type_init(ixgbevf_register_types)

/* The PF's SR-IOV capability (9.4.4): 63 VFs, VF BAR0 and BAR3 16 KB. */
bool ixgbe_sriov_realize(IxgbeState *s, Error **errp)
{
    PCIDevice *d = PCI_DEVICE(s);

    if (d->devfn + VF_OFFSET + (IXGBE_MAX_VFS - 1) * VF_STRIDE >= 256) {
        error_setg(errp, "ixgbe: SR-IOV needs the PF at function 0 of a bus "
                   "of its own (behind a pcie-root-port, addr=0), or "
                   "sriov=off");
        return false;
    }
    if (!pcie_sriov_pf_init(d, SRIOV_CAP_OFFSET, TYPE_IXGBEVF,
                            IXGBE_VF_DEV_ID, IXGBE_MAX_VFS, IXGBE_MAX_VFS,
                            VF_OFFSET, VF_STRIDE, errp)) {
        return false;
    }
    pcie_sriov_pf_init_vf_bar(d, 0, PCI_BASE_ADDRESS_MEM_TYPE_64 |
                              PCI_BASE_ADDRESS_MEM_PREFETCH,
                              IXGBE_VF_BAR0_SIZE);
    pcie_sriov_pf_init_vf_bar(d, 3, PCI_BASE_ADDRESS_MEM_TYPE_64 |
                              PCI_BASE_ADDRESS_MEM_PREFETCH,
                              IXGBE_VF_MSIX_SIZE);
    return true;
}
