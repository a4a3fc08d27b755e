/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/mlx5/mlx5.c: an NVIDIA/Mellanox ConnectX-4 (mlx5) as a QEMU
 * PCIe device, command-level: PCI function, BAR0 with the initialization
 * segment and the UAR pages, reset and FLR, properties. Written from the
 * "Mellanox Adapters Programmer's Reference Manual (PRM)" for
 * ConnectX-4/4 Lx, Rev 0.40, and a real card's answers (mlx5_fw_replies.c).
 * The command queue lives in mlx5_cmdq.c, dispatch and the bring-up
 * commands in mlx5_hca.c (the card's recorded replies: mlx5_fw_replies.c),
 * event queues and the page protocol in mlx5_eq.c, registers in
 * mlx5_reg.c, Ethernet objects in mlx5_obj.c/mlx5_mkey.c/mlx5_counters.c/
 * mlx5_steer.c, the data path in mlx5_cq.c, mlx5_tx.c and mlx5_rx.c.
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "hw/pci/msix.h"
#include "hw/pci/pcie.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "mlx5_int.h"
#include "mlx5_data.h"

#define PCI_VENDOR_ID_MELLANOX  0x15b3
#define MLX5_DEV_CX4            0x1013
#define MSIX_TABLE_OFF          0x2000  /* in BAR0, below the first UAR */
#define MSIX_PBA_OFF            0x3000

void mlx5_guest_error(Mlx5State *s, uint32_t *counter, const char *fmt, ...)
{
    va_list ap;
    char *msg;

    (*counter)++;
    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    qemu_log_mask(LOG_GUEST_ERROR, "mlx5 %s: %s\n",
                  DEVICE(s)->id ? DEVICE(s)->id : "", msg);
    g_free(msg);
}

/* PRM "Initialization Segment": `initializing` reads 1 until firmware is
 * ready; here for INIT_DELAY_NS of virtual time after every reset. */
bool mlx5_initializing(Mlx5State *s)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) < s->init_done_ns;
}

static uint32_t iseg_read(Mlx5State *s, hwaddr off)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    switch (off) {
    case ISEG_FW_REV:
        return FW_MINOR << 16 | FW_MAJOR;
    case ISEG_CMDIF_REV:
        return CMD_INTERFACE_REV << 16 | FW_SUBMINOR;
    case ISEG_CMDQ_HI:
        return s->cmdq_addr >> 32;
    case ISEG_CMDQ_LO:
        return ((uint32_t)s->cmdq_addr & ~0xfffu) | s->nic_interface << 8 |
               LOG_CMDQ_SIZE << 4 | LOG_CMDQ_STRIDE;
    case ISEG_INITIALIZING:
        return (mlx5_initializing(s) ? 1u << 31 : 0) | 1u << 24;
    case ISEG_HEALTH_SYND:
        return s->health_synd << 16;
    case ISEG_TIMER_HI:      /* internal timer: free-running, in ns */
        return now >> 32;
    case ISEG_TIMER_LO:
        return now;
    case ISEG_HEALTH_COUNTER: /* firmware alive: moves every millisecond */
        return now / 1000000;
    }
    return 0;
}

static void iseg_write(Mlx5State *s, hwaddr off, uint32_t val)
{
    switch (off) {
    case ISEG_CMDQ_HI:
        s->cmdq_addr = (s->cmdq_addr & 0xffffffffu) | (uint64_t)val << 32;
        return;
    case ISEG_CMDQ_LO:       /* the queue is 4 KB aligned; size is ours */
        s->cmdq_addr = (s->cmdq_addr & ~0xffffffffull) | (val & ~0xfffu);
        s->nic_interface = (val >> 8) & 3;
        return;
    case ISEG_CMD_DOORBELL:
        mlx5_cmd_doorbell(s, val);
        return;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "mlx5: write %#x to read-only "
                  "initialization segment offset %#" HWADDR_PRIx "\n",
                  val, off);
}

static bool uar_allocated(Mlx5State *s, uint32_t uar)
{
    return uar < UAR_MAX && s->uar_alloc[uar / 32] & (1u << (uar % 32));
}

