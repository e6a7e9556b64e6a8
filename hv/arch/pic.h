/* SPDX-License-Identifier: MIT */
/* pic.h - the legacy 8259 pair, which sidecore only silences. */
#ifndef SIDECORE_ARCH_PIC_H
#define SIDECORE_ARCH_PIC_H

/**
 * pic_disable() - move the 8259s' vectors above the exceptions and mask them
 *
 * The BIOS leaves IRQ 0-7 on vectors 8-15, which are CPU exceptions in long
 * mode; sidecore uses only the local APIC.
 */
void pic_disable(void);

#endif
