// SPDX-License-Identifier: MIT
/*
 * fuzz_exit_rules.c - arbitrary guest values against every exit decision.
 *
 * The input is read as little-endian fields, zero past its end:
 *
 *   0-7     value: the XCR0, CR or MSR value, or the I/O qualification
 *   8-11    xcr / msr index
 *   12-27   host CPUID leaf 1 (EAX EBX ECX EDX)
 *   28-43   host CPUID leaf 7 subleaf 0
 *   44-59   host CPUID leaf 0DH subleaf 0
 *   60-67   guest CR3
 *   68-75   guest CR4
 *   76-83   IA32_VMX_CRn_FIXED0
 *   84-91   IA32_VMX_CRn_FIXED1
 *   92      bit 0: EFER.LMA, bit 1: CS.L, bit 2: BSP, bit 3: XSAVES control
 *
 * Every accepted value must obey the rule the SDM states for it, checked
 * here independently of hv/vmx/exit_rules.c; a broken rule aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/guest_layout.h"
#include "guest/guest_ports.h"
#include "vdev/vpci.h"
#include "vdev/uart.h"
#include "vmx/cpuid_filter.h"
#include "vmx/exit_rules.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define INPUT_BYTES	93
#define CPUID7_EBX_AVX512F	(1u << 16)
#define CPUID7_ECX_PKU		(1u << 3)
#define CPUID1_ECX_XSAVE	(1u << 26)
#define CPUID1_ECX_AVX		(1u << 28)

struct input {
	uint8_t bytes[INPUT_BYTES];
};

static uint64_t get(const struct input *in, size_t off, size_t len)
{
	uint64_t v = 0;

	for (size_t i = 0; i < len; i++)
		v |= (uint64_t)in->bytes[off + i] << (8 * i);
	return v;
}

static struct cpuid_filter_regs get_regs(const struct input *in, size_t off)
{
	return (struct cpuid_filter_regs){
		(uint32_t)get(in, off, 4), (uint32_t)get(in, off + 4, 4),
		(uint32_t)get(in, off + 8, 4), (uint32_t)get(in, off + 12, 4),
	};
}

static void fuzz_xsetbv(const struct input *in, const struct guest_cpu_model *model)
{
	struct cpuid_filter_regs host_d = get_regs(in, 44);
	struct cpuid_filter_regs guest_d = cpuid_filter_leaf(model, 0, 0xd, 0, &host_d);
	struct cpuid_filter_regs leaf1 = cpuid_filter_leaf(model, 0, 1, 0, &model->host_leaf1);
	struct cpuid_filter_regs leaf7 = cpuid_filter_leaf(model, 0, 7, 0, &model->host_leaf7);
	uint64_t host_mask = ((uint64_t)host_d.edx << 32) | host_d.eax;
	uint64_t mask = exit_rules_xcr0_mask(&guest_d, &host_d);
	uint64_t value = get(in, 0, 8);
	uint32_t xcr = (uint32_t)get(in, 8, 4);

	/* The guest's leaf 0DH lists only what its leaves 1 and 7 show. */
	CHECK(guest_d.edx == 0);
	CHECK((mask & ~host_mask) == 0);
	CHECK((mask & (XCR0_MPX | XCR0_AMX)) == 0);
	if (!(leaf1.ecx & CPUID1_ECX_XSAVE))
		CHECK(mask == 0);
	if (!(leaf1.ecx & CPUID1_ECX_AVX))
		CHECK((mask & (XCR0_AVX | XCR0_AVX512)) == 0);
	if (!(leaf7.ebx & CPUID7_EBX_AVX512F))
		CHECK((mask & XCR0_AVX512) == 0);
	if (!(leaf7.ecx & CPUID7_ECX_PKU))
		CHECK((mask & XCR0_PKRU) == 0);

	if (!exit_rules_xsetbv(xcr, value, mask))
		return;
	/* SDM Vol. 1 §13.3 and the XSETBV #GP conditions, restated. */
	CHECK(xcr == 0);
	CHECK((value & ~mask) == 0);
	CHECK(value & XCR0_X87);
	CHECK(!(value & XCR0_AVX) || (value & XCR0_SSE));
	CHECK((value & XCR0_MPX) == 0 || (value & XCR0_MPX) == XCR0_MPX);
	CHECK((value & XCR0_AVX512) == 0 ||
	      ((value & XCR0_AVX512) == XCR0_AVX512 && (value & XCR0_AVX)));
	CHECK((value & XCR0_AMX) == 0 || (value & XCR0_AMX) == XCR0_AMX);
}