static uint64_t mlx5_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    Mlx5State *s = opaque;

    if (addr < 2 * MLX5_PAGE) {
        uint32_t v = iseg_read(s, addr & ~3);
        return size == 8 ? (uint64_t)v << 32 | iseg_read(s, (addr & ~3) + 4)
                         : v;
    }
    return 0;                /* UAR pages read as zero */
}

static void mlx5_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    Mlx5State *s = opaque;
    uint32_t uar = addr / MLX5_PAGE;
    hwaddr off = addr % MLX5_PAGE;

    if (addr < 2 * MLX5_PAGE) {
        if (size == 8) {
            iseg_write(s, addr, val >> 32);
            iseg_write(s, addr + 4, (uint32_t)val);
        } else {
            iseg_write(s, addr, val);
        }
        return;
    }
    if (!uar_allocated(s, uar)) {
        mlx5_guest_error(s, &s->strict.bad_doorbell, "write to UAR page %#x "
                         "(offset %#" HWADDR_PRIx ") not allocated by "
                         "ALLOC_UAR", uar, off);
        return;
    }
    /* PRM "UAR Page Format": CQ doorbell 0x20, EQ 0x40/0x48, the
     * BlueFlame/doorbell registers from 0x800 to the page's end (256-byte
     * buffers; the first 8 bytes of each are the doorbell) */
    if (off == UAR_EQ_ARM || off == UAR_EQ_UPDATE) {
        mlx5_eq_doorbell(s, uar, off, size == 8 ? val >> 32 : val);
    } else if (off == UAR_CQ_DOORBELL || off == UAR_CQ_DOORBELL + 4) {
        if (size == 8) {
            mlx5_cq_doorbell(s, uar, val);
        } else if (off == UAR_CQ_DOORBELL) {
            s->bf_hi[uar] = val;
        } else {
            mlx5_cq_doorbell(s, uar, (uint64_t)s->bf_hi[uar] << 32 | val);
        }
    } else if (off >= UAR_BF_REG && off < MLX5_PAGE &&
               (off & 0xff) <= 4) {
        if (size == 8 && !(off & 0xff)) {
            mlx5_sq_doorbell(s, uar, val);
        } else if (size == 4 && !(off & 0xff)) {
            s->bf_hi[uar] = val;
        } else if (size == 4) {
            mlx5_sq_doorbell(s, uar, (uint64_t)s->bf_hi[uar] << 32 | val);
        }
    }
}

static const MemoryRegionOps mlx5_mmio_ops = {
    .read = mlx5_mmio_read,
    .write = mlx5_mmio_write,
    .endianness = DEVICE_BIG_ENDIAN,    /* PRM: every register big-endian */
    .impl = { .min_access_size = 4, .max_access_size = 8 },
    .valid = { .min_access_size = 4, .max_access_size = 8 },
};

static void mlx5_hw_reset(Mlx5State *s)
{
    s->cmdq_addr = 0;
    s->nic_interface = 0;
    s->health_synd = 0;
    s->init_done_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + INIT_DELAY_NS;
    mlx5_hca_reset(s);
}

static void mlx5_reset(DeviceState *dev)
{
    mlx5_hw_reset(MLX5(dev));
}

/* PCIe "Initiate Function Level Reset" (Device Control bit 15) */
static void mlx5_write_config(PCIDevice *d, uint32_t addr, uint32_t val,
                              int len)
{
    pci_default_write_config(d, addr, val, len);
    pcie_cap_flr_write_config(d, addr, val, len);
}

static void mlx5_link_changed(NetClientState *nc)
{
    mlx5_port_event(qemu_get_nic_opaque(nc));
}

static NetClientInfo mlx5_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = mlx5_can_receive,
    .receive = mlx5_receive,
    .link_status_changed = mlx5_link_changed,
};

/* test hook: `qom-set ID page-request N` makes the firmware ask for N more
 * pages (N > 0) or give -N back (N < 0) by a PAGE_REQUEST event */
