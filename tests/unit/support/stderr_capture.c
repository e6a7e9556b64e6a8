/* SPDX-License-Identifier: MIT */
/*
 * stderr_capture.c - redirect file descriptor 2 to a temporary file and back.
 *
 * Working on the descriptor rather than the FILE catches output however the
 * log sink writes it (stdio or write(2)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/unit/support/stderr_capture.h"

static FILE *capture_file;
static int saved_stderr = -1;

void stderr_capture_begin(void)
{
	fflush(stderr);
	capture_file = tmpfile();
	saved_stderr = dup(STDERR_FILENO);
	if (!capture_file || saved_stderr < 0 ||
	    dup2(fileno(capture_file), STDERR_FILENO) < 0) {
		perror("stderr_capture_begin");
		abort();
	}
}

const char *stderr_capture_end(char *buf, size_t size)
{
	size_t len;

	fflush(stderr);
	if (dup2(saved_stderr, STDERR_FILENO) < 0) {
		perror("stderr_capture_end");
		abort();
	}
	close(saved_stderr);
	saved_stderr = -1;

	rewind(capture_file);
	len = fread(buf, 1, size - 1, capture_file);
	buf[len] = '\0';
	fclose(capture_file);
	capture_file = NULL;
	return buf;
}
