/* SPDX-License-Identifier: MIT */
/*
 * vlapic.c - xAPIC register semantics (SDM Vol. 3A chapter 11) for one vCPU:
 * IRR/ISR bookkeeping with priority (§11.8.3.1), EOI, self-IPIs, and the
 * timer in one-shot, periodic and TSC-deadline modes (§11.5.4).
 */
#include <string.h>

#include "lib/log.h"
#include "vdev/vlapic.h"

#define APIC_VERSION_VALUE	0x00050014	/* 6 LVT entries - 1, version 0x14 */
#define ICR_DELIVERY_MASK	(7u << 8)
#define ICR_DELIVERY_FIXED	(0u << 8)
#define ICR_SHORTHAND_MASK	(3u << 18)
#define ICR_SHORTHAND_SELF	(1u << 18)
#define ICR_SHORTHAND_NONE	(0u << 18)
#define ICR_DEST_LOGICAL	(1u << 11)
#define ESR_SEND_ILLEGAL_VECTOR	(1u << 5)
#define ESR_RECV_ILLEGAL_VECTOR	(1u << 6)
#define LVT_VECTOR_MASK		0xffu

/* Every register is one 32-bit word at its offset in the 4 KiB page. */
static uint32_t *reg(const struct vlapic *l, uint32_t offset)
{
	return &l->page[offset / 4];
}

/* IRR, ISR and TMR are eight words, one every 16 bytes (table 11-1). */
static void vec_set(struct vlapic *l, uint32_t base, uint8_t v)
{
	*reg(l, base + (v / 32) * 16) |= 1u << (v % 32);
}

static void vec_clear(struct vlapic *l, uint32_t base, uint8_t v)
{
	*reg(l, base + (v / 32) * 16) &= ~(1u << (v % 32));
}

static int vec_highest(const struct vlapic *l, uint32_t base)
{
	for (int i = 7; i >= 0; i--) {
		uint32_t bits = *reg(l, base + i * 16);

		if (bits)
			return i * 32 + 31 - __builtin_clz(bits);
	}
	return -1;
}

static uint32_t vlapic_ppr(const struct vlapic *l)
{
	int isr = vec_highest(l, APIC_ISR);
	uint32_t isr_class = isr < 0 ? 0 : (uint32_t)isr & 0xf0;
	uint32_t tpr = *reg(l, APIC_TPR) & 0xff;

	return (tpr & 0xf0) >= isr_class ? tpr : isr_class;
}

static uint32_t vlapic_lvt_timer(const struct vlapic *l)
{
	return *reg(l, APIC_LVT_TIMER);
}

void vlapic_init(struct vlapic *l, uint32_t apic_id, uint32_t *page,
		 uint64_t tsc_hz, uint64_t timer_hz)
{
	memset(l, 0, sizeof(*l));
	memset(page, 0, VLAPIC_PAGE_SIZE);
	l->page = page;
	l->apic_id = apic_id;
	/* Power-up values, SDM Vol. 3A §11.4.7. */
	*reg(l, APIC_ID) = apic_id << 24;
	*reg(l, APIC_VERSION) = APIC_VERSION_VALUE;
	*reg(l, APIC_DFR) = 0xffffffff;
	*reg(l, APIC_SVR) = 0xff;
	*reg(l, APIC_LVT_TIMER) = LVT_MASKED;
	*reg(l, APIC_LVT_THERMAL) = LVT_MASKED;
	*reg(l, APIC_LVT_PERF) = LVT_MASKED;
	*reg(l, APIC_LVT_LINT0) = LVT_MASKED;
	*reg(l, APIC_LVT_LINT1) = LVT_MASKED;
	*reg(l, APIC_LVT_ERROR) = LVT_MASKED;
	*reg(l, APIC_LVT_CMCI) = LVT_MASKED;
	l->tsc_per_timer_tick_num = tsc_hz;
	l->tsc_per_timer_tick_den = timer_hz ? timer_hz : tsc_hz;
}

static uint64_t vlapic_timer_divisor(const struct vlapic *l)
{
	/* DCR bits 0,1,3 encode 2^(n+1), with 111b meaning 1 (§11.5.4). */
	uint32_t dcr = *reg(l, APIC_TIMER_DCR);
	uint32_t code = (dcr & 3) | ((dcr >> 1) & 4);

	return code == 7 ? 1 : 2ull << code;
}

/*
 * The products are 128-bit: a full 32-bit count at divide-by-128 times a
 * multi-GHz TSC frequency does not fit in 64 bits.
 */
