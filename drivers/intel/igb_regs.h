/* SPDX-License-Identifier: MIT */
/* drivers/intel/igb_regs.h: Intel 82576 GbE controller registers and
 * descriptor formats, as the driver uses them. Section numbers are those of
 * the 82576EB datasheet (rev. 2.x): 8 (register descriptions), 7.1.5
 * (advanced receive descriptors), 7.2.2.2 and 7.2.2.3 (advanced transmit
 * context and data descriptors). Only what drivers/intel/igb.c needs is
 * named here. */
#ifndef DRIVERS_INTEL_IGB_REGS_H
#define DRIVERS_INTEL_IGB_REGS_H

#include <stdint.h>

/* General (8.2). */
#define IGB_CTRL 0x00000
#define IGB_STATUS 0x00008
#define IGB_CTRL_EXT 0x00018
#define IGB_MDIC 0x00020
#define IGB_ICR 0x000c0
#define IGB_IMC 0x000d8
#define IGB_EIMC 0x01528
#define IGB_RCTL 0x00100
#define IGB_TCTL 0x00400
#define IGB_RXCSUM 0x05000
#define IGB_RLPML 0x05004 /* the longest frame taken with RCTL.LPE (8.10.12) */
#define IGB_MTA(i) (0x05200 + 4 * (i)) /* 128 registers (8.10.14) */
#define IGB_MTA_COUNT 128
#define IGB_MRQC 0x05818
#define IGB_RETA(i) (0x05c00 + 4 * (i)) /* 32 registers, 4 one-byte entries each (8.10.22) */
#define IGB_RETA_REGS 32
#define IGB_RSSRK(i) (0x05c80 + 4 * (i)) /* 10 registers, the 40-byte key (8.10.23) */
#define IGB_RSSRK_REGS 10
#define IGB_MPC 0x04010 /* missed packets, clear on read (8.19.14) */

/* Virtualisation (the datasheet's virtualization chapter): VMDq pools, each VF's
 * mailbox. Pool k owns queues k and k + 8. */
#define IGB_RAL(i) ((i) < 16 ? 0x05400 + 8 * (i) : 0x054e0 + 8 * ((i) - 16)) /* 24 receive addresses */
#define IGB_RAH(i) (IGB_RAL(i) + 4)
#define IGB_RAR_COUNT 24
#define IGB_VT_CTL 0x0581c
#define IGB_VMOLR(k) (0x05ad0 + 4 * (k)) /* per-pool offload and filtering */
#define IGB_VFRE 0x00c8c                 /* per-pool RX enable */
#define IGB_VFTE 0x00c90                 /* per-pool TX enable */
#define IGB_DTXSWC 0x03500
#define IGB_VMBMEM(n) (0x00800 + 0x40 * (n)) /* VF n's 16-word mailbox memory */
#define IGB_P2VMAILBOX(n) (0x00c00 + 4 * (n))
#define IGB_MBVFICR 0x00c80              /* VF requests (bits 7:0) and ACKs (23:16), W1C */
#define IGB_VFLRE 0x00c88                /* VF n was reset, W1C */

/* Per-queue registers, queue n = 0..15, at their non-aliased addresses
 * (8.10.x RX queues at 0xC000, 8.12.x TX queues at 0xE000), each the same
 * block; a VF's one queue has the same block in its own BAR. Where the
 * ring code (igb_rxtx.c) finds them is a struct igb_layout (igb_dev.h). */
#define IGB_RXQ(n) (0x0c000 + 0x40 * (n))
#define IGB_TXQ(n) (0x0e000 + 0x40 * (n))
#define IGB_Q_STRIDE 0x40
enum {
    IGB_Q_BAL = 0x00,    /* RDBAL / TDBAL: ring base, low half */
    IGB_Q_BAH = 0x04,
    IGB_Q_LEN = 0x08,    /* RDLEN / TDLEN: bytes */
    IGB_Q_SRRCTL = 0x0c, /* RX only */
    IGB_Q_HEAD = 0x10,
    IGB_Q_TAIL = 0x18,
    IGB_Q_DCTL = 0x28,   /* RXDCTL / TXDCTL */
};

