/* SPDX-License-Identifier: MIT */
/*
 * linux_loader.c - the Linux x86 boot protocol, 64-bit entry (Linux
 * Documentation/arch/x86/boot.rst; section names below are that file's).
 *
 * The bzImage is input from the boot modules, not truth: every field used to
 * size or place a copy is bounded against the image and guest RAM before the
 * copy happens, and a refusal names its reason, so the hypervisor can report
 * a bad guest and carry on with the others.
 */
#include <stdbool.h>
#include <string.h>

#include <asm/e820.h>
#include <asm/processor-flags.h>

#include "config/guest_layout.h"
#include "guest/linux_loader.h"

/* boot.rst "The Real-Mode Kernel Header": where the setup header starts. */
#define SETUP_HEADER_OFFSET	offsetof(struct boot_params, hdr)
#define SETUP_HEADER_MAGIC	0x53726448	/* "HdrS" */
#define SETUP_BOOT_FLAG		0xaa55
#define SETUP_SECTOR_SIZE	512
/* "setup_sects": 0 means 4 for compatibility with ancient images. */
#define SETUP_SECTS_DEFAULT	4
/* Protocol 2.12 added xloadflags, the newest header field read here. */
#define PROTOCOL_MIN		0x020c
/* "The 64-bit boot protocol": entry at this offset of the protected-mode part. */
#define KERNEL_64BIT_ENTRY	0x200
/* "type_of_loader": 0xFF is the id for a loader that has none assigned. */
#define LOADER_TYPE_UNDEFINED	0xff

#define PAGE_SIZE_4K		0x1000ull
#define PAGE_SIZE_2M		0x200000ull

/*
 * Boot GDT, boot.rst "64-bit Boot Protocol": __BOOT_CS (0x10) and __BOOT_DS
 * (0x18) must be flat 4 GiB segments, code execute/read, data read/write.
 * Descriptor layout per Intel SDM Vol. 3A, 3.4.5: limit 0xfffff with G=1;
 * access byte 0x9b (present, DPL 0, code, execute/read, accessed) with L=1
 * for 64-bit code; 0x93 (present, DPL 0, data, read/write, accessed) with
 * D/B=1. The accessed bit is preset so the CPU never writes to the table.
 */
#define BOOT_CS			0x10
#define BOOT_DS			0x18
#define GDT_ENTRY_COUNT		4
#define GDT_CODE64		0x00af9b000000ffffull
#define GDT_DATA		0x00cf93000000ffffull

/* Page-table entry bits, Intel SDM Vol. 3A, 4.5 (4-level paging). */
#define PTE_PRESENT		(1ull << 0)
#define PTE_WRITABLE		(1ull << 1)
#define PTE_LARGE		(1ull << 7)	/* 2 MiB page in a PD entry */
#define PT_ENTRIES		512
#define PD_COUNT		4		/* 4 x 1 GiB: the low 4 GiB */

/* IA32_EFER, Intel SDM Vol. 3A, 2.2.1. */
#define EFER_LME		(1ull << 8)
#define EFER_LMA		(1ull << 10)

/* The boot structures must not overlap each other or the ACPI tables. */
_Static_assert(GUEST_PD_GPA + PD_COUNT * PAGE_SIZE_4K <= GUEST_ZERO_PAGE_GPA,
	       "page directories overlap the zero page");
_Static_assert(GUEST_GDT_GPA + GDT_ENTRY_COUNT * 8 <= GUEST_PML4_GPA,
	       "boot GDT overlaps the page tables");
_Static_assert(sizeof(struct boot_params) <= GUEST_CMDLINE_GPA - GUEST_ZERO_PAGE_GPA,
	       "zero page overlaps the command line");
_Static_assert(GUEST_CMDLINE_GPA + GUEST_CMDLINE_MAX <= GUEST_LOW_RAM_END,
	       "command line outside low RAM");
_Static_assert(GUEST_CMDLINE_GPA + GUEST_CMDLINE_MAX <= GUEST_ACPI_GPA,
	       "the low boot area the loader rewrites reaches the ACPI tables");