static uint64_t vlapic_ticks_to_tsc(const struct vlapic *l, uint64_t ticks)
{
	return (uint64_t)((unsigned __int128)ticks * vlapic_timer_divisor(l) *
			  l->tsc_per_timer_tick_num / l->tsc_per_timer_tick_den);
}

static uint32_t vlapic_current_count(const struct vlapic *l, uint64_t now)
{
	unsigned __int128 per_count;
	uint64_t left, count;

	uint32_t initial = *reg(l, APIC_TIMER_ICR);

	if ((vlapic_lvt_timer(l) & LVT_TIMER_MODE_MASK) == LVT_TIMER_TSC_DEADLINE ||
	    !l->timer_deadline)
		return 0;
	if (now < l->timer_deadline)
		left = l->timer_deadline - now;
	else if (l->timer_period)	/* reloaded, perhaps before the next poll */
		left = l->timer_period - (now - l->timer_deadline) % l->timer_period;
	else
		return 0;
	/*
	 * Exact ratio, rounded up: the count reads the initial value when
	 * started and 0 only at expiry, however the two clocks divide.
	 */
	per_count = (unsigned __int128)vlapic_timer_divisor(l) * l->tsc_per_timer_tick_num;
	count = (uint64_t)(((unsigned __int128)left * l->tsc_per_timer_tick_den +
			    per_count - 1) / per_count);
	return count < initial ? (uint32_t)count : initial;
}

static void vlapic_start_counter(struct vlapic *l, uint64_t now)
{
	uint32_t initial = *reg(l, APIC_TIMER_ICR);
	uint64_t span = vlapic_ticks_to_tsc(l, initial);

	if (!span)
		span = 1;	/* a timer clock faster than the TSC still fires */
	l->timer_deadline = initial ? now + span : 0;
	l->timer_period = (vlapic_lvt_timer(l) & LVT_TIMER_MODE_MASK) == LVT_TIMER_PERIODIC ?
			  span : 0;
}

uint32_t vlapic_read(struct vlapic *l, uint32_t offset, uint64_t now)
{
	/* Only the registers that change with time or priority are computed. */
	switch (offset) {
	case APIC_PPR:		return vlapic_ppr(l);
	case APIC_TIMER_CCR:	return vlapic_current_count(l, now);
	case APIC_EOI:		return 0;	/* write-only */
	default:
		return offset < VLAPIC_PAGE_SIZE && !(offset & 0xf) ? *reg(l, offset) : 0;
	}
}

static void vlapic_eoi(struct vlapic *l)
{
	int v = vec_highest(l, APIC_ISR);

	if (v >= 0)
		vec_clear(l, APIC_ISR, (uint8_t)v);
}

static struct vlapic_ipi vlapic_send(struct vlapic *l, uint32_t icr_low)
{
	struct vlapic_ipi ipi = { 0 };
	uint32_t shorthand = icr_low & ICR_SHORTHAND_MASK;
	uint32_t destination = *reg(l, APIC_ICR_HIGH) >> 24;

	*reg(l, APIC_ICR_LOW) = icr_low & ~(1u << 12);	/* delivery status: idle at once */
	if ((icr_low & ICR_DELIVERY_MASK) == ICR_DELIVERY_FIXED &&
	    (icr_low & LVT_VECTOR_MASK) < 16)
		l->esr_pending |= ESR_SEND_ILLEGAL_VECTOR;
	/*
	 * A logical destination is a bit mask matched against every APIC's
	 * LDR, so only the caller, which knows them all, can resolve it;
	 * comparing it with our physical ID would misdeliver (flat mode
	 * addresses CPU 0 as 0x01, the physical ID of CPU 1).
	 */
	if ((icr_low & ICR_DELIVERY_MASK) == ICR_DELIVERY_FIXED &&
	    (shorthand == ICR_SHORTHAND_SELF ||
	     (shorthand == ICR_SHORTHAND_NONE && !(icr_low & ICR_DEST_LOGICAL) &&
	      destination == l->apic_id))) {
		vlapic_set_irq(l, icr_low & LVT_VECTOR_MASK);
		return ipi;
	}
	ipi.valid = true;
	ipi.icr_low = icr_low;
	ipi.destination = destination;
	return ipi;
}

