// SPDX-License-Identifier: MIT
/*
 * test_cpuid_filter.c - unit tests for hv/vmx/cpuid_filter.c.
 *
 * Host values are either all ones (every feature the filter could leak) or
 * all zeros (a host that lacks the leaf), so each test shows what the guest
 * gets no matter what the machine reports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vmx/cpuid_filter.h"

#define BIT(n)		(1u << (n))
#define CR4_OSXSAVE	(1ull << 18)
#define CR4_PKE		(1ull << 22)

static const struct cpuid_filter_regs ones = { ~0u, ~0u, ~0u, ~0u };
static const struct cpuid_filter_regs zeros;

/*
 * Four vCPUs, this one APIC ID 2, a 2.4 GHz TSC, a host with every feature
 * in leaves 1 and 7.
 */
static struct guest_cpu_model model_default(void)
{
	return (struct guest_cpu_model){
		.vcpu_count = 4,
		.apic_id = 2,
		.tsc_hz = 2400000000ull,
		.host_max_basic_leaf = 0xd,
		.host_max_extended_leaf = 0x80000008,
		.host_leaf1 = ones,
		.host_leaf7 = ones,
	};
}

static struct cpuid_filter_regs filter(const struct guest_cpu_model *model, uint32_t leaf,
				       uint32_t subleaf, const struct cpuid_filter_regs *host)
{
	return cpuid_filter_leaf(model, 0, leaf, subleaf, host);
}

static void assert_regs(struct cpuid_filter_regs got, uint32_t eax, uint32_t ebx,
			uint32_t ecx, uint32_t edx)
{
	assert_int_equal(got.eax, eax);
	assert_int_equal(got.ebx, ebx);
	assert_int_equal(got.ecx, ecx);
	assert_int_equal(got.edx, edx);
}

static void test_max_basic_leaf(void **state)
{
	struct guest_cpu_model model = model_default();
	struct cpuid_filter_regs host = { 0xd, 0x756e6547, 0x6c65746e, 0x49656e69 };
	struct cpuid_filter_regs got;

	(void)state;
	/* Raised to 16H on a host that stops at 0DH; the vendor string stays. */
	got = filter(&model, 0, 0, &host);
	assert_regs(got, 0x16, 0x756e6547, 0x6c65746e, 0x49656e69);
	/* Lowered to 16H on a newer host: leaf 1FH would override leaf 0BH. */
	host.eax = 0x20;
	model.host_max_basic_leaf = 0x20;
	assert_int_equal(filter(&model, 0, 0, &host).eax, CPUID_FILTER_MAX_BASIC_LEAF);
}

static void test_leaf1_features(void **state)
{
	struct guest_cpu_model model = model_default();
	struct cpuid_filter_regs got;

	(void)state;
	got = filter(&model, 1, 0, &ones);
	assert_int_equal(got.eax, ~0u);	/* family, model, stepping */
	/* Hidden: DTES64, MONITOR, DS-CPL, VMX, SMX, EIST, TM2, CNXT-ID, SDBG,
	 * xTPR, PDCM, DCA; OSXSAVE off while CR4.OSXSAVE is clear. */
	assert_int_equal(got.ecx & (BIT(2) | BIT(3) | BIT(4) | BIT(5) | BIT(6) | BIT(7) |
				    BIT(8) | BIT(10) | BIT(11) | BIT(14) | BIT(15) | BIT(18) |
				    BIT(27)), 0);
	/* Kept: SSE3, PCLMULQDQ, SSSE3, FMA, CX16, PCID, SSE4.1/2, MOVBE, POPCNT,
	 * TSC-deadline, AES, XSAVE, AVX, F16C, RDRAND; set: x2APIC, hypervisor. */
	assert_int_equal(got.ecx, 0xf7fa3203u);
	/* Hidden: MCE, MTRR, MCA, PSN, DS, ACPI, TM, PBE and the reserved bits. */
	assert_int_equal(got.edx & (BIT(7) | BIT(12) | BIT(14) | BIT(18) | BIT(21) | BIT(22) |
				    BIT(29) | BIT(31) | BIT(10) | BIT(20) | BIT(30)), 0);
	assert_int_equal(got.edx, 0x1f8bab7fu);
}

