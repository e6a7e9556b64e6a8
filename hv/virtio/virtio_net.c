/* SPDX-License-Identifier: MIT */
/*
 * virtio_net.c - virtio-net device logic (virtio 1.2 §5.1): transmit into the
 * switch, receive from it, and the control queue's multiqueue command.
 *
 * Every buffer starts with struct virtio_net_hdr_v1: with VERSION_1 the
 * header always has num_buffers (virtio 1.1 §5.1.6), wherever the driver
 * split header and frame across descriptors (§2.6.4).
 *
 * Offloads pass through untouched: a TSO segment or a packet with a partial
 * checksum from one guest reaches another guest as it was sent. A receiver
 * that did not accept the offload (GUEST_TSO4/6, GUEST_CSUM) cannot be
 * handed such a packet (§5.1.6.4.1), and finishing the job in software is
 * left to the NIC path; the packet is dropped for that port and counted in
 * rx_offloads. Linux accepts all of them whenever they are offered.
 */
#include <string.h>

#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>

#include "lib/container.h"
#include "net/fair.h"
#include "net/flow.h"
#include "net/net.h"
#include "virtio/virtio_net.h"

#define HDR_SIZE	sizeof(struct virtio_net_hdr_v1)
#define NUM_BUFFERS_OFFSET offsetof(struct virtio_net_hdr_v1, num_buffers)
#define FEATURE(bit)	(1ull << (bit))
/* §5.1.6.5: a command is class and command, then its data. */
#define CTRL_HDR_SIZE	sizeof(struct virtio_net_ctrl_hdr)
#define CTRL_MQ_SIZE	(CTRL_HDR_SIZE + sizeof(struct virtio_net_ctrl_mq))
/*
 * Control commands answered per poll. Linux sends one and spins until it is
 * used; the bound only keeps a driver that floods the queue from holding the
 * sidecore.
 */
#define CTRL_BUDGET	4
/* Entries of each queue the driver may use. */
#define VIRTIO_NET_QUEUE_SIZE	256

_Static_assert(NET_PACKET_MAX_SEGMENTS >= VIRTQ_CHAIN_MAX_SEGMENTS,
	       "a transmit chain must fit in a packet");
_Static_assert(VIRTIO_NET_MAX_PAIRS <= NET_FAIR_MAX_SOURCES,
	       "every transmitq must be a source of one fair pass");
_Static_assert(VIRTIO_NET_MAX_PAIRS + 1 <= SIDECORE_PORT_WATCHES,
	       "every transmitq and the control queue must be watched");

static struct virtio_net *to_net(struct virtio_dev *vdev)
{
	return container_of(vdev, struct virtio_net, vdev);
}

static bool has_feature(const struct virtio_net *dev, unsigned int bit)
{
	return virtio_dev_has(&dev->vdev, bit);
}

static bool virtio_net_port_deliver(struct net_port *port, const struct net_packet *pkt)
{
	return virtio_net_deliver(port->ctx, pkt);
}

static const char *virtio_net_init(struct virtio_dev *vdev, const struct virtio_dev_params *common)
{
	const struct virtio_net_params *params = common->type;
	struct virtio_net *dev = to_net(vdev);
	unsigned int pairs;

	memset(dev, 0, sizeof(*dev));
	if (!params || !params->sw || net_mac_is_group(params->mac))
		return "bad parameters";
	pairs = params->max_pairs < 1 ? 1 :
		params->max_pairs > VIRTIO_NET_MAX_PAIRS ? VIRTIO_NET_MAX_PAIRS : params->max_pairs;
	/*
	 * One pair offers what it always did: no control queue, nothing a
	 * single-vCPU guest's driver would set up or send.
	 */
	if (!virtio_dev_init(vdev, &virtio_net_ops, common,
			     VIRTIO_NET_DEVICE_FEATURES | (pairs > 1 ? VIRTIO_NET_MQ_FEATURES : 0),
			     2 * pairs + (pairs > 1)))
		return "bad parameters";
	dev->sw = params->sw;
	dev->tx_holdoff = params->tx_holdoff;
	dev->max_pairs = pairs;
	dev->active_pairs = 1;
	for (unsigned int i = 0; i < 2 * VIRTIO_NET_MAX_PAIRS; i++)
		virtq_init(&dev->queue[i], common->mem, common->name, i);
	virtq_init(&dev->ctrl, common->mem, common->name, 2 * dev->max_pairs);

	memcpy(dev->config.mac, params->mac, ETH_ALEN);
	dev->config.status = VIRTIO_NET_S_LINK_UP;
	dev->config.max_virtqueue_pairs = (uint16_t)dev->max_pairs;

	memcpy(dev->port.mac, params->mac, ETH_ALEN);
	dev->port.sidecore = params->sidecore;
	dev->port.deliver = virtio_net_port_deliver;
	dev->port.ctx = dev;
	return NULL;
}

