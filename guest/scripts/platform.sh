#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Guest platform report for the VMX scenarios: what the hypervisor gave
# this guest (memory, TSC, APIC, timer) and whether guest time runs true.
# Prints "platform: KEY VALUE..." lines.

echo "platform: memtotal_kb $(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)"
echo "platform: clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
dmesg | grep -iE 'tsc|apic|timer|clocksource|calibrat' | sed 's/^/platform: dmesg /'

# The entropy device, where the guest's section has `rng = yes`
# (docs/guest-platform.md, "Entropy"): the source Linux's hwrng core took,
# "none" without one, and 32 bytes read from it, in hex.
echo "platform: rng_current $(cat /sys/class/misc/hw_random/rng_current 2>/dev/null || echo none)"
echo "platform: hwrng $(timeout 10 head -c 32 /dev/hwrng 2>/dev/null | od -An -tx1 | tr -d ' \n')"

t0=$(cut -d' ' -f1 /proc/uptime)
sleep 2
t1=$(cut -d' ' -f1 /proc/uptime)
echo "platform: sleep2 $t0 $t1"

# Any write to port 0x610 makes the hypervisor print this guest's exit
# counters on its console (docs/vmx.md).
printf x | dd of=/dev/port bs=1 seek=1552 2>/dev/null
echo "platform: counters requested"
