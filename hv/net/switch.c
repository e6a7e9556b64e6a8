/* SPDX-License-Identifier: MIT */
/*
 * switch.c - the L2 switch between guest ports and the NIC uplinks.
 *
 * MACs are static, so there is no learning: a port's MAC is its address for
 * the life of the hypervisor, and unicast to a MAC no guest has goes to the
 * wire alone, never to other guests. The table is small (one port per guest NIC
 * and one per NIC queue pair) and scanned linearly. A flood reaches another sidecore as one copy in the ring,
 * which that sidecore hands to each of its own ports.
 *
 * Guest ports that may not reach the wire are kept from it here, not by the
 * NIC's address filter: a NIC out of filters receives every unicast frame.
 */
#include <string.h>

#include "lib/log.h"
#include "lib/ptr_array.h"
#include "lib/ratelimit.h"
#include "net/fair.h"
#include "net/headers.h"
#include "net/net.h"
#include "net/spsc_ring.h"

_Static_assert(NET_MAX_PORTS < SPSC_RING_FLOOD_WIRE, "port indexes must not collide with FLOOD");

/* A bucket of rate tokens a second in a clock of hz, holding burst at least. */
static void net_storm_bucket(struct ratelimit *rl, uint32_t rate, uint32_t burst, uint64_t hz)
{
	uint32_t held = rate / NET_STORM_BURST_PER_S;

	/* Full from the start: the first refill finds it so at any clock. */
	ratelimit_init(rl, held > burst ? held : burst, hz / rate, 0);
}

void net_port_storm_init(struct net_port *port, uint32_t frames, uint32_t bytes, uint64_t hz)
{
	port->storm.on = frames && bytes;
	if (!port->storm.on)
		return;
	net_storm_bucket(&port->storm.frames, frames, 1, hz);
	net_storm_bucket(&port->storm.bytes, bytes, NET_FRAME_MAX, hz);
}

void net_switch_init(struct net_switch *sw)
{
	memset(sw, 0, sizeof(*sw));
	for (unsigned int i = 0; i < NET_MAX_SIDECORES; i++)
		sw->meter[i].meter = NET_METER_UNLIMITED;
}

/* One copy of pkt made by sidecore: its bytes, and the segments read to make it. */
static void net_switch_charge(struct net_switch *sw, unsigned int sidecore,
			      const struct net_packet *pkt)
{
	net_meter_charge(net_switch_meter(sw, sidecore), pkt->len, pkt->count);
}

static struct net_port *net_switch_lookup(const struct net_switch *sw, const uint8_t *mac)
{
	for (unsigned int i = 0; i < sw->count; i++) {
		struct net_port *port = sw->port[i];

		if (!port->uplink && memcmp(port->mac, mac, ETH_ALEN) == 0)
			return port;
	}
	return NULL;
}

bool net_switch_add_port(struct net_switch *sw, struct net_port *port)
{
	if (sw->count == NET_MAX_PORTS) {
		log_msg("net: switch full, port not added");
		return false;
	}
	if (port->sidecore >= NET_MAX_SIDECORES) {
		log_msg("net: sidecore %u out of range, port not added", port->sidecore);
		return false;
	}
	if (!port->uplink && (net_mac_is_group(port->mac) || net_switch_lookup(sw, port->mac))) {
		log_msg("net: MAC %02x:%02x:%02x:%02x:%02x:%02x is a group address or taken, "
			"port not added", port->mac[0], port->mac[1], port->mac[2],
			port->mac[3], port->mac[4], port->mac[5]);
		return false;
	}
	port->index = sw->count;
	sw->port[sw->count++] = port;
	return true;
}

void net_switch_remove_port(struct net_switch *sw, struct net_port *port)
{
	int at = ptr_array_remove(sw->port, &sw->count, port);

	for (unsigned int i = at < 0 ? sw->count : (unsigned int)at; i < sw->count; i++)
		sw->port[i]->index = i;
}

void net_switch_add_ring(struct net_switch *sw, unsigned int from, unsigned int to,
			 struct spsc_ring *ring)
{
	if (from >= NET_MAX_SIDECORES || to >= NET_MAX_SIDECORES || from == to)
		return;
	sw->ring[from][to] = ring;
	if (ring)
		sw->rings[to].from |= 1ull << from;
	else
		sw->rings[to].from &= ~(1ull << from);
}

static void net_switch_send_remote(struct net_switch *sw, unsigned int from, unsigned int to,
				   uint16_t port, const struct net_packet *pkt)
{
	struct spsc_ring *ring = sw->ring[from][to];

	if (!ring) {
		sw->sidecore[from].unroutable++;
		return;
	}
	net_switch_charge(sw, from, pkt);
	spsc_ring_send(ring, port, pkt);
}

