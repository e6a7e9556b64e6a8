// SPDX-License-Identifier: MIT
/*
 * fuzz_vsock_host.c - a guest driving CID 2's services (echo on port 7,
 * discard on 9, counters on 1552: hv/virtio/virtio_vsock_host.c) with
 * well-formed rings and any sequence of packets, posting its receive
 * buffers late or never enabling its receive queue.
 *
 * fuzz_vsock writes the rings themselves; here the harness is the driver,
 * so every input reaches the services' state machines. The input is a
 * 4-byte header, then 8-byte records, one packet each:
 *
 *   byte 0   bit 0: the receiveq is never enabled; bit 1: the counters
 *            service is on; bit 2: the driver keeps reposting the receive
 *            buffers it got back; bit 3: EVENT_IDX; bit 4: REQUESTs go
 *            at one per REQUEST_EVERY (a burst first), the rest held
 *   byte 1   receive buffer size: 44 (a bare header) + 16 * the byte
 *   byte 2   the pass at which the driver first posts receive buffers
 *   byte 3   length of the counters' text: 40 * the byte (over
 *            VIRTIO_VSOCK_COUNTERS_MAX at the top)
 *   record   op, ports (bits 1:0: the service, 7, 9, 1552 or 8, no one's;
 *            bits 3:2: the guest's port; bit 4: to CID 99, not 2),
 *            payload length (16 bits, at most 4 KiB used), buf_alloc
 *            (KiB), fwd_cnt step, flags, then what follows: bit 0 a
 *            poll pass, bit 1 the clock jumps past the counters'
 *            interval, bit 2 the driver resets the device and sets it up
 *            again, bits 7:4 the budget of the pass (1 to 16, as turns do)
 *
 * Checks: every received packet is from CID 2 (or an RST in CID 99's
 * name) to the guest, its len matches the buffer it took, echoed bytes
 * are ones the guest sent and counters' bytes the service's text; a pass
 * moves at most its budget; the text is formatted at most once per
 * interval in one life of the device; nothing reaches a receiveq that was
 * never enabled. Guest RAM is an exact heap block: ASan sees any stray
 * access, UBSan a read through a ring that is not there.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/virtio_config.h>
#include <linux/virtio_ring.h>

#include "virtio/virtio_vsock.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define HEADER_BYTES	4
#define RECORD_BYTES	8
#define HDR		((uint32_t)sizeof(struct virtio_vsock_hdr))
#define QSIZE		64
#define GUEST_CID	3
#define NOBODY_CID	99
#define INTERVAL	10	/* the counters' interval, in clock units; a pass is 3 */
#define REQUEST_EVERY	7	/* a REQUEST token, in the same units */
#define PAYLOAD_MAX	4096
#define PATTERN(port)	((uint8_t)(0xa0 + (port) % 4))	/* every byte the guest sends */
#define TEXT_BYTE	'c'

/* Guest RAM: two rings, the transmit slots (header and payload), receive buffers. */
#define TX_DESC		0x0000
#define TX_AVAIL	0x0400
#define TX_USED		0x0600
#define RX_DESC		0x1000
#define RX_AVAIL	0x1400
#define RX_USED		0x1600
#define TX_SLOTS	0x2000	/* QSIZE / 2 slots, one packet each */
#define TX_SLOT_SIZE	(HDR + PAYLOAD_MAX)
#define RX_BUFS		(TX_SLOTS + QSIZE / 2 * TX_SLOT_SIZE)
#define RX_BUF_MAX	(HDR + 16 * 255)
#define RAM_SIZE	(RX_BUFS + QSIZE * RX_BUF_MAX)

static const uint32_t services[4] = { VIRTIO_VSOCK_PORT_ECHO, VIRTIO_VSOCK_PORT_DISCARD,
				      VIRTIO_VSOCK_PORT_COUNTERS, 8 };

struct harness {
	struct virtio_vsock dev;
	struct guest_mem mem;
	uint64_t now;
	bool rx_disabled, repost, counters_on;
	uint32_t rx_buf_size;
	unsigned int text_len;
	/* The driver's view of its rings. */
	uint16_t tx_avail, tx_used_seen, rx_avail, rx_used_seen;
	bool rx_posted;
	/* The counters' formatting, per life of the device. */
	unsigned int life;
	bool formatted;
	uint64_t formatted_at;
	unsigned int formatted_life;
};

static void *gpa(struct harness *h, uint64_t addr)
{
	return h->mem.base + addr;
}

static void interrupt(struct virtio_dev *dev, unsigned int source)
{
	CHECK(source < VIRTIO_VSOCK_QUEUES || source == VIRTIO_DEV_CONFIG_CHANGE);
	CHECK(source == VIRTIO_DEV_CONFIG_CHANGE || dev->running);
}

static void domain_lock(struct virtio_vsock_domain *ops)
{
	(void)ops;
}

static bool domain_trylock(struct virtio_vsock_domain *ops)
{
	(void)ops;
	return true;
}

