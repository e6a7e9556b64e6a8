/* SPDX-License-Identifier: MIT */
/*
 * virtio_vsock.c - the virtio-vsock device's data path (virtio 1.1 §5.10.6).
 *
 * A packet is a 44-byte header and, for RW, a payload (§5.10.6). The header
 * is read once out of the transmit chain, wherever the driver cut it, and
 * checked; what the receiver gets is that copy, never the sender's bytes a
 * second time. Delivery is all or nothing: the packet goes into the
 * receiver's buffers, cut into as many packets as the buffers need, or none
 * is written and the sender waits, VIRTIO_VSOCK_STALL_MS at most before
 * the connection is reset: a stream's bytes arrive in order or the
 * connection is reset, never with a gap. RSTs never wait. Linux posts receive
 * buffers of 4 KiB but sends up to 64 KiB at once, so the cutting is what
 * lets large writes through; every piece repeats the header with its own
 * len, and for SOCK_SEQPACKET only the last keeps the EOM and EOR marks
 * (virtio 1.2 §5.10.6.6).
 */
#include <string.h>

#include <linux/virtio_ids.h>

#include "lib/container.h"
#include "lib/ptr_array.h"
#include "virtio/virtio_vsock_internal.h"

#define HDR_SIZE	VSOCK_HDR_SIZE

_Static_assert(sizeof(struct virtio_vsock_hdr) == 44, "§5.10.6: the header is 44 bytes");

/* The payload of a transmit chain starts after its header, wherever the driver cut the two. */
void vsock_cursor_init(struct chain_cursor *c, const struct virtq_chain *chain, uint32_t skip)
{
	c->chain = chain;
	c->segment = 0;
	c->offset = 0;
	while (c->segment < chain->count && skip >= chain->segment[c->segment].len) {
		skip -= chain->segment[c->segment].len;
		c->segment++;
	}
	c->offset = skip;
}

/* The contiguous bytes at the cursor and where they are (0 and NULL at the end). */
static uint32_t cursor_span(const struct chain_cursor *c, uint8_t **at)
{
	const struct virtq_segment *seg;

	*at = NULL;
	if (c->segment >= c->chain->count)
		return 0;
	seg = &c->chain->segment[c->segment];
	*at = seg->data + c->offset;
	return seg->len - c->offset;
}

static void cursor_advance(struct chain_cursor *c, uint32_t n)
{
	c->offset += n;
	if (c->segment < c->chain->count && c->offset == c->chain->segment[c->segment].len) {
		c->segment++;
		c->offset = 0;
	}
}

/*
 * Moves len bytes between the cursor and a flat buffer: out to read them
 * from the chain, in (out NULL) to write them into it; the chain holds
 * them or has room. The cursor functions stop at the chain's end all the
 * same: a caller's count gone wrong must not turn into an endless loop on
 * the sidecore.
 */
static void cursor_move(struct chain_cursor *c, uint8_t *out, const uint8_t *in, uint32_t len)
{
	uint8_t *at;

	while (len) {
		uint32_t n = cursor_span(c, &at);

		if (!n)
			break;
		n = n < len ? n : len;
		if (out) {
			memcpy(out, at, n);
			out += n;
		} else {
			memcpy(at, in, n);
			in += n;
		}
		cursor_advance(c, n);
		len -= n;
	}
}

void vsock_cursor_read(struct chain_cursor *c, void *buf, uint32_t len)
{
	cursor_move(c, buf, NULL, len);
}

static void cursor_write(struct chain_cursor *c, const void *buf, uint32_t len)
{
	cursor_move(c, NULL, buf, len);
}

/*
 * Copies len bytes from one chain's cursor to another's; both hold them.
 * memmove: a guest sending to its own CID may post a receive buffer over
 * its transmit payload, and overlapping bytes are its own business, not
 * undefined behaviour in the hypervisor.
 */
static void cursor_copy(struct chain_cursor *dst, struct chain_cursor *src, uint32_t len)
{
	uint8_t *from, *to;

	while (len) {
		uint32_t n = cursor_span(src, &from), room = cursor_span(dst, &to);

		n = n < room ? n : room;
		if (!n)
			break;
		n = n < len ? n : len;
		memmove(to, from, n);
		cursor_advance(src, n);
		cursor_advance(dst, n);
		len -= n;
	}
}

/* The device with CID cid in table, or NULL; the table is short (one per guest). */
static struct virtio_vsock *virtio_vsock_table_find(const struct virtio_vsock_table *table,
						    uint64_t cid)
{
	for (unsigned int i = 0; i < table->count; i++)
		if (table->dev[i]->cid == cid)
			return table->dev[i];
	return NULL;
}

bool virtio_vsock_table_add(struct virtio_vsock_table *table, struct virtio_vsock *dev)
{
	if (table->count == VIRTIO_VSOCK_TABLE_MAX || virtio_vsock_table_find(table, dev->cid))
		return false;
	table->dev[table->count++] = dev;
	return true;
}

