/* SPDX-License-Identifier: MIT */
/*
 * virtio_vsock.h - a guest's virtio-vsock device (virtio 1.1 §5.10):
 * receiveq 0, transmitq 1, eventq 2. The device carries packets between
 * guests: each transmitted packet is checked, looked up by its destination
 * CID in the table of the devices its sidecore serves, and copied into the
 * receiver's receive buffers. The hypervisor keeps no connection state but
 * the few connections it reset: the guests' credit (buf_alloc, fwd_cnt)
 * travels in the headers, end to end.
 *
 * The transport (virtio-pci) owns the registers and the device status; it
 * calls in here for feature bits, the configuration space, queue layout and
 * the status transitions. Interrupts leave through one callback.
 *
 * Threads: every call runs under the lock of the device's domain, its
 * sidecore's: the sidecore's pass holds it, and the transport's calls
 * (features, queues, start, reset) come from the guest's vCPUs, which take
 * it around BAR and configuration accesses. A pass that copies into the
 * receive queue of a device of another domain takes that domain's lock
 * too, if it is free at once (virtio_vsock_domain); else the packet waits
 * for a later pass. No field is read without its device's lock.
 */
#ifndef SIDECORE_VIRTIO_VIRTIO_VSOCK_H
#define SIDECORE_VIRTIO_VIRTIO_VSOCK_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_config.h>
#include <linux/virtio_ring.h>
#include <linux/virtio_vsock.h>

#include "config/config_limits.h"
#include "lib/ratelimit.h"
#include "net/net.h"
#include "virtio/tx_hold.h"
#include "virtio/virtio_dev.h"
#include "virtio/virtq.h"

#define VIRTIO_VSOCK_RX_QUEUE		0
#define VIRTIO_VSOCK_TX_QUEUE		1
#define VIRTIO_VSOCK_EVENT_QUEUE	2
#define VIRTIO_VSOCK_QUEUES		3
/* Interrupt source for a configuration change (the device needs a reset). */

/* The host's CID (VMADDR_CID_HOST): the hypervisor's own services. */
#define VIRTIO_VSOCK_HOST_CID		2
/* Its ports (docs/data-path.md, "Services on CID 2"), SOCK_STREAM only. */
#define VIRTIO_VSOCK_PORT_ECHO		7	/* every byte back, in order */
#define VIRTIO_VSOCK_PORT_DISCARD	9	/* every byte taken and counted */
#define VIRTIO_VSOCK_PORT_COUNTERS	1552	/* the asking guest's own counters */
/* Connections to CID 2 one device may hold at once; a REQUEST past them gets an RST. */
#define VIRTIO_VSOCK_HOST_CONNS		4
/*
 * The echo service's buffer per connection, the credit it grants
 * (buf_alloc): a 64 KiB write fits whole, and four connections cost a
 * device 256 KiB.
 */
#define VIRTIO_VSOCK_ECHO_BUF		(64 * 1024)
/*
 * The discard service's credit: it holds no byte, so what it grants only
 * bounds what is in flight; it tells the guest what it took each time
 * half of it has gone by.
 */
#define VIRTIO_VSOCK_DISCARD_BUF	(256 * 1024)
/*
 * The counters service's text: one guest's vCPU lines, its NIC's port
 * and queue lines and its vsock line. Lines past it are left out whole.
 */
#define VIRTIO_VSOCK_COUNTERS_MAX	(8 * 1024)
/*
 * A device formats that text at most once in this long; REQUESTs within
 * it get the same text, so a flood of them costs its sidecore a copy of
 * a few KiB each, not the formatting (docs/security.md).
 */
#define VIRTIO_VSOCK_COUNTERS_MS	100
/*
 * REQUESTs to CID 2 a device may make a second, and at once: each sets up
 * a connection and owes a RESPONSE, and one to the counters service a copy
 * of its text. Past them the device takes nothing more from the transmitq
 * until the bucket refills, so a guest that floods CID 2 waits, not its
 * sidecore's other guests (docs/data-path.md, "Services on CID 2").
 */
#define VIRTIO_VSOCK_HOST_REQUESTS	100
#define VIRTIO_VSOCK_HOST_BURST		16
/*
 * The longest payload a packet may carry: what Linux sends at most
 * (VIRTIO_VSOCK_MAX_PKT_BUF_SIZE); a longer one breaks the transmitq.
 */
#define VIRTIO_VSOCK_PAYLOAD_MAX	(64 * 1024)
/*
 * How long a packet may wait, parked, for a receiver's buffers before the
 * device resets its connection (docs/data-path.md, "vsock"). Packets for
 * other receivers go on meanwhile, so the wait costs only that stream: it
 * can be long enough for a guest whose CPU is busy elsewhere to get round
 * to posting buffers again. It still ends, for a receiver that never
 * will, whose stream would otherwise hold the sender's transmit buffers.
 */
