// SPDX-License-Identifier: MIT
/*
 * fuzz_gpt.c - guest page tables of any shape against hv/vmx/gpt_walk.c.
 *
 * Guest RAM is one malloc() of exactly its size, zero-filled, so
 * AddressSanitizer reports any byte the walker reads outside it. The input:
 *
 *   0-7    CR3
 *   8-15   the guest-virtual address to read
 *   16     bytes to read (0-63)
 *   17     RAM size in pages (1-8)
 *   18     bytes cut off the last page (so RAM may end mid-page)
 *   19-    10-byte records that fill RAM: a page (byte 0 modulo 8), an
 *          entry index (byte 1 times 2, plus bit 7 of byte 0: 0-511) and
 *          the 8-byte entry
 *
 * Records outside RAM are dropped. After the walk:
 *
 * - each translation agrees with a reference walk written here from the
 *   SDM's tables (Vol. 3A §4.5), status and address;
 * - a walk maps at most four entries, then the data;
 * - gpt_read() succeeds exactly when every byte translates into RAM, and
 *   then every byte is the one its own translation names.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmx/gpt_walk.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define PAGE		4096u
#define MAX_PAGES	8
#define HEADER		19
#define RECORD		10
#define MAX_READ	64

struct ram {
	uint8_t *bytes;
	uint64_t size;
	unsigned int maps;
};

static const void *ram_map(void *ctx, uint64_t gpa, uint64_t len)
{
	struct ram *ram = ctx;

	ram->maps++;
	if (gpa >= ram->size || len > ram->size - gpa)
		return NULL;
	return ram->bytes + gpa;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The walk spelled out level by level, as Tables 4-14 to 4-20 give it. */
static enum gpt_status ref_translate(const struct ram *ram, uint64_t cr3, uint64_t gva,
				     uint64_t *gpa)
{
	static const uint64_t large_reserved[5] = { 0, 0, 0x1fe000ull, 0x3fffe000ull, 0 };
	const uint64_t addr_mask = 0x000ffffffffff000ull;
	uint64_t table = cr3 & addr_mask;
	int64_t sgva = (int64_t)(gva << 16) >> 16;

	if ((uint64_t)sgva != gva)
		return GPT_NONCANONICAL;
	for (int level = 4; level >= 1; level--) {
		int shift = 12 + 9 * (level - 1);
		uint64_t at = table + ((gva >> shift) & 0x1ff) * 8, e;

		if (at + 8 > ram->size)
			return GPT_OUTSIDE_RAM;
		e = le64(ram->bytes + at);
		if (!(e & 1))
			return GPT_NOT_PRESENT;
		if (level == 4 && (e & 0x80))
			return GPT_RESERVED;
		if (level == 1 || ((level == 2 || level == 3) && (e & 0x80))) {
			if (e & large_reserved[level])
				return GPT_RESERVED;
			*gpa = (e & addr_mask & ~((1ull << shift) - 1)) | (gva & ((1ull << shift) - 1));
			return GPT_OK;
		}
		table = e & addr_mask;
	}
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ram ram = { 0 };
	struct gpt_space space;
	uint8_t buf[MAX_READ];
	unsigned int pages, len;
	enum gpt_status status, want;
	uint64_t gva, gpa = 0, want_gpa = 0;
	bool all_ok = true;

	if (size < HEADER)
		return 0;
	gva = le64(data + 8);
	len = data[16] % MAX_READ;
	pages = data[17] % MAX_PAGES + 1;
	ram.size = (uint64_t)pages * PAGE - data[18];
	ram.bytes = calloc(1, ram.size);
	CHECK(ram.bytes);
	for (size_t at = HEADER; at + RECORD <= size; at += RECORD) {
		uint64_t offset = (uint64_t)(data[at] % MAX_PAGES) * PAGE +
				  ((unsigned int)data[at + 1] * 2 + (data[at] >> 7)) * 8;

		if (offset + 8 <= ram.size)
			memcpy(ram.bytes + offset, data + at + 2, 8);
	}
	space = (struct gpt_space){ .cr3 = le64(data), .map = ram_map, .ctx = &ram };

	status = gpt_translate(&space, gva, &gpa);
	want = ref_translate(&ram, space.cr3, gva, &want_gpa);
	CHECK(status == want);
	CHECK(ram.maps <= 4);
	if (status == GPT_OK) {
		CHECK(gpa == want_gpa);
		CHECK((gpa & (PAGE - 1)) == (gva & (PAGE - 1)));
	}

	/* Byte by byte, what a read of the range must give. */
	for (unsigned int i = 0; i < len; i++)
		if (ref_translate(&ram, space.cr3, gva + i, &want_gpa) != GPT_OK ||
		    want_gpa >= ram.size)
			all_ok = false;
	memset(buf, 0x5a, sizeof(buf));
	ram.maps = 0;
	status = gpt_read(&space, gva, buf, len);
	CHECK((status == GPT_OK) == all_ok);
	CHECK(ram.maps <= 5 * (len / PAGE + 2));
	if (status == GPT_OK)
		for (unsigned int i = 0; i < len; i++) {
			CHECK(ref_translate(&ram, space.cr3, gva + i, &want_gpa) == GPT_OK);
			CHECK(buf[i] == ram.bytes[want_gpa]);
		}
	free(ram.bytes);
	return 0;
}
