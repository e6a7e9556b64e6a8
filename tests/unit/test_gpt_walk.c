// SPDX-License-Identifier: MIT
/*
 * test_gpt_walk.c - unit tests for hv/vmx/gpt_walk.c: 4-level translation
 * with 4-KByte, 2-MByte and 1-GByte pages (SDM Vol. 3A §4.5), reserved bits,
 * non-present entries, tables and pages outside guest RAM, reads that span
 * pages, and tables that point back at themselves.
 *
 * Guest RAM is one malloc() of exactly its size, so AddressSanitizer reports
 * any byte the walker reads outside it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vmx/gpt_walk.h"

#define PAGE		0x1000ull
#define RAM_PAGES	16
#define RAM_SIZE	(RAM_PAGES * PAGE)

#define P		0x1ull		/* present */
#define RW		0x2ull
#define PS		0x80ull		/* page size */
#define PAT_LARGE	0x1000ull	/* PAT bit of a large-page entry */
#define XD		(1ull << 63)

/* The tables' pages in guest RAM. */
#define PML4	(1 * PAGE)
#define PDPT	(2 * PAGE)
#define PD	(3 * PAGE)
#define PT	(4 * PAGE)
#define DATA_A	(8 * PAGE)
#define DATA_B	(5 * PAGE)

struct ram {
	uint8_t *bytes;
	unsigned int maps;
};

static const void *ram_map(void *ctx, uint64_t gpa, uint64_t len)
{
	struct ram *ram = ctx;

	ram->maps++;
	if (gpa >= RAM_SIZE || len > RAM_SIZE - gpa)
		return NULL;
	return ram->bytes + gpa;
}

struct fixture {
	struct ram ram;
	struct gpt_space space;
};

static void set_entry(struct fixture *f, uint64_t table, unsigned int index, uint64_t entry)
{
	memcpy(f->ram.bytes + table + index * 8, &entry, 8);
}

static uint64_t gva_of(unsigned int l4, unsigned int l3, unsigned int l2, unsigned int l1,
		       unsigned int offset)
{
	uint64_t gva = (uint64_t)l4 << 39 | (uint64_t)l3 << 30 | (uint64_t)l2 << 21 |
		       (uint64_t)l1 << 12 | offset;

	return l4 >= 256 ? gva | 0xffff000000000000ull : gva;
}

/*
 * PML4[1] -> PDPT, PDPT[2] -> PD, PD[3] -> PT, PT[4] -> DATA_A and
 * PT[5] -> DATA_B, so the two virtual pages are physically apart and out of
 * order. Each data page holds its own page number in every byte.
 */
static int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->ram.bytes = calloc(1, RAM_SIZE);
	if (!f->ram.bytes)
		return -1;
	f->space.cr3 = PML4;
	f->space.map = ram_map;
	f->space.ctx = &f->ram;
	set_entry(f, PML4, 1, PDPT | RW | P);
	set_entry(f, PDPT, 2, PD | RW | P);
	set_entry(f, PD, 3, PT | RW | P);
	set_entry(f, PT, 4, DATA_A | RW | P | XD);
	set_entry(f, PT, 5, DATA_B | RW | P);
	memset(f->ram.bytes + DATA_A, 0xa8, PAGE);
	memset(f->ram.bytes + DATA_B, 0xb5, PAGE);
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	struct fixture *f = *state;

	free(f->ram.bytes);
	free(f);
	return 0;
}

static void test_4k_page(void **state)
{
	struct fixture *f = *state;
	uint64_t gpa = 0;

	assert_int_equal(gpt_translate(&f->space, gva_of(1, 2, 3, 4, 0x123), &gpa), GPT_OK);
	assert_int_equal(gpa, DATA_A + 0x123);
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 2, 3, 5, 0xfff), &gpa), GPT_OK);
	assert_int_equal(gpa, DATA_B + 0xfff);
}

/* CR3's flag bits (PCD, PWT) and PCID (bits 11:0) are not part of the address. */
static void test_cr3_low_bits_ignored(void **state)
{
	struct fixture *f = *state;
	uint64_t gpa = 0;

	f->space.cr3 = PML4 | 0xfff;
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 2, 3, 4, 8), &gpa), GPT_OK);
	assert_int_equal(gpa, DATA_A + 8);
}

static void test_not_present_each_level(void **state)
{
	struct fixture *f = *state;
	uint64_t gpa = 0;

	/* Indexes that no table fills, one level at a time. */
	assert_int_equal(gpt_translate(&f->space, gva_of(2, 2, 3, 4, 0), &gpa), GPT_NOT_PRESENT);
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 3, 3, 4, 0), &gpa), GPT_NOT_PRESENT);
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 2, 4, 4, 0), &gpa), GPT_NOT_PRESENT);
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 2, 3, 6, 0), &gpa), GPT_NOT_PRESENT);
	/* An entry with every bit but P set is still absent. */
	set_entry(f, PT, 4, ~P);
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 2, 3, 4, 0), &gpa), GPT_NOT_PRESENT);
}

