/* SPDX-License-Identifier: MIT */
/*
 * ixgbe_regs.h - the registers and descriptors of the Intel 82599 10 GbE
 * controller that ixgbe.c and the host model (tests/models/ixgbe_model.c)
 * use, from the 82599 datasheet (revision 3.x): register offsets and bits
 * from §8.2.3, descriptor layouts from §7.1.6 (receive) and §7.2.3.2
 * (transmit).
 *
 * Queue-indexed registers use the 82599's own addresses (queues 0-63); the
 * aliases the 82599 keeps for 82598 software (SRRCTL at 0x2100, RAL at
 * 0x5400, ...) are never used.
 */
#ifndef SIDECORE_DRIVERS_NET_IXGBE_REGS_H
#define SIDECORE_DRIVERS_NET_IXGBE_REGS_H

#include <stdint.h>

/* BAR0 is 128 KiB of memory-mapped registers (§9.3.6.1). */
#define IXGBE_BAR0_SIZE			0x20000

/* §8.2.3.1 General control. */
#define IXGBE_CTRL			0x00000
#define  IXGBE_CTRL_GIO_DIS		(1u << 2)	/* PCIe master disable */
#define  IXGBE_CTRL_LRST		(1u << 3)	/* link reset */
#define  IXGBE_CTRL_RST			(1u << 26)	/* device reset, self-clearing */
#define IXGBE_STATUS			0x00008
#define  IXGBE_STATUS_GIO		(1u << 19)	/* master requests pending */
#define IXGBE_CTRL_EXT			0x00018
#define  IXGBE_CTRL_EXT_NS_DIS		(1u << 16)	/* no-snoop disable */
#define  IXGBE_CTRL_EXT_DRV_LOAD	(1u << 28)
/*
 * §8.2.3.1 ESDP, extended SDP control: pin n's level in bit n, its direction
 * (1: output) in bit n + 8. On the SFP+ parts SDP3 drives the module's
 * TX_DISABLE (high: laser off) and SDP5 its rate select RS0 (high: 10 Gb/s).
 */
#define IXGBE_ESDP			0x00020
#define  IXGBE_ESDP_SDP3		(1u << 3)
#define  IXGBE_ESDP_SDP5		(1u << 5)
#define  IXGBE_ESDP_SDP3_DIR		(1u << 11)
#define  IXGBE_ESDP_SDP5_DIR		(1u << 13)
/* §8.2.3.1 I2CCTL: the SFP+ module's two-wire bus, driven bit by bit. */
#define IXGBE_I2CCTL			0x00028
#define  IXGBE_I2C_CLK_IN		(1u << 0)
#define  IXGBE_I2C_CLK_OUT		(1u << 1)
#define  IXGBE_I2C_DATA_IN		(1u << 2)
#define  IXGBE_I2C_DATA_OUT		(1u << 3)

/*
 * §10.5 software/firmware synchronisation: SWSM.SMBI and SWESMBI guard
 * SW_FW_SYNC, whose bits say who owns a shared resource (the MAC's link
 * registers: AUTOC, AUTOC2); firmware's bit is software's shifted by 5.
 */
#define IXGBE_SWSM			0x10140
#define  IXGBE_SWSM_SMBI		(1u << 0)
#define  IXGBE_SWSM_SWESMBI		(1u << 1)
#define IXGBE_SW_FW_SYNC		0x10160
#define  IXGBE_SW_FW_SYNC_SW_MAC	(1u << 3)
#define  IXGBE_SW_FW_SYNC_FW_MAC	(1u << 8)

/* §8.2.3.2.1 EEPROM/Flash control: auto-read of the EEPROM done. */
#define IXGBE_EEC			0x10010
#define  IXGBE_EEC_ARD			(1u << 9)

/* §8.2.3.5 Interrupts: writing 1s to EIMC masks the causes. */
#define IXGBE_EICR			0x00800
#define IXGBE_EIMS			0x00880
#define IXGBE_EIMC			0x00888
#define  IXGBE_EIMC_ALL			0x7fffffffu

