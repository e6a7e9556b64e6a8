# SPDX-License-Identifier: MIT
#
# hv/arch: the exception-table lookup is pure logic; the table itself is
# built by the linker.
PURE_SRCS += hv/arch/extable.c
