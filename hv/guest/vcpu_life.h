/* SPDX-License-Identifier: MIT */
/*
 * vcpu_life.h - which life of its guest a secondary vCPU runs in, and the
 * two-phase parking that ends a life (docs/vmx.md, "Secondary vCPUs").
 * Pure: atomics only, so the host tests run it on threads.
 *
 * A guest's lives are numbered: gen is odd while no life is open (before
 * the first, and from the moment one begins to end until the next
 * begins), even while one runs. A start signal names the life its sender
 * saw; a vCPU runs only on a signal of the open life, at most once in it,
 * and stops once gen moves on. vCPU 0, which carries the life, closes it
 * before it asks the others to stop, so a still-running sibling can no
 * longer start one already parked.
 */
#ifndef SIDECORE_GUEST_VCPU_LIFE_H
#define SIDECORE_GUEST_VCPU_LIFE_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config_limits.h"

/*
 * One vCPU's part, written by start signals from other cores and by the
 * vCPU itself. startup: the life a signal came in, shifted left 8, with
 * its vector below (0: none yet). parked: it waits outside the guest.
 * ran: the life it last ran in, its own.
 */
struct vcpu_life {
	uint64_t startup;
	uint32_t parked;
	uint32_t ran;
};

struct guest_life {
	uint32_t gen;
	unsigned int vcpu_count;
	struct vcpu_life vcpu[LIMIT_GUEST_VCPUS];
};

/* What a start signal did (vcpu_life_start()). */
enum vcpu_life_start {
	VCPU_LIFE_STARTED,	/* taken for the open life: wake the target */
	VCPU_LIFE_IGNORED,	/* the target has this life's signal already */
	VCPU_LIFE_ENDING,	/* no life is open: dropped */
};

/*
 * How vCPU 0 reaches the others while it parks them. ask: make vCPU i
 * leave the guest or its wait (a kick). wait: called while vCPU i is not
 * parked, to pause; false gives up on it.
 */
struct vcpu_life_ops {
	void (*ask)(void *ctx, unsigned int i);
	bool (*wait)(void *ctx, unsigned int i);
	void *ctx;
};

/**
 * vcpu_life_init() - a guest with no life open and no vCPU parked yet
 * @life: the guest's life state
 * @vcpu_count: its vCPUs, vCPU 0 included
 */
void vcpu_life_init(struct guest_life *life, unsigned int vcpu_count);

/**
 * vcpu_life_begin() - open the next life, once the guest is loaded
 * @life: the guest's life state, with no life open
 *
 * Called by vCPU 0 before it enters the guest; from here start signals
 * are taken, and only ones sent from here.
 */
void vcpu_life_begin(struct guest_life *life);

/**
 * vcpu_life_start() - a start signal (SIPI) from a running vCPU
 * @life: the guest's life state
 * @target: the vCPU it names, 1 or more and below vcpu_count
 * @vector: the signal's vector
 *
 * Return: what became of it; on VCPU_LIFE_STARTED the caller wakes the
 * target.
 */
enum vcpu_life_start vcpu_life_start(struct guest_life *life, unsigned int target,
				     uint8_t vector);

/**
 * vcpu_life_park() - mark the calling vCPU as waiting outside the guest
 * @life: the guest's life state
 * @index: the calling vCPU
 */
void vcpu_life_park(struct guest_life *life, unsigned int index);

/**
 * vcpu_life_take() - leave the wait if a start signal of the open life came
 * @life: the guest's life state
 * @index: the calling vCPU, parked
 * @vector: where the signal's vector goes
 *
 * The vCPU unparks before it looks at gen again, so either vCPU 0, which
 * closes the life before it looks at parked, sees it running and waits
 * for it, or it sees the life closed and stays parked.
 *
 * Return: true when the vCPU is to run in the open life (and is no longer
 * parked); false when it stays parked.
 */
bool vcpu_life_take(struct guest_life *life, unsigned int index, uint8_t *vector);

/**
 * vcpu_life_current() - whether a running vCPU's life is still open
 * @life: the guest's life state
 * @index: the calling vCPU, after vcpu_life_take()
 *
 * Return: false once vCPU 0 began to end the life: the vCPU must leave.
 */
bool vcpu_life_current(const struct guest_life *life, unsigned int index);

/**
 * vcpu_life_end() - end the open life: close it, then park every other vCPU
 * @life: the guest's life state, called by vCPU 0 out of the guest
 * @ops: how to reach the others
 * @stuck: where the index of a vCPU ops->wait gave up on goes
 *
 * Three steps: close the life (no start signal is taken from here), ask
 * every other vCPU to leave, then wait until one pass finds all of them
 * parked. Only then may the guest's RAM be rewritten, its devices reset
 * or its stop reported.
 *
 * Return: true when all are parked; false when ops->wait gave up.
 */
bool vcpu_life_end(struct guest_life *life, const struct vcpu_life_ops *ops,
		   unsigned int *stuck);

#endif
