/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/mlx5/mlx5_int.h: the ConnectX-4 (mlx5) model's state and
 * the constants it shares between files. Layouts from the "Mellanox
 * Adapters Programmer's Reference Manual (PRM)" for ConnectX-4/4 Lx,
 * Rev 0.40 ("PRM" below); each cited by its section title.
 */
#ifndef HW_NET_MLX5_INT_H
#define HW_NET_MLX5_INT_H

#include "qemu/units.h"
#include "hw/pci/pci_device.h"
#include "net/net.h"
#include "qom/object.h"

#define TYPE_MLX5 "mlx5"
OBJECT_DECLARE_SIMPLE_TYPE(Mlx5State, MLX5)

#define MLX5_BAR0_SIZE      (32 * MiB)     /* as the real card's BAR0 */
#define MLX5_PAGE           4096
#define MLX5_MSIX_VECTORS   64

/* PRM "Initialization Segment" (BAR0 offset 0) */
#define ISEG_FW_REV         0x0000  /* fw_rev_minor 31:16, fw_rev_major 15:0 */
#define ISEG_CMDIF_REV      0x0004  /* cmd_interface_rev 31:16, subminor 15:0 */
#define ISEG_CMDQ_HI        0x0010
/* cmdq_phy_addr_lo: addr 31:12, nic_interface 9:8, log size 7:4, stride 3:0 */
#define ISEG_CMDQ_LO        0x0014
#define ISEG_CMD_DOORBELL   0x0018
#define ISEG_INITIALIZING   0x01fc  /* initializing 31, nic_if_supp. 26:24 */
#define ISEG_HEALTH         0x0200  /* health buffer, 64 bytes */
#define ISEG_HEALTH_SYND    0x023c  /* irisc_index 31:24, synd 23:16 */
#define ISEG_TIMER_HI       0x1000  /* internal_timer_h */
#define ISEG_TIMER_LO       0x1004
#define ISEG_HEALTH_COUNTER 0x1010

#define FW_MAJOR            14      /* as the trace's card: 14.12.1220 */
#define FW_MINOR            12
#define FW_SUBMINOR         1220
#define CMD_INTERFACE_REV   5
#define LOG_CMDQ_SIZE       5       /* 32 entries */
#define LOG_CMDQ_STRIDE     6       /* 64 bytes */
#define INIT_DELAY_NS       (2 * 1000 * 1000)   /* `initializing` after reset */

/* PRM "Command Queue Entry": 64 bytes, big-endian */
#define CQE_TYPE_PCIE       0x7
#define CMD_BLOCK_DATA      512     /* PRM "Command Mailbox" data bytes */
#define CMD_BLOCK_SIZE      576
#define CMD_BLOCK_NEXT      0x230
#define CMD_BLOCK_NUM       0x238
#define CMD_BLOCK_TOKEN     0x23d

/* PRM "Command Delivery Status" (entry byte 0x3f bits 7:1) */
enum {
    DELIV_OK = 0x0, DELIV_SIGNATURE = 0x1, DELIV_TOKEN = 0x2,
    DELIV_BAD_BLOCK_NUM = 0x3, DELIV_BAD_OUT_PTR = 0x4,
    DELIV_BAD_IN_PTR = 0x5, DELIV_INTERNAL = 0x6, DELIV_IN_LENGTH = 0x7,
    DELIV_OUT_LENGTH = 0x8, DELIV_RES_NOT_ZERO = 0x9, DELIV_BAD_TYPE = 0x10,
};

/* PRM "Command Status" (output byte 0) */
enum {
    ST_OK = 0x0, ST_INTERNAL = 0x1, ST_BAD_OP = 0x2, ST_BAD_PARAM = 0x3,
    ST_BAD_SYS_STATE = 0x4, ST_BAD_RESOURCE = 0x5, ST_RESOURCE_BUSY = 0x6,
    ST_EXCEED_LIM = 0x8, ST_BAD_RES_STATE = 0x9, ST_BAD_INDEX = 0xa,
    ST_NO_RESOURCES = 0xf, ST_BAD_IN_LEN = 0x50, ST_BAD_OUT_LEN = 0x51,
};

