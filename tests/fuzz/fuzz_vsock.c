// SPDX-License-Identifier: MIT
/*
 * fuzz_vsock.c - two guests that write anything at all into their vsock
 * rings and the packets on them (hv/virtio/virtio_vsock.c).
 *
 * The input is a 26-byte header followed by a RAM image both guests share
 * (so one can post what the other's packets land in):
 *
 *   byte 0   bits 3:0: log2 of the queue size (1 to 8); bit 4: guest A
 *            negotiates SEQPACKET; bit 5: guest B does; bit 6: EVENT_IDX;
 *            bit 7: INDIRECT_DESC, asked for and refused (not offered)
 *   byte 1   bits 3:0: poll passes to run (1 to 16); bit 4: B is served
 *            under another sidecore's lock than A; bit 5: that lock is
 *            taken by someone else on every other pass; bit 6: both
 *            devices hold their transmit completions (TX_HOLDOFF)
 *   2-25     guest-physical descriptor table, available and used ring of
 *            A's transmitq, A's receiveq, B's transmitq and B's receiveq
 *            (16-bit little-endian each)
 *
 * A is CID 3 and B CID 4, on one sidecore's table. The RAM is a heap block
 * of exactly the image's size, so AddressSanitizer reports any access
 * outside it. Beyond that: a device that needs a reset moves no packet,
 * only queues of running devices interrupt, the counters never say more
 * was delivered than was taken, and every loop ends (libFuzzer's timeout).
 * A broken rule aborts, which libFuzzer reports.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/virtio_config.h>

#include "virtio/virtio_vsock.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define HEADER_BYTES	26
#define STALL_TIMEOUT	4	/* clock units; each pass advances the clock by 3 */
#define TX_HOLDOFF	5	/* when held, completions wait out two passes */

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void interrupt(struct virtio_dev *dev, unsigned int source)
{
	CHECK(source < VIRTIO_VSOCK_QUEUES || source == VIRTIO_DEV_CONFIG_CHANGE);
	CHECK(source == VIRTIO_DEV_CONFIG_CHANGE || dev->running);
}

/* A sidecore's lock; busy: held by another core for this pass. */
struct domain {
	struct virtio_vsock_domain ops;
	bool busy;
	bool held;
};

/* A wait for a busy lock ends when its holder lets go. */
static void domain_lock(struct virtio_vsock_domain *ops)
{
	struct domain *d = (struct domain *)ops;

	CHECK(!d->held);
	d->held = true;
}

static bool domain_trylock(struct virtio_vsock_domain *ops)
{
	struct domain *d = (struct domain *)ops;

	if (d->busy || d->held)
		return false;
	d->held = true;
	return true;
}

static void domain_unlock(struct virtio_vsock_domain *ops)
{
	struct domain *d = (struct domain *)ops;

	CHECK(d->held);
	d->held = false;
}

static struct virtq_layout layout_at(const uint8_t *p, uint32_t size)
{
	return (struct virtq_layout){ .size = size, .desc = le16(p), .avail = le16(p + 2),
				      .used = le16(p + 4) };
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct virtio_vsock dev[2];
	struct virtio_vsock_table table = { 0 };
	struct domain domain[2] = {
		{ { domain_lock, domain_trylock, domain_unlock, 0 }, false, false },
		{ { domain_lock, domain_trylock, domain_unlock, 1 }, false, false },
	};
	bool split, contended;
	struct guest_mem mem;
	uint32_t qsize;
	unsigned int passes;
	uint64_t now = 0, taken[2] = { 0, 0 };

	if (size <= HEADER_BYTES)
		return 0;
	split = data[1] & 0x10;
	contended = data[1] & 0x20;
	qsize = 1u << ((data[0] & 0xf) % 8 + 1);
	passes = data[1] % 16 + 1;
	mem.size = size - HEADER_BYTES;
	mem.log = NULL;		/* no guest's bucket: every line goes out */
	mem.base = malloc(mem.size);
	CHECK(mem.base);
	memcpy(mem.base, data + HEADER_BYTES, mem.size);

	for (unsigned int i = 0; i < 2; i++) {
		struct virtio_vsock_params params = {
			.cid = 3 + i,
			.table = &table,
			.domain = &domain[split ? i : 0].ops,
			.stall_timeout = STALL_TIMEOUT,
		};
		struct virtio_dev_params common = { .name = i ? "B" : "A", .mem = &mem,
						    .interrupt = interrupt, .type = &params };
		uint64_t features = 1ull << VIRTIO_F_VERSION_1;
		struct virtq_layout tx = layout_at(data + 2 + 12 * i, qsize);
		struct virtq_layout rx = layout_at(data + 8 + 12 * i, qsize);

		if (data[0] & (0x10 << i))
			features |= 1ull << VIRTIO_VSOCK_F_SEQPACKET;
		if (data[0] & 0x40)
			features |= 1ull << VIRTIO_RING_F_EVENT_IDX;
		if (data[0] & 0x80)
			features |= 1ull << VIRTIO_RING_F_INDIRECT_DESC;
		CHECK(!virtio_vsock_ops.init(&dev[i].vdev, &common));
		CHECK(virtio_vsock_table_add(&table, &dev[i]));
		if (data[1] & 0x40)
			dev[i].tx_holdoff = TX_HOLDOFF;
		/* A driver that asks for more than was offered is refused, and tries again. */
		if (!virtio_dev_set_features(&dev[i].vdev, features))
			CHECK(virtio_dev_set_features(&dev[i].vdev, features & dev[i].vdev.offered));
		virtio_dev_enable_queue(&dev[i].vdev, VIRTIO_VSOCK_TX_QUEUE, &tx);
		virtio_dev_enable_queue(&dev[i].vdev, VIRTIO_VSOCK_RX_QUEUE, &rx);
		virtio_dev_start(&dev[i].vdev);
	}

	for (unsigned int pass = 0; pass < passes; pass++) {
		for (unsigned int i = 0; i < 2; i++)
			domain[i].busy = contended && pass % 2;
		for (unsigned int i = 0; i < 2; i++) {
			bool broken = virtio_dev_needs_reset(&dev[i].vdev);
			unsigned int n = virtio_vsock_poll_tx(&dev[i], 32);

			CHECK(n <= 32);
			CHECK(!broken || n == 0);
			taken[i] += n;
		}
		for (unsigned int i = 0; i < 2; i++)
			virtio_vsock_flush(&dev[i], now);
		now += 3;
	}
	for (unsigned int i = 0; i < 2; i++) {
		const struct virtio_vsock_stats *s = &dev[i].stats;

		CHECK(!domain[i].held);
		CHECK(!virtio_dev_needs_reset(&dev[i].vdev) || !virtio_dev_active(&dev[i].vdev));
		CHECK(s->spoofed <= taken[i]);
		virtio_dev_reset(&dev[i].vdev);
		CHECK(!virtio_dev_needs_reset(&dev[i].vdev) && !virtio_dev_active(&dev[i].vdev));
	}
	free(mem.base);
	return 0;
}
