/* SPDX-License-Identifier: MIT */
/* e1000_model.c - the 82540EM as the 8254x SDM describes it (e1000_model.h). */
#include <stdlib.h>
#include <string.h>

#include "drivers/net/e1000_regs.h"
#include "tests/models/e1000_model.h"
#include "tests/models/model_net.h"

#define REG(m, off)	((m)->reg[(off) / 4])
#define MIN_FRAME	60	/* without FCS */
#define FCS_LEN		4
#define MAX_FRAME_NO_LPE 1522	/* with FCS and one VLAN tag */

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void *e1000_model_dma(struct e1000_model *m, uint64_t bus, size_t len)
{
	if (bus < E1000_MODEL_BUS_BASE || bus - E1000_MODEL_BUS_BASE > m->mem_used ||
	    len > m->mem_used - (bus - E1000_MODEL_BUS_BASE)) {
		m->dma_errors++;
		return NULL;
	}
	return m->mem + (bus - E1000_MODEL_BUS_BASE);
}

/* --- reset, link, EEPROM ----------------------------------------------------- */

static bool link_up(const struct e1000_model *m)
{
	return m->cable && REG(m, E1000_CTRL) & E1000_CTRL_SLU && m->now_us >= m->link_at_us;
}

static void update_status(struct e1000_model *m)
{
	uint32_t status = REG(m, E1000_STATUS) & ~(E1000_STATUS_LU | E1000_STATUS_FD |
						    E1000_STATUS_SPEED_MASK);

	if (link_up(m))
		status |= E1000_STATUS_LU | E1000_STATUS_FD | 2u << E1000_STATUS_SPEED_SHIFT;
	REG(m, E1000_STATUS) = status;
}

/* §14 (reset): a global reset puts every register back; RAR0 comes from the EEPROM. */
static void model_reset(struct e1000_model *m)
{
	memset(m->reg, 0, sizeof(m->reg));
	memset(&m->ctx, 0, sizeof(m->ctx));
	m->tx_len = 0;
	m->tx_popts = 0;
	m->tx_bad = false;
	REG(m, E1000_CTRL) = E1000_CTRL_FD | E1000_CTRL_ASDE;
	if (m->rar0_from_eeprom) {
		REG(m, E1000_RAL(0)) = m->eeprom[0] | (uint32_t)m->eeprom[1] << 16;
		REG(m, E1000_RAH(0)) = m->eeprom[2] | E1000_RAH_AV;
	}
	m->reset_until_us = m->now_us + E1000_MODEL_RESET_US;
	update_status(m);
}

static uint32_t eerd_read(struct e1000_model *m)
{
	uint32_t v = REG(m, E1000_EERD), addr;

	if (!(v & E1000_EERD_START))
		return v;
	addr = (v >> E1000_EERD_ADDR_SHIFT) & 0xff;
	v &= (1u << E1000_EERD_DATA_SHIFT) - 1;
	v |= E1000_EERD_DONE;
	if (addr < 64)
		v |= (uint32_t)m->eeprom[addr] << E1000_EERD_DATA_SHIFT;
	return v;
}

/* --- receive ------------------------------------------------------------------ */

static uint32_t rx_buffer_size(uint32_t rctl)
{
	static const uint32_t size[4] = { 2048, 1024, 512, 256 };
	uint32_t n = size[(rctl & E1000_RCTL_BSIZE_MASK) >> E1000_RCTL_BSIZE_SHIFT];

	return rctl & E1000_RCTL_BSEX ? n * 16 : n;
}

