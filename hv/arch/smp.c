/* SPDX-License-Identifier: MIT */
/*
 * smp.c - INIT-SIPI-SIPI (SDM Vol. 3A §9.4.4.1, "typical AP initialization
 * sequence") through the real-mode trampoline in boot/trampoline.S.
 */
#include <string.h>

#include "arch/console.h"
#include "arch/lapic.h"
#include "arch/paging.h"
#include "arch/percpu.h"
#include "arch/smp.h"
#include "arch/tsc.h"
#include "arch/x86.h"
#include "mm/page_alloc.h"

#define AP_REPORT_TIMEOUT_US	200000

/* Mirrors the parameter block at the start of boot/trampoline.S. */
struct trampoline_params {
	uint64_t boot_cr3;
	uint64_t cr3;
	uint64_t stack;
	uint64_t entry;
	uint64_t cpu;
	uint16_t gdt_limit;
	uint32_t gdt_base;
	uint16_t pad;
	uint32_t pm32_offset;
	uint16_t pm32_selector;
	uint32_t lm64_offset;
	uint16_t lm64_selector;
} __attribute__((packed));

/* Filled by trampoline.S: offsets of params, pm32, lm64, gdt, and gdt size. */
extern const uint64_t trampoline_offsets[5];
extern const char __trampoline_start[], __trampoline_end[];
extern const char boot_pml4[];

uint64_t smp_trampoline_size(void)
{
	return __trampoline_end - __trampoline_start;
}

static void smp_prepare_trampoline(uint64_t page)
{
	struct trampoline_params *p = (void *)(page + trampoline_offsets[0]);

	memcpy((void *)page, __trampoline_start, smp_trampoline_size());
	p->boot_cr3 = (uintptr_t)boot_pml4;
	p->cr3 = paging_cr3();
	p->gdt_limit = trampoline_offsets[4] - 1;
	p->gdt_base = page + trampoline_offsets[3];
	p->pm32_offset = page + trampoline_offsets[1];
	p->lm64_offset = page + trampoline_offsets[2];
}

static bool smp_wait_online(unsigned int cpu, uint64_t us)
{
	uint64_t end = rdtsc() + us * (tsc_hz() / 1000000);

	while (rdtsc() < end)
		if (__atomic_load_n(&percpu[cpu].online, __ATOMIC_ACQUIRE))
			return true;
	return false;
}

static bool smp_start_one(unsigned int cpu, uint32_t apic_id, uint64_t page,
			  void (*ap_main)(unsigned int cpu))
{
	struct trampoline_params *p = (void *)(page + trampoline_offsets[0]);
	unsigned int node = percpu[cpu].node;
	uint64_t stack = page_alloc_node(node, CPU_STACK_SIZE, PAGE_SIZE);

	if (!stack) {
		printk("smp: no memory on node %u for cpu %u's stack\n", node, cpu);
		return false;
	}
	percpu[cpu].stack_top = stack + CPU_STACK_SIZE;
	p->stack = percpu[cpu].stack_top;
	p->entry = (uintptr_t)ap_main;
	p->cpu = cpu;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	lapic_send_init(apic_id);
	tsc_delay_us(10000);
	lapic_send_sipi(apic_id, page >> 12);
	if (smp_wait_online(cpu, 200))
		return true;
	lapic_send_sipi(apic_id, page >> 12);
	return smp_wait_online(cpu, AP_REPORT_TIMEOUT_US);
}

unsigned int smp_start_aps(const struct topology *topo, unsigned int bsp_cpu,
			   uint64_t trampoline_page, void (*ap_main)(unsigned int cpu))
{
	unsigned int started = 0;

	smp_prepare_trampoline(trampoline_page);
	for (unsigned int cpu = 0; cpu < topo->cpu_count; cpu++) {
		if (cpu == bsp_cpu)
			continue;
		if (smp_start_one(cpu, topo->cpu[cpu].apic_id, trampoline_page, ap_main))
			started++;
		else
			printk("smp: cpu %u (apic %u) did not report in\n",
			       cpu, topo->cpu[cpu].apic_id);
	}
	return started;
}
