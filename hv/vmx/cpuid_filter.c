// SPDX-License-Identifier: MIT
/*
 * cpuid_filter.c - the processor a guest sees through CPUID.
 *
 * Feature bits are kept by allow-list: a bit the host reports reaches the
 * guest only when it is named below, so a feature of a newer processor stays
 * hidden until someone decides the guest may use it. What is hidden leads the
 * guest to MSRs the hypervisor does not emulate, to VMX controls it does not
 * set, or to hardware (thermal, performance monitoring, machine checks) that
 * belongs to the host; each group below says which.
 *
 * Bit positions: SDM Vol. 2A, CPUID, Tables 3-8 (leaves), 3-10 (leaf 1 ECX)
 * and 3-11 (leaf 1 EDX).
 *
 * Leaves the guest may ask for but that do not exist (above the maximum
 * basic leaf 16H, above the maximum extended leaf, in the hypervisor range
 * past 40000001H) read as zero. A real Intel processor answers those with
 * the data of its highest basic leaf instead (CPUID, "INPUT EAX = 0"); zero
 * is what other vendors return, and Linux reads no leaf above the maximum it
 * was given, so nothing depends on the difference.
 */
#include <stdint.h>

#include "vmx/cpuid_filter.h"

#define BIT(n)	(1u << (n))

/* Leaf 1 ECX: kept as the host has them. */
#define CPUID1_ECX_SSE3		BIT(0)
#define CPUID1_ECX_PCLMULQDQ	BIT(1)
#define CPUID1_ECX_SSSE3	BIT(9)
#define CPUID1_ECX_FMA		BIT(12)
#define CPUID1_ECX_CMPXCHG16B	BIT(13)
#define CPUID1_ECX_PCID		BIT(17)	/* needs no VMX control; INVPCID does */
#define CPUID1_ECX_SSE4_1	BIT(19)
#define CPUID1_ECX_SSE4_2	BIT(20)
#define CPUID1_ECX_MOVBE	BIT(22)
#define CPUID1_ECX_POPCNT	BIT(23)
#define CPUID1_ECX_TSC_DEADLINE	BIT(24)	/* the core's own APIC timer has it */
#define CPUID1_ECX_AES		BIT(25)
#define CPUID1_ECX_XSAVE	BIT(26)
#define CPUID1_ECX_AVX		BIT(28)
#define CPUID1_ECX_F16C		BIT(29)
#define CPUID1_ECX_RDRAND	BIT(30)
/* Leaf 1 ECX: set by the hypervisor. */
#define CPUID1_ECX_X2APIC	BIT(21)	/* the core's own APIC, seen as x2APIC */
#define CPUID1_ECX_OSXSAVE	BIT(27)	/* mirrors the guest's CR4.OSXSAVE */
#define CPUID1_ECX_HYPERVISOR	BIT(31)	/* reserved for hypervisors: "not bare metal" */
/*
 * Leaf 1 ECX, hidden:
 *  2 DTES64, 4 DS-CPL: the debug store (IA32_DS_AREA) is not emulated.
 *  3 MONITOR: MONITOR/MWAIT would idle the physical core behind the
 *    hypervisor's back; the guest idles with HLT. Leaf 5 is zero with it.
 *  5 VMX, 6 SMX: no nested virtualization, no GETSEC.
 *  7 EIST, 8 TM2: IA32_PERF_CTL and the thermal MSRs belong to the host.
 * 10 CNXT-ID, 14 xTPR: controlled through IA32_MISC_ENABLE, not emulated.
 * 11 SDBG: IA32_DEBUG_INTERFACE is not emulated.
 * 15 PDCM: IA32_PERF_CAPABILITIES; there is no guest PMU (leaf 0AH is zero).
 * 18 DCA: the platform's DCA MSR and leaf 9 belong to the host.
 */
#define CPUID1_ECX_KEEP	(CPUID1_ECX_SSE3 | CPUID1_ECX_PCLMULQDQ | CPUID1_ECX_SSSE3 | \
			 CPUID1_ECX_FMA | CPUID1_ECX_CMPXCHG16B | CPUID1_ECX_PCID | \
			 CPUID1_ECX_SSE4_1 | CPUID1_ECX_SSE4_2 | CPUID1_ECX_MOVBE | \
			 CPUID1_ECX_POPCNT | CPUID1_ECX_TSC_DEADLINE | CPUID1_ECX_AES | \
			 CPUID1_ECX_XSAVE | CPUID1_ECX_AVX | CPUID1_ECX_F16C | CPUID1_ECX_RDRAND)

