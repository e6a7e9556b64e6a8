/* SPDX-License-Identifier: MIT */
/*
 * test_vlapic.c - unit tests for hv/vdev/vlapic.c against the xAPIC rules of
 * the SDM (Vol. 3A chapter 11): priority, EOI, IPIs, the error register and
 * the timer in its three modes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vdev/vlapic.h"

#define ICR_DEST_SELF		(1u << 18)
#define ICR_DEST_ALL_BUT_SELF	(3u << 18)
#define ICR_DEST_LOGICAL	(1u << 11)
#define ICR_DELIVERY_NMI	(4u << 8)
#define ICR_DELIVERY_INIT	(5u << 8)
#define ICR_DELIVERY_STATUS	(1u << 12)
#define ESR_SEND_ILLEGAL	(1u << 5)
#define ESR_RECV_ILLEGAL	(1u << 6)
#define DCR_DIVIDE_1		0xb
#define DCR_DIVIDE_16		0x3
#define TIMER_VECTOR		0xec

/* A vlapic and the virtual-APIC page that holds its registers. */
struct apic {
	struct vlapic lapic;
	uint32_t page[VLAPIC_PAGE_SIZE / 4];
};

/* An enabled APIC (SVR bit 8), as every guest kernel leaves it. */
static void apic_start(struct apic *a, uint32_t apic_id, uint64_t tsc_hz, uint64_t timer_hz)
{
	memset(a, 0xa5, sizeof(*a));
	vlapic_init(&a->lapic, apic_id, a->page, tsc_hz, timer_hz);
	vlapic_write(&a->lapic, APIC_SVR, SVR_APIC_ENABLED | 0xff, 0);
}

static void apic_write(struct apic *a, uint32_t offset, uint32_t value)
{
	struct vlapic_ipi ipi = vlapic_write(&a->lapic, offset, value, 0);

	assert_false(ipi.valid);
}

/* Whether a vector's bit is set in the 256-bit register at base (ISR, IRR). */
static bool apic_bit(struct apic *a, uint32_t base, uint8_t vector)
{
	uint32_t word = vlapic_read(&a->lapic, base + 16 * (vector / 32), 0);

	return word & (1u << (vector % 32));
}

static bool apic_register_empty(struct apic *a, uint32_t base)
{
	for (unsigned int i = 0; i < 8; i++)
		if (vlapic_read(&a->lapic, base + 16 * i, 0))
			return false;
	return true;
}

/* Delivers what the vCPU would inject next, as the entry path does. */
static int apic_deliver(struct apic *a)
{
	int vector = vlapic_pending(&a->lapic);

	if (vector >= 0)
		vlapic_accept(&a->lapic, (uint8_t)vector);
	return vector;
}

/* --- reset state and plain registers ---------------------------------- */

static void test_reset_state(void **state)
{
	struct apic a;

	(void)state;
	memset(&a, 0xa5, sizeof(a));
	vlapic_init(&a.lapic, 7, a.page, 1000, 1000);
	assert_int_equal(vlapic_read(&a.lapic, APIC_ID, 0), 7u << 24);
	/* Version 0x14 (integrated APIC), max LVT entry 5. */
	assert_int_equal(vlapic_read(&a.lapic, APIC_VERSION, 0) & 0xff, 0x14);
	assert_int_equal(vlapic_read(&a.lapic, APIC_VERSION, 0) >> 16 & 0xff, 5);
	assert_int_equal(a.page[APIC_TPR / 4], 0);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TPR, 0), 0);
	assert_int_equal(vlapic_read(&a.lapic, APIC_PPR, 0), 0);
	/* §11.4.7.1: after reset the SVR is 0xff and the APIC software-disabled. */
	assert_int_equal(vlapic_read(&a.lapic, APIC_SVR, 0), 0xff);
	assert_int_equal(vlapic_read(&a.lapic, APIC_DFR, 0), 0xffffffff);
	assert_int_equal(vlapic_read(&a.lapic, APIC_LDR, 0), 0);
	assert_int_equal(vlapic_read(&a.lapic, APIC_ESR, 0), 0);
	assert_int_equal(vlapic_read(&a.lapic, APIC_LVT_TIMER, 0), LVT_MASKED);
	assert_int_equal(vlapic_read(&a.lapic, APIC_LVT_LINT0, 0), LVT_MASKED);
	assert_int_equal(vlapic_read(&a.lapic, APIC_LVT_LINT1, 0), LVT_MASKED);
	assert_int_equal(vlapic_read(&a.lapic, APIC_LVT_ERROR, 0), LVT_MASKED);
	assert_int_equal(vlapic_read(&a.lapic, APIC_LVT_THERMAL, 0), LVT_MASKED);
	assert_int_equal(vlapic_read(&a.lapic, APIC_LVT_PERF, 0), LVT_MASKED);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_ICR, 0), 0);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 0), 0);
	assert_true(apic_register_empty(&a, APIC_IRR));
	assert_true(apic_register_empty(&a, APIC_ISR));
	assert_true(apic_register_empty(&a, APIC_TMR));
	assert_int_equal(vlapic_pending(&a.lapic), -1);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);
	assert_int_equal(vlapic_read_tsc_deadline(&a.lapic), 0);
}

