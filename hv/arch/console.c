/* SPDX-License-Identifier: MIT */
/*
 * console.c - formatted output to the serial console, and the panic path.
 *
 * The UART is slow (and paced in emulated time), so no core waits for it:
 * lines go into a lossy ring (lib/log_ring.c) and one core, the drainer,
 * moves out only what the UART takes at once on each pass of its loop. A
 * full ring drops whole lines and later says how many, so a flood of output
 * costs lines, never a core's progress. Until the drainer is named (early
 * boot), every line is written through at once. A core that panics leaves
 * the drainer as it is, or hands the role on if it is the drainer, so one
 * core's end (a guest may cause it) costs no other core its console.
 */
#include <stdarg.h>
#include <string.h>

#include "arch/console.h"
#include "arch/idt.h"
#include "arch/lapic.h"
#include "arch/percpu.h"
#include "arch/spinlock.h"
#include "arch/x86.h"
#include "drivers/serial.h"
#include "lib/log.h"
#include "lib/log_ring.h"
#include "lib/printf.h"

#define CONSOLE_RING_SIZE (256 * 1024)	/* a power of two: ~23 s of output at 115200 baud */
#define CONSOLE_LINE_MAX 512
#define NO_DRAINER (~0u)
#define CONSOLE_INPUT_BURST 64	/* bytes read per drain: a flood cannot hold the drainer */

static char ring_buf[CONSOLE_RING_SIZE];
static struct log_ring ring = LOG_RING_INIT(ring_buf, CONSOLE_RING_SIZE);
static struct spinlock ring_lock;	/* appenders */
static unsigned int ring_holder = NO_DRAINER;	/* cpu inside ring_lock */
static struct spinlock drain_lock;	/* takers */
static unsigned int drain_holder = NO_DRAINER;	/* cpu inside drain_lock */
static unsigned int drainer = NO_DRAINER;
/* The drainer has been told (IPI) that output waits, and has not seen the ring empty since. */
static bool drain_requested;

static void (*input_line)(const char *text);
static bool (*drain_tick)(void);	/* the drainer's own: read and set only there */
static bool input_waiting;	/* set by the UART's interrupt, taken by the drainer */
/* The UART's interrupt went to a drainer that panicked: its heir reads on every pass. */
static bool input_polled;
static char input_buf[CONSOLE_INPUT_MAX];
static unsigned int input_len;

static void console_drain_lock(void)
{
	spin_lock(&drain_lock);
	__atomic_store_n(&drain_holder, this_cpu()->cpu, __ATOMIC_RELAXED);
}

static void console_drain_unlock(void)
{
	__atomic_store_n(&drain_holder, NO_DRAINER, __ATOMIC_RELAXED);
	spin_unlock(&drain_lock);
}

/* Write-through sink: waits on the UART, so only boot and panic output use it. */
static uint64_t console_sink_wait(void *ctx, const char *s, uint64_t len)
{
	(void)ctx;
	serial_write(s, len);
	return len;
}

/* The drainer's sink: what fits in the transmitter's room now (ctx). */
static uint64_t console_sink_room(void *ctx, const char *s, uint64_t len)
{
	return serial_write_room(s, len, ctx);
}

/* Reads what the operator typed into the line buffer; a line end hands it over. */
static void console_read_input(void)
{
	for (unsigned int n = 0; n < CONSOLE_INPUT_BURST; n++) {
		int c = serial_getc();

		if (c < 0)
			return;
		if (c == '\r' || c == '\n') {
			input_buf[input_len] = '\0';
			if (input_len)
				input_line(input_buf);
			input_len = 0;
		} else if (c >= ' ' && c < 0x7f && input_len < CONSOLE_INPUT_MAX - 1) {
			input_buf[input_len++] = (char)c;
		}
	}
	/* More may wait behind the burst: look again on the next pass. */
	__atomic_store_n(&input_waiting, true, __ATOMIC_RELAXED);
}