/* Leaf 1 EDX: kept as the host has them. */
#define CPUID1_EDX_FPU		BIT(0)
#define CPUID1_EDX_VME		BIT(1)
#define CPUID1_EDX_DE		BIT(2)
#define CPUID1_EDX_PSE		BIT(3)
#define CPUID1_EDX_TSC		BIT(4)
#define CPUID1_EDX_MSR		BIT(5)
#define CPUID1_EDX_PAE		BIT(6)
#define CPUID1_EDX_CX8		BIT(8)
#define CPUID1_EDX_APIC		BIT(9)	/* the core's own local APIC */
#define CPUID1_EDX_SEP		BIT(11)
#define CPUID1_EDX_PGE		BIT(13)
#define CPUID1_EDX_CMOV		BIT(15)
#define CPUID1_EDX_PAT		BIT(16)
#define CPUID1_EDX_PSE36	BIT(17)
#define CPUID1_EDX_CLFSH	BIT(19)
#define CPUID1_EDX_MMX		BIT(23)
#define CPUID1_EDX_FXSR		BIT(24)
#define CPUID1_EDX_SSE		BIT(25)
#define CPUID1_EDX_SSE2		BIT(26)
#define CPUID1_EDX_SS		BIT(27)
/* Leaf 1 EDX: set by the hypervisor. */
#define CPUID1_EDX_HTT		BIT(28)	/* EBX[23:16] is valid: more than one vCPU */
/*
 * Leaf 1 EDX, hidden:
 *  7 MCE, 14 MCA: machine checks are the host's; the IA32_MCG_* and
 *    IA32_MCi_* banks are not emulated.
 * 12 MTRR: the MTRR MSRs are not emulated; EPT decides memory types.
 * 18 PSN: the processor serial number (leaf 3) is the host's.
 * 21 DS: the debug store (IA32_DS_AREA) is not emulated.
 * 22 ACPI, 29 TM: thermal monitoring and clock modulation MSRs are the host's.
 * 31 PBE: enabled through IA32_MISC_ENABLE, not emulated.
 */
#define CPUID1_EDX_KEEP	(CPUID1_EDX_FPU | CPUID1_EDX_VME | CPUID1_EDX_DE | CPUID1_EDX_PSE | \
			 CPUID1_EDX_TSC | CPUID1_EDX_MSR | CPUID1_EDX_PAE | CPUID1_EDX_CX8 | \
			 CPUID1_EDX_APIC | CPUID1_EDX_SEP | CPUID1_EDX_PGE | CPUID1_EDX_CMOV | \
			 CPUID1_EDX_PAT | CPUID1_EDX_PSE36 | CPUID1_EDX_CLFSH | CPUID1_EDX_MMX | \
			 CPUID1_EDX_FXSR | CPUID1_EDX_SSE | CPUID1_EDX_SSE2 | CPUID1_EDX_SS)

/* Leaf 1 EBX: brand index 7:0, CLFLUSH line 15:8, logical processors 23:16, APIC ID 31:24. */
#define CPUID1_EBX_HOST_MASK	0x0000ffffu
#define CPUID1_EBX_COUNT_SHIFT	16
#define CPUID1_EBX_APIC_SHIFT	24

/*
 * Leaf 4 EAX: cache type 4:0 (0: no more caches), level 7:5, logical
 * processors sharing the cache minus one 25:14, addressable core IDs in the
 * package minus one 31:26.
 */
#define CPUID4_EAX_TYPE_MASK	0x1fu
#define CPUID4_EAX_LEVEL(eax)	(((eax) >> 5) & 7)
#define CPUID4_EAX_HOST_MASK	0x00003fffu
#define CPUID4_EAX_SHARING_SHIFT 14
#define CPUID4_EAX_SHARING_MAX	0xfffu
#define CPUID4_EAX_CORES_SHIFT	26
#define CPUID4_EAX_CORES_MAX	0x3fu

/*
 * Leaf 6 EAX bit 2, ARAT: the APIC timer keeps running in deep C-states.
 * Always true of the virtual LAPIC timer, and without it Linux flags the
 * LAPIC timer C3STOP and, lacking any broadcast timer (no HPET, no PIT),
 * stays in periodic ticks: no high-resolution timers, no NOHZ. Every other
 * thermal and power management bit is the host's and stays zero.
 */
#define CPUID6_EAX_ARAT		BIT(2)

