#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Benchmark server: run netserver in the foreground on the control port
# (sidecore.port=, default 12865) until the guest is stopped. Pair with
# sidecore.ip= so the peer can reach it.

echo "netserver: listening on port ${SIDECORE_PORT:-12865}"
exec netserver -D -p "${SIDECORE_PORT:-12865}"