_Static_assert(LINUX_RAM_MIN > GUEST_KERNEL_GPA, "minimum RAM below the kernel");

static uint64_t loader_align_up(uint64_t value, uint64_t alignment)
{
	return (value + alignment - 1) & ~(alignment - 1);
}

static uint64_t loader_min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t loader_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* True when [base, base + size) lies inside [0, limit). */
static bool loader_range_fits(uint64_t base, uint64_t size, uint64_t limit)
{
	return base <= limit && size <= limit - base;
}

/* VMCS access rights from a descriptor: its bits 40-47 and 52-55. */
static uint32_t loader_access_rights(uint64_t descriptor)
{
	return (uint32_t)((descriptor >> 40) & 0xf0ff);
}

/**
 * linux_check_ram_size() - check that a guest RAM size can boot Linux here.
 * @ram_size: bytes of guest RAM, from guest-physical 0.
 *
 * Return: NULL when acceptable, else the reason.
 */
const char *linux_check_ram_size(uint64_t ram_size)
{
	if (ram_size < LINUX_RAM_MIN)
		return "guest RAM: smaller than the 32 MiB minimum";
	if (ram_size > GUEST_RAM_MAX)
		return "guest RAM: reaches into the MMIO window";
	if (ram_size % PAGE_SIZE_4K)
		return "guest RAM: not a whole number of 4 KiB pages";
	return NULL;
}

/*
 * The setup header as the image has it: sizeof(struct setup_header) bytes
 * from offset 0x1f1 at most, fewer when the image declares a shorter header
 * (boot.rst "64-bit Boot Protocol": its end is 0x202 plus the byte at
 * 0x201); fields past the declared end read as zero.
 */
static const char *loader_read_header(const uint8_t *image, size_t image_size,
				      struct setup_header *hdr, uint32_t *header_size)
{
	size_t end;

	if (image_size < SETUP_HEADER_OFFSET + sizeof(*hdr))
		return "bzImage: smaller than a setup header";
	memcpy(hdr, image + SETUP_HEADER_OFFSET, sizeof(*hdr));
	if (hdr->header != SETUP_HEADER_MAGIC)
		return "bzImage: no HdrS magic";
	if (hdr->boot_flag != SETUP_BOOT_FLAG)
		return "bzImage: no 0xAA55 boot flag";
	if (hdr->version < PROTOCOL_MIN)
		return "bzImage: boot protocol older than 2.12";

	end = offsetof(struct boot_params, hdr.header) + (hdr->jump >> 8);
	if (end < SETUP_HEADER_OFFSET + offsetof(struct setup_header, kernel_info_offset))
		return "bzImage: setup header shorter than protocol 2.12 defines";
	*header_size = (uint32_t)loader_min(end - SETUP_HEADER_OFFSET, sizeof(*hdr));
	memset(hdr, 0, sizeof(*hdr));
	memcpy(hdr, image + SETUP_HEADER_OFFSET, *header_size);
	return NULL;
}

/*
 * Where the kernel runs: a relocatable kernel at GUEST_KERNEL_GPA rounded
 * up to its kernel_alignment, any other at its pref_address (boot.rst
 * "pref_address": a non-relocatable kernel moves itself there anyway).
 */
static const char *loader_place_kernel(const struct setup_header *hdr, uint64_t ram_size,
				       struct linux_image *out)
{
	uint64_t alignment = hdr->kernel_alignment;
	uint64_t room;

	if (alignment == 0 || (alignment & (alignment - 1)))
		return "bzImage: kernel_alignment is not a power of two";
	if (hdr->relocatable_kernel) {
		out->load_gpa = loader_align_up(GUEST_KERNEL_GPA, alignment);
	} else {
		out->load_gpa = hdr->pref_address;
		if (out->load_gpa < GUEST_HIGH_RAM_START || out->load_gpa >= ram_size)
			return "bzImage: not relocatable and pref_address is not in high guest RAM";
	}

	/* init_size covers the unpacked kernel; the copy itself must fit too. */
	out->init_size = hdr->init_size;
	room = loader_max(out->init_size, out->kernel_size);
	if (!loader_range_fits(out->load_gpa, room, ram_size))
		return "bzImage: init_size does not fit in guest RAM";
	return NULL;
}

