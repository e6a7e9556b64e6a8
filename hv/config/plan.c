/* SPDX-License-Identifier: MIT */
/*
 * plan.c - guest placement.
 *
 * Guests are placed most constrained first, so that a guest that may go
 * anywhere does not take the core another guest was given by number:
 * guests with `cpus`, then guests with `node`, then the rest, each group in
 * file order. A guest with neither goes to the node with the most free
 * cores among those that can hold it (ties: more free memory, then the
 * lower node number), on that node's lowest free cores.
 *
 * A sidecore polls without pause, and an SMT sibling shares its core's
 * execution units and L1/L2 caches (Intel SDM Vol. 3A §8.7, "Intel
 * Hyper-Threading Technology Architecture"): a vCPU there would slow the
 * sidecore that serves every guest of the node, and be slowed by it. So
 * the sibling is kept idle (in HLT, which frees the shared resources,
 * §8.10.1) unless the config lends it. vCPUs get no such rule: they take
 * the lowest free CPU numbers, which on firmware that lists each core's
 * first thread before any second one (every server in tests/data/acpi)
 * are separate cores as long as the node has any, and a node's SMT
 * threads are still used when it has no whole core left.
 */
#include <stdint.h>
#include <string.h>

#include "config/config_guest.h"
#include "config/plan.h"
#include "lib/log.h"

#define PLAN_MIB(bytes) ((unsigned long long)((bytes) >> 20))

/**
 * plan_init_machine() - describe a machine as its ACPI tables show it.
 * @machine: filled in.
 * @topo: the machine's topology; it must outlive @machine.
 *
 * Every CPU is usable and none is a sidecore yet; each node offers its SRAT
 * memory. The hypervisor narrows both to the CPUs that started and the
 * memory its page pools hold.
 */
void plan_init_machine(struct plan_machine *machine, const struct topology *topo)
{
	memset(machine, 0, sizeof(*machine));
	machine->topo = topo;
	for (unsigned int c = 0; c < topo->cpu_count; c++)
		machine->cpu_usable[c] = true;
	for (unsigned int n = 0; n < topo->node_count; n++)
		machine->node_free_bytes[n] = topo->node[n].mem_bytes;
}

static bool plan_node_has_sidecore(const struct plan_machine *machine, unsigned int node)
{
	const struct topology *topo = machine->topo;

	for (unsigned int c = 0; c < topo->cpu_count; c++)
		if (topo->cpu[c].node == node && machine->cpu_sidecore[c])
			return true;
	return false;
}

/* With no `sidecores` key every node gets one, and that must fit. */
_Static_assert(TOPO_MAX_NODES <= CONFIG_MAX_SIDECORES, "one sidecore per node must fit");

/**
 * plan_choose_sidecores() - mark the sidecores, one per node at least.
 * @machine: from plan_init_machine(); cpu_sidecore[] is set here.
 * @config: its `sidecores` names CPUs to use first.
 *
 * Each CPU listed in `sidecores` becomes a sidecore; every node still
 * without one then gets its first usable CPU, because a node's guests are
 * served from their own socket. There are never more than
 * CONFIG_MAX_SIDECORES: a node that would need one more gets none.
 * Unless `sidecore_sibling = vcpu`, the SMT siblings of the sidecores are
 * marked in cpu_idle_sibling[]: they run nothing.
 *
 * Return: how many listed CPUs do not exist or are not usable, plus the
 * nodes left without a sidecore; each is reported.
 */
int plan_choose_sidecores(struct plan_machine *machine, const struct config *config)
{
	const struct topology *topo = machine->topo;
	unsigned int count = 0;
	int errors = 0;

	memset(machine->cpu_sidecore, 0, sizeof(machine->cpu_sidecore));
	for (unsigned int i = 0; i < config->sidecore_count; i++) {
		unsigned int cpu = config->sidecore_cpu[i];

		if (cpu >= topo->cpu_count || !machine->cpu_usable[cpu]) {
			log_msg(CONFIG_ERROR_FORMAT "cpu %u is not an online cpu",
				config->sidecores_line, "sidecores", cpu);
			errors++;
			continue;
		}
		machine->cpu_sidecore[cpu] = true;
		count++;
	}
	for (unsigned int n = 0; n < topo->node_count; n++) {
		if (plan_node_has_sidecore(machine, n))
			continue;
		for (unsigned int c = 0; c < topo->cpu_count; c++) {
			if (topo->cpu[c].node != n || !machine->cpu_usable[c])
				continue;
			if (count == CONFIG_MAX_SIDECORES) {
				log_msg(CONFIG_ERROR_FORMAT "node %u gets no sidecore: the "
					"listed cpus are already the most there may be, %u",
					config->sidecores_line, "sidecores", n,
					CONFIG_MAX_SIDECORES);
				errors++;
			} else {
				machine->cpu_sidecore[c] = true;
				count++;
			}
			break;
		}
	}
	memset(machine->cpu_idle_sibling, 0, sizeof(machine->cpu_idle_sibling));
	if (config->sidecore_sibling == CONFIG_SIBLING_IDLE)
		for (unsigned int c = 0; c < topo->cpu_count; c++)
			machine->cpu_idle_sibling[c] = plan_sidecore_of_sibling(machine, c) >= 0;
	return errors;
}

/**
 * plan_sidecore_of_sibling() - the sidecore a CPU is the SMT sibling of.
 * @machine: the machine, its sidecores chosen.
 * @cpu: a CPU number.
 *
 * Return: the lowest-numbered sidecore that shares @cpu's physical core,
 * or -1 when none does or @cpu is a sidecore itself.
 */
int plan_sidecore_of_sibling(const struct plan_machine *machine, unsigned int cpu)
{
	const struct topology *topo = machine->topo;

	if (machine->cpu_sidecore[cpu])
		return -1;
	for (unsigned int c = 0; c < topo->cpu_count; c++)
		if (machine->cpu_sidecore[c] &&
		    topology_core_id(topo, c) == topology_core_id(topo, cpu))
			return (int)c;
	return -1;
}

/**
 * plan_cpu_is_free() - may a CPU take a vCPU?
 * @plan: the placement so far.
 * @machine: the machine it is made on.
 * @cpu: a CPU number below the machine's count.
 *
 * Return: true if @cpu is usable, is neither a sidecore nor the idle
 * sibling of one, and runs no vCPU yet.
 */
bool plan_cpu_is_free(const struct plan *plan, const struct plan_machine *machine,
		      unsigned int cpu)
{
	return machine->cpu_usable[cpu] && !machine->cpu_sidecore[cpu] &&
	       !machine->cpu_idle_sibling[cpu] && plan->cpu_guest[cpu] == PLAN_NO_GUEST;
}

/**
 * plan_node_free_cpus() - count a node's cores that no one uses yet.
 * @plan: the placement so far.
 * @machine: the machine it is made on.
 * @node: a node number.
 *
 * Return: how many of the node's CPUs plan_cpu_is_free() says are free.
 */
unsigned int plan_node_free_cpus(const struct plan *plan, const struct plan_machine *machine,
				 unsigned int node)
{
	const struct topology *topo = machine->topo;
	unsigned int count = 0;

	for (unsigned int c = 0; c < topo->cpu_count; c++)
		if (topo->cpu[c].node == node && plan_cpu_is_free(plan, machine, c))
			count++;
	return count;
}

/* Reports a guest's problem at its key; args: guest line, key, guest name. */
#define PLAN_ERROR(guest, key, fmt, ...)						\
	log_msg(CONFIG_ERROR_FORMAT "guest '%s' " fmt, config_guest_line(guest, key),	\
		config_guest_key_name(key), (guest)->name, __VA_ARGS__)

/*
 * Reports a guest that needs more CPUs than its node has free, naming the
 * idle sidecore siblings among those it cannot have: without them a node
 * seems to have CPUs to spare.
 */
static void plan_report_too_few_cpus(const struct plan_machine *machine,
				     const struct config_guest *guest, unsigned int node,
				     unsigned int free_cpus)
{
	const struct topology *topo = machine->topo;
	const char *plural = guest->vcpu_count == 1 ? "" : "s";
	unsigned int idle = 0, first = 0;

	for (unsigned int c = topo->cpu_count; c-- > 0;) {
		if (topo->cpu[c].node == node && machine->cpu_idle_sibling[c]) {
			idle++;
			first = c;
		}
	}
	if (idle == 0)
		PLAN_ERROR(guest, CONFIG_KEY_VCPUS, "needs %u cpu%s, node %u has %u free",
			   guest->vcpu_count, plural, node, free_cpus);
	else if (idle == 1)
		PLAN_ERROR(guest, CONFIG_KEY_VCPUS, "needs %u cpu%s, node %u has %u free; "
			   "cpu %u, the SMT sibling of sidecore %d, stays idle "
			   "(sidecore_sibling = idle)", guest->vcpu_count, plural, node,
			   free_cpus, first, plan_sidecore_of_sibling(machine, first));
	else
		PLAN_ERROR(guest, CONFIG_KEY_VCPUS, "needs %u cpu%s, node %u has %u free; "
			   "%u more, the SMT siblings of its sidecores, stay idle "
			   "(sidecore_sibling = idle)", guest->vcpu_count, plural, node,
			   free_cpus, idle);
}

