/* SPDX-License-Identifier: MIT */
/*
 * Multiboot2 header (Multiboot2 spec §3.1). An ELF64 image needs no address
 * tag: GRUB loads the program headers and jumps to e_entry in 32-bit
 * protected mode with EAX = magic and EBX = the information structure.
 */
#define MB2_HEADER_MAGIC	0xe85250d6
#define MB2_ARCH_I386		0

	.section .multiboot2, "a"
	.balign 8
mb2_header:
	.long	MB2_HEADER_MAGIC
	.long	MB2_ARCH_I386
	.long	mb2_header_end - mb2_header
	.long	-(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))

	/* End tag: type 0, flags 0, size 8. */
	.balign 8
	.short	0
	.short	0
	.long	8
mb2_header_end:
