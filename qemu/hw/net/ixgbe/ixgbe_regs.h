/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/ixgbe/ixgbe_regs.h: Intel 82599 register offsets and bits
 * the model implements, from the 82599 datasheet (section 8.2.3 unless
 * noted). Offsets are bytes into BAR0.
 */
#ifndef HW_NET_IXGBE_REGS_H
#define HW_NET_IXGBE_REGS_H

#define IXGBE_BAR0_SIZE     0x20000    /* 128 KB CSR space (9.3.6.1) */
#define IXGBE_MSIX_BAR_SIZE 0x4000     /* table at 0, PBA at 0x2000 */
#define IXGBE_IO_BAR_SIZE   0x20       /* IOADDR/IODATA (9.3.6.2) */
#define IXGBE_MSIX_VECTORS  64         /* PF MSI-X table size (7.3.1.2) */
#define IXGBE_NUM_QUEUES    128        /* RX and TX queues each */
#define IXGBE_NUM_RAR       128        /* receive address registers */
#define IXGBE_EEPROM_WORDS  0x800      /* 4 KB model EEPROM */

/* 8.2.3.1 general control */
#define IXGBE_CTRL          0x00000
#define  IXGBE_CTRL_GIO_DIS     (1u << 2)   /* PCIe master disable */
#define  IXGBE_CTRL_LRST        (1u << 3)   /* link reset, self-clearing */
#define  IXGBE_CTRL_RST         (1u << 26)  /* device reset, self-clearing */
#define IXGBE_CTRL_ALIAS    0x00004
#define IXGBE_STATUS        0x00008
#define  IXGBE_STATUS_LAN_ID_SHIFT 2
#define  IXGBE_STATUS_LINKUP    (1u << 7)
#define  IXGBE_STATUS_IOV       (1u << 18)
#define  IXGBE_STATUS_GIO       (1u << 19)  /* master enable status */
#define IXGBE_CTRL_EXT      0x00018
#define  IXGBE_CTRL_EXT_PFRSTD  (1u << 14)
#define  IXGBE_CTRL_EXT_DRV_LOAD (1u << 28)
#define IXGBE_ESDP          0x00020
#define  IXGBE_ESDP_SDP2        (1u << 2)   /* SFP+ cage: module present */
#define  IXGBE_ESDP_SDP2_DIR    (1u << 10)  /* 1: SDP2 is an output */
#define IXGBE_I2CCTL        0x00028     /* 8.2.3.1.x: bit-banged SFP+ I2C */
#define  IXGBE_I2C_CLK_IN       (1u << 0)
#define  IXGBE_I2C_CLK_OUT      (1u << 1)
#define  IXGBE_I2C_DATA_IN      (1u << 2)
#define  IXGBE_I2C_DATA_OUT     (1u << 3)
#define IXGBE_LEDCTL        0x00200
#define IXGBE_FRTIMER       0x00048
#define IXGBE_TCPTIMER      0x0004C

/* 8.2.3.2 EEPROM/flash */
#define IXGBE_EEC           0x10010
#define  IXGBE_EEC_REQ          (1u << 6)
#define  IXGBE_EEC_GNT          (1u << 7)
#define  IXGBE_EEC_PRES         (1u << 8)
#define  IXGBE_EEC_ARD          (1u << 9)   /* auto-read done */
#define  IXGBE_EEC_SIZE_SHIFT   11          /* words = 1 << (SIZE + 6) */
#define IXGBE_EERD          0x10014
#define IXGBE_EEWR          0x10018
#define  IXGBE_EERW_START       (1u << 0)
#define  IXGBE_EERW_DONE        (1u << 1)
#define  IXGBE_EERW_ADDR_SHIFT  2
#define  IXGBE_EERW_DATA_SHIFT  16
#define IXGBE_FLA           0x1001C
#define IXGBE_EEMNGCTL      0x10110
#define IXGBE_FLMNGCTL      0x10118
#define IXGBE_FLOP          0x1013C
#define IXGBE_GRC           0x10200
#define IXGBE_SWSM          0x10140     /* 8.2.3.4.x software semaphore */
#define  IXGBE_SWSM_SMBI        (1u << 0)
#define  IXGBE_SWSM_SWESMBI     (1u << 1)
#define IXGBE_FWSM          0x10148
#define IXGBE_SW_FW_SYNC    0x10160
#define IXGBE_GCR           0x11000
#define IXGBE_GCR_EXT       0x11050

