/* SPDX-License-Identifier: MIT */
/*
 * probe.h - how far apart the bench's two cores are: the round trip of one
 * cache line between them (docs/data-path.md, "On the host's CPU").
 */
#ifndef SIDECORE_DPBENCH_PROBE_H
#define SIDECORE_DPBENCH_PROBE_H

/**
 * probe_round_trip() - TSC ticks for a cache line to go to the other core and back
 * @cpu_a: the core one side is pinned to
 * @cpu_b: the core the other side is pinned to
 *
 * One thread on each core hands a counter back and forth through one line,
 * as a ring index crosses between a driver and the sidecore; the best of
 * a few rounds is reported, as one the scheduler did not interrupt. A machine whose two cores share no cache (or
 * whose virtual CPUs moved apart) shows a longer trip, and every packet
 * pays it several times.
 *
 * Return: ticks per round trip, or 0 when the threads could not be started.
 */
double probe_round_trip(int cpu_a, int cpu_b);

#endif
