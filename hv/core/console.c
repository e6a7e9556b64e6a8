/* SPDX-License-Identifier: MIT */
/*
 * console.c - formatted output to the serial console, and the panic path.
 */
#include <stdarg.h>

#include "arch/x86.h"
#include "core/console.h"
#include "core/spinlock.h"
#include "drivers/serial.h"
#include "lib/log.h"
#include "lib/printf.h"

static struct spinlock console_lock;

static void console_vprint(const char *prefix, const char *fmt, va_list ap)
{
	char line[512];
	int len = 0;

	if (prefix)
		len = snprintf(line, sizeof(line), "%s", prefix);
	len += vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	if (len >= (int)sizeof(line))
		len = sizeof(line) - 1;

	spin_lock(&console_lock);
	serial_write(line, len);
	spin_unlock(&console_lock);
}

void printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	console_vprint(NULL, fmt, ap);
	va_end(ap);
}

/* Pure modules report malformed input here; each message is its own line. */
void log_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	console_vprint("warning: ", fmt, ap);
	va_end(ap);
	printk("\n");
}

void panic(const char *fmt, ...)
{
	va_list ap;

	irq_disable();
	va_start(ap, fmt);
	console_vprint("panic: ", fmt, ap);
	va_end(ap);
	printk("\nsidecore: halted\n");
	cpu_halt_forever();
}