static void test_leaf1_hypervisor_bits_on_a_bare_host(void **state)
{
	struct guest_cpu_model model = model_default();
	struct cpuid_filter_regs got;

	(void)state;
	/* x2APIC and the hypervisor bit; no TSC-deadline where the host has none. */
	got = filter(&model, 1, 0, &zeros);
	assert_int_equal(got.ecx, BIT(21) | BIT(31));
	assert_int_equal(got.edx, BIT(28));
}

static void test_leaf1_topology(void **state)
{
	struct guest_cpu_model model = model_default();
	struct cpuid_filter_regs host = { .ebx = 0xabcd0810 }, got;

	(void)state;
	/* Brand index and CLFLUSH size kept; 4 logical processors; APIC ID 2. */
	got = filter(&model, 1, 0, &host);
	assert_int_equal(got.ebx, 0x02040810);
	assert_true(got.edx & BIT(28));

	/* One vCPU: HTT clear, count 1. */
	model.vcpu_count = 1;
	model.apic_id = 0;
	got = filter(&model, 1, 0, &host);
	assert_int_equal(got.ebx, 0x00010810);
	assert_false(got.edx & BIT(28));

	/* The 8-bit fields saturate rather than wrap. */
	model.vcpu_count = 300;
	model.apic_id = 0x1ff;
	got = filter(&model, 1, 0, &host);
	assert_int_equal(got.ebx, 0xffff0810);
}

static void test_leaf1_osxsave_follows_cr4(void **state)
{
	struct guest_cpu_model model = model_default();
	struct cpuid_filter_regs host = ones;

	(void)state;
	assert_true(cpuid_filter_leaf(&model, CR4_OSXSAVE, 1, 0, &host).ecx & BIT(27));
	assert_false(cpuid_filter_leaf(&model, 0, 1, 0, &host).ecx & BIT(27));
	/* No XSAVE on the host, no OSXSAVE whatever CR4 says. */
	host.ecx &= ~BIT(26);
	assert_false(cpuid_filter_leaf(&model, CR4_OSXSAVE, 1, 0, &host).ecx & BIT(27));
}

static void test_leaf4_caches(void **state)
{
	struct guest_cpu_model model = model_default();
	/* Haswell-like: 8 threads per package, L1d shared by 2, L3 by 16. */
	struct cpuid_filter_regs l1d = { 0x1c004121, 0x01c0003f, 0x3f, 0 };
	struct cpuid_filter_regs l3 = { 0x1c03c163, 0x03c0003f, 0x1fff, 6 };
	struct cpuid_filter_regs end = { 0, 0, 0, 0 };
	struct cpuid_filter_regs got;

	(void)state;
	/* Private L1: shared by one; cores field 3 for four vCPUs. */
	got = filter(&model, 4, 0, &l1d);
	assert_regs(got, 0x0c000121, 0x01c0003f, 0x3f, 0);
	/* L3 shared by the four vCPUs. */
	got = filter(&model, 4, 3, &l3);
	assert_regs(got, 0x0c00c163, 0x03c0003f, 0x1fff, 6);
	/* The terminating null entry stays null. */
	assert_regs(filter(&model, 4, 4, &end), 0, 0, 0, 0);

	model.vcpu_count = 1;
	assert_int_equal(filter(&model, 4, 3, &l3).eax, 0x00000163);
	model.vcpu_count = 100;
	assert_int_equal(filter(&model, 4, 3, &l3).eax >> 26, 63);
	/* Both fields count the package's APIC IDs: 128 for 100 vCPUs. */
	assert_int_equal((filter(&model, 4, 3, &l3).eax >> 14) & 0xfff, 127);
	/* Two vCPUs on cores 1 and 2 need two core-ID bits to share a package. */
	model.vcpu_count = 2;
	model.core_id_bits = 2;
	assert_int_equal(filter(&model, 4, 3, &l3).eax, 0x0c00c163);
	assert_int_equal(filter(&model, 0xb, 1, &end).eax, 2);
	assert_int_equal(filter(&model, 0xb, 1, &end).ebx, 2);
}

