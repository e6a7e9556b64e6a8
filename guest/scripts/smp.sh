#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A guest with several vCPUs (docs/vmx.md, "Secondary vCPUs"): how many
# came online, and a job pinned to each one that runs there. Prints
# "smp: KEY VALUE..." lines and "smp: done" at the end.

echo "smp: nproc $(nproc)"
echo "smp: online $(cat /sys/devices/system/cpu/online)"
dmesg | grep -iE 'smpboot|smp:|x86: Booting|CPU[0-9]+ failed' | sed 's/^/smp: dmesg /'

# Each job reports the CPU it ran on (field 39 of /proc/self/stat).
cpus=$(($(nproc) - 1))
for cpu in $(seq 0 "$cpus"); do
	taskset -c "$cpu" sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done
		echo "smp: cpu '"$cpu"' ran on $(cut -d" " -f39 /proc/self/stat)"' &
done
wait

# The counters show each vCPU's exits, its IPIs among them.
printf x | dd of=/dev/port bs=1 seek=1552 2>/dev/null
echo "smp: done"
