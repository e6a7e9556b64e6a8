/* SPDX-License-Identifier: MIT */
/*
 * virtio_dev.h - what every virtio device model shares: its identity and
 * limits, the features it offers and the driver accepted, its queues and
 * its lifecycle (virtio 1.1 §2.1, §3.1): features, queue enable, DRIVER_OK,
 * DEVICE_NEEDS_RESET and reset. A model embeds a struct virtio_dev and
 * supplies one struct virtio_dev_ops; the transport and the glue see only
 * the struct virtio_dev (docs/architecture.md, "Devices").
 *
 * A device is served either by a sidecore's poll pass (its port, with the
 * model's port_ops) or on the vCPU that notifies a queue (kick). The core
 * keeps the port's hint live and watching while the device is active; the
 * model keeps busy and dirty (sidecore/port.h). running and needs_reset are
 * read by one core while another changes them, so they are atomic for
 * every device alike; the rest is serialised by the owner's lock.
 */
#ifndef SIDECORE_VIRTIO_VIRTIO_DEV_H
#define SIDECORE_VIRTIO_VIRTIO_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/text_line.h"
#include "sidecore/port.h"
#include "virtio/guest_mem.h"
#include "virtio/virtq.h"

/* virtio_dev_interrupt_fn's source for a configuration change (§4.1.5.4). */
#define VIRTIO_DEV_CONFIG_CHANGE	(~0u)
/* The largest device-specific configuration structure a model may have. */
#define VIRTIO_DEV_CONFIG_MAX		64u

struct virtio_dev;

/* A used-buffer interrupt for a queue, or VIRTIO_DEV_CONFIG_CHANGE, is due. */
typedef void (*virtio_dev_interrupt_fn)(struct virtio_dev *dev, unsigned int source);

/* What the glue hands every model it creates. */
struct virtio_dev_params {
	const char *name;		/* the guest's, for messages (kept) */
	const struct guest_mem *mem;	/* the guest's RAM (kept) */
	virtio_dev_interrupt_fn interrupt;
	void *ctx;			/* the glue's, kept in dev->ctx */
	text_line_fn sink;		/* where a device's text lines go */
	void *sink_ctx;
	const void *type;		/* the device type's own (struct virtio_vsock_params), or NULL */
};

/*
 * One per device type, constant. Callbacks marked optional may be NULL.
 * Every callback runs under the owner's lock.
 */
struct virtio_dev_ops {
	const char *kind;		/* "virtio-rng", for messages */
	uint16_t device_id;		/* VIRTIO_ID_* (§5) */
	uint16_t queue_size_max;	/* a power of two, at most VIRTQ_MAX_SIZE */
	uint16_t config_size;		/* bytes of device-specific config, <= CONFIG_MAX */
	uint64_t notify_queues;		/* bit per queue the driver must kick on every buffer */
	size_t size;			/* bytes of the model that embeds the virtio_dev */
	/*
	 * Sets up the model at dev in reset state: virtio_dev_init() and its
	 * own parts. Returns NULL, or why the device cannot exist here.
	 */
	const char *(*init)(struct virtio_dev *dev, const struct virtio_dev_params *params);
	/* The queue the transport's index names under the accepted features, or NULL. */
	struct virtq *(*queue)(struct virtio_dev *dev, unsigned int index);
	/* Writes the config_size bytes of the device-specific configuration. */
	void (*config)(const struct virtio_dev *dev, void *bytes);
	/* Optional: rules a feature set must keep beyond the offer (§2.2). */
	bool (*features_ok)(const struct virtio_dev *dev, uint64_t features);
	/* Optional: DRIVER_OK accepted with no queue broken. */
	void (*start)(struct virtio_dev *dev);
	/* Optional: the device broke; stop using the queues. */
	void (*stop)(struct virtio_dev *dev);
	/* Optional: back to reset state, after the core reset every queue. */
	void (*reset)(struct virtio_dev *dev);
	/* A vCPU-served device: the driver notified a queue. */
	void (*kick)(struct virtio_dev *dev, unsigned int queue);
	/*
	 * A sidecore-served device: its port's poll (a pass's transmit side)
	 * and flush (the end of a pass); print_counters is
	 * virtio_dev_port_counters().
	 */
	const struct sidecore_port_ops *port_ops;
	/*
	 * A sidecore-served device: a bit per transport index of the queues
	 * its poll takes from, under the accepted features; each enabled one
	 * is watched. NULL: the port is busy from DRIVER_OK on.
	 */
	uint64_t (*polled_queues)(const struct virtio_dev *dev);
	/*
	 * NULL, or adds the model's own watches to its port's, after its
	 * queues': words others than its driver move, at whose move the
	 * next pass must poll it.
	 */
	void (*watch)(struct virtio_dev *dev);
};

struct virtio_dev {
	const struct virtio_dev_ops *ops;
	const char *name;
	uint64_t offered;		/* VERSION_1 included */
	uint64_t features;		/* accepted; 0 until then */
	uint16_t num_queues;		/* the transport shows as many */
	bool running;			/* DRIVER_OK; atomic */
	bool needs_reset;		/* a rule broken: DEVICE_NEEDS_RESET; atomic */
	virtio_dev_interrupt_fn interrupt;
	void *ctx;			/* the glue's */
	/* The counters hook: the glue's, NULL for none; prints the device's line(s). */
	void (*print_counters)(const struct virtio_dev *dev, unsigned int sidecore);
	/* The live counters hook: the glue's, NULL for none; one "stat:" line read at tsc. */
	void (*print_stat)(const struct virtio_dev *dev, unsigned int sidecore, uint64_t tsc);
	/* The start hook: the glue's, NULL for none; runs once DRIVER_OK started the device. */
	void (*started)(struct virtio_dev *dev);
	struct sidecore_port port;	/* what a sidecore polls; its ops are ops->port_ops */
};

