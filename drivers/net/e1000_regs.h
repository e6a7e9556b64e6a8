/* SPDX-License-Identifier: MIT */
/*
 * e1000_regs.h - registers and descriptors of the Intel 82540EM, as the
 * "PCI/PCI-X Family of Gigabit Ethernet Controllers Software Developer's
 * Manual" (8254x SDM, rev. 4.0) describes them. Section numbers below are
 * that manual's. Shared by the driver and the register model of the tests.
 */
#ifndef SIDECORE_DRIVERS_NET_E1000_REGS_H
#define SIDECORE_DRIVERS_NET_E1000_REGS_H

#include <stdint.h>

/* §13 (register summary): offsets in BAR 0. */
#define E1000_CTRL	0x0000
#define E1000_STATUS	0x0008
#define E1000_EECD	0x0010
#define E1000_EERD	0x0014
#define E1000_ICR	0x00c0
#define E1000_ICS	0x00c8
#define E1000_IMS	0x00d0
#define E1000_IMC	0x00d8
#define E1000_RCTL	0x0100
#define E1000_TCTL	0x0400
#define E1000_TIPG	0x0410
#define E1000_RDBAL	0x2800
#define E1000_RDBAH	0x2804
#define E1000_RDLEN	0x2808
#define E1000_RDH	0x2810
#define E1000_RDT	0x2818
#define E1000_TDBAL	0x3800
#define E1000_TDBAH	0x3804
#define E1000_TDLEN	0x3808
#define E1000_TDH	0x3810
#define E1000_TDT	0x3818
#define E1000_MPC	0x4010	/* missed packets, clear on read */
#define E1000_GPRC	0x4074
#define E1000_GPTC	0x4080
#define E1000_RXCSUM	0x5000
#define E1000_MTA(n)	(0x5200 + 4 * (n))
#define E1000_RAL(n)	(0x5400 + 8 * (n))
#define E1000_RAH(n)	(0x5404 + 8 * (n))

#define E1000_MTA_ENTRIES	128
#define E1000_RAR_ENTRIES	16	/* §13, RAL/RAH: receive address registers */

/* §13, CTRL: device control. */
#define E1000_CTRL_FD		(1u << 0)
#define E1000_CTRL_LRST		(1u << 3)
#define E1000_CTRL_ASDE		(1u << 5)
#define E1000_CTRL_SLU		(1u << 6)
#define E1000_CTRL_ILOS		(1u << 7)
#define E1000_CTRL_FRCSPD	(1u << 11)
#define E1000_CTRL_FRCDPLX	(1u << 12)
#define E1000_CTRL_RST		(1u << 26)
#define E1000_CTRL_VME		(1u << 30)
#define E1000_CTRL_PHY_RST	(1u << 31)

/* §13, STATUS: device status. */
#define E1000_STATUS_FD		(1u << 0)
#define E1000_STATUS_LU		(1u << 1)
#define E1000_STATUS_SPEED_SHIFT 6
#define E1000_STATUS_SPEED_MASK	(3u << E1000_STATUS_SPEED_SHIFT)
#define E1000_STATUS_SPEED_10	0u
#define E1000_STATUS_SPEED_100	1u
/* 10b and 11b both mean 1000 Mb/s. */

/* §13, EERD: EEPROM read, the 82540EM's layout (later parts moved the bits). */
#define E1000_EERD_START	(1u << 0)
#define E1000_EERD_DONE		(1u << 4)
#define E1000_EERD_ADDR_SHIFT	8
#define E1000_EERD_DATA_SHIFT	16
/* §5 (EEPROM map): words 0-2 hold the Ethernet address, low byte first. */
#define E1000_EEPROM_MAC_WORD	0

/* §13, IMS/IMC: every interrupt cause. */
#define E1000_IMC_ALL		0xffffffffu

/* §13, RCTL: receive control. */
#define E1000_RCTL_EN		(1u << 1)
#define E1000_RCTL_SBP		(1u << 2)
#define E1000_RCTL_UPE		(1u << 3)
#define E1000_RCTL_MPE		(1u << 4)
#define E1000_RCTL_LPE		(1u << 5)
#define E1000_RCTL_RDMTS_HALF	(0u << 8)
#define E1000_RCTL_MO_SHIFT	12
#define E1000_RCTL_BAM		(1u << 15)
#define E1000_RCTL_BSIZE_SHIFT	16
#define E1000_RCTL_BSIZE_MASK	(3u << E1000_RCTL_BSIZE_SHIFT)
#define E1000_RCTL_BSIZE_2048	(0u << E1000_RCTL_BSIZE_SHIFT)	/* with BSEX clear */
#define E1000_RCTL_BSEX		(1u << 25)
#define E1000_RCTL_SECRC	(1u << 26)

/* §13, TCTL: transmit control. */
#define E1000_TCTL_EN		(1u << 1)
#define E1000_TCTL_PSP		(1u << 3)
#define E1000_TCTL_CT_SHIFT	4
#define E1000_TCTL_COLD_SHIFT	12
/* §14.5: collision threshold 0x0f, collision distance 0x40 in full duplex. */
#define E1000_TCTL_CT_DEFAULT	0x0fu
#define E1000_TCTL_COLD_FD	0x40u