static void test_hidden_leaves_are_zero(void **state)
{
	static const uint32_t leaves[] = { 3, 5, 8, 9, 0xa, 0xc, 0xe, 0xf, 0x10, 0x11, 0x12,
					   0x13, 0x14 };
	struct guest_cpu_model model = model_default();
	size_t i;

	(void)state;
	model.host_max_basic_leaf = 0x20;
	for (i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++)
		assert_regs(filter(&model, leaves[i], 0, &ones), 0, 0, 0, 0);
}

static void test_leaf6_only_arat(void **state)
{
	struct guest_cpu_model model = model_default();

	(void)state;
	assert_regs(filter(&model, 6, 0, &ones), BIT(2), 0, 0, 0);
	assert_regs(filter(&model, 6, 0, &zeros), BIT(2), 0, 0, 0);
}

static void test_leaf7_features(void **state)
{
	struct guest_cpu_model model = model_default();
	struct cpuid_filter_regs got;

	(void)state;
	got = filter(&model, 7, 0, &ones);
	assert_int_equal(got.eax, 0);
	/* Kept: FSGSBASE, BMI1, AVX2, SMEP, BMI2, ERMS, RDSEED, ADX, SMAP... */
	assert_int_equal(got.ebx & (BIT(0) | BIT(3) | BIT(5) | BIT(7) | BIT(8) | BIT(9) |
				    BIT(18) | BIT(19) | BIT(20)),
			 BIT(0) | BIT(3) | BIT(5) | BIT(7) | BIT(8) | BIT(9) | BIT(18) |
			 BIT(19) | BIT(20));
	assert_true(got.ebx & BIT(1));	/* TSC_ADJUST, emulated */
	/* Hidden: SGX, HLE, INVPCID (no control), RTM, RDT-M, MPX, RDT-A, PT. */
	assert_int_equal(got.ebx & (BIT(2) | BIT(4) | BIT(10) | BIT(11) | BIT(12) |
				    BIT(14) | BIT(15) | BIT(25)), 0);
	assert_int_equal(got.ebx, 0xfdbf23ebu);
	/* Hidden: OSPKE (CR4.PKE clear), WAITPKG, CET-SS, TME, LA57, MAWAU,
	 * RDPID (no control), Key Locker, ENQCMD, SGX-LC, PKS. */
	assert_int_equal(got.ecx, 0x1a005f4fu);
	/* Kept: 4VNNIW, 4FMAPS, FSRM, VP2INTERSECT, MD_CLEAR, SERIALIZE, FP16;
	 * hidden: the speculation-control MSRs, CET-IBT, AMX, hybrid. */
	assert_int_equal(got.edx, 0x0080451cu);
	/* Subleaf 1 and up: nothing. */
	assert_regs(filter(&model, 7, 1, &ones), 0, 0, 0, 0);
	assert_regs(filter(&model, 7, 2, &ones), 0, 0, 0, 0);
}

static void test_leaf7_controls_and_cr4(void **state)
{
	struct guest_cpu_model model = model_default();
	struct cpuid_filter_regs host = ones, got;

	(void)state;
	model.controls = GUEST_CPU_INVPCID | GUEST_CPU_RDTSCP;
	got = cpuid_filter_leaf(&model, CR4_PKE, 7, 0, &host);
	assert_true(got.ebx & BIT(10));
	assert_true(got.ecx & BIT(22));
	assert_true(got.ecx & BIT(4));
	/* A control is no reason to invent what the host lacks. */
	host.ebx &= ~BIT(10);
	host.ecx &= ~(BIT(22) | BIT(3));
	got = cpuid_filter_leaf(&model, CR4_PKE, 7, 0, &host);
	assert_false(got.ebx & BIT(10));
	assert_false(got.ecx & BIT(22));
	assert_false(got.ecx & BIT(4));
}

