/* SPDX-License-Identifier: MIT */
/*
 * test_e1000.c - unit tests for drivers/net/e1000.c against the 82540EM
 * model: init (MAC from RAR0 or the EEPROM, link, registers), a thousand
 * frames each way, checksum offload both ways, 64 KiB TSO frames over IPv4
 * and IPv6 reaching the wire as valid MTU frames, add_mac filtering and its
 * fallback when receive address registers run out, link down and up, a full
 * transmit ring, one TDT write per committed batch (a batch cut short by a
 * full ring too), a receive ring without descriptors, and write-backs the
 * driver must not trust.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drivers/net/e1000.h"
#include "drivers/net/e1000_regs.h"
#include "tests/models/e1000_model.h"
#include "tests/unit/support/test_packets.h"

#define LOG_MAX		300
#define FRAME_MAX	2048

static const uint8_t nic_mac[ETH_ALEN] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t peer_mac[ETH_ALEN] = { 0x02, 0x99, 0x00, 0x00, 0x00, 0x99 };

struct rx_entry {
	uint32_t len;
	uint8_t flags;
	uint8_t data[FRAME_MAX];
};

struct fixture {
	struct e1000_model *m;
	struct nic nic;
	unsigned int received;
	struct rx_entry log[LOG_MAX];
	uint8_t frame[NET_FRAME_MAX];
	uint8_t wire[NET_FRAME_MAX];
	uint8_t joined[NET_FRAME_MAX];
};

static void record(void *ctx, struct net_packet *pkt)
{
	struct fixture *f = ctx;
	struct rx_entry *e;

	assert_true(f->received < LOG_MAX);
	assert_int_equal(pkt->count, 1);
	assert_true(pkt->len <= FRAME_MAX);
	e = &f->log[f->received++];
	e->len = pkt->len;
	e->flags = pkt->hdr.flags;
	assert_int_equal(net_packet_read(pkt, 0, e->data, pkt->len), pkt->len);
	assert_memory_equal(pkt->eth, e->data, ETH_HLEN);
}

static void mac_n(uint8_t mac[ETH_ALEN], unsigned int n)
{
	memcpy(mac, nic_mac, ETH_ALEN);
	mac[4] = 0x10;
	mac[5] = (uint8_t)n;
}

static struct fixture *fixture_new(void)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->m = e1000_model_new(nic_mac);
	f->nic.ops = &e1000_ops;
	f->nic.io = e1000_model_io(f->m);
	f->nic.queues = 1;
	return f;
}

static int setup(void **state)
{
	struct fixture *f = fixture_new();

	if (f->nic.ops->init(&f->nic) != 0)
		return -1;
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

/* A TCP frame from the peer to @dst (or from us to the peer) carrying @tag. */
static uint32_t build(struct fixture *f, const uint8_t *dst, const uint8_t *src,
		      uint32_t payload, uint32_t tag, bool ipv6)
{
	struct tp_spec s = { .ipv6 = ipv6, .payload = payload, .seq = tag, .ip_id = 1,
			     .tcp_flags = TP_TCP_ACK, .seed = (uint8_t)tag };

	memcpy(s.dst, dst, ETH_ALEN);
	memcpy(s.src, src, ETH_ALEN);
	return tp_build(f->frame, &s);
}

static unsigned int poll_all(struct fixture *f)
{
	unsigned int total = 0, got;

	while ((got = f->nic.ops->rx_burst(&f->nic, 0, record, f, 32)) != 0)
		total += got;
	return total;
}

/* Queues one frame, leaving it for the next commit. */
static bool queue(struct fixture *f, uint32_t len, const struct virtio_net_hdr_v1 *hdr)
{
	struct net_packet pkt;

	tp_packet_pieces(&pkt, f->frame, len, 2048);
	if (hdr)
		pkt.hdr = *hdr;
	return f->nic.ops->tx(&f->nic, 0, &pkt);
}

/* Queues one frame and commits it at once: a pass that sent one frame. */
static bool send(struct fixture *f, uint32_t len, const struct virtio_net_hdr_v1 *hdr)
{
	bool queued = queue(f, len, hdr);

	f->nic.ops->commit(&f->nic, 0);
	return queued;
}