static bool virtio_net_features_ok(const struct virtio_dev *vdev, uint64_t features)
{
	bool csum = features & FEATURE(VIRTIO_NET_F_CSUM);
	bool guest_csum = features & FEATURE(VIRTIO_NET_F_GUEST_CSUM);

	(void)vdev;
	/* virtio 1.2 §5.1.3.1: MQ needs the queue its command comes through. */
	if (features & FEATURE(VIRTIO_NET_F_MQ) && !(features & FEATURE(VIRTIO_NET_F_CTRL_VQ)))
		return false;
	/* §5.1.3.1: segmentation needs checksum offload in the same direction. */
	if (!csum && features & (FEATURE(VIRTIO_NET_F_HOST_TSO4) | FEATURE(VIRTIO_NET_F_HOST_TSO6)))
		return false;
	return guest_csum ||
	       !(features & (FEATURE(VIRTIO_NET_F_GUEST_TSO4) | FEATURE(VIRTIO_NET_F_GUEST_TSO6)));
}

/*
 * §5.1.2: N pairs is max_virtqueue_pairs with MQ negotiated and 1 without,
 * and the control queue follows the 2N data queues. So a driver that takes
 * CTRL_VQ without MQ finds the control queue at index 2.
 */
static unsigned int virtio_net_usable_pairs(const struct virtio_net *dev)
{
	return has_feature(dev, VIRTIO_NET_F_MQ) ? dev->max_pairs : 1;
}

static struct virtq *virtio_net_queue(struct virtio_dev *vdev, unsigned int index)
{
	struct virtio_net *dev = to_net(vdev);
	unsigned int data_queues = 2 * virtio_net_usable_pairs(dev);

	if (index < data_queues)
		return &dev->queue[index];
	if (index != data_queues || !has_feature(dev, VIRTIO_NET_F_CTRL_VQ))
		return NULL;
	/* Its index, quoted in messages and interrupts, follows the features. */
	dev->ctrl.index = index;
	return &dev->ctrl;
}

static void virtio_net_config(const struct virtio_dev *vdev, void *bytes)
{
	memcpy(bytes, &container_of(vdev, const struct virtio_net, vdev)->config,
	       sizeof(struct virtio_net_config));
}

static void virtio_net_start(struct virtio_dev *vdev)
{
	net_port_set_up(&to_net(vdev)->port, true);
}

/* A queue broke, or the driver reset the device: the port goes down. */
static void virtio_net_stop(struct virtio_dev *vdev)
{
	net_port_set_up(&to_net(vdev)->port, false);
}

static void virtio_net_reset(struct virtio_dev *vdev)
{
	struct virtio_net *dev = to_net(vdev);

	/* Every queue, whatever the features mapped: the core resets only those. */
	for (unsigned int i = 0; i < 2 * dev->max_pairs; i++)
		virtq_reset(&dev->queue[i]);
	virtq_reset(&dev->ctrl);
	for (unsigned int i = 0; i < dev->max_pairs; i++) {
		struct virtio_net_pair *pair = &dev->pair[i];

		pair->rx_unpublished = false;
		tx_hold_reset(&pair->tx_hold);
	}
	/* §5.1.6.5.5: multiqueue is off again until the driver asks for it. */
	dev->active_pairs = 1;
	dev->tx_next = 0;
	memset(dev->flow, 0, sizeof(dev->flow));
}

