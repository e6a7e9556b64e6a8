/* SPDX-License-Identifier: MIT */
/*
 * guests.h - from the config to running guests: core roles (one sidecore
 * per node at least), placement, creation, and handing each vCPU to its core.
 */
#ifndef SIDECORE_INIT_GUESTS_H
#define SIDECORE_INIT_GUESTS_H

#include "config/config.h"
#include "guest/guest.h"
#include "init/bootinfo.h"
#include "platform/topology.h"

/**
 * guests_assign_roles() - mark the sidecores and the free cores in percpu[]
 * @topo: the machine's topology
 * @config: its `sidecores` key names the CPUs to use first
 *
 * Every online core counts as usable; each node keeps 16 MiB of its free
 * pages back from guests for EPT tables, VMCS pages and buffers. Runs the
 * planner the host tool's `plan` command uses, on what the hypervisor has.
 */
void guests_assign_roles(const struct topology *topo, const struct config *config);

/**
 * guests_create() - place and build every valid guest
 * @config: the parsed config; a guest whose boot modules are missing is
 *	marked invalid in it
 * @boot: the boot information, for the kernel and initramfs modules
 *
 * Call after guests_assign_roles(). Each guest gets its network device and
 * its cores their vCPUs; one that cannot start is reported and takes no
 * core.
 */
void guests_create(struct config *config, const struct boot_info *boot);

/**
 * guests_print_summary() - print the role and guest lines of the boot summary
 * @topo: the machine's topology
 */
void guests_print_summary(const struct topology *topo);

/**
 * guests_print_counters() - print every guest's, sidecore's and port's counters
 * @tag: number printed in the "counters: begin tag T" and "counters: end
 *	tag T" lines around them
 *
 * The tag lets a benchmark pair the snapshots it asked for (a guest's
 * write to GUEST_COUNTERS_PORT).
 */
void guests_print_counters(unsigned int tag);

/**
 * guests_print_stat() - print one guest's "stat:" line
 * @index: the guest's place in the config
 *
 * Return: false, printing nothing, when there are not that many guests.
 */
bool guests_print_stat(unsigned int index);

/**
 * guests_start() - send every sidecore and vCPU core off to work
 *
 * Wakes them from their idle loop with an IPI; the caller, if a sidecore,
 * starts its own loop afterwards.
 */
void guests_start(void);

/**
 * guests_find() - the guest of a name
 * @name: as in its config section
 *
 * Return: the guest, or NULL if none was created with that name.
 */
struct guest *guests_find(const char *name);

/**
 * guests_print_list() - one line per guest: name, state, vCPUs, restarts
 */
void guests_print_list(void);

#endif
