/* SPDX-License-Identifier: MIT */
/*
 * tx_hold.c - transmit completions held back (docs/data-path.md,
 * "Completion moderation"), for virtio-net and virtio-vsock alike.
 */
#include "virtio/tx_hold.h"

bool tx_hold_note(struct tx_hold *hold, unsigned int done, uint16_t size)
{
	hold->held += done;
	return !hold->waiting || hold->held >= size / 2;
}

bool tx_hold_due(struct tx_hold *hold, uint64_t now, uint64_t holdoff, uint16_t size)
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

bool tx_hold_release(struct tx_hold *hold, bool due, bool received)
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

uint64_t tx_hold_earliest(const struct tx_hold *hold, uint64_t deadline)
{
	if (hold->waiting && (!deadline || hold->deadline < deadline))
		return hold->deadline;
	return deadline;
}

void tx_hold_reset(struct tx_hold *hold)
{
	*hold = (struct tx_hold){ .held = 0 };
}
