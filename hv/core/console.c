/* SPDX-License-Identifier: MIT */
/*
 * console.c - formatted output to the serial console, and the panic path.
 *
 * The UART is slow (and paced in emulated time), so no vCPU core waits for
 * it: lines go into a ring and one core, the drainer, writes them out from
 * its idle loop, woken by an IPI when a line arrives. Until the drainer is
 * named (early boot), every printk writes through at once.
 */
#include <stdarg.h>

#include "arch/idt.h"
#include "arch/lapic.h"
#include "arch/x86.h"
#include "core/console.h"
#include "core/percpu.h"
#include "core/spinlock.h"
#include "drivers/serial.h"
#include "lib/log.h"
#include "lib/printf.h"

#define CONSOLE_RING_SIZE (256 * 1024)	/* a power of two */
#define NO_DRAINER (~0u)

static char ring[CONSOLE_RING_SIZE];
static uint64_t ring_head, ring_tail;	/* bytes ever written / ever drained */
static struct spinlock ring_lock, drain_lock;
static unsigned int drainer = NO_DRAINER;
static bool drain_requested;

void console_drain(void)
{
	/* Only the drainer writes: a polling sidecore must not wait on the UART. */
	if (drainer != NO_DRAINER && this_cpu()->cpu != drainer)
		return;
	if (__atomic_load_n(&ring_head, __ATOMIC_ACQUIRE) == ring_tail)
		return;
	spin_lock(&drain_lock);
	__atomic_store_n(&drain_requested, false, __ATOMIC_RELEASE);
	for (;;) {
		uint64_t head = __atomic_load_n(&ring_head, __ATOMIC_ACQUIRE);
		uint64_t tail = ring_tail, start = tail % CONSOLE_RING_SIZE;
		uint64_t len = head - tail;

		if (!len)
			break;
		if (len > CONSOLE_RING_SIZE - start)
			len = CONSOLE_RING_SIZE - start;
		serial_write(ring + start, len);
		__atomic_store_n(&ring_tail, tail + len, __ATOMIC_RELEASE);
	}
	spin_unlock(&drain_lock);
}

void console_set_drainer(unsigned int cpu)
{
	drainer = cpu;
}

static void console_append(const char *s, unsigned int len)
{
	unsigned int cpu = this_cpu()->cpu;

	spin_lock(&ring_lock);
	/* A full ring waits for the drainer rather than lose output. */
	while (ring_head + len - __atomic_load_n(&ring_tail, __ATOMIC_ACQUIRE) >
	       CONSOLE_RING_SIZE) {
		if (cpu == drainer || drainer == NO_DRAINER)
			console_drain();
		cpu_relax();
	}
	for (unsigned int i = 0; i < len; i++)
		ring[(ring_head + i) % CONSOLE_RING_SIZE] = s[i];
	__atomic_store_n(&ring_head, ring_head + len, __ATOMIC_RELEASE);
	spin_unlock(&ring_lock);

	if (drainer == NO_DRAINER || cpu == drainer)
		console_drain();
	else if (!__atomic_exchange_n(&drain_requested, true, __ATOMIC_ACQ_REL))
		lapic_send_ipi(percpu[drainer].apic_id, VECTOR_WAKEUP);
}

static void console_vprint(const char *prefix, const char *suffix, const char *fmt,
			   va_list ap)
{
	char line[512];
	int len = 0;

	if (prefix)
		len = snprintf(line, sizeof(line), "%s", prefix);
	len += vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	if (suffix && len < (int)sizeof(line))
		len += snprintf(line + len, sizeof(line) - len, "%s", suffix);
	if (len >= (int)sizeof(line))
		len = sizeof(line) - 1;
	console_append(line, len);
}

void printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	console_vprint(NULL, NULL, fmt, ap);
	va_end(ap);
}

/* Pure modules report malformed input here; each message is its own line. */
void log_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	console_vprint(NULL, "\n", fmt, ap);
	va_end(ap);
}

void panic(const char *fmt, ...)
{
	va_list ap;

	irq_disable();
	drainer = NO_DRAINER;	/* write through from here on */
	va_start(ap, fmt);
	console_vprint("panic: ", "\nsidecore: halted\n", fmt, ap);
	va_end(ap);
	cpu_halt_forever();
}
