/* SPDX-License-Identifier: MIT */
/*
 * fair.h - one fair pass over the packet sources a sidecore serves.
 *
 * A source is a guest's transmit queue or the rings from other sidecores.
 * The pass takes turns: each source in order moves up to a quantum of
 * packets, round after round, until it has moved its budget or runs dry,
 * so a flooding source cannot fill a shared receiver before the others had
 * a turn. The first source of a pass rotates from pass to pass, so no
 * source is always served first.
 *
 * Beside packets, a pass may count the work they cause: the bytes copied
 * and the segments walked, on a meter the copying code charges. Each source
 * has a credit of its own; it starts a packet only while its credit is left,
 * and what a last packet overdraws is owed from the passes after
 * (docs/data-path.md, "Budgets in bytes").
 */
#ifndef SIDECORE_NET_FAIR_H
#define SIDECORE_NET_FAIR_H

#include "net/net.h"

/* The ports of one sidecore and the rings as one more source. */
#define NET_FAIR_MAX_SOURCES	(NET_MAX_PORTS + 1)

/* Words of a bit per source. */
#define NET_FAIR_WORDS		((NET_FAIR_MAX_SOURCES + 63) / 64)

/* Moves up to max packets from source; returns how many (fewer: it ran dry). */
typedef unsigned int (*net_fair_poll_fn)(void *ctx, unsigned int source, unsigned int max);

struct net_fair_pass {
	unsigned int sources;	/* how many, at most NET_FAIR_MAX_SOURCES */
	unsigned int quantum;	/* packets one source moves per turn, at least 1 */
	unsigned int budget;	/* packets one source moves per pass */
	unsigned int total;	/* packets the whole pass moves */
	net_fair_poll_fn poll;
	void *ctx;		/* the poll function's */
	/*
	 * NULL, or the meter the sources' work is charged to: for each turn it
	 * holds the source's credit, and net_meter_spent() ends the turn. Left
	 * NET_METER_UNLIMITED after the pass.
	 */
	struct net_meter *meter;
	struct net_meter *credit;	/* per source, kept from pass to pass; with meter */
	/*
	 * With meter, NET_FAIR_WORDS words kept with credit: a source's bit is
	 * set while its credit is a whole share, so a pass refills only those
	 * that spent, and an idle pass none. All clear: every credit refills.
	 */
	uint64_t *full;
	struct net_meter share;		/* the credit one source gains per pass */
	/*
	 * NULL, or NET_FAIR_WORDS words: a bit per source that may have work.
	 * Only those take turns; the others cost the pass nothing.
	 */
	const uint64_t *ready;
};

/**
 * net_fair_run() - one pass over the sources, taking turns.
 * @pass: the sources and their limits
 * @start: the source that goes first; moved on by one for the next pass
 * @batches: set to how many sources moved packets
 *
 * With a meter, each source's credit grows by the share, to at most the
 * share (only sources not marked full are looked at); a source whose
 * credit is spent is called once with max 0 (it may note that it has
 * work) and moves nothing until its debt is paid.
 *
 * With @pass->ready, only the sources it marks take turns, in the same
 * order; with none marked the pass moves nothing and polls no source.
 *
 * Return: packets moved, at most @pass->total.
 */
unsigned int net_fair_run(const struct net_fair_pass *pass, unsigned int *start,
			  unsigned int *batches);

#endif
