/* SPDX-License-Identifier: MIT */
/*
 * dsdt.asl - the Differentiated System Description Table every guest gets
 * (docs/guest-platform.md). Compiled by iasl at build time; the build feeds
 * it guest_layout.h with the C integer suffixes removed, so the addresses
 * below have one home.
 *
 * The namespace is static: nothing here depends on the guest's size or vCPU
 * count (those live in the MADT, built at run time). Emulated PCI devices are
 * found by enumerating bus 0 through ECAM or ports 0xCF8/0xCFC, so they need
 * nothing here.
 */
#include "guest_layout_asl.h"

DefinitionBlock ("", "DSDT", 2, "SIDECR", "SIDECORE", 1)
{
	Scope (\_SB)
	{
		/*
		 * PCI Express root bridge, segment 0, bus 0 only (ACPI 6.5
		 * section 6.1.5 _HID, 6.5.5 _BBN, 6.5.6 _SEG). PNP0A03 as a
		 * compatible ID lets an OS without PCIe support bind it.
		 */
		Device (PCI0)
		{
			Name (_HID, EisaId ("PNP0A08"))
			Name (_CID, EisaId ("PNP0A03"))
			Name (_UID, Zero)
			Name (_SEG, Zero)
			Name (_BBN, Zero)
			Name (_CRS, ResourceTemplate ()
			{
				WordBusNumber (ResourceProducer, MinFixed, MaxFixed, PosDecode,
					0x0000,		// granularity
					0x0000,		// first bus
					0x0000,		// last bus
					0x0000,		// translation
					0x0001)		// bus count
				/* Configuration mechanism #1, consumed by the bridge itself. */
				IO (Decode16, 0x0CF8, 0x0CF8, 0x01, 0x08)
				/* Where the BARs of emulated devices are placed. */
				DWordMemory (ResourceProducer, PosDecode, MinFixed, MaxFixed,
					NonCacheable, ReadWrite,
					0x00000000,		// granularity
					GUEST_PCI_MMIO_GPA,	// first byte
					GUEST_PCI_MMIO_LAST,	// last byte
					0x00000000,		// translation
					GUEST_PCI_MMIO_SIZE)	// length
			})
		}

		/*
		 * Motherboard resources: claiming the ECAM window here is how an
		 * OS learns that the MCFG range is really reserved for
		 * configuration space (PCI Firmware Specification 3.2 section
		 * 4.1.2); the sleep registers are claimed so nothing else is
		 * placed on their ports.
		 */
		Device (SYSR)
		{
			Name (_HID, EisaId ("PNP0C02"))
			Name (_UID, Zero)
			Name (_CRS, ResourceTemplate ()
			{
				Memory32Fixed (ReadWrite, GUEST_ECAM_GPA, GUEST_ECAM_SIZE)
				IO (Decode16, GUEST_SLEEP_CONTROL_PORT, GUEST_SLEEP_CONTROL_PORT,
					0x01, 0x01)
				IO (Decode16, GUEST_SLEEP_STATUS_PORT, GUEST_SLEEP_STATUS_PORT,
					0x01, 0x01)
			})
		}

		/*
		 * The guest console, a 16550-compatible UART at the first PC
		 * serial port address. No interrupt is listed on purpose: the
		 * guest has neither an 8259 nor an I/O APIC to route one, and a
		 * port without an IRQ is driven by a periodic poll in Linux's
		 * 8250 driver instead of stalling on an interrupt that never
		 * comes.
		 */
		Device (COM1)
		{
			Name (_HID, EisaId ("PNP0501"))
			Name (_UID, One)
			Name (_CRS, ResourceTemplate ()
			{
				IO (Decode16, 0x03F8, 0x03F8, 0x01, 0x08)
			})
		}
	}

	/*
	 * Soft off (ACPI 6.5 section 7.4.2.6): SLP_TYPa, SLP_TYPb, two reserved
	 * bytes. A hardware-reduced OS writes (SLP_TYPa << 2) | SLP_EN to the
	 * FADT's sleep control register (section 4.8.3.7).
	 */
	Name (\_S5, Package (0x04)
	{
		GUEST_SLP_TYP_S5,
		GUEST_SLP_TYP_S5,
		Zero,
		Zero
	})
}