/* --- init ----------------------------------------------------------------- */

static void test_init(void **state)
{
	struct fixture *f = *state;
	uint32_t rctl = e1000_model_peek(f->m, E1000_RCTL);

	assert_memory_equal(f->nic.mac, nic_mac, ETH_ALEN);
	assert_true(f->nic.link_up);
	assert_int_equal(f->nic.speed_mbps, 1000);
	assert_int_equal(rctl & (E1000_RCTL_EN | E1000_RCTL_BAM | E1000_RCTL_MPE | E1000_RCTL_SECRC |
				 E1000_RCTL_UPE | E1000_RCTL_LPE | E1000_RCTL_BSIZE_MASK | E1000_RCTL_BSEX),
			 E1000_RCTL_EN | E1000_RCTL_BAM | E1000_RCTL_MPE | E1000_RCTL_SECRC);
	assert_true(e1000_model_peek(f->m, E1000_RXCSUM) & E1000_RXCSUM_TUOFL);
	assert_int_equal(e1000_model_peek(f->m, E1000_TCTL) & (E1000_TCTL_EN | E1000_TCTL_PSP),
			 E1000_TCTL_EN | E1000_TCTL_PSP);
	assert_int_equal(e1000_model_peek(f->m, E1000_IMS), 0);
	assert_int_equal(e1000_model_peek(f->m, E1000_RDT), E1000_RX_RING - 1);
	assert_int_equal(e1000_model_peek(f->m, E1000_RDLEN), E1000_RX_RING * 16);
	assert_true(e1000_model_peek(f->m, E1000_CTRL) & E1000_CTRL_SLU);
	assert_false(e1000_model_peek(f->m, E1000_CTRL) & E1000_CTRL_RST);
}

static void test_init_again_reuses_memory(void **state)
{
	struct fixture *f = *state;
	size_t used = f->m->mem_used;
	uint32_t len = build(f, peer_mac, nic_mac, 100, 1, false);

	assert_true(send(f, len, NULL));
	assert_int_equal(f->nic.ops->init(&f->nic), 0);
	assert_int_equal(f->m->mem_used, used);
	assert_true(send(f, len, NULL));
	assert_int_equal(e1000_model_peek(f->m, E1000_TDT), 1);
}

static void test_init_checks(void **state)
{
	struct fixture *f = fixture_new();

	(void)state;
	f->nic.queues = 2;
	assert_int_equal(f->nic.ops->init(&f->nic), -EINVAL);
	/* As in Bochs: RAR0 empty after reset, the MAC comes from EERD. */
	f->nic.queues = 1;
	f->m->rar0_from_eeprom = false;
	assert_int_equal(f->nic.ops->init(&f->nic), 0);
	assert_memory_equal(f->nic.mac, nic_mac, ETH_ALEN);
	assert_int_equal(e1000_model_peek(f->m, E1000_RAH(0)), E1000_RAH_AV | 0x0100);
	/* An unplugged cable is no reason to fail. */
	e1000_model_set_cable(f->m, false);
	assert_int_equal(f->nic.ops->init(&f->nic), 0);
	assert_false(f->nic.link_up);
	assert_int_equal(f->nic.speed_mbps, 0);
	/* Nothing in the EEPROM either. */
	memset(f->m->eeprom, 0, sizeof(f->m->eeprom));
	assert_int_equal(f->nic.ops->init(&f->nic), -ENODEV);
	e1000_model_free(f->m);
	free(f);
}

static void test_init_no_memory(void **state)
{
	struct fixture *f = fixture_new();

	(void)state;
	f->m->mem_used = E1000_MODEL_MEM - 4096;
	assert_int_equal(f->nic.ops->init(&f->nic), -ENOMEM);
	e1000_model_free(f->m);
	free(f);
}

/* --- traffic -------------------------------------------------------------- */

