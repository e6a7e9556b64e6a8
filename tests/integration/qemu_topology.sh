#!/bin/bash
# QEMU (TCG) boot scenarios: the boot summary must describe exactly the
# machine QEMU was told to be.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
out=build/check/qemu
mkdir -p $out

# topology FIRMWARE: 1 socket, then 2 sockets with a NUMA node each, booted
# through FIRMWARE (bios or uefi) from the same hybrid image.
topology() {
	local fw=$1 log

	# 1 socket x 2 cores, no NUMA information.
	log=$out/1s2c-$fw.log
	tools/run-qemu --firmware $fw --sockets 1 --cores 2 --mem 1024 --log $log --timeout 120 \
		build/test-boot.iso
	tap_result $? "$fw 1s2c: boots to 'boot: done'"
	tap_line $log "boot: $fw" "$fw 1s2c: the summary says boot: $fw"
	tap_line $log 'node 0: cpus 0,1 mem [0-9]+ MiB' "$fw 1s2c: node 0 has cpus 0,1"
	tap_node_mem $log 0 1024 "$fw 1s2c: node 0 memory"
	tap_no_line $log '^node 1:' "$fw 1s2c: no second node"
	tap_line $log 'sidecore: cpu 0 node 0' "$fw 1s2c: sidecore on cpu 0"
	tap_line $log 'vmx: unavailable \(cpu has no VMX\)' "$fw 1s2c: VMX absence reported"
	tap_line $log 'paging: page 0 unmapped, a read of address 0 faults' \
		"$fw 1s2c: page 0 unmapped after boot: a NULL dereference faults"
	tap_line $log 'console: com1 0x3f8 at 115200 baud \(default\)' \
		"$fw 1s2c: no config key, no SPCR: the console stays on COM1"

	# 2 sockets x 2 cores, two NUMA nodes with unequal memory.
	log=$out/2s2c-$fw.log
	tools/run-qemu --firmware $fw --sockets 2 --cores 2 --numa 512,1024 --log $log --timeout 120 \
		build/test-boot.iso
	tap_result $? "$fw 2s2c: boots to 'boot: done'"
	tap_line $log "boot: $fw" "$fw 2s2c: the summary says boot: $fw"
	tap_line $log 'node 0: cpus 0,1 mem [0-9]+ MiB' "$fw 2s2c: node 0 has cpus 0,1"
	tap_line $log 'node 1: cpus 2,3 mem [0-9]+ MiB' "$fw 2s2c: node 1 has cpus 2,3"
	tap_node_mem $log 0 512 "$fw 2s2c: node 0 memory"
	tap_node_mem $log 1 1024 "$fw 2s2c: node 1 memory"
	tap_line $log 'sidecore: cpu 0 node 0' "$fw 2s2c: node 0 sidecore is its first cpu"
	tap_line $log 'sidecore: cpu 2 node 1' "$fw 2s2c: node 1 sidecore is its first cpu"
	tap_line $log 'smp: 4 of 4 cpus online' "$fw 2s2c: every AP reported in"
	tap_line $log 'paging: page 0 unmapped, a read of address 0 faults' \
		"$fw 2s2c: page 0 unmapped once every AP left its trampoline"
}

# console_com2 NAME LOG SOURCE: the console moved to COM2 for SOURCE (config
# or SPCR): COM1 has the early lines and where they went, COM2 the rest,
# the summary and the answer to a command typed on COM2.
console_com2() {
	local name=$1 log=$2 source=$3

	tap_line $log.com1 "console: moving to com2 0x2f8 at 115200 baud \\($source\\)" \
		"$name: COM1's last line says where the console went"
	tap_no_line $log.com1 '^boot: done' "$name: the summary is not on COM1"
	tap_line $log "console: on com2 0x2f8 at 115200 baud \\($source\\); earlier lines went to 0x3f8" \
		"$name: COM2's first line says where the earlier lines are"
	tap_line $log 'node 0: cpus 0,1 mem [0-9]+ MiB' "$name: the summary's node line on COM2"
	tap_line $log "console: com2 0x2f8 at 115200 baud \\($source\\)" "$name: the summary names the console"
	tap_line $log 'operator: console commands on cpu 0, 0x2f8 IRQ 3 \(help lists them\)' \
		"$name: commands taken on COM2's IRQ 3"
	tap_line $log 'operator: commands: guests \| counters .*' \
		"$name: help typed on COM2 is answered on COM2"
}

topology bios
topology uefi

# The console on COM2 by the config's `console = com2`.
log=$out/console-com2.log
tools/run-qemu --com2 --send "operator: console commands=>help" --until "operator: commands:" \
	--log $log --timeout 120 build/test-console-com2.iso
tap_result $? "com2: boots, and help typed on COM2 is answered"
console_com2 com2 $log config

# No console key, and an SPCR table naming COM2 added to OVMF's (QEMU
# builds x86 machines without one).
log=$out/console-spcr.log
iasl -p $out/spcr-com2 tests/integration/spcr-com2.asl >$out/spcr-com2.iasl.log 2>&1
tools/run-qemu --firmware uefi --com2 --acpitable $out/spcr-com2.aml \
	--send "operator: console commands=>help" --until "operator: commands:" \
	--log $log --timeout 120 build/test-boot.iso
tap_result $? "spcr: boots under UEFI, and help typed on COM2 is answered"
console_com2 spcr $log SPCR

# 2 sockets x 3 cores, memory mostly on node 1, node 0's sidecore moved by
# the config; node 1 keeps its default.
log=$out/2s3c-override.log
tools/run-qemu --sockets 2 --cores 3 --numa 256,768 --log $log --timeout 120 build/test-sidecores.iso
tap_result $? "2s3c: boots to 'boot: done'"
tap_line $log 'node 0: cpus 0,1,2 mem [0-9]+ MiB' "2s3c: node 0 has cpus 0,1,2"
tap_line $log 'node 1: cpus 3,4,5 mem [0-9]+ MiB' "2s3c: node 1 has cpus 3,4,5"
tap_node_mem $log 0 256 "2s3c: node 0 memory"
tap_node_mem $log 1 768 "2s3c: node 1 memory"
tap_line $log 'sidecore: cpu 1 node 0' "2s3c: config moves node 0's sidecore to cpu 1"
tap_line $log 'sidecore: cpu 3 node 1' "2s3c: node 1 keeps its default sidecore"
tap_line $log 'free: cpus 0,2,4,5' "2s3c: the other cpus are free"
# QEMU's e1000 (8086:100e) found on the PCI bus and brought up as the uplink.
log=$out/nic-e1000.log
tools/run-qemu --nic e1000 --log $log --timeout 120 build/test-nic.iso
tap_result $? "nic: boots to 'boot: done'"
tap_line $log 'nic: e1000 [0-9a-f]{2}:[0-9a-f]{2}\.[0-7] link up queues 1 mac 52:54:00:12:34:56 speed 1000' \
	"nic: the e1000 is found, its link up, its MAC from the EEPROM"
tap_line $log 'nic queue: sidecore 0 rx 0 tx 0' "nic: its queue pair is sidecore 0's"
tap_line $log 'sidecore 0: polling on cpu 0, 1 ports' "nic: sidecore 0 polls it"

# The same config on a machine without one: reported, and the boot goes on.
log=$out/nic-absent.log
tools/run-qemu --log $log --timeout 120 build/test-nic.iso
tap_result $? "no nic: boots to 'boot: done'"
tap_line $log "config line 2: key 'nic': no supported NIC .*" "no nic: reported with its line and key"
tap_line $log 'nic: none \(not found\)' "no nic: the summary says so"
tap_done