/* Copies the first len readable bytes of a chain to buf. */
static void chain_read(const struct virtq_chain *chain, void *buf, uint32_t len)
{
	uint8_t *out = buf;

	for (uint32_t i = 0; i < chain->count && len; i++) {
		uint32_t n = chain->segment[i].len < len ? chain->segment[i].len : len;

		memcpy(out, chain->segment[i].data, n);
		out += n;
		len -= n;
	}
}

/*
 * Checks a transmitted header against what was negotiated (virtio 1.1
 * §5.1.6.2.1) and cleans it for the receiver: flags that belong to the
 * receive side are ignored (§5.1.6.2.2), checksum fields without NEEDS_CSUM
 * are meaningless, num_buffers is the receiver's to fill.
 */
static bool virtio_net_check_tx_header(const struct virtio_net *dev,
				       struct virtio_net_hdr_v1 *hdr, uint32_t len)
{
	uint8_t gso = hdr->gso_type;

	hdr->flags &= VIRTIO_NET_HDR_F_NEEDS_CSUM;
	hdr->num_buffers = 0;
	if (hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		if (!has_feature(dev, VIRTIO_NET_F_CSUM))
			return false;
		/* The 16-bit checksum field lies inside the frame. */
		if ((uint32_t)hdr->csum_start + hdr->csum_offset + 2 > len)
			return false;
	} else {
		hdr->csum_start = 0;
		hdr->csum_offset = 0;
	}
	if (gso == VIRTIO_NET_HDR_GSO_NONE)
		return true;
	if (gso == VIRTIO_NET_HDR_GSO_TCPV4 && !has_feature(dev, VIRTIO_NET_F_HOST_TSO4))
		return false;
	if (gso == VIRTIO_NET_HDR_GSO_TCPV6 && !has_feature(dev, VIRTIO_NET_F_HOST_TSO6))
		return false;
	if (gso != VIRTIO_NET_HDR_GSO_TCPV4 && gso != VIRTIO_NET_HDR_GSO_TCPV6)
		return false;
	return hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM && hdr->gso_size != 0;
}

/*
 * A transmit chain is a header and a frame, all for the device to read
 * (virtio 1.1 §5.1.6.2; §2.6.5.1: the device does not read a device-writable
 * buffer). A chain of another shape is the driver breaking the queue, not a
 * frame to drop. Returns what is wrong with it, or NULL.
 */
static const char *virtio_net_tx_chain_error(const struct virtq_chain *chain)
{
	if (chain->writable)
		return "transmit buffer with a device-writable part";
	if (chain->readable < HDR_SIZE)
		return "transmit buffer shorter than the header";
	return NULL;
}

/*
 * Describes a well-formed transmit chain as a packet, without copying the
 * frame. False for a frame the switch cannot carry (no Ethernet header,
 * longer than NET_FRAME_MAX) or whose header asks for more than was
 * negotiated: the frame is dropped, the queue goes on.
 */
static bool virtio_net_build_packet(const struct virtio_net *dev,
				    const struct virtq_chain *chain, struct net_packet *pkt)
{
	uint32_t skip = HDR_SIZE;

	if (chain->readable - HDR_SIZE < ETH_HLEN || chain->readable - HDR_SIZE > NET_FRAME_MAX)
		return false;
	if (!virtq_chain_head(chain, &pkt->hdr, HDR_SIZE))
		chain_read(chain, &pkt->hdr, HDR_SIZE);
	pkt->len = chain->readable - HDR_SIZE;
	pkt->count = 0;
	for (uint32_t i = 0; i < chain->count; i++) {
		const struct virtq_segment *seg = &chain->segment[i];

		if (skip >= seg->len) {
			skip -= seg->len;
			continue;
		}
		pkt->segment[pkt->count++] = (struct net_segment){ seg->data + skip, seg->len - skip };
		skip = 0;
	}
	return virtio_net_check_tx_header(dev, &pkt->hdr, pkt->len);
}

