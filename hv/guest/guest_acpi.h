/* SPDX-License-Identifier: MIT */
/*
 * guest_acpi.h - the ACPI tables a guest finds at GUEST_ACPI_GPA.
 *
 * RSDP -> XSDT -> FADT (hardware-reduced, sleep registers, X_DSDT -> DSDT),
 * MADT (one local APIC per vCPU) and MCFG (ECAM for bus 0). The DSDT is AML
 * compiled from hv/guest/dsdt.asl at build time; the other tables are written
 * here for the guest's vCPUs. docs/guest-platform.md describes the result.
 */
#ifndef SIDECORE_GUEST_GUEST_ACPI_H
#define SIDECORE_GUEST_GUEST_ACPI_H

#include <stddef.h>
#include <stdint.h>

/*
 * Processor Local APIC entries carry 8-bit APIC IDs (0xff means broadcast)
 * and 8-bit ACPI processor UIDs, here the vCPU indexes.
 */
#define GUEST_ACPI_APIC_ID_MAX	0xfe
#define GUEST_ACPI_MAX_VCPUS	255

struct guest_acpi_params {
	unsigned int vcpu_count;	/* 1 to GUEST_ACPI_MAX_VCPUS */
	const uint32_t *apic_ids;	/* one per vCPU, distinct, boot vCPU first */
};

/* Writes the tables into buf (at guest-physical buf_gpa); bytes used, 0 on failure. */
size_t guest_acpi_build(void *buf, size_t size, uint64_t buf_gpa,
			const struct guest_acpi_params *params, uint64_t *rsdp_gpa);

#endif
