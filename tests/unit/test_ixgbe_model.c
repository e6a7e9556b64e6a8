/* SPDX-License-Identifier: MIT */
/*
 * test_ixgbe_model.c - the 82599 model (tests/models/ixgbe_model.c) on its
 * own, driven register by register as the datasheet describes: the reset
 * handshake, queue enables, link, TSO and checksum insertion checked
 * against frames built independently (tests/unit/support/test_packets.c),
 * descriptor rules, the receive filters and pools, write-back fields, drops
 * without descriptors and the clear-on-read counters; and the rules real
 * hardware holds a driver to: the SFP+ module's EEPROM over I2C, what the
 * link needs, SW_FW_SYNC, the receive enable erratum, relaxed ordering,
 * TSO's IPv4 checksum field, 17-byte frames, a queue hung by a link loss
 * and MAC control frames.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drivers/net/ixgbe_regs.h"
#include "tests/models/ixgbe_model.h"
#include "tests/unit/support/test_packets.h"

#define RING		64
#define BUF		2048

static const uint8_t nic_mac[ETH_ALEN] = { 0x00, 0x1b, 0x21, 0x01, 0x02, 0x03 };
static const uint8_t mac_a[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0a };
static const uint8_t mac_b[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0b };
static const uint8_t mac_peer[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x99, 0x99, 0x99 };

struct ring {
	uint8_t *desc;
	uint64_t desc_bus;
	uint8_t *buf;
	uint64_t buf_bus;
};

struct fixture {
	struct ixgbe_model *m;
	struct nic_io io;
	struct ring tx, rx[2];
	struct ixgbe_model_frame wire;
	uint8_t frame[70000];
};

static uint32_t rd(struct fixture *f, uint32_t off)
{
	return f->io.read32(f->io.ctx, off);
}

static void wr(struct fixture *f, uint32_t off, uint32_t v)
{
	f->io.write32(f->io.ctx, off, v);
}

static void ring_alloc(struct fixture *f, struct ring *r)
{
	r->desc = f->io.dma_alloc(f->io.ctx, 0, RING * 16, 128, &r->desc_bus);
	r->buf = f->io.dma_alloc(f->io.ctx, 0, RING * BUF, 4096, &r->buf_bus);
	assert_non_null(r->desc);
	assert_non_null(r->buf);
}

/* A reset, then relaxed ordering off for the queues the tests use (0-3). */
static void reset(struct fixture *f)
{
	wr(f, IXGBE_CTRL, IXGBE_CTRL_RST);
	f->io.delay_us(f->io.ctx, IXGBE_MODEL_RESET_US + IXGBE_MODEL_EEPROM_US);
	for (unsigned int q = 0; q < 4; q++) {
		wr(f, IXGBE_DCA_RXCTRL(q), 0);
		wr(f, IXGBE_DCA_TXCTRL(q), 0);
	}
}

/* SW_FW_SYNC's bit for the MAC's registers, taken or given under SWSM. */
static void mac_sync(struct fixture *f, bool take)
{
	assert_int_equal(rd(f, IXGBE_SWSM) & IXGBE_SWSM_SMBI, 0);
	wr(f, IXGBE_SWSM, IXGBE_SWSM_SMBI | IXGBE_SWSM_SWESMBI);
	wr(f, IXGBE_SW_FW_SYNC, take ? IXGBE_SW_FW_SYNC_SW_MAC : 0);
	wr(f, IXGBE_SWSM, 0);
}

/* §4.6.4 for the default port (a direct-attach cable): SFI, link enabled, AN restarted. */
static void link_on(struct fixture *f, uint32_t autoc)
{
	wr(f, IXGBE_AUTOC2, IXGBE_AUTOC2_PMA_PMD_SFI);
	mac_sync(f, true);
	wr(f, IXGBE_AUTOC, autoc | IXGBE_AUTOC_AN_RESTART);
	mac_sync(f, false);
}

/* RXEN inside the security receive path's disable, as the erratum wants. */
static void rx_enable(struct fixture *f)
{
	wr(f, IXGBE_SECRXCTRL, IXGBE_SECRXCTRL_RX_DIS);
	assert_true(rd(f, IXGBE_SECRXSTAT) & IXGBE_SECRXSTAT_SECRX_RDY);
	wr(f, IXGBE_RXCTRL, IXGBE_RXCTRL_RXEN);
	wr(f, IXGBE_SECRXCTRL, 0);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->m = ixgbe_model_create(nic_mac, 4u << 20);
	if (!f->m)
		return -1;
	f->io = ixgbe_model_io(f->m);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ixgbe_model_destroy(f->m);
	free(f);
	return 0;
}

static void assert_no_errors(struct fixture *f)
{
	const char *why;

	if (ixgbe_model_errors(f->m, &why))
		fail_msg("model error: %s", why);
}

/* Link up at 10 Gb/s, transmit queue 0 without VMDq, as §4.6.4 and §4.6.8 say. */
static void tx_setup(struct fixture *f)
{
	reset(f);
	link_on(f, IXGBE_AUTOC_LMS_10G_SERIAL);
	wr(f, IXGBE_HLREG0, IXGBE_HLREG0_TXCRCEN | IXGBE_HLREG0_TXPADEN);
	ring_alloc(f, &f->tx);
	wr(f, IXGBE_TDBAL(0), (uint32_t)f->tx.desc_bus);
	wr(f, IXGBE_TDBAH(0), (uint32_t)(f->tx.desc_bus >> 32));
	wr(f, IXGBE_TDLEN(0), RING * 16);
	wr(f, IXGBE_DMATXCTL, IXGBE_DMATXCTL_TE);
	wr(f, IXGBE_TXDCTL(0), IXGBE_TXDCTL_ENABLE);
	f->io.delay_us(f->io.ctx, IXGBE_MODEL_LINK_US);
	assert_true(rd(f, IXGBE_TXDCTL(0)) & IXGBE_TXDCTL_ENABLE);
}

static void put_desc(struct fixture *f, unsigned int i, uint64_t lo, uint64_t hi)
{
	memcpy(f->tx.desc + 16 * i, &lo, 8);
	memcpy(f->tx.desc + 16 * i + 8, &hi, 8);
}

static uint32_t desc_hi32(struct fixture *f, unsigned int i)
{
	uint32_t v;

	memcpy(&v, f->tx.desc + 16 * i + 12, 4);
	return v;
}

