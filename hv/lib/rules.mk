# SPDX-License-Identifier: MIT
# The console's lossy ring and the token bucket limiting guest lines, host-tested.
PURE_SRCS += hv/lib/log_ring.c hv/lib/ratelimit.c
# Lines of guest console output, shared by the UART and virtio-console.
PURE_SRCS += hv/lib/text_line.c
# A sampled RIP histogram per sidecore (docs/data-path.md "Profile"), host-tested.
PURE_SRCS += hv/lib/profile.c
# string.c is what the compiler's own calls reach: its loops must not become
# calls to itself.
STRING_CFLAGS := -fno-tree-loop-distribute-patterns
$(B)/hv/hv/lib/string.c.o: HV_CFLAGS += $(STRING_CFLAGS)
