/* SPDX-License-Identifier: MIT */
/*
 * virtio_console.c - the console device's transmit path (virtio 1.1 §5.3.6):
 * every byte the driver queues goes to the line sink, and the buffer comes
 * back used with nothing written.
 */
#include <stddef.h>
#include <string.h>

#include "virtio/virtio_console.h"

void virtio_console_init(struct virtio_console *dev, const char *name,
			 const struct guest_mem *mem, text_line_fn sink, void *sink_ctx,
			 virtio_console_interrupt_fn interrupt, void *ctx)
{
	memset(dev, 0, sizeof(*dev));
	dev->name = name;
	dev->interrupt = interrupt;
	dev->ctx = ctx;
	text_line_init(&dev->out, sink, sink_ctx);
	for (unsigned int i = 0; i < VIRTIO_CONSOLE_QUEUES; i++)
		virtq_init(&dev->queue[i], mem, name, i);
}

uint32_t virtio_console_read_config(const struct virtio_console *dev, unsigned int offset,
				    unsigned int size)
{
	/* cols and rows are 0 (no F_SIZE); one port (no F_MULTIPORT). */
	const struct virtio_console_config config = { .max_nr_ports = 1 };
	uint32_t value = 0;

	(void)dev;
	if (offset > sizeof(config) || size > sizeof(config) - offset || size > sizeof(value))
		return 0;
	memcpy(&value, (const uint8_t *)&config + offset, size);
	return value;
}

int virtio_console_enable_queue(struct virtio_console *dev, unsigned int queue,
				const struct virtq_layout *layout, uint64_t features)
{
	struct virtq *vq;

	if (queue >= VIRTIO_CONSOLE_QUEUES)
		return -1;
	vq = &dev->queue[queue];
	if (virtq_enable(vq, layout, features) < 0) {
		dev->needs_reset = true;
		return -1;
	}
	if (queue == VIRTIO_CONSOLE_TX_QUEUE)
		virtq_enable_notify(vq);
	return 0;
}

void virtio_console_start(struct virtio_console *dev)
{
	dev->running = true;
}

/* One transmit chain to the sink; false if it holds a device-writable buffer. */
static bool virtio_console_print(struct virtio_console *dev, const struct virtq_chain *chain)
{
	uint32_t left = VIRTIO_CONSOLE_CHAIN_MAX;

	if (chain->writable)
		return false;
	for (unsigned int i = 0; i < chain->count; i++) {
		const struct virtq_segment *s = &chain->segment[i];
		uint32_t n = s->len < left ? s->len : left;

		for (uint32_t j = 0; j < n; j++)
			text_line_put(&dev->out, s->data[j]);
		left -= n;
	}
	dev->stats.tx_bytes += VIRTIO_CONSOLE_CHAIN_MAX - left;
	dev->stats.tx_truncated += chain->readable - (VIRTIO_CONSOLE_CHAIN_MAX - left);
	dev->stats.tx_chains++;
	return true;
}

void virtio_console_kick(struct virtio_console *dev, unsigned int queue)
{
	struct virtq *vq = &dev->queue[VIRTIO_CONSOLE_TX_QUEUE];
	struct virtq_chain chain;
	uint32_t budget = vq->size;
	int got = 0;

	if (queue != VIRTIO_CONSOLE_TX_QUEUE || !dev->running || dev->needs_reset)
		return;
	while (budget && (got = virtq_pop(vq, &chain)) == 1) {
		if (!virtio_console_print(dev, &chain)) {
			got = -1;
			break;
		}
		virtq_push(vq, chain.head, 0);
		budget--;
	}
	if (got < 0) {
		dev->needs_reset = true;
		return;
	}
	virtq_publish(vq);
	if (virtq_needs_interrupt(vq))
		dev->interrupt(dev, VIRTIO_CONSOLE_TX_QUEUE);
}

void virtio_console_reset(struct virtio_console *dev)
{
	text_line_flush(&dev->out);
	for (unsigned int i = 0; i < VIRTIO_CONSOLE_QUEUES; i++)
		virtq_reset(&dev->queue[i]);
	dev->running = false;
	dev->needs_reset = false;
}
