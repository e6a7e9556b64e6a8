/* SPDX-License-Identifier: MIT */
/*
 * test_linux_loader.c - bzImage checks, the zero page, boot tables and
 * placement of hv/guest/linux_loader.c, on synthesized images and, when `make
 * guest` has built it, the real guest kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <asm/e820.h>

#include "config/guest_layout.h"
#include "guest/linux_loader.h"

#define KIB 0x400ull
#define MIB 0x100000ull
#define GIB 0x40000000ull

#define TEST_RAM_SIZE (64 * MIB)
#define TEST_SETUP_SECTS 4
#define TEST_SETUP_SIZE ((TEST_SETUP_SECTS + 1) * 512)
#define TEST_KERNEL_SIZE (8 * KIB)
#define TEST_IMAGE_SIZE (TEST_SETUP_SIZE + TEST_KERNEL_SIZE)
#define TEST_INIT_SIZE (4 * MIB)
#define TEST_RSDP_GPA 0xe0000ull
#define HEADER_OFFSET offsetof(struct boot_params, hdr)
#define TOO_BIG "bzImage: init_size does not fit in guest RAM"

#define REAL_KERNEL "build/guest/vmlinuz"
#define REAL_INITRD "build/guest/initrd.img"

static uint8_t image[TEST_IMAGE_SIZE];
static uint8_t *ram;
static struct linux_image info;
static struct linux_entry_state entry;

/* A minimal bzImage: the setup header of protocol 2.15, then a patterned kernel. */
static void image_build(void)
{
	struct setup_header hdr;
	size_t i;

	memset(image, 0, sizeof(image));
	memset(&hdr, 0, sizeof(hdr));
	hdr.setup_sects = TEST_SETUP_SECTS;
	hdr.syssize = TEST_KERNEL_SIZE / 16;
	hdr.boot_flag = 0xaa55;
	hdr.jump = 0xeb | (uint16_t)((sizeof(struct setup_header) + HEADER_OFFSET - 0x202) << 8);
	hdr.header = 0x53726448;
	hdr.version = 0x020f;
	hdr.loadflags = LOADED_HIGH;
	hdr.initrd_addr_max = 0x7fffffff;
	hdr.kernel_alignment = 2 * MIB;
	hdr.relocatable_kernel = 1;
	hdr.min_alignment = 21;
	hdr.xloadflags = XLF_KERNEL_64 | XLF_CAN_BE_LOADED_ABOVE_4G;
	hdr.cmdline_size = 2047;
	hdr.payload_offset = 0x100;
	hdr.payload_length = 0x1000;
	hdr.pref_address = GUEST_KERNEL_GPA;
	hdr.init_size = TEST_INIT_SIZE;
	memcpy(image + HEADER_OFFSET, &hdr, sizeof(hdr));
	for (i = TEST_SETUP_SIZE; i < sizeof(image); i++)
		image[i] = (uint8_t)(i * 7 + 1);
}

/* The header inside image[], for a test to change before checking. */
static struct setup_header image_header(void)
{
	struct setup_header hdr;

	memcpy(&hdr, image + HEADER_OFFSET, sizeof(hdr));
	return hdr;
}

static void image_set_header(const struct setup_header *hdr)
{
	memcpy(image + HEADER_OFFSET, hdr, sizeof(*hdr));
}

static int setup(void **state)
{
	(void)state;
	image_build();
	ram = calloc(1, TEST_RAM_SIZE);
	return ram ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(ram);
	return 0;
}

static void assert_refused(size_t size, uint64_t ram_size, const char *reason)
{
	const char *got = linux_check_bzimage(image, size, ram_size, &info);

	assert_non_null(got);
	assert_string_equal(got, reason);
}

