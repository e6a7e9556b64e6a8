/* SPDX-License-Identifier: MIT */
/*
 * guests.h - from the config to running guests: core roles (one sidecore
 * per node at least), placement, creation, and handing each vCPU to its core.
 */
#ifndef SIDECORE_INIT_GUESTS_H
#define SIDECORE_INIT_GUESTS_H

#include "config/config.h"
#include "init/bootinfo.h"
#include "platform/topology.h"

/* Marks sidecores and free cores in percpu[] (every online core counts). */
void guests_assign_roles(const struct topology *topo, const struct config *config);
/*
 * Places and builds every valid guest; reports each one that cannot start.
 * A guest whose boot modules are missing is marked invalid in config.
 */
void guests_create(struct config *config, const struct boot_info *boot);
/* Prints the role and guest lines of the boot summary. */
void guests_print_summary(const struct topology *topo);
/*
 * Every guest's, sidecore's and port's counters between "counters: begin
 * tag T" and "counters: end tag T" lines: the tag lets a benchmark pair
 * the snapshots it asked for.
 */
void guests_print_counters(unsigned int tag);
/* Sends every vCPU core off to run its guest. */
void guests_start(void);

#endif