static void test_leaf0b_topology(void **state)
{
	struct guest_cpu_model model = model_default();

	(void)state;
	/* SMT level: one thread per core. Core level: 4 cores, 2 bits of ID. */
	assert_regs(filter(&model, 0xb, 0, &ones), 0, 1, 0x100, 2);
	assert_regs(filter(&model, 0xb, 1, &ones), 2, 4, 0x201, 2);
	/* Past the last level: invalid type, level number echoed, ID kept. */
	assert_regs(filter(&model, 0xb, 2, &ones), 0, 0, 2, 2);
	assert_regs(filter(&model, 0xb, 0x1234, &ones), 0, 0, 0x34, 2);

	model.vcpu_count = 1;
	model.apic_id = 0;
	assert_regs(filter(&model, 0xb, 1, &zeros), 0, 1, 0x201, 0);
	model.vcpu_count = 3;
	assert_int_equal(filter(&model, 0xb, 1, &zeros).eax, 2);
	model.vcpu_count = 5;
	assert_int_equal(filter(&model, 0xb, 1, &zeros).eax, 3);
	model.vcpu_count = 0;	/* treated as one */
	assert_regs(filter(&model, 0xb, 1, &zeros), 0, 1, 0x201, 0);
	model.vcpu_count = 70000;
	model.apic_id = 0x12345;
	assert_regs(filter(&model, 0xb, 1, &zeros), 17, 0xffff, 0x201, 0x12345);
}

static void test_leaf0d_xsave(void **state)
{
	struct guest_cpu_model model = model_default();
	struct cpuid_filter_regs host = { 0x602ff, 0x988, 0x2b00, ~0u };

	(void)state;
	/* x87, SSE, AVX, AVX-512, PKRU kept; MPX and AMX gone; no XCR0 63:32. */
	assert_regs(filter(&model, 0xd, 0, &host), 0x2e7, 0x988, 0x2b00, 0);
	/* XSAVEOPT, XSAVEC, XGETBV1 kept; XSAVES only with its control; no XSS. */
	assert_regs(filter(&model, 0xd, 1, &ones), 0x7, ~0u, 0, 0);
	model.controls = GUEST_CPU_XSAVES;
	assert_regs(filter(&model, 0xd, 1, &ones), 0xf, ~0u, 0, 0);
	/* Component subleaves: AVX (2), opmask (5), PKRU (9) pass; MPX (3),
	 * PT (8), AMX (18) and anything past 63 are zero. */
	assert_regs(filter(&model, 0xd, 2, &ones), ~0u, ~0u, ~0u, ~0u);
	assert_regs(filter(&model, 0xd, 5, &ones), ~0u, ~0u, ~0u, ~0u);
	assert_regs(filter(&model, 0xd, 9, &ones), ~0u, ~0u, ~0u, ~0u);
	assert_regs(filter(&model, 0xd, 3, &ones), 0, 0, 0, 0);
	assert_regs(filter(&model, 0xd, 8, &ones), 0, 0, 0, 0);
	assert_regs(filter(&model, 0xd, 18, &ones), 0, 0, 0, 0);
	assert_regs(filter(&model, 0xd, 64, &ones), 0, 0, 0, 0);
	assert_regs(filter(&model, 0xd, 0xffffffff, &ones), 0, 0, 0, 0);
}

/*
 * Leaf 0DH lists a component only when leaf 1 or 7 shows its feature: a
 * server with AVX-512, PKRU, MPX and AMX state (0x602ff) behind a guest
 * that sees Haswell's features gets x87, SSE and AVX.
 */
