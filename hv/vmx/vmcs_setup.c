/* SPDX-License-Identifier: MIT */
/*
 * vmcs_setup.c - writes a vCPU's VMCS: the controls vmcs_controls.c
 * computed, the host state of its core, and the initial guest state.
 */
#include "arch/console.h"
#include "arch/gdt.h"
#include "arch/percpu.h"
#include "arch/x86.h"
#include "boot/boot.h"
#include "vmx/exit_rules.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_setup.h"

#define PAT_DEFAULT	0x0007040600070406ull	/* power-on value, SDM Vol. 3A §13.12.4 */
#define EFER_LME	(1ull << 8)
#define EFER_LMA	(1ull << 10)
#define CR0_ET		(1ull << 4)
#define CR4_PSE		(1ull << 4)
#define RFLAGS_RESERVED	(1ull << 1)
#define RFLAGS_IOPL	(3ull << 12)	/* 3: CLI, STI, PUSHF, POPF run in the task (§20.2.7) */
#define RFLAGS_VM	(1ull << 17)
#define DR7_INIT	0x400ull	/* bit 10 reads as 1 (§18.2.4) */

/* Segment access rights (§25.4.1): type, S, DPL, P, L/DB, G, unusable. */
#define AR_CODE64	0xa09b
#define AR_DATA		0xc093
#define AR_TSS_BUSY	0x008b
#define AR_UNUSABLE	0x10000
#define AR_REAL_CODE	0x009b	/* real mode after INIT (§9.1.1): present, accessed, read */
#define AR_REAL_DATA	0x0093
/* Every segment of a virtual-8086 guest: base selector << 4, limit 0xffff (§26.3.1.2). */
#define AR_VM86		0x00f3
#define TSS32_LIMIT	0x67u	/* the 32-bit TSS's size less one (§8.2.1) */
#define FLAT_LIMIT	0xffffffffu
#define TSS_LIMIT	0xffu
#define REAL_MODE_LIMIT	0xffffu

/* Segment indexes in the VMCS's order (appendix B). */
enum { SEG_ES, SEG_CS, SEG_SS, SEG_DS, SEG_FS, SEG_GS, SEG_LDTR, SEG_TR };

/* The host's exit path (vmx_entry.S). */
extern const char vmx_exit[];

void vmcs_set_segment(unsigned int index, uint16_t selector, uint64_t base, uint32_t limit,
		      uint32_t ar)
{
	/* Selector, base, limit and access rights fields keep the same order (B.1-B.4). */
	vmcs_write(VMCS_GUEST_ES_SELECTOR + 2 * index, selector);
	vmcs_write(VMCS_GUEST_ES_BASE + 2 * index, base);
	vmcs_write(VMCS_GUEST_ES_LIMIT + 2 * index, limit);
	vmcs_write(VMCS_GUEST_ES_AR + 2 * index, ar);
}

static void vmcs_setup_controls(const struct vmcs_setup_choices *c,
				const struct vmcs_controls *ctl)
{
	vmcs_write(VMCS_PIN_CONTROLS, ctl->pin);
	vmcs_write(VMCS_PROC_CONTROLS, ctl->proc);
	vmcs_write(VMCS_PROC_CONTROLS2, ctl->proc2);
	vmcs_write(VMCS_EXIT_CONTROLS, ctl->exit);
	vmcs_write(VMCS_ENTRY_CONTROLS, ctl->entry);
	vmcs_write(VMCS_EXCEPTION_BITMAP, 0);
	vmcs_write(VMCS_CR3_TARGET_COUNT, 0);
	vmcs_write(VMCS_EXIT_MSR_STORE_COUNT, 0);
	vmcs_write(VMCS_EXIT_MSR_LOAD_COUNT, 0);
	vmcs_write(VMCS_ENTRY_MSR_LOAD_COUNT, 0);
	vmcs_write(VMCS_ENTRY_INTR_INFO, 0);
	vmcs_write(VMCS_IO_BITMAP_A, c->io_bitmap);
	vmcs_write(VMCS_IO_BITMAP_B, c->io_bitmap + VMCS_IO_BITMAP_SIZE / 2);
	vmcs_write(VMCS_MSR_BITMAP, c->msr_bitmap);
	vmcs_write(VMCS_EPT_POINTER, c->ept_pointer);
	vmcs_write(VMCS_VPID, c->vpid);
}

