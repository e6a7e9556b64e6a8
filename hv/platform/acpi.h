/* SPDX-License-Identifier: MIT */
/*
 * acpi.h - firmware ACPI tables: discovery and validation.
 *
 * Tables are collected into a struct acpi_tables either by walking the
 * RSDP -> XSDT/RSDT chain (hypervisor) or by adding raw table images one by
 * one (host tool, tests). Every table in the set has passed its checksum and
 * length checks; a table that fails is reported through log_msg() and left out.
 */
#ifndef SIDECORE_PLATFORM_ACPI_H
#define SIDECORE_PLATFORM_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ACPI_MAX_TABLES 64
/* Larger than any MADT/SRAT/SLIT a 2-socket server carries; guards mapping. */
#define ACPI_MAX_TABLE_LENGTH (1u << 20)

/* System Description Table Header, ACPI 6.5 section 5.2.6. */
#define ACPI_HEADER_SIZE 36
#define ACPI_HEADER_LENGTH_OFFSET 4
#define ACPI_HEADER_REVISION_OFFSET 8

struct acpi_table {
	char signature[4];
	const uint8_t *data;	/* whole table, header included */
	uint32_t length;
};

struct acpi_tables {
	struct acpi_table table[ACPI_MAX_TABLES];
	unsigned int count;
};

/*
 * ACPI fields are little-endian (ACPI 6.5 section 5.2) and, inside tables,
 * often unaligned. x86 is little-endian too, so a byte copy into a native
 * integer reads them without alignment faults or undefined behaviour.
 */
static inline uint16_t acpi_read_u16(const uint8_t *p)
{
	uint16_t value;

	memcpy(&value, p, sizeof(value));
	return value;
}

static inline uint32_t acpi_read_u32(const uint8_t *p)
{
	uint32_t value;

	memcpy(&value, p, sizeof(value));
	return value;
}

static inline uint64_t acpi_read_u64(const uint8_t *p)
{
	uint64_t value;

	memcpy(&value, p, sizeof(value));
	return value;
}

/*
 * Maps len bytes at physical address phys and returns a pointer to them, or
 * NULL when the range cannot be mapped. The hypervisor identity-maps RAM, so
 * its mapper is a cast; tests map from a buffer.
 */
typedef const void *(*acpi_map_fn)(uint64_t phys, uint64_t len, void *ctx);

void acpi_tables_init(struct acpi_tables *tables);

/* Validates one table image (length, checksum) and adds it; false if rejected. */
bool acpi_tables_add(struct acpi_tables *tables, const void *data, size_t size);

/*
 * Walks the RSDP copy (as the multiboot2 ACPI tag carries it, v1 or v2) to the
 * XSDT (or RSDT) and adds each valid table. Returns the number of tables added,
 * or -1 when the RSDP or root table itself is invalid.
 */
int acpi_tables_from_rsdp(struct acpi_tables *tables, const void *rsdp,
			  size_t rsdp_size, acpi_map_fn map, void *ctx);

/* The first table with this signature, or NULL. */
const struct acpi_table *acpi_tables_find(const struct acpi_tables *tables,
					  const char signature[4]);

#endif