/* opcodes (PRM "Command Reference" tables) */
enum {
    OP_QUERY_HCA_CAP = 0x100, OP_QUERY_ADAPTER = 0x101, OP_INIT_HCA = 0x102,
    OP_TEARDOWN_HCA = 0x103, OP_ENABLE_HCA = 0x104, OP_DISABLE_HCA = 0x105,
    OP_QUERY_PAGES = 0x107, OP_MANAGE_PAGES = 0x108, OP_SET_HCA_CAP = 0x109,
    OP_QUERY_ISSI = 0x10a, OP_SET_ISSI = 0x10b,
    OP_CREATE_MKEY = 0x200, OP_DESTROY_MKEY = 0x202,
    OP_QUERY_SPECIAL_CONTEXTS = 0x203,
    OP_CREATE_EQ = 0x301, OP_DESTROY_EQ = 0x302,
    OP_CREATE_CQ = 0x400, OP_DESTROY_CQ = 0x401, OP_MODIFY_CQ = 0x403,
    OP_QUERY_VPORT_COUNTER = 0x770,
    OP_ALLOC_Q_COUNTER = 0x771, OP_DEALLOC_Q_COUNTER = 0x772,
    OP_QUERY_Q_COUNTER = 0x773,
    OP_QUERY_VPORT_STATE = 0x750, OP_QUERY_NIC_VPORT_CONTEXT = 0x754,
    OP_MODIFY_NIC_VPORT_CONTEXT = 0x755,
    OP_ALLOC_PD = 0x800, OP_DEALLOC_PD = 0x801, OP_ALLOC_UAR = 0x802,
    OP_DEALLOC_UAR = 0x803, OP_ACCESS_REG = 0x805,
    OP_ALLOC_TRANSPORT_DOMAIN = 0x816, OP_DEALLOC_TRANSPORT_DOMAIN = 0x817,
    OP_ADD_VXLAN_UDP_DPORT = 0x827, OP_DELETE_VXLAN_UDP_DPORT = 0x828,
    OP_SET_L2_TABLE_ENTRY = 0x829, OP_DELETE_L2_TABLE_ENTRY = 0x82b,
    OP_CREATE_TIR = 0x900, OP_MODIFY_TIR = 0x901, OP_DESTROY_TIR = 0x902,
    OP_CREATE_SQ = 0x904, OP_MODIFY_SQ = 0x905, OP_DESTROY_SQ = 0x906,
    OP_CREATE_RQ = 0x908, OP_MODIFY_RQ = 0x909, OP_DESTROY_RQ = 0x90a,
    OP_CREATE_TIS = 0x912, OP_DESTROY_TIS = 0x914,
    OP_CREATE_RQT = 0x916, OP_MODIFY_RQT = 0x917, OP_DESTROY_RQT = 0x918,
    OP_SET_FLOW_TABLE_ROOT = 0x92f, OP_CREATE_FLOW_TABLE = 0x930,
    OP_DESTROY_FLOW_TABLE = 0x931, OP_CREATE_FLOW_GROUP = 0x933,
    OP_DESTROY_FLOW_GROUP = 0x934, OP_SET_FLOW_TABLE_ENTRY = 0x936,
    OP_DELETE_FLOW_TABLE_ENTRY = 0x938,
};

/* PRM "Events": event types used here */
#define EVENT_CMD           0x0a
#define EVENT_PAGE_REQUEST  0x0b
#define EVENT_PORT_CHANGE   0x09

/* QUERY_PAGES op_mod (PRM "QUERY_PAGES") */
#define PAGES_BOOT          1
#define PAGES_INIT          2
#define PAGES_REGULAR       3

/* UAR page (PRM "UAR Page Format"): offsets inside each 4 KB page */
#define UAR_CQ_DOORBELL     0x20
#define UAR_EQ_ARM          0x40
#define UAR_EQ_UPDATE       0x48
#define UAR_BF_REG          0x800   /* BlueFlame register 0, 256 bytes */
#define UAR_FIRST           0x10    /* first UAR handed out, as the card's */
#define UAR_MAX             0x400

