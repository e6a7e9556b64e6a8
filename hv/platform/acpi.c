/* SPDX-License-Identifier: MIT */
/*
 * acpi.c - finds the firmware's ACPI tables and checks that each one is whole.
 *
 * Firmware tables are input, not truth: every length is bounded before it is
 * used to map or read memory, every checksum is verified, and a table that
 * fails is named in the log and left out, so one broken table neither crashes
 * the parser nor hides the good ones.
 */
#include <string.h>

#include "lib/log.h"
#include "platform/acpi.h"

/* Root System Description Pointer, ACPI 6.5 section 5.2.5.3. */
#define RSDP_SIGNATURE "RSD PTR "
#define RSDP_V1_SIZE 20		/* the bytes the first checksum covers */
#define RSDP_V2_SIZE 36		/* ACPI 2.0+: adds Length, XSDT and a second checksum */
#define RSDP_REVISION_OFFSET 15
#define RSDP_RSDT_OFFSET 16
#define RSDP_LENGTH_OFFSET 20
#define RSDP_XSDT_OFFSET 24

/* RSDT entries are 32-bit (section 5.2.7), XSDT entries 64-bit (section 5.2.8). */
#define RSDT_ENTRY_SIZE 4
#define XSDT_ENTRY_SIZE 8

/* A signature as text for the log; bytes a console cannot show become '?'. */
struct acpi_signature_text {
	char text[5];
};

static struct acpi_signature_text acpi_signature_to_text(const uint8_t *signature)
{
	struct acpi_signature_text out;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		uint8_t c = signature[i];