static struct virtio_vsock_domain domain = { domain_lock, domain_trylock, domain_lock, 0 };

/* The glue's text, one byte repeated, a newline last; at most once per interval. */
static unsigned int snapshot(void *ctx, char *buf, unsigned int size)
{
	struct harness *h = ctx;
	unsigned int len = h->text_len < size ? h->text_len : size;

	CHECK(size == VIRTIO_VSOCK_COUNTERS_MAX);
	CHECK(!h->formatted || h->formatted_life != h->life ||
	      h->dev.now - h->formatted_at >= INTERVAL);
	h->formatted = true;
	h->formatted_at = h->dev.now;
	h->formatted_life = h->life;
	memset(buf, TEXT_BYTE, len);
	if (len)
		buf[len - 1] = '\n';
	return len;
}

static void configure(struct harness *h, uint64_t features)
{
	struct virtq_layout tx = { QSIZE, TX_DESC, TX_AVAIL, TX_USED };
	struct virtq_layout rx = { QSIZE, RX_DESC, RX_AVAIL, RX_USED };

	memset(h->mem.base, 0, RX_BUFS);
	h->tx_avail = h->tx_used_seen = h->rx_avail = h->rx_used_seen = 0;
	h->rx_posted = false;
	CHECK(virtio_dev_set_features(&h->dev.vdev, features));
	CHECK(virtio_dev_enable_queue(&h->dev.vdev, VIRTIO_VSOCK_TX_QUEUE, &tx) == 0);
	if (!h->rx_disabled)
		CHECK(virtio_dev_enable_queue(&h->dev.vdev, VIRTIO_VSOCK_RX_QUEUE, &rx) == 0);
	virtio_dev_start(&h->dev.vdev);
}

/* Receive buffer i: one writable descriptor, made available. */
static void post_rx(struct harness *h, uint16_t i)
{
	struct vring_desc *desc = gpa(h, RX_DESC);
	struct vring_avail *avail = gpa(h, RX_AVAIL);

	desc[i] = (struct vring_desc){ RX_BUFS + (uint64_t)i * RX_BUF_MAX, h->rx_buf_size,
				       VRING_DESC_F_WRITE, 0 };
	avail->ring[h->rx_avail % QSIZE] = i;
	__atomic_store_n(&avail->idx, ++h->rx_avail, __ATOMIC_RELEASE);
}

/* Checks each packet the device put in a receive buffer, and reposts the buffer. */
static void take_rx(struct harness *h)
{
	const struct vring_used *used = gpa(h, RX_USED);
	uint16_t idx = __atomic_load_n(&used->idx, __ATOMIC_ACQUIRE);

	CHECK((uint16_t)(idx - h->rx_used_seen) <= (uint16_t)(h->rx_avail - h->rx_used_seen));
	for (; h->rx_used_seen != idx; h->rx_used_seen++) {
		const struct vring_used_elem *e = &used->ring[h->rx_used_seen % QSIZE];
		const uint8_t *buf;
		struct virtio_vsock_hdr hdr;
		uint8_t want;

		CHECK(e->id < QSIZE && e->len >= HDR && e->len <= h->rx_buf_size);
		buf = gpa(h, RX_BUFS + (uint64_t)e->id * RX_BUF_MAX);
		memcpy(&hdr, buf, HDR);
		CHECK(hdr.dst_cid == GUEST_CID);
		CHECK(hdr.src_cid == VIRTIO_VSOCK_HOST_CID || hdr.src_cid == NOBODY_CID);
		CHECK(hdr.len + HDR == e->len);
		CHECK(hdr.op == VIRTIO_VSOCK_OP_RW || !hdr.len);
		if (hdr.op == VIRTIO_VSOCK_OP_RW) {
			CHECK(hdr.src_cid == VIRTIO_VSOCK_HOST_CID);
			CHECK(hdr.src_port == VIRTIO_VSOCK_PORT_ECHO ||
			      hdr.src_port == VIRTIO_VSOCK_PORT_COUNTERS);
			want = hdr.src_port == VIRTIO_VSOCK_PORT_ECHO ? PATTERN(hdr.dst_port) : 0;
			for (uint32_t i = 0; i < hdr.len; i++)
				CHECK(want ? buf[HDR + i] == want
					   : buf[HDR + i] == TEXT_BYTE || buf[HDR + i] == '\n');
		}
		if (h->repost)
			post_rx(h, (uint16_t)e->id);
	}
}

/* One sidecore pass with the budget given, then the driver's look at its rings. */
static void pass(struct harness *h, unsigned int budget, unsigned int number, unsigned int post_at)
{
	bool broken = virtio_dev_needs_reset(&h->dev.vdev);
	unsigned int n;

	if (!h->rx_disabled && !h->rx_posted && number >= post_at) {
		for (uint16_t i = 0; i < QSIZE; i++)
			post_rx(h, i);
		h->rx_posted = true;
	}
	n = virtio_vsock_poll_tx(&h->dev, budget);
	CHECK(n <= budget);
	CHECK(!broken || n == 0);
	virtio_vsock_flush(&h->dev, h->now);
	h->now += 3;
	if (h->rx_disabled)
		CHECK(((const struct vring_used *)gpa(h, RX_USED))->idx == 0);
	else
		take_rx(h);
	h->tx_used_seen = ((const struct vring_used *)gpa(h, TX_USED))->idx;
}