#define VIRTIO_VSOCK_STALL_MS		500
/*
 * How long a transmit completion may be held back (docs/data-path.md,
 * "Completion moderation"): Linux's driver reclaims its transmit buffers
 * only in answer to the transmitq's interrupt, so one per pass costs the
 * guest an interrupt and a worker's run per packet. The sidecore's hold,
 * SIDECORE_TX_HOLDOFF_US, is the params' tx_holdoff, as virtio-net's.
 */
/*
 * Entries of each queue. Linux keeps its receiveq full of 4 KiB buffers,
 * so that a 64 KiB packet, cut into 16 of them, always finds room while
 * the guest keeps up: 6.1 posts each as two descriptors, header and
 * payload, so 64 buffers, a whole socket's default credit (256 KiB).
 */
#define VIRTIO_VSOCK_QUEUE_SIZE		128
/*
 * Transmit chains a device may hold while their receivers have no room:
 * its whole transmitq. Past them the queue waits.
 */
#define VIRTIO_VSOCK_PARKED_MAX		VIRTIO_VSOCK_QUEUE_SIZE
/* Connections of one sender the device remembers having reset. */
#define VIRTIO_VSOCK_RESET_SLOTS	4
/* Devices a table routes between: every guest's. */
#define VIRTIO_VSOCK_TABLE_MAX		LIMIT_GUESTS
/*
 * Connections with other guests a device keeps, to tell its driver when a
 * peer's device goes (virtio_vsock_peers.c); past them the oldest is
 * forgotten, and its socket learns of the peer's end at its next packet.
 */
#define VIRTIO_VSOCK_LINKS		32

struct virtio_vsock;

/*
 * Writes the device's guest's own counters as text into buf (size bytes
 * at most); returns the length. For CID 2's counters service.
 */
typedef unsigned int (*virtio_vsock_snapshot_fn)(void *ctx, char *buf, unsigned int size);

/* What the guest sent, counted at the sender. */
struct virtio_vsock_stats {
	uint64_t packets;	/* delivered to another device (or itself) */
	uint64_t bytes;		/* their payload */
	uint64_t rsts;		/* RSTs the device answered with: no one at dst_cid, no type known, a reset */
	uint64_t dropped;	/* taken, not delivered: RSTs no one took at once, a reset connection's */
	uint64_t resets;	/* connections reset: a packet waited too long, or could never fit */
	uint64_t credit_stalls;	/* passes the transmitq waited for receive buffers */
	uint64_t spoofed;	/* dropped: src_cid not the device's own */
	uint64_t remote;	/* of the packets, those for another domain's device */
	uint64_t busy;		/* passes the transmitq waited for another domain's lock */
	uint64_t peer_gone;	/* RSTs to the driver for connections whose peer device went */
	uint64_t echoed;	/* payload bytes CID 2's echo service sent back */
	uint64_t discarded;	/* payload bytes CID 2's discard service took */
	uint64_t held;		/* REQUESTs to CID 2 that waited for the request rate */
};

/*
 * The lock its domain's devices are served under (a sidecore's). A pass
 * holding its own domain's lock waits for another domain's only if that
 * one ranks higher, and only tries a lower one: no two passes ever wait
 * for each other.
 */
struct virtio_vsock_domain {
	void (*lock)(struct virtio_vsock_domain *domain);
	bool (*trylock)(struct virtio_vsock_domain *domain);
	void (*unlock)(struct virtio_vsock_domain *domain);
	unsigned int rank;	/* distinct for every domain (the sidecore's index) */
	struct net_meter *meter;	/* NULL, or what its pass charges copies to (net/fair.h) */
};

/*
 * The devices packets are routed between, by CID; zeroed, it is empty.
 * Filled before any device runs, and read-only from then on but for
 * deaths, which every domain bumps atomically.
 */
struct virtio_vsock_table {
	struct virtio_vsock *dev[VIRTIO_VSOCK_TABLE_MAX];
	unsigned int count;
	/*
	 * Devices reset or broken so far, modulo 2^16: their peers look. A
	 * 16-bit word, so that the port of each device with links watches it
	 * (sidecore/port.h) and a pass looks at them only after a death.
	 */
	uint16_t deaths;
};

/* A connection of the device's driver with another guest's (virtio_vsock_peers.c). */
struct virtio_vsock_link {
	const struct virtio_vsock *peer;	/* NULL: the slot is free */
	uint32_t peer_life;	/* the peer's life when the connection was made */
	uint32_t port;		/* the driver's end */
	uint32_t peer_port;
	uint16_t type;
};

