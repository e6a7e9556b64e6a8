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
	while (live && moved < pass->total) {
		for (unsigned int k = 0; k < sources && moved < pass->total; k++) {
			unsigned int i = (first + k) % sources, want, n;

			if (finished[i])
				continue;
			want = fair_min(fair_min(pass->quantum, pass->budget - moved_by[i]),
					pass->total - moved);
			n = fair_min(pass->poll(pass->ctx, i, want), want);
			*batches += n && !moved_by[i];
			moved_by[i] += n;
			moved += n;
			if (n < want || moved_by[i] == pass->budget) {
				finished[i] = true;
				live--;
			}
		}
	}
	return moved;
}
