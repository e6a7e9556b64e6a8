#!/bin/bash
# Bochs guest scenarios (stock Debian kernel + the project's initramfs):
#   badinput  corei5_lynnfield_750 (no unrestricted guest), 2 CPUs: four
#             broken guest sections are reported by line and key; the good
#             guest boots, crashes and is restarted (on_crash = restart), its
#             timer keeps time in both lives, and what it wrote to its RAM
#             is gone in its next life. In each life its own vsock
#             device raises every vector 0-31 through MSI-X: each one
#             dropped and counted.
#   badapic   corei7_haswell_4770, 4 CPUs: while beta and alpha stream
#             8 MiB each way over vsock, rogue drives its own vsock device
#             as a hostile driver: packets in their names, RST storms at
#             their streams' ports, REQUESTs it never takes the answers to,
#             then packets that break its device. Only rogue's device
#             needs a reset; the streams arrive whole, and the others'
#             devices reset only connections to rogue. rogue's device
#             raises each vector 0-31 through MSI-X: every one is dropped
#             and counted. Then rogue misuses the x2APIC it owns
#             (forbidden IPIs at every core, LINT0, leaving x2APIC
#             mode), and spins with every interrupt held
#             back; alpha and beta's netperf runs on, and no other core is
#             touched. Then the operator stops rogue at the console, and
#             starts it again.
#   smp       5 CPUs: quad, a guest with four vCPUs, starts the other
#             three with INIT and SIPI, finds nproc 4, runs a job pinned to
#             each vCPU there, and powers off; IPIs between its vCPUs reach
#             them. On corei7_haswell_4770 it is restarted (on_poweroff =
#             restart) and does it all again in its second life; on
#             corei5_lynnfield_750 (no unrestricted guest) its vCPUs start
#             through the start window (virtual-8086 mode). Not in the
#             default list, nor in the vmx tier: `make check-smp` runs it.
#   mq        corei7_haswell_4770, 6 CPUs: duo, with two vCPUs, gets a
#             virtio-net queue pair per vCPU (VIRTIO_NET_F_MQ) and runs 4
#             netperfs at once against uno, TCP_RR then TCP_STREAM, two
#             pinned to each vCPU: both pairs carry frames each way. All
#             the while storm's two vCPUs turn on the hypervisor: one
#             sends IPIs to the other as fast as it can, which spins with
#             every interrupt held back. Not in the default list, nor in
#             the vmx tier: `make check-smp` runs it.
#   lives     corei7_haswell_4770, 4 CPUs: trio, with three vCPUs, each
#             sending INIT and STARTUP IPIs to the other two for ever,
#             is stopped and started by the operator five times: the exit
#             counters of every vCPU stand still from the stop report to
#             the restart, each vCPU is started once in each life, and
#             each of the six lives boots to userspace. Not in the default
#             list, nor in the vmx tier: `make check-smp` runs it.
#   com2      corei7_haswell_4770, 2 CPUs, the console on COM2 (config
#             `console = com2`): the boot summary, solo's lines and the
#             answer to the operator's `guests` typed on COM2 are all on
#             COM2; COM1 has only the early lines. Not in the default
#             list; the vmx tier runs it (the boot tier's QEMU com2 and
#             spcr scenarios check the console without a guest).
# Usage: bochs_guests.sh [SCENARIO...]  (default: badinput badapic)
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
out=build/check/guests
mkdir -p $out

clean() { tr -d '\r' <"$1"; }

# Lines a guest printed, without the "[name] " prefix.
guest_lines() { clean "$1" | sed -n "s/^\[$2\] //p"; }

