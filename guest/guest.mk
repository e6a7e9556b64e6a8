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
GUEST_SOCAT_SRC := $(GUEST_PKGS)/socat-src
GUEST_STAMPS   := $(GUEST_KERNEL)/.unpacked $(GUEST_NETPERF)/.unpacked \
	$(GUEST_VSOCK_TEST_SRC)/.unpacked $(GUEST_SOCAT_SRC)/.unpacked

# gzip: read fast by the kernel and a fraction of xz's decompression time
# under an emulated CPU; xz saves ~20% more of the image.
GUEST_COMPRESS ?= gzip

# Module names wanted in the guest; their dependencies come from modules.dep.
GUEST_MODULES ?= virtio_pci virtio_net virtio_console virtio_rng vmw_vsock_virtio_transport msr

GUEST_SRCS := guest/init guest/mkinitramfs guest/guest.mk $(wildcard guest/scripts/*.sh guest/scripts/lib/*.sh)

# Test programs for the guest, linked against the glibc netperf already
# brings into the image (the host's is Debian 12's, like the guest's
# userspace): a static copy of it in each would double the image.
GUEST_TOOLS := $(patsubst guest/tools/%.c,$(B)/guest/tools/%,$(wildcard guest/tools/*.c))
GUEST_TOOL_CFLAGS := -std=gnu11 -s -O2 -Wall -Wextra -Werror
# Headers the tools share (the userspace virtio-pci transport, the flooders'
# start signal): a change to one rebuilds every tool, which is few and small.
GUEST_TOOL_HEADERS := $(wildcard guest/tools/*.h)

$(B)/guest/tools/%: guest/tools/%.c $(GUEST_TOOL_HEADERS) guest/guest.mk
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(HOSTCC) $(GUEST_TOOL_CFLAGS) -o $@ $<

# Linux's vsock test suite, tools/testing/vsock of the kernel's source
# package (tools/setup extracts only that folder), built stripped against
# Debian's linux-libc-dev headers with the suite's own flags. ARRAY_SIZE
# comes from the kernel tree's tools/include, which is not extracted: it is
# the one thing the suite takes from there.
GUEST_VSOCK_TEST := $(B)/guest/vsock_test/vsock_test
GUEST_VSOCK_TEST_DIR := $(GUEST_VSOCK_TEST_SRC)/tools/testing/vsock
GUEST_VSOCK_TEST_CFLAGS := -std=gnu11 -s -O2 -Wall -Werror -Wno-pointer-sign \
	-fno-strict-overflow -fno-strict-aliasing -fno-common -U_FORTIFY_SOURCE \
	-D_GNU_SOURCE '-DARRAY_SIZE(a)=(sizeof(a) / sizeof((a)[0]))'

$(GUEST_VSOCK_TEST): $(GUEST_VSOCK_TEST_SRC)/.unpacked guest/guest.mk
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(HOSTCC) $(GUEST_VSOCK_TEST_CFLAGS) -I$(GUEST_VSOCK_TEST_DIR) -o $@ \
		$(addprefix $(GUEST_VSOCK_TEST_DIR)/,vsock_test.c util.c control.c timeout.c)

# socat, from Debian's source package (tools/setup), without OpenSSL,
# readline and libwrap: its VSOCK-LISTEN and VSOCK-CONNECT need none of
# them, and Debian's binary would bring 5 MB of libcrypto into the image.
# Built in a copy of the source, which configure writes into.
GUEST_SOCAT := $(B)/guest/socat/socat
GUEST_SOCAT_CONFIGURE := --disable-openssl --disable-readline --disable-libwrap --disable-fips

$(GUEST_SOCAT): $(GUEST_SOCAT_SRC)/.unpacked
	@echo "  BUILD   $@"
	$(Q)rm -rf $(dir $@) && mkdir -p $(dir $@) && cp -a $(GUEST_SOCAT_SRC) $(dir $@)src
	$(Q)cd $(dir $@)src && ./configure $(GUEST_SOCAT_CONFIGURE) >../configure.log 2>&1 || \
		{ echo "guest: socat's configure failed, see $(dir $@)configure.log" >&2; exit 1; }
	$(Q)$(MAKE) -C $(dir $@)src socat >$(dir $@)make.log 2>&1 || \
		{ echo "guest: socat's build failed, see $(dir $@)make.log" >&2; exit 1; }
	$(Q)strip -o $@ $(dir $@)src/socat

.PHONY: guest
guest: $(B)/guest/vmlinuz $(B)/guest/initrd.img

$(GUEST_STAMPS):
	@echo "guest: $@ is missing: run 'make setup' first (as root)" >&2
	@exit 1

$(B)/guest/vmlinuz: $(GUEST_KERNEL)/.unpacked
	@set -- $(GUEST_KERNEL)/boot/vmlinuz-*; \
	[ $$# -eq 1 ] && [ -f "$$1" ] || { echo "guest: expected one vmlinuz in $(GUEST_KERNEL)/boot" >&2; exit 1; }; \
	cp "$$1" $@ && echo "guest: $@ <- $${1##*/}"

$(B)/guest/initrd.img: $(GUEST_STAMPS) $(GUEST_SRCS) $(GUEST_TOOLS) $(GUEST_VSOCK_TEST) $(GUEST_SOCAT) \
		$(wildcard /bin/busybox)
	guest/mkinitramfs -k $(GUEST_KERNEL) -n $(GUEST_NETPERF) -s $(B)/guest/initramfs \
		-o $@ -c $(GUEST_COMPRESS) $(addprefix -t ,$(GUEST_TOOLS) $(GUEST_VSOCK_TEST) $(GUEST_SOCAT)) \
		$(GUEST_MODULES)
