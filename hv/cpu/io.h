/* SPDX-License-Identifier: MIT */
/*
 * io.h - the processor's instructions a device driver needs: port I/O,
 * MMIO, MSRs, the TSC and the spin-wait hint. They sit in a folder below
 * drivers/ so that a driver reaches its hardware without including
 * anything that uses a driver (docs/architecture.md, "Layers");
 * arch/x86.h has the rest of the processor.
 */
#ifndef SIDECORE_CPU_IO_H
#define SIDECORE_CPU_IO_H

#include <stdint.h>

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t value)
{
	asm volatile("wrmsr"
		     : : "c"(msr), "a"((uint32_t)value), "d"((uint32_t)(value >> 32))
		     : "memory");
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline void pio_out8(uint16_t port, uint8_t v)
{
	asm volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t pio_in8(uint16_t port)
{
	uint8_t v;

	asm volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void pio_out32(uint16_t port, uint32_t v)
{
	asm volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t pio_in32(uint16_t port)
{
	uint32_t v;

	asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint32_t mmio_read32(uintptr_t addr)
{
	return *(volatile uint32_t *)addr;
}

static inline void mmio_write32(uintptr_t addr, uint32_t v)
{
	*(volatile uint32_t *)addr = v;
}

static inline void cpu_relax(void)
{
	asm volatile("pause" ::: "memory");
}

#endif
