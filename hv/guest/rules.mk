# SPDX-License-Identifier: MIT
#
# hv/guest: the Linux loader, the guest ACPI tables, the vCPUs' life
# protocol and the platform's I/O-port map are pure logic, built into the
# hypervisor, the host tool, the unit tests and the fuzzers. The guest DSDT is ASL compiled by iasl (acpica-tools) and assembled in with
# .incbin from $(B)/gen.

PURE_SRCS += hv/guest/linux_loader.c hv/guest/guest_acpi.c hv/guest/dsdt_aml.S
PURE_SRCS += hv/guest/vcpu_life.c hv/guest/guest_ports.c

IASL   ?= iasl
GUEST_GEN := $(B)/gen
GUEST_AML := $(GUEST_GEN)/dsdt.aml

# iasl's preprocessor reads C #defines but not C integer suffixes (0x1000ull),
# so dsdt.asl includes a copy of guest_layout.h without them.
$(GUEST_GEN)/guest_layout_asl.h: hv/config/guest_layout.h
	@mkdir -p $(dir $@)
	$(Q)sed -E 's/\b(0x[0-9a-fA-F]+|[0-9]+)([uU][lL]{0,2}|[lL]{1,2}[uU]?)\b/\1/g' $< >$@

# Warnings are errors; iasl's chatter is shown only when it fails.
$(GUEST_AML): hv/guest/dsdt.asl $(GUEST_GEN)/guest_layout_asl.h
	@mkdir -p $(dir $@)
	@echo "  IASL    $<"
	$(Q)$(IASL) -vs -we -I $(GUEST_GEN) -p $(GUEST_GEN)/dsdt $< >$(GUEST_GEN)/dsdt.log 2>&1 || \
		{ cat $(GUEST_GEN)/dsdt.log; rm -f $@; exit 1; }

# Compilers do not record .incbin files in their dependency output.
GUEST_AML_OBJS := $(B)/hv/hv/guest/dsdt_aml.S.o $(B)/host/hv/guest/dsdt_aml.S.o
$(GUEST_AML_OBJS): $(GUEST_AML)
$(B)/hv/hv/guest/dsdt_aml.S.o: HV_CFLAGS += -I$(GUEST_GEN)
$(B)/host/hv/guest/dsdt_aml.S.o: HOST_CFLAGS += -I$(GUEST_GEN)

# Each fuzzer compiles every pure source, dsdt_aml.S included, in one clang
# command: it needs the AML built and $(B)/gen on its include path too.
GUEST_FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
$(GUEST_FUZZ_BINS): $(GUEST_AML)
$(GUEST_FUZZ_BINS): FUZZCC += -I$(GUEST_GEN)