void virtio_vsock_table_remove(struct virtio_vsock_table *table, struct virtio_vsock *dev)
{
	ptr_array_remove(table->dev, &table->count, dev);
}

static struct virtio_vsock *to_vsock(struct virtio_dev *vdev)
{
	return container_of(vdev, struct virtio_vsock, vdev);
}

static const char *virtio_vsock_init(struct virtio_dev *vdev,
				     const struct virtio_dev_params *common)
{
	const struct virtio_vsock_params *params = common->type;
	struct virtio_vsock *dev = to_vsock(vdev);

	memset(dev, 0, sizeof(*dev));
	/* virtio 1.2 §5.10.4: 0 to 2 and 0xffffffff are reserved, the upper 32 bits zero. */
	if (!params || !params->table || !params->domain ||
	    params->cid <= VIRTIO_VSOCK_HOST_CID || params->cid >= UINT32_MAX ||
	    !virtio_dev_init(vdev, &virtio_vsock_ops, common, VIRTIO_VSOCK_DEVICE_FEATURES,
			     VIRTIO_VSOCK_QUEUES))
		return "bad parameters";
	dev->table = params->table;
	dev->domain = params->domain;
	dev->snapshot = params->snapshot;
	dev->cid = params->cid;
	dev->stall_timeout = params->stall_timeout;
	dev->tx_holdoff = params->tx_holdoff;
	dev->counters_interval = params->counters_interval;
	/* Kept through resets: a driver that resets its device starts no fuller. */
	dev->requests_bounded = params->request_interval != 0;
	ratelimit_init(&dev->requests, VIRTIO_VSOCK_HOST_BURST, params->request_interval, 0);
	for (unsigned int i = 0; i < VIRTIO_VSOCK_QUEUES; i++)
		virtq_init(&dev->queue[i], common->mem, common->name, i);
	return NULL;
}

static struct virtq *virtio_vsock_queue(struct virtio_dev *vdev, unsigned int index)
{
	return index < VIRTIO_VSOCK_QUEUES ? &to_vsock(vdev)->queue[index] : NULL;
}

static void virtio_vsock_config(const struct virtio_dev *vdev, void *bytes)
{
	const struct virtio_vsock *dev = container_of(vdev, const struct virtio_vsock, vdev);
	const struct virtio_vsock_config config = { .guest_cid = dev->cid };

	memcpy(bytes, &config, sizeof(config));
}

/* Broken or reset: its peers learn that their connections with it are gone. */
static void virtio_vsock_stop(struct virtio_dev *vdev)
{
	virtio_vsock_peers_gone(to_vsock(vdev));
}

static void virtio_vsock_reset(struct virtio_dev *vdev)
{
	struct virtio_vsock *dev = to_vsock(vdev);

	dev->rx_unpublished = false;
	dev->rx_wanted = false;
	tx_hold_reset(&dev->tx_hold);
	dev->parked_count = 0;
	dev->request_held = false;
	memset(dev->reset, 0, sizeof(dev->reset));
	virtio_vsock_host_reset(dev);
}

/*
 * A transmit chain is a header and its payload, all for the device to read
 * (§5.10.6.4; §2.6.5.1: the device does not read a device-writable buffer).
 * Anything else is the driver breaking the queue, not a packet to drop:
 * returns what is wrong, with *detail pinning it down, or NULL with the
 * header copied to hdr. The socket type is not checked here: an unknown
 * one gets an RST (virtio 1.2 §5.10.6.4), it does not break the queue.
 */
static const char *virtio_vsock_tx_error(const struct virtq_chain *chain,
					 struct virtio_vsock_hdr *hdr, uint64_t *detail)
{
	struct chain_cursor c;

	*detail = chain->head;
	if (chain->writable)
		return "transmit buffer with a device-writable part";
	if (chain->readable < HDR_SIZE)
		return "transmit buffer shorter than the header";
	if (!virtq_chain_head(chain, hdr, HDR_SIZE)) {
		vsock_cursor_init(&c, chain, 0);
		vsock_cursor_read(&c, hdr, HDR_SIZE);
	}
	*detail = hdr->len;
	if (hdr->len > VIRTIO_VSOCK_PAYLOAD_MAX)
		return "packet longer than 64 KiB";
	if (hdr->len != chain->readable - HDR_SIZE)
		return "header len is not the payload's";
	*detail = hdr->op;
	if (hdr->op < VIRTIO_VSOCK_OP_REQUEST || hdr->op > VIRTIO_VSOCK_OP_CREDIT_REQUEST)
		return "unknown operation";
	/*
	 * Only RW carries data (§5.10.6.4); a payload on anything else would be
	 * repeated in every piece the packet is cut into. Linux never sends one.
	 */
	*detail = hdr->len;
	if (hdr->op != VIRTIO_VSOCK_OP_RW && hdr->len)
		return "control packet with a payload";
	/* The upper halves of the CIDs are reserved and zero (virtio 1.2 §5.10.4, §5.10.6). */
	*detail = hdr->src_cid >> 32 ? hdr->src_cid : hdr->dst_cid;
	if (*detail >> 32)
		return "CID with reserved upper bits";
	return NULL;
}

