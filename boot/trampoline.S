/* SPDX-License-Identifier: MIT */
/*
 * AP trampoline: real mode -> protected mode -> long mode -> ap_entry().
 *
 * smp_start_ap() copies this page below 1 MiB, fills in the parameter block
 * at its start and sends INIT-SIPI-SIPI with the page number as the vector
 * (SDM Vol. 3A §9.4.4). The AP begins at CS = page << 8, IP = 0. All
 * addresses inside are offsets from the page start, so the code runs
 * wherever it was copied; EBX carries the page's linear address across the
 * mode switches. APs are started one at a time, so one block serves all.
 */
#include "boot/boot.h"

#define TRAMP_CODE32	0x08
#define TRAMP_DATA	0x10
#define TRAMP_CODE64	0x18

#define OFF(label)	((label) - trampoline_start)

	.section .trampoline, "ax"
	.code16
	.globl trampoline_start
trampoline_start:
	jmp	real_mode_entry

	/* Parameter block; layout mirrors struct trampoline_params in smp.c. */
	.balign 8
params:
param_boot_cr3:	.quad 0		/* early 4 GiB map, below 4 GiB */
param_cr3:	.quad 0		/* the full identity map */
param_stack:	.quad 0		/* top of this AP's stack */
param_entry:	.quad 0		/* void ap_entry(unsigned int cpu) */
param_cpu:	.quad 0
param_gdt_desc:	.short 0	/* limit; the base is filled in below */
		.long 0
		.short 0
param_pm32:	.long 0		/* far pointer to protected_mode_entry */
		.short TRAMP_CODE32
param_lm64:	.long 0		/* far pointer to long_mode_entry */
		.short TRAMP_CODE64

real_mode_entry:
	cli
	cld
	movw	%cs, %ax
	movw	%ax, %ds
	xorl	%ebx, %ebx
	movw	%ax, %bx
	shll	$4, %ebx

	lgdtl	OFF(param_gdt_desc)
	/* INIT leaves caching disabled (CD, NW: SDM Vol. 3A §9.1.1); enable it. */
	movl	%cr0, %eax
	andl	$~(CR0_CD | CR0_NW), %eax
	orl	$CR0_PE, %eax
	movl	%eax, %cr0
	ljmpl	*OFF(param_pm32)

	.code32
protected_mode_entry:
	movl	$TRAMP_DATA, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss

	movl	%cr4, %eax
	orl	$CR4_PAE, %eax
	movl	%eax, %cr4
	movl	OFF(param_boot_cr3)(%ebx), %eax
	movl	%eax, %cr3
	movl	$MSR_EFER, %ecx
	rdmsr
	orl	$EFER_LME, %eax
	wrmsr
	movl	%cr0, %eax
	orl	$CR0_PG, %eax
	movl	%eax, %cr0
	ljmpl	*OFF(param_lm64)(%ebx)

	.code64
long_mode_entry:
	movl	%ebx, %ebx
	movq	OFF(param_cr3)(%rbx), %rax
	movq	%rax, %cr3
	movq	OFF(param_stack)(%rbx), %rsp
	movq	OFF(param_cpu)(%rbx), %rdi
	movq	OFF(param_entry)(%rbx), %rax
	call	*%rax
1:	cli
	hlt
	jmp	1b

	.balign 8
	.globl trampoline_gdt
trampoline_gdt:
	.quad	0
	.quad	0x00cf9a000000ffff	/* TRAMP_CODE32: flat 32-bit code */
	.quad	0x00cf92000000ffff	/* TRAMP_DATA */
	.quad	0x00af9a000000ffff	/* TRAMP_CODE64 */
trampoline_gdt_end:

	.globl trampoline_offsets
	.section .rodata
	.balign 8
/* Offsets smp.c needs to patch the block; one home for the layout. */
trampoline_offsets:
	.quad	OFF(params)
	.quad	OFF(protected_mode_entry)
	.quad	OFF(long_mode_entry)
	.quad	OFF(trampoline_gdt)
	.quad	trampoline_gdt_end - trampoline_gdt
