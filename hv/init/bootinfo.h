/* SPDX-License-Identifier: MIT */
/*
 * bootinfo.h - what the boot loader handed over, parsed from multiboot2.
 */
#ifndef SIDECORE_INIT_BOOTINFO_H
#define SIDECORE_INIT_BOOTINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mm/memmap.h"

#define MULTIBOOT2_BOOTLOADER_MAGIC 0x36d76289u
#define BOOTINFO_MAX_MODULES 16
#define BOOTINFO_NAME_MAX 64
#define BOOTINFO_RSDP_MAX 36	/* ACPI 2.0+ RSDP size */

struct boot_module {
	uint64_t start;
	uint64_t end;		/* exclusive */
	char name[BOOTINFO_NAME_MAX];	/* the module's command-line string */
};

/* What the machine booted from, told by the tags only UEFI firmware brings. */
enum boot_firmware {
	BOOT_FIRMWARE_BIOS,
	BOOT_FIRMWARE_UEFI,
};

/* Which tag the RAM map came from. */
enum boot_mmap_source {
	BOOT_MMAP_NONE,
	BOOT_MMAP_BIOS,		/* the memory map tag, E820 types */
	BOOT_MMAP_EFI,		/* the EFI memory map tag, with no memory map tag */
};

struct boot_info {
	struct memmap ram;		/* available ranges */
	enum boot_mmap_source mmap_source;
	enum boot_firmware firmware;
	bool efi_boot_services;		/* the loader left EFI boot services running */
	struct boot_module module[BOOTINFO_MAX_MODULES];
	unsigned int module_count;
	uint8_t rsdp[BOOTINFO_RSDP_MAX];	/* copy of the RSDP from tag 14 or 15 */
	unsigned int rsdp_size;			/* 0 when no ACPI tag */
	char cmdline[256];
};

/*
 * Parses the multiboot2 information structure at mbi, never reading beyond
 * size bytes (the hypervisor passes the structure's own total_size; the
 * fuzzer passes its buffer length). Malformed tags are reported and end the
 * walk. Returns 0, or -1 when the header itself is unusable.
 */
int bootinfo_parse(struct boot_info *info, const void *mbi, size_t size);

/* The module with this name, or NULL. */
const struct boot_module *bootinfo_find_module(const struct boot_info *info,
					       const char *name);

#endif
