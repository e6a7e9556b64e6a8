#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Benchmark client: run netperf tests against sidecore.peer= (required).
#   sidecore.tests=TCP_RR,UDP_RR,TCP_STREAM,TCP_MAERTS   (the default)
#   sidecore.seconds=10                                   per test
#   sidecore.port=12865                                   netserver's port
#   sidecore.stream-bytes=N, sidecore.rr-count=N           sized tests (below)
# Each test prints "netperf: TEST RESULT UNIT", the figure parsed from
# netperf's output, so the host side can collect them from the console.

peer=${SIDECORE_PEER:?sidecore.peer= is required}
tests=${SIDECORE_TESTS:-TCP_RR,UDP_RR,TCP_STREAM,TCP_MAERTS}
seconds=${SIDECORE_SECONDS:-10}
port=${SIDECORE_PORT:-12865}

# shellcheck source=guest/scripts/lib/length.sh
. /scripts/lib/length.sh

# The peer may still be booting: wait for its netserver to answer.
tries=60
until netperf -H "$peer" -p "$port" -t TCP_RR -l 1 -P 0 >/dev/null 2>&1; do
	tries=$((tries - 1))
	[ "$tries" -gt 0 ] || { echo "netperf: no netserver at $peer:$port"; exit 1; }
	sleep 1
done

rc=0
old_ifs=$IFS
IFS=,
for t in $tests; do
	IFS=$old_ifs
	case $t in
	*_RR) unit=trans/s ;;
	*) unit=10^6bits/s ;;
	esac
	if out=$(netperf -H "$peer" -p "$port" -t "$t" -l "$(test_length "$t" "$seconds")" -P 0 2>/tmp/netperf.err); then
		echo "$out"
		echo "netperf: $t $(echo "$out" | awk 'NF >= 5 { r = $NF } END { print r }') $unit"
	else
		echo "$out"
		sed 's/^/netperf: stderr: /' /tmp/netperf.err
		echo "netperf: $t failed"
		rc=1
	fi
done
exit $rc
