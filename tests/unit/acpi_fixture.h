/* SPDX-License-Identifier: MIT */
/*
 * acpi_fixture.h - builds small ACPI tables byte by byte for the unit tests.
 *
 * A fixture table is a header followed by whatever the test appends;
 * fixture_finish() fills in the length and the checksum, so a test that wants
 * a broken table corrupts it after finishing.
 */
#ifndef SIDECORE_TESTS_ACPI_FIXTURE_H
#define SIDECORE_TESTS_ACPI_FIXTURE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/acpi.h"

#define FIXTURE_MAX_LENGTH 8192

struct fixture_table {
	uint8_t data[FIXTURE_MAX_LENGTH];
	uint32_t length;
};

static inline void fixture_put(struct fixture_table *t, const void *bytes, size_t n)
{
	if (n > FIXTURE_MAX_LENGTH - t->length)
		abort();	/* a test built a table larger than the fixture holds */
	memcpy(t->data + t->length, bytes, n);
	t->length += (uint32_t)n;
}

static inline void fixture_put_u8(struct fixture_table *t, uint8_t value)
{
	fixture_put(t, &value, sizeof(value));
}

static inline void fixture_put_u16(struct fixture_table *t, uint16_t value)
{
	fixture_put(t, &value, sizeof(value));
}

static inline void fixture_put_u32(struct fixture_table *t, uint32_t value)
{
	fixture_put(t, &value, sizeof(value));
}

static inline void fixture_put_u64(struct fixture_table *t, uint64_t value)
{
	fixture_put(t, &value, sizeof(value));
}

/* The byte that makes data[0..length) sum to zero. */
static inline uint8_t fixture_checksum(const uint8_t *data, size_t length, size_t checksum_at)
{
	uint8_t sum = 0;
	size_t i;

	for (i = 0; i < length; i++)
		if (i != checksum_at)
			sum = (uint8_t)(sum + data[i]);
	return (uint8_t)(0x100 - sum);
}

/* Starts a table: the 36-byte header of ACPI 6.5 section 5.2.6. */
static inline void fixture_start(struct fixture_table *t, const char *signature,
				 uint8_t revision)
{
	memset(t, 0, sizeof(*t));
	fixture_put(t, signature, 4);
	fixture_put_u32(t, 0);			/* length, set by fixture_finish() */
	fixture_put_u8(t, revision);
	fixture_put_u8(t, 0);			/* checksum, set by fixture_finish() */
	fixture_put(t, "SIDECO", 6);		/* OEM ID */
	fixture_put(t, "FIXTURE ", 8);		/* OEM table ID */
	fixture_put_u32(t, 1);			/* OEM revision */
	fixture_put(t, "TEST", 4);		/* creator ID */
	fixture_put_u32(t, 1);			/* creator revision */
}

/* Sets the header length and checksum; returns the table image. */
static inline const uint8_t *fixture_finish(struct fixture_table *t)
{
	memcpy(t->data + ACPI_HEADER_LENGTH_OFFSET, &t->length, sizeof(t->length));
	t->data[9] = fixture_checksum(t->data, t->length, 9);
	return t->data;
}

/* MADT (section 5.2.12) with the given local APIC address and flags. */
static inline void fixture_madt_start(struct fixture_table *t, uint32_t lapic_address,
				      uint32_t flags)
{
	fixture_start(t, "APIC", 4);
	fixture_put_u32(t, lapic_address);
	fixture_put_u32(t, flags);
}

/* Processor Local APIC, section 5.2.12.2. */
static inline void fixture_madt_lapic(struct fixture_table *t, uint8_t uid,
				      uint8_t apic_id, uint32_t flags)
{
	fixture_put_u8(t, 0);
	fixture_put_u8(t, 8);
	fixture_put_u8(t, uid);
	fixture_put_u8(t, apic_id);
	fixture_put_u32(t, flags);
}