/* --- reset, queues, link ------------------------------------------------------- */

static void test_reset_handshake(void **state)
{
	struct fixture *f = *state;
	const char *why;

	wr(f, IXGBE_FCTRL, IXGBE_FCTRL_BAM);
	wr(f, IXGBE_CTRL, IXGBE_CTRL_RST | IXGBE_CTRL_LRST);
	assert_true(rd(f, IXGBE_CTRL) & IXGBE_CTRL_RST);
	f->io.delay_us(f->io.ctx, IXGBE_MODEL_RESET_US - 1);
	assert_true(rd(f, IXGBE_CTRL) & IXGBE_CTRL_RST);
	/* Only CTRL may be touched until the reset is over. */
	assert_int_equal(ixgbe_model_errors(f->m, NULL), 0);
	(void)rd(f, IXGBE_EEC);
	wr(f, IXGBE_FCTRL, IXGBE_FCTRL_MPE);
	assert_int_equal(ixgbe_model_errors(f->m, &why), 2);
	assert_non_null(strstr(why, "during reset"));

	f->io.delay_us(f->io.ctx, 1);
	assert_int_equal(rd(f, IXGBE_CTRL) & (IXGBE_CTRL_RST | IXGBE_CTRL_LRST), 0);
	assert_int_equal(rd(f, IXGBE_FCTRL), 0);		/* back to its reset value */
	assert_int_equal(rd(f, IXGBE_EEC) & IXGBE_EEC_ARD, 0);
	assert_int_equal(rd(f, IXGBE_RAH(0)), 0);		/* not read from the EEPROM yet */
	assert_int_equal(rd(f, IXGBE_RDRXCTL) & IXGBE_RDRXCTL_DMAIDONE, 0);
	f->io.delay_us(f->io.ctx, IXGBE_MODEL_DMAINIT_US);
	assert_true(rd(f, IXGBE_RDRXCTL) & IXGBE_RDRXCTL_DMAIDONE);
	/* The driver cannot clear what the NIC reports. */
	wr(f, IXGBE_RDRXCTL, IXGBE_RDRXCTL_CRCSTRIP);
	assert_int_equal(rd(f, IXGBE_RDRXCTL), IXGBE_RDRXCTL_CRCSTRIP | IXGBE_RDRXCTL_DMAIDONE);
	f->io.delay_us(f->io.ctx, IXGBE_MODEL_EEPROM_US - IXGBE_MODEL_DMAINIT_US);
	assert_true(rd(f, IXGBE_EEC) & IXGBE_EEC_ARD);
	assert_int_equal(rd(f, IXGBE_RAL(0)), 0x01211b00);
	assert_int_equal(rd(f, IXGBE_RAH(0)), 0x0302 | IXGBE_RAH_AV);
	assert_int_equal(ixgbe_model_errors(f->m, NULL), 2);
}

static void test_queue_enable(void **state)
{
	struct fixture *f = *state;
	const char *why;

	reset(f);
	ring_alloc(f, &f->rx[0]);
	/* No ring yet: the queue never comes up. */
	wr(f, IXGBE_RXDCTL(0), IXGBE_RXDCTL_ENABLE);
	f->io.delay_us(f->io.ctx, 100);
	assert_int_equal(rd(f, IXGBE_RXDCTL(0)) & IXGBE_RXDCTL_ENABLE, 0);
	assert_int_equal(ixgbe_model_errors(f->m, &why), 1);
	assert_non_null(strstr(why, "RXDCTL(0).ENABLE with RDLEN 0"));

	wr(f, IXGBE_RDBAL(0), (uint32_t)f->rx[0].desc_bus);
	wr(f, IXGBE_RDBAH(0), (uint32_t)(f->rx[0].desc_bus >> 32));
	wr(f, IXGBE_RDLEN(0), RING * 16);
	wr(f, IXGBE_RXDCTL(0), IXGBE_RXDCTL_ENABLE);
	assert_int_equal(rd(f, IXGBE_RXDCTL(0)) & IXGBE_RXDCTL_ENABLE, 0);
	f->io.delay_us(f->io.ctx, IXGBE_MODEL_QUEUE_US);
	assert_true(rd(f, IXGBE_RXDCTL(0)) & IXGBE_RXDCTL_ENABLE);
	wr(f, IXGBE_RXDCTL(0), 0);
	assert_int_equal(rd(f, IXGBE_RXDCTL(0)) & IXGBE_RXDCTL_ENABLE, 0);

	/* §4.6.8: DMATXCTL.TE before the queues. */
	ring_alloc(f, &f->tx);
	wr(f, IXGBE_TDBAL(0), (uint32_t)f->tx.desc_bus);
	wr(f, IXGBE_TDBAH(0), (uint32_t)(f->tx.desc_bus >> 32));
	wr(f, IXGBE_TDLEN(0), RING * 16);
	wr(f, IXGBE_TXDCTL(0), IXGBE_TXDCTL_ENABLE);
	f->io.delay_us(f->io.ctx, 100);
	assert_int_equal(rd(f, IXGBE_TXDCTL(0)) & IXGBE_TXDCTL_ENABLE, 0);
	assert_int_equal(ixgbe_model_errors(f->m, NULL), 2);
	wr(f, IXGBE_DMATXCTL, IXGBE_DMATXCTL_TE);
	wr(f, IXGBE_TXDCTL(0), IXGBE_TXDCTL_ENABLE);
	f->io.delay_us(f->io.ctx, IXGBE_MODEL_QUEUE_US);
	assert_true(rd(f, IXGBE_TXDCTL(0)) & IXGBE_TXDCTL_ENABLE);
	/* MTQC only with the arbiter off. */
	wr(f, IXGBE_MTQC, IXGBE_MTQC_VT_ENA | IXGBE_MTQC_64VF);
	assert_int_equal(ixgbe_model_errors(f->m, NULL), 3);
}

static void test_link(void **state)
{
	struct fixture *f = *state;

	reset(f);
	assert_int_equal(rd(f, IXGBE_LINKS), 0);	/* no auto-negotiation yet */
	link_on(f, IXGBE_AUTOC_LMS_10G_SERIAL);
	assert_int_equal(rd(f, IXGBE_AUTOC), IXGBE_AUTOC_LMS_10G_SERIAL);	/* self-clears */
	f->io.delay_us(f->io.ctx, IXGBE_MODEL_LINK_US - 1);
	assert_int_equal(rd(f, IXGBE_LINKS), 0);
	f->io.delay_us(f->io.ctx, 1);
	assert_int_equal(rd(f, IXGBE_LINKS), IXGBE_LINKS_UP | IXGBE_LINKS_SPEED_10G);
	ixgbe_model_set_cable(f->m, false);
	assert_int_equal(rd(f, IXGBE_LINKS), 0);
	ixgbe_model_set_cable(f->m, true);
	assert_int_equal(rd(f, IXGBE_LINKS), 0);
	ixgbe_model_advance(f->m, IXGBE_MODEL_LINK_US);
	assert_true(rd(f, IXGBE_LINKS) & IXGBE_LINKS_UP);
	/* A 1 Gb/s mode is no link on an SFP+ port set up for SFI. */
	link_on(f, 2u << 13);
	ixgbe_model_advance(f->m, IXGBE_MODEL_LINK_US);
	assert_int_equal(rd(f, IXGBE_LINKS), 0);
	/* A reset takes the link down with everything else. */
	reset(f);
	assert_int_equal(rd(f, IXGBE_LINKS), 0);
	assert_no_errors(f);
}

/* --- transmit -------------------------------------------------------------------- */

/*
 * Puts the frame in f->frame into the buffers of descriptors 1.. in pieces
 * of the sizes given (0-terminated), after a context descriptor in 0.
 * Returns the next free descriptor.
 */
static unsigned int put_frame(struct fixture *f, uint32_t len, const uint32_t *pieces,
			      uint32_t ctx_lo, uint32_t ctx_tucmd, uint32_t ctx_mss, uint32_t dcmd,
			      uint32_t olinfo)
{
	unsigned int i = 0;
	uint32_t off = 0;

	put_desc(f, i++, ctx_lo, (uint64_t)ctx_mss << 32 | ctx_tucmd | IXGBE_TXD_DTYP_CTXT |
			 IXGBE_TXD_DCMD_DEXT);
	for (unsigned int k = 0; off < len; k++, i++) {
		uint32_t n = pieces[k] && pieces[k] < len - off ? pieces[k] : len - off;
		uint32_t cmd = n | IXGBE_TXD_DTYP_DATA | IXGBE_TXD_DCMD_DEXT | IXGBE_TXD_DCMD_IFCS |
			       dcmd;

		memcpy(f->tx.buf + BUF * i, f->frame + off, n);
		off += n;
		if (off == len)
			cmd |= IXGBE_TXD_DCMD_EOP | IXGBE_TXD_DCMD_RS;
		put_desc(f, i, f->tx.buf_bus + BUF * i, (uint64_t)olinfo << 32 | cmd);
	}
	return i;
}

/* The pseudo-header sum without the length, as §7.2.4 wants it for TSO. */
static void seed_without_length(uint8_t *frame, const struct tp_spec *s)
{
	struct tp_frame l;
	const uint8_t *ip;
	uint16_t sum;

	tp_layout(s, &l);
	ip = frame + l.l3;
	sum = s->ipv6 ? tp_sum(0, ip + 8, 32) : tp_sum(0, ip + 12, 8);
	sum = tp_sum(sum, (const uint8_t[]){ 0, 6 }, 2);	/* TCP */
	frame[l.l4 + 16] = (uint8_t)(sum >> 8);
	frame[l.l4 + 17] = (uint8_t)sum;
}

static void tso_case(struct fixture *f, bool ipv6, uint32_t payload, uint32_t mss)
{
	static const uint32_t pieces[] = { 100, 1000, BUF, 7, BUF, BUF, BUF, BUF, 0 };
	struct tp_spec s = { .ipv6 = ipv6, .tcp_opts = 12, .payload = payload,
			     .seq = 0xfffffc00u, .ip_id = 0xfffe,
			     .tcp_flags = TP_TCP_ACK | TP_TCP_PSH | TP_TCP_FIN };
	struct tp_frame l;
	uint32_t len, segs = (payload + mss - 1) / mss;
	unsigned int next;
	uint8_t expect[BUF];

	memcpy(s.dst, mac_peer, ETH_ALEN);
	memcpy(s.src, mac_a, ETH_ALEN);
	tp_layout(&s, &l);
	len = tp_build(f->frame, &s);
	seed_without_length(f->frame, &s);
	/* §7.2.5: IXSM sums the field as it finds it, so it starts at 0. */
	if (!ipv6)
		f->frame[l.l3 + 10] = f->frame[l.l3 + 11] = 0;
	next = put_frame(f, len, pieces, (l.l4 - l.l3) | l.l3 << IXGBE_TXCTX_MACLEN_SHIFT,
			 IXGBE_TXCTX_TUCMD_L4T_TCP | (ipv6 ? 0 : IXGBE_TXCTX_TUCMD_IPV4),
			 mss << IXGBE_TXCTX_MSS_SHIFT | (l.data - l.l4) << IXGBE_TXCTX_L4LEN_SHIFT,
			 IXGBE_TXD_DCMD_TSE, payload << IXGBE_TXD_PAYLEN_SHIFT | IXGBE_TXD_CC |
			 IXGBE_TXD_POPTS_TXSM | (ipv6 ? 0 : IXGBE_TXD_POPTS_IXSM));
	wr(f, IXGBE_TDT(0), next);
	assert_int_equal(rd(f, IXGBE_TDH(0)), next);
	assert_true(desc_hi32(f, next - 1) & IXGBE_TXD_STA_DD);
	assert_no_errors(f);

	assert_int_equal(ixgbe_model_wire_count(f->m), segs);
	for (uint32_t k = 0; k < segs; k++) {
		struct tp_spec seg = s;
		bool last = k == segs - 1;

		seg.offset = k * mss;
		seg.payload = last ? payload - k * mss : mss;
		seg.seq = s.seq + k * mss;
		seg.ip_id = (uint16_t)(s.ip_id + k);
		seg.tcp_flags = last ? s.tcp_flags : TP_TCP_ACK;
		len = tp_build(expect, &seg);
		assert_true(ixgbe_model_wire_pop(f->m, &f->wire));
		assert_int_equal(f->wire.len, len);
		assert_true(f->wire.fcs);
		assert_memory_equal(f->wire.data, expect, len);
	}
}

static void test_tso_ipv4(void **state)
{
	struct fixture *f = *state;

	tx_setup(f);
	tso_case(f, false, 10000, 1448);
}

