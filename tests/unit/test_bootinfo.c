/* SPDX-License-Identifier: MIT */
/*
 * test_bootinfo.c - unit tests for hv/init/bootinfo.c, on hand-built
 * multiboot2 information structures, and a model of the boot-time memory
 * flow from the memory map to the per-node page pools.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "init/bootinfo.h"
#include "mm/page_alloc.h"
#include "tests/unit/support/stderr_capture.h"

#define MIB 0x100000ull
#define GIB 0x40000000ull

/* Multiboot2 specification 3.6: tag types and memory map entry types. */
#define TAG_END		0
#define TAG_CMDLINE	1
#define TAG_MODULE	3
#define TAG_MMAP	6
#define TAG_ACPI_OLD	14
#define TAG_ACPI_NEW	15
#define TAG_EFI64	12
#define TAG_EFI_MMAP	17
#define TAG_EFI_BS	18
#define MMAP_AVAILABLE	1
#define MMAP_RESERVED	2
#define MMAP_ACPI	3

struct mmap_entry {
	uint64_t base;
	uint64_t length;
	uint32_t type;
};

/* One structure under construction; 8-byte aligned like a real one. */
static struct {
	uint8_t buf[8192] __attribute__((aligned(8)));
	size_t len;
} mbi;

static struct boot_info info;
static char log_text[8192];

static void put_u32(size_t offset, uint32_t value)
{
	memcpy(mbi.buf + offset, &value, sizeof(value));
}

static void mbi_begin(void)
{
	memset(&mbi, 0, sizeof(mbi));
	mbi.len = 8;
}

/* Appends a tag with its header and size field, padded to 8 bytes. */
static void mbi_add_tag(uint32_t type, const void *payload, size_t size)
{
	assert_true(mbi.len + 8 + size + 8 <= sizeof(mbi.buf));
	put_u32(mbi.len, type);
	put_u32(mbi.len + 4, (uint32_t)(8 + size));
	if (size)
		memcpy(mbi.buf + mbi.len + 8, payload, size);
	mbi.len += (8 + size + 7) & ~(size_t)7;
}

/* Appends the end tag and sets total_size; returns the total size. */
static size_t mbi_finish(void)
{
	mbi_add_tag(TAG_END, NULL, 0);
	put_u32(0, (uint32_t)mbi.len);
	return mbi.len;
}

static void mbi_add_cmdline(const char *cmdline)
{
	mbi_add_tag(TAG_CMDLINE, cmdline, strlen(cmdline) + 1);
}

static void mbi_add_module(uint32_t start, uint32_t end, const char *name)
{
	uint8_t payload[256];
	size_t len = strlen(name) + 1;

	assert_true(8 + len <= sizeof(payload));
	memcpy(payload, &start, 4);
	memcpy(payload + 4, &end, 4);
	memcpy(payload + 8, name, len);
	mbi_add_tag(TAG_MODULE, payload, 8 + len);
}

static void mbi_add_mmap(uint32_t entry_size, const struct mmap_entry *entry,
			 unsigned int count)
{
	uint8_t payload[2048] = { 0 };
	uint32_t version = 0;
	unsigned int i;

	assert_true(8 + count * entry_size <= sizeof(payload));
	memcpy(payload, &entry_size, 4);
	memcpy(payload + 4, &version, 4);
	for (i = 0; i < count; i++) {
		uint8_t *p = payload + 8 + i * entry_size;

		memcpy(p, &entry[i].base, 8);
		memcpy(p + 8, &entry[i].length, 8);
		memcpy(p + 16, &entry[i].type, 4);
	}
	mbi_add_tag(TAG_MMAP, payload, 8 + count * entry_size);
}

/* UEFI 2.10 section 7.2: memory types and the descriptor's fields. */
#define EFI_RESERVED		0
#define EFI_LOADER_CODE		1
#define EFI_LOADER_DATA		2
#define EFI_BS_CODE		3
#define EFI_BS_DATA		4
#define EFI_RUNTIME_DATA	6
#define EFI_CONVENTIONAL	7
#define EFI_ACPI_RECLAIM	9
#define EFI_MMIO		11

struct efi_desc {
	uint32_t type;
	uint64_t base;
	uint64_t pages;
};