static void test_thousand_frames_received(void **state)
{
	struct fixture *f = *state;
	unsigned int checked = 0;
	uint64_t bytes = 0;

	for (uint32_t n = 0; n < 1000; n++) {
		uint32_t len = build(f, nic_mac, peer_mac, (n * 37) % 1441, n, n & 1);

		assert_true(e1000_model_receive(f->m, f->frame, len));
		bytes += len < 60 ? 60 : len;
		if (n % 100 != 99)
			continue;
		assert_int_equal(poll_all(f), 100);
		for (unsigned int i = 0; i < f->received; i++, checked++) {
			uint32_t want = build(f, nic_mac, peer_mac, (checked * 37) % 1441, checked,
					      checked & 1);

			assert_int_equal(f->log[i].len, want < 60 ? 60 : want);
			assert_memory_equal(f->log[i].data, f->frame, want);
			assert_int_equal(f->log[i].flags, VIRTIO_NET_HDR_F_DATA_VALID);
		}
		f->received = 0;
	}
	assert_int_equal(checked, 1000);
	assert_int_equal(f->nic.stats[0].rx_packets, 1000);
	assert_int_equal(f->nic.stats[0].rx_bytes, bytes);
	assert_int_equal(f->nic.stats[0].rx_drops, 0);
}

static void test_thousand_frames_sent(void **state)
{
	struct fixture *f = *state;
	uint64_t bytes = 0;

	for (uint32_t n = 0; n < 1000; n++) {
		uint32_t len = build(f, peer_mac, nic_mac, (n * 53) % 1441, n, n % 3 == 0), got;

		assert_true(send(f, len, NULL));
		bytes += len;
		got = e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire));
		assert_int_equal(got, len < 60 ? 60 : len);
		assert_memory_equal(f->wire, f->frame, len);
	}
	assert_int_equal(f->nic.stats[0].tx_packets, 1000);
	assert_int_equal(f->nic.stats[0].tx_bytes, bytes);
	assert_int_equal(f->m->tx_errors, 0);
}

static void test_tx_checksum_offload(void **state)
{
	struct fixture *f = *state;
	struct virtio_net_hdr_v1 hdr;
	struct tp_spec s = { .udp = true, .payload = 999 };
	uint32_t len, tdt;

	memcpy(s.dst, peer_mac, ETH_ALEN);
	memcpy(s.src, nic_mac, ETH_ALEN);
	for (unsigned int i = 0; i < 4; i++) {
		s.ipv6 = i & 1;
		s.udp = i & 2;
		len = tp_build(f->frame, &s);
		tp_make_partial(f->frame, len, &hdr, 0);
		assert_false(tp_checksums_ok(f->frame, len));
		assert_true(send(f, len, &hdr));
		/* The NIC completes it: the context names the driver's field. */
		assert_int_equal(f->m->ctx.tucss, hdr.csum_start);
		assert_int_equal(f->m->ctx.tucso, hdr.csum_start + hdr.csum_offset);
		tdt = e1000_model_peek(f->m, E1000_TDT);
		assert_true(send(f, len, &hdr));	/* the same context: no new one */
		assert_int_equal(e1000_model_peek(f->m, E1000_TDT), (tdt + 1) % E1000_TX_RING);
		for (int k = 0; k < 2; k++) {
			assert_int_equal(e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire)), len);
			assert_true(tp_checksums_ok(f->wire, len));
		}
	}
	/* A checksum the context cannot reach (offset past 255) is done in software. */
	len = 600;
	for (uint32_t i = 0; i < len; i++)
		f->frame[i] = (uint8_t)(i * 11);
	memcpy(f->frame, peer_mac, ETH_ALEN);
	f->frame[310] = f->frame[311] = 0;	/* a partial sum of 0: the region sums to all ones */
	memset(&hdr, 0, sizeof(hdr));
	hdr.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	hdr.csum_start = 300;
	hdr.csum_offset = 10;
	assert_true(send(f, len, &hdr));
	assert_int_equal(e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire)), len);
	assert_int_equal(tp_sum(0, f->wire + 300, len - 300), 0xffff);
	assert_memory_equal(f->wire, f->frame, 310);
}