static void test_register_write_masks(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	apic_write(&a, APIC_TPR, 0xffffff45);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TPR, 0), 0x45);
	assert_int_equal(a.page[APIC_TPR / 4], 0x45);	/* the virtual-APIC page sees it too */
	apic_write(&a, APIC_LDR, 0x12345678);
	assert_int_equal(vlapic_read(&a.lapic, APIC_LDR, 0), 0x12000000);
	/* DFR: only the model bits 31:28 are writable, the rest read as ones. */
	apic_write(&a, APIC_DFR, 0x00000000);
	assert_int_equal(vlapic_read(&a.lapic, APIC_DFR, 0), 0x0fffffff);
	apic_write(&a, APIC_SVR, 0xfffff1ff);
	assert_int_equal(vlapic_read(&a.lapic, APIC_SVR, 0), 0x1ff);
	apic_write(&a, APIC_ICR_HIGH, 0x12ffffff);
	assert_int_equal(vlapic_read(&a.lapic, APIC_ICR_HIGH, 0), 0x12000000);
	/* LVT timer: vector, mask and mode only. */
	apic_write(&a, APIC_LVT_TIMER, 0xffffffff);
	assert_int_equal(vlapic_read(&a.lapic, APIC_LVT_TIMER, 0),
			 LVT_TIMER_MODE_MASK | LVT_MASKED | 0xff);
	apic_write(&a, APIC_TIMER_DCR, 0xffffffff);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_DCR, 0), 0xb);
	/* Read-only registers ignore writes. */
	apic_write(&a, APIC_ID, 0x05000000);
	assert_int_equal(vlapic_read(&a.lapic, APIC_ID, 0), 0);
	apic_write(&a, APIC_VERSION, 0);
	assert_int_equal(vlapic_read(&a.lapic, APIC_VERSION, 0) & 0xff, 0x14);
	apic_write(&a, APIC_PPR, 0xff);
	apic_write(&a, APIC_TPR, 0);
	assert_int_equal(vlapic_read(&a.lapic, APIC_PPR, 0), 0);
	apic_write(&a, APIC_IRR, 0xffffffff);
	apic_write(&a, APIC_ISR + 0x10, 0xffffffff);
	assert_true(apic_register_empty(&a, APIC_IRR));
	assert_true(apic_register_empty(&a, APIC_ISR));
	apic_write(&a, APIC_TIMER_CCR, 1234);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 0), 0);
	/* Reserved offsets read 0. */
	assert_int_equal(vlapic_read(&a.lapic, 0x010, 0), 0);
	assert_int_equal(vlapic_read(&a.lapic, 0x3f0, 0), 0);
}

/* --- priority (§11.8.3.1) ---------------------------------------------- */

static void test_highest_request_goes_first(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	vlapic_set_irq(&a.lapic, 0x31);
	vlapic_set_irq(&a.lapic, 0x45);
	vlapic_set_irq(&a.lapic, 0xfe);
	vlapic_set_irq(&a.lapic, 0x20);
	assert_true(apic_bit(&a, APIC_IRR, 0x31));
	assert_true(apic_bit(&a, APIC_IRR, 0xfe));
	assert_int_equal(vlapic_highest_irr(&a.lapic), 0xfe);
	assert_int_equal(apic_deliver(&a), 0xfe);
	assert_false(apic_bit(&a, APIC_IRR, 0xfe));
	assert_true(apic_bit(&a, APIC_ISR, 0xfe));
	assert_int_equal(vlapic_highest_isr(&a.lapic), 0xfe);
	/* Four vectors raised; raising a pending one again merges. */
	assert_int_equal(a.lapic.raised, 4);
	vlapic_set_irq(&a.lapic, 0x45);
	assert_int_equal(a.lapic.raised, 4);
	/* Every register is where the processor looks for it in the page. */
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_TSC_DEADLINE | 0xec);
	assert_int_equal(a.page[APIC_LVT_TIMER / 4], LVT_TIMER_TSC_DEADLINE | 0xec);
	assert_int_equal(a.page[APIC_ID / 4], 0);
	assert_int_equal(a.page[APIC_ISR / 4 + (0xfe / 32) * 4], 1u << (0xfe % 32));
}

static void test_disabled_apic_delivers_nothing(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	apic_write(&a, APIC_SVR, 0xff);	/* software-disabled */
	vlapic_set_irq(&a.lapic, 0x40);
	assert_int_equal(vlapic_pending(&a.lapic), -1);
	assert_int_equal(vlapic_highest_irr(&a.lapic), 0x40);
	apic_write(&a, APIC_SVR, SVR_APIC_ENABLED | 0xff);
	assert_int_equal(vlapic_pending(&a.lapic), 0x40);
}

/* A vector is held back unless its class is above TPR's class. */
static void test_tpr_holds_back_its_class(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	apic_write(&a, APIC_TPR, 0x40);
	vlapic_set_irq(&a.lapic, 0x3f);
	assert_int_equal(vlapic_pending(&a.lapic), -1);
	vlapic_set_irq(&a.lapic, 0x4f);		/* same class as TPR */
	assert_int_equal(vlapic_pending(&a.lapic), -1);
	assert_int_equal(vlapic_highest_irr(&a.lapic), 0x4f);
	vlapic_set_irq(&a.lapic, 0x50);
	assert_int_equal(vlapic_pending(&a.lapic), 0x50);
	/* TPR's subclass does not matter: 0x4f still holds class 4 back. */
	apic_write(&a, APIC_TPR, 0x4f);
	assert_int_equal(vlapic_pending(&a.lapic), 0x50);
	apic_write(&a, APIC_TPR, 0x50);
	assert_int_equal(vlapic_pending(&a.lapic), -1);
	/* Lowering TPR releases the held-back vectors, highest first. */
	apic_write(&a, APIC_TPR, 0);
	assert_int_equal(apic_deliver(&a), 0x50);
	apic_write(&a, APIC_EOI, 0);
	assert_int_equal(apic_deliver(&a), 0x4f);
}