/* Whether dev's driver negotiated the socket type it sent or is to receive. */
static bool virtio_vsock_knows_type(const struct virtio_vsock *dev, uint16_t type)
{
	return type == VIRTIO_VSOCK_TYPE_STREAM ||
	       (type == VIRTIO_VSOCK_TYPE_SEQPACKET &&
		virtio_dev_has(&dev->vdev, VIRTIO_VSOCK_F_SEQPACKET));
}

/* Breaks dev's receiveq for a reason found here; the packet goes elsewhere. */
static enum vsock_delivery virtio_vsock_break_rx(struct virtio_vsock *dev, const char *reason,
						 uint64_t detail)
{
	virtq_break(&dev->queue[VIRTIO_VSOCK_RX_QUEUE], reason, detail);
	virtio_dev_fail(&dev->vdev);
	return VSOCK_GONE;
}

/*
 * A receive buffer must be the device's to write (§2.6.5.1) and take a
 * header, and some payload when there is some: pieces without any would
 * use up the queue for nothing. Returns what is wrong, or NULL.
 */
static const char *virtio_vsock_rx_error(const struct virtq_chain *chain, uint32_t left,
					 uint64_t *detail)
{
	*detail = chain->head;
	if (chain->readable)
		return "receive buffer with a device-readable part";
	*detail = chain->writable;
	if (chain->writable < HDR_SIZE + (left ? 1 : 0))
		return "receive buffer too small for a packet";
	return NULL;
}

/*
 * Whether dev's receive buffers hold a packet of len payload bytes, without
 * writing any: a receiver short of buffers then costs a sender no copying.
 * VSOCK_UNFIT when they cannot even once the driver has made its whole
 * ring available.
 */
static enum vsock_delivery virtio_vsock_room(struct virtio_vsock *dev, uint32_t len)
{
	struct virtq *vq = &dev->queue[VIRTIO_VSOCK_RX_QUEUE];
	enum vsock_delivery result = VSOCK_STALLED;
	struct virtq_chain chain;
	uint16_t buffers = 0;
	const char *error;
	uint64_t detail;
	int got;

	while ((got = virtq_pop(vq, &chain)) > 0) {
		buffers++;
		error = virtio_vsock_rx_error(&chain, len, &detail);
		if (error)
			return virtio_vsock_break_rx(dev, error, detail);
		if (chain.writable - HDR_SIZE >= len) {
			result = VSOCK_DELIVERED;
			break;
		}
		len -= chain.writable - HDR_SIZE;
	}
	if (got < 0) {
		virtio_dev_fail(&dev->vdev);
		return VSOCK_GONE;
	}
	virtq_unpop(vq, buffers);
	if (result == VSOCK_STALLED && buffers == vq->size)
		result = VSOCK_UNFIT;
	return result;
}

/*
 * Each receive buffer takes a header and as much payload as fits after it.
 * The room is counted first; the copy still checks every buffer, since the
 * driver may rewrite its descriptors between the two looks.
 */
enum vsock_delivery virtio_vsock_deliver(struct virtio_vsock *dev,
					 const struct virtio_vsock_hdr *hdr,
					 struct chain_cursor *src)
{
	struct virtq *vq = &dev->queue[VIRTIO_VSOCK_RX_QUEUE];
	uint32_t marks = VIRTIO_VSOCK_SEQ_EOM | VIRTIO_VSOCK_SEQ_EOR;
	uint32_t left = hdr->len;
	struct chain_cursor dst;
	struct virtio_vsock_hdr piece;
	struct virtq_chain chain;
	uint16_t buffers = 0;
	uint64_t detail;
	const char *error;
	enum vsock_delivery room = virtio_vsock_room(dev, hdr->len);
	int got;

