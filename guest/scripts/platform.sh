#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Guest platform report for the VMX scenarios: what the hypervisor gave
# this guest (memory, TSC, APIC, timer) and whether guest time runs true.
# Prints "platform: KEY VALUE..." lines.

echo "platform: memtotal_kb $(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)"
echo "platform: clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
dmesg | grep -iE 'tsc|apic|timer|clocksource|calibrat' | sed 's/^/platform: dmesg /'

t0=$(cut -d' ' -f1 /proc/uptime)
sleep 2
t1=$(cut -d' ' -f1 /proc/uptime)
echo "platform: sleep2 $t0 $t1"

# Any write to port 0x610 makes the hypervisor print this guest's exit
# counters on its console (docs/vmx.md).
printf x | dd of=/dev/port bs=1 seek=1552 2>/dev/null
echo "platform: counters requested"