/* A vector is held back while one of its class (or above) is in service. */
static void test_isr_holds_back_its_class(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	vlapic_set_irq(&a.lapic, 0x45);
	assert_int_equal(apic_deliver(&a), 0x45);
	vlapic_set_irq(&a.lapic, 0x4a);		/* same class, higher vector */
	assert_int_equal(vlapic_pending(&a.lapic), -1);
	vlapic_set_irq(&a.lapic, 0x31);		/* lower class */
	assert_int_equal(vlapic_pending(&a.lapic), -1);
	vlapic_set_irq(&a.lapic, 0x51);		/* higher class nests */
	assert_int_equal(apic_deliver(&a), 0x51);
	assert_int_equal(vlapic_pending(&a.lapic), -1);
	apic_write(&a, APIC_EOI, 0);		/* ends 0x51 */
	assert_int_equal(vlapic_pending(&a.lapic), -1);
	apic_write(&a, APIC_EOI, 0);		/* ends 0x45 */
	assert_int_equal(apic_deliver(&a), 0x4a);
	apic_write(&a, APIC_EOI, 0);
	assert_int_equal(apic_deliver(&a), 0x31);
}

/* PPR = TPR when TPR's class is at least the in-service class, else that class. */
static void test_ppr(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	apic_write(&a, APIC_TPR, 0x32);
	assert_int_equal(vlapic_read(&a.lapic, APIC_PPR, 0), 0x32);
	vlapic_set_irq(&a.lapic, 0x47);
	assert_int_equal(apic_deliver(&a), 0x47);
	assert_int_equal(vlapic_read(&a.lapic, APIC_PPR, 0), 0x40);
	apic_write(&a, APIC_TPR, 0x4c);
	assert_int_equal(vlapic_read(&a.lapic, APIC_PPR, 0), 0x4c);
	apic_write(&a, APIC_TPR, 0x55);
	assert_int_equal(vlapic_read(&a.lapic, APIC_PPR, 0), 0x55);
	apic_write(&a, APIC_TPR, 0);
	apic_write(&a, APIC_EOI, 0);
	assert_int_equal(vlapic_read(&a.lapic, APIC_PPR, 0), 0);
}

/* --- EOI ------------------------------------------------------------------ */

static void test_eoi_ends_highest_in_service(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	vlapic_set_irq(&a.lapic, 0x30);
	assert_int_equal(apic_deliver(&a), 0x30);
	vlapic_set_irq(&a.lapic, 0x61);
	assert_int_equal(apic_deliver(&a), 0x61);
	vlapic_set_irq(&a.lapic, 0xe1);
	assert_int_equal(apic_deliver(&a), 0xe1);
	assert_true(apic_bit(&a, APIC_ISR, 0x30));
	assert_true(apic_bit(&a, APIC_ISR, 0x61));
	assert_true(apic_bit(&a, APIC_ISR, 0xe1));
	/* The value written is ignored: EOI names no vector. */
	apic_write(&a, APIC_EOI, 0x30);
	assert_false(apic_bit(&a, APIC_ISR, 0xe1));
	assert_true(apic_bit(&a, APIC_ISR, 0x61));
	assert_true(apic_bit(&a, APIC_ISR, 0x30));
	apic_write(&a, APIC_EOI, 0);
	assert_false(apic_bit(&a, APIC_ISR, 0x61));
	assert_true(apic_bit(&a, APIC_ISR, 0x30));
	apic_write(&a, APIC_EOI, 0);
	assert_true(apic_register_empty(&a, APIC_ISR));
	/* A stray EOI with nothing in service changes nothing. */
	vlapic_set_irq(&a.lapic, 0x80);
	apic_write(&a, APIC_EOI, 0);
	assert_true(apic_register_empty(&a, APIC_ISR));
	assert_true(apic_bit(&a, APIC_IRR, 0x80));
}

/* A vector raised again while in service is delivered once more after EOI. */
static void test_same_vector_while_in_service(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	vlapic_set_irq(&a.lapic, 0x40);
	assert_int_equal(apic_deliver(&a), 0x40);
	vlapic_set_irq(&a.lapic, 0x40);
	assert_true(apic_bit(&a, APIC_IRR, 0x40));
	assert_true(apic_bit(&a, APIC_ISR, 0x40));
	assert_int_equal(vlapic_pending(&a.lapic), -1);
	apic_write(&a, APIC_EOI, 0);
	assert_int_equal(apic_deliver(&a), 0x40);
}

/* --- IPIs ------------------------------------------------------------------ */