/* Leaf 7 subleaf 0 EBX: kept. */
#define CPUID7_EBX_FSGSBASE	BIT(0)
#define CPUID7_EBX_TSC_ADJUST	BIT(1)	/* emulated with the VMCS TSC offset */
#define CPUID7_EBX_BMI1		BIT(3)
#define CPUID7_EBX_AVX2		BIT(5)
#define CPUID7_EBX_FDP_EXCPTN	BIT(6)
#define CPUID7_EBX_SMEP		BIT(7)
#define CPUID7_EBX_BMI2		BIT(8)
#define CPUID7_EBX_ERMS		BIT(9)
#define CPUID7_EBX_INVPCID	BIT(10)	/* only with GUEST_CPU_INVPCID */
#define CPUID7_EBX_FPU_CSDS	BIT(13)
#define CPUID7_EBX_AVX512F	BIT(16)
#define CPUID7_EBX_AVX512DQ	BIT(17)
#define CPUID7_EBX_RDSEED	BIT(18)
#define CPUID7_EBX_ADX		BIT(19)
#define CPUID7_EBX_SMAP		BIT(20)
#define CPUID7_EBX_AVX512IFMA	BIT(21)
#define CPUID7_EBX_CLFLUSHOPT	BIT(23)
#define CPUID7_EBX_CLWB		BIT(24)
#define CPUID7_EBX_AVX512PF	BIT(26)
#define CPUID7_EBX_AVX512ER	BIT(27)
#define CPUID7_EBX_AVX512CD	BIT(28)
#define CPUID7_EBX_SHA		BIT(29)
#define CPUID7_EBX_AVX512BW	BIT(30)
#define CPUID7_EBX_AVX512VL	BIT(31)
/*
 * Leaf 7 EBX, hidden:
 *  2 SGX, 12 RDT-M, 15 RDT-A, 25 Intel PT: platform resources and tracing
 *    that need MSRs, leaves 0FH-14H and VMCS support the hypervisor lacks.
 *  4 HLE, 11 RTM: TSX; erratum-ridden on Haswell, and its TAA mitigation
 *    needs IA32_TSX_CTRL, which is not emulated.
 * 14 MPX: needs IA32_BNDCFGS in the VMCS; gone from newer processors anyway.
 */
#define CPUID7_EBX_KEEP	(CPUID7_EBX_FSGSBASE | CPUID7_EBX_TSC_ADJUST | CPUID7_EBX_BMI1 | CPUID7_EBX_AVX2 | \
			 CPUID7_EBX_FDP_EXCPTN | CPUID7_EBX_SMEP | CPUID7_EBX_BMI2 | \
			 CPUID7_EBX_ERMS | CPUID7_EBX_FPU_CSDS | CPUID7_EBX_AVX512F | \
			 CPUID7_EBX_AVX512DQ | CPUID7_EBX_RDSEED | CPUID7_EBX_ADX | \
			 CPUID7_EBX_SMAP | CPUID7_EBX_AVX512IFMA | CPUID7_EBX_CLFLUSHOPT | \
			 CPUID7_EBX_CLWB | CPUID7_EBX_AVX512PF | CPUID7_EBX_AVX512ER | \
			 CPUID7_EBX_AVX512CD | CPUID7_EBX_SHA | CPUID7_EBX_AVX512BW | \
			 CPUID7_EBX_AVX512VL)

/* Leaf 7 subleaf 0 ECX: kept. */
#define CPUID7_ECX_PREFETCHWT1	BIT(0)
#define CPUID7_ECX_AVX512VBMI	BIT(1)
#define CPUID7_ECX_UMIP		BIT(2)
#define CPUID7_ECX_PKU		BIT(3)
#define CPUID7_ECX_OSPKE	BIT(4)	/* mirrors the guest's CR4.PKE */
#define CPUID7_ECX_AVX512VBMI2	BIT(6)
#define CPUID7_ECX_GFNI		BIT(8)
#define CPUID7_ECX_VAES		BIT(9)
#define CPUID7_ECX_VPCLMULQDQ	BIT(10)
#define CPUID7_ECX_AVX512VNNI	BIT(11)
#define CPUID7_ECX_AVX512BITALG	BIT(12)
#define CPUID7_ECX_AVX512VPOPCNT BIT(14)
#define CPUID7_ECX_RDPID	BIT(22)	/* only with GUEST_CPU_RDTSCP */
#define CPUID7_ECX_CLDEMOTE	BIT(25)
#define CPUID7_ECX_MOVDIRI	BIT(27)
#define CPUID7_ECX_MOVDIR64B	BIT(28)
/*
 * Leaf 7 ECX, hidden:
 *  5 WAITPKG: UMWAIT/TPAUSE #UD without "enable user wait and pause".
 *  7 CET shadow stacks: the CET MSRs and VMCS fields are not handled.
 * 13 TME: IA32_TME_* belong to the host.
 * 16 LA57: Linux enters 5-level paging through a 32-bit trampoline with
 *    paging off, which VMX without unrestricted guest cannot run.
 * 17-21 MAWAU: part of MPX.
 * 23 Key Locker, 29 ENQCMD, 30 SGX-LC, 31 PKS: MSRs not emulated.
 */