/* Processor Local x2APIC, section 5.2.12.12. */
static inline void fixture_madt_x2apic(struct fixture_table *t, uint32_t uid,
				       uint32_t apic_id, uint32_t flags)
{
	fixture_put_u8(t, 9);
	fixture_put_u8(t, 16);
	fixture_put_u16(t, 0);
	fixture_put_u32(t, apic_id);
	fixture_put_u32(t, flags);
	fixture_put_u32(t, uid);
}

/* I/O APIC, section 5.2.12.3. */
static inline void fixture_madt_ioapic(struct fixture_table *t, uint8_t id, uint32_t address,
				       uint32_t gsi_base)
{
	fixture_put_u8(t, 1);
	fixture_put_u8(t, 12);
	fixture_put_u8(t, id);
	fixture_put_u8(t, 0);
	fixture_put_u32(t, address);
	fixture_put_u32(t, gsi_base);
}

/* Interrupt Source Override, section 5.2.12.5. */
static inline void fixture_madt_irq_override(struct fixture_table *t, uint8_t bus, uint8_t irq,
					     uint32_t gsi, uint16_t flags)
{
	fixture_put_u8(t, 2);
	fixture_put_u8(t, 10);
	fixture_put_u8(t, bus);
	fixture_put_u8(t, irq);
	fixture_put_u32(t, gsi);
	fixture_put_u16(t, flags);
}

/* Local APIC Address Override, section 5.2.12.8. */
static inline void fixture_madt_lapic_override(struct fixture_table *t, uint64_t address)
{
	fixture_put_u8(t, 5);
	fixture_put_u8(t, 12);
	fixture_put_u16(t, 0);
	fixture_put_u64(t, address);
}

/* SRAT (section 5.2.16): header, reserved u32 (must be 1), reserved u64. */
static inline void fixture_srat_start(struct fixture_table *t, uint8_t revision)
{
	fixture_start(t, "SRAT", revision);
	fixture_put_u32(t, 1);
	fixture_put_u64(t, 0);
}

/* Processor Local APIC/SAPIC Affinity, section 5.2.16.1. */
static inline void fixture_srat_cpu(struct fixture_table *t, uint32_t domain,
				    uint8_t apic_id, uint32_t flags)
{
	fixture_put_u8(t, 0);
	fixture_put_u8(t, 16);
	fixture_put_u8(t, (uint8_t)domain);
	fixture_put_u8(t, apic_id);
	fixture_put_u32(t, flags);
	fixture_put_u8(t, 0);			/* local SAPIC EID */
	fixture_put_u8(t, (uint8_t)(domain >> 8));
	fixture_put_u8(t, (uint8_t)(domain >> 16));
	fixture_put_u8(t, (uint8_t)(domain >> 24));
	fixture_put_u32(t, 0);			/* clock domain */
}

/* Memory Affinity, section 5.2.16.2. */
static inline void fixture_srat_memory(struct fixture_table *t, uint32_t domain,
				       uint64_t base, uint64_t length, uint32_t flags)
{
	fixture_put_u8(t, 1);
	fixture_put_u8(t, 40);
	fixture_put_u32(t, domain);
	fixture_put_u16(t, 0);
	fixture_put_u64(t, base);
	fixture_put_u64(t, length);
	fixture_put_u32(t, 0);
	fixture_put_u32(t, flags);
	fixture_put_u64(t, 0);
}

/* Processor Local x2APIC Affinity, section 5.2.16.3. */
static inline void fixture_srat_x2apic(struct fixture_table *t, uint32_t domain,
				       uint32_t apic_id, uint32_t flags)
{
	fixture_put_u8(t, 2);
	fixture_put_u8(t, 24);
	fixture_put_u16(t, 0);
	fixture_put_u32(t, domain);
	fixture_put_u32(t, apic_id);
	fixture_put_u32(t, flags);
	fixture_put_u32(t, 0);			/* clock domain */
	fixture_put_u32(t, 0);
}

/* SLIT (section 5.2.17) with an n x n row-major matrix. */
static inline void fixture_slit(struct fixture_table *t, uint64_t n, const uint8_t *matrix,
				size_t matrix_bytes)
{
	fixture_start(t, "SLIT", 1);
	fixture_put_u64(t, n);
	fixture_put(t, matrix, matrix_bytes);
}

