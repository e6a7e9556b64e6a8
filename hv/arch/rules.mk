# SPDX-License-Identifier: MIT
#
# hv/arch: the exception-table lookup and the IDT's choice per vector are
# pure logic; the table itself is built by the linker.
PURE_SRCS += hv/arch/extable.c hv/arch/trap.c

# test_isr runs the real entry stubs in user mode, IRETQ included.
$(B)/tests/test_isr: $(B)/host/hv/arch/isr.S.o