/* 8.2.3.5 interrupts */
#define IXGBE_EICR          0x00800
#define IXGBE_EICS          0x00808
#define IXGBE_EIAC          0x00810
#define IXGBE_EITR_LO       0x00820     /* EITR 0..23 */
#define IXGBE_EIMS          0x00880
#define IXGBE_EIMC          0x00888
#define IXGBE_EIAM          0x00890
#define IXGBE_GPIE          0x00898
#define  IXGBE_GPIE_MSIX_MODE   (1u << 4)
#define  IXGBE_GPIE_OCD         (1u << 5)   /* other clear disable */
#define  IXGBE_GPIE_EIAME       (1u << 30)
#define  IXGBE_GPIE_PBA_SUPPORT (1u << 31)
#define IXGBE_IVAR0         0x00900     /* 64 registers */
#define IXGBE_IVAR_MISC     0x00A00
#define IXGBE_EICS_EX0      0x00A90     /* 2 each: vectors 0..63 */
#define IXGBE_EIMS_EX0      0x00AA0
#define IXGBE_EIMC_EX0      0x00AB0
#define IXGBE_EIAM_EX0      0x00AD0
#define IXGBE_EITR_HI       0x12300     /* EITR 24..127 */
#define  IXGBE_EICR_RTX_QUEUE   0x0000FFFFu
#define  IXGBE_EICR_MAILBOX     (1u << 19)
#define  IXGBE_EICR_LSC         (1u << 20)
#define  IXGBE_EICR_OTHER       (1u << 31)
#define  IXGBE_EIMS_MISC_MASK   0x7FFF0000u /* causes other than queues */

/* 8.2.3.7 receive filtering */
#define IXGBE_RXCSUM        0x05000
#define  IXGBE_RXCSUM_PCSD      (1u << 13)
#define IXGBE_RFCTL         0x05008
#define IXGBE_FCTRL         0x05080
#define  IXGBE_FCTRL_SBP        (1u << 1)
#define  IXGBE_FCTRL_MPE        (1u << 8)
#define  IXGBE_FCTRL_UPE        (1u << 9)
#define  IXGBE_FCTRL_BAM        (1u << 10)
#define IXGBE_VLNCTRL       0x05088
#define  IXGBE_VLNCTRL_VFE      (1u << 30)
#define IXGBE_MCSTCTRL      0x05090
#define  IXGBE_MCSTCTRL_MFE     (1u << 2)
#define IXGBE_MTA0          0x05200     /* 128 registers */
#define IXGBE_RAL_LO0       0x05400     /* RAL/RAH 0..15 alias */
#define IXGBE_VFTA0         0x0A000
#define IXGBE_RAL0          0x0A200     /* RAL(n) = +8n, RAH = +4 */
#define  IXGBE_RAH_AV           (1u << 31)
#define IXGBE_MPSAR0        0x0A600
#define IXGBE_PSRTYPE0      0x0EA00
#define IXGBE_RETA0         0x0EB00     /* 32 registers, 128 entries */
#define IXGBE_RSSRK0        0x0EB80     /* 10 registers, 40-byte key */
#define IXGBE_MRQC          0x0EC80
#define  IXGBE_MRQC_MRQE_MASK   0xFu
#define  IXGBE_MRQC_TCPIPV4     (1u << 16)
#define  IXGBE_MRQC_IPV4        (1u << 17)
#define  IXGBE_MRQC_IPV6        (1u << 20)
#define  IXGBE_MRQC_TCPIPV6     (1u << 21)
#define  IXGBE_MRQC_UDPIPV4     (1u << 22)
#define  IXGBE_MRQC_UDPIPV6     (1u << 23)