/* A packet as the record says, in its own transmit slot: header, then payload. */
static void send(struct harness *h, const uint8_t *r)
{
	struct vring_desc *desc = gpa(h, TX_DESC);
	struct vring_avail *avail = gpa(h, TX_AVAIL);
	uint16_t slot = h->tx_avail % (QSIZE / 2);
	uint64_t at = TX_SLOTS + (uint64_t)slot * TX_SLOT_SIZE;
	uint32_t len = (uint32_t)(r[2] | r[3] << 8) % (PAYLOAD_MAX + 1);
	uint32_t guest_port = 1000 + (r[1] >> 2 & 3);
	struct virtio_vsock_hdr hdr = {
		.src_cid = GUEST_CID,
		.dst_cid = r[1] & 0x10 ? NOBODY_CID : VIRTIO_VSOCK_HOST_CID,
		.src_port = guest_port,
		.dst_port = services[r[1] & 3],
		.len = len,
		.type = VIRTIO_VSOCK_TYPE_STREAM,
		.op = r[0] % (VIRTIO_VSOCK_OP_CREDIT_REQUEST + 1),
		.flags = r[6] & 3,
		.buf_alloc = (uint32_t)r[4] << 10,
		.fwd_cnt = (uint32_t)r[5] * 997,
	};

	if (hdr.op != VIRTIO_VSOCK_OP_RW)
		hdr.len = len = 0;
	memcpy(gpa(h, at), &hdr, HDR);
	memset(gpa(h, at + HDR), PATTERN(guest_port), len);
	desc[2 * slot] = (struct vring_desc){ at, HDR, len ? VRING_DESC_F_NEXT : 0,
					      (uint16_t)(2 * slot + 1) };
	desc[2 * slot + 1] = (struct vring_desc){ at + HDR, len, 0, 0 };
	avail->ring[h->tx_avail % QSIZE] = (uint16_t)(2 * slot);
	__atomic_store_n(&avail->idx, ++h->tx_avail, __ATOMIC_RELEASE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct harness h;
	uint64_t features = 1ull << VIRTIO_F_VERSION_1;
	unsigned int post_at, passes = 0;
	struct virtio_vsock_params params = {
		.cid = GUEST_CID,
		.domain = &domain,
		.stall_timeout = 4,
		.counters_interval = INTERVAL,
	};
	struct virtio_dev_params common = { .name = "A", .mem = &h.mem, .interrupt = interrupt,
					    .ctx = &h, .type = &params };
	struct virtio_vsock_table table = { 0 };

	if (size < HEADER_BYTES)
		return 0;
	memset(&h, 0, sizeof(h));
	h.mem.size = RAM_SIZE;
	h.mem.base = malloc(RAM_SIZE);
	CHECK(h.mem.base);
	h.rx_disabled = data[0] & 1;
	h.counters_on = data[0] & 2;
	h.repost = data[0] & 4;
	if (data[0] & 8)
		features |= 1ull << VIRTIO_RING_F_EVENT_IDX;
	h.rx_buf_size = HDR + 16u * data[1];
	post_at = data[2];
	h.text_len = 40u * data[3] + (data[3] == 255 ? VIRTIO_VSOCK_COUNTERS_MAX : 0);
	params.table = &table;
	params.snapshot = h.counters_on ? snapshot : NULL;
	params.request_interval = data[0] & 16 ? REQUEST_EVERY : 0;
	CHECK(!virtio_vsock_ops.init(&h.dev.vdev, &common));
	CHECK(virtio_vsock_table_add(&table, &h.dev));
	configure(&h, features);

	for (size_t at = HEADER_BYTES; at + RECORD_BYTES <= size; at += RECORD_BYTES) {
		const uint8_t *r = data + at;

		/* The driver never overwrites a slot the device has not given back. */
		while ((uint16_t)(h.tx_avail - h.tx_used_seen) >= QSIZE / 2 && passes < 64)
			pass(&h, 32, passes++, post_at);
		if ((uint16_t)(h.tx_avail - h.tx_used_seen) >= QSIZE / 2)
			break;
		send(&h, r);
		if (r[7] & 2)
			h.now += INTERVAL;
		if (r[7] & 1)
			pass(&h, (r[7] >> 4) + 1u, passes++, post_at);
		if (r[7] & 4) {
			virtio_dev_reset(&h.dev.vdev);
			h.life++;
			configure(&h, features);
		}
	}
	for (unsigned int i = 0; i < 4; i++)
		pass(&h, 32, passes++, post_at);
	virtio_dev_reset(&h.dev.vdev);
	CHECK(!virtio_dev_active(&h.dev.vdev));
	free(h.mem.base);
	return 0;
}