/* what the firmware asks for (the trace's QUERY_PAGES boot and init) */
#define MAX_PAGES           65536
#define EQ_FIRST            0x10    /* first EQN handed out, as the card */
#define MAX_EQ              32
#define MAX_PAS             1024    /* pages of one queue buffer */
#define MAX_MC_LIST         4096    /* vport allowed multicast list, kept */

/* Objects the Ethernet driver creates (mlx5_obj.c, mlx5_steer.c): numbers
 * are base + slot, each kind its own base so that a number of one kind
 * never names another */
#define MAX_OBJ             64
#define MAX_RQT_SIZE        256
#define MAX_QCOUNTER        16
#define PD_BASE             0x100
#define TD_BASE             0x200
#define CQ_BASE             0x400
#define SQ_BASE             0x800
#define RQ_BASE             0xc00
#define TIS_BASE            0x1000
#define TIR_BASE            0x1400
#define RQT_BASE            0x1800
#define FT_BASE             0x1c00
#define FG_BASE             0x2000
#define FTE_MAX             256
#define MKEY_BASE           0x10    /* mkey index; key = index << 8 | variant */
#define RESERVED_LKEY       0x200   /* QUERY_SPECIAL_CONTEXTS resd_lkey */
#define INVALID_LKEY        0x100   /* ends a receive scatter list */

/* PRM "Work Queue" (wq inside sqc/rqc) */
typedef struct Mlx5Wq {
    uint64_t dbr;               /* doorbell record: RQ dword 0, SQ dword 1 */
    uint32_t pd;
    uint8_t log_stride, log_pg_sz, log_sz;
    uint32_t npas;
    uint64_t pas[MAX_PAS];
} Mlx5Wq;

/* a memory key in physical-address mode (PRM "Memory Key Context") */
typedef struct Mlx5Mkey {
    bool valid, length64;
    uint32_t key, pd;
    uint64_t start, len;
} Mlx5Mkey;

typedef struct Mlx5Cq {
    bool valid, armed;
    uint8_t log_size, log_page_size;
    uint32_t uar, eqn;
    uint64_t dbr;               /* consumer counter, dword 0 */
    uint32_t pi;
    uint32_t npas;
    uint64_t pas[MAX_PAS];
} Mlx5Cq;

typedef struct Mlx5Sq {
    bool valid;
    uint8_t state;              /* 0 RST, 1 RDY, 3 ERR */
    uint32_t cqn, tisn;
    uint16_t ci;                /* next WQE to run (wqe counter) */
    Mlx5Wq wq;
} Mlx5Sq;

typedef struct Mlx5Rq {
    bool valid;
    uint8_t state;
    uint8_t counter_set_id;     /* a Q counter, 0 none */
    uint32_t cqn;
    uint16_t ci;                /* next WQE to fill */
    Mlx5Wq wq;
} Mlx5Rq;

typedef struct Mlx5Tir {
    bool valid;
    uint8_t disp_type;          /* 0 direct, 1 indirect */
    uint8_t hash_fn;            /* 2 Toeplitz */
    uint32_t inline_rqn, rqtn, td;
    uint32_t sel_outer;         /* rx_hash_field_selector_outer */
    uint8_t key[40];
} Mlx5Tir;

typedef struct Mlx5Rqt {
    bool valid;
    uint32_t size;
    uint32_t rqn[MAX_RQT_SIZE];
} Mlx5Rqt;

typedef struct Mlx5Ft {
    bool valid;
    uint8_t type, level, log_size;
    uint8_t miss_action;        /* 0 default (drop), 1 go to miss_id */
    uint32_t miss_id;
} Mlx5Ft;

typedef struct Mlx5Fg {
    bool valid;
    uint32_t ft, start, end;
    uint8_t enable;             /* match_criteria_enable: bit 0 outer */
    uint8_t mask[64];           /* outer_headers criteria */
} Mlx5Fg;

