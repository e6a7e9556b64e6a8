/* SPDX-License-Identifier: MIT */
/*
 * guest_acpi.c - writes the guest's ACPI tables (ACPI 6.5; section numbers
 * below are that specification's unless another document is named).
 *
 * The guest is a hardware-reduced ACPI platform (section 4.1): no PM timer,
 * GPE or fixed-event registers, no SCI, and (for Linux) no 8259 PIC or PIT.
 * What it has: local APICs, a PCI Express root bridge with ECAM, COM1, and
 * the sleep control/status registers through which it powers off.
 *
 * Tables are written little-endian (section 5.2) with byte copies, since
 * their fields are not naturally aligned.
 */
#include <stdbool.h>
#include <string.h>

#include "config/guest_layout.h"
#include "guest/guest_acpi.h"

/* hv/guest/dsdt_aml.S: the AML iasl compiled from hv/guest/dsdt.asl. */
extern const uint8_t guest_dsdt_aml[];
extern const uint32_t guest_dsdt_aml_size;

#define ACPI_OEM_ID		"SIDECR"	/* 6 bytes */
#define ACPI_OEM_TABLE_ID	"SIDECORE"	/* 8 bytes */
#define ACPI_OEM_REVISION	1
#define ACPI_CREATOR_ID		"SDCR"		/* 4 bytes */
#define ACPI_CREATOR_REVISION	1
#define ACPI_TABLE_ALIGN	16

/* System description table header, section 5.2.6. */
#define HEADER_LENGTH		4
#define HEADER_REVISION		8
#define HEADER_CHECKSUM		9
#define HEADER_OEM_ID		10
#define HEADER_OEM_TABLE_ID	16
#define HEADER_OEM_REVISION	24
#define HEADER_CREATOR_ID	28
#define HEADER_CREATOR_REVISION	32
#define HEADER_SIZE		36

/* Root System Description Pointer, section 5.2.5.3. */
#define RSDP_SIGNATURE		"RSD PTR "
#define RSDP_CHECKSUM		8	/* covers the first 20 bytes */
#define RSDP_OEM_ID		9
#define RSDP_REVISION		15
#define RSDP_LENGTH		20
#define RSDP_XSDT_ADDRESS	24
#define RSDP_EXTENDED_CHECKSUM	32	/* covers all 36 */
#define RSDP_V1_SIZE		20
#define RSDP_SIZE		36
#define RSDP_REVISION_ACPI2	2	/* ACPI 2.0 and later: has an XSDT */
/* Section 5.2.5.1: found by scanning only on a 16-byte boundary. */
#define RSDP_ALIGN		16

/* Extended System Description Table, section 5.2.8. */
#define XSDT_REVISION		1
#define XSDT_TABLE_COUNT	3	/* FADT, MADT, MCFG */
#define XSDT_SIZE		(HEADER_SIZE + XSDT_TABLE_COUNT * 8)

/* Fixed ACPI Description Table, section 5.2.9: revision 6, minor 5. */
#define FADT_REVISION		6
#define FADT_MINOR_REVISION	5
#define FADT_IAPC_BOOT_ARCH	109
#define FADT_FLAGS		112
#define FADT_MINOR_VERSION	131
#define FADT_X_DSDT		140
#define FADT_SLEEP_CONTROL	244
#define FADT_SLEEP_STATUS	256
#define FADT_HYPERVISOR_ID	268
#define FADT_SIZE		276
/* Fixed feature flags, section 5.2.9 Table 5.10. */
#define FADT_WBINVD		(1u << 0)
#define FADT_PWR_BUTTON		(1u << 4)	/* no fixed power button */
#define FADT_SLP_BUTTON		(1u << 5)	/* no fixed sleep button */
/*
 * MSIs and IPIs in physical destination mode: the guest's x2APIC has no
 * interrupt remapping behind it (docs/vmx.md, "Direct interrupts").
 */
#define FADT_APIC_PHYSICAL	(1u << 19)
#define FADT_HW_REDUCED_ACPI	(1u << 20)
/*
 * IA-PC boot architecture flags, section 5.2.9.3. Left clear: LEGACY_DEVICES,
 * 8042 (Linux then skips probing a keyboard controller) and MSI Not
 * Supported (virtio devices use MSI-X).
 */
#define BOOT_ARCH_VGA_NOT_PRESENT	(1u << 2)
#define BOOT_ARCH_CMOS_RTC_NOT_PRESENT	(1u << 5)
/* "SIDECORE" as the FADT's 64-bit hypervisor vendor identity. */
#define FADT_HYPERVISOR_VENDOR	"SIDECORE"

/* Generic Address Structure, section 5.2.3.2. */
#define GAS_SIZE		12
#define GAS_SPACE_SYSTEM_IO	1
#define GAS_ACCESS_BYTE		1

/* Multiple APIC Description Table, section 5.2.12: revision 6 in ACPI 6.5. */
#define MADT_REVISION		6
#define MADT_LAPIC_ADDRESS	36
#define MADT_FLAGS		40	/* 0: no PC-AT dual 8259 (PCAT_COMPAT clear) */
#define MADT_ENTRIES		44
/* Processor Local APIC structure, section 5.2.12.2. */
#define MADT_TYPE_LOCAL_APIC	0
#define MADT_LOCAL_APIC_SIZE	8
#define MADT_LOCAL_APIC_ENABLED	(1u << 0)

/*
 * PCI Express memory-mapped configuration table, PCI Firmware
 * Specification 3.2 section 4.1.2: eight reserved bytes, then one 16-byte
 * allocation per segment. ECAM gives each bus 1 MiB (PCI Express Base
 * Specification, 7.2.2: 32 devices x 8 functions x 4 KiB).
 */
#define MCFG_REVISION		1
#define MCFG_ALLOCATION		44
#define MCFG_SIZE		(MCFG_ALLOCATION + 16)
#define ECAM_BUS_SIZE		0x100000ull

/* The DSDT (hv/guest/dsdt.asl) declares these same ranges. */
_Static_assert(GUEST_PCI_MMIO_LAST == GUEST_PCI_MMIO_GPA + GUEST_PCI_MMIO_SIZE - 1,
	       "GUEST_PCI_MMIO_LAST does not end the MMIO window");
_Static_assert(GUEST_ECAM_SIZE == ECAM_BUS_SIZE,
	       "the DSDT and MCFG describe bus 0 only");
_Static_assert(GUEST_ACPI_GPA % RSDP_ALIGN == 0, "RSDP not on a 16-byte boundary");

static void acpi_put8(uint8_t *p, size_t offset, uint8_t value)
{
	p[offset] = value;
}

static void acpi_put16(uint8_t *p, size_t offset, uint16_t value)
{
	memcpy(p + offset, &value, sizeof(value));
}

static void acpi_put32(uint8_t *p, size_t offset, uint32_t value)
{
	memcpy(p + offset, &value, sizeof(value));
}

static void acpi_put64(uint8_t *p, size_t offset, uint64_t value)
{
	memcpy(p + offset, &value, sizeof(value));
}

/* The byte that makes the sum of length bytes zero (section 5.2.6). */
static uint8_t acpi_checksum(const uint8_t *p, size_t length)
{
	uint8_t sum = 0;

	while (length--)
		sum = (uint8_t)(sum + *p++);
	return (uint8_t)-sum;
}

static void acpi_write_header(uint8_t *table, const char signature[4], uint32_t length,
			      uint8_t revision)
{
	memcpy(table, signature, 4);
	acpi_put32(table, HEADER_LENGTH, length);
	acpi_put8(table, HEADER_REVISION, revision);
	memcpy(table + HEADER_OEM_ID, ACPI_OEM_ID, 6);
	memcpy(table + HEADER_OEM_TABLE_ID, ACPI_OEM_TABLE_ID, 8);
	acpi_put32(table, HEADER_OEM_REVISION, ACPI_OEM_REVISION);
	memcpy(table + HEADER_CREATOR_ID, ACPI_CREATOR_ID, 4);
	acpi_put32(table, HEADER_CREATOR_REVISION, ACPI_CREATOR_REVISION);
}

/* Last step for each table: every other byte must be final. */
static void acpi_seal_table(uint8_t *table, uint32_t length)
{
	acpi_put8(table, HEADER_CHECKSUM, 0);
	acpi_put8(table, HEADER_CHECKSUM, acpi_checksum(table, length));
}

static void acpi_write_rsdp(uint8_t *rsdp, uint64_t xsdt_gpa)
{
	memcpy(rsdp, RSDP_SIGNATURE, 8);
	memcpy(rsdp + RSDP_OEM_ID, ACPI_OEM_ID, 6);
	acpi_put8(rsdp, RSDP_REVISION, RSDP_REVISION_ACPI2);
	acpi_put32(rsdp, RSDP_LENGTH, RSDP_SIZE);
	acpi_put64(rsdp, RSDP_XSDT_ADDRESS, xsdt_gpa);
	acpi_put8(rsdp, RSDP_CHECKSUM, acpi_checksum(rsdp, RSDP_V1_SIZE));
	acpi_put8(rsdp, RSDP_EXTENDED_CHECKSUM, acpi_checksum(rsdp, RSDP_SIZE));
}

