/* SPDX-License-Identifier: MIT */
/*
 * port.h - what a sidecore serves. A device whose queues a sidecore polls
 * (a guest's virtio-net and virtio-vsock devices; NIC queue pairs alike)
 * embeds a struct sidecore_port and hands it to sidecore_attach(); the poll
 * loop knows nothing else of it (docs/data-path.md, "Ports").
 */
#ifndef SIDECORE_SIDECORE_PORT_H
#define SIDECORE_SIDECORE_PORT_H

#include <stdbool.h>
#include <stdint.h>

struct sidecore_port;

/*
 * Every operation but print_stat runs on the sidecore's core with its lock
 * held, the lock that also guards the device against its vCPUs.
 */
struct sidecore_port_ops {
	/* Whether the port has work a pass should look for (driver ready, not broken). */
	bool (*live)(const struct sidecore_port *port);
	/* Moves up to budget packets from the port's transmit side; returns how many. */
	unsigned int (*poll)(struct sidecore_port *port, unsigned int budget);
	/* After a pass at TSC now: publishes what the pass delivered, interrupts included. */
	void (*flush)(struct sidecore_port *port, uint64_t now);
	/* Prints the port's counters line(s), tagged with the serving sidecore's number. */
	void (*print_counters)(const struct sidecore_port *port, unsigned int sidecore);
	/*
	 * Prints the port's one "stat:" line (docs/operator.md), its counters
	 * read at TSC tsc; NULL for none. Runs on the console's drainer without
	 * the lock, reading what the pass writes, as print_counters may.
	 */
	void (*print_stat)(const struct sidecore_port *port, unsigned int sidecore, uint64_t tsc);
};

struct sidecore_port {
	const struct sidecore_port_ops *ops;
};

#endif
