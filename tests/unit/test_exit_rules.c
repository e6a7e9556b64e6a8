// SPDX-License-Identifier: MIT
/*
 * test_exit_rules.c - unit tests for hv/vmx/exit_rules.c: what the VM-exit
 * handlers accept of XSETBV, MOV to CR0/CR4, RDMSR/WRMSR and port I/O.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "config/guest_layout.h"
#include "guest/guest_ports.h"
#include "vmx/cpuid_filter.h"
#include "vmx/exit_rules.h"

#define BIT(n)		(1u << (n))

/* A server's leaf 0DH: x87, SSE, AVX, MPX, AVX-512, PKRU, AMX (0x602ff). */
static const struct cpuid_filter_regs server_leaf_d = { 0x602ff, 0x988, 0x2b00, 0 };

/* Haswell's leaf 1 (SSE, XSAVE, AVX, PCID...) and leaf 7 (AVX2, SMEP, FSGSBASE...). */
static struct guest_cpu_model haswell_guest(void)
{
	return (struct guest_cpu_model){
		.vcpu_count = 1,
		.host_max_basic_leaf = 0xd,
		.host_max_extended_leaf = 0x80000008,
		.host_leaf1 = { 0x306c3, 0, 0x7ffafbff, 0xbfebfbff },
		.host_leaf7 = { 0, 0x27ab, 0, 0 },
	};
}

/* The guest's XCR0 mask, as the XSETBV exit computes it, on the server. */
static uint64_t guest_xcr0_mask(const struct guest_cpu_model *model)
{
	struct cpuid_filter_regs guest = cpuid_filter_leaf(model, 0, 0xd, 0, &server_leaf_d);

	return exit_rules_xcr0_mask(&guest, &server_leaf_d);
}

static void test_xcr0_mask_is_what_both_list(void **state)
{
	struct cpuid_filter_regs guest = { 0x207, 0, 0, 1 };
	struct cpuid_filter_regs host = { 0x7, 0, 0, 3 };

	(void)state;
	assert_int_equal(exit_rules_xcr0_mask(&guest, &host), 0x100000007ull);
}