static const char *load(const char *cmdline, const void *initrd, size_t initrd_size)
{
	struct linux_boot_request request = {
		.kernel = image,
		.kernel_size = sizeof(image),
		.initrd = initrd,
		.initrd_size = initrd_size,
		.cmdline = cmdline,
		.rsdp_gpa = TEST_RSDP_GPA,
	};

	return linux_load_bzimage(ram, TEST_RAM_SIZE, &request, &entry);
}

static uint64_t ram_u64(uint64_t gpa)
{
	uint64_t value;

	memcpy(&value, ram + gpa, sizeof(value));
	return value;
}

static void test_accepts_synthetic_image(void **state)
{
	(void)state;
	assert_null(linux_check_bzimage(image, sizeof(image), TEST_RAM_SIZE, &info));
	assert_int_equal(info.protocol, 0x020f);
	assert_int_equal(info.setup_size, TEST_SETUP_SIZE);
	assert_int_equal(info.header_size, sizeof(struct setup_header));
	assert_int_equal(info.kernel_offset, TEST_SETUP_SIZE);
	assert_int_equal(info.kernel_size, TEST_KERNEL_SIZE);
	assert_int_equal(info.load_gpa, GUEST_KERNEL_GPA);
	assert_int_equal(info.init_size, TEST_INIT_SIZE);
	assert_int_equal(info.initrd_end_max, 0x80000000ull);
	assert_int_equal(info.cmdline_max, 2047);
}

static void test_rejects_short_image(void **state)
{
	(void)state;
	assert_refused(HEADER_OFFSET + sizeof(struct setup_header) - 1, TEST_RAM_SIZE,
		       "bzImage: smaller than a setup header");
	assert_refused(0, TEST_RAM_SIZE, "bzImage: smaller than a setup header");
}

static void test_rejects_bad_magic(void **state)
{
	struct setup_header hdr = image_header();

	(void)state;
	hdr.header = 0x53726449;
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE, "bzImage: no HdrS magic");
}

static void test_rejects_bad_boot_flag(void **state)
{
	struct setup_header hdr = image_header();

	(void)state;
	hdr.boot_flag = 0x55aa;
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE, "bzImage: no 0xAA55 boot flag");
}

static void test_rejects_old_protocol(void **state)
{
	struct setup_header hdr = image_header();

	(void)state;
	hdr.version = 0x020b;
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE, "bzImage: boot protocol older than 2.12");
}

/* The header's end is 0x202 + the byte at 0x201; 2.12 needs it past handover_offset. */
static void test_header_length_from_jump(void **state)
{
	struct setup_header hdr = image_header();
	size_t short_end = HEADER_OFFSET + offsetof(struct setup_header, kernel_info_offset);
	const struct boot_params *params;

	(void)state;
	hdr.jump = (uint16_t)(0xeb | (short_end - 1 - 0x202) << 8);
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE,
		       "bzImage: setup header shorter than protocol 2.12 defines");

	/* A 2.12 header ends before kernel_info_offset, which then reads as 0. */
	hdr.jump = (uint16_t)(0xeb | (short_end - 0x202) << 8);
	hdr.version = 0x020c;
	hdr.kernel_info_offset = 0x12345678;
	image_set_header(&hdr);
	assert_null(linux_check_bzimage(image, sizeof(image), TEST_RAM_SIZE, &info));
	assert_int_equal(info.header_size, short_end - HEADER_OFFSET);
	assert_null(load(NULL, NULL, 0));
	params = (const struct boot_params *)(ram + GUEST_ZERO_PAGE_GPA);
	assert_int_equal(params->hdr.kernel_info_offset, 0);
}

static void test_rejects_setup_past_image(void **state)
{
	struct setup_header hdr = image_header();

	(void)state;
	hdr.setup_sects = TEST_IMAGE_SIZE / 512;
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE,
		       "bzImage: no protected-mode kernel after the setup code");
}

