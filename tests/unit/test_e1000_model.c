/* SPDX-License-Identifier: MIT */
/*
 * test_e1000_model.c - unit tests for the 82540EM model (tests/models/), so
 * that the driver's tests stand on a model known to act as the manual says:
 * reset, link, EEPROM reads, the receive filter, descriptors written or
 * missed, FCS and buffer sizes, receive checksums, legacy and context/data
 * transmit with checksum insertion, TCP segmentation, a paused transmitter,
 * and the knobs that mimic emulators.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drivers/net/e1000_regs.h"
#include "tests/models/e1000_model.h"
#include "tests/unit/support/test_packets.h"

#define RING	8
#define BUFSZ	2048

static const uint8_t nic_mac[ETH_ALEN] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const uint8_t peer_mac[ETH_ALEN] = { 0x02, 0x99, 0x88, 0x77, 0x66, 0x55 };

struct fixture {
	struct e1000_model *m;
	struct nic_io io;
	struct e1000_rx_desc *rx;
	struct e1000_tx_desc *tx;
	uint8_t *rx_buf, *tx_buf;
	uint64_t rx_buf_bus, tx_buf_bus;
	uint32_t tdt;
	uint8_t frame[NET_FRAME_MAX];
	uint8_t wire[NET_FRAME_MAX];
};

static uint32_t rd(struct fixture *f, uint32_t off)
{
	return f->io.read32(f->io.ctx, off);
}

static void wr(struct fixture *f, uint32_t off, uint32_t v)
{
	f->io.write32(f->io.ctx, off, v);
}

static void *alloc(struct fixture *f, size_t bytes, uint64_t *bus)
{
	void *p = f->io.dma_alloc(f->io.ctx, 0, bytes, 128, bus);

	assert_non_null(p);
	return p;
}

/* Rings of RING descriptors, RX buffers given to the model, both enabled. */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	uint64_t bus;

	f->m = e1000_model_new(nic_mac);
	f->io = e1000_model_io(f->m);
	f->rx = alloc(f, RING * 16, &bus);
	wr(f, E1000_RDBAL, (uint32_t)bus);
	wr(f, E1000_RDBAH, (uint32_t)(bus >> 32));
	f->tx = alloc(f, RING * 16, &bus);
	wr(f, E1000_TDBAL, (uint32_t)bus);
	wr(f, E1000_TDBAH, (uint32_t)(bus >> 32));
	f->rx_buf = alloc(f, RING * BUFSZ, &f->rx_buf_bus);
	f->tx_buf = alloc(f, 80 * 1024, &f->tx_buf_bus);
	for (unsigned int i = 0; i < RING; i++)
		f->rx[i].addr = f->rx_buf_bus + i * BUFSZ;
	wr(f, E1000_RDLEN, RING * 16);
	wr(f, E1000_TDLEN, RING * 16);
	wr(f, E1000_RDT, RING - 1);
	wr(f, E1000_RCTL, E1000_RCTL_EN | E1000_RCTL_BAM | E1000_RCTL_SECRC);
	wr(f, E1000_TCTL, E1000_TCTL_EN | E1000_TCTL_PSP);
	wr(f, E1000_CTRL, E1000_CTRL_SLU);
	f->io.delay_us(f->io.ctx, E1000_MODEL_LINK_US);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	e1000_model_free(f->m);
	free(f);
	return 0;
}

static uint32_t build(struct fixture *f, const uint8_t *dst, uint32_t payload, bool ipv6)
{
	struct tp_spec s = { .ipv6 = ipv6, .payload = payload, .seq = 1000, .ip_id = 7,
			     .tcp_flags = TP_TCP_ACK | TP_TCP_PSH, .seed = 5 };

	memcpy(s.dst, dst, ETH_ALEN);
	memcpy(s.src, peer_mac, ETH_ALEN);
	return tp_build(f->frame, &s);
}

/* Queues one descriptor (already in tx[tdt]) and moves TDT past it. */
static void post(struct fixture *f, uint64_t addr, uint32_t lower, uint32_t upper)
{
	f->tx[f->tdt] = (struct e1000_tx_desc){ .addr = addr, .lower = lower, .upper = upper };
	f->tdt = (f->tdt + 1) % RING;
}

/* --- reset, link, EEPROM ----------------------------------------------------- */

