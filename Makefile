# SPDX-License-Identifier: MIT
#
# sidecore build. `make` builds the hypervisor and the host tool, `make iso`
# the bootable image, `make check` every test tier. CROSS_COMPILE prefixes the
# hypervisor toolchain (e.g. CROSS_COMPILE=x86_64-linux-gnu-).

CROSS_COMPILE ?=
CC       := $(CROSS_COMPILE)gcc
LD       := $(CROSS_COMPILE)ld
OBJCOPY  := $(CROSS_COMPILE)objcopy
HOSTCC   ?= gcc
FUZZCC   ?= clang
PYTHON   ?= python3

B := build

.DEFAULT_GOAL := all

# Freestanding C for the hypervisor: no libc headers but the compiler's own
# (stdint.h, stddef.h, stdbool.h, stdarg.h), no SSE, no red zone (interrupts
# land on the current stack).
HV_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding \
	-fno-stack-protector -fno-pic -fno-pie -fno-asynchronous-unwind-tables \
	-mno-red-zone -mno-mmx -mno-sse -mno-sse2 -mno-avx -mcmodel=small \
	-nostdinc -isystem $(shell $(CC) -print-file-name=include) \
	-Ihv/lib/include -Ihv -I. -isystem $(B)/uapi -MMD -MP
HV_LDFLAGS := -nostdlib -static -no-pie -Wl,--build-id=none -z max-page-size=0x1000 \
	-z noexecstack -T linker.ld

# Logic with no hardware access: built into the hypervisor, the host tool,
# the unit tests and the fuzzers alike. A folder's rules.mk adds its own.
PURE_SRCS := $(wildcard hv/platform/*.c hv/mm/*.c hv/config/*.c) hv/init/bootinfo.c
include $(wildcard hv/*/rules.mk drivers/*/rules.mk)

HV_SRCS := $(wildcard boot/*.S hv/*/*.S) $(wildcard hv/*/*.c) $(wildcard drivers/*.c drivers/*/*.c)
HV_OBJS := $(patsubst %,$(B)/hv/%.o,$(HV_SRCS))

