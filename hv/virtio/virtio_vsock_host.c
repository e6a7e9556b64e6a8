/* SPDX-License-Identifier: MIT */
/*
 * virtio_vsock_host.c - the hypervisor's own end of a guest's connections
 * to CID 2 (docs/data-path.md, "Services on CID 2"): echo on port 7,
 * discard on port 9, the guest's own counters on port 1552, SOCK_STREAM
 * only.
 *
 * The services speak the protocol as a Linux peer does (virtio 1.2
 * §5.10.6): a REQUEST gets a RESPONSE, every packet carries the service's
 * credit (buf_alloc, fwd_cnt), and what goes back to the guest never
 * exceeds the guest's own credit, since Linux drops a packet its socket
 * has no room for. They take every packet at once, so a guest waits on
 * CID 2 in its transmitq only for REQUESTs past their rate
 * (virtio_vsock_host_admit()): echo keeps what it has not sent back yet in
 * its connection's ring, and grants no more credit than the ring holds;
 * the counters service fills the ring with its text at once (formatted at
 * most once per VIRTIO_VSOCK_COUNTERS_MS), and ends the stream once it is
 * out.
 * What a service owes, a RESPONSE, a CREDIT_UPDATE, echoed bytes, waits in
 * its connection until the guest's receive buffers and credit take it.
 */
#include <stddef.h>
#include <string.h>

#include "virtio/virtio_vsock_internal.h"

/* Control packets a connection owes its guest, sent in this order. */
#define VSOCK_OWE_RESPONSE	0x1
#define VSOCK_OWE_CREDIT	0x2
#define VSOCK_OWE_SHUTDOWN	0x4	/* once every echoed byte is out */

static bool host_service_known(const struct virtio_vsock *dev, uint32_t port)
{
	return port == VIRTIO_VSOCK_PORT_ECHO || port == VIRTIO_VSOCK_PORT_DISCARD ||
	       (port == VIRTIO_VSOCK_PORT_COUNTERS && dev->snapshot);
}

/*
 * The credit a service grants: what echo can hold, what discard lets
 * fly. The counters service takes nothing: what a guest sends it is
 * dropped, as by discard.
 */
static uint32_t host_buf_alloc(const struct virtio_vsock_host_conn *conn)
{
	return conn->service == VIRTIO_VSOCK_PORT_ECHO ? VIRTIO_VSOCK_ECHO_BUF
						       : VIRTIO_VSOCK_DISCARD_BUF;
}

/* The connection hdr's ports name, or NULL. */
static struct virtio_vsock_host_conn *host_find(struct virtio_vsock *dev,
						const struct virtio_vsock_hdr *hdr)
{
	for (unsigned int i = 0; i < VIRTIO_VSOCK_HOST_CONNS; i++) {
		struct virtio_vsock_host_conn *conn = &dev->host[i];

		if (conn->service && conn->service == hdr->dst_port &&
		    conn->guest_port == hdr->src_port)
			return conn;
	}
	return NULL;
}

/* Frees the slot; the ring's old bytes are never read again (held is 0). */
static void host_free(struct virtio_vsock_host_conn *conn)
{
	memset(conn, 0, offsetof(struct virtio_vsock_host_conn, ring));
}

/* A packet of the service's to the guest, len payload bytes to follow. */
static struct virtio_vsock_hdr host_header(const struct virtio_vsock *dev,
					   const struct virtio_vsock_host_conn *conn,
					   uint16_t op, uint32_t len, uint32_t flags)
{
	return (struct virtio_vsock_hdr){
		.src_cid = VIRTIO_VSOCK_HOST_CID,
		.dst_cid = dev->cid,
		.src_port = conn->service,
		.dst_port = conn->guest_port,
		.len = len,
		.type = VIRTIO_VSOCK_TYPE_STREAM,
		.op = op,
		.flags = flags,
		.buf_alloc = host_buf_alloc(conn),
		.fwd_cnt = conn->fwd_cnt,
	};
}

