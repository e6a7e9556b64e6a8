/* SPDX-License-Identifier: MIT */
/*
 * vsockcheck - carries a known byte stream over AF_VSOCK (SOCK_STREAM)
 * and prints what it carried, so that a log shows both ends agree.
 *
 *   vsockcheck listen PORT BYTES       accept one connection on PORT and
 *                                      read BYTES from it
 *   vsockcheck serve PORT BYTES        accept one and write BYTES of the
 *                                      pattern to it
 *   vsockcheck send CID PORT BYTES     connect to CID:PORT and write
 *   vsockcheck fetch CID PORT BYTES    connect to CID:PORT and read
 *   vsockcheck echo CID PORT BYTES     connect to an echo service at
 *                                      CID:PORT, write BYTES of the pattern
 *                                      while reading them back
 *   vsockcheck sink PORT               accept every connection on PORT and
 *                                      close it at once, until killed
 *
 *   vsockcheck cat CID PORT            connect to CID:PORT and copy what
 *                                      comes to stdout until the peer ends
 *                                      the stream (CID 2's counters: port
 *                                      1552)
 *
 * Each but cat prints "vsockcheck: port P sent|received N bytes sum S"; echo
 * prints "vsockcheck: echo port P sent N bytes sum S received N bytes sum
 * R". sink prints "vsockcheck: sink on port P" once listening and
 * "vsockcheck: sink port P accepted N" when a SIGTERM ends it: a port
 * anyone may connect to, for a hostile guest to aim at
 * (tests/integration/guests-badapic.conf).
 *
 * A client retries its connect for up to 30 s while the peer is not
 * listening yet. BYTES is a multiple of 8. S is a 64-bit FNV-1a-style
 * hash of the stream taken 8 bytes at a time, 16 KiB at a time, so a byte
 * lost, added or moved changes it, and it costs a guest under an emulator
 * little. The pattern does not repeat within the 4 KiB buffers the stream
 * is cut into. Exit status 0 when BYTES went through (and, for echo, came
 * back with the sum they left with), else 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/vm_sockets.h>

#include "vsock_connect.h"

#define CHUNK		(16 * 1024)	/* hashed at a time; one write */
#define HASH_START	0xcbf29ce484222325ull	/* FNV-1a's 64-bit offset basis */
#define HASH_PRIME	0x100000001b3ull		/* and its prime */

/* The word at 8-byte index i of the stream. */
static uint64_t pattern(uint64_t i)
{
	return i * 0x9e3779b97f4a7c15ull ^ (i >> 9) ^ 0x5555;
}

static uint64_t hash_words(uint64_t hash, const uint64_t *w, size_t bytes)
{
	for (size_t i = 0; i < bytes / 8; i++)
		hash = (hash ^ w[i]) * HASH_PRIME;
	return hash;
}

static int fail(const char *what)
{
	printf("vsockcheck: %s: %s\n", what, strerror(errno));
	return 1;
}