/*
 * The guest sent pkt on pair index: its flow's replies are to come back on
 * that pair, whose receive interrupt goes to the vCPU that sent it (Linux
 * picks the transmitq by the sending CPU), so no vCPU has to wake another
 * to hand the reply over. A flow new to its slot is received where the
 * hash has been putting it until virtio_net_rx_pair() moves it. A frame
 * that is not IP stays unremembered. After net_switch_forward(), which
 * took the header's snapshot the hash reads.
 */
static void virtio_net_flow_sent(struct virtio_net *dev, const struct net_packet *pkt,
				 unsigned int index)
{
	uint32_t hash = net_flow_hash(pkt);
	struct virtio_net_flow *slot = &dev->flow[hash % VIRTIO_NET_FLOW_SLOTS];

	if (!hash)
		return;
	if (slot->hash != hash)
		*slot = (struct virtio_net_flow){
			.hash = hash,
			.rx_pair = (uint8_t)(hash % dev->active_pairs),
		};
	slot->tx_pair = (uint8_t)index;
}

/*
 * Takes up to budget packets from one pair's transmitq, and none once the
 * copies they caused spent the port's bytes or segments of the pass: the
 * rest waits in the queue (docs/data-path.md, "Budgets in bytes").
 */
static unsigned int virtio_net_poll_txq(struct virtio_net *dev, unsigned int index,
					unsigned int budget)
{
	const struct net_meter *meter = net_switch_meter(dev->sw, dev->port.sidecore);
	struct virtio_net_pair *pair = &dev->pair[index];
	struct virtq *vq = &dev->queue[VIRTIO_NET_TXQ(index)];
	struct virtq_chain chain;
	struct net_packet pkt;
	unsigned int done = 0;
	const char *error;
	int got = 0;

	while (done < budget && !net_meter_spent(meter) && (got = virtq_pop(vq, &chain)) > 0) {
		error = virtio_net_tx_chain_error(&chain);
		if (error) {
			virtq_break(vq, error, chain.head);
			got = -1;
			break;
		}
		if (virtio_net_build_packet(dev, &chain, &pkt)) {
			dev->port.stats.tx_packets++;
			dev->port.stats.tx_bytes += pkt.len;
			pair->stats.tx_packets++;
			pair->stats.tx_bytes += pkt.len;
			net_switch_forward(dev->sw, &dev->port, &pkt);
			if (dev->active_pairs > 1)
				virtio_net_flow_sent(dev, &pkt, index);
		} else {
			dev->stats.tx_malformed++;
			dev->port.stats.tx_drops++;
		}
		/* The device wrote nothing into a transmit buffer. */
		virtq_push(vq, chain.head, 0);
		done++;
	}
	if (got < 0) {
		virtio_dev_fail(&dev->vdev);
		return done;
	}
	if (done && dev->tx_holdoff) {
		if (tx_hold_note(&pair->tx_hold, done, vq->size))
			dev->vdev.port.dirty = true;
	} else if (done) {
		virtq_publish(vq);
		if (virtq_needs_interrupt(vq))
			dev->vdev.interrupt(&dev->vdev, VIRTIO_NET_TXQ(index));
	}
	return done;
}

/* net_fair_poll_fn over the active pairs' transmitqs; a broken device moves nothing. */
static unsigned int virtio_net_poll_source(void *ctx, unsigned int source, unsigned int max)
{
	struct virtio_net *dev = ctx;

	return virtio_dev_active(&dev->vdev) ? virtio_net_poll_txq(dev, source, max) : 0;
}

/* The first writable byte of a chain, where a command's ack goes. */
static uint8_t *chain_first_writable(const struct virtq_chain *chain)
{
	for (uint32_t i = 0; i < chain->count; i++) {
		if (chain->segment[i].writable)
			return chain->segment[i].data;
	}
	return NULL;
}

/*
 * Carries out one command (§5.1.6.5), given its readable bytes: len of
 * them, the first min(len, CTRL_MQ_SIZE) in cmd. Only VQ_PAIRS_SET exists
 * here (§5.1.6.5.5): the other classes need features the device does not
 * offer, and RSS is not offered either.
 */