#define CPUID7_ECX_KEEP	(CPUID7_ECX_PREFETCHWT1 | CPUID7_ECX_AVX512VBMI | CPUID7_ECX_UMIP | \
			 CPUID7_ECX_PKU | CPUID7_ECX_AVX512VBMI2 | CPUID7_ECX_GFNI | \
			 CPUID7_ECX_VAES | CPUID7_ECX_VPCLMULQDQ | CPUID7_ECX_AVX512VNNI | \
			 CPUID7_ECX_AVX512BITALG | CPUID7_ECX_AVX512VPOPCNT | \
			 CPUID7_ECX_CLDEMOTE | CPUID7_ECX_MOVDIRI | CPUID7_ECX_MOVDIR64B)

/* Leaf 7 subleaf 0 EDX: kept. */
#define CPUID7_EDX_AVX512_4VNNIW BIT(2)
#define CPUID7_EDX_AVX512_4FMAPS BIT(3)
#define CPUID7_EDX_FSRM		BIT(4)
#define CPUID7_EDX_AVX512_VP2I	BIT(8)
#define CPUID7_EDX_MD_CLEAR	BIT(10)	/* VERW clears buffers: no MSR involved */
#define CPUID7_EDX_SERIALIZE	BIT(14)
#define CPUID7_EDX_AVX512_FP16	BIT(23)
/*
 * Leaf 7 EDX, hidden:
 * 15 hybrid, 16 TSXLDTRK, 18 PCONFIG, 20 CET-IBT: leaves, instructions and
 *    MSRs the hypervisor does not provide.
 * 22, 24, 25 AMX: needs XFD and the AMX XSAVE components, hidden in leaf 0DH.
 * 26 IBRS/IBPB, 27 STIBP, 28 L1D_FLUSH, 29 IA32_ARCH_CAPABILITIES,
 *    30 IA32_CORE_CAPABILITIES, 31 SSBD: IA32_SPEC_CTRL, IA32_PRED_CMD,
 *    IA32_FLUSH_CMD and the capability MSRs are not emulated; the guest
 *    then assumes the worst and protects itself in software.
 */
#define CPUID7_EDX_KEEP	(CPUID7_EDX_AVX512_4VNNIW | CPUID7_EDX_AVX512_4FMAPS | \
			 CPUID7_EDX_FSRM | CPUID7_EDX_AVX512_VP2I | CPUID7_EDX_MD_CLEAR | \
			 CPUID7_EDX_SERIALIZE | CPUID7_EDX_AVX512_FP16)

/* Leaf 0BH ECX: level number 7:0, level type 15:8 (1 SMT, 2 core, 0 invalid). */
#define CPUID0B_LEVEL_SMT	0
#define CPUID0B_LEVEL_CORE	1
#define CPUID0B_TYPE_SMT	(1u << 8)
#define CPUID0B_TYPE_CORE	(2u << 8)
#define CPUID0B_EBX_MAX		0xffffu

/*
 * Leaf 0DH subleaf 0 EAX: the XCR0 components the guest may enable (SDM
 * Vol. 1 §13.1): x87, SSE, AVX, the three AVX-512 states and PKRU, each only
 * while the guest's leaf 1 or 7 shows its feature. MPX (3, 4) and AMX (17,
 * 18) go with their hidden features; EDX (XCR0 63:32) is zero. Subleaves
 * 2-63 describe one component each and are zero for the others.
 */
#define XCR0_COMPONENT_X87	BIT(0)
#define XCR0_COMPONENT_SSE	BIT(1)
#define XCR0_COMPONENT_AVX	BIT(2)
#define XCR0_COMPONENTS_AVX512	(BIT(5) | BIT(6) | BIT(7))
#define XCR0_COMPONENT_PKRU	BIT(9)
#define CPUID0D_SUBLEAF_COMPONENTS	0
#define CPUID0D_SUBLEAF_EXTENSIONS	1
#define CPUID0D_SUBLEAF_LAST		63
/*
 * Leaf 0DH subleaf 1 EAX: XSAVEOPT, XSAVEC, XGETBV with ECX=1, XSAVES (only
 * with GUEST_CPU_XSAVES). XFD (bit 4) goes with AMX. ECX and EDX list the
 * IA32_XSS components, all of which belong to hidden features (PT, CET,
 * HWP, LBR...), so they are zero.
 */
