/* SPDX-License-Identifier: MIT */
/*
 * pic.c - the BIOS leaves the 8259s delivering IRQ 0-7 on vectors 8-15,
 * which are CPU exceptions in long mode. Move them above the exceptions
 * (ICW sequence, 8259A datasheet) and mask every line: sidecore uses only
 * the local APIC.
 */
#include "arch/pic.h"
#include "arch/x86.h"

#define PIC1_COMMAND	0x20
#define PIC1_DATA	0x21
#define PIC2_COMMAND	0xa0
#define PIC2_DATA	0xa1

#define ICW1_INIT_ICW4	0x11	/* edge triggered, cascade, ICW4 follows */
#define ICW4_8086	0x01
#define PIC1_VECTOR	0x20
#define PIC2_VECTOR	0x28
#define PIC1_CASCADE	0x04	/* slave on IRQ 2 */
#define PIC2_CASCADE_ID	0x02
#define MASK_ALL	0xff

void pic_disable(void)
{
	pio_out8(PIC1_COMMAND, ICW1_INIT_ICW4);
	pio_out8(PIC2_COMMAND, ICW1_INIT_ICW4);
	pio_out8(PIC1_DATA, PIC1_VECTOR);
	pio_out8(PIC2_DATA, PIC2_VECTOR);
	pio_out8(PIC1_DATA, PIC1_CASCADE);
	pio_out8(PIC2_DATA, PIC2_CASCADE_ID);
	pio_out8(PIC1_DATA, ICW4_8086);
	pio_out8(PIC2_DATA, ICW4_8086);
	pio_out8(PIC1_DATA, MASK_ALL);
	pio_out8(PIC2_DATA, MASK_ALL);
}
