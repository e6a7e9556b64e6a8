/* SPDX-License-Identifier: MIT */
/*
 * topology.h - the machine as MADT, SRAT, SLIT and MCFG describe it.
 *
 * CPU numbers are indexes into cpu[]: the enabled local APIC / x2APIC entries
 * of the MADT in table order (the boot CPU is normally number 0). Node numbers
 * are indexes into node[]: the real proximity domains (those with an enabled
 * CPU or enabled memory) in ascending domain order. Without SRAT there is one
 * node holding every CPU and no memory ranges (memory then comes from the
 * boot memory map alone).
 *
 * SMT threads: an APIC ID is the package, core and thread numbers side by
 * side, the thread in the lowest bits (Intel SDM Vol. 3A §8.9.1,
 * "Hierarchical Mapping of Shared Resources"), so two CPUs are threads of
 * one physical core when their APIC IDs differ only in those smt_bits.
 */
#ifndef SIDECORE_PLATFORM_TOPOLOGY_H
#define SIDECORE_PLATFORM_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include "platform/acpi.h"

#define TOPO_MAX_CPUS 256
#define TOPO_MAX_NODES 8
#define TOPO_MAX_MEM_RANGES 64
#define TOPO_MAX_MCFG 16
#define TOPO_MAX_LOCALITIES 64
#define TOPO_MAX_IOAPICS 8
#define TOPO_ISA_IRQS 16

struct topo_cpu {
	uint32_t apic_id;
	uint32_t acpi_uid;
	uint32_t node;		/* node number, not SRAT domain */
	bool x2apic_entry;	/* came from a type 9 (x2APIC) MADT entry */
};

struct topo_node {
	uint32_t domain;	/* SRAT proximity domain */
	uint32_t cpu_count;
	uint64_t mem_bytes;	/* sum of the node's enabled SRAT ranges */
};

struct topo_mem_range {
	uint64_t base;
	uint64_t length;
	uint32_t node;
	bool hot_pluggable;
	bool non_volatile;
};

struct topo_mcfg {
	uint64_t base;
	uint16_t segment;
	uint8_t start_bus;
	uint8_t end_bus;
};

struct topo_ioapic {
	uint32_t id;
	uint32_t address;
	uint32_t gsi_base;	/* the GSI of its first input */
};

/* Where an ISA IRQ arrives: the GSI and the MPS INTI polarity/trigger flags. */
struct topo_isa_irq {
	uint32_t gsi;
	uint16_t flags;
};

struct topology {
	uint64_t lapic_address;		/* MADT field, or its type 5 override */
	bool pcat_compat;

	struct topo_ioapic ioapic[TOPO_MAX_IOAPICS];	/* MADT order */
	unsigned int ioapic_count;
	struct topo_isa_irq isa_irq[TOPO_ISA_IRQS];	/* identity unless overridden */

	struct topo_cpu cpu[TOPO_MAX_CPUS];
	unsigned int cpu_count;
	unsigned int smt_bits;		/* APIC ID bits that number a core's threads */

	bool has_srat;
	struct topo_node node[TOPO_MAX_NODES];
	unsigned int node_count;
	struct topo_mem_range mem[TOPO_MAX_MEM_RANGES];	/* enabled SRAT memory, table order */
	unsigned int mem_count;

	unsigned int slit_localities;	/* 0 without a SLIT */
	uint8_t slit[TOPO_MAX_LOCALITIES][TOPO_MAX_LOCALITIES];

	struct topo_mcfg mcfg[TOPO_MAX_MCFG];
	unsigned int mcfg_count;
};

/*
 * Builds the topology from the validated tables. A missing or malformed
 * MADT is an error (-1); a malformed SRAT, SLIT or MCFG is reported and
 * ignored (one node, no distances, no ECAM). smt_bits is inferred from the
 * MADT (1 when it enables both APIC IDs 2k and 2k+1 for some k, else 0);
 * the hypervisor replaces it with what CPUID says. Returns 0 on success.
 */
int topology_build(struct topology *topo, const struct acpi_tables *tables);

/*
 * What CPUID says about the package layout of the CPU it ran on (Intel SDM
 * Vol. 2A, CPUID leaves 01H, 04H and 0BH).
 */
struct topo_cpuid {
	uint32_t max_leaf;		/* leaf 0 EAX */
	uint32_t leaf1_ebx, leaf1_edx;
	uint32_t leaf4_eax;		/* subleaf 0 */
	uint32_t leafb_eax, leafb_ebx, leafb_ecx;	/* subleaf 0 */
};

/* The SMT width (topology.smt_bits) that CPUID reports. */
unsigned int topology_smt_bits_of_cpuid(const struct topo_cpuid *id);

/* The physical core of a CPU: equal for SMT siblings, unique otherwise. */
uint32_t topology_core_id(const struct topology *topo, unsigned int cpu);

/* Node number holding physical address addr per SRAT, or -1 if none. */
int topology_node_of_address(const struct topology *topo, uint64_t addr);

/* CPU number with this APIC ID, or -1. */
int topology_cpu_of_apic_id(const struct topology *topo, uint32_t apic_id);

#endif