static void test_tso_ipv6(void **state)
{
	struct fixture *f = *state;

	tx_setup(f);
	tso_case(f, true, 9000, 1000);	/* an MSS that divides the payload */
}

static void test_tx_checksums(void **state)
{
	static const uint32_t split[] = { 30, 0 };
	struct fixture *f = *state;
	struct tp_spec s = { .udp = true, .payload = 333, .ip_id = 9 };
	struct virtio_net_hdr_v1 hdr;
	uint8_t expect[BUF];
	struct tp_frame l;
	uint32_t len;
	unsigned int next;

	tx_setup(f);
	memcpy(s.dst, mac_peer, ETH_ALEN);
	memcpy(s.src, mac_b, ETH_ALEN);
	tp_layout(&s, &l);
	len = tp_build(expect, &s);
	/* UDP with the pseudo-header seed, IPv4 header checksum zeroed: the NIC fills both. */
	memcpy(f->frame, expect, len);
	tp_make_partial(f->frame, len, &hdr, 0);
	assert_int_equal(hdr.csum_start, l.l4);
	f->frame[l.l3 + 10] = f->frame[l.l3 + 11] = 0;
	next = put_frame(f, len, split, 20 | 14 << IXGBE_TXCTX_MACLEN_SHIFT,
			 IXGBE_TXCTX_TUCMD_L4T_UDP | IXGBE_TXCTX_TUCMD_IPV4, 0, 0,
			 len << IXGBE_TXD_PAYLEN_SHIFT | IXGBE_TXD_CC | IXGBE_TXD_POPTS_TXSM |
			 IXGBE_TXD_POPTS_IXSM);
	wr(f, IXGBE_TDT(0), next);
	assert_true(ixgbe_model_wire_pop(f->m, &f->wire));
	assert_int_equal(f->wire.len, len);
	assert_memory_equal(f->wire.data, expect, len);

	/* Without POPTS the frame goes out as it is, padded when short. */
	memset(f->frame, 0x5a, 40);
	put_desc(f, next, f->tx.buf_bus, (uint64_t)(40u << IXGBE_TXD_PAYLEN_SHIFT) << 32 | 40 |
		 IXGBE_TXD_DTYP_DATA | IXGBE_TXD_DCMD_DEXT | IXGBE_TXD_DCMD_EOP);
	memcpy(f->tx.buf, f->frame, 40);
	wr(f, IXGBE_TDT(0), next + 1);
	assert_true(ixgbe_model_wire_pop(f->m, &f->wire));
	assert_int_equal(f->wire.len, 60);
	assert_false(f->wire.fcs);	/* IFCS not set */
	assert_memory_equal(f->wire.data, f->frame, 40);
	assert_no_errors(f);
}

/* The rules of §7.2.3 a descriptor can break, each counted. */
static void test_tx_descriptor_rules(void **state)
{
	struct fixture *f = *state;
	const char *why;
	const uint64_t data = IXGBE_TXD_DTYP_DATA | IXGBE_TXD_DCMD_DEXT | IXGBE_TXD_DCMD_EOP |
			      IXGBE_TXD_DCMD_RS | 100;
	uint64_t doorbells;

	tx_setup(f);
	doorbells = ixgbe_model_stats(f->m).tdt_writes[0];
	/* PAYLEN must be the frame's length. */
	put_desc(f, 0, f->tx.buf_bus, (uint64_t)(99u << IXGBE_TXD_PAYLEN_SHIFT) << 32 | data);
	wr(f, IXGBE_TDT(0), 1);
	assert_int_equal(ixgbe_model_errors(f->m, &why), 1);
	assert_non_null(strstr(why, "PAYLEN 99"));
	/* TSE needs a context. */
	put_desc(f, 1, f->tx.buf_bus, (uint64_t)(100u << IXGBE_TXD_PAYLEN_SHIFT) << 32 | data |
		 IXGBE_TXD_DCMD_TSE);
	wr(f, IXGBE_TDT(0), 2);
	assert_int_equal(ixgbe_model_errors(f->m, NULL), 2);
	/* Out of the arena. */
	put_desc(f, 2, 0x1000, (uint64_t)(100u << IXGBE_TXD_PAYLEN_SHIFT) << 32 | data);
	wr(f, IXGBE_TDT(0), 3);
	assert_int_equal(ixgbe_model_errors(f->m, NULL), 3);
	/* A legacy descriptor stops the queue. */
	put_desc(f, 3, f->tx.buf_bus, 100 | IXGBE_TXD_DCMD_EOP);
	wr(f, IXGBE_TDT(0), 4);
	assert_int_equal(ixgbe_model_errors(f->m, NULL), 4);
	assert_int_equal(ixgbe_model_wire_count(f->m), 0);
	/* Each TDT write is counted, as the driver tests count doorbells. */
	assert_int_equal(ixgbe_model_stats(f->m).tdt_writes[0], doorbells + 4);
	assert_int_equal(ixgbe_model_stats(f->m).tdt_writes[1], 0);
}

/* A frame whose EOP is beyond TDT waits; nothing moves while paused. */
static void test_tx_partial_and_paused(void **state)
{
	static const uint32_t pieces[] = { 50, 50, 50, 0 };
	struct fixture *f = *state;
	unsigned int next;

	tx_setup(f);
	memset(f->frame, 0x11, 200);
	next = put_frame(f, 200, pieces, 0, 0, 0, 0, 200u << IXGBE_TXD_PAYLEN_SHIFT);
	assert_int_equal(next, 5);
	wr(f, IXGBE_TDT(0), 3);		/* context and two of four pieces */
	assert_int_equal(ixgbe_model_wire_count(f->m), 0);
	assert_int_equal(rd(f, IXGBE_TDH(0)), 0);
	ixgbe_model_set_tx_paused(f->m, true);
	wr(f, IXGBE_TDT(0), 5);
	assert_int_equal(ixgbe_model_wire_count(f->m), 0);
	ixgbe_model_set_tx_paused(f->m, false);
	assert_int_equal(ixgbe_model_wire_count(f->m), 1);
	assert_int_equal(rd(f, IXGBE_TDH(0)), 5);
	assert_true(ixgbe_model_wire_pop(f->m, &f->wire));
	assert_int_equal(f->wire.len, 200);
	assert_int_equal(rd(f, IXGBE_GPTC), 1);
	assert_int_equal(rd(f, IXGBE_GPTC), 0);	/* cleared on read */
	assert_int_equal(rd(f, IXGBE_GOTCL), 204);
	assert_int_equal(rd(f, IXGBE_GOTCH), 0);
	assert_int_equal(rd(f, IXGBE_GOTCL), 0);
	assert_no_errors(f);
}

