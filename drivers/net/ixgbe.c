/* SPDX-License-Identifier: MIT */
/*
 * ixgbe.c - driver for the Intel 82599 10 GbE controller, polled by the
 * sidecores (nic.h). Section numbers are those of the 82599 datasheet.
 *
 * Queue pair q is VMDq pool q (§7.10.3): receive queue and transmit queue
 * IXGBE_HW_QUEUE(q). Unicast frames reach a pool only through a receive
 * address (RAR) entry whose pool bit add_mac() set; broadcast and multicast
 * are replicated to every pool. A unicast frame for an address that no pool
 * claims is dropped by the NIC (PFVTCTL.DIS_DEF_PL): the switch never asked
 * for it, and a default pool would hand one guest's sidecore traffic it
 * cannot route.
 *
 * Buffers: every descriptor of every ring has a buffer of IXGBE_BUF_SIZE
 * the driver owns for good. Transmit copies the frame into the buffers of
 * the descriptors it uses; receive lends the buffer of a descriptor to the
 * callback and puts the same buffer back in the ring when it returns.
 *
 * Descriptor memory is shared with the NIC, which may write it at any time:
 * the driver reads a write-back once, checks what it read, and trusts no
 * address or length in it (it keeps its own).
 */
#include <string.h>

#include <linux/errno.h>
#include <linux/in.h>

#include "drivers/net/ixgbe.h"
#include "drivers/net/ixgbe_regs.h"
#include "drivers/net/rar.h"
#include "drivers/net/sw_offload.h"
#include "net/headers.h"

/* Polling limits, generous against the datasheet's figures. */
#define IXGBE_RESET_WAIT_US	100000	/* CTRL.RST self-clears within about 1 ms */
#define IXGBE_RESET_SETTLE_US	10000	/* §4.6.3.2: wait before touching the NIC again */
#define IXGBE_EEPROM_WAIT_US	100000	/* EEC.ARD */
#define IXGBE_DMAINIT_WAIT_US	100000	/* RDRXCTL.DMAIDONE */
#define IXGBE_QUEUE_WAIT_US	10000	/* RXDCTL/TXDCTL.ENABLE */
#define IXGBE_MASTER_WAIT_US	100000	/* STATUS.GIO after CTRL.GIO_DIS */
#define IXGBE_SECRX_WAIT_US	40000	/* SECRXSTAT.SECRX_RDY */
#define IXGBE_SWFW_TRIES	200	/* SW_FW_SYNC, IXGBE_SWFW_WAIT_US apart */
#define IXGBE_SWFW_WAIT_US	5000
#define IXGBE_SWSM_TRIES	2000	/* SWSM.SMBI, 50 us apart */
#define IXGBE_I2C_HALF_US	5	/* half an I2C clock: 100 kHz standard mode */
#define IXGBE_PIPELINE_WAIT_US	4000	/* auto-negotiation leaving its first state */

/*
 * Link retries, counted in link() calls (uplink.c reads the link every
 * 100 ms): the first after IXGBE_LINK_FIRST_WAIT calls down, each later
 * one twice as far as the one before, up to IXGBE_LINK_MAX_WAIT.
 */
#define IXGBE_LINK_FIRST_WAIT	5
#define IXGBE_LINK_MAX_WAIT	64
/* link() calls with frames waiting and TDH still before a queue is reset. */
#define IXGBE_TX_HANG_CHECKS	2

/* SFF-8472 EEPROM of an SFP+ module, at I2C address 0xa0. */
#define SFP_I2C_ADDR		0xa0
#define SFP_IDENTIFIER		0
#define  SFP_IDENTIFIER_SFP	0x03
#define SFP_10G_COMPLIANCE	3
#define  SFP_10G_SR		0x10
#define  SFP_10G_LR		0x20
#define SFP_1G_COMPLIANCE	6
#define  SFP_1G_SX		0x01
#define  SFP_1G_LX		0x02
#define SFP_CABLE_TECH		8
#define  SFP_CABLE_PASSIVE	0x04
#define  SFP_CABLE_ACTIVE	0x08
#define SFP_VENDOR_OUI		37	/* three bytes; Intel's is 00:1b:21 */

/* The longest frame without GSO: MTU, Ethernet header and an 802.1Q tag. */
#define IXGBE_FRAME_MAX		(ETH_HLEN + NET_VLAN_HLEN + NET_MTU)
/* Enough of a frame to hold every header net_headers_parse() reads. */
#define IXGBE_TX_HDR_MAX	NET_HEADERS_MAX
/* Counter that RQSMR maps unused queues to (§8.2.3.8.x). */
#define IXGBE_STAT_UNUSED	(IXGBE_STAT_COUNTERS - 1)

struct ixgbe_rxq {
	struct ixgbe_rx_desc_read *desc;
	uint8_t *buf;			/* IXGBE_RX_RING_SIZE buffers, one per descriptor */
	uint64_t buf_bus;
	uint64_t desc_bus;
	uint32_t next;			/* the descriptor the NIC fills next */
	bool discarding;		/* inside a frame that spans descriptors */
	struct net_packet pkt;		/* lent to the callback */
};

struct ixgbe_txq {
	struct ixgbe_tx_data_desc *desc;
	uint8_t *buf;			/* IXGBE_TX_RING_SIZE buffers, one per descriptor */
	uint64_t buf_bus;
	uint64_t desc_bus;
	uint32_t tail;			/* next descriptor to fill */
	uint32_t committed;		/* the TDT last written: frames before it are the NIC's */
	uint32_t clean;			/* first descriptor not yet reclaimed */
	uint16_t eop[IXGBE_TX_RING_SIZE];	/* frame starting here: its last descriptor */
};

/*
 * Link upkeep, all of it done in link() by the one sidecore that reads the
 * link (uplink.c): retries and the transmit watchdog's view of each queue.
 */
struct ixgbe_link_state {
	enum ixgbe_sfp sfp;
	uint8_t sfp_id;
	unsigned int down_checks;	/* link() calls since the link was last up */
	unsigned int retry_at;		/* down_checks at which to set the link up again */
	unsigned int retry_wait;
	uint32_t tx_head[NIC_MAX_QUEUES];	/* TDH at the last check */
	unsigned int tx_still[NIC_MAX_QUEUES];	/* checks in a row it did not move */
};

struct ixgbe_priv {
	unsigned int allocated;		/* queue pairs with rings and buffers */
	struct ixgbe_link_state link;
	/*
	 * Set by link() for a hung queue, taken by the queue's own sidecore in
	 * commit(), which alone may touch its ring.
	 */
	bool tx_reset[NIC_MAX_QUEUES];
	uint64_t tx_hang_resets[NIC_MAX_QUEUES];
	uint64_t link_retries;		/* written by link() alone */
	struct ixgbe_rxq rx[NIC_MAX_QUEUES];
	struct ixgbe_txq tx[NIC_MAX_QUEUES];
	bool rar_valid[IXGBE_RAR_ENTRIES];
	uint8_t rar_mac[IXGBE_RAR_ENTRIES][ETH_ALEN];
	struct ixgbe_hw_stats hw;
};

const struct ixgbe_pci_id ixgbe_pci_ids[] = {
	{ 0x10fb, "82599ES SFP+" },
	{ 0x1507, "82599 SFP+ EM" },
	{ 0x1529, "82599 SFP+ FCoE" },
	{ 0x154d, "82599 SFP+ SF2" },
	{ 0x1557, "82599EN SFP+" },
};

const unsigned int ixgbe_pci_id_count = sizeof(ixgbe_pci_ids) / sizeof(ixgbe_pci_ids[0]);

bool ixgbe_pci_supported(uint16_t vendor, uint16_t device)
{
	if (vendor != IXGBE_VENDOR_INTEL)
		return false;
	for (unsigned int i = 0; i < ixgbe_pci_id_count; i++)
		if (ixgbe_pci_ids[i].device == device)
			return true;
	return false;
}

static void ixgbe_set_bits(const struct nic *nic, uint32_t reg, uint32_t bits)
{
	nic_write(nic, reg, nic_read(nic, reg) | bits);
}

static void ixgbe_clear_bits(const struct nic *nic, uint32_t reg, uint32_t bits)
{
	nic_write(nic, reg, nic_read(nic, reg) & ~bits);
}

/* ---- setup ------------------------------------------------------------ */

