// SPDX-License-Identifier: MIT
/*
 * fuzz_bzimage.c - arbitrary bytes as a bzImage for hv/guest/linux_loader.c.
 *
 * The input is the image; its last two bytes also pick the guest RAM size
 * (32 to 39 MiB) and the initrd size, so placement at the edges of RAM is
 * exercised too. Whatever the loader accepts must be placed inside RAM,
 * above the boot structures, with the initrd clear of the kernel; whatever it
 * refuses must come with a reason and leave RAM untouched. A broken promise
 * aborts, which libFuzzer reports.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/guest_layout.h"
#include "guest/linux_loader.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define MIB 0x100000ull
#define FUZZ_RAM_MAX (LINUX_RAM_MIN + 8 * MIB)
#define FUZZ_INITRD_MAX (64 * 4096)
#define FUZZ_CANARY 0xc5
/* What a load rewrites below 1 MiB: 0 to the end of the command line. */
#define FUZZ_LOW_AREA (GUEST_CMDLINE_GPA + GUEST_CMDLINE_MAX)

static uint8_t *ram;
static uint8_t initrd[FUZZ_INITRD_MAX];
static uint8_t canary[FUZZ_LOW_AREA];

static void check_loaded(const uint8_t *data, size_t size, uint64_t ram_size,
			 const struct linux_image *image, const struct linux_entry_state *entry,
			 size_t initrd_size)
{
	const struct boot_params *params = (const void *)(ram + GUEST_ZERO_PAGE_GPA);

	CHECK(image->load_gpa >= GUEST_HIGH_RAM_START);
	CHECK(entry->kernel_gpa == image->load_gpa);
	CHECK(entry->rip == image->load_gpa + 0x200);
	CHECK(entry->kernel_end <= ram_size);
	CHECK(entry->kernel_end - entry->kernel_gpa >= image->kernel_size);
	CHECK(image->kernel_offset + image->kernel_size == size);
	CHECK(memcmp(ram + entry->kernel_gpa, data + image->kernel_offset,
		     image->kernel_size) == 0);
	CHECK(image->protocol >= 0x020c);

	if (initrd_size) {
		CHECK(entry->initrd_size == initrd_size);
		CHECK(entry->initrd_gpa % 4096 == 0);
		CHECK(entry->initrd_gpa >= entry->kernel_end);
		CHECK(entry->initrd_gpa + initrd_size <= ram_size);
		CHECK(entry->initrd_gpa + initrd_size <= image->initrd_end_max);
		CHECK(params->hdr.ramdisk_image == entry->initrd_gpa);
	} else {
		CHECK(entry->initrd_gpa == 0 && params->hdr.ramdisk_image == 0);
	}

	CHECK(params->hdr.header == 0x53726448);
	CHECK(params->hdr.type_of_loader == 0xff);
	CHECK(params->hdr.cmd_line_ptr == GUEST_CMDLINE_GPA);
	CHECK(params->e820_entries == LINUX_E820_ENTRIES);
	CHECK(params->e820_table[2].addr + params->e820_table[2].size == ram_size);
	CHECK(strcmp((const char *)ram + GUEST_CMDLINE_GPA, "console=ttyS0") == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct linux_boot_request request = { .kernel = data, .kernel_size = size,
					      .cmdline = "console=ttyS0" };
	struct linux_entry_state entry;
	struct linux_image image;
	const char *checked, *loaded;
	uint64_t ram_size = LINUX_RAM_MIN;
	size_t initrd_size = 0;

	if (!ram) {
		ram = malloc(FUZZ_RAM_MAX);
		CHECK(ram);
		memset(initrd, 0x1f, sizeof(initrd));
		memset(canary, FUZZ_CANARY, sizeof(canary));
	}
	if (size >= 2) {
		ram_size += (data[size - 1] & 7) * MIB;
		initrd_size = (size_t)data[size - 2] * 1021 % FUZZ_INITRD_MAX;
	}
	request.initrd = initrd;
	request.initrd_size = initrd_size;

	/* The low boot area, written first on success, tells whether a refusal wrote. */
	memcpy(ram, canary, sizeof(canary));
	checked = linux_check_bzimage(data, size, ram_size, &image);
	loaded = linux_load_bzimage(ram, ram_size, &request, &entry);
	if (checked) {
		/* Refused for the same reason, without writing anything. */
		CHECK(loaded && strcmp(checked, loaded) == 0);
	}
	if (loaded) {
		CHECK(strlen(loaded) > 0);
		CHECK(entry.rip == 0);
		CHECK(memcmp(ram, canary, sizeof(canary)) == 0);
		return 0;
	}
	check_loaded(data, size, ram_size, &image, &entry, initrd_size);
	return 0;
}
