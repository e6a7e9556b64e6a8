/* SPDX-License-Identifier: MIT */
/*
 * bootinfo.c - the multiboot2 boot information structure, parsed.
 *
 * Layout per the Multiboot2 specification, section 3.6 "Boot information":
 * an 8-byte fixed part (total_size, reserved) followed by tags, each starting
 * on an 8-byte boundary with a {type, size} header, the last one of type 0.
 *
 * Under UEFI firmware GRUB adds the EFI system table and memory map tags;
 * the memory map tag (E820 types) is taken where it is there, the EFI map
 * otherwise, and either firmware's RSDP comes in the ACPI tags, so nothing
 * is read from BIOS areas (docs/boot.md, "Firmware").
 *
 * The structure comes from the boot loader here and from arbitrary bytes in
 * the fuzzer, so every field is read with memcpy (no alignment assumed) and
 * every length is checked against the bytes actually available before use.
 */
#include <stdbool.h>
#include <string.h>

#include "init/bootinfo.h"
#include "lib/log.h"

/* Tag types, Multiboot2 specification sections 3.6.2 to 3.6.17. */
#define MB2_TAG_END		0
#define MB2_TAG_CMDLINE		1	/* 3.6.5 Boot command line */
#define MB2_TAG_MODULE		3	/* 3.6.6 Modules */
#define MB2_TAG_MMAP		6	/* 3.6.8 Memory map */
#define MB2_TAG_EFI32		11	/* 3.6 "EFI 32-bit system table pointer" */
#define MB2_TAG_EFI64		12	/* 3.6 "EFI 64-bit system table pointer" */
#define MB2_TAG_ACPI_OLD	14	/* 3.6.16 ACPI old RSDP */
#define MB2_TAG_ACPI_NEW	15	/* 3.6.17 ACPI new RSDP */
#define MB2_TAG_EFI_MMAP	17	/* 3.6 "EFI memory map" */
#define MB2_TAG_EFI_BS		18	/* 3.6 "EFI boot services not terminated" */
#define MB2_TAG_EFI32_IH	19	/* 3.6 "EFI 32-bit image handle pointer" */
#define MB2_TAG_EFI64_IH	20	/* 3.6 "EFI 64-bit image handle pointer" */

/* 3.6.2: the fixed part and every tag header are two u32 fields. */
#define MB2_FIXED_SIZE		8
#define MB2_TAG_HEADER_SIZE	8
/* 3.6.2: every tag starts on an 8-byte boundary, the previous one padded up to it. */
#define MB2_TAG_ALIGN		8

/* 3.6.6: mod_start and mod_end (u32 each) come before the string. */
#define MB2_MODULE_FIXED_SIZE	8
/* 3.6.8, and "EFI memory map": two u32 fields (entry size and version) come before the entries. */
#define MB2_MMAP_FIXED_SIZE	8
/* 3.6.8: base_addr u64, length u64, type u32, reserved u32. */
#define MB2_MMAP_ENTRY_MIN	24
#define MB2_MMAP_AVAILABLE	1

/*
 * UEFI 2.10 section 7.2, EFI_BOOT_SERVICES.GetMemoryMap(): a descriptor is
 * Type u32, padding to 8, PhysicalStart u64, VirtualStart u64,
 * NumberOfPages u64, Attribute u64; firmware may make it longer.
 */
#define EFI_DESC_MIN		40
#define EFI_DESC_START		8
#define EFI_DESC_PAGES		24
#define EFI_PAGE_SHIFT		12	/* the map counts 4 KiB pages whatever the CPU's */
/* UEFI 2.10 section 7.2, EFI_MEMORY_TYPE. */
#define EFI_LOADER_CODE		1
#define EFI_LOADER_DATA		2
#define EFI_BOOT_SERVICES_CODE	3
#define EFI_BOOT_SERVICES_DATA	4
#define EFI_CONVENTIONAL_MEMORY	7

/* ACPI 6.5, 5.2.5.3: the RSDP is 20 bytes in ACPI 1.0 and 36 from 2.0 on. */
#define ACPI_RSDP_V1_SIZE	20
#define ACPI_RSDP_V2_SIZE	36

static uint32_t read_u32(const uint8_t *p)
{
	uint32_t value;

	memcpy(&value, p, sizeof(value));
	return value;
}