#define CPUID0D1_EAX_XSAVEOPT	BIT(0)
#define CPUID0D1_EAX_XSAVEC	BIT(1)
#define CPUID0D1_EAX_XGETBV1	BIT(2)
#define CPUID0D1_EAX_XSAVES	BIT(3)

/* Leaf 16H: base and maximum frequency in MHz, 15:0. */
#define CPUID16_MHZ_MAX		0xffffu

/* Leaf 80000001H ECX/EDX, kept: the only bits Intel defines. */
#define CPUIDX1_ECX_LAHF_LM	BIT(0)
#define CPUIDX1_ECX_LZCNT	BIT(5)
#define CPUIDX1_ECX_PREFETCHW	BIT(8)
#define CPUIDX1_EDX_SYSCALL	BIT(11)
#define CPUIDX1_EDX_NX		BIT(20)
#define CPUIDX1_EDX_PAGE1GB	BIT(26)	/* guest page tables; EPT translates them */
#define CPUIDX1_EDX_RDTSCP	BIT(27)	/* only with GUEST_CPU_RDTSCP */
#define CPUIDX1_EDX_LM		BIT(29)
#define CPUIDX1_ECX_KEEP	(CPUIDX1_ECX_LAHF_LM | CPUIDX1_ECX_LZCNT | CPUIDX1_ECX_PREFETCHW)
#define CPUIDX1_EDX_KEEP	(CPUIDX1_EDX_SYSCALL | CPUIDX1_EDX_NX | CPUIDX1_EDX_PAGE1GB | \
				 CPUIDX1_EDX_LM)

/*
 * Leaf 80000007H EDX bit 8: the TSC runs at a constant rate in every state.
 * Always so for a vCPU: it owns its core, never migrates, and the TSC of
 * every Nehalem or later part is invariant. With TSC_ADJUST this lets
 * Linux trust the TSC without a clocksource watchdog, which here would
 * only have jiffies to compare with.
 */
#define CPUIDX7_EDX_INVARIANT_TSC BIT(8)

/* CR4 bits mirrored into CPUID (SDM Vol. 3A §2.5). */
#define CR4_OSXSAVE		(1ull << 18)
#define CR4_PKE			(1ull << 22)

/* "sidecore", NUL-padded to 12 bytes, in EBX, ECX, EDX order. */
#define SIGNATURE_EBX		0x65646973u	/* "side" */
#define SIGNATURE_ECX		0x65726f63u	/* "core" */
#define SIGNATURE_EDX		0x00000000u

/* Leaf 15H: Linux's crystal_khz * numerator is 32-bit arithmetic. */
#define CRYSTAL_KHZ_PREFERRED	1000u

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static uint32_t vcpu_count(const struct guest_cpu_model *model)
{
	return model->vcpu_count ? model->vcpu_count : 1;
}

/* Smallest shift with 1 << shift >= count: the core-ID field of an APIC ID. */
static uint32_t core_id_bits(uint32_t count)
{
	uint32_t shift = 0;

	while (shift < 32 && (1ull << shift) < count)
		shift++;
	return shift;
}

/* The core-ID width the guest's leaves describe. */
static uint32_t package_shift(const struct guest_cpu_model *model)
{
	uint32_t bits = core_id_bits(vcpu_count(model));

	return model->core_id_bits > bits ? model->core_id_bits : bits;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t rest = a % b;

		a = b;
		b = rest;
	}
	return a;
}

/*
 * Leaf 1: identification as the host's, this vCPU's APIC ID, the guest's
 * vCPU count, and the filtered features.
 */
static struct cpuid_filter_regs leaf_features(const struct guest_cpu_model *model,
					      uint64_t guest_cr4,
					      const struct cpuid_filter_regs *host)
{
	uint32_t count = vcpu_count(model);
	struct cpuid_filter_regs out = {
		.eax = host->eax,
		.ebx = (host->ebx & CPUID1_EBX_HOST_MASK) |
		       (min_u32(count, 0xff) << CPUID1_EBX_COUNT_SHIFT) |
		       ((model->apic_id & 0xff) << CPUID1_EBX_APIC_SHIFT),
		.ecx = (host->ecx & CPUID1_ECX_KEEP) | CPUID1_ECX_X2APIC | CPUID1_ECX_HYPERVISOR,
		.edx = host->edx & CPUID1_EDX_KEEP,
	};

	if ((out.ecx & CPUID1_ECX_XSAVE) && (guest_cr4 & CR4_OSXSAVE))
		out.ecx |= CPUID1_ECX_OSXSAVE;
	if (count > 1)
		out.edx |= CPUID1_EDX_HTT;
	return out;
}