/*
 * Reads every statistics register the driver looks at, so that the
 * clear-on-read counters start from zero (§4.6.5).
 */
static void ixgbe_clear_stats(const struct nic *nic)
{
	static const uint32_t regs[] = {
		IXGBE_CRCERRS, IXGBE_RLEC, IXGBE_GPRC, IXGBE_BPRC, IXGBE_MPRC, IXGBE_GPTC,
		IXGBE_GORCL, IXGBE_GORCH, IXGBE_GOTCL, IXGBE_GOTCH, IXGBE_TPR, IXGBE_TPT,
	};

	for (unsigned int i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		(void)nic_read(nic, regs[i]);
	for (unsigned int i = 0; i < 8; i++)
		(void)nic_read(nic, IXGBE_MPC(i));
	for (unsigned int i = 0; i < IXGBE_STAT_COUNTERS; i++) {
		(void)nic_read(nic, IXGBE_QPRC(i));
		(void)nic_read(nic, IXGBE_QPRDC(i));
	}
}

/* Rings and buffers for queue pairs [p->allocated, nic->queues), once. */
static int ixgbe_alloc_rings(struct nic *nic, struct ixgbe_priv *p)
{
	for (unsigned int q = p->allocated; q < nic->queues; q++) {
		struct ixgbe_rxq *rx = &p->rx[q];
		struct ixgbe_txq *tx = &p->tx[q];

		const struct nic_io *io = &nic->io;

		/* §7.1.9, §7.2.3.3: rings 128-byte aligned, a multiple of 128 bytes long. */
		rx->desc = io->dma_alloc(io->ctx, (int)q, IXGBE_RX_RING_SIZE * sizeof(*rx->desc),
					 128, &rx->desc_bus);
		rx->buf = io->dma_alloc(io->ctx, (int)q, IXGBE_RX_RING_SIZE * IXGBE_BUF_SIZE,
					4096, &rx->buf_bus);
		tx->desc = io->dma_alloc(io->ctx, (int)q, IXGBE_TX_RING_SIZE * sizeof(*tx->desc),
					 128, &tx->desc_bus);
		tx->buf = io->dma_alloc(io->ctx, (int)q, IXGBE_TX_RING_SIZE * IXGBE_BUF_SIZE,
					4096, &tx->buf_bus);
		if (!rx->desc || !rx->buf || !tx->desc || !tx->buf)
			return -ENOMEM;
		p->allocated = q + 1;
	}
	return 0;
}

/*
 * §4.6.3.2 global reset. The NIC must not be mastering when it is reset
 * (§5.2.5.3.2): GIO_DIS stops new requests; if some stay pending the reset
 * goes ahead anyway, as the datasheet allows.
 */
static int ixgbe_reset(const struct nic *nic)
{
	bool quiet;

	ixgbe_set_bits(nic, IXGBE_CTRL, IXGBE_CTRL_GIO_DIS);
	quiet = nic_wait(nic, IXGBE_STATUS, IXGBE_STATUS_GIO, 0, IXGBE_MASTER_WAIT_US);

	/* With requests left pending, a second reset, as Intel's drivers do. */
	for (unsigned int i = 0; i < (quiet ? 1u : 2u); i++) {
		ixgbe_set_bits(nic, IXGBE_CTRL, IXGBE_CTRL_RST | IXGBE_CTRL_LRST);
		/* The bits self-clear when the reset is done; no register before that. */
		nic->io.delay_us(nic->io.ctx, 1000);
		if (!nic_wait(nic, IXGBE_CTRL, IXGBE_CTRL_RST | IXGBE_CTRL_LRST, 0,
			      IXGBE_RESET_WAIT_US))
			return -ETIMEDOUT;
		nic->io.delay_us(nic->io.ctx, IXGBE_RESET_SETTLE_US);
	}
	return 0;
}

/* Leaves the NIC in reset, its DMA stopped, after a failed init. */
static int ixgbe_fail(const struct nic *nic, int err)
{
	nic_write(nic, IXGBE_EIMC, IXGBE_EIMC_ALL);
	nic_write(nic, IXGBE_CTRL, IXGBE_CTRL_RST);
	return err;
}

/* RAR entry 0 holds the address the NIC loaded from its EEPROM (§8.2.3.7.9). */
static int ixgbe_read_mac(struct nic *nic, struct ixgbe_priv *p)
{
	uint32_t lo = nic_read(nic, IXGBE_RAL(0));
	uint32_t hi = nic_read(nic, IXGBE_RAH(0));

	if (!(hi & IXGBE_RAH_AV))
		return -ENODEV;
	rar_mac(lo, hi, nic->mac);
	if (net_mac_is_group(nic->mac))
		return -ENODEV;
	memcpy(p->rar_mac[0], nic->mac, ETH_ALEN);
	p->rar_valid[0] = true;
	return 0;
}

/* ---- the SFP+ module, over I2C ----------------------------------------- */

/* Drives SCL and SDA (SDA released when high), then waits half a clock. */
static void ixgbe_i2c_set(const struct nic *nic, bool scl, bool sda)
{
	nic_write(nic, IXGBE_I2CCTL, (scl ? IXGBE_I2C_CLK_OUT : 0) | (sda ? IXGBE_I2C_DATA_OUT : 0));
	nic->io.delay_us(nic->io.ctx, IXGBE_I2C_HALF_US);
}

static bool ixgbe_i2c_sda(const struct nic *nic)
{
	return nic_read(nic, IXGBE_I2CCTL) & IXGBE_I2C_DATA_IN;
}

/* START: SDA falls while SCL is high (a repeated START from SCL low too). */
static void ixgbe_i2c_start(const struct nic *nic)
{
	ixgbe_i2c_set(nic, false, true);
	ixgbe_i2c_set(nic, true, true);
	ixgbe_i2c_set(nic, true, false);
	ixgbe_i2c_set(nic, false, false);
}

/* STOP: SDA rises while SCL is high. */
static void ixgbe_i2c_stop(const struct nic *nic)
{
	ixgbe_i2c_set(nic, false, false);
	ixgbe_i2c_set(nic, true, false);
	ixgbe_i2c_set(nic, true, true);
}

/* One clock with SDA at @bit (released for 1); what the line read at the top. */
static bool ixgbe_i2c_clock(const struct nic *nic, bool bit)
{
	bool line;

	ixgbe_i2c_set(nic, false, bit);
	ixgbe_i2c_set(nic, true, bit);
	line = ixgbe_i2c_sda(nic);
	ixgbe_i2c_set(nic, false, bit);
	return line;
}

/* Sends a byte, most significant bit first; true if the module acked it. */
static bool ixgbe_i2c_put(const struct nic *nic, uint8_t byte)
{
	for (int i = 7; i >= 0; i--)
		(void)ixgbe_i2c_clock(nic, (byte >> i) & 1);
	return !ixgbe_i2c_clock(nic, true);
}

/*
 * One byte of the module's EEPROM: a write of the offset, a repeated START
 * and a read of one byte, not acked (SFF-8472 §4, the I2C bus's random read).
 * False when no module acks: none is plugged in.
 */
static bool ixgbe_sfp_read(const struct nic *nic, uint8_t offset, uint8_t *out)
{
	uint8_t byte = 0;
	bool ok;

	ixgbe_i2c_start(nic);
	ok = ixgbe_i2c_put(nic, SFP_I2C_ADDR) && ixgbe_i2c_put(nic, offset);
	if (ok) {
		ixgbe_i2c_start(nic);
		ok = ixgbe_i2c_put(nic, SFP_I2C_ADDR | 1);
	}
	if (ok) {
		for (int i = 0; i < 8; i++)
			byte = (uint8_t)(byte << 1 | ixgbe_i2c_clock(nic, true));
		(void)ixgbe_i2c_clock(nic, true);	/* no ack: the last byte */
	}
	ixgbe_i2c_stop(nic);
	*out = byte;
	return ok;
}

/*
 * What the module is, from the bytes Intel's drivers look at: an SFP at all,
 * direct-attach copper (passive or active), SR or LR optics, and among
 * those Intel's dual-rate ones (1G codes too, Intel's OUI), whose rate
 * select must be driven for 10 Gb/s. A third party's optics are used as
 * any SR/LR module.
 */
static enum ixgbe_sfp ixgbe_sfp_identify(const struct nic *nic, uint8_t *id)
{
	static const uint8_t intel_oui[3] = { 0x00, 0x1b, 0x21 };
	uint8_t tenG, oneG, cable, oui[3];

	*id = 0;
	if (!ixgbe_sfp_read(nic, SFP_IDENTIFIER, id))
		return IXGBE_SFP_NONE;
	if (*id != SFP_IDENTIFIER_SFP || !ixgbe_sfp_read(nic, SFP_10G_COMPLIANCE, &tenG) ||
	    !ixgbe_sfp_read(nic, SFP_1G_COMPLIANCE, &oneG) ||
	    !ixgbe_sfp_read(nic, SFP_CABLE_TECH, &cable))
		return IXGBE_SFP_UNSUPPORTED;
	if (cable & (SFP_CABLE_PASSIVE | SFP_CABLE_ACTIVE))
		return IXGBE_SFP_DAC;
	if (!(tenG & (SFP_10G_SR | SFP_10G_LR)))
		return IXGBE_SFP_UNSUPPORTED;
	for (unsigned int i = 0; i < 3; i++)
		if (!ixgbe_sfp_read(nic, (uint8_t)(SFP_VENDOR_OUI + i), &oui[i]))
			return IXGBE_SFP_UNSUPPORTED;
	if ((oneG & (SFP_1G_SX | SFP_1G_LX)) && !memcmp(oui, intel_oui, sizeof(oui)))
		return IXGBE_SFP_INTEL_DUAL_RATE;
	return IXGBE_SFP_SR_LR;
}

/* ---- the link --------------------------------------------------------- */

/* §10.5: SWSM.SMBI, then SWESMBI: the right to change SW_FW_SYNC. */
static bool ixgbe_swsm_take(const struct nic *nic)
{
	for (unsigned int i = 0; i < IXGBE_SWSM_TRIES; i++) {
		if (!(nic_read(nic, IXGBE_SWSM) & IXGBE_SWSM_SMBI)) {
			ixgbe_set_bits(nic, IXGBE_SWSM, IXGBE_SWSM_SWESMBI);
			if (nic_read(nic, IXGBE_SWSM) & IXGBE_SWSM_SWESMBI)
				return true;
			nic_write(nic, IXGBE_SWSM, 0);
		}
		nic->io.delay_us(nic->io.ctx, 50);
	}
	return false;
}

/*
 * §10.5: the MAC's link registers (AUTOC) are shared with management
 * firmware; software holds SW_FW_SYNC's bit for them while it writes, and
 * waits while the firmware holds its own.
 */
static bool ixgbe_mac_take(const struct nic *nic)
{
	for (unsigned int i = 0; i < IXGBE_SWFW_TRIES; i++) {
		uint32_t sync;

		if (!ixgbe_swsm_take(nic))
			return false;
		sync = nic_read(nic, IXGBE_SW_FW_SYNC);
		if (!(sync & (IXGBE_SW_FW_SYNC_SW_MAC | IXGBE_SW_FW_SYNC_FW_MAC))) {
			nic_write(nic, IXGBE_SW_FW_SYNC, sync | IXGBE_SW_FW_SYNC_SW_MAC);
			nic_write(nic, IXGBE_SWSM, 0);
			return true;
		}
		nic_write(nic, IXGBE_SWSM, 0);
		nic->io.delay_us(nic->io.ctx, IXGBE_SWFW_WAIT_US);
	}
	return false;
}

static void ixgbe_mac_give(const struct nic *nic)
{
	if (!ixgbe_swsm_take(nic))
		return;
	ixgbe_clear_bits(nic, IXGBE_SW_FW_SYNC, IXGBE_SW_FW_SYNC_SW_MAC);
	nic_write(nic, IXGBE_SWSM, 0);
}

/*
 * §4.6.4 for an SFP+ port: identify the module; for optics drive the laser
 * on (SDP3 low) and a dual-rate module's rate select to 10 Gb/s (SDP5
 * high); clear the link-disable bits an NVM may set in AUTOC2 and select
 * SFI; then 10 Gb/s serial in AUTOC and restart auto-negotiation, under
 * SW_FW_SYNC. With @pipeline the write toggles LMS bit 2 first, which
 * resets the link pipeline as well (what Intel's drivers do when a plain
 * restart did not bring the link). The link comes up in the background;
 * link() reads it. False when no module is usable or the firmware kept the
 * registers: link() tries again later.
 */
static bool ixgbe_setup_link(const struct nic *nic, struct ixgbe_link_state *ls, bool pipeline)
{
	uint32_t esdp, autoc2, autoc;

	ls->sfp = ixgbe_sfp_identify(nic, &ls->sfp_id);
	if (ls->sfp == IXGBE_SFP_NONE || ls->sfp == IXGBE_SFP_UNSUPPORTED)
		return false;

	esdp = nic_read(nic, IXGBE_ESDP);
	if (ls->sfp != IXGBE_SFP_DAC)
		esdp = (esdp | IXGBE_ESDP_SDP3_DIR) & ~IXGBE_ESDP_SDP3;
	if (ls->sfp == IXGBE_SFP_INTEL_DUAL_RATE)
		esdp |= IXGBE_ESDP_SDP5_DIR | IXGBE_ESDP_SDP5;
	nic_write(nic, IXGBE_ESDP, esdp);

	autoc2 = nic_read(nic, IXGBE_AUTOC2);
	autoc2 &= ~(IXGBE_AUTOC2_LINK_DISABLE_MASK | IXGBE_AUTOC2_PMA_PMD_MASK);
	nic_write(nic, IXGBE_AUTOC2, autoc2 | IXGBE_AUTOC2_PMA_PMD_SFI);

	if (!ixgbe_mac_take(nic))
		return false;
	autoc = nic_read(nic, IXGBE_AUTOC);
	autoc &= ~(IXGBE_AUTOC_LMS_MASK | IXGBE_AUTOC_10G_PMA_PMD_MASK);
	autoc |= IXGBE_AUTOC_LMS_10G_SERIAL | IXGBE_AUTOC_10G_XAUI;
	nic_write(nic, IXGBE_AUTOC, autoc);
	if (pipeline) {
		nic_write(nic, IXGBE_AUTOC, (autoc ^ IXGBE_AUTOC_LMS_BIT2) | IXGBE_AUTOC_AN_RESTART);
		nic->io.delay_us(nic->io.ctx, IXGBE_PIPELINE_WAIT_US);
	}
	nic_write(nic, IXGBE_AUTOC, autoc | IXGBE_AUTOC_AN_RESTART);
	ixgbe_mac_give(nic);
	return true;
}

/* Bits 0..n-1 of the 64-bit pool bitmaps PFVFRE/PFVFTE, word @word. */
static uint32_t ixgbe_pool_bits(unsigned int n, unsigned int word)
{
	unsigned int first = 32 * word;

	if (n <= first)
		return 0;
	if (n - first >= 32)
		return 0xffffffffu;
	return (1u << (n - first)) - 1;
}

/*
 * §4.6.10, §7.10.3: VMDq, pool q for queue pair q. The L2 filter lets
 * broadcast (FCTRL.BAM) and all multicast (FCTRL.MPE) through, and unicast
 * only for valid RAR entries; MAC control frames are the port's, never a
 * guest's: pause frames are dropped (DPF), the others not passed (PMCF
 * clear). The pool filter then replicates broadcast and
 * multicast to every pool that accepts them (PFVML2FLT.BAM/MPE, with
 * PFVTCTL.RPL_EN) and sends unicast to the pools of its RAR entry; none
 * claimed means dropped (DIS_DEF_PL), not the default pool.
 */
static void ixgbe_setup_pools(struct nic *nic, struct ixgbe_priv *p)
{
	nic_write(nic, IXGBE_FCTRL, IXGBE_FCTRL_BAM | IXGBE_FCTRL_MPE | IXGBE_FCTRL_DPF);
	nic_write(nic, IXGBE_MRQC, IXGBE_MRQC_VMDQ64);
	nic_write(nic, IXGBE_PFVTCTL, IXGBE_PFVTCTL_VT_ENA | IXGBE_PFVTCTL_DIS_DEF_PL |
		  IXGBE_PFVTCTL_RPL_EN | (0u << IXGBE_PFVTCTL_DEF_PL_SHIFT));
	for (unsigned int pool = 0; pool < IXGBE_POOLS; pool++)
		nic_write(nic, IXGBE_PFVML2FLT(pool), pool < nic->queues ?
			  IXGBE_PFVML2FLT_AUPE | IXGBE_PFVML2FLT_BAM | IXGBE_PFVML2FLT_MPE : 0);
	for (unsigned int w = 0; w < 2; w++)
		nic_write(nic, IXGBE_PFVFRE(w), ixgbe_pool_bits(nic->queues, w));

	/*
	 * Entry 0 keeps the NIC's own address but steers to no pool until
	 * add_mac() names it; the others start empty.
	 */
	for (unsigned int i = 0; i < IXGBE_RAR_ENTRIES; i++) {
		nic_write(nic, IXGBE_MPSAR_LO(i), 0);
		nic_write(nic, IXGBE_MPSAR_HI(i), 0);
		if (i == 0)
			continue;
		nic_write(nic, IXGBE_RAH(i), 0);
		nic_write(nic, IXGBE_RAL(i), 0);
		p->rar_valid[i] = false;
	}

	/*
	 * §8.2.3.8.x RQSMR: a byte per queue names its statistics counter;
	 * pool q's queue counts in counter q (QPRC, QPRDC), the rest in one
	 * counter nobody reads.
	 */
	for (unsigned int r = 0; r < 32; r++) {
		uint32_t v = 0;

		for (unsigned int k = 0; k < 4; k++) {
			unsigned int hwq = 4 * r + k;
			unsigned int counter = IXGBE_STAT_UNUSED;

			if (hwq % 2 == 0 && hwq / 2 < nic->queues)
				counter = hwq / 2;
			v |= (uint32_t)counter << (8 * k);
		}
		nic_write(nic, IXGBE_RQSMR(r), v);
	}
}

/* Arms receive descriptor i with its buffer; DD (bit 0 of hdr_addr) clear. */
static void ixgbe_rx_arm(struct ixgbe_rxq *rx, uint32_t i)
{
	__atomic_store_n(&rx->desc[i].pkt_addr, rx->buf_bus + (uint64_t)i * IXGBE_BUF_SIZE,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&rx->desc[i].hdr_addr, 0, __ATOMIC_RELAXED);
}

/* §4.6.7 receive initialisation, with the pools of ixgbe_setup_pools(). */
static int ixgbe_setup_rx(struct nic *nic, struct ixgbe_priv *p)
{
	uint32_t rdrxctl;

	ixgbe_clear_bits(nic, IXGBE_RXCTRL, IXGBE_RXCTRL_RXEN);

	/* §8.2.3.8.8: CRC stripping is set in both places, or in neither. */
	ixgbe_set_bits(nic, IXGBE_HLREG0, IXGBE_HLREG0_RXCRCSTRP);
	rdrxctl = nic_read(nic, IXGBE_RDRXCTL);
	rdrxctl &= ~IXGBE_RDRXCTL_RSCFRSTSIZE;
	/* §8.2.3.8.8: RSCACKC and FCOE_WRFIX must be set, RSC or not. */
	rdrxctl |= IXGBE_RDRXCTL_CRCSTRIP | IXGBE_RDRXCTL_RSCACKC | IXGBE_RDRXCTL_FCOE_WRFIX;
	nic_write(nic, IXGBE_RDRXCTL, rdrxctl);

	ixgbe_setup_pools(nic, p);

	for (unsigned int q = 0; q < nic->queues; q++) {
		struct ixgbe_rxq *rx = &p->rx[q];
		unsigned int hwq = IXGBE_HW_QUEUE(q);

		/*
		 * §8.2.3.8.7: advanced descriptors, one buffer each; DROP_EN so a
		 * queue without descriptors drops its frames (counted in QPRDC)
		 * instead of holding up the packet buffer every pool shares.
		 */
		nic_write(nic, IXGBE_SRRCTL(hwq), IXGBE_SRRCTL_DESCTYPE_ADV_ONEBUF |
			  IXGBE_SRRCTL_DROP_EN | (IXGBE_BUF_SIZE >> IXGBE_SRRCTL_BSIZEPKT_SHIFT));
		for (uint32_t i = 0; i < IXGBE_RX_RING_SIZE; i++)
			ixgbe_rx_arm(rx, i);
		rx->next = 0;
		rx->discarding = false;
		nic_write(nic, IXGBE_RDBAL(hwq), (uint32_t)rx->desc_bus);
		nic_write(nic, IXGBE_RDBAH(hwq), (uint32_t)(rx->desc_bus >> 32));
		nic_write(nic, IXGBE_RDLEN(hwq), IXGBE_RX_RING_SIZE * sizeof(*rx->desc));
		nic_write(nic, IXGBE_RDH(hwq), 0);
		nic_write(nic, IXGBE_RDT(hwq), 0);
		/*
		 * §4.6.7 and Intel's drivers: relaxed ordering of write-backs
		 * off, which some chipsets get wrong; bit 12 must be cleared.
		 */
		ixgbe_clear_bits(nic, IXGBE_DCA_RXCTRL(hwq), IXGBE_DCA_RXCTRL_BIT12 |
				 IXGBE_DCA_RXCTRL_DATA_WRO | IXGBE_DCA_RXCTRL_HEAD_WRO);
		ixgbe_set_bits(nic, IXGBE_RXDCTL(hwq), IXGBE_RXDCTL_ENABLE);
		if (!nic_wait(nic, IXGBE_RXDCTL(hwq), IXGBE_RXDCTL_ENABLE, IXGBE_RXDCTL_ENABLE,
			      IXGBE_QUEUE_WAIT_US))
			return -ETIMEDOUT;
		/*
		 * §7.1.9: the NIC owns the descriptors from RDH up to RDT; one
		 * stays back so that a full ring is not mistaken for an empty one.
		 */
		nic_write(nic, IXGBE_RDT(hwq), IXGBE_RX_RING_SIZE - 1);
	}

	/*
	 * §8.2.3.7.5: the L4 checksum status is written back for TCP and UDP
	 * whatever RXCSUM says; PCSD clear keeps the fragment checksum rather
	 * than an RSS hash in the write-back, IPPCSE clear leaves fragments be.
	 */
	nic_write(nic, IXGBE_RXCSUM, 0);
	/*
	 * §4.6.7, last step, inside the workaround for the 82599 specification
	 * update's receive DMA hang erratum: the security receive path is
	 * disabled (and drained: SECRX_RDY) around setting RXEN, as Intel's
	 * drivers do. If it never reports ready, going ahead is no worse than
	 * not enabling receive at all.
	 */
	ixgbe_set_bits(nic, IXGBE_CTRL_EXT, IXGBE_CTRL_EXT_NS_DIS);
	ixgbe_set_bits(nic, IXGBE_SECRXCTRL, IXGBE_SECRXCTRL_RX_DIS);
	(void)nic_wait(nic, IXGBE_SECRXSTAT, IXGBE_SECRXSTAT_SECRX_RDY, IXGBE_SECRXSTAT_SECRX_RDY,
		       IXGBE_SECRX_WAIT_US);
	ixgbe_set_bits(nic, IXGBE_RXCTRL, IXGBE_RXCTRL_RXEN);
	ixgbe_clear_bits(nic, IXGBE_SECRXCTRL, IXGBE_SECRXCTRL_RX_DIS);
	return 0;
}

/*
 * Transmit queue @hwq from an empty ring (§4.6.8, per queue): also how a
 * hung queue is started again, disabled and enabled (§4.6.8).
 */
static bool ixgbe_tx_queue_start(const struct nic *nic, struct ixgbe_txq *tx, unsigned int hwq)
{
	memset(tx->desc, 0, IXGBE_TX_RING_SIZE * sizeof(*tx->desc));
	tx->tail = tx->clean = tx->committed = 0;
	/* Intel's drivers: relaxed ordering of descriptor write-backs off. */
	ixgbe_clear_bits(nic, IXGBE_DCA_TXCTRL(hwq), IXGBE_DCA_TXCTRL_DESC_WRO);
	nic_write(nic, IXGBE_TDBAL(hwq), (uint32_t)tx->desc_bus);
	nic_write(nic, IXGBE_TDBAH(hwq), (uint32_t)(tx->desc_bus >> 32));
	nic_write(nic, IXGBE_TDLEN(hwq), IXGBE_TX_RING_SIZE * sizeof(*tx->desc));
	nic_write(nic, IXGBE_TDH(hwq), 0);
	nic_write(nic, IXGBE_TDT(hwq), 0);
	/*
	 * §8.2.3.9.10: thresholds 0, so WTHRESH 0: the NIC writes DD back for
	 * every descriptor with RS, one per frame.
	 */
	nic_write(nic, IXGBE_TXDCTL(hwq), IXGBE_TXDCTL_ENABLE);
	return nic_wait(nic, IXGBE_TXDCTL(hwq), IXGBE_TXDCTL_ENABLE, IXGBE_TXDCTL_ENABLE,
			IXGBE_QUEUE_WAIT_US);
}

/* §4.6.8 transmit initialisation. */
static int ixgbe_setup_tx(struct nic *nic, struct ixgbe_priv *p)
{
	/* §8.2.3.22.8: the NIC appends the FCS and pads short frames. */
	ixgbe_set_bits(nic, IXGBE_HLREG0, IXGBE_HLREG0_TXCRCEN | IXGBE_HLREG0_TXPADEN);

	/* §8.2.3.9.15: MTQC changes only with the transmit arbiter off. */
	ixgbe_set_bits(nic, IXGBE_RTTDCS, IXGBE_RTTDCS_ARBDIS);
	nic_write(nic, IXGBE_MTQC, IXGBE_MTQC_VT_ENA | IXGBE_MTQC_64VF);
	ixgbe_clear_bits(nic, IXGBE_RTTDCS, IXGBE_RTTDCS_ARBDIS);
	/* §4.6.11.3.4: without DCB, no limit on outstanding read requests. */
	nic_write(nic, IXGBE_DTXMXSZRQ, IXGBE_DTXMXSZRQ_MASK);
	for (unsigned int w = 0; w < 2; w++)
		nic_write(nic, IXGBE_PFVFTE(w), ixgbe_pool_bits(nic->queues, w));
	/*
	 * §7.10.3: no pool-to-pool loopback. The switch already hands a
	 * guest's frame to the other guests; a looped copy would be a second.
	 */
	nic_write(nic, IXGBE_PFDTXGSWC, 0);
	/* §4.6.8: DMATXCTL.TE before any queue is enabled. */
	ixgbe_set_bits(nic, IXGBE_DMATXCTL, IXGBE_DMATXCTL_TE);

	for (unsigned int q = 0; q < nic->queues; q++) {
		struct ixgbe_txq *tx = &p->tx[q];
		unsigned int hwq = IXGBE_HW_QUEUE(q);

		p->tx_reset[q] = false;
		if (!ixgbe_tx_queue_start(nic, tx, hwq))
			return -ETIMEDOUT;
	}
	return 0;
}

/* §4.6.3: the whole initialisation sequence. */
static int ixgbe_init(struct nic *nic)
{
	struct ixgbe_priv *p = nic->priv;
	uint64_t bus;
	int err;

	if (nic->queues == 0 || nic->queues > NIC_MAX_QUEUES)
		return -EINVAL;
	if (!p) {
		p = nic->io.dma_alloc(nic->io.ctx, NIC_DMA_SHARED, sizeof(*p), 64, &bus);
		if (!p)
			return -ENOMEM;
		nic->priv = p;
	}
	err = ixgbe_alloc_rings(nic, p);
	if (err)
		return err;
	memset(p->rar_valid, 0, sizeof(p->rar_valid));
	memset(&p->hw, 0, sizeof(p->hw));
	memset(&p->link, 0, sizeof(p->link));
	memset(p->tx_hang_resets, 0, sizeof(p->tx_hang_resets));
	p->link_retries = 0;
	p->link.retry_wait = IXGBE_LINK_FIRST_WAIT;
	p->link.retry_at = IXGBE_LINK_FIRST_WAIT;
	memset(nic->stats, 0, sizeof(nic->stats));
	nic->link_up = false;
	nic->speed_mbps = 0;

	/* §4.6.3.1: no interrupts, before the reset and again after it. */
	nic_write(nic, IXGBE_EIMC, IXGBE_EIMC_ALL);
	err = ixgbe_reset(nic);
	if (err)
		return ixgbe_fail(nic, err);
	nic_write(nic, IXGBE_EIMC, IXGBE_EIMC_ALL);

	/* §4.6.3: the EEPROM has been read (MAC address) and DMA initialised. */
	if (!nic_wait(nic, IXGBE_EEC, IXGBE_EEC_ARD, IXGBE_EEC_ARD, IXGBE_EEPROM_WAIT_US) ||
	    !nic_wait(nic, IXGBE_RDRXCTL, IXGBE_RDRXCTL_DMAIDONE, IXGBE_RDRXCTL_DMAIDONE,
		      IXGBE_DMAINIT_WAIT_US))
		return ixgbe_fail(nic, -ETIMEDOUT);
	err = ixgbe_read_mac(nic, p);
	if (err)
		return ixgbe_fail(nic, err);
	/* §8.2.3.1.3: tell the firmware a driver owns the port. */
	ixgbe_set_bits(nic, IXGBE_CTRL_EXT, IXGBE_CTRL_EXT_DRV_LOAD);

	/* A first attempt that fails is retried by link(), like any other. */
	(void)ixgbe_setup_link(nic, &p->link, false);
	ixgbe_clear_stats(nic);
	err = ixgbe_setup_rx(nic, p);
	if (!err)
		err = ixgbe_setup_tx(nic, p);
	if (err)
		return ixgbe_fail(nic, err);
	return 0;
}

/* ---- link, filters, counters ------------------------------------------ */

/*
 * While the link stays down, sets it up again now and then: a plain
 * auto-negotiation restart first, then with the pipeline reset, further
 * and further apart. A MAC reset would be Intel's last resort, but it
 * would take every queue pair from under the sidecores that poll them.
 */
static void ixgbe_link_retry(struct nic *nic, struct ixgbe_priv *p)
{
	struct ixgbe_link_state *ls = &p->link;

	if (++ls->down_checks < ls->retry_at)
		return;
	(void)ixgbe_setup_link(nic, ls, ls->retry_wait > IXGBE_LINK_FIRST_WAIT);
	__atomic_store_n(&p->link_retries, p->link_retries + 1, __ATOMIC_RELAXED);
	ls->retry_wait = ls->retry_wait * 2 > IXGBE_LINK_MAX_WAIT ? IXGBE_LINK_MAX_WAIT :
								    ls->retry_wait * 2;
	ls->retry_at = ls->down_checks + ls->retry_wait;
}

/*
 * The transmit watchdog: a queue with frames the NIC has not taken (TDH
 * short of TDT) whose TDH has not moved for IXGBE_TX_HANG_CHECKS checks
 * with the link up is hung, as an 82599 queue can be after a link flap;
 * its sidecore is asked to start it again (ixgbe_tx_commit()).
 */
static void ixgbe_tx_watchdog(struct nic *nic, struct ixgbe_priv *p)
{
	struct ixgbe_link_state *ls = &p->link;

	for (unsigned int q = 0; q < nic->queues; q++) {
		uint32_t head = nic_read(nic, IXGBE_TDH(IXGBE_HW_QUEUE(q)));
		uint32_t tail = nic_read(nic, IXGBE_TDT(IXGBE_HW_QUEUE(q)));

		if (head == tail || head != ls->tx_head[q]) {
			ls->tx_still[q] = 0;
		} else if (++ls->tx_still[q] >= IXGBE_TX_HANG_CHECKS) {
			ls->tx_still[q] = 0;
			__atomic_store_n(&p->tx_reset[q], true, __ATOMIC_RELEASE);
		}
		ls->tx_head[q] = head;
	}
}

/* §8.2.3.22.20 LINKS; the link retries and the transmit watchdog ride along. */
static bool ixgbe_link(struct nic *nic)
{
	struct ixgbe_priv *p = nic->priv;
	uint32_t links = nic_read(nic, IXGBE_LINKS);

	if (p && (links & IXGBE_LINKS_UP)) {
		p->link.down_checks = 0;
		p->link.retry_wait = IXGBE_LINK_FIRST_WAIT;
		p->link.retry_at = IXGBE_LINK_FIRST_WAIT;
		ixgbe_tx_watchdog(nic, p);
	} else if (p) {
		ixgbe_link_retry(nic, p);
	}
	nic->link_up = links & IXGBE_LINKS_UP;
	nic->speed_mbps = 0;
	if (nic->link_up) {
		switch (links & IXGBE_LINKS_SPEED_MASK) {
		case IXGBE_LINKS_SPEED_10G:
			nic->speed_mbps = 10000;
			break;
		case IXGBE_LINKS_SPEED_1G:
			nic->speed_mbps = 1000;
			break;
		case IXGBE_LINKS_SPEED_100M:
			nic->speed_mbps = 100;
			break;
		}
	}
	return nic->link_up;
}

/*
 * §8.2.3.7.9-10, §8.2.3.7.x MPSAR: an address goes to exactly one pool. An
 * address already in the table moves to pool q; a new one takes a free
 * entry, written pools first and AV last, so the filter never matches
 * half-written.
 */
static bool ixgbe_add_mac(struct nic *nic, const uint8_t mac[ETH_ALEN], unsigned int q)
{
	struct ixgbe_priv *p = nic->priv;
	unsigned int entry = IXGBE_RAR_ENTRIES;

	if (!p || q >= nic->queues || !net_mac_is_usable(mac))
		return false;
	for (unsigned int i = 0; i < IXGBE_RAR_ENTRIES; i++) {
		if (p->rar_valid[i] && !memcmp(p->rar_mac[i], mac, ETH_ALEN)) {
			entry = i;
			break;
		}
	}
	if (entry == IXGBE_RAR_ENTRIES) {
		for (unsigned int i = 1; i < IXGBE_RAR_ENTRIES && entry == IXGBE_RAR_ENTRIES; i++)
			if (!p->rar_valid[i])
				entry = i;
		if (entry == IXGBE_RAR_ENTRIES)
			return false;
	}

	nic_write(nic, IXGBE_MPSAR_LO(entry), q < 32 ? 1u << q : 0);
	nic_write(nic, IXGBE_MPSAR_HI(entry), q >= 32 ? 1u << (q - 32) : 0);
	if (!p->rar_valid[entry]) {
		nic_write(nic, IXGBE_RAL(entry), rar_low(mac));
		nic_write(nic, IXGBE_RAH(entry), rar_high(mac) | IXGBE_RAH_AV);
		memcpy(p->rar_mac[entry], mac, ETH_ALEN);
		p->rar_valid[entry] = true;
	}
	return true;
}

void ixgbe_read_hw_stats(struct nic *nic, struct ixgbe_hw_stats *out)
{
	struct ixgbe_priv *p = nic->priv;
	uint64_t v;

	if (!p)
		return;
	p->hw.rx_good += nic_read(nic, IXGBE_GPRC);
	p->hw.tx_good += nic_read(nic, IXGBE_GPTC);
	/* The 36-bit octet counters clear when their high half is read, so low first. */
	v = nic_read(nic, IXGBE_GORCL);
	p->hw.rx_good_bytes += v | (uint64_t)nic_read(nic, IXGBE_GORCH) << 32;
	v = nic_read(nic, IXGBE_GOTCL);
	p->hw.tx_good_bytes += v | (uint64_t)nic_read(nic, IXGBE_GOTCH) << 32;
	for (unsigned int i = 0; i < 8; i++)
		p->hw.rx_missed += nic_read(nic, IXGBE_MPC(i));
	p->hw.rx_crc_errors += nic_read(nic, IXGBE_CRCERRS);
	p->hw.rx_length_errors += nic_read(nic, IXGBE_RLEC);
	*out = p->hw;
	out->link_retries = __atomic_load_n(&p->link_retries, __ATOMIC_RELAXED);
	out->tx_hang_resets = 0;
	for (unsigned int q = 0; q < nic->queues; q++)
		out->tx_hang_resets += __atomic_load_n(&p->tx_hang_resets[q], __ATOMIC_RELAXED);
}

void ixgbe_link_report(struct nic *nic, struct ixgbe_link_report *out)
{
	static const char *const names[] = {
		[IXGBE_SFP_NONE] = "none",
		[IXGBE_SFP_UNSUPPORTED] = "unsupported",
		[IXGBE_SFP_DAC] = "dac",
		[IXGBE_SFP_SR_LR] = "sr/lr",
		[IXGBE_SFP_INTEL_DUAL_RATE] = "intel-dual-rate",
	};
	const struct ixgbe_priv *p = nic->priv;

	memset(out, 0, sizeof(*out));
	out->autoc = nic_read(nic, IXGBE_AUTOC);
	out->autoc2 = nic_read(nic, IXGBE_AUTOC2);
	out->esdp = nic_read(nic, IXGBE_ESDP);
	out->links = nic_read(nic, IXGBE_LINKS);
	out->sfp = p ? p->link.sfp : IXGBE_SFP_NONE;
	out->sfp_id = p ? p->link.sfp_id : 0;
	out->sfp_name = names[out->sfp];
}

/* ---- receive ---------------------------------------------------------- */

/* §7.1.11: the NIC checked the L4 checksum and, for IPv4, the header's. */
static bool ixgbe_rx_csum_ok(uint32_t staterr)
{
	if (!(staterr & IXGBE_RXWB_STAT_L4CS) || (staterr & IXGBE_RXWB_ERR_L4E))
		return false;
	return !((staterr & IXGBE_RXWB_STAT_IPCS) && (staterr & IXGBE_RXWB_ERR_IPE));
}

/*
 * Hands one received frame to the callback. The write-back is checked as
 * untrusted input: the length must fit the buffer the driver gave.
 */
static bool ixgbe_rx_deliver(struct nic *nic, unsigned int q, struct ixgbe_rxq *rx, uint32_t i,
			     uint32_t staterr, uint32_t len, nic_rx_fn fn, void *ctx)
{
	struct net_packet *pkt = &rx->pkt;

	if (len < ETH_HLEN || len > IXGBE_BUF_SIZE || (staterr & IXGBE_RXWB_ERR_RXE))
		return false;
	memset(&pkt->hdr, 0, sizeof(pkt->hdr));
	pkt->hdr.gso_type = VIRTIO_NET_HDR_GSO_NONE;
	if (ixgbe_rx_csum_ok(staterr))
		pkt->hdr.flags = VIRTIO_NET_HDR_F_DATA_VALID;
	pkt->len = len;
	pkt->count = 1;
	pkt->segment[0].data = rx->buf + (size_t)i * IXGBE_BUF_SIZE;
	pkt->segment[0].len = len;
	net_packet_snapshot(pkt);
	nic->stats[q].rx_packets++;
	nic->stats[q].rx_bytes += len;
	fn(ctx, pkt);
	return true;
}

/*
 * §7.1.6.2, §7.1.9: takes frames whose descriptors have DD, in ring order,
 * puts each descriptor back with its own buffer, and gives them all back
 * to the NIC with one RDT write. A frame that spans descriptors (the
 * buffers are sized for the MTU, so it is too long) or that carries a MAC
 * error is dropped and counted.
 */
static unsigned int ixgbe_rx_burst(struct nic *nic, unsigned int q, nic_rx_fn fn, void *ctx,
				   unsigned int budget)
{
	struct ixgbe_priv *p = nic->priv;
	struct ixgbe_rxq *rx;
	unsigned int frames = 0, seen = 0;
	uint32_t i;

	if (!p || q >= nic->queues)
		return 0;
	rx = &p->rx[q];
	i = rx->next;
	/* At most one lap, however the write-backs look. */
	while (frames < budget && seen < IXGBE_RX_RING_SIZE) {
		/* One read of status, errors and length; the rest of the descriptor after it. */
		uint64_t wb = __atomic_load_n(&rx->desc[i].hdr_addr, __ATOMIC_ACQUIRE);
		uint32_t staterr = (uint32_t)wb;
		uint32_t len = (uint32_t)(wb >> IXGBE_RXWB_LEN_SHIFT) & 0xffff;

		if (!(staterr & IXGBE_RXWB_STAT_DD))
			break;
		seen++;
		if (!(staterr & IXGBE_RXWB_STAT_EOP)) {
			rx->discarding = true;
		} else if (rx->discarding) {
			rx->discarding = false;
			nic->stats[q].rx_drops++;
		} else if (ixgbe_rx_deliver(nic, q, rx, i, staterr, len, fn, ctx)) {
			frames++;
		} else {
			nic->stats[q].rx_drops++;
		}
		ixgbe_rx_arm(rx, i);
		i = (i + 1) % IXGBE_RX_RING_SIZE;
	}
	if (seen) {
		rx->next = i;
		/* Descriptors before the write; the one before next stays back. */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		nic_write(nic, IXGBE_RDT(IXGBE_HW_QUEUE(q)),
			  (i + IXGBE_RX_RING_SIZE - 1) % IXGBE_RX_RING_SIZE);
	}
	/*
	 * Caught up with the NIC: add the frames it dropped for want of
	 * descriptors (QPRDC, counter q by RQSMR). Off the busy path, where a
	 * register read would cost more than the frames.
	 */
	if (frames < budget)
		nic->stats[q].rx_drops += nic_read(nic, IXGBE_QPRDC(q));
	return frames;
}

/* ---- transmit --------------------------------------------------------- */

/* How one frame goes out: the context and data descriptor fields. */
struct ixgbe_tx_plan {
	bool context;			/* a context descriptor comes first */
	uint32_t vlan_macip_lens;
	uint32_t type_tucmd;
	uint32_t mss_l4len;
	uint32_t dcmd;			/* TSE or nothing */
	uint32_t olinfo;		/* PAYLEN, POPTS, CC */
	uint32_t segments;		/* frames on the wire */
	uint32_t wire_bytes;
	bool sw_csum;			/* checksum at csum_start/csum_offset in software */
	uint8_t hdr[IXGBE_TX_HDR_MAX];	/* the frame's first bytes, as decided on */
	uint32_t hdr_len;		/* bytes of hdr that replace the frame's */
};

/* What the NIC is told of a frame's headers, from net_headers_parse(). */
struct ixgbe_hdrs {
	uint32_t maclen;		/* Ethernet header, with an 802.1Q tag */
	uint32_t iplen;			/* 0: not an IP header the NIC is told of */
	bool ipv4;
	bool fragment;
	uint8_t proto;			/* IPv4 protocol, IPv6 next header */
	uint32_t l4len;			/* TCP header with options; 0 for others */
};

/*
 * The NIC is asked to offload only what the driver is checked on against
 * the model (docs/nic.md): IPv4 with options, or IPv6 without extension
 * headers (whose TSO pseudo-header sw_csum_pseudo() could not seed), behind
 * at most one tag. Anything else gets no context descriptor: its checksum
 * is done here, and GSO is refused.
 */
static void ixgbe_parse(const uint8_t *buf, uint32_t len, struct ixgbe_hdrs *out)
{
	struct net_headers h;

	net_headers_parse(&h, buf, len);
	memset(out, 0, sizeof(*out));
	out->maclen = h.l3;
	if (h.l3_kind == NET_L3_NONE || !h.l4 || h.ipv6_ext || h.tags > 1)
		return;
	out->ipv4 = h.l3_kind == NET_L3_IPV4;
	out->iplen = h.l4 - h.l3;
	out->proto = h.proto;
	out->fragment = h.fragment;
	if (h.proto == IPPROTO_TCP)
		out->l4len = h.l4_len;
}

/*
 * §7.2.4 TCP segmentation: the NIC cuts the payload into MSS pieces, each
 * with the headers, fixing IPv4 total length, ID and header checksum (with
 * IXSM), IPv6 payload length, TCP sequence number and flags, and the TCP
 * checksum (TXSM), which it starts from the pseudo-header sum without the
 * length that the driver puts in the checksum field (§7.2.4.x).
 */
static bool ixgbe_plan_tso(const struct net_packet *pkt, const struct ixgbe_hdrs *hd,
			   struct ixgbe_tx_plan *plan)
{
	uint8_t gso = pkt->hdr.gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
	uint32_t mss = pkt->hdr.gso_size;
	uint32_t hdr_len = hd->maclen + hd->iplen + hd->l4len;
	uint32_t paylen;
	uint8_t *ip = plan->hdr + hd->maclen;

	if (gso != (hd->ipv4 ? VIRTIO_NET_HDR_GSO_TCPV4 : VIRTIO_NET_HDR_GSO_TCPV6))
		return false;
	if (!hd->iplen || hd->fragment || hd->proto != IPPROTO_TCP || !hd->l4len)
		return false;
	/* Each segment an IP packet within the MTU. */
	if (mss == 0 || hd->iplen + hd->l4len + mss > NET_MTU || pkt->len <= hdr_len)
		return false;
	paylen = pkt->len - hdr_len;
	if (paylen > IXGBE_TXD_PAYLEN_MAX)
		return false;

	net_put_be16(plan->hdr + hd->maclen + hd->iplen + 16,
		 sw_csum_fold(sw_csum_pseudo(ip, !hd->ipv4, 0)));
	/*
	 * §7.2.5: with IXSM the NIC adds what the IPv4 checksum field holds
	 * into the sum it writes there, so the field starts at 0, as in every
	 * Intel driver; the guest's own checksum would spoil every segment's.
	 */
	if (hd->ipv4)
		net_put_be16(ip + 10, 0);

	plan->context = true;
	plan->vlan_macip_lens = hd->iplen | hd->maclen << IXGBE_TXCTX_MACLEN_SHIFT;
	plan->type_tucmd = IXGBE_TXD_DTYP_CTXT | IXGBE_TXD_DCMD_DEXT | IXGBE_TXCTX_TUCMD_L4T_TCP |
			   (hd->ipv4 ? IXGBE_TXCTX_TUCMD_IPV4 : 0);
	plan->mss_l4len = mss << IXGBE_TXCTX_MSS_SHIFT | hd->l4len << IXGBE_TXCTX_L4LEN_SHIFT;
	plan->dcmd = IXGBE_TXD_DCMD_TSE;
	plan->olinfo = paylen << IXGBE_TXD_PAYLEN_SHIFT | IXGBE_TXD_CC | IXGBE_TXD_POPTS_TXSM |
		       (hd->ipv4 ? IXGBE_TXD_POPTS_IXSM : 0);
	plan->segments = (paylen + mss - 1) / mss;
	plan->wire_bytes = pkt->len + (plan->segments - 1) * hdr_len;
	return true;
}

/*
 * §7.2.5 checksum offload: the NIC sums from MACLEN + IPLEN to the end of
 * the frame into the TCP or UDP checksum field, seeded with what the field
 * holds, which virtio says is the pseudo-header sum. Anything else virtio
 * may ask for (another start or offset, IPv6 extension headers, a
 * fragment) is summed here, in the driver's copy.
 */
static bool ixgbe_plan_csum(const struct net_packet *pkt, const struct ixgbe_hdrs *hd,
			    struct ixgbe_tx_plan *plan)
{
	uint32_t start = pkt->hdr.csum_start, offset = pkt->hdr.csum_offset;
	uint32_t l4 = hd->maclen + hd->iplen;

	if (start + offset + 2 > pkt->len)
		return false;
	if (hd->iplen && !hd->fragment && start == l4 &&
	    ((hd->proto == IPPROTO_TCP && offset == 16) ||
	     (hd->proto == IPPROTO_UDP && offset == 6))) {
		plan->context = true;
		plan->vlan_macip_lens = hd->iplen | hd->maclen << IXGBE_TXCTX_MACLEN_SHIFT;
		plan->type_tucmd = IXGBE_TXD_DTYP_CTXT | IXGBE_TXD_DCMD_DEXT |
				   (hd->proto == IPPROTO_TCP ? IXGBE_TXCTX_TUCMD_L4T_TCP :
								IXGBE_TXCTX_TUCMD_L4T_UDP) |
				   (hd->ipv4 ? IXGBE_TXCTX_TUCMD_IPV4 : 0);
		plan->olinfo |= IXGBE_TXD_CC | IXGBE_TXD_POPTS_TXSM;
	} else {
		plan->sw_csum = true;
	}
	return true;
}

/* Decides how the frame goes out, from one copy of its headers. */
static bool ixgbe_plan(const struct net_packet *pkt, struct ixgbe_tx_plan *plan)
{
	struct ixgbe_hdrs hd;
	uint8_t gso = pkt->hdr.gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;

	memset(plan, 0, offsetof(struct ixgbe_tx_plan, hdr));
	if (pkt->len < ETH_HLEN || pkt->len > NET_FRAME_MAX)
		return false;
	plan->hdr_len = pkt->len < IXGBE_TX_HDR_MAX ? pkt->len : IXGBE_TX_HDR_MAX;
	if (net_packet_read(pkt, 0, plan->hdr, plan->hdr_len) != plan->hdr_len)
		return false;
	plan->segments = 1;
	plan->wire_bytes = pkt->len;
	/* ixgbe_tx_fill() pads a frame shorter than the NIC takes. */
	plan->olinfo = (pkt->len < IXGBE_TX_MIN_LEN ? IXGBE_TX_MIN_LEN : pkt->len)
		       << IXGBE_TXD_PAYLEN_SHIFT;

	ixgbe_parse(plan->hdr, plan->hdr_len, &hd);
	if (gso != VIRTIO_NET_HDR_GSO_NONE)
		/* Only TCP is segmented by the 82599; UFO and USO are refused. */
		return ixgbe_plan_tso(pkt, &hd, plan);
	if (pkt->len > IXGBE_FRAME_MAX)
		return false;
	if (pkt->hdr.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
		return ixgbe_plan_csum(pkt, &hd, plan);
	return true;
}

/*
 * Reclaims descriptors of frames the NIC is done with: DD written back in
 * the last descriptor of each (§7.2.3.5.x, RS set there only).
 */
static void ixgbe_tx_reclaim(struct ixgbe_txq *tx)
{
	while (tx->clean != tx->tail) {
		uint32_t eop = tx->eop[tx->clean];

		if (!(__atomic_load_n(&tx->desc[eop].olinfo_status, __ATOMIC_ACQUIRE) &
		      IXGBE_TXD_STA_DD))
			break;
		tx->clean = (eop + 1) % IXGBE_TX_RING_SIZE;
	}
}

static uint32_t ixgbe_tx_free(const struct ixgbe_txq *tx)
{
	uint32_t used = (tx->tail + IXGBE_TX_RING_SIZE - tx->clean) % IXGBE_TX_RING_SIZE;

	return IXGBE_TX_RING_SIZE - 1 - used;
}

static void ixgbe_tx_write(struct ixgbe_txq *tx, uint32_t slot, uint64_t lo, uint64_t hi)
{
	uint64_t *d = (uint64_t *)&tx->desc[slot];

	__atomic_store_n(&d[0], lo, __ATOMIC_RELAXED);
	__atomic_store_n(&d[1], hi, __ATOMIC_RELAXED);
}

/*
 * Copies the frame into the buffers of the descriptors from @slot on, the
 * headers from the plan's copy, and writes their data descriptors (§7.2.3.2.4).
 * Returns the last slot, or -1 if the packet's segments hold fewer bytes
 * than its length says.
 */
static int ixgbe_tx_fill(struct ixgbe_txq *tx, uint32_t slot, const struct net_packet *pkt,
			 const struct ixgbe_tx_plan *plan)
{
	uint32_t nbuf = (pkt->len + IXGBE_BUF_SIZE - 1) / IXGBE_BUF_SIZE;

	for (uint32_t k = 0; k < nbuf; k++, slot = (slot + 1) % IXGBE_TX_RING_SIZE) {
		uint32_t off = k * IXGBE_BUF_SIZE;
		uint32_t n = pkt->len - off < IXGBE_BUF_SIZE ? pkt->len - off : IXGBE_BUF_SIZE;
		uint8_t *buf = tx->buf + (size_t)slot * IXGBE_BUF_SIZE;
		uint32_t cmd = IXGBE_TXD_DTYP_DATA | IXGBE_TXD_DCMD_DEXT | IXGBE_TXD_DCMD_IFCS |
			       plan->dcmd;

		if (net_packet_read(pkt, off, buf, n) != n)
			return -1;
		/*
		 * The NIC must not be handed fewer than IXGBE_TX_MIN_LEN bytes
		 * (Intel's drivers pad to it); TXPADEN pads the rest to 64.
		 */
		if (pkt->len < IXGBE_TX_MIN_LEN) {
			memset(buf + n, 0, IXGBE_TX_MIN_LEN - n);
			n = IXGBE_TX_MIN_LEN;
		}
		cmd |= n;
		if (k == 0) {
			/* The headers the plan was made from, not a second read. */
			memcpy(buf, plan->hdr, plan->hdr_len);
			/* The checksum virtio asked for, over the frame in one buffer. */
			if (plan->sw_csum)
				sw_csum_complete(buf + pkt->hdr.csum_start, n - pkt->hdr.csum_start,
						 buf + pkt->hdr.csum_start + pkt->hdr.csum_offset);
		}
		if (k == nbuf - 1)
			cmd |= IXGBE_TXD_DCMD_EOP | IXGBE_TXD_DCMD_RS;
		ixgbe_tx_write(tx, slot, tx->buf_bus + (uint64_t)slot * IXGBE_BUF_SIZE,
			       (uint64_t)plan->olinfo << 32 | cmd);
	}
	return (int)((slot + IXGBE_TX_RING_SIZE - 1) % IXGBE_TX_RING_SIZE);
}

/*
 * Queues one frame: reclaim, plan, copy; ixgbe_tx_commit() moves TDT. The
 * sender's buffers are not touched after this returns.
 */
static bool ixgbe_tx(struct nic *nic, unsigned int q, const struct net_packet *pkt)
{
	struct ixgbe_priv *p = nic->priv;
	struct nic_queue_stats *st;
	struct ixgbe_tx_plan plan;
	struct ixgbe_txq *tx;
	uint32_t need, slot;
	int last;

	if (!p || q >= nic->queues)
		return false;
	tx = &p->tx[q];
	st = &nic->stats[q];
	ixgbe_tx_reclaim(tx);
	if (!ixgbe_plan(pkt, &plan)) {
		st->tx_drops++;
		return false;
	}
	need = (pkt->len + IXGBE_BUF_SIZE - 1) / IXGBE_BUF_SIZE + (plan.context ? 1 : 0);
	if (ixgbe_tx_free(tx) < need) {
		st->ring_full++;
		return false;
	}

	slot = tx->tail;
	if (plan.context) {
		/* §7.2.3.2.3, context slot 0 of the queue: each frame brings its own. */
		ixgbe_tx_write(tx, slot, (uint64_t)plan.vlan_macip_lens,
			       (uint64_t)plan.mss_l4len << 32 | plan.type_tucmd);
		slot = (slot + 1) % IXGBE_TX_RING_SIZE;
	}
	last = ixgbe_tx_fill(tx, slot, pkt, &plan);
	if (last < 0) {
		/* Nothing was handed to the NIC: tail has not moved. */
		st->tx_drops++;
		return false;
	}
	tx->eop[tx->tail] = (uint16_t)last;
	tx->tail = ((uint32_t)last + 1) % IXGBE_TX_RING_SIZE;
	st->tx_packets += plan.segments;
	st->tx_bytes += plan.wire_bytes;
	return true;
}

/*
 * §8.2.3.9.9: the NIC owns the descriptors from TDH up to TDT; one write
 * hands it every frame queued since the last.
 */
static void ixgbe_tx_commit(struct nic *nic, unsigned int q)
{
	struct ixgbe_priv *p = nic->priv;
	struct ixgbe_txq *tx;

	if (!p || q >= nic->queues)
		return;
	tx = &p->tx[q];
	/*
	 * The watchdog found the queue hung: started again from an empty ring.
	 * The frames it held are lost, as on a link loss; they were counted
	 * sent when queued.
	 */
	if (__atomic_load_n(&p->tx_reset[q], __ATOMIC_ACQUIRE)) {
		unsigned int hwq = IXGBE_HW_QUEUE(q);

		__atomic_store_n(&p->tx_reset[q], false, __ATOMIC_RELAXED);
		nic_write(nic, IXGBE_TXDCTL(hwq), 0);
		(void)nic_wait(nic, IXGBE_TXDCTL(hwq), IXGBE_TXDCTL_ENABLE, 0, IXGBE_QUEUE_WAIT_US);
		(void)ixgbe_tx_queue_start(nic, tx, hwq);
		__atomic_store_n(&p->tx_hang_resets[q], p->tx_hang_resets[q] + 1, __ATOMIC_RELAXED);
		return;
	}
	if (tx->committed == tx->tail)
		return;
	/* Descriptors and buffers before the doorbell (§7.2.3.5). */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	nic_write(nic, IXGBE_TDT(IXGBE_HW_QUEUE(q)), tx->tail);
	tx->committed = tx->tail;
}

const struct nic_ops ixgbe_ops = {
	.name = "ixgbe",
	.init = ixgbe_init,
	.link = ixgbe_link,
	.rx_burst = ixgbe_rx_burst,
	.tx = ixgbe_tx,
	.commit = ixgbe_tx_commit,
	.add_mac = ixgbe_add_mac,
};