static void test_self_ipi_by_shorthand(void **state)
{
	struct apic a;
	struct vlapic_ipi ipi;

	(void)state;
	apic_start(&a, 2, 1000, 1000);
	vlapic_write(&a.lapic, APIC_ICR_HIGH, 9u << 24, 0);	/* ignored with a shorthand */
	ipi = vlapic_write(&a.lapic, APIC_ICR_LOW, ICR_DEST_SELF | 0x55, 0);
	assert_false(ipi.valid);
	assert_true(apic_bit(&a, APIC_IRR, 0x55));
	assert_int_equal(apic_deliver(&a), 0x55);
	/* Delivery status reads idle at once; the rest reads back. */
	assert_int_equal(vlapic_read(&a.lapic, APIC_ICR_LOW, 0), ICR_DEST_SELF | 0x55);
	ipi = vlapic_write(&a.lapic, APIC_ICR_LOW, ICR_DEST_SELF | ICR_DELIVERY_STATUS | 0x56, 0);
	assert_false(ipi.valid);
	assert_int_equal(vlapic_read(&a.lapic, APIC_ICR_LOW, 0) & ICR_DELIVERY_STATUS, 0);
	assert_true(apic_bit(&a, APIC_IRR, 0x56));
}

static void test_self_ipi_by_own_destination(void **state)
{
	struct apic a;
	struct vlapic_ipi ipi;

	(void)state;
	apic_start(&a, 3, 1000, 1000);
	vlapic_write(&a.lapic, APIC_ICR_HIGH, 3u << 24, 0);
	ipi = vlapic_write(&a.lapic, APIC_ICR_LOW, 0x66, 0);
	assert_false(ipi.valid);
	assert_true(apic_bit(&a, APIC_IRR, 0x66));
	assert_int_equal(vlapic_read(&a.lapic, APIC_ICR_HIGH, 0), 3u << 24);
}

static void test_ipi_to_another_apic_goes_to_caller(void **state)
{
	struct apic a;
	struct vlapic_ipi ipi;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	vlapic_write(&a.lapic, APIC_ICR_HIGH, 5u << 24, 0);
	ipi = vlapic_write(&a.lapic, APIC_ICR_LOW, 0x4077, 0);
	assert_true(ipi.valid);
	assert_int_equal(ipi.icr_low, 0x4077);
	assert_int_equal(ipi.destination, 5);
	assert_true(apic_register_empty(&a, APIC_IRR));
	/* Broadcast by destination 0xff and by shorthand: the caller's too. */
	vlapic_write(&a.lapic, APIC_ICR_HIGH, 0xffu << 24, 0);
	ipi = vlapic_write(&a.lapic, APIC_ICR_LOW, 0x78, 0);
	assert_true(ipi.valid);
	assert_int_equal(ipi.destination, 0xff);
	ipi = vlapic_write(&a.lapic, APIC_ICR_LOW, ICR_DEST_ALL_BUT_SELF | 0x79, 0);
	assert_true(ipi.valid);
	assert_int_equal(ipi.icr_low, ICR_DEST_ALL_BUT_SELF | 0x79);
	assert_true(apic_register_empty(&a, APIC_IRR));
}

/* INIT, NMI and the like are not fixed interrupts: even to self, the caller's. */
static void test_non_fixed_ipi_goes_to_caller(void **state)
{
	struct apic a;
	struct vlapic_ipi ipi;

	(void)state;
	apic_start(&a, 1, 1000, 1000);
	vlapic_write(&a.lapic, APIC_ICR_HIGH, 1u << 24, 0);
	ipi = vlapic_write(&a.lapic, APIC_ICR_LOW, ICR_DELIVERY_INIT, 0);
	assert_true(ipi.valid);
	assert_int_equal(ipi.icr_low, ICR_DELIVERY_INIT);
	ipi = vlapic_write(&a.lapic, APIC_ICR_LOW, ICR_DEST_SELF | ICR_DELIVERY_NMI, 0);
	assert_true(ipi.valid);
	assert_true(apic_register_empty(&a, APIC_IRR));
}

/*
 * A logical destination is an LDR bit mask, not an APIC ID: in flat mode
 * 0x01 is CPU 0, so APIC 1 must not take it for itself.
 */
static void test_logical_destination_goes_to_caller(void **state)
{
	struct apic a;
	struct vlapic_ipi ipi;

	(void)state;
	apic_start(&a, 1, 1000, 1000);
	apic_write(&a, APIC_LDR, 0x02000000);
	vlapic_write(&a.lapic, APIC_ICR_HIGH, 0x01u << 24, 0);
	ipi = vlapic_write(&a.lapic, APIC_ICR_LOW, ICR_DEST_LOGICAL | 0x30, 0);
	assert_true(ipi.valid);
	assert_int_equal(ipi.destination, 0x01);
	assert_int_equal(ipi.icr_low, ICR_DEST_LOGICAL | 0x30);
	assert_true(apic_register_empty(&a, APIC_IRR));
}

/* --- the error status register (§11.5.3) --------------------------------- */