/*
 * Leaf 4: the host's caches, shared as the guest's topology says. Each vCPU
 * owns a physical core, so L1 and L2 are its alone; L3 and beyond are
 * described as shared by every vCPU of the guest.
 */
static struct cpuid_filter_regs leaf_caches(const struct guest_cpu_model *model,
					    const struct cpuid_filter_regs *host)
{
	uint32_t ids = (1u << min_u32(package_shift(model), 12)) - 1, sharing = 0;
	struct cpuid_filter_regs out = *host;

	if (!(host->eax & CPUID4_EAX_TYPE_MASK))
		return out;
	/* Both fields count APIC IDs less one (SDM Vol. 2A, CPUID leaf 04H). */
	if (CPUID4_EAX_LEVEL(host->eax) >= 3)
		sharing = min_u32(ids, CPUID4_EAX_SHARING_MAX);
	out.eax = (host->eax & CPUID4_EAX_HOST_MASK) |
		  (sharing << CPUID4_EAX_SHARING_SHIFT) |
		  (min_u32(ids, CPUID4_EAX_CORES_MAX) << CPUID4_EAX_CORES_SHIFT);
	return out;
}

static struct cpuid_filter_regs leaf_extended_features(const struct guest_cpu_model *model,
						       uint64_t guest_cr4, uint32_t subleaf,
						       const struct cpuid_filter_regs *host)
{
	struct cpuid_filter_regs out = { 0 };

	/* EAX, the last subleaf, is 0: subleaf 1 and up describe nothing kept. */
	if (subleaf != 0)
		return out;
	out.ebx = host->ebx & CPUID7_EBX_KEEP;
	out.ecx = host->ecx & CPUID7_ECX_KEEP;
	out.edx = host->edx & CPUID7_EDX_KEEP;
	if (model->controls & GUEST_CPU_INVPCID)
		out.ebx |= host->ebx & CPUID7_EBX_INVPCID;
	if (model->controls & GUEST_CPU_RDTSCP)
		out.ecx |= host->ecx & CPUID7_ECX_RDPID;
	if ((out.ecx & CPUID7_ECX_PKU) && (guest_cr4 & CR4_PKE))
		out.ecx |= CPUID7_ECX_OSPKE;
	return out;
}

/*
 * Leaf 0BH: one thread per core, vcpu_count cores in one package. The
 * x2APIC ID in EDX is the vCPU's APIC ID, which Linux takes as its initial
 * APIC ID.
 */
static struct cpuid_filter_regs leaf_topology(const struct guest_cpu_model *model,
					      uint32_t subleaf)
{
	struct cpuid_filter_regs out = {
		.ecx = subleaf & 0xff,
		.edx = model->apic_id,
	};

	if (subleaf == CPUID0B_LEVEL_SMT) {
		out.ebx = 1;
		out.ecx |= CPUID0B_TYPE_SMT;
	} else if (subleaf == CPUID0B_LEVEL_CORE) {
		out.eax = package_shift(model);
		out.ebx = min_u32(vcpu_count(model), CPUID0B_EBX_MAX);
		out.ecx |= CPUID0B_TYPE_CORE;
	}
	return out;
}

/*
 * The XCR0 components whose features the guest's leaves 1 and 7 show; none
 * when it sees no XSAVE. x87 state is always there with XSAVE (bit 0 of
 * XCR0 cannot be cleared).
 */
static uint32_t xsave_components(const struct guest_cpu_model *model)
{
	struct cpuid_filter_regs leaf1 = leaf_features(model, 0, &model->host_leaf1);
	struct cpuid_filter_regs leaf7 = leaf_extended_features(model, 0, 0, &model->host_leaf7);
	uint32_t components = XCR0_COMPONENT_X87;

	if (!(leaf1.ecx & CPUID1_ECX_XSAVE))
		return 0;
	if (leaf1.edx & CPUID1_EDX_SSE)
		components |= XCR0_COMPONENT_SSE;
	if (leaf1.ecx & CPUID1_ECX_AVX)
		components |= XCR0_COMPONENT_AVX;
	/* AVX-512 state extends the AVX state (SDM Vol. 1 §13.3). */
	if ((components & XCR0_COMPONENT_AVX) && (leaf7.ebx & CPUID7_EBX_AVX512F))
		components |= XCR0_COMPONENTS_AVX512;
	if (leaf7.ecx & CPUID7_ECX_PKU)
		components |= XCR0_COMPONENT_PKRU;
	return components;
}

