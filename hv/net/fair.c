/* SPDX-License-Identifier: MIT */
/*
 * fair.c - turns between packet sources within one poll pass.
 */
#include <stdbool.h>

#include "net/fair.h"

static unsigned int fair_min(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

static bool fair_is_full(const struct net_meter *credit, const struct net_meter *share)
{
	return credit->bytes >= share->bytes && credit->segments >= share->segments;
}

/* Gains a pass's share of credit, never more than one share in all. */
static void fair_refill(struct net_meter *credit, const struct net_meter *share)
{
	credit->bytes = credit->bytes + share->bytes < share->bytes ?
			credit->bytes + share->bytes : share->bytes;
	credit->segments = credit->segments + share->segments < share->segments ?
			   credit->segments + share->segments : share->segments;
}

/* Refills the sources whose credit is not whole, and marks those it makes so. */
static void fair_refill_spent(const struct net_fair_pass *pass, unsigned int sources)
{
	for (unsigned int w = 0; w * 64 < sources; w++) {
		uint64_t spent = ~pass->full[w];

		if (sources - w * 64 < 64)
			spent &= (1ull << (sources - w * 64)) - 1;
		for (; spent; spent &= spent - 1) {
			unsigned int i = w * 64 + (unsigned int)__builtin_ctzll(spent);

			fair_refill(&pass->credit[i], &pass->share);
			if (fair_is_full(&pass->credit[i], &pass->share))
				pass->full[w] |= 1ull << (i % 64);
		}
	}
}

/* One turn of source i: up to want packets, on its credit when metered. */
static unsigned int fair_turn(const struct net_fair_pass *pass, unsigned int i,
			      unsigned int want, bool *spent)
{
	unsigned int n;

	if (!pass->meter)
		return fair_min(pass->poll(pass->ctx, i, want), want);
	*pass->meter = pass->credit[i];
	if (net_meter_spent(pass->meter))
		want = 0;
	n = fair_min(pass->poll(pass->ctx, i, want), want);
	pass->credit[i] = *pass->meter;
	if (!fair_is_full(pass->meter, &pass->share))
		pass->full[i / 64] &= ~(1ull << (i % 64));
	*spent = net_meter_spent(pass->meter);
	return n;
}

/*
 * Marks the sources that take turns in this pass, those in pass->ready, and
 * starts their counts; the others are not looked at again. Returns how many.
 */
static unsigned int fair_enter(const struct net_fair_pass *pass, unsigned int sources,
			       uint64_t *left, unsigned int *moved_by)
{
	unsigned int entered = 0;

	for (unsigned int w = 0; w * 64 < sources; w++) {
		uint64_t in = pass->ready ? pass->ready[w] : ~0ull;

		if (sources - w * 64 < 64)
			in &= (1ull << (sources - w * 64)) - 1;
		left[w] = in;
		for (; in; in &= in - 1) {
			moved_by[w * 64 + (unsigned int)__builtin_ctzll(in)] = 0;
			entered++;
		}
	}
	return entered;
}

/*
 * The pass of a lone source: its turns follow each other with no one to
 * wait for, as the loop of net_fair_run() would take them, without its walk
 * over the sources between turns.
 */
static unsigned int fair_alone(const struct net_fair_pass *pass, unsigned int i)
{
	unsigned int limit = fair_min(pass->budget, pass->total), moved = 0;

	while (moved < limit) {
		unsigned int want = fair_min(pass->quantum, limit - moved), n;
		bool spent = false;

		n = fair_turn(pass, i, want, &spent);
		moved += n;
		if (n < want || spent)
			break;
	}
	return moved;
}

unsigned int net_fair_run(const struct net_fair_pass *pass, unsigned int *start,
			  unsigned int *batches)
{
	unsigned int sources = fair_min(pass->sources, NET_FAIR_MAX_SOURCES);
	unsigned int moved_by[NET_FAIR_MAX_SOURCES];	/* kept for the sources in left */
	uint64_t left[NET_FAIR_WORDS];			/* a bit per source still taking turns */
	unsigned int first, live, moved = 0;

	*batches = 0;
	if (!sources || !pass->quantum)
		return 0;
	first = *start % sources;
	*start = (first + 1) % sources;
	if (pass->meter)
		fair_refill_spent(pass, sources);
	live = fair_enter(pass, sources, left, moved_by);
	if (live == 1) {
		unsigned int w = 0;

		while (!left[w])
			w++;
		moved = fair_alone(pass, w * 64 + (unsigned int)__builtin_ctzll(left[w]));
		*batches = moved != 0;
		live = 0;
	}
	while (live && moved < pass->total) {
		for (unsigned int k = 0; k < sources && moved < pass->total; k++) {
			unsigned int i = (first + k) % sources, want, n;
			bool spent = false;

			if (!(left[i / 64] & 1ull << (i % 64)))
				continue;
			want = fair_min(fair_min(pass->quantum, pass->budget - moved_by[i]),
					pass->total - moved);
			n = fair_turn(pass, i, want, &spent);
			*batches += n && !moved_by[i];
			moved_by[i] += n;
			moved += n;
			if (n < want || moved_by[i] == pass->budget || spent) {
				left[i / 64] &= ~(1ull << (i % 64));
				live--;
			}
		}
	}
	if (pass->meter)
		*pass->meter = NET_METER_UNLIMITED;
	return moved;
}
