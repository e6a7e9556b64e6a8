/* SPDX-License-Identifier: MIT */
/*
 * floodgate - starts a flooder waiting behind its UDP gate (flood_gate.h):
 * sends the start word to HOST:PORT every 200 ms until it is answered, for
 * up to SECONDS (default 300), so the flooder may still be booting. With
 * -p it sends the probe word instead: it returns once the flooder waits,
 * and starts nothing.
 *
 *   floodgate [-p] HOST PORT [SECONDS]
 *
 * Prints "floodgate: HOST:PORT started|waiting after N tries" and exits 0,
 * else "floodgate: HOST:PORT never answered" and exits 1.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <poll.h>

#include "flood_gate.h"

#define TRY_MS		200

int main(int argc, char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	int probe = argc > 1 && !strcmp(argv[1], "-p");
	const char *word = probe ? FLOOD_GATE_PROBE : FLOOD_GATE_GO;
	const char *want = probe ? FLOOD_GATE_IDLE : FLOOD_GATE_ON;
	unsigned long seconds, tries;
	char answer[32];
	int fd;

	argv += probe;
	argc -= probe;
	if (argc < 3 || argc > 4 || inet_pton(AF_INET, argv[1], &to.sin_addr) != 1) {
		fprintf(stderr, "usage: floodgate [-p] HOST PORT [SECONDS]\n");
		return 2;
	}
	seconds = argc > 3 ? strtoul(argv[3], NULL, 0) : 300;
	to.sin_port = htons((uint16_t)strtoul(argv[2], NULL, 0));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0) {
		perror("floodgate: socket");
		return 1;
	}
	for (tries = 1; tries <= seconds * 1000 / TRY_MS; tries++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		/* Refused while the port is still closed: the next try comes all the same. */
		send(fd, word, strlen(word), 0);
		if (poll(&p, 1, TRY_MS) == 1) {
			if (flood_gate_is(answer, recv(fd, answer, sizeof(answer), 0), want)) {
				printf("floodgate: %s:%s %s after %lu tries\n", argv[1], argv[2],
				       probe ? "waiting" : "started", tries);
				return 0;
			}
			/* An ICMP refusal wakes the poll at once: wait out the try all the same. */
			usleep(TRY_MS * 1000);
		}
	}
	printf("floodgate: %s:%s never answered\n", argv[1], argv[2]);
	return 1;
}