static uint8_t virtio_net_ctrl_command(struct virtio_net *dev, const uint8_t *cmd, uint32_t len)
{
	unsigned int pairs;

	if (len != CTRL_MQ_SIZE || !has_feature(dev, VIRTIO_NET_F_MQ) ||
	    cmd[0] != VIRTIO_NET_CTRL_MQ || cmd[1] != VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET)
		return VIRTIO_NET_ERR;
	pairs = cmd[CTRL_HDR_SIZE] | (unsigned int)cmd[CTRL_HDR_SIZE + 1] << 8;
	if (pairs < VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MIN || pairs > dev->max_pairs)
		return VIRTIO_NET_ERR;
	dev->active_pairs = pairs;
	/* Every flow goes by its hash over the new count until it sends again. */
	memset(dev->flow, 0, sizeof(dev->flow));
	return VIRTIO_NET_OK;
}

/*
 * Answers what the control queue holds, each command at once: the driver
 * spins until it sees the used entry (Linux's virtnet_send_command()). A
 * command the device does not know or cannot carry out, or one cut short or
 * too long, is answered VIRTIO_NET_ERR; a chain with no byte to write the
 * answer in breaks the queue, as a transmit chain with a writable part does.
 */
static void virtio_net_poll_ctrl(struct virtio_net *dev)
{
	struct virtq *vq = &dev->ctrl;
	struct virtq_chain chain;
	uint8_t cmd[CTRL_MQ_SIZE];
	unsigned int done = 0;
	uint8_t *ack;
	int got = 0;

	while (done < CTRL_BUDGET && (got = virtq_pop(vq, &chain)) > 0) {
		ack = chain_first_writable(&chain);
		if (!ack) {
			virtq_break(vq, "control buffer without a device-writable ack", chain.head);
			got = -1;
			break;
		}
		chain_read(&chain, cmd,
			   chain.readable < CTRL_MQ_SIZE ? chain.readable : CTRL_MQ_SIZE);
		*ack = virtio_net_ctrl_command(dev, cmd, chain.readable);
		virtq_push(vq, chain.head, 1);
		done++;
	}
	if (got < 0)
		virtio_dev_fail(&dev->vdev);
	if (!done)
		return;
	virtq_publish(vq);
	if (virtq_needs_interrupt(vq))
		dev->vdev.interrupt(&dev->vdev, vq->index);
}

/*
 * The transmitqs share the budget the sidecore gives the port: turns of an
 * equal share each, so a guest with more queues gets no more of the pass,
 * and one busy queue cannot starve the others (net_fair_run()).
 */
static unsigned int virtio_net_poll_pairs(struct virtio_net *dev, unsigned int budget)
{
	unsigned int share = budget / dev->active_pairs, batches;
	struct net_fair_pass pass = {
		.sources = dev->active_pairs,
		.quantum = share ? share : 1,
		.budget = budget,
		.total = budget,
		.poll = virtio_net_poll_source,
		.ctx = dev,
	};

	return net_fair_run(&pass, &dev->tx_next, &batches);
}

unsigned int virtio_net_poll_tx(struct virtio_net *dev, unsigned int budget)
{
	if (!virtio_dev_active(&dev->vdev))
		return 0;
	if (dev->ctrl.ready) {
		virtio_net_poll_ctrl(dev);
		if (!virtio_dev_active(&dev->vdev))
			return 0;
	}
	if (dev->active_pairs == 1)
		return virtio_net_poll_txq(dev, 0, budget);
	return virtio_net_poll_pairs(dev, budget);
}

/* Whether the receiver negotiated what the header asks of it (§5.1.6.4.1). */
static bool virtio_net_accepts_offloads(const struct virtio_net *dev,
					const struct virtio_net_hdr_v1 *hdr)
{
	if (hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM && !has_feature(dev, VIRTIO_NET_F_GUEST_CSUM))
		return false;
	switch (hdr->gso_type) {
	case VIRTIO_NET_HDR_GSO_NONE:
		return true;
	case VIRTIO_NET_HDR_GSO_TCPV4:
		return has_feature(dev, VIRTIO_NET_F_GUEST_TSO4);
	case VIRTIO_NET_HDR_GSO_TCPV6:
		return has_feature(dev, VIRTIO_NET_F_GUEST_TSO6);
	default:
		return false;
	}
}

