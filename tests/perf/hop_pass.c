/* SPDX-License-Identifier: MIT */
/*
 * hop_pass.c - one hop at a time, for counting its instructions
 * (docs/data-path.md, "Profile"): two guests' virtio-net devices on one
 * sidecore, the hypervisor's code at its -O2 (the archive tools/dpbench
 * links) and tools/dpbench's drivers, all on one thread. One frame is in
 * flight; each round is a pass that forwards it (hop_busy), a pass that
 * finds nothing but the sender's credit to refill, one that finds nothing
 * at all (hop_idle), and a turn of each driver, which takes the
 * frame and sends it back, so every busy pass is one hop of a
 * request/response transaction: a pop, the header's checks, the switch,
 * the copy into the peer's buffers, the flush. Under
 * `valgrind --tool=callgrind --toggle-collect=hop_busy` the instructions
 * counted over the rounds are the hop's.
 *
 * `hop_pass ROUNDS FRAMES`, FRAMES > 1: each guest keeps FRAMES / 2 in
 * flight, and every busy pass forwards a burst of them, as under load:
 * the instructions counted, divided by the frames it prints, are one
 * packet's share of a loaded pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sidecore/sidecore.h"
#include "tools/dpbench/driver.h"
#include "virtio/virtio_net.h"

#define GUESTS		2
#define FRAME		60	/* a 64-byte frame less its CRC */
#define HOLDOFF		2600000	/* 1 ms of a 2.6 GHz TSC: completions ride with replies */

struct hop_guest {
	struct virtio_net net;
	struct drv_guest drv;
};

static struct net_switch sw;
static struct sidecore sc;
static struct hop_guest guest[GUESTS];

static void die(const char *what)
{
	fprintf(stderr, "hop_pass: %s\n", what);
	exit(1);
}

static void hop_interrupt(struct virtio_dev *vdev, unsigned int source)
{
	struct hop_guest *g = vdev->ctx;

	drv_guest_interrupt(&g->drv, source == VIRTIO_NET_RX_QUEUE);
}

/* A guest's device brought up as Linux does (virtio 1.2 §3.1.1). */
static void hop_guest_setup(unsigned int n)
{
	struct hop_guest *g = &guest[n];
	uint8_t mac[GUESTS][ETH_ALEN] = { { 0x52, 0x54, 0, 0x12, 0x34, 1 },
					  { 0x52, 0x54, 0, 0x12, 0x34, 2 } };
	struct virtio_net_params net = { .sidecore = 0, .sw = &sw, .tx_holdoff = HOLDOFF };
	struct virtio_dev_params dp = { .name = n ? "beta" : "alpha", .mem = &g->drv.mem,
					.interrupt = hop_interrupt, .ctx = g, .type = &net };
	uint64_t size = drv_guest_ram_size();
	uint8_t *ram = aligned_alloc(4096, size);
	struct virtq_layout rx, tx;

	if (!ram)
		die("out of memory");
	memset(ram, 0, size);
	drv_guest_init(&g->drv, DRV_NET, ram, size, mac[n], mac[n ^ 1], FRAME);
	memcpy(net.mac, mac[n], ETH_ALEN);
	if (virtio_net_ops.init(&g->net.vdev, &dp) || !net_switch_add_port(&sw, &g->net.port))
		die("the device or its port was refused");
	rx = drv_guest_layout(&g->drv.rx);
	tx = drv_guest_layout(&g->drv.tx);
	if (!virtio_dev_set_features(&g->net.vdev, g->net.vdev.offered) ||
	    virtio_dev_enable_queue(&g->net.vdev, VIRTIO_NET_RX_QUEUE, &rx) ||
	    virtio_dev_enable_queue(&g->net.vdev, VIRTIO_NET_TX_QUEUE, &tx))
		die("features or a queue refused");
	drv_guest_fill_rx(&g->drv);
	virtio_dev_start(&g->net.vdev);
	if (!sidecore_attach(&sc, &g->net.vdev.port))
		die("the sidecore refused a port");
}

/* Kept out of line: callgrind counts what runs inside each. */
__attribute__((noipa)) static unsigned int hop_busy(void)
{
	bool live = false;

	return sidecore_poll(&sc, &live);
}

__attribute__((noipa)) static unsigned int hop_idle(void)
{
	bool live = false;

	return sidecore_poll(&sc, &live);
}

/* Rounds of one busy pass and a turn of each driver; returns the frames forwarded. */
static unsigned long hop_bursts(unsigned long rounds)
{
	unsigned long moved = 0;

	for (unsigned long r = 0; r < rounds; r++) {
		moved += hop_busy();
		for (unsigned int n = 0; n < GUESTS; n++)
			drv_guest_step(&guest[n].drv, true);
	}
	return moved;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 10000;
	unsigned long frames = argc > 2 ? strtoul(argv[2], NULL, 0) : 1;

	net_switch_init(&sw);
	sc.sw = &sw;
	sc.tx_holdoff = HOLDOFF;
	for (unsigned int n = 0; n < GUESTS; n++)
		hop_guest_setup(n);
	if (frames > 1) {
		for (unsigned int n = 0; n < GUESTS; n++)
			if (drv_guest_burst(&guest[n].drv, (unsigned int)(frames / 2)) != frames / 2)
				die("a burst was not sent whole");
		printf("hop_pass: %lu frames in %lu busy passes\n", hop_bursts(rounds), rounds);
		return 0;
	}
	if (drv_guest_burst(&guest[0].drv, 1) != 1)
		die("the first frame was not sent");
	for (unsigned long r = 0; r < rounds; r++) {
		bool live = false;

		if (hop_busy() != 1 || sidecore_poll(&sc, &live) != 0 || hop_idle() != 0)
			die("a pass did not forward exactly the one frame");
		for (unsigned int n = 0; n < GUESTS; n++)
			drv_guest_step(&guest[n].drv, true);
	}
	printf("hop_pass: %lu hops, %lu busy and %lu idle passes\n", rounds,
	       sw.sidecore[0].busy_polls, sw.sidecore[0].idle_polls);
	return 0;
}
