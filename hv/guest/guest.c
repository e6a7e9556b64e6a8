/* SPDX-License-Identifier: MIT */
/*
 * guest.c - a guest's life: RAM from its node, EPT, the Linux image and ACPI
 * tables loaded into it, devices, vCPUs; then run, stop or crash, and the
 * configured policy (stop or restart).
 */
#include <string.h>

#include "arch/console.h"
#include "arch/kick.h"
#include "arch/lapic.h"
#include "arch/percpu.h"
#include "arch/spinlock.h"
#include "arch/tsc.h"
#include "arch/x86.h"
#include "config/config_guest.h"
#include "config/guest_layout.h"
#include "guest/guest.h"
#include "guest/guest_acpi.h"
#include "guest/guest_log.h"
#include "guest/linux_loader.h"
#include "guest/vcpu.h"
#include "lib/printf.h"
#include "mm/page_alloc.h"
#include "vmx/vmx.h"

static uint16_t next_vpid = 1;	/* VPID 0 is the host's (§29.1) */

const char *guest_state_name(enum guest_state state)
{
	static const char *const names[] = {
		[GUEST_STARTING] = "starting",
		[GUEST_RUNNING] = "running",
		[GUEST_STOPPED] = "stopped",
		[GUEST_CRASHED] = "crashed",
	};

	return names[state];
}

/* The guest's UART output, a line at a time, limited like all its lines. */
static void guest_console_line(void *ctx, const char *line)
{
	guest_log(ctx, "%s\n", line);
}

/*
 * Linux keeps the x2APIC that firmware enabled only when it skips I/O APIC
 * setup; without interrupt remapping it would otherwise leave x2APIC mode,
 * which the vCPU refuses (docs/vmx.md, "Direct interrupts"). The guest has
 * no I/O APIC anyway.
 */
#define GUEST_CMDLINE_APPEND	" noapic"

/*
 * Writes the kernel, initrd, command line and ACPI tables into guest RAM,
 * zeroed first: the pages come from the pool with whatever GRUB, another
 * guest or this guest's previous life left in them.
 */
static bool guest_load(struct guest *g)
{
	void *ram = (void *)(uintptr_t)g->ram_hpa;
	uint32_t apic_ids[GUEST_MAX_VCPUS];
	struct guest_acpi_params acpi = { .vcpu_count = g->vcpu_count, .apic_ids = apic_ids };
	static char cmdline[GUEST_MAX][CONFIG_CMDLINE_MAX + sizeof(GUEST_CMDLINE_APPEND)];
	struct linux_boot_request request = {
		.kernel = g->kernel,
		.kernel_size = g->kernel_size,
		.initrd = g->initrd,
		.initrd_size = g->initrd_size,
		.cmdline = cmdline[g->id],
	};
	struct linux_entry_state entry;
	const char *error;

	memset(ram, 0, g->ram_size);
	snprintf(cmdline[g->id], sizeof(cmdline[g->id]), "%s%s", g->config->cmdline,
		 GUEST_CMDLINE_APPEND);
	for (unsigned int i = 0; i < g->vcpu_count; i++)
		apic_ids[i] = g->vcpu[i].apic_id;
	if (!guest_acpi_build((uint8_t *)ram + GUEST_ACPI_GPA, GUEST_START_PD_GPA - GUEST_ACPI_GPA,
			      GUEST_ACPI_GPA, &acpi, &request.rsdp_gpa)) {
		printk("guest %s: ACPI tables do not fit\n", g->name);
		return false;
	}
	error = linux_load_bzimage(ram, g->ram_size, &request, &entry);
	if (error) {
		printk("config line %u: key 'kernel': guest '%s': %s\n",
		       config_guest_line(g->config, CONFIG_KEY_KERNEL), g->name, error);
		return false;
	}
	g->boot.rip = entry.rip;
	g->boot.rsi = entry.rsi;
	g->boot.cr3 = entry.cr3;
	g->boot.gdt_base = entry.gdt_base;
	g->boot.gdt_limit = entry.gdt_limit;
	g->boot.cs = entry.cs_selector;
	g->boot.ds = entry.ds_selector;
	return true;
}

