/* SPDX-License-Identifier: MIT */
/*
 * net.h - packets, switch ports and the L2 switch between guests.
 *
 * A packet in flight points at its bytes where they already are (a guest's
 * transmit buffers, an inter-sidecore ring cell) and carries the virtio-net
 * offload header along untouched, so a 64 KiB TSO segment crosses from one
 * guest to another without being cut up.
 *
 * Each port belongs to one sidecore, which alone writes its counters and
 * calls its deliver function. Forwarding to a port of the same sidecore calls
 * deliver at once (one copy: sender's buffers to receiver's buffers); to a
 * port of another sidecore it copies the packet into the SPSC ring from the
 * source sidecore to the destination's, whose poll loop delivers it.
 *
 * The port table and the rings are set up before any sidecore forwards and
 * only read afterwards; a port's up flag is the one thing that changes.
 */
#ifndef SIDECORE_NET_NET_H
#define SIDECORE_NET_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/if_ether.h>
#include <linux/virtio_net.h>

#include "config/config_limits.h"
#include "lib/net_mac.h"
#include "lib/ratelimit.h"

/*
 * virtio 1.1 §5.1.6.3: the largest packet with GSO, the largest TCP or UDP
 * packet (65536) plus the 14-byte Ethernet header.
 */
#define NET_FRAME_MAX		65550
/*
 * Every port's MTU: the largest frame without GSO is the 14-byte Ethernet
 * header plus 1500 bytes, 4 more with an IEEE 802.1Q tag (a guest may run
 * VLANs of its own; the switch forwards by MAC only).
 */
#define NET_MTU			1500
#define NET_VLAN_HLEN		4
#define NET_PACKET_MAX_SEGMENTS	64
#define NET_MAX_PORTS		64
#define NET_MAX_SIDECORES	LIMIT_SIDECORES
#define NET_CACHE_LINE		64

struct net_segment {
	const uint8_t *data;
	uint32_t len;
};

/*
 * The segments may lie in memory the sending guest can still write, so the
 * Ethernet header is read from them once, by net_packet_snapshot(), into
 * eth: the switch decides on that copy and every reader of the packet gets
 * those same bytes (net_packet_read()).
 */
struct net_packet {
	struct virtio_net_hdr_v1 hdr;	/* offload metadata; num_buffers unused */
	uint32_t len;			/* frame bytes, Ethernet header on */
	uint32_t count;			/* segments in use */
	uint8_t eth[ETH_HLEN];		/* the frame's first bytes, as snapshotted */
	struct net_segment segment[NET_PACKET_MAX_SEGMENTS];
};

/* As the guest sees them: tx = sent by the guest, rx = received by it. */
struct net_port_stats {
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t tx_drops;	/* taken from the guest but not forwarded */
	uint64_t tx_spoofed;	/* of those: source MAC not the port's */
	uint64_t tx_oversized;	/* of those: longer than the MTU allows, no GSO */
	uint64_t tx_unknown;	/* of those: unicast to no guest, and no wire the sender may reach */
	uint64_t tx_storm;	/* of those: broadcast or multicast over the port's storm limits */
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t rx_drops;	/* addressed to the guest but not delivered */
};

/* Work left to the source being served: bytes copied, segments walked. */
struct net_meter {
	int64_t bytes;
	int64_t segments;
};

/* A meter outside any pass, which nothing spends. */
#define NET_METER_UNLIMITED	((struct net_meter){ INT64_MAX / 2, INT64_MAX / 2 })

/**
 * net_meter_charge() - count work done for the source being served.
 * @meter: the meter, NULL for none
 * @bytes: bytes copied
 * @segments: segments walked to copy them
 */
static inline void net_meter_charge(struct net_meter *meter, uint32_t bytes, uint32_t segments)
{
	if (meter) {
		meter->bytes -= bytes;
		meter->segments -= segments;
	}
}

/**
 * net_meter_spent() - whether the source being served may start no more packets.
 * @meter: the meter, NULL for none
 *
 * Return: true once its bytes or its segments are used up.
 */
static inline bool net_meter_spent(const struct net_meter *meter)
{
	return meter && (meter->bytes <= 0 || meter->segments <= 0);
}

/*
 * Storm control: the broadcast and multicast frames a guest port may send,
 * as two token buckets in the clock of net_switch_set_now(), one in frames
 * and one in bytes (docs/data-path.md, "Storm control").
 */
struct net_storm {
	bool on;
	struct ratelimit frames;
	struct ratelimit bytes;
};

/*
 * A storm bucket holds a tenth of a second of its rate, so a guest that
 * boots or renews its lease sends its burst of ARP, DHCP and neighbour
 * discovery at once, and a flood gets no more than that ahead.
 */
#define NET_STORM_BURST_PER_S	10

struct net_port;

/* Delivers pkt into the port's guest (or onto the wire); false if dropped. */
typedef bool (*net_deliver_fn)(struct net_port *port, const struct net_packet *pkt);