scenario_badinput() {
	local log=$out/badinput.log leftovers
	tools/run-bochs --model corei5_lynnfield_750 --cpus 2 --mem 1024 --log $log \
		--send "guest good: restarting (restart 2)=>guests" \
		--send "(vcpus 1, restarts 2)=>counters" \
		--until "guest good: restarting (restart 2)" --until "counters: end tag 0" \
		--timeout 1500 build/test-guests-badinput.iso
	tap_run $? "badinput: the good guest runs two lives on the Nehalem model" $log
	tap_line $log 'vmx: cpu 1 ok ept=1 vpid=1 ug=0 .*' "Nehalem model: no unrestricted guest"
	tap_line $log "config line 4: key 'kernel': guest 'nokernel': no boot module named 'vmlinuz-missing'" \
		"missing kernel module reported with line and key"
	tap_line $log "config line 13: key 'colour': unknown key" "unknown key reported with line and key"
	tap_line $log "config line 17: key 'memory': .*" "bad memory size reported with line and key"
	tap_line $log "config line 2[0-9]: key 'vcpus': guest 'toobig' .*" \
		"over-committed guest reported with line and key"
	[ "$(clean $log | grep -c '^config line')" -eq 4 ]
	tap_result $? "exactly one error per broken section"
	tap_line $log 'counters: guest good vcpu 0 state running exits [0-9]+ .*' \
		"the good guest's exit counters shown on demand (port 0x610)"
	tap_line $log 'guest good: crashed \(triple fault\)' "the good guest's crash is reported"
	tap_line $log 'guest good: restarting \(restart 1\)' "the good guest is restarted (on_crash = restart)"
	vector_checks $log badinput good 2
	check_badvsock_msix $log badinput good 2
	# Each life's interrupts and timer are its own core's APIC: both lives
	# reach userspace and sleep 2 s of guest time.
	[ "$(guest_lines $log good | grep -c '^sidecore-guest: up')" -eq 2 ]
	tap_result $? "the good guest reaches userspace in both lives"
	guest_lines $log good | sed -n 's/^platform: sleep2 //p' |
		awk '{ d = $2 - $1; if (d >= 1.9 && d <= 2.5) n++ } END { exit !(n == 2) }'
	tap_result $? "the good guest's sleep 2 takes 2 s in both lives"
	# guest/scripts/crash.sh reads a word of RAM, then sets it, in each life.
	leftovers=$(guest_lines $log good | sed -n 's/^crash: leftover //p' | tr '\n' ' ')
	[ "$leftovers" = "0x00000000 0x00000000 " ]
	tap_result $? "the good guest finds its RAM zeroed in both lives (leftovers: ${leftovers:-none})"
	tap_no_line $log '^guest (nokernel|unknownkey|badsize|toobig): running' "no broken guest runs"
}

# vector_checks LOG SCENARIO GUEST LIVES: GUEST raised every vector 0-31
# through ICR, SELF_IPI and the LVT timer in each of its LIVES with all of
# them held back (apicabuse sweep), then ended: no core stopped, the
# console answers, and none reached the core (refused and counted,
# docs/vmx.md "Direct interrupts").
vector_checks() {
	local log=$1 name=$2 guest=$3 lives=$4
	[ "$(guest_lines $log $guest | grep -c '^apicabuse: sweeping vectors 0-31')" -eq "$lives" ]
	tap_result $? "$name: $guest sweeps every vector 0-31 in each of its $lives lives"
	tap_no_line $log '^(panic|exception):' "$name: no core stops on $guest's vectors"
	tap_line $log "guest $guest: [a-z]+ \\(vcpus 1, restarts [0-9]+\\)" \
		"$name: the operator's console answers guests after $guest's vectors"
	tap_line $log "counters: guest $guest vcpu 0 state [a-z]+ .* refused [1-9][0-9]* late 0( .*)?" \
		"$name: $guest's vectors below 32 are refused and counted; none reaches its core's IDT"
}

scenario_badapic() {
	local log=$out/badapic.log
	# The operator (docs/operator.md) types a wrong command, stops rogue
	# while it spins, lists the guests, starts rogue again and lists them.
	tools/run-bochs --model corei7_haswell_4770 --cpus 4 --mem 1024 --log $log \
		--send "apicabuse: spinning=>frobnicate" \
		--send "bench: done=>stop rogue" \
		--send "guest rogue: waiting for a restart=>guests" \
		--send "guest rogue: stopped (vcpus 1=>counters" \
		--send "counters: end tag 0=>start rogue" \
		--send "guest rogue: running on cpu=>guests" \
		--until "bench: done" --until "guest rogue: running (vcpus 1, restarts 1)" \
		--timeout 1500 build/test-guests-badapic.iso
	tap_run $? "badapic: beta's netperf runs to the end beside rogue, then the operator stops and starts rogue" $log
	tap_line $log '\[beta\] bench: TCP_RR 1024 .* result [1-9].*' "badapic: beta's TCP_RR gives a result"
	tap_line $log '\[rogue\] apicabuse: INIT to apic 0 -> ok' \
		"badapic: rogue's INIT at the sidecore's core is taken and dropped"
	tap_line $log '\[rogue\] IPI 0x[0-9a-f]+ refused: .*' "badapic: the hypervisor reports rogue's IPIs refused"
	tap_line $log '\[rogue\] apicabuse: leave x2APIC mode -> refused .*' \
		"badapic: rogue cannot leave x2APIC mode"
	tap_line $log '\[rogue\] apicabuse: LINT0 reads 0x400' "badapic: rogue's LINT0 is a shadow"
	# rogue spun with its interrupts held back before beta's netperf ran, and it ran.
	clean $log | sed -n '/^\[rogue\] apicabuse: spinning/,$p' | grep -q '^\[beta\] bench: TCP_RR'
	tap_result $? "badapic: beta's netperf runs while rogue spins with its interrupts held back"
	tap_no_line $log '^guest (alpha|beta): (crashed|restarting)' "badapic: alpha and beta neither crash nor restart"
	tap_line $log "operator: unknown command 'frobnicate' \\(help lists the commands\\)" \
		"badapic: the console names a wrong command"
	tap_line $log 'guest rogue: stopped \(asked by the operator\)' \
		"badapic: the operator's stop reaches rogue while it holds back every interrupt"
	tap_line $log 'guest rogue: stopped \(vcpus 1, restarts 0\)' "badapic: guests lists rogue stopped"
	tap_line $log 'guest alpha: running \(vcpus 1, restarts 0\)' "badapic: alpha runs on after rogue stopped"
	tap_line $log 'guest rogue: running \(vcpus 1, restarts 1\)' "badapic: start runs rogue again"
	check_vsock $log badapic beta alpha 8388608
	check_badvsock $log
	vector_checks $log badapic rogue 1
}

# smp_checks LOG LIVES MODEL: quad's vCPUs 1-3 started by SIPI and all
# four at work in each of its LIVES on the CPU model named MODEL.
smp_checks() {
	local log=$1 lives=$2 model=$3 cpu
	for cpu in 1 2 3; do
		[ "$(clean $log | grep -cE "^guest quad: vcpu $cpu started at 0x[0-9a-f]+ on cpu [0-9]+\$")" -eq "$lives" ]
		tap_result $? "smp: $model: quad's vCPU $cpu is started by its SIPI in each life"
	done
	[ "$(guest_lines $log quad | grep -c '^smp: nproc 4$')" -eq "$lives" ]
	tap_result $? "smp: $model: quad's nproc is 4 in each life"
	[ "$(guest_lines $log quad | grep -c '^smp: online 0-3$')" -eq "$lives" ]
	tap_result $? "smp: $model: all four of quad's CPUs are online in each life"
	for cpu in 0 1 2 3; do
		[ "$(guest_lines $log quad | grep -c "^smp: cpu $cpu ran on $cpu\$")" -eq "$lives" ]
		tap_result $? "smp: $model: a job pinned to CPU $cpu runs there in each life"
	done
	[ "$(guest_lines $log quad | grep -c '^smp: done$')" -eq "$lives" ]
	tap_result $? "smp: $model: quad's script reaches its end in each life"
	tap_line $log 'counters: guest quad vcpu 3 state running exits [0-9]+ .*' \
		"smp: $model: quad's fourth vCPU has its own counters"
	tap_no_line $log '\[quad\] IPI 0x[0-9a-f]+ refused' "smp: $model: no IPI of quad's is refused"
	tap_no_line $log 'guest quad: (crashed|vcpu [0-9] crashed)' "smp: $model: quad does not crash"
}

scenario_smp() {
	local log=$out/smp.log
	tools/run-bochs --model corei7_haswell_4770 --cpus 5 --mem 1024 --log $log \
		--until "guest quad: restarting (restart 2)" --timeout 2400 build/test-guests-smp.iso
	tap_run $? "smp: quad, with four vCPUs, runs two lives on the Haswell model" $log
	smp_checks $log 2 Haswell
	# Nehalem has no unrestricted guest: the vCPUs start in the start window,
	# virtual-8086 mode on the hypervisor's identity map, until long mode.
	log=$out/smp-nehalem.log
	tools/run-bochs --model corei5_lynnfield_750 --cpus 5 --mem 1024 --log $log \
		--until "guest quad: restarting (restart 1)" --timeout 2400 build/test-guests-smp.iso
	tap_run $? "smp: quad, with four vCPUs, runs a life on the Nehalem model" $log
	smp_checks $log 1 Nehalem
}

# How many of trio's vCPUs show the same counters printed as life N
# stopped and printed by the operator's counters command while it waited.
lives_counters() {
	clean "$1" | awk -v n="$2" '
		/^guest trio: stopped \(asked by the operator\)$/ { life++; phase = 1; next }
		/^operator: > counters$/ { if (life == n) phase = 2; next }
		/^guest trio: restarting/ { phase = 0 }
		life == n && phase && /^counters: guest trio vcpu / {
			sub(/ state [a-z]+/, ""); print phase, $0 }' |
		sort -u | awk '{ $1 = ""; print }' | sort | uniq -d | wc -l
}

scenario_lives() {
	local log=$out/lives.log sends=() n cpu
	for n in 1 2 3 4 5; do
		sends+=(--send "[trio] sipistorm: storming=>stop trio"
			--send "guest trio: waiting for a restart=>counters"
			--send "counters: end tag 0=>start trio")
	done
	tools/run-bochs --model corei7_haswell_4770 --cpus 4 --mem 1024 --log $log \
		"${sends[@]}" --send "[trio] sipistorm: storming=>guests" \
		--until "guest trio: running (vcpus 3, restarts 5)" --timeout 3000 \
		build/test-guests-lives.iso
	tap_run $? "lives: trio, storming start signals, is stopped and started five times" $log
	[ "$(guest_lines $log trio | grep -c '^sipistorm: up nproc 3$')" -eq 6 ]
	tap_result $? "lives: each of trio's six lives boots to userspace on three vCPUs"
	[ "$(guest_lines $log trio | grep -c '^sipistorm: storming$')" -eq 6 ]
	tap_result $? "lives: trio's vCPUs storm INIT and SIPI in each life"
	for cpu in 1 2; do
		[ "$(clean $log | grep -cE "^guest trio: vcpu $cpu started at 0x[0-9a-f]+ on cpu [0-9]+\$")" -eq 6 ]
		tap_result $? "lives: trio's vCPU $cpu is started once in each life, whatever the storm"
	done
	[ "$(clean $log | grep -c '^guest trio: stopped (asked by the operator)$')" -eq 5 ]
	tap_result $? "lives: the operator's stop ends each of the first five lives"
	for n in 1 2 3 4 5; do
		[ "$(lives_counters $log $n)" -eq 3 ]
		tap_result $? "lives: stop $n: no vCPU of trio's life runs after its stop is reported (exit counters stand still)"
	done
	tap_no_line $log '\[trio\] (IPI 0x[0-9a-f]+ refused|sipistorm: (error|cpu [0-9]: signal refused))' \
		"lives: trio's INITs and SIPIs are taken (dropped or ignored), not refused"
	tap_no_line $log '(guest trio: (crashed|vcpu [0-9] crashed|vcpu [0-9] does not leave)|panic:|exception:)' \
		"lives: trio never crashes, and the hypervisor neither panics nor takes an exception"
}

# vsock_counter LOG GUEST FIELD: FIELD of GUEST's last vsock counters line.
scenario_mq() {
	local log=$out/mq.log last q
	tools/run-bochs --model corei7_haswell_4770 --cpus 6 --mem 1024 --log $log \
		--until "[duo] bench: done" --timeout 3000 build/test-guests-mq.iso
	tap_run $? "mq: duo's benchmark ends, with storm storming throughout" $log
	tap_line $log '\[duo\] smp: nproc 2' "mq: duo runs on two vCPUs"
	for t in 'TCP_RR 1 .* trans/s' 'TCP_STREAM 16384 .* 10\^6bits/s'; do
		tap_line $log "\\[duo\\] bench: $t instances 4" \
			"mq: 4 netperfs at once complete: ${t%% *}"
	done
	# The counters of the last snapshot: both of duo's pairs carried frames
	# each way (tx: duo's netperfs on each vCPU; rx: steered by flow hash).
	last=$(clean $log | grep -E '^counters: begin tag [0-9]+ ' | tail -n 1)
	for q in 0 1; do
		clean $log | sed -n "/^${last}\$/,/^counters: end/p" |
			grep -qE "^counters: port duo queue $q rx_packets [1-9][0-9]* rx_bytes [0-9]+ tx_packets [1-9][0-9]* tx_bytes [0-9]+\$"
		tap_result $? "mq: duo's queue pair $q carried frames both ways"
	done
	tap_no_line $log 'counters: port duo queue 2 .*' "mq: duo has exactly two queue pairs"
	tap_line $log '\[storm\] apicabuse: storm from apic [0-9]+ to apic [0-9]+' \
		"mq: storm's CPU 1 storms IPIs at its CPU 0"
	tap_line $log '\[storm\] apicabuse: storm [0-9]+ IPIs' "mq: storm's IPIs go on (16384 or more)"
	tap_line $log '\[storm\] apicabuse: spinning' "mq: storm's CPU 0 spins with interrupts held back"
	tap_no_line $log '\[storm\] (IPI 0x[0-9a-f]+ refused|apicabuse: storm: IPI refused)' \
		"mq: none of storm's own IPIs is refused"
	tap_no_line $log '(guest [a-z]+: (crashed|vcpu [0-9] crashed)|panic:|exception:)' \
		"mq: no guest crashes, the hypervisor neither panics nor takes an exception"
}

vsock_counter() {
	clean "$1" | sed -nE "s/^counters: vsock $2 .* $3 ([0-9]+)( .*)?\$/\1/p" | tail -1
}

# check_badvsock LOG: rogue's hostile vsock driver (guest/scripts/badvsock.sh)
# ran while beta's streams did; what it sent in other guests' names was
# dropped and counted, its RSTs and deaf REQUESTs left its device live,
# its malformed headers broke its device alone, and a reset revived it.
# alpha and beta reset connections, but no more than rogue's deaf case
# opened with each: their streams, checked whole by check_vsock, were not.
# Its device raised each vector 0-31 at its own vCPU through MSI-X, and
# the hypervisor dropped, reported and counted them (check_badvsock_msix).
check_badvsock() {
	local log=$1 rounds spoofed rsts deaf counted g resets
	read -r rounds spoofed rsts deaf < <(guest_lines $log rogue |
		sed -n 's/^badvsock: done rounds \([0-9]*\) spoofed \([0-9]*\) rsts \([0-9]*\) deaf \([0-9]*\)$/\1 \2 \3 \4/p')
	[ -n "$rounds" ]
	tap_result $? "badapic: rogue's badvsock runs to the end (${rounds:-no} rounds, $rsts RSTs, $deaf deaf REQUESTs to each guest)"
	clean $log | sed -n '/^\[beta\] sidecore-guest: run vsock/,/^\[beta\] sidecore-guest: done vsock/p' |
		grep -q '^\[rogue\] badvsock: rst-storm -> '
	tap_result $? "badapic: rogue storms while beta's streams run"
	[ "$(guest_lines $log rogue | grep -cE '^badvsock: (spoof|rst-storm|deaf) -> status 0x0f sent [1-9][0-9]*$')" -eq \
	  "$(guest_lines $log rogue | grep -cE '^badvsock: (spoof|rst-storm|deaf) -> ')" ] &&
		[ "$(guest_lines $log rogue | grep -cE '^badvsock: deaf -> ')" -eq "${rounds:-x}" ]
	tap_result $? "badapic: rogue's device stays live through every spoof, rst-storm and deaf round"
	counted=$(vsock_counter $log rogue spoofed)
	[ -n "$spoofed" ] && [ "$spoofed" -gt 0 ] && [ "${counted:-x}" = "$spoofed" ]
	tap_result $? "badapic: every packet rogue sent in another's name is dropped and counted (sent ${spoofed:-?}, spoofed ${counted:-?})"
	tap_line $log '\[rogue\] badvsock: oversized -> status 0x4f sent 1' \
		"badapic: a header over 64 KiB leaves rogue's device needing a reset"
	tap_line $log 'virtio rogue: queue 1: packet longer than 64 KiB \(65537\), stopped until device reset' \
		"badapic: the hypervisor names rogue's oversized packet"
	tap_line $log '\[rogue\] badvsock: len-mismatch -> status 0x4f sent 1' \
		"badapic: a header len that is not the payload's leaves rogue's device needing a reset"
	[ "$(clean $log | grep -c '^\[rogue\] virtio-vsock: device needs reset$')" -eq 2 ]
	tap_result $? "badapic: the hypervisor reports rogue's device needing a reset, once per break"
	tap_line $log '\[rogue\] badvsock: after reset -> status 0x0f reply response' \
		"badapic: reset, rogue's device serves its driver again (CID 2's echo answers)"
	tap_no_line $log '^(\[(alpha|beta)\] virtio-vsock: device needs reset|virtio (alpha|beta): queue )' \
		"badapic: no queue of alpha's or beta's breaks, no device of theirs needs a reset"
	for g in alpha beta; do
		resets=$(vsock_counter $log $g resets)
		[ -n "$resets" ] && [ -n "$deaf" ] && [ "$resets" -gt 0 ] && [ "$resets" -le "$deaf" ]
		tap_result $? "badapic: $g's device reset ${resets:-?} connections, each one rogue opened deaf (at most ${deaf:-?})"
	done
	check_badvsock_msix $log badapic rogue 1 'alpha|beta'
}

# check_badvsock_msix LOG SCENARIO GUEST LIVES [OTHERS]: badvsock's msix
# case in each of GUEST's LIVES. Every vector 0-31 was taken into the table
# entry the receive queue used, and CID 2's echo answered into that queue
# each time, so the device raised all 32; the hypervisor reported GUEST's
# first bad message once, dropped every one and counted it (bad_msi), and
# none of the OTHERS' devices (a regexp of names). That no core stopped and
# none reached a core's IDT is vector_checks' (no panic, late 0).
check_badvsock_msix() {
	local log=$1 name=$2 guest=$3 lives=$4 others=${5:-} swept sweeps bad_msi
	swept=$(guest_lines $log $guest | grep -cE '^badvsock: msix vector ([0-9]|[12][0-9]|3[01]) entry taken -> reply response$')
	sweeps=$(guest_lines $log $guest | grep -cx 'badvsock: msix swept 32 vectors, 32 raised')
	[ "$swept" -eq $((32 * lives)) ] && [ "$sweeps" -eq "$lives" ]
	tap_result $? "$name: $guest's device raises each vector 0-31 at its own vCPU through MSI-X in each of its $lives lives ($swept of $((32 * lives)))"
	[ "$(clean $log | grep -cE "^\[$guest\] virtio-vsock: MSI address 0x[0-9a-f]+ data (0|0x[0-9a-f]+): vector below 32, dropped\$")" -eq 1 ]
	tap_result $? "$name: the hypervisor reports $guest's first MSI-X message below 32 once"
	bad_msi=$(vsock_counter $log $guest bad_msi)
	[ -n "$bad_msi" ] && [ "$bad_msi" -ge $((32 * lives)) ]
	tap_result $? "$name: every MSI-X message of $guest's sweeps is dropped and counted (bad_msi ${bad_msi:-?})"
	[ -z "$others" ] ||
		tap_no_line $log "counters: (vsock|port) ($others) .* bad_msi [1-9][0-9]*( .*)?" \
			"$name: no message of another guest's devices is dropped"
}

scenario_com2() {
	local log=$out/com2.log
	tools/run-bochs --model corei7_haswell_4770 --cpus 2 --mem 1024 --com2 --log $log \
		--send "platform: counters requested=>guests" \
		--until "guest solo: running (vcpus 1, restarts 0)" \
		--timeout 1500 build/test-guests-com2.iso
	tap_run $? "com2: solo runs, and guests typed on COM2 is answered" $log
	tap_line $log.com1 'console: moving to com2 0x2f8 at 115200 baud \(config\)' \
		"com2: COM1's last line says where the console went"
	tap_no_line $log.com1 '^(boot: done|\[solo\])' "com2: neither the summary nor solo's lines on COM1"
	tap_line $log 'console: com2 0x2f8 at 115200 baud \(config\)' "com2: the summary on COM2 names it"
	tap_line $log 'boot: done' "com2: the boot summary on COM2"
	tap_line $log '\[solo\] sidecore-guest: up .*' "com2: solo's lines on COM2"
	tap_line $log 'operator: > guests' "com2: the operator's line typed on COM2 echoed there"
	tap_line $log 'guest solo: running \(vcpus 1, restarts 0\)' "com2: and answered there"
}

scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(badinput badapic)
for s in "${scenarios[@]}"; do
	scenario_$s
done
tap_done
