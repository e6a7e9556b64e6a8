#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Soak client: rounds of netperf tests against sidecore.peer= (required),
# sidecore.tests= (default TCP_RR,TCP_STREAM) for sidecore.seconds= each
# (default 3), sidecore.rounds= rounds (default 0: until the guest is
# stopped). After each round it asks the hypervisor for its counters with
# the round number as tag (a byte to port 0x610), so the log shows the
# hypervisor answering all along. Prints per test
#   soak: round N TEST RESULT UNIT     (or "soak: round N TEST failed")
# then "soak: round N end", and "soak: done" after the last round.

peer=${SIDECORE_PEER:?sidecore.peer= is required}
tests=$(echo "${SIDECORE_TESTS:-TCP_RR,TCP_STREAM}" | tr , ' ')
seconds=${SIDECORE_SECONDS:-3}
rounds=${SIDECORE_ROUNDS:-0}

tries=60
until netperf -H "$peer" -t TCP_RR -l 1 -P 0 >/dev/null 2>&1; do
	tries=$((tries - 1))
	[ "$tries" -gt 0 ] || { echo "soak: no netserver at $peer"; exit 1; }
	sleep 1
done

rc=0
round=0
while [ "$rounds" -eq 0 ] || [ "$round" -lt "$rounds" ]; do
	round=$((round + 1))
	for t in $tests; do
		case $t in
		*_RR) unit=trans/s ;;
		*) unit=10^6bits/s ;;
		esac
		line=$(netperf -H "$peer" -t "$t" -l "$seconds" -P 0 |
			awk 'NF >= 5 { l = $NF } END { print l }')
		if [ -n "$line" ]; then
			echo "soak: round $round $t $line $unit"
		else
			echo "soak: round $round $t failed"
			rc=1
		fi
	done
	# The tag is one byte: rounds past 255 wrap.
	printf "\\$(printf %o $((round % 256)))" | dd of=/dev/port bs=1 seek=1552 2>/dev/null
	echo "soak: round $round end"
done
echo "soak: done"
exit $rc