static void test_illegal_vector_sets_esr(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	vlapic_set_irq(&a.lapic, 15);
	assert_true(apic_register_empty(&a, APIC_IRR));
	assert_int_equal(vlapic_pending(&a.lapic), -1);
	/* Linux's way: write ESR (publishes the logged errors), then read it. */
	apic_write(&a, APIC_ESR, 0);
	assert_int_equal(vlapic_read(&a.lapic, APIC_ESR, 0), ESR_RECV_ILLEGAL);
	/* The next write clears them: nothing was logged since. */
	apic_write(&a, APIC_ESR, 0);
	assert_int_equal(vlapic_read(&a.lapic, APIC_ESR, 0), 0);
	/* Vector 16 is the lowest legal one. */
	vlapic_set_irq(&a.lapic, 16);
	assert_true(apic_bit(&a, APIC_IRR, 16));
	apic_write(&a, APIC_ESR, 0);
	assert_int_equal(vlapic_read(&a.lapic, APIC_ESR, 0), 0);
}

static void test_illegal_self_ipi_sets_esr(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	apic_write(&a, APIC_ESR, 0);
	apic_write(&a, APIC_ICR_LOW, ICR_DEST_SELF | 0x05);
	assert_true(apic_register_empty(&a, APIC_IRR));
	/* Until the next ESR write, ESR keeps what the last one latched. */
	assert_int_equal(vlapic_read(&a.lapic, APIC_ESR, 0), 0);
	apic_write(&a, APIC_ESR, 0);
	/* Sent and received by the same APIC: both errors are logged. */
	assert_int_equal(vlapic_read(&a.lapic, APIC_ESR, 0),
			 ESR_SEND_ILLEGAL | ESR_RECV_ILLEGAL);
}

/* A timer LVT with an illegal vector logs the error when it fires. */
static void test_illegal_timer_vector_sets_esr(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	apic_write(&a, APIC_TIMER_DCR, DCR_DIVIDE_1);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_ONESHOT | 0x02);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 10, 0);
	vlapic_timer_poll(&a.lapic, 10);
	assert_true(apic_register_empty(&a, APIC_IRR));
	apic_write(&a, APIC_ESR, 0);
	assert_int_equal(vlapic_read(&a.lapic, APIC_ESR, 0), ESR_RECV_ILLEGAL);
}

/* --- TSC-deadline mode (§11.5.4.1) ------------------------------------------ */

static void test_tsc_deadline_arm_fire_rearm_disarm(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 2000000000, 25000000);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_TSC_DEADLINE | TIMER_VECTOR);
	assert_int_equal(vlapic_read_tsc_deadline(&a.lapic), 0);

	/* Arm: nothing before the deadline, the vector at it. */
	vlapic_write_tsc_deadline(&a.lapic, 100000);
	assert_int_equal(vlapic_read_tsc_deadline(&a.lapic), 100000);
	vlapic_timer_poll(&a.lapic, 99999);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);
	vlapic_timer_poll(&a.lapic, 100000);
	assert_int_equal(apic_deliver(&a), TIMER_VECTOR);
	/* Firing disarms it and clears the MSR; it fires only once. */
	assert_int_equal(vlapic_read_tsc_deadline(&a.lapic), 0);
	apic_write(&a, APIC_EOI, 0);
	vlapic_timer_poll(&a.lapic, 10000000);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);

	/* Re-arm, then move the deadline before it fires: the last write wins. */
	vlapic_write_tsc_deadline(&a.lapic, 20000000);
	vlapic_write_tsc_deadline(&a.lapic, 30000000);
	vlapic_timer_poll(&a.lapic, 25000000);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);
	vlapic_timer_poll(&a.lapic, 30000001);
	assert_int_equal(apic_deliver(&a), TIMER_VECTOR);
	apic_write(&a, APIC_EOI, 0);

	/* Disarm by writing 0. */
	vlapic_write_tsc_deadline(&a.lapic, 40000000);
	vlapic_write_tsc_deadline(&a.lapic, 0);
	assert_int_equal(vlapic_read_tsc_deadline(&a.lapic), 0);
	vlapic_timer_poll(&a.lapic, 50000000);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);

	/* A deadline already past fires at the next poll. */
	vlapic_write_tsc_deadline(&a.lapic, 10);
	vlapic_timer_poll(&a.lapic, 60000000);
	assert_int_equal(apic_deliver(&a), TIMER_VECTOR);
}

/* The counter registers play no part in TSC-deadline mode. */
static void test_tsc_deadline_ignores_counter(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_TSC_DEADLINE | TIMER_VECTOR);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 100, 0);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_ICR, 0), 0);
	vlapic_timer_poll(&a.lapic, 1000000);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);
	vlapic_write_tsc_deadline(&a.lapic, 5000);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 10), 0);
}

static void test_tsc_deadline_ignored_outside_its_mode(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_ONESHOT | TIMER_VECTOR);
	vlapic_write_tsc_deadline(&a.lapic, 100);
	assert_int_equal(vlapic_read_tsc_deadline(&a.lapic), 0);
	vlapic_timer_poll(&a.lapic, 200);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);

	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_PERIODIC | TIMER_VECTOR);
	vlapic_write_tsc_deadline(&a.lapic, 300);
	assert_int_equal(vlapic_read_tsc_deadline(&a.lapic), 0);
	vlapic_timer_poll(&a.lapic, 400);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);

	/* A running one-shot count is not disturbed by an MSR write. */
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_ONESHOT | TIMER_VECTOR);
	apic_write(&a, APIC_TIMER_DCR, DCR_DIVIDE_1);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 1000, 0);
	vlapic_write_tsc_deadline(&a.lapic, 10);
	vlapic_timer_poll(&a.lapic, 999);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);
	vlapic_timer_poll(&a.lapic, 1000);
	assert_int_equal(vlapic_highest_irr(&a.lapic), TIMER_VECTOR);
}

