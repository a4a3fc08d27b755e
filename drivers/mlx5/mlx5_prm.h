/* SPDX-License-Identifier: MIT */
/* drivers/mlx5/mlx5_prm.h: what hayate's mlx5 driver uses of the
 * ConnectX-4/5/6 programming interface ("Mellanox Adapters Programmer's
 * Reference Manual", PRM Rev 0.40, cited by section title; later fields
 * as the mlx5_ifc.h layouts name them). Every structure the device reads or writes is
 * big-endian; a field is named by its byte offset in the structure and,
 * when narrower than its dword, its shift and width in that dword (as the
 * PRM's tables draw them: bit 31 first). */
#ifndef DRIVERS_MLX5_PRM_H
#define DRIVERS_MLX5_PRM_H

#define MLX5_VENDOR 0x15b3

/* ---- Initialization segment, BAR0 offset 0 (PRM "Initialization Segment") ---- */
#define MLX5_ISEG_FW_REV          0x000 /* minor 31:16, major 15:0 */
#define MLX5_ISEG_CMDIF_REV_FW_SUB 0x004 /* cmd interface revision 31:16, subminor 15:0 */
#define MLX5_ISEG_CMDQ_ADDR_H     0x010
#define MLX5_ISEG_CMDQ_ADDR_L_SZ  0x014 /* address 31:12, nic_interface 9:8, log size 7:4, log stride 3:0 */
#define MLX5_ISEG_CMD_DBELL       0x018 /* bit n: entry n posted */
#define MLX5_ISEG_INITIALIZING    0x1fc /* bit 31: firmware not ready */
#define MLX5_ISEG_HEALTH          0x200 /* the health buffer (PRM "Health Buffer") */
#define MLX5_ISEG_HEALTH_SYND     0x23d /* u8: 0 healthy */
#define MLX5_ISEG_HEALTH_EXT_SYND 0x23e /* be16 */
#define MLX5_ISEG_HEALTH_COUNTER  0x1010 /* moves while the firmware lives */
#define MLX5_CMDIF_REV            5      /* the command interface revision this driver speaks */
#define MLX5_NIC_IFC_FULL         0      /* nic_interface: full driver, not disabled */

/* ---- Command queue entry, 64 bytes (PRM "Command Queue Entry") ---- */
#define MLX5_ENT_TYPE_PCIE  0x7
#define MLX5_ENT_TYPE       0x00
#define MLX5_ENT_IN_LEN     0x04
#define MLX5_ENT_IN_MB_H    0x08
#define MLX5_ENT_IN_MB_L    0x0c
#define MLX5_ENT_IN_INLINE  0x10 /* the command's first 16 bytes */
#define MLX5_ENT_OUT_INLINE 0x20 /* the reply's first 16 bytes */
#define MLX5_ENT_OUT_MB_H   0x30
#define MLX5_ENT_OUT_MB_L   0x34
#define MLX5_ENT_OUT_LEN    0x38
#define MLX5_ENT_TOKEN      0x3c
#define MLX5_ENT_SIG        0x3d /* the entry's bytes XOR to 0xff */
#define MLX5_ENT_STATUS     0x3f /* delivery status 7:1, ownership 0 (1: the device's) */
#define MLX5_ENT_SIZE       64
#define MLX5_INLINE_LEN     16

/* ---- Command mailbox block, 576 bytes, 1 KB aligned (PRM "Command Mailbox") ---- */
#define MLX5_MB_DATA      512
#define MLX5_MB_NEXT      0x230
#define MLX5_MB_BLOCK_NUM 0x238
#define MLX5_MB_TOKEN     0x23d
#define MLX5_MB_SIZE      0x240
#define MLX5_MB_ALIGN     1024