/* MCFG (PCI Firmware Specification 3.2 section 4.1.2): header, 8 reserved bytes. */
static inline void fixture_mcfg_start(struct fixture_table *t)
{
	fixture_start(t, "MCFG", 1);
	fixture_put_u64(t, 0);
}

static inline void fixture_mcfg_allocation(struct fixture_table *t, uint64_t base,
					   uint16_t segment, uint8_t start_bus,
					   uint8_t end_bus)
{
	fixture_put_u64(t, base);
	fixture_put_u16(t, segment);
	fixture_put_u8(t, start_bus);
	fixture_put_u8(t, end_bus);
	fixture_put_u32(t, 0);
}

/* XSDT (section 5.2.8, 64-bit entries) or RSDT (section 5.2.7, 32-bit entries). */
static inline void fixture_root(struct fixture_table *t, const char *signature,
				const uint64_t *addresses, unsigned int count)
{
	unsigned int i;

	fixture_start(t, signature, 1);
	for (i = 0; i < count; i++) {
		if (memcmp(signature, "XSDT", 4) == 0)
			fixture_put_u64(t, addresses[i]);
		else
			fixture_put_u32(t, (uint32_t)addresses[i]);
	}
	fixture_finish(t);
}

#define FIXTURE_RSDP_SIZE 36

/* An RSDP (section 5.2.5.3) with both checksums right. */
static inline void fixture_rsdp(uint8_t rsdp[FIXTURE_RSDP_SIZE], uint8_t revision,
				uint32_t rsdt, uint64_t xsdt)
{
	uint32_t length = FIXTURE_RSDP_SIZE;

	memset(rsdp, 0, FIXTURE_RSDP_SIZE);
	memcpy(rsdp, "RSD PTR ", 8);
	memcpy(rsdp + 9, "SIDECO", 6);
	rsdp[15] = revision;
	memcpy(rsdp + 16, &rsdt, sizeof(rsdt));
	memcpy(rsdp + 20, &length, sizeof(length));
	memcpy(rsdp + 24, &xsdt, sizeof(xsdt));
	rsdp[8] = fixture_checksum(rsdp, 20, 8);
	rsdp[32] = fixture_checksum(rsdp, FIXTURE_RSDP_SIZE, 32);
}

#define FIXTURE_MEMORY_SIZE (64 * 1024)

/* Pretend physical memory at [base, base + FIXTURE_MEMORY_SIZE). */
struct fixture_memory {
	uint8_t bytes[FIXTURE_MEMORY_SIZE];
	uint64_t base;
	uint64_t used;
	uint64_t largest_map;	/* the longest range ever asked for */
};

static inline void fixture_memory_init(struct fixture_memory *m, uint64_t base)
{
	memset(m, 0, sizeof(*m));
	m->base = base;
}

/* Copies n bytes into the memory, 16-byte aligned; returns their address. */
static inline uint64_t fixture_memory_place(struct fixture_memory *m, const void *data,
					    size_t n)
{
	uint64_t offset = (m->used + 15) & ~(uint64_t)15;

	if (n > FIXTURE_MEMORY_SIZE - offset)
		abort();	/* a test placed more than the fixture holds */
	memcpy(m->bytes + offset, data, n);
	m->used = offset + n;
	return m->base + offset;
}

/* acpi_map_fn over a struct fixture_memory; NULL outside it. */
static inline const void *fixture_memory_map(uint64_t phys, uint64_t len, void *ctx)
{
	struct fixture_memory *m = ctx;
	uint64_t offset;

	if (len > m->largest_map)
		m->largest_map = len;
	if (phys < m->base)
		return NULL;
	offset = phys - m->base;
	if (offset > FIXTURE_MEMORY_SIZE || len > FIXTURE_MEMORY_SIZE - offset)
		return NULL;
	return m->bytes + offset;
}

#endif