static enum vsock_delivery host_send_control(struct virtio_vsock *dev,
					     struct virtio_vsock_host_conn *conn,
					     uint16_t op, uint32_t flags)
{
	struct virtio_vsock_hdr hdr = host_header(dev, conn, op, 0, flags);
	enum vsock_delivery result = virtio_vsock_deliver(dev, &hdr, NULL);

	if (result == VSOCK_DELIVERED)
		conn->fwd_told = conn->fwd_cnt;
	return result;
}

/*
 * Sends back as many held bytes as the guest's credit lets, in packets of
 * up to 64 KiB straight out of the ring (two segments where it wraps).
 */
static enum vsock_delivery host_echo(struct virtio_vsock *dev,
				     struct virtio_vsock_host_conn *conn)
{
	/*
	 * Each copy is charged to the port (docs/data-path.md, "Budgets in
	 * bytes"): what the answers overspend, at most the held bytes of its
	 * connections, the port pays back in the passes after.
	 */
	while (conn->held) {
		uint32_t credit = conn->peer_buf_alloc - (conn->tx_cnt - conn->peer_fwd_cnt);
		uint32_t n = conn->held < credit ? conn->held : credit;
		uint32_t first = VIRTIO_VSOCK_ECHO_BUF - conn->head;
		struct virtq_chain ring = { .count = 1 };
		struct virtio_vsock_hdr hdr;
		struct chain_cursor src;
		enum vsock_delivery result;

		if (credit > conn->peer_buf_alloc)	/* a fwd_cnt ahead of what was sent */
			n = conn->held;
		if (n > VIRTIO_VSOCK_PAYLOAD_MAX)
			n = VIRTIO_VSOCK_PAYLOAD_MAX;
		if (!n)
			return VSOCK_DELIVERED;
		ring.segment[0] = (struct virtq_segment){ conn->ring + conn->head,
							  n < first ? n : first, false };
		if (n > first) {
			ring.segment[1] = (struct virtq_segment){ conn->ring, n - first, false };
			ring.count = 2;
		}
		vsock_cursor_init(&src, &ring, 0);
		/* The header owns up to the bytes it carries: they are used up once there. */
		hdr = host_header(dev, conn, VIRTIO_VSOCK_OP_RW, n, 0);
		hdr.fwd_cnt += n;
		result = virtio_vsock_deliver(dev, &hdr, &src);
		if (result != VSOCK_DELIVERED)
			return result;
		virtio_vsock_charge(dev, VSOCK_HDR_SIZE + n, ring.count);
		conn->head = (conn->head + n) % VIRTIO_VSOCK_ECHO_BUF;
		conn->held -= n;
		conn->tx_cnt += n;
		conn->fwd_cnt += n;
		conn->fwd_told = conn->fwd_cnt;
		if (conn->service == VIRTIO_VSOCK_PORT_ECHO)
			dev->stats.echoed += n;
	}
	return VSOCK_DELIVERED;
}

/*
 * Like Linux's receiver (virtio_transport_common's dequeue), a service
 * tells the sender its credit once the free space it last told is down to
 * one largest packet, so a sender writing 64 KiB at a time never waits for
 * it; with less than twice that granted, once half is gone. A
 * CREDIT_UPDATE costs the guest a receive interrupt: discard's 256 KiB
 * then cost one per 192 KiB, not per 128.
 */
static bool host_credit_due(const struct virtio_vsock_host_conn *conn)
{
	uint32_t buf_alloc = host_buf_alloc(conn);
	uint32_t low = buf_alloc / 2 < VIRTIO_VSOCK_PAYLOAD_MAX ? buf_alloc / 2
								 : VIRTIO_VSOCK_PAYLOAD_MAX;

	return conn->fwd_cnt - conn->fwd_told >= buf_alloc - low;
}

/* Sends what conn owes, in order; stops at the first packet that does not fit. */
static enum vsock_delivery host_conn_poll(struct virtio_vsock *dev,
					  struct virtio_vsock_host_conn *conn)
{
	enum vsock_delivery result;