static void fuzz_cr(const struct input *in, const struct guest_cpu_model *model,
		    const struct exit_cr_context *ctx)
{
	struct cpuid_filter_regs leaf1 = cpuid_filter_leaf(model, 0, 1, 0, &model->host_leaf1);
	struct cpuid_filter_regs leaf7 = cpuid_filter_leaf(model, 0, 7, 0, &model->host_leaf7);
	uint64_t allowed = exit_rules_cr4_allowed(&leaf1, &leaf7);
	uint64_t value = get(in, 0, 8);
	uint64_t owned = exit_rules_cr4_owned(ctx->fixed0);
	struct exit_cr_result r;

	CHECK((allowed & ~EXIT_CR4_GUEST_BITS) == 0);
	CHECK((owned & ctx->fixed0) == ctx->fixed0);
	CHECK((owned & ~EXIT_CR4_GUEST_BITS) == ~EXIT_CR4_GUEST_BITS);

	r = exit_rules_cr0_write(value, ctx);
	if (r.verdict == EXIT_CR_OK) {
		CHECK((value >> 32) == 0);
		CHECK(!(value & EXIT_CR0_PG) || (value & EXIT_CR0_PE));
		CHECK(!(value & EXIT_CR0_NW) || (value & EXIT_CR0_CD));
		CHECK(!ctx->code64 || (value & EXIT_CR0_PG));
		CHECK((value & ~ctx->fixed1 & 0xffffffffull) == 0);
		CHECK((value & ctx->fixed0 & ~EXIT_CR0_NE) == (ctx->fixed0 & ~EXIT_CR0_NE));
		CHECK(r.hw == ((value | ctx->fixed0) & ctx->fixed1));
	}

	r = exit_rules_cr4_write(value, allowed, ctx);
	if (r.verdict == EXIT_CR_OK) {
		CHECK((value & ~allowed) == 0);
		CHECK(!(value & (EXIT_CR4_VMXE | EXIT_CR4_SMXE | EXIT_CR4_MCE | EXIT_CR4_LA57)));
		CHECK((value & ~ctx->fixed1) == 0);
		CHECK(!ctx->long_mode || (value & EXIT_CR4_PAE));
		if ((value & EXIT_CR4_PCIDE) && !(ctx->cr4 & EXIT_CR4_PCIDE))
			CHECK(ctx->long_mode && (ctx->cr3 & 0xfff) == 0);
		CHECK(r.hw == ((value | ctx->fixed0) & ctx->fixed1));
	}
	CHECK(r.verdict != EXIT_CR_UNSUPPORTED);
}

static void fuzz_msr(const struct input *in, bool bsp)
{
	uint32_t msr = (uint32_t)get(in, 8, 4);
	uint64_t value = get(in, 0, 8);
	struct exit_msr_result r = exit_rules_rdmsr(msr, bsp);
	enum exit_msr_action w = exit_rules_wrmsr(msr, value);
	uint64_t base = GUEST_LAPIC_GPA | (1ull << 11) | (1ull << 10);	/* enabled, x2APIC */

	CHECK(r.action != EXIT_MSR_IGNORE);
	if (msr == 0x1b)
		CHECK(r.value == (base | (bsp ? 1ull << 8 : 0)));
	/* An MSR that cannot be read cannot be written either. */
	if (r.action == EXIT_MSR_FAULT)
		CHECK(w == EXIT_MSR_FAULT);
	CHECK(w != EXIT_MSR_VALUE);
	if (msr == 0x1b && w != EXIT_MSR_FAULT)
		CHECK((value & ~(1ull << 8)) == base);
	/* Every x2APIC register goes to the vCPU's own APIC, and no other MSR does. */
	CHECK((r.action == EXIT_MSR_X2APIC) == (msr >= 0x800 && msr <= 0x8ff));
	CHECK((w == EXIT_MSR_X2APIC) == (r.action == EXIT_MSR_X2APIC));
	/* The TSC is the core's: only a read of IA32_TSC reaches it, no write. */
	CHECK((r.action == EXIT_MSR_TSC) == (msr == 0x10));
	CHECK(w != EXIT_MSR_TSC);
}

static void fuzz_io(const struct input *in)
{
	uint64_t q = get(in, 0, 8);
	struct exit_io_access a = exit_rules_io_decode(q);
	unsigned int dev;

	CHECK(a.port == (uint16_t)(q >> 16));
	if (!a.valid)
		return;
	CHECK(a.size == 1 || a.size == 2 || a.size == 4);
	dev = exit_rules_io_device(&guest_io_map, a.port, a.size);
	if (dev == GUEST_IO_UART)
		CHECK(a.size == 1 && a.port >= UART_COM1_BASE &&
		      a.port < UART_COM1_BASE + UART_PORTS);
	if (dev == GUEST_IO_PCI)
		CHECK(a.port >= VPCI_CONFIG_ADDRESS_PORT &&
		      a.port + a.size <= VPCI_CONFIG_DATA_PORT + 4);
	if (exit_rules_sleep_is_poweroff((uint32_t)q))
		CHECK((q & (1u << 5)) && ((q >> 2) & 7) == GUEST_SLP_TYP_S5);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { { 0 } };
	uint8_t flags;
	struct guest_cpu_model model;
	struct exit_cr_context ctx;

	memcpy(in.bytes, data, size < INPUT_BYTES ? size : INPUT_BYTES);
	flags = in.bytes[92];
	model = (struct guest_cpu_model){
		.vcpu_count = 1,
		.host_max_basic_leaf = 0xd,
		.host_max_extended_leaf = 0x80000008,
		.controls = flags & 8 ? GUEST_CPU_XSAVES : 0,
		.host_leaf1 = get_regs(&in, 12),
		.host_leaf7 = get_regs(&in, 28),
	};
	ctx = (struct exit_cr_context){
		.cr3 = get(&in, 60, 8),
		.cr4 = get(&in, 68, 8),
		.long_mode = flags & 1,
		.code64 = flags & 2,
		.fixed0 = get(&in, 76, 8),
		.fixed1 = get(&in, 84, 8),
	};
	fuzz_xsetbv(&in, &model);
	fuzz_cr(&in, &model, &ctx);
	fuzz_msr(&in, flags & 4);
	fuzz_io(&in);
	return 0;
}