static void vmcs_setup_host_state(void)
{
	struct percpu *cpu = this_cpu();
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) idtr;

	asm volatile("sidt %0" : "=m"(idtr));
	vmcs_write(VMCS_HOST_CR0, read_cr0());
	vmcs_write(VMCS_HOST_CR3, read_cr3());
	vmcs_write(VMCS_HOST_CR4, read_cr4());
	vmcs_write(VMCS_HOST_CS_SELECTOR, GDT_CODE64);
	vmcs_write(VMCS_HOST_SS_SELECTOR, GDT_DATA);
	vmcs_write(VMCS_HOST_DS_SELECTOR, GDT_DATA);
	vmcs_write(VMCS_HOST_ES_SELECTOR, GDT_DATA);
	vmcs_write(VMCS_HOST_FS_SELECTOR, 0);
	vmcs_write(VMCS_HOST_GS_SELECTOR, 0);
	vmcs_write(VMCS_HOST_TR_SELECTOR, GDT_TSS);
	vmcs_write(VMCS_HOST_FS_BASE, 0);
	vmcs_write(VMCS_HOST_GS_BASE, (uintptr_t)cpu);
	vmcs_write(VMCS_HOST_TR_BASE, (uintptr_t)&cpu->tables.tss);
	vmcs_write(VMCS_HOST_GDTR_BASE, (uintptr_t)cpu->tables.gdt);
	vmcs_write(VMCS_HOST_IDTR_BASE, idtr.base);
	vmcs_write(VMCS_HOST_SYSENTER_CS, 0);
	vmcs_write(VMCS_HOST_SYSENTER_ESP, 0);
	vmcs_write(VMCS_HOST_SYSENTER_EIP, 0);
	vmcs_write(VMCS_HOST_IA32_EFER, rdmsr(MSR_EFER));
	vmcs_write(VMCS_HOST_IA32_PAT, rdmsr(0x277));
	vmcs_write(VMCS_HOST_RIP, (uintptr_t)vmx_exit);
}

void vmcs_setup_cr_masks(void)
{
	vmcs_write(VMCS_CR0_MASK, rdmsr(MSR_IA32_VMX_CR0_FIXED0) | CR0_NE);
	vmcs_write(VMCS_CR4_MASK, exit_rules_cr4_owned(rdmsr(MSR_IA32_VMX_CR4_FIXED0)));
}

