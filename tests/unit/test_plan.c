/* SPDX-License-Identifier: MIT */
/*
 * test_plan.c - guest placement: what fits, what does not and why, on
 * hand-built machines and on the real ones in tests/data/acpi.
 *
 * The machine tables are read from $SIDECORE_ACPI_DATA, by default
 * tests/data/acpi relative to the working directory (the repository root).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/plan.h"
#include "platform/topology.h"
#include "tests/unit/support/stderr_capture.h"

#define MIB (1ull << 20)

static struct topology topo;
static struct plan_machine machine;
static struct plan plan;
static struct config config;
static char log_text[8192];

/*
 * A machine of nodes x per_node CPUs, each node with mib MiB. CPUs are
 * numbered node by node, or round robin across nodes when interleaved (as
 * MADTs that list one thread per core first often come out).
 */
static void make_machine(unsigned int nodes, unsigned int per_node, uint64_t mib,
			 bool interleaved)
{
	memset(&topo, 0, sizeof(topo));
	topo.has_srat = true;
	topo.node_count = nodes;
	topo.cpu_count = nodes * per_node;
	for (unsigned int c = 0; c < topo.cpu_count; c++) {
		unsigned int node = interleaved ? c % nodes : c / per_node;

		topo.cpu[c].apic_id = c;
		topo.cpu[c].node = node;
		topo.node[node].cpu_count++;
	}
	for (unsigned int n = 0; n < nodes; n++) {
		topo.node[n].domain = n;
		topo.node[n].mem_bytes = mib * MIB;
	}
	plan_init_machine(&machine, &topo);
}

/*
 * A machine of one node with `cores` two-thread cores, laid out as server
 * firmware lists them: every core's first thread (APIC ID 2k, CPU k), then
 * every second thread (APIC ID 2k+1, CPU cores+k).
 */
static void make_smt_machine(unsigned int cores, uint64_t mib)
{
	make_machine(1, 2 * cores, mib, false);
	topo.smt_bits = 1;
	for (unsigned int c = 0; c < topo.cpu_count; c++)
		topo.cpu[c].apic_id = c < cores ? 2 * c : 2 * (c - cores) + 1;
}

static void parse_config(const char *text)
{
	config_init(&config);
	stderr_capture_begin();
	if (config_parse(&config, text, strlen(text)) != 0) {
		stderr_capture_end(log_text, sizeof(log_text));
		fail_msg("config errors: %s", log_text);
	}
	stderr_capture_end(log_text, sizeof(log_text));
}

/* Chooses the sidecores and places the config's guests; returns the failures. */
static int place(const char *text)
{
	int failed;

	parse_config(text);
	stderr_capture_begin();
	assert_int_equal(plan_choose_sidecores(&machine, &config), 0);
	failed = plan_place_guests(&plan, &machine, &config);
	stderr_capture_end(log_text, sizeof(log_text));
	return failed;
}

static void assert_logged(const char *expected)
{
	if (!strstr(log_text, expected))
		fail_msg("expected \"%s\" in the log, got \"%s\"", expected, log_text);
}

static const struct plan_guest *placed_guest(const char *name)
{
	for (unsigned int i = 0; i < config.guest_count; i++)
		if (!strcmp(config.guest[i].name, name))
			return &plan.guest[i];
	fail_msg("no guest '%s'", name);
	return NULL;
}

static void assert_placed(const char *name, unsigned int node, const char *cpus,
			  uint64_t mib, unsigned int sidecore)
{
	const struct plan_guest *guest = placed_guest(name);
	char list[64] = "";
	size_t len = 0;

	assert_true(guest->placed);
	assert_int_equal(guest->node, node);
	for (unsigned int v = 0; v < guest->vcpu_count; v++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u", v ? "," : "",
					guest->cpu[v]);
	assert_string_equal(list, cpus);
	assert_int_equal(guest->memory_bytes, mib * MIB);
	assert_int_equal(guest->sidecore, sidecore);
}

static void assert_not_placed(const char *name)
{
	assert_false(placed_guest(name)->placed);
}

#define GUEST(name, memory) "[guest " name "]\nkernel = k\nmemory = " memory "\n"

