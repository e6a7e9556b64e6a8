# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# tap.sh - TAP for the host-side shell checks, sourced by them.
# check NAME CONDITION... prints one TAP line and, on failure, calls the
# script's check_detail to say what the tool under test said; tap_plan
# prints the plan and fails if any check did.

count=0
failed=0

check() {
	local name=$1
	shift
	count=$((count + 1))
	if "$@"; then
		echo "ok $count - $name"
	else
		echo "not ok $count - $name"
		failed=$((failed + 1))
		check_detail
	fi
}

tap_plan() {
	echo "1..$count"
	[ "$failed" -eq 0 ]
}
