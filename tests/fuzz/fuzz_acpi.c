/* SPDX-License-Identifier: MIT */
/*
 * fuzz_acpi.c - garbage ACPI tables into acpi_tables_*, topology_build()
 * and console_port_from_spcr().
 *
 * Byte 0 of the input picks how the rest is read:
 *
 *   even: a list of table images, each [kind][size, 16-bit LE][size bytes].
 *         kind % 8 of 0..4 stamps the image as APIC, SRAT, SLIT, MCFG or SPCR with
 *         a correct length and checksum, so the fuzzer spends its time in the
 *         table parsers rather than on checksums; 5..7 keeps the bytes as is.
 *   odd:  physical memory starting at address 0, whose first 36 bytes are
 *         also the RSDP copy. With bit 1 of byte 0 set, the RSDP gets its
 *         signature and checksums fixed, and every table mapped at its full
 *         length gets its checksum fixed, so the XSDT/RSDT walk is reached.
 *
 * Every image and every mapping is a separate exact-size allocation, so
 * AddressSanitizer catches a read one byte past what was validated or mapped.
 * The topology that comes out is checked for internal consistency, and a
 * console port from SPCR for being one a 16550 can have.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/acpi.h"
#include "platform/console_port.h"
#include "platform/topology.h"

#define FUZZ_MAX_MAPS 256
#define FUZZ_RSDP_SIZE 36
#define FUZZ_FIX_CHECKSUMS 0x2

static struct acpi_tables tables;
static struct topology topo;
static void *allocations[FUZZ_MAX_MAPS + ACPI_MAX_TABLES * 2];
static unsigned int allocation_count;

struct fuzz_memory {
	const uint8_t *bytes;
	size_t size;
	bool fix_checksums;
};

static void *fuzz_keep(const void *data, size_t size)
{
	void *copy;

	if (allocation_count == sizeof(allocations) / sizeof(allocations[0]))
		return NULL;
	copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	allocations[allocation_count++] = copy;
	return copy;
}

static void fuzz_release(void)
{
	while (allocation_count)
		free(allocations[--allocation_count]);
}

/* Sets the checksum byte so that p[0..length) sums to zero. */
static void fuzz_fix_checksum(uint8_t *p, size_t length, size_t checksum_at)
{
	uint8_t sum = 0;
	size_t i;

	p[checksum_at] = 0;
	for (i = 0; i < length; i++)
		sum = (uint8_t)(sum + p[i]);
	p[checksum_at] = (uint8_t)(0x100 - sum);
}

static const void *fuzz_map(uint64_t phys, uint64_t len, void *ctx)
{
	struct fuzz_memory *memory = ctx;
	uint8_t *copy;

	if (phys > memory->size || len > memory->size - phys)
		return NULL;
	copy = fuzz_keep(memory->bytes + phys, (size_t)len);
	if (copy && memory->fix_checksums && len > ACPI_HEADER_SIZE &&
	    acpi_read_u32(copy + ACPI_HEADER_LENGTH_OFFSET) == len)
		fuzz_fix_checksum(copy, (size_t)len, 9);
	return copy;
}

static void fuzz_tables_from_images(const uint8_t *data, size_t size)
{
	static const char *const stamps[] = { "APIC", "SRAT", "SLIT", "MCFG", "SPCR" };

	while (size >= 3) {
		uint8_t kind = data[0] % 8;
		size_t length = (size_t)data[1] | (size_t)data[2] << 8;
		uint8_t *image;

		data += 3;
		size -= 3;
		if (length > size)
			length = size;
		image = fuzz_keep(data, length);
		if (!image)
			return;
		if (kind < 5 && length >= ACPI_HEADER_SIZE) {
			uint32_t table_length = (uint32_t)length;

			memcpy(image, stamps[kind], 4);
			memcpy(image + ACPI_HEADER_LENGTH_OFFSET, &table_length, 4);
			fuzz_fix_checksum(image, length, 9);
		}
		acpi_tables_add(&tables, image, length);
		data += length;
		size -= length;
	}
}

static void fuzz_tables_from_memory(const uint8_t *data, size_t size, bool fix)
{
	struct fuzz_memory memory = { data, size, fix };
	uint8_t rsdp[FUZZ_RSDP_SIZE];
	size_t rsdp_size = size < FUZZ_RSDP_SIZE ? size : FUZZ_RSDP_SIZE;
	uint8_t *copy;

	memcpy(rsdp, data, rsdp_size);
	if (fix && rsdp_size >= 20) {
		memcpy(rsdp, "RSD PTR ", 8);
		fuzz_fix_checksum(rsdp, 20, 8);
		if (rsdp_size == FUZZ_RSDP_SIZE)
			fuzz_fix_checksum(rsdp, FUZZ_RSDP_SIZE, 32);
	}
	copy = fuzz_keep(rsdp, rsdp_size);
	if (copy)
		acpi_tables_from_rsdp(&tables, copy, rsdp_size, fuzz_map, &memory);
}

/* Crashes (a finding) when the topology contradicts itself. */
static void fuzz_check_topology(void)
{
	unsigned int i, cpus = 0;

	if (topo.cpu_count == 0 || topo.cpu_count > TOPO_MAX_CPUS ||
	    topo.node_count == 0 || topo.node_count > TOPO_MAX_NODES ||
	    topo.mem_count > TOPO_MAX_MEM_RANGES ||
	    topo.slit_localities > TOPO_MAX_LOCALITIES || topo.mcfg_count > TOPO_MAX_MCFG)
		abort();
	for (i = 0; i < topo.cpu_count; i++) {
		if (topo.cpu[i].node >= topo.node_count ||
		    topology_cpu_of_apic_id(&topo, topo.cpu[i].apic_id) != (int)i)
			abort();
	}
	for (i = 0; i < topo.node_count; i++) {
		cpus += topo.node[i].cpu_count;
		if (i > 0 && topo.node[i].domain <= topo.node[i - 1].domain)
			abort();
	}
	if (cpus != topo.cpu_count)
		abort();
	for (i = 0; i < topo.mem_count; i++) {
		const struct topo_mem_range *range = &topo.mem[i];

		if (range->node >= topo.node_count || range->length == 0 ||
		    range->base + range->length < range->base ||
		    topology_node_of_address(&topo, range->base + range->length - 1) < 0)
			abort();
	}
	for (i = 0; i < topo.mcfg_count; i++)
		if (topo.mcfg[i].start_bus > topo.mcfg[i].end_bus)
			abort();
}

/* A port SPCR names is a whole 16550 on I/O ports, at a speed it can run. */
static void fuzz_check_console_port(void)
{
	struct console_port port;

	if (!console_port_from_spcr(&tables, &port))
		return;
	if (!port.port || port.port > 0xfff8 || (port.irq > 15 && port.irq != CONSOLE_PORT_NO_IRQ))
		abort();
	if (port.baud && CONSOLE_PORT_BAUD % port.baud)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	acpi_tables_init(&tables);
	if (data[0] & 1)
		fuzz_tables_from_memory(data + 1, size - 1, data[0] & FUZZ_FIX_CHECKSUMS);
	else
		fuzz_tables_from_images(data + 1, size - 1);

	if (topology_build(&topo, &tables) == 0)
		fuzz_check_topology();
	fuzz_check_console_port();
	fuzz_release();
	return 0;
}