/* The byte stream a received packet becomes: header, then frame. */
struct rx_stream {
	const uint8_t *hdr;
	const struct net_packet *pkt;
	uint32_t done;
	uint32_t total;
};

/* Copies the stream's next bytes to dst, at most room of them. */
static uint32_t rx_stream_copy(struct rx_stream *s, uint8_t *dst, uint32_t room)
{
	uint32_t n;

	if (s->done == 0 && room >= HDR_SIZE) {
		/* The whole header at once, a copy of fixed size. */
		n = HDR_SIZE;
		memcpy(dst, s->hdr, HDR_SIZE);
	} else if (s->done < HDR_SIZE) {
		n = HDR_SIZE - s->done < room ? HDR_SIZE - s->done : room;
		memcpy(dst, s->hdr + s->done, n);
	} else {
		n = s->total - s->done < room ? s->total - s->done : room;
		n = net_packet_read(s->pkt, s->done - HDR_SIZE, dst, n);
	}
	s->done += n;
	return n;
}

/* Fills a receive chain from the stream; returns the bytes written. */
static uint32_t rx_fill_chain(const struct virtq_chain *chain, struct rx_stream *s)
{
	uint32_t written = 0;

	for (uint32_t i = 0; i < chain->count && s->done < s->total; i++) {
		const struct virtq_segment *seg = &chain->segment[i];
		uint32_t off = 0;

		while (off < seg->len && s->done < s->total) {
			uint32_t n = rx_stream_copy(s, seg->data + off, seg->len - off);

			/* A packet shorter than its len: stop rather than spin. */
			if (!n)
				return written;
			off += n;
			written += n;
		}
	}
	return written;
}

/* Where byte offset of a chain's writable space lies. */
static uint8_t *chain_byte(const struct virtq_chain *chain, uint32_t offset)
{
	for (uint32_t i = 0; i < chain->count; i++) {
		if (offset < chain->segment[i].len)
			return chain->segment[i].data + offset;
		offset -= chain->segment[i].len;
	}
	return NULL;
}

/* Gives back the buffers a packet had taken from vq and counts the drop. */
static bool virtio_net_drop_rx(struct virtio_net *dev, struct virtq *vq, uint16_t buffers,
			       uint64_t *reason)
{
	virtq_unpush(vq, buffers);
	virtq_unpop(vq, buffers);
	if (reason)
		(*reason)++;
	dev->port.stats.rx_drops++;
	return false;
}

/* As virtio_net_drop_rx(), for a receive queue the driver broke. */
static bool virtio_net_break_rx(struct virtio_net *dev, struct virtq *vq, const char *reason,
				uint64_t detail)
{
	virtq_break(vq, reason, detail);
	virtio_dev_fail(&dev->vdev);
	dev->port.stats.rx_drops++;
	return false;
}

/*
 * Whether the guest has taken every frame delivered to pair p: then a flow
 * can move from p without its frames overtaking each other.
 */
static bool virtio_net_rx_drained(const struct virtio_net *dev, unsigned int p)
{
	return !dev->pair[p].rx_unpublished && virtq_all_taken(&dev->queue[VIRTIO_NET_RXQ(p)]);
}

/*
 * §5.1.6.5.5: with several pairs active the device steers by flow. A flow
 * the guest sends goes where it last left from, but only once its previous
 * receive queue is drained, so TCP is never reordered (docs/data-path.md,
 * "Multiqueue"); one never seen leaving goes by its hash alone. Pair 0
 * otherwise, without looking at the frame.
 */
static unsigned int virtio_net_rx_pair(struct virtio_net *dev, const struct net_packet *pkt)
{
	struct virtio_net_flow *slot;
	uint32_t hash;

	if (dev->active_pairs <= 1)
		return 0;
	hash = net_flow_hash(pkt);
	slot = &dev->flow[hash % VIRTIO_NET_FLOW_SLOTS];
	if (!hash || slot->hash != hash)
		return hash % dev->active_pairs;
	if (slot->rx_pair != slot->tx_pair && virtio_net_rx_drained(dev, slot->rx_pair))
		slot->rx_pair = slot->tx_pair;
	return slot->rx_pair;
}

