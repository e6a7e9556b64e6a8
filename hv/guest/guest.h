/* SPDX-License-Identifier: MIT */
/*
 * guest.h - guests and their vCPUs. A guest owns a contiguous block of its
 * node's RAM, an EPT, its emulated devices and one vCPU per pinned core.
 */
#ifndef SIDECORE_GUEST_GUEST_H
#define SIDECORE_GUEST_GUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/spinlock.h"
#include "config/config.h"
#include "guest/guest_device.h"
#include "lib/ratelimit.h"
#include "vdev/pci.h"
#include "vdev/uart.h"
#include "vdev/vlapic.h"
#include "vmx/ept.h"
#include "vmx/posted.h"
#include "vmx/vmcs.h"

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

/* Layout fixed by vmx_entry.S. */
struct guest_regs {
	uint64_t rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
};

/* Why a vCPU left its run loop. */
enum vcpu_stop {
	VCPU_STOP_NONE,
	VCPU_STOP_POWEROFF,
	VCPU_STOP_CRASH,
};

struct guest;

struct vcpu {
	struct guest *guest;
	unsigned int index;
	unsigned int cpu;		/* the physical core it is pinned to */
	uint32_t apic_id;
	uint16_t vpid;
	struct guest_regs regs;
	bool launched;

	uint64_t vmcs;			/* host-physical pages, identity-mapped */
	uint64_t msr_bitmap;
	uint64_t io_bitmap;		/* two pages: A then B */
	uint64_t virtual_apic;
	uint32_t pin_controls, proc_controls;
	uint32_t cpu_controls;		/* GUEST_CPU_*: instructions VMX lets through */
	bool apicv;			/* APIC-register virtualization + virtual-interrupt delivery */

	uint64_t tsc_offset;		/* guest TSC = host TSC + this (mod 2^64) */
	/*
	 * Interrupts other cores raise for this vCPU (the sidecore's MSI-X
	 * messages), in a posted-interrupt descriptor (SDM Vol. 3C §30.6) that
	 * the vCPU's core collects before each entry.
	 */
	struct pi_desc pi;
	bool posted_by_cpu;		/* the processor takes posts (§30.6); else kicks (arch/kick.c) */
	uint64_t posted_kicks;		/* notifications sent to bring the vCPU round */
	struct vlapic lapic;		/* runs on guest TSC time */
	uint64_t exits[EXIT_REASON_COUNT];
	uint64_t exits_total;
	uint64_t exceptions_injected;
	uint64_t doorbells;		/* virtqueue notifications the guest wrote */
	uint64_t halted_tsc;		/* TSC ticks spent halted (HLT exits) */
	enum vcpu_stop stop;
	char stop_reason[96];
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
	struct pci_bus pci;
	struct pci_device host_bridge;

	unsigned int vcpu_count;
	struct vcpu vcpu[GUEST_MAX_VCPUS];

	/* Its devices (guest_device.h), each in its creator's memory. */
	struct guest_device *device[GUEST_MAX_DEVICES];
	unsigned int device_count;
	/*
	 * Prints every guest's and sidecore's counters, tagged (a write to
	 * GUEST_COUNTERS_PORT); its creator (core/guests.c) sets it.
	 */
	void (*print_counters)(unsigned int tag);

	uint8_t io_port_logged[65536 / 8];	/* unclaimed ports reported once */

	struct spinlock log_lock;	/* guards log_limit: any of its vCPUs may log */
	struct ratelimit log_limit;	/* its console lines (vm/guest_log.c) */
};

/* Builds and loads one guest from its config section; false (reported) on failure. */
bool guest_create(struct guest *guest, unsigned int id, const struct config_guest *config,
		  unsigned int node, const unsigned int *cpus, unsigned int vcpu_count,
		  const void *kernel, uint64_t kernel_size,
		  const void *initrd, uint64_t initrd_size);
/* Runs vCPU v on the calling core until the guest stops for good. */
void guest_run_vcpu(struct vcpu *v);
void guest_print_counters(const struct guest *guest);
const char *guest_state_name(enum guest_state state);

/* vcpu.c: VMCS life cycle and the run loop. */
bool vcpu_create(struct vcpu *v);
bool vcpu_reset(struct vcpu *v);
enum vcpu_stop vcpu_run(struct vcpu *v);
void vcpu_stop(struct vcpu *v, enum vcpu_stop why, const char *reason);
/* Lets vCPUs use the CPU's posted interrupts where it has them (config key). */
void vcpu_allow_posted_interrupts(bool allow);
/* Raises vector in v's APIC from any core; v's core merges it before its next entry. */
void vcpu_post_interrupt(struct vcpu *v, uint8_t vector);
bool vcpu_collect_posted(struct vcpu *v);

/* The guest's TSC now; IA32_TSC and IA32_TSC_ADJUST writes move it. */
uint64_t vcpu_guest_tsc(const struct vcpu *v);
void vcpu_set_tsc_offset(struct vcpu *v, uint64_t offset);
void vcpu_inject_exception(struct vcpu *v, uint8_t vector, bool has_error, uint32_t error);
void vmx_skip_instruction(void);
uint64_t *vcpu_gpr(struct vcpu *v, unsigned int index);
void vcpu_dump(struct vcpu *v);

/* vcpu_exit.c: one handler per exit reason; false ends the run loop. */
bool vcpu_handle_exit(struct vcpu *v, uint32_t reason);

/* vcpu_memory.c: guest memory as the vCPU sees it. */
void *guest_gpa_to_host(const struct guest *guest, uint64_t gpa, uint64_t len);
/* Copies len bytes at guest-virtual gva (per the vCPU's paging) into buf. */
bool vcpu_read_guest_virtual(struct vcpu *v, uint64_t gva, void *buf, unsigned int len);

#endif