/* 8.2.3.8 receive DMA */
#define IXGBE_RXQ_LO        0x01000     /* queues 0..63, 0x40 apart */
#define IXGBE_RXQ_HI        0x0D000     /* queues 64..127 */
#define  IXGBE_RXQ_RDBAL        0x00
#define  IXGBE_RXQ_RDBAH        0x04
#define  IXGBE_RXQ_RDLEN        0x08
#define  IXGBE_RXQ_DCA          0x0C
#define  IXGBE_RXQ_RDH          0x10
#define  IXGBE_RXQ_SRRCTL       0x14
#define  IXGBE_RXQ_RDT          0x18
#define  IXGBE_RXQ_RXDCTL       0x28
#define  IXGBE_RXQ_RSCCTL       0x2C
#define  IXGBE_RXQ_QPRC         0x30    /* per-queue stats in the block */
#define  IXGBE_RXQ_QBRC_L       0x34
#define  IXGBE_RXQ_QBRC_H       0x38
#define IXGBE_SRRCTL_LO     0x02100     /* SRRCTL 0..15 alias */
#define IXGBE_DCA_RXCTRL_LO 0x02200
#define  IXGBE_SRRCTL_BSIZEPKT_MASK 0x1Fu   /* 1 KB units */
#define  IXGBE_SRRCTL_BSIZEHDR_SHIFT 8
#define  IXGBE_SRRCTL_DESCTYPE_SHIFT 25
#define  IXGBE_SRRCTL_DROP_EN   (1u << 28)
#define  IXGBE_RXDCTL_ENABLE    (1u << 25)
#define  IXGBE_RXDCTL_VME       (1u << 30)
#define IXGBE_RDRXCTL       0x02F00
#define  IXGBE_RDRXCTL_CRCSTRIP (1u << 1)
#define  IXGBE_RDRXCTL_DMAIDONE (1u << 3)
#define IXGBE_RXCTRL        0x03000
#define  IXGBE_RXCTRL_RXEN      (1u << 0)
#define IXGBE_RXPBSIZE0     0x03C00
#define IXGBE_SECRXCTRL     0x08D00
#define IXGBE_SECRXSTAT     0x08D04
#define  IXGBE_SECRXSTAT_RDY    (1u << 0)

/* 8.2.3.9 transmit */
#define IXGBE_DMATXCTL      0x04A80
#define  IXGBE_DMATXCTL_TE      (1u << 0)
#define IXGBE_TXQ           0x06000     /* queues 0..127, 0x40 apart */
#define  IXGBE_TXQ_TDBAL        0x00
#define  IXGBE_TXQ_TDBAH        0x04
#define  IXGBE_TXQ_TDLEN        0x08
#define  IXGBE_TXQ_TDH          0x10
#define  IXGBE_TXQ_TDT          0x18
#define  IXGBE_TXQ_TXDCTL       0x28
#define  IXGBE_TXQ_TDWBAL       0x38
#define  IXGBE_TXQ_TDWBAH       0x3C
#define  IXGBE_TXDCTL_ENABLE    (1u << 25)
#define  IXGBE_TDWBAL_HEAD_WB_EN (1u << 0)
#define IXGBE_SECTXSTAT     0x08804
#define  IXGBE_SECTXSTAT_RDY    (1u << 0)
#define IXGBE_QPTC0         0x08680     /* 16 per-queue TX counters */
#define IXGBE_QBTC_L0       0x08700

/* 8.2.3.22 MAC */
#define IXGBE_HLREG0        0x04240
#define  IXGBE_HLREG0_RXCRCSTRP (1u << 1)
#define  IXGBE_HLREG0_JUMBOEN   (1u << 2)
#define  IXGBE_HLREG0_LPBK      (1u << 15)
#define IXGBE_MAXFRS        0x04268
#define IXGBE_AUTOC         0x042A0
#define  IXGBE_AUTOC_AN_RESTART (1u << 12)
#define  IXGBE_AUTOC_LMS_SHIFT  13
#define  IXGBE_AUTOC_LMS_10G_SERIAL (3u << 13)
#define IXGBE_LINKS         0x042A4
#define  IXGBE_LINKS_KX_AN_COMP (1u << 31)
#define  IXGBE_LINKS_UP         (1u << 30)
#define  IXGBE_LINKS_SPEED_10G  (3u << 28)
#define  IXGBE_LINKS_STATUS     (1u << 7)
#define IXGBE_AUTOC2        0x042A8
#define IXGBE_ANLP1         0x042B0
#define  IXGBE_ANLP1_AN_STATE_SHIFT 16
#define IXGBE_MACS          0x0429C
#define IXGBE_MSCA          0x0425C
#define IXGBE_CORECTL       0x014F00