/* --- receive ---------------------------------------------------------------------- */

/* Pools 0 and 1 (queues 0 and 2), A to pool 0, B to pool 1, as §4.6.10 sets them up. */
static void rx_setup(struct fixture *f, bool drop_en)
{
	reset(f);
	link_on(f, IXGBE_AUTOC_LMS_10G_SERIAL);
	wr(f, IXGBE_HLREG0, IXGBE_HLREG0_RXCRCSTRP);
	wr(f, IXGBE_RDRXCTL, IXGBE_RDRXCTL_CRCSTRIP);
	wr(f, IXGBE_FCTRL, IXGBE_FCTRL_BAM | IXGBE_FCTRL_MPE);
	wr(f, IXGBE_MRQC, IXGBE_MRQC_VMDQ64);
	wr(f, IXGBE_PFVTCTL, IXGBE_PFVTCTL_VT_ENA | IXGBE_PFVTCTL_RPL_EN | IXGBE_PFVTCTL_DIS_DEF_PL);
	wr(f, IXGBE_PFVFRE(0), 3);
	wr(f, IXGBE_RQSMR(0), 0x00010000);	/* queue 2 counts in counter 1 */
	for (unsigned int p = 0; p < 2; p++) {
		struct ring *r = &f->rx[p];
		unsigned int q = 2 * p;

		wr(f, IXGBE_PFVML2FLT(p), IXGBE_PFVML2FLT_AUPE | IXGBE_PFVML2FLT_BAM |
		   IXGBE_PFVML2FLT_MPE);
		ring_alloc(f, r);
		for (unsigned int i = 0; i < RING; i++) {
			uint64_t a = r->buf_bus + (uint64_t)BUF * i, z = 0;

			memcpy(r->desc + 16 * i, &a, 8);
			memcpy(r->desc + 16 * i + 8, &z, 8);
		}
		wr(f, IXGBE_SRRCTL(q), IXGBE_SRRCTL_DESCTYPE_ADV_ONEBUF | (BUF >> 10) |
		   (drop_en ? IXGBE_SRRCTL_DROP_EN : 0));
		wr(f, IXGBE_RDBAL(q), (uint32_t)r->desc_bus);
		wr(f, IXGBE_RDBAH(q), (uint32_t)(r->desc_bus >> 32));
		wr(f, IXGBE_RDLEN(q), RING * 16);
		wr(f, IXGBE_RXDCTL(q), IXGBE_RXDCTL_ENABLE);
	}
	wr(f, IXGBE_RAL(1), 0x00005452);
	wr(f, IXGBE_RAH(1), 0x0a00 | IXGBE_RAH_AV);
	wr(f, IXGBE_MPSAR_LO(1), 1u << 0);
	wr(f, IXGBE_RAL(2), 0x00005452);
	wr(f, IXGBE_RAH(2), 0x0b00 | IXGBE_RAH_AV);
	wr(f, IXGBE_MPSAR_LO(2), 1u << 1);
	f->io.delay_us(f->io.ctx, IXGBE_MODEL_LINK_US);
	wr(f, IXGBE_RDT(0), RING - 1);
	wr(f, IXGBE_RDT(2), RING - 1);
	rx_enable(f);
}

/* The second quadword of receive descriptor i of pool p. */
static uint64_t wb_hi(struct fixture *f, unsigned int p, unsigned int i)
{
	uint64_t v;

	memcpy(&v, f->rx[p].desc + 16 * i + 8, 8);
	return v;
}

static uint32_t build(struct fixture *f, const uint8_t dst[ETH_ALEN], struct tp_spec *s)
{
	memcpy(s->dst, dst, ETH_ALEN);
	memcpy(s->src, mac_peer, ETH_ALEN);
	return tp_build(f->frame, s);
}

static void test_rx_pools(void **state)
{
	struct fixture *f = *state;
	const uint8_t bcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct tp_spec s = { .payload = 100 };
	uint32_t len;
	uint64_t wb;

	rx_setup(f, true);
	len = build(f, mac_a, &s);
	assert_int_equal(ixgbe_model_receive(f->m, f->frame, len), 1);
	assert_int_equal(rd(f, IXGBE_RDH(0)), 1);
	assert_int_equal(rd(f, IXGBE_RDH(2)), 0);
	wb = wb_hi(f, 0, 0);
	assert_int_equal((uint32_t)wb & 0xfffff, IXGBE_RXWB_STAT_DD | IXGBE_RXWB_STAT_EOP |
			 IXGBE_RXWB_STAT_L4CS | IXGBE_RXWB_STAT_IPCS);
	assert_int_equal((uint32_t)wb >> 20, 0);
	assert_int_equal(wb >> IXGBE_RXWB_LEN_SHIFT & 0xffff, len);
	assert_memory_equal(f->rx[0].buf, f->frame, len);
	{
		uint32_t lo;

		memcpy(&lo, f->rx[0].desc, 4);
		assert_int_equal(lo >> IXGBE_RXWB_PKTTYPE_SHIFT,
				 IXGBE_RXWB_PKTTYPE_IPV4 | IXGBE_RXWB_PKTTYPE_TCP);
	}

	/* B to pool 1 only, a bad checksum reported. */
	s.ipv6 = true;
	s.udp = true;
	len = build(f, mac_b, &s);
	f->frame[len - 1] ^= 1;
	assert_int_equal(ixgbe_model_receive(f->m, f->frame, len), 1);
	assert_int_equal(rd(f, IXGBE_RDH(2)), 1);
	wb = wb_hi(f, 1, 0);
	assert_int_equal((uint32_t)wb, IXGBE_RXWB_STAT_DD | IXGBE_RXWB_STAT_EOP |
			 IXGBE_RXWB_STAT_L4CS | IXGBE_RXWB_STAT_UDPCS | IXGBE_RXWB_ERR_L4E);

	/* Broadcast and multicast to both; unknown unicast to neither. */
	len = build(f, bcast, &s);
	assert_int_equal(ixgbe_model_receive(f->m, f->frame, len), 2);
	f->frame[0] = 0x33;
	assert_int_equal(ixgbe_model_receive(f->m, f->frame, len), 2);
	len = build(f, mac_peer, &s);
	assert_int_equal(ixgbe_model_receive(f->m, f->frame, len), 0);
	assert_int_equal(ixgbe_model_stats(f->m).rx_filtered, 1);
	/* An address the L2 filter knows but no pool claims: the default pool, if enabled. */
	wr(f, IXGBE_RAL(3), 0x99005452);
	wr(f, IXGBE_RAH(3), 0x9999 | IXGBE_RAH_AV);
	assert_int_equal(ixgbe_model_receive(f->m, f->frame, len), 0);
	wr(f, IXGBE_PFVTCTL, IXGBE_PFVTCTL_VT_ENA | IXGBE_PFVTCTL_RPL_EN |
	   1u << IXGBE_PFVTCTL_DEF_PL_SHIFT);
	assert_int_equal(ixgbe_model_receive(f->m, f->frame, len), 1);
	assert_int_equal(rd(f, IXGBE_RDH(2)), 4);
	/* A pool PFVFRE leaves out gets nothing. */
	wr(f, IXGBE_PFVFRE(0), 1);
	len = build(f, mac_b, &s);
	assert_int_equal(ixgbe_model_receive(f->m, f->frame, len), 0);
	len = build(f, bcast, &s);
	assert_int_equal(ixgbe_model_receive(f->m, f->frame, len), 1);

	assert_int_equal(rd(f, IXGBE_QPRC(0)), 4);
	assert_int_equal(rd(f, IXGBE_QPRC(1)), 4);
	assert_int_equal(rd(f, IXGBE_QPRC(1)), 0);
	assert_int_equal(rd(f, IXGBE_GPRC), 6);
	assert_int_equal(rd(f, IXGBE_BPRC), 2);
	assert_no_errors(f);
}

