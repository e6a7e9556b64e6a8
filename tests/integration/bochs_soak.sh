#!/bin/bash
# Bochs soak scenario (corei7_haswell_4770, 4 CPUs: one sidecore, three
# vCPUs): alpha serves netperf, beta runs rounds of TCP_RR and TCP_STREAM
# against it, and gamma, on the same sidecore, boots, feeds its virtio-net
# device malformed transmit chains (guest/tools/badring.c) and crashes,
# restarting each time (on_crash = restart). The hypervisor must never
# panic, must report gamma's broken rings, and alpha and beta's transfers
# must go on through every one of gamma's lives.
#
# Usage: bochs_soak.sh [RESTARTS]   (default $SOAK_RESTARTS, else 1)
# The run lasts until gamma has restarted RESTARTS times and beta has
# finished a round of netperf after that; each of gamma's lives costs a
# guest boot. Bochs is given SOAK_TIMEOUT wall seconds (default 600 + 600
# per restart).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
out=build/check/soak
mkdir -p $out

restarts=${1:-${SOAK_RESTARTS:-1}}
case $restarts in '' | *[!0-9]* | 0) echo "bochs_soak.sh: RESTARTS must be a positive number" >&2; exit 2;; esac
log=$out/soak.log
last_restart="guest gamma: restarting (restart $restarts)"

clean() { tr -d '\r' <"$1"; }
guest_lines() { clean "$1" | sed -n "s/^\[$2\] //p"; }
count() { clean "$1" | grep -cE "$2"; }
# Rounds beta finished after the line TEXT (0 while TEXT is not there).
rounds_after() { clean $log | sed -n "/^$1\$/,\$p" | grep -c '^\[beta\] soak: round [0-9]* end$'; }

# beta never says "soak: done" (sidecore.rounds= is unlimited): run-bochs
# watches for a panic, this loop for the end, which comes in that order.
: >$log
tools/run-bochs --model corei7_haswell_4770 --cpus 4 --mem 1024 --log $log \
	--until "[beta] soak: done" --timeout "${SOAK_TIMEOUT:-$((600 + 600 * restarts))}" \
	build/test-guests-soak.iso &
bochs=$!
status=
while [ -z "$status" ]; do
	sleep 1
	if [ "$(rounds_after "$last_restart")" -ge 1 ] && kill $bochs 2>/dev/null; then
		wait $bochs
		status=0
	elif ! kill -0 $bochs 2>/dev/null; then
		wait $bochs
		status=$?
	fi
done
[ "$status" -eq 0 ]
tap_run $? "soak: gamma restarts $restarts times, then beta runs a round (run-bochs: $status)" $log
tap_no_line $log '^(panic|exception):' "soak: the hypervisor neither panicked nor faulted"

# gamma: a life of malformed rings, then a crash, each time.
n=$(count $log '^guest gamma: restarting \(restart [0-9]+\)$')
[ "$n" -ge "$restarts" ]
tap_result $? "soak: gamma restarted at least $restarts times ($n)"
n=$(guest_lines $log gamma | grep -c '^badring: done$')
[ "$n" -ge "$restarts" ]
tap_result $? "soak: gamma's badring ran to the end in $restarts lives ($n)"
n=$(guest_lines $log gamma | grep -cE '^badring: [a-z-]+ -> status 0x[0-9a-f]{2} used [0-9]+$')
[ "$n" -ge $((6 * restarts)) ]
tap_result $? "soak: gamma reported every malformed case in each life ($n lines)"
# The hypervisor's own reports: at least one of each (a console that
# rate-limits what a guest provokes may fold the repeats).
n=$(count $log '^virtio gamma: queue 1: .*, stopped until device reset$')
[ "$n" -ge 1 ]
tap_result $? "soak: the hypervisor stopped gamma's broken transmit queue ($n times)"
n=$(count $log '^virtio-pci gamma: device 1041: queue 1 refused: refused by the device \(rings 0x100000000000 ')
[ "$n" -ge 1 ]
tap_result $? "soak: the hypervisor refused gamma's rings outside its RAM ($n times)"
n=$(count $log '^\[gamma\] virtio-net: device needs reset$')
[ "$n" -ge 1 ]
tap_result $? "soak: gamma was told to reset its device ($n times)"

# alpha and beta: untouched by all of it.
tap_no_line $log '^guest (alpha|beta): (crashed|stopped|restarting)' "soak: alpha and beta keep running"
tap_no_line $log '^(\[(alpha|beta)\] virtio-net: device needs reset|virtio (alpha|beta): )' \
	"soak: alpha's and beta's devices never break"
rounds=$(guest_lines $log beta | grep -c '^soak: round [0-9]* end$')
for r in $(seq 1 "$rounds"); do
	for t in TCP_RR TCP_STREAM; do
		v=$(guest_lines $log beta | sed -n "s/^soak: round $r $t \([0-9.]*\) .*/\1/p")
		awk -v v="${v:-0}" 'BEGIN { exit !(v > 0) }'
		tap_result $? "soak: round $r $t gives a result (${v:-none})"
	done
done
n=$(rounds_after "guest gamma: restarting (restart 1)")
[ "$n" -ge 1 ]
tap_result $? "soak: beta completes rounds after gamma's first restart ($n)"
tap_no_line $log '^\[beta\] soak: .*failed' "soak: no netperf run failed"

# The hypervisor answers to the end: every round's counters, gamma's port included.
tap_line $log "counters: end tag $((rounds % 256))" "soak: counters shown after the last round ($rounds)"
tap_line $log 'counters: port gamma .*' "soak: gamma's port is in the counters"
tap_done