/* §8.2.3.8 Receive DMA, per queue (n < 64). */
#define IXGBE_RDBAL(n)			(0x01000 + 0x40 * (n))
#define IXGBE_RDBAH(n)			(0x01004 + 0x40 * (n))
#define IXGBE_RDLEN(n)			(0x01008 + 0x40 * (n))
#define IXGBE_DCA_RXCTRL(n)		(0x0100c + 0x40 * (n))
#define  IXGBE_DCA_RXCTRL_BIT12		(1u << 12)	/* reserved, must be cleared (§4.6.7) */
/* §8.2.3.11: relaxed ordering of data and head write-backs. */
#define  IXGBE_DCA_RXCTRL_DATA_WRO	(1u << 13)
#define  IXGBE_DCA_RXCTRL_HEAD_WRO	(1u << 15)
#define IXGBE_RDH(n)			(0x01010 + 0x40 * (n))
#define IXGBE_SRRCTL(n)			(0x01014 + 0x40 * (n))
#define  IXGBE_SRRCTL_BSIZEPKT_SHIFT	10		/* packet buffer in KiB, bits 4:0 */
#define  IXGBE_SRRCTL_BSIZEPKT_MASK	0x1fu
#define  IXGBE_SRRCTL_DESCTYPE_MASK	(7u << 25)
#define  IXGBE_SRRCTL_DESCTYPE_ADV_ONEBUF (1u << 25)
#define  IXGBE_SRRCTL_DROP_EN		(1u << 28)
#define IXGBE_RDT(n)			(0x01018 + 0x40 * (n))
#define IXGBE_RXDCTL(n)			(0x01028 + 0x40 * (n))
#define  IXGBE_RXDCTL_ENABLE		(1u << 25)
#define IXGBE_RDRXCTL			0x02f00
#define  IXGBE_RDRXCTL_CRCSTRIP		(1u << 1)
#define  IXGBE_RDRXCTL_DMAIDONE		(1u << 3)
#define  IXGBE_RDRXCTL_RSCFRSTSIZE	(0x1fu << 17)
#define  IXGBE_RDRXCTL_RSCACKC		(1u << 25)
#define  IXGBE_RDRXCTL_FCOE_WRFIX	(1u << 26)
#define IXGBE_RXCTRL			0x03000
#define  IXGBE_RXCTRL_RXEN		(1u << 0)
/*
 * §8.2.3.26 security receive path: RXEN is set only with it disabled
 * (SECRXCTRL.RX_DIS, then SECRXSTAT.SECRX_RDY), the workaround for the
 * 82599 specification update's erratum of a receive DMA hang when frames
 * arrive as the receiver is enabled.
 */
#define IXGBE_SECRXCTRL			0x08d00
#define  IXGBE_SECRXCTRL_RX_DIS		(1u << 1)
#define IXGBE_SECRXSTAT			0x08d04
#define  IXGBE_SECRXSTAT_SECRX_RDY	(1u << 0)
/* §8.2.3.8.x: maps each receive queue to one of 16 statistics counters, a byte per queue. */
#define IXGBE_RQSMR(n)			(0x02300 + 4 * (n))

/* §8.2.3.7 Receive filtering. */
#define IXGBE_RXCSUM			0x05000
#define  IXGBE_RXCSUM_IPPCSE		(1u << 12)
#define  IXGBE_RXCSUM_PCSD		(1u << 13)
#define IXGBE_FCTRL			0x05080
#define  IXGBE_FCTRL_SBP		(1u << 1)
#define  IXGBE_FCTRL_MPE		(1u << 8)
#define  IXGBE_FCTRL_UPE		(1u << 9)
#define  IXGBE_FCTRL_BAM		(1u << 10)
#define  IXGBE_FCTRL_PMCF		(1u << 12)	/* pass MAC control frames */
#define  IXGBE_FCTRL_DPF		(1u << 13)	/* discard pause frames */
#define IXGBE_VLNCTRL			0x05088
#define  IXGBE_VLNCTRL_VFE		(1u << 30)
#define IXGBE_MRQC			0x05818
#define  IXGBE_MRQC_MRQE_MASK		0xfu
#define  IXGBE_MRQC_VMDQ64		0x8u		/* VMDq, 64 pools of 2 queues, no RSS */
/* Receive address registers, 128 entries (§8.2.3.7.9, §8.2.3.7.10). */
#define IXGBE_RAR_ENTRIES		128
#define IXGBE_RAL(n)			(0x0a200 + 8 * (n))
#define IXGBE_RAH(n)			(0x0a204 + 8 * (n))
#define  IXGBE_RAH_AV			(1u << 31)	/* address valid */
/* Pools of each RAR entry, 64 bits: pools 0-31 in LO, 32-63 in HI. */
#define IXGBE_MPSAR_LO(n)		(0x0a600 + 8 * (n))
#define IXGBE_MPSAR_HI(n)		(0x0a604 + 8 * (n))

