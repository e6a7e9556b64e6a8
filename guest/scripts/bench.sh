#!/bin/sh
# SPDX-License-Identifier: MIT
#
# netperf and vsockbench benchmark against sidecore.peer=: every test in
# sidecore.tests= (default TCP_RR,UDP_RR,TCP_STREAM,TCP_MAERTS) at every
# message size in sidecore.sizes= (default 256,1024,16384), sidecore.seconds=
# each (default 3). A test given as TEST:SIZE runs at that size only, so a
# list of such pairs runs exactly those rows. Request/response tests send
# and receive SIZE bytes (-r SIZE,SIZE); stream tests send SIZE-byte
# messages on both ends (-m SIZE,SIZE: netperf 2.7's -M would set the
# receiver's read size instead, and TCP_MAERTS sends from the remote end).
#
# The vsock tests run /usr/bin/vsockbench over virtio-vsock instead:
# VSOCK_STREAM (SIZE-byte writes to the discard port, 9) and VSOCK_RR (SIZE
# bytes each way through the echo port, 7) against the guest whose CID is
# sidecore.vsock-peer= (it runs the vsockserve script), VSOCK_STREAM_HOST
# and VSOCK_RR_HOST against CID 2, the hypervisor's own services. Without
# :SIZE they run at 4096 and 65536 bytes (streams) and 1 byte (RR), not at
# sidecore.sizes=.
#
# Around each run it asks the hypervisor for its counters (a byte to port
# 0x610 becomes the tag of that snapshot), and prints
#   bench: TEST SIZE tags BEFORE AFTER elapsed SECONDS result VALUE UNIT
# with " cid CID", the peer's, after a vsock test's line, or
#   bench: TEST SIZE failed: OUTPUT   ("failed (cid CID):" for vsock)
# then "bench: done". tools/bench turns the pairs into per-transaction
# figures.

peer=${SIDECORE_PEER:?sidecore.peer= is required}
tests=$(echo "${SIDECORE_TESTS:-TCP_RR,UDP_RR,TCP_STREAM,TCP_MAERTS}" | tr , ' ')
sizes=$(echo "${SIDECORE_SIZES:-256,1024,16384}" | tr , ' ')
seconds=${SIDECORE_SECONDS:-3}
vsock_peer=${SIDECORE_VSOCK_PEER:-}
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
	VSOCK_STREAM | VSOCK_STREAM_HOST) rows="$rows $t:4096 $t:65536" ;;
	VSOCK_RR | VSOCK_RR_HOST) rows="$rows $t:1" ;;
	VSOCK_*) rows="$rows $t:-" ;;
	*) for size in $sizes; do rows="$rows $t:$size"; done ;;
	esac
done

rc=0
for row in $rows; do
	t=${row%%:*} size=${row#*:}
	case $t in
	VSOCK_STREAM) mode=stream cid=$vsock_peer unit=10^6bits/s ;;
	VSOCK_RR) mode=rr cid=$vsock_peer unit=trans/s ;;
	VSOCK_STREAM_HOST) mode=stream cid=2 unit=10^6bits/s ;;
	VSOCK_RR_HOST) mode=rr cid=2 unit=trans/s ;;
	VSOCK_*) echo "bench: $t: no such vsock test"; rc=1; continue ;;
	*_RR) mode='' opts="-r $size,$size"; unit=trans/s ;;
	*) mode='' opts="-m $size,$size"; unit=10^6bits/s ;;
	esac
	if [ -n "$mode" ] && [ -z "$cid" ]; then
		echo "bench: $t needs sidecore.vsock-peer="
		rc=1
		continue
	fi
	snapshot
	before=$tag
	# A run that stalls is cut off and reported, and the next one runs.
	if [ -n "$mode" ]; then
		out=$(timeout $((seconds + 60)) vsockbench "$mode" "$cid" "$size" "$seconds") || rc=1
		snapshot
		# vsockbench: MODE cid C size S bytes|transactions N seconds T UNIT R ...
		line=$(echo "$out" | grep "^vsockbench: $mode cid " | tail -n 1)
		# shellcheck disable=SC2086 # the line is split into its fields
		set -- $line
		[ $# -ge 12 ] || { echo "bench: $t $size failed (cid $cid): $out"; rc=1; continue; }
		echo "$out"
		echo "bench: $t $size tags $before $tag elapsed ${10} result ${12} $unit cid $cid"
		continue
	fi
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
