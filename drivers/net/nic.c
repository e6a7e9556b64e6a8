/* SPDX-License-Identifier: MIT */
/* nic.c - what every NIC driver shares (nic.h). */
#include "drivers/net/nic.h"

/* Polls in steps of this many microseconds. */
#define NIC_WAIT_STEP_US 10

bool nic_wait(const struct nic *nic, uint32_t offset, uint32_t mask, uint32_t want,
	      unsigned int timeout_us)
{
	for (unsigned int waited = 0;; waited += NIC_WAIT_STEP_US) {
		if ((nic_read(nic, offset) & mask) == want)
			return true;
		if (waited >= timeout_us)
			return false;
		nic->io.delay_us(nic->io.ctx, NIC_WAIT_STEP_US);
	}
}
