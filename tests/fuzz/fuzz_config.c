/* SPDX-License-Identifier: MIT */
/*
 * fuzz_config.c - arbitrary bytes as a configuration file, then placement of
 * whatever guests survive on a fixed two-node machine.
 *
 * Whatever config_parse() accepts must obey the documented limits (names,
 * sizes, counts, unique MACs and CIDs), and the plan must never give a core
 * to two guests, use a sidecore, its idle SMT sibling or an offline core,
 * split a guest across nodes, or hand out more memory than a node has. A broken invariant
 * aborts, which libFuzzer reports.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/guest_layout.h"
#include "config/plan.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define FUZZ_NODES 2
#define FUZZ_CPUS_PER_NODE 6
#define FUZZ_NODE_BYTES (4ull << 30)
#define FUZZ_OFFLINE_CPU 9

static struct config config;
static struct topology topo;
static struct plan_machine machine;
static struct plan plan;

static bool fuzz_is_terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

static void check_guest(const struct config_guest *guest)
{
	CHECK(fuzz_is_terminated(guest->name, sizeof(guest->name)));
	CHECK(fuzz_is_terminated(guest->kernel, sizeof(guest->kernel)));
	CHECK(fuzz_is_terminated(guest->initrd, sizeof(guest->initrd)));
	CHECK(fuzz_is_terminated(guest->cmdline, sizeof(guest->cmdline)));
	for (int key = 0; key < CONFIG_GUEST_KEY_COUNT; key++)
		CHECK(guest->key_line[key] == 0 || guest->key_line[key] > guest->line);
	if (!guest->valid)
		return;
	CHECK(guest->name[0] && guest->kernel[0]);
	CHECK(guest->memory_bytes >= CONFIG_GUEST_MEMORY_MIN);
	CHECK(guest->memory_bytes <= GUEST_RAM_MAX);
	CHECK(guest->memory_bytes % CONFIG_GUEST_MEMORY_ALIGN == 0);
	CHECK(guest->vcpu_count >= 1 && guest->vcpu_count <= CONFIG_MAX_VCPUS);
	CHECK(!(guest->key_line[CONFIG_KEY_CPUS] && guest->key_line[CONFIG_KEY_VCPUS]));
	CHECK(!(guest->mac[0] & 1));
	CHECK(guest->cid >= CONFIG_FIRST_GUEST_CID && guest->cid != UINT32_MAX);
	CHECK(guest->on_crash == CONFIG_ACTION_STOP || guest->on_crash == CONFIG_ACTION_RESTART);
}

static void check_config(int errors)
{
	unsigned int valid = 0;

	CHECK(errors >= 0);
	CHECK(config.guest_count <= CONFIG_MAX_GUESTS);
	CHECK(config.sidecore_count <= CONFIG_MAX_SIDECORES);
	CHECK(config.console_baud > 0 && 115200 % config.console_baud == 0);
	for (unsigned int i = 0; i < config.guest_count; i++) {
		const struct config_guest *guest = &config.guest[i];

		check_guest(guest);
		if (!guest->valid)
			continue;
		valid++;
		for (unsigned int j = 0; j < i; j++) {
			if (!config.guest[j].valid)
				continue;
			CHECK(strcmp(guest->name, config.guest[j].name) != 0);
			CHECK(memcmp(guest->mac, config.guest[j].mac, CONFIG_MAC_BYTES) != 0);
			CHECK(guest->cid != config.guest[j].cid);
		}
	}
	/* Each invalid guest was reported at least once. */
	CHECK(config.guest_count - valid <= (unsigned int)errors);
}

static void build_machine(void)
{
	memset(&topo, 0, sizeof(topo));
	topo.has_srat = true;
	topo.node_count = FUZZ_NODES;
	topo.cpu_count = FUZZ_NODES * FUZZ_CPUS_PER_NODE;
	/* Two-thread cores: a node's CPUs k and k+1 (in its own order) share one. */
	topo.smt_bits = 1;
	for (unsigned int c = 0; c < topo.cpu_count; c++) {
		topo.cpu[c].apic_id = (c % FUZZ_NODES) << 4 | c / FUZZ_NODES;
		topo.cpu[c].node = c % FUZZ_NODES;
		topo.node[c % FUZZ_NODES].cpu_count++;
	}
	for (unsigned int n = 0; n < FUZZ_NODES; n++)
		topo.node[n].mem_bytes = FUZZ_NODE_BYTES;
	plan_init_machine(&machine, &topo);
	machine.cpu_usable[FUZZ_OFFLINE_CPU] = false;
}

static void check_plan(int failed)
{
	uint64_t used[FUZZ_NODES] = { 0 };
	unsigned int placed = 0, valid = 0;

	for (unsigned int i = 0; i < config.guest_count; i++) {
		const struct config_guest *guest = &config.guest[i];
		const struct plan_guest *p = &plan.guest[i];

		valid += guest->valid;
		if (!p->placed)
			continue;
		CHECK(guest->valid);
		placed++;
		CHECK(p->node < FUZZ_NODES);
		CHECK(p->vcpu_count == guest->vcpu_count);
		CHECK(p->memory_bytes == guest->memory_bytes);
		CHECK(p->sidecore < topo.cpu_count && machine.cpu_sidecore[p->sidecore]);
		CHECK(topo.cpu[p->sidecore].node == p->node);
		for (unsigned int v = 0; v < p->vcpu_count; v++) {
			unsigned int cpu = p->cpu[v];

			CHECK(cpu < topo.cpu_count);
			CHECK(machine.cpu_usable[cpu] && !machine.cpu_sidecore[cpu]);
			CHECK(!machine.cpu_idle_sibling[cpu]);
			CHECK(topo.cpu[cpu].node == p->node);
			CHECK(plan.cpu_guest[cpu] == (int)i);
			if (guest->key_line[CONFIG_KEY_CPUS])
				CHECK(cpu == guest->cpu[v]);
		}
		used[p->node] += p->memory_bytes;
	}
	for (unsigned int c = 0; c < topo.cpu_count; c++) {
		int owner = plan.cpu_guest[c];

		CHECK(machine.cpu_idle_sibling[c] ==
		      (config.sidecore_sibling == CONFIG_SIBLING_IDLE &&
		       plan_sidecore_of_sibling(&machine, c) >= 0));

		if (owner == PLAN_NO_GUEST)
			continue;
		CHECK(owner >= 0 && (unsigned int)owner < config.guest_count);
		CHECK(plan.guest[owner].placed);
	}
	for (unsigned int n = 0; n < FUZZ_NODES; n++)
		CHECK(used[n] + plan.node_free_bytes[n] == FUZZ_NODE_BYTES);
	CHECK(placed == plan.placed_count);
	CHECK(placed + (unsigned int)failed == valid);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int errors, failed;

	config_init(&config);
	errors = config_parse(&config, (const char *)data, size);
	check_config(errors);

	build_machine();
	plan_choose_sidecores(&machine, &config);
	failed = plan_place_guests(&plan, &machine, &config);
	CHECK(failed >= 0);
	check_plan(failed);
	return 0;
}