/* Reads exactly len bytes unless the stream ends first; returns how many. */
static size_t read_full(int s, uint8_t *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(s, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

/* Reads bytes in CHUNK pieces, hashing each; returns the bytes read. */
static uint64_t read_stream(int s, uint64_t bytes, uint64_t *hash)
{
	static uint64_t buf[CHUNK / 8];
	uint64_t got = 0;

	*hash = HASH_START;
	while (got < bytes) {
		size_t want = bytes - got < CHUNK ? (size_t)(bytes - got) : CHUNK;
		size_t n = read_full(s, (uint8_t *)buf, want);

		*hash = hash_words(*hash, buf, n);
		got += n;
		if (n < want)
			break;
	}
	return got;
}

/* Writes bytes of the pattern in CHUNK pieces; returns its hash, *ok false on an error. */
static uint64_t write_stream(int s, uint64_t bytes, int *ok)
{
	static uint64_t buf[CHUNK / 8];
	uint64_t hash = HASH_START, sent = 0;

	*ok = 1;
	while (sent < bytes) {
		size_t len = bytes - sent < CHUNK ? (size_t)(bytes - sent) : CHUNK;
		size_t off = 0;

		for (size_t i = 0; i < len / 8; i++)
			buf[i] = pattern(sent / 8 + i);
		hash = hash_words(hash, buf, len);
		while (off < len) {
			ssize_t n = write(s, (uint8_t *)buf + off, len - off);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				*ok = 0;
				return hash;
			}
			off += (size_t)n;
		}
		sent += len;
	}
	return hash;
}

/* Accepts one connection on port; -1 on an error. */
static int accept_one(unsigned int port)
{
	struct sockaddr_vm addr = { .svm_family = AF_VSOCK, .svm_cid = VMADDR_CID_ANY,
				    .svm_port = port };
	int s = socket(AF_VSOCK, SOCK_STREAM, 0), c;

	if (s < 0 || bind(s, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(s, 1) < 0)
		return -1;
	printf("vsockcheck: listening on port %u\n", port);
	c = accept(s, NULL, NULL);
	close(s);
	return c;
}

/* Carries bytes one way on connection s, and says so. */
static int carry(int s, unsigned int port, bool writer, uint64_t bytes)
{
	uint64_t hash, done = bytes;
	int ok = 1;

	if (s < 0)
		return fail("connect or accept");
	if (writer)
		hash = write_stream(s, bytes, &ok);
	else
		done = read_stream(s, bytes, &hash);
	if (!ok)
		return fail("write");
	printf("vsockcheck: port %u %s %llu bytes sum %016llx\n", port,
	       writer ? "sent" : "received", (unsigned long long)done, (unsigned long long)hash);
	close(s);
	return done == bytes ? 0 : 1;
}

/* A child writes while the parent reads: both directions run at once. */
static int echo(unsigned int cid, unsigned int port, uint64_t bytes)
{
	int s = vsock_connect(cid, port), status, ok;
	uint64_t sent_hash, got_hash, got;
	pid_t child;

	if (s < 0)
		return fail("connect");
	child = fork();
	if (child < 0)
		return fail("fork");
	if (child == 0) {
		write_stream(s, bytes, &ok);
		_exit(ok ? 0 : 1);
	}
	got = read_stream(s, bytes, &got_hash);
	if (waitpid(child, &status, 0) < 0)
		return fail("waitpid");
	/* The pattern's hash, as the child computed it, without sending it again. */
	sent_hash = HASH_START;
	for (uint64_t i = 0; i < bytes / 8; i++)
		sent_hash = (sent_hash ^ pattern(i)) * HASH_PRIME;
	printf("vsockcheck: echo port %u sent %llu bytes sum %016llx received %llu bytes sum %016llx\n",
	       port, (unsigned long long)bytes, (unsigned long long)sent_hash,
	       (unsigned long long)got, (unsigned long long)got_hash);
	close(s);
	return got == bytes && got_hash == sent_hash && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0 ? 0 : 1;
}

static int cat(unsigned int cid, unsigned int port)
{
	int s = vsock_connect(cid, port);
	char buf[4096];
	ssize_t n;

	if (s < 0)
		return fail("connect");
	while ((n = read(s, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			return fail("write");
	close(s);
	return n < 0 ? fail("read") : 0;
}

static volatile sig_atomic_t sink_stop;

static void sink_on_term(int sig)
{
	(void)sig;
	sink_stop = 1;
}

/*
 * Accepts and closes connections on port until a SIGTERM, then says how
 * many it took. SIGTERM is blocked but while ppoll() waits, so it is
 * never lost between the check and the wait.
 */
static int sink(unsigned int port)
{
	struct sockaddr_vm addr = { .svm_family = AF_VSOCK, .svm_cid = VMADDR_CID_ANY,
				    .svm_port = port };
	struct sigaction term = { .sa_handler = sink_on_term };
	sigset_t blocked, waiting;
	unsigned long accepted = 0;
	int s = socket(AF_VSOCK, SOCK_STREAM, 0);

	sigemptyset(&term.sa_mask);
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGTERM);
	if (sigaction(SIGTERM, &term, NULL) < 0 ||
	    sigprocmask(SIG_BLOCK, &blocked, &waiting) < 0)
		return fail("sigaction");
	sigdelset(&waiting, SIGTERM);
	if (s < 0 || bind(s, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(s, 16) < 0)
		return fail("sink");
	printf("vsockcheck: sink on port %u\n", port);
	while (!sink_stop) {
		struct pollfd p = { .fd = s, .events = POLLIN };
		int c;

		if (ppoll(&p, 1, NULL, &waiting) < 0) {
			if (errno != EINTR)
				return fail("ppoll");
			continue;
		}
		c = accept(s, NULL, NULL);
		if (c >= 0) {
			accepted++;
			close(c);
		}
	}
	printf("vsockcheck: sink port %u accepted %lu\n", port, accepted);
	close(s);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: vsockcheck listen|serve PORT BYTES\n"
			"       vsockcheck send|fetch|echo CID PORT BYTES\n"
			"       vsockcheck cat CID PORT\n"
			"       vsockcheck sink PORT\n"
			"BYTES is a multiple of 8\n");
	return 2;
}

int main(int argc, char **argv)
{
	uint64_t bytes = argc > 3 ? strtoull(argv[argc - 1], NULL, 0) : 1;
	unsigned int port = argc > 3 ? (unsigned int)strtoul(argv[argc - 2], NULL, 0) : 0;
	unsigned int cid = argc == 5 ? (unsigned int)strtoul(argv[2], NULL, 0) : 0;
	const char *mode = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(mode, "cat"))
		return cat((unsigned int)strtoul(argv[2], NULL, 0),
			   (unsigned int)strtoul(argv[3], NULL, 0));
	if (argc == 3 && !strcmp(mode, "sink"))
		return sink((unsigned int)strtoul(argv[2], NULL, 0));
	if (bytes % 8)
		return usage();
	if (argc == 4 && !strcmp(mode, "listen"))
		return carry(accept_one(port), port, false, bytes);
	if (argc == 4 && !strcmp(mode, "serve"))
		return carry(accept_one(port), port, true, bytes);
	if (argc == 5 && !strcmp(mode, "send"))
		return carry(vsock_connect(cid, port), port, true, bytes);
	if (argc == 5 && !strcmp(mode, "fetch"))
		return carry(vsock_connect(cid, port), port, false, bytes);
	if (argc == 5 && !strcmp(mode, "echo"))
		return echo(cid, port, bytes);
	return usage();
}