static void test_reset(void **state)
{
	struct fixture *f = *state;

	wr(f, E1000_RAL(3), 0x1234);
	wr(f, E1000_RAH(3), E1000_RAH_AV);
	wr(f, E1000_CTRL, E1000_CTRL_RST);
	assert_true(rd(f, E1000_CTRL) & E1000_CTRL_RST);
	f->io.delay_us(f->io.ctx, E1000_MODEL_RESET_US);
	assert_false(rd(f, E1000_CTRL) & E1000_CTRL_RST);
	assert_int_equal(rd(f, E1000_RCTL), 0);
	assert_int_equal(rd(f, E1000_TDLEN), 0);
	assert_int_equal(rd(f, E1000_RAH(3)), 0);
	/* RAR0 holds the EEPROM's address. */
	assert_int_equal(rd(f, E1000_RAL(0)), 0x33221102);
	assert_int_equal(rd(f, E1000_RAH(0)), E1000_RAH_AV | 0x5544);

	f->m->rar0_from_eeprom = false;		/* as Bochs does */
	wr(f, E1000_CTRL, E1000_CTRL_RST);
	assert_int_equal(rd(f, E1000_RAH(0)), 0);
}

static void test_link(void **state)
{
	struct fixture *f = *state;
	uint32_t status = rd(f, E1000_STATUS);

	assert_true(status & E1000_STATUS_LU);
	assert_int_equal((status & E1000_STATUS_SPEED_MASK) >> E1000_STATUS_SPEED_SHIFT, 2);
	e1000_model_set_cable(f->m, false);
	assert_false(rd(f, E1000_STATUS) & E1000_STATUS_LU);
	e1000_model_set_cable(f->m, true);
	assert_false(rd(f, E1000_STATUS) & E1000_STATUS_LU);	/* not yet */
	f->io.delay_us(f->io.ctx, E1000_MODEL_LINK_US);
	assert_true(rd(f, E1000_STATUS) & E1000_STATUS_LU);
	wr(f, E1000_CTRL, E1000_CTRL_RST);			/* SLU gone */
	f->io.delay_us(f->io.ctx, 1000);
	assert_false(rd(f, E1000_STATUS) & E1000_STATUS_LU);
}

static void test_eeprom(void **state)
{
	struct fixture *f = *state;
	uint16_t sum = 0;

	for (uint32_t w = 0; w < 64; w++) {
		uint32_t v;

		wr(f, E1000_EERD, w << E1000_EERD_ADDR_SHIFT | E1000_EERD_START);
		v = rd(f, E1000_EERD);
		assert_true(v & E1000_EERD_DONE);
		sum = (uint16_t)(sum + (v >> E1000_EERD_DATA_SHIFT));
		if (w < 3)
			assert_int_equal(v >> E1000_EERD_DATA_SHIFT,
					 nic_mac[2 * w] | nic_mac[2 * w + 1] << 8);
	}
	assert_int_equal(sum, 0xbaba);
}

/* --- receive ----------------------------------------------------------------- */

static void test_rx_filter(void **state)
{
	struct fixture *f = *state;
	static const uint8_t bcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t mcast[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb };
	uint32_t len;

	len = build(f, nic_mac, 100, false);
	assert_true(e1000_model_receive(f->m, f->frame, len));
	len = build(f, peer_mac, 100, false);
	assert_false(e1000_model_receive(f->m, f->frame, len));
	len = build(f, bcast, 100, false);
	assert_true(e1000_model_receive(f->m, f->frame, len));
	len = build(f, mcast, 100, false);
	assert_false(e1000_model_receive(f->m, f->frame, len));
	assert_int_equal(f->m->filtered, 2);
	/* MTA, MO 0: bits 47:36 of 01:00:5e:00:00:fb are 0xfb0. */
	wr(f, E1000_MTA(0xfb0 >> 5), 1u << (0xfb0 & 31));
	assert_true(e1000_model_receive(f->m, f->frame, len));
	wr(f, E1000_MTA(0xfb0 >> 5), 0);
	wr(f, E1000_RCTL, rd(f, E1000_RCTL) | E1000_RCTL_MPE);
	assert_true(e1000_model_receive(f->m, f->frame, len));
	/* A second exact address, then promiscuous. */
	len = build(f, peer_mac, 100, false);
	wr(f, E1000_RAL(5), 0x77889902);
	wr(f, E1000_RAH(5), 0x5566 | E1000_RAH_AV);
	assert_true(e1000_model_receive(f->m, f->frame, len));
	wr(f, E1000_RAH(5), 0);
	f->frame[5] ^= 1;
	assert_false(e1000_model_receive(f->m, f->frame, len));
	wr(f, E1000_RCTL, rd(f, E1000_RCTL) | E1000_RCTL_UPE);
	assert_true(e1000_model_receive(f->m, f->frame, len));
}

