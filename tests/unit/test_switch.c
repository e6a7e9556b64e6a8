/* SPDX-License-Identifier: MIT */
/*
 * test_switch.c - unit tests for hv/net/switch.c and packet.c: the port
 * table, unicast, flooding of group destinations, unknown unicast to the
 * wire alone, uplinks, ports
 * that are down, the Ethernet header read once from the sender's buffers,
 * spoofed, oversized and short frames dropped and counted, the path to
 * another sidecore through its SPSC ring (a full or missing ring counted),
 * the poll counters, and the copies charged to the sender's meter: a
 * broadcast 64 KiB GSO frame costs its sender a copy per receiver, and a
 * pass of sidecore budgets copies no more than a port's bytes and one frame.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "net/fair.h"
#include "net/net.h"
#include "net/spsc_ring.h"
#include "sidecore/sidecore.h"
#include "tests/unit/support/stderr_capture.h"

#define PORTS		6
#define FRAME_LEN	128

/* A port that remembers what it was handed. */
struct test_port {
	struct net_port port;
	unsigned int received;
	uint32_t last_len;
	uint8_t last_frame[FRAME_LEN];
	struct virtio_net_hdr_v1 last_hdr;
	uint8_t *tamper;	/* a sender's frame to scribble on before reading */
};

/*
 * Ports 0-2 are guests on sidecore 0, 3-4 guests on sidecore 1, 5 the uplink
 * of sidecore 0; rings lead both ways between the two sidecores.
 */
struct fixture {
	struct net_switch sw;
	struct test_port port[PORTS];
	struct spsc_ring *ring01, *ring10;
	uint8_t frame[FRAME_LEN];
};

static bool record_delivery(struct net_port *port, const struct net_packet *pkt)
{
	struct test_port *tp = port->ctx;

	/* As a guest would, rewriting its transmit buffer while it is in flight. */
	if (tp->tamper)
		memset(tp->tamper, 0xee, ETH_HLEN);
	tp->received++;
	tp->last_len = pkt->len;
	tp->last_hdr = pkt->hdr;
	net_packet_read(pkt, 0, tp->last_frame, FRAME_LEN);
	return true;
}

static void mac_of(uint8_t mac[ETH_ALEN], unsigned int n)
{
	const uint8_t base[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x00 };

	memcpy(mac, base, ETH_ALEN);
	mac[5] = (uint8_t)n;
}

static void port_init(struct test_port *tp, unsigned int n, unsigned int sidecore, bool uplink)
{
	memset(tp, 0, sizeof(*tp));
	mac_of(tp->port.mac, n);
	tp->port.sidecore = sidecore;
	tp->port.uplink = uplink;
	tp->port.wire = !uplink;
	tp->port.deliver = record_delivery;
	tp->port.ctx = tp;
}

static int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	static const unsigned int sidecore[PORTS] = { 0, 0, 0, 1, 1, 0 };

	if (!f)
		return -1;
	f->ring01 = aligned_alloc(NET_CACHE_LINE, sizeof(struct spsc_ring));
	f->ring10 = aligned_alloc(NET_CACHE_LINE, sizeof(struct spsc_ring));
	if (!f->ring01 || !f->ring10)
		return -1;
	spsc_ring_init(f->ring01);
	spsc_ring_init(f->ring10);
	net_switch_init(&f->sw);
	for (unsigned int i = 0; i < PORTS; i++) {
		port_init(&f->port[i], i, sidecore[i], i == 5);
		if (!net_switch_add_port(&f->sw, &f->port[i].port))
			return -1;
		net_port_set_up(&f->port[i].port, true);
	}
	net_switch_add_ring(&f->sw, 0, 1, f->ring01);
	net_switch_add_ring(&f->sw, 1, 0, f->ring10);
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	struct fixture *f = *state;

	free(f->ring01);
	free(f->ring10);
	free(f);
	return 0;
}

/* A frame to dst from port src's MAC, as one segment. */
static struct net_packet packet_to(struct fixture *f, const uint8_t dst[ETH_ALEN],
				   unsigned int src)
{
	struct net_packet pkt = { .len = FRAME_LEN, .count = 1 };

	for (unsigned int i = 0; i < FRAME_LEN; i++)
		f->frame[i] = (uint8_t)(i * 3);
	memcpy(f->frame, dst, ETH_ALEN);
	mac_of(f->frame + ETH_ALEN, src);
	pkt.segment[0] = (struct net_segment){ f->frame, FRAME_LEN };
	return pkt;
}

static void forward_to_port(struct fixture *f, unsigned int src, unsigned int dst)
{
	uint8_t mac[ETH_ALEN];
	struct net_packet pkt;

	mac_of(mac, dst);
	pkt = packet_to(f, mac, src);
	net_switch_forward(&f->sw, &f->port[src].port, &pkt);
}

/* Each port's count of deliveries must match expected[]. */
static void assert_received(const struct fixture *f, const unsigned int expected[PORTS])
{
	for (unsigned int i = 0; i < PORTS; i++) {
		if (f->port[i].received != expected[i])
			fail_msg("port %u received %u, expected %u", i, f->port[i].received,
				 expected[i]);
	}
}

/* --- the table ------------------------------------------------------------- */