/**
 * virtio_dev_init() - the shared part of a model's init, in reset state
 * @dev: the embedded device; its other fields are lost
 * @ops: the device type's (kept)
 * @params: the glue's; name, interrupt and ctx are kept
 * @offered: the device's features; VERSION_1 is added (§6.1)
 * @num_queues: the queues the transport shows
 *
 * Return: false when @params lacks its memory or interrupt, or the counts
 * break a limit of @ops.
 */
bool virtio_dev_init(struct virtio_dev *dev, const struct virtio_dev_ops *ops,
		     const struct virtio_dev_params *params, uint64_t offered,
		     unsigned int num_queues);

/**
 * virtio_dev_set_features() - take the driver's choice (FEATURES_OK)
 * @dev: the device
 * @features: what the driver accepted
 *
 * Return: false, leaving the accepted set alone, when @features is not a
 * subset of the offer, lacks VERSION_1, or fails the model's own rules.
 */
bool virtio_dev_set_features(struct virtio_dev *dev, uint64_t features);

/**
 * virtio_dev_enable_queue() - the driver enabled a queue (queue_enable = 1)
 * @dev: the device, its features set
 * @queue: the transport's index
 * @layout: size and ring addresses the driver programmed
 *
 * A queue in ops->notify_queues asks for a kick on every buffer.
 *
 * Return: 0, or -1 when no such queue exists under the accepted features
 * or its rings are unusable; the device then needs a reset.
 */
int virtio_dev_enable_queue(struct virtio_dev *dev, unsigned int queue,
			    const struct virtq_layout *layout);

/**
 * virtio_dev_start() - DRIVER_OK: buffers are served from now on
 * @dev: the device
 *
 * Unless the device needs a reset, the model's ops->start and then the
 * glue's start hook run.
 */
void virtio_dev_start(struct virtio_dev *dev);

/**
 * virtio_dev_fail() - the driver broke a rule: DEVICE_NEEDS_RESET
 * @dev: the device
 *
 * The first failure since the last reset stops the model (ops->stop) and
 * raises a configuration change; later ones do nothing.
 */
void virtio_dev_fail(struct virtio_dev *dev);

/**
 * virtio_dev_reset() - the driver wrote 0 to device_status (§2.1.2)
 * @dev: the device; queues, features and failure are forgotten
 */
void virtio_dev_reset(struct virtio_dev *dev);

/**
 * virtio_dev_read_config() - read the device-specific configuration
 * @dev: the device
 * @offset: byte offset into the structure
 * @size: 1, 2 or 4 bytes
 *
 * Return: the little-endian value; bytes past the structure read as 0.
 */
uint32_t virtio_dev_read_config(const struct virtio_dev *dev, unsigned int offset,
				unsigned int size);

/**
 * virtio_dev_queue() - the queue behind a transport index
 * @dev: the device
 * @index: the transport's index
 *
 * Return: the queue under the accepted features, or NULL.
 */
struct virtq *virtio_dev_queue(struct virtio_dev *dev, unsigned int index);

/*
 * A vCPU-served device's work on one chain: the bytes it wrote into the
 * chain's device-writable buffers, or -1 when the chain breaks a rule.
 */
typedef int64_t (*virtio_dev_chain_fn)(struct virtio_dev *dev, const struct virtq_chain *chain);

/**
 * virtio_dev_serve_kick() - a vCPU-served device's answer to a kick of a queue
 * @dev: the device
 * @vq: the queue kicked
 * @serve: what the device does with each chain
 *
 * Nothing happens unless the device is active. Takes at most the queue's
 * size of chains (what is left waits for the next kick), hands each back
 * used with what @serve wrote, then raises the queue's interrupt if the
 * driver asked for one. A chain @serve refuses, or any broken ring rule,
 * fails the device.
 */
void virtio_dev_serve_kick(struct virtio_dev *dev, struct virtq *vq, virtio_dev_chain_fn serve);

/**
 * virtio_dev_port_counters() - a device port's print_counters
 * @port: the port of a struct virtio_dev
 * @sidecore: the serving sidecore's number
 *
 * Runs the glue's counters hook, if it set one.
 */
void virtio_dev_port_counters(const struct sidecore_port *port, unsigned int sidecore);

/**
 * virtio_dev_port_stat() - a device port's print_stat
 * @port: the port of a struct virtio_dev
 * @sidecore: the serving sidecore's number
 * @tsc: the sample's time stamp
 *
 * Runs the glue's stat hook, if it set one.
 */
void virtio_dev_port_stat(const struct sidecore_port *port, unsigned int sidecore, uint64_t tsc);

static inline bool virtio_dev_needs_reset(const struct virtio_dev *dev)
{
	return __atomic_load_n(&dev->needs_reset, __ATOMIC_RELAXED);
}

/* Whether queues may be served: DRIVER_OK and nothing broken. */
static inline bool virtio_dev_active(const struct virtio_dev *dev)
{
	return __atomic_load_n(&dev->running, __ATOMIC_ACQUIRE) && !virtio_dev_needs_reset(dev);
}

static inline bool virtio_dev_has(const struct virtio_dev *dev, unsigned int bit)
{
	return dev->features & 1ull << bit;
}

#endif