/* --- fitting ----------------------------------------------------------------- */

static void test_two_guests_fit(void **state)
{
	(void)state;
	make_machine(2, 4, 1024, false);
	assert_int_equal(place(GUEST("alpha", "512M") "vcpus = 2\n" GUEST("beta", "256M")), 0);
	assert_string_equal(log_text, "");
	assert_int_equal(plan.placed_count, 2);
	/* Both nodes have 3 free cores and 1 GiB: the lower number wins. */
	assert_placed("alpha", 0, "1,2", 512, 0);
	/* Node 1 now has more free cores. */
	assert_placed("beta", 1, "5", 256, 4);
	assert_int_equal(plan.node_free_bytes[0], 512 * MIB);
	assert_int_equal(plan.node_free_bytes[1], 768 * MIB);
	assert_int_equal(plan.cpu_guest[0], PLAN_NO_GUEST);
	assert_int_equal(plan.cpu_guest[1], 0);
	assert_int_equal(plan.cpu_guest[2], 0);
	assert_int_equal(plan.cpu_guest[5], 1);
	assert_int_equal(plan.sidecore_guests[0], 1);
	assert_int_equal(plan.sidecore_guests[4], 1);
	assert_int_equal(plan_node_free_cpus(&plan, &machine, 0), 1);
	assert_int_equal(plan_node_free_cpus(&plan, &machine, 1), 2);
}

static void test_machine_defaults(void **state)
{
	(void)state;
	make_machine(2, 4, 1024, false);
	for (unsigned int c = 0; c < 8; c++) {
		assert_true(machine.cpu_usable[c]);
		assert_false(machine.cpu_sidecore[c]);
	}
	assert_int_equal(machine.node_free_bytes[0], 1024 * MIB);
	assert_int_equal(plan_choose_sidecores(&machine, &config), 0);
	for (unsigned int c = 0; c < 8; c++)
		assert_int_equal(machine.cpu_sidecore[c], c == 0 || c == 4);
}

static void test_guest_fills_a_node_exactly(void **state)
{
	(void)state;
	make_machine(1, 4, 512, false);
	assert_int_equal(place(GUEST("all", "512M") "vcpus = 3\n"), 0);
	assert_placed("all", 0, "1,2,3", 512, 0);
	assert_int_equal(plan.node_free_bytes[0], 0);
	assert_int_equal(plan_node_free_cpus(&plan, &machine, 0), 0);
}

/* --- the default node ---------------------------------------------------------- */

static void test_default_node_most_free_cores(void **state)
{
	(void)state;
	make_machine(2, 4, 1024, false);
	assert_int_equal(place(GUEST("free", "64M") GUEST("pinned", "64M") "cpus = 1,2\n"), 0);
	/* The pinned guest is placed first, so node 1 has more free cores. */
	assert_placed("pinned", 0, "1,2", 64, 0);
	assert_placed("free", 1, "5", 64, 4);
}

static void test_default_node_tie_goes_to_more_memory(void **state)
{
	(void)state;
	make_machine(2, 4, 1024, false);
	machine.node_free_bytes[1] = 2048 * MIB;
	assert_int_equal(place(GUEST("a", "64M")), 0);
	assert_placed("a", 1, "5", 64, 4);
}

static void test_default_node_skips_node_that_cannot_hold(void **state)
{
	(void)state;
	make_machine(2, 4, 1024, false);
	machine.node_free_bytes[0] = 4096 * MIB;
	machine.node_free_bytes[1] = 256 * MIB;
	machine.cpu_usable[1] = false;
	/* Node 1 has more free cores, but not the memory. */
	assert_int_equal(place(GUEST("big", "512M")), 0);
	assert_placed("big", 0, "2", 512, 0);

	/* Node 0 has the memory, but not three cores. */
	assert_int_equal(place(GUEST("wide", "128M") "vcpus = 3\n"), 0);
	assert_placed("wide", 1, "5,6,7", 128, 4);
}

/* --- over-commit ----------------------------------------------------------------- */

