#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The neighbour of a flooding guest: netperf TCP_RR against sidecore.peer=
# (which runs netserver) once per phase in sidecore.phases= (default
# quiet,flood1552,gsoflood), sidecore.seconds= each (default 3), -r
# SIZE,SIZE with SIZE the first of sidecore.sizes= (default 1). Before a
# flood phase it starts the flooder on sidecore.attacker= (its IPv4
# address) through the flooder's UDP gate (guest/tools/floodgate.c):
# flood1552 on sidecore.flood1552-gate= (default 7552), gsoflood on
# sidecore.gsoflood-gate= (default 7553); the flooder runs longer than the
# test (sidecore.flood-seconds= on its side). Before the first phase it
# waits until the attacker's first gate answers a probe, so the quiet
# phase runs beside an attacker that is up and idle.
#
# Around each run it takes counter snapshots as bench.sh does (tags from
# sidecore.tag-base=, default 0) and prints
#   bench: TCP_RR SIZE tags BEFORE AFTER elapsed SECONDS result VALUE trans/s phase PHASE
# or "bench: TCP_RR SIZE failed (phase PHASE): OUTPUT", then "bench: done".
# tools/bench --neighbour turns them into a table.

peer=${SIDECORE_PEER:?sidecore.peer= is required}
attacker=${SIDECORE_ATTACKER:?sidecore.attacker= is required}
phases=$(echo "${SIDECORE_PHASES:-quiet,flood1552,gsoflood}" | tr , ' ')
size=$(echo "${SIDECORE_SIZES:-1}" | cut -d, -f1)
seconds=${SIDECORE_SECONDS:-3}
tag=${SIDECORE_TAG_BASE:-0}

snapshot() {
	tag=$((tag + 1))
	printf "\\$(printf %o "$tag")" | dd of=/dev/port bs=1 seek=1552 2>/dev/null
}

gate_port() {
	case $1 in
	flood1552) echo "${SIDECORE_FLOOD1552_GATE:-7552}" ;;
	gsoflood) echo "${SIDECORE_GSOFLOOD_GATE:-7553}" ;;
	esac
}

echo "bench: waiting for $peer"
tries=60
until netperf -H "$peer" -t TCP_RR -l 1 -P 0 >/dev/null 2>&1; do
	tries=$((tries - 1))
	[ "$tries" -gt 0 ] || { echo "bench: no netserver at $peer"; exit 1; }
	sleep 1
done
for p in $phases; do
	port=$(gate_port "$p")
	[ -z "$port" ] || { floodgate -p "$attacker" "$port"; break; }
done

rc=0
for p in $phases; do
	case $p in
	quiet) ;;
	flood1552 | gsoflood)
		floodgate "$attacker" "$(gate_port "$p")" || {
			echo "bench: TCP_RR $size failed (phase $p): no flooder at $attacker"
			rc=1
			continue
		}
		;;
	*) echo "bench: $p: no such phase"; rc=1; continue ;;
	esac
	snapshot
	before=$tag
	out=$(timeout $((seconds + 60)) netperf -H "$peer" -t TCP_RR -l "$seconds" -P 0 \
		-- -r "$size,$size" 2>&1)
	snapshot
	# The last line with 5 fields or more: elapsed time and result last.
	line=$(echo "$out" | awk 'NF >= 5 { l = $(NF - 1) " " $NF } END { print l }')
	# shellcheck disable=SC2086 # the line is split into its two fields
	set -- $line
	if [ $# -ne 2 ]; then
		echo "bench: TCP_RR $size failed (phase $p): $out"
		rc=1
		continue
	fi
	echo "bench: TCP_RR $size tags $before $tag elapsed $1 result $2 trans/s phase $p"
done
echo "bench: done"
exit $rc