static void test_setup_sects_zero_means_four(void **state)
{
	struct setup_header hdr = image_header();

	(void)state;
	hdr.setup_sects = 0;
	image_set_header(&hdr);
	assert_null(linux_check_bzimage(image, sizeof(image), TEST_RAM_SIZE, &info));
	assert_int_equal(info.setup_size, 5 * 512);
	assert_int_equal(info.kernel_offset, 5 * 512);
}

static void test_rejects_kernel_without_entry(void **state)
{
	(void)state;
	assert_refused(TEST_SETUP_SIZE + 0x200, TEST_RAM_SIZE,
		       "bzImage: protected-mode kernel ends before the 64-bit entry point");
}

static void test_rejects_zimage(void **state)
{
	struct setup_header hdr = image_header();

	(void)state;
	hdr.loadflags = 0;
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE, "bzImage: not loaded high (a zImage)");
}

static void test_rejects_32bit_kernel(void **state)
{
	struct setup_header hdr = image_header();

	(void)state;
	hdr.xloadflags = XLF_CAN_BE_LOADED_ABOVE_4G;
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE,
		       "bzImage: no 64-bit entry point (XLF_KERNEL_64 clear)");
}

static void test_rejects_payload_past_image(void **state)
{
	struct setup_header hdr = image_header();

	(void)state;
	hdr.syssize = TEST_KERNEL_SIZE / 16 + 1;
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE,
		       "bzImage: syssize runs past the end of the image");

	image_build();
	hdr = image_header();
	hdr.payload_offset = TEST_KERNEL_SIZE - 0x10;
	hdr.payload_length = 0x11;
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE,
		       "bzImage: compressed payload runs past the end of the image");

	/* The sum must not wrap around 32 bits. */
	hdr.payload_offset = 0xffffffff;
	hdr.payload_length = 2;
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE,
		       "bzImage: compressed payload runs past the end of the image");
}

static void test_rejects_bad_alignment(void **state)
{
	struct setup_header hdr = image_header();

	(void)state;
	hdr.kernel_alignment = 0;
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE,
		       "bzImage: kernel_alignment is not a power of two");
	hdr.kernel_alignment = 3 * MIB;
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE,
		       "bzImage: kernel_alignment is not a power of two");
}

static void test_honours_kernel_alignment(void **state)
{
	struct setup_header hdr = image_header();

	(void)state;
	hdr.kernel_alignment = 32 * MIB;
	image_set_header(&hdr);
	assert_null(linux_check_bzimage(image, sizeof(image), TEST_RAM_SIZE, &info));
	assert_int_equal(info.load_gpa, 32 * MIB);

	/* 1 GiB alignment puts the kernel beyond this guest's RAM. */
	hdr.kernel_alignment = GIB;
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE, TOO_BIG);
}

static void test_non_relocatable_uses_pref_address(void **state)
{
	struct setup_header hdr = image_header();

	(void)state;
	hdr.relocatable_kernel = 0;
	hdr.pref_address = 2 * MIB;
	image_set_header(&hdr);
	assert_null(linux_check_bzimage(image, sizeof(image), TEST_RAM_SIZE, &info));
	assert_int_equal(info.load_gpa, 2 * MIB);

	hdr.pref_address = 0x10000;
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE,
		       "bzImage: not relocatable and pref_address is not in high guest RAM");
	hdr.pref_address = TEST_RAM_SIZE;
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE,
		       "bzImage: not relocatable and pref_address is not in high guest RAM");
	hdr.pref_address = TEST_RAM_SIZE - TEST_INIT_SIZE + 0x1000;
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE, TOO_BIG);
}

static void test_rejects_init_size_beyond_ram(void **state)
{
	struct setup_header hdr = image_header();

	(void)state;
	hdr.init_size = (uint32_t)(TEST_RAM_SIZE - GUEST_KERNEL_GPA + 1);
	image_set_header(&hdr);
	assert_refused(sizeof(image), TEST_RAM_SIZE, TOO_BIG);
	hdr.init_size = (uint32_t)(TEST_RAM_SIZE - GUEST_KERNEL_GPA);
	image_set_header(&hdr);
	assert_null(linux_check_bzimage(image, sizeof(image), TEST_RAM_SIZE, &info));
}