	if (conn->owed & VSOCK_OWE_RESPONSE) {
		result = host_send_control(dev, conn, VIRTIO_VSOCK_OP_RESPONSE, 0);
		if (result != VSOCK_DELIVERED)
			return result;
		conn->owed &= ~VSOCK_OWE_RESPONSE;
	}
	result = host_echo(dev, conn);
	if (result != VSOCK_DELIVERED)
		return result;
	if (host_credit_due(conn))
		conn->owed |= VSOCK_OWE_CREDIT;
	if (conn->owed & VSOCK_OWE_CREDIT) {
		result = host_send_control(dev, conn, VIRTIO_VSOCK_OP_CREDIT_UPDATE, 0);
		if (result != VSOCK_DELIVERED)
			return result;
		conn->owed &= ~VSOCK_OWE_CREDIT;
	}
	if ((conn->owed & VSOCK_OWE_SHUTDOWN) && !conn->held) {
		/* The guest sends no more and has it all back: both ways end, it answers with an RST. */
		result = host_send_control(dev, conn, VIRTIO_VSOCK_OP_SHUTDOWN,
					   VIRTIO_VSOCK_SHUTDOWN_RCV | VIRTIO_VSOCK_SHUTDOWN_SEND);
		if (result != VSOCK_DELIVERED)
			return result;
		host_free(conn);
	}
	return VSOCK_DELIVERED;
}

void virtio_vsock_host_poll(struct virtio_vsock *dev)
{
	const struct virtq *rx = &dev->queue[VIRTIO_VSOCK_RX_QUEUE];
	bool blocked = false;

	/* A receiveq never enabled has no ring to look at: output waits for it. */
	if (!rx->ready)
		return;
	/* Output that found no receive buffers waits for the driver to post some. */
	if (dev->host_blocked && virtq_avail_idx(rx) == dev->host_blocked_avail)
		return;
	dev->host_blocked = false;
	for (unsigned int i = 0; i < VIRTIO_VSOCK_HOST_CONNS; i++) {
		if (!dev->host[i].service)
			continue;
		switch (host_conn_poll(dev, &dev->host[i])) {
		case VSOCK_DELIVERED:
			break;
		case VSOCK_GONE:
			return;
		default:
			blocked = true;
		}
	}
	if (blocked) {
		dev->host_blocked = true;
		dev->host_blocked_avail = virtq_avail_idx(rx);
	}
}

/*
 * Formats the counters' text unless it is younger than counters_interval:
 * a guest asking in a loop gets the same text, not a sidecore busy
 * formatting for it.
 */
static void host_counters_refresh(struct virtio_vsock *dev)
{
	unsigned int len;

	if (dev->counters_valid && dev->now - dev->counters_at < dev->counters_interval)
		return;
	len = dev->snapshot(dev->vdev.ctx, dev->counters, sizeof(dev->counters));
	dev->counters_len = len < sizeof(dev->counters) ? len : sizeof(dev->counters);
	dev->counters_at = dev->now;
	dev->counters_valid = true;
}

/* A REQUEST: a free slot for a known service gets a RESPONSE, anything else an RST. */
static bool host_connect(struct virtio_vsock *dev, const struct virtio_vsock_hdr *hdr,
			 struct virtio_vsock_host_conn *conn)
{
	/* A guest reusing its port starts afresh, as after its RST. */
	if (conn)
		host_free(conn);
	for (unsigned int i = 0; !conn && i < VIRTIO_VSOCK_HOST_CONNS; i++)
		if (!dev->host[i].service)
			conn = &dev->host[i];
	if (!conn || !host_service_known(dev, hdr->dst_port)) {
		virtio_vsock_refuse(dev, hdr);
		return false;
	}
	conn->service = hdr->dst_port;
	conn->guest_port = hdr->src_port;
	conn->peer_buf_alloc = hdr->buf_alloc;
	conn->peer_fwd_cnt = hdr->fwd_cnt;
	conn->owed = VSOCK_OWE_RESPONSE;
	/* The device's latest text, sent as echo sends, then the end. */
	if (conn->service == VIRTIO_VSOCK_PORT_COUNTERS) {
		host_counters_refresh(dev);
		memcpy(conn->ring, dev->counters, dev->counters_len);
		virtio_vsock_charge(dev, dev->counters_len, 1);
		conn->held = dev->counters_len;
		conn->owed |= VSOCK_OWE_SHUTDOWN;
		dev->host_charged = true;
	}
	dev->host_blocked = false;
	return true;
}