enum {
    /* CTRL (8.2.1) */
    IGB_CTRL_SLU = 1u << 6,  /* set link up */
    IGB_CTRL_RST = 1u << 26, /* device reset, self-clearing */
    /* STATUS (8.2.2) */
    IGB_STATUS_LU = 1u << 1,
    /* CTRL_EXT (8.2.3) */
    IGB_CTRL_EXT_PFRSTD = 1u << 14, /* PF reset done: VFs may talk (each write re-signals it) */
    IGB_CTRL_EXT_DRV_LOAD = 1u << 28,
    /* MDIC (8.2.4): PHY register access; the internal PHY is at address 1 */
    IGB_MDIC_REG_SHIFT = 16,
    IGB_MDIC_PHY_SHIFT = 21,
    IGB_MDIC_OP_WRITE = 1u << 26,
    IGB_MDIC_OP_READ = 2u << 26,
    IGB_MDIC_READY = 1u << 28,
    IGB_MDIC_ERROR = 1u << 30,
    IGB_PHY_ADDR = 1,
    /* PHY control register 0 (8.23.1, IEEE 802.3 clause 22) */
    IGB_PHY_BMCR = 0,
    IGB_BMCR_RESTART_AN = 1u << 9,
    IGB_BMCR_AN_ENABLE = 1u << 12,
    /* RCTL (8.10.1) */
    IGB_RCTL_EN = 1u << 1,
    IGB_RCTL_UPE = 1u << 3,
    IGB_RCTL_MPE = 1u << 4,
    IGB_RCTL_LPE = 1u << 5,  /* long packets: up to RLPML bytes, else 1518 (+4 a VLAN tag) */
    IGB_RCTL_BAM = 1u << 15,
    IGB_RCTL_BSIZE_2048 = 0u << 16,
    IGB_RCTL_SECRC = 1u << 26,
    /* SRRCTL (8.10.2): BSIZEPACKET in 1 KiB units, descriptor type */
    IGB_SRRCTL_BSIZEPKT_SHIFT = 0,
    IGB_SRRCTL_BSIZEPKT_UNIT = 1024,
    IGB_SRRCTL_BSIZEHDR_SHIFT = 8, /* 64-byte units; unused with one buffer */
    IGB_SRRCTL_DESCTYPE_ADV_ONEBUF = 1u << 25,
    IGB_SRRCTL_DROP_EN = 1u << 31,
    /* RXDCTL / TXDCTL (8.10.10, 8.12.13) */
    IGB_XDCTL_ENABLE = 1u << 25,
    IGB_XDCTL_WTHRESH_MASK = 0x1fu << 16,
    /* RXCSUM (8.10.11) */
    IGB_RXCSUM_IPOFLD = 1u << 8,
    IGB_RXCSUM_TUOFLD = 1u << 9,
    IGB_RXCSUM_PCSD = 1u << 13, /* descriptors carry the RSS hash */
    /* RLPML (8.10.12): bytes, CRC and VLAN tags counted in; the 82576
     * takes frames of 9.5 KB at most */
    IGB_RLPML_MAX = 9728,
    /* MRQC (8.10.21) */
    IGB_MRQC_RSS = 0x2,         /* multiple receive queues: RSS only */
    IGB_MRQC_TCPIPV4 = 1u << 16,
    IGB_MRQC_IPV4 = 1u << 17,
    IGB_MRQC_TCPIPV6EX = 1u << 18, /* QEMU hashes TCP/IPv6 ports by this one */
    IGB_MRQC_IPV6 = 1u << 20,
    IGB_MRQC_TCPIPV6 = 1u << 21,
    IGB_MRQC_UDPIPV4 = 1u << 22,
    IGB_MRQC_UDPIPV6 = 1u << 23,
    IGB_MRQC_VMDQ = 0x3,          /* pools by destination MAC, no RSS */
    /* Virtualisation */
    IGB_VT_CTL_DEF_PL_SHIFT = 7,  /* pool of unicast no address matched */
    IGB_RAH_AV = 1u << 31,
    IGB_RAH_POOL_SHIFT = 18,      /* bit 18 + k: the address belongs to pool k */
    IGB_VMOLR_RLPML_MASK = 0x3fff,
    IGB_VMOLR_LPE = 1u << 16,     /* frames up to RLPML, else 1518 */
    IGB_VMOLR_AUPE = 1u << 24,    /* untagged frames accepted */
    IGB_VMOLR_ROMPE = 1u << 25,   /* multicast the MTA matches accepted */
    IGB_VMOLR_BAM = 1u << 27,     /* broadcast accepted */
    IGB_DTXSWC_LOOPBACK = 1u << 31, /* pool to pool without the wire */
    /* P2VMAILBOX, the PF's side of VF n's mailbox */
    IGB_P2V_STS = 1u << 0,        /* a message for the VF */
    IGB_P2V_ACK = 1u << 1,        /* the VF's message taken */
    IGB_P2V_PFU = 1u << 3,        /* the PF holds the buffer; any write without it releases */
    /* V2PMAILBOX, the VF's side (PFSTS, PFACK, RSTD clear when read) */
    IGB_V2P_REQ = 1u << 0,
    IGB_V2P_ACK = 1u << 1,
    IGB_V2P_VFU = 1u << 2,
    IGB_V2P_PFSTS = 1u << 4,
    IGB_V2P_PFACK = 1u << 5,
    IGB_V2P_RSTI = 1u << 6,       /* the PF is resetting */
    IGB_V2P_RSTD = 1u << 7,       /* the PF finished a reset */
    /* TCTL (8.12.1) */
    IGB_TCTL_EN = 1u << 1,
    IGB_TCTL_PSP = 1u << 3, /* pad short packets */
};

