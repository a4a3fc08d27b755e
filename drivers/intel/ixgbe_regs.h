/* SPDX-License-Identifier: MIT */
/* drivers/intel/ixgbe_regs.h: the Intel 82599 10 GbE controller's
 * registers and bits that hayate's ixgbe driver uses, from the 82599
 * datasheet (chapter 8.2.3, each register under its name there). The
 * queue blocks and the advanced descriptors are the 82576's layout
 * (igb_regs.h) at other addresses; what differs is here. */
#ifndef DRIVERS_INTEL_IXGBE_REGS_H
#define DRIVERS_INTEL_IXGBE_REGS_H

/* General control */
#define IXGBE_CTRL 0x00000
#define IXGBE_STATUS 0x00008
#define IXGBE_CTRL_EXT 0x00018
#define IXGBE_I2CCTL 0x00028 /* the SFP+ cage's two-wire bus, bit-banged */

/* EEPROM and the software/firmware semaphores */
#define IXGBE_EEC 0x10010
#define IXGBE_EERD 0x10014
#define IXGBE_SWSM 0x10140
#define IXGBE_FWSM 0x10148
#define IXGBE_SW_FW_SYNC 0x10160 /* GSSR in the 82598's datasheet */

/* Interrupts: masked, never used (the loop polls) */
#define IXGBE_EICR 0x00800
#define IXGBE_EIMC 0x00888
#define IXGBE_EIMC_EX(i) (0x00ab0 + 4 * (i))

/* Receive */
#define IXGBE_RXCTRL 0x03000
#define IXGBE_RXPBSIZE(i) (0x03c00 + 4 * (i))
#define IXGBE_RDRXCTL 0x02f00
#define IXGBE_RXCSUM 0x05000
#define IXGBE_FCTRL 0x05080
#define IXGBE_MTA(i) (0x05200 + 4 * (i)) /* 128 registers */
#define IXGBE_MTA_COUNT 128
#define IXGBE_MCSTCTRL 0x05090 /* MFE: the MTA filters; MO 1:0: which address bits hash (0: 47:36) */
#define IXGBE_RAL(i) (0x0a200 + 8 * (i))
#define IXGBE_RAH(i) (0x0a204 + 8 * (i))
#define IXGBE_MRQC 0x0ec80
#define IXGBE_RETA(i) (0x0eb00 + 4 * (i)) /* 32 registers, four 8-bit entries each (4 bits used) */
#define IXGBE_RETA_REGS 32
#define IXGBE_RSSRK(i) (0x0eb80 + 4 * (i)) /* the 40-byte key */
#define IXGBE_RSSRK_REGS 10
/* Queue n < 64's RX block; queues 64-127 have a second one at 0x0d000
 * (8.2.3.8: RDBAL[n] 0x01000 + 0x40n for n < 64, 0x0D000 + 0x40(n-64)). */
#define IXGBE_RXQ_HI 0x0d000
#define IXGBE_RXQ(n) ((n) < 64 ? 0x01000 + 0x40 * (n) : IXGBE_RXQ_HI + 0x40 * ((n) - 64))
#define IXGBE_Q_SRRCTL 0x14 /* the 82576's is at 0x0c */
#define IXGBE_DCA_RXCTRL(n) (IXGBE_RXQ(n) + 0x0c)
#define IXGBE_SECRXCTRL 0x08d00 /* the RX security (IPsec) block */
#define IXGBE_SECRXSTAT 0x08d04

/* Transmit */
#define IXGBE_DMATXCTL 0x04a80
#define IXGBE_DTXMXSZRQ 0x08100
#define IXGBE_MTQC 0x08120
#define IXGBE_RTTDCS 0x04900
#define IXGBE_TXPBSIZE(i) (0x0cc00 + 4 * (i))
#define IXGBE_TXQ(n) (0x06000 + 0x40 * (n))

/* MAC */
#define IXGBE_HLREG0 0x04240
#define IXGBE_MAXFRS 0x04268
#define IXGBE_AUTOC 0x042a0
#define IXGBE_LINKS 0x042a4
#define IXGBE_AUTOC2 0x042a8