/**
 * linux_check_bzimage() - validate a bzImage for the 64-bit boot protocol.
 * @image: the whole bzImage file.
 * @image_size: its size in bytes.
 * @ram_size: guest RAM the kernel must fit in.
 * @out: filled with what the loader needs when the image is acceptable.
 *
 * Checks what boot.rst requires of a 64-bit loader: the HdrS signature and
 * 0xAA55 boot flag, protocol 2.12 or later, a bzImage (LOADED_HIGH) with a
 * 64-bit entry point (XLF_KERNEL_64), setup code and payload inside the file,
 * a power-of-two kernel_alignment, a load address in RAM, and room for
 * init_size bytes there.
 *
 * Return: NULL when the image is acceptable, else the reason ("bzImage: ...").
 */
const char *linux_check_bzimage(const void *image, size_t image_size, uint64_t ram_size,
				struct linux_image *out)
{
	struct setup_header hdr;
	unsigned int setup_sects;
	const char *reason;

	memset(out, 0, sizeof(*out));
	reason = linux_check_ram_size(ram_size);
	if (reason)
		return reason;
	reason = loader_read_header(image, image_size, &hdr, &out->header_size);
	if (reason)
		return reason;
	out->protocol = hdr.version;

	setup_sects = hdr.setup_sects ? hdr.setup_sects : SETUP_SECTS_DEFAULT;
	out->setup_size = (setup_sects + 1) * SETUP_SECTOR_SIZE;
	if (out->setup_size >= image_size)
		return "bzImage: no protected-mode kernel after the setup code";
	out->kernel_offset = out->setup_size;
	out->kernel_size = image_size - out->setup_size;
	if (out->kernel_size <= KERNEL_64BIT_ENTRY)
		return "bzImage: protected-mode kernel ends before the 64-bit entry point";

	if (!(hdr.loadflags & LOADED_HIGH))
		return "bzImage: not loaded high (a zImage)";
	if (!(hdr.xloadflags & XLF_KERNEL_64))
		return "bzImage: no 64-bit entry point (XLF_KERNEL_64 clear)";

	/* "syssize" counts 16-byte paragraphs of the protected-mode part. */
	if ((uint64_t)hdr.syssize * 16 > out->kernel_size)
		return "bzImage: syssize runs past the end of the image";
	if ((uint64_t)hdr.payload_offset + hdr.payload_length > out->kernel_size)
		return "bzImage: compressed payload runs past the end of the image";

	reason = loader_place_kernel(&hdr, ram_size, out);
	if (reason)
		return reason;
	out->initrd_end_max = (uint64_t)hdr.initrd_addr_max + 1;
	out->cmdline_max = hdr.cmdline_size;
	return NULL;
}

/**
 * linux_build_e820() - the guest's memory map in boot_params format.
 * @table: where to write the entries.
 * @capacity: entries @table can hold.
 * @ram_size: guest RAM in bytes, from guest-physical 0 (at least 1 MiB).
 *
 * Low RAM below the legacy video hole, the ACPI tables' area as reserved,
 * RAM from 1 MiB to @ram_size, and the ECAM window as reserved: Linux uses an
 * MCFG window only when firmware reserves it (it also finds it claimed by
 * the DSDT's motherboard-resources device).
 *
 * Return: the number of entries written (LINUX_E820_ENTRIES), or 0 when
 * @capacity is too small or @ram_size does not reach past 1 MiB.
 */
unsigned int linux_build_e820(struct boot_e820_entry *table, unsigned int capacity,
			      uint64_t ram_size)
{
	const struct boot_e820_entry map[LINUX_E820_ENTRIES] = {
		{ 0, GUEST_LOW_RAM_END, E820_RAM },
		{ GUEST_ACPI_GPA, GUEST_ACPI_SIZE, E820_RESERVED },
		{ GUEST_HIGH_RAM_START, ram_size - GUEST_HIGH_RAM_START, E820_RAM },
		{ GUEST_ECAM_GPA, GUEST_ECAM_SIZE, E820_RESERVED },
	};

	if (capacity < LINUX_E820_ENTRIES || ram_size <= GUEST_HIGH_RAM_START ||
	    ram_size > GUEST_RAM_MAX)
		return 0;
	memcpy(table, map, sizeof(map));
	return LINUX_E820_ENTRIES;
}

