/* SPDX-License-Identifier: MIT */
/*
 * probe.c - the round trip of one cache line between two cores
 * (probe.h): a ping-pong of a counter, each side waiting for the other's
 * value before writing its own.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>

#include "cpu/io.h"
#include "tools/dpbench/probe.h"

#define TRIPS	20000
#define ROUNDS	5

struct probe {
	_Alignas(64) volatile uint64_t ball;
	int cpu;
};

static void probe_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* The far side: answers each odd value with the next even one. */
static void *probe_echo(void *arg)
{
	struct probe *p = arg;

	probe_pin(p->cpu);
	for (uint64_t want = 1; want < 2 * (uint64_t)TRIPS * ROUNDS; want += 2) {
		while (__atomic_load_n(&p->ball, __ATOMIC_ACQUIRE) != want)
			cpu_relax();
		__atomic_store_n(&p->ball, want + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

double probe_round_trip(int cpu_a, int cpu_b)
{
	struct probe p = { .ball = 0, .cpu = cpu_b };
	double best = 0;
	uint64_t value = 0;
	pthread_t echo;
	cpu_set_t old;

	pthread_getaffinity_np(pthread_self(), sizeof(old), &old);
	if (pthread_create(&echo, NULL, probe_echo, &p))
		return 0;
	probe_pin(cpu_a);
	for (unsigned int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = rdtsc();

		for (unsigned int i = 0; i < TRIPS; i++) {
			__atomic_store_n(&p.ball, ++value, __ATOMIC_RELEASE);
			while (__atomic_load_n(&p.ball, __ATOMIC_ACQUIRE) != value + 1)
				cpu_relax();
			value++;
		}
		double ticks = (double)(rdtsc() - t0) / TRIPS;

		if (!r || ticks < best)
			best = ticks;
	}
	pthread_join(echo, NULL);
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	return best;
}
