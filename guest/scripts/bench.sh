#!/bin/sh
# SPDX-License-Identifier: MIT
#
# netperf benchmark against sidecore.peer=: every test in sidecore.tests=
# (default TCP_RR,UDP_RR,TCP_STREAM,TCP_MAERTS) at every message size in
# sidecore.sizes= (default 256,1024,16384), sidecore.seconds= each (default
# 3). A test given as TEST:SIZE runs at that size only, so a list of such
# pairs runs exactly those rows. Request/response tests send and receive
# SIZE bytes (-r SIZE,SIZE); stream tests send SIZE-byte messages on both
# ends (-m SIZE,SIZE: netperf 2.7's -M would set the receiver's read size
# instead, and TCP_MAERTS sends from the remote end). Around each run it asks the hypervisor for its counters (a byte to
# port 0x610 becomes the tag of that snapshot), and prints
#   bench: TEST SIZE tags BEFORE AFTER elapsed SECONDS result VALUE UNIT
# then "bench: done". tools/bench turns the pairs into per-transaction
# figures.

peer=${SIDECORE_PEER:?sidecore.peer= is required}
tests=$(echo "${SIDECORE_TESTS:-TCP_RR,UDP_RR,TCP_STREAM,TCP_MAERTS}" | tr , ' ')
sizes=$(echo "${SIDECORE_SIZES:-256,1024,16384}" | tr , ' ')
seconds=${SIDECORE_SECONDS:-3}
tag=0

snapshot() {
	tag=$((tag + 1))
	printf "\\$(printf %o "$tag")" | dd of=/dev/port bs=1 seek=1552 2>/dev/null
}

tries=60
until netperf -H "$peer" -t TCP_RR -l 1 -P 0 >/dev/null 2>&1; do
	tries=$((tries - 1))
	[ "$tries" -gt 0 ] || { echo "bench: no netserver at $peer"; exit 1; }
	sleep 1
done

rows=
for t in $tests; do
	case $t in
	*:*) rows="$rows $t" ;;
	*) for size in $sizes; do rows="$rows $t:$size"; done ;;
	esac
done

rc=0
for row in $rows; do
	t=${row%%:*} size=${row#*:}
	case $t in
	*_RR) opts="-r $size,$size"; unit=trans/s ;;
	*) opts="-m $size,$size"; unit=10^6bits/s ;;
	esac
	snapshot
	before=$tag
	# A run that stalls is cut off and reported, and the next one runs.
	# shellcheck disable=SC2086
	out=$(timeout $((seconds + 60)) netperf -H "$peer" -t "$t" -l "$seconds" -P 0 -- $opts) || rc=1
	snapshot
	line=$(echo "$out" | awk 'NF >= 5 { l = $0 } END { print l }')
	set -- $line
	[ $# -ge 2 ] || { echo "bench: $t $size failed: $out"; rc=1; continue; }
	eval "elapsed=\${$(($# - 1))} result=\${$#}"
	echo "bench: $t $size tags $before $tag elapsed $elapsed result $result $unit"
done
echo "bench: done"
exit $rc