/* Checks an explicit `cpus` list; on success *node is the list's node. */
static bool plan_check_cpus(const struct plan *plan, const struct plan_machine *machine,
			    const struct config *config, const struct config_guest *guest,
			    unsigned int *node)
{
	const struct topology *topo = machine->topo;

	for (unsigned int i = 0; i < guest->vcpu_count; i++) {
		unsigned int cpu = guest->cpu[i];

		if (cpu >= topo->cpu_count) {
			PLAN_ERROR(guest, CONFIG_KEY_CPUS, "wants cpu %u; the machine has cpus 0 to %u",
				   cpu, topo->cpu_count - 1);
			return false;
		}
		if (!machine->cpu_usable[cpu]) {
			PLAN_ERROR(guest, CONFIG_KEY_CPUS, "wants cpu %u, which is not online", cpu);
			return false;
		}
		if (machine->cpu_sidecore[cpu]) {
			PLAN_ERROR(guest, CONFIG_KEY_CPUS, "wants cpu %u, which is a sidecore", cpu);
			return false;
		}
		if (machine->cpu_idle_sibling[cpu]) {
			PLAN_ERROR(guest, CONFIG_KEY_CPUS, "wants cpu %u, the SMT sibling of "
				   "sidecore %d, which stays idle (sidecore_sibling = idle)",
				   cpu, plan_sidecore_of_sibling(machine, cpu));
			return false;
		}
		if (plan->cpu_guest[cpu] != PLAN_NO_GUEST) {
			PLAN_ERROR(guest, CONFIG_KEY_CPUS, "wants cpu %u, which runs guest '%s'",
				   cpu, config->guest[plan->cpu_guest[cpu]].name);
			return false;
		}
		if (topo->cpu[cpu].node != topo->cpu[guest->cpu[0]].node) {
			PLAN_ERROR(guest, CONFIG_KEY_CPUS,
				   "wants cpus %u (node %u) and %u (node %u); a guest stays on one node",
				   guest->cpu[0], topo->cpu[guest->cpu[0]].node, cpu,
				   topo->cpu[cpu].node);
			return false;
		}
	}
	*node = topo->cpu[guest->cpu[0]].node;
	if (guest->key_line[CONFIG_KEY_NODE] && guest->node != *node) {
		PLAN_ERROR(guest, CONFIG_KEY_CPUS, "wants cpus of node %u but says node %u",
			   *node, guest->node);
		return false;
	}
	return true;
}

/*
 * True if a is the better default node than b: more free cores, then more
 * free memory, then (being checked in ascending order) the lower number.
 */
static bool plan_node_is_roomier(const struct plan *plan, const struct plan_machine *machine,
				 unsigned int a, unsigned int b)
{
	unsigned int cpus_a = plan_node_free_cpus(plan, machine, a);
	unsigned int cpus_b = plan_node_free_cpus(plan, machine, b);

	if (cpus_a != cpus_b)
		return cpus_a > cpus_b;
	return plan->node_free_bytes[a] > plan->node_free_bytes[b];
}

static bool plan_node_can_hold(const struct plan *plan, const struct plan_machine *machine,
			       const struct config_guest *guest, unsigned int node)
{
	return plan_node_free_cpus(plan, machine, node) >= guest->vcpu_count &&
	       plan->node_free_bytes[node] >= guest->memory_bytes;
}

/*
 * The default node: the roomiest that can hold the guest or, when none
 * can, the roomiest of all, so that the report names a real shortage.
 */
static unsigned int plan_choose_node(const struct plan *plan, const struct plan_machine *machine,
				     const struct config_guest *guest)
{
	unsigned int best = 0;
	bool best_fits = plan_node_can_hold(plan, machine, guest, 0);

	for (unsigned int n = 1; n < machine->topo->node_count; n++) {
		bool fits = plan_node_can_hold(plan, machine, guest, n);

		if ((fits && !best_fits) ||
		    (fits == best_fits && plan_node_is_roomier(plan, machine, n, best))) {
			best = n;
			best_fits = fits;
		}
	}
	return best;
}

/* The node's sidecore with the fewest guests (ties: the lowest CPU), or -1. */
static int plan_choose_sidecore(const struct plan *plan, const struct plan_machine *machine,
				unsigned int node)
{
	const struct topology *topo = machine->topo;
	int best = -1;

	for (unsigned int c = 0; c < topo->cpu_count; c++) {
		if (topo->cpu[c].node != node || !machine->cpu_sidecore[c])
			continue;
		if (best < 0 || plan->sidecore_guests[c] < plan->sidecore_guests[best])
			best = (int)c;
	}
	return best;
}