	if (room != VSOCK_DELIVERED)
		return room;
	do {
		got = virtq_pop(vq, &chain);
		if (got < 0) {
			virtio_dev_fail(&dev->vdev);
			return VSOCK_GONE;
		}
		if (got == 0) {
			virtq_unpush(vq, buffers);
			virtq_unpop(vq, buffers);
			return VSOCK_STALLED;
		}
		error = virtio_vsock_rx_error(&chain, left, &detail);
		if (error)
			return virtio_vsock_break_rx(dev, error, detail);
		piece = *hdr;
		piece.len = chain.writable - HDR_SIZE < left ? chain.writable - HDR_SIZE : left;
		/* A message ends with its last piece only (virtio 1.2 §5.10.6.6). */
		if (piece.len < left && hdr->type == VIRTIO_VSOCK_TYPE_SEQPACKET)
			piece.flags &= ~marks;
		if (chain.segment[0].len >= HDR_SIZE) {
			/* The header whole in the first buffer: a copy of fixed size. */
			memcpy(chain.segment[0].data, &piece, HDR_SIZE);
			vsock_cursor_init(&dst, &chain, HDR_SIZE);
		} else {
			vsock_cursor_init(&dst, &chain, 0);
			cursor_write(&dst, &piece, HDR_SIZE);
		}
		if (piece.len)
			cursor_copy(&dst, src, piece.len);
		virtq_push(vq, chain.head, HDR_SIZE + piece.len);
		buffers++;
		left -= piece.len;
	} while (left);
	dev->rx_unpublished = true;
	dev->vdev.port.dirty = true;
	return VSOCK_DELIVERED;
}

/*
 * Hands the device's own RST to dev's receive buffers. RSTs are not
 * flow-controlled and Linux copes with a lost one (the socket is gone
 * either way), so one without a buffer at once is dropped and counted:
 * waiting for it would hold up every packet behind it (§5.10.6.5).
 */
static void virtio_vsock_send_rst(struct virtio_vsock *dev, const struct virtio_vsock_hdr *rst,
				  struct virtio_vsock *sender)
{
	if (!dev->rx_wanted && virtio_vsock_deliver(dev, rst, NULL) == VSOCK_DELIVERED)
		sender->stats.rsts++;
	else
		sender->stats.dropped++;
}

/*
 * No one at the packet's dst_cid, or no one there who knows its socket
 * type: the sender learns it from an RST in its own receiveq, from the
 * address it tried, of the packet's own type as Linux answers (§5.10.6.5;
 * virtio 1.2 §5.10.6.4: "A VIRTIO_VSOCK_OP_RST reply MUST be sent if a
 * packet is received with an unknown type value"). An RST itself gets no
 * answer, or two guests could trade them forever: it is dropped.
 */
void virtio_vsock_refuse(struct virtio_vsock *dev, const struct virtio_vsock_hdr *hdr)
{
	struct virtio_vsock_hdr rst = {
		.src_cid = hdr->dst_cid,
		.dst_cid = hdr->src_cid,
		.src_port = hdr->dst_port,
		.dst_port = hdr->src_port,
		.type = hdr->type,
		.op = VIRTIO_VSOCK_OP_RST,
	};

	if (hdr->op == VIRTIO_VSOCK_OP_RST)
		dev->stats.dropped++;
	else
		virtio_vsock_send_rst(dev, &rst, dev);
}

/*
 * Whether dst takes packets of the type: a device whose driver is running,
 * with its receiveq enabled (a guest that never enables it is no one, not
 * a receiver to wait for), and that negotiated the type. SEQPACKET for a
 * driver without it would break that driver's transmitq with its own RST
 * reply; the sender gets the RST instead.
 */
static bool virtio_vsock_takes(const struct virtio_vsock *dst, uint16_t type)
{
	return dst && virtio_dev_active(&dst->vdev) && dst->queue[VIRTIO_VSOCK_RX_QUEUE].ready &&
	       virtio_vsock_knows_type(dst, type);
}

/* The slot remembering hdr's connection as reset, or NULL. */
static struct virtio_vsock_stream *virtio_vsock_reset_slot(struct virtio_vsock *dev,
							    const struct virtio_vsock_hdr *hdr)
{
	for (unsigned int i = 0; i < VIRTIO_VSOCK_RESET_SLOTS; i++) {
		struct virtio_vsock_stream *s = &dev->reset[i];

		if (s->used && s->dst_cid == hdr->dst_cid && s->src_port == hdr->src_port &&
		    s->dst_port == hdr->dst_port)
			return s;
	}
	return NULL;
}

/*
 * The device dropped a packet of dev's connection to dst: the connection
 * is reset at both ends, so that neither waits for the lost bytes nor
 * takes what follows them as if nothing were missing. Each end gets an
 * RST from the other, if it has a buffer for it now, and dev's later
 * packets on the connection, already queued behind, are dropped until it
 * starts a new one with a REQUEST or closes it with an RST.
 */
static void virtio_vsock_reset_stream(struct virtio_vsock *dev, struct virtio_vsock *dst,
				      const struct virtio_vsock_hdr *hdr)
{
	struct virtio_vsock_hdr rst = {
		.src_cid = hdr->src_cid,
		.dst_cid = hdr->dst_cid,
		.src_port = hdr->src_port,
		.dst_port = hdr->dst_port,
		.type = hdr->type,
		.op = VIRTIO_VSOCK_OP_RST,
	};

	dev->stats.resets++;
	dev->stats.dropped++;
	dev->reset[dev->reset_next] = (struct virtio_vsock_stream){ hdr->dst_cid, hdr->src_port,
								    hdr->dst_port, true };
	dev->reset_next = (dev->reset_next + 1) % VIRTIO_VSOCK_RESET_SLOTS;
	virtio_vsock_send_rst(dst, &rst, dev);
	virtio_vsock_refuse(dev, hdr);
	virtio_vsock_peers_note(dev, dst, &rst);
}