typedef struct Mlx5Fte {
    bool valid;
    uint32_t ft, index, group;
    uint16_t action;            /* 0x4: forward to destination */
    uint8_t value[64];
    uint8_t dest_type;          /* 1 flow table, 2 TIR */
    uint32_t dest_id;
} Mlx5Fte;

/* Device lifecycle (PRM "Initialization" and "Teardown") */
typedef enum {
    HCA_DISABLED, HCA_ENABLED, HCA_INITIALIZED,
} Mlx5HcaState;

typedef struct Mlx5FwReply {
    uint16_t opcode, op_mod;
    uint32_t key;
    uint32_t len;
    const uint8_t *data;
} Mlx5FwReply;
extern const Mlx5FwReply mlx5_fw_replies[];

/* the strict counters, each a read-only QOM property "strict-..." */
typedef struct Mlx5Strict {
    uint32_t bad_entry;         /* entry type, lengths, reserved bits */
    uint32_t bad_token;         /* mailbox token differs from the entry's */
    uint32_t bad_block_number;  /* mailbox block number out of sequence */
    uint32_t short_mailbox;     /* chain ends before the lengths say */
    uint32_t doorbell_not_owned;/* doorbell for an entry software owns */
    uint32_t cmd_while_initializing;
    uint32_t bad_state;         /* command before its prerequisite */
    uint32_t bad_opcode;
    uint32_t bad_param;         /* malformed input, bad page address ... */
    uint32_t bad_resource;      /* object number that does not exist */
    uint32_t eq_overflow;
    uint32_t cq_overflow;       /* CQE with no room: CQ doorbell record */
    uint32_t bad_wqe;           /* malformed WQE, bad lkey: error CQE */
    uint32_t bad_doorbell;      /* UAR write to a page not allocated */
} Mlx5Strict;

typedef struct Mlx5Eq {
    bool valid;
    bool armed;
    uint8_t log_size;
    uint8_t log_page_size;      /* relative to 4 KB */
    uint8_t intr;
    uint32_t uar;
    uint32_t pi;                /* producer index (model's) */
    uint32_t ci;                /* consumer index (doorbell) */
    uint64_t bitmask;
    uint32_t npas;
    uint64_t pas[MAX_PAS];
} Mlx5Eq;

struct Mlx5State {
    PCIDevice parent_obj;
    MemoryRegion bar0;
    MemoryRegion msix;
    NICState *nic;
    NICConf conf;
    uint32_t device_id;
    bool vf;                    /* vf=on: a ConnectX VF (mlx5_vf.c) */
    bool trusted;               /* trusted=on: the VF may go promiscuous */

    /* initialization segment */
    uint64_t cmdq_addr;
    uint32_t nic_interface;
    int64_t init_done_ns;
    uint8_t health_synd;

    /* HCA */
    Mlx5HcaState hca;
    uint16_t issi;
    uint8_t cur_cap_general[4096]; /* SET_HCA_CAP changes it */
    bool cap_set;
    uint32_t host_endianness;
    uint8_t paos_admin;         /* PAOS admin_status: 1 up, 2 down */
    bool port_up;               /* operational state last reported */
    uint32_t ptys_admin;        /* PTYS eth_proto_admin */
    uint16_t port_mtu;          /* PMTU admin = oper */
    uint32_t npages;
    uint64_t *pages;
    uint32_t boot_pages, init_pages;
    int32_t regular_pages;      /* page-request debt (+ wants, - returns) */
    uint32_t uar_alloc[UAR_MAX / 32];
    Mlx5Eq eq[MAX_EQ];