static void test_add_port_checks(void **state)
{
	struct fixture *f = *state;
	struct test_port extra;
	char log[512];

	stderr_capture_begin();
	port_init(&extra, 1, 0, false);			/* MAC of port 1 */
	assert_false(net_switch_add_port(&f->sw, &extra.port));
	port_init(&extra, 40, 0, false);
	extra.port.mac[0] |= 1;				/* a group address */
	assert_false(net_switch_add_port(&f->sw, &extra.port));
	port_init(&extra, 40, NET_MAX_SIDECORES, false);
	assert_false(net_switch_add_port(&f->sw, &extra.port));
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, "MAC 52:54:00:12:34:01 is a group address or taken"));
	assert_non_null(strstr(log, "MAC 53:54:00:12:34:28 is a group address or taken"));
	assert_non_null(strstr(log, "sidecore 8 out of range"));
	port_init(&extra, 1, 0, true);			/* uplinks have no MAC of their own */
	assert_true(net_switch_add_port(&f->sw, &extra.port));
	assert_int_equal(extra.port.index, PORTS);
	assert_ptr_equal(f->sw.port[PORTS], &extra.port);
}

static void test_table_full(void **state)
{
	static struct test_port many[NET_MAX_PORTS];
	struct test_port extra;
	struct net_switch sw;
	char log[256];

	(void)state;
	net_switch_init(&sw);
	for (unsigned int i = 0; i < NET_MAX_PORTS; i++) {
		port_init(&many[i], i, 0, false);
		assert_true(net_switch_add_port(&sw, &many[i].port));
	}
	port_init(&extra, 200, 0, false);
	stderr_capture_begin();
	assert_false(net_switch_add_port(&sw, &extra.port));
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, "switch full"));
}

static void test_packet_read(void **state)
{
	const uint8_t a[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 }, b[6] = { 10, 11, 12, 13, 14, 15 };
	const uint8_t c[4] = { 16, 17, 18, 19 };
	struct net_packet pkt = { .len = 19, .count = 3 };
	uint8_t out[19];

	(void)state;
	pkt.segment[0] = (struct net_segment){ a, 9 };
	pkt.segment[1] = (struct net_segment){ b, 6 };
	pkt.segment[2] = (struct net_segment){ c, 4 };
	assert_true(net_packet_snapshot(&pkt));
	assert_int_equal(net_packet_read(&pkt, 2, out, 4), 4);
	assert_memory_equal(out, ((uint8_t[]){ 3, 4, 5, 6 }), 4);
	assert_int_equal(net_packet_read(&pkt, 12, out, 6), 6);
	assert_memory_equal(out, ((uint8_t[]){ 13, 14, 15, 16, 17, 18 }), 6);
	assert_int_equal(net_packet_read(&pkt, 17, out, 8), 2);
	assert_memory_equal(out, ((uint8_t[]){ 18, 19 }), 2);
	assert_int_equal(net_packet_read(&pkt, 19, out, 8), 0);
	assert_int_equal(net_packet_read(&pkt, 0, out, 19), 19);
	for (unsigned int i = 0; i < 19; i++)
		assert_int_equal(out[i], i + 1);
}

/* The header bytes come from the snapshot; the segments are read once. */
static void test_packet_snapshot(void **state)
{
	uint8_t frame[20], out[20];
	struct net_packet pkt = { .len = 20, .count = 1 };

	(void)state;
	for (unsigned int i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)i;
	pkt.segment[0] = (struct net_segment){ frame, 20 };
	assert_true(net_packet_snapshot(&pkt));
	memset(frame, 0xee, sizeof(frame));
	assert_int_equal(net_packet_read(&pkt, 0, out, 20), 20);
	for (unsigned int i = 0; i < ETH_HLEN; i++)
		assert_int_equal(out[i], i);
	assert_int_equal(out[ETH_HLEN], 0xee);
	/* Fewer bytes than the frame: as many as asked, the header still the snapshot's. */
	memset(out, 0, sizeof(out));
	assert_int_equal(net_packet_read(&pkt, 0, out, ETH_HLEN + 2), ETH_HLEN + 2);
	assert_int_equal(out[ETH_HLEN - 1], ETH_HLEN - 1);
	assert_int_equal(out[ETH_HLEN + 1], 0xee);
	assert_int_equal(out[ETH_HLEN + 2], 0);

	pkt.len = pkt.segment[0].len = ETH_HLEN - 1;	/* no whole header */
	assert_false(net_packet_snapshot(&pkt));
	assert_int_equal(net_packet_read(&pkt, 0, out, 20), ETH_HLEN - 1);
}

/* --- same sidecore --------------------------------------------------------- */

static void test_unicast(void **state)
{
	struct fixture *f = *state;
	const unsigned int expected[PORTS] = { 0, 0, 1, 0, 0, 0 };

	forward_to_port(f, 0, 2);
	assert_received(f, expected);
	assert_int_equal(f->port[2].last_len, FRAME_LEN);
	assert_memory_equal(f->port[2].last_frame, f->frame, FRAME_LEN);
}

static void test_unicast_to_self_dropped(void **state)
{
	struct fixture *f = *state;
	const unsigned int none[PORTS] = { 0 };

	forward_to_port(f, 1, 1);
	assert_received(f, none);
}

