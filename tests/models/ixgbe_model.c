/* SPDX-License-Identifier: MIT */
/*
 * ixgbe_model.c - the 82599 as the driver sees it, from the datasheet
 * (ixgbe_model.h says what is modelled). Section numbers are the 82599
 * datasheet's.
 *
 * The model is synchronous: DMA happens inside the register write or the
 * test call that causes it, and time moves only when the driver delays or
 * the test advances it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/net/ixgbe_regs.h"
#include "tests/models/ixgbe_model.h"
#include "tests/models/model_net.h"

#define MODEL_BUS_BASE		0x200000000ull
#define MODEL_DMA_TAGS		64	/* allocations whose queue pair is remembered */
#define MODEL_RAR_MAX_DEFAULT	1518	/* MAXFRS.MFS reset value, with the FCS */
#define ETH_ZLEN_		60	/* shortest frame without FCS (TXPADEN pads to it) */
#define FCS_LEN			4

struct model_queue {
	bool enabled;
	bool enabling;
	bool frozen;		/* transmit: hung by a link loss until disabled */
	uint64_t enable_at;
};

/* Where a transfer on the module's I2C bus stands. */
enum model_i2c_phase {
	I2C_IDLE,		/* waiting for a START */
	I2C_TAKE,		/* shifting in a byte from the driver */
	I2C_ACK,		/* the module pulls SDA low for one clock */
	I2C_GIVE,		/* shifting out a byte of the module's EEPROM */
	I2C_MASTER_ACK,		/* the driver acks (more) or not (done) */
};

struct model_i2c {
	bool scl, sda;		/* what the driver drives */
	bool module_sda;	/* what the module drives: false pulls the line low */
	enum model_i2c_phase phase;
	unsigned int bits;
	uint8_t shift;
	unsigned int bytes;	/* bytes since the START */
	bool reading;
	bool more;		/* the driver acked the last byte it read */
	uint8_t offset;
};

struct model_ctx {
	bool valid;
	uint32_t vlan_macip_lens;
	uint32_t type_tucmd;
	uint32_t mss_l4len;
};

struct model_wire_entry {
	uint8_t *data;
	uint32_t len;
	bool fcs;
	unsigned int queue;
};

struct ixgbe_model {
	uint32_t reg[IXGBE_BAR0_SIZE / 4];
	uint64_t now;
	uint8_t mac[ETH_ALEN];

	bool in_reset;
	uint64_t reset_done_at;
	bool eeprom_pending, dmainit_pending;
	uint64_t eeprom_at, dmainit_at;

	bool cable;
	bool an_started;
	uint64_t link_at;
	bool was_up;
	unsigned int link_misses;
	uint16_t device;
	enum ixgbe_model_module module;
	uint64_t fw_busy_until;
	struct model_i2c i2c;

	struct model_queue rxq[IXGBE_MODEL_QUEUES], txq[IXGBE_MODEL_QUEUES];
	struct model_ctx ctx[IXGBE_MODEL_QUEUES][2];
	bool tx_paused;
	bool in_tx;

	/* Wider than their registers: the 36-bit octet counters. */
	uint64_t gorc, gotc;

	uint8_t *arena;
	size_t arena_size, arena_used;
	/* Which queue pair each allocation was asked for (nic_io.dma_alloc). */
	struct model_dma_tag {
		uint64_t bus, bytes;
		int queue;
	} dma_tag[MODEL_DMA_TAGS];
	unsigned int dma_tags;

	struct model_wire_entry *wire;
	unsigned int wire_head, wire_count, wire_cap;

	uint8_t *scratch;	/* a frame gathered from transmit buffers */

	unsigned int errors;
	char first_error[200];
	char last_error[200];
	struct ixgbe_model_faults faults;
	struct ixgbe_model_stats stats;
};

/* ---- small helpers ---------------------------------------------------- */

static void model_error(struct ixgbe_model *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void model_error(struct ixgbe_model *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->last_error, sizeof(m->last_error), fmt, ap);
	va_end(ap);
	if (m->errors++ == 0)
		memcpy(m->first_error, m->last_error, sizeof(m->first_error));
}