static void test_rx_no_descriptors(void **state)
{
	struct fixture *f = *state;
	struct tp_spec s = { .udp = true, .payload = 10 };
	uint32_t len;

	for (int drop_en = 1; drop_en >= 0; drop_en--) {
		rx_setup(f, drop_en);
		len = build(f, mac_a, &s);
		for (unsigned int i = 0; i < RING + 5; i++)
			ixgbe_model_receive(f->m, f->frame, len);
		assert_int_equal(rd(f, IXGBE_RDH(0)), RING - 1);
		assert_int_equal(rd(f, IXGBE_QPRDC(0)), drop_en ? 6 : 0);
		assert_int_equal(rd(f, IXGBE_MPC(0)), drop_en ? 0 : 6);
		/* Room again: the next frame lands after the ones before. */
		wr(f, IXGBE_RDT(0), 10);
		assert_int_equal(ixgbe_model_receive(f->m, f->frame, len), 1);
		assert_int_equal(rd(f, IXGBE_RDH(0)), 0);
	}
	assert_no_errors(f);
}

static void test_rx_filters(void **state)
{
	struct fixture *f = *state;
	struct tp_spec s = { .payload = 3000 };
	uint32_t len;
	uint64_t wb;

	rx_setup(f, true);
	/* Longer than 1518 without JUMBOEN: a length error. */
	len = build(f, mac_a, &s);
	assert_int_equal(ixgbe_model_receive(f->m, f->frame, len), 0);
	assert_int_equal(rd(f, IXGBE_RLEC), 1);
	/* With it, over two descriptors, EOP on the second. */
	wr(f, IXGBE_HLREG0, IXGBE_HLREG0_RXCRCSTRP | IXGBE_HLREG0_JUMBOEN);
	wr(f, IXGBE_MAXFRS, 9018u << IXGBE_MAXFRS_MFS_SHIFT);
	assert_int_equal(ixgbe_model_receive(f->m, f->frame, len), 1);
	wb = wb_hi(f, 0, 0);
	assert_int_equal((uint32_t)wb, IXGBE_RXWB_STAT_DD);
	assert_int_equal(wb >> IXGBE_RXWB_LEN_SHIFT, BUF);
	wb = wb_hi(f, 0, 1);
	assert_true(wb & IXGBE_RXWB_STAT_EOP);
	assert_int_equal(wb >> IXGBE_RXWB_LEN_SHIFT, len - BUF);
	/* Without CRC stripping the FCS comes along, four more bytes. */
	s.payload = 100;
	len = build(f, mac_a, &s);
	wr(f, IXGBE_HLREG0, 0);
	wr(f, IXGBE_RDRXCTL, 0);
	assert_int_equal(ixgbe_model_receive(f->m, f->frame, len), 1);
	assert_int_equal(wb_hi(f, 0, 2) >> IXGBE_RXWB_LEN_SHIFT, len + 4);
	/* Receiver off, link down: nothing. */
	wr(f, IXGBE_RXCTRL, 0);
	assert_int_equal(ixgbe_model_receive(f->m, f->frame, len), 0);
	rx_enable(f);
	ixgbe_model_set_cable(f->m, false);
	assert_int_equal(ixgbe_model_receive(f->m, f->frame, len), 0);
	assert_int_equal(ixgbe_model_stats(f->m).rx_not_ready, 2);
	assert_no_errors(f);
}

/* --- what the hardware would refuse ------------------------------------------------- */

/* One I2C clock with SDA at @bit; the line as read at the top. */
static bool i2c_clock(struct fixture *f, bool bit)
{
	uint32_t sda = bit ? IXGBE_I2C_DATA_OUT : 0;
	bool line;

	wr(f, IXGBE_I2CCTL, sda);
	wr(f, IXGBE_I2CCTL, sda | IXGBE_I2C_CLK_OUT);
	line = rd(f, IXGBE_I2CCTL) & IXGBE_I2C_DATA_IN;
	wr(f, IXGBE_I2CCTL, sda);
	return line;
}

/* Bits in order and the acknowledge clock; true if acked. */
static bool i2c_byte_out(struct fixture *f, uint8_t byte)
{
	for (int i = 7; i >= 0; i--)
		(void)i2c_clock(f, (byte >> i) & 1);
	return !i2c_clock(f, true);
}

