# SPDX-License-Identifier: MIT
# ISO images. `make iso` is the demo image: hypervisor, config and the guest
# images. The test images carry only a config, so the emulated BIOS has less
# to read.

CONFIG ?= docs/examples/sidecore.conf

iso: $(B)/sidecore.iso

$(B)/sidecore.iso: $(B)/sidecore.elf $(CONFIG) $(B)/guest/vmlinuz $(B)/guest/initrd.img tools/mkiso
	tools/mkiso $@ $(B)/sidecore.elf $(CONFIG):config \
		$(B)/guest/vmlinuz:vmlinuz $(B)/guest/initrd.img:initrd

$(B)/test-%.iso: $(B)/sidecore.elf tests/integration/%.conf tools/mkiso
	tools/mkiso $@ $(B)/sidecore.elf tests/integration/$*.conf:config
