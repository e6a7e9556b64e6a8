#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Runs each fuzz target for FUZZ_SECONDS (default 600), one after another:
#
#   tests/fuzz/fuzz_long.sh [NAME ...]     NAME: gpt, uart, ... (default: all)
#
# Each target's corpus grows in build/fuzz-long/NAME/corpus from run to run
# (seeded from tests/fuzz/corpus/NAME); a crash or broken invariant leaves
# its input as build/fuzz-long/NAME/crash-* and its report in
# build/fuzz-long/NAME.log. Prints one line per target with its executions
# and findings; exit status 1 if any target found something.
set -uo pipefail
cd "$(dirname "$0")/../.."

seconds=${FUZZ_SECONDS:-600}
out=build/fuzz-long
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in build/fuzz/fuzz_*; do
		names+=("${f##*/fuzz_}")
	done
fi

found=0
for name in "${names[@]}"; do
	bin=build/fuzz/fuzz_$name
	dir=$out/$name
	if [ ! -x "$bin" ]; then
		echo "fuzz $name: no $bin (make fuzz)" >&2
		found=1
		continue
	fi
	mkdir -p "$dir/corpus"
	"$bin" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$dir/" \
		"$dir/corpus" "tests/fuzz/corpus/$name" >"$out/$name.log" 2>&1
	status=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$name.log")
	crashes=$(find "$dir" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' \
		-o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
	echo "fuzz $name: ${seconds}s, ${execs:-?} executions, corpus $(ls "$dir/corpus" | wc -l)," \
	     "exit $status, $crashes finding(s) kept in $dir"
	[ "$status" -eq 0 ] && [ "$crashes" -eq 0 ] || found=1
done
exit $found
