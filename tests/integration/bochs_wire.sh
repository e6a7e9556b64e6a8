#!/bin/bash
# Bochs scenario: the hypervisor drives Bochs's e1000 as sidecore 0's
# uplink, its wire a tap interface in a network namespace of its own
# (10.99.0.254/24), so nothing of the host's network is touched. The
# namespace serves netperf and watches its tap for a MAC no guest has. Two
# guests with `uplink = yes` (guests-wire.conf, 10.99.0.1 and .2) each ping
# the namespace; beta floods that MAC while alpha counts how much of the
# flood reaches it (none may: unknown unicast goes to the wire only);
# alpha runs TCP_RR, TCP_STREAM and TCP_MAERTS against the namespace; then
# both serve netperf, the namespace pings both and runs the same three
# tests against alpha and TCP_RR against beta. The operator's `counters`
# shows the NIC's line. One boot; Bochs is stopped once the host's side is
# done.
# Needs root (tools/wire-ns) and python3. Usage: bochs_wire.sh
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
out=build/check/wire
mkdir -p $out
log=$out/wire.log
ns=sidecore-wire-$$
tap=tapwire0
host_ip=10.99.0.254
# Debian's netperf; the guest image's package when the host has none.
netperf=$(command -v netperf || echo build/guest/pkgs/netperf/usr/bin/netperf)
flood_mac=02:00:00:00:00:77
flood_count=1000
ping=(ping)
command -v ping >/dev/null || ping=(busybox ping)
bochs= helpers=()

