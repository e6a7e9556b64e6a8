/* SPDX-License-Identifier: MIT */
/*
 * virtio_net.h - a guest's virtio-net device (virtio 1.2 §5.1), data path:
 * receive and transmit queue pairs, one pair unless the device is made
 * with more; then a control queue too, through which the driver picks how
 * many pairs carry traffic (VIRTIO_NET_F_MQ, §5.1.6.5.5).
 *
 * The transport (virtio-pci) owns the registers and the device status; it
 * calls in here for feature bits, the configuration space, queue layout and
 * the status transitions. The device's sidecore polls transmit and the
 * control queue, and takes deliveries from the switch. Interrupts leave
 * through one callback.
 *
 * Threads: virtio_net_set_features(), _enable_queue() and _start() run before
 * the device is started, virtio_net_reset() only while its sidecore leaves the
 * device alone; the data path calls run on the owning sidecore only.
 */
#ifndef SIDECORE_VIRTIO_VIRTIO_NET_H
#define SIDECORE_VIRTIO_VIRTIO_NET_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_net.h>

#include "net/net.h"
#include "virtio/tx_hold.h"
#include "virtio/virtio_dev.h"
#include "virtio/virtq.h"

/*
 * The most queue pairs a device offers: one per vCPU, and a guest has at
 * most LIMIT_GUEST_VCPUS (8). A larger count is capped here.
 */
#define VIRTIO_NET_MAX_PAIRS	8
/* §5.1.2: receiveq1, transmitq1, ..., receiveqN, transmitqN, then controlq. */
#define VIRTIO_NET_RXQ(pair)	(2 * (pair))
#define VIRTIO_NET_TXQ(pair)	(2 * (pair) + 1)
#define VIRTIO_NET_RX_QUEUE	VIRTIO_NET_RXQ(0)
#define VIRTIO_NET_TX_QUEUE	VIRTIO_NET_TXQ(0)
#define VIRTIO_NET_MAX_QUEUES	(2 * VIRTIO_NET_MAX_PAIRS + 1)
/* Flows whose transmit pair a device remembers, by hash (a power of two). */
#define VIRTIO_NET_FLOW_SLOTS	256

/* Why packets were dropped, beyond the port's totals. */
struct virtio_net_stats {
	uint64_t tx_malformed;	/* header asks too much, frame too short or long */
	uint64_t rx_no_buffers;	/* receiveq empty */
	uint64_t rx_too_big;	/* without MRG_RXBUF: the next buffer too small */
	uint64_t rx_offloads;	/* GSO or partial checksum the guest did not accept */
};

/* What one queue pair carried: the counters' queue lines (docs/data-path.md). */
struct virtio_net_queue_stats {
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t tx_packets;
	uint64_t tx_bytes;
};

/* A queue pair's publishing state; its queues are queue[RXQ(i)] and queue[TXQ(i)]. */
struct virtio_net_pair {
	bool rx_unpublished;	/* receive entries pushed but not yet published */
	struct tx_hold tx_hold;	/* the transmitq's held completions (virtio_net_flush()) */
	struct virtio_net_queue_stats stats;	/* kept across resets, as the port's */
};

/* Where a flow's frames are received, and where it last sent from. */
struct virtio_net_flow {
	uint32_t hash;		/* net_flow_hash() of the flow; 0: slot unused */
	uint8_t rx_pair;	/* the pair its frames go to now */
	uint8_t tx_pair;	/* the pair it last left from: rx_pair once that is drained */
};

struct virtio_net {
	struct virtio_dev vdev;	/* first: the glue allocates the model through it */
	struct net_port port;	/* the device's switch port; port.ctx is the device */
	struct virtq queue[2 * VIRTIO_NET_MAX_PAIRS];	/* receiveq1, transmitq1, ... */
	struct virtq ctrl;	/* the control queue, when CTRL_VQ is negotiated */
	struct virtio_net_pair pair[VIRTIO_NET_MAX_PAIRS];
	unsigned int max_pairs;		/* offered: config.max_virtqueue_pairs */
	unsigned int active_pairs;	/* carrying traffic: 1 until VQ_PAIRS_SET */
	unsigned int tx_next;		/* the pair whose transmitq goes first next poll */
	struct virtio_net_flow flow[VIRTIO_NET_FLOW_SLOTS];	/* with several pairs active */
	struct net_switch *sw;
	struct virtio_net_config config;
	uint64_t tx_holdoff;	/* clock units a completion may wait; 0: none */
	struct virtio_net_stats stats;
};

