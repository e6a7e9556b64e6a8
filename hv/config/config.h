/* SPDX-License-Identifier: MIT */
/*
 * config.h - the sidecore configuration file (docs/config.md).
 *
 * Line oriented: `key = value`, `# comments`, blank lines. Keys before the
 * first section header are global; `[guest NAME]` starts a guest's section.
 * Every error names its line and key. A bad global line is reported and
 * skipped; a guest section with any error is reported and marked invalid,
 * and every other guest still stands.
 */
#ifndef SIDECORE_CONFIG_CONFIG_H
#define SIDECORE_CONFIG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config_limits.h"

#define CONFIG_MAX_SIDECORES LIMIT_SIDECORES
#define CONFIG_MAX_GUESTS LIMIT_GUESTS
#define CONFIG_MAX_VCPUS LIMIT_GUEST_VCPUS
#define CONFIG_NAME_MAX 32		/* guest name, NUL included */
#define CONFIG_MODULE_NAME_MAX 64	/* as bootinfo keeps a module's name */
#define CONFIG_CMDLINE_MAX 2048		/* the x86 kernel's COMMAND_LINE_SIZE */
#define CONFIG_MAC_BYTES 6

#define CONFIG_DEFAULT_CONSOLE_BAUD 115200
#define CONFIG_GUEST_MEMORY_MIN (64ull << 20)	/* a stock kernel and its initrd */
#define CONFIG_GUEST_MEMORY_ALIGN (2ull << 20)	/* EPT maps guest RAM in 2 MiB pages */
#define CONFIG_FIRST_GUEST_CID 3		/* 0-2 are reserved, 2 is the host */

/*
 * Every message about the file starts this way (arguments: line number,
 * key), also those of whoever uses the result later, e.g. for a module
 * that is not there.
 */
#define CONFIG_ERROR_FORMAT "config line %u: key '%s': "

/* What to do when a guest crashes or powers off. */
enum config_action {
	CONFIG_ACTION_STOP,
	CONFIG_ACTION_RESTART,
};

/* Which physical NIC, if any, the sidecores use as their uplink. */
enum config_nic {
	CONFIG_NIC_NONE,	/* `nic` absent: guests reach only each other */
	CONFIG_NIC_FIRST,	/* `nic = first`: the first supported one on the buses */
	CONFIG_NIC_PCI,		/* `nic = BB:DD.F`: the function at that PCI address */
};

/* What a sidecore's SMT sibling does (docs/config.md, `sidecore_sibling`). */
enum config_sibling {
	CONFIG_SIBLING_IDLE,	/* nothing: the sidecore has its core to itself */
	CONFIG_SIBLING_VCPU,	/* it may run a vCPU like any free CPU */
};

/* The keys of a guest section; they index config_guest.key_line[]. */
/*
 * `broadcast_limit`'s default: ARP, DHCP, IPv6 neighbour discovery and mDNS
 * send a few small frames a second; 64 KiB broadcasts at 1 MiB a second
 * cost the sidecore about 1% of its cycles (docs/data-path.md, "Storm
 * control").
 */
#define CONFIG_BROADCAST_FRAMES		500
#define CONFIG_BROADCAST_BYTES		(1024 * 1024)
/* The most either may be set to: a bucket holds a tenth of it in 32 bits. */
#define CONFIG_BROADCAST_MAX		1000000000u

enum config_guest_key {
	CONFIG_KEY_KERNEL,
	CONFIG_KEY_INITRD,
	CONFIG_KEY_CMDLINE,
	CONFIG_KEY_MEMORY,
	CONFIG_KEY_VCPUS,
	CONFIG_KEY_CPUS,
	CONFIG_KEY_NODE,
	CONFIG_KEY_MAC,
	CONFIG_KEY_CID,
	CONFIG_KEY_ON_CRASH,
	CONFIG_KEY_ON_POWEROFF,
	CONFIG_KEY_UPLINK,
	CONFIG_KEY_VSOCK_COUNTERS,
	CONFIG_KEY_RNG,
	CONFIG_KEY_BROADCAST_LIMIT,
	CONFIG_GUEST_KEY_COUNT
};

struct config_guest {
	char name[CONFIG_NAME_MAX];	/* "" when the header's name was unusable */
	unsigned int line;		/* the `[guest NAME]` header */
	bool valid;			/* the section had no error */
	unsigned int key_line[CONFIG_GUEST_KEY_COUNT];	/* 0: not given, default */

	char kernel[CONFIG_MODULE_NAME_MAX];	/* module names */
	char initrd[CONFIG_MODULE_NAME_MAX];	/* "": none */
	char cmdline[CONFIG_CMDLINE_MAX];	/* "": empty */
	uint64_t memory_bytes;
	unsigned int vcpu_count;		/* `vcpus`, or how many `cpus` */
	unsigned int cpu[CONFIG_MAX_VCPUS];	/* `cpus`, in the order given */
	unsigned int node;			/* when key_line[CONFIG_KEY_NODE] */
	uint8_t mac[CONFIG_MAC_BYTES];		/* given or derived from the name */
	uint32_t cid;				/* given or the lowest free one */
	enum config_action on_crash;
	enum config_action on_poweroff;
	bool uplink;				/* may exchange frames with the wire */
	bool vsock_counters;			/* CID 2 serves it its counters (port 1552) */
	bool rng;				/* has a virtio-rng device */
	uint32_t broadcast_limit[2];		/* group frames, their bytes a second; 0: none */
};

struct config {
	unsigned int sidecore_cpu[CONFIG_MAX_SIDECORES];	/* CPU numbers */
	unsigned int sidecore_count;	/* 0: one per node, its first CPU */
	unsigned int sidecores_line;	/* where `sidecores` was set */
	enum config_sibling sidecore_sibling;
	unsigned int sidecore_sibling_line;

	unsigned int console_baud;
	unsigned int console_baud_line;
	uint16_t console_port;		/* first I/O port; 0: the SPCR's, else COM1 */
	unsigned int console_port_line;

	enum config_nic nic;
	uint8_t nic_bus, nic_device, nic_function;	/* for CONFIG_NIC_PCI */
	unsigned int nic_line;

	struct config_guest guest[CONFIG_MAX_GUESTS];	/* file order */
	unsigned int guest_count;	/* sections read, valid or not */
};

/* Resets every global key to its default, with no guests. */
void config_init(struct config *config);

/*
 * Reads len bytes of text (need not be NUL-terminated) into config, set up
 * by config_init(). Returns the number of errors, each reported through
 * log_msg() as `config line N: key 'K': message`.
 */
int config_parse(struct config *config, const char *text, size_t len);

#endif
