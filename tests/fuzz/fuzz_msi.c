// SPDX-License-Identifier: MIT
/*
 * fuzz_msi.c - any address/data pair a guest can program into an MSI-X
 * table entry, through msi_decode().
 *
 * Each 12 bytes of input are one message: the 64-bit address, then the
 * 32-bit data, little-endian. A message msi_decode() accepts must rebuild
 * bit for bit from what it decoded (only address bits 1:0 and the level bit
 * 14 of edge-triggered data are free), and the decision must match a
 * field-by-field reading of Intel SDM Vol. 3A §11.11.1-2 written here
 * independently. A broken rule aborts, which libFuzzer reports.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "vdev/msi.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define MESSAGE_BYTES	12

static uint64_t le(const uint8_t *p, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The SDM's rules, one field at a time. */
static int reference_valid(uint64_t address, uint32_t data)
{
	uint32_t high = (uint32_t)(address >> 32), low = (uint32_t)address;
	uint32_t mode = data >> 8 & 7, dest = low >> 12 & 0xff;
	int rh = low >> 3 & 1, dm = low >> 2 & 1;

	return high == 0 && low >> 20 == 0xfee && (low >> 4 & 0xff) == 0 &&
	       data >> 16 == 0 && (data >> 11 & 7) == 0 && !(data >> 15 & 1) &&
	       (mode == 0 || mode == 1) && (data & 0xff) >= 32 && !(rh && !dm && dest == 0xff);
}

static void check_message(uint64_t address, uint32_t data)
{
	struct msi_message msg;
	const char *why = msi_decode(address, data, &msg);
	uint64_t rebuilt_address;
	uint32_t rebuilt_data;

	CHECK((why == NULL) == reference_valid(address, data));
	if (why)
		return;
	rebuilt_address = 0xfee00000ull | (uint64_t)msg.dest << 12 |
			  (msg.redirection_hint ? 1u << 3 : 0) | (msg.logical ? 1u << 2 : 0) |
			  (address & 3);
	rebuilt_data = msg.vector | (msg.lowest_priority ? 1u << 8 : 0) | (data & 1u << 14);
	CHECK(rebuilt_address == address && rebuilt_data == data);
	CHECK(msg.vector >= 32);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t at = 0; at + MESSAGE_BYTES <= size; at += MESSAGE_BYTES)
		check_message(le(data + at, 8), (uint32_t)le(data + at + 8, 4));
	return 0;
}
