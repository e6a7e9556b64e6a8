# SPDX-License-Identifier: MIT
# shellcheck shell=sh
#
# Sourced by the netperf and bench scripts.
#
# test_length TEST SECONDS: netperf's -l, SECONDS of guest time; against a
# peer that keeps wall-clock time (a remote host, whose netserver ends a
# timed test by its own clock a few seconds after the guest's length, while
# a guest under an emulator runs slower than that) a size instead:
# sidecore.stream-bytes= bytes for a stream, sidecore.rr-count= transactions
# for request/response, given to netperf as a negative length.
test_length() {
	case $1 in
	*_RR) [ -z "${SIDECORE_RR_COUNT:-}" ] || { echo "-$SIDECORE_RR_COUNT"; return; } ;;
	*) [ -z "${SIDECORE_STREAM_BYTES:-}" ] || { echo "-$SIDECORE_STREAM_BYTES"; return; } ;;
	esac
	echo "$2"
}