/* ---- Command header: input opcode 0x00, op_mod 0x06; output status 0x00, syndrome 0x04 (PRM "Command Interface") ---- */
enum {
    MLX5_CMD_QUERY_HCA_CAP = 0x100,
    MLX5_CMD_QUERY_ADAPTER = 0x101,
    MLX5_CMD_INIT_HCA = 0x102,
    MLX5_CMD_TEARDOWN_HCA = 0x103,
    MLX5_CMD_ENABLE_HCA = 0x104,
    MLX5_CMD_DISABLE_HCA = 0x105,
    MLX5_CMD_QUERY_PAGES = 0x107,
    MLX5_CMD_MANAGE_PAGES = 0x108,
    MLX5_CMD_SET_HCA_CAP = 0x109,
    MLX5_CMD_QUERY_ISSI = 0x10a,
    MLX5_CMD_SET_ISSI = 0x10b,
    MLX5_CMD_QUERY_SPECIAL_CONTEXTS = 0x203,
    MLX5_CMD_CREATE_EQ = 0x301,
    MLX5_CMD_CREATE_CQ = 0x400,
    MLX5_CMD_QUERY_VPORT_STATE = 0x750,
    MLX5_CMD_QUERY_NIC_VPORT_CONTEXT = 0x754,
    MLX5_CMD_MODIFY_NIC_VPORT_CONTEXT = 0x755,
    MLX5_CMD_ALLOC_PD = 0x800,
    MLX5_CMD_ALLOC_UAR = 0x802,
    MLX5_CMD_ACCESS_REG = 0x805,
    MLX5_CMD_ALLOC_TRANSPORT_DOMAIN = 0x816,
    MLX5_CMD_CREATE_TIR = 0x900,
    MLX5_CMD_CREATE_SQ = 0x904,
    MLX5_CMD_MODIFY_SQ = 0x905,
    MLX5_CMD_CREATE_RQ = 0x908,
    MLX5_CMD_MODIFY_RQ = 0x909,
    MLX5_CMD_CREATE_TIS = 0x912,
    MLX5_CMD_CREATE_RQT = 0x916,
    MLX5_CMD_MODIFY_RQT = 0x917,
    MLX5_CMD_SET_FLOW_TABLE_ROOT = 0x92f,
    MLX5_CMD_CREATE_FLOW_TABLE = 0x930,
    MLX5_CMD_CREATE_FLOW_GROUP = 0x933,
    MLX5_CMD_SET_FLOW_TABLE_ENTRY = 0x936,
};

/* QUERY_PAGES / MANAGE_PAGES op_mod (PRM "QUERY_PAGES", "MANAGE_PAGES"). */
enum { MLX5_PAGES_BOOT = 1, MLX5_PAGES_INIT = 2, MLX5_PAGES_REGULAR = 3 };
enum { MLX5_PAGES_CANT_GIVE = 0, MLX5_PAGES_GIVE = 1, MLX5_PAGES_TAKE = 2 };
#define MLX5_PAGE_SIZE 4096u

/* QUERY_HCA_CAP op_mod: capability type << 1 | current (PRM "QUERY_HCA_CAP"). */
enum { MLX5_CAP_GENERAL = 0, MLX5_CAP_ETHERNET = 1 };
enum { MLX5_CAP_MAX = 0, MLX5_CAP_CUR = 1 };
#define MLX5_CAP_LEN 0x1000 /* the capability, after the 16-byte reply header */

/* The general capabilities (PRM "HCA Capabilities", cmd_hca_cap): byte offsets. */
#define MLX5_HCA_LOG_MAX_CQ_SZ   0x19
#define MLX5_HCA_LOG_MAX_EQ_SZ   0x1c
#define MLX5_HCA_PORT_TYPE       0x36 /* bits 1:0; 1: Ethernet */
#define MLX5_HCA_NUM_PORTS       0x37
#define MLX5_HCA_CQE_VERSION     0x3f /* bits 3:0 */
#define MLX5_HCA_CMDIF_CHECKSUM  0x42 /* bits 7:6 */
#define MLX5_HCA_ETH_NET_OFFLOADS 0x43 /* bit 3 */
#define MLX5_HCA_LOG_PG_SZ       0x4b
#define MLX5_HCA_BF              0x4c /* bit 7 */
#define MLX5_HCA_LOG_BF_REG_SIZE 0x4d /* bits 4:0 */
#define MLX5_HCA_LOG_MAX_WQ_SZ   0x7b /* bits 4:0 */
#define MLX5_HCA_MAX_WQE_SZ_RQ   0x56 /* 16 bits: a receive WQE's most bytes */
#define MLX5_HCA_LOG_MAX_RQT_SIZE 0x72 /* bits 4:0 */
#define MLX5_HCA_VPORT_GROUP_MANAGER 0x34 /* bit 7 */
#define MLX5_HCA_NIC_FLOW_TABLE  0x34 /* bit 1 */
#define MLX5_PORT_TYPE_ETH 1

