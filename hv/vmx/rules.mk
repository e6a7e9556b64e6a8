# SPDX-License-Identifier: MIT
#
# hv/vmx: the instruction decoder, the guest CPU model and the exit
# handlers' decisions are pure logic, shared with the unit tests and fuzzers.
PURE_SRCS += hv/vmx/decode.c hv/vmx/cpuid_filter.c
PURE_SRCS += hv/vmx/posted.c hv/vmx/exit_rules.c
