/* SPDX-License-Identifier: MIT */
/*
 * guest_layout.h - the guest-physical address map every guest sees
 * (docs/guest-platform.md). Guest RAM starts at 0 and ends below the MMIO
 * window; everything else is trapped or emulated. It lives in config/,
 * below vm/ and vmx/, since the config checks guest memory against it and
 * the exit rules know its ports.
 */
#ifndef SIDECORE_CONFIG_GUEST_LAYOUT_H
#define SIDECORE_CONFIG_GUEST_LAYOUT_H

/* Boot structures the loader writes into low guest RAM. */
#define GUEST_GDT_GPA		0x00001000ull	/* 64-bit boot GDT */
#define GUEST_PML4_GPA		0x00002000ull	/* identity map, 4 GiB, 2 MiB pages */
#define GUEST_PDPT_GPA		0x00003000ull
#define GUEST_PD_GPA		0x00004000ull	/* four page directories */
#define GUEST_ZERO_PAGE_GPA	0x00008000ull	/* struct boot_params */
#define GUEST_CMDLINE_GPA	0x00009000ull
#define GUEST_CMDLINE_MAX	4096
#define GUEST_LOW_RAM_END	0x000a0000ull	/* e820 RAM [0, here) */
#define GUEST_ACPI_GPA		0x000e0000ull	/* RSDP first; e820 reserved */
#define GUEST_ACPI_SIZE		0x00020000ull
/*
 * The window's last page is no ACPI table's: a secondary vCPU started
 * without unrestricted guest runs its real-mode and 32-bit start on an
 * identity page directory the hypervisor writes here (hv/guest/vcpu_start.c).
 */
#define GUEST_START_PD_GPA	0x000ff000ull
#define GUEST_HIGH_RAM_START	0x00100000ull	/* e820 RAM [here, ram size) */
#define GUEST_KERNEL_GPA	0x01000000ull	/* 16 MiB: the usual pref_address */

/* Guest RAM may not reach the MMIO window. */
#define GUEST_RAM_MAX		0xc0000000ull
#define GUEST_PCI_MMIO_GPA	0xc0000000ull	/* BARs of emulated devices */
#define GUEST_PCI_MMIO_SIZE	0x10000000ull
#define GUEST_PCI_MMIO_LAST	0xcfffffffull	/* its last byte, for the DSDT */
#define GUEST_ECAM_GPA		0xe0000000ull	/* PCI config space, bus 0 only */
#define GUEST_ECAM_SIZE		0x00100000ull
#define GUEST_LAPIC_GPA		0xfee00000ull

/* Hardware-reduced ACPI sleep registers (FADT), in I/O space. */
#define GUEST_SLEEP_CONTROL_PORT 0x0600
#define GUEST_SLEEP_STATUS_PORT	0x0601
#define GUEST_SLP_TYP_S5	5	/* value in the DSDT's _S5 package */

/* A byte written here prints every counter on the console, tagged with the byte. */
#define GUEST_COUNTERS_PORT	0x0610

#endif