/* The 64-bit boot protocol's entry state (Documentation/arch/x86/boot.rst). */
static void vmcs_setup_guest_state(const struct vmcs_entry_state *e)
{
	uint64_t cr0 = CR0_PE | CR0_ET | CR0_NE | CR0_PG;
	uint64_t cr4 = CR4_PAE;

	vmcs_setup_cr_masks();
	vmcs_write(VMCS_CR0_READ_SHADOW, cr0);
	vmcs_write(VMCS_GUEST_CR0, (cr0 | rdmsr(MSR_IA32_VMX_CR0_FIXED0)) &
				   rdmsr(MSR_IA32_VMX_CR0_FIXED1));
	vmcs_write(VMCS_CR4_READ_SHADOW, cr4);
	vmcs_write(VMCS_GUEST_CR4, (cr4 | rdmsr(MSR_IA32_VMX_CR4_FIXED0)) &
				   rdmsr(MSR_IA32_VMX_CR4_FIXED1));
	vmcs_write(VMCS_GUEST_CR3, e->cr3);
	vmcs_write(VMCS_GUEST_IA32_EFER, EFER_LME | EFER_LMA);
	vmcs_write(VMCS_GUEST_IA32_PAT, PAT_DEFAULT);

	vmcs_set_segment(SEG_CS, e->cs, 0, FLAT_LIMIT, AR_CODE64);
	vmcs_set_segment(SEG_DS, e->ds, 0, FLAT_LIMIT, AR_DATA);
	vmcs_set_segment(SEG_ES, e->ds, 0, FLAT_LIMIT, AR_DATA);
	vmcs_set_segment(SEG_SS, e->ds, 0, FLAT_LIMIT, AR_DATA);
	vmcs_set_segment(SEG_FS, e->ds, 0, FLAT_LIMIT, AR_DATA);
	vmcs_set_segment(SEG_GS, e->ds, 0, FLAT_LIMIT, AR_DATA);
	vmcs_set_segment(SEG_TR, 0, 0, TSS_LIMIT, AR_TSS_BUSY);
	vmcs_set_segment(SEG_LDTR, 0, 0, FLAT_LIMIT, AR_UNUSABLE);
	vmcs_write(VMCS_GUEST_GDTR_BASE, e->gdt_base);
	vmcs_write(VMCS_GUEST_GDTR_LIMIT, e->gdt_limit);
	vmcs_write(VMCS_GUEST_IDTR_BASE, 0);
	vmcs_write(VMCS_GUEST_IDTR_LIMIT, 0);

	vmcs_write(VMCS_GUEST_DR7, DR7_INIT);
	vmcs_write(VMCS_GUEST_RSP, 0);
	vmcs_write(VMCS_GUEST_RIP, e->rip);
	vmcs_write(VMCS_GUEST_RFLAGS, RFLAGS_RESERVED);
	vmcs_write(VMCS_GUEST_SYSENTER_CS, 0);
	vmcs_write(VMCS_GUEST_SYSENTER_ESP, 0);
	vmcs_write(VMCS_GUEST_SYSENTER_EIP, 0);
	vmcs_write(VMCS_GUEST_ACTIVITY_STATE, 0);
	vmcs_write(VMCS_GUEST_INTERRUPTIBILITY, 0);
	vmcs_write(VMCS_GUEST_PENDING_DBG, 0);
	vmcs_write(VMCS_LINK_POINTER, ~0ull);
}

bool vmcs_setup(const struct vmx_caps *caps, const struct vmcs_setup_choices *choices,
		struct vmcs_controls *controls)
{
	if (!vmcs_controls_compute(caps, choices, controls)) {
		printk("vmx: required %s controls %#x missing\n", controls->missing,
		       controls->missing_bits);
		return false;
	}
	vmcs_setup_controls(choices, controls);
	vmcs_setup_host_state();
	vmcs_setup_guest_state(&choices->entry);
	return true;
}

/* After INIT and a SIPI (Table 9-1, §8.4.4.1): GDTR and IDTR 0/0xffff, IP and SP 0. */
static void vmcs_setup_after_init(void)
{
	vmcs_write(VMCS_GUEST_GDTR_BASE, 0);
	vmcs_write(VMCS_GUEST_GDTR_LIMIT, REAL_MODE_LIMIT);
	vmcs_write(VMCS_GUEST_IDTR_BASE, 0);
	vmcs_write(VMCS_GUEST_IDTR_LIMIT, REAL_MODE_LIMIT);
	vmcs_write(VMCS_GUEST_RIP, 0);
	vmcs_write(VMCS_GUEST_RSP, 0);
}