/* §3.2 (address filtering): exact RAR, broadcast, multicast table, promiscuous. */
static bool rx_accept(const struct e1000_model *m, const uint8_t *dst)
{
	uint32_t rctl = REG(m, E1000_RCTL);
	static const uint8_t bcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	if (rctl & E1000_RCTL_UPE)
		return true;
	if (dst[0] & 1) {
		uint32_t shift = 4 - ((rctl >> E1000_RCTL_MO_SHIFT) & 3);
		uint32_t hash;

		if (memcmp(dst, bcast, ETH_ALEN) == 0)
			return rctl & E1000_RCTL_BAM;
		if (rctl & E1000_RCTL_MPE)
			return true;
		/* MO 0 takes bits 47:36 of the address, the others shift down. */
		hash = ((uint32_t)dst[4] >> shift | (uint32_t)dst[5] << (8 - shift)) & 0xfff;
		if ((rctl >> E1000_RCTL_MO_SHIFT & 3) == 3)
			hash = ((uint32_t)dst[4] | (uint32_t)dst[5] << 8) & 0xfff;
		return REG(m, E1000_MTA(hash >> 5)) >> (hash & 31) & 1;
	}
	for (unsigned int i = 0; i < m->rar_entries; i++) {
		uint32_t lo = REG(m, E1000_RAL(i)), hi = REG(m, E1000_RAH(i));
		const uint8_t ra[ETH_ALEN] = { (uint8_t)lo, (uint8_t)(lo >> 8), (uint8_t)(lo >> 16),
					       (uint8_t)(lo >> 24), (uint8_t)hi, (uint8_t)(hi >> 8) };

		if (hi & E1000_RAH_AV && memcmp(ra, dst, ETH_ALEN) == 0)
			return true;
	}
	return false;
}

/* §3.2 (receive checksum offloading): what the descriptor's status says. */
static void rx_checksum(const struct e1000_model *m, const uint8_t *f, uint32_t len,
			uint8_t *status, uint8_t *errors)
{
	uint32_t rxcsum = REG(m, E1000_RXCSUM), l3 = ETH_HLEN, l4, proto, l4_len, sum;
	uint16_t type;

	if (m->rx_ixsm) {
		*status |= E1000_RXD_STAT_IXSM;
		return;
	}
	if (len < ETH_HLEN + 20)
		return;
	type = rd16(f + 12);
	if (type == 0x8100) {
		l3 += 4;
		type = rd16(f + 16);
	}
	if (type == ETH_P_IP && len >= l3 + 20 && f[l3] >> 4 == 4) {
		uint32_t ihl = (f[l3] & 0xf) * 4u, total = rd16(f + l3 + 2);

		if (ihl < 20 || len < l3 + ihl || total < ihl || len < l3 + total)
			return;
		if (rxcsum & E1000_RXCSUM_IPOFL) {
			*status |= E1000_RXD_STAT_IPCS;
			if (model_net_sum(0, f + l3, ihl) != 0xffff)
				*errors |= E1000_RXD_ERR_IPE;
		}
		if (rd16(f + l3 + 6) & 0x3fff)
			return;		/* fragments are not checked */
		l4 = l3 + ihl;
		proto = f[l3 + 9];
		l4_len = total - ihl;
		sum = model_net_pseudo(f + l3, true, proto, l4_len);
	} else if (type == ETH_P_IPV6 && len >= l3 + 40 && f[l3] >> 4 == 6) {
		l4 = l3 + 40;
		proto = f[l3 + 6];
		l4_len = rd16(f + l3 + 4);
		if (len < l4 + l4_len)
			return;
		sum = model_net_pseudo(f + l3, false, proto, l4_len);
	} else {
		return;
	}
	if (!(rxcsum & E1000_RXCSUM_TUOFL) || (proto != 6 && proto != 17) || l4_len < 8)
		return;
	if (proto == 17 && rd16(f + l4 + 6) == 0)
		return;		/* UDP without a checksum */
	*status |= E1000_RXD_STAT_TCPCS;
	if (model_net_sum(sum, f + l4, l4_len) != 0xffff)
		*errors |= E1000_RXD_ERR_TCPE;
}

/* Descriptors the NIC owns: from RDH up to, not including, RDT (§3.2). */
static uint32_t rx_free(const struct e1000_model *m)
{
	uint32_t count = REG(m, E1000_RDLEN) / 16, h = REG(m, E1000_RDH), t = REG(m, E1000_RDT);

	if (!count || h >= count || t >= count)
		return 0;
	return (t + count - h) % count;
}