struct net_port {
	uint8_t mac[ETH_ALEN];	/* static, from the config; unused for an uplink */
	bool uplink;		/* the sidecore's NIC queue pair, not a guest */
	bool wire;		/* a guest port that may exchange frames with the uplinks */
	bool up;		/* accepts packets; see net_port_set_up() */
	unsigned int sidecore;	/* index of the owning sidecore */
	unsigned int index;	/* slot in the switch, set by net_switch_add_port() */
	net_deliver_fn deliver;
	void *ctx;		/* the deliver function's */
	struct net_storm storm;	/* a guest port's; off for an uplink */
	struct net_port_stats stats;
};

/* Per sidecore, written only by that sidecore. */
struct net_sidecore_stats {
	uint64_t busy_polls;	/* poll iterations that moved packets */
	uint64_t idle_polls;
	uint64_t batches;	/* queue or ring polls that moved packets */
	uint64_t packets;	/* average batch = packets / batches */
	uint64_t unroutable;	/* copies for a sidecore no ring leads to */
} __attribute__((aligned(NET_CACHE_LINE)));

/* Per sidecore, written only by that sidecore. */
struct net_sidecore_rings {
	unsigned int next;	/* the incoming ring served first in the next poll */
	uint64_t from;		/* a bit per sidecore with a ring into this one */
} __attribute__((aligned(NET_CACHE_LINE)));
_Static_assert(NET_MAX_SIDECORES <= 64, "a sidecore's incoming rings are one word of bits");

/*
 * Per sidecore, written only by that sidecore: the meter its pass charges
 * (net/fair.h), which every copy the switch makes for the source being
 * served is charged to.
 */
struct net_sidecore_meter {
	struct net_meter meter;
} __attribute__((aligned(NET_CACHE_LINE)));

/* Per sidecore, written only by that sidecore: the clock at its pass's start. */
struct net_sidecore_clock {
	uint64_t now;
} __attribute__((aligned(NET_CACHE_LINE)));

struct spsc_ring;

struct net_switch {
	struct net_port *port[NET_MAX_PORTS];
	unsigned int count;
	struct spsc_ring *ring[NET_MAX_SIDECORES][NET_MAX_SIDECORES];	/* [from][to] */
	struct net_sidecore_stats sidecore[NET_MAX_SIDECORES];
	struct net_sidecore_rings rings[NET_MAX_SIDECORES];
	struct net_sidecore_meter meter[NET_MAX_SIDECORES];
	struct net_sidecore_clock clock[NET_MAX_SIDECORES];
};

/**
 * net_packet_snapshot() - copy the Ethernet header out of the segments.
 * @pkt: the packet, len and segments filled in
 *
 * Reads the first min(len, ETH_HLEN) bytes of the segments into pkt->eth,
 * once; the rest of eth is zeroed.
 *
 * Return: true when the frame holds a whole Ethernet header.
 */
bool net_packet_snapshot(struct net_packet *pkt);

/**
 * net_packet_read() - copy bytes out of a packet, across segments.
 * @pkt: the packet, snapshotted by net_packet_snapshot()
 * @offset: first frame byte to copy
 * @buf: destination
 * @len: bytes wanted
 *
 * The Ethernet header comes from the snapshot, never from the segments.
 *
 * Return: bytes copied, less than @len where the frame ends first.
 */
size_t net_packet_read(const struct net_packet *pkt, uint32_t offset, void *buf, size_t len);

/**
 * net_port_is_up() - whether the switch may hand the port packets.
 * @port: the port
 *
 * Return: the flag net_port_set_up() last stored.
 */
static inline bool net_port_is_up(const struct net_port *port)
{
	return __atomic_load_n(&port->up, __ATOMIC_ACQUIRE);
}

/**
 * net_port_set_up() - let the switch hand packets to a port, or stop it.
 * @port: the port
 * @up: true once its device can take packets, false when it is reset or broken
 *
 * Other sidecores read the flag when forwarding; a packet already in a ring
 * is checked again by the owner before delivery.
 */
static inline void net_port_set_up(struct net_port *port, bool up)
{
	__atomic_store_n(&port->up, up, __ATOMIC_RELEASE);
}

/**
 * net_switch_meter() - the meter a sidecore's pass charges its sources' work to.
 * @sw: the switch
 * @sidecore: the sidecore; only it charges or reads the meter
 *
 * Outside a pass the meter is NET_METER_UNLIMITED.
 *
 * Return: the meter.
 */
static inline struct net_meter *net_switch_meter(struct net_switch *sw, unsigned int sidecore)
{
	return &sw->meter[sidecore].meter;
}

/**
 * net_switch_set_now() - the time a sidecore's storm limits are checked at.
 * @sw: the switch
 * @sidecore: the sidecore about to make a pass; only it sets or reads its clock
 * @now: the clock of its ports' storm buckets (net_port_storm_init())
 */
static inline void net_switch_set_now(struct net_switch *sw, unsigned int sidecore, uint64_t now)
{
	sw->clock[sidecore].now = now;
}

/**
 * net_switch_now() - the clock net_switch_set_now() last gave a sidecore.
 * @sw: the switch
 * @sidecore: the sidecore making a pass
 *
 * Return: the time its pass started at.
 */