static void test_rx_descriptors(void **state)
{
	struct fixture *f = *state;
	uint32_t len = build(f, nic_mac, 200, false);

	for (unsigned int i = 0; i < RING - 1; i++) {
		f->frame[60] = (uint8_t)i;
		assert_true(e1000_model_receive(f->m, f->frame, len));
		assert_int_equal(f->rx[i].status, E1000_RXD_STAT_DD | E1000_RXD_STAT_EOP);
		assert_int_equal(f->rx[i].length, len);
		assert_memory_equal(f->rx_buf + i * BUFSZ, f->frame, len);
	}
	assert_int_equal(rd(f, E1000_RDH), RING - 1);
	/* RDH == RDT: nothing left to write into. */
	assert_false(e1000_model_receive(f->m, f->frame, len));
	assert_false(e1000_model_receive(f->m, f->frame, len));
	assert_int_equal(f->m->missed, 2);
	assert_int_equal(rd(f, E1000_MPC), 2);
	assert_int_equal(rd(f, E1000_MPC), 0);		/* clear on read */
	assert_int_equal(rd(f, E1000_GPRC), RING - 1);
	/* Two given back: two more fit. */
	wr(f, E1000_RDT, 1);
	assert_true(e1000_model_receive(f->m, f->frame, len));
	assert_true(e1000_model_receive(f->m, f->frame, len));
	assert_false(e1000_model_receive(f->m, f->frame, len));
}

static void test_rx_fcs_padding_and_buffer_size(void **state)
{
	struct fixture *f = *state;
	uint32_t len = build(f, nic_mac, 0, false);	/* 54 bytes */

	wr(f, E1000_RCTL, E1000_RCTL_EN);		/* FCS kept */
	assert_true(e1000_model_receive(f->m, f->frame, len));
	assert_int_equal(f->rx[0].length, 64);		/* padded to 60, plus FCS */
	/* 256-byte buffers: a 600-byte frame takes three descriptors. */
	wr(f, E1000_RCTL, E1000_RCTL_EN | E1000_RCTL_SECRC | 3u << E1000_RCTL_BSIZE_SHIFT);
	len = build(f, nic_mac, 600 - 54, false);
	assert_true(e1000_model_receive(f->m, f->frame, len));
	assert_int_equal(f->rx[1].length, 256);
	assert_int_equal(f->rx[1].status, E1000_RXD_STAT_DD);
	assert_int_equal(f->rx[3].length, 600 - 512);
	assert_true(f->rx[3].status & E1000_RXD_STAT_EOP);
	/* Too long without LPE. */
	wr(f, E1000_RCTL, E1000_RCTL_EN | E1000_RCTL_SECRC);
	len = build(f, nic_mac, 1600, false);
	assert_false(e1000_model_receive(f->m, f->frame, len));
}

static void test_rx_checksum(void **state)
{
	struct fixture *f = *state;
	uint32_t len = build(f, nic_mac, 300, false);

	assert_true(e1000_model_receive(f->m, f->frame, len));
	assert_int_equal(f->rx[0].status & 0x64, 0);	/* RXCSUM off: nothing said */
	wr(f, E1000_RXCSUM, E1000_RXCSUM_TUOFL | E1000_RXCSUM_IPOFL);
	assert_true(e1000_model_receive(f->m, f->frame, len));
	assert_int_equal(f->rx[1].status & 0x64, E1000_RXD_STAT_TCPCS | E1000_RXD_STAT_IPCS);
	assert_int_equal(f->rx[1].errors, 0);
	f->frame[len - 1] ^= 0x40;
	assert_true(e1000_model_receive(f->m, f->frame, len));
	assert_int_equal(f->rx[2].errors, E1000_RXD_ERR_TCPE);
	len = build(f, nic_mac, 300, true);
	assert_true(e1000_model_receive(f->m, f->frame, len));
	assert_int_equal(f->rx[3].status & 0x64, E1000_RXD_STAT_TCPCS);
	assert_int_equal(f->rx[3].errors, 0);
	f->m->rx_ixsm = true;				/* as Bochs and QEMU */
	assert_true(e1000_model_receive(f->m, f->frame, len));
	assert_int_equal(f->rx[4].status & 0x64, E1000_RXD_STAT_IXSM);
}

/* --- transmit ---------------------------------------------------------------- */