void console_input_interrupt(void)
{
	__atomic_store_n(&input_waiting, true, __ATOMIC_RELAXED);
}

void console_enable_input(void (*line)(const char *text))
{
	input_line = line;
	serial_rx_enable();
}

/**
 * console_drain() - move what the UART takes now from the ring to the UART.
 *
 * Does nothing except on the drainer. Never waits on the UART: one pass
 * writes at most the transmit FIFO's depth, so the sidecore poll loop calls
 * this every pass at no real cost.
 *
 * Also reads what the operator typed, a burst at a time (console_enable_input()),
 * and first runs the tick, if one is set (console_set_tick()).
 *
 * Return: true while output or typed input is left for a later pass, or the
 * tick wants passes (the caller must not halt); false when there is none or
 * this core is not the drainer. An empty ring means a later line wakes the drainer with an IPI.
 */
bool console_drain(void)
{
	unsigned int room;
	bool ticking = false;

	if (__atomic_load_n(&drainer, __ATOMIC_RELAXED) != this_cpu()->cpu)
		return false;
	if (drain_tick)
		ticking = drain_tick();
	/* A plain load first: this runs on every pass of a sidecore's loop. */
	if (input_line && (__atomic_load_n(&input_waiting, __ATOMIC_RELAXED) ||
			   __atomic_load_n(&input_polled, __ATOMIC_RELAXED))) {
		__atomic_store_n(&input_waiting, false, __ATOMIC_RELAXED);
		console_read_input();
	}
	if (!log_ring_empty(&ring)) {
		room = serial_tx_room();
		if (room) {
			console_drain_lock();
			log_ring_take(&ring, console_sink_room, &room);
			console_drain_unlock();
		}
		if (!log_ring_empty(&ring))
			return true;
	}
	/*
	 * Empty: ask for an IPI with the next line. The exchange is a locked
	 * instruction, so the second look at the ring cannot pass it (SDM
	 * Vol. 3A, "Memory Ordering in P6 and More Recent Processor
	 * Families"); an appender publishes its line before it tests the flag.
	 * A flag already clear needs no exchange: any appender from now on
	 * finds it clear and sends the IPI, and a pass takes no locked
	 * instruction here while the ring stays empty.
	 */
	if (__atomic_load_n(&drain_requested, __ATOMIC_RELAXED))
		(void)__atomic_exchange_n(&drain_requested, false, __ATOMIC_SEQ_CST);
	return !log_ring_empty(&ring) || __atomic_load_n(&input_waiting, __ATOMIC_RELAXED) ||
	       ticking;
}

void console_set_tick(bool (*tick)(void))
{
	drain_tick = tick;
}

void console_set_drainer(unsigned int cpu)
{
	__atomic_store_n(&drainer, cpu, __ATOMIC_RELEASE);
}

/* Writes out everything queued, waiting on the UART: boot and panic only. */
static void console_write_through(void)
{
	console_drain_lock();
	log_ring_take(&ring, console_sink_wait, NULL);
	console_drain_unlock();
}

static void console_append(const char *s, unsigned int len)
{
	unsigned int d;

	spin_lock(&ring_lock);
	__atomic_store_n(&ring_holder, this_cpu()->cpu, __ATOMIC_RELAXED);
	log_ring_append(&ring, s, len);
	__atomic_store_n(&ring_holder, NO_DRAINER, __ATOMIC_RELAXED);
	spin_unlock(&ring_lock);

	d = __atomic_load_n(&drainer, __ATOMIC_ACQUIRE);
	if (d == NO_DRAINER)
		console_write_through();
	else if (d != this_cpu()->cpu &&
		 !__atomic_exchange_n(&drain_requested, true, __ATOMIC_SEQ_CST))
		lapic_send_ipi(percpu[d].apic_id, VECTOR_WAKEUP);
}

