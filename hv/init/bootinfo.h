/* SPDX-License-Identifier: MIT */
/*
 * bootinfo.h - what the boot loader handed over, parsed from multiboot2.
 */
#ifndef SIDECORE_INIT_BOOTINFO_H
#define SIDECORE_INIT_BOOTINFO_H

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

struct boot_info {
	struct memmap ram;		/* type 1 (available) ranges */
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
