/* SPDX-License-Identifier: MIT */
/*
 * main.c - the boot sequence (docs/boot.md): console, boot information,
 * ACPI topology, memory, paging, local APIC, TSC, application processors,
 * VMX on every core, roles, and the machine-readable boot summary.
 */
#include <string.h>

#include "arch/console.h"
#include "arch/idt.h"
#include "arch/lapic.h"
#include "arch/paging.h"
#include "arch/percpu.h"
#include "arch/pic.h"
#include "arch/safe_insn.h"
#include "arch/smp.h"
#include "arch/tsc.h"
#include "arch/x86.h"
#include "config/config.h"
#include "drivers/serial.h"
#include "guest/guest.h"
#include "guest/vcpu.h"
#include "init/bootinfo.h"
#include "init/guests.h"
#include "init/operator.h"
#include "lib/printf.h"
#include "mm/page_alloc.h"
#include "platform/acpi.h"
#include "platform/console_port.h"
#include "platform/topology.h"
#include "sidecore/sidecore.h"
#include "sidecore/uplink.h"
#include "virtio/virtq.h"
#include "vmx/vmx.h"

#define MIB ((uint64_t)1 << 20)
#define LOW_MEMORY_END MIB
#define GIB4 ((uint64_t)4 << 30)

extern const char __image_start[], __image_end[];

static struct boot_info boot;
static struct acpi_tables acpi;
static struct topology topo;
static struct memmap free_ram;
static struct memmap node_ram;
static struct config config;
/* Where the console is now: COM1 until ACPI and the config say otherwise. */
static struct console_port console = {
	.port = CONSOLE_PORT_COM1,
	.irq = CONSOLE_PORT_COM1_IRQ,
	.baud = CONSOLE_PORT_BAUD,
	.source = CONSOLE_PORT_DEFAULT,
};
static bool booted;	/* roles are final: sidecores may start */
/* Each core's VMX capabilities, lent to percpu[] (vmx/ sits above arch/). */
static struct vmx_caps vmx_caps[MAX_CPUS];
static bool extable_fixed[MAX_CPUS];	/* the probe's fault came back as an error */

/* The boot map covers 4 GiB until paging_init; after it, all RAM. */
static const void *acpi_map_identity(uint64_t phys, uint64_t len, void *ctx)
{
	uint64_t limit = paging_limit() ? paging_limit() : GIB4;

	(void)ctx;
	if (phys >= limit || len > limit - phys)
		return NULL;
	return (const void *)(uintptr_t)phys;
}

/* The AP trampoline needs a page below 1 MiB that nothing else owns. */
static uint64_t main_find_trampoline_page(void)
{
	for (uint64_t page = LOW_MEMORY_END - PAGE_SIZE; page >= PAGE_SIZE; page -= PAGE_SIZE)
		if (memmap_contains(&free_ram, page, PAGE_SIZE))
			return page;
	panic("no free page below 1 MiB for the AP trampoline");
}

static void main_collect_free_ram(const void *mbi)
{
	free_ram = boot.ram;
	memmap_remove(&free_ram, (uintptr_t)__image_start,
		      (uintptr_t)__image_end - (uintptr_t)__image_start);
	memmap_remove(&free_ram, (uintptr_t)mbi, *(const uint32_t *)mbi);
	for (unsigned int i = 0; i < boot.module_count; i++)
		memmap_remove(&free_ram, boot.module[i].start,
			      boot.module[i].end - boot.module[i].start);
}

/* Each node's pool gets the free RAM inside its SRAT ranges; the rest goes to node 0. */
static void main_fill_page_pools(void)
{
	static struct memmap part;

	page_alloc_init(topo.node_count);
	/* Nothing the pools hand out may lie in page 0, which goes after boot. */
	memmap_remove(&free_ram, 0, PAGE_ZERO_END);
	if (!topo.mem_count) {
		for (unsigned int i = 0; i < free_ram.count; i++)
			page_pool_add(page_alloc_pool(0), free_ram.range[i].base,
				      free_ram.range[i].length);
		return;
	}

	node_ram = free_ram;
	for (unsigned int m = 0; m < topo.mem_count; m++) {
		part = free_ram;
		memmap_clip(&part, topo.mem[m].base, topo.mem[m].length);
		for (unsigned int i = 0; i < part.count; i++)
			page_pool_add(page_alloc_pool(topo.mem[m].node),
				      part.range[i].base, part.range[i].length);
		memmap_remove(&node_ram, topo.mem[m].base, topo.mem[m].length);
	}
	for (unsigned int i = 0; i < node_ram.count; i++) {
		printk("memory: %#lx+%#lx is in no SRAT range, given to node 0\n",
		       node_ram.range[i].base, node_ram.range[i].length);
		page_pool_add(page_alloc_pool(0), node_ram.range[i].base,
			      node_ram.range[i].length);
	}
}

