// SPDX-License-Identifier: MIT
/*
 * posted.c - posting interrupts through a posted-interrupt descriptor, and
 * the processor's handling of the notification (SDM Vol. 3C §30.6) as a pure
 * function. The layout and the memory ordering are explained in posted.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vmx/posted.h"

#define PI_ORDER	__ATOMIC_SEQ_CST	/* see "Memory ordering" in posted.h */

bool pi_desc_init(struct pi_desc *desc, uint8_t notification_vector,
		  uint32_t destination_apic_id, bool x2apic)
{
	uint64_t ndst = destination_apic_id;

	if (!x2apic) {
		if (destination_apic_id > 0xff)
			return false;
		ndst <<= PI_NDST_XAPIC_SHIFT;
	}
	memset(desc, 0, sizeof(*desc));
	desc->control = (uint64_t)notification_vector << PI_CONTROL_NV_SHIFT |
			ndst << PI_CONTROL_NDST_SHIFT;
	return true;
}

bool pi_post(struct pi_desc *desc, uint8_t vector)
{
	uint64_t control;

	__atomic_fetch_or(&desc->pir[vector / 64], 1ull << (vector % 64), PI_ORDER);
	control = __atomic_load_n(&desc->control, PI_ORDER);
	do {
		if (control & (PI_CONTROL_ON | PI_CONTROL_SN))
			return false;
	} while (!__atomic_compare_exchange_n(&desc->control, &control, control | PI_CONTROL_ON,
					      false, PI_ORDER, PI_ORDER));
	return true;
}

bool pi_collect(struct pi_desc *desc, uint64_t pir[PI_PIR_WORDS])
{
	uint64_t any = 0;

	/* Step 3: ON first, so a post that finds it clear notifies again. */
	__atomic_fetch_and(&desc->control, ~PI_CONTROL_ON, PI_ORDER);
	/* Step 5: no other agent may touch a PIR bit between its read and its clearing. */
	for (unsigned int i = 0; i < PI_PIR_WORDS; i++) {
		pir[i] = __atomic_exchange_n(&desc->pir[i], 0, PI_ORDER);
		any |= pir[i];
	}
	return any != 0;
}

bool pi_process(struct pi_desc *desc, uint32_t virr[PI_VIRR_WORDS], uint8_t *rvi)
{
	uint64_t pir[PI_PIR_WORDS];
	int highest = -1;

	if (!pi_collect(desc, pir))
		return false;
	for (unsigned int i = 0; i < PI_PIR_WORDS; i++) {
		virr[2 * i] |= (uint32_t)pir[i];
		virr[2 * i + 1] |= (uint32_t)(pir[i] >> 32);
		if (pir[i])
			highest = (int)(i * 64 + 63 - __builtin_clzll(pir[i]));
	}
	/* Step 6: RVI only ever rises here; PIR was not empty. */
	if (highest > *rvi)
		*rvi = (uint8_t)highest;
	return true;
}

void pi_suppress(struct pi_desc *desc)
{
	__atomic_fetch_or(&desc->control, PI_CONTROL_SN, PI_ORDER);
}

bool pi_unsuppress(struct pi_desc *desc)
{
	__atomic_fetch_and(&desc->control, ~PI_CONTROL_SN, PI_ORDER);
	return pi_pending(desc);
}

bool pi_pending(const struct pi_desc *desc)
{
	uint64_t any = __atomic_load_n(&desc->control, PI_ORDER) & PI_CONTROL_ON;

	for (unsigned int i = 0; i < PI_PIR_WORDS; i++)
		any |= __atomic_load_n(&desc->pir[i], PI_ORDER);
	return any != 0;
}