bool guest_create(struct guest *g, unsigned int id, const struct config_guest *config,
		  unsigned int node, const unsigned int *cpus, unsigned int vcpu_count,
		  const void *kernel, uint64_t kernel_size,
		  const void *initrd, uint64_t initrd_size)
{
	memset(g, 0, sizeof(*g));
	g->id = id;
	memcpy(g->name, config->name, sizeof(g->name));
	g->config = config;
	g->state = GUEST_STARTING;
	g->node = node;
	g->ram_size = config->memory_bytes;
	g->kernel = kernel;
	g->kernel_size = kernel_size;
	g->initrd = initrd;
	g->initrd_size = initrd_size;
	g->vcpu_count = vcpu_count;
	vcpu_life_init(&g->life, vcpu_count);

	g->ram_hpa = page_alloc_node(node, g->ram_size, PAGE_SIZE_2M);
	if (!g->ram_hpa) {
		printk("config line %u: key 'memory': guest '%s': no contiguous %lu MiB on node %u\n",
		       config_guest_line(config, CONFIG_KEY_MEMORY), g->name,
		       g->ram_size >> 20, node);
		return false;
	}
	if (!ept_init(&g->ept, node) || !ept_map_ram(&g->ept, 0, g->ram_hpa, g->ram_size)) {
		printk("guest %s: no memory for its EPT\n", g->name);
		return false;
	}

	uart_init(&g->uart, guest_console_line, g);
	vpci_bus_init(&g->pci);
	vpci_host_bridge_init(&g->host_bridge);
	vpci_bus_add(&g->pci, 0, &g->host_bridge);

	for (unsigned int i = 0; i < vcpu_count; i++) {
		struct vcpu *v = &g->vcpu[i];

		v->guest = g;
		v->index = i;
		v->cpu = cpus[i];
		/* The core's own APIC, under the ID the guest reads from it. */
		v->apic_id = percpu[cpus[i]].apic_id;
		v->vpid = __atomic_fetch_add(&next_vpid, 1, __ATOMIC_RELAXED);
		if (!vcpu_create(v)) {
			printk("guest %s: no memory for vCPU %u\n", g->name, i);
			return false;
		}
	}
	return guest_load(g);
}

void guest_print_counters(const struct guest *g)
{
	for (unsigned int i = 0; i < g->vcpu_count; i++) {
		const struct vcpu *v = &g->vcpu[i];
		char line[768];
		int len;

		len = snprintf(line, sizeof(line), "counters: guest %s vcpu %u state %s exits %lu irqs %lu faults %lu doorbells %lu refused %lu late %lu",
			       g->name, i, guest_state_name(g->state), v->exits_total,
			       v->irqs_sent, v->exceptions_injected, v->doorbells,
			       v->ipis_refused + v->vectors_refused,
			       __atomic_load_n(&percpu[v->cpu].late_vectors, __ATOMIC_RELAXED));
		for (unsigned int r = 0; r < EXIT_REASON_COUNT && len < (int)sizeof(line); r++)
			if (v->exits[r])
				len += snprintf(line + len, sizeof(line) - len, " %s=%lu",
						vmcs_exit_reason_name(r), v->exits[r]);
		printk("%s\n", line);
	}
}

void guest_print_stat(const struct guest *g)
{
	uint64_t exits[EXIT_REASON_COUNT] = { 0 };
	uint64_t total = 0, irqs = 0;
	uint64_t tsc = rdtsc();
	char line[512];
	int len;

	for (unsigned int i = 0; i < g->vcpu_count; i++) {
		const struct vcpu *v = &g->vcpu[i];

		total += v->exits_total;
		irqs += v->irqs_sent;
		for (unsigned int r = 0; r < EXIT_REASON_COUNT; r++)
			exits[r] += v->exits[r];
	}
	len = snprintf(line, sizeof(line), "stat: guest %s tsc %lu state %s exits %lu irqs %lu",
		       g->name, tsc, guest_state_name(g->state), total, irqs);
	for (unsigned int r = 0; r < EXIT_REASON_COUNT && len < (int)sizeof(line); r++)
		if (exits[r])
			len += snprintf(line + len, sizeof(line) - len, " %s=%lu",
					vmcs_exit_reason_name(r), exits[r]);
	printk("%s\n", line);
}

/*
 * A vCPU's core carries nothing of one guest (or of the host) into the
 * next guest's life: its APIC is scrubbed before every life and after the
 * last (docs/vmx.md, "Direct interrupts").
 */
static bool guest_scrub_core(struct vcpu *v)
{
	if (lapic_scrub())
		return true;
	printk("guest %s: cpu %u: its local APIC does not come clean\n", v->guest->name, v->cpu);
	return false;
}