bool e1000_model_receive(struct e1000_model *m, const void *frame, uint32_t len)
{
	uint32_t rctl = REG(m, E1000_RCTL), bsize = rx_buffer_size(rctl), total, done = 0;
	uint32_t count = REG(m, E1000_RDLEN) / 16;
	uint64_t ring = (uint64_t)REG(m, E1000_RDBAH) << 32 | REG(m, E1000_RDBAL);
	uint8_t f[MAX_FRAME_NO_LPE + 16384];
	uint8_t status = 0, errors = 0;

	update_status(m);
	if (!(rctl & E1000_RCTL_EN) || !link_up(m) || len < ETH_HLEN || len > 16384)
		return false;
	if (!rx_accept(m, frame)) {
		m->filtered++;
		return false;
	}
	memset(f, 0, MIN_FRAME);
	memcpy(f, frame, len);
	total = len < MIN_FRAME ? MIN_FRAME : len;
	if (!(rctl & E1000_RCTL_SECRC)) {
		/* What the NIC appends when it does not strip it. */
		uint32_t fcs = model_net_crc32(f, total);

		memcpy(f + total, &fcs, FCS_LEN);
		total += FCS_LEN;
	}
	if (!(rctl & E1000_RCTL_LPE) && total > MAX_FRAME_NO_LPE)
		return false;
	if (rx_free(m) < (total + bsize - 1) / bsize) {
		m->missed++;
		REG(m, E1000_MPC)++;
		return false;
	}
	rx_checksum(m, f, len < MIN_FRAME ? MIN_FRAME : len, &status, &errors);
	while (done < total) {
		uint32_t h = REG(m, E1000_RDH), n = total - done < bsize ? total - done : bsize;
		struct e1000_rx_desc *d = e1000_model_dma(m, ring + 16ull * h, 16);
		void *buf = d ? e1000_model_dma(m, d->addr, n) : NULL;

		if (buf)
			memcpy(buf, f + done, n);
		done += n;
		if (d) {
			d->length = m->rx_bad_length ? m->rx_bad_length : (uint16_t)n;
			d->csum = 0;
			d->errors = done == total ? errors : 0;
			d->special = 0;
			d->status = E1000_RXD_STAT_DD | (done == total ? E1000_RXD_STAT_EOP | status : 0);
		}
		REG(m, E1000_RDH) = (h + 1) % count;
	}
	REG(m, E1000_GPRC)++;
	return true;
}

/* --- transmit ----------------------------------------------------------------- */

static void wire_put(struct e1000_model *m, const uint8_t *data, uint32_t len)
{
	uint32_t n = len;
	struct e1000_model_frame *fr;

	/* §13, TCTL.PSP: short frames are padded to the minimum. */
	if (REG(m, E1000_TCTL) & E1000_TCTL_PSP && n < MIN_FRAME)
		n = MIN_FRAME;
	fr = calloc(1, sizeof(*fr) + n);
	if (!fr)
		abort();
	memcpy(fr->data, data, len);
	fr->len = n;
	if (m->wire_tail)
		m->wire_tail->next = fr;
	else
		m->wire_head = fr;
	m->wire_tail = fr;
	m->wire_count++;
	m->wire_total++;
	REG(m, E1000_GPTC)++;
}

uint32_t e1000_model_wire_pop(struct e1000_model *m, uint8_t *buf, uint32_t cap)
{
	struct e1000_model_frame *fr = m->wire_head;
	uint32_t len;

	if (!fr)
		return 0;
	m->wire_head = fr->next;
	if (!m->wire_head)
		m->wire_tail = NULL;
	m->wire_count--;
	len = fr->len < cap ? fr->len : cap;
	memcpy(buf, fr->data, len);
	free(fr);
	return len;
}

/* Sums @start..@end (inclusive; 0: the frame's end) and stores it at @at. */
static void insert_csum(uint8_t *f, uint32_t len, uint32_t start, uint32_t end, uint32_t at)
{
	uint32_t stop = end && end < len ? end + 1 : len;

	if (start >= stop || at + 2 > len)
		return;
	wr16(f + at, (uint16_t)~model_net_sum(0, f + start, stop - start));
}