static void acpi_write_xsdt(uint8_t *xsdt, const uint64_t tables[XSDT_TABLE_COUNT])
{
	unsigned int i;

	acpi_write_header(xsdt, "XSDT", XSDT_SIZE, XSDT_REVISION);
	for (i = 0; i < XSDT_TABLE_COUNT; i++)
		acpi_put64(xsdt, HEADER_SIZE + i * 8, tables[i]);
	acpi_seal_table(xsdt, XSDT_SIZE);
}

/* A one-byte register in I/O space. */
static void acpi_write_io_register(uint8_t *gas, uint16_t port)
{
	acpi_put8(gas, 0, GAS_SPACE_SYSTEM_IO);
	acpi_put8(gas, 1, 8);		/* register bit width */
	acpi_put8(gas, 2, 0);		/* register bit offset */
	acpi_put8(gas, 3, GAS_ACCESS_BYTE);
	acpi_put64(gas, 4, port);
}

/*
 * Hardware-reduced: every fixed-hardware block stays zero (section 5.2.9:
 * OSPM ignores them), as does FIRMWARE_CTRL, since such a platform may have
 * no FACS. The DSDT is given by its 64-bit address only. Sleep control and
 * status (section 4.8.3.7) are what a hardware-reduced OS writes to enter
 * S5 with the _S5 package's SLP_TYP.
 */
static void acpi_write_fadt(uint8_t *fadt, uint64_t dsdt_gpa)
{
	acpi_write_header(fadt, "FACP", FADT_SIZE, FADT_REVISION);
	acpi_put16(fadt, FADT_IAPC_BOOT_ARCH,
		   BOOT_ARCH_VGA_NOT_PRESENT | BOOT_ARCH_CMOS_RTC_NOT_PRESENT);
	acpi_put32(fadt, FADT_FLAGS,
		   FADT_WBINVD | FADT_PWR_BUTTON | FADT_SLP_BUTTON | FADT_APIC_PHYSICAL |
		   FADT_HW_REDUCED_ACPI);
	acpi_put8(fadt, FADT_MINOR_VERSION, FADT_MINOR_REVISION);
	acpi_put64(fadt, FADT_X_DSDT, dsdt_gpa);
	acpi_write_io_register(fadt + FADT_SLEEP_CONTROL, GUEST_SLEEP_CONTROL_PORT);
	acpi_write_io_register(fadt + FADT_SLEEP_STATUS, GUEST_SLEEP_STATUS_PORT);
	memcpy(fadt + FADT_HYPERVISOR_ID, FADT_HYPERVISOR_VENDOR, 8);
	acpi_seal_table(fadt, FADT_SIZE);
}

/* The vCPUs' ACPI processor UIDs are their indexes. */
static void acpi_write_madt(uint8_t *madt, uint32_t length, const struct guest_acpi_params *params)
{
	unsigned int i;

	acpi_write_header(madt, "APIC", length, MADT_REVISION);
	acpi_put32(madt, MADT_LAPIC_ADDRESS, (uint32_t)GUEST_LAPIC_GPA);
	acpi_put32(madt, MADT_FLAGS, 0);
	for (i = 0; i < params->vcpu_count; i++) {
		uint8_t *entry = madt + MADT_ENTRIES + i * MADT_LOCAL_APIC_SIZE;

		acpi_put8(entry, 0, MADT_TYPE_LOCAL_APIC);
		acpi_put8(entry, 1, MADT_LOCAL_APIC_SIZE);
		acpi_put8(entry, 2, (uint8_t)i);
		acpi_put8(entry, 3, (uint8_t)params->apic_ids[i]);
		acpi_put32(entry, 4, MADT_LOCAL_APIC_ENABLED);
	}
	acpi_seal_table(madt, length);
}

