/* SPDX-License-Identifier: MIT */
/*
 * topology_command.c - `sidecore topology PATH`: what the hypervisor would
 * make of a machine's ACPI tables, as JSON on stdout.
 *
 * Addresses and lengths are hex strings ("0xE0000000"), as in the test
 * data's expected.json, since JSON numbers lose precision above 2^53.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "platform/topology.h"
#include "tools/sidecore/acpi_load.h"
#include "tools/sidecore/commands.h"

static int topology_compare_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void topology_print_u32_list(const uint32_t *values, unsigned int count)
{
	unsigned int i;

	putchar('[');
	for (i = 0; i < count; i++)
		printf("%s%" PRIu32, i ? ", " : "", values[i]);
	putchar(']');
}

/* The first (lowest-numbered) CPU of a node, or -1 for a CPU-less node. */
static int topology_first_cpu_of_node(const struct topology *topo, uint32_t node)
{
	unsigned int i;

	for (i = 0; i < topo->cpu_count; i++)
		if (topo->cpu[i].node == node)
			return (int)i;
	return -1;
}

static void topology_print_node(const struct topology *topo, uint32_t node)
{
	uint32_t apic_ids[TOPO_MAX_CPUS], cpus[TOPO_MAX_CPUS];
	unsigned int count = 0, i;
	const char *separator = "";

	for (i = 0; i < topo->cpu_count; i++) {
		if (topo->cpu[i].node != node)
			continue;
		apic_ids[count] = topo->cpu[i].apic_id;
		cpus[count++] = i;
	}
	if (count > 1)
		qsort(apic_ids, count, sizeof(apic_ids[0]), topology_compare_u32);

	printf("    {\"node\": %" PRIu32 ", \"domain\": %" PRIu32 ",\n",
	       node, topo->node[node].domain);
	printf("     \"apic_ids\": ");
	topology_print_u32_list(apic_ids, count);
	printf(",\n     \"cpus\": ");
	topology_print_u32_list(cpus, count);
	printf(",\n     \"memory\": [");
	for (i = 0; i < topo->mem_count; i++) {
		if (topo->mem[i].node != node)
			continue;
		printf("%s{\"base\": \"0x%" PRIX64 "\", \"length\": \"0x%" PRIX64 "\"}",
		       separator, topo->mem[i].base, topo->mem[i].length);
		separator = ", ";
	}
	printf("]}");
}

static void topology_print_json(const struct topology *topo)
{
	uint32_t apic_ids[TOPO_MAX_CPUS];
	const char *separator = "";
	unsigned int i, j;

	for (i = 0; i < topo->cpu_count; i++)
		apic_ids[i] = topo->cpu[i].apic_id;
	printf("{\n  \"enabled_apic_ids\": ");
	topology_print_u32_list(apic_ids, topo->cpu_count);

	printf(",\n  \"nodes\": [\n");
	for (i = 0; i < topo->node_count; i++) {
		topology_print_node(topo, i);
		printf("%s\n", i + 1 < topo->node_count ? "," : "");
	}

	printf("  ],\n  \"slit\": ");
	if (topo->slit_localities == 0) {
		printf("null");
	} else {
		printf("{\"localities\": %u, \"matrix\": [", topo->slit_localities);
		for (i = 0; i < topo->slit_localities; i++) {
			printf("%s[", i ? ", " : "");
			for (j = 0; j < topo->slit_localities; j++)
				printf("%s%u", j ? ", " : "", topo->slit[i][j]);
			putchar(']');
		}
		printf("]}");
	}

	printf(",\n  \"mcfg\": {\"allocations\": [");
	for (i = 0; i < topo->mcfg_count; i++)
		printf("%s{\"base_address\": \"0x%" PRIX64 "\", \"segment\": %u, "
		       "\"start_bus\": %u, \"end_bus\": %u}",
		       i ? ", " : "", topo->mcfg[i].base, topo->mcfg[i].segment,
		       topo->mcfg[i].start_bus, topo->mcfg[i].end_bus);

	printf("]},\n  \"sidecores\": [");
	for (i = 0; i < topo->node_count; i++) {
		int cpu = topology_first_cpu_of_node(topo, i);

		if (cpu < 0)
			continue;
		printf("%s{\"node\": %u, \"cpu\": %d, \"apic_id\": %" PRIu32 "}",
		       separator, i, cpu, topo->cpu[cpu].apic_id);
		separator = ", ";
	}
	printf("]\n}\n");
}

/**
 * command_topology() - print the topology found at a path.
 * @argc: argument count after the command name; must be 1.
 * @argv: argv[0] is a folder of *.dat tables or an acpidump text file.
 *
 * Return: a TOOL_EXIT_* status.
 */
int command_topology(int argc, char **argv)
{
	static struct acpi_image_set set;
	static struct topology topo;
	int status = TOOL_EXIT_OK;

	if (argc != 1) {
		fprintf(stderr, "usage: sidecore topology PATH\n");
		return TOOL_EXIT_USAGE;
	}
	if (acpi_load_path(&set, argv[0]) != 0)
		return TOOL_EXIT_USAGE;
	if (topology_build(&topo, &set.tables) != 0) {
		fprintf(stderr, "sidecore: %s: no usable topology\n", argv[0]);
		status = TOOL_EXIT_REJECTED;
	} else {
		topology_print_json(&topo);
	}
	acpi_load_release(&set);
	return status;
}