/* Statistics (8.2.3.23): every one clears when read, so a read is a delta. */
#define IXGBE_CRCERRS 0x04000
#define IXGBE_ILLERRC 0x04004
#define IXGBE_ERRBC 0x04008
#define IXGBE_MLFC 0x04034
#define IXGBE_MRFC 0x04038
#define IXGBE_RLEC 0x04040
#define IXGBE_MPC(i) (0x03fa0 + 4 * (i)) /* missed: no room in packet buffer i */
#define IXGBE_RNBC(i) (0x03fc0 + 4 * (i))
#define IXGBE_RUC 0x040a4
#define IXGBE_RFC 0x040a8
#define IXGBE_ROC 0x040ac
#define IXGBE_RJC 0x040b0
#define IXGBE_XEC 0x04120 /* RX frames with an L3/L4 checksum error */
#define IXGBE_GPRC 0x04074
#define IXGBE_GPTC 0x04080
#define IXGBE_QPRDC(n) (0x01430 + 0x40 * (n)) /* queue n's drops (SRRCTL.DROP_EN) */
#define IXGBE_PB_COUNT 8

/* Virtualisation, the PF's side (7.10; Linux's ixgbe_type.h names). Pool
 * and VF bitmaps span two registers (i = 0: pools 0-31). */
#define IXGBE_GCR_EXT 0x11050
#define IXGBE_PFVTCTL 0x051b0
#define IXGBE_PFVFRE(i) (0x051e0 + 4 * (i))   /* pool i*32+b may receive */
#define IXGBE_PFVFTE(i) (0x08110 + 4 * (i))   /* ... may send */
#define IXGBE_PFVML2FLT(n) (0x0f000 + 4 * (n)) /* pool n's L2 filter (VMOLR in Linux) */
#define IXGBE_MPSAR_LO(i) (0x0a600 + 8 * (i))  /* RAR i's pools 0-31 */
#define IXGBE_MPSAR_HI(i) (0x0a604 + 8 * (i))  /* ... 32-63 */
#define IXGBE_PSRTYPE(n) (0x0ea00 + 4 * (n))  /* pool n's; RQPL: its RSS queues */
#define IXGBE_PFDTXGSWC 0x08220
#define IXGBE_QDE 0x02f04
#define IXGBE_PFMAILBOX(n) (0x04b00 + 4 * (n))
#define IXGBE_PFMBMEM(n) (0x13000 + 0x40 * (n))
#define IXGBE_PFMBICR(i) (0x00710 + 4 * (i))  /* 16 VFs each: REQ 15:0, ACK 31:16 */
#define IXGBE_PFVFLRE(i) ((i) ? 0x001c0 : 0x00600) /* VFs reset by FLR */
#define IXGBE_PFVFLREC(i) (0x00700 + 4 * (i))  /* ... cleared by writing 1 */
#define IXGBE_RAR_COUNT 128

/* The VF's BAR0 (8.3): its queue blocks as the PF's from 0x01000 (RX)
 * and 0x02000 (TX), its mailbox, its link. */
#define IXGBEVF_CTRL 0x00000
#define IXGBEVF_STATUS 0x00008
#define IXGBEVF_LINKS 0x00010
#define IXGBEVF_EIMC 0x0010c
#define IXGBEVF_PSRTYPE 0x00300
#define IXGBEVF_MBMEM 0x00200
#define IXGBEVF_MAILBOX 0x002fc
#define IXGBEVF_RXQ0 0x01000
#define IXGBEVF_TXQ0 0x02000