static void test_too_many_vcpus_for_named_node(void **state)
{
	(void)state;
	make_machine(2, 4, 1024, false);
	assert_int_equal(place(GUEST("a", "64M")
			       GUEST("big", "64M") "node = 0\nvcpus = 4\n"
			       GUEST("c", "64M")), 1);
	assert_logged("config line 8: key 'vcpus': guest 'big' needs 4 cpus, node 0 has 3 free");
	assert_not_placed("big");
	assert_placed("a", 0, "1", 64, 0);
	assert_placed("c", 1, "5", 64, 4);
	assert_int_equal(plan.placed_count, 2);
}

static void test_too_many_vcpus_anywhere(void **state)
{
	(void)state;
	make_machine(2, 4, 1024, false);
	assert_int_equal(place(GUEST("huge", "64M") "vcpus = 5\n" GUEST("small", "64M")), 1);
	assert_logged("config line 4: key 'vcpus': guest 'huge' needs 5 cpus, node 0 has 3 free");
	assert_placed("small", 0, "1", 64, 0);
}

/* A guest that kept the default of one vCPU is reported at its header. */
static void test_no_core_left(void **state)
{
	(void)state;
	make_machine(1, 3, 1024, false);
	assert_int_equal(place(GUEST("a", "64M") GUEST("b", "64M") GUEST("c", "64M")), 1);
	assert_logged("config line 7: key 'vcpus': guest 'c' needs 1 cpu, node 0 has 0 free");
	assert_placed("a", 0, "1", 64, 0);
	assert_placed("b", 0, "2", 64, 0);
	assert_not_placed("c");
}

static void test_memory_overcommit(void **state)
{
	(void)state;
	make_machine(1, 4, 300, false);
	assert_int_equal(place(GUEST("x", "512M") GUEST("y", "256M")), 1);
	assert_logged("config line 3: key 'memory': guest 'x' needs 512 MiB, node 0 has 300 MiB free");
	assert_not_placed("x");
	assert_placed("y", 0, "1", 256, 0);
	assert_int_equal(plan.node_free_bytes[0], 44 * MIB);
	/* The failed guest took no core. */
	assert_int_equal(plan_node_free_cpus(&plan, &machine, 0), 2);
}

static void test_memory_runs_out_in_file_order(void **state)
{
	(void)state;
	make_machine(1, 8, 700, false);
	machine.node_free_bytes[0] += 512 * 1024;	/* a partial MiB is not shown */
	assert_int_equal(place(GUEST("a", "256M") GUEST("b", "256M") GUEST("c", "256M")
			       GUEST("d", "128M")), 1);
	assert_logged("config line 9: key 'memory': guest 'c' needs 256 MiB, node 0 has 188 MiB free");
	assert_placed("d", 0, "3", 128, 0);
}

static void test_memory_too_big_for_named_node(void **state)
{
	(void)state;
	make_machine(2, 4, 1024, false);
	machine.node_free_bytes[1] = 128 * MIB;
	assert_int_equal(place(GUEST("a", "256M") "node = 1\n"), 1);
	assert_logged("config line 3: key 'memory': guest 'a' needs 256 MiB, node 1 has 128 MiB free");
}

/* --- explicit cpus and nodes ------------------------------------------------------ */

static void test_explicit_cpus_placed_first(void **state)
{
	(void)state;
	make_machine(1, 8, 4096, false);
	assert_int_equal(place(GUEST("any", "64M") "vcpus = 2\n"
			       GUEST("pinned", "64M") "cpus = 3,2\n"), 0);
	assert_placed("pinned", 0, "3,2", 64, 0);
	assert_placed("any", 0, "1,4", 64, 0);
}

static void test_named_node_placed_before_any(void **state)
{
	(void)state;
	make_machine(2, 2, 4096, false);
	/* Left to itself "any" would take node 0's only free core. */
	assert_int_equal(place(GUEST("any", "64M") GUEST("zero", "64M") "node = 0\n"), 0);
	assert_placed("zero", 0, "1", 64, 0);
	assert_placed("any", 1, "3", 64, 2);
}

static void test_explicit_cpus_on_second_node(void **state)
{
	(void)state;
	make_machine(2, 4, 1024, true);
	assert_int_equal(place(GUEST("odd", "64M") "cpus = 3,5\nnode = 1\n"), 0);
	assert_placed("odd", 1, "3,5", 64, 1);
}

