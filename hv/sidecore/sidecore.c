/* SPDX-License-Identifier: MIT */
/*
 * sidecore.c - the poll loop (docs/data-path.md) on the sidecore's own core:
 * passes (poll.c) back to back while a port is live; with none live it
 * idles in HLT until sidecore_wake().
 */
#include <string.h>

#include "arch/console.h"
#include "arch/idt.h"
#include "arch/lapic.h"
#include "arch/percpu.h"
#include "arch/tsc.h"
#include "arch/x86.h"
#include "config/config.h"
#include "lib/profile.h"
#include "mm/page_alloc.h"
#include "net/spsc_ring.h"
#include "sidecore/sidecore.h"

/* The planner marks at most CONFIG_MAX_SIDECORES cores; the switch serves as many. */
_Static_assert(CONFIG_MAX_SIDECORES == NET_MAX_SIDECORES, "config and switch disagree on sidecores");
/* Every guest may be placed on one sidecore, and each has two ports: its NIC and vsock device. */
_Static_assert(SIDECORE_MAX_PORTS >= 2 * CONFIG_MAX_GUESTS, "a sidecore cannot serve every guest");
/* A switch port per guest NIC and an uplink per sidecore. */
_Static_assert(NET_MAX_PORTS >= CONFIG_MAX_GUESTS + NET_MAX_SIDECORES,
	       "the switch has too few ports");

extern const char __text_start[], __text_end[];

static struct sidecore sidecores[NET_MAX_SIDECORES];
static unsigned int sidecore_count;
static struct net_switch net_switch;