cleanup() {
	if [ -n "$bochs" ]; then
		kill "$bochs" 2>/dev/null
		wait "$bochs" 2>/dev/null
	fi
	[ ${#helpers[@]} -eq 0 ] || kill "${helpers[@]}" 2>/dev/null
	tools/wire-ns down "$ns"
}
trap cleanup EXIT

clean() { tr -d '\r' <"$1"; }

# wait_for TEXT SECONDS: the serial log shows TEXT in time, Bochs still running.
wait_for() {
	local deadline=$((SECONDS + $2))
	while [ $SECONDS -lt $deadline ]; do
		grep -qF -- "$1" "$log" && return 0
		kill -0 "$bochs" 2>/dev/null || return 1
		sleep 1
	done
	return 1
}

in_ns() { ip netns exec "$ns" "$@"; }

tools/wire-ns up "$ns" $tap $host_ip/24
tap_result $? "a tap interface in namespace $ns, $host_ip/24"

# The namespace's own netserver, for alpha's netperf.
helpers+=("$(tools/wire-ns netserver "$ns" $out/netserver.txt)")
# Frames on the wire for flood_mac, counted as they come: beta's flood is
# to reach the wire (the positive control for alpha seeing none of it).
# The emulators may starve this reader for a while, so its socket buffer
# holds the whole flood (SO_RCVBUFFORCE, socket(7)), and the kernel's own
# drop count (PACKET_STATISTICS, packet(7)) is written beside the count, so
# that a shortfall says whether the reader or the path lost the frames.
in_ns python3 - $tap $flood_mac $out/wire-flood.txt <<'PY' &
import socket, struct, sys
SO_RCVBUFFORCE, SOL_PACKET, PACKET_STATISTICS = 33, 263, 6
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
s.bind((sys.argv[1], 0))
dst, seen, drops = bytes.fromhex(sys.argv[2].replace(':', '')), 0, 0
while True:
    if s.recv(2048)[:6] == dst:
        seen += 1
        drops += struct.unpack('II', s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))[1]
        open(sys.argv[3], 'w').write(f'{seen} {drops}\n')
PY
helpers+=($!)

: >"$log"
# Not through in_ns: $! must be run-bochs itself, which stops Bochs on SIGTERM.
ip netns exec "$ns" tools/run-bochs --e1000 $tap --cpus 3 --mem 1024 --log $log \
	--send "[beta] netserver: listening=>counters" \
	--until "wire: never printed" --timeout 3000 build/test-guests-wire.iso &
bochs=$!

wait_for "[alpha] netserver: listening" 2400 && wait_for "[beta] netserver: listening" 300
tap_run $? "both guests boot and serve netperf" $log
tap_line $log 'nic: e1000 [0-9a-f:.]+ link up queues 1 mac 52:54:00:99:00:01 speed 1000' \
	"the e1000 is the uplink, link up, MAC from its EEPROM"
tap_line $log 'nic queue: sidecore 0 rx 0 tx 0' "its queue pair is sidecore 0's"
tap_line $log '\[alpha\] ping: loss 0%' "alpha pings the namespace through the wire, 0% loss"
tap_line $log '\[beta\] ping: loss 0%' "beta pings the namespace through the wire, 0% loss"
tap_line $log "\\[beta\\] ethflood: sent $flood_count to $flood_mac" \
	"beta sends $flood_count frames to $flood_mac, a MAC no guest has"
tap_line $log "\\[alpha\\] ethflood: saw 0 of $flood_count frames for $flood_mac \\(done\\)" \
	"none of them reaches alpha, which watched in promiscuous mode until beta was done"
read -r wire_seen wire_drops <$out/wire-flood.txt 2>/dev/null
[ "${wire_seen:-0}" -ge $flood_count ]
tap_result $? "all of them reach the wire (${wire_seen:-0} seen on the tap, ${wire_drops:-0} dropped by its reader)"
for t in TCP_RR TCP_STREAM TCP_MAERTS; do
	tap_line $log "\\[alpha\\] netperf: $t [0-9.]*[1-9][0-9.]* (trans/s|10\\^6bits/s)" \
		"netperf $t alpha -> namespace completes"
done
# The operator's counters, asked for once beta's pings are done.
wait_for "counters: end tag 0" 120
tap_line $log 'counters: nic [0-9a-f:.]+ queue 0 sidecore 0 rx_packets [1-9][0-9]* rx_bytes [0-9]+ rx_drops 0 rx_unknown [0-9]+ tx_packets [1-9][0-9]* tx_bytes [0-9]+ tx_drops 0 ring_full 0 link up link_changes 0' \
	"the NIC's counters: frames both ways, none dropped, link up throughout"

for ip in 10.99.0.1 10.99.0.2; do
	in_ns "${ping[@]}" -c 3 -W 10 $ip >$out/ping-$ip.txt 2>&1
	tap_result $? "the namespace pings $ip"
done

# netserver_answers GUEST_IP: netperf's control connection comes up within a
# minute (the guest prints "listening" just before netserver starts).
netserver_answers() {
	local tries=60
	until in_ns "$netperf" -H "$1" -t TCP_RR -l 1 -P 0 >/dev/null 2>&1; do
		tries=$((tries - 1))
		[ $tries -gt 0 ] || return 1
		sleep 1
	done
}

for ip in 10.99.0.1 10.99.0.2; do
	netserver_answers $ip
	tap_result $? "netserver at $ip answers from the namespace"
done

# run_netperf GUEST_IP TEST: one netperf test from the namespace, 2 s.
run_netperf() {
	local file=$out/netperf-$2-$1.txt result
	in_ns "$netperf" -H "$1" -t "$2" -l 2 -P 0 >"$file" 2>&1
	local status=$?
	result=$(awk 'NF >= 5 { r = $NF } END { print r }' "$file")
	[ $status -eq 0 ] && ! grep -qi error "$file" &&
		awk -v v="${result:-0}" 'BEGIN { exit !(v > 0) }'
	tap_result $? "netperf $2 namespace -> $1 (${result:-no result})"
}

run_netperf 10.99.0.1 TCP_RR
run_netperf 10.99.0.1 TCP_STREAM
run_netperf 10.99.0.1 TCP_MAERTS
run_netperf 10.99.0.2 TCP_RR

kill -0 "$bochs" 2>/dev/null
tap_result $? "the hypervisor is still running"
! clean $log | grep -qE '^(panic:|exception:)'
tap_result $? "no panic or exception"
tap_done