static void net_switch_send(struct net_switch *sw, const struct net_port *src,
			    struct net_port *dst, const struct net_packet *pkt)
{
	if (!net_port_is_up(dst))
		return;
	if (dst->sidecore == src->sidecore) {
		net_switch_charge(sw, src->sidecore, pkt);
		dst->deliver(dst, pkt);
	} else {
		net_switch_send_remote(sw, src->sidecore, dst->sidecore, dst->index, pkt);
	}
}

/*
 * The uplink a guest's frames leave by: its own sidecore's, or the first
 * one, so that guests of a sidecore without a NIC queue still reach the
 * wire (through the ring, one copy more).
 */
static struct net_port *net_switch_uplink_for(const struct net_switch *sw, unsigned int sidecore)
{
	struct net_port *first = NULL;

	for (unsigned int i = 0; i < sw->count; i++) {
		struct net_port *port = sw->port[i];

		if (!port->uplink)
			continue;
		if (port->sidecore == sidecore)
			return port;
		if (!first)
			first = port;
	}
	return first;
}

/* Whether a flood from @src reaches guest port @dst at all. */
static bool net_switch_floods_to(const struct net_port *src, const struct net_port *dst)
{
	if (dst == src || dst->uplink || !net_port_is_up(dst))
		return false;
	return !src->uplink || dst->wire;
}

static void net_switch_flood(struct net_switch *sw, const struct net_port *src,
			     const struct net_packet *pkt)
{
	uint16_t flood = src->uplink ? SPSC_RING_FLOOD_WIRE : SPSC_RING_FLOOD;
	bool remote[NET_MAX_SIDECORES] = { false };
	struct net_port *uplink;

	for (unsigned int i = 0; i < sw->count; i++) {
		struct net_port *dst = sw->port[i];

		if (!net_switch_floods_to(src, dst))
			continue;
		if (dst->sidecore == src->sidecore) {
			net_switch_charge(sw, src->sidecore, pkt);
			dst->deliver(dst, pkt);
		} else {
			remote[dst->sidecore] = true;
		}
	}
	for (unsigned int sidecore = 0; sidecore < NET_MAX_SIDECORES; sidecore++) {
		if (remote[sidecore])
			net_switch_send_remote(sw, src->sidecore, sidecore, flood, pkt);
	}
	if (!src->uplink && src->wire) {
		uplink = net_switch_uplink_for(sw, src->sidecore);
		if (uplink)
			net_switch_send(sw, src, uplink, pkt);
	}
}

/* The longest frame a guest may send without GSO (IEEE 802.1Q adds a tag). */
static uint32_t net_frame_limit(const struct net_packet *pkt)
{
	uint16_t type = net_get_be16(pkt->eth + 2 * ETH_ALEN);

	return ETH_HLEN + NET_MTU + (type == ETH_P_8021Q ? NET_VLAN_HLEN : 0);
}

/* Whether a guest port may send the frame; refusals are counted. */
static bool net_switch_admit(struct net_port *src, const struct net_packet *pkt)
{
	if (src->uplink)
		return true;
	if (memcmp(pkt->eth + ETH_ALEN, src->mac, ETH_ALEN) != 0) {
		src->stats.tx_spoofed++;
		src->stats.tx_drops++;
		return false;
	}
	if (pkt->hdr.gso_type == VIRTIO_NET_HDR_GSO_NONE && pkt->len > net_frame_limit(pkt)) {
		src->stats.tx_oversized++;
		src->stats.tx_drops++;
		return false;
	}
	return true;
}

/*
 * Storm control: a guest port's group frame passes while both its buckets
 * hold enough, and is dropped before any copy otherwise, so a flood costs
 * the sidecore no more than its rate (docs/data-path.md, "Storm control").
 */
static bool net_switch_storm_admit(struct net_switch *sw, struct net_port *src,
				   const struct net_packet *pkt)
{
	uint64_t now = sw->clock[src->sidecore].now;
	struct net_storm *storm = &src->storm;

	if (!storm->on)
		return true;
	if (ratelimit_tokens(&storm->frames, now) < 1 ||
	    !ratelimit_take(&storm->bytes, now, pkt->len)) {
		src->stats.tx_storm++;
		src->stats.tx_drops++;
		return false;
	}
	return ratelimit_take(&storm->frames, now, 1);
}