static void tx_offload(struct e1000_model *m, uint8_t *f, uint32_t len)
{
	if (m->tx_popts & E1000_TXD_POPTS_TXSM)
		insert_csum(f, len, m->ctx.tucss, m->ctx.tucse, m->ctx.tucso);
	if (m->tx_popts & E1000_TXD_POPTS_IXSM)
		insert_csum(f, len, m->ctx.ipcss, m->ctx.ipcse, m->ctx.ipcso);
}

/*
 * §3 (TCP segmentation): the header is repeated before every MSS of
 * payload; per segment the NIC writes the IPv4 total length and
 * identification or the IPv6 payload length, the TCP sequence number (FIN
 * and PSH only in the last) or UDP length, adds the segment's L4 length to
 * the pseudo-header sum software left in the checksum field, then inserts
 * the checksums.
 */
static void tx_segment(struct e1000_model *m)
{
	uint32_t hdr = m->ctx.hdr_len, mss = m->ctx.mss, payload, sent = 0, i = 0;
	uint8_t seg[MAX_FRAME_NO_LPE + 16384];

	if (hdr > m->tx_len || !mss || hdr + mss > sizeof(seg) ||
	    (uint32_t)m->ctx.tucss + (m->ctx.tcp ? 20 : 8) > hdr ||
	    (uint32_t)m->ctx.ipcss + (m->ctx.ipv4 ? 20 : 40) > hdr) {
		m->tx_errors++;
		return;
	}
	payload = m->tx_len - hdr;
	do {
		uint32_t n = payload - sent < mss ? payload - sent : mss, len = hdr + n;
		uint32_t l4_len = len - m->ctx.tucss;

		memcpy(seg, m->tx_buf, hdr);
		memcpy(seg + hdr, m->tx_buf + hdr + sent, n);
		model_net_tso_headers(seg, len, m->ctx.ipcss, m->ctx.ipv4, m->ctx.tucss, m->ctx.tcp, i,
				      sent, sent + n == payload);
		if (m->tx_popts & E1000_TXD_POPTS_TXSM && m->ctx.tucso + 2u <= hdr)
			wr16(seg + m->ctx.tucso, model_net_sum(rd16(seg + m->ctx.tucso), (const uint8_t[]){
				(uint8_t)(l4_len >> 8), (uint8_t)l4_len }, 2));
		tx_offload(m, seg, len);
		wire_put(m, seg, len);
		sent += n;
		i++;
	} while (sent < payload);
}

static void tx_end_of_packet(struct e1000_model *m)
{
	if (m->tx_bad)
		m->tx_errors++;
	else if (m->tx_tse)
		tx_segment(m);
	else if (m->tx_len) {
		if (m->tx_legacy_ic)
			insert_csum(m->tx_buf, m->tx_len, m->tx_css, 0, m->tx_cso);
		tx_offload(m, m->tx_buf, m->tx_len);
		wire_put(m, m->tx_buf, m->tx_len);
	}
	m->tx_len = 0;
	m->tx_popts = 0;
	m->tx_tse = false;
	m->tx_legacy_ic = false;
	m->tx_bad = false;
}

static void tx_gather(struct e1000_model *m, uint64_t addr, uint32_t len)
{
	const void *src;

	if (m->tx_bad || !len)
		return;
	src = e1000_model_dma(m, addr, len);
	if (!src || m->tx_len + len > E1000_MODEL_TX_MAX) {
		m->tx_bad = true;
		return;
	}
	memcpy(m->tx_buf + m->tx_len, src, len);
	m->tx_len += len;
}