/* The device type's own parameters, virtio_dev_params' type. */
struct virtio_net_params {
	uint8_t mac[ETH_ALEN];
	unsigned int sidecore;	/* index of the sidecore that serves this device */
	struct net_switch *sw;
	/* How long, in the clock of virtio_net_flush(), a transmit completion may wait. */
	uint64_t tx_holdoff;
	/*
	 * Queue pairs to offer, the guest's vCPU count (0 or 1: one pair, no
	 * control queue), capped at VIRTIO_NET_MAX_PAIRS.
	 */
	unsigned int max_pairs;
};

/*
 * The virtio-net device's type for the device core and the glue. Its init
 * takes a struct virtio_net_params as the params' type and refuses a
 * missing switch and a MAC that is not an individual address; the device
 * starts in reset state with its port down, and the caller then attaches
 * dev->port with net_switch_add_port(). It offers VIRTIO_NET_DEVICE_FEATURES,
 * with more than one queue pair also VIRTIO_NET_MQ_FEATURES, and shows
 * 2 queues for one pair, 2 * pairs + 1 (the control queue last) for more.
 * A feature set must keep the dependencies of virtio 1.2 §5.1.3.1; the
 * control queue follows the pairs the features leave the driver (§5.1.2:
 * index 2 without MQ, 2 * max_virtqueue_pairs with it). DRIVER_OK brings
 * the port up, a broken queue or a reset takes it down; a reset also
 * forgets the held completions and the flows, and one queue pair carries
 * traffic again.
 */
extern const struct virtio_dev_ops virtio_net_ops;

/* What every device offers (virtio 1.2 §5.1.3). */
#define VIRTIO_NET_DEVICE_FEATURES					\
	(1ull << VIRTIO_F_VERSION_1 | 1ull << VIRTIO_NET_F_MAC |		\
	 1ull << VIRTIO_NET_F_STATUS | 1ull << VIRTIO_NET_F_MRG_RXBUF |	\
	 1ull << VIRTIO_NET_F_CSUM | 1ull << VIRTIO_NET_F_GUEST_CSUM |	\
	 1ull << VIRTIO_NET_F_HOST_TSO4 | 1ull << VIRTIO_NET_F_HOST_TSO6 |	\
	 1ull << VIRTIO_NET_F_GUEST_TSO4 | 1ull << VIRTIO_NET_F_GUEST_TSO6 |	\
	 1ull << VIRTIO_RING_F_EVENT_IDX)
/* What a device of more than one queue pair offers on top. */
#define VIRTIO_NET_MQ_FEATURES	(1ull << VIRTIO_NET_F_CTRL_VQ | 1ull << VIRTIO_NET_F_MQ)

/**
 * virtio_net_poll_tx() - answer the control queue, forward what the guest
 * transmitted.
 * @dev: the device
 * @budget: most packets to take, from all transmit queues together
 *
 * Control commands are answered first, and published at once: the driver
 * waits for them spinning (docs/data-path.md, "Multiqueue"). Then the
 * active pairs' transmitqs take turns of an equal share of @budget, the
 * first one rotating from call to call, until the budget is spent or every
 * queue is empty. Each packet goes to the switch without a copy; its
 * buffers go back to the guest once the switch is done with them. Without a
 * holdoff the guest sees them at once, with the transmitq interrupt if it
 * asked for it; with one, virtio_net_flush() hands them back.
 *
 * Return: packets taken from the transmitqs (dropped ones included).
 */
unsigned int virtio_net_poll_tx(struct virtio_net *dev, unsigned int budget);

/**
 * virtio_net_deliver() - copy a packet into the guest's receive buffers.
 * @dev: the device, on its own sidecore
 * @pkt: the packet
 *
 * With more than one active pair the receiveq is that of the pair the
 * packet's flow (net_flow_hash()) last left the guest from, once the guest
 * has taken all that went to its previous receiveq, or for a flow not seen
 * leaving the flow hash modulo the active pairs; otherwise receiveq1. Uses as many buffers as the packet needs with
 * MRG_RXBUF, otherwise one that holds it all. Never waits: without buffers the packet is dropped and
 * counted. The guest sees it after virtio_net_flush().
 *
 * Return: true when delivered.
 */
bool virtio_net_deliver(struct virtio_net *dev, const struct net_packet *pkt);

/**
 * virtio_net_flush() - end of a poll pass: publish, then interrupt if asked for.
 * @dev: the device
 * @now: the caller's clock, in the units of the transmit holdoff
 *
 * For each queue pair: delivered packets are published at once. Held
 * transmit completions are published with the pair's received packets (the
 * guest's receive poll reclaims its transmit buffers too), when half the
 * queue is held, or when the oldest has waited the holdoff; only then is
 * the transmitq interrupt considered (docs/data-path.md, "Completion
 * moderation").
 */
void virtio_net_flush(struct virtio_net *dev, uint64_t now);

#endif
