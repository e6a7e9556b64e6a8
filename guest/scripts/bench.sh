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
# Against a remote host (tools/bench --remote) sidecore.stream-bytes= and
# sidecore.rr-count= size the tests instead of sidecore.seconds=.
#
# sidecore.instances=1,2,4 runs each netperf test once per count, that many
# netperf processes at once against the same peer, instance i pinned to
# CPU i modulo the guest's CPUs (so with one virtio-net queue pair per vCPU
# each instance sends on its CPU's queue), and reports their sum
# (" instances N" after the unit when N > 1); the vsock tests run once.
#
# Around each run it asks the hypervisor for its counters (a byte to port
# 0x610 becomes the tag of that snapshot; the tags count up from
# sidecore.tag-base=, default 0, so guests benchmarking at once can be
# given tags of their own), and prints
#   bench: TEST SIZE tags BEFORE AFTER elapsed SECONDS result VALUE UNIT
# with " cid CID", the peer's, after a vsock test's line, or
#   bench: TEST SIZE failed: OUTPUT   ("failed (cid CID):" for vsock)
# then "bench: done". tools/bench turns the pairs into per-transaction
# figures. It first waits sidecore.wait= seconds (default 60) for the
# peer's netserver, printing "bench: waiting for PEER" once: a remote host
# (tools/bench --remote) starts its netserver when every guest waits, so
# their runs begin together.

peer=${SIDECORE_PEER:?sidecore.peer= is required}
tests=$(echo "${SIDECORE_TESTS:-TCP_RR,UDP_RR,TCP_STREAM,TCP_MAERTS}" | tr , ' ')
sizes=$(echo "${SIDECORE_SIZES:-256,1024,16384}" | tr , ' ')
seconds=${SIDECORE_SECONDS:-3}
vsock_peer=${SIDECORE_VSOCK_PEER:-}
instances=$(echo "${SIDECORE_INSTANCES:-1}" | tr , ' ')
cpus=$(nproc)

# shellcheck source=guest/scripts/lib/length.sh
. /scripts/lib/length.sh
tag=${SIDECORE_TAG_BASE:-0}

snapshot() {
	tag=$((tag + 1))
	printf "\\$(printf %o "$tag")" | dd of=/dev/port bs=1 seek=1552 2>/dev/null
}

echo "bench: waiting for $peer"
tries=${SIDECORE_WAIT:-60}
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

# netperf_rows TEST SIZE OPTS UNIT: the test once per count in
# sidecore.instances=, that many netperfs at once, their results summed. A
# run that stalls is cut off and reported, and the next one runs.
netperf_rows() {
	nrc=0
	for n in $instances; do
		rm -f /tmp/bench.*
		snapshot
		before=$tag
		i=0
		while [ $i -lt "$n" ]; do
			# shellcheck disable=SC2086 # the options are split into words
			taskset -c $((i % cpus)) timeout $((seconds + 60)) \
				netperf -H "$peer" -t "$1" -l "$(test_length "$1" "$seconds")" -P 0 -- $3 \
				>/tmp/bench.$i 2>&1 &
			i=$((i + 1))
		done
		wait
		snapshot
		# The last line with 5 fields or more: elapsed time and result last.
		sum=$(for f in $(seq 0 $((n - 1))); do
			awk 'NF >= 5 { l = $(NF - 1) " " $NF } END { print l }' /tmp/bench.$f
		done | awk 'NF == 2 { n++; if ($1 > e) e = $1; r += $2 }
			END { if (n == '"$n"') printf "%s %.2f\n", e, r }')
		# shellcheck disable=SC2086
		set -- "$1" "$2" "$3" "$4" $sum
		if [ $# -lt 6 ]; then
			echo "bench: $1 $2 failed: $(cat /tmp/bench.*)"
			nrc=1
			continue
		fi
		suffix=
		[ "$n" -eq 1 ] || suffix=" instances $n"
		echo "bench: $1 $2 tags $before $tag elapsed $5 result $6 $4$suffix"
	done
	return $nrc
}

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
	if [ -z "$mode" ]; then
		netperf_rows "$t" "$size" "$opts" "$unit" || rc=1
		continue
	fi
	snapshot
	before=$tag
	# A run that stalls is cut off and reported, and the next one runs.
	out=$(timeout $((seconds + 60)) vsockbench "$mode" "$cid" "$size" "$seconds") || rc=1
	snapshot
	# vsockbench: MODE cid C size S bytes|transactions N seconds T UNIT R ...
	line=$(echo "$out" | grep "^vsockbench: $mode cid " | tail -n 1)
	# shellcheck disable=SC2086 # the line is split into its fields
	set -- $line
	[ $# -ge 12 ] || { echo "bench: $t $size failed (cid $cid): $out"; rc=1; continue; }
	echo "$out"
	echo "bench: $t $size tags $before $tag elapsed ${10} result ${12} $unit cid $cid"
done
echo "bench: done"
exit $rc
