/* SPDX-License-Identifier: MIT */
/*
 * guest_log.c - per-guest console lines through a token bucket.
 *
 * The bucket is generous: a Linux boot log (a few hundred lines at once)
 * passes whole. Past it a guest gets GUEST_LOG_PER_SECOND lines a second:
 * even at the UART's longest line that is about half of what 115200 baud
 * carries, so one guest cannot keep the 256 KiB console ring full.
 */
#include <stdarg.h>

#include "arch/console.h"
#include "arch/tsc.h"
#include "arch/x86.h"
#include "guest/guest.h"
#include "guest/guest_log.h"
#include "lib/printf.h"
#include "lib/ratelimit.h"

#define GUEST_LOG_BURST		1024
#define GUEST_LOG_PER_SECOND	20
#define GUEST_LOG_LINE_MAX	512

/**
 * guest_log_allow() - spend one of the guest's console tokens.
 * @g: the guest.
 *
 * For output a guest causes that is not one guest_log() line (a counter
 * dump it asks for): one token stands for the whole of it. When allowed
 * after refusals, first prints "[name] N console lines suppressed".
 *
 * Return: true if the output may go out, false if it is to be skipped.
 */
bool guest_log_allow(struct guest *g)
{
	uint64_t now = rdtsc(), suppressed = 0;
	bool allow;

	spin_lock(&g->log_lock);
	/* The guest's struct starts zeroed: the first line fills the bucket. */
	if (!g->log_limit.burst)
		ratelimit_init(&g->log_limit, GUEST_LOG_BURST,
			       tsc_hz() / GUEST_LOG_PER_SECOND, now);
	allow = ratelimit_allow(&g->log_limit, now, &suppressed);
	spin_unlock(&g->log_lock);
	if (allow && suppressed)
		printk("[%s] %lu console lines suppressed\n", g->name, suppressed);
	return allow;
}

static bool guest_log_gate_allow(void *ctx)
{
	return guest_log_allow(ctx);
}

/**
 * guest_log_gate_init() - the guest's bucket, for the pure modules of its devices
 * @gate: filled in; hand it to virtio_pci_set_log_gate() and guest_mem's @log
 * @g: the guest
 */
void guest_log_gate_init(struct log_gate *gate, struct guest *g)
{
	gate->allow = guest_log_gate_allow;
	gate->ctx = g;
}

/**
 * guest_log() - print one line on behalf of a guest, if its bucket allows.
 * @g: the guest; its name prefixes the line as "[name] ".
 * @fmt: printf format, ending in a newline like printk's.
 * @...: the format's arguments.
 *
 * Refused lines are only counted; the next line let through is preceded by
 * "[name] N console lines suppressed".
 */
void guest_log(struct guest *g, const char *fmt, ...)
{
	char line[GUEST_LOG_LINE_MAX];
	va_list ap;
	int len;

	if (!guest_log_allow(g))
		return;
	len = snprintf(line, sizeof(line), "[%s] ", g->name);
	va_start(ap, fmt);
	vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	va_end(ap);
	printk("%s", line);
}