bool virtio_net_deliver(struct virtio_net *dev, const struct net_packet *pkt)
{
	unsigned int index = virtio_net_rx_pair(dev, pkt);
	struct virtio_net_pair *pair = &dev->pair[index];
	struct virtq *vq = &dev->queue[VIRTIO_NET_RXQ(index)];
	bool mergeable = has_feature(dev, VIRTIO_NET_F_MRG_RXBUF);
	struct virtio_net_hdr_v1 hdr = pkt->hdr;
	struct rx_stream s = { (const uint8_t *)&hdr, pkt, 0, HDR_SIZE + pkt->len };
	uint8_t *num_buffers[2] = { NULL, NULL };
	struct virtq_chain chain;
	uint16_t buffers = 0;
	int got;

	if (!virtio_dev_active(&dev->vdev))
		return virtio_net_drop_rx(dev, vq, 0, NULL);
	if (!virtio_net_accepts_offloads(dev, &hdr))
		return virtio_net_drop_rx(dev, vq, 0, &dev->stats.rx_offloads);
	/* virtio 1.1 §5.1.6.4.1: only checksum flags the guest negotiated. */
	hdr.flags &= has_feature(dev, VIRTIO_NET_F_GUEST_CSUM) ?
		     VIRTIO_NET_HDR_F_NEEDS_CSUM | VIRTIO_NET_HDR_F_DATA_VALID : 0;
	hdr.num_buffers = 1;

	while (s.done < s.total) {
		got = virtq_pop(vq, &chain);
		if (got < 0) {
			virtio_dev_fail(&dev->vdev);
			dev->port.stats.rx_drops++;
			return false;
		}
		if (got == 0)
			return virtio_net_drop_rx(dev, vq, buffers, &dev->stats.rx_no_buffers);
		/*
		 * The device must not write a device-readable buffer (§2.6.5.1);
		 * with MRG_RXBUF every buffer holds at least a header (§5.1.6.3.1).
		 */
		if (chain.readable)
			return virtio_net_break_rx(dev, vq,
						   "receive buffer with a device-readable part",
						   chain.head);
		if (mergeable && chain.writable < HDR_SIZE)
			return virtio_net_break_rx(dev, vq,
						   "receive buffer smaller than the header",
						   chain.writable);
		if (!mergeable && chain.writable < s.total) {
			virtq_unpop(vq, 1);
			return virtio_net_drop_rx(dev, vq, buffers, &dev->stats.rx_too_big);
		}
		/* The sender's pass pays for a receiver's tiny segments too. */
		net_meter_charge(net_switch_meter(dev->sw, dev->port.sidecore), 0, chain.count);
		if (buffers == 0 && chain.count == 1 && chain.segment[0].len >= s.total) {
			/* One buffer takes it all, as Linux posts them: no stream to walk. */
			num_buffers[0] = chain.segment[0].data + NUM_BUFFERS_OFFSET;
			num_buffers[1] = num_buffers[0] + 1;
			memcpy(chain.segment[0].data, &hdr, HDR_SIZE);
			s.done = HDR_SIZE + (uint32_t)net_packet_read(pkt, 0, chain.segment[0].data +
								      HDR_SIZE, pkt->len);
			virtq_push(vq, chain.head, s.done);
			buffers = 1;
			break;
		}
		if (buffers == 0) {
			num_buffers[0] = chain_byte(&chain, NUM_BUFFERS_OFFSET);
			num_buffers[1] = chain_byte(&chain, NUM_BUFFERS_OFFSET + 1);
		}
		virtq_push(vq, chain.head, rx_fill_chain(&chain, &s));
		buffers++;
	}
	/* §5.1.6.4.1: num_buffers counts the buffers the packet is spread over. */
	*num_buffers[0] = (uint8_t)buffers;
	*num_buffers[1] = (uint8_t)(buffers >> 8);
	pair->rx_unpublished = true;
	dev->vdev.port.dirty = true;
	pair->stats.rx_packets++;
	pair->stats.rx_bytes += pkt->len;
	dev->port.stats.rx_packets++;
	dev->port.stats.rx_bytes += pkt->len;
	return true;
}

