/* SPDX-License-Identifier: MIT */
/*
 * gsoflood - floods every other guest on the switch with 64 KiB TCP GSO
 * frames to the broadcast MAC, run as root inside a guest.
 *
 * It sends through an AF_PACKET socket with PACKET_VNET_HDR: each send is
 * one packet of 65549 bytes with a virtio_net_hdr asking for TCPV4
 * segmentation (virtio 1.2 §5.1.6.2), which Linux hands to the virtio-net
 * device whole when it offloads the segmentation there, and segments
 * itself otherwise (the port's tx_packets and tx_bytes counters tell
 * which). The switch copies what arrives to every other port
 * (docs/data-path.md). The frame is legal: the sender's own MAC and IPv4
 * address, a TCP segment to the subnet's broadcast address that no socket
 * takes.
 *
 *   gsoflood [-g UDPPORT] IFACE SECONDS
 *
 * With -g it first waits for floodgate's datagram on UDPPORT
 * (flood_gate.h). It floods for SECONDS of guest time and prints
 *
 *   gsoflood: frames N bytes B seconds S
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include "flood_gate.h"

/* Under the device's gso_max_size (65536): Linux segments a longer skb itself. */
#define FRAME_LEN	65535u
#define IP_LEN		(FRAME_LEN - ETH_HLEN)
#define HDRS_LEN	(ETH_HLEN + 20 + 20)		/* Ethernet, IPv4, TCP */
#define MSS		1448u
#define FLOOD_PORT	9				/* discard: nobody listens */

static void die(const char *what)
{
	fprintf(stderr, "gsoflood: ");
	perror(what);
	exit(1);
}

static uint16_t ip_checksum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

/*
 * The TCP checksum field holds the pseudo-header's sum, folded but not
 * inverted, as a driver finishing a NEEDS_CSUM packet expects (§5.1.6.2).
 */
static uint16_t pseudo_sum(uint32_t src, uint32_t dst, uint16_t tcp_len)
{
	uint32_t sum = (ntohl(src) >> 16) + (ntohl(src) & 0xffff) + (ntohl(dst) >> 16) +
		       (ntohl(dst) & 0xffff) + IPPROTO_TCP + tcp_len;

	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)sum);
}

int main(int argc, char **argv)
{
	static uint8_t frame[sizeof(struct virtio_net_hdr) + FRAME_LEN];
	struct virtio_net_hdr *vnet = (struct virtio_net_hdr *)frame;
	struct ether_header *eth = (struct ether_header *)(vnet + 1);
	struct iphdr *ip = (struct iphdr *)(eth + 1);
	struct tcphdr *tcp = (struct tcphdr *)(ip + 1);
	unsigned long frames = 0, gate = 0;
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = ETH_ALEN };
	struct ifreq ifr = { 0 };
	double seconds, start;
	uint32_t addr, mask;
	int fd, on = 1, opt;

	while ((opt = getopt(argc, argv, "g:")) != -1) {
		if (opt != 'g') {
			fprintf(stderr, "usage: gsoflood [-g UDPPORT] IFACE SECONDS\n");
			return 2;
		}
		gate = strtoul(optarg, NULL, 0);
	}
	if (optind != argc - 2 || (seconds = strtod(argv[optind + 1], NULL)) <= 0 ||
	    strlen(argv[optind]) >= IFNAMSIZ) {
		fprintf(stderr, "usage: gsoflood [-g UDPPORT] IFACE SECONDS\n");
		return 2;
	}
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0)
		die("socket");
	if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &on, sizeof(on)) < 0)
		die("PACKET_VNET_HDR");
	strcpy(ifr.ifr_name, argv[optind]);
	if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0)
		die("SIOCGIFINDEX");
	to.sll_ifindex = ifr.ifr_ifindex;
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		die("SIOCGIFHWADDR");
	memcpy(eth->ether_shost, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	ifr.ifr_addr.sa_family = AF_INET;
	if (ioctl(fd, SIOCGIFADDR, &ifr) < 0)
		die("SIOCGIFADDR (no IPv4 address?)");
	addr = ((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr.s_addr;
	if (ioctl(fd, SIOCGIFNETMASK, &ifr) < 0)
		die("SIOCGIFNETMASK");
	mask = ((struct sockaddr_in *)&ifr.ifr_netmask)->sin_addr.s_addr;

	memset(eth->ether_dhost, 0xff, ETH_ALEN);
	memcpy(to.sll_addr, eth->ether_dhost, ETH_ALEN);
	eth->ether_type = htons(ETHERTYPE_IP);
	*ip = (struct iphdr){
		.version = 4, .ihl = 5, .tot_len = htons(IP_LEN), .ttl = 64,
		.protocol = IPPROTO_TCP, .saddr = addr, .daddr = addr | ~mask,
	};
	ip->check = ip_checksum(ip, sizeof(*ip));
	*tcp = (struct tcphdr){
		.source = htons(FLOOD_PORT), .dest = htons(FLOOD_PORT), .seq = htonl(1),
		.doff = 5, .ack = 1, .psh = 1, .window = htons(65535),
	};
	tcp->check = pseudo_sum(ip->saddr, ip->daddr, (uint16_t)(IP_LEN - sizeof(*ip)));
	for (size_t i = HDRS_LEN; i < FRAME_LEN; i++)
		((uint8_t *)eth)[i] = (uint8_t)i;
	*vnet = (struct virtio_net_hdr){
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
		.hdr_len = HDRS_LEN,
		.gso_size = MSS,
		.csum_start = ETH_HLEN + sizeof(*ip),
		.csum_offset = offsetof(struct tcphdr, check),
	};

	if (gate)
		flood_gate_wait("gsoflood", (unsigned int)gate);
	start = flood_now();
	while (flood_now() - start < seconds) {
		if (sendto(fd, frame, sizeof(frame), 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
			/* A full queue is the flood doing its work: try again. */
			if (errno == ENOBUFS || errno == EAGAIN)
				continue;
			die("sendto");
		}
		frames++;
	}
	printf("gsoflood: frames %lu bytes %llu seconds %.2f\n", frames,
	       (unsigned long long)frames * FRAME_LEN, flood_now() - start);
	return 0;
}
