/* SPDX-License-Identifier: MIT */
/*
 * virtio_rng.c - the entropy device (virtio_rng.h): each request on the
 * requestq comes back filled from RDRAND or RDSEED (virtio 1.1 §5.4.6).
 */
#include <string.h>

#include <linux/virtio_ids.h>

#include "arch/x86.h"
#include "lib/container.h"
#include "virtio/virtio_rng.h"

/* Linux's driver keeps one request in flight. */
#define VIRTIO_RNG_QUEUE_SIZE	64
/* Intel SDM vol. 2B, CPUID leaf 01H ECX bit 30 and leaf 07H EBX bit 18. */
#define CPUID1_ECX_RDRAND	(1u << 30)
#define CPUID7_EBX_RDSEED	(1u << 18)
/*
 * Attempts per word. Both set CF=0 when no random value is ready (SDM
 * vol. 1 §7.3.17.1, §7.3.17.2); Intel's DRNG guide (§5.2.1) counts ten
 * RDRAND failures in a row as a broken unit, and a request never waits
 * longer than that on the kicking core.
 */
#define VIRTIO_RNG_RETRIES	10

/* One attempt each; CF says whether *word holds a value. */
static bool rdrand_once(uint64_t *word)
{
	bool ok;

	asm volatile("rdrand %0" : "=r"(*word), "=@ccc"(ok));
	return ok;
}

static bool rdseed_once(uint64_t *word)
{
	bool ok;

	asm volatile("rdseed %0" : "=r"(*word), "=@ccc"(ok));
	return ok;
}

static bool virtio_rng_retry(bool (*once)(uint64_t *word), uint64_t *word)
{
	for (unsigned int i = 0; i < VIRTIO_RNG_RETRIES; i++)
		if (once(word))
			return true;
	return false;
}

static bool virtio_rng_rdrand(uint64_t *word)
{
	return virtio_rng_retry(rdrand_once, word);
}

static bool virtio_rng_rdseed(uint64_t *word)
{
	return virtio_rng_retry(rdseed_once, word);
}

virtio_rng_source_fn virtio_rng_pick_source(uint32_t cpuid1_ecx, uint32_t cpuid7_ebx)
{
	if (cpuid1_ecx & CPUID1_ECX_RDRAND)
		return virtio_rng_rdrand;
	return cpuid7_ebx & CPUID7_EBX_RDSEED ? virtio_rng_rdseed : NULL;
}

static struct virtio_rng *to_rng(struct virtio_dev *dev)
{
	return container_of(dev, struct virtio_rng, vdev);
}

static const char *virtio_rng_init(struct virtio_dev *vdev, const struct virtio_dev_params *params)
{
	struct virtio_rng *dev = to_rng(vdev);
	/* Leaf 7 exists only where leaf 0 says so (SDM vol. 2A, CPUID). */
	uint32_t ebx7 = cpuid(0, 0).eax >= 7 ? cpuid(7, 0).ebx : 0;

	memset(dev, 0, sizeof(*dev));
	dev->source = virtio_rng_pick_source(cpuid(1, 0).ecx, ebx7);
	if (!dev->source)
		return "the host has neither RDRAND nor RDSEED";
	if (!virtio_dev_init(vdev, &virtio_rng_ops, params, 0, 1))
		return "bad parameters";
	virtq_init(&dev->queue, params->mem, params->name, VIRTIO_RNG_QUEUE);
	return NULL;
}

static struct virtq *virtio_rng_queue(struct virtio_dev *vdev, unsigned int index)
{
	return index == VIRTIO_RNG_QUEUE ? &to_rng(vdev)->queue : NULL;
}

/* Fills a request's buffers, at most VIRTIO_RNG_CHAIN_MAX bytes; returns how many. */
static uint32_t virtio_rng_write(struct virtio_rng *dev, const struct virtq_chain *chain)
{
	uint32_t written = 0;

	for (unsigned int i = 0; i < chain->count; i++) {
		const struct virtq_segment *s = &chain->segment[i];

		for (uint32_t at = 0; at < s->len && written < VIRTIO_RNG_CHAIN_MAX;) {
			uint64_t word;
			uint32_t n = s->len - at;

			if (!dev->source(&word)) {
				dev->stats.dry++;
				return written;
			}
			n = n < sizeof(word) ? n : sizeof(word);
			n = n < VIRTIO_RNG_CHAIN_MAX - written ? n : VIRTIO_RNG_CHAIN_MAX - written;
			memcpy(s->data + at, &word, n);
			at += n;
			written += n;
		}
	}
	return written;
}

static int64_t virtio_rng_fill(struct virtio_dev *vdev, const struct virtq_chain *chain)
{
	struct virtio_rng *dev = to_rng(vdev);
	uint32_t written;

	/* §5.4.6.1: the driver offers device-writable buffers only. */
	if (chain->readable)
		return -1;
	written = virtio_rng_write(dev, chain);
	dev->stats.requests++;
	dev->stats.bytes += written;
	return written;
}

static void virtio_rng_kick(struct virtio_dev *vdev, unsigned int queue)
{
	if (queue == VIRTIO_RNG_QUEUE)
		virtio_dev_serve_kick(vdev, &to_rng(vdev)->queue, virtio_rng_fill);
}

const struct virtio_dev_ops virtio_rng_ops = {
	.kind = "virtio-rng",
	.device_id = VIRTIO_ID_RNG,
	.queue_size_max = VIRTIO_RNG_QUEUE_SIZE,
	.notify_queues = 1ull << VIRTIO_RNG_QUEUE,
	.size = sizeof(struct virtio_rng),
	.init = virtio_rng_init,
	.queue = virtio_rng_queue,
	.kick = virtio_rng_kick,
};
