/* SPDX-License-Identifier: MIT */
/*
 * guest.h - a guest: its life, its devices and its memory. A guest owns a
 * contiguous block of its node's RAM, an EPT, its emulated devices and one
 * vCPU per pinned core (vcpu.h).
 */
#ifndef SIDECORE_GUEST_GUEST_H
#define SIDECORE_GUEST_GUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/spinlock.h"
#include "config/config.h"
#include "guest/guest_device.h"
#include "guest/vcpu.h"
#include "guest/vcpu_life.h"
#include "lib/ratelimit.h"
#include "vdev/vpci.h"
#include "vdev/uart.h"
#include "vmx/ept.h"

#define GUEST_MAX		LIMIT_GUESTS
#define GUEST_MAX_VCPUS		LIMIT_GUEST_VCPUS
#define GUEST_MAX_DEVICES	8	/* emulated devices besides the platform's */
#define GUEST_NAME_MAX		32

enum guest_state {
	GUEST_STARTING,
	GUEST_RUNNING,
	GUEST_STOPPED,
	GUEST_CRASHED,
};

struct guest {
	unsigned int id;
	char name[GUEST_NAME_MAX];
	const struct config_guest *config;
	volatile enum guest_state state;
	unsigned int node;
	unsigned int restarts;

	uint64_t ram_hpa;		/* guest-physical 0 */
	uint64_t ram_size;
	struct ept ept;

	const void *kernel;		/* the boot modules, read-only */
	uint64_t kernel_size;
	const void *initrd;
	uint64_t initrd_size;

	struct {			/* the loader's entry state for vCPU 0 */
		uint64_t rip, rsi, cr3, gdt_base;
		uint16_t gdt_limit, cs, ds;
	} boot;

	struct uart uart;
	struct vpci_bus pci;
	struct vpci_device host_bridge;

	unsigned int vcpu_count;
	struct vcpu vcpu[GUEST_MAX_VCPUS];
	/* Which life runs, the start signals and who is parked (vcpu_life.h). */
	struct guest_life life;

	/* Its devices (guest_device.h), each in its creator's memory. */
	struct guest_device *device[GUEST_MAX_DEVICES];
	unsigned int device_count;
	/*
	 * Prints every guest's and sidecore's counters, tagged (a write to
	 * GUEST_COUNTERS_PORT); its creator (init/guests.c) sets it.
	 */
	void (*print_counters)(unsigned int tag);

	uint8_t io_port_logged[65536 / 8];	/* unclaimed ports reported once */

	struct spinlock log_lock;	/* guards log_limit: any of its vCPUs may log */
	struct ratelimit log_limit;	/* its console lines (guest/guest_log.c) */
};

/**
 * guest_create() - build one guest and load its kernel
 * @guest: filled in; it must stay put, as its vCPUs and devices point at it
 * @id: the guest's number, counting the guests created so far from 0
 * @config: its config section; it must outlive the guest
 * @node: NUMA node its RAM, EPT and vCPU pages come from
 * @cpus: the physical cores its vCPUs are pinned to, vcpu_count of them
 * @vcpu_count: how many vCPUs it has
 * @kernel: the bzImage boot module, read-only
 * @kernel_size: its size in bytes
 * @initrd: the initramfs boot module, or NULL
 * @initrd_size: its size in bytes
 *
 * Takes its RAM in one 2 MiB-aligned block of the node, maps it with EPT,
 * sets up the platform devices and every vCPU, and loads the kernel, the
 * initramfs and ACPI tables. Its other devices are added afterwards.
 *
 * Return: true on success; false, with the reason printed, when memory is
 * short or the kernel cannot be loaded.
 */
bool guest_create(struct guest *guest, unsigned int id, const struct config_guest *config,
		  unsigned int node, const unsigned int *cpus, unsigned int vcpu_count,
		  const void *kernel, uint64_t kernel_size,
		  const void *initrd, uint64_t initrd_size);
/**
 * guest_run_vcpu() - run a vCPU on the calling core until its guest is done
 * @v: the vCPU pinned to this core
 *
 * Enables VMX on the core, then runs the guest; each
 * time it powers off, crashes or is asked to stop, prints its counters and
 * applies the request or else the config's on_poweroff or on_crash: a
 * restart resets its devices and reloads it; a stop resets them, scrubs
 * the core and waits for a restart request (guest_request()). Returns only
 * if the guest cannot be loaded again or its core cannot be made clean.
 */
void guest_run_vcpu(struct vcpu *v);

/**
 * guest_request() - ask a guest's vCPUs to stop or restart
 * @g: the guest
 * @req: GUEST_REQUEST_STOP or GUEST_REQUEST_RESTART
 *
 * Posts the request to each vCPU and kicks its core with an NMI, which
 * reaches a VM exit whatever the guest does with its interrupts. Each vCPU
 * acts on it before its next VM entry, or, stopped, wakes for a restart.
 * A later request replaces one not yet taken. Callable from any core.
 */
void guest_request(struct guest *g, enum guest_request req);

/**
 * guest_start_vcpu() - start a waiting vCPU at a SIPI's vector
 * @target: the vCPU the SIPI names, of the sender's guest, not the sender
 * @vector: the SIPI's vector: the vCPU starts in real mode at CS:IP
 *	vector << 8:0, that is at guest-physical vector << 12 (SDM Vol. 3A
 *	§8.4.4.1)
 *
 * Called from the sender's core. A vCPU takes one SIPI per life of its
 * guest: later ones are ignored, as a processor that left wait-for-SIPI
 * ignores them (Linux sends two), and one sent once the life began to end
 * is dropped (vcpu_life_start()). The start page must be low RAM.
 *
 * Return: NULL when the vCPU starts or the SIPI is ignored; else why it
 * is refused.
 */
const char *guest_start_vcpu(struct vcpu *target, uint8_t vector);

/**
 * guest_print_counters() - print one "counters:" line per vCPU of a guest
 * @guest: the guest
 *
 * Exits, interrupts, injected faults and doorbells, then every exit reason
 * seen with its count.
 */
void guest_print_counters(const struct guest *guest);

/**
 * guest_state_name() - a guest state as the console prints it
 * @state: the state
 *
 * Return: "starting", "running", "stopped" or "crashed"; a static string.
 */
const char *guest_state_name(enum guest_state state);

/**
 * guest_print_stat() - print a guest's one "stat:" line
 * @guest: the guest
 *
 * Its exits, by reason, and the interrupts sent to it, summed over its
 * vCPUs and read without locks at the TSC the line carries
 * (docs/operator.md, "Live counters").
 */
void guest_print_stat(const struct guest *guest);

/* vcpu_memory.c: guest memory as the hypervisor reaches it. */

/**
 * guest_gpa_to_host() - where a range of guest RAM is in the hypervisor
 * @guest: the guest
 * @gpa: guest-physical address of the range
 * @len: its length in bytes
 *
 * Return: the host pointer, or NULL unless the whole range is guest RAM.
 */
void *guest_gpa_to_host(const struct guest *guest, uint64_t gpa, uint64_t len);

#endif