void net_switch_forward(struct net_switch *sw, struct net_port *src, struct net_packet *pkt)
{
	const uint8_t *dst_mac = pkt->eth;
	struct net_port *dst;

	if (!net_packet_snapshot(pkt)) {
		src->stats.tx_drops++;
		return;
	}
	if (!net_switch_admit(src, pkt))
		return;
	if (net_mac_is_group(dst_mac)) {
		if (net_switch_storm_admit(sw, src, pkt))
			net_switch_flood(sw, src, pkt);
		return;
	}
	dst = net_switch_lookup(sw, dst_mac);
	/*
	 * Every guest MAC is known, so unicast to any other MAC is for the
	 * wire: it never floods to guests, and from a guest kept off the
	 * wire (or the wire itself) it goes nowhere.
	 */
	if (!dst && !src->uplink && src->wire)
		dst = net_switch_uplink_for(sw, src->sidecore);
	if (!dst || (src->uplink && !dst->wire)) {
		src->stats.tx_unknown++;
		src->stats.tx_drops++;
		return;
	}
	if (dst != src)
		net_switch_send(sw, src, dst, pkt);
}

/* Hands a packet from a ring to its destination(s) on this sidecore. */
static void net_switch_deliver_local(struct net_switch *sw, unsigned int sidecore,
				     uint16_t port, const struct net_packet *pkt)
{
	struct net_port *dst;

	if (port != SPSC_RING_FLOOD && port != SPSC_RING_FLOOD_WIRE) {
		if (port >= sw->count)
			return;
		dst = sw->port[port];
		if (dst->sidecore == sidecore && net_port_is_up(dst)) {
			net_switch_charge(sw, sidecore, pkt);
			dst->deliver(dst, pkt);
		}
		return;
	}
	for (unsigned int i = 0; i < sw->count; i++) {
		dst = sw->port[i];
		if (dst->sidecore == sidecore && !dst->uplink && net_port_is_up(dst) &&
		    (port == SPSC_RING_FLOOD || dst->wire)) {
			net_switch_charge(sw, sidecore, pkt);
			dst->deliver(dst, pkt);
		}
	}
}

struct net_switch_ring_poll {
	struct net_switch *sw;
	unsigned int sidecore;
};

/* net_fair_poll_fn over the rings into one sidecore; source is the sender. */
static unsigned int net_switch_poll_ring(void *ctx, unsigned int from, unsigned int max)
{
	const struct net_switch_ring_poll *rp = ctx;
	struct spsc_ring *ring = rp->sw->ring[from][rp->sidecore];
	struct net_packet pkt;
	unsigned int done = 0;
	uint16_t port;

	while (ring && done < max && !net_meter_spent(net_switch_meter(rp->sw, rp->sidecore)) &&
	       spsc_ring_peek(ring, &pkt, &port)) {
		net_switch_deliver_local(rp->sw, rp->sidecore, port, &pkt);
		spsc_ring_release(ring);
		done++;
	}
	return done;
}

/*
 * Whether a ring into sidecore holds packets; with ready, marks each such
 * ring there, else stops at the first.
 */
static bool net_switch_rings_ready(struct net_switch *sw, unsigned int sidecore,
				   uint64_t *ready)
{
	bool any = false;

	for (uint64_t in = sw->rings[sidecore].from; in; in &= in - 1) {
		unsigned int from = (unsigned int)__builtin_ctzll(in);

		if (!spsc_ring_pending(sw->ring[from][sidecore]))
			continue;
		if (!ready)
			return true;
		ready[from / 64] |= 1ull << (from % 64);
		any = true;
	}
	return any;
}

bool net_switch_rings_pending(struct net_switch *sw, unsigned int sidecore)
{
	return sidecore < NET_MAX_SIDECORES && net_switch_rings_ready(sw, sidecore, NULL);
}

unsigned int net_switch_poll_rings(struct net_switch *sw, unsigned int sidecore,
				   unsigned int budget)
{
	struct net_switch_ring_poll rp = { sw, sidecore };
	uint64_t ready[NET_FAIR_WORDS] = { 0 };
	const struct net_fair_pass pass = {
		.sources = NET_MAX_SIDECORES,
		.quantum = 1,
		.budget = budget,
		.total = budget,
		.poll = net_switch_poll_ring,
		.ctx = &rp,
		.ready = ready,
	};
	unsigned int batches;

	if (sidecore >= NET_MAX_SIDECORES || !net_switch_rings_ready(sw, sidecore, ready))
		return 0;
	return net_fair_run(&pass, &sw->rings[sidecore].next, &batches);
}

void net_switch_account_poll(struct net_switch *sw, unsigned int sidecore,
			     unsigned int batches, unsigned int packets)
{
	struct net_sidecore_stats *stats = &sw->sidecore[sidecore];

	if (packets)
		stats->busy_polls++;
	else
		stats->idle_polls++;
	stats->batches += batches;
	stats->packets += packets;
}