/* 8.2.3.23 statistics: clear on read unless noted */
#define IXGBE_CRCERRS       0x04000
#define IXGBE_MPC0          0x03FA0
#define IXGBE_GPRC          0x04074
#define IXGBE_BPRC          0x04078
#define IXGBE_MPRC          0x0407C
#define IXGBE_GPTC          0x04080
#define IXGBE_GORCL         0x04088
#define IXGBE_GORCH         0x0408C
#define IXGBE_GOTCL         0x04090
#define IXGBE_GOTCH         0x04094
#define IXGBE_RNBC0         0x03FC0
#define IXGBE_RUC           0x040A4
#define IXGBE_ROC           0x040AC
#define IXGBE_TORL          0x040C0
#define IXGBE_TORH          0x040C4
#define IXGBE_TPR           0x040D0
#define IXGBE_TPT           0x040D4
#define IXGBE_PTC64         0x040D8
#define IXGBE_MPTC          0x040F0
#define IXGBE_BPTC          0x040F4
#define IXGBE_PRC64         0x0405C
#define IXGBE_STATS_LO      0x03F00     /* the MAC/DMA counter block */
#define IXGBE_STATS_HI      0x04200

/* Advanced descriptors (7.1.6, 7.2.3) */
#define IXGBE_RXD_STAT_DD       (1u << 0)
#define IXGBE_RXD_STAT_EOP      (1u << 1)
#define IXGBE_RXD_STAT_VP       (1u << 3)
#define IXGBE_RXD_STAT_UDPCS    (1u << 4)
#define IXGBE_RXD_STAT_L4CS     (1u << 5)
#define IXGBE_RXD_STAT_IPCS     (1u << 6)
#define IXGBE_RXD_ERR_TCPE      (1u << 30)
#define IXGBE_RXD_ERR_IPE       (1u << 31)
#define IXGBE_RXD_PKT_IPV4      (1u << 4)   /* packet type, bits 16:4 */
#define IXGBE_RXD_PKT_IPV6      (1u << 6)
#define IXGBE_RXD_PKT_TCP       (1u << 8)
#define IXGBE_RXD_PKT_UDP       (1u << 9)
#define IXGBE_TXD_DTYP_CTXT     0x2u
#define IXGBE_TXD_DTYP_DATA     0x3u
#define IXGBE_TXD_CMD_EOP       (1u << 24)
#define IXGBE_TXD_CMD_IFCS      (1u << 25)
#define IXGBE_TXD_CMD_RS        (1u << 27)
#define IXGBE_TXD_CMD_DEXT      (1u << 29)
#define IXGBE_TXD_CMD_VLE       (1u << 30)
#define IXGBE_TXD_CMD_TSE       (1u << 31)
#define IXGBE_TXD_STAT_DD       (1u << 0)
#define IXGBE_TXD_POPTS_IXSM    (1u << 0)   /* in olinfo bits 13:8 */
#define IXGBE_TXD_POPTS_TXSM    (1u << 1)

