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

void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
