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

/* Queues one port may have watched: a virtio-net device's transmitqs and control queue. */
#define SIDECORE_PORT_WATCHES	9

struct sidecore_port;

/*
 * Every operation but print_stat runs on the sidecore's core with its lock
 * held, the lock that also guards the device against its vCPUs.
 */
struct sidecore_port_ops {
	/*
	 * Moves up to budget packets from the port's transmit side; returns
	 * how many. now: the TSC the pass started at.
	 */
	unsigned int (*poll)(struct sidecore_port *port, unsigned int budget, uint64_t now);
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

/*
 * A word the driver moves when it queues work, and the device's copy of
 * where it stands: while they differ the queue may hold work.
 */
struct sidecore_watch {
	const uint16_t *idx;	/* in guest memory: the driver may change it any time */
	const uint16_t *seen;	/* the device's */
};

/*
 * The hint (docs/data-path.md, "Idle ports"), kept by what implements the
 * port under the sidecore's lock: a pass polls a live port only while it is
 * busy or a watch moved, and flushes it only while it is dirty or once its
 * deadline is due. The hint only saves work; poll and flush check
 * everything as if it were not there.
 */
struct sidecore_port {
	const struct sidecore_port_ops *ops;
	bool live;		/* may get work: with none live the sidecore halts */
	bool busy;		/* has work of its own, beside its watched queues */
	bool dirty;		/* has something to publish */
	uint64_t deadline;	/* 0, or the TSC from which on it is flushed, dirty or not */
	unsigned int watches;
	struct sidecore_watch watch[SIDECORE_PORT_WATCHES];
};

/**
 * sidecore_port_ready() - whether a pass should poll a live port
 * @port: the port
 *
 * Return: true when it is busy or the driver moved a watched word.
 */
static inline bool sidecore_port_ready(const struct sidecore_port *port)
{
	if (port->busy)
		return true;
	for (unsigned int i = 0; i < port->watches; i++)
		if (__atomic_load_n(port->watch[i].idx, __ATOMIC_RELAXED) != *port->watch[i].seen)
			return true;
	return false;
}

#endif
