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

unsigned int sidecore_poll_pass(struct sidecore *sc, bool *live, unsigned int *batches)
{
	struct sidecore_pass ctx = { sc, net_switch_now(sc->sw, sc->index) };
	uint64_t ready[NET_FAIR_WORDS] = { 0 };
	struct net_fair_pass pass = {
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

	sidecore_ready(sc, ready, live);
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

unsigned int sidecore_poll(struct sidecore *sc, bool *live)
{
	uint64_t start = rdtsc();
	unsigned int moved, batches;

	spin_lock(&sc->lock);
	net_switch_set_now(sc->sw, sc->index, start);
	moved = sidecore_poll_pass(sc, live, &batches);
	sidecore_flush_ports(sc, rdtsc());
	spin_unlock(&sc->lock);
	if (moved)
		sc->busy_tsc += rdtsc() - start;
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
