# SPDX-License-Identifier: MIT
# hv/lib: the string-instruction copies are tested on the host at every alignment.
PURE_SRCS += hv/lib/copy.c