static void mbi_add_efi_mmap(uint32_t desc_size, const struct efi_desc *desc,
			     unsigned int count)
{
	uint8_t payload[2048] = { 0 };
	uint32_t version = 1;
	unsigned int i;

	assert_true(8 + count * desc_size <= sizeof(payload));
	memcpy(payload, &desc_size, 4);
	memcpy(payload + 4, &version, 4);
	for (i = 0; i < count; i++) {
		uint8_t *p = payload + 8 + i * desc_size;

		memcpy(p, &desc[i].type, 4);
		memcpy(p + 8, &desc[i].base, 8);
		memcpy(p + 16, &desc[i].base, 8);	/* VirtualStart: unused */
		memcpy(p + 24, &desc[i].pages, 8);
	}
	mbi_add_tag(TAG_EFI_MMAP, payload, 8 + count * desc_size);
}

/* An RSDP image whose bytes say which version and tag they came from. */
static void make_rsdp(uint8_t *rsdp, size_t size, uint8_t seed)
{
	size_t i;

	for (i = 0; i < size; i++)
		rsdp[i] = (uint8_t)(seed + i);
	memcpy(rsdp, "RSD PTR ", 8);
}

static int parse_quietly(size_t size)
{
	int ret;

	stderr_capture_begin();
	ret = bootinfo_parse(&info, mbi.buf, size);
	stderr_capture_end(log_text, sizeof(log_text));
	return ret;
}

static const struct mmap_entry pc_map[] = {
	{ 0x0, 0x9fc00, MMAP_AVAILABLE },
	{ 0x9fc00, 0x400, MMAP_RESERVED },
	{ 0xf0000, 0x10000, MMAP_RESERVED },
	{ 0x100000, 0x7fee0000 - 0x100000, MMAP_AVAILABLE },
	{ 0x7fee0000, 0x120000, MMAP_ACPI },
	{ 0xfffc0000, 0x40000, MMAP_RESERVED },
	{ 0x100000000, 0x80000000, MMAP_AVAILABLE },
};
#define PC_MAP_COUNT (sizeof(pc_map) / sizeof(pc_map[0]))

static void test_full_structure(void **state)
{
	uint8_t rsdp1[20], rsdp2[36];
	const struct boot_module *module;

	(void)state;
	make_rsdp(rsdp1, sizeof(rsdp1), 0x10);
	make_rsdp(rsdp2, sizeof(rsdp2), 0x40);
	mbi_begin();
	mbi_add_cmdline("console=ttyS0,115200 loglevel=7");
	mbi_add_mmap(24, pc_map, PC_MAP_COUNT);
	mbi_add_module(0x200000, 0x200400, "sidecore.cfg");
	mbi_add_module(0x300000, 0x9a0000, "vmlinuz");
	mbi_add_tag(TAG_ACPI_OLD, rsdp1, sizeof(rsdp1));
	mbi_add_tag(TAG_ACPI_NEW, rsdp2, sizeof(rsdp2));

	assert_int_equal(parse_quietly(mbi_finish()), 0);
	assert_string_equal(log_text, "");
	assert_string_equal(info.cmdline, "console=ttyS0,115200 loglevel=7");

	assert_int_equal(info.ram.count, 3);
	assert_int_equal(info.ram.range[0].base, 0);
	assert_int_equal(info.ram.range[0].length, 0x9fc00);
	assert_int_equal(info.ram.range[1].base, 0x100000);
	assert_int_equal(info.ram.range[1].length, 0x7fee0000 - 0x100000);
	assert_int_equal(info.ram.range[2].base, 0x100000000);
	assert_int_equal(info.ram.range[2].length, 0x80000000);

	assert_int_equal(info.module_count, 2);
	module = bootinfo_find_module(&info, "vmlinuz");
	assert_non_null(module);
	assert_int_equal(module->start, 0x300000);
	assert_int_equal(module->end, 0x9a0000);
	assert_ptr_equal(bootinfo_find_module(&info, "sidecore.cfg"), &info.module[0]);

	assert_int_equal(info.rsdp_size, 36);
	assert_memory_equal(info.rsdp, rsdp2, 36);
}

static void test_find_module_exact(void **state)
{
	(void)state;
	mbi_begin();
	mbi_add_module(0x1000, 0x2000, "vmlinuz");
	mbi_add_module(0x3000, 0x4000, "vmlinuz-6.1");
	mbi_add_module(0x5000, 0x5000, "");	/* empty module, empty name */
	assert_int_equal(bootinfo_parse(&info, mbi.buf, mbi_finish()), 0);

	assert_int_equal(info.module_count, 3);
	assert_int_equal(bootinfo_find_module(&info, "vmlinuz")->start, 0x1000);
	assert_int_equal(bootinfo_find_module(&info, "vmlinuz-6.1")->start, 0x3000);
	assert_int_equal(bootinfo_find_module(&info, "")->start, 0x5000);
	assert_null(bootinfo_find_module(&info, "vmlinu"));
	assert_null(bootinfo_find_module(&info, "vmlinuz "));
	assert_null(bootinfo_find_module(&info, "VMLINUZ"));
	assert_null(bootinfo_find_module(&info, NULL));
}