void vmcs_setup_real_mode(uint8_t vector)
{
	uint64_t fixed0 = rdmsr(MSR_IA32_VMX_CR0_FIXED0), fixed1 = rdmsr(MSR_IA32_VMX_CR0_FIXED1);
	/* PE and PG are the guest's, so it can leave real mode and turn paging on. */
	uint64_t owned = (fixed0 & ~(CR0_PE | CR0_PG)) | CR0_NE;
	uint64_t cr0 = CR0_ET | CR0_NE;

	vmcs_write(VMCS_PROC_CONTROLS2, vmcs_read(VMCS_PROC_CONTROLS2) | PROC2_UNRESTRICTED_GUEST);
	vmcs_write(VMCS_ENTRY_CONTROLS,
		   vmcs_read(VMCS_ENTRY_CONTROLS) & ~(uint64_t)ENTRY_IA32E_MODE_GUEST);

	/* Table 9-1, but NE set: it is owned, and Linux's trampoline sets it anyway. */
	vmcs_write(VMCS_CR0_MASK, owned);
	vmcs_write(VMCS_CR0_READ_SHADOW, cr0);
	vmcs_write(VMCS_GUEST_CR0, (cr0 | (fixed0 & owned)) & fixed1);
	vmcs_write(VMCS_CR4_READ_SHADOW, 0);
	vmcs_write(VMCS_GUEST_CR4, rdmsr(MSR_IA32_VMX_CR4_FIXED0) & rdmsr(MSR_IA32_VMX_CR4_FIXED1));
	vmcs_write(VMCS_GUEST_CR3, 0);
	vmcs_write(VMCS_GUEST_IA32_EFER, 0);

	/* Real-mode segments: 64 KiB limits; CS at the start page (§8.4.4.1). */
	vmcs_set_segment(SEG_CS, (uint16_t)(vector << 8), (uint64_t)vector << 12,
			 REAL_MODE_LIMIT, AR_REAL_CODE);
	vmcs_set_segment(SEG_DS, 0, 0, REAL_MODE_LIMIT, AR_REAL_DATA);
	vmcs_set_segment(SEG_ES, 0, 0, REAL_MODE_LIMIT, AR_REAL_DATA);
	vmcs_set_segment(SEG_SS, 0, 0, REAL_MODE_LIMIT, AR_REAL_DATA);
	vmcs_set_segment(SEG_FS, 0, 0, REAL_MODE_LIMIT, AR_REAL_DATA);
	vmcs_set_segment(SEG_GS, 0, 0, REAL_MODE_LIMIT, AR_REAL_DATA);
	vmcs_set_segment(SEG_TR, 0, 0, REAL_MODE_LIMIT, AR_TSS_BUSY);
	vmcs_setup_after_init();
	vmcs_write(VMCS_GUEST_RFLAGS, RFLAGS_RESERVED);
}

uint64_t vmcs_vm86_cr0(uint64_t cr0)
{
	return (cr0 | CR0_PE | CR0_PG | rdmsr(MSR_IA32_VMX_CR0_FIXED0)) &
	       rdmsr(MSR_IA32_VMX_CR0_FIXED1);
}

void vmcs_setup_vm86(uint8_t vector, uint64_t page_directory)
{
	uint64_t cr0 = CR0_ET | CR0_NE;	/* Table 9-1, with NE as vmcs_setup_real_mode() */
	uint16_t cs = (uint16_t)(vector << 8);

	vmcs_write(VMCS_CR0_READ_SHADOW, cr0);
	vmcs_write(VMCS_GUEST_CR0, vmcs_vm86_cr0(cr0));
	vmcs_write(VMCS_CR4_READ_SHADOW, 0);
	vmcs_write(VMCS_GUEST_CR4, (CR4_PSE | rdmsr(MSR_IA32_VMX_CR4_FIXED0)) &
				   rdmsr(MSR_IA32_VMX_CR4_FIXED1));
	vmcs_write(VMCS_GUEST_CR3, page_directory);
	vmcs_write(VMCS_GUEST_IA32_EFER, 0);	/* LME clear while paging is on (§26.3.1.1) */

	for (unsigned int i = SEG_ES; i <= SEG_GS; i++) {
		uint16_t selector = i == SEG_CS ? cs : 0;

		vmcs_set_segment(i, selector, (uint64_t)selector << 4, REAL_MODE_LIMIT, AR_VM86);
	}
	vmcs_set_segment(SEG_TR, 0, 0, TSS32_LIMIT, AR_TSS_BUSY);
	vmcs_setup_after_init();
	vmcs_write(VMCS_GUEST_RFLAGS, RFLAGS_RESERVED | RFLAGS_IOPL | RFLAGS_VM);
}
