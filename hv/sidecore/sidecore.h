/* SPDX-License-Identifier: MIT */
/*
 * sidecore.h - the polling cores. Each serves the ports attached to it
 * (port.h) without VM exits: it polls their transmit sides, forwards through
 * the switch (directly to a port it owns, or through an SPSC ring to the
 * sidecore that owns the destination) and drains the rings other sidecores
 * fill for it (docs/data-path.md).
 */
#ifndef SIDECORE_SIDECORE_SIDECORE_H
#define SIDECORE_SIDECORE_SIDECORE_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/spinlock.h"
#include "config/config_limits.h"
#include "net/fair.h"
#include "net/net.h"
#include "sidecore/port.h"

/* One sidecore may serve every guest's NIC and vsock device. */
#define SIDECORE_MAX_PORTS	(2 * LIMIT_GUESTS)
#define SIDECORE_BATCH		32	/* packets per port per poll (docs/data-path.md) */
#define SIDECORE_QUANTUM	8	/* packets per port per turn within a poll */
/*
 * Bytes copied and segments walked per port per poll, beside its packets
 * (docs/data-path.md, "Budgets in bytes"): two of the largest frames, and
 * half the segments 32 packets may have.
 */
#define SIDECORE_BYTES		(2 * NET_FRAME_MAX)
#define SIDECORE_SEGMENTS	(SIDECORE_BATCH * NET_PACKET_MAX_SEGMENTS / 2)

/* Full-size frames without GSO, sent and received, meet the packet budget first. */
_Static_assert(SIDECORE_BATCH * (ETH_HLEN + NET_VLAN_HLEN + NET_MTU) < SIDECORE_BYTES,
	       "the byte budget would cut a pass of full-size frames short");
_Static_assert(2 * NET_PACKET_MAX_SEGMENTS <= SIDECORE_SEGMENTS,
	       "a frame of the most segments, sent and received, must fit a poll");
/* How long a transmit completion may wait for company (docs/data-path.md). */
#define SIDECORE_TX_HOLDOFF_US	1000
/* Samples per second of the sidecore's profile (docs/data-path.md "Profile"). */
#define SIDECORE_PROFILE_HZ	2000

struct profile;

/*
 * The hop latency of passes that moved packets (docs/data-path.md, "Hop
 * latency"), each figure counted once per packet the pass moved: a packet
 * the pass saw was published (its used index and interrupt) pass TSC
 * ticks after the pass began, and had waited since the previous pass's
 * look, about half of interval on average.
 */
struct sidecore_hop {
	uint64_t packets;
	uint64_t pass_sum, pass_max;		/* the pass's start to the end of its flush */
	uint64_t interval_sum, interval_max;	/* the previous pass's start to this one's */
};

struct sidecore {
	unsigned int index;		/* the switch's sidecore number */
	unsigned int cpu;
	struct net_switch *sw;		/* the machine's switch */
	uint64_t tx_holdoff;		/* SIDECORE_TX_HOLDOFF_US in TSC ticks */
	/*
	 * Held for each poll pass: it guards every attached port's device,
	 * which a vCPU takes it to reconfigure (port.h).
	 */
	struct spinlock lock;
	struct sidecore_port *port[SIDECORE_MAX_PORTS];
	unsigned int port_count;
	unsigned int next_source;	/* served first in the next pass */
	struct net_meter credit[SIDECORE_MAX_PORTS + 1];	/* per pass source (net/fair.h) */
	uint64_t credit_full[NET_FAIR_WORDS];	/* the sources whose credit is whole */
	uint64_t busy_tsc;		/* TSC ticks in passes that moved packets */
	uint64_t pass_start;		/* the TSC the latest pass began at, 0 before the first */
	struct sidecore_hop hop;
	struct profile *profile;	/* on the sidecore's node; NULL if none was free */
};

/**
 * sidecore_setup() - one struct sidecore per online CPU whose role is SIDECORE
 *
 * Also sets up the machine's switch and a ring from every sidecore to every
 * other, each on the node of the sidecore that reads it. A core beyond
 * NET_MAX_SIDECORES goes back to idle, so it never enters the poll loop.
 */
void sidecore_setup(void);

/**
 * sidecore_of_cpu() - the sidecore a core runs
 * @cpu: topology CPU number
 *
 * Return: the sidecore, or NULL if the core runs none or sidecore_setup()
 * has not run.
 */