static void test_leaf0d_follows_leaves_1_and_7(void **state)
{
	struct guest_cpu_model model = model_default();
	struct cpuid_filter_regs server = { 0x602ff, 0x988, 0x2b00, 0 };

	(void)state;
	model.host_leaf1 = (struct cpuid_filter_regs){ 0x306c3, 0, BIT(26) | BIT(28), BIT(25) };
	model.host_leaf7 = (struct cpuid_filter_regs){ 0, BIT(5), 0, 0 };	/* AVX2 only */
	assert_regs(filter(&model, 0xd, 0, &server), 0x7, 0x988, 0x2b00, 0);
	assert_regs(filter(&model, 0xd, 2, &ones), ~0u, ~0u, ~0u, ~0u);
	assert_regs(filter(&model, 0xd, 5, &ones), 0, 0, 0, 0);
	assert_regs(filter(&model, 0xd, 7, &ones), 0, 0, 0, 0);
	assert_regs(filter(&model, 0xd, 9, &ones), 0, 0, 0, 0);
	/* AVX512F and PKU shown: their components come with them. */
	model.host_leaf7.ebx |= BIT(16);
	model.host_leaf7.ecx |= BIT(3);
	assert_int_equal(filter(&model, 0xd, 0, &server).eax, 0x2e7);
	assert_regs(filter(&model, 0xd, 6, &ones), ~0u, ~0u, ~0u, ~0u);
	/* AVX-512 state needs AVX: with AVX hidden, x87 and SSE are left. */
	model.host_leaf1.ecx &= ~BIT(28);
	assert_int_equal(filter(&model, 0xd, 0, &server).eax, 0x203);
	assert_regs(filter(&model, 0xd, 2, &ones), 0, 0, 0, 0);
	assert_regs(filter(&model, 0xd, 5, &ones), 0, 0, 0, 0);
	/* No XSAVE in leaf 1: leaf 0DH is empty. */
	model.host_leaf1.ecx &= ~BIT(26);
	assert_regs(filter(&model, 0xd, 0, &server), 0, 0, 0, 0);
	assert_regs(filter(&model, 0xd, 1, &ones), 0, 0, 0, 0);
}

/* A Nehalem stops at leaf 0BH: what the host answers above it is not that leaf. */
static void test_host_values_above_host_max_ignored(void **state)
{
	struct guest_cpu_model model = model_default();
	struct cpuid_filter_regs got;

	(void)state;
	model.host_max_basic_leaf = 0xb;
	assert_regs(filter(&model, 0xd, 0, &ones), 0, 0, 0, 0);
	assert_regs(filter(&model, 0xd, 2, &ones), 0, 0, 0, 0);
	/* Synthesized leaves do not need the host. */
	got = filter(&model, 0x15, 0, &ones);
	assert_int_not_equal(got.ebx, 0);
	assert_int_not_equal(got.ecx, ~0u);
	assert_int_equal(filter(&model, 0x16, 0, &ones).eax, 2400);
	assert_regs(filter(&model, 0xb, 0, &ones), 0, 1, 0x100, 2);
}

/*
 * Linux 6.1 native_calibrate_tsc(): all unsigned int, so the product
 * crystal_khz * numerator must not wrap either.
 */
static uint32_t linux_tsc_khz(struct cpuid_filter_regs r)
{
	uint32_t crystal_khz;

	if (r.eax == 0 || r.ebx == 0)
		return 0;
	crystal_khz = r.ecx / 1000;
	if (crystal_khz == 0)
		return 0;
	assert_true((uint64_t)crystal_khz * r.ebx <= UINT32_MAX);
	return crystal_khz * r.ebx / r.eax;
}

static void check_tsc_leaf(uint64_t tsc_hz)
{
	struct guest_cpu_model model = model_default();
	struct cpuid_filter_regs got;

	model.tsc_hz = tsc_hz;
	got = filter(&model, 0x15, 0, &zeros);
	assert_int_equal(got.edx, 0);
	assert_int_equal(got.ecx % 1000, 0);
	assert_int_equal(got.ecx, cpuid_filter_crystal_hz(tsc_hz));
	assert_int_equal(linux_tsc_khz(got), tsc_hz / 1000);
}

static void test_leaf15_exact_tsc(void **state)
{
	static const uint64_t frequencies[] = {
		2400000000ull,	/* round */
		2933333000ull,	/* Nehalem: 22 x 133.33 MHz */
		3392144000ull,	/* measured against the PIT */
		2893427123ull,	/* sub-kHz digits are dropped */
		4294967000ull,	/* the last kHz value a 1 MHz crystal covers */
		4294968000ull,	/* the first one it does not */
		5000000000ull,
		6999999000ull,
		1000000ull,
		1000ull,	/* 1 kHz */
		4294967295000ull, /* the largest kHz value Linux can hold */
	};
	uint64_t hz = 1000000007ull;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(frequencies) / sizeof(frequencies[0]); i++)
		check_tsc_leaf(frequencies[i]);
	/* A sweep of odd values from 1 GHz to 10 GHz. */
	while (hz < 10000000000ull) {
		check_tsc_leaf(hz);
		hz += 12345678901ull % 97531ull + 7654321;
	}
}