static void test_tx_legacy(void **state)
{
	struct fixture *f = *state;
	uint32_t len = build(f, peer_mac, 500, false);
	uint64_t doorbells = f->m->tdt_writes;

	memcpy(f->tx_buf, f->frame, 100);
	memcpy(f->tx_buf + 4096, f->frame + 100, len - 100);
	post(f, f->tx_buf_bus, 100 | E1000_TXD_CMD_IFCS, 0);
	post(f, f->tx_buf_bus + 4096, (len - 100) | E1000_TXD_CMD_EOP | E1000_TXD_CMD_IFCS |
	     E1000_TXD_CMD_RS, 0);
	wr(f, E1000_TDT, f->tdt);
	assert_int_equal(rd(f, E1000_TDH), 2);
	assert_int_equal(e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire)), len);
	assert_memory_equal(f->wire, f->frame, len);
	assert_int_equal(f->tx[0].upper & E1000_TXD_STAT_DD, 0);	/* no RS */
	assert_int_equal(f->tx[1].upper & E1000_TXD_STAT_DD, E1000_TXD_STAT_DD);
	/* Padded to 60 bytes. */
	post(f, f->tx_buf_bus, 20 | E1000_TXD_CMD_EOP | E1000_TXD_CMD_RS, 0);
	wr(f, E1000_TDT, f->tdt);
	assert_int_equal(e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire)), 60);
	assert_int_equal(e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire)), 0);
	assert_int_equal(f->m->tdt_writes, doorbells + 2);
}

static void test_tx_checksum_offload(void **state)
{
	struct fixture *f = *state;
	struct virtio_net_hdr_v1 hdr;
	struct e1000_ctx_desc ctx = { 0 };
	uint32_t len = build(f, peer_mac, 700, false);

	tp_make_partial(f->frame, len, &hdr, 0);
	f->frame[ETH_HLEN + 10] = f->frame[ETH_HLEN + 11] = 0;	/* IP checksum to insert */
	assert_false(tp_checksums_ok(f->frame, len));
	memcpy(f->tx_buf, f->frame, len);
	ctx.ipcss = ETH_HLEN;
	ctx.ipcso = ETH_HLEN + 10;
	ctx.ipcse = ETH_HLEN + 19;
	ctx.tucss = (uint8_t)hdr.csum_start;
	ctx.tucso = (uint8_t)(hdr.csum_start + hdr.csum_offset);
	ctx.cmd_len = E1000_TXD_CMD_DEXT | E1000_TXD_DTYP_CTX | E1000_TXD_CMD_RS |
		      E1000_TXD_TUCMD_IP | E1000_TXD_TUCMD_TCP;
	memcpy(&f->tx[f->tdt], &ctx, sizeof(ctx));
	f->tdt++;
	post(f, f->tx_buf_bus, len | E1000_TXD_CMD_DEXT | E1000_TXD_DTYP_DATA |
	     E1000_TXD_CMD_EOP | E1000_TXD_CMD_RS,
	     E1000_TXD_POPTS_TXSM | E1000_TXD_POPTS_IXSM);
	wr(f, E1000_TDT, f->tdt);
	assert_int_equal(f->tx[0].upper & E1000_TXD_STAT_DD, E1000_TXD_STAT_DD);
	assert_int_equal(e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire)), len);
	assert_true(tp_checksums_ok(f->wire, len));
}