/*
 * Leaf 0DH: the host's XSAVE layout, less the components of hidden
 * features. The sizes in subleaves 0 and 1 EBX depend on the XCR0 (and
 * IA32_XSS) in force when the host ran CPUID, so the caller runs it with
 * the guest's loaded.
 */
static struct cpuid_filter_regs leaf_xsave(const struct guest_cpu_model *model,
					   uint32_t subleaf,
					   const struct cpuid_filter_regs *host)
{
	uint32_t components = xsave_components(model);
	struct cpuid_filter_regs out = { 0 };
	uint32_t keep;

	if (!components)
		return out;
	if (subleaf == CPUID0D_SUBLEAF_COMPONENTS) {
		out = *host;
		out.eax &= components;
		out.edx = 0;
	} else if (subleaf == CPUID0D_SUBLEAF_EXTENSIONS) {
		keep = CPUID0D1_EAX_XSAVEOPT | CPUID0D1_EAX_XSAVEC | CPUID0D1_EAX_XGETBV1;
		if (model->controls & GUEST_CPU_XSAVES)
			keep |= CPUID0D1_EAX_XSAVES;
		out.eax = host->eax & keep;
		out.ebx = host->ebx;
	} else if (subleaf <= CPUID0D_SUBLEAF_LAST && (components & (1ull << subleaf))) {
		out = *host;
	}
	return out;
}

/**
 * cpuid_filter_crystal_hz() - the crystal clock that leaf 15H advertises
 * @tsc_hz: the guest's TSC frequency
 *
 * Linux computes tsc_khz = (ECX / 1000) * EBX / EAX in 32-bit unsigned
 * arithmetic. A 1 MHz crystal with EBX/EAX = tsc_khz/1000 gives the exact
 * kHz value with the product below 2^32 for any TSC under 4.29 GHz; a faster
 * TSC gets a proportionally slower crystal. Linux also assumes the LAPIC
 * timer counts at this rate (lapic_timer_period), so on an xAPIC host the
 * guest's timer counts are scaled from it to the core's (docs/vmx.md).
 *
 * Return: the crystal frequency in Hz, a multiple of 1000; 0 when @tsc_hz is
 * below 1 kHz or its kHz value does not fit 32 bits.
 */
uint32_t cpuid_filter_crystal_hz(uint64_t tsc_hz)
{
	uint64_t tsc_khz = tsc_hz / 1000;

	if (tsc_khz == 0 || tsc_khz > UINT32_MAX)
		return 0;
	if (CRYSTAL_KHZ_PREFERRED * tsc_khz <= UINT32_MAX)
		return CRYSTAL_KHZ_PREFERRED * 1000;
	return (uint32_t)(UINT32_MAX / tsc_khz) * 1000;
}

/*
 * Leaf 15H: TSC = crystal * EBX / EAX (SDM Vol. 3B §18.7.3). With the
 * crystal c kHz and K = tsc_khz, EBX/EAX = K/c reduced, so c * EBX / EAX is
 * K exactly and c * EBX <= c * K fits 32 bits.
 */
static struct cpuid_filter_regs leaf_tsc_crystal(const struct guest_cpu_model *model)
{
	uint32_t crystal_hz = cpuid_filter_crystal_hz(model->tsc_hz);
	struct cpuid_filter_regs out = { 0 };
	uint64_t crystal_khz, tsc_khz, common;

	if (!crystal_hz)
		return out;
	crystal_khz = crystal_hz / 1000;
	tsc_khz = model->tsc_hz / 1000;
	common = gcd_u64(tsc_khz, crystal_khz);
	out.eax = (uint32_t)(crystal_khz / common);
	out.ebx = (uint32_t)(tsc_khz / common);
	out.ecx = crystal_hz;
	return out;
}

/*
 * Leaf 16H: the TSC frequency as base and maximum, rounded to MHz. The bus
 * (reference) frequency in ECX is not enumerated.
 */
static struct cpuid_filter_regs leaf_frequency(const struct guest_cpu_model *model)
{
	uint64_t mhz = (model->tsc_hz + 500000) / 1000000;
	struct cpuid_filter_regs out = { 0 };

	if (mhz > CPUID16_MHZ_MAX)
		mhz = CPUID16_MHZ_MAX;
	out.eax = (uint32_t)mhz;
	out.ebx = (uint32_t)mhz;
	return out;
}