static uint64_t main_address_space_limit(void)
{
	uint64_t limit = GIB4;

	for (unsigned int i = 0; i < boot.ram.count; i++) {
		uint64_t end = boot.ram.range[i].base + boot.ram.range[i].length;

		if (end > limit)
			limit = end;
	}
	return limit;
}

/*
 * A fault on a guest's value must end at its fixup on this core, not in
 * panic(): prove it with one. The VMX capability MSRs are read-only, and
 * WRMSR to one raises #GP (SDM Vol. 3D appendix A.1), in Bochs too, which
 * lets RDMSR of an absent MSR pass by default. The RDMSR before it shows
 * that an instruction that does not fault reports success.
 */
static bool main_probe_extable(uint64_t vmx_basic)
{
	uint64_t value;

	return safe_rdmsr(MSR_IA32_VMX_BASIC, &value) && value == vmx_basic &&
	       !safe_wrmsr(MSR_IA32_VMX_BASIC, value);
}

static void main_probe_vmx(unsigned int cpu)
{
	if (!percpu[cpu].vmxon_region)
		percpu[cpu].vmx->reason = "no memory for the VMXON region";
	else
		vmx_probe(percpu[cpu].vmx, percpu[cpu].vmxon_region);
	if (percpu[cpu].vmx->ok)
		extable_fixed[cpu] = main_probe_extable(percpu[cpu].vmx->basic);
	__atomic_store_n(&percpu[cpu].vmx_probed, true, __ATOMIC_RELEASE);
}

static void ap_main(unsigned int cpu)
{
	bool flushed = false;

	percpu_setup(cpu);
	idt_load();
	lapic_init();
	printk("cpu %u: apic %u online\n", cpu, lapic_id());
	__atomic_store_n(&percpu[cpu].online, true, __ATOMIC_RELEASE);

	main_probe_vmx(cpu);

	/* Idle until the boot CPU hands this core a vCPU (it sends VECTOR_WAKEUP). */
	for (;;) {
		struct vcpu *v = NULL;

		/* Page 0 left the map before booted: drop what the trampoline cached of it. */
		if (!flushed && __atomic_load_n(&booted, __ATOMIC_ACQUIRE)) {
			write_cr3(read_cr3());
			flushed = true;
		}
		if (flushed)
			v = __atomic_load_n(&this_cpu()->vcpu, __ATOMIC_ACQUIRE);
		if (v) {
			guest_run_vcpu(v);
			this_cpu()->vcpu = NULL;
			this_cpu()->role = CPU_ROLE_IDLE;
		}
		if (flushed && this_cpu()->role == CPU_ROLE_SIDECORE)
			sidecore_run(sidecore_of_cpu(cpu));
		cpu_idle();
	}
}

/*
 * The boot CPU's word on which CPUs are SMT threads of one core, in place of
 * the guess topology_build() makes from the MADT: the placement keeps a
 * sidecore's sibling idle, and must not mistake single-thread cores with
 * consecutive APIC IDs for one core's threads. Every package of a machine
 * is the same model, so one CPU speaks for all.
 */
static void main_set_smt_bits(void)
{
	struct topo_cpuid id = { .max_leaf = cpuid(0, 0).eax };
	struct cpuid_regs r = cpuid(1, 0);

	id.leaf1_ebx = r.ebx;
	id.leaf1_edx = r.edx;
	if (id.max_leaf >= 4)
		id.leaf4_eax = cpuid(4, 0).eax;
	if (id.max_leaf >= 0xb) {
		r = cpuid(0xb, 0);
		id.leafb_eax = r.eax;
		id.leafb_ebx = r.ebx;
		id.leafb_ecx = r.ecx;
	}
	topo.smt_bits = topology_smt_bits_of_cpuid(&id);
}

static void main_print_nodes(void)
{
	for (unsigned int n = 0; n < topo.node_count; n++) {
		char cpus[512];
		int len = 0;

		cpus[0] = '\0';
		for (unsigned int c = 0; c < topo.cpu_count; c++)
			if (topo.cpu[c].node == n && percpu[c].online)
				len += snprintf(cpus + len, sizeof(cpus) - len, "%s%u",
						len ? "," : "", c);
		printk("node %u: cpus %s mem %lu MiB\n", n, cpus,
		       page_alloc_pool(n)->total_bytes / MIB);
	}
}

