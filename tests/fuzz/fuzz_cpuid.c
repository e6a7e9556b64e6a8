// SPDX-License-Identifier: MIT
/*
 * fuzz_cpuid.c - the guest's CPUID (hv/vmx/cpuid_filter.c) over any host
 * values, leaf, subleaf, guest CR4 and vCPU model.
 *
 * Input (44 bytes; shorter inputs are zero-padded): leaf 0-3, subleaf 4-7,
 * host EAX EBX ECX EDX 8-23, guest CR4 24-31, vCPU count 32-35, APIC ID
 * 36-39, byte 40 the GUEST_CPU_* controls, byte 41 picks the host's maximum
 * basic leaf (0-0x1f), byte 42 its maximum extended leaf (80000000H plus
 * 0-0x1f), byte 43 the TSC frequency in units of 10 MHz (0: unknown).
 * A leaf below 0x100 is taken as is, one from 0x100 up folds onto the
 * hypervisor (40000000H) and extended (80000000H) ranges so each is hit
 * often.
 *
 * The invariants restate, from the SDM's CPUID tables (Vol. 2A), what the
 * guest must never see, whatever the host reports:
 *
 * - leaf 1 ECX: no MONITOR, VMX, SMX, EIST, TM2, PDCM, DCA, debug store;
 *   x2APIC and the hypervisor bit always; TSC-deadline exactly as the host
 *   has it; OSXSAVE exactly when XSAVE is shown and the guest set
 *   CR4.OSXSAVE; nothing else the host lacks;
 *   EDX: no MCE, MTRR, MCA, PSN, DS, ACPI, TM, PBE; HTT exactly with more
 *   than one vCPU; EBX carries the vCPU's APIC ID;
 * - leaves 3, 5 (MONITOR/MWAIT), 0AH (PMU) and the RDT/SGX/PT leaves are
 *   zero; the maximum basic leaf is 16H and leaves past it are zero;
 * - leaf 7: no SGX, HLE, RTM, MPX, PT, WAITPKG, LA57, CET, the speculation
 *   control MSRs; INVPCID, RDPID, XSAVES and RDTSCP only with their
 *   control; OSPKE exactly when PKU is shown and CR4.PKE is set;
 * - leaf 0DH: XCR0 components only x87, SSE, AVX, AVX-512 and PKRU;
 * - leaf 15H: crystal * EBX / EAX is the TSC frequency in kHz exactly, with
 *   the product in 32 bits (Linux computes it so);
 * - leaf 0BH: EDX is the APIC ID, the level types are SMT then core;
 * - extended leaves stop at 80000008H and the hypervisor range at 40000001H.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmx/cpuid_filter.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define INPUT_BYTES	44
#define B(n)		(1u << (n))

#define CR4_OSXSAVE	(1ull << 18)
#define CR4_PKE		(1ull << 22)

/* Leaf 1. */
#define L1_ECX_NEVER	(B(2) | B(3) | B(4) | B(5) | B(6) | B(7) | B(8) | B(10) | B(11) | \
			 B(14) | B(15) | B(18))
#define L1_ECX_ALWAYS	(B(21) | B(31))
#define L1_ECX_TSC_DEADLINE B(24)
#define L1_ECX_XSAVE	B(26)
#define L1_ECX_OSXSAVE	B(27)
#define L1_EDX_NEVER	(B(7) | B(12) | B(14) | B(18) | B(21) | B(22) | B(29) | B(31))
#define L1_EDX_HTT	B(28)
/* Leaf 7 subleaf 0. */
#define L7_EBX_NEVER	(B(2) | B(4) | B(11) | B(12) | B(14) | B(15) | B(25))
#define L7_EBX_INVPCID	B(10)
#define L7_ECX_NEVER	(B(5) | B(7) | B(13) | B(16) | B(17) | B(18) | B(19) | B(20) | \
			 B(21) | B(23) | B(29) | B(30) | B(31))
#define L7_ECX_PKU	B(3)
#define L7_ECX_OSPKE	B(4)
#define L7_ECX_RDPID	B(22)
#define L7_EDX_NEVER	(B(15) | B(16) | B(18) | B(20) | B(22) | B(24) | B(25) | B(26) | \
			 B(27) | B(28) | B(29) | B(30) | B(31))
