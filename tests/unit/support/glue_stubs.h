/* SPDX-License-Identifier: MIT */
/*
 * glue_stubs.h - stand-ins for what the guest glue (hv/guest/guest_*.c)
 * calls outside the pure modules: the console, the guest's log and its
 * bucket (every line goes out), the counters snapshot (never asked), the
 * TSC (1 MHz) and the sidecore's wake-up (no core idles in HLT). Included
 * once by each test that compiles the glue in; each test brings its own
 * vcpu_send_interrupt().
 */
#ifndef SIDECORE_TESTS_GLUE_STUBS_H
#define SIDECORE_TESTS_GLUE_STUBS_H

#include <stdarg.h>
#include <stdio.h>

void printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void guest_log_gate_init(struct log_gate *gate, struct guest *g)
{
	gate->allow = NULL;
	gate->ctx = g;
}

void guest_log(struct guest *g, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "[%s] ", g->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void console_capture(struct console_capture *capture)
{
	(void)capture;
}

void guest_print_counters(const struct guest *guest)
{
	(void)guest;
}

uint64_t tsc_hz(void)
{
	return 1000000;
}

void sidecore_wake(struct sidecore *sc)
{
	(void)sc;
}

#endif