void virtio_vsock_charge(struct virtio_vsock *dev, uint32_t bytes, uint32_t segments)
{
	net_meter_charge(dev->domain->meter, bytes, segments);
}

bool virtio_vsock_spent(const struct virtio_vsock *dev)
{
	return net_meter_spent(dev->domain->meter);
}

/*
 * A packet to dst found too few receive buffers: it waits, parked, but not
 * past the stall timeout, and not at all when dst's whole ring could not
 * hold it. Retries wait for dst's driver to post buffers (its avail->idx
 * to move), so that a waiting packet costs no copying.
 */
static enum vsock_delivery virtio_vsock_stalled(struct virtio_vsock *dev,
						struct virtio_vsock *dst,
						const struct virtio_vsock_hdr *hdr,
						enum vsock_delivery result,
						struct virtio_vsock_parked *park)
{
	if (hdr->op == VIRTIO_VSOCK_OP_RST) {
		dev->stats.dropped++;
		return VSOCK_DELIVERED;
	}
	park->avail_idx = virtq_avail_idx(&dst->queue[VIRTIO_VSOCK_RX_QUEUE]);
	if (result == VSOCK_STALLED && dev->now - park->since < dev->stall_timeout)
		return VSOCK_STALLED;
	/* It waits no more: the reset's own RST may take a buffer. */
	dst->rx_wanted = false;
	virtio_vsock_reset_stream(dev, dst, hdr);
	return VSOCK_DELIVERED;
}

/*
 * A checked packet for CID 2's services: src its payload (NULL only for a
 * REQUEST, which no service reads), segments its buffers.
 */
static void virtio_vsock_to_host(struct virtio_vsock *dev, const struct virtio_vsock_hdr *hdr,
				 struct chain_cursor *src, uint32_t segments)
{
	virtio_vsock_charge(dev, HDR_SIZE + hdr->len, segments);
	if (virtio_vsock_host_receive(dev, hdr, src)) {
		dev->stats.packets++;
		dev->stats.bytes += hdr->len;
	}
}

/*
 * Hands a checked packet from dev's transmit chain to dst, the device at
 * dst_cid or NULL, whose lock is held, or answers it. park is the packet's
 * place among the waiting ones, its time of arrival there at least.
 * VSOCK_STALLED means it waits; anything else that it is done with.
 */
static enum vsock_delivery virtio_vsock_send_to(struct virtio_vsock *dev,
						struct virtio_vsock *dst,
						const struct virtio_vsock_hdr *hdr,
						const struct virtq_chain *chain,
						struct virtio_vsock_parked *park)
{
	struct virtio_vsock_stream *reset = virtio_vsock_reset_slot(dev, hdr);
	enum vsock_delivery result;
	struct chain_cursor src;

	if (reset && hdr->op != VIRTIO_VSOCK_OP_REQUEST && hdr->op != VIRTIO_VSOCK_OP_RST) {
		dev->stats.dropped++;
		return VSOCK_DELIVERED;
	}
	if (reset)
		reset->used = false;
	vsock_cursor_init(&src, chain, HDR_SIZE);
	/*
	 * The services take every packet at once, but a REQUEST only at their
	 * rate: past it the packet waits, and the transmitq behind it.
	 */
	if (hdr->dst_cid == VIRTIO_VSOCK_HOST_CID && hdr->type == VIRTIO_VSOCK_TYPE_STREAM) {
		if (hdr->op == VIRTIO_VSOCK_OP_REQUEST && !virtio_vsock_host_admit(dev)) {
			/* One held at a time: a parked chain rewritten into one is dropped. */
			if (!dev->request_held)
				dev->request = *hdr;
			return VSOCK_HELD;
		}
		virtio_vsock_to_host(dev, hdr, &src, chain->count);
		return VSOCK_DELIVERED;
	}
	/* The table never holds CIDs below 3. */
	if (!virtio_vsock_knows_type(dev, hdr->type) || !virtio_vsock_takes(dst, hdr->type)) {
		virtio_vsock_refuse(dev, hdr);
		return VSOCK_DELIVERED;
	}
	/*
	 * A flood of RSTs must not take the buffers a stream waits for: while
	 * another's packet waits for dst's room, RSTs to dst are dropped.
	 */
	if (hdr->op == VIRTIO_VSOCK_OP_RST && dst->rx_wanted) {
		dev->stats.dropped++;
		return VSOCK_DELIVERED;
	}
	if (park->dst == dst && dev->now - park->since < dev->stall_timeout &&
	    virtq_avail_idx(&dst->queue[VIRTIO_VSOCK_RX_QUEUE]) == park->avail_idx)
		result = VSOCK_STALLED;
	else
		result = virtio_vsock_deliver(dst, hdr, &src);
	if (hdr->op != VIRTIO_VSOCK_OP_RST)
		dst->rx_wanted = result == VSOCK_STALLED;
	switch (result) {
	case VSOCK_DELIVERED:
		virtio_vsock_charge(dev, HDR_SIZE + hdr->len, chain->count);
		dev->stats.packets++;
		dev->stats.bytes += hdr->len;
		dev->stats.remote += dst->domain != dev->domain;
		virtio_vsock_peers_note(dev, dst, hdr);
		return VSOCK_DELIVERED;
	case VSOCK_GONE:
		virtio_vsock_refuse(dev, hdr);
		return VSOCK_DELIVERED;
	default:
		park->dst = dst;
		return virtio_vsock_stalled(dev, dst, hdr, result, park);
	}
}

