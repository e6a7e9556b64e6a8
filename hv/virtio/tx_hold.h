/* SPDX-License-Identifier: MIT */
/*
 * tx_hold.h - transmit completions held back, one hold per transmitq: each
 * of virtio-net's queue pairs has one, virtio-vsock one (docs/data-path.md,
 * "Completion moderation"). Used entries are pushed but not published
 * until a receive carries them, half the queue is held or a holdoff has
 * passed; only then is the transmitq's interrupt considered. This is the
 * state and its rules; the device publishes and signals its own queue as
 * the functions tell it, in any clock it passes as now. Inline, since a
 * request/response hop runs them in every flush: as calls they cost it
 * some 40 instructions (docs/data-path.md, "Profile").
 */
#ifndef SIDECORE_VIRTIO_TX_HOLD_H
#define SIDECORE_VIRTIO_TX_HOLD_H

#include <stdbool.h>
#include <stdint.h>

struct tx_hold {
	uint16_t held;		/* completions pushed but not yet published */
	bool waiting;		/* a deadline runs: not yet considered for an interrupt */
	bool rode;		/* held ones went out with a receive since the deadline began */
	uint64_t deadline;	/* when held completions are published and signalled */
};

/**
 * tx_hold_note() - count completions just pushed onto the transmitq.
 * @hold: the transmitq's hold
 * @done: completions pushed, not published
 * @size: the transmitq's size
 *
 * Only a flush starts a deadline or finds half the queue held: completions
 * held while a deadline runs wait for it, or for a receive, and need no
 * flush of their own.
 *
 * Return: whether the port must be flushed for them (no deadline runs yet,
 * or half the queue is held).
 */
static inline bool tx_hold_note(struct tx_hold *hold, unsigned int done, uint16_t size)
{
	hold->held += done;
	return !hold->waiting || hold->held >= size / 2;
}

/**
 * tx_hold_due() - at a flush, whether the held completions are due.
 * @hold: the transmitq's hold
 * @now: the flush's clock
 * @holdoff: how long, in the units of @now, a completion may be held
 * @size: the transmitq's size
 *
 * Starts the deadline of completions held without one. They are due at the
 * deadline or with half the queue held; but a deadline that finds only
 * completions held since a receive carried the last ones gives them a
 * holdoff of their own, and the interrupt waits with them.
 *
 * Return: true when the caller is to consider the transmitq's interrupt,
 * after tx_hold_release().
 */
static inline bool tx_hold_due(struct tx_hold *hold, uint64_t now, uint64_t holdoff,
			       uint16_t size)
{
	bool due;

	if (hold->held && !hold->waiting) {
		hold->waiting = true;
		hold->deadline = now + holdoff;
	}
	due = hold->waiting && (now >= hold->deadline || hold->held >= size / 2);
	/*
	 * What the deadline was started for went out with a receive; what is
	 * held now came after that receive. Request/response traffic thus
	 * takes no transmit interrupt: each request's completion rides with
	 * its response.
	 */
	if (due && hold->rode && hold->held && hold->held < size / 2) {
		hold->rode = false;
		hold->deadline = now + holdoff;
		due = false;
	}
	return due;
}

/**
 * tx_hold_release() - what of the held completions goes out at this flush.
 * @hold: the transmitq's hold
 * @due: tx_hold_due()'s answer for this flush
 * @received: whether receive entries the guest's receive poll reclaims
 *            transmit buffers with are published in this flush
 *
 * Due ones end their deadline. Ones that ride with a receive leave it
 * running, marked as having ridden.
 *
 * Return: whether the caller publishes the transmitq now, before the
 * receive entries.
 */
static inline bool tx_hold_release(struct tx_hold *hold, bool due, bool received)
{
	bool publish = hold->held && (due || received);

	if (publish) {
		hold->held = 0;
		hold->rode = !due;
	}
	if (due) {
		hold->waiting = false;
		hold->rode = false;
	}
	return publish;
}

/**
 * tx_hold_earliest() - fold a hold's running deadline into the port's.
 * @hold: the transmitq's hold
 * @deadline: the earliest deadline found so far, 0 for none
 *
 * Return: the earlier of @deadline and the hold's deadline, @deadline
 * itself when no deadline runs.
 */
static inline uint64_t tx_hold_earliest(const struct tx_hold *hold, uint64_t deadline)
{
	if (hold->waiting && (!deadline || hold->deadline < deadline))
		return hold->deadline;
	return deadline;
}

/**
 * tx_hold_reset() - forget what is held, with the rings of a reset device.
 * @hold: the transmitq's hold
 */
static inline void tx_hold_reset(struct tx_hold *hold)
{
	*hold = (struct tx_hold){ .held = 0 };
}

#endif