/* A VF's registers (its own 16 KiB BAR0): the PF's registers for its
 * pool, at the legacy addresses. */
#define IGBVF_CTRL 0x00000     /* RST alone acts */
#define IGBVF_STATUS 0x00008   /* the PF's STATUS: link */
#define IGBVF_EIMC 0x01528
#define IGBVF_V2PMAILBOX 0x00c40
#define IGBVF_VMBMEM 0x00800
#define IGBVF_RXQ0 0x02800     /* the same block as IGB_RXQ(n) */
#define IGBVF_TXQ0 0x03800

/* The PF-VF mailbox messages: Linux igb's (e1000_mbx.h), the protocol a
 * VF speaks to a Linux host and our PF answers. Word 0: the message id in
 * bits 15:0, its argument in 23:16, and the reply's flags. */
enum {
    IGB_MBX_WORDS = 16,
    IGB_MSG_VF_RESET = 0x01,      /* reply: ACK, MAC in words 1-2; NACK: none assigned */
    IGB_MSG_SET_MAC = 0x02,       /* words 1-2: the MAC */
    IGB_MSG_SET_MULTICAST = 0x03, /* argument: count; 16-bit MTA hashes from word 1 */
    IGB_MSG_SET_VLAN = 0x04,
    IGB_MSG_SET_LPE = 0x05,       /* word 1: the largest frame, bytes */
    IGB_MSG_SET_PROMISC = 0x06,
    IGB_MSG_PROMISC_MULTICAST = 1u << 17, /* SET_PROMISC: every multicast */
    IGB_MSG_INFO_SHIFT = 16,
    IGB_MSG_ID_MASK = 0xffff,
    IGB_MSG_ACK = 1u << 31,
    IGB_MSG_NACK = 1u << 30,
    IGB_MSG_CTS = 1u << 29,       /* the PF has taken the VF's reset: clear to send */
};

/* Advanced receive descriptor, one buffer (7.1.5.1 read, 7.1.5.2
 * write-back). The device writes the write-back format over the read
 * format; DD lands where the header address was, so posting a buffer with
 * hdr_addr = 0 also clears DD. */
union igb_rx_desc {
    struct {
        uint64_t pkt_addr;
        uint64_t hdr_addr;
    } read;
    struct {
        uint32_t info;         /* RSS type 3:0, packet type 16:4, header length */
        uint32_t rss_hash;     /* with RXCSUM.PCSD (else IP id / fragment checksum) */
        uint32_t status_error; /* extended status 19:0, extended errors 31:20 */
        uint16_t length;
        uint16_t vlan;
    } wb;
};
_Static_assert(sizeof(union igb_rx_desc) == 16, "82576 7.1.5");
_Static_assert(__builtin_offsetof(union igb_rx_desc, wb.status_error) == 8, "82576 7.1.5.2");
_Static_assert(__builtin_offsetof(union igb_rx_desc, wb.length) == 12, "82576 7.1.5.2");