static void get_page_request(Object *obj, Visitor *v, const char *name,
                             void *opaque, Error **errp)
{
    visit_type_int32(v, name, &MLX5(obj)->page_request, errp);
}

static void set_page_request(Object *obj, Visitor *v, const char *name,
                             void *opaque, Error **errp)
{
    Mlx5State *s = MLX5(obj);
    int32_t n;

    if (!visit_type_int32(v, name, &n, errp)) {
        return;
    }
    s->page_request = n;
    mlx5_page_request(s, n);
}

static void add_props(Mlx5State *s)
{
    static const struct { const char *name; size_t off; } p[] = {
        { "strict-bad-entry", offsetof(Mlx5Strict, bad_entry) },
        { "strict-bad-token", offsetof(Mlx5Strict, bad_token) },
        { "strict-bad-block-number", offsetof(Mlx5Strict, bad_block_number) },
        { "strict-short-mailbox", offsetof(Mlx5Strict, short_mailbox) },
        { "strict-doorbell-not-owned",
          offsetof(Mlx5Strict, doorbell_not_owned) },
        { "strict-cmd-while-initializing",
          offsetof(Mlx5Strict, cmd_while_initializing) },
        { "strict-bad-state", offsetof(Mlx5Strict, bad_state) },
        { "strict-bad-opcode", offsetof(Mlx5Strict, bad_opcode) },
        { "strict-bad-param", offsetof(Mlx5Strict, bad_param) },
        { "strict-bad-resource", offsetof(Mlx5Strict, bad_resource) },
        { "strict-eq-overflow", offsetof(Mlx5Strict, eq_overflow) },
        { "strict-bad-doorbell", offsetof(Mlx5Strict, bad_doorbell) },
        { "strict-cq-overflow", offsetof(Mlx5Strict, cq_overflow) },
        { "strict-bad-wqe", offsetof(Mlx5Strict, bad_wqe) },
    };
    for (size_t i = 0; i < ARRAY_SIZE(p); i++) {
        object_property_add_uint32_ptr(OBJECT(s), p[i].name,
            (uint32_t *)((char *)&s->strict + p[i].off), OBJ_PROP_FLAG_READ);
    }
    object_property_add_uint32_ptr(OBJECT(s), "fw-pages", &s->npages,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint32_ptr(OBJECT(s), "rx-out-of-buffer",
                                   &s->rx_out_of_buffer, OBJ_PROP_FLAG_READ);
    object_property_add_uint32_ptr(OBJECT(s), "rx-steer-miss",
                                   &s->rx_steer_miss, OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(OBJECT(s), "rx-frame-too-long",
                                   &s->rx_frame_too_long, OBJ_PROP_FLAG_READ);
    object_property_add_uint32_ptr(OBJECT(s), "rx-packets", &s->rx_packets,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint32_ptr(OBJECT(s), "tx-packets", &s->tx_packets,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint32_ptr(OBJECT(s), "vf-port-register-refused",
                                   &s->vf_port_reg_refused, OBJ_PROP_FLAG_READ);
    object_property_add_uint32_ptr(OBJECT(s), "vf-promisc-refused",
                                   &s->vf_promisc_refused, OBJ_PROP_FLAG_READ);
    object_property_add_uint32_ptr(OBJECT(s), "vf-mc-filtered",
                                   &s->vf_mc_filtered, OBJ_PROP_FLAG_READ);
    object_property_add(OBJECT(s), "page-request", "int32", get_page_request,
                        set_page_request, NULL, NULL);
}

static void mlx5_realize(PCIDevice *d, Error **errp)
{
    Mlx5State *s = MLX5(d);
    DeviceState *dev = DEVICE(d);
    static const uint16_t ids[] = { 0x1013, 0x1015, 0x1017, 0x1019, 0x101b,
                                    0x101d };
    size_t i;

    for (i = 0; i < ARRAY_SIZE(ids) && ids[i] != s->device_id; i++) {
    }
    if (i == ARRAY_SIZE(ids)) {
        error_setg(errp, "mlx5: device-id %#x: one of 0x1013 (ConnectX-4), "
                   "0x1015 (4 Lx), 0x1017 (5), 0x1019 (5 Ex), 0x101b (6), "
                   "0x101d (6 Dx)", s->device_id);
        return;
    }
    if (s->trusted && !s->vf) {
        error_setg(errp, "mlx5: trusted=on is a VF's (vf=on)");
        return;
    }
    /* a VF (mlx5_vf.c): the PF's device ID + 1 (0x1014 for the
     * ConnectX-4), no SR-IOV capability, FLR, the same BAR0 */
    pci_config_set_device_id(d->config, s->device_id + (s->vf ? 1 : 0));
    d->config[PCI_CACHE_LINE_SIZE] = 0x10;
    pci_config_set_interrupt_pin(d->config, 1);

    /* BAR0: 32 MB 64-bit prefetchable: initialization segment, MSI-X
     * table and PBA, then UAR pages (4 KB each) */
    memory_region_init_io(&s->bar0, OBJECT(s), &mlx5_mmio_ops, s,
                          "mlx5-bar0", MLX5_BAR0_SIZE);
    pci_register_bar(d, 0, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &s->bar0);
    if (pcie_endpoint_cap_init(d, 0x60) < 0) {
        error_setg(errp, "mlx5: PCIe capability");
        return;
    }
    pcie_cap_flr_init(d);           /* function-level reset */
    if (msix_init(d, MLX5_MSIX_VECTORS, &s->bar0, 0, MSIX_TABLE_OFF,
                  &s->bar0, 0, MSIX_PBA_OFF, 0x9c, errp) < 0) {
        return;
    }
    if (pci_pm_init(d, 0x40, errp) < 0) {
        return;
    }
    for (i = 0; i < MLX5_MSIX_VECTORS; i++) {
        msix_vector_use(d, i);
    }
    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    s->nic = qemu_new_nic(&mlx5_net_info, &s->conf,
                          object_get_typename(OBJECT(s)), dev->id,
                          &dev->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);
    s->pages = g_new0(uint64_t, MAX_PAGES);
    mlx5_tx_init(s);
    add_props(s);
    mlx5_hw_reset(s);
}

static void mlx5_exit(PCIDevice *d)
{
    Mlx5State *s = MLX5(d);

    qemu_del_nic(s->nic);
    msix_uninit(d, &s->bar0, &s->bar0);
    mlx5_tx_uninit(s);
    g_free(s->pages);
}

static const VMStateDescription mlx5_vmstate = {
    .name = "mlx5",
    .unmigratable = 1,          /* a test model: no migration stream */
};

static const Property mlx5_properties[] = {
    DEFINE_NIC_PROPERTIES(Mlx5State, conf),
    DEFINE_PROP_UINT32("device-id", Mlx5State, device_id, MLX5_DEV_CX4),
    DEFINE_PROP_BOOL("vf", Mlx5State, vf, false),
    DEFINE_PROP_BOOL("trusted", Mlx5State, trusted, false),
};

static void mlx5_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *c = PCI_DEVICE_CLASS(klass);

    c->realize = mlx5_realize;
    c->exit = mlx5_exit;
    c->config_write = mlx5_write_config;
    c->vendor_id = PCI_VENDOR_ID_MELLANOX;
    c->device_id = MLX5_DEV_CX4;
    c->class_id = PCI_CLASS_NETWORK_ETHERNET;
    c->subsystem_vendor_id = PCI_VENDOR_ID_MELLANOX;
    c->subsystem_id = 0x0008;
    device_class_set_legacy_reset(dc, mlx5_reset);
    dc->desc = "NVIDIA/Mellanox ConnectX-4 (mlx5), a model for driver tests";
    dc->vmsd = &mlx5_vmstate;
    device_class_set_props(dc, mlx5_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo mlx5_info = {
    .name = TYPE_MLX5,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(Mlx5State),
    .class_init = mlx5_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void mlx5_register_types(void)
{
    type_register_static(&mlx5_info);
}
type_init(mlx5_register_types)
