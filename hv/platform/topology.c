/* SPDX-License-Identifier: MIT */
/*
 * topology.c - CPUs, NUMA nodes, distances and ECAM windows from the MADT,
 * SRAT, SLIT and MCFG.
 *
 * The MADT is the authority on which CPUs exist; without it nothing can boot,
 * so a missing or malformed MADT fails the build. The other tables only refine
 * the picture, so when one of them is malformed it is reported and the
 * topology falls back to what is safe without it: one node, no distances, no
 * ECAM windows.
 */
#include <string.h>

#include "lib/log.h"
#include "platform/topology.h"

/* Every MADT and SRAT subtable starts with a type byte and a length byte. */
#define SUBTABLE_HEADER_SIZE 2

/* MADT, ACPI 6.5 section 5.2.12. */
#define MADT_LAPIC_ADDRESS_OFFSET 36
#define MADT_FLAGS_OFFSET 40
#define MADT_SUBTABLES_OFFSET 44
#define MADT_PCAT_COMPAT (1u << 0)		/* dual 8259 PICs present */
#define MADT_TYPE_LOCAL_APIC 0			/* section 5.2.12.2 */
#define MADT_LOCAL_APIC_SIZE 8
#define MADT_TYPE_IOAPIC 1			/* section 5.2.12.3 */
#define MADT_IOAPIC_SIZE 12
#define MADT_TYPE_IRQ_OVERRIDE 2		/* section 5.2.12.5 */
#define MADT_IRQ_OVERRIDE_SIZE 10
#define MADT_ISA_BUS 0
#define MADT_TYPE_LAPIC_OVERRIDE 5		/* section 5.2.12.8 */
#define MADT_LAPIC_OVERRIDE_SIZE 12
#define MADT_TYPE_LOCAL_X2APIC 9		/* section 5.2.12.12 */
#define MADT_LOCAL_X2APIC_SIZE 16
/*
 * Local APIC Flags (section 5.2.12.2). Bit 1 (Online Capable) marks a CPU that may
 * be hot-added later; a static partitioner cannot use it, so only bit 0 counts.
 */
#define MADT_CPU_ENABLED (1u << 0)

/* SRAT, ACPI 6.5 section 5.2.16: header, reserved u32, reserved u64. */
#define SRAT_SUBTABLES_OFFSET 48
#define SRAT_TYPE_CPU 0				/* section 5.2.16.1 */
#define SRAT_CPU_SIZE 16
#define SRAT_TYPE_MEMORY 1			/* section 5.2.16.2 */
#define SRAT_MEMORY_SIZE 40
#define SRAT_TYPE_X2APIC 2			/* section 5.2.16.3 */
#define SRAT_X2APIC_SIZE 24
#define SRAT_ENABLED (1u << 0)			/* same bit in all three types */
#define SRAT_MEMORY_HOT_PLUGGABLE (1u << 1)	/* memory affinity flags */
#define SRAT_MEMORY_NON_VOLATILE (1u << 2)
/*
 * SRAT revision 1 (ACPI 2.0) had an 8-bit proximity domain; revision 2
 * (ACPI 3.0) widened it with three bytes that revision 1 marks reserved, so
 * they are read only from revision 2 on.
 */
#define SRAT_WIDE_DOMAIN_REVISION 2

/* SLIT, ACPI 6.5 section 5.2.17. */
#define SLIT_LOCALITIES_OFFSET 36
#define SLIT_MATRIX_OFFSET 44
#define SLIT_LOCAL_DISTANCE 10	/* a locality to itself; 0-9 are reserved */

/* CPUID, Intel SDM Vol. 2A; the shifts and widths are those of §8.9.4 of Vol. 3A. */
#define CPUID_LEAF1_HTT (1u << 28)		/* EDX: EBX[23:16] is valid */
#define CPUID_LEAF1_LOGICAL_SHIFT 16		/* EBX: logical processor IDs per package */
#define CPUID_LEAF4_CORES_SHIFT 26		/* EAX: core IDs per package, less one */
#define CPUID_LEAFB_SHIFT_MASK 0x1fu		/* EAX: APIC ID bits below the next level */
#define CPUID_LEAFB_COUNT_MASK 0xffffu		/* EBX: 0 when leaf 0BH is not supported */
#define CPUID_LEAFB_TYPE_SHIFT 8		/* ECX[15:8]: the level's type */
#define CPUID_LEAFB_TYPE_SMT 1