struct sidecore *sidecore_of_cpu(unsigned int cpu);

/**
 * sidecore_by_index() - a sidecore by its switch number
 * @index: 0 for the first sidecore sidecore_setup() made
 *
 * Return: the sidecore, or NULL when there are not that many.
 */
struct sidecore *sidecore_by_index(unsigned int index);

/**
 * sidecore_attach() - adds a port to the ports a sidecore polls
 * @sc: the sidecore
 * @port: the device's port, live or not
 *
 * Return: false when the sidecore already serves SIDECORE_MAX_PORTS.
 */
bool sidecore_attach(struct sidecore *sc, struct sidecore_port *port);

/**
 * sidecore_detach() - takes a port out of a sidecore's loop before it polls
 * @sc: the sidecore, not yet polling (a guest whose creation failed)
 * @port: the port; nothing happens if @sc does not serve it
 */
void sidecore_detach(struct sidecore *sc, struct sidecore_port *port);

/**
 * sidecore_wake() - a port of @sc went live: leave HLT if idling there
 * @sc: the sidecore
 *
 * Callable from any core, with or without @sc's lock.
 */
void sidecore_wake(struct sidecore *sc);

/**
 * sidecore_poll_pass() - one fair pass over a sidecore's ports and rings
 * @sc: the sidecore, its lock held
 * @live: set when a port was live
 * @batches: set to how many sources moved packets
 *
 * Each live port whose hint says it may have work (sidecore_port_ready()),
 * and the rings from other sidecores together if a packet waits there,
 * move up to SIDECORE_BATCH packets in turns of SIDECORE_QUANTUM, and
 * start none once the copies they caused took SIDECORE_BYTES or
 * SIDECORE_SEGMENTS (a debt is paid in the passes after). A port is polled
 * at the clock net_switch_set_now() gave the pass.
 *
 * Return: packets moved.
 */
unsigned int sidecore_poll_pass(struct sidecore *sc, bool *live, unsigned int *batches);

/**
 * sidecore_flush_ports() - publishes what a pass delivered, once per pass
 * @sc: the sidecore, its lock held; only its dirty ports, and those whose
 *	deadline is due, are flushed
 * @now: the TSC after the pass
 */
void sidecore_flush_ports(struct sidecore *sc, uint64_t now);

/**
 * sidecore_poll() - one pass under the sidecore's lock, published at its end
 * @sc: the sidecore, on its own core (or a host program's thread standing in)
 * @live: set when a port was live
 *
 * Hands the switch the TSC, runs sidecore_poll_pass() and
 * sidecore_flush_ports() at that TSC, adds the pass's TSC ticks to
 * @sc->busy_tsc and @sc->hop when it moved packets and counts it in the
 * switch's sidecore statistics. One more TSC read ends a pass that moved
 * packets; an idle pass reads the TSC once.
 *
 * Return: packets moved.
 */
unsigned int sidecore_poll(struct sidecore *sc, bool *live);

/**
 * sidecore_run() - the calling core's poll loop; never returns
 * @sc: the sidecore of the calling core
 *
 * Passes run back to back while a port is live or, on the console's
 * drainer, output waits; otherwise the core halts until an interrupt
 * (sidecore_wake(), a console line to drain, its profile timer).
 */
void sidecore_run(struct sidecore *sc) __attribute__((noreturn));

/**
 * sidecore_print_counters() - print every sidecore's and port's counters
 *
 * Machine-readable "counters:" lines: each sidecore's polls, packets and
 * busy time, its profile's hit buckets, then each attached port's own.
 */
void sidecore_print_counters(void);

/**
 * sidecore_print_stat() - print one sidecore's "stat:" line
 * @index: the sidecore's switch number
 *
 * Its busy TSC time and packets, read without its lock (docs/operator.md,
 * "Live counters").
 *
 * Return: false, printing nothing, when there is no such sidecore.
 */
bool sidecore_print_stat(unsigned int index);

/**
 * sidecore_print_port_stat() - print one attached port's "stat:" line
 * @index: the sidecore's switch number
 * @port: the port's place among the sidecore's
 *
 * A port without a stat line prints nothing.
 *
 * Return: false when there is no such sidecore or port.
 */
bool sidecore_print_port_stat(unsigned int index, unsigned int port);

#endif
