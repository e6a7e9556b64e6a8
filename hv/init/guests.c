/* SPDX-License-Identifier: MIT */
/*
 * guests.c - placement runs the same pure planner the host tool's `plan`
 * command uses (hv/config/plan.c), fed with what the hypervisor has really
 * got: online cores and free pages per node.
 */
#include <string.h>

#include "arch/console.h"
#include "arch/idt.h"
#include "arch/lapic.h"
#include "arch/percpu.h"
#include "arch/x86.h"
#include "config/config_guest.h"
#include "config/plan.h"
#include "guest/guest.h"
#include "guest/guest_net.h"
#include "guest/guest_virtio.h"
#include "guest/guest_vsock.h"
#include "init/guests.h"
#include "lib/printf.h"
#include "mm/page_alloc.h"
#include "sidecore/sidecore.h"
#include "virtio/virtio_console.h"
#include "virtio/virtio_rng.h"
#include "vmx/vmx.h"

/* Per node, kept back from guests for EPT tables, VMCS pages and buffers. */
#define NODE_RESERVE_BYTES (16ull << 20)

static struct plan_machine machine;
static struct plan plan;
static const struct config *planned;
static struct guest guests[GUEST_MAX];
static unsigned int guest_count;

void guests_assign_roles(const struct topology *topo, const struct config *config)
{
	plan_init_machine(&machine, topo);
	for (unsigned int c = 0; c < topo->cpu_count; c++)
		machine.cpu_usable[c] = percpu[c].online;
	for (unsigned int n = 0; n < topo->node_count; n++) {
		uint64_t free = page_pool_free_bytes(page_alloc_pool(n));

		machine.node_free_bytes[n] = free > NODE_RESERVE_BYTES ?
					     free - NODE_RESERVE_BYTES : 0;
	}
	plan_choose_sidecores(&machine, config);
	for (unsigned int c = 0; c < topo->cpu_count; c++)
		percpu[c].role = machine.cpu_sidecore[c] ? CPU_ROLE_SIDECORE : CPU_ROLE_IDLE;
}

static const struct boot_module *guests_find_module(const struct boot_info *boot,
						    const struct config_guest *cg,
						    enum config_guest_key key, const char *name)
{
	const struct boot_module *m = bootinfo_find_module(boot, name);

	if (!m)
		printk("config line %u: key '%s': guest '%s': no boot module named '%s'\n",
		       config_guest_line(cg, key), config_guest_key_name(key), cg->name, name);
	return m;
}

static void guests_create_one(const struct config_guest *cg, const struct plan_guest *pg,
			      const struct boot_info *boot)
{
	const struct boot_module *kernel, *initrd = NULL;
	struct guest *g = &guests[guest_count];
	struct sidecore *sc = sidecore_of_cpu(pg->sidecore);

	for (unsigned int i = 0; i < pg->vcpu_count; i++) {
		if (!percpu[pg->cpu[i]].vmx->ok) {
			printk("config line %u: key 'cpus': guest '%s': cpu %u has no usable VMX (%s)\n",
			       config_guest_line(cg, CONFIG_KEY_CPUS), cg->name, pg->cpu[i],
			       percpu[pg->cpu[i]].vmx->reason);
			return;
		}
	}
	kernel = bootinfo_find_module(boot, cg->kernel);
	if (cg->initrd[0])
		initrd = bootinfo_find_module(boot, cg->initrd);

	if (!guest_create(g, guest_count, cg, pg->node, pg->cpu, pg->vcpu_count,
			  (const void *)(uintptr_t)kernel->start, kernel->end - kernel->start,
			  initrd ? (const void *)(uintptr_t)initrd->start : NULL,
			  initrd ? initrd->end - initrd->start : 0)) {
		printk("guest %s: not started\n", cg->name);
		return;
	}
	g->print_counters = guests_print_counters;
	/*
	 * A guest with a `cid` in its section also gets a vsock device, one
	 * with `rng = yes` an entropy device (docs/config.md).
	 */
	if (!guest_net_create(g, sc, cg->mac, cg->uplink, cg->broadcast_limit) ||
	    !guest_virtio_create(g, NULL, &virtio_console_ops, NULL) ||
	    (cg->key_line[CONFIG_KEY_CID] && !guest_vsock_create(g, sc, cg->cid)) ||
	    (cg->rng && !guest_virtio_create(g, NULL, &virtio_rng_ops, NULL))) {
		/* All or nothing: no port of a guest that never runs stays polled or switched. */
		guest_device_remove_all(g);
		printk("guest %s: not started\n", cg->name);
		return;
	}
	for (unsigned int i = 0; i < pg->vcpu_count; i++) {
		percpu[pg->cpu[i]].role = CPU_ROLE_VCPU;
		percpu[pg->cpu[i]].vcpu = &g->vcpu[i];
	}
	guest_count++;
}