static void test_rx_checksum_status(void **state)
{
	struct fixture *f = *state;
	uint32_t len = build(f, nic_mac, peer_mac, 500, 7, false);

	assert_true(e1000_model_receive(f->m, f->frame, len));
	f->frame[len - 1] ^= 1;					/* a bad TCP checksum */
	assert_true(e1000_model_receive(f->m, f->frame, len));
	f->m->rx_ixsm = true;					/* Bochs, QEMU */
	f->frame[len - 1] ^= 1;
	assert_true(e1000_model_receive(f->m, f->frame, len));
	assert_int_equal(poll_all(f), 3);
	assert_int_equal(f->log[0].flags, VIRTIO_NET_HDR_F_DATA_VALID);
	assert_int_equal(f->log[1].flags, 0);			/* delivered, unvouched */
	assert_int_equal(f->log[2].flags, 0);
}

/* A 64 KiB TSO frame leaves as MTU frames with contiguous sequence numbers. */
static void check_tso(struct fixture *f, bool ipv6, uint32_t payload, uint16_t mss)
{
	struct virtio_net_hdr_v1 hdr;
	struct tp_spec s = { .ipv6 = ipv6, .payload = payload, .seq = 0xffff0000u, .ip_id = 9,
			     .tcp_flags = TP_TCP_ACK | TP_TCP_PSH, .seed = 77 };
	struct tp_frame orig, seg;
	uint32_t len, got, sent = 0, frames = 0;
	uint64_t before = f->nic.stats[0].tx_packets;

	memcpy(s.dst, peer_mac, ETH_ALEN);
	memcpy(s.src, nic_mac, ETH_ALEN);
	len = tp_build(f->frame, &s);
	assert_true(tp_parse(f->frame, len, &orig));
	tp_make_partial(f->frame, len, &hdr, mss);
	assert_true(send(f, len, &hdr));
	/* Cut here, each segment's TCP checksum completed by the NIC. */
	assert_int_equal(f->m->ctx.tucso, orig.l4 + 16);
	assert_false(f->m->ctx.tse);
	while ((got = e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire))) != 0) {
		assert_true(got <= ETH_HLEN + NET_MTU);
		assert_true(tp_parse(f->wire, got, &seg));
		assert_true(tp_checksums_ok(f->wire, got));
		assert_int_equal(seg.seq, s.seq + sent);
		if (!ipv6)
			assert_int_equal(seg.ip_id, s.ip_id + frames);
		assert_memory_equal(f->wire + seg.data, f->frame + orig.data + sent, seg.data_len);
		sent += seg.data_len;
		frames++;
		assert_int_equal(seg.tcp_flags, sent == payload ? s.tcp_flags : TP_TCP_ACK);
	}
	assert_int_equal(sent, payload);
	assert_int_equal(frames, (payload + mss - 1) / mss);
	assert_int_equal(f->nic.stats[0].tx_packets - before, frames);
}

static void test_tso(void **state)
{
	struct fixture *f = *state;

	check_tso(f, false, 65535 - 40, 1460);
	check_tso(f, true, NET_FRAME_MAX - ETH_HLEN - 40 - 20, 1440);
	check_tso(f, false, 44 * 1448, 1448);	/* a multiple of the MSS */
	assert_int_equal(f->m->tx_errors, 0);
	assert_int_equal(f->nic.stats[0].tx_drops, 0);
}

static void test_tx_refused(void **state)
{
	struct fixture *f = *state;
	struct virtio_net_hdr_v1 hdr;
	uint32_t len = build(f, peer_mac, nic_mac, 2000, 1, false);

	assert_false(send(f, len, NULL));		/* longer than the MTU */
	tp_make_partial(f->frame, len, &hdr, 1460);
	hdr.hdr_len = (uint16_t)(len + 1);
	assert_false(send(f, len, &hdr));		/* hostile header */
	tp_make_partial(f->frame, len, &hdr, 1);
	assert_false(send(f, len, &hdr));		/* 2000 frames: never fits */
	tp_make_partial(f->frame, len, &hdr, 1600);
	assert_false(send(f, len, &hdr));		/* segments past the MTU */
	assert_int_equal(f->nic.stats[0].tx_drops, 4);
	assert_int_equal(f->nic.stats[0].ring_full, 0);
	assert_int_equal(e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire)), 0);
	assert_int_equal(e1000_model_peek(f->m, E1000_TDT), 0);
}

/* --- filters, link -------------------------------------------------------- */

