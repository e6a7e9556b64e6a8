/* SPDX-License-Identifier: MIT */
/* ratelimit.c - the token bucket of ratelimit.h. */
#include "lib/ratelimit.h"

/**
 * ratelimit_init() - start with a full bucket.
 * @rl: the bucket.
 * @burst: events allowed at once.
 * @interval: ticks it takes to earn one more event (0 counts as 1).
 * @now: the current time.
 */
void ratelimit_init(struct ratelimit *rl, uint32_t burst, uint64_t interval, uint64_t now)
{
	rl->interval = interval ? interval : 1;
	rl->last = now;
	rl->suppressed = 0;
	rl->burst = burst;
	rl->tokens = burst;
}

/* Adds the tokens earned since rl->last, keeping the part of an interval not yet earned. */
static void ratelimit_refill(struct ratelimit *rl, uint64_t now)
{
	uint64_t earned;

	/* A clock seen going back (another core's TSC) earns nothing. */
	if (now <= rl->last)
		return;
	earned = (now - rl->last) / rl->interval;
	if (earned >= rl->burst - rl->tokens) {
		rl->tokens = rl->burst;
		rl->last = now;
		return;
	}
	rl->tokens += earned;
	rl->last += earned * rl->interval;
}

/**
 * ratelimit_allow() - spend a token on one event if there is one.
 * @rl: the bucket; the caller serialises calls on it.
 * @now: the current time.
 * @suppressed: when the event is allowed, set to the number refused since
 *              the previous allowed one (so the caller can report them).
 *
 * Return: true if the event may go ahead, false if it is refused (and counted).
 */
bool ratelimit_allow(struct ratelimit *rl, uint64_t now, uint64_t *suppressed)
{
	ratelimit_refill(rl, now);
	if (!rl->tokens) {
		rl->suppressed++;
		return false;
	}
	rl->tokens--;
	*suppressed = rl->suppressed;
	rl->suppressed = 0;
	return true;
}

/**
 * ratelimit_tokens() - the tokens a bucket holds now.
 * @rl: the bucket; the caller serialises calls on it.
 * @now: the current time.
 *
 * Return: the tokens, those earned since the last call included.
 */
uint32_t ratelimit_tokens(struct ratelimit *rl, uint64_t now)
{
	ratelimit_refill(rl, now);
	return rl->tokens;
}

/**
 * ratelimit_take() - spend cost tokens if the bucket holds them all.
 * @rl: the bucket; the caller serialises calls on it.
 * @now: the current time.
 * @cost: tokens the event costs; more than the burst is never allowed.
 *
 * Unlike ratelimit_allow(), a refusal is not counted: a caller that tries
 * again until the tokens are there is not refused once per try.
 *
 * Return: true if the tokens were taken, false if the bucket holds fewer.
 */
bool ratelimit_take(struct ratelimit *rl, uint64_t now, uint32_t cost)
{
	ratelimit_refill(rl, now);
	if (rl->tokens < cost)
		return false;
	rl->tokens -= cost;
	return true;
}