static void test_broadcast(void **state)
{
	struct fixture *f = *state;
	const uint8_t broadcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	const unsigned int expected[PORTS] = { 1, 0, 1, 1, 1, 1 };
	struct net_packet pkt = packet_to(f, broadcast, 1);

	net_switch_forward(&f->sw, &f->port[1].port, &pkt);
	net_switch_poll_rings(&f->sw, 1, 64);
	assert_received(f, expected);
	/* One copy crossed to sidecore 1, for both of its ports. */
	assert_int_equal(f->ring01->sent, 1);
}

static void test_multicast(void **state)
{
	struct fixture *f = *state;
	const uint8_t mdns[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb };
	const unsigned int expected[PORTS] = { 1, 1, 0, 1, 1, 1 };
	struct net_packet pkt = packet_to(f, mdns, 2);

	net_switch_forward(&f->sw, &f->port[2].port, &pkt);
	net_switch_poll_rings(&f->sw, 1, 64);
	assert_received(f, expected);
}

/* Every guest MAC is known: unicast to another MAC is the wire's, no guest's. */
static void test_unknown_unicast_to_wire_only(void **state)
{
	struct fixture *f = *state;
	const unsigned int expected[PORTS] = { 0, 0, 0, 0, 0, 2 };

	forward_to_port(f, 0, 77);
	forward_to_port(f, 3, 77);		/* sidecore 1's: the uplink by ring */
	net_switch_poll_rings(&f->sw, 1, 64);
	net_switch_poll_rings(&f->sw, 0, 64);
	assert_received(f, expected);
	assert_int_equal(f->port[0].port.stats.tx_unknown, 0);
}

static void test_down_port_skipped(void **state)
{
	struct fixture *f = *state;
	const unsigned int expected[PORTS] = { 0, 0, 0, 0, 0, 1 };

	net_port_set_up(&f->port[1].port, false);
	net_port_set_up(&f->port[3].port, false);
	forward_to_port(f, 0, 1);		/* unicast to a port that is down */
	forward_to_port(f, 0, 3);
	forward_to_port(f, 0, 99);		/* unknown: the uplink */
	net_switch_poll_rings(&f->sw, 1, 64);
	assert_received(f, expected);
}

/* Guest traffic reaches only its own sidecore's uplink; the wire's none. */
static void test_uplinks(void **state)
{
	struct fixture *f = *state;
	struct test_port uplink1;
	/* Unicast 0 -> 1, then a broadcast from 0, then one from the wire. */
	const unsigned int from_guest[PORTS] = { 0, 2, 1, 1, 1, 1 };
	const unsigned int from_wire[PORTS] = { 1, 3, 2, 2, 2, 1 };
	const uint8_t broadcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct net_packet pkt;

	port_init(&uplink1, 0, 1, true);
	assert_true(net_switch_add_port(&f->sw, &uplink1.port));
	net_port_set_up(&uplink1.port, true);

	forward_to_port(f, 0, 1);		/* known unicast: no uplink */
	pkt = packet_to(f, broadcast, 0);
	net_switch_forward(&f->sw, &f->port[0].port, &pkt);
	net_switch_poll_rings(&f->sw, 1, 64);
	assert_received(f, from_guest);
	assert_int_equal(uplink1.received, 0);

	pkt = packet_to(f, broadcast, 50);
	net_switch_forward(&f->sw, &f->port[5].port, &pkt);
	net_switch_poll_rings(&f->sw, 1, 64);
	assert_received(f, from_wire);
	assert_int_equal(uplink1.received, 0);

	/* Sidecore 1 with only its uplink up: a guest's flood does not cross. */
	net_port_set_up(&f->port[3].port, false);
	net_port_set_up(&f->port[4].port, false);
	pkt = packet_to(f, broadcast, 0);
	net_switch_forward(&f->sw, &f->port[0].port, &pkt);
	assert_int_equal(f->ring01->sent, 2);
}

/* Guests that may not reach the wire neither send to it nor hear from it. */
static void test_wire_permission(void **state)
{
	struct fixture *f = *state;
	const uint8_t broadcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	const unsigned int from_guest[PORTS] = { 1, 0, 1, 1, 1, 0 };
	const unsigned int from_wire[PORTS] = { 2, 0, 2, 1, 2, 0 };
	const unsigned int unicast[PORTS] = { 3, 0, 2, 1, 2, 0 };
	struct net_packet pkt;

	f->port[1].port.wire = false;
	f->port[3].port.wire = false;
	pkt = packet_to(f, broadcast, 1);
	net_switch_forward(&f->sw, &f->port[1].port, &pkt);
	forward_to_port(f, 1, 77);		/* unknown unicast: no wire, so nowhere */
	net_switch_poll_rings(&f->sw, 1, 64);
	assert_received(f, from_guest);
	assert_int_equal(f->port[1].port.stats.tx_unknown, 1);
	assert_int_equal(f->port[1].port.stats.tx_drops, 1);

	pkt = packet_to(f, broadcast, 50);
	net_switch_forward(&f->sw, &f->port[5].port, &pkt);
	net_switch_poll_rings(&f->sw, 1, 64);
	assert_received(f, from_wire);
	assert_int_equal(f->ring01->sent, 2);	/* one copy per flood and sidecore */

	forward_to_port(f, 5, 1);		/* to a guest kept off the wire */
	forward_to_port(f, 5, 3);
	forward_to_port(f, 5, 77);		/* to no guest at all */
	forward_to_port(f, 5, 0);
	net_switch_poll_rings(&f->sw, 1, 64);
	assert_received(f, unicast);
	assert_int_equal(f->port[5].port.stats.tx_unknown, 3);
	assert_int_equal(f->port[5].port.stats.tx_drops, 3);
}