static void test_leaf15_values(void **state)
{
	struct guest_cpu_model model = model_default();

	(void)state;
	/* 1 MHz crystal, ratio 2400/1. */
	assert_regs(filter(&model, 0x15, 0, &zeros), 1, 2400, 1000000, 0);
	model.tsc_hz = 2933333000ull;
	assert_regs(filter(&model, 0x15, 0, &zeros), 1000, 2933333, 1000000, 0);
	/* Above 4.29 GHz the crystal slows down: 858 kHz for 5 GHz. */
	model.tsc_hz = 5000000000ull;
	assert_regs(filter(&model, 0x15, 0, &zeros), 429, 2500000, 858000, 0);
	assert_int_equal(cpuid_filter_crystal_hz(5000000000ull), 858000);
	/* Unknown or unrepresentable: no leaf, Linux falls back. */
	model.tsc_hz = 0;
	assert_regs(filter(&model, 0x15, 0, &ones), 0, 0, 0, 0);
	model.tsc_hz = 999;
	assert_regs(filter(&model, 0x15, 0, &ones), 0, 0, 0, 0);
	model.tsc_hz = 4294967296000ull;
	assert_regs(filter(&model, 0x15, 0, &ones), 0, 0, 0, 0);
	assert_int_equal(cpuid_filter_crystal_hz(0), 0);
}

static void test_leaf16_frequency(void **state)
{
	struct guest_cpu_model model = model_default();

	(void)state;
	assert_regs(filter(&model, 0x16, 0, &ones), 2400, 2400, 0, 0);
	model.tsc_hz = 2933333000ull;
	assert_regs(filter(&model, 0x16, 0, &zeros), 2933, 2933, 0, 0);
	model.tsc_hz = 3392600000ull;	/* rounded to the nearest MHz */
	assert_regs(filter(&model, 0x16, 0, &zeros), 3393, 3393, 0, 0);
	model.tsc_hz = 70000000000ull;	/* 16-bit field saturates */
	assert_regs(filter(&model, 0x16, 0, &zeros), 0xffff, 0xffff, 0, 0);
}

static void test_leaves_past_the_maximum(void **state)
{
	static const uint32_t leaves[] = { 0x17, 0x1f, 0x20, 0x3fffffff, 0x40000002,
					   0x40000100, 0x4fffffff, 0x80000009, 0x8000001f,
					   0xc0000000, 0xffffffff };
	struct guest_cpu_model model = model_default();
	size_t i;

	(void)state;
	model.host_max_basic_leaf = 0x20;
	model.host_max_extended_leaf = 0x80000020;
	for (i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++)
		assert_regs(filter(&model, leaves[i], 0, &ones), 0, 0, 0, 0);
}

static void test_hypervisor_leaves(void **state)
{
	struct guest_cpu_model model = model_default();
	struct cpuid_filter_regs got;
	char signature[12];

	(void)state;
	got = filter(&model, 0x40000000, 0, &ones);
	assert_int_equal(got.eax, 0x40000001);
	memcpy(signature, &got.ebx, 4);
	memcpy(signature + 4, &got.ecx, 4);
	memcpy(signature + 8, &got.edx, 4);
	assert_memory_equal(signature, "sidecore\0\0\0\0", 12);
	/* None of the signatures Linux looks for. */
	assert_memory_not_equal(signature, "KVMKVMKVM\0\0\0", 12);
	assert_memory_not_equal(signature, "XenVMMXenVMM", 12);
	assert_memory_not_equal(signature, "Microsoft Hv", 12);
	assert_memory_not_equal(signature, "VMwareVMware", 12);
	assert_memory_not_equal(signature, "ACRNACRNACRN", 12);
	assert_memory_not_equal(signature, "Jailhouse\0\0\0", 12);
	assert_regs(filter(&model, 0x40000001, 0, &ones), 0, 0, 0, 0);
}