static void test_explicit_cpu_errors(void **state)
{
	static const struct {
		const char *cpus;
		const char *message;
	} cases[] = {
		{ "0", "guest 'b' wants cpu 0, which is a sidecore" },
		{ "2,1", "guest 'b' wants cpu 1, which runs guest 'a'" },
		{ "8", "guest 'b' wants cpu 8; the machine has cpus 0 to 7" },
		{ "2,5", "guest 'b' wants cpus 2 (node 0) and 5 (node 1); a guest stays on one node" },
		{ "3", "guest 'b' wants cpu 3, which is not online" },
	};
	char text[256], message[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		make_machine(2, 4, 1024, false);
		machine.cpu_usable[3] = false;
		snprintf(text, sizeof(text), GUEST("a", "64M") "cpus = 1\n" GUEST("b", "64M")
			 "cpus = %s\n" GUEST("c", "64M"), cases[i].cpus);
		snprintf(message, sizeof(message), "config line 8: key 'cpus': %s", cases[i].message);
		assert_int_equal(place(text), 1);
		assert_logged(message);
		assert_not_placed("b");
		assert_placed("a", 0, "1", 64, 0);
		assert_placed("c", 1, "5", 64, 4);
	}
}

static void test_cpus_and_node_disagree(void **state)
{
	(void)state;
	make_machine(2, 4, 1024, false);
	assert_int_equal(place(GUEST("a", "64M") "node = 1\ncpus = 1\n"), 1);
	assert_logged("config line 5: key 'cpus': guest 'a' wants cpus of node 0 but says node 1");
}

static void test_node_does_not_exist(void **state)
{
	(void)state;
	make_machine(2, 4, 1024, false);
	assert_int_equal(place(GUEST("a", "64M") "\nnode = 2\n"), 1);
	assert_logged("config line 5: key 'node': guest 'a' wants node 2; the machine has nodes 0 to 1");
}

/* --- sidecores -------------------------------------------------------------------- */

static void test_configured_sidecore_frees_first_cpu(void **state)
{
	(void)state;
	make_machine(2, 4, 1024, false);
	assert_int_equal(place("sidecores = 1\n" GUEST("a", "64M") "cpus = 0\n"
			       GUEST("b", "64M") "node = 1\n"), 0);
	assert_true(machine.cpu_sidecore[1]);
	assert_false(machine.cpu_sidecore[0]);
	assert_true(machine.cpu_sidecore[4]);
	assert_placed("a", 0, "0", 64, 1);
	assert_placed("b", 1, "5", 64, 4);
}

static void test_configured_sidecore_must_be_usable(void **state)
{
	(void)state;
	make_machine(2, 4, 1024, false);
	machine.cpu_usable[2] = false;
	parse_config("sidecores = 9, 2\n");
	stderr_capture_begin();
	assert_int_equal(plan_choose_sidecores(&machine, &config), 2);
	stderr_capture_end(log_text, sizeof(log_text));
	assert_logged("config line 1: key 'sidecores': cpu 9 is not an online cpu");
	assert_logged("config line 1: key 'sidecores': cpu 2 is not an online cpu");
	/* Every node still gets its default. */
	for (unsigned int c = 0; c < 8; c++)
		assert_int_equal(machine.cpu_sidecore[c], c == 0 || c == 4);
}

/* Eight listed sidecores on node 0: node 1 would make nine, so it gets none. */
static void test_sidecores_never_more_than_the_maximum(void **state)
{
	unsigned int count = 0;

	(void)state;
	make_machine(2, 10, 1024, false);
	parse_config("\nsidecores = 0,1,2,3,4,5,6,7\n" GUEST("a", "64M") "node = 1\n");
	stderr_capture_begin();
	assert_int_equal(plan_choose_sidecores(&machine, &config), 1);
	assert_int_equal(plan_place_guests(&plan, &machine, &config), 1);
	stderr_capture_end(log_text, sizeof(log_text));
	for (unsigned int c = 0; c < topo.cpu_count; c++)
		count += machine.cpu_sidecore[c];
	assert_int_equal(count, CONFIG_MAX_SIDECORES);
	assert_false(machine.cpu_sidecore[10]);
	assert_logged("config line 2: key 'sidecores': node 1 gets no sidecore: the listed cpus "
		      "are already the most there may be, 8");
	assert_logged("which has no sidecore");
	assert_not_placed("a");
}