/*
 * virtio_vsock_send_to() under the receiver's lock as well when it is of
 * another domain. That lock's holder is a pass of the other sidecore, or
 * one of its guests' vCPUs, which hold no other: a pass waits for it when
 * it ranks higher than its own, and only tries it otherwise (VSOCK_BUSY
 * when taken), so two sidecores sending to each other never wait for each
 * other, and one of them never waits.
 */
static enum vsock_delivery virtio_vsock_send(struct virtio_vsock *dev,
					     const struct virtio_vsock_hdr *hdr,
					     const struct virtq_chain *chain,
					     struct virtio_vsock_parked *park)
{
	struct virtio_vsock *dst = virtio_vsock_table_find(dev->table, hdr->dst_cid);
	enum vsock_delivery result;

	if (!dst || dst->domain == dev->domain)
		return virtio_vsock_send_to(dev, dst, hdr, chain, park);
	if (dst->domain->rank > dev->domain->rank) {
		dst->domain->lock(dst->domain);
	} else if (!dst->domain->trylock(dst->domain)) {
		park->dst = dst;
		return VSOCK_BUSY;
	}
	result = virtio_vsock_send_to(dev, dst, hdr, chain, park);
	dst->domain->unlock(dst->domain);
	return result;
}

/* The receivers that took nothing more in this pass: later packets for them wait too. */
struct vsock_blocked {
	const struct virtio_vsock *dst[VIRTIO_VSOCK_TABLE_MAX];
	unsigned int count;
};

static bool vsock_blocked_has(const struct vsock_blocked *b, const struct virtio_vsock *dst)
{
	for (unsigned int i = 0; i < b->count; i++)
		if (b->dst[i] == dst)
			return true;
	return false;
}

/* A packet waits: its receiver is blocked for the rest of the pass. */
static void vsock_blocked_add(struct virtio_vsock *dev, struct vsock_blocked *b,
			      const struct virtio_vsock_parked *park, enum vsock_delivery result)
{
	if (vsock_blocked_has(b, park->dst))
		return;
	if (b->count < VIRTIO_VSOCK_TABLE_MAX)
		b->dst[b->count++] = park->dst;
	if (result == VSOCK_BUSY)
		dev->stats.busy++;
	else
		dev->stats.credit_stalls++;
}

/* The device wrote nothing into a transmit buffer. */
static void virtio_vsock_complete(struct virtio_vsock *dev, uint16_t head)
{
	struct virtq *tx = &dev->queue[VIRTIO_VSOCK_TX_QUEUE];

	virtq_push(tx, head, 0);
	tx_hold_note(&dev->tx_hold, 1, tx->size);
	dev->vdev.port.dirty = true;
}

/*
 * A transmit chain checked and sent, the first time or again: NULL, or
 * what breaks the queue. A guest speaks only for its own CID: a spoofed
 * packet is dropped, the queue goes on. One for a receiver blocked in this
 * pass waits without a try, behind those before it; RSTs never wait.
 */
static const char *virtio_vsock_take(struct virtio_vsock *dev, const struct virtq_chain *chain,
				     const struct vsock_blocked *blocked,
				     struct virtio_vsock_parked *park,
				     enum vsock_delivery *result, uint64_t *detail)
{
	struct virtio_vsock_hdr hdr;
	const char *error = virtio_vsock_tx_error(chain, &hdr, detail);
	struct virtio_vsock *dst;

	*result = VSOCK_DELIVERED;
	if (error)
		return error;
	if (hdr.src_cid != dev->cid) {
		dev->stats.spoofed++;
		return NULL;
	}
	dst = virtio_vsock_table_find(dev->table, hdr.dst_cid);
	if (dst && hdr.op != VIRTIO_VSOCK_OP_RST && vsock_blocked_has(blocked, dst)) {
		park->dst = dst;
		*result = VSOCK_STALLED;
		return NULL;
	}
	*result = virtio_vsock_send(dev, &hdr, chain, park);
	return NULL;
}