static uint32_t *r(struct ixgbe_model *m, uint32_t offset)
{
	return &m->reg[offset / 4];
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint64_t ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void st64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

void *ixgbe_model_dma(struct ixgbe_model *m, uint64_t bus, size_t len)
{
	if (bus < MODEL_BUS_BASE || bus - MODEL_BUS_BASE > m->arena_used ||
	    len > m->arena_used - (bus - MODEL_BUS_BASE))
		return NULL;
	return m->arena + (bus - MODEL_BUS_BASE);
}

/* DMA the model does on its own account: outside the arena is the driver's bug. */
static uint8_t *model_dma(struct ixgbe_model *m, uint64_t bus, size_t len, const char *what)
{
	uint8_t *p = ixgbe_model_dma(m, bus, len);

	if (!p)
		model_error(m, "%s: DMA to 0x%llx+%zu outside the memory handed out", what,
			    (unsigned long long)bus, len);
	return p;
}

/* ---- reset, time, link -------------------------------------------------- */

/* The parts whose media is an SFP+ cage, by device ID (the rest are backplane, CX4 or BASE-T). */
static bool model_media_sfp(uint16_t device)
{
	static const uint16_t sfp[] = { 0x10fb, 0x1507, 0x1529, 0x154d, 0x1557 };

	for (unsigned int i = 0; i < sizeof(sfp) / sizeof(sfp[0]); i++)
		if (sfp[i] == device)
			return true;
	return false;
}

static bool model_module_optical(enum ixgbe_model_module mod)
{
	return mod == IXGBE_MODULE_SR_INTEL || mod == IXGBE_MODULE_SR_OTHER ||
	       mod == IXGBE_MODULE_LR;
}

/*
 * The link registers as the NVM loads them on reset: an SFP+ part's
 * AUTOC2 selects SFI but with a link-disable bit set, as a LOM's NVM may
 * leave it; the other parts come up in their own modes (KX4/KX).
 */
static void model_nvm_link(struct ixgbe_model *m)
{
	if (model_media_sfp(m->device)) {
		*r(m, IXGBE_AUTOC) = IXGBE_AUTOC_LMS_10G_SERIAL;
		*r(m, IXGBE_AUTOC2) = IXGBE_AUTOC2_PMA_PMD_SFI | (2u << 28);
	} else {
		*r(m, IXGBE_AUTOC) = 6u << 13;
		*r(m, IXGBE_AUTOC2) = 0;
	}
}

/* One byte of the module's EEPROM at I2C address 0xa0 (SFF-8472 layout). */
static uint8_t model_sfp_byte(const struct ixgbe_model *m, uint8_t offset)
{
	bool intel = m->module == IXGBE_MODULE_SR_INTEL;

	switch (offset) {
	case 0:
		return 0x03;	/* identifier: SFP/SFP+ */
	case 3:		/* 10G Ethernet compliance: SR, LR */
		return m->module == IXGBE_MODULE_LR ? 0x20 :
		       model_module_optical(m->module) ? 0x10 : 0;
	case 6:		/* 1G Ethernet compliance: 1000BASE-SX for the dual-rate one */
		return intel ? 0x01 : 0;
	case 8:		/* cable technology: passive direct attach */
		return m->module == IXGBE_MODULE_DAC ? 0x04 : 0;
	case 38:	/* vendor OUI, bytes 37-39 */
		return intel ? 0x1b : 0x90;
	case 39:
		return intel ? 0x21 : 0x65;
	}
	return 0;
}

/* §4.6.3.2: every register back to its reset value, all state forgotten. */
static void model_reset(struct ixgbe_model *m)
{
	/* The SDP pins hold their levels across a reset. */
	uint32_t esdp = *r(m, IXGBE_ESDP);

	memset(m->reg, 0, sizeof(m->reg));
	memset(m->rxq, 0, sizeof(m->rxq));
	memset(m->txq, 0, sizeof(m->txq));
	memset(m->ctx, 0, sizeof(m->ctx));
	m->gorc = m->gotc = 0;
	m->an_started = false;
	for (unsigned int q = 0; q < IXGBE_MODEL_QUEUES; q++)
		*r(m, IXGBE_SRRCTL(q)) = 2u | 4u << 8;	/* 2 KiB buffers, the reset value */
	*r(m, IXGBE_MAXFRS) = MODEL_RAR_MAX_DEFAULT << IXGBE_MAXFRS_MFS_SHIFT;
	/* Relaxed ordering on, as Intel's drivers find and clear it. */
	for (unsigned int q = 0; q < IXGBE_MODEL_QUEUES; q++) {
		*r(m, IXGBE_DCA_RXCTRL(q)) = IXGBE_DCA_RXCTRL_BIT12 | IXGBE_DCA_RXCTRL_DATA_WRO |
					     IXGBE_DCA_RXCTRL_HEAD_WRO;
		*r(m, IXGBE_DCA_TXCTRL(q)) = IXGBE_DCA_TXCTRL_DESC_WRO;
	}
	model_nvm_link(m);
	*r(m, IXGBE_ESDP) = esdp;
	m->in_reset = true;
	m->reset_done_at = m->now + IXGBE_MODEL_RESET_US;
	*r(m, IXGBE_CTRL) = IXGBE_CTRL_RST;
	m->eeprom_pending = m->dmainit_pending = true;
	m->eeprom_at = m->reset_done_at + IXGBE_MODEL_EEPROM_US;
	m->dmainit_at = m->reset_done_at + IXGBE_MODEL_DMAINIT_US;
}

static void model_link_watch(struct ixgbe_model *m);

/* Whatever model time has made happen by now. */
static void model_tick(struct ixgbe_model *m)
{
	if (m->in_reset && m->now >= m->reset_done_at) {
		m->in_reset = false;
		*r(m, IXGBE_CTRL) &= ~(IXGBE_CTRL_RST | IXGBE_CTRL_LRST);
	}
	if (!m->in_reset && m->eeprom_pending && m->now >= m->eeprom_at) {
		/* The EEPROM's MAC address lands in RAR entry 0, valid. */
		m->eeprom_pending = false;
		*r(m, IXGBE_EEC) |= IXGBE_EEC_ARD;
		*r(m, IXGBE_RAL(0)) = (uint32_t)m->mac[0] | (uint32_t)m->mac[1] << 8 |
				      (uint32_t)m->mac[2] << 16 | (uint32_t)m->mac[3] << 24;
		*r(m, IXGBE_RAH(0)) = (uint32_t)m->mac[4] | (uint32_t)m->mac[5] << 8 | IXGBE_RAH_AV;
	}
	if (!m->in_reset && m->dmainit_pending && m->now >= m->dmainit_at) {
		m->dmainit_pending = false;
		*r(m, IXGBE_RDRXCTL) |= IXGBE_RDRXCTL_DMAIDONE;
	}
	for (unsigned int q = 0; q < IXGBE_MODEL_QUEUES; q++) {
		struct model_queue *mq[2] = { &m->rxq[q], &m->txq[q] };

		for (unsigned int k = 0; k < 2; k++) {
			if (mq[k]->enabling && m->now >= mq[k]->enable_at) {
				mq[k]->enabling = false;
				mq[k]->enabled = true;
			}
		}
	}
	model_link_watch(m);
}

/*
 * What the link needs besides a cable and time: an SFP+ part set to 10 Gb/s
 * serial over SFI, no link-disable bit, a module, and for optics the laser
 * on (SDP3 driven low) and a dual-rate module's rate select high (SDP5).
 */
static bool model_port_ready(struct ixgbe_model *m)
{
	uint32_t autoc2 = *r(m, IXGBE_AUTOC2), esdp = *r(m, IXGBE_ESDP);

	if (!model_media_sfp(m->device) || m->module == IXGBE_MODULE_NONE)
		return false;
	if ((*r(m, IXGBE_AUTOC) & IXGBE_AUTOC_LMS_MASK) != IXGBE_AUTOC_LMS_10G_SERIAL ||
	    (autoc2 & IXGBE_AUTOC2_PMA_PMD_MASK) != IXGBE_AUTOC2_PMA_PMD_SFI ||
	    (autoc2 & IXGBE_AUTOC2_LINK_DISABLE_MASK))
		return false;
	if (model_module_optical(m->module) &&
	    (!(esdp & IXGBE_ESDP_SDP3_DIR) || (esdp & IXGBE_ESDP_SDP3)))
		return false;
	if (m->module == IXGBE_MODULE_SR_INTEL &&
	    (!(esdp & IXGBE_ESDP_SDP5_DIR) || !(esdp & IXGBE_ESDP_SDP5)))
		return false;
	return true;
}

static bool model_link_up(struct ixgbe_model *m)
{
	return !m->in_reset && m->cable && m->an_started && m->now >= m->link_at &&
	       model_port_ready(m);
}

/* A transmit queue that had work when the link went away hangs there. */
static void model_link_watch(struct ixgbe_model *m)
{
	bool up = model_link_up(m);

	if (m->was_up && !up)
		for (unsigned int q = 0; q < IXGBE_MODEL_QUEUES; q++)
			if (m->txq[q].enabled && *r(m, IXGBE_TDH(q)) != *r(m, IXGBE_TDT(q)))
				m->txq[q].frozen = true;
	m->was_up = up;
}

/* §8.2.3.22.20: link state and the speed the link mode in AUTOC runs at. */
static uint32_t model_links(struct ixgbe_model *m)
{
	uint32_t lms = *r(m, IXGBE_AUTOC) & IXGBE_AUTOC_LMS_MASK;
	uint32_t speed = IXGBE_LINKS_SPEED_10G;

	if (!model_link_up(m))
		return 0;
	/* LMS 0 (1G, no AN), 2 (1G AN) and 5 (SGMII) are the 1 Gb/s modes. */
	if (lms == 0u << 13 || lms == 2u << 13 || lms == 5u << 13)
		speed = IXGBE_LINKS_SPEED_1G;
	return IXGBE_LINKS_UP | speed;
}

void ixgbe_model_advance(struct ixgbe_model *m, unsigned int us)
{
	bool was_up = model_link_up(m);

	m->now += us;
	model_tick(m);
	/* Frames queued while the link was down leave once it is up. */
	if (!was_up && model_link_up(m) && !m->tx_paused)
		ixgbe_model_step(m);
}

void ixgbe_model_set_cable(struct ixgbe_model *m, bool in)
{
	if (in && !m->cable)
		m->link_at = m->now + IXGBE_MODEL_LINK_US;
	m->cable = in;
	model_link_watch(m);
	if (in)
		ixgbe_model_step(m);
}

void ixgbe_model_set_port(struct ixgbe_model *m, uint16_t device, enum ixgbe_model_module module)
{
	m->device = device;
	m->module = module;
	model_link_watch(m);
}

void ixgbe_model_set_link_misses(struct ixgbe_model *m, unsigned int misses)
{
	m->link_misses = misses;
}

void ixgbe_model_set_fw_busy(struct ixgbe_model *m, unsigned int us)
{
	m->fw_busy_until = m->now + us;
}

/* ---- the module's I2C bus ------------------------------------------------ */

/* The module puts bit 7 - bits of the byte it sends on SDA. */
static void model_i2c_give_bit(struct ixgbe_model *m)
{
	struct model_i2c *b = &m->i2c;

	b->module_sda = (b->shift >> (7 - b->bits)) & 1;
}

/* The next EEPROM byte, its first bit on SDA. */
static void model_i2c_give_byte(struct ixgbe_model *m)
{
	struct model_i2c *b = &m->i2c;

	b->bits = 0;
	b->shift = model_sfp_byte(m, b->offset++);
	b->phase = I2C_GIVE;
	model_i2c_give_bit(m);
}

/* A byte from the driver is in: the address (0xa0/0xa1) or the EEPROM offset. */
static void model_i2c_took(struct ixgbe_model *m)
{
	struct model_i2c *b = &m->i2c;

	if (b->bytes++ == 0) {
		if ((b->shift & 0xfe) != 0xa0 || m->module == IXGBE_MODULE_NONE) {
			b->phase = I2C_IDLE;	/* nobody acks */
			return;
		}
		b->reading = b->shift & 1;
	} else {
		b->offset = b->shift;
	}
	b->module_sda = false;
	b->phase = I2C_ACK;
}

/*
 * One write of I2CCTL: SDA falling with SCL high is a START, rising a STOP;
 * bits are taken on SCL's rising edge and the module changes SDA after its
 * falling edge (the I2C bus specification's timing, at the model's pace).
 */
static void model_i2c_write(struct ixgbe_model *m, uint32_t v)
{
	struct model_i2c *b = &m->i2c;
	bool scl = v & IXGBE_I2C_CLK_OUT, sda = v & IXGBE_I2C_DATA_OUT;

	if (b->scl && scl && b->sda != sda) {
		b->phase = sda ? I2C_IDLE : I2C_TAKE;
		b->bits = b->bytes = 0;
		b->shift = 0;
		b->module_sda = true;
	} else if (!b->scl && scl) {
		if (b->phase == I2C_TAKE) {
			b->shift = (uint8_t)(b->shift << 1 | sda);
			b->bits++;
		} else if (b->phase == I2C_MASTER_ACK) {
			b->more = !sda;
		}
	} else if (b->scl && !scl) {
		switch (b->phase) {
		case I2C_TAKE:
			if (b->bits == 8)
				model_i2c_took(m);
			break;
		case I2C_ACK:
			b->module_sda = true;
			if (b->reading) {
				model_i2c_give_byte(m);
			} else {
				b->bits = 0;
				b->shift = 0;
				b->phase = I2C_TAKE;
			}
			break;
		case I2C_GIVE:
			if (++b->bits == 8) {
				b->module_sda = true;
				b->phase = I2C_MASTER_ACK;
			} else {
				model_i2c_give_bit(m);
			}
			break;
		case I2C_MASTER_ACK:
			if (b->more)
				model_i2c_give_byte(m);
			else
				b->phase = I2C_IDLE;
			break;
		case I2C_IDLE:
			break;
		}
	}
	b->scl = scl;
	b->sda = sda;
}

static uint32_t model_i2c_read(const struct ixgbe_model *m)
{
	const struct model_i2c *b = &m->i2c;

	return (b->scl ? IXGBE_I2C_CLK_IN : 0) | (b->sda && b->module_sda ? IXGBE_I2C_DATA_IN : 0) |
	       (b->scl ? IXGBE_I2C_CLK_OUT : 0) | (b->sda ? IXGBE_I2C_DATA_OUT : 0);
}

/* ---- registers -------------------------------------------------------- */

static bool model_is_clear_on_read(uint32_t off)
{
	static const uint32_t regs[] = {
		IXGBE_CRCERRS, IXGBE_RLEC, IXGBE_GPRC, IXGBE_BPRC, IXGBE_MPRC, IXGBE_GPTC,
		IXGBE_TPR, IXGBE_TPT,
	};

	for (unsigned int i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (off == regs[i])
			return true;
	if (off >= IXGBE_MPC(0) && off <= IXGBE_MPC(7))
		return true;
	for (unsigned int i = 0; i < IXGBE_STAT_COUNTERS; i++)
		if (off == IXGBE_QPRC(i) || off == IXGBE_QPRDC(i))
			return true;
	return false;
}

/* Which of a queue-indexed block of registers @off is, or -1. */
static int model_queue_reg(uint32_t off, uint32_t base0)
{
	if (off < base0 || off >= base0 + 0x40 * IXGBE_MODEL_QUEUES || (off - base0) % 0x40)
		return -1;
	return (int)((off - base0) / 0x40);
}

static uint32_t model_read(void *ctx, uint32_t off)
{
	struct ixgbe_model *m = ctx;
	uint32_t v;
	int q;

	model_tick(m);
	if (off % 4 || off >= IXGBE_BAR0_SIZE) {
		model_error(m, "read of 0x%x: not a register", off);
		return 0xffffffffu;
	}
	/* §4.6.3.2: nothing but polling CTRL until the reset is over. */
	if (m->in_reset && off != IXGBE_CTRL)
		model_error(m, "read of 0x%x during reset", off);

	switch (off) {
	case IXGBE_LINKS:
		return model_links(m);
	case IXGBE_I2CCTL:
		return model_i2c_read(m);
	case IXGBE_SWSM:
		/* Reading SMBI takes it: the reader owns it if it read 0. */
		v = *r(m, off);
		*r(m, off) |= IXGBE_SWSM_SMBI;
		return v;
	case IXGBE_SW_FW_SYNC:
		return *r(m, off) | (m->now < m->fw_busy_until ? IXGBE_SW_FW_SYNC_FW_MAC : 0);
	case IXGBE_SECRXSTAT:
		return *r(m, IXGBE_SECRXCTRL) & IXGBE_SECRXCTRL_RX_DIS ? IXGBE_SECRXSTAT_SECRX_RDY : 0;
	case IXGBE_GORCL:
		return (uint32_t)m->gorc;
	case IXGBE_GORCH:
		v = (uint32_t)(m->gorc >> 32) & 0xf;
		m->gorc = 0;
		return v;
	case IXGBE_GOTCL:
		return (uint32_t)m->gotc;
	case IXGBE_GOTCH:
		v = (uint32_t)(m->gotc >> 32) & 0xf;
		m->gotc = 0;
		return v;
	}
	v = *r(m, off);
	if ((q = model_queue_reg(off, IXGBE_RXDCTL(0))) >= 0)
		return (v & ~IXGBE_RXDCTL_ENABLE) | (m->rxq[q].enabled ? IXGBE_RXDCTL_ENABLE : 0);
	if ((q = model_queue_reg(off, IXGBE_TXDCTL(0))) >= 0)
		return (v & ~IXGBE_TXDCTL_ENABLE) | (m->txq[q].enabled ? IXGBE_TXDCTL_ENABLE : 0);
	if (model_is_clear_on_read(off))
		*r(m, off) = 0;
	return v;
}

static uint32_t model_ring_size(struct ixgbe_model *m, uint32_t rdlen_reg)
{
	return *r(m, rdlen_reg) / 16;
}

/* §4.6.7.1: a receive queue comes up with a valid ring only. */
static void model_rxdctl(struct ixgbe_model *m, unsigned int q, uint32_t v)
{
	uint32_t len = *r(m, IXGBE_RDLEN(q));

	*r(m, IXGBE_RXDCTL(q)) = v & ~IXGBE_RXDCTL_ENABLE;
	if (!(v & IXGBE_RXDCTL_ENABLE)) {
		m->rxq[q].enabled = m->rxq[q].enabling = false;
		return;
	}
	if (m->rxq[q].enabled || m->rxq[q].enabling)
		return;
	if (len == 0 || len % 128 || *r(m, IXGBE_RDBAL(q)) % 128) {
		model_error(m, "RXDCTL(%u).ENABLE with RDLEN %u, RDBAL 0x%x", q, len,
			    *r(m, IXGBE_RDBAL(q)));
		return;
	}
	if (*r(m, IXGBE_DCA_RXCTRL(q)) & (IXGBE_DCA_RXCTRL_DATA_WRO | IXGBE_DCA_RXCTRL_HEAD_WRO))
		model_error(m, "RXDCTL(%u).ENABLE with relaxed ordering on (DCA_RXCTRL 0x%x)", q,
			    *r(m, IXGBE_DCA_RXCTRL(q)));
	m->rxq[q].enabling = true;
	m->rxq[q].enable_at = m->now + IXGBE_MODEL_QUEUE_US;
}

/* §4.6.8: DMATXCTL.TE first, and a valid ring. */
static void model_txdctl(struct ixgbe_model *m, unsigned int q, uint32_t v)
{
	uint32_t len = *r(m, IXGBE_TDLEN(q));

	*r(m, IXGBE_TXDCTL(q)) = v & ~IXGBE_TXDCTL_ENABLE;
	if (!(v & IXGBE_TXDCTL_ENABLE)) {
		m->txq[q].enabled = m->txq[q].enabling = m->txq[q].frozen = false;
		return;
	}
	if (m->txq[q].enabled || m->txq[q].enabling)
		return;
	if (!(*r(m, IXGBE_DMATXCTL) & IXGBE_DMATXCTL_TE)) {
		model_error(m, "TXDCTL(%u).ENABLE before DMATXCTL.TE", q);
		return;
	}
	if (len == 0 || len % 128 || *r(m, IXGBE_TDBAL(q)) % 128) {
		model_error(m, "TXDCTL(%u).ENABLE with TDLEN %u, TDBAL 0x%x", q, len,
			    *r(m, IXGBE_TDBAL(q)));
		return;
	}
	if (*r(m, IXGBE_DCA_TXCTRL(q)) & IXGBE_DCA_TXCTRL_DESC_WRO)
		model_error(m, "TXDCTL(%u).ENABLE with relaxed ordering on (DCA_TXCTRL 0x%x)", q,
			    *r(m, IXGBE_DCA_TXCTRL(q)));
	m->txq[q].enabling = true;
	m->txq[q].enable_at = m->now + IXGBE_MODEL_QUEUE_US;
}

static void model_tx_queue(struct ixgbe_model *m, unsigned int q);

static void model_write(void *ctx, uint32_t off, uint32_t v)
{
	struct ixgbe_model *m = ctx;
	int q;

	model_tick(m);
	if (off % 4 || off >= IXGBE_BAR0_SIZE) {
		model_error(m, "write of 0x%x to 0x%x: not a register", v, off);
		return;
	}
	if (m->in_reset) {
		model_error(m, "write of 0x%x to 0x%x during reset", v, off);
		return;
	}

	switch (off) {
	case IXGBE_CTRL:
		if (v & (IXGBE_CTRL_RST | IXGBE_CTRL_LRST)) {
			model_reset(m);
			*r(m, IXGBE_CTRL) = v & (IXGBE_CTRL_RST | IXGBE_CTRL_LRST);
			return;
		}
		break;
	case IXGBE_STATUS:
	case IXGBE_LINKS:
	case IXGBE_EEC:
	case IXGBE_SECRXSTAT:
		return;	/* read-only here */
	case IXGBE_I2CCTL:
		model_i2c_write(m, v);
		return;
	case IXGBE_SWSM:
		v &= IXGBE_SWSM_SMBI | IXGBE_SWSM_SWESMBI;
		break;
	case IXGBE_SW_FW_SYNC:
		if (!(*r(m, IXGBE_SWSM) & IXGBE_SWSM_SWESMBI))
			model_error(m, "SW_FW_SYNC written without holding SWSM.SWESMBI");
		if ((v & IXGBE_SW_FW_SYNC_SW_MAC) && !(*r(m, off) & IXGBE_SW_FW_SYNC_SW_MAC) &&
		    m->now < m->fw_busy_until)
			model_error(m, "SW_FW_SYNC: the MAC's registers taken from the firmware");
		v &= 0x1fu;	/* the firmware's bits are its own */
		break;
	case IXGBE_RXCTRL:
		if ((v & IXGBE_RXCTRL_RXEN) && !(*r(m, off) & IXGBE_RXCTRL_RXEN) &&
		    !(*r(m, IXGBE_SECRXCTRL) & IXGBE_SECRXCTRL_RX_DIS))
			model_error(m, "RXEN set with the security receive path on (82599 erratum)");
		break;
	case IXGBE_EIMS:
		*r(m, IXGBE_EIMS) |= v;
		return;
	case IXGBE_EIMC:
		*r(m, IXGBE_EIMS) &= ~v;
		return;
	case IXGBE_RDRXCTL:
		/* DMAIDONE is the NIC's to set. */
		v = (v & ~IXGBE_RDRXCTL_DMAIDONE) | (*r(m, off) & IXGBE_RDRXCTL_DMAIDONE);
		break;
	case IXGBE_AUTOC:
		/* §10.5: the MAC's link registers are shared with the firmware. */
		if (!(*r(m, IXGBE_SW_FW_SYNC) & IXGBE_SW_FW_SYNC_SW_MAC))
			model_error(m, "AUTOC written without SW_FW_SYNC");
		/* §8.2.3.22.19: restart AN self-clears; the link follows later. */
		if (v & IXGBE_AUTOC_AN_RESTART) {
			m->an_started = true;
			m->link_at = m->now + IXGBE_MODEL_LINK_US;
			if (m->link_misses) {
				m->link_misses--;
				m->link_at = UINT64_MAX;
			}
			v &= ~IXGBE_AUTOC_AN_RESTART;
		}
		break;
	case IXGBE_MTQC:
		/* §8.2.3.9.15: only with the transmit arbiter disabled. */
		if (!(*r(m, IXGBE_RTTDCS) & IXGBE_RTTDCS_ARBDIS))
			model_error(m, "MTQC written with RTTDCS.ARBDIS clear");
		break;
	}
	if ((q = model_queue_reg(off, IXGBE_RXDCTL(0))) >= 0) {
		model_rxdctl(m, (unsigned int)q, v);
		return;
	}
	if ((q = model_queue_reg(off, IXGBE_TXDCTL(0))) >= 0) {
		model_txdctl(m, (unsigned int)q, v);
		return;
	}
	if ((q = model_queue_reg(off, IXGBE_RDT(0))) >= 0 && v &&
	    v >= model_ring_size(m, IXGBE_RDLEN(q)))
		model_error(m, "RDT(%d) = %u beyond the ring", q, v);
	*r(m, off) = v;
	model_link_watch(m);
	if ((q = model_queue_reg(off, IXGBE_TDT(0))) >= 0) {
		m->stats.tdt_writes[q]++;
		if (v && v >= model_ring_size(m, IXGBE_TDLEN(q)))
			model_error(m, "TDT(%d) = %u beyond the ring", q, v);
		else if (!m->tx_paused)
			model_tx_queue(m, (unsigned int)q);
	}
}

uint32_t ixgbe_model_peek(struct ixgbe_model *m, uint32_t offset)
{
	int q;

	if (offset % 4 || offset >= IXGBE_BAR0_SIZE)
		return 0;
	if (offset == IXGBE_LINKS)
		return model_links(m);
	if (offset == IXGBE_I2CCTL)
		return model_i2c_read(m);
	if ((q = model_queue_reg(offset, IXGBE_RXDCTL(0))) >= 0)
		return *r(m, offset) | (m->rxq[q].enabled ? IXGBE_RXDCTL_ENABLE : 0);
	if ((q = model_queue_reg(offset, IXGBE_TXDCTL(0))) >= 0)
		return *r(m, offset) | (m->txq[q].enabled ? IXGBE_TXDCTL_ENABLE : 0);
	return *r(m, offset);
}

/* ---- DMA memory, time ------------------------------------------------- */

static void *model_dma_alloc(void *ctx, int queue, size_t bytes, size_t align, uint64_t *bus)
{
	struct ixgbe_model *m = ctx;
	size_t start;

	if (align == 0 || (align & (align - 1)))
		return NULL;
	start = (m->arena_used + align - 1) & ~(align - 1);
	if (start > m->arena_size || bytes > m->arena_size - start)
		return NULL;
	m->arena_used = start + bytes;
	*bus = MODEL_BUS_BASE + start;
	if (m->dma_tags < MODEL_DMA_TAGS)
		m->dma_tag[m->dma_tags++] = (struct model_dma_tag){ *bus, bytes, queue };
	return m->arena + start;
}

int ixgbe_model_dma_queue(const struct ixgbe_model *m, uint64_t bus)
{
	for (unsigned int i = 0; i < m->dma_tags; i++)
		if (bus >= m->dma_tag[i].bus && bus - m->dma_tag[i].bus < m->dma_tag[i].bytes)
			return m->dma_tag[i].queue;
	return IXGBE_MODEL_DMA_UNKNOWN;
}

static void model_delay(void *ctx, unsigned int us)
{
	ixgbe_model_advance(ctx, us);
}

struct nic_io ixgbe_model_io(struct ixgbe_model *m)
{
	return (struct nic_io){
		.read32 = model_read,
		.write32 = model_write,
		.dma_alloc = model_dma_alloc,
		.delay_us = model_delay,
		.ctx = m,
	};
}

/* ---- statistics helpers ------------------------------------------------ */

/* §8.2.3.8.x RQSMR / TQSM: the statistics counter a queue counts in. */
static unsigned int model_rx_counter(struct ixgbe_model *m, unsigned int q)
{
	return (*r(m, IXGBE_RQSMR(q / 4)) >> (8 * (q % 4))) & 0xf;
}

static void model_count(struct ixgbe_model *m, uint32_t reg)
{
	(*r(m, reg))++;
}

/* ---- transmit ---------------------------------------------------------- */

static void model_wire_put(struct ixgbe_model *m, unsigned int q, const uint8_t *data,
			   uint32_t len, bool fcs)
{
	struct model_wire_entry *e;
	uint32_t padded = len;

	/* §8.2.3.22.8 TXPADEN: short frames padded with zeros to 64 bytes with the FCS. */
	if (len < ETH_ZLEN_ && (*r(m, IXGBE_HLREG0) & IXGBE_HLREG0_TXPADEN))
		padded = ETH_ZLEN_;
	if (padded > IXGBE_MODEL_WIRE_MAX) {
		model_error(m, "queue %u: a %u-byte frame on the wire", q, padded);
		return;
	}
	if (m->wire_count == m->wire_cap) {
		unsigned int cap = m->wire_cap ? 2 * m->wire_cap : 256;
		struct model_wire_entry *w = calloc(cap, sizeof(*w));

		if (!w)
			abort();
		for (unsigned int i = 0; i < m->wire_count; i++)
			w[i] = m->wire[(m->wire_head + i) % m->wire_cap];
		free(m->wire);
		m->wire = w;
		m->wire_cap = cap;
		m->wire_head = 0;
	}
	e = &m->wire[(m->wire_head + m->wire_count) % m->wire_cap];
	e->data = calloc(1, padded);
	if (!e->data)
		abort();
	memcpy(e->data, data, len);
	e->len = padded;
	e->fcs = fcs;
	e->queue = q;
	m->wire_count++;
	m->stats.tx_frames++;
	model_count(m, IXGBE_GPTC);
	model_count(m, IXGBE_TPT);
	m->gotc += padded + FCS_LEN;
}

/*
 * §7.2.5: the NIC sums the header as it finds it, checksum field included,
 * so a field not zeroed first ends up in every checksum it writes.
 */
static void model_ipv4_csum(uint8_t *ip, uint32_t iplen)
{
	wr16(ip + 10, (uint16_t)~model_net_sum(0, ip, iplen));
}

/*
 * §7.2.4: one frame's worth of headers and payload, cut into MSS-sized
 * segments. The checksum field holds the pseudo-header sum without the
 * length; the NIC adds each segment's TCP length.
 */
static void model_tso(struct ixgbe_model *m, unsigned int q, const uint8_t *f, uint32_t len,
		      const struct model_ctx *c, uint32_t paylen, uint32_t popts, bool fcs)
{
	uint32_t iplen = c->vlan_macip_lens & 0x1ff;
	uint32_t maclen = (c->vlan_macip_lens >> IXGBE_TXCTX_MACLEN_SHIFT) & 0x7f;
	uint32_t l4len = (c->mss_l4len >> IXGBE_TXCTX_L4LEN_SHIFT) & 0xff;
	uint32_t mss = c->mss_l4len >> IXGBE_TXCTX_MSS_SHIFT;
	uint32_t hlen = maclen + iplen + l4len;
	bool ipv4 = c->type_tucmd & IXGBE_TXCTX_TUCMD_IPV4;
	uint8_t seg[IXGBE_MODEL_WIRE_MAX];
	uint32_t tcp = maclen + iplen;
	uint16_t seed;

	if ((c->type_tucmd & IXGBE_TXCTX_TUCMD_L4T_MASK) != IXGBE_TXCTX_TUCMD_L4T_TCP ||
	    !(popts & IXGBE_TXD_POPTS_TXSM) || mss == 0 || l4len < 20 || iplen < 20) {
		model_error(m, "queue %u: TSO needs TCP, TXSM, MSS and lengths (ctx %08x %08x %08x)",
			    q, c->vlan_macip_lens, c->type_tucmd, c->mss_l4len);
		return;
	}
	if (hlen >= len || len - hlen != paylen || hlen + mss > sizeof(seg)) {
		model_error(m, "queue %u: TSO of %u bytes, headers %u, PAYLEN %u, MSS %u", q, len,
			    hlen, paylen, mss);
		return;
	}
	if (ipv4 && (popts & IXGBE_TXD_POPTS_IXSM) && be16(f + maclen + 10))
		model_error(m, "queue %u: TSO with IXSM and an IPv4 checksum field of 0x%04x, not 0",
			    q, be16(f + maclen + 10));
	seed = be16(f + tcp + 16);
	for (uint32_t off = 0, k = 0; off < paylen; off += mss, k++) {
		uint32_t n = paylen - off < mss ? paylen - off : mss;
		uint8_t *th = seg + tcp;

		memcpy(seg, f, hlen);
		memcpy(seg + hlen, f + hlen + off, n);
		/* Default DTXTCPFLGL/H: FIN and PSH only in the last segment. */
		model_net_tso_headers(seg, hlen + n, maclen, ipv4, tcp, true, k, off, off + n == paylen);
		if (ipv4 && (popts & IXGBE_TXD_POPTS_IXSM))
			model_ipv4_csum(seg + maclen, iplen);
		wr16(th + 16, 0);
		wr16(th + 16, (uint16_t)~model_net_sum((uint32_t)seed + l4len + n, th, l4len + n));
		model_wire_put(m, q, seg, hlen + n, fcs);
	}
}

/* §7.2.5: checksums of a frame sent whole. */
static void model_csum(struct ixgbe_model *m, unsigned int q, uint8_t *f, uint32_t len,
		       const struct model_ctx *c, uint32_t popts)
{
	uint32_t iplen = c->vlan_macip_lens & 0x1ff;
	uint32_t maclen = (c->vlan_macip_lens >> IXGBE_TXCTX_MACLEN_SHIFT) & 0x7f;
	uint32_t l4 = maclen + iplen;

	if ((popts & IXGBE_TXD_POPTS_IXSM) && (c->type_tucmd & IXGBE_TXCTX_TUCMD_IPV4)) {
		if (l4 > len || iplen < 20) {
			model_error(m, "queue %u: IXSM with MACLEN %u IPLEN %u", q, maclen, iplen);
			return;
		}
		model_ipv4_csum(f + maclen, iplen);
	}
	if (popts & IXGBE_TXD_POPTS_TXSM) {
		uint32_t l4t = c->type_tucmd & IXGBE_TXCTX_TUCMD_L4T_MASK;
		uint32_t field = l4t == IXGBE_TXCTX_TUCMD_L4T_TCP ? 16 : 6;
		uint16_t sum;

		if (l4t != IXGBE_TXCTX_TUCMD_L4T_TCP && l4t != IXGBE_TXCTX_TUCMD_L4T_UDP) {
			model_error(m, "queue %u: TXSM for L4T %u", q, l4t >> 11);
			return;
		}
		if (l4 + field + 2 > len) {
			model_error(m, "queue %u: TXSM past the frame (L4 at %u of %u)", q, l4, len);
			return;
		}
		/* The field holds the pseudo-header sum; the NIC sums it in with the rest. */
		sum = (uint16_t)~model_net_sum(0, f + l4, len - l4);
		if (l4t == IXGBE_TXCTX_TUCMD_L4T_UDP && sum == 0)
			sum = 0xffff;
		wr16(f + l4 + field, sum);
	}
}

/* Sends the frame gathered from descriptors [first, eop]. */
static void model_tx_frame(struct ixgbe_model *m, unsigned int q, uint32_t len, uint32_t cmd,
			   uint32_t olinfo)
{
	uint32_t popts = olinfo & (IXGBE_TXD_POPTS_IXSM | IXGBE_TXD_POPTS_TXSM);
	uint32_t paylen = olinfo >> IXGBE_TXD_PAYLEN_SHIFT;
	bool fcs = (cmd & IXGBE_TXD_DCMD_IFCS) && (*r(m, IXGBE_HLREG0) & IXGBE_HLREG0_TXCRCEN);
	const struct model_ctx *c = NULL;

	if (len < IXGBE_TX_MIN_LEN) {
		model_error(m, "queue %u: a %u-byte frame, under the %u the NIC takes", q, len,
			    IXGBE_TX_MIN_LEN);
		return;
	}
	if (olinfo & IXGBE_TXD_CC) {
		c = &m->ctx[q][(olinfo >> IXGBE_TXD_IDX_SHIFT) & 1];
		if (!c->valid) {
			model_error(m, "queue %u: CC names a context never written", q);
			return;
		}
	}
	if (cmd & IXGBE_TXD_DCMD_TSE) {
		if (!c) {
			model_error(m, "queue %u: TSE without CC", q);
			return;
		}
		model_tso(m, q, m->scratch, len, c, paylen, popts, fcs);
		return;
	}
	if (paylen != len) {
		model_error(m, "queue %u: PAYLEN %u for a %u-byte frame", q, paylen, len);
		return;
	}
	if (popts) {
		if (!c) {
			model_error(m, "queue %u: POPTS 0x%x without CC", q, popts);
			return;
		}
		model_csum(m, q, m->scratch, len, c, popts);
	}
	model_wire_put(m, q, m->scratch, len, fcs);
}

/*
 * §7.2.3: descriptors from TDH up to TDT, a frame at a time; a frame whose
 * EOP is not yet before TDT waits for more.
 */
static void model_tx_queue(struct ixgbe_model *m, unsigned int q)
{
	uint32_t size = model_ring_size(m, IXGBE_TDLEN(q));
	uint64_t base = (uint64_t)*r(m, IXGBE_TDBAH(q)) << 32 | *r(m, IXGBE_TDBAL(q));
	uint32_t pool = q / IXGBE_QUEUES_PER_POOL;

	if (!m->txq[q].enabled || m->txq[q].frozen || !(*r(m, IXGBE_DMATXCTL) & IXGBE_DMATXCTL_TE) ||
	    size == 0 || !model_link_up(m) || m->in_tx)
		return;
	if ((*r(m, IXGBE_MTQC) & IXGBE_MTQC_VT_ENA) &&
	    !(*r(m, IXGBE_PFVFTE(pool / 32)) & (1u << (pool % 32)))) {
		model_error(m, "queue %u: transmit in pool %u, which PFVFTE does not enable", q, pool);
		return;
	}
	m->in_tx = true;
	for (;;) {
		uint32_t head = *r(m, IXGBE_TDH(q)), tail = *r(m, IXGBE_TDT(q));
		uint32_t i = head, len = 0, first_cmd = 0, first_olinfo = 0;
		bool have_data = false, eop = false;

		if (head >= size || tail >= size) {
			model_error(m, "queue %u: TDH %u / TDT %u beyond %u descriptors", q, head, tail,
				    size);
			break;
		}
		while (i != tail && !eop) {
			uint8_t *d = model_dma(m, base + 16ull * i, 16, "tx descriptor");
			uint64_t lo, hi;
			uint32_t cmd, dtyp;

			if (!d)
				goto out;
			lo = ld64(d);
			hi = ld64(d + 8);
			cmd = (uint32_t)hi;
			dtyp = cmd & IXGBE_TXD_DTYP_MASK;
			if (!(cmd & IXGBE_TXD_DCMD_DEXT) ||
			    (dtyp != IXGBE_TXD_DTYP_CTXT && dtyp != IXGBE_TXD_DTYP_DATA)) {
				model_error(m, "queue %u: descriptor %u is not an advanced one (0x%x)", q,
					    i, cmd);
				goto out;
			}
			if (dtyp == IXGBE_TXD_DTYP_CTXT) {
				/* §7.2.3.2.3: context slot IDX of this queue. */
				uint32_t mss_l4len = (uint32_t)(hi >> 32);
				struct model_ctx *c = &m->ctx[q][(mss_l4len >> IXGBE_TXCTX_IDX_SHIFT) & 1];

				if (have_data) {
					model_error(m, "queue %u: context descriptor inside a frame", q);
					goto out;
				}
				c->valid = true;
				c->vlan_macip_lens = (uint32_t)lo;
				c->type_tucmd = cmd;
				c->mss_l4len = mss_l4len;
			} else {
				uint32_t n = cmd & IXGBE_TXD_DTALEN_MASK;
				uint8_t *buf = model_dma(m, lo, n, "tx buffer");

				if (!buf)
					goto out;
				if (!have_data) {
					first_cmd = cmd;
					first_olinfo = (uint32_t)(hi >> 32);
					have_data = true;
				}
				if (len + n > IXGBE_MODEL_TSO_MAX) {
					model_error(m, "queue %u: a frame of more than %u bytes", q,
						    IXGBE_MODEL_TSO_MAX);
					goto out;
				}
				memcpy(m->scratch + len, buf, n);
				len += n;
				eop = cmd & IXGBE_TXD_DCMD_EOP;
			}
			i = (i + 1) % size;
		}
		if (!eop)
			break;	/* the rest of the frame is not there yet */
		model_tx_frame(m, q, len, first_cmd, first_olinfo);
		/* §7.2.3.5.x: DD in every descriptor of the frame that asked with RS. */
		for (uint32_t j = head; j != i; j = (j + 1) % size) {
			uint8_t *d = m->arena + (base - MODEL_BUS_BASE) + 16ull * j;
			uint32_t cmd;

			memcpy(&cmd, d + 8, 4);
			if (cmd & IXGBE_TXD_DCMD_RS) {
				uint32_t sta = IXGBE_TXD_STA_DD;

				memcpy(d + 12, &sta, 4);
			}
			m->stats.tx_descs++;
		}
		*r(m, IXGBE_TDH(q)) = i;
	}
out:
	m->in_tx = false;
}

void ixgbe_model_step(struct ixgbe_model *m)
{
	model_tick(m);
	for (unsigned int q = 0; q < IXGBE_MODEL_QUEUES; q++)
		if (*r(m, IXGBE_TDT(q)) != *r(m, IXGBE_TDH(q)))
			model_tx_queue(m, q);
}

void ixgbe_model_set_tx_paused(struct ixgbe_model *m, bool paused)
{
	m->tx_paused = paused;
	if (!paused)
		ixgbe_model_step(m);
}

/* ---- receive ----------------------------------------------------------- */

/* §7.1.11, §7.1.6.2: what the receive checksum logic reports for a frame. */
static void model_rx_parse(const uint8_t *f, uint32_t len, uint32_t *staterr, uint32_t *pkttype)
{
	uint32_t off = ETH_HLEN, l4len, l4, sum;
	uint16_t type;
	uint8_t proto;
	bool ipv4;

	*staterr = 0;
	*pkttype = 0;
	if (len < ETH_HLEN)
		return;
	type = be16(f + 12);
	if (type == 0x8100 && len >= ETH_HLEN + 4) {
		*staterr |= IXGBE_RXWB_STAT_VP;
		type = be16(f + 16);
		off += 4;
	}
	if (type == 0x0800 && len >= off + 20 && (f[off] >> 4) == 4) {
		uint32_t ihl = (f[off] & 0xfu) * 4u, tot = be16(f + off + 2);

		if (ihl < 20 || len < off + ihl || tot < ihl || off + tot > len)
			return;
		ipv4 = true;
		*pkttype |= IXGBE_RXWB_PKTTYPE_IPV4;
		*staterr |= IXGBE_RXWB_STAT_IPCS;
		if (model_net_sum(0, f + off, ihl) != 0xffff)
			*staterr |= IXGBE_RXWB_ERR_IPE;
		/* No L4 checksum for fragments. */
		if (be16(f + off + 6) & 0x3fff)
			return;
		proto = f[off + 9];
		l4 = off + ihl;
		l4len = tot - ihl;
	} else if (type == 0x86dd && len >= off + 40 && (f[off] >> 4) == 6) {
		uint32_t plen = be16(f + off + 4);

		if (off + 40 + plen > len)
			return;
		ipv4 = false;
		*pkttype |= IXGBE_RXWB_PKTTYPE_IPV6;
		proto = f[off + 6];
		l4 = off + 40;
		l4len = plen;
	} else {
		return;
	}
	if (proto != 6 && proto != 17)
		return;
	if ((proto == 6 && l4len < 20) || (proto == 17 && l4len < 8))
		return;
	*pkttype |= proto == 6 ? IXGBE_RXWB_PKTTYPE_TCP : IXGBE_RXWB_PKTTYPE_UDP;
	/* An IPv4 UDP datagram without checksum has nothing to check. */
	if (proto == 17 && ipv4 && be16(f + l4 + 6) == 0)
		return;
	/* The pseudo-header: addresses (off is still the IP header), protocol, length. */
	sum = model_net_pseudo(f + off, ipv4, proto, l4len);
	*staterr |= IXGBE_RXWB_STAT_L4CS | (proto == 17 ? IXGBE_RXWB_STAT_UDPCS : 0);
	if (model_net_sum(sum, f + l4, l4len) != 0xffff)
		*staterr |= IXGBE_RXWB_ERR_L4E;
}

/* Writes one frame to queue q's next descriptors (§7.1.9), or counts the drop. */
static bool model_rx_queue(struct ixgbe_model *m, unsigned int q, const uint8_t *f, uint32_t len)
{
	uint32_t size = model_ring_size(m, IXGBE_RDLEN(q));
	uint64_t base = (uint64_t)*r(m, IXGBE_RDBAH(q)) << 32 | *r(m, IXGBE_RDBAL(q));
	uint32_t srrctl = *r(m, IXGBE_SRRCTL(q));
	uint32_t bsize = (srrctl & IXGBE_SRRCTL_BSIZEPKT_MASK) * 1024;
	bool strip_hl = *r(m, IXGBE_HLREG0) & IXGBE_HLREG0_RXCRCSTRP;
	bool strip_rd = *r(m, IXGBE_RDRXCTL) & IXGBE_RDRXCTL_CRCSTRIP;
	uint32_t head = *r(m, IXGBE_RDH(q)), tail = *r(m, IXGBE_RDT(q));
	unsigned int counter = model_rx_counter(m, q);
	uint32_t staterr, pkttype, dlen = len, ndesc, avail;
	uint8_t data[IXGBE_MODEL_WIRE_MAX + FCS_LEN];

	if (!m->rxq[q].enabled || size == 0) {
		model_count(m, IXGBE_MPC(0));
		m->stats.rx_no_desc++;
		return false;
	}
	if ((srrctl & IXGBE_SRRCTL_DESCTYPE_MASK) != IXGBE_SRRCTL_DESCTYPE_ADV_ONEBUF || !bsize) {
		model_error(m, "queue %u: SRRCTL 0x%x is not one-buffer advanced", q, srrctl);
		return false;
	}
	if (strip_hl != strip_rd)
		model_error(m, "HLREG0.RXCRCSTRP and RDRXCTL.CRCSTRIP disagree");
	memcpy(data, f, len);
	if (!strip_hl) {
		uint32_t crc = model_net_crc32(f, len);

		memcpy(data + len, &crc, FCS_LEN);
		dlen += FCS_LEN;
	}
	ndesc = (dlen + bsize - 1) / bsize;
	avail = (tail + size - head) % size;
	if (head >= size || avail < ndesc) {
		/* §7.1.? SRRCTL.DROP_EN: dropped for this queue, not held up in the buffer. */
		if (srrctl & IXGBE_SRRCTL_DROP_EN)
			model_count(m, IXGBE_QPRDC(counter));
		else
			model_count(m, IXGBE_MPC(0));
		m->stats.rx_no_desc++;
		return false;
	}
	model_rx_parse(f, len, &staterr, &pkttype);
	for (uint32_t k = 0, off = 0; k < ndesc; k++, off += bsize) {
		uint8_t *d = model_dma(m, base + 16ull * head, 16, "rx descriptor");
		uint32_t n = dlen - off < bsize ? dlen - off : bsize;
		uint32_t st = IXGBE_RXWB_STAT_DD;
		uint32_t wlen = n;
		uint8_t *buf;

		if (!d)
			return false;
		buf = model_dma(m, ld64(d), bsize, "rx buffer");
		if (!buf)
			return false;
		memcpy(buf, data + off, n);
		if (k == ndesc - 1) {
			st |= IXGBE_RXWB_STAT_EOP | staterr | m->faults.rx_errors;
			if (m->faults.rx_len_set)
				wlen = m->faults.rx_len;
			m->faults.rx_errors = 0;
			m->faults.rx_len_set = false;
		}
		/* §7.1.6.2: the first quadword, then the one with DD. */
		st64(d, (uint64_t)(pkttype << IXGBE_RXWB_PKTTYPE_SHIFT));
		st64(d + 8, (uint64_t)st | (uint64_t)(wlen & 0xffff) << IXGBE_RXWB_LEN_SHIFT);
		head = (head + 1) % size;
	}
	*r(m, IXGBE_RDH(q)) = head;
	model_count(m, IXGBE_QPRC(counter));
	m->stats.rx_written++;
	return true;
}

/* §7.1.1.1: the L2 filter; *pools gets the MPSAR bits of matching entries. */
static bool model_l2_filter(struct ixgbe_model *m, const uint8_t *dst, uint64_t *pools,
			    bool *matched)
{
	uint32_t fctrl = *r(m, IXGBE_FCTRL);
	static const uint8_t bcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	*pools = 0;
	*matched = false;
	if (!memcmp(dst, bcast, ETH_ALEN))
		return fctrl & IXGBE_FCTRL_BAM;
	if (dst[0] & 1)
		return fctrl & IXGBE_FCTRL_MPE;	/* the multicast table is not modelled */
	for (unsigned int i = 0; i < IXGBE_RAR_ENTRIES; i++) {
		uint32_t lo = *r(m, IXGBE_RAL(i)), hi = *r(m, IXGBE_RAH(i));
		uint8_t mac[ETH_ALEN] = { (uint8_t)lo, (uint8_t)(lo >> 8), (uint8_t)(lo >> 16),
					  (uint8_t)(lo >> 24), (uint8_t)hi, (uint8_t)(hi >> 8) };

		if ((hi & IXGBE_RAH_AV) && !memcmp(mac, dst, ETH_ALEN)) {
			*matched = true;
			*pools |= (uint64_t)*r(m, IXGBE_MPSAR_HI(i)) << 32 | *r(m, IXGBE_MPSAR_LO(i));
		}
	}
	return *matched || (fctrl & IXGBE_FCTRL_UPE);
}

/* §7.10.3.2: the pools a frame that passed the L2 filter goes to. */
static uint64_t model_pools(struct ixgbe_model *m, const uint8_t *f, uint64_t mac_pools)
{
	uint32_t vt = *r(m, IXGBE_PFVTCTL);
	uint64_t enabled = (uint64_t)*r(m, IXGBE_PFVFRE(1)) << 32 | *r(m, IXGBE_PFVFRE(0));
	unsigned int def = (vt & IXGBE_PFVTCTL_DEF_PL_MASK) >> IXGBE_PFVTCTL_DEF_PL_SHIFT;
	bool tagged = be16(f + 12) == 0x8100;
	bool group = f[0] & 1;
	bool bcast = group && f[1] == 0xff && f[2] == 0xff && f[3] == 0xff && f[4] == 0xff &&
		     f[5] == 0xff && f[0] == 0xff;
	uint64_t pools = 0;

	if (group) {
		if (vt & IXGBE_PFVTCTL_RPL_EN) {
			for (unsigned int p = 0; p < IXGBE_POOLS; p++) {
				uint32_t l2 = *r(m, IXGBE_PFVML2FLT(p));

				if (l2 & (bcast ? IXGBE_PFVML2FLT_BAM : IXGBE_PFVML2FLT_MPE))
					pools |= 1ull << p;
			}
		} else if (!(vt & IXGBE_PFVTCTL_DIS_DEF_PL)) {
			pools = 1ull << def;
		}
	} else {
		pools = mac_pools;
		if (!pools && !(vt & IXGBE_PFVTCTL_DIS_DEF_PL))
			pools = 1ull << def;
	}
	/* PFVML2FLT.AUPE: a pool takes untagged frames only if it says so. */
	if (!tagged)
		for (unsigned int p = 0; p < IXGBE_POOLS; p++)
			if (!(*r(m, IXGBE_PFVML2FLT(p)) & IXGBE_PFVML2FLT_AUPE))
				pools &= ~(1ull << p);
	pools &= enabled;
	/* Without replication a frame goes to one pool, the lowest. */
	if (!(vt & IXGBE_PFVTCTL_RPL_EN) && pools)
		pools &= -pools;
	return pools;
}

unsigned int ixgbe_model_receive(struct ixgbe_model *m, const void *frame, uint32_t len)
{
	const uint8_t *f = frame;
	uint32_t max = *r(m, IXGBE_MAXFRS) >> IXGBE_MAXFRS_MFS_SHIFT;
	uint64_t mac_pools, pools;
	unsigned int written = 0;
	bool matched;

	model_tick(m);
	if (!model_link_up(m) || !(*r(m, IXGBE_RXCTRL) & IXGBE_RXCTRL_RXEN) ||
	    (*r(m, IXGBE_SECRXCTRL) & IXGBE_SECRXCTRL_RX_DIS)) {
		m->stats.rx_not_ready++;
		return 0;
	}
	model_count(m, IXGBE_TPR);
	/* §8.2.3.22.13: longer than MFS (1518, 4 more tagged) without JUMBOEN is a length error. */
	if (!(*r(m, IXGBE_HLREG0) & IXGBE_HLREG0_JUMBOEN))
		max = MODEL_RAR_MAX_DEFAULT;
	if (len >= 16 && be16(f + 12) == 0x8100)
		max += 4;
	if (len < ETH_HLEN || len + FCS_LEN > max || len > IXGBE_MODEL_WIRE_MAX) {
		model_count(m, IXGBE_RLEC);
		return 0;
	}
	/* §8.2.3.7 FCTRL: pause frames (MAC control, opcode 1) pass unless DPF, other control frames only with PMCF. */
	if (be16(f + 12) == 0x8808 &&
	    !(len >= ETH_HLEN + 2 && be16(f + ETH_HLEN) == 0x0001 ?
	      !(*r(m, IXGBE_FCTRL) & IXGBE_FCTRL_DPF) : (*r(m, IXGBE_FCTRL) & IXGBE_FCTRL_PMCF))) {
		m->stats.rx_filtered++;
		return 0;
	}
	if (!model_l2_filter(m, f, &mac_pools, &matched)) {
		m->stats.rx_filtered++;
		return 0;
	}
	if ((*r(m, IXGBE_PFVTCTL) & IXGBE_PFVTCTL_VT_ENA) &&
	    (*r(m, IXGBE_MRQC) & IXGBE_MRQC_MRQE_MASK) == IXGBE_MRQC_VMDQ64)
		pools = model_pools(m, f, mac_pools);
	else
		pools = 1;	/* no VMDq: everything to queue 0 (RSS not modelled) */
	if (!pools) {
		m->stats.rx_filtered++;
		return 0;
	}
	model_count(m, IXGBE_GPRC);
	m->gorc += len + FCS_LEN;
	if (f[0] & 1)
		model_count(m, f[0] == 0xff && f[1] == 0xff ? IXGBE_BPRC : IXGBE_MPRC);
	for (unsigned int p = 0; p < IXGBE_POOLS; p++)
		if ((pools >> p & 1) && model_rx_queue(m, p * IXGBE_QUEUES_PER_POOL, f, len))
			written++;
	return written;
}

/* ---- the test's side --------------------------------------------------- */

struct ixgbe_model *ixgbe_model_create(const uint8_t mac[ETH_ALEN], size_t arena_bytes)
{
	struct ixgbe_model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	arena_bytes = (arena_bytes + 4095) & ~(size_t)4095;
	m->arena = aligned_alloc(4096, arena_bytes);
	m->scratch = malloc(IXGBE_MODEL_TSO_MAX);
	if (!m->arena || !m->scratch) {
		ixgbe_model_destroy(m);
		return NULL;
	}
	memset(m->arena, 0, arena_bytes);
	m->arena_size = arena_bytes;
	memcpy(m->mac, mac, ETH_ALEN);
	m->cable = true;
	m->device = 0x10fb;
	m->module = IXGBE_MODULE_DAC;
	/* The laser off, as Linux leaves it when it shuts the port down. */
	*r(m, IXGBE_ESDP) = IXGBE_ESDP_SDP3_DIR | IXGBE_ESDP_SDP3;
	m->i2c.scl = m->i2c.sda = m->i2c.module_sda = true;
	/* Powered up: the power-on reset is long over, the EEPROM read. */
	model_reset(m);
	m->now = m->eeprom_at > m->dmainit_at ? m->eeprom_at : m->dmainit_at;
	model_tick(m);
	return m;
}

void ixgbe_model_destroy(struct ixgbe_model *m)
{
	if (!m)
		return;
	for (unsigned int i = 0; i < m->wire_count; i++)
		free(m->wire[(m->wire_head + i) % m->wire_cap].data);
	free(m->wire);
	free(m->scratch);
	free(m->arena);
	free(m);
}

unsigned int ixgbe_model_finish(struct ixgbe_model *m, char *first, size_t size)
{
	unsigned int errors = m->errors;

	snprintf(first, size, "%s", m->first_error);
	ixgbe_model_destroy(m);
	return errors;
}

unsigned int ixgbe_model_wire_count(const struct ixgbe_model *m)
{
	return m->wire_count;
}

bool ixgbe_model_wire_pop(struct ixgbe_model *m, struct ixgbe_model_frame *out)
{
	struct model_wire_entry *e;

	if (!m->wire_count)
		return false;
	e = &m->wire[m->wire_head];
	memcpy(out->data, e->data, e->len);
	out->len = e->len;
	out->fcs = e->fcs;
	out->queue = e->queue;
	free(e->data);
	e->data = NULL;
	m->wire_head = (m->wire_head + 1) % m->wire_cap;
	m->wire_count--;
	return true;
}

void ixgbe_model_set_faults(struct ixgbe_model *m, const struct ixgbe_model_faults *faults)
{
	m->faults = *faults;
}

struct ixgbe_model_stats ixgbe_model_stats(const struct ixgbe_model *m)
{
	return m->stats;
}

unsigned int ixgbe_model_errors(const struct ixgbe_model *m, const char **first)
{
	if (first)
		*first = m->first_error;
	return m->errors;
}

const char *ixgbe_model_last_error(const struct ixgbe_model *m)
{
	return m->last_error;
}
