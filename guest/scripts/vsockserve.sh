#!/bin/sh
# SPDX-License-Identifier: MIT
#
# vsock benchmark server: runs "vsockbench serve" in the background (echo
# on vsock port 7, discard on port 9, as CID 2, the hypervisor, serves
# them), so list it before the script that keeps the guest up
# (netserver). vsockbench prints "vsockbench: serving echo on port 7,
# discard on port 9" once it listens; its clients retry their connection
# until then.

vsockbench serve &
