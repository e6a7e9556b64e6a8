/* SPDX-License-Identifier: MIT */
/*
 * ratelimit.h - a token bucket: up to burst events at once, then one more
 * per interval. Time is whatever clock the caller passes (TSC ticks in the
 * hypervisor), so the logic is the same on the host. An event may cost
 * more than one token (ratelimit_take(): bytes, say, at one per interval).
 */
#ifndef SIDECORE_LIB_RATELIMIT_H
#define SIDECORE_LIB_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

struct ratelimit {
	uint64_t interval;		/* ticks per token, at least 1 */
	uint64_t last;			/* tokens are counted up to this time */
	uint64_t suppressed;		/* events refused since the last allowed one */
	uint32_t burst;			/* tokens in a full bucket */
	uint32_t tokens;
};

void ratelimit_init(struct ratelimit *rl, uint32_t burst, uint64_t interval, uint64_t now);
bool ratelimit_allow(struct ratelimit *rl, uint64_t now, uint64_t *suppressed);
uint32_t ratelimit_tokens(struct ratelimit *rl, uint64_t now);
bool ratelimit_take(struct ratelimit *rl, uint64_t now, uint32_t cost);

#endif