/*
 * An RW's payload: discard counts it, echo holds it for host_echo(). More
 * than the credit echo granted is the guest breaking the stream: that
 * connection is reset, nothing else.
 */
static void host_take(struct virtio_vsock *dev, const struct virtio_vsock_hdr *hdr,
		      struct virtio_vsock_host_conn *conn, struct chain_cursor *src)
{
	uint32_t tail, first;

	if (conn->service != VIRTIO_VSOCK_PORT_ECHO || conn->peer_deaf) {
		conn->fwd_cnt += hdr->len;
		if (conn->service == VIRTIO_VSOCK_PORT_DISCARD)
			dev->stats.discarded += hdr->len;
		return;
	}
	if (hdr->len > VIRTIO_VSOCK_ECHO_BUF - conn->held) {
		dev->stats.resets++;
		virtio_vsock_refuse(dev, hdr);
		host_free(conn);
		return;
	}
	tail = (conn->head + conn->held) % VIRTIO_VSOCK_ECHO_BUF;
	first = VIRTIO_VSOCK_ECHO_BUF - tail;
	if (first > hdr->len)
		first = hdr->len;
	vsock_cursor_read(src, conn->ring + tail, first);
	vsock_cursor_read(src, conn->ring, hdr->len - first);
	conn->held += hdr->len;
}

bool virtio_vsock_host_receive(struct virtio_vsock *dev, const struct virtio_vsock_hdr *hdr,
			       struct chain_cursor *src)
{
	struct virtio_vsock_host_conn *conn = host_find(dev, hdr);

	if (hdr->op == VIRTIO_VSOCK_OP_REQUEST)
		return host_connect(dev, hdr, conn);
	/* No such connection: an RST, as Linux answers (never to an RST). */
	if (!conn) {
		virtio_vsock_refuse(dev, hdr);
		return false;
	}
	conn->peer_buf_alloc = hdr->buf_alloc;
	conn->peer_fwd_cnt = hdr->fwd_cnt;
	switch (hdr->op) {
	case VIRTIO_VSOCK_OP_RW:
		host_take(dev, hdr, conn, src);
		break;
	case VIRTIO_VSOCK_OP_CREDIT_REQUEST:
		conn->owed |= VSOCK_OWE_CREDIT;
		break;
	case VIRTIO_VSOCK_OP_SHUTDOWN:
		conn->peer_done |= !!(hdr->flags & VIRTIO_VSOCK_SHUTDOWN_SEND);
		conn->peer_deaf |= !!(hdr->flags & VIRTIO_VSOCK_SHUTDOWN_RCV);
		if (conn->peer_done && conn->peer_deaf) {
			/* Linux's answer to a full shutdown: an RST, and the socket goes. */
			virtio_vsock_refuse(dev, hdr);
			host_free(conn);
		} else if (conn->peer_deaf) {
			/* Echo drops what a guest will not read, and says it took it. */
			conn->fwd_cnt += conn->held;
			conn->held = 0;
		} else {
			conn->owed |= VSOCK_OWE_SHUTDOWN;
		}
		break;
	case VIRTIO_VSOCK_OP_RST:
		host_free(conn);
		break;
	case VIRTIO_VSOCK_OP_RESPONSE:
		/* The services never connect: a RESPONSE is a broken stream. */
		virtio_vsock_refuse(dev, hdr);
		host_free(conn);
		break;
	default:	/* CREDIT_UPDATE: the credit above is all it says */
		break;
	}
	/* Something may be owed now: try at once, whatever stopped the last try. */
	dev->host_blocked = false;
	return true;
}

bool virtio_vsock_host_admit(struct virtio_vsock *dev)
{
	return !dev->requests_bounded || ratelimit_take(&dev->requests, dev->now, 1);
}

void virtio_vsock_host_reset(struct virtio_vsock *dev)
{
	for (unsigned int i = 0; i < VIRTIO_VSOCK_HOST_CONNS; i++)
		host_free(&dev->host[i]);
	dev->host_blocked = false;
	dev->host_charged = false;
	dev->counters_valid = false;
}
