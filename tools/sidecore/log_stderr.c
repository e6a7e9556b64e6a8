/* SPDX-License-Identifier: MIT */
/*
 * log_stderr.c - log_msg() for host programs: the tool, unit tests, fuzzers.
 *
 * Fuzzers feed so much garbage that printing every complaint would slow them
 * to a crawl; there the message is still formatted (so a bad format or
 * argument is still caught by the sanitizers) but not printed.
 */
#include <stdarg.h>
#include <stdio.h>

#include "lib/log.h"

/**
 * log_msg() - report a message on stderr.
 * @fmt: printf format; messages end with their own newline.
 */
void log_msg(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
#ifdef FUZZING
	{
		char discard[256];

		vsnprintf(discard, sizeof(discard), fmt, args);
	}
#else
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
#endif
	va_end(args);
}
