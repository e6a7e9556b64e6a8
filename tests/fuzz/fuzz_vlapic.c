// SPDX-License-Identifier: MIT
/*
 * fuzz_vlapic.c - register traffic, interrupts, acceptance, EOI and timer
 * ticks against the guest's local APIC (hv/vdev/vlapic.c), in the order a
 * hostile guest and the vCPU loop can produce them.
 *
 * Input: bytes 0-4 the TSC frequency (1 Hz to 64 GHz; the timer clock is
 * what CPUID leaf 15H tells the guest, as the vCPU sets it up), bytes 5-12
 * the starting guest TSC, then 8-byte operations; byte 0 bits 2:0 choose:
 *
 *   0  register write: offset byte 1 * 16, plus byte 2 bits 3:0 when byte 0
 *      bit 7 is set (unaligned), bits 12:8 from byte 2 bits 7:4; value 4-7
 *   1  register read at such an offset
 *   2  vlapic_set_irq(byte 1), as a device or posted interrupt does
 *   3  injection: the pending vector, if any, is accepted (IRR -> ISR)
 *   4  EOI
 *   5  time passes (bytes 1-7, at most 2^56 ticks) and the timer is polled
 *   6  IA32_TSC_DEADLINE write: now plus bytes 1-7
 *   7  the current count is read
 *
 * Invariants after every operation: no vector below 16 is ever requested
 * or in service; the pending vector is the highest requested one exactly
 * when its priority class beats PPR and the APIC is software-enabled; PPR
 * follows TPR and the highest in-service class (SDM Vol. 3A §11.8.3.1); an
 * accepted vector leaves IRR for ISR and becomes the highest in service; EOI
 * clears exactly the highest in-service vector; the current count never
 * exceeds the initial count; an unmasked timer that expires requests its
 * vector and a timer still armed after a poll lies in the future; IPIs the
 * model returns carry what the guest wrote; "raised" counts each newly
 * requested vector once.
 *
 * Timer deadlines are absolute TSC values, so the guest TSC stays below
 * TSC_LIMIT here: the model does not follow a TSC that wraps around 2^64.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vdev/vlapic.h"
#include "vmx/cpuid_filter.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define HEADER		13
#define OP_BYTES	8
#define APIC_ID_SELF	1
#define TSC_HZ_MAX	(1ull << 36)
#define TSC_LIMIT	(1ull << 62)

static uint32_t page[VLAPIC_PAGE_SIZE / 4];

static uint64_t le_bytes(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static bool in_vec(uint32_t base, int v)
{
	return page[(base + (v / 32) * 16) / 4] & (1u << (v % 32));
}

static void vec_words(uint32_t base, uint32_t out[8])
{
	for (int i = 0; i < 8; i++)
		out[i] = page[(base + i * 16) / 4];
}

static void check_invariants(struct vlapic *l, uint64_t now)
{
	int irr = vlapic_highest_irr(l), isr = vlapic_highest_isr(l);
	int pending = vlapic_pending(l);
	uint32_t tpr = vlapic_read(l, APIC_TPR, now), ppr = vlapic_read(l, APIC_PPR, now);
	uint32_t isr_class = isr < 0 ? 0 : (uint32_t)isr & 0xf0;
	bool enabled = vlapic_read(l, APIC_SVR, now) & SVR_APIC_ENABLED;

	CHECK((page[APIC_IRR / 4] & 0xffff) == 0 && (page[APIC_ISR / 4] & 0xffff) == 0);
	CHECK(irr == -1 || (irr >= 16 && irr <= 255 && in_vec(APIC_IRR, irr)));
	CHECK(isr == -1 || (isr >= 16 && isr <= 255 && in_vec(APIC_ISR, isr)));
	CHECK(tpr <= 0xff);
	CHECK(ppr == ((tpr & 0xf0) >= isr_class ? tpr : isr_class));
	if (enabled && irr >= 0 && ((uint32_t)irr & 0xf0) > (ppr & 0xf0))
		CHECK(pending == irr);
	else
		CHECK(pending == -1);
	CHECK(vlapic_read(l, APIC_TIMER_CCR, now) <= vlapic_read(l, APIC_TIMER_ICR, now));
}

static void run_write(struct vlapic *l, const uint8_t *op, uint32_t offset, uint64_t now)
{
	uint32_t value = (uint32_t)le_bytes(op + 4, 4);
	uint32_t dest = vlapic_read(l, APIC_ICR_HIGH, now) >> 24;
	uint64_t raised = l->raised;
	struct vlapic_ipi ipi = vlapic_write(l, offset, value, now);

	if (offset == APIC_ICR_LOW) {
		bool fixed = (value & (7u << 8)) == 0, self = (value & (3u << 18)) == (1u << 18);
		bool physical_self = (value & (3u << 18)) == 0 && !(value & (1u << 11)) &&
				     dest == APIC_ID_SELF;

		if (fixed && (self || physical_self)) {
			CHECK(!ipi.valid);
			if ((value & 0xff) >= 16)
				CHECK(in_vec(APIC_IRR, value & 0xff));
		} else {
			CHECK(ipi.valid && ipi.icr_low == value && ipi.destination == dest);
		}
		CHECK(!(vlapic_read(l, APIC_ICR_LOW, now) & (1u << 12)));
	} else {
		CHECK(!ipi.valid);
		CHECK(l->raised == raised);
	}
}

static void run_op(struct vlapic *l, const uint8_t *op, uint64_t *now)
{
	uint32_t offset = op[1] * 16u | (uint32_t)(op[2] >> 4) << 12;
	uint32_t isr_before[8], isr_after[8];
	uint64_t raised = l->raised;
	int v;

	if (op[0] & 0x80)
		offset += op[2] & 15;
	switch (op[0] & 7) {
	case 0:
		run_write(l, op, offset, *now);
		break;
	case 1: {
		uint32_t r = vlapic_read(l, offset, *now);

		if (offset >= VLAPIC_PAGE_SIZE || (offset & 15) || offset == APIC_EOI)
			CHECK(r == 0);
		break;
	}
	case 2: {
		bool had = op[1] >= 16 && in_vec(APIC_IRR, op[1]);

		vlapic_set_irq(l, op[1]);
		if (op[1] >= 16)
			CHECK(in_vec(APIC_IRR, op[1]) && l->raised == raised + !had);
		else
			CHECK(l->raised == raised);
		break;
	}
	case 3:
		v = vlapic_pending(l);
		if (v < 0)
			break;
		vlapic_accept(l, (uint8_t)v);
		CHECK(!in_vec(APIC_IRR, v) && in_vec(APIC_ISR, v));
		CHECK(vlapic_highest_isr(l) == v);
		break;
	case 4:
		v = vlapic_highest_isr(l);
		vec_words(APIC_ISR, isr_before);
		vlapic_write(l, APIC_EOI, 0, *now);
		vec_words(APIC_ISR, isr_after);
		if (v >= 0)
			isr_before[v / 32] &= ~(1u << (v % 32));
		CHECK(memcmp(isr_before, isr_after, sizeof(isr_after)) == 0);
		break;
	case 5: {
		uint64_t step = le_bytes(op + 1, 7);
		uint32_t lvt = vlapic_read(l, APIC_LVT_TIMER, *now);
		bool fires;

		*now = step > TSC_LIMIT - *now ? TSC_LIMIT : *now + step;
		fires = l->timer_deadline && *now >= l->timer_deadline;
		vlapic_timer_poll(l, *now);
		if (fires && !(lvt & LVT_MASKED) && (lvt & 0xff) >= 16)
			CHECK(in_vec(APIC_IRR, lvt & 0xff));
		if (!fires || (lvt & LVT_MASKED))
			CHECK(l->raised == raised);
		/* A timer still armed after a poll lies in the future. */
		CHECK(!l->timer_deadline || l->timer_deadline > *now);
		break;
	}
	case 6:
		vlapic_write_tsc_deadline(l, *now + le_bytes(op + 1, 7));
		break;
	default:
		CHECK(vlapic_read(l, APIC_TIMER_CCR, *now) <=
		      vlapic_read(l, APIC_TIMER_ICR, *now));
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vlapic l;
	uint64_t tsc_hz, now;

	if (size < HEADER)
		return 0;
	tsc_hz = le_bytes(data, 5) % TSC_HZ_MAX + 1;
	now = le_bytes(data + 5, 8) % TSC_LIMIT;
	vlapic_init(&l, APIC_ID_SELF, page, tsc_hz, cpuid_filter_crystal_hz(tsc_hz));
	check_invariants(&l, now);
	for (size_t at = HEADER; at + OP_BYTES <= size; at += OP_BYTES) {
		run_op(&l, data + at, &now);
		check_invariants(&l, now);
	}
	return 0;
}
