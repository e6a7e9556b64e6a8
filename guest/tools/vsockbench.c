/* SPDX-License-Identifier: MIT */
/**
 * DOC: vsockbench - throughput and request/response over AF_VSOCK
 *
 * A benchmark of virtio-vsock SOCK_STREAM connections, with a server whose
 * two services are those of CID 2 (the host: the hypervisor's own), so the
 * same client measures a path to another guest and the path to CID 2.
 *
 *   vsockbench serve
 *	listens on port 7 (echo: every byte read on a connection is written
 *	back on it) and port 9 (discard: bytes are read and dropped), for
 *	any number of connections, each served by a child process until the
 *	client closes it. Prints "vsockbench: serving echo on port 7, discard
 *	on port 9" once both listen, and runs until killed.
 *
 *   vsockbench stream CID SIZE SECONDS
 *	connects to CID:9 and writes SIZE-byte messages for SECONDS, then
 *	shuts its side down and waits for the peer to close (up to 10 s), so
 *	the time covers every byte's arrival, not only the writes. Prints
 *
 *	vsockbench: stream cid C size S bytes N seconds T mbit/s M
 *
 *	M in 10^6 bits a second, as netperf's streams.
 *
 *   vsockbench rr CID SIZE SECONDS
 *	connects to CID:7, then for SECONDS writes SIZE bytes and reads SIZE
 *	bytes back, one transaction at a time. Prints
 *
 *	vsockbench: rr cid C size S transactions N seconds T trans/s R latency_us L
 *
 *	L the mean time of a transaction in microseconds.
 *
 * The clients retry connecting for up to 30 s while no one listens on the
 * peer yet, and time with CLOCK_MONOTONIC from the first byte to the
 * last. T has microsecond resolution. Errors are printed as "vsockbench:
 * WHAT: REASON". Exit status: 0 on success, 1 on a failure, 2 on a usage
 * error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/vm_sockets.h>

#include "vsock_connect.h"

#define PORT_ECHO	7
#define PORT_DISCARD	9
#define SERVE_CHUNK	(64 * 1024)	/* one read of the server */
#define MAX_SIZE	(16u << 20)	/* largest message a client takes */
#define DRAIN_MS	10000		/* wait for the peer's close */

