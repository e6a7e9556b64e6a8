/* SPDX-License-Identifier: MIT */
/*
 * ethflood - unicast frames to a MAC no guest has, and a watcher that
 * counts how many of them reach another guest, run as root in two guests.
 *
 *   ethflood send IFACE MAC COUNT     wait (up to 300 s) for a watcher's
 *                                     "ready", send COUNT frames to MAC,
 *                                     then "done"
 *   ethflood watch IFACE MAC SECONDS  say "ready" every 100 ms and count
 *                                     frames for MAC until "done" or
 *                                     SECONDS pass
 *
 * send prints "ethflood: sent N to MAC", watch "ethflood: saw N of M frames
 * for MAC (done|timeout)", M the count the sender announced in "done".
 * "ready" and "done" are broadcasts of the local experimental EtherType
 * 88B5 (IEEE 802), so they reach every guest the switch floods to; the
 * flood's own frames carry it too. The watcher listens in promiscuous mode:
 * what it sees of the flood is exactly what the hypervisor's switch gave
 * its virtio-net device. Exit status 0 when the exchange completed (send)
 * or "done" came (watch), else 1; judging N is the caller's.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define ETHERTYPE_EXPERIMENTAL	0x88b5
#define FRAME_LEN		64
#define MSG_READY		"ethflood-ready"
#define MSG_DONE		"ethflood-done"
#define MSG_FLOOD		"ethflood-frame"
#define SEND_WAIT_SECONDS	300
#define FLOOD_BURST		32
#define FLOOD_PAUSE_US		2000

struct link {
	int fd;
	int ifindex;
	uint8_t mac[ETH_ALEN];
};

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int parse_mac(const char *s, uint8_t mac[ETH_ALEN])
{
	unsigned int b[ETH_ALEN];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != ETH_ALEN)
		return -1;
	for (int i = 0; i < ETH_ALEN; i++) {
		if (b[i] > 0xff)
			return -1;
		mac[i] = b[i];
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void link_open(struct link *l, const char *iface, int promisc)
{
	struct sockaddr_ll addr = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct ifreq ifr = { 0 };

	l->fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (l->fd < 0)
		die("socket");
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	if (ioctl(l->fd, SIOCGIFINDEX, &ifr) < 0)
		die(iface);
	l->ifindex = ifr.ifr_ifindex;
	if (ioctl(l->fd, SIOCGIFHWADDR, &ifr) < 0)
		die("SIOCGIFHWADDR");
	memcpy(l->mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	addr.sll_ifindex = l->ifindex;
	if (bind(l->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		die("bind");
	if (promisc) {
		struct packet_mreq mr = { .mr_ifindex = l->ifindex, .mr_type = PACKET_MR_PROMISC };

		if (setsockopt(l->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0)
			die("PACKET_ADD_MEMBERSHIP");
	}
}

/* One frame of EtherType 88B5 to dst whose payload starts with msg and a count. */
static void link_send(const struct link *l, const uint8_t dst[ETH_ALEN], const char *msg,
		      unsigned long n)
{
	uint8_t frame[FRAME_LEN] = { 0 };
	struct ether_header *eh = (struct ether_header *)frame;
	struct sockaddr_ll addr = {
		.sll_family = AF_PACKET,
		.sll_ifindex = l->ifindex,
		.sll_halen = ETH_ALEN,
	};

	memcpy(eh->ether_dhost, dst, ETH_ALEN);
	memcpy(eh->ether_shost, l->mac, ETH_ALEN);
	eh->ether_type = htons(ETHERTYPE_EXPERIMENTAL);
	snprintf((char *)frame + sizeof(*eh), FRAME_LEN - sizeof(*eh), "%s %lu", msg, n);
	memcpy(addr.sll_addr, dst, ETH_ALEN);
	/* A full transmit ring refuses for a moment: retry rather than lose the count. */
	while (sendto(l->fd, frame, sizeof(frame), 0, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		usleep(1000);
}

/*
 * Receives one frame, waiting at most timeout_ms. Returns its length, 0 on
 * timeout; the frame is left in buf.
 */
static ssize_t link_recv(const struct link *l, uint8_t *buf, size_t len, int timeout_ms)
{
	struct pollfd p = { .fd = l->fd, .events = POLLIN };

	if (poll(&p, 1, timeout_ms) <= 0)
		return 0;
	return recv(l->fd, buf, len, 0);
}

/* The payload after an 88B5 header when it starts with msg, else NULL. */
static const char *frame_msg(const uint8_t *buf, ssize_t len, const char *msg)
{
	const struct ether_header *eh = (const struct ether_header *)buf;
	const char *payload = (const char *)buf + sizeof(*eh);
	size_t mlen = strlen(msg);

	if (len < (ssize_t)(sizeof(*eh) + mlen) || ntohs(eh->ether_type) != ETHERTYPE_EXPERIMENTAL)
		return NULL;
	if (memcmp(payload, msg, mlen))
		return NULL;
	return payload + mlen;
}

static const uint8_t broadcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static int flood_send(const struct link *l, const char *mac_text, const uint8_t mac[ETH_ALEN],
		      unsigned long count)
{
	uint8_t buf[2048];
	double deadline = now() + SEND_WAIT_SECONDS;
	int ready = 0;

	while (!ready && now() < deadline) {
		ssize_t len = link_recv(l, buf, sizeof(buf), 1000);

		ready = len > 0 && frame_msg(buf, len, MSG_READY);
	}
	if (!ready) {
		printf("ethflood: no watcher said ready in %d s\n", SEND_WAIT_SECONDS);
		return 1;
	}
	/*
	 * In bursts a transmit queue holds, so the qdisc drops none and the wire
	 * can be checked for every frame.
	 */
	for (unsigned long i = 0; i < count; i++) {
		link_send(l, mac, MSG_FLOOD, i);
		if (i % FLOOD_BURST == FLOOD_BURST - 1)
			usleep(FLOOD_PAUSE_US);
	}
	/* Three "done"s: a broadcast may meet a full receive ring. */
	for (int i = 0; i < 3; i++) {
		link_send(l, broadcast, MSG_DONE, count);
		usleep(100000);
	}
	printf("ethflood: sent %lu to %s\n", count, mac_text);
	return 0;
}

static int flood_watch(const struct link *l, const char *mac_text, const uint8_t mac[ETH_ALEN],
		       double seconds)
{
	uint8_t buf[2048];
	double deadline = now() + seconds, next_ready = 0;
	unsigned long seen = 0, announced = 0;
	int done = 0;

	while (!done && now() < deadline) {
		ssize_t len;

		if (now() >= next_ready) {
			link_send(l, broadcast, MSG_READY, 0);
			next_ready = now() + 0.1;
		}
		len = link_recv(l, buf, sizeof(buf), 100);
		if (len < (ssize_t)sizeof(struct ether_header))
			continue;
		if (!memcmp(buf, mac, ETH_ALEN)) {
			seen++;
		} else {
			const char *rest = frame_msg(buf, len, MSG_DONE);

			if (rest) {
				announced = strtoul(rest, NULL, 10);
				done = 1;
			}
		}
	}
	printf("ethflood: saw %lu of %lu frames for %s (%s)\n", seen, announced, mac_text,
	       done ? "done" : "timeout");
	return !done;
}

int main(int argc, char **argv)
{
	uint8_t mac[ETH_ALEN];
	struct link l;

	if (argc != 5 || parse_mac(argv[3], mac) ||
	    (strcmp(argv[1], "send") && strcmp(argv[1], "watch"))) {
		fprintf(stderr, "usage: ethflood send IFACE MAC COUNT | watch IFACE MAC SECONDS\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	link_open(&l, argv[2], !strcmp(argv[1], "watch"));
	if (!strcmp(argv[1], "send"))
		return flood_send(&l, argv[3], mac, strtoul(argv[4], NULL, 10));
	return flood_watch(&l, argv[3], mac, strtod(argv[4], NULL));
}
