/* SPDX-License-Identifier: MIT */
/*
 * stderr_capture.h - read back what the code under test logged.
 *
 * Pure modules report problems through log_msg(), which the host build sends
 * to stderr. A test that must see a problem reported (not just survived)
 * brackets the call with these two functions.
 */
#ifndef SIDECORE_TESTS_STDERR_CAPTURE_H
#define SIDECORE_TESTS_STDERR_CAPTURE_H

#include <stddef.h>

/* Starts sending stderr to a temporary file. */
void stderr_capture_begin(void);

/*
 * Restores stderr and returns what was written since stderr_capture_begin(),
 * NUL-terminated and cut to size - 1 bytes, in buf.
 */
const char *stderr_capture_end(char *buf, size_t size);

#endif