static void test_rejects_bad_ram_size(void **state)
{
	(void)state;
	assert_refused(sizeof(image), LINUX_RAM_MIN - 4 * KIB,
		       "guest RAM: smaller than the 32 MiB minimum");
	assert_refused(sizeof(image), GUEST_RAM_MAX + 4 * KIB,
		       "guest RAM: reaches into the MMIO window");
	assert_refused(sizeof(image), TEST_RAM_SIZE + 512,
		       "guest RAM: not a whole number of 4 KiB pages");
	assert_null(linux_check_ram_size(LINUX_RAM_MIN));
	assert_null(linux_check_ram_size(GUEST_RAM_MAX));
}

static void test_load_writes_zero_page(void **state)
{
	static const char cmdline[] = "console=ttyS0 root=/dev/ram0";
	static const uint8_t initrd[5000] = { 0x1f, 0x8b, 0x08 };
	const struct boot_params *params = (const void *)(ram + GUEST_ZERO_PAGE_GPA);
	uint64_t initrd_gpa;

	(void)state;
	memset(ram, 0xa5, TEST_RAM_SIZE);
	assert_null(load(cmdline, initrd, sizeof(initrd)));

	/* The setup header as in the image, then the loader's fields. */
	assert_int_equal(params->hdr.version, 0x020f);
	assert_int_equal(params->hdr.init_size, TEST_INIT_SIZE);
	assert_int_equal(params->hdr.setup_sects, TEST_SETUP_SECTS);
	assert_int_equal(params->hdr.header, 0x53726448);
	assert_int_equal(params->hdr.type_of_loader, 0xff);
	assert_int_equal(params->hdr.loadflags, LOADED_HIGH);
	assert_int_equal(params->hdr.cmd_line_ptr, GUEST_CMDLINE_GPA);
	assert_int_equal(params->ext_cmd_line_ptr, 0);
	assert_int_equal(params->acpi_rsdp_addr, TEST_RSDP_GPA);
	assert_int_equal(params->sentinel, 0);
	assert_int_equal(params->screen_info.orig_video_isVGA, 0);

	/* The initrd: page-aligned, ending at most at the top of RAM. */
	initrd_gpa = params->hdr.ramdisk_image | (uint64_t)params->ext_ramdisk_image << 32;
	assert_int_equal(initrd_gpa, (TEST_RAM_SIZE - sizeof(initrd)) & ~0xfffull);
	assert_int_equal(initrd_gpa, entry.initrd_gpa);
	assert_int_equal(params->hdr.ramdisk_size, sizeof(initrd));
	assert_int_equal(params->ext_ramdisk_size, 0);
	assert_memory_equal(ram + initrd_gpa, initrd, sizeof(initrd));
	assert_true(initrd_gpa >= entry.kernel_end);

	/* Command line and kernel where the header and entry say. */
	assert_string_equal((const char *)ram + GUEST_CMDLINE_GPA, cmdline);
	assert_memory_equal(ram + GUEST_KERNEL_GPA, image + TEST_SETUP_SIZE, TEST_KERNEL_SIZE);
	assert_int_equal(entry.kernel_gpa, GUEST_KERNEL_GPA);
	assert_int_equal(entry.kernel_end, GUEST_KERNEL_GPA + TEST_INIT_SIZE);

	/* The e820 map as linux_build_e820() makes it. */
	assert_int_equal(params->e820_entries, LINUX_E820_ENTRIES);
	assert_int_equal(params->e820_table[2].addr, GUEST_HIGH_RAM_START);
	assert_int_equal(params->e820_table[2].size, TEST_RAM_SIZE - GUEST_HIGH_RAM_START);

	/* The low boot area is rewritten: no stale 0xa5 below the command line. */
	assert_int_equal(ram[0], 0);
	assert_int_equal(ram[GUEST_CMDLINE_GPA + sizeof(cmdline)], 0);
	assert_int_equal(ram[GUEST_CMDLINE_GPA + GUEST_CMDLINE_MAX - 1], 0);
}