/* 7.10 / 8.2.3.27 virtualization: PF side (offsets in the PF's BAR0) */
#define IXGBE_MAX_VFS       63          /* TotalVFs (9.4.4.x) */
#define IXGBE_PFVFLRE0      0x00600     /* VFs 0..31 reset by FLR */
#define IXGBE_PFVFLRE1      0x001C0     /* VFs 32..63 */
#define IXGBE_PFVFLREC0     0x00700     /* 2 registers, write 1 to clear */
#define IXGBE_PFMBICR0      0x00710     /* 4: VFREQ 15:0, VFACK 31:16 */
#define IXGBE_PFMBIMR0      0x00720     /* 4: per-VF interrupt enable */
#define IXGBE_PFMAILBOX0    0x04B00     /* 64, one a VF */
#define  IXGBE_PFMBX_STS        (1u << 0)
#define  IXGBE_PFMBX_ACK        (1u << 1)
#define  IXGBE_PFMBX_VFU        (1u << 2)
#define  IXGBE_PFMBX_PFU        (1u << 3)
#define  IXGBE_PFMBX_RVFU       (1u << 4)
#define IXGBE_PFMBMEM0      0x13000     /* 64 buffers of 16 words */
#define  IXGBE_MBX_WORDS        16
#define IXGBE_PFVTCTL       0x051B0
#define  IXGBE_PFVTCTL_VT_ENA   (1u << 0)
#define  IXGBE_PFVTCTL_DEF_PL_SHIFT 7   /* 12:7 */
#define  IXGBE_PFVTCTL_DIS_DEF_PL (1u << 29)
#define  IXGBE_PFVTCTL_RPL_EN   (1u << 30)
#define IXGBE_PFVFRE0       0x051E0     /* 2: pool may receive */
#define IXGBE_PFVFTE0       0x08110     /* 2: pool may send */
#define IXGBE_PFVML2FLT0    0x0F000     /* 64: pool's L2 filter */
#define  IXGBE_L2FLT_AUPE       (1u << 24)
#define  IXGBE_L2FLT_ROMPE      (1u << 25)
#define  IXGBE_L2FLT_ROPE       (1u << 26)
#define  IXGBE_L2FLT_BAM        (1u << 27)
#define  IXGBE_L2FLT_MPE        (1u << 28)
#define IXGBE_PFDTXGSWC     0x08220
#define  IXGBE_PFDTXGSWC_LBE    (1u << 0)
#define IXGBE_PFVFSPOOF0    0x08200     /* 8: MAC anti-spoof 7:0 a pool */
#define IXGBE_SSVPC         0x08780     /* spoofed frames dropped */
#define IXGBE_MTQC          0x08120
#define  IXGBE_MTQC_VT_ENA      (1u << 1)
#define IXGBE_QDE           0x02F04
#define  IXGBE_QDE_ENABLE       (1u << 0)
#define  IXGBE_QDE_IDX_SHIFT    8
#define  IXGBE_QDE_WRITE        (1u << 16)
#define  IXGBE_QDE_READ         (1u << 17)
#define  IXGBE_GCR_EXT_VT_MASK  0x3u    /* 16, 32 or 64 pools */
#define  IXGBE_PSRTYPE_RQPL_SHIFT 29
#define IXGBE_MPSAR_LO(i)   (0x0A600 + 8 * (i))
#define IXGBE_MPSAR_HI(i)   (0x0A604 + 8 * (i))
#define  IXGBE_MRQE_VMDQ        0x8u
#define  IXGBE_MRQE_VMDQ_RSS32  0xAu
#define  IXGBE_MRQE_VMDQ_RSS64  0xBu

/* 8.3: the VF's BAR0 */
#define IXGBE_VF_BAR0_SIZE  0x4000      /* 16 KB CSR */
#define IXGBE_VF_MSIX_SIZE  0x4000      /* 16 KB MSI-X, BAR3 */
#define IXGBE_VF_VECTORS    3
#define IXGBEVF_CTRL        0x0000
#define  IXGBEVF_CTRL_RST       (1u << 26)
#define IXGBEVF_STATUS      0x0008
#define IXGBEVF_LINKS       0x0010
#define IXGBEVF_RTIMER      0x0048
#define IXGBEVF_EICR        0x0100
#define IXGBEVF_EICS        0x0104
#define IXGBEVF_EIMS        0x0108
#define IXGBEVF_EIMC        0x010C
#define IXGBEVF_EIAC        0x0110
#define IXGBEVF_EIAM        0x0114
#define IXGBEVF_IVAR0       0x0120      /* 4 */
#define IXGBEVF_IVAR_MISC   0x0140
#define IXGBEVF_MBMEM       0x0200
#define IXGBEVF_MAILBOX     0x02FC
#define  IXGBEVF_MBX_REQ        (1u << 0)
#define  IXGBEVF_MBX_ACK        (1u << 1)
#define  IXGBEVF_MBX_VFU        (1u << 2)
#define  IXGBEVF_MBX_PFU        (1u << 3)
#define  IXGBEVF_MBX_PFSTS      (1u << 4)
#define  IXGBEVF_MBX_PFACK      (1u << 5)
#define  IXGBEVF_MBX_RSTI       (1u << 6)
#define  IXGBEVF_MBX_RSTD       (1u << 7)
#define IXGBEVF_PSRTYPE     0x0300
#define IXGBEVF_EITR0       0x0820      /* 3 */
#define IXGBEVF_RXQ0        0x1000      /* VF queue i at +0x40 i */
#define IXGBEVF_TXQ0        0x2000
#define IXGBEVF_GPRC        0x101C
#define IXGBEVF_GORC_LSB    0x1020
#define IXGBEVF_GORC_MSB    0x1024
#define IXGBEVF_MPRC        0x1034
#define IXGBEVF_GPTC        0x201C
#define IXGBEVF_GOTC_LSB    0x2020
#define IXGBEVF_GOTC_MSB    0x2024

#endif
