/* SPDX-License-Identifier: MIT */
/*
 * badring - a hostile virtio-net driver, run as root inside a guest.
 *
 * It takes the guest's virtio-net PCI function away from Linux's
 * virtio-pci driver, drives the modern virtio-pci transport itself through
 * the function's BAR (virtio 1.2 §4.1.4), and publishes malformed transmit
 * chains, one case per device reset. After each case it prints
 *
 *   badring: CASE -> status 0xSS used N
 *
 * the device status (0x40 is DEVICE_NEEDS_RESET, §2.1) and the used index
 * the device reached, then "badring: done". What the device makes of each
 * case is reported, not judged: the point is what the hypervisor survives.
 *
 * usage: badring [CASE...]   (default: every case; see cases[] below)
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define VIRTIO_USER_TOOL "badring"
#include "virtio_user.h"

#define VIRTIO_NET_PCI	0x1041		/* §4.1.2: 0x1040 + device ID 1 */
#define TX_QUEUE	1		/* §5.1.2: receiveq1 is 0, transmitq1 is 1 */
#define BUF_LEN		64u		/* virtio_net_hdr_v1 + a 52-byte frame */
/* Far above any guest's RAM (and any physical address width we run on). */
#define GPA_OUTSIDE_RAM	(1ull << 44)

/* The transmit queue and one buffer, a page, with its guest-physical address. */
struct rings {
	struct queue q;
	uint8_t *buf;
	uint64_t buf_gpa;
};

static void rings_alloc(struct rings *r)
{
	queue_alloc(&r->q);
	r->buf = pages_alloc(1);
	r->buf_gpa = gpa_of(r->buf);
}

/*
 * The driver's initialisation after a reset (§3.1.1) with VERSION_1 alone,
 * the transmit queue at desc_gpa, then DRIVER_OK. Returns the status reached.
 */
static uint8_t device_setup(const struct device *dev, struct rings *r, uint64_t desc_gpa)
{
	if (!device_negotiate(dev))
		return status_read(dev);
	queue_enable(dev, TX_QUEUE, &r->q, desc_gpa);
	return device_driver_ok(dev);
}

/* Makes entries [0, count) of the available ring visible up to index idx. */
static void avail_publish(struct rings *r, unsigned int count, uint16_t idx)
{
	for (unsigned int i = 0; i < count; i++)
		r->q.avail->ring[i] = (uint16_t)i;
	/* §2.6.13.2: the ring entries before the index that covers them. */
	__atomic_store_n(&r->q.avail->idx, idx, __ATOMIC_RELEASE);
}

static void case_zero_length(struct rings *r)
{
	desc_set(&r->q, 0, r->buf_gpa, 0, 0, 0);
	avail_publish(r, 1, 1);
}

static void case_writable_first(struct rings *r)
{
	desc_set(&r->q, 0, r->buf_gpa, BUF_LEN, VRING_DESC_F_WRITE, 0);
	avail_publish(r, 1, 1);
}

static void case_outside_ram(struct rings *r)
{
	desc_set(&r->q, 0, GPA_OUTSIDE_RAM, BUF_LEN, 0, 0);
	avail_publish(r, 1, 1);
}

static void case_next_loop(struct rings *r)
{
	desc_set(&r->q, 0, r->buf_gpa, BUF_LEN / 2, VRING_DESC_F_NEXT, 1);
	desc_set(&r->q, 1, r->buf_gpa + BUF_LEN / 2, BUF_LEN / 2, VRING_DESC_F_NEXT, 0);
	avail_publish(r, 1, 1);
}

static void case_avail_ahead(struct rings *r)
{
	desc_set(&r->q, 0, r->buf_gpa, BUF_LEN, 0, 0);
	/* §2.6.6: the driver is never more than the queue size ahead. */
	avail_publish(r, 1, (uint16_t)(QUEUE_SIZE_MAX * 128));
}

/* A case either publishes a chain, or (fill NULL) puts the rings outside RAM. */
struct ring_case {
	const char *name;
	void (*fill)(struct rings *r);
};

static const struct ring_case cases[] = {
	{ "zero-length", case_zero_length },
	{ "writable-first", case_writable_first },
	{ "outside-ram", case_outside_ram },
	{ "next-loop", case_next_loop },
	{ "avail-ahead", case_avail_ahead },
	{ "ring-outside-ram", NULL },
};

/*
 * The buffer holds a zero virtio_net_hdr_v1 (§5.1.6) and a frame to a
 * locally administered address no guest has, so nothing would reach
 * anyone should a device forward it.
 */
static void buffer_fill(uint8_t *buf)
{
	static const uint8_t frame[14] = { 0x02, 0, 0, 0, 0, 0xfe, 0x02, 0, 0, 0, 0, 0xfd,
					   0x88, 0xb5 };	/* IEEE 802 local experimental */

	memset(buf, 0, PAGE);
	memcpy(buf + 12, frame, sizeof(frame));
}

static void case_run(const struct device *dev, struct rings *r, const struct ring_case *rc)
{
	uint8_t status;
	uint16_t used = 0;

	/* The rings are rewritten only once the device has let go of them. */
	device_reset(dev);
	queue_clear(&r->q);
	buffer_fill(r->buf);
	status = device_setup(dev, r, rc->fill ? r->q.desc_gpa : GPA_OUTSIDE_RAM);
	if (rc->fill && (status & VIRTIO_CONFIG_S_DRIVER_OK)) {
		rc->fill(r);
		queue_notify(dev, TX_QUEUE);
		for (int i = 0; i < WAIT_STEPS; i++) {
			status = status_read(dev);
			used = __atomic_load_n(&r->q.used->idx, __ATOMIC_ACQUIRE);
			if (status & VIRTIO_CONFIG_S_NEEDS_RESET || used)
				break;
			usleep(WAIT_STEP_US);
		}
	}
	printf("badring: %s -> status 0x%02x used %u\n", rc->name, status, used);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct device dev;
	struct rings r;

	device_open(&dev, VIRTIO_NET_PCI);
	rings_alloc(&r);
	printf("badring: %s: rings at %#llx %#llx %#llx, buffer at %#llx\n", dev.slot,
	       (unsigned long long)r.q.desc_gpa, (unsigned long long)r.q.avail_gpa,
	       (unsigned long long)r.q.used_gpa, (unsigned long long)r.buf_gpa);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool wanted = argc < 2;

		for (int a = 1; a < argc; a++)
			wanted |= strcmp(argv[a], cases[i].name) == 0;
		if (wanted)
			case_run(&dev, &r, &cases[i]);
	}
	device_reset(&dev);
	puts("badring: done");
	return 0;
}