static void test_load_writes_boot_tables(void **state)
{
	unsigned int i;

	(void)state;
	assert_null(load("", NULL, 0));

	/* boot.rst "64-bit Boot Protocol": entry, zero page, flat segments. */
	assert_int_equal(entry.rip, GUEST_KERNEL_GPA + 0x200);
	assert_int_equal(entry.rsi, GUEST_ZERO_PAGE_GPA);
	assert_int_equal(entry.rflags, 0x2);
	assert_int_equal(entry.cr3, GUEST_PML4_GPA);
	assert_int_equal(entry.cr0, 0x80000031);	/* PG, NE, ET, PE */
	assert_int_equal(entry.cr4, 0x20);		/* PAE */
	assert_int_equal(entry.efer, 0x500);		/* LMA, LME */
	assert_int_equal(entry.gdt_base, GUEST_GDT_GPA);
	assert_int_equal(entry.gdt_limit, 4 * 8 - 1);
	assert_int_equal(entry.cs_selector, 0x10);
	assert_int_equal(entry.ds_selector, 0x18);
	assert_int_equal(entry.cs_access_rights, 0xa09b);
	assert_int_equal(entry.ds_access_rights, 0xc093);
	assert_int_equal(entry.initrd_gpa, 0);
	assert_int_equal(entry.initrd_size, 0);

	assert_int_equal(ram_u64(GUEST_GDT_GPA), 0);
	assert_int_equal(ram_u64(GUEST_GDT_GPA + 0x08), 0);
	assert_int_equal(ram_u64(GUEST_GDT_GPA + 0x10), 0x00af9b000000ffffull);
	assert_int_equal(ram_u64(GUEST_GDT_GPA + 0x18), 0x00cf93000000ffffull);

	/* PML4[0] -> PDPT, PDPT[0..3] -> four PDs, 2048 2 MiB pages: 0 to 4 GiB. */
	assert_int_equal(ram_u64(GUEST_PML4_GPA), GUEST_PDPT_GPA | 0x3);
	assert_int_equal(ram_u64(GUEST_PML4_GPA + 8), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(ram_u64(GUEST_PDPT_GPA + i * 8),
				 (GUEST_PD_GPA + i * 0x1000) | 0x3);
	assert_int_equal(ram_u64(GUEST_PDPT_GPA + 4 * 8), 0);
	for (i = 0; i < 2048; i++)
		assert_int_equal(ram_u64(GUEST_PD_GPA + i * 8), i * 2 * MIB | 0x83);

	/* An empty command line is an empty string; no initrd is zeros. */
	assert_int_equal(ram[GUEST_CMDLINE_GPA], 0);
	assert_int_equal(((struct boot_params *)(ram + GUEST_ZERO_PAGE_GPA))->hdr.ramdisk_image, 0);
}

static void test_load_checks_cmdline(void **state)
{
	char *cmdline = malloc(GUEST_CMDLINE_MAX + 1);

	(void)state;
	assert_non_null(cmdline);
	memset(cmdline, 'x', GUEST_CMDLINE_MAX);
	cmdline[GUEST_CMDLINE_MAX] = '\0';
	assert_string_equal(load(cmdline, NULL, 0),
			    "cmdline: longer than the guest's 4 KiB buffer");
	cmdline[2048] = '\0';
	assert_string_equal(load(cmdline, NULL, 0),
			    "cmdline: longer than the kernel's cmdline_size");
	cmdline[2047] = '\0';
	assert_null(load(cmdline, NULL, 0));
	assert_string_equal((const char *)ram + GUEST_CMDLINE_GPA, cmdline);
	free(cmdline);
}

static void test_load_checks_initrd(void **state)
{
	struct setup_header hdr = image_header();
	static const uint8_t initrd[64] = { 1 };

	(void)state;
	/* Too large to sit above the kernel's init_size area. */
	assert_string_equal(load("", initrd, TEST_RAM_SIZE - GUEST_KERNEL_GPA - TEST_INIT_SIZE + 1),
			    "initrd: no room between the kernel and the top of guest RAM");
	assert_string_equal(load("", initrd, TEST_RAM_SIZE + 1),
			    "initrd: larger than the memory the kernel can reach");

	/* initrd_addr_max caps it below the top of RAM. */
	hdr.initrd_addr_max = 48 * MIB - 1;
	image_set_header(&hdr);
	assert_null(load("", initrd, sizeof(initrd)));
	assert_int_equal(entry.initrd_gpa, 48 * MIB - 4 * KIB);
	assert_true(entry.initrd_gpa + entry.initrd_size - 1 <= hdr.initrd_addr_max);

	hdr.initrd_addr_max = GUEST_KERNEL_GPA + TEST_INIT_SIZE;
	image_set_header(&hdr);
	assert_string_equal(load("", initrd, sizeof(initrd)),
			    "initrd: no room between the kernel and the top of guest RAM");
}

static void test_refused_load_leaves_ram_alone(void **state)
{
	struct setup_header hdr = image_header();
	size_t i;

	(void)state;
	memset(ram, 0x5a, TEST_RAM_SIZE);
	hdr.cmdline_size = 3;
	image_set_header(&hdr);
	assert_non_null(load("four", NULL, 0));
	for (i = 0; i < TEST_RAM_SIZE; i += 4 * KIB)
		assert_int_equal(ram[i], 0x5a);
	assert_int_equal(ram[GUEST_ZERO_PAGE_GPA + 0x1f1], 0x5a);
	assert_int_equal(entry.rip, 0);
}

static void test_load_without_kernel(void **state)
{
	struct linux_boot_request request = { 0 };

	(void)state;
	assert_string_equal(linux_load_bzimage(ram, TEST_RAM_SIZE, &request, &entry),
			    "bzImage: missing");
}

static void test_e820_map(void **state)
{
	struct boot_e820_entry table[8];
	unsigned int i;

	(void)state;
	assert_int_equal(linux_build_e820(table, 8, 512 * MIB), LINUX_E820_ENTRIES);
	assert_int_equal(table[0].addr, 0);
	assert_int_equal(table[0].size, GUEST_LOW_RAM_END);
	assert_int_equal(table[0].type, E820_RAM);
	assert_int_equal(table[1].addr, GUEST_ACPI_GPA);
	assert_int_equal(table[1].size, GUEST_ACPI_SIZE);
	assert_int_equal(table[1].type, E820_RESERVED);
	assert_int_equal(table[2].addr, GUEST_HIGH_RAM_START);
	assert_int_equal(table[2].size, 512 * MIB - GUEST_HIGH_RAM_START);
	assert_int_equal(table[2].type, E820_RAM);
	assert_int_equal(table[3].addr, GUEST_ECAM_GPA);
	assert_int_equal(table[3].size, GUEST_ECAM_SIZE);
	assert_int_equal(table[3].type, E820_RESERVED);

	/* Sorted, disjoint, RAM below the MMIO window. */
	for (i = 1; i < LINUX_E820_ENTRIES; i++)
		assert_true(table[i - 1].addr + table[i - 1].size <= table[i].addr);

	assert_int_equal(linux_build_e820(table, LINUX_E820_ENTRIES - 1, 512 * MIB), 0);
	assert_int_equal(linux_build_e820(table, 8, GUEST_HIGH_RAM_START), 0);
	assert_int_equal(linux_build_e820(table, 8, GUEST_RAM_MAX + 1), 0);
	assert_int_equal(linux_build_e820(table, 8, GUEST_RAM_MAX), LINUX_E820_ENTRIES);
	assert_int_equal(table[2].addr + table[2].size, GUEST_RAM_MAX);
}

/* The whole file, or NULL when it does not exist. */
static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *file = fopen(path, "rb");
	uint8_t *data;
	long length;

	if (!file)
		return NULL;
	assert_int_equal(fseek(file, 0, SEEK_END), 0);
	length = ftell(file);
	assert_true(length > 0);
	rewind(file);
	data = malloc((size_t)length);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, (size_t)length, file), (size_t)length);
	fclose(file);
	*size = (size_t)length;
	return data;
}