void guests_create(struct config *config, const struct boot_info *boot)
{
	/* A guest whose images are missing takes no cores from the others. */
	for (unsigned int i = 0; i < config->guest_count; i++) {
		struct config_guest *cg = &config->guest[i];

		if (cg->valid && (!guests_find_module(boot, cg, CONFIG_KEY_KERNEL, cg->kernel) ||
				  (cg->initrd[0] &&
				   !guests_find_module(boot, cg, CONFIG_KEY_INITRD, cg->initrd))))
			cg->valid = false;
	}
	planned = config;
	plan_place_guests(&plan, &machine, config);
	for (unsigned int i = 0; i < config->guest_count; i++)
		if (config->guest[i].valid && plan.guest[i].placed)
			guests_create_one(&config->guest[i], &plan.guest[i], boot);
}

static void guests_print_cpu_list(char *buf, size_t size, const unsigned int *cpu,
				  unsigned int count)
{
	int len = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < count && len < (int)size; i++)
		len += snprintf(buf + len, size - len, "%s%u", i ? "," : "", cpu[i]);
}

void guests_print_summary(const struct topology *topo)
{
	static unsigned int free_cpu[MAX_CPUS], sibling_cpu[MAX_CPUS];
	unsigned int free_count = 0, sibling_count = 0;
	char list[512];

	for (unsigned int c = 0; c < topo->cpu_count; c++) {
		if (!percpu[c].online)
			continue;
		if (percpu[c].role == CPU_ROLE_SIDECORE)
			printk("sidecore: cpu %u node %u\n", c, topo->cpu[c].node);
		else if (percpu[c].role == CPU_ROLE_IDLE && machine.cpu_idle_sibling[c])
			sibling_cpu[sibling_count++] = c;
		else if (percpu[c].role == CPU_ROLE_IDLE)
			free_cpu[free_count++] = c;
	}
	for (unsigned int i = 0; i < guest_count; i++) {
		const struct guest *g = &guests[i];
		unsigned int cpus[GUEST_MAX_VCPUS];

		for (unsigned int v = 0; v < g->vcpu_count; v++)
			cpus[v] = g->vcpu[v].cpu;
		guests_print_cpu_list(list, sizeof(list), cpus, g->vcpu_count);
		printk("guest %s: node %u cpus %s memory %lu MiB at %#lx sidecore %u\n",
		       g->name, g->node, list, g->ram_size >> 20, g->ram_hpa,
		       plan.guest[g->config - planned->guest].sidecore);
	}
	guests_print_cpu_list(list, sizeof(list), free_cpu, free_count);
	printk("free: cpus %s\n", free_count ? list : "none");
	/* Only a machine with SMT has any; its siblings wait in HLT like free cpus. */
	if (sibling_count) {
		guests_print_cpu_list(list, sizeof(list), sibling_cpu, sibling_count);
		printk("idle: cpus %s (sidecore siblings)\n", list);
	}
}

void guests_start(void)
{
	/* Sidecores other than the caller wait in HLT until told their role. */
	for (unsigned int c = 0; c < MAX_CPUS; c++)
		if (percpu[c].online && percpu[c].role == CPU_ROLE_SIDECORE &&
		    c != this_cpu()->cpu)
			lapic_send_ipi(percpu[c].apic_id, VECTOR_WAKEUP);
	for (unsigned int i = 0; i < guest_count; i++)
		for (unsigned int v = 0; v < guests[i].vcpu_count; v++)
			lapic_send_ipi(percpu[guests[i].vcpu[v].cpu].apic_id, VECTOR_WAKEUP);
}

void guests_print_counters(unsigned int tag)
{
	printk("counters: begin tag %u tsc %lu\n", tag, rdtsc());
	for (unsigned int i = 0; i < guest_count; i++)
		guest_print_counters(&guests[i]);
	sidecore_print_counters();
	printk("counters: end tag %u\n", tag);
}

bool guests_print_stat(unsigned int index)
{
	if (index >= guest_count)
		return false;
	guest_print_stat(&guests[index]);
	return true;
}

struct guest *guests_find(const char *name)
{
	for (unsigned int i = 0; i < guest_count; i++)
		if (!strcmp(guests[i].name, name))
			return &guests[i];
	return NULL;
}

void guests_print_list(void)
{
	for (unsigned int i = 0; i < guest_count; i++)
		printk("guest %s: %s (vcpus %u, restarts %u)\n", guests[i].name,
		       guest_state_name(guests[i].state), guests[i].vcpu_count,
		       guests[i].restarts);
}
