/* SPDX-License-Identifier: MIT */
/*
 * flood_gate.h - the start signal of the flooders (flood1552, gsoflood),
 * so that a neighbour measuring beside them decides when a flood begins.
 *
 * A flooder given a UDP port waits there for the start word from anyone,
 * answers it, and starts; the probe word gets an answer and changes
 * nothing, so a neighbour can tell the flooder is up and idle before it
 * measures the quiet figure. guest/tools/floodgate.c is the sender, which
 * repeats its datagram until the answer comes. The exchange is plain UDP
 * over the guests' virtio-net: it needs nothing a flooder takes away.
 */
#ifndef SIDECORE_GUEST_FLOOD_GATE_H
#define SIDECORE_GUEST_FLOOD_GATE_H

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FLOOD_GATE_GO		"flood-go"
#define FLOOD_GATE_ON		"flood-on"
#define FLOOD_GATE_PROBE	"flood-ready"
#define FLOOD_GATE_IDLE		"flood-idle"

/* Whether the n bytes at word are the text want. */
static inline int flood_gate_is(const char *word, ssize_t n, const char *want)
{
	return n == (ssize_t)strlen(want) && !memcmp(word, want, (size_t)n);
}

/* Waits for the start word on UDP port, answering probes meanwhile. */
static inline void flood_gate_wait(const char *tool, unsigned int port)
{
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct sockaddr_in peer;
	socklen_t peer_len;
	char word[32];
	ssize_t n;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
		fprintf(stderr, "%s: udp port %u: ", tool, port);
		perror("bind");
		exit(1);
	}
	printf("%s: waiting on udp port %u\n", tool, port);
	fflush(stdout);
	for (;;) {
		const char *answer;
		int go;

		peer_len = sizeof(peer);
		n = recvfrom(fd, word, sizeof(word), 0, (struct sockaddr *)&peer, &peer_len);
		go = flood_gate_is(word, n, FLOOD_GATE_GO);
		if (!go && !flood_gate_is(word, n, FLOOD_GATE_PROBE))
			continue;
		answer = go ? FLOOD_GATE_ON : FLOOD_GATE_IDLE;
		sendto(fd, answer, strlen(answer), 0, (struct sockaddr *)&peer, peer_len);
		if (go)
			break;
	}
	close(fd);
}

/* Seconds since an arbitrary start, on the guest's monotonic clock. */
static inline double flood_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

#endif