static void test_real_kernel(void **state)
{
	const uint64_t real_ram_size = 256 * MIB;
	struct linux_boot_request request = { .cmdline = "console=ttyS0", .rsdp_gpa = 0xe0000 };
	const struct boot_params *params;
	uint8_t *real_ram, *kernel, *initrd;
	size_t kernel_size, initrd_size = 0;

	(void)state;
	kernel = read_file(REAL_KERNEL, &kernel_size);
	if (!kernel) {
		print_message("# %s not built (make guest), skipped\n", REAL_KERNEL);
		skip();
	}
	initrd = read_file(REAL_INITRD, &initrd_size);
	real_ram = calloc(1, real_ram_size);
	assert_non_null(real_ram);
	request.kernel = kernel;
	request.kernel_size = kernel_size;
	request.initrd = initrd;
	request.initrd_size = initrd ? initrd_size : 0;

	assert_null(linux_check_bzimage(kernel, kernel_size, real_ram_size, &info));
	assert_true(info.protocol >= 0x020c);
	assert_null(linux_load_bzimage(real_ram, real_ram_size, &request, &entry));
	assert_int_equal(entry.rip, info.load_gpa + 0x200);
	assert_int_equal(info.load_gpa % 0x200000, 0);
	assert_memory_equal(real_ram + info.load_gpa, kernel + info.kernel_offset,
			    info.kernel_size);
	params = (const void *)(real_ram + GUEST_ZERO_PAGE_GPA);
	assert_int_equal(params->hdr.version, info.protocol);
	assert_int_equal(params->hdr.header, 0x53726448);
	assert_int_equal(params->hdr.type_of_loader, 0xff);
	assert_string_equal((const char *)real_ram + GUEST_CMDLINE_GPA, "console=ttyS0");
	if (initrd) {
		assert_true(entry.initrd_gpa >= entry.kernel_end);
		assert_int_equal(entry.initrd_gpa % 4096, 0);
		assert_true(entry.initrd_gpa + initrd_size <= real_ram_size);
		assert_memory_equal(real_ram + entry.initrd_gpa, initrd, initrd_size);
	}
	print_message("# %s: protocol %x, loaded at %#llx, needs up to %#llx\n", REAL_KERNEL,
		      info.protocol, (unsigned long long)info.load_gpa,
		      (unsigned long long)entry.kernel_end);
	free(real_ram);
	free(initrd);
	free(kernel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_accepts_synthetic_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects_short_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects_bad_magic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects_bad_boot_flag, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects_old_protocol, setup, teardown),
		cmocka_unit_test_setup_teardown(test_header_length_from_jump, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects_setup_past_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_setup_sects_zero_means_four, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects_kernel_without_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects_zimage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects_32bit_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects_payload_past_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects_bad_alignment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_honours_kernel_alignment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_non_relocatable_uses_pref_address, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rejects_init_size_beyond_ram, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects_bad_ram_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_writes_zero_page, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_writes_boot_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_checks_cmdline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_checks_initrd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_load_leaves_ram_alone, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_load_without_kernel, setup, teardown),
		cmocka_unit_test(test_e820_map),
		cmocka_unit_test(test_real_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
