#!/bin/bash
# SPDX-License-Identifier: MIT
#
# check_dpbench.sh - tools/dpbench (docs/data-path.md, "On the host's CPU")
# for a fifth of a second per scenario: packets went both ways around the
# echo loop, each packet a driver sent was received once (the devices'
# counters agreeing with the drivers'), nothing was dropped, no doorbell
# was rung and the receive side took interrupts; and the probe of the two
# cores' distance answers. Prints TAP; exits 1 if
# any test fails. Needs build/dpbench (make unit-bins builds it).
set -uo pipefail
cd "$(dirname "$0")/../.."

tool=build/dpbench
. tests/unit/tap.sh

# What the tool said, for a failed check.
check_detail() {
	echo "# exit status $status"
	sed 's/^/# output: /' <<<"$out"
}

for scenario in net rings vsock; do
	out=$("$tool" --scenario "$scenario" --sizes 64 --seconds 0.2 --runs 1 --csv --check 2>&1)
	status=$?
	# scenario,size,mpps,gbits,cycles,busy,sent,received,doorbells,interrupts,verdict
	IFS=, read -r name size mpps _ cycles _ sent received doorbells irqs verdict <<<"$out"
	check "$scenario: exits 0 with --check" test "$status" -eq 0
	check "$scenario: one row for size 64" test "${name:-}" = "$scenario" -a "${size:-}" = 64
	check "$scenario: the counters agree" test "${verdict:-}" = ok
	# Each of the 64 frames around twice: the loop works, whatever the load
	# beside it leaves the threads (a rate is make bench-host's to judge).
	check "$scenario: packets went around the loop" test "${received:-0}" -gt 128
	check "$scenario: every packet sent was received" test "${sent:-x}" = "${received:-y}"
	check "$scenario: no doorbell" test "${doorbells:-1}" -eq 0
	check "$scenario: receive interrupts" test "${irqs:-0}" -gt 0
	check "$scenario: a rate and a cost" awk -v m="${mpps:-0}" -v c="${cycles:-0}" \
		'BEGIN { exit !(m > 0 && c > 0) }'
done
out=$("$tool" --probe --csv 2>&1)
status=$?
IFS=, read -r name ticks ns <<<"$out"
check "probe: exits 0" test "$status" -eq 0
check "probe: a round trip in cycles and ns" awk -v n="${name:-}" -v t="${ticks:-0}" -v s="${ns:-0}" \
	'BEGIN { exit !(n == "probe" && t > 0 && s > 0) }'
tap_plan