/* The Ethernet offload capabilities (PRM "Per Protocol Networking Offload Capabilities"), dword 0. */
#define MLX5_ETH_CSUM_CAP       (1u << 31)
#define MLX5_ETH_MAX_LSO_SHIFT  16 /* 5 bits: log2 of the largest LSO */
#define MLX5_ETH_INLINE_SHIFT   12 /* 2 bits: wqe_inline_mode */
enum { MLX5_INLINE_L2 = 0, MLX5_INLINE_VPORT_CONTEXT = 1, MLX5_INLINE_NOT_REQUIRED = 2 };
/* The NIC vport context's min_wqe_inline_mode. */
enum { MLX5_MIN_INLINE_NONE = 0, MLX5_MIN_INLINE_L2 = 1, MLX5_MIN_INLINE_IP = 2, MLX5_MIN_INLINE_TCP_UDP = 3 };

/* ---- Event queue (PRM "Event Queues") ---- */
#define MLX5_EQE_SIZE 64
#define MLX5_EQE_TYPE 0x01
#define MLX5_EQE_DATA 0x20
#define MLX5_EQE_OWNER 0x3f /* bit 0 */
enum { MLX5_EVENT_PORT_CHANGE = 0x09, MLX5_EVENT_PAGE_REQUEST = 0x0b };
#define MLX5_UAR_EQ_CI_NOARM 0x48 /* the UAR's EQ consumer index, no re-arm: eqn 31:24, ci 23:0 */
#define MLX5_VPORT_UP 1 /* QUERY_VPORT_STATE's state */

/* Queues and steering objects (PRM "Work Queue Format", "TIR Context", "Flow Table"). */
#define MLX5_WQ_TYPE_CYCLIC 1
enum { MLX5_QUEUE_RST = 0, MLX5_QUEUE_RDY = 1, MLX5_QUEUE_ERR = 3 };
#define MLX5_TIR_INDIRECT 1
#define MLX5_HASH_TOEPLITZ 2
enum { MLX5_HASH_SRC_IP = 1u << 0, MLX5_HASH_DST_IP = 1u << 1, MLX5_HASH_SPORT = 1u << 2, MLX5_HASH_DPORT = 1u << 3 };
#define MLX5_TABLE_NIC_RX 0
#define MLX5_MATCH_OUTER 1
#define MLX5_ACTION_FWD_DEST 0x4
enum { MLX5_DEST_TABLE = 1, MLX5_DEST_TIR = 2 };

/* Work queue entries and completions (PRM "Send WQE Format", "Completion Queue Entry"). */
#define MLX5_OPCODE_SEND 0x0a
#define MLX5_OPCODE_LSO 0x0e
#define MLX5_WQE_MAX_DS 63          /* the control segment's 6-bit count of 16-byte units */
#define MLX5_WQE_CQ_UPDATE 0x08      /* the control segment's fm_ce_se: a CQE for this WQE */
#define MLX5_ETH_L3_CSUM 0x40        /* the Ethernet segment's cs_flags */
#define MLX5_ETH_L4_CSUM 0x80
#define MLX5_UAR_BF 0x800            /* a UAR's doorbell (BlueFlame) register */
#define MLX5_DATA_SEG 16             /* a data (scatter/gather) segment: byte_count, lkey, address */
#define MLX5_INVALID_LKEY 0x100      /* "Receive WQE Format": a scatter list shorter than the stride ends here */
#define MLX5_CQE_SIZE 64
#define MLX5_CQE_RSS_HASH 0x0c
#define MLX5_CQE_RSS_HASH_TYPE 0x10
#define MLX5_CQE_HDS_IP_EXT 0x1c     /* bit 1 L3 ok, bit 2 L4 ok */
#define MLX5_CQE_L3_OK 0x02
#define MLX5_CQE_L4_OK 0x04
#define MLX5_CQE_BYTE_CNT 0x2c
#define MLX5_CQE_SYNDROME 0x37       /* an error CQE's */
#define MLX5_CQE_WQE_COUNTER 0x3c
#define MLX5_CQE_OP_OWN 0x3f         /* opcode 7:4, owner 0 */
enum { MLX5_CQE_REQ = 0, MLX5_CQE_RESP_SEND = 2, MLX5_CQE_REQ_ERR = 13, MLX5_CQE_RESP_ERR = 14, MLX5_CQE_INVALID = 15 };

/* Registers by ACCESS_REG (PRM "Access Registers"): ids. */
enum { MLX5_REG_PMTU = 0x5003, MLX5_REG_PTYS = 0x5004, MLX5_REG_PAOS = 0x5006, MLX5_REG_HOST_ENDIANNESS = 0x7004 };

#endif
