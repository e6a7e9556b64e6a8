/* SPDX-License-Identifier: MIT */
/*
 * vsockcheck - carries a known byte stream between two guests over
 * AF_VSOCK (SOCK_STREAM) and prints what it carried, so that a log shows
 * both ends agree.
 *
 *   vsockcheck listen PORT BYTES       accept one connection on PORT, read
 *                                      BYTES, print "vsockcheck: received
 *                                      N bytes sum S"
 *   vsockcheck send CID PORT BYTES     connect to CID:PORT (retrying for up
 *                                      to 30 s while the peer is not
 *                                      listening yet), write BYTES of the
 *                                      pattern, print "vsockcheck: sent N
 *                                      bytes sum S"
 *
 * S is the 32-bit FNV-1a hash of the bytes in order, so a byte lost, added
 * or moved changes it. The pattern does not repeat with the 4 KiB buffers
 * the stream is cut into. Exit status 0 when BYTES went through, else 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/vm_sockets.h>

#define CHUNK		(16 * 1024)	/* one write or read */
#define CONNECT_TRIES	150
#define CONNECT_WAIT_US	200000		/* 150 tries, 30 s in all */

static uint8_t pattern(uint64_t i)
{
	return (uint8_t)(i * 131 + (i >> 12) * 7 + 1);
}

/* FNV-1a, 32-bit: offset basis 2166136261, prime 16777619. */
static uint32_t fnv1a(uint32_t hash, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		hash = (hash ^ p[i]) * 16777619u;
	return hash;
}

static int fail(const char *what)
{
	printf("vsockcheck: %s: %s\n", what, strerror(errno));
	return 1;
}

static int listen_and_read(unsigned int port, uint64_t bytes)
{
	struct sockaddr_vm addr = { .svm_family = AF_VSOCK, .svm_cid = VMADDR_CID_ANY,
				    .svm_port = port };
	static uint8_t buf[CHUNK];
	uint32_t hash = 2166136261u;
	uint64_t got = 0;
	int s, c;

	s = socket(AF_VSOCK, SOCK_STREAM, 0);
	if (s < 0)
		return fail("socket");
	if (bind(s, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return fail("bind");
	if (listen(s, 1) < 0)
		return fail("listen");
	printf("vsockcheck: listening on port %u\n", port);
	fflush(stdout);
	c = accept(s, NULL, NULL);
	if (c < 0)
		return fail("accept");
	while (got < bytes) {
		ssize_t n = read(c, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail("read");
		if (n == 0)
			break;
		hash = fnv1a(hash, buf, (size_t)n);
		got += (uint64_t)n;
	}
	printf("vsockcheck: received %llu bytes sum %08x\n", (unsigned long long)got, hash);
	close(c);
	close(s);
	return got == bytes ? 0 : 1;
}

static int connect_and_send(unsigned int cid, unsigned int port, uint64_t bytes)
{
	struct sockaddr_vm addr = { .svm_family = AF_VSOCK, .svm_cid = cid, .svm_port = port };
	static uint8_t buf[CHUNK];
	uint32_t hash = 2166136261u;
	uint64_t sent = 0;
	int s = -1;

	for (int tries = 0; s < 0; tries++) {
		s = socket(AF_VSOCK, SOCK_STREAM, 0);
		if (s < 0)
			return fail("socket");
		if (connect(s, (struct sockaddr *)&addr, sizeof(addr)) == 0)
			break;
		if (tries + 1 == CONNECT_TRIES)
			return fail("connect");
		close(s);
		s = -1;
		usleep(CONNECT_WAIT_US);
	}
	while (sent < bytes) {
		size_t len = bytes - sent < sizeof(buf) ? (size_t)(bytes - sent) : sizeof(buf);
		size_t off = 0;

		for (size_t i = 0; i < len; i++)
			buf[i] = pattern(sent + i);
		hash = fnv1a(hash, buf, len);
		while (off < len) {
			ssize_t n = write(s, buf + off, len - off);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return fail("write");
			off += (size_t)n;
		}
		sent += len;
	}
	printf("vsockcheck: sent %llu bytes sum %08x\n", (unsigned long long)sent, hash);
	close(s);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: vsockcheck listen PORT BYTES\n"
			"       vsockcheck send CID PORT BYTES\n");
	return 2;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "listen"))
		return listen_and_read((unsigned int)strtoul(argv[2], NULL, 0),
				       strtoull(argv[3], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "send"))
		return connect_and_send((unsigned int)strtoul(argv[2], NULL, 0),
					(unsigned int)strtoul(argv[3], NULL, 0),
					strtoull(argv[4], NULL, 0));
	return usage();
}
