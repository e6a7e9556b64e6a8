/* SPDX-License-Identifier: MIT */
/*
 * boot_entry32 - from GRUB's 32-bit protected mode to 64-bit hv_main().
 *
 * Builds an identity map of the first 4 GiB with 2 MiB pages (Nehalem has
 * no 1 GiB pages), enables long mode (SDM Vol. 3A §10.8.5) and calls
 * hv_main(magic, mbi). hv_main replaces these tables with a map of all RAM;
 * APs start on them too (the trampoline needs a CR3 below 4 GiB).
 */
#include "boot/boot.h"

	.section .text.boot, "ax"
	.code32
	.globl boot_entry32
boot_entry32:
	cli
	cld
	movl	$boot_stack_top, %esp
	movl	%eax, %edi			/* multiboot2 magic */
	movl	%ebx, %esi			/* information structure */

	/* Long mode present? CPUID 0x80000001 EDX bit 29. */
	movl	$0x80000000, %eax
	cpuid
	cmpl	$0x80000001, %eax
	jb	no_long_mode
	movl	$0x80000001, %eax
	cpuid
	testl	$(1 << 29), %edx
	jz	no_long_mode

	/* PML4[0] -> PDPT; PDPT[0..3] -> four page directories. */
	movl	$boot_pdpt, %eax
	orl	$(PTE_PRESENT | PTE_WRITE), %eax
	movl	%eax, boot_pml4

	xorl	%ecx, %ecx
1:	movl	%ecx, %eax
	shll	$12, %eax
	addl	$boot_pd, %eax
	orl	$(PTE_PRESENT | PTE_WRITE), %eax
	movl	%eax, boot_pdpt(, %ecx, 8)
	incl	%ecx
	cmpl	$4, %ecx
	jb	1b

	/* 2048 PDEs of 2 MiB each cover 4 GiB. */
	xorl	%ecx, %ecx
2:	movl	%ecx, %eax
	shll	$21, %eax
	orl	$(PTE_PRESENT | PTE_WRITE | PTE_LARGE), %eax
	movl	%eax, boot_pd(, %ecx, 8)
	movl	%ecx, %eax
	shrl	$11, %eax			/* bits 32+ of the address */
	movl	%eax, boot_pd + 4(, %ecx, 8)
	incl	%ecx
	cmpl	$2048, %ecx
	jb	2b

	movl	%cr4, %eax
	orl	$CR4_PAE, %eax
	movl	%eax, %cr4
	movl	$boot_pml4, %eax
	movl	%eax, %cr3
	movl	$MSR_EFER, %ecx
	rdmsr
	orl	$EFER_LME, %eax
	wrmsr
	movl	%cr0, %eax
	orl	$(CR0_PG | CR0_PE), %eax
	movl	%eax, %cr0

	lgdt	boot_gdt_desc
	ljmp	$GDT_CODE64, $entry64

no_long_mode:
	/* Nothing to report on yet but the UART itself; stop. */
	hlt
	jmp	no_long_mode

	.code64
entry64:
	movl	$GDT_DATA, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	xorl	%eax, %eax
	movl	%eax, %fs
	movl	%eax, %gs
	movq	$boot_stack_top, %rsp
	/* EDI = magic, ESI = mbi: already the first two SysV arguments. */
	call	hv_main
3:	cli
	hlt
	jmp	3b

	.section .rodata
	.balign 16
	.globl boot_gdt
boot_gdt:
	.quad	0
	.quad	0x00af9a000000ffff		/* GDT_CODE64: L=1, present, ring 0 */
	.quad	0x00cf92000000ffff		/* GDT_DATA: flat, writable */
boot_gdt_end:
	.globl boot_gdt_desc
boot_gdt_desc:
	.short	boot_gdt_end - boot_gdt - 1
	.quad	boot_gdt

	.section .bss
	.balign 4096
	.globl boot_pml4
boot_pml4:	.skip 4096
boot_pdpt:	.skip 4096
boot_pd:	.skip 4 * 4096
	.balign 16
boot_stack:	.skip BOOT_STACK_SIZE
boot_stack_top:
