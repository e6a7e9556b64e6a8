#!/bin/bash
# Bochs VMX scenarios: both CPU models, 2 CPUs each; VMXON/VMXOFF works on
# every core, the features match the model, and a #GP on every VMX core
# ends at its exception-table fixup.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
out=build/check/bochs
mkdir -p $out

for spec in corei5_lynnfield_750:0 corei7_haswell_4770:1; do
	model=${spec%:*} ug=${spec#*:}
	log=$out/$model.log
	tools/run-bochs --model $model --cpus 2 --log $log --timeout 600 build/test-boot.iso
	tap_result $? "$model: boots to 'boot: done'"
	tap_line $log 'smp: 2 of 2 cpus online' "$model: both cpus online"
	for cpu in 0 1; do
		tap_line $log "vmx: cpu $cpu ok ept=1 vpid=1 ug=$ug .*" \
			"$model: vmx ok on cpu $cpu with ept, vpid, ug=$ug"
	done
	tap_line $log 'node 0: cpus 0,1 mem [0-9]+ MiB' "$model: one node with both cpus"
	tap_line $log 'extable: fault fixup ok' "$model: a #GP in root mode on each core ends at its fixup"
	tap_line $log 'paging: page 0 unmapped, a read of address 0 faults' \
		"$model: page 0 unmapped after boot: a NULL dereference faults"
done
tap_done