static void tx_descriptor(struct e1000_model *m, struct e1000_tx_desc *d)
{
	uint32_t lower = d->lower;

	if (!(lower & E1000_TXD_CMD_DEXT)) {
		/* Legacy: CSO in lower 23:16, CSS in upper 15:8, IC is bit 26. */
		if (!m->tx_len) {
			m->tx_legacy_ic = lower & E1000_TXD_CMD_TSE;
			m->tx_cso = (uint8_t)(lower >> 16);
			m->tx_css = (uint8_t)(d->upper >> 8);
		}
		tx_gather(m, d->addr, lower & E1000_TXD_LEN_MASK);
	} else if ((lower & E1000_TXD_DTYP_MASK) == E1000_TXD_DTYP_CTX) {
		const struct e1000_ctx_desc *c = (const void *)d;

		m->ctx.ipcss = c->ipcss;
		m->ctx.ipcso = c->ipcso;
		m->ctx.ipcse = c->ipcse;
		m->ctx.tucss = c->tucss;
		m->ctx.tucso = c->tucso;
		m->ctx.tucse = c->tucse;
		m->ctx.paylen = c->cmd_len & E1000_TXD_DTALEN_MASK;
		m->ctx.hdr_len = c->hdr_len;
		m->ctx.mss = c->mss;
		m->ctx.tcp = c->cmd_len & E1000_TXD_TUCMD_TCP;
		m->ctx.ipv4 = c->cmd_len & E1000_TXD_TUCMD_IP;
		m->ctx.tse = c->cmd_len & E1000_TXD_CMD_TSE;
		return;
	} else if ((lower & E1000_TXD_DTYP_MASK) == E1000_TXD_DTYP_DATA) {
		if (!m->tx_len) {
			m->tx_popts = d->upper & (E1000_TXD_POPTS_IXSM | E1000_TXD_POPTS_TXSM);
			m->tx_tse = lower & E1000_TXD_CMD_TSE;
			if (m->tx_tse && !m->ctx.tse)
				m->tx_bad = true;
		}
		tx_gather(m, d->addr, lower & E1000_TXD_DTALEN_MASK);
	} else {
		m->tx_bad = true;
	}
	if (lower & E1000_TXD_CMD_EOP)
		tx_end_of_packet(m);
}

/* Sends from TDH up to TDT, writing DD back where RS asks for it (§3.3). */
static void tx_run(struct e1000_model *m)
{
	uint32_t count = REG(m, E1000_TDLEN) / 16;
	uint64_t ring = (uint64_t)REG(m, E1000_TDBAH) << 32 | REG(m, E1000_TDBAL);

	if (m->tx_paused || !(REG(m, E1000_TCTL) & E1000_TCTL_EN) || !count ||
	    REG(m, E1000_TDT) >= count)
		return;
	while (REG(m, E1000_TDH) != REG(m, E1000_TDT)) {
		uint32_t h = REG(m, E1000_TDH);
		struct e1000_tx_desc *d = e1000_model_dma(m, ring + 16ull * h, 16);

		if (!d || h >= count)
			break;
		tx_descriptor(m, d);
		if (d->lower & E1000_TXD_CMD_RS)
			d->upper |= E1000_TXD_STAT_DD;
		REG(m, E1000_TDH) = (h + 1) % count;
	}
}

/* --- registers ------------------------------------------------------------------ */

static bool rar_missing(const struct e1000_model *m, uint32_t off)
{
	return off >= E1000_RAL(0) && off < E1000_RAL(E1000_RAR_ENTRIES) &&
	       (off - E1000_RAL(0)) / 8 >= m->rar_entries;
}

static uint32_t model_read32(void *ctx, uint32_t off)
{
	struct e1000_model *m = ctx;
	uint32_t v;

	m->reads++;
	if (off >= sizeof(m->reg) || off & 3 || rar_missing(m, off))
		return 0;
	switch (off) {
	case E1000_CTRL:
		v = REG(m, off);
		return m->now_us < m->reset_until_us ? v | E1000_CTRL_RST : v;
	case E1000_STATUS:
		update_status(m);
		return REG(m, off);
	case E1000_EERD:
		return eerd_read(m);
	case E1000_ICR:
	case E1000_MPC:
	case E1000_GPRC:
	case E1000_GPTC:
		/* §13: statistics and causes clear when read. */
		v = REG(m, off);
		REG(m, off) = 0;
		return v;
	case E1000_IMC:
		return 0;
	default:
		return REG(m, off);
	}
}