static void main_print_vmx(void)
{
	bool any = false;

	for (unsigned int c = 0; c < topo.cpu_count; c++) {
		const struct vmx_caps *v = percpu[c].vmx;

		if (!percpu[c].online)
			continue;
		while (!__atomic_load_n(&percpu[c].vmx_probed, __ATOMIC_ACQUIRE))
			cpu_relax();
		if (!v->ok)
			continue;
		any = true;
		printk("vmx: cpu %u ok ept=%d vpid=%d ug=%d x2apic_virt=%d vid=%d ept_1g=%d "
		       "ept_ad=%d\n", c, v->ept, v->vpid, v->unrestricted_guest,
		       v->x2apic_virtualization, v->virtual_interrupt_delivery,
		       v->ept_1g_pages, v->ept_ad_bits);
	}
	if (!any)
		printk("vmx: unavailable (%s)\n", percpu[0].vmx->reason);
	for (unsigned int c = 0; c < topo.cpu_count && any; c++)
		if (percpu[c].online && !percpu[c].vmx->ok)
			printk("vmx: cpu %u unavailable (%s)\n", c, percpu[c].vmx->reason);
}

/* One line for the exception-table probe of every VMX core; none without VMX. */
static void main_print_extable(void)
{
	unsigned int probed = 0;

	for (unsigned int c = 0; c < topo.cpu_count; c++) {
		if (!percpu[c].online || !percpu[c].vmx->ok)
			continue;
		if (!extable_fixed[c]) {
			printk("extable: fault fixup failed on cpu %u\n", c);
			return;
		}
		probed++;
	}
	if (probed)
		printk("extable: fault fixup ok\n");
}

/* A guest's kernel or initrd: read again at every restart, so it must stay mapped. */
static bool main_module_reloaded(const struct boot_module *m)
{
	for (unsigned int i = 0; i < config.guest_count; i++) {
		const struct config_guest *cg = &config.guest[i];

		if (cg->valid && (!strcmp(cg->kernel, m->name) || !strcmp(cg->initrd, m->name)))
			return true;
	}
	return false;
}

/*
 * Page 0 goes from the map once nothing reads it: every AP is past its
 * trampoline, and no module a restart reloads lies there (GRUB may put
 * the small ones, the config, below 2 MiB; those are read only at boot).
 * The APs flush their TLBs when they see booted (ap_main()).
 */
static void main_unmap_page_zero(void)
{
	for (unsigned int i = 0; i < boot.module_count; i++) {
		if (boot.module[i].start < PAGE_ZERO_END && main_module_reloaded(&boot.module[i])) {
			printk("paging: page 0 stays mapped: module '%s' lies below 2 MiB\n",
			       boot.module[i].name);
			return;
		}
	}
	for (unsigned int c = 0; c < topo.cpu_count; c++) {
		if (!percpu[c].online) {
			printk("paging: page 0 stays mapped: cpu %u may still run the AP trampoline\n",
			       c);
			return;
		}
	}
	if (paging_unmap_page_zero())
		printk("paging: page 0 unmapped, a read of address 0 faults\n");
	else
		printk("paging: page 0 unmapped, but a read of address 0 did not fault\n");
}

/*
 * Moves the console to another UART or speed. The old port's last line says
 * where it went and the new port's first says where the earlier lines are,
 * so an operator on either finds the other (docs/operator.md, "Where the
 * console is"). A speed of 0 keeps the current one.
 */
static void main_console_move(const struct console_port *to)
{
	uint16_t from = console.port;
	uint32_t baud = to->baud ? to->baud : console.baud;

	if (to->port == console.port && baud == console.baud) {
		console.source = to->source;
		if (to->irq != CONSOLE_PORT_NO_IRQ)
			console.irq = to->irq;
		return;
	}
	printk("console: moving to %s %#x at %u baud (%s)\n", console_port_name(to->port),
	       to->port, baud, console_port_source_name(to->source));
	console = *to;
	console.baud = baud;
	serial_init(console.port, console.baud);
	printk("console: on %s %#x at %u baud (%s); earlier lines went to %#x\n",
	       console_port_name(console.port), console.port, console.baud,
	       console_port_source_name(console.source), from);
}

/* The config's `console` and `console_baud` over what SPCR or the default chose. */
static void main_console_from_config(void)
{
	struct console_port want = console;

	if (config.console_port && config.console_port != console.port) {
		want.port = config.console_port;
		want.irq = console_port_isa_irq(want.port);
	}
	if (config.console_port)
		want.source = CONSOLE_PORT_CONFIG;
	if (config.console_baud_line)
		want.baud = config.console_baud;
	main_console_move(&want);
}