/* MCFG, PCI Firmware Specification 3.2 section 4.1.2. */
#define MCFG_ALLOCATIONS_OFFSET 44
#define MCFG_ALLOCATION_SIZE 16

/*
 * Checks that the subtables from offset start to the table's end each fit in
 * the table and are long enough for their type's fields, so the walks that
 * follow can trust every length byte.
 */
static bool topology_subtables_are_sound(const struct acpi_table *table,
					 const char *name, uint32_t start,
					 uint8_t (*min_length)(uint8_t type))
{
	uint32_t offset = start;

	while (offset < table->length) {
		uint32_t left = table->length - offset;
		uint8_t type, length;

		if (left < SUBTABLE_HEADER_SIZE) {
			log_msg("topology: %s: %u stray bytes at offset %u",
				name, left, offset);
			return false;
		}
		type = table->data[offset];
		length = table->data[offset + 1];
		if (length < SUBTABLE_HEADER_SIZE || length > left ||
		    length < min_length(type)) {
			log_msg("topology: %s: subtable type %u at offset %u has bad length %u",
				name, type, offset, length);
			return false;
		}
		offset += length;
	}
	return true;
}

static uint8_t topology_madt_min_length(uint8_t type)
{
	switch (type) {
	case MADT_TYPE_LOCAL_APIC:
		return MADT_LOCAL_APIC_SIZE;
	case MADT_TYPE_IOAPIC:
		return MADT_IOAPIC_SIZE;
	case MADT_TYPE_IRQ_OVERRIDE:
		return MADT_IRQ_OVERRIDE_SIZE;
	case MADT_TYPE_LAPIC_OVERRIDE:
		return MADT_LAPIC_OVERRIDE_SIZE;
	case MADT_TYPE_LOCAL_X2APIC:
		return MADT_LOCAL_X2APIC_SIZE;
	default:
		return SUBTABLE_HEADER_SIZE;
	}
}

static uint8_t topology_srat_min_length(uint8_t type)
{
	switch (type) {
	case SRAT_TYPE_CPU:
		return SRAT_CPU_SIZE;
	case SRAT_TYPE_MEMORY:
		return SRAT_MEMORY_SIZE;
	case SRAT_TYPE_X2APIC:
		return SRAT_X2APIC_SIZE;
	default:
		return SUBTABLE_HEADER_SIZE;
	}
}

/*
 * Records an enabled MADT CPU entry. A repeated APIC ID (some firmware lists
 * a CPU both as local APIC and as x2APIC) is dropped so that no CPU is
 * started twice. Returns false only when cpu[] is full.
 */
static bool topology_add_cpu(struct topology *topo, uint32_t apic_id,
			     uint32_t acpi_uid, uint32_t flags, bool x2apic_entry)
{
	struct topo_cpu *cpu;

	if (!(flags & MADT_CPU_ENABLED))
		return true;
	if (topology_cpu_of_apic_id(topo, apic_id) >= 0) {
		log_msg("topology: MADT lists APIC ID %#x twice, second entry ignored",
			apic_id);
		return true;
	}
	if (topo->cpu_count == TOPO_MAX_CPUS)
		return false;
	cpu = &topo->cpu[topo->cpu_count++];
	cpu->apic_id = apic_id;
	cpu->acpi_uid = acpi_uid;
	cpu->node = 0;
	cpu->x2apic_entry = x2apic_entry;
	return true;
}

