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

/**
 * log_msg() - report one line, typically malformed input a pure module met
 * @fmt: printf-style format of the line, without its newline
 * @...: the format's arguments
 *
 * Each build links its own: the console in the hypervisor, stderr in the
 * host tool and the unit tests.
 */
void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