static unsigned int deliver_to(struct fixture *f, const uint8_t *mac)
{
	uint32_t len = build(f, mac, peer_mac, 64, 1, false);

	f->received = 0;
	e1000_model_receive(f->m, f->frame, len);
	return poll_all(f);
}

static void test_add_mac(void **state)
{
	struct fixture *f = *state;
	static const uint8_t bcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t mcast[ETH_ALEN] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 };
	uint8_t mac[ETH_ALEN];

	mac_n(mac, 1);
	assert_int_equal(deliver_to(f, mac), 0);		/* unknown: filtered */
	assert_int_equal(deliver_to(f, bcast), 1);
	assert_int_equal(deliver_to(f, mcast), 1);
	assert_false(f->nic.ops->add_mac(&f->nic, mcast, 0));
	assert_false(f->nic.ops->add_mac(&f->nic, mac, 1));	/* no queue 1 */
	for (unsigned int n = 1; n < E1000_RAR_ENTRIES; n++) {
		mac_n(mac, n);
		assert_true(f->nic.ops->add_mac(&f->nic, mac, 0));
		assert_true(f->nic.ops->add_mac(&f->nic, mac, 0));	/* again: no new entry */
		assert_int_equal(deliver_to(f, mac), 1);
	}
	assert_true(f->nic.ops->add_mac(&f->nic, nic_mac, 0));
	assert_false(e1000_model_peek(f->m, E1000_RCTL) & E1000_RCTL_UPE);
	mac_n(mac, 200);
	assert_int_equal(deliver_to(f, mac), 0);
	/* The 16th guest MAC finds no entry: unicast promiscuous, the switch filters. */
	mac_n(mac, 16);
	assert_true(f->nic.ops->add_mac(&f->nic, mac, 0));
	assert_true(e1000_model_peek(f->m, E1000_RCTL) & E1000_RCTL_UPE);
	assert_int_equal(deliver_to(f, mac), 1);
	mac_n(mac, 200);
	assert_int_equal(deliver_to(f, mac), 1);
}

static void test_add_mac_bochs_rar(void **state)
{
	struct fixture *f = *state;
	uint8_t mac[ETH_ALEN];

	f->m->rar_entries = 4;		/* Bochs writes RAR0-3 only */
	for (unsigned int n = 1; n < 4; n++) {
		mac_n(mac, n);
		assert_true(f->nic.ops->add_mac(&f->nic, mac, 0));
	}
	assert_false(e1000_model_peek(f->m, E1000_RCTL) & E1000_RCTL_UPE);
	mac_n(mac, 4);
	assert_true(f->nic.ops->add_mac(&f->nic, mac, 0));
	assert_true(e1000_model_peek(f->m, E1000_RCTL) & E1000_RCTL_UPE);
	assert_int_equal(deliver_to(f, mac), 1);
	mac_n(mac, 5);
	assert_true(f->nic.ops->add_mac(&f->nic, mac, 0));
}

static void test_link_down_up(void **state)
{
	struct fixture *f = *state;

	e1000_model_set_cable(f->m, false);
	assert_false(f->nic.ops->link(&f->nic));
	assert_false(f->nic.link_up);
	assert_int_equal(f->nic.speed_mbps, 0);
	assert_int_equal(deliver_to(f, nic_mac), 0);
	e1000_model_set_cable(f->m, true);
	f->nic.io.delay_us(f->nic.io.ctx, E1000_MODEL_LINK_US);
	assert_true(f->nic.ops->link(&f->nic));
	assert_int_equal(f->nic.speed_mbps, 1000);
	assert_int_equal(deliver_to(f, nic_mac), 1);
}

/* --- rings that fill up --------------------------------------------------- */

/*
 * A pass queues frames and commits once: nothing leaves before the commit,
 * one TDT write sends them all in order, and a commit with nothing new (or
 * only refused frames) writes nothing.
 */
