/* SPDX-License-Identifier: MIT */
/*
 * plan.h - where each configured guest runs: its node, the cores its vCPUs
 * are pinned to, how much of the node's memory it takes, and the sidecore
 * that serves its devices (docs/architecture.md). Pure: the hypervisor
 * plans on the machine it booted on, the host tool on a machine's ACPI
 * tables.
 *
 * A sidecore has its physical core to itself: its SMT siblings run no vCPU
 * and stay idle, unless the config's `sidecore_sibling = vcpu` lends them.
 *
 * Nothing is squeezed to fit: a guest that needs more cores or memory than
 * its node has left is reported and not placed, and the other guests are
 * placed as if it were not there.
 */
#ifndef SIDECORE_CONFIG_PLAN_H
#define SIDECORE_CONFIG_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "platform/topology.h"

/* What placement starts from. */
struct plan_machine {
	const struct topology *topo;
	bool cpu_usable[TOPO_MAX_CPUS];		/* online: may poll or run a vCPU */
	bool cpu_sidecore[TOPO_MAX_CPUS];
	bool cpu_idle_sibling[TOPO_MAX_CPUS];	/* a sidecore's SMT sibling, kept idle */
	uint64_t node_free_bytes[TOPO_MAX_NODES];	/* what guests may take */
};

struct plan_guest {
	bool placed;
	unsigned int node;
	unsigned int vcpu_count;
	unsigned int cpu[CONFIG_MAX_VCPUS];	/* vCPU i runs on cpu[i] */
	uint64_t memory_bytes;
	unsigned int sidecore;			/* CPU number */
};

#define PLAN_NO_GUEST (-1)

struct plan {
	struct plan_guest guest[CONFIG_MAX_GUESTS];	/* indexed like config->guest[] */
	unsigned int placed_count;
	int cpu_guest[TOPO_MAX_CPUS];		/* guest index, or PLAN_NO_GUEST */
	unsigned int sidecore_guests[TOPO_MAX_CPUS];	/* guests each sidecore serves */
	uint64_t node_free_bytes[TOPO_MAX_NODES];	/* what is left */
};

/*
 * Describes topo with every CPU usable, no sidecore yet, and each node's
 * SRAT memory free. The hypervisor then narrows both to what it has.
 */
void plan_init_machine(struct plan_machine *machine, const struct topology *topo);

/*
 * Marks the sidecores: the config's `sidecores`, then the first usable CPU
 * of each node still without one, never more than CONFIG_MAX_SIDECORES in
 * all; then, unless `sidecore_sibling = vcpu`, their SMT siblings as idle.
 * Returns how many listed CPUs were not usable plus how many nodes got no
 * sidecore (each reported).
 */
int plan_choose_sidecores(struct plan_machine *machine, const struct config *config);

/*
 * Places every valid guest of config on machine. Returns how many valid
 * guests did not fit (each reported, naming the guest's line and key).
 */
int plan_place_guests(struct plan *plan, const struct plan_machine *machine,
		      const struct config *config);

/* The sidecore whose SMT sibling cpu is, or -1. */
int plan_sidecore_of_sibling(const struct plan_machine *machine, unsigned int cpu);

/* True if cpu may take a vCPU: usable, no sidecore or its idle sibling, no vCPU. */
bool plan_cpu_is_free(const struct plan *plan, const struct plan_machine *machine,
		      unsigned int cpu);

/* The number of free cores (as plan_cpu_is_free()) of node. */
unsigned int plan_node_free_cpus(const struct plan *plan, const struct plan_machine *machine,
				 unsigned int node);

#endif