void guest_request(struct guest *g, enum guest_request req)
{
	for (unsigned int i = 0; i < g->vcpu_count; i++) {
		struct vcpu *v = &g->vcpu[i];

		/* Locked, so the request is visible before the NMI can arrive. */
		(void)__atomic_exchange_n(&v->request, req, __ATOMIC_SEQ_CST);
		kick_send(percpu[v->cpu].apic_id);
	}
}

/*
 * A stopped guest's core halts until the operator asks for a restart; a
 * kick ends each HLT (arch/kick.h), so a request made between the look
 * and the HLT is not slept through.
 */
static void guest_wait_restart(struct vcpu *v)
{
	for (;;) {
		this_cpu()->kicked = 0;
		if (__atomic_exchange_n(&v->request, GUEST_REQUEST_NONE, __ATOMIC_ACQUIRE) ==
		    GUEST_REQUEST_RESTART)
			return;
		kick_idle();
	}
}

/* What ends this life: the operator's request if there is one, else the config. */
static enum config_action guest_next_action(struct vcpu *v, enum vcpu_stop stop)
{
	switch (__atomic_exchange_n(&v->request, GUEST_REQUEST_NONE, __ATOMIC_ACQUIRE)) {
	case GUEST_REQUEST_STOP:
		return CONFIG_ACTION_STOP;
	case GUEST_REQUEST_RESTART:
		return CONFIG_ACTION_RESTART;
	default:
		return stop == VCPU_STOP_CRASH ? v->guest->config->on_crash :
						 v->guest->config->on_poweroff;
	}
}

const char *guest_start_vcpu(struct vcpu *target, uint8_t vector)
{
	struct guest *g = target->guest;
	uint64_t start = (uint64_t)vector << 12;

	/* Below the legacy hole, where only RAM is (docs/guest-platform.md). */
	if (start + PAGE_SIZE > GUEST_LOW_RAM_END || start + PAGE_SIZE > g->ram_size)
		return "SIPI vector outside low RAM";
	if (!target->index)
		return NULL;	/* vCPU 0 carries the life and waits for no SIPI */
	if (vcpu_life_start(&g->life, target->index, vector) == VCPU_LIFE_STARTED)
		kick_send(percpu[target->cpu].apic_id);
	return NULL;
}

/*
 * A vCPU but the first waits, as a processor in wait-for-SIPI, until
 * another vCPU starts it in the open life (vcpu_life_take()). Requests
 * are vCPU 0's to act on: one found here is dropped, since the life it
 * was for is what stops the vCPU (vcpu_run()).
 */
static uint8_t guest_wait_startup(struct vcpu *v)
{
	uint8_t vector;

	for (;;) {
		this_cpu()->kicked = 0;
		(void)__atomic_exchange_n(&v->request, GUEST_REQUEST_NONE, __ATOMIC_ACQUIRE);
		if (vcpu_life_take(&v->guest->life, v->index, &vector))
			return vector;
		kick_idle();
	}
}

/*
 * How long vCPU 0 waits for a sibling to park, and how often it kicks it
 * again meanwhile. A kick ends any guest instruction, so only a core that
 * no longer answers takes longer; the guest is then given up rather than
 * rewritten under it.
 */
#define PARK_TIMEOUT_MS		5000
#define PARK_REKICK_MS		10

struct guest_park {
	struct guest *g;
	uint64_t since, last_kick;
};

static void guest_park_ask(void *ctx, unsigned int i)
{
	struct guest_park *park = ctx;
	struct vcpu *v = &park->g->vcpu[i];

	(void)__atomic_exchange_n(&v->request, GUEST_REQUEST_STOP, __ATOMIC_SEQ_CST);
	kick_send(percpu[v->cpu].apic_id);
}

static bool guest_park_wait(void *ctx, unsigned int i)
{
	struct guest_park *park = ctx;
	uint64_t now = rdtsc(), ms = tsc_hz() / 1000;

	if (now - park->since > PARK_TIMEOUT_MS * ms)
		return false;
	if (now - park->last_kick > PARK_REKICK_MS * ms) {
		park->last_kick = now;
		kick_send(percpu[park->g->vcpu[i].cpu].apic_id);
	}
	__builtin_ia32_pause();
	return true;
}

/*
 * vCPU 0 ends a life: no start signal is taken from here, and every other
 * vCPU leaves the guest and is parked before the guest is reloaded, its
 * devices are reset or its stop is reported (vcpu_life_end()). A kick
 * reaches each whatever its guest does (arch/kick.h).
 */