/* A connection of the device's, as its packets name it (src_cid is the device's). */
struct virtio_vsock_stream {
	uint64_t dst_cid;
	uint32_t src_port;
	uint32_t dst_port;
	bool used;
};

/*
 * A connection of the device's driver to a service on CID 2. Counters are
 * the stream's byte counts modulo 2^32, as the credit fields are (virtio
 * 1.2 §5.10.6.3): the guest may have peer_buf_alloc - (tx_cnt -
 * peer_fwd_cnt) bytes on their way to it.
 */
struct virtio_vsock_host_conn {
	uint32_t service;	/* the port on CID 2; 0: the slot is free */
	uint32_t guest_port;
	uint32_t peer_buf_alloc;	/* the guest's credit, from its last header */
	uint32_t peer_fwd_cnt;
	uint32_t tx_cnt;	/* payload bytes sent to the guest */
	uint32_t fwd_cnt;	/* payload bytes taken from the guest and used up */
	uint32_t fwd_told;	/* fwd_cnt in the last header sent */
	uint32_t head;		/* ring offset of the oldest byte held */
	uint32_t held;		/* bytes held, not yet sent: echo's, the counters' text */
	uint8_t owed;		/* VSOCK_OWE_* control packets still to send */
	bool peer_done;		/* the guest sends no more (SHUTDOWN with SEND) */
	bool peer_deaf;		/* the guest reads no more (SHUTDOWN with RCV) */
	uint8_t ring[VIRTIO_VSOCK_ECHO_BUF];
};

/*
 * A transmit chain the device took but could not deliver yet: the
 * receiver has no room, or is another domain's and its lock was taken.
 * The device keeps it and completes it out of order later (§2.6.8), so
 * that the packets behind it for other receivers go on.
 */
struct virtio_vsock_parked {
	const struct virtio_vsock *dst;	/* the receiver it waits for */
	uint64_t since;			/* the clock when it first waited */
	uint16_t head;			/* its chain in the transmitq */
	uint16_t avail_idx;		/* the receiver's avail->idx at the last try */
};

struct virtio_vsock {
	struct virtio_dev vdev;	/* first: the glue allocates the model through it */
	struct virtq queue[VIRTIO_VSOCK_QUEUES];
	struct virtio_vsock_table *table;
	struct virtio_vsock_domain *domain;
	virtio_vsock_snapshot_fn snapshot;	/* called with vdev.ctx */
	uint64_t cid;
	bool rx_unpublished;	/* receive entries pushed but not yet published */
	bool rx_wanted;		/* another's packet waits for its buffers: RSTs give way */
	struct tx_hold tx_hold;	/* the transmitq's held completions */
	uint64_t tx_holdoff;	/* clock units a transmit completion may be held; 0: none */
	uint64_t now;		/* the clock at the last flush */
	uint64_t stall_timeout;	/* clock units a head packet may wait */
	struct virtio_vsock_parked parked[VIRTIO_VSOCK_PARKED_MAX];	/* in the order taken */
	unsigned int parked_count;
	/* Reset connections: their later packets are dropped until a new REQUEST. */
	struct virtio_vsock_stream reset[VIRTIO_VSOCK_RESET_SLOTS];
	unsigned int reset_next;	/* the slot the next reset takes */
	/* Connections with other guests, and the lives of the device. */
	struct virtio_vsock_link link[VIRTIO_VSOCK_LINKS];
	unsigned int link_next;	/* the slot taken when all are used */
	uint32_t life;		/* resets and breaks so far; peers read it unlocked */
	uint16_t deaths_seen;	/* table->deaths at the last look at the links */
	bool reap_pending;	/* an RST for a dead peer found no buffer */
	/* CID 2's end of the driver's connections there. */
	struct virtio_vsock_host_conn host[VIRTIO_VSOCK_HOST_CONNS];
	bool host_blocked;	/* output waits for receive buffers ... */
	uint16_t host_blocked_avail;	/* ... beyond this avail->idx */
	bool host_charged;	/* a counters REQUEST was taken: it ends the port's turn */
	/* REQUESTs to CID 2, in the units of flush's now, when bounded. */
	bool requests_bounded;
	struct ratelimit requests;
	bool request_held;	/* a REQUEST waits for the bucket: the transmitq waits */
	uint16_t request_head;	/* its chain, taken and not yet completed */
	struct virtio_vsock_hdr request;	/* its header, as checked */
	bool counters_valid;	/* counters holds text, formatted at counters_at */
	uint64_t counters_at;
	uint64_t counters_interval;	/* VIRTIO_VSOCK_COUNTERS_MS in the units of flush's now */
	unsigned int counters_len;
	char counters[VIRTIO_VSOCK_COUNTERS_MAX];
	struct virtio_vsock_stats stats;
};