/*
 * Holding transmit completions back is what a NIC's interrupt moderation
 * does: a guest that sees its buffers return at once frees each frame
 * alone, and Linux then sends every small write as a frame of its own
 * (TCP autocorking waits for a frame still in flight); with one wait per
 * batch, the writes coalesce and one interrupt covers many frames.
 */
/*
 * Linux's receive poll of queue i reclaims transmitq i (virtnet_poll_cleantx()),
 * so held completions ride along with their own pair's receive entries.
 */
static void virtio_net_flush_pair(struct virtio_net *dev, unsigned int index, uint64_t now)
{
	struct virtio_net_pair *pair = &dev->pair[index];
	struct virtq *rx = &dev->queue[VIRTIO_NET_RXQ(index)];
	struct virtq *tx = &dev->queue[VIRTIO_NET_TXQ(index)];
	bool received = pair->rx_unpublished;
	bool due = tx_hold_due(&pair->tx_hold, now, dev->tx_holdoff, tx->size);

	/* Before the receive entries: the guest's receive poll reclaims these too. */
	if (tx_hold_release(&pair->tx_hold, due, received))
		virtq_publish(tx);
	if (due && virtq_needs_interrupt(tx))
		dev->vdev.interrupt(&dev->vdev, VIRTIO_NET_TXQ(index));
	if (!received)
		return;
	pair->rx_unpublished = false;
	virtq_publish(rx);
	if (virtq_needs_interrupt(rx))
		dev->vdev.interrupt(&dev->vdev, VIRTIO_NET_RXQ(index));
}

void virtio_net_flush(struct virtio_net *dev, uint64_t now)
{
	uint64_t deadline = 0;

	/* Every pair: one the driver just switched off may still hold entries. */
	for (unsigned int i = 0; i < dev->max_pairs; i++) {
		virtio_net_flush_pair(dev, i, now);
		deadline = tx_hold_earliest(&dev->pair[i].tx_hold, deadline);
	}
	/* Held completions wait for the earliest deadline, or for a pass that delivers. */
	dev->vdev.port.dirty = false;
	dev->vdev.port.deadline = deadline;
}

static unsigned int virtio_net_port_poll(struct sidecore_port *port, unsigned int budget,
					 uint64_t now)
{
	(void)now;
	return virtio_net_poll_tx(container_of(port, struct virtio_net, vdev.port), budget);
}

static void virtio_net_port_flush(struct sidecore_port *port, uint64_t now)
{
	virtio_net_flush(container_of(port, struct virtio_net, vdev.port), now);
}

static const struct sidecore_port_ops virtio_net_port_ops = {
	.poll = virtio_net_port_poll,
	.flush = virtio_net_port_flush,
	.print_counters = virtio_dev_port_counters,
	.print_stat = virtio_dev_port_stat,
};

/* Each usable pair's transmitq, and the control queue after them (§5.1.2). */
static uint64_t virtio_net_polled_queues(const struct virtio_dev *vdev)
{
	const struct virtio_net *dev = container_of(vdev, const struct virtio_net, vdev);
	unsigned int pairs = virtio_net_usable_pairs(dev);
	uint64_t polled = 0;

	for (unsigned int i = 0; i < pairs; i++)
		polled |= 1ull << VIRTIO_NET_TXQ(i);
	if (has_feature(dev, VIRTIO_NET_F_CTRL_VQ))
		polled |= 1ull << (2 * pairs);
	return polled;
}

const struct virtio_dev_ops virtio_net_ops = {
	.kind = "virtio-net",
	.device_id = VIRTIO_ID_NET,
	.queue_size_max = VIRTIO_NET_QUEUE_SIZE,
	.config_size = sizeof(struct virtio_net_config),
	.size = sizeof(struct virtio_net),
	.init = virtio_net_init,
	.queue = virtio_net_queue,
	.config = virtio_net_config,
	.features_ok = virtio_net_features_ok,
	.start = virtio_net_start,
	.stop = virtio_net_stop,
	.reset = virtio_net_reset,
	.port_ops = &virtio_net_port_ops,
	.polled_queues = virtio_net_polled_queues,
};