static bool guest_park_others(struct guest *g)
{
	struct guest_park park = { .g = g, .since = rdtsc() };
	struct vcpu_life_ops ops = {
		.ask = guest_park_ask, .wait = guest_park_wait, .ctx = &park,
	};
	unsigned int stuck;

	park.last_kick = park.since;
	if (vcpu_life_end(&g->life, &ops, &stuck))
		return true;
	printk("guest %s: vcpu %u does not leave the guest: the guest is given up\n",
	       g->name, stuck);
	return false;
}

/*
 * A vCPU but the first: each life it waits for its SIPI, runs, and on a
 * crash ends the life of the whole guest through vCPU 0 (a guest missing
 * a CPU would hang on it). Returns only if its core cannot be made clean.
 */
static void guest_run_secondary(struct vcpu *v)
{
	struct guest *g = v->guest;
	uint8_t vector;

	for (;;) {
		if (!guest_scrub_core(v) || !vcpu_reset(v)) {
			vcpu_life_park(&g->life, v->index);
			return;
		}
		vcpu_life_park(&g->life, v->index);
		vector = guest_wait_startup(v);
		memset(v->exits, 0, sizeof(v->exits));
		v->exits_total = 0;
		v->exceptions_injected = 0;
		v->doorbells = 0;
		if (!vcpu_setup_startup(v, vector)) {
			vcpu_stop(v, VCPU_STOP_CRASH, "cannot start");
		} else {
			printk("guest %s: vcpu %u started at %#x on cpu %u\n", g->name, v->index,
			       (unsigned int)vector << 12, v->cpu);
			(void)vcpu_run(v);
		}
		/* Before it parks, so vCPU 0, waiting for that, finds the request. */
		if (v->stop == VCPU_STOP_CRASH) {
			printk("guest %s: vcpu %u crashed (%s)\n", g->name, v->index, v->stop_reason);
			(void)__atomic_exchange_n(&g->vcpu[0].request, GUEST_REQUEST_CRASH,
						  __ATOMIC_SEQ_CST);
			kick_send(percpu[g->vcpu[0].cpu].apic_id);
		}
	}
}

/* The vCPU's core: VMX on, then run until the policy says stop. */
void guest_run_vcpu(struct vcpu *v)
{
	struct percpu *cpu = this_cpu();
	struct guest *g = v->guest;
	enum config_action action;

	if (!vmx_enable(cpu->vmx, cpu->vmxon_region)) {
		printk("guest %s: cannot enable VMX on cpu %u\n", g->name, cpu->cpu);
		g->state = GUEST_CRASHED;
		if (v->index)
			vcpu_life_park(&g->life, v->index);	/* it never runs */
		return;
	}
	if (v->index) {
		guest_run_secondary(v);
		return;
	}
	for (;;) {
		enum vcpu_stop stop;

		if (!guest_scrub_core(v) || !vcpu_reset(v)) {
			g->state = GUEST_CRASHED;
			return;
		}
		vcpu_life_begin(&g->life);
		g->state = GUEST_RUNNING;
		printk("guest %s: running on cpu %u (node %u, %lu MiB)\n", g->name, cpu->cpu,
		       g->node, g->ram_size >> 20);
		stop = vcpu_run(v);
		if (!guest_park_others(g)) {
			g->state = GUEST_CRASHED;
			return;
		}
		uart_flush(&g->uart);

		g->state = stop == VCPU_STOP_CRASH ? GUEST_CRASHED : GUEST_STOPPED;
		action = guest_next_action(v, stop);
		printk("guest %s: %s (%s)\n", g->name, guest_state_name(g->state), v->stop_reason);
		guest_print_counters(g);
		guest_device_reset_all(g);
		if (action != CONFIG_ACTION_RESTART) {
			if (!guest_scrub_core(v))
				return;
			printk("guest %s: waiting for a restart\n", g->name);
			guest_wait_restart(v);
		}
		g->restarts++;
		g->state = GUEST_STARTING;
		printk("guest %s: restarting (restart %u)\n", g->name, g->restarts);
		memset(v->exits, 0, sizeof(v->exits));
		v->exits_total = 0;
		v->exceptions_injected = 0;
		v->doorbells = 0;
		if (!guest_load(g)) {
			g->state = GUEST_CRASHED;
			return;
		}
	}
}
