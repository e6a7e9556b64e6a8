#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Reboots the guest through the magic SysRq key. With reboot=t on
# the kernel command line that reboot is a triple fault: a crashed guest,
# as the hypervisor sees it.
#
# Before that it reports, then sets, a word the next life must find zeroed
# (the hypervisor clears guest RAM on every start). The word lies in the
# legacy hole below 1 MiB: guest RAM under EPT, but neither RAM nor
# reserved in the guest's e820, so STRICT_DEVMEM lets /dev/mem reach it;
# the hypervisor writes nothing there (docs/guest-platform.md).
#
# With sidecore.sweep=1 the guest first raises every vector 0-31 with
# all of them held back, and reboots at once ("apicabuse sweep reboot"):
# one the hypervisor let through would reach its core's host IDT then.

leftover_addr=0xdf100
echo "crash: leftover $(devmem $leftover_addr 32)"
devmem $leftover_addr 32 0x5ec0de42
echo "crash: rebooting by sysrq"
# The serial driver sends the lines above while the guest runs on; the
# reboot would cut them short.
sleep 1
echo 1 >/proc/sys/kernel/sysrq
[ "${SIDECORE_SWEEP:-0}" = 1 ] && exec apicabuse sweep reboot
echo b >/proc/sysrq-trigger