/* A ring lives on the node of the sidecore that reads it. */
static struct spsc_ring *sidecore_alloc_ring(unsigned int node)
{
	uint64_t bytes = (sizeof(struct spsc_ring) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	uint64_t phys = page_alloc_node(node, bytes, PAGE_SIZE);
	struct spsc_ring *ring = (struct spsc_ring *)(uintptr_t)phys;

	if (ring)
		spsc_ring_init(ring);
	return ring;
}

static struct profile *sidecore_alloc_profile(unsigned int node)
{
	uint64_t bytes = (sizeof(struct profile) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	struct profile *p = (struct profile *)(uintptr_t)page_alloc_node(node, bytes, PAGE_SIZE);

	if (p)
		profile_init(p, (uintptr_t)__text_start, (uintptr_t)__text_end);
	return p;
}

void sidecore_setup(void)
{
	net_switch_init(&net_switch);
	for (unsigned int c = 0; c < MAX_CPUS; c++) {
		if (!percpu[c].online || percpu[c].role != CPU_ROLE_SIDECORE)
			continue;
		/* Without a struct sidecore the core must not enter the poll loop. */
		if (sidecore_count == NET_MAX_SIDECORES) {
			printk("sidecore: cpu %u left idle: at most %u sidecores\n", c,
			       NET_MAX_SIDECORES);
			percpu[c].role = CPU_ROLE_IDLE;
			continue;
		}
		sidecores[sidecore_count].index = sidecore_count;
		sidecores[sidecore_count].cpu = c;
		sidecores[sidecore_count].sw = &net_switch;
		sidecores[sidecore_count].tx_holdoff = SIDECORE_TX_HOLDOFF_US *
						       (tsc_hz() / 1000000);
		sidecores[sidecore_count].profile = sidecore_alloc_profile(percpu[c].node);
		sidecore_count++;
	}
	for (unsigned int from = 0; from < sidecore_count; from++) {
		for (unsigned int to = 0; to < sidecore_count; to++) {
			struct spsc_ring *ring;

			if (from == to)
				continue;
			ring = sidecore_alloc_ring(percpu[sidecores[to].cpu].node);
			if (!ring) {
				printk("sidecore: no memory for the ring %u -> %u\n", from, to);
				continue;
			}
			net_switch_add_ring(&net_switch, from, to, ring);
		}
	}
}

struct sidecore *sidecore_of_cpu(unsigned int cpu)
{
	for (unsigned int i = 0; i < sidecore_count; i++)
		if (sidecores[i].cpu == cpu)
			return &sidecores[i];
	return NULL;
}

struct sidecore *sidecore_by_index(unsigned int index)
{
	return index < sidecore_count ? &sidecores[index] : NULL;
}

void sidecore_wake(struct sidecore *sc)
{
	if (sc->cpu != this_cpu()->cpu)
		lapic_send_ipi(percpu[sc->cpu].apic_id, VECTOR_WAKEUP);
}

static uint64_t profile_period;

/* The host timer's interrupt on a sidecore: one sample, then the next deadline. */
static void sidecore_profile_tick(uint64_t rip)
{
	struct sidecore *sc = sidecore_of_cpu(this_cpu()->cpu);

	profile_sample(sc->profile, rip);
	lapic_timer_arm(rdtsc() + profile_period);
}

/*
 * The profile's timer is the only interrupt a sidecore takes while it
 * polls: its handler counts and re-arms, touching nothing the loop holds.
 */
static void sidecore_start_profile(struct sidecore *sc)
{
	if (!sc->profile)
		return;
	profile_period = tsc_hz() / SIDECORE_PROFILE_HZ;
	lapic_timer_init();
	this_cpu()->timer_tick = sidecore_profile_tick;
	lapic_timer_arm(rdtsc() + profile_period);
}

void sidecore_run(struct sidecore *sc)
{
	printk("sidecore %u: polling on cpu %u, %u ports\n", sc->index, sc->cpu,
	       sc->port_count);
	sidecore_start_profile(sc);
	for (;;) {
		bool live = false;

		irq_enable();
		sidecore_poll(sc, &live);
		if (console_drain() || live)
			cpu_relax();
		else
			cpu_idle();	/* nothing live: wait for sidecore_wake() */
	}
}

/* The profile's hit buckets, a bounded number per line. */
static void sidecore_print_profile(const struct sidecore *sc)
{
	char pairs[160];
	unsigned int next = 0;

	if (!sc->profile)
		return;
	printk("counters: profile sidecore %u hz %u samples %lu outside %lu\n", sc->index,
	       SIDECORE_PROFILE_HZ, sc->profile->samples, sc->profile->outside);
	while (next < sc->profile->buckets) {
		next = profile_format(sc->profile, next, pairs, sizeof(pairs));
		if (pairs[0])
			printk("counters: profile sidecore %u buckets%s\n", sc->index, pairs);
	}
}

bool sidecore_print_stat(unsigned int index)
{
	if (index >= sidecore_count)
		return false;
	printk("stat: sidecore %u tsc %lu cpu %u busy_tsc %lu packets %lu\n", index, rdtsc(),
	       sidecores[index].cpu, sidecores[index].busy_tsc,
	       net_switch.sidecore[index].packets);
	return true;
}

bool sidecore_print_port_stat(unsigned int index, unsigned int port)
{
	const struct sidecore_port *p;

	if (index >= sidecore_count || port >= sidecores[index].port_count)
		return false;
	p = sidecores[index].port[port];
	if (p->ops->print_stat)
		p->ops->print_stat(p, index, rdtsc());
	return true;
}

void sidecore_print_counters(void)
{
	for (unsigned int i = 0; i < sidecore_count; i++) {
		const struct net_sidecore_stats *s = &net_switch.sidecore[i];
		const struct sidecore_hop *hop = &sidecores[i].hop;

		printk("counters: sidecore %u cpu %u busy_polls %lu idle_polls %lu batches %lu packets %lu busy_tsc %lu hop_packets %lu hop_tsc %lu hop_max %lu interval_tsc %lu interval_max %lu\n",
		       i, sidecores[i].cpu, s->busy_polls, s->idle_polls, s->batches, s->packets,
		       sidecores[i].busy_tsc, hop->packets, hop->pass_sum, hop->pass_max,
		       hop->interval_sum, hop->interval_max);
	}
	for (unsigned int i = 0; i < sidecore_count; i++)
		sidecore_print_profile(&sidecores[i]);
	for (unsigned int i = 0; i < sidecore_count; i++) {
		for (unsigned int p = 0; p < sidecores[i].port_count; p++) {
			const struct sidecore_port *port = sidecores[i].port[p];

			port->ops->print_counters(port, i);
		}
	}
}