static void model_write32(void *ctx, uint32_t off, uint32_t v)
{
	struct e1000_model *m = ctx;

	m->writes++;
	if (off >= sizeof(m->reg) || off & 3 || rar_missing(m, off))
		return;
	switch (off) {
	case E1000_CTRL:
		if (v & E1000_CTRL_RST) {
			model_reset(m);
			return;
		}
		if (v & E1000_CTRL_SLU && !(REG(m, off) & E1000_CTRL_SLU))
			m->link_at_us = m->now_us + E1000_MODEL_LINK_US;
		REG(m, off) = v;
		update_status(m);
		return;
	case E1000_STATUS:
		return;
	case E1000_IMS:
		REG(m, E1000_IMS) |= v;
		return;
	case E1000_IMC:
		REG(m, E1000_IMS) &= ~v;
		return;
	case E1000_RDLEN:
	case E1000_TDLEN:
		REG(m, off) = v & 0xfff80;
		return;
	case E1000_RDBAL:
	case E1000_TDBAL:
		REG(m, off) = v & ~0xfu;
		return;
	case E1000_RDH:
	case E1000_RDT:
	case E1000_TDH:
		REG(m, off) = v & 0xffff;
		return;
	case E1000_TDT:
		m->tdt_writes++;
		REG(m, off) = v & 0xffff;
		tx_run(m);
		return;
	case E1000_TCTL:
		REG(m, off) = v;
		tx_run(m);
		return;
	default:
		REG(m, off) = v;
	}
}

static void *model_dma_alloc(void *ctx, int queue, size_t bytes, size_t align, uint64_t *bus)
{
	struct e1000_model *m = ctx;
	size_t at = (m->mem_used + align - 1) & ~(align - 1);

	(void)queue;	/* one queue pair, one memory */

	if (!align || align & (align - 1) || at > E1000_MODEL_MEM || bytes > E1000_MODEL_MEM - at)
		return NULL;
	m->mem_used = at + bytes;
	*bus = E1000_MODEL_BUS_BASE + at;
	return m->mem + at;
}

static void model_delay_us(void *ctx, unsigned int us)
{
	struct e1000_model *m = ctx;

	m->now_us += us;
}

struct nic_io e1000_model_io(struct e1000_model *m)
{
	return (struct nic_io){ .read32 = model_read32, .write32 = model_write32,
				.dma_alloc = model_dma_alloc, .delay_us = model_delay_us,
				.ctx = m };
}

uint32_t e1000_model_peek(const struct e1000_model *m, uint32_t offset)
{
	return offset < sizeof(m->reg) ? m->reg[offset / 4] : 0;
}

void e1000_model_set_cable(struct e1000_model *m, bool in)
{
	if (in && !m->cable)
		m->link_at_us = m->now_us + E1000_MODEL_LINK_US;
	m->cable = in;
	update_status(m);
}

void e1000_model_tx_pause(struct e1000_model *m, bool paused)
{
	m->tx_paused = paused;
	if (!paused)
		tx_run(m);
}

struct e1000_model *e1000_model_new(const uint8_t mac[ETH_ALEN])
{
	struct e1000_model *m = calloc(1, sizeof(*m));
	uint16_t sum = 0;

	if (!m)
		abort();
	m->mem = calloc(1, E1000_MODEL_MEM);
	m->tx_buf = malloc(E1000_MODEL_TX_MAX);
	if (!m->mem || !m->tx_buf)
		abort();
	for (int i = 0; i < 3; i++)
		m->eeprom[i] = (uint16_t)(mac[2 * i] | mac[2 * i + 1] << 8);
	/* §5: the words up to 0x3f sum to 0xbaba. */
	for (int i = 0; i < 63; i++)
		sum = (uint16_t)(sum + m->eeprom[i]);
	m->eeprom[63] = (uint16_t)(0xbaba - sum);
	m->rar_entries = E1000_RAR_ENTRIES;
	m->rar0_from_eeprom = true;
	m->cable = true;
	model_reset(m);
	m->reset_until_us = 0;
	return m;
}

void e1000_model_free(struct e1000_model *m)
{
	while (m->wire_head) {
		struct e1000_model_frame *fr = m->wire_head;

		m->wire_head = fr->next;
		free(fr);
	}
	free(m->tx_buf);
	free(m->mem);
	free(m);
}