/* A START from either clock level: SDA falls while SCL is high. */
static void i2c_start(struct fixture *f)
{
	wr(f, IXGBE_I2CCTL, IXGBE_I2C_DATA_OUT);
	wr(f, IXGBE_I2CCTL, IXGBE_I2C_DATA_OUT | IXGBE_I2C_CLK_OUT);
	wr(f, IXGBE_I2CCTL, IXGBE_I2C_CLK_OUT);
	wr(f, IXGBE_I2CCTL, 0);
}

/* Bytes @offset.. of the module's EEPROM, read in one go; false on no ack. */
static bool sfp_read(struct fixture *f, uint8_t offset, uint8_t *out, unsigned int n)
{
	i2c_start(f);
	if (!i2c_byte_out(f, 0xa0) || !i2c_byte_out(f, offset))
		return false;
	i2c_start(f);
	if (!i2c_byte_out(f, 0xa1))
		return false;
	for (unsigned int k = 0; k < n; k++) {
		out[k] = 0;
		for (int i = 0; i < 8; i++)
			out[k] = (uint8_t)(out[k] << 1 | i2c_clock(f, true));
		(void)i2c_clock(f, k + 1 == n);	/* ack all but the last */
	}
	wr(f, IXGBE_I2CCTL, IXGBE_I2C_CLK_OUT);	/* STOP: SDA rises, SCL high */
	wr(f, IXGBE_I2CCTL, IXGBE_I2C_CLK_OUT | IXGBE_I2C_DATA_OUT);
	return true;
}

/* The modules' EEPROMs, as SFF-8472 lays them out; no module, no ack. */
static void test_sfp_eeprom(void **state)
{
	struct fixture *f = *state;
	uint8_t b[40];

	reset(f);
	assert_true(sfp_read(f, 0, b, 9));
	assert_int_equal(b[0], 0x03);
	assert_int_equal(b[8], 0x04);			/* passive direct attach */
	ixgbe_model_set_port(f->m, 0x10fb, IXGBE_MODULE_SR_INTEL);
	assert_true(sfp_read(f, 0, b, 40));
	assert_int_equal(b[3], 0x10);			/* 10GBASE-SR */
	assert_int_equal(b[6], 0x01);			/* 1000BASE-SX */
	assert_memory_equal(b + 37, ((const uint8_t[]){ 0x00, 0x1b, 0x21 }), 3);
	ixgbe_model_set_port(f->m, 0x10fb, IXGBE_MODULE_NONE);
	assert_false(sfp_read(f, 0, b, 1));
	assert_no_errors(f);
}

/* Link only with SFI, no link-disable bit, and for optics the laser on (and rate select). */
static void test_link_needs(void **state)
{
	struct fixture *f = *state;

	reset(f);
	/* The NVM's AUTOC2 disables the link. */
	mac_sync(f, true);
	wr(f, IXGBE_AUTOC, IXGBE_AUTOC_LMS_10G_SERIAL | IXGBE_AUTOC_AN_RESTART);
	mac_sync(f, false);
	ixgbe_model_advance(f->m, IXGBE_MODEL_LINK_US);
	assert_int_equal(rd(f, IXGBE_LINKS), 0);
	wr(f, IXGBE_AUTOC2, IXGBE_AUTOC2_PMA_PMD_SFI);
	assert_true(rd(f, IXGBE_LINKS) & IXGBE_LINKS_UP);
	/* Dual-rate optics: dark until the laser is on, down until rate select is high. */
	ixgbe_model_set_port(f->m, 0x10fb, IXGBE_MODULE_SR_INTEL);
	assert_int_equal(rd(f, IXGBE_LINKS), 0);
	wr(f, IXGBE_ESDP, IXGBE_ESDP_SDP3_DIR);
	assert_int_equal(rd(f, IXGBE_LINKS), 0);
	wr(f, IXGBE_ESDP, IXGBE_ESDP_SDP3_DIR | IXGBE_ESDP_SDP5_DIR | IXGBE_ESDP_SDP5);
	assert_true(rd(f, IXGBE_LINKS) & IXGBE_LINKS_UP);
	/* A KX4 part never links over SFI; a missed auto-negotiation never at all. */
	ixgbe_model_set_port(f->m, 0x10f7, IXGBE_MODULE_SR_INTEL);
	assert_int_equal(rd(f, IXGBE_LINKS), 0);
	ixgbe_model_set_port(f->m, 0x10fb, IXGBE_MODULE_DAC);
	ixgbe_model_set_link_misses(f->m, 1);
	link_on(f, IXGBE_AUTOC_LMS_10G_SERIAL);
	ixgbe_model_advance(f->m, 10 * IXGBE_MODEL_LINK_US);
	assert_int_equal(rd(f, IXGBE_LINKS), 0);
	link_on(f, IXGBE_AUTOC_LMS_10G_SERIAL);
	ixgbe_model_advance(f->m, IXGBE_MODEL_LINK_US);
	assert_true(rd(f, IXGBE_LINKS) & IXGBE_LINKS_UP);
	assert_no_errors(f);
}

/* Each rule a driver can break here is counted. */
static void test_first_contact_rules(void **state)
{
	struct fixture *f = *state;
	const char *why;

	reset(f);
	wr(f, IXGBE_AUTOC, IXGBE_AUTOC_LMS_10G_SERIAL);
	assert_int_equal(ixgbe_model_errors(f->m, &why), 1);
	assert_non_null(strstr(why, "without SW_FW_SYNC"));
	wr(f, IXGBE_SW_FW_SYNC, IXGBE_SW_FW_SYNC_SW_MAC);		/* without SWSM */
	assert_int_equal(ixgbe_model_errors(f->m, NULL), 2);
	mac_sync(f, false);
	ixgbe_model_set_fw_busy(f->m, 1000);
	assert_true(rd(f, IXGBE_SW_FW_SYNC) & IXGBE_SW_FW_SYNC_FW_MAC);
	mac_sync(f, true);						/* taken from the firmware */
	assert_int_equal(ixgbe_model_errors(f->m, NULL), 3);
	wr(f, IXGBE_RXCTRL, IXGBE_RXCTRL_RXEN);			/* the erratum */
	assert_int_equal(ixgbe_model_errors(f->m, NULL), 4);
	assert_non_null(strstr(ixgbe_model_last_error(f->m), "erratum"));
	wr(f, IXGBE_DCA_RXCTRL(5), IXGBE_DCA_RXCTRL_DATA_WRO);
	wr(f, IXGBE_RDLEN(5), RING * 16);
	wr(f, IXGBE_RXDCTL(5), IXGBE_RXDCTL_ENABLE);			/* relaxed ordering */
	assert_int_equal(ixgbe_model_errors(f->m, NULL), 5);
	assert_non_null(strstr(ixgbe_model_last_error(f->m), "relaxed ordering"));
}