enum {
    IGB_RXD_DD = 1u << 0,
    IGB_RXD_EOP = 1u << 1,
    IGB_RXD_UDPCS = 1u << 4,
    IGB_RXD_L4CS = 1u << 5, /* TCP/UDP checksum was computed */
    IGB_RXD_IPCS = 1u << 6,
    IGB_RXD_ERR_L4E = 1u << 29,
    IGB_RXD_ERR_IPE = 1u << 30,
    IGB_RXD_ERR_RXE = 1u << 31, /* CRC, symbol, sequence or length error */
    IGB_RXD_RSS_TYPE_MASK = 0xf,
};

/* Advanced transmit data descriptor (7.2.2.3). Write-back (RS set): DD in
 * the status nibble of the last dword, over olinfo_status. */
struct igb_tx_desc {
    uint64_t addr;
    uint32_t cmd_type_len; /* DTALEN 15:0, DTYP 23:20, DCMD 31:24 */
    uint32_t olinfo_status; /* STA 3:0 (DD bit 0), POPTS 13:8, PAYLEN 31:14 */
};
_Static_assert(sizeof(struct igb_tx_desc) == 16, "82576 7.2.2.3");

enum {
    IGB_TXD_DTYP_CTXT = 2u << 20,
    IGB_TXD_DTYP_DATA = 3u << 20,
    IGB_TXD_CMD_EOP = 1u << 24,
    IGB_TXD_CMD_IFCS = 1u << 25, /* append the Ethernet CRC */
    IGB_TXD_CMD_RS = 1u << 27,   /* report status: write DD back */
    IGB_TXD_CMD_DEXT = 1u << 29, /* advanced descriptor */
    IGB_TXD_CMD_TSE = 1u << 31,  /* TCP segmentation */
    IGB_TXD_STAT_DD = 1u << 0,
    IGB_TXD_IDX_SHIFT = 4,       /* context slot (also in mss_l4len_idx) */
    IGB_TXD_POPTS_IXSM = 1u << 8, /* insert the IPv4 header checksum */
    IGB_TXD_POPTS_TXSM = 1u << 9, /* insert the TCP/UDP checksum */
    IGB_TXD_PAYLEN_SHIFT = 14,   /* the frame's length; with TSE, the L4 payload's */
};

/* Advanced transmit context descriptor (7.2.2.2): offload parameters kept
 * in one of the queue's two context slots (IDX) for the data descriptors
 * that name that slot. It takes a ring slot and is never written back. */
struct igb_tx_ctx_desc {
    uint32_t vlan_macip_lens; /* IPLEN 8:0, MACLEN 15:9, VLAN 31:16 */
    uint32_t seqnum_seed;     /* IPsec only: 0 */
    uint32_t type_tucmd_mlhl; /* TUCMD 19:9, DTYP 23:20, DEXT bit 29 */
    uint32_t mss_l4len_idx;   /* IDX 6:4, L4LEN 15:8, MSS 31:16 */
};
_Static_assert(sizeof(struct igb_tx_ctx_desc) == sizeof(struct igb_tx_desc), "82576 7.2.2.2");
_Static_assert(__builtin_offsetof(struct igb_tx_ctx_desc, mss_l4len_idx) == 12, "82576 7.2.2.2");

enum {
    IGB_TXCTX_SLOTS = 2,
    IGB_TXCTX_MACLEN_SHIFT = 9,       /* 14..127 */
    IGB_TXCTX_IPLEN_MAX = 511,
    IGB_TXCTX_TUCMD_IPV4 = 1u << 10,  /* else IPv6 */
    IGB_TXCTX_TUCMD_L4T_TCP = 1u << 11, /* L4T 00b: UDP */
    IGB_TXCTX_L4LEN_SHIFT = 8,
    IGB_TXCTX_MSS_SHIFT = 16,
};

#endif
