/* SPDX-License-Identifier: MIT */
/*
 * acpi_load.h - ACPI tables of a real machine, read from files on the host.
 *
 * Two forms are accepted: a folder of binary tables as `acpixtract -a` writes
 * them (APIC.dat, SRAT.dat, ...), or the text that Linux `acpidump` prints
 * (a "SIG @ 0xADDRESS" line per table followed by hex-dump lines).
 */
#ifndef SIDECORE_TOOL_ACPI_LOAD_H
#define SIDECORE_TOOL_ACPI_LOAD_H

#include <stdint.h>

#include "platform/acpi.h"

struct acpi_image_set {
	struct acpi_tables tables;	/* point into image[] */
	uint8_t *image[ACPI_MAX_TABLES];
	unsigned int image_count;
};

/*
 * Loads every table found at path into set (initialized here). Tables that
 * fail validation are reported and left out, as in the hypervisor. Returns 0,
 * or -1 after printing why the path could not be read at all.
 */
int acpi_load_path(struct acpi_image_set *set, const char *path);

/* Frees the images; the table set is empty afterwards. */
void acpi_load_release(struct acpi_image_set *set);

#endif
