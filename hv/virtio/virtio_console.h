/* SPDX-License-Identifier: MIT */
/*
 * virtio_console.h - a guest's console as a virtio device (virtio 1.1
 * §5.3): one port, no multiport and no size, receiveq 0 and transmitq 1.
 * What the guest transmits becomes lines for a sink, as the UART's output
 * does; nothing is received.
 *
 * The device is served where the guest kicks it, on the kicking vCPU's
 * core: output is rare, and a guest that floods its console pays with its
 * own exits while no sidecore sees it (docs/guest-platform.md, "Console").
 * The receiveq asks for no kicks, so the buffers a driver posts there cost
 * no exit either.
 *
 * Nothing here locks: the owner serialises every call, transport and
 * device alike (hv/guest/guest_console.c).
 */
#ifndef SIDECORE_VIRTIO_VIRTIO_CONSOLE_H
#define SIDECORE_VIRTIO_VIRTIO_CONSOLE_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_console.h>

#include "lib/text_line.h"
#include "virtio/guest_mem.h"
#include "virtio/virtq.h"

#define VIRTIO_CONSOLE_RX_QUEUE		0
#define VIRTIO_CONSOLE_TX_QUEUE		1
#define VIRTIO_CONSOLE_QUEUES		2
/*
 * Bytes of one transmit chain that reach the console; the rest is counted.
 * Linux sends at most a page at a time (hvc's output buffer), and the cap
 * bounds the work one kick can ask of the kicking core.
 */
#define VIRTIO_CONSOLE_CHAIN_MAX	4096

struct virtio_console;

/* A used-buffer interrupt for queue is due. */
typedef void (*virtio_console_interrupt_fn)(struct virtio_console *dev, unsigned int queue);

struct virtio_console_stats {
	uint64_t tx_chains;	/* transmit chains used */
	uint64_t tx_bytes;	/* bytes that reached the sink */
	uint64_t tx_truncated;	/* bytes beyond VIRTIO_CONSOLE_CHAIN_MAX, dropped */
};

struct virtio_console {
	struct virtq queue[VIRTIO_CONSOLE_QUEUES];
	virtio_console_interrupt_fn interrupt;
	void *ctx;		/* the integrator's */
	const char *name;
	bool running;		/* DRIVER_OK */
	bool needs_reset;	/* the driver broke a rule: DEVICE_NEEDS_RESET */
	struct virtio_console_stats stats;
	struct text_line out;	/* last: in host tests an overrun hits a redzone */
};

/**
 * virtio_console_init() - set up a device in reset state
 * @dev: the device; its old contents are lost
 * @name: the guest's name, for messages (kept)
 * @mem: the guest's RAM, which every ring and buffer must lie in
 * @sink: receives each line the guest transmits
 * @sink_ctx: passed to @sink
 * @interrupt: raises a queue's used-buffer interrupt
 * @ctx: kept in @dev->ctx for @interrupt
 */
void virtio_console_init(struct virtio_console *dev, const char *name,
			 const struct guest_mem *mem, text_line_fn sink, void *sink_ctx,
			 virtio_console_interrupt_fn interrupt, void *ctx);

/**
 * virtio_console_read_config() - the device-specific configuration (§5.3.4)
 * @dev: the device
 * @offset: byte offset into struct virtio_console_config
 * @size: 1, 2 or 4 bytes
 *
 * Return: no size (cols and rows 0) and one port; 0 outside the structure.
 */
uint32_t virtio_console_read_config(const struct virtio_console *dev, unsigned int offset,
				    unsigned int size);

/**
 * virtio_console_enable_queue() - start a queue the driver laid out
 * @dev: the device
 * @queue: VIRTIO_CONSOLE_RX_QUEUE or VIRTIO_CONSOLE_TX_QUEUE
 * @layout: the rings as programmed
 * @features: the features the driver accepted
 *
 * The transmitq asks for a kick on every buffer; the receiveq for none.
 *
 * Return: 0, or -1 when the rings are unusable (the device needs a reset).
 */
int virtio_console_enable_queue(struct virtio_console *dev, unsigned int queue,
				const struct virtq_layout *layout, uint64_t features);

/**
 * virtio_console_start() - DRIVER_OK: transmit buffers are served from now on
 * @dev: the device, its queues enabled
 */
void virtio_console_start(struct virtio_console *dev);

/**
 * virtio_console_kick() - the driver notified a queue
 * @dev: the device
 * @queue: the queue it named
 *
 * For the transmitq, sends what is queued to the sink and hands the buffers
 * back, at most the queue's size of them (what is left waits for the next
 * kick), then raises the interrupt if the driver asked for one. A chain
 * with a device-writable buffer, or any broken ring rule, marks the device
 * as needing a reset.
 */
void virtio_console_kick(struct virtio_console *dev, unsigned int queue);

/**
 * virtio_console_reset() - back to reset state (§2.1.2), as after init
 * @dev: the device
 *
 * A partial line goes to the sink first, so nothing the guest printed is lost.
 */
void virtio_console_reset(struct virtio_console *dev);

static inline bool virtio_console_needs_reset(const struct virtio_console *dev)
{
	return dev->needs_reset;
}

#endif