static void topology_add_ioapic(struct topology *topo, const uint8_t *entry)
{
	struct topo_ioapic *io;

	if (topo->ioapic_count == TOPO_MAX_IOAPICS) {
		log_msg("topology: MADT lists more than %u I/O APICs, the rest ignored",
			TOPO_MAX_IOAPICS);
		return;
	}
	/* ID at 2, address at 4, GSI base at 8 */
	io = &topo->ioapic[topo->ioapic_count++];
	io->id = entry[2];
	io->address = acpi_read_u32(entry + 4);
	io->gsi_base = acpi_read_u32(entry + 8);
}

static void topology_add_irq_override(struct topology *topo, const uint8_t *entry)
{
	/* bus at 2, source IRQ at 3, GSI at 4, flags at 8 */
	if (entry[2] != MADT_ISA_BUS || entry[3] >= TOPO_ISA_IRQS) {
		log_msg("topology: MADT overrides bus %u IRQ %u, ignored", entry[2], entry[3]);
		return;
	}
	topo->isa_irq[entry[3]].gsi = acpi_read_u32(entry + 4);
	topo->isa_irq[entry[3]].flags = acpi_read_u16(entry + 8);
}

static int topology_parse_madt(struct topology *topo, const struct acpi_table *madt)
{
	unsigned int dropped = 0;
	uint32_t offset;

	if (madt->length < MADT_SUBTABLES_OFFSET) {
		log_msg("topology: MADT of %u bytes is too short", madt->length);
		return -1;
	}
	topo->lapic_address = acpi_read_u32(madt->data + MADT_LAPIC_ADDRESS_OFFSET);
	topo->pcat_compat = acpi_read_u32(madt->data + MADT_FLAGS_OFFSET) & MADT_PCAT_COMPAT;
	if (!topology_subtables_are_sound(madt, "MADT", MADT_SUBTABLES_OFFSET,
					  topology_madt_min_length))
		return -1;

	for (offset = MADT_SUBTABLES_OFFSET; offset < madt->length;
	     offset += madt->data[offset + 1]) {
		const uint8_t *entry = madt->data + offset;
		bool stored = true;

		switch (entry[0]) {
		case MADT_TYPE_LOCAL_APIC:
			/* UID at 2, APIC ID at 3, flags at 4 */
			stored = topology_add_cpu(topo, entry[3], entry[2],
						  acpi_read_u32(entry + 4), false);
			break;
		case MADT_TYPE_LOCAL_X2APIC:
			/* x2APIC ID at 4, flags at 8, UID at 12 */
			stored = topology_add_cpu(topo, acpi_read_u32(entry + 4),
						  acpi_read_u32(entry + 12),
						  acpi_read_u32(entry + 8), true);
			break;
		case MADT_TYPE_IOAPIC:
			topology_add_ioapic(topo, entry);
			break;
		case MADT_TYPE_IRQ_OVERRIDE:
			topology_add_irq_override(topo, entry);
			break;
		case MADT_TYPE_LAPIC_OVERRIDE:
			/* 64-bit address at 4 */
			topo->lapic_address = acpi_read_u64(entry + 4);
			break;
		}
		if (!stored)
			dropped++;
	}
	if (dropped)
		log_msg("topology: MADT has %u enabled CPUs beyond the %u supported, ignored",
			dropped, TOPO_MAX_CPUS);
	if (topo->cpu_count == 0) {
		log_msg("topology: MADT lists no enabled CPU");
		return -1;
	}
	return 0;
}

/* What one SRAT subtable contributes, decoded. */
enum srat_kind {
	SRAT_UNUSED,		/* other type, disabled, or zero-length memory */
	SRAT_CPU,
	SRAT_MEMORY,
	SRAT_BAD_MEMORY,	/* enabled range that wraps past 2^64 */
};

struct srat_affinity {
	uint32_t domain;
	uint32_t apic_id;
	uint64_t base;
	uint64_t length;
	uint32_t flags;
};