/* The device type's own parameters, virtio_dev_params' type. */
struct virtio_vsock_params {
	uint64_t cid;		/* the guest's, 3 to 0xfffffffe */
	struct virtio_vsock_table *table;
	struct virtio_vsock_domain *domain;	/* whose lock the device is served under */
	virtio_vsock_snapshot_fn snapshot;	/* NULL: no counters service */
	uint64_t stall_timeout;	/* VIRTIO_VSOCK_STALL_MS in the units of flush's now */
	uint64_t tx_holdoff;	/* how long a transmit completion is held, same units; 0: not */
	uint64_t counters_interval;	/* VIRTIO_VSOCK_COUNTERS_MS, in the same units */
	/* One second / VIRTIO_VSOCK_HOST_REQUESTS in the same units; 0: no bound. */
	uint64_t request_interval;
};

/*
 * The vsock device's type for the device core and the glue. Its init takes
 * a struct virtio_vsock_params as the params' type and refuses a missing
 * table or domain, and a CID that is one of the reserved 0 to 2 or
 * 0xffffffff or does not fit in 32 bits; the caller then adds the device
 * to the table with virtio_vsock_table_add(). The configuration is the
 * guest's CID (§5.10.4); a reset forgets queues, features, parked packets,
 * CID 2's connections and the links to peers, and keeps the CID.
 */
extern const struct virtio_dev_ops virtio_vsock_ops;

/* What the device offers (virtio 1.1 §5.10.3). */
#define VIRTIO_VSOCK_DEVICE_FEATURES					\
	(1ull << VIRTIO_F_VERSION_1 | 1ull << VIRTIO_VSOCK_F_SEQPACKET |	\
	 1ull << VIRTIO_RING_F_EVENT_IDX)

/**
 * virtio_vsock_table_add() - route packets for a device's CID to it
 * @table: the table, the one in the device's params
 * @dev: the device, initialised
 *
 * Return: false when the table is full or already holds the CID.
 */
bool virtio_vsock_table_add(struct virtio_vsock_table *table, struct virtio_vsock *dev);

/**
 * virtio_vsock_table_remove() - stop routing to a device before traffic starts
 * @table: the table, not yet used by any pass (a guest whose creation failed)
 * @dev: the device; nothing happens if @table does not hold it
 */
void virtio_vsock_table_remove(struct virtio_vsock_table *table, struct virtio_vsock *dev);

/**
 * virtio_vsock_poll_tx() - forward what the guest transmitted
 * @dev: the device
 * @budget: most packets to take
 *
 * Each packet is copied into the receive buffers of the device its dst_cid
 * names, split over as many as it needs, each with its own header; one for
 * an unknown CID, or of a socket type the sender or the receiver did not
 * negotiate, is answered with an RST into @dev's own receiveq; so is one
 * for a receiver whose receiveq is not enabled. When the receiver has too
 * few receive buffers the packet is parked, without copying anything, and
 * so is every later one for that receiver, in order; packets for others
 * go on. Later passes try the parked ones first, again only once the
 * receiver posted buffers. Past the params' stall_timeout,
 * or at once when the receiver's whole ring could not hold it, the packet
 * is dropped and its connection reset, an RST to each end: a stream's
 * bytes arrive in order or the connection is reset. RSTs, the guest's
 * and the device's, are delivered at once or dropped, never waited for.
 * A malformed chain or header makes the device need a reset. A receiver
 * of a higher-ranked domain is waited for; one of a lower-ranked domain
 * whose lock is taken parks the packet too, and the lock alone never
 * resets a connection. With VIRTIO_VSOCK_PARKED_MAX packets
 * parked the transmitq waits. Packets delivered to it are published by its own domain's
 * next flush. Parked retries count against @budget like new packets, and
 * every packet copied is charged to the domain's meter: once it is spent
 * no more are tried, parked or new, and they wait, in order, for the next
 * pass.
 *
 * Return: packets taken from the transmitq or completed from the parked
 * ones (spoofed ones included).
 */
unsigned int virtio_vsock_poll_tx(struct virtio_vsock *dev, unsigned int budget);

/**
 * virtio_vsock_flush() - end of a poll pass: publish, then interrupt if asked for
 * @dev: the device
 * @now: the caller's clock, in the units of the params' stall_timeout
 *
 * Publishes the received packets of the pass and raises the receiveq's
 * interrupt where the driver asked for one. Transmit completions are held
 * until half the transmitq is held or the oldest has waited tx_holdoff
 * (the port's deadline says when); only then are they published and the
 * transmitq's interrupt considered. The next pass times its stalls by @now.
 */
void virtio_vsock_flush(struct virtio_vsock *dev, uint64_t now);

#endif