static void test_rsdp_versions(void **state)
{
	uint8_t rsdp1[20], rsdp2[36];

	(void)state;
	make_rsdp(rsdp1, sizeof(rsdp1), 0x10);
	make_rsdp(rsdp2, sizeof(rsdp2), 0x40);

	/* Only ACPI 1.0. */
	mbi_begin();
	mbi_add_tag(TAG_ACPI_OLD, rsdp1, sizeof(rsdp1));
	assert_int_equal(bootinfo_parse(&info, mbi.buf, mbi_finish()), 0);
	assert_int_equal(info.rsdp_size, 20);
	assert_memory_equal(info.rsdp, rsdp1, 20);

	/* The 2.0 copy wins even when the 1.0 one comes after it. */
	mbi_begin();
	mbi_add_tag(TAG_ACPI_NEW, rsdp2, sizeof(rsdp2));
	mbi_add_tag(TAG_ACPI_OLD, rsdp1, sizeof(rsdp1));
	assert_int_equal(bootinfo_parse(&info, mbi.buf, mbi_finish()), 0);
	assert_int_equal(info.rsdp_size, 36);
	assert_memory_equal(info.rsdp, rsdp2, 36);

	/* No ACPI tag at all. */
	mbi_begin();
	assert_int_equal(bootinfo_parse(&info, mbi.buf, mbi_finish()), 0);
	assert_int_equal(info.rsdp_size, 0);
}

static void test_rsdp_too_short(void **state)
{
	uint8_t rsdp1[20], rsdp2[36];

	(void)state;
	make_rsdp(rsdp1, sizeof(rsdp1), 0x10);
	make_rsdp(rsdp2, sizeof(rsdp2), 0x40);
	mbi_begin();
	mbi_add_tag(TAG_ACPI_OLD, rsdp1, sizeof(rsdp1));
	mbi_add_tag(TAG_ACPI_NEW, rsdp2, 20);	/* a 1.0-sized copy in the 2.0 tag */
	mbi_add_tag(TAG_ACPI_OLD, rsdp1, 19);
	assert_int_equal(parse_quietly(mbi_finish()), 0);
	assert_non_null(strstr(log_text, "RSDP tag 15"));
	assert_non_null(strstr(log_text, "RSDP tag 14"));
	assert_int_equal(info.rsdp_size, 20);
	assert_memory_equal(info.rsdp, rsdp1, 20);
}

static void test_mmap_reserved_wins(void **state)
{
	static const struct mmap_entry map[] = {
		{ 0x100000, 0x1000000, MMAP_AVAILABLE },
		{ 0x400000, 0x1000, MMAP_RESERVED },	/* a hole inside RAM */
		{ 0x800000, 0x100000, MMAP_AVAILABLE },	/* overlaps the first */
		{ 0x2000000, 0, MMAP_AVAILABLE },	/* empty */
		{ 0x3000000, 0x1000, 5 },		/* defective RAM */
		{ 0x3000000, 0x3000, MMAP_AVAILABLE },
	};

	(void)state;
	mbi_begin();
	mbi_add_mmap(24, map, sizeof(map) / sizeof(map[0]));
	assert_int_equal(bootinfo_parse(&info, mbi.buf, mbi_finish()), 0);
	assert_int_equal(info.ram.count, 3);
	assert_int_equal(info.ram.range[0].base, 0x100000);
	assert_int_equal(info.ram.range[0].length, 0x300000);
	assert_int_equal(info.ram.range[1].base, 0x401000);
	assert_int_equal(info.ram.range[1].length, 0xcff000);
	assert_int_equal(info.ram.range[2].base, 0x3001000);
	assert_int_equal(info.ram.range[2].length, 0x2000);
}