/* A sidecore without an uplink sends its guests' floods to the first one, by ring. */
static void test_uplink_on_other_sidecore(void **state)
{
	struct fixture *f = *state;
	const uint8_t broadcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	const unsigned int expected[PORTS] = { 1, 1, 1, 0, 1, 2 };
	struct net_packet pkt;

	pkt = packet_to(f, broadcast, 3);
	net_switch_forward(&f->sw, &f->port[3].port, &pkt);
	forward_to_port(f, 3, 77);		/* unknown unicast: the uplink alone */
	assert_int_equal(f->ring10->sent, 3);	/* the flood, its copy for the uplink, the unicast */
	assert_int_equal(net_switch_poll_rings(&f->sw, 0, 64), 3);
	assert_received(f, expected);
	assert_int_equal(f->port[5].last_len, FRAME_LEN);

	f->port[3].port.wire = false;
	forward_to_port(f, 3, 77);
	assert_int_equal(f->ring10->sent, 3);
	assert_int_equal(f->port[3].port.stats.tx_unknown, 1);
}

/*
 * The sender rewrites its frame while the receiver copies it: the receiver
 * still gets the header the switch decided on.
 */
static void test_header_read_once(void **state)
{
	struct fixture *f = *state;
	const unsigned int expected[PORTS] = { 0, 0, 1, 0, 0, 0 };
	uint8_t sent[FRAME_LEN];

	f->port[2].tamper = f->frame;
	forward_to_port(f, 0, 2);
	memcpy(sent, f->frame, FRAME_LEN);
	assert_received(f, expected);
	assert_int_equal(f->frame[0], 0xee);		/* it did change under the copy */
	mac_of(sent, 2);
	mac_of(sent + ETH_ALEN, 0);
	for (unsigned int i = 2 * ETH_ALEN; i < ETH_HLEN; i++)
		sent[i] = (uint8_t)(i * 3);
	assert_memory_equal(f->port[2].last_frame, sent, ETH_HLEN);
	assert_memory_equal(f->port[2].last_frame + ETH_HLEN, f->frame + ETH_HLEN,
			    FRAME_LEN - ETH_HLEN);
}

/* The same for the copy into another sidecore's ring, made after local deliveries. */
static void test_header_read_once_remote(void **state)
{
	struct fixture *f = *state;
	const uint8_t broadcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct net_packet pkt = packet_to(f, broadcast, 0);
	uint8_t header[ETH_HLEN];

	memcpy(header, f->frame, ETH_HLEN);
	f->port[1].tamper = f->frame;
	net_switch_forward(&f->sw, &f->port[0].port, &pkt);
	assert_int_equal(net_switch_poll_rings(&f->sw, 1, 64), 1);
	assert_int_equal(f->port[3].received, 1);
	assert_memory_equal(f->port[1].last_frame, header, ETH_HLEN);
	assert_memory_equal(f->port[2].last_frame, header, ETH_HLEN);
	assert_memory_equal(f->port[3].last_frame, header, ETH_HLEN);
	assert_memory_equal(f->port[4].last_frame, header, ETH_HLEN);
}

/* A guest may only send from its own MAC; the wire may send from any. */
static void test_spoofed_source_dropped(void **state)
{
	struct fixture *f = *state;
	const unsigned int none[PORTS] = { 0 };
	const unsigned int from_wire[PORTS] = { 0, 0, 1, 0, 0, 0 };
	const struct net_port_stats *s = &f->port[0].port.stats;
	uint8_t mac[ETH_ALEN];
	struct net_packet pkt;

	mac_of(mac, 2);
	pkt = packet_to(f, mac, 1);			/* port 1's MAC, sent by port 0 */
	net_switch_forward(&f->sw, &f->port[0].port, &pkt);
	pkt = packet_to(f, mac, 0);
	f->frame[ETH_ALEN] |= 1;			/* a group address as source */
	net_switch_forward(&f->sw, &f->port[0].port, &pkt);
	mac_of(mac, 99);
	pkt = packet_to(f, mac, 0);
	f->frame[2 * ETH_ALEN - 1] ^= 1;		/* a flood with a stranger's MAC */
	net_switch_forward(&f->sw, &f->port[0].port, &pkt);
	net_switch_poll_rings(&f->sw, 1, 64);
	assert_received(f, none);
	assert_int_equal(f->ring01->sent, 0);
	assert_int_equal(s->tx_spoofed, 3);
	assert_int_equal(s->tx_drops, 3);
	assert_int_equal(s->tx_oversized, 0);

	mac_of(mac, 2);
	pkt = packet_to(f, mac, 33);
	net_switch_forward(&f->sw, &f->port[5].port, &pkt);
	assert_received(f, from_wire);
	assert_int_equal(f->port[5].port.stats.tx_spoofed, 0);
}

