/* SPDX-License-Identifier: MIT */
/*
 * log.h - the one message sink shared by hypervisor and host builds.
 *
 * Pure modules (ACPI, memory map, config) report through log_msg(); the
 * hypervisor routes it to the serial console, the host tool and the unit tests
 * to stderr. A message is one line without its newline: the sink ends it.
 */
#ifndef SIDECORE_LIB_LOG_H
#define SIDECORE_LIB_LOG_H

#include <stdbool.h>

/**
 * log_msg() - report one line, typically malformed input a pure module met
 * @fmt: printf-style format of the line, without its newline
 * @...: the format's arguments
 *
 * Each build links its own: the console in the hypervisor, stderr in the
 * host tool and the unit tests.
 */
void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The bucket of the guest whose actions a pure module reports: a line about
 * what a guest did passes it first, so that no guest can flood the console
 * by repeating the act (docs/security.md, "console"). The owner that knows
 * the guest hands it down; without one every line goes out.
 */
struct log_gate {
	bool (*allow)(void *ctx);	/* spends one of the guest's tokens */
	void *ctx;
};

/* Whether a guest-caused line may go out through gate (NULL: ungated). */
static inline bool log_gate_allow(const struct log_gate *gate)
{
	return !gate || !gate->allow || gate->allow(gate->ctx);
}

#endif