/* The command line's checks; an absent one is empty. */
static const char *loader_check_cmdline(const char *cmdline, const struct linux_image *image,
					size_t *length)
{
	*length = cmdline ? strnlen(cmdline, GUEST_CMDLINE_MAX) : 0;
	if (*length == GUEST_CMDLINE_MAX)
		return "cmdline: longer than the guest's 4 KiB buffer";
	/* "cmdline_size": the maximum size, terminating zero excluded. */
	if (*length > image->cmdline_max)
		return "cmdline: longer than the kernel's cmdline_size";
	return NULL;
}

/*
 * The initrd goes as high as the kernel allows ("initrd_addr_max" is the
 * highest address it may occupy), page-aligned, and above the kernel's
 * init_size area so unpacking the kernel cannot overwrite it.
 */
static const char *loader_place_initrd(const struct linux_boot_request *request,
				       const struct linux_image *image, uint64_t ram_size,
				       struct linux_entry_state *entry)
{
	uint64_t limit = loader_min(ram_size, image->initrd_end_max);
	uint64_t size = request->initrd_size;

	if (!request->initrd || size == 0)
		return NULL;
	if (size > limit)
		return "initrd: larger than the memory the kernel can reach";
	entry->initrd_gpa = (limit - size) & ~(PAGE_SIZE_4K - 1);
	if (entry->initrd_gpa < entry->kernel_end)
		return "initrd: no room between the kernel and the top of guest RAM";
	entry->initrd_size = size;
	return NULL;
}

/* boot.rst "64-bit Boot Protocol": the setup header, then what a loader fills in. */
static void loader_write_zero_page(uint8_t *ram, uint64_t ram_size, const uint8_t *kernel,
				   const struct linux_image *image,
				   const struct linux_boot_request *request,
				   const struct linux_entry_state *entry)
{
	struct boot_params *params = (struct boot_params *)(ram + GUEST_ZERO_PAGE_GPA);

	memset(params, 0, sizeof(*params));
	memcpy(&params->hdr, kernel + SETUP_HEADER_OFFSET, image->header_size);

	params->hdr.type_of_loader = LOADER_TYPE_UNDEFINED;
	/* No real-mode setup code runs, so there is no heap to offer. */
	params->hdr.loadflags = LOADED_HIGH;
	params->hdr.heap_end_ptr = 0;
	params->hdr.cmd_line_ptr = (uint32_t)GUEST_CMDLINE_GPA;
	params->ext_cmd_line_ptr = (uint32_t)(GUEST_CMDLINE_GPA >> 32);
	params->hdr.ramdisk_image = (uint32_t)entry->initrd_gpa;
	params->ext_ramdisk_image = (uint32_t)(entry->initrd_gpa >> 32);
	params->hdr.ramdisk_size = (uint32_t)entry->initrd_size;
	params->ext_ramdisk_size = (uint32_t)(entry->initrd_size >> 32);
	params->acpi_rsdp_addr = request->rsdp_gpa;
	params->e820_entries = (uint8_t)linux_build_e820(params->e820_table,
							 E820_MAX_ENTRIES_ZEROPAGE, ram_size);
}

static void loader_write_u64(uint8_t *ram, uint64_t gpa, uint64_t value)
{
	memcpy(ram + gpa, &value, sizeof(value));
}

