/* SPDX-License-Identifier: MIT */
/*
 * msi.h - decoding the MSI / MSI-X messages a guest programs into its devices
 * (Intel SDM Vol. 3A §11.11). The guest writes address and data; a device
 * model sends them as they are, and this is the one place that says what
 * they mean and whether they are an interrupt at all.
 */
#ifndef SIDECORE_VDEV_MSI_H
#define SIDECORE_VDEV_MSI_H

#include <stdbool.h>
#include <stdint.h>

/* §11.11.1: the local APICs' message address window, bits 31:20. */
#define MSI_ADDRESS_BASE	0xfee00000ull
/* §11.11.1: a physical destination of 0xff is every local APIC. */
#define MSI_DEST_BROADCAST	0xff

/* One decoded message: where it goes and which vector it raises. */
struct msi_message {
	uint8_t dest;		/* physical APIC ID, or a logical destination mask */
	bool logical;		/* DM: dest is matched against each LDR */
	bool redirection_hint;	/* RH: any one of the destinations may take it */
	bool lowest_priority;	/* delivery mode 001b rather than fixed 000b */
	uint8_t vector;
};

/**
 * msi_decode() - decode an MSI address/data pair for a local APIC.
 * @address: the 64-bit message address (upper half in bits 63:32)
 * @data: the 32-bit message data
 * @msg: filled in when the message is an interrupt this machine delivers
 *
 * Valid messages have address 0xfeeXXXXX with the upper 32 bits and the
 * reserved bits 11:4 zero, and edge-triggered data with the reserved
 * bits 31:16 and 13:11 zero, a vector of 32 or more and fixed or lowest-priority delivery. With RH set
 * in physical mode the destination must not be the broadcast ID 0xff.
 *
 * Return: NULL with @msg filled, or a constant string saying why the pair
 * is not an interrupt (@msg then undefined).
 */
const char *msi_decode(uint64_t address, uint32_t data, struct msi_message *msg);

#endif