static void main_load_config(void)
{
	const struct boot_module *m = bootinfo_find_module(&boot, "config");

	config_init(&config);
	if (!m) {
		printk("config: no 'config' module, using defaults\n");
		return;
	}
	if (config_parse(&config, (const char *)(uintptr_t)m->start, m->end - m->start) > 0)
		printk("config: errors above; the rest of the file still applies\n");
	main_console_from_config();
}

void hv_main(uint32_t magic, const void *mbi);

void hv_main(uint32_t magic, const void *mbi)
{
	struct console_port spcr;
	unsigned int bsp_cpu, started;
	int cpu;

	serial_init(console.port, console.baud);
	percpu_setup(0);
	idt_init();
	idt_load();
	pic_disable();
	printk("\nsidecore: booting\n");

	if (magic != MULTIBOOT2_BOOTLOADER_MAGIC)
		panic("not started by a multiboot2 loader (magic %#x)", magic);
	if (bootinfo_parse(&boot, mbi, *(const uint32_t *)mbi) < 0)
		panic("unusable multiboot2 information");
	if (!boot.rsdp_size)
		panic("the boot loader passed no ACPI RSDP");

	acpi_tables_init(&acpi);
	if (acpi_tables_from_rsdp(&acpi, boot.rsdp, boot.rsdp_size,
				  acpi_map_identity, NULL) < 0)
		panic("no valid ACPI root table");
	if (console_port_from_spcr(&acpi, &spcr))
		main_console_move(&spcr);
	if (topology_build(&topo, &acpi) < 0)
		panic("no usable MADT: cannot find the CPUs");
	main_set_smt_bits();

	main_collect_free_ram(mbi);
	uint64_t trampoline = main_find_trampoline_page();

	main_fill_page_pools();
	paging_init(main_address_space_limit());

	lapic_init();
	cpu = topology_cpu_of_apic_id(&topo, lapic_id());
	if (cpu < 0)
		panic("boot CPU (apic %u) is not in the MADT", lapic_id());
	bsp_cpu = cpu;
	percpu_setup(bsp_cpu);
	/*
	 * Each core's VMXON region comes from its node now, on the boot CPU:
	 * the page pools take no lock, and the APs probe VMX concurrently.
	 */
	for (unsigned int c = 0; c < topo.cpu_count; c++) {
		percpu[c].cpu = c;
		percpu[c].apic_id = topo.cpu[c].apic_id;
		percpu[c].node = topo.cpu[c].node;
		percpu[c].vmx = &vmx_caps[c];
		percpu[c].vmxon_region = page_alloc_node(percpu[c].node, PAGE_SIZE, PAGE_SIZE);
	}
	percpu[bsp_cpu].online = true;
	printk("cpu %u: apic %u online (boot cpu, %s)\n", bsp_cpu, lapic_id(),
	       lapic_is_x2apic() ? "x2apic" : "xapic");

	tsc_init();
	printk("tsc: %lu kHz from %s\n", tsc_hz() / 1000, tsc_source_name());

	main_load_config();
	uplink_probe(&config);	/* changes the page tables: before the APs load them */

	started = smp_start_aps(&topo, bsp_cpu, trampoline, ap_main);
	printk("smp: %u of %u cpus online\n", started + 1, topo.cpu_count);
	main_probe_vmx(bsp_cpu);

	guests_assign_roles(&topo, &config);
	virtq_use_prefetchw(cpuid(0x80000000, 0).eax >= 0x80000001 &&
			    cpuid(0x80000001, 0).ecx & CPUID_80000001_ECX_PRFCHW);
	sidecore_setup();
	main_print_nodes();
	main_print_vmx();
	main_print_extable();
	main_unmap_page_zero();
	guests_create(&config, &boot);
	uplink_start();
	guests_print_summary(&topo);
	uplink_print_summary();
	printk("console: %s %#x at %u baud (%s)\n", console_port_name(console.port), console.port,
	       console.baud, console_port_source_name(console.source));
	printk("boot: %s\n", boot.firmware == BOOT_FIRMWARE_UEFI ? "uefi" : "bios");
	printk("boot: done\n");
	console_set_drainer(bsp_cpu);
	operator_start(&topo, bsp_cpu, console.port, console.irq);
	__atomic_store_n(&booted, true, __ATOMIC_RELEASE);
	guests_start();

	if (percpu[bsp_cpu].role == CPU_ROLE_SIDECORE)
		sidecore_run(sidecore_of_cpu(bsp_cpu));
	for (;;) {
		if (console_drain())
			cpu_relax();
		else
			cpu_idle();
	}
}
