# SPDX-License-Identifier: MIT
#
# hv/vmx: the instruction decoder and the guest CPU model are pure logic,
# shared with the unit tests and fuzzers.
PURE_SRCS += hv/vmx/decode.c hv/vmx/cpuid_filter.c
PURE_SRCS += hv/vmx/posted.c
PURE_SRCS += hv/vmx/gpt_walk.c