		out.text[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	out.text[4] = '\0';
	return out;
}

/* ACPI checksums make the byte sum of the whole structure zero (section 5.2.6). */
static uint8_t acpi_sum_bytes(const uint8_t *p, size_t n)
{
	uint8_t sum = 0;

	while (n--)
		sum = (uint8_t)(sum + *p++);
	return sum;
}

/*
 * Checks a table image of size readable bytes: header present, header length
 * in range and inside the image, checksum zero. Reports the reason on failure.
 */
static bool acpi_table_is_sound(const uint8_t *p, size_t size)
{
	struct acpi_signature_text name = { "????" };
	uint32_t length;

	if (size >= sizeof(name.text) - 1)
		name = acpi_signature_to_text(p);
	if (size < ACPI_HEADER_SIZE) {
		log_msg("acpi: %s: image of %llu bytes is shorter than a header, skipped",
			name.text, (unsigned long long)size);
		return false;
	}
	length = acpi_read_u32(p + ACPI_HEADER_LENGTH_OFFSET);
	if (length < ACPI_HEADER_SIZE || length > ACPI_MAX_TABLE_LENGTH) {
		log_msg("acpi: %s: length %u out of range, skipped", name.text, length);
		return false;
	}
	if (length > size) {
		log_msg("acpi: %s: length %u exceeds the %llu bytes present, skipped",
			name.text, length, (unsigned long long)size);
		return false;
	}
	if (acpi_sum_bytes(p, length) != 0) {
		log_msg("acpi: %s: bad checksum, skipped", name.text);
		return false;
	}
	return true;
}

/**
 * acpi_tables_init() - empty a table set.
 * @tables: the set to clear.
 */
void acpi_tables_init(struct acpi_tables *tables)
{
	memset(tables, 0, sizeof(*tables));
}

/**
 * acpi_tables_add() - validate one table image and add it to the set.
 * @tables: the set.
 * @data: the image, starting with the standard header; it must stay valid
 *        as long as the set is used, since only a pointer is kept.
 * @size: the bytes readable at @data; the table is its header's length.
 *
 * Return: true when the table was added, false when it was rejected (the
 * reason has been logged).
 */
bool acpi_tables_add(struct acpi_tables *tables, const void *data, size_t size)
{
	const uint8_t *p = data;
	struct acpi_table *table;

	if (!acpi_table_is_sound(p, size))
		return false;
	if (tables->count == ACPI_MAX_TABLES) {
		log_msg("acpi: %s: more than %u tables, skipped",
			acpi_signature_to_text(p).text, ACPI_MAX_TABLES);
		return false;
	}
	table = &tables->table[tables->count++];
	memcpy(table->signature, p, sizeof(table->signature));
	table->data = p;
	table->length = acpi_read_u32(p + ACPI_HEADER_LENGTH_OFFSET);
	return true;
}

/*
 * Maps the table at phys in two steps, the header first and then the length
 * it declares, so a corrupt length never makes us map wild ranges. Sets
 * *length; the checksum is the caller's to check. NULL when unusable.
 */
static const uint8_t *acpi_map_table(uint64_t phys, acpi_map_fn map, void *ctx,
				     uint32_t *length)
{
	const uint8_t *header;

	if (phys == 0) {
		log_msg("acpi: table pointer is null, skipped");
		return NULL;
	}
	header = map(phys, ACPI_HEADER_SIZE, ctx);
	if (!header) {
		log_msg("acpi: cannot map table header at %#llx, skipped",
			(unsigned long long)phys);
		return NULL;
	}
	*length = acpi_read_u32(header + ACPI_HEADER_LENGTH_OFFSET);
	if (*length < ACPI_HEADER_SIZE || *length > ACPI_MAX_TABLE_LENGTH) {
		log_msg("acpi: %s at %#llx: length %u out of range, skipped",
			acpi_signature_to_text(header).text,
			(unsigned long long)phys, *length);
		return NULL;
	}
	header = map(phys, *length, ctx);
	if (!header)
		log_msg("acpi: cannot map %u bytes of table at %#llx, skipped",
			*length, (unsigned long long)phys);
	return header;
}

/* Maps the XSDT or RSDT at phys and checks it; NULL (logged) when unusable. */
static const uint8_t *acpi_map_root(uint64_t phys, const char *signature,
				    acpi_map_fn map, void *ctx, uint32_t *length)
{
	const uint8_t *root = acpi_map_table(phys, map, ctx, length);

	if (!root || !acpi_table_is_sound(root, *length))
		return NULL;
	if (memcmp(root, signature, 4) != 0) {
		log_msg("acpi: %s pointer leads to a %s table, not used",
			signature, acpi_signature_to_text(root).text);
		return NULL;
	}
	return root;
}

/*
 * The XSDT address from an ACPI 2.0+ RSDP, or 0 when the extended part is
 * missing or fails its own checksum (then the RSDT is the fallback).
 */
static uint64_t acpi_rsdp_xsdt_address(const uint8_t *rsdp, size_t rsdp_size)
{
	uint32_t length;

	if (rsdp_size < RSDP_V2_SIZE) {
		log_msg("acpi: RSDP revision %u but only %llu bytes, XSDT not used",
			rsdp[RSDP_REVISION_OFFSET], (unsigned long long)rsdp_size);
		return 0;
	}
	length = acpi_read_u32(rsdp + RSDP_LENGTH_OFFSET);
	if (length < RSDP_V2_SIZE || length > rsdp_size) {
		log_msg("acpi: RSDP length %u out of range, XSDT not used", length);
		return 0;
	}
	if (acpi_sum_bytes(rsdp, length) != 0) {
		log_msg("acpi: RSDP extended checksum bad, XSDT not used");
		return 0;
	}
	return acpi_read_u64(rsdp + RSDP_XSDT_OFFSET);
}

/**
 * acpi_tables_from_rsdp() - collect the tables the root table points to.
 * @tables: the set to add to.
 * @rsdp: a copy of the RSDP (20 bytes for revision 0, 36 for 2 and later).
 * @rsdp_size: the bytes readable at @rsdp.
 * @map: makes physical memory readable.
 * @ctx: passed to @map.
 *
 * The XSDT is preferred when the RSDP is revision 2 or later and both pass
 * their checks; otherwise the RSDT is used. Each table the root points to is
 * validated as by acpi_tables_add().
 *
 * Return: the number of tables added, or -1 when neither the RSDP nor a root
 * table is usable.
 */
int acpi_tables_from_rsdp(struct acpi_tables *tables, const void *rsdp,
			  size_t rsdp_size, acpi_map_fn map, void *ctx)
{
	const uint8_t *r = rsdp;
	const uint8_t *root = NULL;
	uint32_t root_length = 0, entry_size = XSDT_ENTRY_SIZE, offset;
	uint64_t xsdt = 0;
	int added = 0;

	if (!r || rsdp_size < RSDP_V1_SIZE || memcmp(r, RSDP_SIGNATURE, 8) != 0) {
		log_msg("acpi: no RSDP signature");
		return -1;
	}
	if (acpi_sum_bytes(r, RSDP_V1_SIZE) != 0) {
		log_msg("acpi: RSDP checksum bad");
		return -1;
	}
	if (r[RSDP_REVISION_OFFSET] >= 2)
		xsdt = acpi_rsdp_xsdt_address(r, rsdp_size);
	if (xsdt)
		root = acpi_map_root(xsdt, "XSDT", map, ctx, &root_length);
	if (!root) {
		entry_size = RSDT_ENTRY_SIZE;
		root = acpi_map_root(acpi_read_u32(r + RSDP_RSDT_OFFSET), "RSDT",
				     map, ctx, &root_length);
	}
	if (!root) {
		log_msg("acpi: no usable XSDT or RSDT");
		return -1;
	}

	for (offset = ACPI_HEADER_SIZE; root_length - offset >= entry_size;
	     offset += entry_size) {
		uint64_t phys = entry_size == XSDT_ENTRY_SIZE ?
			acpi_read_u64(root + offset) : acpi_read_u32(root + offset);
		const uint8_t *table;
		uint32_t length;

		if (tables->count == ACPI_MAX_TABLES) {
			log_msg("acpi: more than %u tables, the rest skipped",
				ACPI_MAX_TABLES);
			break;
		}
		table = acpi_map_table(phys, map, ctx, &length);
		if (table && acpi_tables_add(tables, table, length))
			added++;
	}
	return added;
}

/**
 * acpi_tables_find() - look a table up by signature.
 * @tables: the set.
 * @signature: four characters, e.g. "APIC" for the MADT.
 *
 * Return: the first table with that signature, or NULL.
 */
const struct acpi_table *acpi_tables_find(const struct acpi_tables *tables,
					  const char signature[4])
{
	unsigned int i;

	for (i = 0; i < tables->count; i++)
		if (memcmp(tables->table[i].signature, signature, 4) == 0)
			return &tables->table[i];
	return NULL;
}