/* --- one-shot and periodic (§11.5.4) ------------------------------------------ */

static void test_oneshot_fires_once(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000000000, 1000000000);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_ONESHOT | TIMER_VECTOR);
	apic_write(&a, APIC_TIMER_DCR, DCR_DIVIDE_16);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 100, 1000);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_ICR, 0), 100);
	vlapic_timer_poll(&a.lapic, 1000 + 1599);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);
	vlapic_timer_poll(&a.lapic, 1000 + 1600);
	assert_int_equal(apic_deliver(&a), TIMER_VECTOR);
	apic_write(&a, APIC_EOI, 0);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 1000 + 1600), 0);
	vlapic_timer_poll(&a.lapic, 1000000);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);
	/* The initial count reads back after expiry; writing it again restarts. */
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_ICR, 0), 100);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 100, 2000000);
	vlapic_timer_poll(&a.lapic, 2001600);
	assert_int_equal(vlapic_highest_irr(&a.lapic), TIMER_VECTOR);
}

/* Writing 0 to the initial count stops the timer. */
static void test_zero_initial_count_stops(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_PERIODIC | TIMER_VECTOR);
	apic_write(&a, APIC_TIMER_DCR, DCR_DIVIDE_1);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 100, 0);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 0, 50);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 60), 0);
	vlapic_timer_poll(&a.lapic, 100000);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);
}

/* DCR bits 3,1:0 select 2, 4, ... 128, with 1011b meaning divide by 1. */
static void test_divide_configuration(void **state)
{
	static const struct { uint32_t dcr; uint64_t divisor; } table[] = {
		{ 0x0, 2 }, { 0x1, 4 }, { 0x2, 8 }, { 0x3, 16 },
		{ 0x8, 32 }, { 0x9, 64 }, { 0xa, 128 }, { 0xb, 1 },
		/* bit 2 is reserved: it changes nothing */
		{ 0x4, 2 }, { 0xf, 1 },
	};
	struct apic a;

	(void)state;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		uint64_t start = 5000, span = 10 * table[i].divisor;

		apic_start(&a, 0, 1000000, 1000000);
		apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_ONESHOT | TIMER_VECTOR);
		apic_write(&a, APIC_TIMER_DCR, table[i].dcr);
		vlapic_write(&a.lapic, APIC_TIMER_ICR, 10, start);
		assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, start), 10);
		assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR,
					     start + table[i].divisor), 9);
		vlapic_timer_poll(&a.lapic, start + span - 1);
		assert_int_equal(vlapic_highest_irr(&a.lapic), -1);
		vlapic_timer_poll(&a.lapic, start + span);
		assert_int_equal(vlapic_highest_irr(&a.lapic), TIMER_VECTOR);
	}
}

/* The timer counts the crystal the guest was told of, not the TSC. */
static void test_timer_clock_ratio(void **state)
{
	struct apic a;

	(void)state;
	/* 2.4 GHz TSC, 24 MHz crystal: 100 TSC ticks per timer tick. */
	apic_start(&a, 0, 2400000000ull, 24000000);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_ONESHOT | TIMER_VECTOR);
	apic_write(&a, APIC_TIMER_DCR, DCR_DIVIDE_1);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 1000, 0);
	vlapic_timer_poll(&a.lapic, 99999);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);
	vlapic_timer_poll(&a.lapic, 100000);
	assert_int_equal(vlapic_highest_irr(&a.lapic), TIMER_VECTOR);

	/* A ratio that is not an integer: 2.5 TSC ticks each, divide by 2. */
	apic_start(&a, 0, 2500000000ull, 1000000000);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_ONESHOT | TIMER_VECTOR);
	apic_write(&a, APIC_TIMER_DCR, 0x0);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 1000, 0);
	vlapic_timer_poll(&a.lapic, 4999);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);
	vlapic_timer_poll(&a.lapic, 5000);
	assert_int_equal(vlapic_highest_irr(&a.lapic), TIMER_VECTOR);

	/* timer_hz 0 means the timer runs at the TSC's rate. */
	apic_start(&a, 0, 1000000, 0);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_ONESHOT | TIMER_VECTOR);
	apic_write(&a, APIC_TIMER_DCR, DCR_DIVIDE_1);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 77, 0);
	vlapic_timer_poll(&a.lapic, 76);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);
	vlapic_timer_poll(&a.lapic, 77);
	assert_int_equal(vlapic_highest_irr(&a.lapic), TIMER_VECTOR);
}

/* The longest count at the largest divisor on a fast TSC: 2^32 * 128 * 120. */
static void test_timer_longest_count(void **state)
{
	const uint64_t span = 0xffffffffull * 128 * 120;
	struct apic a;

	(void)state;
	apic_start(&a, 0, 3000000000ull, 25000000);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_ONESHOT | TIMER_VECTOR);
	apic_write(&a, APIC_TIMER_DCR, 0xa);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 0xffffffff, 1000);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 1000), 0xffffffff);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 1000 + span / 2), 0x80000000);
	vlapic_timer_poll(&a.lapic, 1000 + span - 1);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);
	vlapic_timer_poll(&a.lapic, 1000 + span);
	assert_int_equal(vlapic_highest_irr(&a.lapic), TIMER_VECTOR);
}