/*
 * The waiting packets first, in the order they came: those for a receiver
 * that is still blocked wait on, in order, behind the first of them. As
 * many as the budget and the meter allow: the rest wait on, in order, for
 * the next pass.
 */
static int virtio_vsock_retry_parked(struct virtio_vsock *dev, struct vsock_blocked *blocked,
				     unsigned int budget, unsigned int *done)
{
	struct virtq *vq = &dev->queue[VIRTIO_VSOCK_TX_QUEUE];
	struct virtq_chain chain;
	enum vsock_delivery result;
	unsigned int i = 0;
	const char *error;
	uint64_t detail;

	while (i < dev->parked_count && *done < budget && !virtio_vsock_spent(dev) &&
	       virtio_dev_active(&dev->vdev)) {
		struct virtio_vsock_parked *park = &dev->parked[i];

		if (vsock_blocked_has(blocked, park->dst)) {
			i++;
			continue;
		}
		if (virtq_chain_at(vq, park->head, &chain) < 0)
			return -1;
		error = virtio_vsock_take(dev, &chain, blocked, park, &result, &detail);
		if (error) {
			virtq_break(vq, error, detail);
			return -1;
		}
		if (result == VSOCK_STALLED || result == VSOCK_BUSY) {
			vsock_blocked_add(dev, blocked, park, result);
			i++;
			continue;
		}
		virtio_vsock_complete(dev, park->head);
		dev->parked_count--;
		memmove(park, park + 1, (dev->parked_count - i) * sizeof(*park));
		(*done)++;
	}
	return 0;
}

/*
 * The REQUEST that found the rate spent, from the header checked when it
 * was taken: once the bucket holds a token it goes to CID 2 and its chain
 * is completed, and the transmitq goes on.
 */
static void virtio_vsock_retry_held(struct virtio_vsock *dev)
{
	if (!dev->request_held || !virtio_vsock_host_admit(dev))
		return;
	dev->request_held = false;
	/* A REQUEST's payload, if it has one, is no service's: none is read. */
	virtio_vsock_to_host(dev, &dev->request, NULL, 1);
	virtio_vsock_complete(dev, dev->request_head);
}

/*
 * Whether the next pass must poll the device though nothing it watches
 * moved (sidecore/port.h): parked packets, a held REQUEST, an RST owed for
 * a dead peer and CID 2's output blocked on receive buffers wait for
 * passes, and so do CID 2's connections while the receiveq is not enabled.
 * Open connections alone need none: a peer's death moves the watched
 * table->deaths, and a connection to CID 2 has sent all it can in the
 * pass that took the guest's packets (a pass that skips CID 2 for the
 * budget takes none); more, or the credit for more, comes on the
 * transmitq (docs/data-path.md, "vsock").
 */
static bool virtio_vsock_busy(const struct virtio_vsock *dev)
{
	if (dev->parked_count || dev->request_held || dev->reap_pending || dev->host_blocked)
		return true;
	for (unsigned int i = 0; !dev->queue[VIRTIO_VSOCK_RX_QUEUE].ready &&
				 i < VIRTIO_VSOCK_HOST_CONNS; i++)
		if (dev->host[i].service)
			return true;
	return false;
}

unsigned int virtio_vsock_poll_tx(struct virtio_vsock *dev, unsigned int budget)
{
	struct virtq *vq = &dev->queue[VIRTIO_VSOCK_TX_QUEUE];
	struct vsock_blocked blocked = { .count = 0 };
	struct virtio_vsock_parked park;
	enum vsock_delivery result;
	bool owed = virtio_vsock_spent(dev);
	struct virtq_chain chain;
	unsigned int done = 0;
	const char *error;
	uint64_t detail;
	int got = 0;

	if (!virtio_dev_active(&dev->vdev))
		return 0;
	virtio_vsock_peers_reap(dev);
	if (virtio_vsock_retry_parked(dev, &blocked, budget, &done) < 0)
		got = -1;
	/* A held REQUEST holds the queue: the flooder waits, its neighbours do not. */
	virtio_vsock_retry_held(dev);
	/*
	 * A packet for a blocked receiver is parked behind the others for it,
	 * unsent: its stream stays in order, and the packets behind it, for
	 * other receivers, go on. With every place taken the queue waits.
	 */
	while (got >= 0 && done < budget && !virtio_vsock_spent(dev) && !dev->request_held &&
	       dev->parked_count < VIRTIO_VSOCK_PARKED_MAX && virtio_dev_active(&dev->vdev) &&
	       (got = virtq_pop(vq, &chain)) > 0) {
		park = (struct virtio_vsock_parked){ .since = dev->now, .head = chain.head };
		error = virtio_vsock_take(dev, &chain, &blocked, &park, &result, &detail);
		if (error) {
			virtq_break(vq, error, detail);
			got = -1;
			break;
		}
		done++;
		/* A counters REQUEST ends the turn (docs/data-path.md, "Services on CID 2"). */
		if (dev->host_charged) {
			dev->host_charged = false;
			done = budget;
		}
		if (result == VSOCK_STALLED || result == VSOCK_BUSY) {
			vsock_blocked_add(dev, &blocked, &park, result);
			dev->parked[dev->parked_count++] = park;
			continue;
		}
		if (result == VSOCK_HELD) {
			dev->stats.held++;
			dev->request_held = true;
			dev->request_head = chain.head;
			break;
		}
		virtio_vsock_complete(dev, chain.head);
	}
	if (got < 0)
		virtio_dev_fail(&dev->vdev);
	/*
	 * After the transmitq: an echo goes back in the pass that took the
	 * request. A port that came in owing its budget waits for a pass with
	 * credit, which serves CID 2's answers however much its own packets
	 * then spend.
	 */
	if (virtio_dev_active(&dev->vdev) && !owed)
		virtio_vsock_host_poll(dev);
	dev->vdev.port.busy = virtio_vsock_busy(dev);
	return done;
}

