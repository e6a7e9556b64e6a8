/* SPDX-License-Identifier: MIT */
/*
 * cmd_acpidump.c - `sidecore guest-acpi DIR [VCPUS]`: the ACPI tables a guest
 * with VCPUS vCPUs (APIC IDs 0, 1, ...) would get, one binary file per table
 * (RSDP.dat, XSDT.dat, FACP.dat, DSDT.dat, APIC.dat, MCFG.dat), the form
 * `iasl -d` disassembles.
 *
 * The tables are found again the way a guest finds them, from the RSDP
 * through the hypervisor's own ACPI parser, so a table that fails its
 * checksum or length checks is reported instead of written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/guest_layout.h"
#include "guest/guest_acpi.h"
#include "platform/acpi.h"
#include "tools/sidecore/commands.h"

/* ACPI 6.5 sections 5.2.5.3 (RSDP) and 5.2.9 (FADT). */
#define RSDP_XSDT_OFFSET 24
#define RSDP_SIZE 36
#define FADT_X_DSDT_OFFSET 140

static uint8_t guest_acpi_image[GUEST_ACPI_SIZE];

struct guest_acpi_window {
	uint64_t gpa;
	size_t used;
};

/* Guest-physical to host, inside the built tables only. */
static const void *guest_acpi_map(uint64_t phys, uint64_t len, void *ctx)
{
	const struct guest_acpi_window *window = ctx;

	if (phys < window->gpa || phys - window->gpa > window->used ||
	    len > window->used - (phys - window->gpa))
		return NULL;
	return guest_acpi_image + (phys - window->gpa);
}

static int guest_acpi_write_file(const char *dir, const char *name, const void *data,
				 size_t size)
{
	char path[4096];
	FILE *file;
	int ok;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s.dat", dir, name) >= sizeof(path)) {
		fprintf(stderr, "sidecore guest-acpi: path too long\n");
		return -1;
	}
	file = fopen(path, "wb");
	if (!file) {
		fprintf(stderr, "sidecore guest-acpi: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ok = fwrite(data, 1, size, file) == size;
	if (fclose(file) != 0)
		ok = 0;
	if (!ok) {
		fprintf(stderr, "sidecore guest-acpi: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

/*
 * Writes the table at gpa, which the RSDP or FADT points to, after the same
 * checks acpi_tables_add() applies to the others.
 */
static int guest_acpi_write_pointed(const char *dir, const char *name, uint64_t gpa,
				    struct guest_acpi_window *window)
{
	static struct acpi_tables single;
	const uint8_t *table = guest_acpi_map(gpa, ACPI_HEADER_SIZE, window);

	acpi_tables_init(&single);
	if (!table || !acpi_tables_add(&single, table, window->used - (gpa - window->gpa))) {
		fprintf(stderr, "sidecore guest-acpi: no valid %s at %#llx\n", name,
			(unsigned long long)gpa);
		return -1;
	}
	return guest_acpi_write_file(dir, name, table, single.table[0].length);
}

/* The RSDP, the XSDT, the tables it lists, and the DSDT the FADT points to. */
static int guest_acpi_write_tables(const char *dir, uint64_t rsdp_gpa,
				   struct guest_acpi_window *window)
{
	static struct acpi_tables tables;
	const struct acpi_table *fadt;
	const uint8_t *rsdp;
	unsigned int i;
	char name[5];

	rsdp = guest_acpi_map(rsdp_gpa, RSDP_SIZE, window);
	acpi_tables_init(&tables);
	if (!rsdp || acpi_tables_from_rsdp(&tables, rsdp, RSDP_SIZE, guest_acpi_map, window) < 0)
		return -1;
	for (i = 0; i < tables.count; i++) {
		memcpy(name, tables.table[i].signature, 4);
		name[4] = '\0';
		if (guest_acpi_write_file(dir, name, tables.table[i].data, tables.table[i].length))
			return -1;
	}

	fadt = acpi_tables_find(&tables, "FACP");
	if (!fadt || fadt->length < FADT_X_DSDT_OFFSET + 8) {
		fprintf(stderr, "sidecore guest-acpi: no FADT with an X_DSDT\n");
		return -1;
	}
	if (guest_acpi_write_pointed(dir, "DSDT",
				     acpi_read_u64(fadt->data + FADT_X_DSDT_OFFSET), window) ||
	    guest_acpi_write_pointed(dir, "XSDT", acpi_read_u64(rsdp + RSDP_XSDT_OFFSET), window))
		return -1;
	return guest_acpi_write_file(dir, "RSDP", rsdp, RSDP_SIZE);
}

/**
 * command_guest_acpi() - `sidecore guest-acpi DIR [VCPUS]`.
 * @argc: arguments after the command name: DIR and, optionally, VCPUS.
 * @argv: those arguments.
 *
 * Return: TOOL_EXIT_OK, TOOL_EXIT_REJECTED when the tables cannot be built
 * or written, TOOL_EXIT_USAGE for bad arguments.
 */
int command_guest_acpi(int argc, char **argv)
{
	uint32_t apic_ids[GUEST_ACPI_MAX_VCPUS];
	struct guest_acpi_params params;
	struct guest_acpi_window window = { .gpa = GUEST_ACPI_GPA };
	uint64_t rsdp_gpa;
	unsigned long vcpus = 1;
	char *end;
	unsigned int i;

	if (argc < 1 || argc > 2) {
		fprintf(stderr, "usage: sidecore guest-acpi DIR [VCPUS]\n");
		return TOOL_EXIT_USAGE;
	}
	if (argc == 2) {
		errno = 0;
		vcpus = strtoul(argv[1], &end, 10);
		if (errno || *end || vcpus == 0 || vcpus > GUEST_ACPI_MAX_VCPUS) {
			fprintf(stderr, "sidecore guest-acpi: VCPUS must be 1 to %u\n",
				GUEST_ACPI_MAX_VCPUS);
			return TOOL_EXIT_USAGE;
		}
	}
	for (i = 0; i < vcpus; i++)
		apic_ids[i] = i;
	params.vcpu_count = (unsigned int)vcpus;
	params.apic_ids = apic_ids;

	window.used = guest_acpi_build(guest_acpi_image, sizeof(guest_acpi_image), window.gpa,
				       &params, &rsdp_gpa);
	if (window.used == 0) {
		fprintf(stderr, "sidecore guest-acpi: tables do not fit in %u bytes\n",
			(unsigned int)sizeof(guest_acpi_image));
		return TOOL_EXIT_REJECTED;
	}
	if (guest_acpi_write_tables(argv[0], rsdp_gpa, &window))
		return TOOL_EXIT_REJECTED;
	printf("%zu bytes of tables for %lu vCPU%s written to %s\n", window.used, vcpus,
	       vcpus == 1 ? "" : "s", argv[0]);
	return TOOL_EXIT_OK;
}