HOST_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -Ihv -I. -isystem $(B)/uapi -MMD -MP
SAN_FLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
HOST_LOG    := tools/sidecore/log_stderr.c
TOOL_SRCS   := $(filter-out $(HOST_LOG),$(wildcard tools/sidecore/*.c))
HOST_OBJS   := $(patsubst %,$(B)/host/%.o,$(PURE_SRCS) $(HOST_LOG))

UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
UNIT_EXTRA := $(wildcard tests/unit/support/*.c tests/models/*.c)

FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRCS))
# make fuzz-long gives each target ten minutes unless FUZZ_SECONDS says otherwise.
FUZZ_LONG_SECONDS := $(if $(filter undefined,$(origin FUZZ_SECONDS)),600,$(FUZZ_SECONDS))
FUZZ_SECONDS ?= 60

.PHONY: all iso setup demo plots bench-host check check-unit check-fuzz check-boot check-vmx check-smp soak clean fuzz fuzz-long
all: $(B)/sidecore.elf $(B)/tools/sidecore

# --- Linux UAPI headers ----------------------------------------------------
# The freestanding build sees linux/, asm/, asm-generic/ and video/ (virtio rings,
# boot_params) but no libc header.
UAPI_STAMP := $(B)/uapi/.stamp
$(UAPI_STAMP):
	@mkdir -p $(B)/uapi
	@ln -sfn /usr/include/linux $(B)/uapi/linux
	@ln -sfn /usr/include/asm-generic $(B)/uapi/asm-generic
	@ln -sfn /usr/include/x86_64-linux-gnu/asm $(B)/uapi/asm
	@ln -sfn /usr/include/video $(B)/uapi/video
	@touch $@

# --- hypervisor -------------------------------------------------------------
Q ?= @
$(B)/hv/%.c.o: %.c | $(UAPI_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(HV_CFLAGS) -c $< -o $@

$(B)/hv/%.S.o: %.S | $(UAPI_STAMP)
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	$(Q)$(CC) $(HV_CFLAGS) -D__ASSEMBLY__ -c $< -o $@

$(B)/sidecore.elf: $(HV_OBJS) linker.ld
	@echo "  LD      $@"
	$(Q)$(CC) $(HV_LDFLAGS) -o $@ $(HV_OBJS) -lgcc

# --- host tool, unit tests, fuzzers -----------------------------------------
$(B)/host/%.c.o: %.c | $(UAPI_STAMP)
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $<"
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(B)/host/%.S.o: %.S | $(UAPI_STAMP)
	@mkdir -p $(dir $@)
	@echo "  HOSTAS  $<"
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -c $< -o $@

$(B)/tools/sidecore: $(patsubst %,$(B)/host/%.o,$(TOOL_SRCS)) $(HOST_OBJS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(SAN_FLAGS) -o $@ $^

$(B)/tests/%: $(B)/host/tests/unit/%.c.o $(patsubst %,$(B)/host/%.o,$(UNIT_EXTRA)) $(HOST_OBJS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(SAN_FLAGS) -pthread -o $@ $^ -lcmocka

# test_stat_parse reads the console the way `sidecore stat` does.
$(B)/tests/test_stat_parse: $(B)/host/tools/sidecore/stat_parse.c.o

# test_string links the hypervisor's string.c under hv_ names: the host C
# library's own stay what everything else in the test calls.
STRING_NAMES := memcpy memmove memset memcmp memchr strlen strnlen strcmp strncmp strchr
$(B)/host/hv_string.o: hv/lib/string.c | $(UAPI_STAMP)
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $< (hv_ names)"
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(SAN_FLAGS) $(STRING_CFLAGS) -U_FORTIFY_SOURCE \
		$(foreach f,$(STRING_NAMES),-D$(f)=hv_$(f)) -c $< -o $@

$(B)/tests/test_string: $(B)/host/hv_string.o

$(B)/fuzz/%: tests/fuzz/%.c $(PURE_SRCS) $(HOST_LOG) | $(UAPI_STAMP)
	@mkdir -p $(dir $@)
	$(FUZZCC) -std=gnu11 -g -O1 -Ihv -I. -isystem $(B)/uapi -DFUZZING -fsanitize=fuzzer,address,undefined \
		-o $@ $< $(PURE_SRCS) $(HOST_LOG)

fuzz: $(FUZZ_BINS)

# Every target in turn, corpora kept in $(B)/fuzz-long, findings too (docs/fuzzing.md).
fuzz-long: $(FUZZ_BINS)
	FUZZ_SECONDS=$(FUZZ_LONG_SECONDS) tests/fuzz/fuzz_long.sh

# --- the data path on the host's CPU (docs/data-path.md "On the host's CPU") ---
# The hypervisor's pure data-path code at its own -O2, without sanitizers, in
# an archive the bench takes what it calls from. The unit tier runs it briefly
# (tests/unit/check_dpbench.sh); make bench-host measures.
BENCH_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Ihv -I. -isystem $(B)/uapi -MMD -MP
BENCH_HV    := $(filter %.c,$(filter hv/virtio/% hv/net/% hv/sidecore/% hv/lib/% hv/vdev/%,$(PURE_SRCS))) \
	$(HOST_LOG)
BENCH_TOOL  := $(wildcard tools/dpbench/*.c)

$(B)/bench/%.c.o: %.c | $(UAPI_STAMP)
	@mkdir -p $(dir $@)
	@echo "  BENCHCC $<"
	$(Q)$(HOSTCC) $(BENCH_CFLAGS) -c $< -o $@

# The hypervisor's sources call its own copies (tools/dpbench/hv_copies.h).
$(patsubst %,$(B)/bench/%.o,$(filter hv/%,$(BENCH_HV))): BENCH_CFLAGS += -include tools/dpbench/hv_copies.h

$(B)/bench/hv_string.o: hv/lib/string.c | $(UAPI_STAMP)
	@mkdir -p $(dir $@)
	@echo "  BENCHCC $< (hv_ names)"
	$(Q)$(HOSTCC) $(BENCH_CFLAGS) $(STRING_CFLAGS) -U_FORTIFY_SOURCE \
		$(foreach f,$(STRING_NAMES),-D$(f)=hv_$(f)) -c $< -o $@

$(B)/bench/libhv.a: $(patsubst %,$(B)/bench/%.o,$(BENCH_HV)) $(B)/bench/hv_string.o
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/dpbench: $(patsubst %,$(B)/bench/%.o,$(BENCH_TOOL)) $(B)/bench/libhv.a
	$(HOSTCC) -pthread -o $@ $^

# One hop at a time, for callgrind (tests/perf/hop_pass.c, docs/data-path.md "Profile").
$(B)/hop_pass: $(B)/bench/tests/perf/hop_pass.c.o $(B)/bench/tools/dpbench/driver.c.o $(B)/bench/libhv.a
	$(HOSTCC) -o $@ $^

# Both sides, side by side with the ratio per size; root for DPDK's hugepages.
# BENCH_HOST_ARGS: --sizes, --seconds, --runs (tools/bench-host).
bench-host: $(B)/dpbench
	tools/bench-host $(BENCH_HOST_ARGS)

# --- images -----------------------------------------------------------------
include guest/guest.mk
include tools/iso.mk

# --- setup, demo, tests -----------------------------------------------------
setup:
	tools/setup

demo: setup
	tools/demo

# The figures of docs/results.md, drawn again from its tables (docs/img/).
plots:
	tools/bench --plot

# make check runs each fuzzer briefly; make check-fuzz gives each a minute.
CHECK_FUZZ_SECONDS ?= 20
check: setup
	FUZZ_SECONDS=$(CHECK_FUZZ_SECONDS) tools/check all

check-unit: $(UNIT_BINS) $(B)/tools/sidecore $(B)/dpbench $(B)/hop_pass
	tools/check unit

check-fuzz: $(FUZZ_BINS)
	FUZZ_SECONDS=$(FUZZ_SECONDS) tools/check fuzz

check-boot:
	tools/check boot

check-vmx:
	tools/check vmx

# The soak scenario at length: gamma feeds its device malformed rings and
# crashes SOAK_RESTARTS times while alpha and beta run netperf (the vmx tier
# runs it with 1). A few minutes of wall time per restart.
SOAK_RESTARTS ?= 10
soak: $(B)/test-guests-soak.iso
	tests/integration/bochs_soak.sh $(SOAK_RESTARTS)

# Guests with several vCPUs under Bochs, out of CI for their length (about
# 20 and 25 minutes of wall time on a two-core machine): the smp scenario
# (two lives of a four-vCPU guest on Haswell, one on Nehalem), the mq
# scenario (a queue pair per vCPU under 4 netperfs, beside a guest storming
# IPIs) and the lives scenario (six lives of a three-vCPU guest storming
# INIT and SIPI, stopped and started by the operator), one after the other.
check-smp: $(B)/test-guests-smp.iso $(B)/test-guests-mq.iso $(B)/test-guests-lives.iso
	tests/integration/bochs_guests.sh smp mq lives

unit-bins: $(UNIT_BINS) $(B)/tools/sidecore $(B)/dpbench $(B)/hop_pass

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' -type f 2>/dev/null)