/* Leaf 0DH. */
#define XCR0_ALLOWED	(B(0) | B(1) | B(2) | B(5) | B(6) | B(7) | B(9))
#define LD1_EAX_XSAVES	B(3)
#define LD1_EAX_XFD	B(4)
/* Leaf 80000001H. */
#define LX1_EDX_RDTSCP	B(27)

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void check_leaf1(const struct guest_cpu_model *m, uint64_t cr4,
			const struct cpuid_filter_regs *host, const struct cpuid_filter_regs *r)
{
	uint32_t count = m->vcpu_count ? m->vcpu_count : 1;

	CHECK(!(r->ecx & L1_ECX_NEVER));
	CHECK((r->ecx & L1_ECX_ALWAYS) == L1_ECX_ALWAYS);
	CHECK(!(r->ecx & ~(host->ecx | L1_ECX_ALWAYS | L1_ECX_OSXSAVE)));
	CHECK((r->ecx & L1_ECX_TSC_DEADLINE) == (host->ecx & L1_ECX_TSC_DEADLINE));
	CHECK(!!(r->ecx & L1_ECX_OSXSAVE) == (!!(r->ecx & L1_ECX_XSAVE) && !!(cr4 & CR4_OSXSAVE)));
	CHECK(!(r->edx & L1_EDX_NEVER));
	CHECK(!(r->edx & ~(host->edx | L1_EDX_HTT)));
	CHECK(!!(r->edx & L1_EDX_HTT) == (count > 1));
	CHECK(r->ebx >> 24 == (m->apic_id & 0xff));
	CHECK(((r->ebx >> 16) & 0xff) >= 1);
}

static void check_leaf7(const struct guest_cpu_model *m, uint64_t cr4, uint32_t subleaf,
			const struct cpuid_filter_regs *host, const struct cpuid_filter_regs *r)
{
	if (subleaf) {
		CHECK(!r->eax && !r->ebx && !r->ecx && !r->edx);
		return;
	}
	CHECK(!(r->ebx & L7_EBX_NEVER) && !(r->ecx & L7_ECX_NEVER) && !(r->edx & L7_EDX_NEVER));
	CHECK(!(r->ebx & ~host->ebx) && !(r->edx & ~host->edx));
	CHECK(!(r->ecx & ~(host->ecx | L7_ECX_OSPKE)));
	if (!(m->controls & GUEST_CPU_INVPCID))
		CHECK(!(r->ebx & L7_EBX_INVPCID));
	if (!(m->controls & GUEST_CPU_RDTSCP))
		CHECK(!(r->ecx & L7_ECX_RDPID));
	CHECK(!!(r->ecx & L7_ECX_OSPKE) == (!!(r->ecx & L7_ECX_PKU) && !!(cr4 & CR4_PKE)));
}

static void check_xsave(const struct guest_cpu_model *m, uint32_t subleaf,
			const struct cpuid_filter_regs *r)
{
	if (subleaf == 0) {
		CHECK(!(r->eax & ~XCR0_ALLOWED) && r->edx == 0);
	} else if (subleaf == 1) {
		CHECK(!(r->eax & LD1_EAX_XFD) && r->ecx == 0 && r->edx == 0);
		if (!(m->controls & GUEST_CPU_XSAVES))
			CHECK(!(r->eax & LD1_EAX_XSAVES));
	} else if (subleaf > 63 || !(XCR0_ALLOWED & (1ull << subleaf))) {
		CHECK(!r->eax && !r->ebx && !r->ecx && !r->edx);
	}
}

static void check_crystal(const struct guest_cpu_model *m, const struct cpuid_filter_regs *r)
{
	uint64_t crystal_khz = r->ecx / 1000;

	if (!r->eax) {
		CHECK(!r->ebx && !r->ecx);
		return;
	}
	CHECK(r->ecx % 1000 == 0);
	CHECK(crystal_khz * r->ebx <= UINT32_MAX);
	CHECK(crystal_khz * r->ebx / r->eax == m->tsc_hz / 1000);
	CHECK(crystal_khz * r->ebx % r->eax == 0);
}