static void test_current_count_readback(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 2400000000ull, 24000000);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_ONESHOT | TIMER_VECTOR);
	apic_write(&a, APIC_TIMER_DCR, DCR_DIVIDE_1);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 1000, 1000000);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 1000000), 1000);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 1000000 + 1), 1000);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 1000000 + 100), 999);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 1000000 + 50000), 500);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 1000000 + 99999), 1);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 1000000 + 100000), 0);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 1000000 + 500000), 0);
	/* A read does not fire the timer: only a poll does. */
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);
}

/* However the two clocks divide, the count starts at the initial value and counts down. */
static void test_current_count_uneven_ratio(void **state)
{
	struct apic a;
	uint32_t last = 0xffffffff;

	(void)state;
	/* 2.893 GHz TSC over a 24 MHz crystal: 120.54 TSC ticks per timer tick. */
	apic_start(&a, 0, 2893000000ull, 24000000);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_ONESHOT | TIMER_VECTOR);
	apic_write(&a, APIC_TIMER_DCR, DCR_DIVIDE_1);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 1000, 0);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 0), 1000);
	for (uint64_t now = 0; now <= 130000; now += 97) {
		uint32_t count = vlapic_read(&a.lapic, APIC_TIMER_CCR, now);

		assert_true(count <= last);
		assert_true(count <= 1000);
		last = count;
	}
	assert_int_equal(last, 0);
	/* Half way through, half the count is left (within a tick). */
	assert_in_range(vlapic_read(&a.lapic, APIC_TIMER_CCR, 60270), 499, 501);
}

static void test_periodic_reloads(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_PERIODIC | TIMER_VECTOR);
	apic_write(&a, APIC_TIMER_DCR, 0x0);	/* divide by 2: period 100 */
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 50, 0);
	for (uint64_t tick = 1; tick <= 3; tick++) {
		vlapic_timer_poll(&a.lapic, tick * 100 - 1);
		assert_int_equal(vlapic_highest_irr(&a.lapic), -1);
		vlapic_timer_poll(&a.lapic, tick * 100);
		assert_int_equal(apic_deliver(&a), TIMER_VECTOR);
		apic_write(&a, APIC_EOI, 0);
		/* Reloaded: the count starts over. */
		assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, tick * 100), 50);
		assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, tick * 100 + 40), 30);
	}
	/* A late poll raises the vector once and keeps the original phase. */
	vlapic_timer_poll(&a.lapic, 650);
	assert_int_equal(apic_deliver(&a), TIMER_VECTOR);
	apic_write(&a, APIC_EOI, 0);
	vlapic_timer_poll(&a.lapic, 699);
	assert_int_equal(vlapic_highest_irr(&a.lapic), -1);
	vlapic_timer_poll(&a.lapic, 700);
	assert_int_equal(vlapic_highest_irr(&a.lapic), TIMER_VECTOR);
	/* Between polls the count already shows the reload. */
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 760), 20);
}

static void test_masked_timer_raises_nothing(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	apic_write(&a, APIC_TIMER_DCR, DCR_DIVIDE_1);
	apic_write(&a, APIC_LVT_TIMER, LVT_MASKED | LVT_TIMER_ONESHOT | TIMER_VECTOR);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 10, 0);
	vlapic_timer_poll(&a.lapic, 10);
	assert_true(apic_register_empty(&a, APIC_IRR));
	/* It still expired: unmasking later raises nothing. */
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_ONESHOT | TIMER_VECTOR);
	vlapic_timer_poll(&a.lapic, 20);
	assert_true(apic_register_empty(&a, APIC_IRR));

	/* Masked periodic keeps counting; unmasked, the next period fires. */
	apic_write(&a, APIC_LVT_TIMER, LVT_MASKED | LVT_TIMER_PERIODIC | TIMER_VECTOR);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 10, 100);
	vlapic_timer_poll(&a.lapic, 110);
	vlapic_timer_poll(&a.lapic, 120);
	assert_true(apic_register_empty(&a, APIC_IRR));
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_PERIODIC | TIMER_VECTOR);
	vlapic_timer_poll(&a.lapic, 129);
	assert_true(apic_register_empty(&a, APIC_IRR));
	vlapic_timer_poll(&a.lapic, 130);
	assert_int_equal(vlapic_highest_irr(&a.lapic), TIMER_VECTOR);

	/* Masked TSC-deadline: disarms at the deadline without a vector. */
	apic_start(&a, 0, 1000, 1000);
	apic_write(&a, APIC_LVT_TIMER, LVT_MASKED | LVT_TIMER_TSC_DEADLINE | TIMER_VECTOR);
	vlapic_write_tsc_deadline(&a.lapic, 50);
	vlapic_timer_poll(&a.lapic, 50);
	assert_true(apic_register_empty(&a, APIC_IRR));
	assert_int_equal(vlapic_read_tsc_deadline(&a.lapic), 0);
}