static inline uint64_t net_switch_now(const struct net_switch *sw, unsigned int sidecore)
{
	return sw->clock[sidecore].now;
}

/**
 * net_port_storm_init() - give a guest port its storm limits.
 * @port: the port, before it is added to the switch
 * @frames: broadcast and multicast frames it may send a second; 0: no limit
 * @bytes: their bytes a second; 0: no limit
 * @hz: ticks a second of the clock net_switch_set_now() is given
 *
 * The buckets start full.
 * Each bucket holds a tenth of a second of its rate (NET_STORM_BURST_PER_S),
 * the byte bucket at least NET_FRAME_MAX, so the largest frame can pass.
 */
void net_port_storm_init(struct net_port *port, uint32_t frames, uint32_t bytes, uint64_t hz);

/**
 * net_switch_init() - an empty switch, no ports, no rings.
 * @sw: the switch
 */
void net_switch_init(struct net_switch *sw);

/**
 * net_switch_add_port() - attach a port before traffic starts.
 * @sw: the switch
 * @port: mac, uplink, sidecore and deliver filled in; index is set here
 *
 * Return: false when the table is full, the sidecore index is out of range,
 * a guest port's MAC is a group address or already taken.
 */
bool net_switch_add_port(struct net_switch *sw, struct net_port *port);

/**
 * net_switch_remove_port() - detach a port before traffic starts
 * @sw: the switch, not yet forwarding (a guest whose creation failed)
 * @port: the port; nothing happens if @sw does not hold it
 *
 * The ports after it move down one place and take their new indexes.
 */
void net_switch_remove_port(struct net_switch *sw, struct net_port *port);

/**
 * net_switch_add_ring() - the ring that carries packets from one sidecore's
 * ports to another's.
 * @sw: the switch
 * @from: the producing sidecore
 * @to: the consuming sidecore
 * @ring: an initialised ring, owned by the caller
 */
void net_switch_add_ring(struct net_switch *sw, unsigned int from, unsigned int to,
			 struct spsc_ring *ring);

/**
 * net_switch_forward() - send a packet on from the port it came in on.
 * @sw: the switch
 * @src: the ingress port; the caller runs on its sidecore
 * @pkt: the packet, whose buffers may be reused once this returns; its
 *       Ethernet header is snapshotted here
 *
 * A guest port's frame is dropped and counted in tx_drops when its source
 * MAC is not the port's (tx_spoofed) or, without GSO, when it is longer than
 * ETH_HLEN + NET_MTU, or ETH_HLEN + NET_VLAN_HLEN + NET_MTU with an 802.1Q
 * tag (tx_oversized); a frame shorter than an Ethernet header is dropped.
 * A guest port's broadcast or multicast frame beyond its storm limits
 * (net_port_storm_init()) is dropped before any copy (tx_drops, tx_storm).
 *
 * From a guest port: unicast to a known MAC goes to that port only; group
 * destinations go to every other guest port that is up. When @src may reach
 * the wire, group destinations and unicast to a MAC no port has also go to
 * one uplink: the one of the source's sidecore, or where that sidecore has
 * none, the first uplink added (through the ring to its sidecore). Unicast
 * to an unknown MAC never reaches another guest; without the wire it is
 * dropped (tx_drops, tx_unknown).
 *
 * From an uplink: only guest ports that may reach the wire receive; unicast
 * goes to the port with that MAC, group addresses to all of them, and
 * unicast to any other MAC is dropped (tx_drops, tx_unknown). Nothing goes
 * back out of @src, or between uplinks.
 *
 * Every copy made, into a receiver or into a ring, is charged to @src's
 * sidecore's meter (net_switch_meter()): @pkt's bytes and segments once per
 * copy, so a flood to N ports costs its sender N copies.
 */
void net_switch_forward(struct net_switch *sw, struct net_port *src, struct net_packet *pkt);

/**
 * net_switch_rings_pending() - whether another sidecore sent this one packets.
 * @sw: the switch
 * @sidecore: the calling sidecore
 *
 * Return: true when net_switch_poll_rings() would find a packet.
 */
bool net_switch_rings_pending(struct net_switch *sw, unsigned int sidecore);

/**
 * net_switch_poll_rings() - deliver packets other sidecores sent this one.
 * @sw: the switch
 * @sidecore: the calling sidecore
 * @budget: most packets to take out of all incoming rings together
 *
 * The rings take turns, a packet each, starting with a different ring on
 * every call, so a busy sidecore cannot crowd out the others. Each copy
 * into a port is charged to the sidecore's meter, and no packet is taken
 * once it is spent: the rest waits in the rings.
 *
 * Return: packets taken.
 */
unsigned int net_switch_poll_rings(struct net_switch *sw, unsigned int sidecore,
				   unsigned int budget);

/**
 * net_switch_account_poll() - count one pass of a sidecore's poll loop.
 * @sw: the switch
 * @sidecore: the calling sidecore
 * @batches: queues and rings that yielded packets in this pass
 * @packets: packets moved in this pass
 */
void net_switch_account_poll(struct net_switch *sw, unsigned int sidecore,
			     unsigned int batches, unsigned int packets);

#endif