static void test_mmap_entry_size(void **state)
{
	static const struct mmap_entry map[] = {
		{ 0x100000, 0x100000, MMAP_AVAILABLE },
		{ 0x400000, 0x100000, MMAP_AVAILABLE },
	};

	(void)state;
	/* Larger entries (future fields) are stepped over. */
	mbi_begin();
	mbi_add_mmap(40, map, 2);
	assert_int_equal(bootinfo_parse(&info, mbi.buf, mbi_finish()), 0);
	assert_int_equal(info.ram.count, 2);
	assert_int_equal(info.ram.range[1].base, 0x400000);

	/* Entries smaller than the fields we read: the map is refused. */
	mbi_begin();
	mbi_add_mmap(16, map, 2);
	mbi_add_cmdline("after");
	assert_int_equal(parse_quietly(mbi_finish()), 0);
	assert_non_null(strstr(log_text, "entry size 16"));
	assert_int_equal(info.ram.count, 0);
	assert_string_equal(info.cmdline, "after");

	/* Zero would divide by zero if it were not caught. */
	mbi_begin();
	mbi_add_mmap(0, map, 0);
	assert_int_equal(parse_quietly(mbi_finish()), 0);
	assert_int_equal(info.ram.count, 0);

	/* A trailing partial entry is ignored. */
	mbi_begin();
	mbi_add_mmap(24, map, 2);
	put_u32(8 + 4, 8 + 8 + 24 + 20);	/* cut the tag to 1.8 entries */
	put_u32(8 + 8 + 8 + 24 + 24, 0);	/* end tag starts at the next aligned place */
	put_u32(8 + 8 + 8 + 24 + 24 + 4, 8);
	put_u32(0, 8 + 8 + 8 + 48 + 8);
	assert_int_equal(bootinfo_parse(&info, mbi.buf, 8 + 8 + 8 + 48 + 8), 0);
	assert_int_equal(info.ram.count, 1);
	assert_int_equal(info.ram.range[0].base, 0x100000);
}

static void test_mmap_wrapping_entry(void **state)
{
	static const struct mmap_entry map[] = {
		{ UINT64_MAX - 0xfff, 0x2000, MMAP_AVAILABLE },
		{ 0x100000, 0x100000, MMAP_AVAILABLE },
	};

	(void)state;
	mbi_begin();
	mbi_add_mmap(24, map, 2);
	assert_int_equal(parse_quietly(mbi_finish()), 0);
	assert_non_null(strstr(log_text, "wraps"));
	assert_int_equal(info.ram.count, 1);
	assert_int_equal(info.ram.range[0].base, 0x100000);
}

/* As OVMF lays a machine out, one range of each kind that matters. */
static const struct efi_desc efi_map[] = {
	{ EFI_BS_CODE, 0x0, 1 },
	{ EFI_CONVENTIONAL, 0x1000, 0x9f },
	{ EFI_CONVENTIONAL, 0x100000, 0x700 },
	{ EFI_LOADER_DATA, 0x800000, 0x100 },
	{ EFI_LOADER_CODE, 0x900000, 0x100 },
	{ EFI_BS_DATA, 0xa00000, 0x600 },
	{ EFI_ACPI_RECLAIM, 0x1000000, 0x10 },
	{ EFI_RUNTIME_DATA, 0x1010000, 0x10 },
	{ EFI_RESERVED, 0x1020000, 0x10 },
	{ EFI_MMIO, 0xffc00000, 0x400 },
};
#define EFI_MAP_COUNT (sizeof(efi_map) / sizeof(efi_map[0]))

static void test_firmware_bios(void **state)
{
	(void)state;
	mbi_begin();
	mbi_add_mmap(24, pc_map, PC_MAP_COUNT);
	assert_int_equal(bootinfo_parse(&info, mbi.buf, mbi_finish()), 0);
	assert_int_equal(info.firmware, BOOT_FIRMWARE_BIOS);
	assert_int_equal(info.mmap_source, BOOT_MMAP_BIOS);
	assert_false(info.efi_boot_services);
}

/* Boot services exited: the loader's and their memory are RAM as well. */
static void test_efi_mmap_only(void **state)
{
	(void)state;
	mbi_begin();
	mbi_add_efi_mmap(48, efi_map, EFI_MAP_COUNT);
	assert_int_equal(bootinfo_parse(&info, mbi.buf, mbi_finish()), 0);
	assert_int_equal(info.firmware, BOOT_FIRMWARE_UEFI);
	assert_int_equal(info.mmap_source, BOOT_MMAP_EFI);
	assert_int_equal(info.ram.count, 2);
	assert_int_equal(info.ram.range[0].base, 0x0);
	assert_int_equal(info.ram.range[0].length, 0xa0000);
	assert_int_equal(info.ram.range[1].base, 0x100000);
	assert_int_equal(info.ram.range[1].length, 0x1000000 - 0x100000);
}