static enum srat_kind topology_decode_srat(const uint8_t *entry, uint8_t revision,
					   struct srat_affinity *affinity)
{
	switch (entry[0]) {
	case SRAT_TYPE_CPU:
		/* domain bits 7:0 at 2, APIC ID at 3, flags at 4, bits 31:8 at 9 */
		affinity->flags = acpi_read_u32(entry + 4);
		affinity->apic_id = entry[3];
		affinity->domain = entry[2];
		if (revision >= SRAT_WIDE_DOMAIN_REVISION)
			affinity->domain |= (uint32_t)entry[9] << 8 |
					    (uint32_t)entry[10] << 16 |
					    (uint32_t)entry[11] << 24;
		break;
	case SRAT_TYPE_X2APIC:
		/* domain at 4, x2APIC ID at 8, flags at 12 */
		affinity->domain = acpi_read_u32(entry + 4);
		affinity->apic_id = acpi_read_u32(entry + 8);
		affinity->flags = acpi_read_u32(entry + 12);
		break;
	case SRAT_TYPE_MEMORY:
		/* domain at 2, base at 8, length at 16, flags at 28 */
		affinity->domain = acpi_read_u32(entry + 2);
		affinity->base = acpi_read_u64(entry + 8);
		affinity->length = acpi_read_u64(entry + 16);
		affinity->flags = acpi_read_u32(entry + 28);
		if (!(affinity->flags & SRAT_ENABLED) || affinity->length == 0)
			return SRAT_UNUSED;
		if (affinity->base + affinity->length < affinity->base)
			return SRAT_BAD_MEMORY;
		return SRAT_MEMORY;
	default:
		return SRAT_UNUSED;
	}
	return (affinity->flags & SRAT_ENABLED) ? SRAT_CPU : SRAT_UNUSED;
}

/* Adds domain to the ascending set; false when the set is full. */
static bool topology_add_domain(uint32_t *domains, unsigned int *count, uint32_t domain)
{
	unsigned int i;

	for (i = 0; i < *count; i++)
		if (domains[i] == domain)
			return true;
	if (*count == TOPO_MAX_NODES)
		return false;
	for (i = *count; i > 0 && domains[i - 1] > domain; i--)
		domains[i] = domains[i - 1];
	domains[i] = domain;
	(*count)++;
	return true;
}

/*
 * The real proximity domains, ascending: those with an enabled memory range
 * or an enabled CPU that the MADT also enables. AMI firmware pads the SRAT
 * with disabled placeholders naming domains that do not exist; they do not
 * count. Returns the number found, or -1 (logged) when there are too many.
 */
static int topology_find_domains(const struct topology *topo,
				 const struct acpi_table *srat,
				 uint32_t domains[TOPO_MAX_NODES])
{
	uint8_t revision = srat->data[ACPI_HEADER_REVISION_OFFSET];
	unsigned int count = 0;
	uint32_t offset;

	for (offset = SRAT_SUBTABLES_OFFSET; offset < srat->length;
	     offset += srat->data[offset + 1]) {
		struct srat_affinity affinity;

		switch (topology_decode_srat(srat->data + offset, revision, &affinity)) {
		case SRAT_CPU:
			if (topology_cpu_of_apic_id(topo, affinity.apic_id) < 0)
				continue;
			break;
		case SRAT_MEMORY:
			break;
		case SRAT_BAD_MEMORY:
			log_msg("topology: SRAT memory %#llx+%#llx wraps, ignored",
				(unsigned long long)affinity.base,
				(unsigned long long)affinity.length);
			continue;
		case SRAT_UNUSED:
			continue;
		}
		if (!topology_add_domain(domains, &count, affinity.domain)) {
			log_msg("topology: SRAT has more than %u proximity domains",
				TOPO_MAX_NODES);
			return -1;
		}
	}
	return (int)count;
}

/* The node of a domain that topology_find_domains() returned. */
static uint32_t topology_node_of_domain(const struct topology *topo, uint32_t domain)
{
	uint32_t node;

	for (node = 0; node < topo->node_count; node++)
		if (topo->node[node].domain == domain)
			return node;
	return 0;
}

