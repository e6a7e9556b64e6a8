#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A guest with two vCPUs that turns both against the hypervisor, for good:
# CPU 1 sends IPIs to CPU 0 as fast as it can ("apicabuse storm", each one
# an exit), and CPU 0 spins with every interrupt held back (spin.sh), so
# they pile up. Neither may slow another guest's data path.

taskset -c 1 apicabuse storm 1 0 &
exec taskset -c 0 sh /scripts/spin.sh
