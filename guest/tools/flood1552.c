/* SPDX-License-Identifier: MIT */
/*
 * flood1552 - floods the hypervisor's counters service (CID 2, port 1552,
 * docs/data-path.md "Services on CID 2") with connection REQUESTs, run as
 * root inside a guest.
 *
 * It takes the guest's virtio-vsock function away from Linux
 * (virtio_user.h), as badvsock does, and keeps its transmit queue full of
 * one packet: a REQUEST from the same port of ours to CID 2's port 1552.
 * A REQUEST on a port that already has a connection starts that
 * connection afresh, so every packet the device takes is one more
 * snapshot of the counters to format. The receive queue holds buffers
 * that are posted again as soon as the device fills them, so the answers
 * flow as well. No doorbell is rung after the first: the sidecore polls.
 *
 *   flood1552 [-g UDPPORT] SECONDS
 *
 * With -g it first waits for floodgate's datagram on UDPPORT
 * (flood_gate.h). It floods for SECONDS of guest time, then resets the
 * device and prints
 *
 *   flood1552: requests N answers A seconds S status 0xSS
 *
 * N the REQUESTs the device took, A the receive buffers it filled.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <linux/virtio_vsock.h>

#define VIRTIO_USER_TOOL "flood1552"
#include "virtio_user.h"
#include "flood_gate.h"

#define VIRTIO_VSOCK_PCI	0x1053	/* §4.1.2: 0x1040 + device ID 19 */
#define RX_QUEUE		0	/* §5.10.2: receiveq 0, transmitq 1, eventq 2 */
#define TX_QUEUE		1
#define HOST_CID		2	/* §5.10.4: the host's, here the hypervisor's */
#define COUNTERS_PORT		1552
#define OUR_PORT		41552
#define BUF_ALLOC		(64 * 1024)	/* the credit the REQUEST claims (§5.10.6.3) */
#define RX_BUFS			64u		/* a page each */
#define STATUS_EVERY		4096u		/* loops between looks at the status */

/* Gives back what the device used since *seen: each used id is posted again. */
static uint32_t recycle(struct queue *q, uint16_t *seen, uint16_t *avail)
{
	uint16_t used = __atomic_load_n(&q->used->idx, __ATOMIC_ACQUIRE);
	uint32_t n = 0;

	for (; *seen != used; (*seen)++, n++)
		q->avail->ring[(*avail)++ % q->size] = (uint16_t)q->used->ring[*seen % q->size].id;
	if (n)
		__atomic_store_n(&q->avail->idx, *avail, __ATOMIC_RELEASE);
	return n;
}

int main(int argc, char **argv)
{
	static struct device dev;
	static struct queue rx, tx;
	struct virtio_vsock_hdr hdr;
	uint16_t rx_seen = 0, tx_seen = 0, rx_avail, tx_avail;
	unsigned long requests = 0, answers = 0, loops = 0, gate = 0;
	double seconds, start, now;
	uint64_t cid, hdr_gpa;
	uint8_t *page, *rx_pages, status;
	int opt;

	while ((opt = getopt(argc, argv, "g:")) != -1) {
		if (opt != 'g') {
			fprintf(stderr, "usage: flood1552 [-g UDPPORT] SECONDS\n");
			return 2;
		}
		gate = strtoul(optarg, NULL, 0);
	}
	if (optind != argc - 1 || (seconds = strtod(argv[optind], NULL)) <= 0) {
		fprintf(stderr, "usage: flood1552 [-g UDPPORT] SECONDS\n");
		return 2;
	}

	device_open(&dev, VIRTIO_VSOCK_PCI);
	if (!dev.device_cfg) {
		errno = 0;
		die("no device configuration capability");
	}
	/* §5.10.4: guest_cid, a le64, read as two halves like any 64-bit field. */
	cid = mmio_read32(dev.device_cfg, 0) | (uint64_t)mmio_read32(dev.device_cfg, 4) << 32;
	queue_alloc(&rx);
	queue_alloc(&tx);
	page = pages_alloc(1);
	hdr_gpa = gpa_of(page);
	rx_pages = pages_alloc(RX_BUFS);
	hdr = (struct virtio_vsock_hdr){
		.src_cid = cid,
		.dst_cid = HOST_CID,
		.src_port = OUR_PORT,
		.dst_port = COUNTERS_PORT,
		.type = VIRTIO_VSOCK_TYPE_STREAM,
		.op = VIRTIO_VSOCK_OP_REQUEST,
		.buf_alloc = BUF_ALLOC,
	};
	memcpy(page, &hdr, sizeof(hdr));

	device_reset(&dev);
	if (!device_negotiate(&dev)) {
		errno = 0;
		die("the device refused VERSION_1");
	}
	queue_enable(&dev, RX_QUEUE, &rx, rx.desc_gpa);
	queue_enable(&dev, TX_QUEUE, &tx, tx.desc_gpa);
	/* The pages of a locked mapping need not be contiguous: each has its own address. */
	rx_avail = (uint16_t)(RX_BUFS < rx.size ? RX_BUFS : rx.size);
	for (uint16_t i = 0; i < rx_avail; i++) {
		desc_set(&rx, i, gpa_of(rx_pages + i * PAGE), PAGE, VRING_DESC_F_WRITE, 0);
		rx.avail->ring[i] = i;
	}
	tx_avail = tx.size;
	for (uint16_t i = 0; i < tx_avail; i++) {
		desc_set(&tx, i, hdr_gpa, sizeof(hdr), 0, 0);
		tx.avail->ring[i] = i;
	}
	status = device_driver_ok(&dev);
	printf("flood1552: cid %llu, queues of %u and %u, status 0x%02x\n",
	       (unsigned long long)cid, rx.size, tx.size, status);
	fflush(stdout);
	if (gate)
		flood_gate_wait("flood1552", (unsigned int)gate);

	start = flood_now();
	/* §2.6.13.2: the ring entries before the index that covers them. */
	__atomic_store_n(&rx.avail->idx, rx_avail, __ATOMIC_RELEASE);
	__atomic_store_n(&tx.avail->idx, tx_avail, __ATOMIC_RELEASE);
	queue_notify(&dev, RX_QUEUE);
	queue_notify(&dev, TX_QUEUE);
	do {
		requests += recycle(&tx, &tx_seen, &tx_avail);
		answers += recycle(&rx, &rx_seen, &rx_avail);
		if (++loops % STATUS_EVERY == 0 &&
		    status_read(&dev) & VIRTIO_CONFIG_S_NEEDS_RESET)
			break;
		now = flood_now();
	} while (now - start < seconds);
	status = status_read(&dev);
	device_reset(&dev);
	printf("flood1552: requests %lu answers %lu seconds %.2f status 0x%02x\n", requests,
	       answers, flood_now() - start, status);
	return status & VIRTIO_CONFIG_S_NEEDS_RESET ? 1 : 0;
}