/* §8.2.3.27 Virtualization (PF registers). */
#define IXGBE_PFVTCTL			0x051b0		/* VT_CTL */
#define  IXGBE_PFVTCTL_VT_ENA		(1u << 0)
#define  IXGBE_PFVTCTL_DEF_PL_SHIFT	7		/* default pool, bits 12:7 */
#define  IXGBE_PFVTCTL_DEF_PL_MASK	(0x3fu << 7)
#define  IXGBE_PFVTCTL_DIS_DEF_PL	(1u << 29)	/* no match: drop, not default pool */
#define  IXGBE_PFVTCTL_RPL_EN		(1u << 30)	/* replicate group frames to pools */
#define IXGBE_PFVFRE(n)			(0x051e0 + 4 * (n))	/* receive enable, pools 32n.. */
#define IXGBE_PFVFTE(n)			(0x08110 + 4 * (n))	/* transmit enable */
#define IXGBE_PFDTXGSWC			0x08220
#define  IXGBE_PFDTXGSWC_VT_LBEN	(1u << 0)	/* pool-to-pool loopback */
#define IXGBE_PFVML2FLT(p)		(0x0f000 + 4 * (p))	/* VMOLR: per-pool L2 control */
#define  IXGBE_PFVML2FLT_AUPE		(1u << 24)	/* accept untagged frames */
#define  IXGBE_PFVML2FLT_ROMPE		(1u << 25)
#define  IXGBE_PFVML2FLT_ROPE		(1u << 26)
#define  IXGBE_PFVML2FLT_BAM		(1u << 27)	/* accept broadcast */
#define  IXGBE_PFVML2FLT_MPE		(1u << 28)	/* accept all multicast */
#define IXGBE_POOLS			64
#define IXGBE_QUEUES_PER_POOL		2		/* with MRQC_VMDQ64 / MTQC_64VF */

/* §8.2.3.9 Transmit. */
#define IXGBE_DMATXCTL			0x04a80
#define  IXGBE_DMATXCTL_TE		(1u << 0)
#define IXGBE_RTTDCS			0x04900
#define  IXGBE_RTTDCS_ARBDIS		(1u << 6)
#define IXGBE_DTXMXSZRQ			0x08100
#define  IXGBE_DTXMXSZRQ_MASK		0xfffu		/* outstanding read bytes, 64 B units */
#define IXGBE_MTQC			0x08120
#define  IXGBE_MTQC_RT_ENA		(1u << 0)
#define  IXGBE_MTQC_VT_ENA		(1u << 1)
#define  IXGBE_MTQC_64VF		(1u << 2)	/* 64 pools of 2 queues */
#define IXGBE_TDBAL(n)			(0x06000 + 0x40 * (n))
#define IXGBE_TDBAH(n)			(0x06004 + 0x40 * (n))
#define IXGBE_TDLEN(n)			(0x06008 + 0x40 * (n))
#define IXGBE_TDH(n)			(0x06010 + 0x40 * (n))
#define IXGBE_TDT(n)			(0x06018 + 0x40 * (n))
#define IXGBE_DCA_TXCTRL(n)		(0x0600c + 0x40 * (n))
#define  IXGBE_DCA_TXCTRL_DESC_WRO	(1u << 11)	/* §8.2.3.11: relaxed write-back */
#define IXGBE_TXDCTL(n)			(0x06028 + 0x40 * (n))
#define  IXGBE_TXDCTL_ENABLE		(1u << 25)
#define IXGBE_TQSM(n)			(0x08600 + 4 * (n))

