/* SPDX-License-Identifier: MIT */
/*
 * cpuid_filter.h - the processor a guest sees through CPUID.
 *
 * CPUID always exits in VMX non-root operation (SDM Vol. 3C §26.1.2). The
 * exit handler runs CPUID on the host with the guest's leaf and subleaf and
 * passes the result through cpuid_filter_leaf(), which keeps what a guest can
 * use on its own core, hides what would lead it to MSRs or VMX controls the
 * hypervisor does not provide, and describes the guest's own topology and
 * TSC instead of the machine's.
 */
#ifndef SIDECORE_VMX_CPUID_FILTER_H
#define SIDECORE_VMX_CPUID_FILTER_H

#include <stdint.h>

/* EAX, EBX, ECX, EDX of one CPUID leaf. */
struct cpuid_filter_regs {
	uint32_t eax, ebx, ecx, edx;
};

/*
 * Instructions that raise #UD in VMX non-root operation unless a secondary
 * processor-based control enables them (SDM Vol. 3C §26.3, Table 25-7).
 * Set a flag only when the vCPU's VMCS sets the control and the hypervisor
 * keeps the state behind it per vCPU; otherwise the feature stays hidden.
 */
#define GUEST_CPU_RDTSCP	(1u << 0)	/* "enable RDTSCP": RDTSCP, RDPID, TSC_AUX */
#define GUEST_CPU_INVPCID	(1u << 1)	/* "enable INVPCID" */
#define GUEST_CPU_XSAVES	(1u << 2)	/* "enable XSAVES/XRSTORS" */

/*
 * What one vCPU's CPUID describes. The APIC ID is the core's own, as the
 * guest's MADT lists it (docs/vmx.md, "Direct interrupts"). The package
 * fields are sized from vcpu_count, so they put every vCPU in one package
 * only while the cores' IDs run 0 to vcpu_count - 1; a one-vCPU guest is
 * one package whatever its ID.
 */
struct guest_cpu_model {
	uint32_t vcpu_count;		/* vCPUs in the guest: cores of its one package */
	uint32_t apic_id;		/* this vCPU's local APIC ID */
	/*
	 * Low bits of an APIC ID that number the vCPU in its package: the
	 * fewest that leave every vCPU of the guest the same package ID (its
	 * cores' IDs need not be 0..n-1); 0 means the fewest that count
	 * vcpu_count (leaf 0BH, leaf 4).
	 */
	uint32_t core_id_bits;
	uint64_t tsc_hz;		/* guest TSC frequency; 0 when unknown */
	uint32_t host_max_basic_leaf;	/* host CPUID.0:EAX */
	uint32_t host_max_extended_leaf; /* host CPUID.80000000H:EAX */
	uint32_t controls;		/* GUEST_CPU_* */
	/*
	 * The host's leaf 1 and leaf 7 subleaf 0: leaf 0DH lists an XSAVE
	 * component only when the guest sees the feature it belongs to.
	 */
	struct cpuid_filter_regs host_leaf1, host_leaf7;
};

/* The highest basic leaf the guest sees: leaf 0x16 carries the TSC's base frequency. */
#define CPUID_FILTER_MAX_BASIC_LEAF	0x16
/* The highest extended leaf: 80000008H, address sizes. */
#define CPUID_FILTER_MAX_EXTENDED_LEAF	0x80000008u
/* The hypervisor range: 40000000H signature, 40000001H (reserved, zero). */
#define CPUID_FILTER_HYPERVISOR_BASE	0x40000000u
#define CPUID_FILTER_HYPERVISOR_MAX	0x40000001u

/* The guest's values of one leaf, from the host's; see cpuid_filter.c. */
struct cpuid_filter_regs cpuid_filter_leaf(const struct guest_cpu_model *model,
					   uint64_t guest_cr4, uint32_t leaf,
					   uint32_t subleaf,
					   const struct cpuid_filter_regs *host);
/* The crystal clock leaf 15H advertises, which Linux also assumes for the LAPIC timer. */
uint32_t cpuid_filter_crystal_hz(uint64_t tsc_hz);

#endif
