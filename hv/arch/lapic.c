/* SPDX-License-Identifier: MIT */
/*
 * lapic.c - local APIC access (SDM Vol. 3A chapter 11). In x2APIC mode the
 * registers are MSRs 0x800 + offset/16 (§11.12.1) and the ICR is one 64-bit
 * write; in xAPIC mode they are MMIO at the IA32_APIC_BASE address.
 */
#include "arch/idt.h"
#include "arch/lapic.h"
#include "arch/tsc.h"
#include "arch/x86.h"

#define APIC_BASE_EXTD		(1ull << 10)	/* x2APIC mode */
#define APIC_BASE_ENABLE	(1ull << 11)
#define APIC_BASE_ADDR_MASK	0xffffff000ull

#define APIC_REG_ID		0x020
#define APIC_REG_VERSION	0x030
#define APIC_REG_TPR		0x080
#define APIC_REG_EOI		0x0b0
#define APIC_REG_SVR		0x0f0
#define APIC_REG_ISR		0x100	/* eight registers, 0x10 apart */
#define APIC_REG_IRR		0x200
#define APIC_REG_ESR		0x280
#define APIC_REG_LVT_CMCI	0x2f0
#define APIC_REG_ICR_LOW	0x300
#define APIC_REG_ICR_HIGH	0x310
#define APIC_REG_LVT_TIMER	0x320
#define APIC_REG_LVT_THERMAL	0x330
#define APIC_REG_LVT_PMC	0x340
#define APIC_REG_LVT_LINT0	0x350
#define APIC_REG_LVT_LINT1	0x360
#define APIC_REG_LVT_ERROR	0x370
#define APIC_REG_TIMER_ICR	0x380
#define APIC_REG_TIMER_CCR	0x390
#define APIC_REG_TIMER_DCR	0x3e0
#define APIC_X2APIC_MSR_BASE	0x800

#define SVR_ENABLE		(1u << 8)
#define ICR_FIXED		(0u << 8)
#define ICR_NMI			(4u << 8)
#define ICR_INIT		(5u << 8)
#define ICR_STARTUP		(6u << 8)
#define ICR_PENDING		(1u << 12)	/* xAPIC delivery status */
#define ICR_ASSERT		(1u << 14)

#define CPUID_1_ECX_X2APIC	(1u << 21)
#define CPUID_1_ECX_TSC_DEADLINE (1u << 24)
#define LVT_MASKED		(1u << 16)
#define LVT_TSC_DEADLINE	(2u << 17)
#define LVT_TIMER_MODE		(3u << 17)
#define TIMER_DIVIDE_BY_1	0xb
#define MSR_TSC_DEADLINE	0x6e0
#define CALIBRATE_US		10000
#define VERSION_MAX_LVT(v)	(((v) >> 16) & 0xff)	/* §11.4.8: LVT entries - 1 */
#define SCRUB_EOIS		256	/* one per vector, at most */

static bool use_x2apic;
static bool use_tsc_deadline;
static uint64_t timer_ticks_per_ms;	/* one-shot mode: APIC timer ticks */
static uintptr_t xapic_base;

uint32_t lapic_reg_read(uint32_t reg)
{
	if (use_x2apic)
		return (uint32_t)rdmsr(APIC_X2APIC_MSR_BASE + (reg >> 4));
	return mmio_read32(xapic_base + reg);
}

void lapic_reg_write(uint32_t reg, uint32_t v)
{
	if (use_x2apic)
		wrmsr(APIC_X2APIC_MSR_BASE + (reg >> 4), v);
	else
		mmio_write32(xapic_base + reg, v);
}

void lapic_init(void)
{
	uint64_t base = rdmsr(MSR_IA32_APIC_BASE);

	use_x2apic = cpuid(1, 0).ecx & CPUID_1_ECX_X2APIC;
	xapic_base = base & APIC_BASE_ADDR_MASK;

	/* §11.12.5: xAPIC -> x2APIC needs EN already set, then EXTD. */
	base |= APIC_BASE_ENABLE;
	wrmsr(MSR_IA32_APIC_BASE, base);
	if (use_x2apic)
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_EXTD);

	lapic_reg_write(APIC_REG_TPR, 0);
	lapic_reg_write(APIC_REG_SVR, SVR_ENABLE | VECTOR_SPURIOUS);
}

bool lapic_is_x2apic(void)
{
	return use_x2apic;
}

uint32_t lapic_id(void)
{
	uint32_t id = lapic_reg_read(APIC_REG_ID);

	return use_x2apic ? id : id >> 24;
}

void lapic_eoi(void)
{
	lapic_reg_write(APIC_REG_EOI, 0);
}

static void lapic_write_icr(uint32_t apic_id, uint32_t low)
{
	if (use_x2apic) {
		/*
		 * An x2APIC ICR write is not serializing and may leave before
		 * earlier stores are visible (SDM Vol. 3A §11.12.3): the ring or
		 * request the IPI announces must be seen first.
		 */
		asm volatile("mfence; lfence" ::: "memory");
		wrmsr(APIC_X2APIC_MSR_BASE + (APIC_REG_ICR_LOW >> 4),
		      ((uint64_t)apic_id << 32) | low);
		return;
	}
	lapic_reg_write(APIC_REG_ICR_HIGH, apic_id << 24);
	lapic_reg_write(APIC_REG_ICR_LOW, low);
	while (lapic_reg_read(APIC_REG_ICR_LOW) & ICR_PENDING)
		cpu_relax();
}

void lapic_send_ipi(uint32_t apic_id, uint8_t vector)
{
	lapic_write_icr(apic_id, ICR_FIXED | ICR_ASSERT | vector);
}

void lapic_send_nmi(uint32_t apic_id)
{
	lapic_write_icr(apic_id, ICR_NMI | ICR_ASSERT);
}