/* Fills nodes, CPU placement and memory ranges; false (logged) to ignore the SRAT. */
static bool topology_parse_srat(struct topology *topo, const struct acpi_table *srat)
{
	uint32_t domains[TOPO_MAX_NODES];
	bool placed[TOPO_MAX_CPUS] = { false };
	unsigned int i, dropped = 0;
	uint8_t revision;
	uint32_t offset;
	int count;

	if (srat->length < SRAT_SUBTABLES_OFFSET) {
		log_msg("topology: SRAT of %u bytes is too short, ignored", srat->length);
		return false;
	}
	if (!topology_subtables_are_sound(srat, "SRAT", SRAT_SUBTABLES_OFFSET,
					  topology_srat_min_length)) {
		log_msg("topology: SRAT ignored");
		return false;
	}
	count = topology_find_domains(topo, srat, domains);
	if (count <= 0) {
		if (count == 0)
			log_msg("topology: SRAT names no enabled CPU or memory, ignored");
		else
			log_msg("topology: SRAT ignored");
		return false;
	}

	topo->node_count = (unsigned int)count;
	for (i = 0; i < topo->node_count; i++)
		topo->node[i].domain = domains[i];

	revision = srat->data[ACPI_HEADER_REVISION_OFFSET];
	for (offset = SRAT_SUBTABLES_OFFSET; offset < srat->length;
	     offset += srat->data[offset + 1]) {
		struct srat_affinity affinity;
		struct topo_mem_range *range;
		int cpu;

		switch (topology_decode_srat(srat->data + offset, revision, &affinity)) {
		case SRAT_CPU:
			cpu = topology_cpu_of_apic_id(topo, affinity.apic_id);
			if (cpu >= 0 && !placed[cpu]) {
				topo->cpu[cpu].node = topology_node_of_domain(topo, affinity.domain);
				placed[cpu] = true;
			}
			break;
		case SRAT_MEMORY:
			if (topo->mem_count == TOPO_MAX_MEM_RANGES) {
				dropped++;
				break;
			}
			range = &topo->mem[topo->mem_count++];
			range->base = affinity.base;
			range->length = affinity.length;
			range->node = topology_node_of_domain(topo, affinity.domain);
			range->hot_pluggable = affinity.flags & SRAT_MEMORY_HOT_PLUGGABLE;
			range->non_volatile = affinity.flags & SRAT_MEMORY_NON_VOLATILE;
			topo->node[range->node].mem_bytes += range->length;
			break;
		case SRAT_BAD_MEMORY:
		case SRAT_UNUSED:
			break;
		}
	}
	if (dropped)
		log_msg("topology: SRAT has %u memory ranges beyond the %u supported, ignored",
			dropped, TOPO_MAX_MEM_RANGES);

	for (i = 0; i < topo->cpu_count; i++) {
		if (!placed[i])
			log_msg("topology: CPU %u (APIC ID %#x) is not in the SRAT, placed on node 0",
				i, topo->cpu[i].apic_id);
		topo->node[topo->cpu[i].node].cpu_count++;
	}
	topo->has_srat = true;
	return true;
}

/* Without a usable SRAT the machine is one node holding every CPU. */
static void topology_set_single_node(struct topology *topo)
{
	unsigned int i;

	topo->has_srat = false;
	topo->node_count = 1;
	topo->node[0].domain = 0;
	topo->node[0].cpu_count = topo->cpu_count;
	topo->node[0].mem_bytes = 0;
	topo->mem_count = 0;
	for (i = 0; i < topo->cpu_count; i++)
		topo->cpu[i].node = 0;
}

static void topology_parse_slit(struct topology *topo, const struct acpi_table *slit)
{
	uint64_t localities;
	uint32_t i, j, n;

	if (slit->length < SLIT_MATRIX_OFFSET) {
		log_msg("topology: SLIT of %u bytes is too short, ignored", slit->length);
		return;
	}
	localities = acpi_read_u64(slit->data + SLIT_LOCALITIES_OFFSET);
	if (localities > TOPO_MAX_LOCALITIES) {
		log_msg("topology: SLIT has %llu localities, more than %u, ignored",
			(unsigned long long)localities, TOPO_MAX_LOCALITIES);
		return;
	}
	n = (uint32_t)localities;
	if (slit->length != SLIT_MATRIX_OFFSET + n * n) {
		log_msg("topology: SLIT length %u does not fit %u localities, ignored",
			slit->length, n);
		return;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			uint8_t distance = slit->data[SLIT_MATRIX_OFFSET + i * n + j];

			if (distance < SLIT_LOCAL_DISTANCE ||
			    (i == j && distance != SLIT_LOCAL_DISTANCE)) {
				log_msg("topology: SLIT distance %u from %u to %u is invalid, ignored",
					distance, i, j);
				return;
			}
		}
	}
	for (i = 0; i < n; i++)
		memcpy(topo->slit[i], slit->data + SLIT_MATRIX_OFFSET + i * n, n);
	topo->slit_localities = n;
}

