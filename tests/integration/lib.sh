# SPDX-License-Identifier: MIT
# lib.sh - TAP output for the integration scenarios, and checks more than
# one scenario makes. Source it, call tap_* (or check_*) for each check,
# and finish with tap_done (exits 1 on any failure).

tap_count=0
tap_failed=0

tap_result() {	# tap_result STATUS NAME: STATUS 0 means ok
	tap_count=$((tap_count + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_count - $2"
	else
		echo "not ok $tap_count - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

# tap_line LOG REGEX NAME: the serial log has a line matching REGEX (ERE, anchored).
tap_line() {
	tr -d '\r' <"$1" | grep -qE "^$2\$"
	tap_result $? "$3"
}

# tap_no_line LOG REGEX NAME: no line matches.
tap_no_line() {
	! tr -d '\r' <"$1" | grep -qE "$2"
	tap_result $? "$3"
}

# tap_node_mem LOG NODE MIB NAME: the node line reports MIB, less at most
# 16 MiB that firmware and the hypervisor's own image keep.
tap_node_mem() {
	local got
	got=$(tr -d '\r' <"$1" | sed -nE "s/^node $2: cpus [0-9,]+ mem ([0-9]+) MiB\$/\\1/p")
	[ -n "$got" ] && [ "$got" -le "$3" ] && [ "$got" -ge $(($3 - 16)) ]
	tap_result $? "$4 (got ${got:-nothing}, told $3)"
}

# tap_run STATUS NAME LOG: the result of an emulator run; a failed one
# shows the last 30 lines of its serial log as TAP comments (profile
# buckets left out): where the run stopped.
tap_run() {
	tap_result "$1" "$2"
	[ "$1" -eq 0 ] || tr -d '\r' <"$3" | grep -v '^counters: profile .* buckets ' |
		tail -n 30 | sed 's/^/# /'
}

# vsock_lines LOG GUEST: the lines of guest/tools/vsockcheck.c that GUEST
# printed, without the "[GUEST] " prefix.
vsock_lines() { tr -d '\r' <"$1" | sed -n "s/^\[$2\] \(vsockcheck: \)/\1/p"; }

# check_vsock LOG SCENARIO DRIVER SERVER BYTES: guest/scripts/vsock.sh's
# three streams, DRIVER to SERVER, SERVER to DRIVER and DRIVER through CID
# 2's echo, all at once (docs/data-path.md, "vsock"), arrive whole and in
# order: the sums at both ends match.
check_vsock() {
	local log=$1 d=$3 s=$4 bytes=$5 sent got echo
	sent=$(vsock_lines $log $d | sed -n "s/^vsockcheck: port 5000 sent $bytes bytes sum //p")
	got=$(vsock_lines $log $s | sed -n "s/^vsockcheck: port 5000 received $bytes bytes sum //p")
	[ -n "$sent" ] && [ "$sent" = "$got" ]
	tap_result $? "$2: $bytes bytes $d to $s over vsock, whole and in order (sums ${sent:-none}, ${got:-none})"
	sent=$(vsock_lines $log $s | sed -n "s/^vsockcheck: port 5001 sent $bytes bytes sum //p")
	got=$(vsock_lines $log $d | sed -n "s/^vsockcheck: port 5001 received $bytes bytes sum //p")
	[ -n "$sent" ] && [ "$sent" = "$got" ]
	tap_result $? "$2: $bytes bytes $s to $d at the same time, whole and in order (sums ${sent:-none}, ${got:-none})"
	echo=$(vsock_lines $log $d | grep '^vsockcheck: echo port 7 ')
	grep -Eq "^vsockcheck: echo port 7 sent $bytes bytes sum ([0-9a-f]+) received $bytes bytes sum \\1\$" <<<"$echo"
	tap_result $? "$2: $bytes bytes through CID 2's echo and back, whole and in order (${echo:-no echo line})"
	# Read by the guest from CID 2's counters service (vsockcheck cat 2 1552).
	tap_line $log "\\[$d\\] counters: vsock $d sidecore [0-9]+ cid [0-9]+ packets [1-9][0-9]* .* spoofed 0 echoed $bytes .*" \
		"$2: $d read its vsock device's counters from CID 2: the echo counted, none spoofed"
	tap_line $log "\\[$d\\] vsock: socat echo cid 2 port 7 ok" "$2: socat's VSOCK-CONNECT through CID 2's echo"
	tap_line $log "\\[$d\\] vsock: socat echo cid [0-9]+ port 5002 ok" \
		"$2: socat's VSOCK-CONNECT to $s's socat VSOCK-LISTEN echo"
}

tap_done() {
	echo "1..$tap_count"
	[ "$tap_failed" -eq 0 ]
}
