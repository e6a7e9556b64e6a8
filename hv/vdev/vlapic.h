/* SPDX-License-Identifier: MIT */
/*
 * vlapic.h - a guest's local APIC in xAPIC mode (the stock kernel falls back
 * to xAPIC without interrupt remapping, docs/vmx.md). Pure state machine:
 * the vCPU feeds it register accesses and the current TSC, and asks which
 * vector to inject and when the timer fires.
 */
#ifndef SIDECORE_VDEV_VLAPIC_H
#define SIDECORE_VDEV_VLAPIC_H

#include <stdbool.h>
#include <stdint.h>

/* Register offsets in the 4 KiB APIC page (SDM Vol. 3A table 11-1). */
#define APIC_ID		0x020
#define APIC_VERSION	0x030
#define APIC_TPR	0x080
#define APIC_APR	0x090
#define APIC_PPR	0x0a0
#define APIC_EOI	0x0b0
#define APIC_LDR	0x0d0
#define APIC_DFR	0x0e0
#define APIC_SVR	0x0f0
#define APIC_ISR	0x100
#define APIC_TMR	0x180
#define APIC_IRR	0x200
#define APIC_ESR	0x280
#define APIC_LVT_CMCI	0x2f0
#define APIC_ICR_LOW	0x300
#define APIC_ICR_HIGH	0x310
#define APIC_LVT_TIMER	0x320
#define APIC_LVT_THERMAL 0x330
#define APIC_LVT_PERF	0x340
#define APIC_LVT_LINT0	0x350
#define APIC_LVT_LINT1	0x360
#define APIC_LVT_ERROR	0x370
#define APIC_TIMER_ICR	0x380
#define APIC_TIMER_CCR	0x390
#define APIC_TIMER_DCR	0x3e0

#define LVT_MASKED		(1u << 16)
#define LVT_TIMER_MODE_MASK	(3u << 17)
#define LVT_TIMER_ONESHOT	(0u << 17)
#define LVT_TIMER_PERIODIC	(1u << 17)
#define LVT_TIMER_TSC_DEADLINE	(2u << 17)
#define SVR_APIC_ENABLED	(1u << 8)

/* An IPI the guest asked for that the vlapic cannot deliver itself. */
struct vlapic_ipi {
	bool valid;
	uint32_t icr_low;
	uint32_t destination;
};

#define VLAPIC_PAGE_SIZE	4096

/*
 * The architectural registers live in a 4 KiB page laid out like the APIC's
 * own (each at its offset): the virtual-APIC page of the vCPU's VMCS, which
 * the processor reads and updates itself when VMX virtualizes APIC accesses.
 */
struct vlapic {
	uint32_t *page;
	uint32_t apic_id;
	uint32_t esr_pending;		/* errors logged since the last ESR write */
	uint64_t timer_deadline;	/* TSC value the timer fires at; 0 = not armed */
	uint64_t timer_period;		/* periodic mode, in TSC ticks */
	uint64_t tsc_per_timer_tick_num, tsc_per_timer_tick_den; /* TSC / APIC timer clock */
	uint64_t raised;		/* vectors requested (a repeat while pending merges) */
};

/* timer_hz is the APIC timer input clock the guest was told (CPUID 0x15 crystal). */
void vlapic_init(struct vlapic *lapic, uint32_t apic_id, uint32_t *page,
		 uint64_t tsc_hz, uint64_t timer_hz);
uint32_t vlapic_read(struct vlapic *lapic, uint32_t offset, uint64_t now);
/* Returns an IPI for another CPU when the write sent one. */
struct vlapic_ipi vlapic_write(struct vlapic *lapic, uint32_t offset, uint32_t value,
			       uint64_t now);
void vlapic_set_irq(struct vlapic *lapic, uint8_t vector);
/* Highest requested vector the processor priority lets through, or -1. */
int vlapic_pending(const struct vlapic *lapic);
/* Highest requested vector regardless of TPR, or -1. */
int vlapic_highest_irr(const struct vlapic *lapic);
/* Highest vector in service, or -1. */
int vlapic_highest_isr(const struct vlapic *lapic);
/* The vector is being injected: IRR -> ISR. */
void vlapic_accept(struct vlapic *lapic, uint8_t vector);
/* Fires the timer if its deadline has passed. */
void vlapic_timer_poll(struct vlapic *lapic, uint64_t now);
void vlapic_write_tsc_deadline(struct vlapic *lapic, uint64_t deadline);
uint64_t vlapic_read_tsc_deadline(const struct vlapic *lapic);

#endif