static void test_tx_one_doorbell_per_batch(void **state)
{
	struct fixture *f = *state;
	uint64_t before = f->m->tdt_writes;
	uint32_t len;

	for (uint32_t n = 0; n < 32; n++) {
		len = build(f, peer_mac, nic_mac, 100 + n, n, false);
		assert_true(queue(f, len, NULL));
	}
	assert_int_equal(f->m->tdt_writes, before);
	assert_int_equal(e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire)), 0);
	f->nic.ops->commit(&f->nic, 0);
	assert_int_equal(f->m->tdt_writes, before + 1);
	for (uint32_t n = 0; n < 32; n++) {
		len = build(f, peer_mac, nic_mac, 100 + n, n, false);
		assert_int_equal(e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire)), len);
		assert_memory_equal(f->wire, f->frame, len);
	}
	f->nic.ops->commit(&f->nic, 0);
	assert_false(queue(f, ETH_HLEN - 1, NULL));
	f->nic.ops->commit(&f->nic, 0);
	f->nic.ops->commit(&f->nic, 1);		/* no such pair */
	assert_int_equal(f->m->tdt_writes, before + 1);
	assert_int_equal(e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire)), 0);
}

/*
 * A burst cut short by a full ring (nothing committed, so nothing reclaimed)
 * still goes out whole at its one commit, and the ring has room again.
 */
static void test_tx_full_burst_commits_once(void **state)
{
	struct fixture *f = *state;
	uint64_t before = f->m->tdt_writes;
	uint32_t queued = 0, len;

	for (;; queued++) {
		len = build(f, peer_mac, nic_mac, 100, queued, false);
		if (!queue(f, len, NULL))
			break;
	}
	assert_int_equal(queued, E1000_TX_RING - 1);
	assert_int_equal(f->nic.stats[0].ring_full, 1);
	f->nic.ops->commit(&f->nic, 0);
	assert_int_equal(f->m->tdt_writes, before + 1);
	for (uint32_t n = 0; n < queued; n++)
		assert_int_equal(e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire)),
				 build(f, peer_mac, nic_mac, 100, n, false));
	assert_true(send(f, len, NULL));
	assert_int_equal(f->m->tdt_writes, before + 2);
}

static void test_tx_ring_full(void **state)
{
	struct fixture *f = *state;
	struct virtio_net_hdr_v1 hdr;
	uint32_t queued = 0, len, got;

	e1000_model_tx_pause(f->m, true);
	for (;;) {
		len = build(f, peer_mac, nic_mac, 100, queued, false);
		if (!send(f, len, NULL))
			break;
		queued++;
	}
	assert_int_equal(queued, E1000_TX_RING - 1);
	assert_int_equal(f->nic.stats[0].ring_full, 1);
	assert_false(send(f, len, NULL));
	assert_int_equal(f->nic.stats[0].ring_full, 2);
	assert_int_equal(e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire)), 0);

	/* The NIC goes on: everything arrives, in order, and there is room again. */
	e1000_model_tx_pause(f->m, false);
	for (uint32_t n = 0; n < queued; n++) {
		len = build(f, peer_mac, nic_mac, 100, n, false);
		got = e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire));
		assert_int_equal(got, len);
		assert_memory_equal(f->wire, f->frame, len);
	}
	assert_int_equal(e1000_model_wire_pop(f->m, f->wire, sizeof(f->wire)), 0);
	len = build(f, peer_mac, nic_mac, 100, 9999, false);
	assert_true(send(f, len, NULL));

	/* A TSO frame needing more descriptors than are free waits its turn. */
	e1000_model_tx_pause(f->m, true);
	for (uint32_t n = 0; n < E1000_TX_RING - 20; n++)
		assert_true(send(f, len, NULL));
	len = build(f, peer_mac, nic_mac, 40 * 1000, 1, false);
	tp_make_partial(f->frame, len, &hdr, 1000);
	assert_false(send(f, len, &hdr));
	assert_int_equal(f->nic.stats[0].ring_full, 3);
	e1000_model_tx_pause(f->m, false);
	assert_true(send(f, len, &hdr));
	assert_int_equal(f->nic.stats[0].tx_drops, 0);
}