    /* Ethernet objects */
    bool pd[MAX_OBJ], td[MAX_OBJ], tis[MAX_OBJ];
    bool qc[MAX_QCOUNTER + 1];  /* Q counters 1..16 */
    uint32_t qc_out_of_buffer[MAX_QCOUNTER + 1];
    Mlx5Mkey mkey[MAX_OBJ];
    Mlx5Cq cq[MAX_OBJ];
    Mlx5Sq sq[MAX_OBJ];
    Mlx5Rq rq[MAX_OBJ];
    Mlx5Tir tir[MAX_OBJ];
    Mlx5Rqt rqt[MAX_OBJ];
    Mlx5Ft ft[MAX_OBJ];
    Mlx5Fg fg[MAX_OBJ];
    Mlx5Fte fte[FTE_MAX];
    int32_t root_ft;            /* SET_FLOW_TABLE_ROOT, -1 none */
    uint8_t promisc;            /* nic_vport_context promisc_uc/mc/all 7:5 */
    uint16_t vport_mtu;
    uint32_t mc_list_len;       /* the vport's allowed multicast list */
    uint8_t mc_list[MAX_MC_LIST][6];
    uint32_t vf_port_reg_refused, vf_promisc_refused, vf_mc_filtered;
    uint32_t rx_out_of_buffer;  /* PRM "rx_out_of_buffer" counter */
    uint32_t rx_steer_miss;     /* no flow entry took the frame */
    uint64_t rx_frame_too_long; /* over the port's MTU: PPCNT IEEE 802.3
                                 * a_frame_too_long_errors */
    uint32_t rx_packets, tx_packets;
    struct NetTxPkt *tx_pkt;
    uint8_t *tx_pad;            /* padding past the IP datagram, re-added */
    size_t tx_pad_len;
    uint32_t bf_hi[UAR_MAX];    /* first half of a 2x32-bit doorbell */

    /* command in flight */
    uint32_t syndrome;

    Mlx5Strict strict;
    int32_t page_request;       /* QOM test hook, see mlx5_eq.c */
};

/* mlx5.c */
void mlx5_guest_error(Mlx5State *s, uint32_t *counter, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);
bool mlx5_initializing(Mlx5State *s);

/* mlx5_cmdq.c */
void mlx5_cmd_doorbell(Mlx5State *s, uint32_t vector);

/* mlx5_hca.c: one command, in -> out; returns the command status */
int mlx5_exec(Mlx5State *s, const uint8_t *in, uint32_t in_len,
              uint8_t *out, uint32_t out_len);
const Mlx5FwReply *mlx5_fw_reply(uint16_t opcode, uint16_t op_mod,
                                 uint32_t key);
void mlx5_hca_reset(Mlx5State *s);

/* mlx5_reg.c */
void mlx5_port_event(Mlx5State *s);

/* mlx5_vf.c */
void mlx5_vf_patch_cap(Mlx5State *s, uint8_t *cap, size_t len);
uint32_t mlx5_vf_pages(Mlx5State *s, int op_mod);
bool mlx5_vf_rx_allowed(Mlx5State *s, const uint8_t *buf, size_t size);

/* mlx5_obj.c */
void mlx5_objects_reset(Mlx5State *s);
bool mlx5_lkey_ok(Mlx5State *s, uint32_t lkey, uint64_t addr, uint32_t len);

/* mlx5_eq.c */
typedef struct Mlx5Cmd Mlx5Cmd;
int mlx5_create_eq(Mlx5State *s, Mlx5Cmd *c);
int mlx5_destroy_eq(Mlx5State *s, Mlx5Cmd *c);
void mlx5_eq_doorbell(Mlx5State *s, uint32_t uar, hwaddr off, uint32_t val);
bool mlx5_post_event(Mlx5State *s, uint8_t type, uint8_t sub_type,
                     const uint8_t *data, size_t len);
bool mlx5_post_event_to(Mlx5State *s, uint32_t eqn, uint8_t type,
                        uint8_t sub_type, const uint8_t *data, size_t len);
void mlx5_page_request(Mlx5State *s, int32_t n);

/* big-endian field helpers on byte buffers */
static inline uint32_t be32(const uint8_t *p)
{
    return ldl_be_p(p);
}
static inline uint16_t be16(const uint8_t *p)
{
    return lduw_be_p(p);
}
static inline uint64_t be64(const uint8_t *p)
{
    return ldq_be_p(p);
}

#endif
