/* SPDX-License-Identifier: MIT */
/* pic.h - the legacy 8259 pair, which sidecore only silences. */
#ifndef SIDECORE_ARCH_PIC_H
#define SIDECORE_ARCH_PIC_H

void pic_disable(void);

#endif