static void test_rx_without_descriptors(void **state)
{
	struct fixture *f = *state;
	uint32_t len;

	for (uint32_t n = 0; n < E1000_RX_RING + 44; n++) {
		len = build(f, nic_mac, peer_mac, 80, n, false);
		e1000_model_receive(f->m, f->frame, len);
	}
	assert_int_equal(f->m->missed, 45);
	f->received = 0;
	while (f->nic.ops->rx_burst(&f->nic, 0, record, f, 32) != 0) {
		/* Drained in bursts, each frame checked as it comes. */
		for (unsigned int i = 0; i < f->received; i++)
			assert_int_equal(f->log[i].len, len);
		f->received = 0;
	}
	assert_int_equal(f->nic.stats[0].rx_packets, E1000_RX_RING - 1);
	assert_int_equal(f->nic.stats[0].rx_drops, 45);
	/* And frames flow again. */
	for (uint32_t n = 0; n < 10; n++) {
		len = build(f, nic_mac, peer_mac, 80, n, false);
		assert_true(e1000_model_receive(f->m, f->frame, len));
	}
	assert_int_equal(poll_all(f), 10);
	assert_int_equal(f->nic.stats[0].rx_drops, 45);
}

static void test_rx_budget(void **state)
{
	struct fixture *f = *state;

	for (uint32_t n = 0; n < 10; n++) {
		uint32_t len = build(f, nic_mac, peer_mac, 80, n, false);

		assert_true(e1000_model_receive(f->m, f->frame, len));
	}
	assert_int_equal(f->nic.ops->rx_burst(&f->nic, 0, record, f, 4), 4);
	assert_int_equal(e1000_model_peek(f->m, E1000_RDT), 3);
	assert_int_equal(f->nic.ops->rx_burst(&f->nic, 0, record, f, 100), 6);
	assert_int_equal(f->nic.ops->rx_burst(&f->nic, 1, record, f, 100), 0);
}

/* --- write-backs not to be trusted ---------------------------------------- */

static void test_rx_garbage_length(void **state)
{
	struct fixture *f = *state;
	uint32_t len = build(f, nic_mac, peer_mac, 200, 1, false);

	f->m->rx_bad_length = 4000;				/* past the 2 KiB buffer */
	assert_true(e1000_model_receive(f->m, f->frame, len));
	f->m->rx_bad_length = 0xffff;
	assert_true(e1000_model_receive(f->m, f->frame, len));
	f->m->rx_bad_length = 3;				/* not even a header */
	assert_true(e1000_model_receive(f->m, f->frame, len));
	f->m->rx_bad_length = 0;
	assert_true(e1000_model_receive(f->m, f->frame, len));
	assert_int_equal(poll_all(f), 1);
	assert_int_equal(f->log[0].len, len);
	assert_int_equal(f->nic.stats[0].rx_drops, 3);
}

static void test_rx_frame_without_eop(void **state)
{
	struct fixture *f = *state;
	uint32_t len = build(f, nic_mac, peer_mac, 3000, 1, false);
	uint32_t rctl = e1000_model_peek(f->m, E1000_RCTL);

	/* As if the NIC took a long frame into two 2 KiB buffers. */
	f->m->reg[E1000_RCTL / 4] = rctl | E1000_RCTL_LPE;
	assert_true(e1000_model_receive(f->m, f->frame, len));
	f->m->reg[E1000_RCTL / 4] = rctl;
	len = build(f, nic_mac, peer_mac, 100, 2, false);
	assert_true(e1000_model_receive(f->m, f->frame, len));
	assert_int_equal(poll_all(f), 1);
	assert_int_equal(f->log[0].len, len);
	assert_memory_equal(f->log[0].data, f->frame, len);
	assert_int_equal(f->nic.stats[0].rx_drops, 1);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_init),
		T(test_init_again_reuses_memory),
		cmocka_unit_test(test_init_checks),
		cmocka_unit_test(test_init_no_memory),
		T(test_thousand_frames_received),
		T(test_thousand_frames_sent),
		T(test_tx_checksum_offload),
		T(test_rx_checksum_status),
		T(test_tso),
		T(test_tx_refused),
		T(test_add_mac),
		T(test_add_mac_bochs_rar),
		T(test_link_down_up),
		T(test_tx_ring_full),
		T(test_tx_one_doorbell_per_batch),
		T(test_tx_full_burst_commits_once),
		T(test_rx_without_descriptors),
		T(test_rx_budget),
		T(test_rx_garbage_length),
		T(test_rx_frame_without_eop),
	};
#undef T

	return cmocka_run_group_tests_name("e1000", tests, NULL, NULL);
}