static void topology_parse_mcfg(struct topology *topo, const struct acpi_table *mcfg)
{
	uint32_t offset;

	if (mcfg->length < MCFG_ALLOCATIONS_OFFSET ||
	    (mcfg->length - MCFG_ALLOCATIONS_OFFSET) % MCFG_ALLOCATION_SIZE != 0) {
		log_msg("topology: MCFG length %u is not a whole number of allocations, ignored",
			mcfg->length);
		return;
	}
	for (offset = MCFG_ALLOCATIONS_OFFSET; offset < mcfg->length;
	     offset += MCFG_ALLOCATION_SIZE) {
		/* base at 0, segment at 8, start bus at 10, end bus at 11 */
		const uint8_t *entry = mcfg->data + offset;
		struct topo_mcfg *window;

		if (entry[10] > entry[11]) {
			log_msg("topology: MCFG allocation at offset %u ends at bus %u before its start %u, ignored",
				offset, entry[11], entry[10]);
			continue;
		}
		if (topo->mcfg_count == TOPO_MAX_MCFG) {
			log_msg("topology: MCFG has more than %u allocations, the rest ignored",
				TOPO_MAX_MCFG);
			return;
		}
		window = &topo->mcfg[topo->mcfg_count++];
		window->base = acpi_read_u64(entry);
		window->segment = acpi_read_u16(entry + 8);
		window->start_bus = entry[10];
		window->end_bus = entry[11];
	}
}

/*
 * ACPI does not say which CPUs are threads of one core. Two-thread cores
 * put the thread in APIC ID bit 0 (SDM Vol. 3A §8.9.1), and firmware lists
 * every thread it enables, so a MADT that enables both 2k and 2k+1 is taken
 * to describe two-thread cores: every Intel server in tests/data/acpi does.
 * A machine whose single-thread cores have consecutive IDs (QEMU's with
 * threads=1) looks the same, and is taken for SMT; only CPUID can tell.
 */
static unsigned int topology_infer_smt_bits(const struct topology *topo)
{
	for (unsigned int i = 0; i < topo->cpu_count; i++)
		if (!(topo->cpu[i].apic_id & 1) &&
		    topology_cpu_of_apic_id(topo, topo->cpu[i].apic_id | 1) >= 0)
			return 1;
	return 0;
}

/**
 * topology_build() - derive the machine topology from validated ACPI tables.
 * @topo: filled in; fully overwritten.
 * @tables: tables that passed acpi_tables_add() or acpi_tables_from_rsdp().
 *
 * Return: 0, or -1 (logged) when the MADT is missing, malformed or lists no
 * enabled CPU. A malformed SRAT, SLIT or MCFG is logged and left out.
 */
int topology_build(struct topology *topo, const struct acpi_tables *tables)
{
	const struct acpi_table *madt, *srat, *slit, *mcfg;

	memset(topo, 0, sizeof(*topo));
	for (unsigned int irq = 0; irq < TOPO_ISA_IRQS; irq++)
		topo->isa_irq[irq].gsi = irq;	/* ACPI 5.2.12.5: identity unless overridden */
	madt = acpi_tables_find(tables, "APIC");
	if (!madt) {
		log_msg("topology: no MADT (APIC table)");
		return -1;
	}
	if (topology_parse_madt(topo, madt) != 0)
		return -1;

	topo->smt_bits = topology_infer_smt_bits(topo);

	srat = acpi_tables_find(tables, "SRAT");
	if (!srat || !topology_parse_srat(topo, srat))
		topology_set_single_node(topo);

	slit = acpi_tables_find(tables, "SLIT");
	if (slit)
		topology_parse_slit(topo, slit);
	mcfg = acpi_tables_find(tables, "MCFG");
	if (mcfg)
		topology_parse_mcfg(topo, mcfg);
	return 0;
}

