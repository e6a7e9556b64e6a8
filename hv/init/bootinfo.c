/* SPDX-License-Identifier: MIT */
/*
 * bootinfo.c - the multiboot2 boot information structure, parsed.
 *
 * Layout per the Multiboot2 specification, section 3.6 "Boot information":
 * an 8-byte fixed part (total_size, reserved) followed by tags, each starting
 * on an 8-byte boundary with a {type, size} header, the last one of type 0.
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
#define MB2_TAG_ACPI_OLD	14	/* 3.6.16 ACPI old RSDP */
#define MB2_TAG_ACPI_NEW	15	/* 3.6.17 ACPI new RSDP */

/* 3.6.2: the fixed part and every tag header are two u32 fields. */
#define MB2_FIXED_SIZE		8
#define MB2_TAG_HEADER_SIZE	8
/* 3.6.2: every tag starts on an 8-byte boundary, the previous one padded up to it. */
#define MB2_TAG_ALIGN		8

/* 3.6.6: mod_start and mod_end (u32 each) come before the string. */
#define MB2_MODULE_FIXED_SIZE	8
/* 3.6.8: entry_size and entry_version (u32 each) come before the entries. */
#define MB2_MMAP_FIXED_SIZE	8
/* 3.6.8: base_addr u64, length u64, type u32, reserved u32. */
#define MB2_MMAP_ENTRY_MIN	24
#define MB2_MMAP_AVAILABLE	1

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

/*
 * Available RAM is what type 1 entries cover minus what any other entry
 * covers: firmware maps sometimes list a reserved hole inside an available
 * range, and the safe reading of such a conflict is "reserved".
 */
static void bootinfo_parse_mmap(struct boot_info *info,
				const uint8_t *payload, size_t size)
{
	uint32_t entry_size;
	size_t count, i;
	int pass;

	if (size < MB2_MMAP_FIXED_SIZE) {
		log_msg("bootinfo: memory map tag too short (%u bytes), ignored",
			(unsigned int)size);
		return;
	}
	entry_size = read_u32(payload);
	if (entry_size < MB2_MMAP_ENTRY_MIN) {
		log_msg("bootinfo: memory map entry size %u below %u, map ignored",
			entry_size, MB2_MMAP_ENTRY_MIN);
		return;
	}
	/* A partial entry at the end is padding or damage; either way unused. */
	count = (size - MB2_MMAP_FIXED_SIZE) / entry_size;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < count; i++) {
			const uint8_t *entry = payload + MB2_MMAP_FIXED_SIZE + i * entry_size;
			uint64_t base = read_u64(entry);
			uint64_t length = read_u64(entry + 8);
			bool available = read_u32(entry + 16) == MB2_MMAP_AVAILABLE;

			if (pass == 0 && available &&
			    !memmap_add(&info->ram, base, length))
				log_msg("bootinfo: RAM 0x%llx+0x%llx wraps or overflows the map, ignored",
					(unsigned long long)base, (unsigned long long)length);
			if (pass == 1 && !available &&
			    !memmap_remove(&info->ram, base, length))
				log_msg("bootinfo: reserved 0x%llx+0x%llx wraps or overflows the map, RAM map may be wrong",
					(unsigned long long)base, (unsigned long long)length);
		}
	}
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
 * is smaller. A tag shorter than its header or running past the end stops the
 * walk; a tag with bad contents is reported and skipped. What was parsed
 * before the problem is kept.
 *
 * Return: 0, or -1 when the fixed part is missing or its total_size is
 * too small to hold it.
 */
int bootinfo_parse(struct boot_info *info, const void *mbi, size_t size)
{
	const uint8_t *base = mbi;
	size_t limit, offset;
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
			bootinfo_parse_mmap(info, tag + MB2_TAG_HEADER_SIZE,
					    tag_size - MB2_TAG_HEADER_SIZE);
			break;
		case MB2_TAG_ACPI_OLD:
		case MB2_TAG_ACPI_NEW:
			bootinfo_parse_rsdp(info, type, tag + MB2_TAG_HEADER_SIZE,
					    tag_size - MB2_TAG_HEADER_SIZE);
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
