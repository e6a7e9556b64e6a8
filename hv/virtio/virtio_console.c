/* SPDX-License-Identifier: MIT */
/*
 * virtio_console.c - the console device's transmit path (virtio 1.1 §5.3.6):
 * every byte the driver queues goes to the line sink, and the buffer comes
 * back used with nothing written.
 */
#include <stddef.h>
#include <string.h>

#include <linux/virtio_ids.h>

#include "lib/container.h"
#include "virtio/virtio_console.h"

/* Linux's driver keeps one buffer in flight on the transmitq and a few on the receiveq. */
#define VIRTIO_CONSOLE_QUEUE_SIZE	64

static struct virtio_console *to_console(struct virtio_dev *dev)
{
	return container_of(dev, struct virtio_console, vdev);
}

static const char *virtio_console_init(struct virtio_dev *vdev,
				       const struct virtio_dev_params *params)
{
	struct virtio_console *dev = to_console(vdev);

	memset(dev, 0, sizeof(*dev));
	if (!params->sink ||
	    !virtio_dev_init(vdev, &virtio_console_ops, params, 0, VIRTIO_CONSOLE_QUEUES))
		return "bad parameters";
	text_line_init(&dev->out, params->sink, params->sink_ctx);
	for (unsigned int i = 0; i < VIRTIO_CONSOLE_QUEUES; i++)
		virtq_init(&dev->queue[i], params->mem, params->name, i);
	return NULL;
}

static struct virtq *virtio_console_queue(struct virtio_dev *vdev, unsigned int index)
{
	return index < VIRTIO_CONSOLE_QUEUES ? &to_console(vdev)->queue[index] : NULL;
}

static void virtio_console_config(const struct virtio_dev *vdev, void *bytes)
{
	/* cols and rows are 0 (no F_SIZE); one port (no F_MULTIPORT). */
	const struct virtio_console_config config = { .max_nr_ports = 1 };

	(void)vdev;
	memcpy(bytes, &config, sizeof(config));
}

/* One transmit chain to the sink; -1 if it holds a device-writable buffer. */
static int64_t virtio_console_print(struct virtio_dev *vdev, const struct virtq_chain *chain)
{
	struct virtio_console *dev = to_console(vdev);
	uint32_t left = VIRTIO_CONSOLE_CHAIN_MAX;

	if (chain->writable)
		return -1;
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
	return 0;
}

static void virtio_console_kick(struct virtio_dev *vdev, unsigned int queue)
{
	if (queue == VIRTIO_CONSOLE_TX_QUEUE)
		virtio_dev_serve_kick(vdev, &to_console(vdev)->queue[queue], virtio_console_print);
}

static void virtio_console_reset(struct virtio_dev *vdev)
{
	text_line_flush(&to_console(vdev)->out);
}

const struct virtio_dev_ops virtio_console_ops = {
	.kind = "virtio-console",
	.device_id = VIRTIO_ID_CONSOLE,
	.queue_size_max = VIRTIO_CONSOLE_QUEUE_SIZE,
	.config_size = sizeof(struct virtio_console_config),
	.notify_queues = 1ull << VIRTIO_CONSOLE_TX_QUEUE,
	.size = sizeof(struct virtio_console),
	.init = virtio_console_init,
	.queue = virtio_console_queue,
	.config = virtio_console_config,
	.kick = virtio_console_kick,
	.reset = virtio_console_reset,
};