static void test_extended_leaves(void **state)
{
	struct guest_cpu_model model = model_default();
	struct cpuid_filter_regs brand = { 0x65746e49, 0x2952286c, 0x726f4320, 0x4d542865 };

	(void)state;
	assert_regs(filter(&model, 0x80000000, 0, &ones), 0x80000008, 0, 0, 0);
	/* LAHF, LZCNT, PREFETCHW; SYSCALL, NX, 1 GiB pages, long mode. */
	assert_regs(filter(&model, 0x80000001, 0, &ones), 0, 0, 0x121, 0x24100800);
	model.controls = GUEST_CPU_RDTSCP;
	assert_regs(filter(&model, 0x80000001, 0, &ones), 0, 0, 0x121, 0x2c100800);
	assert_regs(filter(&model, 0x80000002, 0, &brand), brand.eax, brand.ebx, brand.ecx,
		    brand.edx);
	assert_regs(filter(&model, 0x80000004, 0, &brand), brand.eax, brand.ebx, brand.ecx,
		    brand.edx);
	assert_regs(filter(&model, 0x80000005, 0, &ones), 0, 0, 0, 0);
	assert_regs(filter(&model, 0x80000006, 0, &ones), 0, 0, ~0u, 0);
	assert_regs(filter(&model, 0x80000007, 0, &ones), 0, 0, 0, BIT(8));
	assert_regs(filter(&model, 0x80000008, 0, &ones), 0xffff, 0, 0, 0);

	/* A host with fewer extended leaves: the guest has those only. */
	model.host_max_extended_leaf = 0x80000004;
	assert_regs(filter(&model, 0x80000000, 0, &ones), 0x80000004, 0, 0, 0);
	assert_regs(filter(&model, 0x80000008, 0, &ones), 0, 0, 0, 0);
	/* And a newer one is cut to 80000008H. */
	model.host_max_extended_leaf = 0x80000024;
	assert_int_equal(filter(&model, 0x80000000, 0, &ones).eax, 0x80000008);
	/* No extended leaves at all. */
	model.host_max_extended_leaf = 0;
	assert_regs(filter(&model, 0x80000000, 0, &ones), 0, 0, 0, 0);
}

int main(void)
{
	const struct CMUnitTest basic_tests[] = {
		cmocka_unit_test(test_max_basic_leaf),
		cmocka_unit_test(test_leaf1_features),
		cmocka_unit_test(test_leaf1_hypervisor_bits_on_a_bare_host),
		cmocka_unit_test(test_leaf1_topology),
		cmocka_unit_test(test_leaf1_osxsave_follows_cr4),
		cmocka_unit_test(test_leaf4_caches),
		cmocka_unit_test(test_hidden_leaves_are_zero),
		cmocka_unit_test(test_leaf6_only_arat),
		cmocka_unit_test(test_leaf7_features),
		cmocka_unit_test(test_leaf7_controls_and_cr4),
		cmocka_unit_test(test_leaf0b_topology),
		cmocka_unit_test(test_leaf0d_xsave),
		cmocka_unit_test(test_leaf0d_follows_leaves_1_and_7),
		cmocka_unit_test(test_host_values_above_host_max_ignored),
	};
	const struct CMUnitTest tsc_tests[] = {
		cmocka_unit_test(test_leaf15_exact_tsc),
		cmocka_unit_test(test_leaf15_values),
		cmocka_unit_test(test_leaf16_frequency),
	};
	const struct CMUnitTest range_tests[] = {
		cmocka_unit_test(test_leaves_past_the_maximum),
		cmocka_unit_test(test_hypervisor_leaves),
		cmocka_unit_test(test_extended_leaves),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("cpuid_basic", basic_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("cpuid_tsc", tsc_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("cpuid_ranges", range_tests, NULL, NULL);
	return failed;
}
