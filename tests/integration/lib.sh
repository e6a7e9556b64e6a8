# SPDX-License-Identifier: MIT
# lib.sh - TAP output for the integration scenarios. Source it, call
# tap_* for each check, and finish with tap_done (exits 1 on any failure).

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

tap_done() {
	echo "1..$tap_count"
	[ "$tap_failed" -eq 0 ]
}