void lapic_send_init(uint32_t apic_id)
{
	lapic_write_icr(apic_id, ICR_INIT | ICR_ASSERT);
}

void lapic_send_sipi(uint32_t apic_id, uint8_t page)
{
	lapic_write_icr(apic_id, ICR_STARTUP | ICR_ASSERT | page);
}

/*
 * The timer's count rate at divide 1, measured once against the TSC with
 * the timer masked; the first core to ask does it. Leaves the timer
 * stopped, masked, at divide 1.
 */
static void lapic_timer_calibrate(void)
{
	const uint32_t start = 0xffffffff;

	if (__atomic_load_n(&timer_ticks_per_ms, __ATOMIC_ACQUIRE))
		return;
	lapic_reg_write(APIC_REG_TIMER_DCR, TIMER_DIVIDE_BY_1);
	lapic_reg_write(APIC_REG_LVT_TIMER, LVT_MASKED | VECTOR_TIMER);
	lapic_reg_write(APIC_REG_TIMER_ICR, start);
	tsc_delay_us(CALIBRATE_US);
	__atomic_store_n(&timer_ticks_per_ms, (start - lapic_reg_read(APIC_REG_TIMER_CCR)) /
			 (CALIBRATE_US / 1000), __ATOMIC_RELEASE);
	lapic_reg_write(APIC_REG_TIMER_ICR, 0);
}

/*
 * TSC-deadline mode where the CPU has it (§11.5.4.1); otherwise one-shot
 * mode, with the timer's rate measured against the TSC (Nehalem).
 */
void lapic_timer_init(void)
{
	use_tsc_deadline = cpuid(1, 0).ecx & CPUID_1_ECX_TSC_DEADLINE;
	if (use_tsc_deadline) {
		lapic_reg_write(APIC_REG_LVT_TIMER, LVT_TSC_DEADLINE | VECTOR_TIMER);
		return;
	}
	lapic_timer_calibrate();
	lapic_reg_write(APIC_REG_TIMER_DCR, TIMER_DIVIDE_BY_1);
	lapic_reg_write(APIC_REG_LVT_TIMER, VECTOR_TIMER);
}

uint64_t lapic_timer_khz(void)
{
	lapic_timer_calibrate();
	return timer_ticks_per_ms;
}

void lapic_timer_arm(uint64_t tsc_deadline)
{
	uint64_t now, ticks;

	if (use_tsc_deadline) {
		wrmsr(MSR_TSC_DEADLINE, tsc_deadline);
		return;
	}
	now = rdtsc();
	ticks = tsc_deadline > now ?
		(tsc_deadline - now) * timer_ticks_per_ms / (tsc_hz() / 1000) : 0;
	lapic_reg_write(APIC_REG_TIMER_ICR, ticks ? (ticks > 0xffffffffu ? 0xffffffffu : ticks) : 1);
}

/* Whether any of the eight 32-bit registers from reg on has a bit set. */
static bool lapic_any_bit(uint32_t reg)
{
	for (unsigned int i = 0; i < 8; i++)
		if (lapic_reg_read(reg + 0x10 * i))
			return true;
	return false;
}

bool lapic_in_service(uint8_t vector)
{
	return lapic_reg_read(APIC_REG_ISR + 0x10 * (vector / 32)) & (1u << (vector % 32));
}

/* The LVT entries this APIC has (§11.5.1); CMCI only with six or more. */
static unsigned int lapic_lvts(uint32_t *reg)
{
	static const uint32_t all[] = {
		APIC_REG_LVT_TIMER, APIC_REG_LVT_THERMAL, APIC_REG_LVT_PMC, APIC_REG_LVT_LINT0,
		APIC_REG_LVT_LINT1, APIC_REG_LVT_ERROR, APIC_REG_LVT_CMCI,
	};
	unsigned int n = VERSION_MAX_LVT(lapic_reg_read(APIC_REG_VERSION)) >= 6 ? 7 : 6;

	for (unsigned int i = 0; i < n; i++)
		reg[i] = all[i];
	return n;
}

bool lapic_scrub(void)
{
	uint32_t lvt[7];
	unsigned int lvts = lapic_lvts(lvt);
	bool clean = true;

	/* §11.5.4.1: the deadline MSR means something only in TSC-deadline mode. */
	if ((lapic_reg_read(APIC_REG_LVT_TIMER) & LVT_TIMER_MODE) == LVT_TSC_DEADLINE)
		wrmsr(MSR_TSC_DEADLINE, 0);
	for (unsigned int i = 0; i < lvts; i++)
		lapic_reg_write(lvt[i], LVT_MASKED);
	lapic_reg_write(APIC_REG_TIMER_ICR, 0);
	lapic_reg_write(APIC_REG_TPR, 0);
	lapic_reg_write(APIC_REG_SVR, SVR_ENABLE | VECTOR_SPURIOUS);
	/* §11.5.3: a write arms the ESR, the next one clears it. */
	lapic_reg_write(APIC_REG_ESR, 0);
	lapic_reg_write(APIC_REG_ESR, 0);
	for (unsigned int i = 0; i < SCRUB_EOIS && lapic_any_bit(APIC_REG_ISR); i++)
		lapic_eoi();
	/* What is still requested is taken here, and idt_dispatch() drops it. */
	for (unsigned int i = 0; i < SCRUB_EOIS && lapic_any_bit(APIC_REG_IRR); i++)
		cpu_take_pending_irqs();
	for (unsigned int i = 0; i < lvts; i++)
		clean &= (lapic_reg_read(lvt[i]) & LVT_MASKED) != 0;
	return clean && !lapic_any_bit(APIC_REG_ISR) && !lapic_any_bit(APIC_REG_IRR);
}