static uint64_t read_u64(const uint8_t *p)
{
	uint64_t value;

	memcpy(&value, p, sizeof(value));
	return value;
}

/*
 * Copies the NUL-terminated string at the start of the @size bytes at @src
 * into @dst, which holds @dst_size bytes. False when the string is not
 * terminated inside the tag or does not fit; a truncated name or command
 * line would silently mean something else, so it is refused instead.
 */
static bool bootinfo_copy_string(char *dst, size_t dst_size,
				 const uint8_t *src, size_t size)
{
	size_t len = strnlen((const char *)src, size);

	if (len == size || len >= dst_size)
		return false;
	memcpy(dst, src, len);
	dst[len] = '\0';
	return true;
}

static void bootinfo_parse_cmdline(struct boot_info *info,
				   const uint8_t *payload, size_t size)
{
	if (!bootinfo_copy_string(info->cmdline, sizeof(info->cmdline), payload, size)) {
		log_msg("bootinfo: command line unterminated or longer than %u bytes, ignored",
			(unsigned int)sizeof(info->cmdline) - 1);
		info->cmdline[0] = '\0';
	}
}

static void bootinfo_parse_module(struct boot_info *info,
				  const uint8_t *payload, size_t size)
{
	struct boot_module *module;
	uint32_t start, end;

	if (size < MB2_MODULE_FIXED_SIZE) {
		log_msg("bootinfo: module tag too short (%u bytes), ignored",
			(unsigned int)size);
		return;
	}
	if (info->module_count == BOOTINFO_MAX_MODULES) {
		log_msg("bootinfo: module limit of %u reached, module ignored",
			BOOTINFO_MAX_MODULES);
		return;
	}
	start = read_u32(payload);
	/* GRUB stores the first address past the module in mod_end. */
	end = read_u32(payload + 4);
	if (end < start) {
		log_msg("bootinfo: module ends (0x%x) before it starts (0x%x), ignored",
			end, start);
		return;
	}

	module = &info->module[info->module_count];
	if (!bootinfo_copy_string(module->name, sizeof(module->name),
				  payload + MB2_MODULE_FIXED_SIZE,
				  size - MB2_MODULE_FIXED_SIZE)) {
		log_msg("bootinfo: module at 0x%x has a name unterminated or longer than %u bytes, ignored",
			start, BOOTINFO_NAME_MAX - 1);
		return;
	}
	module->start = start;
	module->end = end;
	info->module_count++;
}

/* One entry of a memory map, read from either tag's format. */
struct bootinfo_range {
	uint64_t base;
	uint64_t length;
	bool available;
	bool valid;	/* false: the entry cannot be a range (reported) */
};

typedef struct bootinfo_range (*bootinfo_entry_fn)(const struct boot_info *info,
						    const uint8_t *entry);

/*
 * Available RAM is what available entries cover minus what any other entry
 * covers: firmware maps sometimes list a reserved hole inside an available
 * range, and the safe reading of such a conflict is "reserved".
 */
static void bootinfo_add_ranges(struct boot_info *info, const uint8_t *entries,
				size_t count, uint32_t entry_size, bootinfo_entry_fn read)
{
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < count; i++) {
			struct bootinfo_range r = read(info, entries + i * entry_size);

			if (!r.valid)
				continue;
			if (pass == 0 && r.available && !memmap_add(&info->ram, r.base, r.length))
				log_msg("bootinfo: RAM 0x%llx+0x%llx wraps or overflows the map, ignored",
					(unsigned long long)r.base, (unsigned long long)r.length);
			if (pass == 1 && !r.available && !memmap_remove(&info->ram, r.base, r.length))
				log_msg("bootinfo: reserved 0x%llx+0x%llx wraps or overflows the map, RAM map may be wrong",
					(unsigned long long)r.base, (unsigned long long)r.length);
		}
	}
}

/*
 * The entries of a map tag: a fixed part whose first u32 is the entry
 * size, then whole entries (a partial one at the end is padding or damage;
 * either way unused). Returns the count, 0 when the tag is unusable.
 */
