/* SPDX-License-Identifier: MIT */
/*
 * msi.c - MSI message decoding (Intel SDM Vol. 3A §11.11.1 address,
 * §11.11.2 data), strict: a bit the format reserves is not ignored but makes
 * the message invalid, since a guest that sets one is not programming an
 * interrupt this machine can deliver.
 */
#include <stddef.h>

#include "vdev/msi.h"

/* §11.11.1: bits 31:20 are 0FEEh; 19:12 the destination; 11:4 reserved. */
#define MSI_ADDRESS_BASE_MASK	0xfff00000ull
#define MSI_ADDRESS_DEST_SHIFT	12
#define MSI_ADDRESS_RESERVED	0x00000ff0ull
#define MSI_ADDRESS_RH		(1u << 3)
#define MSI_ADDRESS_DM		(1u << 2)
/*
 * §11.11.2: bits 7:0 vector, 10:8 delivery mode, 14 level, 15 trigger mode;
 * 13:11 and 31:16 reserved.
 */
#define MSI_DATA_VECTOR_MASK	0xffu
#define MSI_DATA_MODE_SHIFT	8
#define MSI_DATA_MODE_MASK	7u
#define MSI_DATA_MODE_FIXED	0u
#define MSI_DATA_MODE_LOWEST	1u
#define MSI_DATA_TRIGGER_LEVEL	(1u << 15)
#define MSI_DATA_RESERVED	0xffff3800u
/*
 * 0-15 are illegal in a message (§11.5.2); 16-31 are legal but are the
 * exception vectors, which a guest's interrupt must not reach in the host
 * (docs/vmx.md, "Direct interrupts").
 */
#define MSI_VECTOR_MIN		32

const char *msi_decode(uint64_t address, uint32_t data, struct msi_message *msg)
{
	uint32_t mode = (data >> MSI_DATA_MODE_SHIFT) & MSI_DATA_MODE_MASK;

	/* The upper half is zero for the local APICs: 0xfeeXXXXX is below 4 GiB. */
	if ((address & ~0xffffffffull) || (address & MSI_ADDRESS_BASE_MASK) != MSI_ADDRESS_BASE)
		return "address outside the local APIC range";
	if (address & MSI_ADDRESS_RESERVED)
		return "reserved address bits set";
	if (data & MSI_DATA_RESERVED)
		return "reserved data bits set";
	/* Nothing would answer the EOI a level-triggered message waits for. */
	if (data & MSI_DATA_TRIGGER_LEVEL)
		return "level-triggered";
	if (mode != MSI_DATA_MODE_FIXED && mode != MSI_DATA_MODE_LOWEST)
		return "delivery mode neither fixed nor lowest priority";
	if ((data & MSI_DATA_VECTOR_MASK) < MSI_VECTOR_MIN)
		return "vector below 32";
	msg->dest = (uint8_t)(address >> MSI_ADDRESS_DEST_SHIFT);
	msg->logical = address & MSI_ADDRESS_DM;
	msg->redirection_hint = address & MSI_ADDRESS_RH;
	msg->lowest_priority = mode == MSI_DATA_MODE_LOWEST;
	msg->vector = (uint8_t)(data & MSI_DATA_VECTOR_MASK);
	/* §11.11.1: with RH in physical mode the destination is not 0xff. */
	if (msg->redirection_hint && !msg->logical && msg->dest == MSI_DEST_BROADCAST)
		return "redirection hint with the broadcast destination";
	return NULL;
}