static void check_basic(const struct guest_cpu_model *m, uint64_t cr4, uint32_t leaf,
			uint32_t subleaf, const struct cpuid_filter_regs *host,
			const struct cpuid_filter_regs *r)
{
	static const struct cpuid_filter_regs zero;
	const struct cpuid_filter_regs *h = leaf <= m->host_max_basic_leaf ? host : &zero;

	switch (leaf) {
	case 0x0:
		CHECK(r->eax == CPUID_FILTER_MAX_BASIC_LEAF);
		break;
	case 0x1:
		check_leaf1(m, cr4, h, r);
		break;
	case 0x7:
		check_leaf7(m, cr4, subleaf, h, r);
		break;
	case 0xb:
		CHECK(r->edx == m->apic_id && (r->ecx & 0xff) == (subleaf & 0xff));
		CHECK(((r->ecx >> 8) & 0xff) == (subleaf == 0 ? 1 : subleaf == 1 ? 2 : 0));
		break;
	case 0xd:
		check_xsave(m, subleaf, r);
		break;
	case 0x15:
		check_crystal(m, r);
		break;
	case 0x2: case 0x4: case 0x6: case 0x16:
		break;
	default:	/* 3, 5, 8-0AH, 0CH, 0EH-14H: hidden or reserved */
		CHECK(!r->eax && !r->ebx && !r->ecx && !r->edx);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t in[INPUT_BYTES] = { 0 };
	struct guest_cpu_model m;
	struct cpuid_filter_regs host, r, again;
	uint32_t leaf, subleaf;
	uint64_t cr4;

	memcpy(in, data, size < sizeof(in) ? size : sizeof(in));
	leaf = le32(in);
	if (leaf >= 0x100)
		leaf = (leaf & 0x80000000u ? 0x80000000u : 0x40000000u) | (leaf & 0x1f);
	subleaf = le32(in + 4);
	host = (struct cpuid_filter_regs){ le32(in + 8), le32(in + 12), le32(in + 16),
					   le32(in + 20) };
	cr4 = (uint64_t)le32(in + 24) | (uint64_t)le32(in + 28) << 32;
	m = (struct guest_cpu_model){
		.vcpu_count = le32(in + 32),
		.apic_id = le32(in + 36),
		.controls = in[40] & (GUEST_CPU_RDTSCP | GUEST_CPU_INVPCID | GUEST_CPU_XSAVES),
		.host_max_basic_leaf = in[41] & 0x1f,
		.host_max_extended_leaf = 0x80000000u | (in[42] & 0x1f),
		.tsc_hz = in[43] * 10000000ull,
	};

	r = cpuid_filter_leaf(&m, cr4, leaf, subleaf, &host);
	again = cpuid_filter_leaf(&m, cr4, leaf, subleaf, &host);
	CHECK(memcmp(&r, &again, sizeof(r)) == 0);

	if (leaf <= CPUID_FILTER_MAX_BASIC_LEAF) {
		check_basic(&m, cr4, leaf, subleaf, &host, &r);
	} else if (leaf == 0x80000000u) {
		CHECK(r.eax <= CPUID_FILTER_MAX_EXTENDED_LEAF && r.eax <= m.host_max_extended_leaf);
	} else if (leaf == 0x80000001u && leaf <= m.host_max_extended_leaf) {
		if (!(m.controls & GUEST_CPU_RDTSCP))
			CHECK(!(r.edx & LX1_EDX_RDTSCP));
		CHECK(!(r.ecx & ~host.ecx) && !(r.edx & ~host.edx) && !r.eax && !r.ebx);
	} else if (leaf == CPUID_FILTER_HYPERVISOR_BASE) {
		CHECK(r.eax == CPUID_FILTER_HYPERVISOR_MAX);
	} else if (leaf > CPUID_FILTER_MAX_EXTENDED_LEAF || leaf > m.host_max_extended_leaf ||
		   (leaf > CPUID_FILTER_MAX_BASIC_LEAF && leaf < 0x80000000u)) {
		CHECK(!r.eax && !r.ebx && !r.ecx && !r.edx);
	}
	return 0;
}
