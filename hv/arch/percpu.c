/* SPDX-License-Identifier: MIT */
/* percpu.c - per-CPU blocks and the GS base that points at them. */
#include "arch/gdt.h"
#include "arch/percpu.h"
#include "arch/x86.h"

struct percpu percpu[MAX_CPUS];

void percpu_setup(unsigned int cpu)
{
	struct percpu *p = &percpu[cpu];

	p->self = p;
	p->cpu = cpu;
	wrmsr(MSR_GS_BASE, (uintptr_t)p);
	gdt_load(&p->tables);
}