static void acpi_write_mcfg(uint8_t *mcfg)
{
	uint8_t *allocation = mcfg + MCFG_ALLOCATION;

	acpi_write_header(mcfg, "MCFG", MCFG_SIZE, MCFG_REVISION);
	acpi_put64(allocation, 0, GUEST_ECAM_GPA);
	acpi_put16(allocation, 8, 0);		/* PCI segment group */
	acpi_put8(allocation, 10, 0);		/* first bus */
	acpi_put8(allocation, 11, (uint8_t)(GUEST_ECAM_SIZE / ECAM_BUS_SIZE - 1));
	acpi_seal_table(mcfg, MCFG_SIZE);
}

static bool acpi_params_are_valid(const struct guest_acpi_params *params)
{
	unsigned int i, j;

	if (!params || !params->apic_ids || params->vcpu_count == 0 ||
	    params->vcpu_count > GUEST_ACPI_MAX_VCPUS)
		return false;
	for (i = 0; i < params->vcpu_count; i++) {
		if (params->apic_ids[i] > GUEST_ACPI_APIC_ID_MAX)
			return false;
		for (j = 0; j < i; j++)
			if (params->apic_ids[j] == params->apic_ids[i])
				return false;
	}
	return true;
}

/* Buffer offsets of the tables, in the order they are laid out. */
struct acpi_layout {
	size_t xsdt, fadt, dsdt, madt, mcfg, end;
	uint32_t dsdt_size, madt_size;
};

static size_t acpi_next_table(size_t offset, size_t previous_size)
{
	return (offset + previous_size + ACPI_TABLE_ALIGN - 1) & ~(size_t)(ACPI_TABLE_ALIGN - 1);
}

static void acpi_plan_layout(struct acpi_layout *layout, unsigned int vcpu_count)
{
	layout->dsdt_size = guest_dsdt_aml_size;
	layout->madt_size = MADT_ENTRIES + vcpu_count * MADT_LOCAL_APIC_SIZE;
	layout->xsdt = acpi_next_table(0, RSDP_SIZE);
	layout->fadt = acpi_next_table(layout->xsdt, XSDT_SIZE);
	layout->dsdt = acpi_next_table(layout->fadt, FADT_SIZE);
	layout->madt = acpi_next_table(layout->dsdt, layout->dsdt_size);
	layout->mcfg = acpi_next_table(layout->madt, layout->madt_size);
	layout->end = layout->mcfg + MCFG_SIZE;
}

/**
 * guest_acpi_build() - write the guest's ACPI tables into a buffer.
 * @buf: host view of the guest memory that will hold them.
 * @size: bytes available at @buf; all of them are overwritten.
 * @buf_gpa: guest-physical address of @buf (16-byte aligned), normally
 *           GUEST_ACPI_GPA, which Linux also scans for the RSDP.
 * @params: the vCPUs: count (1 to GUEST_ACPI_MAX_VCPUS) and APIC IDs
 *          (distinct, each at most GUEST_ACPI_APIC_ID_MAX).
 * @rsdp_gpa: set to the RSDP's guest-physical address (@buf_gpa), for the
 *            zero page's acpi_rsdp_addr.
 *
 * The RSDP comes first, then XSDT, FADT, DSDT, MADT and MCFG, each on a
 * 16-byte boundary, each with its checksum.
 *
 * Return: bytes used, or 0 when @params is invalid, @buf_gpa misaligned or
 * the tables do not fit in @size.
 */
size_t guest_acpi_build(void *buf, size_t size, uint64_t buf_gpa,
			const struct guest_acpi_params *params, uint64_t *rsdp_gpa)
{
	struct acpi_layout layout;
	uint64_t xsdt_tables[XSDT_TABLE_COUNT];
	uint8_t *base = buf;

	if (!acpi_params_are_valid(params) || !rsdp_gpa || buf_gpa % RSDP_ALIGN)
		return 0;
	acpi_plan_layout(&layout, params->vcpu_count);
	if (layout.end > size)
		return 0;

	memset(base, 0, size);
	memcpy(base + layout.dsdt, guest_dsdt_aml, layout.dsdt_size);
	acpi_write_fadt(base + layout.fadt, buf_gpa + layout.dsdt);
	acpi_write_madt(base + layout.madt, layout.madt_size, params);
	acpi_write_mcfg(base + layout.mcfg);
	xsdt_tables[0] = buf_gpa + layout.fadt;
	xsdt_tables[1] = buf_gpa + layout.madt;
	xsdt_tables[2] = buf_gpa + layout.mcfg;
	acpi_write_xsdt(base + layout.xsdt, xsdt_tables);
	acpi_write_rsdp(base, buf_gpa + layout.xsdt);
	*rsdp_gpa = buf_gpa;
	return layout.end;
}