static void test_2m_page(void **state)
{
	struct fixture *f = *state;
	uint64_t gpa = 0;

	set_entry(f, PD, 7, 0x40000000ull | 0x200000ull | PAT_LARGE | PS | P);
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 2, 7, 0x1ab, 0x234), &gpa), GPT_OK);
	assert_int_equal(gpa, 0x40200000ull + 0x1ab234ull);
}

static void test_1g_page(void **state)
{
	struct fixture *f = *state;
	uint64_t gpa = 0;

	set_entry(f, PDPT, 9, 0x80000000ull | PAT_LARGE | PS | P);
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 9, 0x1ff, 0x1ff, 0xfff), &gpa),
			 GPT_OK);
	assert_int_equal(gpa, 0x80000000ull + 0x3fffffffull);
}

/* A large page over RAM reads like any other. */
static void test_read_through_2m_page(void **state)
{
	struct fixture *f = *state;
	uint8_t buf[4];

	set_entry(f, PD, 0, PS | P);
	assert_int_equal(gpt_read(&f->space, gva_of(1, 2, 0, 8, 0x10), buf, sizeof(buf)),
			 GPT_OK);
	assert_memory_equal(buf, "\xa8\xa8\xa8\xa8", 4);
}

/* §4.5.4: PS in a PML4E, and the low address bits of large pages. */
static void test_reserved_bits(void **state)
{
	struct fixture *f = *state;
	uint64_t gpa = 0;

	set_entry(f, PML4, 1, PDPT | PS | P);
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 2, 3, 4, 0), &gpa), GPT_RESERVED);
	set_entry(f, PML4, 1, PDPT | P);

	set_entry(f, PDPT, 9, 0x80000000ull | 0x2000ull | PS | P);
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 9, 0, 0, 0), &gpa), GPT_RESERVED);
	set_entry(f, PDPT, 9, 0x80000000ull | 0x20000000ull | PS | P);
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 9, 0, 0, 0), &gpa), GPT_RESERVED);

	set_entry(f, PD, 7, 0x40000000ull | 0x100000ull | PS | P);
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 2, 7, 0, 0), &gpa), GPT_RESERVED);
	set_entry(f, PD, 7, 0x40000000ull | 0x2000ull | PS | P);
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 2, 7, 0, 0), &gpa), GPT_RESERVED);
}

static void test_noncanonical(void **state)
{
	struct fixture *f = *state;
	uint64_t gpa = 0;

	assert_int_equal(gpt_translate(&f->space, gva_of(1, 2, 3, 4, 0) | 1ull << 48, &gpa),
			 GPT_NONCANONICAL);
	assert_int_equal(gpt_translate(&f->space, 0x0000800000000000ull, &gpa),
			 GPT_NONCANONICAL);
	/* Upper half: PML4 index 256 and up, sign-extended. */
	set_entry(f, PML4, 511, PDPT | P);
	assert_int_equal(gpt_translate(&f->space, gva_of(511, 2, 3, 4, 1), &gpa), GPT_OK);
	assert_int_equal(gpa, DATA_A + 1);
}

static void test_tables_outside_ram(void **state)
{
	struct fixture *f = *state;
	uint64_t gpa = 0;

	f->space.cr3 = RAM_SIZE;
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 2, 3, 4, 0), &gpa), GPT_OUTSIDE_RAM);
	f->space.cr3 = PML4;
	set_entry(f, PDPT, 2, 0xffffffffff000ull | P);
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 2, 3, 4, 0), &gpa), GPT_OUTSIDE_RAM);
}

/* The translation may lie anywhere; reading it needs RAM there. */
static void test_data_outside_ram(void **state)
{
	struct fixture *f = *state;
	uint64_t gpa = 0;
	uint8_t byte;

	set_entry(f, PT, 4, RAM_SIZE | P);
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 2, 3, 4, 0), &gpa), GPT_OK);
	assert_int_equal(gpa, RAM_SIZE);
	assert_int_equal(gpt_read(&f->space, gva_of(1, 2, 3, 4, 0), &byte, 1), GPT_OUTSIDE_RAM);
}

/* The last bytes of one page and the first of the next, physically apart. */
static void test_read_spans_pages(void **state)
{
	struct fixture *f = *state;
	uint8_t buf[8];

	assert_int_equal(gpt_read(&f->space, gva_of(1, 2, 3, 4, 0xffd), buf, sizeof(buf)),
			 GPT_OK);
	assert_memory_equal(buf, "\xa8\xa8\xa8\xb5\xb5\xb5\xb5\xb5", 8);
}

/* A read whose second page is absent fails whole. */
static void test_read_second_page_absent(void **state)
{
	struct fixture *f = *state;
	uint8_t buf[8];

	assert_int_equal(gpt_read(&f->space, gva_of(1, 2, 3, 5, 0xffc), buf, sizeof(buf)),
			 GPT_NOT_PRESENT);
	assert_int_equal(gpt_read(&f->space, gva_of(1, 2, 3, 5, 0xff8), buf, sizeof(buf)),
			 GPT_OK);
}