static void test_first_usable_cpu_is_default_sidecore(void **state)
{
	(void)state;
	make_machine(2, 4, 1024, false);
	machine.cpu_usable[4] = false;
	assert_int_equal(place(GUEST("a", "64M") "node = 1\n"), 0);
	assert_true(machine.cpu_sidecore[5]);
	assert_placed("a", 1, "6", 64, 5);
}

static void test_guests_spread_over_a_nodes_sidecores(void **state)
{
	(void)state;
	make_machine(1, 8, 4096, false);
	assert_int_equal(place("sidecores = 4, 0\n" GUEST("a", "64M") GUEST("b", "64M")
			       GUEST("c", "64M")), 0);
	assert_placed("a", 0, "1", 64, 0);
	assert_placed("b", 0, "2", 64, 4);
	assert_placed("c", 0, "3", 64, 0);
	assert_int_equal(plan.sidecore_guests[0], 2);
	assert_int_equal(plan.sidecore_guests[4], 1);
}

static void test_node_without_usable_cpu(void **state)
{
	(void)state;
	make_machine(2, 2, 1024, false);
	machine.cpu_usable[2] = false;
	machine.cpu_usable[3] = false;
	assert_int_equal(place(GUEST("a", "64M") "node = 1\n" GUEST("b", "64M")), 1);
	assert_false(machine.cpu_sidecore[2]);
	assert_false(machine.cpu_sidecore[3]);
	assert_logged("config line 1: key 'vcpus': guest 'a' needs 1 cpu, node 1 has 0 free");
	assert_placed("b", 0, "1", 64, 0);
}

/* A caller may bring its own sidecores; a node left without one takes no guest. */
static void test_node_without_sidecore(void **state)
{
	(void)state;
	make_machine(2, 2, 1024, false);
	parse_config(GUEST("a", "64M") "node = 1\n");
	machine.cpu_sidecore[0] = true;
	stderr_capture_begin();
	assert_int_equal(plan_place_guests(&plan, &machine, &config), 1);
	stderr_capture_end(log_text, sizeof(log_text));
	assert_logged("config line 4: key 'node': guest 'a' would run on node 1, which has no sidecore");
	assert_int_equal(plan.cpu_guest[2], PLAN_NO_GUEST);
	assert_int_equal(plan.cpu_guest[3], PLAN_NO_GUEST);
}

/* --- SMT siblings -------------------------------------------------------------------- */

/* Four cores, eight threads: sidecore 0's sibling, cpu 4, runs nothing. */
static void test_sidecore_sibling_stays_idle(void **state)
{
	(void)state;
	make_smt_machine(4, 1024);
	assert_int_equal(place(GUEST("a", "64M") "vcpus = 6\n"), 0);
	assert_true(machine.cpu_sidecore[0]);
	for (unsigned int c = 0; c < 8; c++)
		assert_int_equal(machine.cpu_idle_sibling[c], c == 4);
	assert_int_equal(plan_sidecore_of_sibling(&machine, 4), 0);
	assert_int_equal(plan_sidecore_of_sibling(&machine, 5), -1);
	assert_placed("a", 0, "1,2,3,5,6,7", 64, 0);
	assert_int_equal(plan.cpu_guest[4], PLAN_NO_GUEST);
	assert_int_equal(plan_node_free_cpus(&plan, &machine, 0), 0);
}

static void test_sidecore_sibling_counted_out(void **state)
{
	(void)state;
	make_smt_machine(4, 1024);
	assert_int_equal(place(GUEST("a", "64M") "vcpus = 7\n"), 1);
	assert_logged("config line 4: key 'vcpus': guest 'a' needs 7 cpus, node 0 has 6 free; "
		      "cpu 4, the SMT sibling of sidecore 0, stays idle (sidecore_sibling = idle)");
	assert_not_placed("a");

	assert_int_equal(place("sidecores = 0, 1\n" GUEST("a", "64M") "vcpus = 5\n"), 1);
	assert_logged("guest 'a' needs 5 cpus, node 0 has 4 free; 2 more, the SMT siblings "
		      "of its sidecores, stay idle (sidecore_sibling = idle)");
}

