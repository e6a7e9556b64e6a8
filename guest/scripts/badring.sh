#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Hostile driver: takes the guest's virtio-net function from Linux and feeds
# its transmit queue malformed chains (guest/tools/badring.c), printing
# "badring: CASE -> status 0xSS used N" per case and "badring: done".
# sidecore.cases=NAME[,NAME...] picks cases (default: all).

# shellcheck disable=SC2046 # one word per case
exec badring $(echo "${SIDECORE_CASES:-}" | tr , ' ')