static bool plan_place_guest(struct plan *plan, const struct plan_machine *machine,
			     const struct config *config, unsigned int index)
{
	const struct topology *topo = machine->topo;
	const struct config_guest *guest = &config->guest[index];
	struct plan_guest *placed = &plan->guest[index];
	bool explicit_cpus = guest->key_line[CONFIG_KEY_CPUS] != 0;
	unsigned int node, free_cpus;
	int sidecore;

	if (explicit_cpus) {
		if (!plan_check_cpus(plan, machine, config, guest, &node))
			return false;
	} else if (guest->key_line[CONFIG_KEY_NODE]) {
		node = guest->node;
		if (node >= topo->node_count) {
			PLAN_ERROR(guest, CONFIG_KEY_NODE, "wants node %u; the machine has nodes 0 to %u",
				   node, topo->node_count - 1);
			return false;
		}
	} else {
		node = plan_choose_node(plan, machine, guest);
	}

	free_cpus = plan_node_free_cpus(plan, machine, node);
	if (!explicit_cpus && free_cpus < guest->vcpu_count) {
		plan_report_too_few_cpus(machine, guest, node, free_cpus);
		return false;
	}
	if (guest->memory_bytes > plan->node_free_bytes[node]) {
		PLAN_ERROR(guest, CONFIG_KEY_MEMORY, "needs %llu MiB, node %u has %llu MiB free",
			   PLAN_MIB(guest->memory_bytes), node,
			   PLAN_MIB(plan->node_free_bytes[node]));
		return false;
	}
	sidecore = plan_choose_sidecore(plan, machine, node);
	if (sidecore < 0) {
		PLAN_ERROR(guest, CONFIG_KEY_NODE, "would run on node %u, which has no sidecore",
			   node);
		return false;
	}

	placed->node = node;
	placed->vcpu_count = guest->vcpu_count;
	if (explicit_cpus) {
		memcpy(placed->cpu, guest->cpu, sizeof(placed->cpu));
	} else {
		unsigned int v = 0;

		for (unsigned int c = 0; v < guest->vcpu_count; c++)
			if (topo->cpu[c].node == node && plan_cpu_is_free(plan, machine, c))
				placed->cpu[v++] = c;
	}
	for (unsigned int v = 0; v < placed->vcpu_count; v++)
		plan->cpu_guest[placed->cpu[v]] = (int)index;
	placed->memory_bytes = guest->memory_bytes;
	plan->node_free_bytes[node] -= guest->memory_bytes;
	placed->sidecore = (unsigned int)sidecore;
	plan->sidecore_guests[sidecore]++;
	placed->placed = true;
	plan->placed_count++;
	return true;
}

enum plan_pass {
	PLAN_PASS_CPUS,		/* guests that name their cores */
	PLAN_PASS_NODE,		/* guests that name their node */
	PLAN_PASS_ANY,
	PLAN_PASS_COUNT
};

static enum plan_pass plan_pass_of(const struct config_guest *guest)
{
	if (guest->key_line[CONFIG_KEY_CPUS])
		return PLAN_PASS_CPUS;
	if (guest->key_line[CONFIG_KEY_NODE])
		return PLAN_PASS_NODE;
	return PLAN_PASS_ANY;
}

/**
 * plan_place_guests() - give every valid guest its node, cores, memory and
 * sidecore.
 * @plan: filled in; guests are indexed as in @config.
 * @machine: the usable CPUs, the sidecores and each node's free memory.
 * @config: a parsed configuration; its invalid guests are left out.
 *
 * Return: how many valid guests did not fit; each is reported with its
 * section's line and the key that cannot be met.
 */
int plan_place_guests(struct plan *plan, const struct plan_machine *machine,
		      const struct config *config)
{
	int failed = 0;

	memset(plan, 0, sizeof(*plan));
	for (unsigned int c = 0; c < TOPO_MAX_CPUS; c++)
		plan->cpu_guest[c] = PLAN_NO_GUEST;
	memcpy(plan->node_free_bytes, machine->node_free_bytes, sizeof(plan->node_free_bytes));

	for (int pass = 0; pass < PLAN_PASS_COUNT; pass++) {
		for (unsigned int i = 0; i < config->guest_count; i++) {
			const struct config_guest *guest = &config->guest[i];

			if (!guest->valid || plan_pass_of(guest) != (enum plan_pass)pass)
				continue;
			if (!plan_place_guest(plan, machine, config, i))
				failed++;
		}
	}
	return failed;
}