/* GDT and an identity map of the low 4 GiB in 2 MiB pages (RAM ends below it). */
static void loader_write_boot_tables(uint8_t *ram)
{
	unsigned int i;

	loader_write_u64(ram, GUEST_GDT_GPA + BOOT_CS, GDT_CODE64);
	loader_write_u64(ram, GUEST_GDT_GPA + BOOT_DS, GDT_DATA);

	loader_write_u64(ram, GUEST_PML4_GPA, GUEST_PDPT_GPA | PTE_PRESENT | PTE_WRITABLE);
	for (i = 0; i < PD_COUNT; i++)
		loader_write_u64(ram, GUEST_PDPT_GPA + i * 8,
				 (GUEST_PD_GPA + i * PAGE_SIZE_4K) | PTE_PRESENT | PTE_WRITABLE);
	for (i = 0; i < PD_COUNT * PT_ENTRIES; i++)
		loader_write_u64(ram, GUEST_PD_GPA + i * 8,
				 i * PAGE_SIZE_2M | PTE_PRESENT | PTE_WRITABLE | PTE_LARGE);
}

static void loader_fill_entry(const struct linux_image *image, struct linux_entry_state *entry)
{
	entry->rip = image->load_gpa + KERNEL_64BIT_ENTRY;
	entry->rsi = GUEST_ZERO_PAGE_GPA;
	entry->rflags = X86_EFLAGS_FIXED;
	entry->cr0 = X86_CR0_PE | X86_CR0_ET | X86_CR0_NE | X86_CR0_PG;
	entry->cr3 = GUEST_PML4_GPA;
	entry->cr4 = X86_CR4_PAE;
	entry->efer = EFER_LME | EFER_LMA;
	entry->gdt_base = GUEST_GDT_GPA;
	entry->gdt_limit = GDT_ENTRY_COUNT * 8 - 1;
	entry->cs_selector = BOOT_CS;
	entry->ds_selector = BOOT_DS;
	entry->cs_access_rights = loader_access_rights(GDT_CODE64);
	entry->ds_access_rights = loader_access_rights(GDT_DATA);
}

/**
 * linux_load_bzimage() - put a kernel, its command line and initrd into guest RAM.
 * @ram: guest RAM as the host sees it; guest-physical 0 is @ram[0].
 * @ram_size: its size in bytes (LINUX_RAM_MIN to GUEST_RAM_MAX, whole pages).
 * @request: the bzImage, initrd, command line and RSDP address.
 * @entry: filled with the vCPU's entry state on success.
 *
 * Everything is checked before the first byte is written, so a refused guest
 * leaves @ram untouched. On success the low boot area (0 to the end of the
 * command line buffer) is rewritten whole: zero page, GDT, page tables and
 * command line at their guest_layout.h addresses, zeros elsewhere. Other
 * RAM is written only where the kernel and initrd go.
 *
 * Return: NULL on success, else the reason ("bzImage: ...", "cmdline: ...",
 * "initrd: ...", "guest RAM: ...").
 */
const char *linux_load_bzimage(void *ram, uint64_t ram_size,
			       const struct linux_boot_request *request,
			       struct linux_entry_state *entry)
{
	const uint8_t *kernel = request->kernel;
	struct linux_image image;
	uint8_t *memory = ram;
	size_t cmdline_length;
	const char *reason;

	memset(entry, 0, sizeof(*entry));
	if (!kernel)
		return "bzImage: missing";
	reason = linux_check_bzimage(kernel, request->kernel_size, ram_size, &image);
	if (reason)
		return reason;
	reason = loader_check_cmdline(request->cmdline, &image, &cmdline_length);
	if (reason)
		return reason;
	entry->kernel_gpa = image.load_gpa;
	entry->kernel_end = image.load_gpa + loader_max(image.init_size, image.kernel_size);
	reason = loader_place_initrd(request, &image, ram_size, entry);
	if (reason)
		return reason;

	memset(memory, 0, GUEST_CMDLINE_GPA + GUEST_CMDLINE_MAX);
	memcpy(memory + image.load_gpa, kernel + image.kernel_offset, image.kernel_size);
	if (entry->initrd_size)
		memcpy(memory + entry->initrd_gpa, request->initrd, entry->initrd_size);
	if (cmdline_length)
		memcpy(memory + GUEST_CMDLINE_GPA, request->cmdline, cmdline_length);
	loader_write_zero_page(memory, ram_size, kernel, &image, request, entry);
	loader_write_boot_tables(memory);
	loader_fill_entry(&image, entry);
	return NULL;
}