/* A Haswell-like guest on an AVX-512 and AMX server: only x87, SSE, AVX. */
static void test_xsetbv_haswell_guest(void **state)
{
	struct guest_cpu_model model = haswell_guest();
	uint64_t mask = guest_xcr0_mask(&model);
	static const uint64_t refused[] = {
		0x27, 0x47, 0xe3, 0x20003, 0x40003, 0x60003,	/* hidden AVX-512, AMX */
		0x5,						/* AVX without SSE */
		0x2, 0x0, 0x6,					/* no x87 */
		0x1b, 0x207, 0xe7, 0x100000007ull,		/* MPX, PKRU, bit 32 */
	};

	(void)state;
	assert_int_equal(mask, 0x7);
	assert_true(exit_rules_xsetbv(0, 0x7, mask));
	assert_true(exit_rules_xsetbv(0, 0x3, mask));
	assert_true(exit_rules_xsetbv(0, 0x1, mask));
	for (unsigned int i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		assert_false(exit_rules_xsetbv(0, refused[i], mask));
	/* Only XCR0 exists. */
	assert_false(exit_rules_xsetbv(1, 0x7, mask));
	assert_false(exit_rules_xsetbv(0xffffffff, 0x7, mask));
}

/* Where the guest sees AVX-512 and AMX, the SDM's pairing rules still hold. */
static void test_xsetbv_component_rules(void **state)
{
	uint64_t mask = 0x602ff;

	(void)state;
	assert_true(exit_rules_xsetbv(0, 0xe7, mask));
	assert_true(exit_rules_xsetbv(0, 0x602e7, mask));
	assert_true(exit_rules_xsetbv(0, 0x1b, mask));
	assert_true(exit_rules_xsetbv(0, 0x60003, mask));
	/* AVX-512: all three or none, and AVX with them. */
	assert_false(exit_rules_xsetbv(0, 0x27, mask));
	assert_false(exit_rules_xsetbv(0, 0x47, mask));
	assert_false(exit_rules_xsetbv(0, 0x87, mask));
	assert_false(exit_rules_xsetbv(0, 0x67, mask));
	assert_false(exit_rules_xsetbv(0, 0xe3, mask));
	/* MPX and AMX: both or neither. */
	assert_false(exit_rules_xsetbv(0, 0xb, mask));
	assert_false(exit_rules_xsetbv(0, 0x13, mask));
	assert_false(exit_rules_xsetbv(0, 0x20003, mask));
	assert_false(exit_rules_xsetbv(0, 0x40003, mask));
	/* Bits outside the mask: 8 (PT, an XSS component) and 63. */
	assert_false(exit_rules_xsetbv(0, 0x107, mask));
	assert_false(exit_rules_xsetbv(0, 0x8000000000000007ull, mask));
}

/* A guest that sees no XSAVE may set nothing. */
static void test_xsetbv_without_xsave(void **state)
{
	struct guest_cpu_model model = haswell_guest();

	(void)state;
	model.host_leaf1.ecx &= ~BIT(26);
	assert_int_equal(guest_xcr0_mask(&model), 0);
	assert_false(exit_rules_xsetbv(0, 0x1, guest_xcr0_mask(&model)));
}

static const struct exit_cr_context cr0_ctx = {
	.cr4 = EXIT_CR4_PAE,
	.long_mode = true,
	.code64 = true,
	.fixed0 = EXIT_CR0_PE | EXIT_CR0_NE | EXIT_CR0_PG,
	.fixed1 = 0xffffffff,
};

static void test_cr0_writes(void **state)
{
	struct exit_cr_context compat = cr0_ctx;
	struct exit_cr_result r;

	(void)state;
	/* Linux's CR0: PE MP ET NE WP AM PG. */
	r = exit_rules_cr0_write(0x80050033, &cr0_ctx);
	assert_int_equal(r.verdict, EXIT_CR_OK);
	assert_int_equal(r.hw, 0x80050033);
	/* NE clear: allowed, forced on behind the shadow. */
	r = exit_rules_cr0_write(0x80050013, &cr0_ctx);
	assert_int_equal(r.verdict, EXIT_CR_OK);
	assert_int_equal(r.hw, 0x80050033);
	/* #GP: bits 63:32, PG without PE, NW without CD, PG off in 64-bit mode. */
	assert_int_equal(exit_rules_cr0_write(0x180050033ull, &cr0_ctx).verdict, EXIT_CR_FAULT);
	assert_int_equal(exit_rules_cr0_write(0x80050032, &cr0_ctx).verdict, EXIT_CR_FAULT);
	assert_int_equal(exit_rules_cr0_write(0xa0050033, &cr0_ctx).verdict, EXIT_CR_FAULT);
	assert_int_equal(exit_rules_cr0_write(0x00050033, &cr0_ctx).verdict, EXIT_CR_FAULT);
	/* A bit the processor cannot hold. */
	compat.fixed1 = 0xfffffff7;
	assert_int_equal(exit_rules_cr0_write(0x8005003b, &compat).verdict, EXIT_CR_FAULT);
	/* PG off in compatibility mode is legal, but cannot run here. */
	compat = cr0_ctx;
	compat.code64 = false;
	assert_int_equal(exit_rules_cr0_write(0x00050033, &compat).verdict,
			 EXIT_CR_UNSUPPORTED);
	assert_int_equal(exit_rules_cr0_write(0x00050032, &compat).verdict,
			 EXIT_CR_UNSUPPORTED);
	/* CD and NW together are fine. */
	assert_int_equal(exit_rules_cr0_write(0xe0050033, &cr0_ctx).verdict, EXIT_CR_OK);
}

static const struct exit_cr_context cr4_ctx = {
	.cr3 = 0x1000,
	.cr4 = EXIT_CR4_PAE,
	.long_mode = true,
	.code64 = true,
	.fixed0 = EXIT_CR4_VMXE,
	.fixed1 = 0x3fffff,
};

static uint64_t haswell_cr4_allowed(void)
{
	struct guest_cpu_model model = haswell_guest();
	struct cpuid_filter_regs leaf1 = cpuid_filter_leaf(&model, 0, 1, 0, &model.host_leaf1);
	struct cpuid_filter_regs leaf7 = cpuid_filter_leaf(&model, 0, 7, 0, &model.host_leaf7);

	return exit_rules_cr4_allowed(&leaf1, &leaf7);
}

static void test_cr4_allowed_follows_cpuid(void **state)
{
	struct cpuid_filter_regs leaf1 = { 0 }, leaf7 = { 0 };
	uint64_t allowed = haswell_cr4_allowed();

	(void)state;
	assert_int_equal(allowed & (EXIT_CR4_PAE | EXIT_CR4_PGE | EXIT_CR4_OSFXSR |
				    EXIT_CR4_OSXMMEXCPT | EXIT_CR4_OSXSAVE | EXIT_CR4_PCIDE |
				    EXIT_CR4_FSGSBASE | EXIT_CR4_SMEP),
			 EXIT_CR4_PAE | EXIT_CR4_PGE | EXIT_CR4_OSFXSR | EXIT_CR4_OSXMMEXCPT |
			 EXIT_CR4_OSXSAVE | EXIT_CR4_PCIDE | EXIT_CR4_FSGSBASE | EXIT_CR4_SMEP);
	/* Never: VMX, SMX, 5-level paging, machine checks; Haswell has no SMAP or PKU. */
	assert_int_equal(allowed & (EXIT_CR4_VMXE | EXIT_CR4_SMXE | EXIT_CR4_LA57 |
				    EXIT_CR4_MCE | EXIT_CR4_SMAP | EXIT_CR4_PKE), 0);
	assert_int_equal(allowed & ~EXIT_CR4_GUEST_BITS, 0);
	/* A guest that sees nothing may set PCE alone. */
	assert_int_equal(exit_rules_cr4_allowed(&leaf1, &leaf7), EXIT_CR4_PCE);
}

static void test_cr4_writes(void **state)
{
	uint64_t allowed = haswell_cr4_allowed();
	struct exit_cr_context ctx = cr4_ctx;
	struct exit_cr_result r;

	(void)state;
	/* Linux's CR4: PAE PGE OSFXSR OSXMMEXCPT PCIDE OSXSAVE SMEP FSGSBASE. */
	r = exit_rules_cr4_write(0x1706a0, allowed, &ctx);
	assert_int_equal(r.verdict, EXIT_CR_OK);
	assert_int_equal(r.hw, 0x1706a0 | EXIT_CR4_VMXE);
	/* PCIDE turned on with a PCID in CR3, or outside IA-32e mode: #GP. */
	ctx.cr3 = 0x2005;
	assert_int_equal(exit_rules_cr4_write(0x1706a0, allowed, &ctx).verdict, EXIT_CR_FAULT);
	ctx.cr3 = 0x2000;
	ctx.long_mode = false;
	ctx.code64 = false;
	assert_int_equal(exit_rules_cr4_write(0x1706a0, allowed, &ctx).verdict, EXIT_CR_FAULT);
	/* Already on, it stays on with a PCID. */
	ctx = cr4_ctx;
	ctx.cr4 = 0x1706a0;
	ctx.cr3 = 0x2005;
	assert_int_equal(exit_rules_cr4_write(0x1706a0, allowed, &ctx).verdict, EXIT_CR_OK);
	/* VMXE, SMXE, MCE, a reserved bit, a bit 63: #GP. */
	ctx = cr4_ctx;
	assert_int_equal(exit_rules_cr4_write(0x20 | EXIT_CR4_VMXE, allowed, &ctx).verdict,
			 EXIT_CR_FAULT);
	assert_int_equal(exit_rules_cr4_write(0x20 | EXIT_CR4_SMXE, allowed, &ctx).verdict,
			 EXIT_CR_FAULT);
	assert_int_equal(exit_rules_cr4_write(0x20 | EXIT_CR4_MCE, allowed, &ctx).verdict,
			 EXIT_CR_FAULT);
	assert_int_equal(exit_rules_cr4_write(0x20 | BIT(15), allowed, &ctx).verdict,
			 EXIT_CR_FAULT);
	assert_int_equal(exit_rules_cr4_write(0x20 | (1ull << 63), allowed, &ctx).verdict,
			 EXIT_CR_FAULT);
	/* SMAP hidden from a Haswell guest. */
	assert_int_equal(exit_rules_cr4_write(0x20 | EXIT_CR4_SMAP, allowed, &ctx).verdict,
			 EXIT_CR_FAULT);
	/* PAE off, LA57 on in IA-32e mode: #GP. */
	assert_int_equal(exit_rules_cr4_write(0, allowed, &ctx).verdict, EXIT_CR_FAULT);
	assert_int_equal(exit_rules_cr4_write(0x20 | EXIT_CR4_LA57, ~0ull, &ctx).verdict,
			 EXIT_CR_FAULT);
	/* A bit the processor cannot hold, even if allowed. */
	ctx.fixed1 = 0x3fffff & ~EXIT_CR4_OSXSAVE;
	assert_int_equal(exit_rules_cr4_write(0x20 | EXIT_CR4_OSXSAVE, allowed, &ctx).verdict,
			 EXIT_CR_FAULT);
}

static void test_cr4_owned(void **state)
{
	uint64_t owned = exit_rules_cr4_owned(EXIT_CR4_VMXE);

	(void)state;
	assert_int_equal(owned & (EXIT_CR4_VMXE | EXIT_CR4_SMXE | EXIT_CR4_MCE | EXIT_CR4_LA57 |
				  BIT(15) | (1ull << 23) | (1ull << 63)),
			 EXIT_CR4_VMXE | EXIT_CR4_SMXE | EXIT_CR4_MCE | EXIT_CR4_LA57 | BIT(15) |
			 (1ull << 23) | (1ull << 63));
	assert_int_equal(owned & EXIT_CR4_GUEST_BITS, 0);
	assert_int_equal(exit_rules_cr4_owned(EXIT_CR4_VMXE | EXIT_CR4_PAE) & EXIT_CR4_PAE,
			 EXIT_CR4_PAE);
}

static void test_rdmsr(void **state)
{
	uint64_t base = GUEST_LAPIC_GPA | BIT(11) | BIT(10);
	struct exit_msr_result r;

	(void)state;
	/* IA32_APIC_BASE: enabled, in x2APIC mode, the BSP flag on vCPU 0. */
	r = exit_rules_rdmsr(0x1b, true);
	assert_int_equal(r.action, EXIT_MSR_VALUE);
	assert_int_equal(r.value, base | BIT(8));
	assert_int_equal(exit_rules_rdmsr(0x1b, false).value, base);
	/* The TSC is the core's, with nothing added. */
	assert_int_equal(exit_rules_rdmsr(0x10, true).action, EXIT_MSR_TSC);
	r = exit_rules_rdmsr(0x3b, false);
	assert_int_equal(r.action, EXIT_MSR_VALUE);
	assert_int_equal(r.value, 0);
	r = exit_rules_rdmsr(0x3a, false);
	assert_int_equal(r.action, EXIT_MSR_VALUE);
	assert_int_equal(r.value, 1);
	assert_int_equal(exit_rules_rdmsr(0x1a0, false).value, 1);
	assert_int_equal(exit_rules_rdmsr(0x8b, false).value, 0);
	/* Absent: #GP. */
	assert_int_equal(exit_rules_rdmsr(0x6e0, false).action, EXIT_MSR_FAULT);
	assert_int_equal(exit_rules_rdmsr(0x1d9, false).action, EXIT_MSR_FAULT);
	assert_int_equal(exit_rules_rdmsr(0xc0011fff, false).action, EXIT_MSR_FAULT);
	assert_int_equal(exit_rules_rdmsr(0xffffffff, false).action, EXIT_MSR_FAULT);
}

static void test_wrmsr(void **state)
{
	uint64_t base = GUEST_LAPIC_GPA | BIT(11) | BIT(10);

	(void)state;
	/* IA32_APIC_BASE: only what it reads, with or without the BSP flag. */
	assert_int_equal(exit_rules_wrmsr(0x1b, base), EXIT_MSR_IGNORE);
	assert_int_equal(exit_rules_wrmsr(0x1b, base | BIT(8)), EXIT_MSR_IGNORE);
	/* Leaving x2APIC mode, turning the APIC off or moving it is refused. */
	assert_int_equal(exit_rules_wrmsr(0x1b, base & ~BIT(10)), EXIT_MSR_FAULT);
	assert_int_equal(exit_rules_wrmsr(0x1b, GUEST_LAPIC_GPA), EXIT_MSR_FAULT);
	assert_int_equal(exit_rules_wrmsr(0x1b, base + 0x1000), EXIT_MSR_FAULT);
	assert_int_equal(exit_rules_wrmsr(0x1b, base | (1ull << 40)), EXIT_MSR_FAULT);
	/* The TSC is the core's: writes move nothing. */
	assert_int_equal(exit_rules_wrmsr(0x10, ~0ull), EXIT_MSR_IGNORE);
	assert_int_equal(exit_rules_wrmsr(0x3b, 5), EXIT_MSR_IGNORE);
	assert_int_equal(exit_rules_wrmsr(0x8b, 0), EXIT_MSR_IGNORE);
	assert_int_equal(exit_rules_wrmsr(0x1a0, 0x850089), EXIT_MSR_IGNORE);
	/* Locked, read-only or absent: #GP. */
	assert_int_equal(exit_rules_wrmsr(0x3a, 5), EXIT_MSR_FAULT);
	assert_int_equal(exit_rules_wrmsr(0x17, 0), EXIT_MSR_FAULT);
	assert_int_equal(exit_rules_wrmsr(0x48, 1), EXIT_MSR_FAULT);
	assert_int_equal(exit_rules_wrmsr(0x6e0, 5), EXIT_MSR_FAULT);
	assert_int_equal(exit_rules_wrmsr(0xc0011fff, 0), EXIT_MSR_FAULT);
}

/* The vCPU's own x2APIC (docs/vmx.md, "Direct interrupts"): 800H to 8FFH. */
static void test_msr_x2apic(void **state)
{
	(void)state;
	assert_int_equal(exit_rules_rdmsr(0x800, false).action, EXIT_MSR_X2APIC);
	assert_int_equal(exit_rules_rdmsr(0x802, false).action, EXIT_MSR_X2APIC);
	assert_int_equal(exit_rules_wrmsr(0x830, 0), EXIT_MSR_X2APIC);
	assert_int_equal(exit_rules_rdmsr(0x8ff, false).action, EXIT_MSR_X2APIC);
	assert_int_equal(exit_rules_wrmsr(0x8ff, 0), EXIT_MSR_X2APIC);
	assert_int_equal(exit_rules_rdmsr(0x7ff, false).action, EXIT_MSR_FAULT);
	assert_int_equal(exit_rules_rdmsr(0x900, false).action, EXIT_MSR_FAULT);
	assert_int_equal(exit_rules_wrmsr(0x900, 0), EXIT_MSR_FAULT);
}

static void test_io_decode(void **state)
{
	struct exit_io_access a;

	(void)state;
	a = exit_rules_io_decode(0x3f80000ull | 0x8);
	assert_true(a.valid);
	assert_int_equal(a.port, 0x3f8);
	assert_int_equal(a.size, 1);
	assert_true(a.in);
	assert_false(a.string);
	a = exit_rules_io_decode(0xcfc0000ull | 0x13);
	assert_true(a.valid);
	assert_int_equal(a.size, 4);
	assert_false(a.in);
	assert_true(a.string);
	assert_int_equal(exit_rules_io_decode(1).size, 2);
	for (unsigned int enc = 4; enc < 8; enc++)
		assert_false(exit_rules_io_decode(enc).valid);
	assert_false(exit_rules_io_decode(2).valid);
}

struct io_case {
	uint16_t port;
	unsigned int size;
	unsigned int device;
};

static void check_io_cases(const struct exit_io_map *map, const struct io_case *cases,
			   unsigned int count)
{
	for (unsigned int i = 0; i < count; i++)
		assert_int_equal(exit_rules_io_device(map, cases[i].port, cases[i].size),
				 cases[i].device);
}

static void test_io_device(void **state)
{
	static const struct io_case cases[] = {
		{ 0x3f8, 1, GUEST_IO_UART },
		{ 0x3ff, 1, GUEST_IO_UART },
		{ 0x3f8, 2, GUEST_IO_NONE },
		{ 0x400, 1, GUEST_IO_NONE },
		{ 0xcf8, 4, GUEST_IO_PCI },
		{ 0xcfc, 4, GUEST_IO_PCI },
		{ 0xcfe, 2, GUEST_IO_PCI },
		{ 0xcff, 1, GUEST_IO_PCI },
		{ 0xcfe, 4, GUEST_IO_NONE },	/* runs past CFFH */
		{ 0xcf7, 4, GUEST_IO_NONE },
		{ 0x600, 1, GUEST_IO_SLEEP_CONTROL },
		{ 0x601, 1, GUEST_IO_SLEEP_STATUS },
		{ 0x610, 1, GUEST_IO_COUNTERS },
		{ 0x80, 1, GUEST_IO_NONE },
		{ 0xffff, 4, GUEST_IO_NONE },
	};

	(void)state;
	check_io_cases(&guest_io_map, cases, sizeof(cases) / sizeof(cases[0]));
}

/* The rules know no port of their own: only the map handed in claims any. */
static void test_io_device_handed_map(void **state)
{
	static const struct exit_io_range ranges[] = {
		{ 0x60, 1, 1u << 1, false, 7 },
		{ 0x70, 2, 1u << 1 | 1u << 2, true, 9 },
		{ 0xfffe, 2, EXIT_IO_ANY_SIZE, true, 11 },
	};
	static const struct io_case cases[] = {
		{ 0x60, 1, 7 },
		{ 0x60, 4, EXIT_IO_NONE },	/* a width the range does not take */
		{ 0x61, 1, EXIT_IO_NONE },
		{ 0x70, 2, 9 },
		{ 0x71, 1, 9 },
		{ 0x71, 2, EXIT_IO_NONE },	/* runs past the range */
		{ 0xffff, 1, 11 },
		{ 0xfffe, 4, EXIT_IO_NONE },	/* runs past port 0xffff */
		{ 0x3f8, 1, EXIT_IO_NONE },	/* the UART is not in this map */
		{ 0xcf8, 4, EXIT_IO_NONE },
	};
	const struct exit_io_map map = { ranges, 3 }, empty = { NULL, 0 };

	(void)state;
	check_io_cases(&map, cases, sizeof(cases) / sizeof(cases[0]));
	assert_int_equal(exit_rules_io_device(&empty, 0x3f8, 1), EXIT_IO_NONE);
	assert_int_equal(exit_rules_io_device(&empty, 0xcf8, 4), EXIT_IO_NONE);
}

static void test_sleep_poweroff(void **state)
{
	(void)state;
	assert_true(exit_rules_sleep_is_poweroff(BIT(5) | (GUEST_SLP_TYP_S5 << 2)));
	assert_true(exit_rules_sleep_is_poweroff(0xffffff00u | BIT(5) | (GUEST_SLP_TYP_S5 << 2)));
	assert_false(exit_rules_sleep_is_poweroff(GUEST_SLP_TYP_S5 << 2));
	assert_false(exit_rules_sleep_is_poweroff(BIT(5) | (3 << 2)));
	assert_false(exit_rules_sleep_is_poweroff(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xcr0_mask_is_what_both_list),
		cmocka_unit_test(test_xsetbv_haswell_guest),
		cmocka_unit_test(test_xsetbv_component_rules),
		cmocka_unit_test(test_xsetbv_without_xsave),
		cmocka_unit_test(test_cr0_writes),
		cmocka_unit_test(test_cr4_allowed_follows_cpuid),
		cmocka_unit_test(test_cr4_writes),
		cmocka_unit_test(test_cr4_owned),
		cmocka_unit_test(test_rdmsr),
		cmocka_unit_test(test_wrmsr),
		cmocka_unit_test(test_msr_x2apic),
		cmocka_unit_test(test_io_decode),
		cmocka_unit_test(test_io_device),
		cmocka_unit_test(test_io_device_handed_map),
		cmocka_unit_test(test_sleep_poweroff),
	};

	return cmocka_run_group_tests_name("exit_rules", tests, NULL, NULL);
}