/* Boot services still running, their tag after the map: only conventional memory. */
static void test_efi_boot_services_running(void **state)
{
	(void)state;
	mbi_begin();
	mbi_add_efi_mmap(40, efi_map, EFI_MAP_COUNT);
	mbi_add_tag(TAG_EFI_BS, NULL, 0);
	assert_int_equal(bootinfo_parse(&info, mbi.buf, mbi_finish()), 0);
	assert_true(info.efi_boot_services);
	assert_int_equal(info.ram.count, 2);
	assert_int_equal(info.ram.range[0].base, 0x1000);
	assert_int_equal(info.ram.range[0].length, 0x9f000);
	assert_int_equal(info.ram.range[1].base, 0x100000);
	assert_int_equal(info.ram.range[1].length, 0x700000);
}

/* GRUB gives both maps under OVMF: the memory map tag is the one read. */
static void test_efi_both_maps(void **state)
{
	uint64_t system_table = 0x7f9ee018;

	(void)state;
	mbi_begin();
	mbi_add_tag(TAG_EFI64, &system_table, sizeof(system_table));
	mbi_add_efi_mmap(48, efi_map, EFI_MAP_COUNT);
	mbi_add_mmap(24, pc_map, PC_MAP_COUNT);
	assert_int_equal(bootinfo_parse(&info, mbi.buf, mbi_finish()), 0);
	assert_int_equal(info.firmware, BOOT_FIRMWARE_UEFI);
	assert_int_equal(info.mmap_source, BOOT_MMAP_BIOS);
	assert_int_equal(info.ram.count, 3);
	assert_int_equal(info.ram.range[2].base, 0x100000000);

	/* The system table alone says UEFI too. */
	mbi_begin();
	mbi_add_tag(TAG_EFI64, &system_table, sizeof(system_table));
	assert_int_equal(bootinfo_parse(&info, mbi.buf, mbi_finish()), 0);
	assert_int_equal(info.firmware, BOOT_FIRMWARE_UEFI);
	assert_int_equal(info.mmap_source, BOOT_MMAP_NONE);
	assert_int_equal(info.ram.count, 0);
}

static void test_efi_mmap_malformed(void **state)
{
	static const struct efi_desc huge[] = {
		{ EFI_CONVENTIONAL, 0x100000, UINT64_MAX >> 11 },	/* bytes past 64 bits */
		{ EFI_CONVENTIONAL, 0x200000, 0x10 },
		{ EFI_CONVENTIONAL, UINT64_MAX - 0xfff, 2 },		/* wraps */
	};
	static const uint8_t short_tag[4] = { 40 };

	(void)state;
	/* Descriptors shorter than the fields read: the map is refused. */
	mbi_begin();
	mbi_add_efi_mmap(32, efi_map, 4);
	assert_int_equal(parse_quietly(mbi_finish()), 0);
	assert_non_null(strstr(log_text, "EFI memory map entry size 32 below 40"));
	assert_int_equal(info.ram.count, 0);
	assert_int_equal(info.firmware, BOOT_FIRMWARE_UEFI);

	/* A tag too short for its own fixed part. */
	mbi_begin();
	mbi_add_tag(TAG_EFI_MMAP, short_tag, sizeof(short_tag));
	assert_int_equal(parse_quietly(mbi_finish()), 0);
	assert_non_null(strstr(log_text, "EFI memory map tag too short"));
	assert_int_equal(info.ram.count, 0);

	mbi_begin();
	mbi_add_efi_mmap(40, huge, 3);
	assert_int_equal(parse_quietly(mbi_finish()), 0);
	assert_non_null(strstr(log_text, "more than 64 bits hold"));
	assert_non_null(strstr(log_text, "wraps"));
	assert_int_equal(info.ram.count, 1);
	assert_int_equal(info.ram.range[0].base, 0x200000);
	assert_int_equal(info.ram.range[0].length, 0x10000);
}

static void test_header_unusable(void **state)
{
	(void)state;
	mbi_begin();
	mbi_finish();
	stderr_capture_begin();
	assert_int_equal(bootinfo_parse(&info, NULL, 64), -1);
	assert_int_equal(bootinfo_parse(&info, mbi.buf, 0), -1);
	assert_int_equal(bootinfo_parse(&info, mbi.buf, 7), -1);
	put_u32(0, 7);
	assert_int_equal(bootinfo_parse(&info, mbi.buf, 16), -1);
	put_u32(0, 0);
	assert_int_equal(bootinfo_parse(&info, mbi.buf, 16), -1);
	stderr_capture_end(log_text, sizeof(log_text));
	assert_int_equal(info.module_count, 0);
	assert_int_equal(info.ram.count, 0);

	/* Only the fixed part, no tags: usable but empty, and reported. */
	put_u32(0, 8);
	assert_int_equal(parse_quietly(16), 0);
	assert_non_null(strstr(log_text, "without an end tag"));
}

