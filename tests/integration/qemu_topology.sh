#!/bin/bash
# QEMU (TCG) boot scenarios: the boot summary must describe exactly the
# machine QEMU was told to be.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
out=build/check/qemu
mkdir -p $out

# 1 socket x 2 cores, no NUMA information.
log=$out/1s2c.log
tools/run-qemu --sockets 1 --cores 2 --mem 1024 --log $log --timeout 120 build/test-boot.iso
tap_result $? "1s2c: boots to 'boot: done'"
tap_line $log 'node 0: cpus 0,1 mem [0-9]+ MiB' "1s2c: node 0 has cpus 0,1"
tap_node_mem $log 0 1024 "1s2c: node 0 memory"
tap_no_line $log '^node 1:' "1s2c: no second node"
tap_line $log 'sidecore: cpu 0 node 0' "1s2c: sidecore on cpu 0"
tap_line $log 'vmx: unavailable \(cpu has no VMX\)' "1s2c: VMX absence reported"
tap_line $log 'paging: page 0 unmapped, a read of address 0 faults' \
	"1s2c: page 0 unmapped after boot: a NULL dereference faults"

# 2 sockets x 2 cores, two NUMA nodes with unequal memory.
log=$out/2s2c.log
tools/run-qemu --sockets 2 --cores 2 --numa 512,1024 --log $log --timeout 120 build/test-boot.iso
tap_result $? "2s2c: boots to 'boot: done'"
tap_line $log 'node 0: cpus 0,1 mem [0-9]+ MiB' "2s2c: node 0 has cpus 0,1"
tap_line $log 'node 1: cpus 2,3 mem [0-9]+ MiB' "2s2c: node 1 has cpus 2,3"
tap_node_mem $log 0 512 "2s2c: node 0 memory"
tap_node_mem $log 1 1024 "2s2c: node 1 memory"
tap_line $log 'sidecore: cpu 0 node 0' "2s2c: node 0 sidecore is its first cpu"
tap_line $log 'sidecore: cpu 2 node 1' "2s2c: node 1 sidecore is its first cpu"
tap_line $log 'smp: 4 of 4 cpus online' "2s2c: every AP reported in"
tap_line $log 'paging: page 0 unmapped, a read of address 0 faults' \
	"2s2c: page 0 unmapped once every AP left its trampoline"

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
