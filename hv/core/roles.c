/* SPDX-License-Identifier: MIT */
/*
 * roles.c - core roles. A node with online CPUs always gets a sidecore:
 * its guests' virtqueues and its NIC queue are served from it, so memory
 * traffic stays on the socket (DESIGN.md §1).
 */
#include "core/console.h"
#include "core/percpu.h"
#include "core/roles.h"
#include "lib/printf.h"

static void roles_set_sidecore(unsigned int cpu)
{
	percpu[cpu].role = CPU_ROLE_SIDECORE;
}

static bool roles_node_has_sidecore(const struct topology *topo, unsigned int node)
{
	for (unsigned int c = 0; c < topo->cpu_count; c++)
		if (topo->cpu[c].node == node && percpu[c].role == CPU_ROLE_SIDECORE)
			return true;
	return false;
}

void roles_assign(const struct topology *topo, const struct config *config)
{
	for (unsigned int c = 0; c < topo->cpu_count; c++)
		percpu[c].role = CPU_ROLE_IDLE;

	for (unsigned int i = 0; i < config->sidecore_count; i++) {
		unsigned int cpu = config->sidecore_cpu[i];

		if (cpu >= topo->cpu_count || !percpu[cpu].online)
			printk("config line %u: key 'sidecores': cpu %u is not an online cpu\n",
			       config->sidecores_line, cpu);
		else
			roles_set_sidecore(cpu);
	}

	for (unsigned int n = 0; n < topo->node_count; n++) {
		if (roles_node_has_sidecore(topo, n))
			continue;
		for (unsigned int c = 0; c < topo->cpu_count; c++) {
			if (topo->cpu[c].node == n && percpu[c].online) {
				roles_set_sidecore(c);
				break;
			}
		}
	}
}

void roles_print(const struct topology *topo)
{
	char list[512];
	int len = 0;

	list[0] = '\0';
	for (unsigned int c = 0; c < topo->cpu_count; c++) {
		if (!percpu[c].online)
			continue;
		if (percpu[c].role == CPU_ROLE_SIDECORE)
			printk("sidecore: cpu %u node %u\n", c, topo->cpu[c].node);
		else
			len += snprintf(list + len, sizeof(list) - len, "%s%u",
					len ? "," : "", c);
	}
	printk("free: cpus %s\n", len ? list : "none");
}