static size_t bootinfo_map_entries(const char *what, const uint8_t *payload, size_t size,
				   uint32_t entry_min, uint32_t *entry_size)
{
	if (size < MB2_MMAP_FIXED_SIZE) {
		log_msg("bootinfo: %s tag too short (%u bytes), ignored", what,
			(unsigned int)size);
		return 0;
	}
	*entry_size = read_u32(payload);
	if (*entry_size < entry_min) {
		log_msg("bootinfo: %s entry size %u below %u, map ignored", what,
			*entry_size, entry_min);
		return 0;
	}
	return (size - MB2_MMAP_FIXED_SIZE) / *entry_size;
}

static struct bootinfo_range bootinfo_bios_entry(const struct boot_info *info,
						 const uint8_t *entry)
{
	(void)info;
	return (struct bootinfo_range){
		.base = read_u64(entry),
		.length = read_u64(entry + 8),
		.available = read_u32(entry + 16) == MB2_MMAP_AVAILABLE,
		.valid = true,
	};
}

/*
 * After ExitBootServices() the loader's and boot services' memory is free
 * like conventional memory (UEFI 2.10 section 7.2, "Memory Type Usage
 * after ExitBootServices()"); while boot services run, only conventional
 * memory is, the rest is still the firmware's or GRUB's.
 */
static struct bootinfo_range bootinfo_efi_entry(const struct boot_info *info,
						const uint8_t *entry)
{
	uint32_t type = read_u32(entry);
	uint64_t pages = read_u64(entry + EFI_DESC_PAGES);
	struct bootinfo_range r = { .base = read_u64(entry + EFI_DESC_START) };

	if (pages > UINT64_MAX >> EFI_PAGE_SHIFT) {
		log_msg("bootinfo: EFI map entry at 0x%llx has %llu pages, more than 64 bits hold, ignored",
			(unsigned long long)r.base, (unsigned long long)pages);
		return r;
	}
	r.length = pages << EFI_PAGE_SHIFT;
	r.valid = true;
	r.available = type == EFI_CONVENTIONAL_MEMORY;
	if (!info->efi_boot_services)
		r.available |= type == EFI_LOADER_CODE || type == EFI_LOADER_DATA ||
			       type == EFI_BOOT_SERVICES_CODE || type == EFI_BOOT_SERVICES_DATA;
	return r;
}

/*
 * The memory map tag, or the EFI memory map tag. The EFI one is read once
 * the walk is over: the boot services tag may come after it.
 */
static void bootinfo_parse_map(struct boot_info *info, enum boot_mmap_source source,
			       const uint8_t *payload, size_t size)
{
	bool efi = source == BOOT_MMAP_EFI;
	uint32_t entry_size;
	size_t count = bootinfo_map_entries(efi ? "EFI memory map" : "memory map", payload, size,
					    efi ? EFI_DESC_MIN : MB2_MMAP_ENTRY_MIN, &entry_size);

	if (!count)
		return;
	info->mmap_source = source;
	bootinfo_add_ranges(info, payload + MB2_MMAP_FIXED_SIZE, count, entry_size,
			    efi ? bootinfo_efi_entry : bootinfo_bios_entry);
}

/* Keeps an ACPI 2.0 RSDP over an ACPI 1.0 one, whatever the tag order. */
static void bootinfo_parse_rsdp(struct boot_info *info, uint32_t type,
				const uint8_t *payload, size_t size)
{
	unsigned int want = type == MB2_TAG_ACPI_NEW ? ACPI_RSDP_V2_SIZE
						     : ACPI_RSDP_V1_SIZE;

	if (size < want) {
		log_msg("bootinfo: ACPI RSDP tag %u holds %u bytes, needs %u, ignored",
			type, (unsigned int)size, want);
		return;
	}
	if (info->rsdp_size > want)
		return;
	memcpy(info->rsdp, payload, want);
	info->rsdp_size = want;
}

/**
 * bootinfo_parse() - read what the boot loader handed over
 * @info: filled in; cleared first
 * @mbi: the multiboot2 information structure
 * @size: bytes readable at @mbi
 *
 * Reads no further than @size or the structure's own total_size, whichever
 * is smaller. RAM comes from the memory map tag, or from the EFI memory map
 * tag when there is none; any EFI tag means UEFI firmware. A tag shorter
 * than its header or running past the end stops the walk; a tag with bad
 * contents is reported and skipped. What was parsed before the problem is
 * kept.
 *
 * Return: 0, or -1 when the fixed part is missing or its total_size is
 * too small to hold it.
 */
