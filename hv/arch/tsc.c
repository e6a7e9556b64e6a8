/* SPDX-License-Identifier: MIT */
/*
 * tsc.c - TSC frequency from CPUID leaf 0x15 (SDM Vol. 3B §18.7.3) or 0x16
 * where the CPU reports them, else measured against PIT channel 2.
 */
#include "arch/console.h"
#include "arch/tsc.h"
#include "arch/x86.h"

#define PIT_HZ			1193182
#define PIT_CHANNEL2		0x42
#define PIT_COMMAND		0x43
#define PIT_CH2_MODE0_LOHI	0xb0	/* channel 2, lobyte/hibyte, mode 0 */
#define PORT_NMI_SC		0x61	/* system control port B */
#define NMI_SC_GATE2		0x01
#define NMI_SC_SPEAKER		0x02
#define NMI_SC_OUT2		0x20
#define CALIBRATE_MS		10

static uint64_t tsc_frequency;
static enum tsc_source tsc_from;

static uint64_t tsc_from_cpuid(void)
{
	uint32_t max_leaf = cpuid(0, 0).eax;
	struct cpuid_regs r;

	if (max_leaf >= 0x15) {
		r = cpuid(0x15, 0);
		/* EAX = denominator, EBX = numerator, ECX = crystal Hz. */
		if (r.eax && r.ebx && r.ecx) {
			tsc_from = TSC_SOURCE_CPUID_15H;
			return (uint64_t)r.ecx * r.ebx / r.eax;
		}
	}
	if (max_leaf >= 0x16) {
		r = cpuid(0x16, 0);
		if (r.eax & 0xffff) {
			tsc_from = TSC_SOURCE_CPUID_16H;
			return (uint64_t)(r.eax & 0xffff) * 1000000;
		}
	}
	return 0;
}

/* Mode 0 raises OUT2 when the count reaches zero; count TSC ticks until then. */
static uint64_t tsc_measure_with_pit(void)
{
	uint32_t count = PIT_HZ / (1000 / CALIBRATE_MS);
	uint8_t port_b = pio_in8(PORT_NMI_SC);
	uint64_t start, end, best = ~0ull;

	for (int round = 0; round < 3; round++) {
		pio_out8(PORT_NMI_SC, (port_b & ~NMI_SC_SPEAKER) & ~NMI_SC_GATE2);
		pio_out8(PIT_COMMAND, PIT_CH2_MODE0_LOHI);
		pio_out8(PIT_CHANNEL2, count & 0xff);
		pio_out8(PIT_CHANNEL2, count >> 8);
		pio_out8(PORT_NMI_SC, (port_b & ~NMI_SC_SPEAKER) | NMI_SC_GATE2);
		start = rdtsc();
		while (!(pio_in8(PORT_NMI_SC) & NMI_SC_OUT2))
			cpu_relax();
		end = rdtsc();
		if (end - start < best)
			best = end - start;
	}
	pio_out8(PORT_NMI_SC, port_b);
	tsc_from = TSC_SOURCE_PIT;
	return best * (1000 / CALIBRATE_MS);
}

void tsc_init(void)
{
	tsc_frequency = tsc_from_cpuid();
	if (!tsc_frequency)
		tsc_frequency = tsc_measure_with_pit();
	if (!tsc_frequency)
		panic("cannot determine the TSC frequency");
}

uint64_t tsc_hz(void)
{
	return tsc_frequency;
}

enum tsc_source tsc_source(void)
{
	return tsc_from;
}

const char *tsc_source_name(void)
{
	static const char *const names[] = {
		[TSC_SOURCE_CPUID_15H] = "cpuid-15h",
		[TSC_SOURCE_CPUID_16H] = "cpuid-16h",
		[TSC_SOURCE_PIT] = "pit",
	};

	return names[tsc_from];
}

void tsc_delay_us(uint64_t us)
{
	uint64_t end = rdtsc() + us * (tsc_frequency / 1000000);

	while (rdtsc() < end)
		cpu_relax();
}
