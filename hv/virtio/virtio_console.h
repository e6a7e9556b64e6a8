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
 * device alike (hv/guest/guest_virtio.c).
 */
#ifndef SIDECORE_VIRTIO_VIRTIO_CONSOLE_H
#define SIDECORE_VIRTIO_VIRTIO_CONSOLE_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_console.h>

#include "lib/text_line.h"
#include "virtio/virtio_dev.h"
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

struct virtio_console_stats {
	uint64_t tx_chains;	/* transmit chains used */
	uint64_t tx_bytes;	/* bytes that reached the sink */
	uint64_t tx_truncated;	/* bytes beyond VIRTIO_CONSOLE_CHAIN_MAX, dropped */
};

struct virtio_console {
	struct virtio_dev vdev;		/* first: the glue allocates the model through it */
	struct virtq queue[VIRTIO_CONSOLE_QUEUES];
	struct virtio_console_stats stats;
	struct text_line out;	/* last: in host tests an overrun hits a redzone */
};

/*
 * The console's type for the device core and the glue: the transmitq asks
 * for a kick on every buffer, the receiveq for none. Its kick sends what
 * is queued on the transmitq to the sink and hands the buffers back, at
 * most the queue's size of them (what is left waits for the next kick),
 * then raises the interrupt if the driver asked for one; a chain with a
 * device-writable buffer, or any broken ring rule, fails the device. A
 * reset sends a partial line to the sink first, so nothing the guest
 * printed is lost.
 */
extern const struct virtio_dev_ops virtio_console_ops;

#endif