static void test_mode_change_disarms(void **state)
{
	struct apic a;

	(void)state;
	/* One-shot -> periodic. */
	apic_start(&a, 0, 1000, 1000);
	apic_write(&a, APIC_TIMER_DCR, DCR_DIVIDE_1);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_ONESHOT | TIMER_VECTOR);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 100, 0);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_PERIODIC | TIMER_VECTOR);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 10), 0);
	vlapic_timer_poll(&a.lapic, 1000);
	assert_true(apic_register_empty(&a, APIC_IRR));

	/* TSC-deadline -> one-shot, and back: the old deadline is gone. */
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_TSC_DEADLINE | TIMER_VECTOR);
	vlapic_write_tsc_deadline(&a.lapic, 2000);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_ONESHOT | TIMER_VECTOR);
	vlapic_timer_poll(&a.lapic, 3000);
	assert_true(apic_register_empty(&a, APIC_IRR));
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_TSC_DEADLINE | TIMER_VECTOR);
	assert_int_equal(vlapic_read_tsc_deadline(&a.lapic), 0);
	vlapic_timer_poll(&a.lapic, 4000);
	assert_true(apic_register_empty(&a, APIC_IRR));

	/* Periodic -> TSC-deadline. */
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_PERIODIC | TIMER_VECTOR);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 10, 5000);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_TSC_DEADLINE | TIMER_VECTOR);
	vlapic_timer_poll(&a.lapic, 6000);
	assert_true(apic_register_empty(&a, APIC_IRR));
	assert_int_equal(vlapic_read_tsc_deadline(&a.lapic), 0);
}

/* Rewriting the LVT in the same mode (mask, vector) keeps the count running. */
static void test_same_mode_write_keeps_timer(void **state)
{
	struct apic a;

	(void)state;
	apic_start(&a, 0, 1000, 1000);
	apic_write(&a, APIC_TIMER_DCR, DCR_DIVIDE_1);
	apic_write(&a, APIC_LVT_TIMER, LVT_MASKED | LVT_TIMER_ONESHOT | TIMER_VECTOR);
	vlapic_write(&a.lapic, APIC_TIMER_ICR, 100, 0);
	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_ONESHOT | 0x41);
	assert_int_equal(vlapic_read(&a.lapic, APIC_TIMER_CCR, 50), 50);
	vlapic_timer_poll(&a.lapic, 100);
	assert_int_equal(vlapic_highest_irr(&a.lapic), 0x41);

	apic_write(&a, APIC_LVT_TIMER, LVT_TIMER_TSC_DEADLINE | TIMER_VECTOR);
	vlapic_write_tsc_deadline(&a.lapic, 500);
	apic_write(&a, APIC_LVT_TIMER, LVT_MASKED | LVT_TIMER_TSC_DEADLINE | TIMER_VECTOR);
	assert_int_equal(vlapic_read_tsc_deadline(&a.lapic), 500);
}

int main(void)
{
	const struct CMUnitTest registers[] = {
		cmocka_unit_test(test_reset_state),
		cmocka_unit_test(test_register_write_masks),
	};
	const struct CMUnitTest priority[] = {
		cmocka_unit_test(test_highest_request_goes_first),
		cmocka_unit_test(test_disabled_apic_delivers_nothing),
		cmocka_unit_test(test_tpr_holds_back_its_class),
		cmocka_unit_test(test_isr_holds_back_its_class),
		cmocka_unit_test(test_ppr),
		cmocka_unit_test(test_eoi_ends_highest_in_service),
		cmocka_unit_test(test_same_vector_while_in_service),
	};
	const struct CMUnitTest ipis[] = {
		cmocka_unit_test(test_self_ipi_by_shorthand),
		cmocka_unit_test(test_self_ipi_by_own_destination),
		cmocka_unit_test(test_ipi_to_another_apic_goes_to_caller),
		cmocka_unit_test(test_non_fixed_ipi_goes_to_caller),
		cmocka_unit_test(test_logical_destination_goes_to_caller),
		cmocka_unit_test(test_illegal_vector_sets_esr),
		cmocka_unit_test(test_illegal_self_ipi_sets_esr),
		cmocka_unit_test(test_illegal_timer_vector_sets_esr),
	};
	const struct CMUnitTest timer[] = {
		cmocka_unit_test(test_tsc_deadline_arm_fire_rearm_disarm),
		cmocka_unit_test(test_tsc_deadline_ignores_counter),
		cmocka_unit_test(test_tsc_deadline_ignored_outside_its_mode),
		cmocka_unit_test(test_oneshot_fires_once),
		cmocka_unit_test(test_zero_initial_count_stops),
		cmocka_unit_test(test_divide_configuration),
		cmocka_unit_test(test_timer_clock_ratio),
		cmocka_unit_test(test_timer_longest_count),
		cmocka_unit_test(test_current_count_readback),
		cmocka_unit_test(test_current_count_uneven_ratio),
		cmocka_unit_test(test_periodic_reloads),
		cmocka_unit_test(test_masked_timer_raises_nothing),
		cmocka_unit_test(test_mode_change_disarms),
		cmocka_unit_test(test_same_mode_write_keeps_timer),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("vlapic registers", registers, NULL, NULL);
	failed += cmocka_run_group_tests_name("vlapic priority and EOI", priority, NULL, NULL);
	failed += cmocka_run_group_tests_name("vlapic IPIs and errors", ipis, NULL, NULL);
	failed += cmocka_run_group_tests_name("vlapic timer", timer, NULL, NULL);
	return failed ? 1 : 0;
}
