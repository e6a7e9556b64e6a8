/* SPDX-License-Identifier: MIT */
/*
 * cmd_plan.c - `sidecore plan [--mem MIB] CONFIG ACPI`: where the guests of
 * a configuration would run on a machine, from its ACPI tables.
 *
 * Output, one fact per line, for people and for scripts:
 *
 *   sidecore cpu 0 node 0
 *   guest alpha: node 0 cpus 1,2 memory 256 MiB sidecore 0
 *   guest beta: not placed
 *   guest gamma: invalid
 *   node 0: free cpus 3,4 memory 1792 MiB
 *
 * Why a guest is not placed or invalid is on stderr, with its line and key.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/plan.h"
#include "platform/topology.h"
#include "tools/sidecore/acpi_load.h"
#include "tools/sidecore/commands.h"

/* Guest RAM is counted in MiB; anything past this is a typo. */
#define PLAN_MEM_MAX_MIB (1ull << 30)

static void plan_print_cpu_list(const unsigned int *cpu, unsigned int count)
{
	for (unsigned int i = 0; i < count; i++)
		printf("%s%u", i ? "," : "", cpu[i]);
}

static void plan_print(const struct config *config, const struct plan_machine *machine,
		       const struct plan *plan)
{
	const struct topology *topo = machine->topo;

	for (unsigned int c = 0; c < topo->cpu_count; c++)
		if (machine->cpu_sidecore[c])
			printf("sidecore cpu %u node %" PRIu32 "\n", c, topo->cpu[c].node);

	for (unsigned int i = 0; i < config->guest_count; i++) {
		const struct config_guest *guest = &config->guest[i];
		const struct plan_guest *placed = &plan->guest[i];

		if (guest->name[0])
			printf("guest %s: ", guest->name);
		else
			printf("guest at line %u: ", guest->line);
		if (!guest->valid) {
			printf("invalid\n");
			continue;
		}
		if (!placed->placed) {
			printf("not placed\n");
			continue;
		}
		printf("node %u cpus ", placed->node);
		plan_print_cpu_list(placed->cpu, placed->vcpu_count);
		printf(" memory %" PRIu64 " MiB sidecore %u\n", placed->memory_bytes >> 20,
		       placed->sidecore);
	}

	for (unsigned int n = 0; n < topo->node_count; n++) {
		unsigned int free_cpu[TOPO_MAX_CPUS], count = 0;

		for (unsigned int c = 0; c < topo->cpu_count; c++)
			if (topo->cpu[c].node == n && machine->cpu_usable[c] &&
			    !machine->cpu_sidecore[c] && plan->cpu_guest[c] == PLAN_NO_GUEST)
				free_cpu[count++] = c;
		printf("node %u: free cpus ", n);
		if (count)
			plan_print_cpu_list(free_cpu, count);
		else
			printf("none");
		printf(" memory %" PRIu64 " MiB\n", plan->node_free_bytes[n] >> 20);
	}
}

/* Reads `--mem MIB`; false on anything but a whole number from 1 to 2^30. */
static bool plan_parse_mem(const char *text, uint64_t *bytes)
{
	char *end;
	unsigned long long mib;

	if (*text < '0' || *text > '9')
		return false;
	mib = strtoull(text, &end, 10);
	if (*end || mib == 0 || mib > PLAN_MEM_MAX_MIB)
		return false;
	*bytes = (uint64_t)mib << 20;
	return true;
}

static int plan_usage(void)
{
	fprintf(stderr, "usage: sidecore plan [--mem MIB] CONFIG ACPI\n");
	return TOOL_EXIT_USAGE;
}

/* Plans on a loaded topology; returns a TOOL_EXIT_* status. */
static int plan_run(const struct config *config, int config_errors,
		    const struct topology *topo, const char *acpi_path, uint64_t mem_bytes)
{
	static struct plan_machine machine;
	static struct plan plan;
	int errors = config_errors;

	plan_init_machine(&machine, topo);
	if (mem_bytes) {
		for (unsigned int n = 0; n < topo->node_count; n++)
			machine.node_free_bytes[n] = mem_bytes;
	} else if (!topo->has_srat) {
		fprintf(stderr, "sidecore: %s: no SRAT, so the tables do not say how much "
			"memory the machine has; give it with --mem MIB\n", acpi_path);
		return TOOL_EXIT_USAGE;
	}
	errors += plan_choose_sidecores(&machine, config);
	errors += plan_place_guests(&plan, &machine, config);
	plan_print(config, &machine, &plan);
	return errors ? TOOL_EXIT_REJECTED : TOOL_EXIT_OK;
}

/**
 * command_plan() - place a configuration's guests on a machine.
 * @argc: argument count after the command name.
 * @argv: optional `--mem MIB` (memory each node gives guests, instead of
 *	  its SRAT memory; needed without an SRAT), then the configuration
 *	  file and a folder of *.dat tables or an acpidump text file.
 *
 * Return: TOOL_EXIT_OK when the file is clean and every guest is placed,
 * TOOL_EXIT_REJECTED otherwise, TOOL_EXIT_USAGE when an input cannot be used.
 */
int command_plan(int argc, char **argv)
{
	static struct acpi_image_set set;
	static struct topology topo;
	static struct config config;
	uint64_t mem_bytes = 0;
	int config_errors, status;

	if (argc >= 1 && strcmp(argv[0], "--mem") == 0) {
		if (argc < 2 || !plan_parse_mem(argv[1], &mem_bytes)) {
			fprintf(stderr, "sidecore: --mem takes a number of MiB\n");
			return plan_usage();
		}
		argc -= 2;
		argv += 2;
	}
	if (argc != 2)
		return plan_usage();

	config_errors = command_load_config(argv[0], &config);
	if (config_errors < 0)
		return TOOL_EXIT_USAGE;
	if (acpi_load_path(&set, argv[1]) != 0)
		return TOOL_EXIT_USAGE;
	if (topology_build(&topo, &set.tables) != 0) {
		fprintf(stderr, "sidecore: %s: no usable topology\n", argv[1]);
		status = TOOL_EXIT_USAGE;
	} else {
		status = plan_run(&config, config_errors, &topo, argv[1], mem_bytes);
	}
	acpi_load_release(&set);
	return status;
}