/* Sends a frame of len bytes from port 0 to port 2, optionally 802.1Q tagged. */
static void forward_sized(struct fixture *f, uint8_t *frame, uint32_t len, bool vlan,
			  uint8_t gso_type)
{
	struct net_packet pkt = { .len = len, .count = 2 };

	memset(frame, 0, len);
	mac_of(frame, 2);
	mac_of(frame + ETH_ALEN, 0);
	frame[2 * ETH_ALEN] = vlan ? 0x81 : 0x08;	/* ETH_P_8021Q or ETH_P_IP */
	pkt.hdr.gso_type = gso_type;
	pkt.segment[0] = (struct net_segment){ frame, 20 };
	pkt.segment[1] = (struct net_segment){ frame + 20, len - 20 };
	net_switch_forward(&f->sw, &f->port[0].port, &pkt);
}

static void test_oversized_dropped(void **state)
{
	struct fixture *f = *state;
	const struct net_port_stats *s = &f->port[0].port.stats;
	uint8_t *frame = malloc(NET_FRAME_MAX);

	assert_non_null(frame);
	forward_sized(f, frame, ETH_HLEN + NET_MTU, false, VIRTIO_NET_HDR_GSO_NONE);
	forward_sized(f, frame, ETH_HLEN + NET_VLAN_HLEN + NET_MTU, true, VIRTIO_NET_HDR_GSO_NONE);
	forward_sized(f, frame, NET_FRAME_MAX, false, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(f->port[2].received, 3);
	assert_int_equal(f->port[2].last_len, NET_FRAME_MAX);

	forward_sized(f, frame, ETH_HLEN + NET_MTU + 1, false, VIRTIO_NET_HDR_GSO_NONE);
	forward_sized(f, frame, ETH_HLEN + NET_VLAN_HLEN + NET_MTU, false, VIRTIO_NET_HDR_GSO_NONE);
	forward_sized(f, frame, ETH_HLEN + NET_VLAN_HLEN + NET_MTU + 1, true,
		      VIRTIO_NET_HDR_GSO_NONE);
	forward_sized(f, frame, NET_FRAME_MAX, false, VIRTIO_NET_HDR_GSO_NONE);
	assert_int_equal(f->port[2].received, 3);
	assert_int_equal(s->tx_oversized, 4);
	assert_int_equal(s->tx_drops, 4);
	assert_int_equal(s->tx_spoofed, 0);
	free(frame);
}

/* --- storm control --------------------------------------------------------- */

#define STORM_HZ	1000000	/* the clock the tests hand the switch: 1 MHz */

/* Port 1 broadcasts a frame of len bytes at time now (two segments); returns its drops. */
static uint64_t broadcast_sized(struct fixture *f, uint8_t *frame, uint32_t len, uint64_t now)
{
	struct net_packet pkt = { .len = len, .count = 2 };

	memset(frame, 0, len);
	memset(frame, 0xff, ETH_ALEN);
	mac_of(frame + ETH_ALEN, 1);
	frame[2 * ETH_ALEN] = 0x08;	/* ETH_P_IP */
	pkt.hdr.gso_type = len > ETH_HLEN + NET_MTU ? VIRTIO_NET_HDR_GSO_TCPV4
						    : VIRTIO_NET_HDR_GSO_NONE;
	pkt.segment[0] = (struct net_segment){ frame, 20 };
	pkt.segment[1] = (struct net_segment){ frame + 20, len - 20 };
	net_switch_set_now(&f->sw, 0, now);
	net_switch_forward(&f->sw, &f->port[1].port, &pkt);
	return f->port[1].port.stats.tx_storm;
}

/*
 * 64 KiB broadcasts at 1 MiB a second: the bucket's tenth of a second
 * lets one through at once, then one each 65,550 bytes' worth of time;
 * the rest are dropped before any copy, counted, and cost no receiver a
 * thing.
 */
static void test_storm_bytes(void **state)
{
	struct fixture *f = *state;
	const struct net_port_stats *s = &f->port[1].port.stats;
	uint8_t *frame = malloc(NET_FRAME_MAX);
	uint64_t now = 5;

	assert_non_null(frame);
	net_port_storm_init(&f->port[1].port, 500, 1024 * 1024, STORM_HZ);
	assert_int_equal(broadcast_sized(f, frame, NET_FRAME_MAX, now), 0);
	for (unsigned int i = 0; i < 100; i++)
		assert_int_equal(broadcast_sized(f, frame, NET_FRAME_MAX, now), i + 1);
	assert_int_equal(f->port[0].received, 1);
	assert_int_equal(f->ring01->sent, 1);
	assert_int_equal(s->tx_drops, 100);
	/* A second later: 16 frames' worth, one a 1/16 s, and no more. */
	for (unsigned int i = 0; i < 64; i++) {
		now += STORM_HZ / 64;
		broadcast_sized(f, frame, NET_FRAME_MAX, now);
	}
	assert_in_range(f->port[0].received, 1 + 14, 1 + 17);
	/* Unicast is no storm's: it passes while broadcasts are dropped. */
	forward_to_port(f, 1, 2);
	assert_int_equal(f->port[2].received, f->port[0].received + 1);
	free(frame);
}

/*
 * Small broadcasts, ARP's: 500 a second, 50 at once. A guest sending
 * 50 at boot loses none; one sending 10,000 a second gets 500 through.
 */
static void test_storm_frames(void **state)
{
	struct fixture *f = *state;
	uint8_t frame[ETH_ZLEN];
	uint64_t now = 0;

	net_port_storm_init(&f->port[1].port, 500, 1024 * 1024, STORM_HZ);
	for (unsigned int i = 0; i < 50; i++)
		assert_int_equal(broadcast_sized(f, frame, sizeof(frame), now), 0);
	assert_int_equal(f->port[0].received, 50);
	for (unsigned int i = 0; i < 10000; i++) {
		now += STORM_HZ / 10000;
		broadcast_sized(f, frame, sizeof(frame), now);
	}
	assert_in_range(f->port[0].received, 50 + 499, 50 + 501);
	/* Off: every frame passes. */
	net_port_storm_init(&f->port[1].port, 0, 0, STORM_HZ);
	for (unsigned int i = 0; i < 1000; i++)
		broadcast_sized(f, frame, sizeof(frame), now);
	assert_in_range(f->port[0].received, 50 + 499 + 1000, 50 + 501 + 1000);
}

static void test_short_frame_dropped(void **state)
{
	struct fixture *f = *state;
	const unsigned int none[PORTS] = { 0 };
	struct net_packet pkt = packet_to(f, (const uint8_t[ETH_ALEN]){ 0xff, 0xff, 0xff, 0xff,
									  0xff, 0xff }, 0);

	pkt.len = pkt.segment[0].len = ETH_HLEN - 1;
	net_switch_forward(&f->sw, &f->port[0].port, &pkt);
	assert_received(f, none);
	assert_int_equal(f->port[0].port.stats.tx_drops, 1);
}

/* --- another sidecore ------------------------------------------------------ */

static void test_cross_sidecore(void **state)
{
	struct fixture *f = *state;
	const unsigned int none[PORTS] = { 0 };
	const unsigned int expected[PORTS] = { 0, 0, 0, 1, 0, 0 };
	uint8_t sent[FRAME_LEN];
	struct net_packet pkt;
	uint8_t mac[ETH_ALEN];

	mac_of(mac, 3);
	pkt = packet_to(f, mac, 0);
	pkt.hdr.gso_type = VIRTIO_NET_HDR_GSO_TCPV6;
	pkt.hdr.gso_size = 1440;
	net_switch_forward(&f->sw, &f->port[0].port, &pkt);
	assert_received(f, none);		/* waits in the ring */
	memcpy(sent, f->frame, FRAME_LEN);
	memset(f->frame, 0, FRAME_LEN);		/* the sender's buffer is free again */

	assert_int_equal(net_switch_poll_rings(&f->sw, 0, 64), 0);
	assert_int_equal(net_switch_poll_rings(&f->sw, 1, 64), 1);
	assert_received(f, expected);
	assert_memory_equal(f->port[3].last_frame, sent, FRAME_LEN);
	assert_int_equal(f->port[3].last_hdr.gso_type, VIRTIO_NET_HDR_GSO_TCPV6);
	assert_int_equal(f->port[3].last_hdr.gso_size, 1440);

	forward_to_port(f, 4, 2);		/* and back the other way */
	assert_int_equal(net_switch_poll_rings(&f->sw, 0, 64), 1);
	assert_int_equal(f->port[2].received, 1);
}

static void test_cross_sidecore_down_after_queueing(void **state)
{
	struct fixture *f = *state;

	forward_to_port(f, 0, 3);
	net_port_set_up(&f->port[3].port, false);
	assert_int_equal(net_switch_poll_rings(&f->sw, 1, 64), 1);
	assert_int_equal(f->port[3].received, 0);
}

static void test_ring_full_counted(void **state)
{
	struct fixture *f = *state;
	const unsigned int sent = SPSC_RING_CELLS;	/* a 128-byte frame takes one cell */

	for (unsigned int i = 0; i < SPSC_RING_CELLS + 5; i++) {
		forward_to_port(f, 0, 3);
		forward_to_port(f, 0, 1);	/* local delivery goes on meanwhile */
	}
	assert_int_equal(f->ring01->sent, sent);
	assert_int_equal(f->ring01->full_drops, 5);
	assert_int_equal(f->port[1].received, SPSC_RING_CELLS + 5);

	assert_int_equal(net_switch_poll_rings(&f->sw, 1, 1000), sent);
	assert_int_equal(f->port[3].received, sent);
	forward_to_port(f, 0, 3);
	assert_int_equal(f->ring01->sent, sent + 1);
}

static void test_missing_ring_counted(void **state)
{
	struct fixture *f = *state;

	net_switch_add_ring(&f->sw, 0, 1, NULL);
	forward_to_port(f, 0, 3);
	forward_to_port(f, 0, 4);
	forward_to_port(f, 0, 1);		/* local ports still get theirs */
	assert_int_equal(f->sw.sidecore[0].unroutable, 2);
	assert_int_equal(f->port[1].received, 1);
}

static void test_poll_budget(void **state)
{
	struct fixture *f = *state;

	for (unsigned int i = 0; i < 10; i++)
		forward_to_port(f, 0, 4);
	assert_int_equal(net_switch_poll_rings(&f->sw, 1, 4), 4);
	assert_int_equal(net_switch_poll_rings(&f->sw, 1, 4), 4);
	assert_int_equal(net_switch_poll_rings(&f->sw, 1, 4), 2);
	assert_int_equal(net_switch_poll_rings(&f->sw, 1, 4), 0);
	assert_int_equal(f->port[4].received, 10);
	assert_int_equal(net_switch_poll_rings(&f->sw, NET_MAX_SIDECORES, 4), 0);
}

/* Two sidecores send to sidecore 0: its budget goes to both rings in turn. */
static void test_rings_take_turns(void **state)
{
	struct fixture *f = *state;
	struct spsc_ring *ring20 = aligned_alloc(NET_CACHE_LINE, sizeof(struct spsc_ring));
	struct test_port far;
	uint8_t mac[ETH_ALEN];
	struct net_packet pkt;

	assert_non_null(ring20);
	spsc_ring_init(ring20);
	port_init(&far, 20, 2, false);
	assert_true(net_switch_add_port(&f->sw, &far.port));
	net_switch_add_ring(&f->sw, 2, 0, ring20);
	for (unsigned int i = 0; i < 10; i++) {
		forward_to_port(f, 3, 0);		/* sidecore 1 floods port 0 */
		mac_of(mac, 1);
		pkt = packet_to(f, mac, 20);
		net_switch_forward(&f->sw, &far.port, &pkt);
	}
	assert_int_equal(net_switch_poll_rings(&f->sw, 0, 4), 4);
	assert_int_equal(f->port[0].received, 2);
	assert_int_equal(f->port[1].received, 2);
	/* The next poll starts with the other ring; an odd budget still alternates. */
	assert_int_equal(net_switch_poll_rings(&f->sw, 0, 3), 3);
	assert_int_equal(f->port[0].received + f->port[1].received, 7);
	assert_int_equal(net_switch_poll_rings(&f->sw, 0, 3), 3);
	assert_int_equal(f->port[0].received + f->port[1].received, 10);
	assert_int_equal(f->port[0].received, 5);
	assert_int_equal(f->port[1].received, 5);
	assert_int_equal(net_switch_poll_rings(&f->sw, 0, 100), 10);
	free(ring20);
}

static void test_poll_accounting(void **state)
{
	struct fixture *f = *state;
	const struct net_sidecore_stats *s = &f->sw.sidecore[1];

	net_switch_account_poll(&f->sw, 1, 2, 40);
	net_switch_account_poll(&f->sw, 1, 0, 0);
	net_switch_account_poll(&f->sw, 1, 0, 0);
	net_switch_account_poll(&f->sw, 1, 1, 8);
	assert_int_equal(s->busy_polls, 2);
	assert_int_equal(s->idle_polls, 2);
	assert_int_equal(s->batches, 3);
	assert_int_equal(s->packets, 48);
	assert_int_equal(f->sw.sidecore[0].busy_polls, 0);
}

/* Each copy is charged to the sidecore that makes it, bytes and segments. */
static void test_copies_charged(void **state)
{
	struct fixture *f = *state;
	struct net_meter *m0 = net_switch_meter(&f->sw, 0), *m1 = net_switch_meter(&f->sw, 1);
	const uint8_t bcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct net_packet pkt;

	assert_int_equal(m0->bytes, NET_METER_UNLIMITED.bytes);
	*m0 = (struct net_meter){ 100000, 1000 };
	*m1 = (struct net_meter){ 100000, 1000 };
	forward_to_port(f, 0, 1);
	assert_int_equal(m0->bytes, 100000 - FRAME_LEN);
	assert_int_equal(m0->segments, 999);
	/* Ports 1, 2, the uplink and the ring to sidecore 1: four copies. */
	pkt = packet_to(f, bcast, 0);
	net_switch_forward(&f->sw, &f->port[0].port, &pkt);
	assert_int_equal(m0->bytes, 100000 - 5 * FRAME_LEN);
	assert_int_equal(m0->segments, 995);
	/* Sidecore 1 pays for its two ports' copies out of the ring. */
	assert_int_equal(net_switch_poll_rings(&f->sw, 1, 32), 1);
	assert_int_equal(m1->bytes, 100000 - 2 * FRAME_LEN);
	/* A spent meter leaves the ring's packets there. */
	forward_to_port(f, 0, 3);
	m1->bytes = 0;
	assert_int_equal(net_switch_poll_rings(&f->sw, 1, 32), 0);
	m1->bytes = 1;
	assert_int_equal(net_switch_poll_rings(&f->sw, 1, 32), 1);
	assert_int_equal(f->port[3].received, 2);
}

#define GSO_PORTS	16
#define GSO_FRAMES	32
#define GSO_PASSES	1000

/* One sender and 15 receivers on one sidecore; the sender's queue of broadcasts. */
struct gso_flood {
	struct net_switch sw;
	struct net_port port[GSO_PORTS];
	uint8_t *frame;			/* NET_FRAME_MAX bytes, the sequence number at ETH_HLEN */
	unsigned int next;		/* the next frame the sender sends */
	uint64_t copied;		/* bytes delivered, all receivers */
	unsigned int received[GSO_PORTS];
	bool in_order;
};

static bool gso_deliver(struct net_port *port, const struct net_packet *pkt)
{
	struct gso_flood *g = port->ctx;
	uint8_t seq;

	net_packet_read(pkt, ETH_HLEN, &seq, 1);
	g->in_order &= seq == g->received[port->index];
	g->received[port->index]++;
	g->copied += pkt->len;
	return true;
}

/* Source 0 is the sender, as a port's transmit poll is: no frame started once spent. */
static unsigned int gso_poll(void *ctx, unsigned int source, unsigned int max)
{
	struct gso_flood *g = ctx;
	const struct net_meter *meter = net_switch_meter(&g->sw, 0);
	struct net_packet pkt;
	unsigned int done = 0;

	while (source == 0 && done < max && g->next < GSO_FRAMES && !net_meter_spent(meter)) {
		pkt = (struct net_packet){ .len = NET_FRAME_MAX, .count = 1 };
		pkt.hdr.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
		pkt.segment[0] = (struct net_segment){ g->frame, NET_FRAME_MAX };
		g->frame[ETH_HLEN] = (uint8_t)g->next++;
		net_switch_forward(&g->sw, &g->port[0], &pkt);
		done++;
	}
	return done;
}

/*
 * 32 broadcast 64 KiB GSO frames with 15 other ports copied 30 MiB in one
 * pass. Now a pass copies at most the port's SIDECORE_BYTES and one frame's
 * copies, over all passes no more than SIDECORE_BYTES a pass and one frame,
 * and every receiver still gets all 32, in order.
 */
static void test_broadcast_gso_flood_bounded(void **state)
{
	struct gso_flood *g = calloc(1, sizeof(*g));
	struct net_meter credit[GSO_PORTS] = { { 0, 0 } };
	uint64_t full[NET_FAIR_WORDS] = { 0 };
	const uint64_t frame_cost = (uint64_t)(GSO_PORTS - 1) * NET_FRAME_MAX;
	const struct net_fair_pass pass = {
		.sources = GSO_PORTS,
		.quantum = SIDECORE_QUANTUM,
		.budget = SIDECORE_BATCH,
		.total = GSO_PORTS * SIDECORE_BATCH,
		.poll = gso_poll,
		.ctx = g,
		.meter = net_switch_meter(&g->sw, 0),
		.credit = credit,
		.full = full,
		.share = { SIDECORE_BYTES, SIDECORE_SEGMENTS },
	};
	unsigned int start = 0, batches, passes = 0;
	uint64_t before;

	(void)state;
	assert_non_null(g);
	g->frame = calloc(1, NET_FRAME_MAX);
	assert_non_null(g->frame);
	memset(g->frame, 0xff, ETH_ALEN);
	mac_of(g->frame + ETH_ALEN, 0);
	g->in_order = true;
	net_switch_init(&g->sw);
	for (unsigned int i = 0; i < GSO_PORTS; i++) {
		mac_of(g->port[i].mac, i);
		g->port[i].deliver = gso_deliver;
		g->port[i].ctx = g;
		assert_true(net_switch_add_port(&g->sw, &g->port[i]));
		net_port_set_up(&g->port[i], true);
	}
	while (g->next < GSO_FRAMES && passes < GSO_PASSES) {
		before = g->copied;
		net_fair_run(&pass, &start, &batches);
		passes++;
		assert_true(g->copied - before <= SIDECORE_BYTES + frame_cost);
		assert_true(g->copied <= (uint64_t)passes * SIDECORE_BYTES + frame_cost);
	}
	assert_int_equal(g->next, GSO_FRAMES);
	assert_true(passes > GSO_FRAMES);
	for (unsigned int i = 1; i < GSO_PORTS; i++)
		assert_int_equal(g->received[i], GSO_FRAMES);
	assert_int_equal(g->received[0], 0);
	assert_true(g->in_order);
	assert_int_equal(g->copied, (uint64_t)GSO_FRAMES * frame_cost);
	free(g->frame);
	free(g);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)
	const struct CMUnitTest table[] = {
		T(test_add_port_checks),
		cmocka_unit_test(test_table_full),
		cmocka_unit_test(test_packet_read),
		cmocka_unit_test(test_packet_snapshot),
	};
	const struct CMUnitTest local[] = {
		T(test_unicast),
		T(test_unicast_to_self_dropped),
		T(test_broadcast),
		T(test_multicast),
		T(test_unknown_unicast_to_wire_only),
		T(test_down_port_skipped),
		T(test_uplinks),
		T(test_wire_permission),
		T(test_uplink_on_other_sidecore),
		T(test_header_read_once),
		T(test_spoofed_source_dropped),
		T(test_oversized_dropped),
		T(test_short_frame_dropped),
	};
	const struct CMUnitTest remote[] = {
		T(test_cross_sidecore),
		T(test_cross_sidecore_down_after_queueing),
		T(test_header_read_once_remote),
		T(test_ring_full_counted),
		T(test_missing_ring_counted),
		T(test_poll_budget),
		T(test_rings_take_turns),
		T(test_poll_accounting),
		T(test_copies_charged),
		cmocka_unit_test(test_broadcast_gso_flood_bounded),
		T(test_storm_bytes),
		T(test_storm_frames),
	};
#undef T
	int failed = 0;

	failed += cmocka_run_group_tests_name("switch table", table, NULL, NULL);
	failed += cmocka_run_group_tests_name("switch, one sidecore", local, NULL, NULL);
	failed += cmocka_run_group_tests_name("switch, two sidecores", remote, NULL, NULL);
	return failed ? 1 : 0;
}