/**
 * topology_node_of_address() - the node whose SRAT memory holds an address.
 * @topo: a built topology.
 * @addr: a physical address.
 *
 * Return: the node number, or -1 when no enabled SRAT range covers @addr
 * (always so without an SRAT).
 */
int topology_node_of_address(const struct topology *topo, uint64_t addr)
{
	unsigned int i;

	for (i = 0; i < topo->mem_count; i++)
		if (addr >= topo->mem[i].base && addr - topo->mem[i].base < topo->mem[i].length)
			return (int)topo->mem[i].node;
	return -1;
}

/**
 * topology_cpu_of_apic_id() - the CPU number of an APIC ID.
 * @topo: a built (or partly built) topology.
 * @apic_id: a local APIC or x2APIC ID.
 *
 * Return: the index into topo->cpu[], or -1 when no enabled CPU has it.
 */
int topology_cpu_of_apic_id(const struct topology *topo, uint32_t apic_id)
{
	unsigned int i;

	for (i = 0; i < topo->cpu_count; i++)
		if (topo->cpu[i].apic_id == apic_id)
			return (int)i;
	return -1;
}

/* Bits needed to number count things: ceil(log2(count)). */
static unsigned int topology_bits_for(uint32_t count)
{
	unsigned int bits = 0;

	while (bits < 32 && (1ull << bits) < count)
		bits++;
	return bits;
}

/**
 * topology_smt_bits_of_cpuid() - the SMT field's width in the APIC ID.
 * @id: CPUID leaves 0, 01H, 04H and 0BH (subleaf 0) of one CPU.
 *
 * Leaf 0BH subleaf 0 describes the SMT level when its level type is SMT;
 * its EAX[4:0] is then the width of the thread field (SDM Vol. 3A §8.9.2).
 * Any other type there means one thread per core: QEMU with threads=1
 * reports SMT with width 0, Bochs without threads a type of 0. Without
 * leaf 0BH the width follows from the logical processors (leaf 01H) and
 * cores (leaf 04H) a package has room for, as in §8.9.4.
 *
 * Return: the number of low APIC ID bits that number a core's threads.
 */
unsigned int topology_smt_bits_of_cpuid(const struct topo_cpuid *id)
{
	uint32_t logical, cores;

	if (id->max_leaf >= 0xb && (id->leafb_ebx & CPUID_LEAFB_COUNT_MASK)) {
		if (((id->leafb_ecx >> CPUID_LEAFB_TYPE_SHIFT) & 0xff) != CPUID_LEAFB_TYPE_SMT)
			return 0;
		return id->leafb_eax & CPUID_LEAFB_SHIFT_MASK;
	}
	if (!(id->leaf1_edx & CPUID_LEAF1_HTT))
		return 0;
	logical = (id->leaf1_ebx >> CPUID_LEAF1_LOGICAL_SHIFT) & 0xff;
	cores = id->max_leaf >= 4 ? (id->leaf4_eax >> CPUID_LEAF4_CORES_SHIFT) + 1 : 1;
	return logical > cores ? topology_bits_for(logical / cores) : 0;
}

/**
 * topology_core_id() - which physical core a CPU is a thread of.
 * @topo: a built topology.
 * @cpu: a CPU number below topo->cpu_count.
 *
 * Return: the CPU's APIC ID without its thread field, so that SMT siblings
 * (and only they) share it (SDM Vol. 3A §8.9.1).
 */
uint32_t topology_core_id(const struct topology *topo, unsigned int cpu)
{
	return topo->cpu[cpu].apic_id >> topo->smt_bits;
}