/* §8.2.3.22 MAC. */
#define IXGBE_HLREG0			0x04240
#define  IXGBE_HLREG0_TXCRCEN		(1u << 0)
#define  IXGBE_HLREG0_RXCRCSTRP		(1u << 1)
#define  IXGBE_HLREG0_JUMBOEN		(1u << 2)
#define  IXGBE_HLREG0_TXPADEN		(1u << 10)
#define  IXGBE_HLREG0_LPBK		(1u << 15)
#define IXGBE_MAXFRS			0x04268
#define  IXGBE_MAXFRS_MFS_SHIFT		16
#define IXGBE_AUTOC			0x042a0
#define  IXGBE_AUTOC_FLU		(1u << 0)
#define  IXGBE_AUTOC_10G_PMA_PMD_MASK	(3u << 7)
#define  IXGBE_AUTOC_10G_XAUI		(0u << 7)
#define  IXGBE_AUTOC_AN_RESTART		(1u << 12)
#define  IXGBE_AUTOC_LMS_MASK		(7u << 13)
#define  IXGBE_AUTOC_LMS_10G_SERIAL	(3u << 13)
#define  IXGBE_AUTOC_LMS_BIT2		(4u << 13)
/*
 * §8.2.3.22 AUTOC2: the 10 Gb/s serial PMA/PMD (SFI for SFP+), and the
 * link-disable bits an NVM may set; the link stays down while any is set.
 */
#define IXGBE_AUTOC2			0x042a8
#define  IXGBE_AUTOC2_PMA_PMD_MASK	(3u << 16)
#define  IXGBE_AUTOC2_PMA_PMD_SFI	(2u << 16)
#define  IXGBE_AUTOC2_LINK_DISABLE_MASK	(7u << 28)
#define IXGBE_LINKS			0x042a4
#define  IXGBE_LINKS_SPEED_MASK		(3u << 28)
#define  IXGBE_LINKS_SPEED_100M		(1u << 28)
#define  IXGBE_LINKS_SPEED_1G		(2u << 28)
#define  IXGBE_LINKS_SPEED_10G		(3u << 28)
#define  IXGBE_LINKS_UP			(1u << 30)

/* The shortest frame the 82599 may be handed to send (Intel's drivers pad to it). */
#define IXGBE_TX_MIN_LEN		17

/* §8.2.3.23 Statistics, all cleared on read (the 64-bit ones on reading the high half). */
#define IXGBE_CRCERRS			0x04000
#define IXGBE_RLEC			0x04040
#define IXGBE_GPRC			0x04074
#define IXGBE_BPRC			0x04078
#define IXGBE_MPRC			0x0407c
#define IXGBE_GPTC			0x04080
#define IXGBE_GORCL			0x04088
#define IXGBE_GORCH			0x0408c
#define IXGBE_GOTCL			0x04090
#define IXGBE_GOTCH			0x04094
#define IXGBE_TPR			0x040d0
#define IXGBE_TPT			0x040d4
#define IXGBE_MPC(n)			(0x03fa0 + 4 * (n))	/* per packet buffer, 8 */
#define IXGBE_QPRC(n)			(0x01030 + 0x40 * (n))	/* per counter, 16 */
#define IXGBE_QPRDC(n)			(0x01430 + 0x40 * (n))	/* needs SRRCTL.DROP_EN */
#define IXGBE_STAT_COUNTERS		16

/* §7.1.6.1 Advanced receive descriptor, read format (what the driver writes). */
struct ixgbe_rx_desc_read {
	uint64_t pkt_addr;
	uint64_t hdr_addr;	/* bit 0 shares its place with DD: written 0 */
};

/*
 * §7.1.6.2 Write-back format (what the NIC writes over it): the first
 * quadword carries packet type and RSS data, the second the status (bits
 * 19:0), errors (31:20), length (47:32) and VLAN tag (63:48). The driver
 * reads the second quadword in one access.
 */