struct vlapic_ipi vlapic_write(struct vlapic *l, uint32_t offset, uint32_t value,
			       uint64_t now)
{
	struct vlapic_ipi none = { 0 };

	switch (offset) {
	case APIC_TPR:		*reg(l, APIC_TPR) = value & 0xff; break;
	case APIC_EOI:		vlapic_eoi(l); break;
	case APIC_LDR:		*reg(l, APIC_LDR) = value & 0xff000000; break;
	case APIC_DFR:		*reg(l, APIC_DFR) = value | 0x0fffffff; break;
	case APIC_SVR:		*reg(l, APIC_SVR) = value & 0x1ff; break;
	case APIC_ESR:
		/* The write publishes the errors logged since the last one (§11.5.3). */
		*reg(l, APIC_ESR) = l->esr_pending;
		l->esr_pending = 0;
		break;
	case APIC_ICR_HIGH:	*reg(l, APIC_ICR_HIGH) = value & 0xff000000; break;
	case APIC_ICR_LOW:	return vlapic_send(l, value);
	case APIC_LVT_TIMER: {
		uint32_t old_mode = vlapic_lvt_timer(l) & LVT_TIMER_MODE_MASK;

		*reg(l, APIC_LVT_TIMER) = value & (LVT_TIMER_MODE_MASK | LVT_MASKED |
						   LVT_VECTOR_MASK);
		/* A mode change disarms the timer (§11.5.4.1). */
		if ((value & LVT_TIMER_MODE_MASK) != old_mode) {
			l->timer_deadline = 0;
			*reg(l, APIC_TIMER_ICR) = 0;
		}
		break;
	}
	case APIC_LVT_THERMAL:
	case APIC_LVT_PERF:
	case APIC_LVT_LINT0:
	case APIC_LVT_LINT1:
	case APIC_LVT_ERROR:
	case APIC_LVT_CMCI:
		*reg(l, offset) = value;
		break;
	case APIC_TIMER_ICR:
		if ((vlapic_lvt_timer(l) & LVT_TIMER_MODE_MASK) == LVT_TIMER_TSC_DEADLINE)
			break;	/* ignored in TSC-deadline mode */
		*reg(l, APIC_TIMER_ICR) = value;
		vlapic_start_counter(l, now);
		break;
	case APIC_TIMER_DCR:	*reg(l, APIC_TIMER_DCR) = value & 0xb; break;
	default:		break;	/* read-only or reserved: writes are ignored */
	}
	return none;
}

void vlapic_set_irq(struct vlapic *l, uint8_t vector)
{
	if (vector < 16) {
		l->esr_pending |= ESR_RECV_ILLEGAL_VECTOR;
		return;
	}
	if (!(*reg(l, APIC_IRR + (vector / 32) * 16) & (1u << (vector % 32))))
		l->raised++;
	vec_set(l, APIC_IRR, vector);
}

int vlapic_highest_irr(const struct vlapic *l)
{
	return vec_highest(l, APIC_IRR);
}

int vlapic_highest_isr(const struct vlapic *l)
{
	return vec_highest(l, APIC_ISR);
}

int vlapic_pending(const struct vlapic *l)
{
	int v = vec_highest(l, APIC_IRR);

	if (v < 0 || !(*reg(l, APIC_SVR) & SVR_APIC_ENABLED))
		return -1;
	return ((uint32_t)v & 0xf0) > (vlapic_ppr(l) & 0xf0) ? v : -1;
}

void vlapic_accept(struct vlapic *l, uint8_t vector)
{
	vec_clear(l, APIC_IRR, vector);
	vec_set(l, APIC_ISR, vector);
}

void vlapic_timer_poll(struct vlapic *l, uint64_t now)
{
	if (!l->timer_deadline || now < l->timer_deadline)
		return;
	if (!(vlapic_lvt_timer(l) & LVT_MASKED))
		vlapic_set_irq(l, vlapic_lvt_timer(l) & LVT_VECTOR_MASK);
	if (l->timer_period)
		l->timer_deadline += l->timer_period *
			((now - l->timer_deadline) / l->timer_period + 1);
	else
		l->timer_deadline = 0;
}

void vlapic_write_tsc_deadline(struct vlapic *l, uint64_t deadline)
{
	if ((vlapic_lvt_timer(l) & LVT_TIMER_MODE_MASK) != LVT_TIMER_TSC_DEADLINE)
		return;	/* §11.5.4.1: ignored outside TSC-deadline mode */
	l->timer_deadline = deadline;
	l->timer_period = 0;
}

uint64_t vlapic_read_tsc_deadline(const struct vlapic *l)
{
	if ((vlapic_lvt_timer(l) & LVT_TIMER_MODE_MASK) != LVT_TIMER_TSC_DEADLINE)
		return 0;
	return l->timer_deadline;
}