/* A read that stops at the last byte of RAM, then one byte more. */
static void test_read_at_ram_end(void **state)
{
	struct fixture *f = *state;
	uint8_t buf[2];

	set_entry(f, PT, 4, (RAM_SIZE - PAGE) | P);
	set_entry(f, PT, 5, RAM_SIZE | P);
	assert_int_equal(gpt_read(&f->space, gva_of(1, 2, 3, 4, 0xfff), buf, 1), GPT_OK);
	assert_int_equal(gpt_read(&f->space, gva_of(1, 2, 3, 4, 0xfff), buf, 2), GPT_OUTSIDE_RAM);
}

/*
 * PML4[0] pointing at the PML4 itself makes it every level's table: address 0
 * translates to the PML4's own page after four reads, not a loop.
 */
static void test_self_reference_terminates(void **state)
{
	struct fixture *f = *state;
	uint64_t gpa = 0;
	uint8_t buf[8];

	set_entry(f, PML4, 0, PML4 | P);
	f->ram.maps = 0;
	assert_int_equal(gpt_translate(&f->space, 0x10, &gpa), GPT_OK);
	assert_int_equal(gpa, PML4 + 0x10);
	assert_int_equal(f->ram.maps, 4);
	assert_int_equal(gpt_read(&f->space, 0, buf, sizeof(buf)), GPT_OK);
	assert_memory_equal(buf, "\x01\x10\x00\x00\x00\x00\x00\x00", 8);
}

static void test_empty_read(void **state)
{
	struct fixture *f = *state;

	f->ram.maps = 0;
	assert_int_equal(gpt_read(&f->space, 0x0000800000000000ull, NULL, 0), GPT_OK);
	assert_int_equal(f->ram.maps, 0);
}

/* SDM Vol. 3A §4.1.1, Table 4-1: CR0.PG, CR4.PAE and EFER.LMA pick the mode. */
static void test_mode_of(void **state)
{
	const uint64_t pg = 1ull << 31, pae = 1ull << 5, lme = 1ull << 8, lma = 1ull << 10;

	(void)state;
	assert_int_equal(gpt_mode_of(0, 0, 0), GPT_MODE_NONE);
	assert_int_equal(gpt_mode_of(1, pae, lme), GPT_MODE_NONE);	/* PE alone: no paging */
	assert_int_equal(gpt_mode_of(pg | 1, 0, 0), GPT_MODE_LEGACY);	/* 32-bit paging */
	assert_int_equal(gpt_mode_of(pg | 1, pae, 0), GPT_MODE_LEGACY);	/* PAE paging */
	assert_int_equal(gpt_mode_of(pg | 1, pae, lme), GPT_MODE_LEGACY);	/* LME not yet active */
	assert_int_equal(gpt_mode_of(pg | 1, pae, lme | lma), GPT_MODE_4LEVEL);
}

/*
 * Without paging the address is the physical one, cut to 32 bits, and the
 * guest's CR3 is never read as a table: a CR3 pointing at junk changes nothing.
 */
static void test_no_paging_is_identity(void **state)
{
	struct fixture *f = *state;
	uint8_t buf[3];
	uint64_t gpa = 0;

	f->space.mode = GPT_MODE_NONE;
	f->space.cr3 = DATA_A;
	f->ram.maps = 0;
	assert_int_equal(gpt_translate(&f->space, DATA_B + 0x10, &gpa), GPT_OK);
	assert_int_equal(gpa, DATA_B + 0x10);
	assert_int_equal(gpt_translate(&f->space, 0x100000000ull | DATA_A, &gpa), GPT_OK);
	assert_int_equal(gpa, DATA_A);
	assert_int_equal(f->ram.maps, 0);
	assert_int_equal(gpt_read(&f->space, DATA_A + PAGE - 1, buf, 3), GPT_OK);
	assert_int_equal(buf[0], 0xa8);
	assert_int_equal(buf[1], 0x00);
	assert_int_equal(gpt_read(&f->space, RAM_SIZE - 1, buf, 2), GPT_OUTSIDE_RAM);
}

/* 32-bit and PAE paging are refused as such, before any table is read. */
static void test_legacy_paging_refused(void **state)
{
	struct fixture *f = *state;
	uint8_t byte;
	uint64_t gpa = 0;

	f->space.mode = GPT_MODE_LEGACY;
	f->ram.maps = 0;
	assert_int_equal(gpt_translate(&f->space, gva_of(1, 2, 3, 4, 0), &gpa),
			 GPT_LEGACY_PAGING);
	assert_int_equal(gpt_read(&f->space, DATA_A, &byte, 1), GPT_LEGACY_PAGING);
	assert_int_equal(f->ram.maps, 0);
}

#define T(fn)	cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_4k_page),
		T(test_cr3_low_bits_ignored),
		T(test_not_present_each_level),
		T(test_2m_page),
		T(test_1g_page),
		T(test_read_through_2m_page),
		T(test_reserved_bits),
		T(test_noncanonical),
		T(test_tables_outside_ram),
		T(test_data_outside_ram),
		T(test_read_spans_pages),
		T(test_read_second_page_absent),
		T(test_read_at_ram_end),
		T(test_self_reference_terminates),
		T(test_empty_read),
		cmocka_unit_test(test_mode_of),
		T(test_no_paging_is_identity),
		T(test_legacy_paging_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
