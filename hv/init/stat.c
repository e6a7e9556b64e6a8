/* SPDX-License-Identifier: MIT */
/*
 * stat.c - the live counters (docs/operator.md, "Live counters"): once a
 * second, while the operator has them on, a "stat:" sample on the console,
 * one line per pass of the drainer's loop, so a sidecore that drains the
 * console spends no more on a pass than one line costs.
 */
#include "arch/console.h"
#include "arch/tsc.h"
#include "arch/x86.h"
#include "init/guests.h"
#include "init/stat.h"
#include "sidecore/sidecore.h"

enum stat_step { STAT_IDLE, STAT_GUESTS, STAT_PORTS, STAT_SIDECORES };

/* The drainer's alone: the tick and the command both run there. */
static struct {
	uint64_t next;		/* TSC of the next sample */
	unsigned int seq;
	enum stat_step step;
	unsigned int i, j;	/* guest, sidecore; port */
} stat;

/* The sample's next line; its end line after the last. */
static void stat_line(void)
{
	switch (stat.step) {
	case STAT_GUESTS:
		if (guests_print_stat(stat.i++))
			return;
		stat.step = STAT_PORTS;
		stat.i = 0;
		stat.j = 0;
		/* fall through */
	case STAT_PORTS:
		for (; sidecore_by_index(stat.i); stat.i++, stat.j = 0)
			if (sidecore_print_port_stat(stat.i, stat.j++))
				return;
		stat.step = STAT_SIDECORES;
		stat.i = 0;
		/* fall through */
	case STAT_SIDECORES:
		if (sidecore_print_stat(stat.i++))
			return;
		printk("stat: end %u\n", stat.seq);
		stat.step = STAT_IDLE;
		return;
	case STAT_IDLE:
		return;
	}
}

/* The drainer's tick: it keeps the drainer out of HLT, so samples keep time. */
static bool stat_tick(void)
{
	uint64_t now;

	if (stat.step != STAT_IDLE) {
		stat_line();
		return true;
	}
	now = rdtsc();
	if (now < stat.next)
		return true;
	stat.next = now + tsc_hz();
	stat.seq++;
	printk("stat: sample %u tsc %lu hz %lu\n", stat.seq, now, tsc_hz());
	stat.step = STAT_GUESTS;
	stat.i = 0;
	return true;
}

void stat_switch(bool on)
{
	stat.step = STAT_IDLE;
	stat.next = 0;
	console_set_tick(on ? stat_tick : NULL);
	printk("operator: live counters %s\n", on ? "on (a stat: sample a second)" : "off");
}