static void test_cpus_naming_an_idle_sibling(void **state)
{
	(void)state;
	make_smt_machine(4, 1024);
	assert_int_equal(place(GUEST("a", "64M") "cpus = 5, 4\n"), 1);
	assert_logged("config line 4: key 'cpus': guest 'a' wants cpu 4, the SMT sibling of "
		      "sidecore 0, which stays idle (sidecore_sibling = idle)");
}

static void test_sidecore_sibling_lent_to_vcpus(void **state)
{
	(void)state;
	make_smt_machine(4, 1024);
	assert_int_equal(place("sidecore_sibling = vcpu\n" GUEST("a", "64M") "vcpus = 6\n"
			       GUEST("b", "64M") "cpus = 4\n"), 0);
	for (unsigned int c = 0; c < 8; c++)
		assert_false(machine.cpu_idle_sibling[c]);
	assert_placed("b", 0, "4", 64, 0);
	assert_placed("a", 0, "1,2,3,5,6,7", 64, 0);
}

/* Two sidecores on one core's threads: each is the other's sibling, none idles. */
static void test_sidecores_on_one_core(void **state)
{
	(void)state;
	make_smt_machine(4, 1024);
	assert_int_equal(place("sidecores = 1, 5\n" GUEST("a", "64M") "vcpus = 6\n"), 0);
	for (unsigned int c = 0; c < 8; c++)
		assert_false(machine.cpu_idle_sibling[c]);
	assert_int_equal(plan_sidecore_of_sibling(&machine, 5), -1);
	assert_placed("a", 0, "0,2,3,4,6,7", 64, 1);
}

/* Without SMT (smt_bits 0) consecutive APIC IDs are separate cores. */
static void test_no_smt_no_idle_sibling(void **state)
{
	(void)state;
	make_machine(1, 4, 1024, false);
	assert_int_equal(place(GUEST("a", "64M") "vcpus = 3\n"), 0);
	for (unsigned int c = 0; c < 4; c++)
		assert_false(machine.cpu_idle_sibling[c]);
	assert_placed("a", 0, "1,2,3", 64, 0);
}

/* --- invalid guests ------------------------------------------------------------------ */

static void test_invalid_guests_are_left_out(void **state)
{
	(void)state;
	make_machine(1, 4, 1024, false);
	config_init(&config);
	stderr_capture_begin();
	assert_int_equal(config_parse(&config, GUEST("bad", "1X") GUEST("good", "64M"),
				      strlen(GUEST("bad", "1X") GUEST("good", "64M"))), 1);
	assert_int_equal(plan_choose_sidecores(&machine, &config), 0);
	assert_int_equal(plan_place_guests(&plan, &machine, &config), 0);
	stderr_capture_end(log_text, sizeof(log_text));
	assert_not_placed("bad");
	assert_placed("good", 0, "1", 64, 0);
	assert_int_equal(plan.placed_count, 1);
}

/* --- the machines in tests/data/acpi ---------------------------------------------- */

static const char *const machine_table_files[] = { "APIC.dat", "SRAT.dat", "SLIT.dat" };
#define MACHINE_TABLE_FILES (sizeof(machine_table_files) / sizeof(machine_table_files[0]))

static uint8_t machine_images[MACHINE_TABLE_FILES][16384];

static void load_machine(const char *name)
{
	const char *data = getenv("SIDECORE_ACPI_DATA");
	struct acpi_tables tables;

	if (!data)
		data = "tests/data/acpi";
	acpi_tables_init(&tables);
	for (unsigned int i = 0; i < MACHINE_TABLE_FILES; i++) {
		char path[512];
		size_t size;
		FILE *file;

		snprintf(path, sizeof(path), "%s/%s/%s", data, name, machine_table_files[i]);
		file = fopen(path, "rb");
		if (!file) {
			if (i == 0)
				fail_msg("cannot open %s (run from the repository root or set SIDECORE_ACPI_DATA)",
					 path);
			continue;
		}
		size = fread(machine_images[i], 1, sizeof(machine_images[i]), file);
		fclose(file);
		assert_true(acpi_tables_add(&tables, machine_images[i], size));
	}
	stderr_capture_begin();
	assert_int_equal(topology_build(&topo, &tables), 0);
	stderr_capture_end(log_text, sizeof(log_text));
	plan_init_machine(&machine, &topo);
}

