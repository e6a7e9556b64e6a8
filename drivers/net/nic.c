/* SPDX-License-Identifier: MIT */
/* nic.c - what every NIC driver shares (nic.h). */
#include <string.h>

#include "drivers/net/nic.h"

/* Polls in steps of this many microseconds. */
#define NIC_WAIT_STEP_US 10

bool nic_mac_usable(const uint8_t mac[ETH_ALEN])
{
	static const uint8_t zero[ETH_ALEN];

	return !(mac[0] & 1) && memcmp(mac, zero, ETH_ALEN) != 0;
}

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
