# SPDX-License-Identifier: MIT
#
# Guest image: the stock Debian kernel and a small initramfs (busybox,
# netperf, virtio/vsock modules, guest/init, guest/scripts, guest/tools,
# Linux's vsock_test). Included by the
# top Makefile; the parts come from Debian packages that tools/setup
# unpacks into $(B)/guest/pkgs. See docs/guest.md.

GUEST_PKGS     := $(B)/guest/pkgs
GUEST_KERNEL   := $(GUEST_PKGS)/kernel
GUEST_NETPERF  := $(GUEST_PKGS)/netperf
GUEST_VSOCK_TEST_SRC := $(GUEST_PKGS)/vsock_test-src
GUEST_STAMPS   := $(GUEST_KERNEL)/.unpacked $(GUEST_NETPERF)/.unpacked \
	$(GUEST_VSOCK_TEST_SRC)/.unpacked

# gzip: read fast by the kernel and a fraction of xz's decompression time
# under an emulated CPU; xz saves ~20% more of the image.
GUEST_COMPRESS ?= gzip

# Module names wanted in the guest; their dependencies come from modules.dep.
GUEST_MODULES ?= virtio_pci virtio_net virtio_console vmw_vsock_virtio_transport msr

GUEST_SRCS := guest/init guest/mkinitramfs guest/guest.mk $(wildcard guest/scripts/*.sh)

# Test programs for the guest: static, so they need nothing from the image
# (the host's glibc is Debian 12's, like the guest's userspace).
GUEST_TOOLS := $(patsubst guest/tools/%.c,$(B)/guest/tools/%,$(wildcard guest/tools/*.c))
GUEST_TOOL_CFLAGS := -std=gnu11 -static -s -O2 -Wall -Wextra -Werror
# Headers the tools share (the userspace virtio-pci transport): a change to
# one rebuilds every tool, which is few and small.
GUEST_TOOL_HEADERS := $(wildcard guest/tools/*.h)

$(B)/guest/tools/%: guest/tools/%.c $(GUEST_TOOL_HEADERS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(HOSTCC) $(GUEST_TOOL_CFLAGS) -o $@ $<

# Linux's vsock test suite, tools/testing/vsock of the kernel's source
# package (tools/setup extracts only that folder), built static and stripped
# against Debian's linux-libc-dev headers with the suite's own flags.
# ARRAY_SIZE comes from the kernel tree's tools/include, which is not
# extracted: it is the one thing the suite takes from there. The linker's
# warning about getaddrinfo in a static program does not apply: the
# control connection is given numeric addresses and ports.
GUEST_VSOCK_TEST := $(B)/guest/vsock_test/vsock_test
GUEST_VSOCK_TEST_DIR := $(GUEST_VSOCK_TEST_SRC)/tools/testing/vsock
GUEST_VSOCK_TEST_CFLAGS := -std=gnu11 -static -s -O2 -Wall -Werror -Wno-pointer-sign \
	-fno-strict-overflow -fno-strict-aliasing -fno-common -U_FORTIFY_SOURCE \
	-D_GNU_SOURCE '-DARRAY_SIZE(a)=(sizeof(a) / sizeof((a)[0]))'

$(GUEST_VSOCK_TEST): $(GUEST_VSOCK_TEST_SRC)/.unpacked
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(HOSTCC) $(GUEST_VSOCK_TEST_CFLAGS) -I$(GUEST_VSOCK_TEST_DIR) -o $@ \
		$(addprefix $(GUEST_VSOCK_TEST_DIR)/,vsock_test.c util.c control.c timeout.c)

.PHONY: guest
guest: $(B)/guest/vmlinuz $(B)/guest/initrd.img

$(GUEST_STAMPS):
	@echo "guest: $@ is missing: run 'make setup' first (as root)" >&2
	@exit 1

$(B)/guest/vmlinuz: $(GUEST_KERNEL)/.unpacked
	@set -- $(GUEST_KERNEL)/boot/vmlinuz-*; \
	[ $$# -eq 1 ] && [ -f "$$1" ] || { echo "guest: expected one vmlinuz in $(GUEST_KERNEL)/boot" >&2; exit 1; }; \
	cp "$$1" $@ && echo "guest: $@ <- $${1##*/}"

$(B)/guest/initrd.img: $(GUEST_STAMPS) $(GUEST_SRCS) $(GUEST_TOOLS) $(GUEST_VSOCK_TEST) \
		$(wildcard /bin/busybox)
	guest/mkinitramfs -k $(GUEST_KERNEL) -n $(GUEST_NETPERF) -s $(B)/guest/initramfs \
		-o $@ -c $(GUEST_COMPRESS) $(addprefix -t ,$(GUEST_TOOLS) $(GUEST_VSOCK_TEST)) \
		$(GUEST_MODULES)
