/* SPDX-License-Identifier: MIT */
/*
 * poll.c - a sidecore's pass over its ports and rings, apart from the core
 * it runs on, so that host tests drive it with ports of their own and
 * tools/dpbench runs it on the host's CPU (docs/data-path.md).
 */
#include "cpu/io.h"
#include "lib/ptr_array.h"
#include "net/fair.h"
#include "sidecore/sidecore.h"

/* A pass serves every port and, as one more source, the rings. */
_Static_assert(SIDECORE_MAX_PORTS + 1 <= NET_FAIR_MAX_SOURCES, "a pass has too few sources");

struct sidecore_pass {
	struct sidecore *sc;
	uint64_t now;
};

/* net_fair_poll_fn: sources 0..port_count-1 are the ports, the last the rings. */
static unsigned int sidecore_poll_source(void *ctx, unsigned int source, unsigned int max)
{
	const struct sidecore_pass *pass = ctx;
	struct sidecore *sc = pass->sc;
	struct sidecore_port *port;

	if (source == sc->port_count)
		return net_switch_poll_rings(sc->sw, sc->index, max);
	port = sc->port[source];
	/* A turn earlier in the pass may have broken the device. */
	if (!port->live)
		return 0;
	return port->ops->poll(port, max, pass->now);
}

/*
 * Marks the sources that may have work: live ports whose hint says so
 * (port.h), and the rings if one holds a packet. Sets *live for any live
 * port, ready or not.
 */
static void sidecore_ready(struct sidecore *sc, uint64_t *ready, bool *live)
{
	for (unsigned int i = 0; i < sc->port_count; i++) {
		const struct sidecore_port *port = sc->port[i];

		if (!port->live)
			continue;
		*live = true;
		if (sidecore_port_ready(port))
			ready[i / 64] |= 1ull << (i % 64);
	}
	if (net_switch_rings_pending(sc->sw, sc->index))
		ready[sc->port_count / 64] |= 1ull << (sc->port_count % 64);
}

/*
 * Whether the pass has nothing to do: no source ready and every credit
 * whole, so net_fair_run() would refill none and poll none. It would still
 * move the first source on, and so does this.
 */
static bool sidecore_rests(struct sidecore *sc, const uint64_t *ready)
{
	unsigned int sources = sc->port_count + 1;

	for (unsigned int w = 0; w * 64 < sources; w++) {
		uint64_t all = sources - w * 64 < 64 ? (1ull << (sources - w * 64)) - 1 : ~0ull;

		if (ready[w] || (sc->credit_full[w] & all) != all)
			return false;
	}
	sc->next_source = (sc->next_source + 1) % sources;
	return true;
}

unsigned int sidecore_poll_pass(struct sidecore *sc, bool *live, unsigned int *batches)
{
	struct sidecore_pass ctx = { sc, net_switch_now(sc->sw, sc->index) };
	uint64_t ready[NET_FAIR_WORDS] = { 0 };
	struct net_fair_pass pass;

	sidecore_ready(sc, ready, live);
	if (sidecore_rests(sc, ready)) {
		*batches = 0;
		return 0;
	}
	pass = (struct net_fair_pass){
		.sources = sc->port_count + 1,
		.quantum = SIDECORE_QUANTUM,
		.budget = SIDECORE_BATCH,
		.total = (sc->port_count + 1) * SIDECORE_BATCH,
		.poll = sidecore_poll_source,
		.ctx = &ctx,
		.meter = net_switch_meter(sc->sw, sc->index),
		.credit = sc->credit,
		.full = sc->credit_full,
		.share = { SIDECORE_BYTES, SIDECORE_SEGMENTS },
		.ready = ready,
	};
	return net_fair_run(&pass, &sc->next_source, batches);
}

void sidecore_flush_ports(struct sidecore *sc, uint64_t now)
{
	for (unsigned int i = 0; i < sc->port_count; i++) {
		struct sidecore_port *port = sc->port[i];

		if (port->dirty || (port->deadline && now >= port->deadline))
			port->ops->flush(port, now);
	}
}

/* A pass that moved packets, each of which it published pass ticks after it began. */
static void sidecore_hop_note(struct sidecore_hop *hop, unsigned int packets, uint64_t pass,
			      uint64_t interval)
{
	hop->packets += packets;
	hop->pass_sum += pass * packets;
	hop->interval_sum += interval * packets;
	if (pass > hop->pass_max)
		hop->pass_max = pass;
	if (interval > hop->interval_max)
		hop->interval_max = interval;
}

unsigned int sidecore_poll(struct sidecore *sc, bool *live)
{
	uint64_t start = rdtsc(), end;
	uint64_t interval = sc->pass_start ? start - sc->pass_start : 0;
	unsigned int moved, batches;

	spin_lock(&sc->lock);
	net_switch_set_now(sc->sw, sc->index, start);
	moved = sidecore_poll_pass(sc, live, &batches);
	/*
	 * Deadlines are judged at the pass's start: one a pass's work crossed
	 * waits for the next pass, and the flush reads no clock of its own.
	 */
	sidecore_flush_ports(sc, start);
	spin_unlock(&sc->lock);
	sc->pass_start = start;
	if (moved) {
		end = rdtsc();
		sc->busy_tsc += end - start;
		sidecore_hop_note(&sc->hop, moved, end - start, interval);
	}
	net_switch_account_poll(sc->sw, sc->index, batches, moved);
	return moved;
}

bool sidecore_attach(struct sidecore *sc, struct sidecore_port *port)
{
	if (sc->port_count == SIDECORE_MAX_PORTS)
		return false;
	sc->port[sc->port_count++] = port;
	return true;
}

void sidecore_detach(struct sidecore *sc, struct sidecore_port *port)
{
	ptr_array_remove(sc->port, &sc->port_count, port);
}