static void check_tso(struct fixture *f, bool ipv6, uint32_t payload, uint16_t mss)
{
	struct virtio_net_hdr_v1 hdr;
	struct e1000_ctx_desc ctx = { 0 };
	struct tp_frame orig, seg;
	uint32_t len = build(f, peer_mac, payload, ipv6), at, sent = 0, frames = 0, l;
	uint8_t *field;

	assert_true(tp_parse(f->frame, len, &orig));
	tp_make_partial(f->frame, len, &hdr, mss);
	/* §3 (TCP segmentation): the field holds the pseudo-header sum without a length. */
	field = f->frame + hdr.csum_start + hdr.csum_offset;
	{
		uint16_t with_len = (uint16_t)(field[0] << 8 | field[1]);
		uint32_t l4_len = len - hdr.csum_start;
		uint32_t v = (uint32_t)with_len + (0xffff - l4_len);

		v = (v & 0xffff) + (v >> 16);
		field[0] = (uint8_t)(v >> 8);
		field[1] = (uint8_t)v;
	}
	if (!ipv6)
		f->frame[ETH_HLEN + 10] = f->frame[ETH_HLEN + 11] = 0;
	memcpy(f->tx_buf, f->frame, len);
	ctx.ipcss = ETH_HLEN;
	ctx.ipcso = ETH_HLEN + 10;
	ctx.ipcse = (uint16_t)(orig.l4 - 1);
	ctx.tucss = (uint8_t)orig.l4;
	ctx.tucso = (uint8_t)(orig.l4 + 16);
	ctx.hdr_len = (uint8_t)orig.data;
	ctx.mss = mss;
	ctx.cmd_len = (len - orig.data) | E1000_TXD_CMD_DEXT | E1000_TXD_DTYP_CTX |
		      E1000_TXD_CMD_TSE | E1000_TXD_TUCMD_TCP | (ipv6 ? 0 : E1000_TXD_TUCMD_IP);
	memcpy(&f->tx[f->tdt], &ctx, sizeof(ctx));
	f->tdt = (f->tdt + 1) % RING;
	/* The packet in data descriptors of at most 16 KiB. */
	for (at = 0; at < len; at += l) {
		l = len - at < 16384 ? len - at : 16384;
		post(f, f->tx_buf_bus + at, l | E1000_TXD_CMD_DEXT | E1000_TXD_DTYP_DATA |
		     E1000_TXD_CMD_TSE | (at + l == len ? E1000_TXD_CMD_EOP | E1000_TXD_CMD_RS : 0),
		     E1000_TXD_POPTS_TXSM | (ipv6 ? 0 : E1000_TXD_POPTS_IXSM));
	}
	wr(f, E1000_TDT, f->tdt);
	while ((l = e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire))) != 0) {
		assert_true(tp_parse(f->wire, l, &seg));
		assert_true(tp_checksums_ok(f->wire, l));
		assert_int_equal(seg.seq, orig.seq + sent);
		assert_true(seg.data_len <= mss);
		if (!ipv6)
			assert_int_equal(seg.ip_id, orig.ip_id + frames);
		assert_memory_equal(f->wire + seg.data, f->frame + orig.data + sent, seg.data_len);
		sent += seg.data_len;
		frames++;
		assert_int_equal(seg.tcp_flags & TP_TCP_PSH, sent == payload ? TP_TCP_PSH : 0);
	}
	assert_int_equal(sent, payload);
	assert_int_equal(frames, (payload + mss - 1) / mss);
}

static void test_tx_tso(void **state)
{
	struct fixture *f = *state;

	check_tso(f, false, 65535 - 40, 1460);
	check_tso(f, true, 60000, 1440);
	check_tso(f, false, 10 * 1448, 1448);	/* a multiple: no empty segment */
	assert_int_equal(f->m->tx_errors, 0);
}

static void test_tx_pause(void **state)
{
	struct fixture *f = *state;
	uint32_t len = build(f, peer_mac, 64, false);

	memcpy(f->tx_buf, f->frame, len);
	e1000_model_tx_pause(f->m, true);
	post(f, f->tx_buf_bus, len | E1000_TXD_CMD_EOP | E1000_TXD_CMD_RS, 0);
	wr(f, E1000_TDT, f->tdt);
	assert_int_equal(rd(f, E1000_TDH), 0);
	assert_int_equal(f->tx[0].upper, 0);
	e1000_model_tx_pause(f->m, false);
	assert_int_equal(rd(f, E1000_TDH), 1);
	assert_int_equal(e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire)), len);
}

/* --- emulator knobs and bad addresses ---------------------------------------- */

static void test_rar_entries_knob(void **state)
{
	struct fixture *f = *state;

	f->m->rar_entries = 4;
	wr(f, E1000_RAH(3), E1000_RAH_AV);
	wr(f, E1000_RAH(4), E1000_RAH_AV);
	assert_int_equal(rd(f, E1000_RAH(3)), E1000_RAH_AV);
	assert_int_equal(rd(f, E1000_RAH(4)), 0);
}

static void test_dma_outside_arena(void **state)
{
	struct fixture *f = *state;
	uint32_t len = build(f, nic_mac, 64, false);

	f->rx[0].addr = 0x1000;
	assert_true(e1000_model_receive(f->m, f->frame, len));
	assert_int_equal(f->m->dma_errors, 1);
	post(f, E1000_MODEL_BUS_BASE + E1000_MODEL_MEM - 8, 64 | E1000_TXD_CMD_EOP, 0);
	wr(f, E1000_TDT, f->tdt);
	assert_int_equal(f->m->tx_errors, 1);
	assert_int_equal(e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire)), 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_reset),
		T(test_link),
		T(test_eeprom),
		T(test_rx_filter),
		T(test_rx_descriptors),
		T(test_rx_fcs_padding_and_buffer_size),
		T(test_rx_checksum),
		T(test_tx_legacy),
		T(test_tx_checksum_offload),
		T(test_tx_tso),
		T(test_tx_pause),
		T(test_rar_entries_knob),
		T(test_dma_outside_arena),
	};
#undef T

	return cmocka_run_group_tests_name("e1000 model", tests, NULL, NULL);
}
