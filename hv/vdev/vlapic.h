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

/**
 * vlapic_init() - bring a local APIC up as after power-on
 * @lapic: the state to fill in; its old contents are lost
 * @apic_id: the APIC ID the guest sees in the ID register
 * @page: the VLAPIC_PAGE_SIZE-byte register page; zeroed here
 * @tsc_hz: the TSC frequency
 * @timer_hz: the APIC timer input clock the guest was told (CPUID 0x15
 *	crystal); 0 for the TSC's own
 *
 * The registers take their power-up values (SDM Vol. 3A §11.4.7): the APIC
 * software-disabled, every LVT entry masked, the timer not armed.
 */
void vlapic_init(struct vlapic *lapic, uint32_t apic_id, uint32_t *page,
		 uint64_t tsc_hz, uint64_t timer_hz);

/**
 * vlapic_read() - a guest read of an APIC register
 * @lapic: the APIC
 * @offset: the register's offset in the APIC page
 * @now: the guest's TSC, for the timer's current count
 *
 * Return: the register's value; 0 for EOI, an offset not 16-byte aligned
 * or one outside the page.
 */
uint32_t vlapic_read(struct vlapic *lapic, uint32_t offset, uint64_t now);

/**
 * vlapic_write() - a guest write to an APIC register
 * @lapic: the APIC
 * @offset: the register's offset in the APIC page
 * @value: the value written
 * @now: the guest's TSC, when the write starts the timer
 *
 * Writes to read-only and reserved registers are ignored. An ICR write
 * with fixed delivery to this APIC alone, by physical ID or the self
 * shorthand, raises its vector here.
 *
 * Return: the IPI the write sent, with valid set, when it is for the caller
 * to deliver (any other destination or delivery mode); valid clear otherwise.
 */
struct vlapic_ipi vlapic_write(struct vlapic *lapic, uint32_t offset, uint32_t value,
			       uint64_t now);

/**
 * vlapic_set_irq() - request a vector
 * @lapic: the APIC
 * @vector: the vector; 0-15 are illegal
 *
 * Sets the vector's IRR bit; a request while it is already set merges with
 * it. An illegal vector is dropped and logged as a receive error in ESR.
 */
void vlapic_set_irq(struct vlapic *lapic, uint8_t vector);

/**
 * vlapic_pending() - the vector to inject next
 * @lapic: the APIC
 *
 * Return: the highest requested vector whose priority class is above the
 * processor priority's (SDM Vol. 3A §11.8.3.1), or -1 when there is none
 * or the APIC is software-disabled.
 */
int vlapic_pending(const struct vlapic *lapic);

/**
 * vlapic_highest_irr() - the highest requested vector
 * @lapic: the APIC
 *
 * Return: the highest vector set in IRR regardless of TPR, or -1 if none.
 */
int vlapic_highest_irr(const struct vlapic *lapic);

/**
 * vlapic_highest_isr() - the highest vector in service
 * @lapic: the APIC
 *
 * Return: the highest vector set in ISR, or -1 if none.
 */
int vlapic_highest_isr(const struct vlapic *lapic);

/**
 * vlapic_accept() - record that a vector is being injected
 * @lapic: the APIC
 * @vector: the vector, as vlapic_pending() returned it
 *
 * Moves the vector from IRR to ISR, where the guest's EOI clears it.
 */
void vlapic_accept(struct vlapic *lapic, uint8_t vector);

/**
 * vlapic_timer_poll() - fire the timer if its deadline has passed
 * @lapic: the APIC
 * @now: the guest's TSC
 *
 * Requests the timer's LVT vector unless the entry is masked. A periodic
 * timer rearms for its first period ending after @now, so periods missed
 * between polls fire once; any other mode disarms.
 */
void vlapic_timer_poll(struct vlapic *lapic, uint64_t now);

/**
 * vlapic_write_tsc_deadline() - a guest write to IA32_TSC_DEADLINE
 * @lapic: the APIC
 * @deadline: the guest TSC value to fire at; 0 disarms the timer
 *
 * Ignored unless the timer LVT is in TSC-deadline mode (SDM Vol. 3A
 * §11.5.4.1).
 */
void vlapic_write_tsc_deadline(struct vlapic *lapic, uint64_t deadline);

/**
 * vlapic_read_tsc_deadline() - a guest read of IA32_TSC_DEADLINE
 * @lapic: the APIC
 *
 * Return: the armed deadline; 0 once it has fired, when disarmed, or
 * outside TSC-deadline mode.
 */
uint64_t vlapic_read_tsc_deadline(const struct vlapic *lapic);

#endif