static int console_format(char *line, const char *prefix, const char *suffix,
			  const char *fmt, va_list ap)
{
	int len = 0;

	if (prefix)
		len = snprintf(line, CONSOLE_LINE_MAX, "%s", prefix);
	len += vsnprintf(line + len, CONSOLE_LINE_MAX - len, fmt, ap);
	if (suffix && len < CONSOLE_LINE_MAX)
		len += snprintf(line + len, CONSOLE_LINE_MAX - len, "%s", suffix);
	if (len >= CONSOLE_LINE_MAX)
		len = CONSOLE_LINE_MAX - 1;
	return len;
}

void console_capture(struct console_capture *capture)
{
	this_cpu()->capture = capture;
}

/* Whole lines only: once one does not fit, the report ends before it. */
static void console_capture_append(struct console_capture *c, const char *s, unsigned int len)
{
	if (c->full || len > c->size - c->len) {
		c->full = true;
		return;
	}
	memcpy(c->buf + c->len, s, len);
	c->len += len;
}

void printk(const char *fmt, ...)
{
	struct console_capture *capture = this_cpu()->capture;
	char line[CONSOLE_LINE_MAX];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = console_format(line, NULL, NULL, fmt, ap);
	va_end(ap);
	if (capture)
		console_capture_append(capture, line, len);
	else
		console_append(line, len);
}

/* Pure modules report malformed input here; each message is its own line. */
void log_msg(const char *fmt, ...)
{
	char line[CONSOLE_LINE_MAX];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = console_format(line, NULL, "\n", fmt, ap);
	va_end(ap);
	console_append(line, len);
}

/* Another core that drains in its loop, for a drainer that panics; NO_DRAINER if none. */
static unsigned int console_heir(unsigned int self)
{
	for (unsigned int cpu = 0; cpu < MAX_CPUS; cpu++)
		if (cpu != self && percpu[cpu].online && percpu[cpu].role == CPU_ROLE_SIDECORE)
			return cpu;
	return NO_DRAINER;
}

/**
 * panic() - print a message and stop this core for good
 * @fmt: printf-style format of the message, printed after "panic: "
 * @...: the format's arguments
 *
 * While another core drains the console (this one is not the drainer, or
 * hands the role to a sidecore), the message is queued like any line and
 * that core writes it out: the other cores' lines stay lossy and the
 * operator's input is still read. Only with no other drainer does this
 * core write out what is queued and the message past the ring, and every
 * later line is written through. A panic inside the console's own append
 * or drain (this core holds its lock) skips the lock rather than wait for
 * itself.
 */
void panic(const char *fmt, ...)
{
	unsigned int self = this_cpu()->cpu, d;
	char line[CONSOLE_LINE_MAX];
	va_list ap;
	bool locked;
	int len;

	irq_disable();
	va_start(ap, fmt);
	len = console_format(line, "panic: ", "\nsidecore: halted\n", fmt, ap);
	va_end(ap);
	d = __atomic_load_n(&drainer, __ATOMIC_ACQUIRE);
	if (d == self) {
		d = console_heir(self);
		/* The UART's interrupt still names this core: the heir polls for input. */
		__atomic_store_n(&input_polled, true, __ATOMIC_RELAXED);
		__atomic_store_n(&drainer, d, __ATOMIC_RELEASE);
	}
	if (d != NO_DRAINER && __atomic_load_n(&ring_holder, __ATOMIC_RELAXED) != self &&
	    __atomic_load_n(&drain_holder, __ATOMIC_RELAXED) != self) {
		console_append(line, len);
		cpu_halt_forever();
	}
	__atomic_store_n(&drainer, NO_DRAINER, __ATOMIC_RELEASE);
	locked = __atomic_load_n(&drain_holder, __ATOMIC_RELAXED) != self;
	if (locked)
		console_drain_lock();
	log_ring_take(&ring, console_sink_wait, NULL);
	serial_write(line, len);
	if (locked)
		console_drain_unlock();
	cpu_halt_forever();
}
