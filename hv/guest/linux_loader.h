/* SPDX-License-Identifier: MIT */
/*
 * linux_loader.h - boots a Linux bzImage through its 64-bit entry point
 * (Linux Documentation/arch/x86/boot.rst, "64-bit Boot Protocol").
 *
 * The loader checks the image, copies the kernel, command line and initrd
 * into guest RAM, writes the zero page, a GDT and identity page tables at the
 * addresses of guest_layout.h, and says how the vCPU must enter the kernel.
 * It touches nothing but the RAM buffer it is given, so the unit tests and the
 * fuzzer run it on the host.
 */
#ifndef SIDECORE_GUEST_LINUX_LOADER_H
#define SIDECORE_GUEST_LINUX_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include <asm/bootparam.h>

/*
 * Smallest guest accepted: the boot structures below 1 MiB, the kernel at
 * GUEST_KERNEL_GPA (16 MiB) and room for it to unpack itself above that.
 */
#define LINUX_RAM_MIN		0x02000000ull

/* Entries linux_build_e820() writes; the zero page holds up to 128. */
#define LINUX_E820_ENTRIES	4

/* What linux_check_bzimage() learned about an acceptable image. */
struct linux_image {
	uint16_t protocol;		/* boot protocol version, e.g. 0x020f */
	uint32_t setup_size;		/* real-mode part: (setup_sects + 1) * 512 */
	uint32_t header_size;		/* setup header bytes from offset 0x1f1 */
	uint64_t kernel_offset;		/* protected-mode part in the file */
	uint64_t kernel_size;
	uint64_t load_gpa;		/* where it goes: 64-bit entry at +0x200 */
	uint64_t init_size;		/* bytes it needs at load_gpa to unpack */
	uint64_t initrd_end_max;	/* initrd_addr_max + 1 */
	uint32_t cmdline_max;		/* longest command line, NUL excluded */
};

/* What the loader is asked to put into guest RAM. */
struct linux_boot_request {
	const void *kernel;		/* the bzImage file */
	size_t kernel_size;
	const void *initrd;		/* NULL or initrd_size 0: none */
	size_t initrd_size;
	const char *cmdline;		/* NUL-terminated; NULL: empty */
	uint64_t rsdp_gpa;		/* guest ACPI RSDP, 0: let Linux scan for it */
};

/*
 * The vCPU's state at the kernel's 64-bit entry. Control registers and EFER
 * hold the bits the protocol needs; the VMCS code adds the VMX fixed bits
 * (CR0.NE, CR4.VMXE behind a read shadow) and sets the "IA-32e mode guest"
 * entry control. CS is a 64-bit code segment, DS/ES/SS (and FS/GS) the flat
 * data segment, all with base 0 and limit 0xffffffff; the access rights are
 * in the VMCS format (Intel SDM Vol. 3C, 24.4.1). RFLAGS has IF clear.
 */
struct linux_entry_state {
	uint64_t rip;
	uint64_t rsi;			/* struct boot_params */
	uint64_t rflags;
	uint64_t cr0, cr3, cr4, efer;
	uint64_t gdt_base;
	uint16_t gdt_limit;
	uint16_t cs_selector, ds_selector;
	uint32_t cs_access_rights, ds_access_rights;

	/* Where things went, for the boot summary and the tests. */
	uint64_t kernel_gpa;
	uint64_t kernel_end;		/* kernel_gpa + the room it unpacks in */
	uint64_t initrd_gpa;		/* 0 without an initrd */
	uint64_t initrd_size;
};

/*
 * Each check and the load return NULL on success or a one-line reason
 * ("bzImage: no HdrS magic", "initrd: ...") fit for the boot log.
 */
const char *linux_check_ram_size(uint64_t ram_size);
const char *linux_check_bzimage(const void *image, size_t image_size, uint64_t ram_size,
				struct linux_image *out);

/* The guest's e820 map; returns the entry count, 0 if it cannot be built. */
unsigned int linux_build_e820(struct boot_e820_entry *table, unsigned int capacity,
			      uint64_t ram_size);

/* Checks everything, then writes kernel, initrd, cmdline, zero page and boot tables. */
const char *linux_load_bzimage(void *ram, uint64_t ram_size,
			       const struct linux_boot_request *request,
			       struct linux_entry_state *entry);

#endif
