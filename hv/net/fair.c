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

/* Gains a pass's share of credit, never more than one share in all. */
static void fair_refill(struct net_meter *credit, const struct net_meter *share)
{
	credit->bytes = credit->bytes + share->bytes < share->bytes ?
			credit->bytes + share->bytes : share->bytes;
	credit->segments = credit->segments + share->segments < share->segments ?
			   credit->segments + share->segments : share->segments;
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
	*spent = net_meter_spent(pass->meter);
	return n;
}

unsigned int net_fair_run(const struct net_fair_pass *pass, unsigned int *start,
			  unsigned int *batches)
{
	unsigned int sources = fair_min(pass->sources, NET_FAIR_MAX_SOURCES);
	unsigned int moved_by[NET_FAIR_MAX_SOURCES] = { 0 };
	bool finished[NET_FAIR_MAX_SOURCES] = { false };
	unsigned int first, live = sources, moved = 0;

	*batches = 0;
	if (!sources || !pass->quantum)
		return 0;
	first = *start % sources;
	*start = (first + 1) % sources;
	for (unsigned int i = 0; pass->meter && i < sources; i++)
		fair_refill(&pass->credit[i], &pass->share);
	while (live && moved < pass->total) {
		for (unsigned int k = 0; k < sources && moved < pass->total; k++) {
			unsigned int i = (first + k) % sources, want, n;
			bool spent = false;

			if (finished[i])
				continue;
			want = fair_min(fair_min(pass->quantum, pass->budget - moved_by[i]),
					pass->total - moved);
			n = fair_turn(pass, i, want, &spent);
			*batches += n && !moved_by[i];
			moved_by[i] += n;
			moved += n;
			if (n < want || moved_by[i] == pass->budget || spent) {
				finished[i] = true;
				live--;
			}
		}
	}
	if (pass->meter)
		*pass->meter = NET_METER_UNLIMITED;
	return moved;
}
