/* SPDX-License-Identifier: MIT */
/*
 * percpu.h - per-CPU data, reached through GS so each core finds its own
 * block with one load. CPU numbers are topology CPU numbers (MADT order).
 */
#ifndef SIDECORE_ARCH_PERCPU_H
#define SIDECORE_ARCH_PERCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/gdt.h"
#include "platform/topology.h"

#define MAX_CPUS TOPO_MAX_CPUS
#define CPU_STACK_SIZE (16 * 1024)

enum cpu_role {
	CPU_ROLE_IDLE,
	CPU_ROLE_SIDECORE,
	CPU_ROLE_VCPU,
};

struct console_capture;
struct vcpu;
struct vmx_caps;

struct percpu {
	struct percpu *self;	/* at offset 0: this_cpu() reads %gs:0 */
	unsigned int cpu;
	uint32_t apic_id;
	unsigned int node;
	enum cpu_role role;
	volatile bool online;
	volatile bool vmx_probed;
	struct vmx_caps *vmx;	/* what VMX offers here; hv/init/main.c owns it */
	uint64_t stack_top;
	struct cpu_tables tables;
	uint64_t vmxon_region;	/* this core's, from its node; 0 if none was free */
	struct vcpu *vcpu;	/* the vCPU this core runs, if its role is VCPU */
	/* Called with the interrupted RIP on each host timer interrupt, if set. */
	void (*timer_tick)(uint64_t rip);
	volatile uint8_t kicked;	/* a kick came since the flag was cleared (arch/kick.c) */
	struct console_capture *capture;	/* printk()'s text goes here while set */
	uint64_t late_vectors;	/* guest interrupts on vectors 16-31 dropped by the IDT */
};

extern struct percpu percpu[MAX_CPUS];

/**
 * percpu_setup() - point this CPU's GS at its per-CPU block
 * @cpu: topology CPU number of the calling CPU
 *
 * Also loads the block's GDT and TSS (gdt_load()). The BSP calls it once
 * as CPU 0 before it knows its number from the MADT, then again with it.
 */
void percpu_setup(unsigned int cpu);

static inline struct percpu *this_cpu(void)
{
	struct percpu *p;

	asm volatile("mov %%gs:0, %0" : "=r"(p));
	return p;
}

#endif
