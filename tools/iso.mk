# SPDX-License-Identifier: MIT
# ISO images. `make iso` is the demo image: hypervisor, config and the guest
# images. Test images come in two kinds: boot-only ones carry just a config
# (the emulated BIOS reads less), guest ones add the kernel and initramfs.

CONFIG ?= docs/examples/sidecore.conf

iso: $(B)/sidecore.iso

# GRUB reads the ISO slowly under emulation: ship the hypervisor without
# its debug information.
$(B)/sidecore-boot.elf: $(B)/sidecore.elf
	$(Q)$(OBJCOPY) --strip-debug $< $@

$(B)/sidecore.iso: $(B)/sidecore-boot.elf $(CONFIG) guest tools/mkiso
	tools/mkiso $@ $(B)/sidecore-boot.elf $(CONFIG):config \
		$(B)/guest/vmlinuz:vmlinuz $(B)/guest/initrd.img:initrd

$(B)/test-%.iso: $(B)/sidecore-boot.elf tests/integration/%.conf tools/mkiso
	tools/mkiso $@ $(B)/sidecore-boot.elf tests/integration/$*.conf:config

$(B)/test-guests-%.iso: $(B)/sidecore-boot.elf tests/integration/guests-%.conf guest tools/mkiso
	tools/mkiso $@ $(B)/sidecore-boot.elf tests/integration/guests-$*.conf:config \
		$(B)/guest/vmlinuz:vmlinuz $(B)/guest/initrd.img:initrd