static int fail(const char *what)
{
	printf("vsockbench: %s: %s\n", what, strerror(errno));
	return 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Writes all len bytes; false on an error (errno set). */
static int write_all(int s, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = send(s, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 0;
		buf += n;
		len -= (size_t)n;
	}
	return 1;
}

/* Reads exactly len bytes; false on an error or an early end (errno EPIPE). */
static int read_all(int s, uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = read(s, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 0;
		if (n == 0) {
			errno = EPIPE;
			return 0;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 1;
}

/* One connection of the server, in its own process: echo or discard. */
static void serve_connection(int c, int echo)
{
	static uint8_t buf[SERVE_CHUNK];

	for (;;) {
		ssize_t n = read(c, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (echo && !write_all(c, buf, (size_t)n))
			break;
	}
	close(c);
}

static int listen_on(unsigned int port)
{
	struct sockaddr_vm addr = { .svm_family = AF_VSOCK, .svm_cid = VMADDR_CID_ANY,
				    .svm_port = port };
	int s = socket(AF_VSOCK, SOCK_STREAM, 0);

	if (s < 0)
		return -1;
	if (bind(s, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(s, 16) < 0) {
		close(s);
		return -1;
	}
	return s;
}

static int serve(void)
{
	struct pollfd fds[2];

	/* Children are reaped by the kernel; a reset peer is an error, not a signal. */
	signal(SIGCHLD, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	fds[0].fd = listen_on(PORT_ECHO);
	if (fds[0].fd < 0)
		return fail("listen on port 7");
	fds[1].fd = listen_on(PORT_DISCARD);
	if (fds[1].fd < 0)
		return fail("listen on port 9");
	fds[0].events = fds[1].events = POLLIN;
	printf("vsockbench: serving echo on port %u, discard on port %u\n", PORT_ECHO,
	       PORT_DISCARD);
	for (;;) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return fail("poll");
		}
		for (int i = 0; i < 2; i++) {
			pid_t pid;
			int c;

			if (!(fds[i].revents & POLLIN))
				continue;
			c = accept(fds[i].fd, NULL, NULL);
			if (c < 0) {
				/* A connection reset before it was taken: serve the next. */
				if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN)
					fail("accept");
				continue;
			}
			pid = fork();
			if (pid == 0) {
				close(fds[0].fd);
				close(fds[1].fd);
				serve_connection(c, i == 0);
				_exit(0);
			}
			if (pid < 0)
				fail("fork");
			close(c);
		}
	}
}

/* After the last write: shut down our side and wait for the peer's close. */
static int drain(int s)
{
	struct pollfd pfd = { .fd = s, .events = POLLIN };
	double deadline = now() + DRAIN_MS / 1000.0;
	uint8_t buf[256];

	if (shutdown(s, SHUT_WR) < 0)
		return 0;
	for (;;) {
		double left = deadline - now();
		ssize_t n;
		int r;

		if (left <= 0)
			return 0;
		r = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		n = read(s, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		/* End of stream or a reset: the peer has let go of the connection. */
		if (n <= 0)
			return 1;
	}
}

static int stream(unsigned int cid, size_t size, double seconds)
{
	uint8_t *buf = malloc(size);
	uint64_t bytes = 0;
	double start, end, last;
	int s;

	if (!buf)
		return fail("malloc");
	for (size_t i = 0; i < size; i++)
		buf[i] = (uint8_t)(i * 131 + 1);
	s = vsock_connect(cid, PORT_DISCARD);
	if (s < 0)
		return fail("connect");
	start = now();
	end = start + seconds;
	do {
		if (!write_all(s, buf, size))
			return fail("write");
		bytes += size;
		last = now();
	} while (last < end);
	if (drain(s))
		last = now();
	else
		printf("vsockbench: peer did not close within %d ms; timed to the last write\n",
		       DRAIN_MS);
	close(s);
	printf("vsockbench: stream cid %u size %zu bytes %llu seconds %.6f mbit/s %.2f\n", cid,
	       size, (unsigned long long)bytes, last - start,
	       (double)bytes * 8 / 1e6 / (last - start));
	free(buf);
	return 0;
}

static int rr(unsigned int cid, size_t size, double seconds)
{
	uint8_t *req = malloc(size), *resp = malloc(size);
	uint64_t transactions = 0;
	double start, end, last;
	int s;

	if (!req || !resp)
		return fail("malloc");
	for (size_t i = 0; i < size; i++)
		req[i] = (uint8_t)(i * 7 + 3);
	s = vsock_connect(cid, PORT_ECHO);
	if (s < 0)
		return fail("connect");
	start = now();
	end = start + seconds;
	do {
		if (!write_all(s, req, size))
			return fail("write");
		if (!read_all(s, resp, size))
			return fail("read");
		transactions++;
		last = now();
	} while (last < end);
	close(s);
	if (memcmp(req, resp, size)) {
		printf("vsockbench: the echo differs from the request\n");
		return 1;
	}
	printf("vsockbench: rr cid %u size %zu transactions %llu seconds %.6f trans/s %.2f "
	       "latency_us %.2f\n", cid, size, (unsigned long long)transactions, last - start,
	       (double)transactions / (last - start), (last - start) * 1e6 / (double)transactions);
	free(req);
	free(resp);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: vsockbench serve\n"
			"       vsockbench stream CID SIZE SECONDS\n"
			"       vsockbench rr CID SIZE SECONDS\n");
	return 2;
}

/* Parses a positive number no larger than max into *out; false otherwise. */
static int number(const char *text, unsigned long long max, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(text, &end, 0);
	return !errno && end != text && !*end && *out > 0 && *out <= max;
}

int main(int argc, char **argv)
{
	unsigned long long cid, size, seconds;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "serve"))
		return serve();
	if (argc != 5 || (strcmp(argv[1], "stream") && strcmp(argv[1], "rr")))
		return usage();
	if (!number(argv[2], 0xfffffffeull, &cid) || !number(argv[3], MAX_SIZE, &size) ||
	    !number(argv[4], 86400, &seconds))
		return usage();
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(argv[1], "stream"))
		return stream((unsigned int)cid, (size_t)size, (double)seconds);
	return rr((unsigned int)cid, (size_t)size, (double)seconds);
}
