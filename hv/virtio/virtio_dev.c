/* SPDX-License-Identifier: MIT */
/*
 * virtio_dev.c - the lifecycle every device model shares (virtio_dev.h),
 * once: feature negotiation (§2.2), queue enable (§4.1.4.3), DRIVER_OK
 * (§3.1.1), DEVICE_NEEDS_RESET (§2.1.2) and the device configuration's
 * byte-wise read (§4.1.4.6).
 */
#include <string.h>

#include <linux/virtio_config.h>

#include "lib/container.h"
#include "virtio/virtio_dev.h"

bool virtio_dev_init(struct virtio_dev *dev, const struct virtio_dev_ops *ops,
		     const struct virtio_dev_params *params, uint64_t offered,
		     unsigned int num_queues)
{
	memset(dev, 0, sizeof(*dev));
	if (!params->mem || !params->interrupt || !num_queues ||
	    num_queues > 8 * sizeof(ops->notify_queues) ||
	    ops->config_size > VIRTIO_DEV_CONFIG_MAX)
		return false;
	dev->ops = ops;
	dev->port.ops = ops->port_ops;
	dev->name = params->name;
	dev->interrupt = params->interrupt;
	dev->ctx = params->ctx;
	dev->offered = offered | 1ull << VIRTIO_F_VERSION_1;
	dev->num_queues = (uint16_t)num_queues;
	return true;
}

bool virtio_dev_set_features(struct virtio_dev *dev, uint64_t features)
{
	if (features & ~dev->offered || !(features & 1ull << VIRTIO_F_VERSION_1))
		return false;
	if (dev->ops->features_ok && !dev->ops->features_ok(dev, features))
		return false;
	dev->features = features;
	return true;
}

struct virtq *virtio_dev_queue(struct virtio_dev *dev, unsigned int index)
{
	return index < dev->num_queues ? dev->ops->queue(dev, index) : NULL;
}

/*
 * The port's hint from the device's state: live while active, a watch on
 * the avail idx of each enabled queue the model polls (sidecore/port.h).
 * The driver writes idx little-endian (virtio 1.1 §1.4), as x86 keeps words.
 */
static void virtio_dev_watch(struct virtio_dev *dev)
{
	struct sidecore_port *port = &dev->port;
	uint64_t polled = dev->ops->polled_queues ? dev->ops->polled_queues(dev) : 0;

	port->live = virtio_dev_active(dev);
	port->busy |= port->live && !dev->ops->polled_queues;
	port->watches = 0;
	for (unsigned int i = 0; i < dev->num_queues && port->watches < SIDECORE_PORT_WATCHES; i++) {
		struct virtq *vq = polled >> i & 1 ? virtio_dev_queue(dev, i) : NULL;

		if (vq && vq->ready)
			port->watch[port->watches++] = (struct sidecore_watch){
				&vq->avail->idx, &vq->last_avail_idx };
	}
	if (dev->ops->watch)
		dev->ops->watch(dev);
}

int virtio_dev_enable_queue(struct virtio_dev *dev, unsigned int queue,
			    const struct virtq_layout *layout)
{
	struct virtq *vq = virtio_dev_queue(dev, queue);

	if (!vq || virtq_enable(vq, layout, dev->features) < 0) {
		virtio_dev_fail(dev);
		return -1;
	}
	if (queue < 8 * sizeof(dev->ops->notify_queues) && dev->ops->notify_queues & 1ull << queue)
		virtq_enable_notify(vq);
	/* A queue enabled after DRIVER_OK is watched from now on. */
	if (virtio_dev_active(dev))
		virtio_dev_watch(dev);
	return 0;
}

void virtio_dev_start(struct virtio_dev *dev)
{
	__atomic_store_n(&dev->running, true, __ATOMIC_RELEASE);
	if (virtio_dev_needs_reset(dev))
		return;
	if (dev->ops->start)
		dev->ops->start(dev);
	virtio_dev_watch(dev);
	if (dev->started)
		dev->started(dev);
}

void virtio_dev_fail(struct virtio_dev *dev)
{
	if (__atomic_exchange_n(&dev->needs_reset, true, __ATOMIC_RELAXED))
		return;
	dev->port.live = false;
	if (dev->ops->stop)
		dev->ops->stop(dev);
	dev->interrupt(dev, VIRTIO_DEV_CONFIG_CHANGE);
}

void virtio_dev_reset(struct virtio_dev *dev)
{
	__atomic_store_n(&dev->running, false, __ATOMIC_RELEASE);
	if (dev->ops->stop)
		dev->ops->stop(dev);
	for (unsigned int i = 0; i < dev->num_queues; i++) {
		struct virtq *vq = dev->ops->queue(dev, i);

		if (vq)
			virtq_reset(vq);
	}
	if (dev->ops->reset)
		dev->ops->reset(dev);
	dev->features = 0;
	__atomic_store_n(&dev->needs_reset, false, __ATOMIC_RELAXED);
	/* Left dirty: a flush of the reset model publishes nothing and clears it. */
	dev->port.live = false;
	dev->port.busy = false;
	dev->port.watches = 0;
}

void virtio_dev_port_counters(const struct sidecore_port *port, unsigned int sidecore)
{
	const struct virtio_dev *dev = container_of(port, const struct virtio_dev, port);

	if (dev->print_counters)
		dev->print_counters(dev, sidecore);
}

void virtio_dev_port_stat(const struct sidecore_port *port, unsigned int sidecore, uint64_t tsc)
{
	const struct virtio_dev *dev = container_of(port, const struct virtio_dev, port);

	if (dev->print_stat)
		dev->print_stat(dev, sidecore, tsc);
}

uint32_t virtio_dev_read_config(const struct virtio_dev *dev, unsigned int offset,
				unsigned int size)
{
	uint8_t bytes[VIRTIO_DEV_CONFIG_MAX] = { 0 };
	uint32_t value = 0;

	if (!dev->ops->config)
		return 0;
	dev->ops->config(dev, bytes);
	for (unsigned int i = 0; i < size && i < sizeof(value); i++)
		if (offset < dev->ops->config_size && i < dev->ops->config_size - offset)
			value |= (uint32_t)bytes[offset + i] << (8 * i);
	return value;
}

void virtio_dev_serve_kick(struct virtio_dev *dev, struct virtq *vq, virtio_dev_chain_fn serve)
{
	struct virtq_chain chain;
	uint32_t budget = vq->size;
	int got = 0;

	if (!virtio_dev_active(dev))
		return;
	while (budget && (got = virtq_pop(vq, &chain)) == 1) {
		int64_t written = serve(dev, &chain);

		if (written < 0) {
			got = -1;
			break;
		}
		virtq_push(vq, chain.head, (uint32_t)written);
		budget--;
	}
	if (got < 0) {
		virtio_dev_fail(dev);
		return;
	}
	virtq_publish(vq);
	if (virtq_needs_interrupt(vq))
		dev->interrupt(dev, vq->index);
}