static void test_size_smaller_than_total(void **state)
{
	size_t total, cut;

	(void)state;
	mbi_begin();
	mbi_add_cmdline("first");
	cut = mbi.len;
	mbi_add_module(0x1000, 0x2000, "cut-off");
	total = mbi_finish();

	/* The buffer ends inside the module tag: the tag is never read. */
	assert_int_equal(parse_quietly(cut + 12), 0);
	assert_string_equal(info.cmdline, "first");
	assert_int_equal(info.module_count, 0);
	assert_non_null(strstr(log_text, "bad size"));

	assert_int_equal(parse_quietly(total), 0);
	assert_int_equal(info.module_count, 1);
}

static void test_total_smaller_than_size(void **state)
{
	size_t cut;

	(void)state;
	mbi_begin();
	mbi_add_cmdline("first");
	cut = mbi.len;
	mbi_add_module(0x1000, 0x2000, "beyond");
	mbi_finish();

	/* total_size says the structure ends before the module tag. */
	put_u32(0, (uint32_t)cut);
	assert_int_equal(parse_quietly(sizeof(mbi.buf)), 0);
	assert_string_equal(info.cmdline, "first");
	assert_int_equal(info.module_count, 0);
	assert_non_null(strstr(log_text, "without an end tag"));
}

static void test_bad_tag_sizes(void **state)
{
	size_t bad;

	(void)state;
	/* A size below the tag header would loop forever or read backwards. */
	mbi_begin();
	mbi_add_module(0x1000, 0x2000, "kept");
	bad = mbi.len;
	mbi_add_module(0x3000, 0x4000, "lost");
	put_u32(bad + 4, 4);
	assert_int_equal(parse_quietly(mbi_finish()), 0);
	assert_non_null(strstr(log_text, "bad size 4"));
	assert_int_equal(info.module_count, 1);
	assert_string_equal(info.module[0].name, "kept");

	/* A size running past the end. */
	mbi_begin();
	mbi_add_module(0x1000, 0x2000, "kept");
	bad = mbi.len;
	mbi_add_module(0x3000, 0x4000, "lost");
	put_u32(bad + 4, 0xfffffff0u);
	assert_int_equal(parse_quietly(mbi_finish()), 0);
	assert_non_null(strstr(log_text, "bad size"));
	assert_int_equal(info.module_count, 1);

	/* Oversize total_size with a short buffer: the buffer length rules. */
	mbi_begin();
	mbi_add_cmdline("x");
	put_u32(0, 0xffffffffu);
	assert_int_equal(parse_quietly(mbi.len), 0);
	assert_string_equal(info.cmdline, "x");
}

static void test_unterminated_strings(void **state)
{
	uint8_t payload[16];
	char long_name[BOOTINFO_NAME_MAX + 1];
	uint32_t start = 0x1000, end = 0x2000;

	(void)state;
	memset(long_name, 'n', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';

	mbi_begin();
	mbi_add_tag(TAG_CMDLINE, "no-nul", 6);
	memcpy(payload, &start, 4);
	memcpy(payload + 4, &end, 4);
	memcpy(payload + 8, "12345678", 8);	/* name fills the tag, no NUL */
	mbi_add_tag(TAG_MODULE, payload, 16);
	mbi_add_tag(TAG_MODULE, payload, 4);	/* too short for the addresses */
	mbi_add_module(0x3000, 0x4000, long_name);	/* 64 characters: one too many */
	long_name[BOOTINFO_NAME_MAX - 1] = '\0';
	mbi_add_module(0x5000, 0x6000, long_name);	/* 63 characters: fits */
	assert_int_equal(parse_quietly(mbi_finish()), 0);

	assert_non_null(strstr(log_text, "command line"));
	assert_non_null(strstr(log_text, "module tag too short"));
	assert_string_equal(info.cmdline, "");
	assert_int_equal(info.module_count, 1);
	assert_int_equal(info.module[0].start, 0x5000);
	assert_string_equal(info.module[0].name, long_name);
}

static void test_cmdline_too_long(void **state)
{
	char cmdline[300];

	(void)state;
	memset(cmdline, 'c', sizeof(cmdline) - 1);
	cmdline[sizeof(cmdline) - 1] = '\0';
	mbi_begin();
	mbi_add_cmdline(cmdline);
	assert_int_equal(parse_quietly(mbi_finish()), 0);
	assert_string_equal(info.cmdline, "");
	assert_non_null(strstr(log_text, "command line"));

	cmdline[sizeof(info.cmdline) - 1] = '\0';
	mbi_begin();
	mbi_add_cmdline(cmdline);
	assert_int_equal(bootinfo_parse(&info, mbi.buf, mbi_finish()), 0);
	assert_string_equal(info.cmdline, cmdline);
}

static void test_too_many_modules(void **state)
{
	char name[16];
	unsigned int i;

	(void)state;
	mbi_begin();
	for (i = 0; i < BOOTINFO_MAX_MODULES + 2; i++) {
		snprintf(name, sizeof(name), "module%u", i);
		mbi_add_module(i * 0x10000, i * 0x10000 + 0x1000, name);
	}
	assert_int_equal(parse_quietly(mbi_finish()), 0);
	assert_non_null(strstr(log_text, "module limit"));
	assert_int_equal(info.module_count, BOOTINFO_MAX_MODULES);
	assert_non_null(bootinfo_find_module(&info, "module15"));
	assert_null(bootinfo_find_module(&info, "module16"));
}

static void test_module_ends_before_start(void **state)
{
	(void)state;
	mbi_begin();
	mbi_add_module(0x5000, 0x4000, "backwards");
	mbi_add_module(0x6000, 0x7000, "fine");
	assert_int_equal(parse_quietly(mbi_finish()), 0);
	assert_non_null(strstr(log_text, "before it starts"));
	assert_int_equal(info.module_count, 1);
	assert_null(bootinfo_find_module(&info, "backwards"));
}

static void test_unknown_tags_skipped(void **state)
{
	static const uint8_t junk[13] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 };

	(void)state;
	mbi_begin();
	mbi_add_tag(2, "GRUB 2.06", 10);	/* boot loader name */
	mbi_add_tag(0x1234, junk, sizeof(junk));
	mbi_add_cmdline("seen");
	assert_int_equal(parse_quietly(mbi_finish()), 0);
	assert_string_equal(log_text, "");
	assert_string_equal(info.cmdline, "seen");
}