/* TSO with a nonzero IPv4 checksum field, and a 16-byte frame, are refused. */
static void test_tx_first_contact_rules(void **state)
{
	static const uint32_t whole[] = { 0 };
	struct fixture *f = *state;
	struct tp_spec s = { .payload = 3000, .tcp_flags = TP_TCP_ACK };
	struct tp_frame l;
	uint32_t len;
	unsigned int next;

	tx_setup(f);
	memcpy(s.dst, mac_peer, ETH_ALEN);
	memcpy(s.src, mac_a, ETH_ALEN);
	tp_layout(&s, &l);
	len = tp_build(f->frame, &s);
	seed_without_length(f->frame, &s);
	next = put_frame(f, len, whole, (l.l4 - l.l3) | l.l3 << IXGBE_TXCTX_MACLEN_SHIFT,
			 IXGBE_TXCTX_TUCMD_L4T_TCP | IXGBE_TXCTX_TUCMD_IPV4,
			 1000u << IXGBE_TXCTX_MSS_SHIFT | 20u << IXGBE_TXCTX_L4LEN_SHIFT,
			 IXGBE_TXD_DCMD_TSE, (len - l.data) << IXGBE_TXD_PAYLEN_SHIFT | IXGBE_TXD_CC |
			 IXGBE_TXD_POPTS_TXSM | IXGBE_TXD_POPTS_IXSM);
	wr(f, IXGBE_TDT(0), next);
	assert_int_equal(ixgbe_model_errors(f->m, NULL), 1);
	/* The segments carry the spoiled checksum, as the hardware would send them. */
	assert_int_equal(ixgbe_model_wire_count(f->m), 3);
	assert_true(ixgbe_model_wire_pop(f->m, &f->wire));
	assert_false(tp_checksums_ok(f->wire.data, f->wire.len));

	memset(f->tx.buf, 0x11, 16);
	put_desc(f, next, f->tx.buf_bus, (uint64_t)(16u << IXGBE_TXD_PAYLEN_SHIFT) << 32 | 16 |
		 IXGBE_TXD_DTYP_DATA | IXGBE_TXD_DCMD_DEXT | IXGBE_TXD_DCMD_EOP);
	wr(f, IXGBE_TDT(0), next + 1);
	assert_int_equal(ixgbe_model_errors(f->m, NULL), 2);
	assert_non_null(strstr(ixgbe_model_last_error(f->m), "16-byte frame"));
}

/* A queue with work when the link goes stays hung until disabled and enabled. */
static void test_tx_hang_on_link_loss(void **state)
{
	static const uint32_t whole[] = { 0 };
	struct fixture *f = *state;
	unsigned int next;

	tx_setup(f);
	memset(f->frame, 0x22, 100);
	ixgbe_model_set_tx_paused(f->m, true);
	next = put_frame(f, 100, whole, 0, 0, 0, 0, 100u << IXGBE_TXD_PAYLEN_SHIFT);
	wr(f, IXGBE_TDT(0), next);
	ixgbe_model_set_cable(f->m, false);
	ixgbe_model_set_tx_paused(f->m, false);
	ixgbe_model_set_cable(f->m, true);
	ixgbe_model_advance(f->m, IXGBE_MODEL_LINK_US);
	assert_true(rd(f, IXGBE_LINKS) & IXGBE_LINKS_UP);
	ixgbe_model_step(f->m);
	assert_int_equal(rd(f, IXGBE_TDH(0)), 0);
	assert_int_equal(ixgbe_model_wire_count(f->m), 0);
	wr(f, IXGBE_TXDCTL(0), 0);
	wr(f, IXGBE_TDH(0), 0);
	wr(f, IXGBE_TDT(0), 0);
	wr(f, IXGBE_TXDCTL(0), IXGBE_TXDCTL_ENABLE);
	f->io.delay_us(f->io.ctx, IXGBE_MODEL_QUEUE_US);
	wr(f, IXGBE_TDT(0), next);
	assert_int_equal(ixgbe_model_wire_count(f->m), 1);
	assert_no_errors(f);
}

/* Pause frames reach the pools unless DPF; other MAC control frames only with PMCF. */
static void test_rx_mac_control(void **state)
{
	struct fixture *f = *state;
	uint8_t *p = f->frame;

	rx_setup(f, true);
	memset(p, 0, 60);
	memcpy(p, ((const uint8_t[]){ 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 }), ETH_ALEN);
	memcpy(p + ETH_ALEN, mac_peer, ETH_ALEN);
	p[12] = 0x88;
	p[13] = 0x08;
	p[15] = 0x01;
	wr(f, IXGBE_FCTRL, IXGBE_FCTRL_BAM | IXGBE_FCTRL_MPE);
	assert_int_equal(ixgbe_model_receive(f->m, p, 60), 2);
	wr(f, IXGBE_FCTRL, IXGBE_FCTRL_BAM | IXGBE_FCTRL_MPE | IXGBE_FCTRL_DPF);
	assert_int_equal(ixgbe_model_receive(f->m, p, 60), 0);
	p[14] = 0x01;
	assert_int_equal(ixgbe_model_receive(f->m, p, 60), 0);
	wr(f, IXGBE_FCTRL, IXGBE_FCTRL_BAM | IXGBE_FCTRL_MPE | IXGBE_FCTRL_PMCF);
	assert_int_equal(ixgbe_model_receive(f->m, p, 60), 2);
	assert_no_errors(f);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_reset_handshake),
		T(test_queue_enable),
		T(test_link),
		T(test_tso_ipv4),
		T(test_tso_ipv6),
		T(test_tx_checksums),
		T(test_tx_descriptor_rules),
		T(test_tx_partial_and_paused),
		T(test_rx_pools),
		T(test_rx_no_descriptors),
		T(test_rx_filters),
		T(test_sfp_eeprom),
		T(test_link_needs),
		T(test_first_contact_rules),
		T(test_tx_first_contact_rules),
		T(test_tx_hang_on_link_loss),
		T(test_rx_mac_control),
	};
#undef T

	return cmocka_run_group_tests_name("82599 model", tests, NULL, NULL) ? 1 : 0;
}
