/* SPDX-License-Identifier: MIT */
/*
 * sidecore.h - the polling cores. Each serves the virtio-net devices of the
 * guests placed on it, without VM exits: it polls their transmit queues,
 * forwards through the switch (directly to a port it owns, or through an
 * SPSC ring to the sidecore that owns the destination) and drains the rings
 * other sidecores fill for it.
 */
#ifndef SIDECORE_CORE_SIDECORE_H
#define SIDECORE_CORE_SIDECORE_H

#include <stdbool.h>

#include "arch/spinlock.h"
#include "net/net.h"

#define SIDECORE_MAX_PORTS	LIMIT_GUESTS	/* one sidecore may serve every guest */
#define SIDECORE_BATCH		32	/* packets per queue per poll (docs/data-path.md) */
#define SIDECORE_QUANTUM	8	/* packets per queue per turn within a poll */
/* How long a transmit completion may wait for company (docs/data-path.md). */
#define SIDECORE_TX_HOLDOFF_US	1000
/* Samples per second of the sidecore's profile (docs/data-path.md "Profile"). */
#define SIDECORE_PROFILE_HZ	2000

struct guest_net;
struct guest_net_sidecore;
struct profile;

struct sidecore {
	unsigned int index;		/* the switch's sidecore number */
	unsigned int cpu;
	/* Held for each poll pass; a vCPU takes it to reconfigure a device. */
	struct spinlock lock;
	struct guest_net *port[SIDECORE_MAX_PORTS];
	unsigned int port_count;
	unsigned int next_source;	/* served first in the next pass */
	uint64_t busy_tsc;		/* TSC ticks in passes that moved packets */
	struct profile *profile;	/* on the sidecore's node; NULL if none was free */
};

/* One struct sidecore per CPU whose role is SIDECORE, and the rings between them. */
void sidecore_setup(void);
struct sidecore *sidecore_of_cpu(unsigned int cpu);
void sidecore_describe(struct sidecore *sc, struct guest_net_sidecore *out);
bool sidecore_attach(struct sidecore *sc, struct guest_net *gn);
/* The calling core's poll loop; never returns. */
void sidecore_run(struct sidecore *sc) __attribute__((noreturn));
/* Sidecore and port counters, machine-readable lines. */
void sidecore_print_counters(void);

#endif
