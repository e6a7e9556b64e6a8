#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Reboots the guest at once through the magic SysRq key. With reboot=t on
# the kernel command line that reboot is a triple fault: a crashed guest,
# as the hypervisor sees it.

echo "crash: rebooting by sysrq"
echo 1 >/proc/sys/kernel/sysrq
echo b >/proc/sysrq-trigger
