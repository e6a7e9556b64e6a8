#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A guest whose every vCPU sends INIT and STARTUP IPIs to all the others,
# for ever (guest/tools/sipistorm.c), while the operator stops and
# restarts it: a start signal sent as a life ends must start nothing, in
# that life or the next (docs/vmx.md, "Secondary vCPUs").

echo "sipistorm: up nproc $(nproc)"
for cpu in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$cpu" sipistorm "$cpu" &
done
sleep 1
echo "sipistorm: storming"
wait
