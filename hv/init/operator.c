/* SPDX-License-Identifier: MIT */
/*
 * operator.c - the console's commands, run on the drainer core
 * (docs/operator.md). A guest is stopped or restarted through
 * guest_request(), which reaches its cores by NMI: a guest that runs with
 * every interrupt held back is stopped all the same.
 */
#include "arch/console.h"
#include "arch/idt.h"
#include "arch/ioapic.h"
#include "arch/percpu.h"
#include "config/command.h"
#include "guest/guest.h"
#include "init/guests.h"
#include "init/operator.h"
#include "init/stat.h"
#include "platform/console_port.h"

static void operator_guest(enum command_verb verb, struct guest *g)
{
	enum guest_state state = g->state;
	bool running = state == GUEST_RUNNING || state == GUEST_STARTING;

	switch (verb) {
	case COMMAND_STOP:
		if (!running) {
			printk("operator: guest %s is %s already\n", g->name, guest_state_name(state));
			return;
		}
		printk("operator: stopping guest %s\n", g->name);
		guest_request(g, GUEST_REQUEST_STOP);
		return;
	case COMMAND_START:
		if (running) {
			printk("operator: guest %s is %s already\n", g->name, guest_state_name(state));
			return;
		}
		printk("operator: starting guest %s\n", g->name);
		guest_request(g, GUEST_REQUEST_RESTART);
		return;
	default:
		printk("operator: restarting guest %s\n", g->name);
		guest_request(g, GUEST_REQUEST_RESTART);
		return;
	}
}

static void operator_line(const char *text)
{
	struct command cmd;
	char error[96];
	struct guest *g;

	printk("operator: > %s\n", text);
	if (!command_parse(text, &cmd, error, sizeof(error))) {
		printk("operator: %s\n", error);
		return;
	}
	switch (cmd.verb) {
	case COMMAND_HELP:
		printk("operator: commands: guests | counters | stat on|off | stop NAME | start NAME | restart NAME\n");
		return;
	case COMMAND_GUESTS:
		guests_print_list();
		return;
	case COMMAND_COUNTERS:
		guests_print_counters(0);
		return;
	case COMMAND_STAT:
		stat_switch(cmd.stat_on);
		return;
	default:
		g = guests_find(cmd.guest);
		if (!g) {
			printk("operator: no guest named '%s'\n", cmd.guest);
			return;
		}
		operator_guest(cmd.verb, g);
	}
}

void operator_start(const struct topology *topo, unsigned int cpu, uint16_t port,
		    uint8_t irq)
{
	if (irq == CONSOLE_PORT_NO_IRQ) {
		printk("operator: no IRQ known for the console at %#x: no console commands\n",
		       port);
		return;
	}
	if (!ioapic_route_isa(topo, irq, VECTOR_CONSOLE, percpu[cpu].apic_id)) {
		printk("operator: no I/O APIC line for the console at %#x (IRQ %u): no console commands\n",
		       port, irq);
		return;
	}
	console_enable_input(operator_line);
	printk("operator: console commands on cpu %u, %#x IRQ %u (help lists them)\n", cpu,
	       port, irq);
}