static void test_end_tag_stops_walk(void **state)
{
	size_t total;

	(void)state;
	mbi_begin();
	mbi_add_cmdline("before");
	mbi_add_tag(TAG_END, NULL, 0);
	mbi_add_module(0x1000, 0x2000, "after");
	total = mbi.len;
	put_u32(0, (uint32_t)total);
	assert_int_equal(bootinfo_parse(&info, mbi.buf, total), 0);
	assert_string_equal(info.cmdline, "before");
	assert_int_equal(info.module_count, 0);
}

static void test_unaligned_structure(void **state)
{
	static uint8_t shifted[sizeof(mbi.buf) + 1];
	size_t total;

	(void)state;
	mbi_begin();
	mbi_add_cmdline("odd");
	mbi_add_mmap(24, pc_map, PC_MAP_COUNT);
	mbi_add_module(0x1000, 0x2000, "m");
	total = mbi_finish();
	memcpy(shifted + 1, mbi.buf, total);
	assert_int_equal(bootinfo_parse(&info, shifted + 1, total), 0);
	assert_string_equal(info.cmdline, "odd");
	assert_int_equal(info.ram.count, 3);
	assert_int_equal(info.module_count, 1);
}

/*
 * The boot flow: available RAM from the memory map, minus the hypervisor
 * image and the modules, split by NUMA node ranges (as SRAT gives them) and
 * handed to one pool per node. Node 0 owns [0, 2G) and [4G, 5G), node 1 owns
 * [5G, 6G).
 */
#define IMAGE_START	0x100000ull
#define IMAGE_END	0x180000ull

struct node_window {
	unsigned int node;
	uint64_t base, length;
};

static const struct node_window node_windows[] = {
	{ 0, 0, 2 * GIB },
	{ 0, 4 * GIB, GIB },
	{ 1, 5 * GIB, GIB },
};