enum {
    /* CTRL */
    IXGBE_CTRL_GIO_DIS = 1u << 2,  /* PCIe master disable */
    IXGBE_CTRL_LNK_RST = 1u << 3,
    IXGBE_CTRL_RST = 1u << 26,
    /* STATUS */
    IXGBE_STATUS_LAN_ID_SHIFT = 2, /* which port of the device, bits 3:2 */
    IXGBE_STATUS_GIO = 1u << 19,   /* PCIe master requests still pending */
    /* CTRL_EXT */
    IXGBE_CTRL_EXT_PFRSTD = 1u << 14, /* the PF is up: VFs' RSTI clears */
    IXGBE_CTRL_EXT_NS_DIS = 1u << 16, /* no-snoop off: our rings are cached memory */
    IXGBE_CTRL_EXT_DRV_LOAD = 1u << 28,
    /* EEC, EERD */
    IXGBE_EEC_PRES = 1u << 8,      /* an EEPROM is there */
    IXGBE_EEC_ARD = 1u << 9,       /* auto-read after reset done */
    IXGBE_EERD_START = 1u << 0,
    IXGBE_EERD_DONE = 1u << 1,
    IXGBE_EERD_ADDR_SHIFT = 2,
    IXGBE_EERD_DATA_SHIFT = 16,
    /* SWSM, SW_FW_SYNC: the software bit of a resource, the firmware's 5 above */
    IXGBE_SWSM_SMBI = 1u << 0,
    IXGBE_SWSM_SWESMBI = 1u << 1,
    IXGBE_SYNC_EEP = 1u << 0,
    IXGBE_SYNC_PHY0 = 1u << 1,
    IXGBE_SYNC_PHY1 = 1u << 2,
    IXGBE_SYNC_MAC_CSR = 1u << 3,
    IXGBE_SYNC_FW_SHIFT = 5,
    /* I2CCTL (82599) */
    IXGBE_I2C_CLK_IN = 1u << 0,
    IXGBE_I2C_CLK_OUT = 1u << 1,
    IXGBE_I2C_DATA_IN = 1u << 2,
    IXGBE_I2C_DATA_OUT = 1u << 3,
    /* RXCTRL, RDRXCTL */
    IXGBE_RXCTRL_RXEN = 1u << 0,
    IXGBE_RDRXCTL_CRCSTRIP = 1u << 1, /* must equal HLREG0.RXCRCSTRP */
    IXGBE_RDRXCTL_DMAIDONE = 1u << 3, /* DMA init done after reset */
    IXGBE_RDRXCTL_RSCFRSTSIZE = 0x1fu << 17, /* "must be 0" (RDRXCTL's description) */
    IXGBE_RDRXCTL_RSCACKC = 1u << 25,  /* "must be 1" */
    IXGBE_RDRXCTL_FCOE_WRFIX = 1u << 26, /* "must be 1" */
    IXGBE_SECRXCTRL_RX_DIS = 1u << 1,
    IXGBE_SECRXSTAT_RDY = 1u << 0,
    /* FCTRL */
    IXGBE_FCTRL_MPE = 1u << 8,
    IXGBE_FCTRL_UPE = 1u << 9,
    IXGBE_FCTRL_BAM = 1u << 10,
    /* HLREG0 */
    IXGBE_HLREG0_TXCRCEN = 1u << 0,
    IXGBE_HLREG0_RXCRCSTRP = 1u << 1,
    IXGBE_HLREG0_JUMBOEN = 1u << 2,
    IXGBE_HLREG0_TXPADEN = 1u << 10,
    IXGBE_MAXFRS_MFS_SHIFT = 16,
    /* SRRCTL: BSIZEPACKET 4:0 in KiB, BSIZEHEADER 13:8, DESCTYPE 27:25 */
    IXGBE_SRRCTL_DROP_EN = 1u << 28,
    /* DCA_RXCTRL: bit 12 is set at reset and must be cleared (the register's description) */
    IXGBE_DCA_RXCTRL_BIT12 = 1u << 12,
    /* DMATXCTL, RTTDCS */
    IXGBE_DMATXCTL_TE = 1u << 0,
    IXGBE_RTTDCS_ARBDIS = 1u << 6,
    /* RXCSUM */
    IXGBE_RXCSUM_PCSD = 1u << 13,
    /* MRQC: MRQE 3:0 = 0001b (RSS), then the hashed fields (as the 82576's) */
    IXGBE_MRQC_RSS = 0x1,
    /* AUTOC: link mode select 15:13; 011b: 10 GbE serial (SFI), no autonegotiation */
    IXGBE_AUTOC_RESTART_AN = 1u << 12,
    IXGBE_AUTOC_LMS_SHIFT = 13,
    IXGBE_AUTOC_LMS_MASK = 7u << 13,
    IXGBE_AUTOC_LMS_10G_SFI = 3u << 13,
    /* LINKS */
    IXGBE_LINKS_SPEED_SHIFT = 28, /* 29:28: 11b 10 GbE, 10b 1 GbE, 01b 100 Mb/s */
    IXGBE_LINKS_UP = 1u << 30,
    /* The RX write-back's errors (7.1.6.2). RXE: any MAC error (CRC,
     * length, symbol); Linux still masks the 82598's CE, LE, PE, OSE and
     * USE at 29:24, of which the 82599 keeps only bit 29. Bad frames are
     * stored only with FCTRL.SBP, which we leave off. */
    IXGBE_RXD_ERR_RXE = 1u << 29,
    IXGBE_RXD_ERR_L4E = 1u << 30,
    IXGBE_RXD_ERR_IPE = 1u << 31,
    /* GCR_EXT.VT_Mode 1:0: pools of 8, 4 or 2 queues */
    IXGBE_GCR_EXT_VT_32 = 2,
    IXGBE_GCR_EXT_VT_64 = 3,
    /* PFVTCTL: VT_Ena; DEF_PL 12:7, the pool of frames no filter claims */
    IXGBE_PFVTCTL_VT_ENA = 1u << 0,
    IXGBE_PFVTCTL_DEF_PL_SHIFT = 7,
    IXGBE_PFVTCTL_RPL_EN = 1u << 30, /* broadcast and multicast to every pool that takes them */
    /* MRQC.MRQE: VMDq with RSS inside each of 32 or 64 pools */
    IXGBE_MRQC_VMDQ_RSS32 = 0xa,
    IXGBE_MRQC_VMDQ_RSS64 = 0xb,
    /* MTQC: VT on, 32 or 64 pools */
    IXGBE_MTQC_VT_ENA = 1u << 1,
    IXGBE_MTQC_64VF = 1u << 2,
    IXGBE_MTQC_32VF = 1u << 3,
    /* PFVML2FLT */
    IXGBE_L2FLT_AUPE = 1u << 24, /* untagged frames */
    IXGBE_L2FLT_ROMPE = 1u << 25, /* multicast the MTA holds */
    IXGBE_L2FLT_BAM = 1u << 27,
    IXGBE_L2FLT_MPE = 1u << 28, /* every multicast */
    IXGBE_PSRTYPE_RQPL_SHIFT = 29,
    IXGBE_MCSTCTRL_MFE = 1u << 2,
    IXGBE_PFDTXGSWC_LBE = 1u << 0, /* pool-to-pool loopback */
    /* QDE: drop enable of queue IDX (14:8), written with WRITE */
    IXGBE_QDE_ENABLE = 1u << 0,
    IXGBE_QDE_IDX_SHIFT = 8,
    IXGBE_QDE_WRITE = 1u << 16,
    IXGBE_VFCTRL_RST = 1u << 26,
    /* The mailbox messages beyond the 82576's (igb_regs.h IGB_MSG_*), in
     * Linux ixgbe's protocol: API versions are numbered 1.0 = 0, 1.1 = 2,
     * 1.2 = 3, 1.3 = 4 (2.0, a Solaris driver's, is 1). */
    IXGBE_MSG_SET_MACVLAN = 0x06,    /* argument: index; 0 clears the VF's extra filters */
    IXGBE_MSG_API_NEGOTIATE = 0x08,  /* word 1: the version */
    IXGBE_MSG_GET_QUEUES = 0x09,     /* reply words 1-4: TX, RX queues, port VLAN, default queue */
    IXGBE_MSG_GET_RETA = 0x0a,
    IXGBE_MSG_GET_RSS_KEY = 0x0b,
    IXGBE_MSG_UPDATE_XCAST = 0x0c,   /* word 1: IXGBE_XCAST_*; reply word 1: the mode given */
    IXGBE_MSG_PF_CONTROL = 0x0100,   /* the PF's unasked ping; without CTS: reset yourself */
    IXGBE_MSG_RESET_WORDS = 4,       /* VF_RESET's reply: MAC in words 1-2, MTA hash type in 3 */
    IXGBE_API_10 = 0,
    IXGBE_API_11 = 2,
    IXGBE_API_12 = 3,
    IXGBE_API_13 = 4,
    IXGBE_XCAST_NONE = 0,
    IXGBE_XCAST_MULTI = 1,           /* the groups SET_MULTICAST gave */
    IXGBE_XCAST_ALLMULTI = 2,
    IXGBE_XCAST_PROMISC = 3,
    /* The TX data descriptor's CC: check (use) the context IDX names */
    IXGBE_TXD_CC = 1u << 7,
};

#endif