/*
 * Held, transmit completions cost Linux's driver one interrupt and one run
 * of its transmit worker per batch rather than per packet; nothing else of
 * the guest waits for them (its credit comes in the peer's headers). Unlike
 * virtio-net's they do not ride along with a receive: Linux's vsock receive
 * work does not reclaim transmit buffers, so they would wait for the
 * transmitq's interrupt all the same, and the fresh holdoff a ride earns
 * would only put that interrupt off (docs/data-path.md, "vsock").
 */
static void virtio_vsock_flush_tx(struct virtio_vsock *dev, uint64_t now)
{
	struct virtq *tx = &dev->queue[VIRTIO_VSOCK_TX_QUEUE];
	bool due = tx_hold_due(&dev->tx_hold, now, dev->tx_holdoff, tx->size);

	if (tx_hold_release(&dev->tx_hold, due, false))
		virtq_publish(tx);
	if (due && virtq_needs_interrupt(tx))
		dev->vdev.interrupt(&dev->vdev, VIRTIO_VSOCK_TX_QUEUE);
}

void virtio_vsock_flush(struct virtio_vsock *dev, uint64_t now)
{
	struct virtq *rx = &dev->queue[VIRTIO_VSOCK_RX_QUEUE];

	virtio_vsock_flush_tx(dev, now);
	if (dev->rx_unpublished) {
		dev->rx_unpublished = false;
		virtq_publish(rx);
		if (virtq_needs_interrupt(rx))
			dev->vdev.interrupt(&dev->vdev, VIRTIO_VSOCK_RX_QUEUE);
	}
	dev->now = now;
	dev->vdev.port.dirty = false;
	/* Held completions wait for their deadline, or for a pass that moves more. */
	dev->vdev.port.deadline = tx_hold_earliest(&dev->tx_hold, 0);
}

/* The pass's clock, for what this poll parks or rate-limits. */
static unsigned int virtio_vsock_port_poll(struct sidecore_port *port, unsigned int budget,
					   uint64_t now)
{
	struct virtio_vsock *dev = container_of(port, struct virtio_vsock, vdev.port);

	dev->now = now;
	return virtio_vsock_poll_tx(dev, budget);
}

static void virtio_vsock_port_flush(struct sidecore_port *port, uint64_t now)
{
	virtio_vsock_flush(container_of(port, struct virtio_vsock, vdev.port), now);
}

static const struct sidecore_port_ops virtio_vsock_port_ops = {
	.poll = virtio_vsock_port_poll,
	.flush = virtio_vsock_port_flush,
	.print_counters = virtio_dev_port_counters,
	.print_stat = virtio_dev_port_stat,
};

static uint64_t virtio_vsock_polled_queues(const struct virtio_dev *vdev)
{
	(void)vdev;
	return 1ull << VIRTIO_VSOCK_TX_QUEUE;
}

_Static_assert(2 <= SIDECORE_PORT_WATCHES, "no room to watch the transmitq and the deaths");

static void virtio_vsock_watch(struct virtio_dev *vdev)
{
	virtio_vsock_peers_watch(container_of(vdev, struct virtio_vsock, vdev));
}

const struct virtio_dev_ops virtio_vsock_ops = {
	.kind = "virtio-vsock",
	.device_id = VIRTIO_ID_VSOCK,
	.queue_size_max = VIRTIO_VSOCK_QUEUE_SIZE,
	.config_size = sizeof(struct virtio_vsock_config),
	.size = sizeof(struct virtio_vsock),
	.init = virtio_vsock_init,
	.queue = virtio_vsock_queue,
	.config = virtio_vsock_config,
	.stop = virtio_vsock_stop,
	.reset = virtio_vsock_reset,
	.port_ops = &virtio_vsock_port_ops,
	.polled_queues = virtio_vsock_polled_queues,
	.watch = virtio_vsock_watch,
};