static void test_boot_flow(void **state)
{
	struct memmap ram, node_ram, reserved;
	uint64_t node0_expected, block;
	unsigned int i, j, blocks;

	(void)state;
	mbi_begin();
	mbi_add_mmap(24, pc_map, PC_MAP_COUNT);
	mbi_add_module(0x180000, 0x180400, "sidecore.cfg");	/* right after the image */
	mbi_add_module(0x200000, 0x8a3000, "vmlinuz");
	mbi_add_module(0x900000, 0x2900000, "initrd");
	assert_int_equal(bootinfo_parse(&info, mbi.buf, mbi_finish()), 0);
	assert_int_equal(info.module_count, 3);

	ram = info.ram;
	memmap_init(&reserved);
	assert_true(memmap_remove(&ram, IMAGE_START, IMAGE_END - IMAGE_START));
	assert_true(memmap_add(&reserved, IMAGE_START, IMAGE_END - IMAGE_START));
	for (i = 0; i < info.module_count; i++) {
		uint64_t length = info.module[i].end - info.module[i].start;

		assert_true(memmap_remove(&ram, info.module[i].start, length));
		assert_true(memmap_add(&reserved, info.module[i].start, length));
	}

	page_alloc_init(2);
	for (i = 0; i < sizeof(node_windows) / sizeof(node_windows[0]); i++) {
		node_ram = ram;
		memmap_clip(&node_ram, node_windows[i].base, node_windows[i].length);
		for (j = 0; j < node_ram.count; j++)
			page_pool_add(page_alloc_pool(node_windows[i].node),
				      node_ram.range[j].base, node_ram.range[j].length);
	}

	/*
	 * Node 0: low memory without page 0 and the partial page at 0x9f000,
	 * the gaps between image and modules (the configuration file's partial
	 * page dropped), RAM up to the ACPI area, and [4G, 5G).
	 */
	node0_expected = (0x9f000 - 0x1000) +
			 (0x200000 - 0x181000) +
			 (0x900000 - 0x8a3000) +
			 (0x7fee0000 - 0x2900000) +
			 GIB;
	assert_int_equal(page_pool_free_bytes(page_alloc_pool(0)), node0_expected);
	assert_int_equal(page_pool_free_bytes(page_alloc_pool(1)), GIB);

	/* Every 2 MiB block node 0 hands out is its own RAM and nothing reserved. */
	blocks = 0;
	while ((block = page_alloc_node(0, PAGE_SIZE_2M, PAGE_SIZE_2M)) != 0) {
		assert_true(memmap_contains(&info.ram, block, PAGE_SIZE_2M));
		assert_false(memmap_overlaps(&reserved, block, PAGE_SIZE_2M));
		assert_true(block < 2 * GIB || (block >= 4 * GIB && block < 5 * GIB));
		blocks++;
	}
	/* [0x2a00000, 0x7fe00000) and [4G, 5G) hold whole aligned 2 MiB blocks. */
	assert_int_equal(blocks, (0x7fe00000 - 0x2a00000) / PAGE_SIZE_2M + GIB / PAGE_SIZE_2M);
	assert_int_equal(page_alloc_node(1, GIB, PAGE_SIZE_2M), 5 * GIB);
}

static int reset_info(void **state)
{
	(void)state;
	memset(&info, 0x5a, sizeof(info));	/* the parser must clear it */
	return 0;
}

int main(void)
{
	const struct CMUnitTest parse_tests[] = {
		cmocka_unit_test_setup(test_full_structure, reset_info),
		cmocka_unit_test_setup(test_find_module_exact, reset_info),
		cmocka_unit_test_setup(test_rsdp_versions, reset_info),
		cmocka_unit_test_setup(test_rsdp_too_short, reset_info),
		cmocka_unit_test_setup(test_mmap_reserved_wins, reset_info),
		cmocka_unit_test_setup(test_mmap_entry_size, reset_info),
		cmocka_unit_test_setup(test_mmap_wrapping_entry, reset_info),
		cmocka_unit_test_setup(test_unknown_tags_skipped, reset_info),
		cmocka_unit_test_setup(test_end_tag_stops_walk, reset_info),
		cmocka_unit_test_setup(test_unaligned_structure, reset_info),
		cmocka_unit_test_setup(test_firmware_bios, reset_info),
		cmocka_unit_test_setup(test_efi_mmap_only, reset_info),
		cmocka_unit_test_setup(test_efi_boot_services_running, reset_info),
		cmocka_unit_test_setup(test_efi_both_maps, reset_info),
	};
	const struct CMUnitTest malformed_tests[] = {
		cmocka_unit_test_setup(test_header_unusable, reset_info),
		cmocka_unit_test_setup(test_size_smaller_than_total, reset_info),
		cmocka_unit_test_setup(test_total_smaller_than_size, reset_info),
		cmocka_unit_test_setup(test_bad_tag_sizes, reset_info),
		cmocka_unit_test_setup(test_unterminated_strings, reset_info),
		cmocka_unit_test_setup(test_cmdline_too_long, reset_info),
		cmocka_unit_test_setup(test_too_many_modules, reset_info),
		cmocka_unit_test_setup(test_module_ends_before_start, reset_info),
		cmocka_unit_test_setup(test_efi_mmap_malformed, reset_info),
	};
	const struct CMUnitTest flow_tests[] = {
		cmocka_unit_test_setup(test_boot_flow, reset_info),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("bootinfo_parse", parse_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("bootinfo_malformed", malformed_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("boot_memory_flow", flow_tests, NULL, NULL);
	return failed;
}
