/* SPDX-License-Identifier: MIT */
/*
 * ioapic.c - program one redirection entry of an I/O APIC.
 *
 * Register access and layout: 82093AA I/O APIC datasheet §3.0 (IOREGSEL
 * at offset 0, IOWIN at 0x10; IOAPICVER register 1, IOREDTBL 0x10 + 2n).
 * Flags: ACPI 6.5 §5.2.12.5, Table 5.50 (MPS INTI flags).
 */
#include "arch/ioapic.h"
#include "arch/x86.h"

#define IOAPIC_REGSEL		0x00
#define IOAPIC_WINDOW		0x10
#define IOAPIC_VERSION		0x01
#define IOAPIC_MAX_ENTRY(v)	(((v) >> 16) & 0xff)
#define IOAPIC_REDTBL(n)	(0x10 + 2 * (n))
#define REDTBL_ACTIVE_LOW	(1u << 13)
#define REDTBL_LEVEL		(1u << 15)
#define REDTBL_MASKED		(1u << 16)
#define REDTBL_DEST_SHIFT	24	/* in the high dword: physical APIC ID */

#define INTI_POLARITY_MASK	0x3
#define INTI_ACTIVE_LOW		0x3
#define INTI_TRIGGER_MASK	0xc
#define INTI_LEVEL		0xc

static uint32_t ioapic_read(uint32_t base, uint8_t reg)
{
	mmio_write32(base + IOAPIC_REGSEL, reg);
	return mmio_read32(base + IOAPIC_WINDOW);
}

static void ioapic_write(uint32_t base, uint8_t reg, uint32_t value)
{
	mmio_write32(base + IOAPIC_REGSEL, reg);
	mmio_write32(base + IOAPIC_WINDOW, value);
}

bool ioapic_route_isa(const struct topology *topo, unsigned int irq, uint8_t vector,
		      uint32_t apic_id)
{
	const struct topo_isa_irq *isa;
	uint32_t low = vector;

	if (irq >= TOPO_ISA_IRQS || apic_id > 0xff)
		return false;
	isa = &topo->isa_irq[irq];
	/* ISA lines are active high and edge triggered unless the MADT says otherwise. */
	if ((isa->flags & INTI_POLARITY_MASK) == INTI_ACTIVE_LOW)
		low |= REDTBL_ACTIVE_LOW;
	if ((isa->flags & INTI_TRIGGER_MASK) == INTI_LEVEL)
		low |= REDTBL_LEVEL;

	for (unsigned int i = 0; i < topo->ioapic_count; i++) {
		const struct topo_ioapic *io = &topo->ioapic[i];
		uint32_t pin;

		if (isa->gsi < io->gsi_base)
			continue;
		pin = isa->gsi - io->gsi_base;
		if (pin > IOAPIC_MAX_ENTRY(ioapic_read(io->address, IOAPIC_VERSION)))
			continue;
		/* Masked while the destination changes, so no half-written entry fires. */
		ioapic_write(io->address, IOAPIC_REDTBL(pin), REDTBL_MASKED);
		ioapic_write(io->address, IOAPIC_REDTBL(pin) + 1, apic_id << REDTBL_DEST_SHIFT);
		ioapic_write(io->address, IOAPIC_REDTBL(pin), low);
		return true;
	}
	return false;
}