/* §13, TIPG: transmit IPG; Linux's e1000 uses 8, 8, 6 on copper parts. */
#define E1000_TIPG_IPGT		8u
#define E1000_TIPG_IPGR1	8u
#define E1000_TIPG_IPGR2	6u
#define E1000_TIPG_VALUE	(E1000_TIPG_IPGT | E1000_TIPG_IPGR1 << 10 | E1000_TIPG_IPGR2 << 20)

/* §13, RXCSUM: receive checksum control. */
#define E1000_RXCSUM_IPOFL	(1u << 8)
#define E1000_RXCSUM_TUOFL	(1u << 9)

/* §13, RAH: receive address high; AV makes the entry count. */
#define E1000_RAH_AV		(1u << 31)

/* §3.2.3: the legacy receive descriptor. */
struct e1000_rx_desc {
	uint64_t addr;
	uint16_t length;
	uint16_t csum;
	uint8_t status;
	uint8_t errors;
	uint16_t special;
};

/* §3.2.3: receive status. */
#define E1000_RXD_STAT_DD	0x01
#define E1000_RXD_STAT_EOP	0x02
#define E1000_RXD_STAT_IXSM	0x04	/* ignore the checksum bits */
#define E1000_RXD_STAT_VP	0x08
#define E1000_RXD_STAT_TCPCS	0x20	/* TCP/UDP checksum computed */
#define E1000_RXD_STAT_IPCS	0x40	/* IPv4 header checksum computed */
/* §3.2.3: receive errors. */
#define E1000_RXD_ERR_CE	0x01
#define E1000_RXD_ERR_SE	0x02
#define E1000_RXD_ERR_SEQ	0x04
#define E1000_RXD_ERR_CXE	0x10
#define E1000_RXD_ERR_TCPE	0x20
#define E1000_RXD_ERR_IPE	0x40
#define E1000_RXD_ERR_RXE	0x80
/* The errors that spoil a frame; TCPE and IPE only spoil the checksum flag. */
#define E1000_RXD_ERR_FRAME	(E1000_RXD_ERR_CE | E1000_RXD_ERR_SE | E1000_RXD_ERR_SEQ | \
				 E1000_RXD_ERR_CXE | E1000_RXD_ERR_RXE)

/*
 * §3.3: transmit descriptors are 16 bytes of three kinds, told apart by
 * DEXT and DTYP: legacy, TCP/IP context and TCP/IP data descriptors.
 */
struct e1000_tx_desc {
	uint64_t addr;
	uint32_t lower;		/* legacy: length, CSO, CMD; data: DTALEN, DTYP, DCMD */
	uint32_t upper;		/* STA (DD in bit 0), CSS or POPTS, special */
};

struct e1000_ctx_desc {
	uint8_t ipcss;		/* IP checksum start */
	uint8_t ipcso;		/* IP checksum offset (where it goes) */
	uint16_t ipcse;		/* IP checksum end, inclusive; 0 for the frame's end */
	uint8_t tucss;		/* TCP/UDP checksum start */
	uint8_t tucso;
	uint16_t tucse;
	uint32_t cmd_len;	/* PAYLEN 19:0, DTYP 23:20, TUCMD 31:24 */
	uint8_t status;
	uint8_t hdr_len;	/* TSO: header bytes */
	uint16_t mss;		/* TSO: payload bytes per segment */
};

_Static_assert(sizeof(struct e1000_rx_desc) == 16, "§3.2.3: 16-byte descriptors");
_Static_assert(sizeof(struct e1000_tx_desc) == 16, "§3.3: 16-byte descriptors");
_Static_assert(sizeof(struct e1000_ctx_desc) == 16, "§3.3: 16-byte descriptors");

/* Command bits, in the descriptor's top byte (bit 24 of lower/cmd_len on). */
#define E1000_TXD_CMD_EOP	(1u << 24)
#define E1000_TXD_CMD_IFCS	(1u << 25)	/* insert the Ethernet FCS */
#define E1000_TXD_CMD_TSE	(1u << 26)	/* data: TCP segmentation (legacy: IC) */
#define E1000_TXD_CMD_RS	(1u << 27)	/* report status: write DD back */
#define E1000_TXD_CMD_DEXT	(1u << 29)	/* not a legacy descriptor */
#define E1000_TXD_CMD_IDE	(1u << 31)
/* TUCMD of a context descriptor. */
#define E1000_TXD_TUCMD_TCP	(1u << 24)	/* TCP, else UDP */
#define E1000_TXD_TUCMD_IP	(1u << 25)	/* IPv4, else IPv6 */
/* DTYP (bits 23:20) of extended descriptors. */
#define E1000_TXD_DTYP_CTX	(0u << 20)
#define E1000_TXD_DTYP_DATA	(1u << 20)
#define E1000_TXD_DTYP_MASK	(0xfu << 20)
#define E1000_TXD_LEN_MASK	0xffffu		/* legacy length */
#define E1000_TXD_DTALEN_MASK	0xfffffu	/* data length, context PAYLEN */
/* upper: status, POPTS (data descriptors) */
#define E1000_TXD_STAT_DD	(1u << 0)
#define E1000_TXD_POPTS_IXSM	(1u << 8)	/* insert the IPv4 header checksum */
#define E1000_TXD_POPTS_TXSM	(1u << 9)	/* insert the TCP/UDP checksum */
/* legacy upper: CSS in bits 15:8; legacy lower: CSO in bits 23:16. */

/* §14.4, §14.5: ring lengths are multiples of 128 bytes. */
#define E1000_RING_ALIGN	128

#endif