int bootinfo_parse(struct boot_info *info, const void *mbi, size_t size)
{
	const uint8_t *base = mbi;
	const uint8_t *efi_mmap = NULL;
	size_t limit, offset, efi_mmap_size = 0;
	uint32_t total_size;

	memset(info, 0, sizeof(*info));
	memmap_init(&info->ram);

	if (!mbi || size < MB2_FIXED_SIZE) {
		log_msg("bootinfo: multiboot2 information missing or shorter than %u bytes",
			MB2_FIXED_SIZE);
		return -1;
	}
	total_size = read_u32(base);
	if (total_size < MB2_FIXED_SIZE) {
		log_msg("bootinfo: multiboot2 total_size %u is too small", total_size);
		return -1;
	}
	limit = total_size < size ? total_size : size;

	offset = MB2_FIXED_SIZE;
	for (;;) {
		const uint8_t *tag = base + offset;
		uint32_t type, tag_size;

		if (limit - offset < MB2_TAG_HEADER_SIZE) {
			log_msg("bootinfo: multiboot2 information ends without an end tag");
			break;
		}
		type = read_u32(tag);
		tag_size = read_u32(tag + 4);
		if (tag_size < MB2_TAG_HEADER_SIZE || tag_size > limit - offset) {
			log_msg("bootinfo: tag %u at offset %u has bad size %u, walk stopped",
				type, (unsigned int)offset, tag_size);
			break;
		}
		if (type == MB2_TAG_END)
			break;

		switch (type) {
		case MB2_TAG_CMDLINE:
			bootinfo_parse_cmdline(info, tag + MB2_TAG_HEADER_SIZE,
					       tag_size - MB2_TAG_HEADER_SIZE);
			break;
		case MB2_TAG_MODULE:
			bootinfo_parse_module(info, tag + MB2_TAG_HEADER_SIZE,
					      tag_size - MB2_TAG_HEADER_SIZE);
			break;
		case MB2_TAG_MMAP:
			bootinfo_parse_map(info, BOOT_MMAP_BIOS, tag + MB2_TAG_HEADER_SIZE,
					   tag_size - MB2_TAG_HEADER_SIZE);
			break;
		case MB2_TAG_ACPI_OLD:
		case MB2_TAG_ACPI_NEW:
			bootinfo_parse_rsdp(info, type, tag + MB2_TAG_HEADER_SIZE,
					    tag_size - MB2_TAG_HEADER_SIZE);
			break;
		case MB2_TAG_EFI_MMAP:
			info->firmware = BOOT_FIRMWARE_UEFI;
			if (!efi_mmap) {
				efi_mmap = tag + MB2_TAG_HEADER_SIZE;
				efi_mmap_size = tag_size - MB2_TAG_HEADER_SIZE;
			}
			break;
		case MB2_TAG_EFI_BS:
			info->firmware = BOOT_FIRMWARE_UEFI;
			info->efi_boot_services = true;
			break;
		case MB2_TAG_EFI32:
		case MB2_TAG_EFI64:
		case MB2_TAG_EFI32_IH:
		case MB2_TAG_EFI64_IH:
			info->firmware = BOOT_FIRMWARE_UEFI;
			break;
		default:
			break;
		}

		/* The next tag starts at the next 8-byte boundary; if that is past
		 * the end, the header check above ends the walk. */
		offset += tag_size;
		if (offset % MB2_TAG_ALIGN)
			offset += MB2_TAG_ALIGN - offset % MB2_TAG_ALIGN;
		if (offset > limit)
			offset = limit;
	}
	if (efi_mmap && info->mmap_source == BOOT_MMAP_NONE)
		bootinfo_parse_map(info, BOOT_MMAP_EFI, efi_mmap, efi_mmap_size);
	return 0;
}

/**
 * bootinfo_find_module() - look a module up by name
 * @info: parsed boot information
 * @name: the module's command-line string, matched exactly
 *
 * Return: the first module with that name, or NULL.
 */
const struct boot_module *bootinfo_find_module(const struct boot_info *info,
					       const char *name)
{
	unsigned int i;

	if (!name)
		return NULL;
	for (i = 0; i < info->module_count; i++)
		if (strcmp(info->module[i].name, name) == 0)
			return &info->module[i];
	return NULL;
}