#define IXGBE_RXWB_PKTTYPE_SHIFT	4		/* in the first dword, bits 16:4 */
#define  IXGBE_RXWB_PKTTYPE_IPV4	(1u << 0)
#define  IXGBE_RXWB_PKTTYPE_IPV6	(1u << 2)
#define  IXGBE_RXWB_PKTTYPE_TCP		(1u << 4)
#define  IXGBE_RXWB_PKTTYPE_UDP		(1u << 5)
#define IXGBE_RXWB_STAT_DD		(1u << 0)
#define IXGBE_RXWB_STAT_EOP		(1u << 1)
#define IXGBE_RXWB_STAT_VP		(1u << 3)
#define IXGBE_RXWB_STAT_UDPCS		(1u << 4)
#define IXGBE_RXWB_STAT_L4CS		(1u << 5)	/* L4 checksum checked */
#define IXGBE_RXWB_STAT_IPCS		(1u << 6)	/* IPv4 header checksum checked */
#define IXGBE_RXWB_ERR_HBO		(1u << 23)
#define IXGBE_RXWB_ERR_RXE		(1u << 29)	/* any MAC error: CRC, length, ... */
#define IXGBE_RXWB_ERR_L4E		(1u << 30)	/* L4 checksum wrong */
#define IXGBE_RXWB_ERR_IPE		(1u << 31)	/* IPv4 header checksum wrong */
#define IXGBE_RXWB_LEN_SHIFT		32

/* §7.2.3.2.3 Advanced transmit context descriptor. */
struct ixgbe_tx_ctx_desc {
	uint32_t vlan_macip_lens;	/* IPLEN 8:0, MACLEN 15:9, VLAN 31:16 */
	uint32_t seqnum_seed;
	uint32_t type_tucmd_mlhl;	/* TUCMD 19:9, DTYP 23:20, DEXT 29 */
	uint32_t mss_l4len_idx;		/* IDX 6:4, L4LEN 15:8, MSS 31:16 */
};

#define IXGBE_TXCTX_MACLEN_SHIFT	9
#define IXGBE_TXCTX_TUCMD_IPV4		(1u << 10)
#define IXGBE_TXCTX_TUCMD_L4T_UDP	(0u << 11)
#define IXGBE_TXCTX_TUCMD_L4T_TCP	(1u << 11)
#define IXGBE_TXCTX_TUCMD_L4T_MASK	(3u << 11)
#define IXGBE_TXCTX_IDX_SHIFT		4
#define IXGBE_TXCTX_L4LEN_SHIFT		8
#define IXGBE_TXCTX_MSS_SHIFT		16

/* §7.2.3.2.4 Advanced transmit data descriptor, read format. */
struct ixgbe_tx_data_desc {
	uint64_t buffer_addr;
	uint32_t cmd_type_len;		/* DTALEN 15:0, DTYP 23:20, DCMD 31:24 */
	uint32_t olinfo_status;		/* STA 3:0, IDX 6:4, CC 7, POPTS 13:8, PAYLEN 31:14 */
};

#define IXGBE_TXD_DTALEN_MASK		0xffffu
#define IXGBE_TXD_DTYP_MASK		(0xfu << 20)
#define IXGBE_TXD_DTYP_CTXT		(0x2u << 20)
#define IXGBE_TXD_DTYP_DATA		(0x3u << 20)
#define IXGBE_TXD_DCMD_EOP		(1u << 24)
#define IXGBE_TXD_DCMD_IFCS		(1u << 25)
#define IXGBE_TXD_DCMD_RS		(1u << 27)
#define IXGBE_TXD_DCMD_DEXT		(1u << 29)
#define IXGBE_TXD_DCMD_VLE		(1u << 30)
#define IXGBE_TXD_DCMD_TSE		(1u << 31)
#define IXGBE_TXD_STA_DD		(1u << 0)	/* written back in olinfo_status */
#define IXGBE_TXD_IDX_SHIFT		4
#define IXGBE_TXD_CC			(1u << 7)	/* use the context of IDX */
#define IXGBE_TXD_POPTS_IXSM		(1u << 8)	/* insert the IPv4 header checksum */
#define IXGBE_TXD_POPTS_TXSM		(1u << 9)	/* insert the L4 checksum */
#define IXGBE_TXD_PAYLEN_SHIFT		14
#define IXGBE_TXD_PAYLEN_MAX		((1u << 18) - 1)

#endif
