# SPDX-License-Identifier: MIT
#
# hv/vmx: the instruction decoder, the guest CPU model, the exit handlers'
# decisions, the guest page-table walk and the virtual-8086 #GP decoder
# are pure logic, shared with the unit tests and fuzzers.
PURE_SRCS += hv/vmx/decode.c hv/vmx/cpuid_filter.c hv/vmx/exit_rules.c
PURE_SRCS += hv/vmx/gpt_walk.c hv/vmx/apic_direct.c hv/vmx/realmode.c hv/vmx/vmcs_controls.c