/* Two Westmere-EP sockets whose MADT alternates between them. */
static void test_dl360_g7(void **state)
{
	(void)state;
	load_machine("hp-proliant-dl360-g7");
	assert_int_equal(topo.node_count, 2);
	assert_int_equal(machine.node_free_bytes[0], 96ull << 30);
	assert_int_equal(machine.node_free_bytes[1], 96ull << 30);
	assert_int_equal(place(GUEST("web0", "2G") "vcpus = 4\n" GUEST("web1", "2G") "vcpus = 4\n"
			       GUEST("db", "3G") "vcpus = 4\n"), 1);
	assert_true(machine.cpu_idle_sibling[8]);	/* APIC ID 1, beside sidecore 0's 0 */
	assert_true(machine.cpu_idle_sibling[9]);	/* 33, beside sidecore 1's 32 */
	assert_placed("web0", 0, "2,4,6,10", 2048, 0);
	assert_placed("web1", 1, "3,5,7,11", 2048, 1);
	assert_logged("config line 12: key 'vcpus': guest 'db' needs 4 cpus, node 0 has 2 free; "
		      "cpu 8, the SMT sibling of sidecore 0, stays idle");
}

/*
 * Two Haswell-EP sockets; cpu 10 is node 1's first and so its sidecore, and
 * cpu 30 (APIC ID 33 beside its 32) its idle sibling.
 */
static void test_x10dai(void **state)
{
	(void)state;
	load_machine("supermicro-x10dai");
	assert_int_equal(place(GUEST("a", "1G") "cpus = 10\n" GUEST("b", "1G") "cpus = 11,12\n"
			       GUEST("c", "1G") "vcpus = 8\nnode = 1\n"), 1);
	assert_logged("config line 4: key 'cpus': guest 'a' wants cpu 10, which is a sidecore");
	assert_placed("b", 1, "11,12", 1024, 10);
	assert_true(machine.cpu_idle_sibling[20]);
	assert_true(machine.cpu_idle_sibling[30]);
	assert_placed("c", 1, "13,14,15,16,17,18,19,31", 1024, 10);
}

/* Node 1 has more memory than node 0 (which loses the PCI hole): it goes first. */
static void test_x8dtn(void **state)
{
	(void)state;
	load_machine("supermicro-x8dtn-plus-f");
	assert_true(machine.node_free_bytes[1] > machine.node_free_bytes[0]);
	assert_int_equal(place(GUEST("first", "3G") GUEST("second", "3G")), 0);
	assert_placed("first", 1, "7", 3072, 6);
	assert_placed("second", 0, "1", 3072, 0);
}

/* One socket, no SRAT: ACPI alone tells no memory size, so nothing fits. */
static void test_z400_without_srat(void **state)
{
	(void)state;
	load_machine("hp-z400");
	assert_false(topo.has_srat);
	assert_int_equal(place(GUEST("a", "64M")), 1);
	assert_logged("config line 3: key 'memory': guest 'a' needs 64 MiB, node 0 has 0 MiB free");

	machine.node_free_bytes[0] = 4096 * MIB;
	assert_int_equal(place(GUEST("a", "64M")), 0);
	assert_placed("a", 0, "1", 64, 0);
}

/*
 * Twenty threads on one node, the sidecore's sibling (cpu 10) idle: two
 * full guests and a third that overflows; lending the sibling does not
 * make it fit either, but a smaller one then does.
 */