static struct cpuid_filter_regs leaf_basic(const struct guest_cpu_model *model,
					   uint64_t guest_cr4, uint32_t leaf, uint32_t subleaf,
					   const struct cpuid_filter_regs *host)
{
	struct cpuid_filter_regs out = { 0 };

	switch (leaf) {
	case 0x0:	/* maximum basic leaf, vendor string */
		out = *host;
		out.eax = CPUID_FILTER_MAX_BASIC_LEAF;
		return out;
	case 0x1:
		return leaf_features(model, guest_cr4, host);
	case 0x2:	/* cache and TLB descriptors */
		return *host;
	case 0x4:
		return leaf_caches(model, host);
	case 0x6:
		out.eax = CPUID6_EAX_ARAT;
		return out;
	case 0x7:
		return leaf_extended_features(model, guest_cr4, subleaf, host);
	case 0xb:
		return leaf_topology(model, subleaf);
	case 0xd:
		return leaf_xsave(model, subleaf, host);
	case 0x15:
		return leaf_tsc_crystal(model);
	case 0x16:
		return leaf_frequency(model);
	}
	/*
	 * 3 (serial number), 5 (MONITOR/MWAIT), 0AH (PMU), 0FH-14H (RDT, SGX,
	 * PT) and the reserved leaves describe hidden features: zero.
	 */
	return out;
}

static struct cpuid_filter_regs leaf_extended(const struct guest_cpu_model *model,
					      uint32_t leaf,
					      const struct cpuid_filter_regs *host)
{
	struct cpuid_filter_regs out = { 0 };

	switch (leaf) {
	case 0x80000000:
		out.eax = min_u32(model->host_max_extended_leaf, CPUID_FILTER_MAX_EXTENDED_LEAF);
		break;
	case 0x80000001:
		out.ecx = host->ecx & CPUIDX1_ECX_KEEP;
		out.edx = host->edx & CPUIDX1_EDX_KEEP;
		if (model->controls & GUEST_CPU_RDTSCP)
			out.edx |= host->edx & CPUIDX1_EDX_RDTSCP;
		break;
	case 0x80000002:
	case 0x80000003:
	case 0x80000004:	/* brand string */
		out = *host;
		break;
	case 0x80000006:	/* L2 cache */
		out.ecx = host->ecx;
		break;
	case 0x80000007:
		out.edx = CPUIDX7_EDX_INVARIANT_TSC;
		break;
	case 0x80000008:	/* physical and linear address widths */
		out.eax = host->eax & 0xffff;
		break;
	}
	return out;
}

/**
 * cpuid_filter_leaf() - what the guest sees for one CPUID leaf
 * @model: the vCPU
 * @guest_cr4: CR4 as the guest sees it (read shadow applied), for the
 *	       OSXSAVE and OSPKE bits that mirror it
 * @leaf: the guest's EAX
 * @subleaf: the guest's ECX
 * @host: CPUID(@leaf, @subleaf) on the host; ignored for leaves the host
 *	  does not have (above its maximum basic or extended leaf), which are
 *	  built from zero where the guest has them
 *
 * The guest's maximum basic leaf is always 16H, so leaves 15H and 16H carry
 * the TSC frequency even where the host stops short of them.
 *
 * Return: the guest's EAX, EBX, ECX and EDX.
 */
struct cpuid_filter_regs cpuid_filter_leaf(const struct guest_cpu_model *model,
					   uint64_t guest_cr4, uint32_t leaf,
					   uint32_t subleaf,
					   const struct cpuid_filter_regs *host)
{
	static const struct cpuid_filter_regs none;
	struct cpuid_filter_regs out = { 0 };

	if (leaf <= CPUID_FILTER_MAX_BASIC_LEAF)
		return leaf_basic(model, guest_cr4, leaf, subleaf,
				  leaf <= model->host_max_basic_leaf ? host : &none);
	if (leaf >= 0x80000000 && leaf <= CPUID_FILTER_MAX_EXTENDED_LEAF &&
	    leaf <= model->host_max_extended_leaf)
		return leaf_extended(model, leaf, host);
	if (leaf == CPUID_FILTER_HYPERVISOR_BASE) {
		out.eax = CPUID_FILTER_HYPERVISOR_MAX;
		out.ebx = SIGNATURE_EBX;
		out.ecx = SIGNATURE_ECX;
		out.edx = SIGNATURE_EDX;
	}
	/* 40000001H is reserved for future interfaces and reads as zero. */
	return out;
}