static void test_x99_fills_up(void **state)
{
	(void)state;
	load_machine("intel-x99-1s");
	assert_int_equal(place(GUEST("a", "1G") "vcpus = 8\n" GUEST("b", "1G") "vcpus = 8\n"
			       GUEST("c", "1G") "vcpus = 3\n" GUEST("d", "1G") "vcpus = 2\n"), 1);
	assert_placed("a", 0, "1,2,3,4,5,6,7,8", 1024, 0);
	assert_placed("b", 0, "9,11,12,13,14,15,16,17", 1024, 0);
	assert_logged("config line 12: key 'vcpus': guest 'c' needs 3 cpus, node 0 has 2 free; "
		      "cpu 10, the SMT sibling of sidecore 0, stays idle");
	assert_placed("d", 0, "18,19", 1024, 0);

	assert_int_equal(place("sidecore_sibling = vcpu\n" GUEST("a", "1G") "vcpus = 8\n"
			       GUEST("b", "1G") "vcpus = 8\n" GUEST("c", "1G") "vcpus = 3\n"), 0);
	assert_placed("c", 0, "17,18,19", 1024, 0);
}

int main(void)
{
	static const struct CMUnitTest fit_tests[] = {
		cmocka_unit_test(test_two_guests_fit),
		cmocka_unit_test(test_machine_defaults),
		cmocka_unit_test(test_guest_fills_a_node_exactly),
		cmocka_unit_test(test_default_node_most_free_cores),
		cmocka_unit_test(test_default_node_tie_goes_to_more_memory),
		cmocka_unit_test(test_default_node_skips_node_that_cannot_hold),
	};
	static const struct CMUnitTest overcommit_tests[] = {
		cmocka_unit_test(test_too_many_vcpus_for_named_node),
		cmocka_unit_test(test_too_many_vcpus_anywhere),
		cmocka_unit_test(test_no_core_left),
		cmocka_unit_test(test_memory_overcommit),
		cmocka_unit_test(test_memory_runs_out_in_file_order),
		cmocka_unit_test(test_memory_too_big_for_named_node),
	};
	static const struct CMUnitTest explicit_tests[] = {
		cmocka_unit_test(test_explicit_cpus_placed_first),
		cmocka_unit_test(test_named_node_placed_before_any),
		cmocka_unit_test(test_explicit_cpus_on_second_node),
		cmocka_unit_test(test_explicit_cpu_errors),
		cmocka_unit_test(test_cpus_and_node_disagree),
		cmocka_unit_test(test_node_does_not_exist),
	};
	static const struct CMUnitTest sidecore_tests[] = {
		cmocka_unit_test(test_configured_sidecore_frees_first_cpu),
		cmocka_unit_test(test_configured_sidecore_must_be_usable),
		cmocka_unit_test(test_sidecores_never_more_than_the_maximum),
		cmocka_unit_test(test_first_usable_cpu_is_default_sidecore),
		cmocka_unit_test(test_guests_spread_over_a_nodes_sidecores),
		cmocka_unit_test(test_node_without_usable_cpu),
		cmocka_unit_test(test_node_without_sidecore),
		cmocka_unit_test(test_invalid_guests_are_left_out),
	};
	static const struct CMUnitTest smt_tests[] = {
		cmocka_unit_test(test_sidecore_sibling_stays_idle),
		cmocka_unit_test(test_sidecore_sibling_counted_out),
		cmocka_unit_test(test_cpus_naming_an_idle_sibling),
		cmocka_unit_test(test_sidecore_sibling_lent_to_vcpus),
		cmocka_unit_test(test_sidecores_on_one_core),
		cmocka_unit_test(test_no_smt_no_idle_sibling),
	};
	static const struct CMUnitTest machine_tests[] = {
		cmocka_unit_test(test_dl360_g7),
		cmocka_unit_test(test_x10dai),
		cmocka_unit_test(test_x8dtn),
		cmocka_unit_test(test_z400_without_srat),
		cmocka_unit_test(test_x99_fills_up),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("plan: fitting", fit_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("plan: over-commit", overcommit_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("plan: explicit cpus and nodes", explicit_tests,
					      NULL, NULL);
	failed += cmocka_run_group_tests_name("plan: sidecores", sidecore_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("plan: SMT siblings", smt_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("plan: machines in tests/data/acpi", machine_tests,
					      NULL, NULL);
	return failed ? 1 : 0;
}
