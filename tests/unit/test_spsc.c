/* SPDX-License-Identifier: MIT */
/*
 * test_spsc.c - unit tests for hv/net/spsc_ring.c: packets copied in and
 * read back intact, frames that wrap from the last cell to the first, a full
 * ring refusing (and counting) what does not fit, FIFO order, and a producer
 * and a consumer thread hammering one ring.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include <cmocka.h>

#include "net/spsc_ring.h"

#define STRESS_PACKETS	100000

static int ring_setup(void **state)
{
	struct spsc_ring *ring = aligned_alloc(NET_CACHE_LINE, sizeof(*ring));

	if (!ring)
		return -1;
	memset(ring, 0x5a, sizeof(*ring));
	spsc_ring_init(ring);
	*state = ring;
	return 0;
}

static int ring_teardown(void **state)
{
	free(*state);
	return 0;
}

/* Frame byte i of packet seq: different for every packet and offset. */
static uint8_t pattern(uint32_t seq, uint32_t i)
{
	return (uint8_t)(seq * 131 + i * 7 + (i >> 8));
}

/* A packet of len bytes in pieces of at most piece bytes, filled with pattern(). */
static struct net_packet *make_packet(uint32_t seq, uint32_t len, uint32_t piece)
{
	struct net_packet *pkt = calloc(1, sizeof(*pkt));
	uint8_t *data = malloc(len ? len : 1);

	for (uint32_t i = 0; i < len; i++)
		data[i] = pattern(seq, i);
	pkt->hdr.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	pkt->hdr.gso_size = (uint16_t)seq;
	pkt->hdr.csum_start = 34;
	pkt->hdr.csum_offset = 16;
	pkt->len = len;
	for (uint32_t off = 0; off < len; off += piece) {
		uint32_t n = len - off < piece ? len - off : piece;

		pkt->segment[pkt->count++] = (struct net_segment){ data + off, n };
	}
	if (!pkt->count)
		pkt->segment[pkt->count++] = (struct net_segment){ data, 0 };
	net_packet_snapshot(pkt);
	return pkt;
}

static void free_packet(struct net_packet *pkt)
{
	free((void *)pkt->segment[0].data);
	free(pkt);
}

/* The packet must read back as make_packet(seq, len) built it. */
static bool packet_matches(const struct net_packet *pkt, uint32_t seq, uint32_t len)
{
	uint32_t offset = 0;

	if (pkt->len != len || pkt->hdr.gso_size != (uint16_t)seq ||
	    pkt->hdr.gso_type != VIRTIO_NET_HDR_GSO_TCPV4 || pkt->hdr.csum_start != 34)
		return false;
	for (uint32_t s = 0; s < pkt->count; s++) {
		for (uint32_t i = 0; i < pkt->segment[s].len; i++, offset++) {
			if (pkt->segment[s].data[i] != pattern(seq, offset))
				return false;
		}
	}
	return offset == len;
}

static void test_empty(void **state)
{
	struct spsc_ring *ring = *state;
	struct net_packet pkt;
	uint16_t port;

	assert_false(spsc_ring_peek(ring, &pkt, &port));
}

static void test_round_trip(void **state)
{
	struct spsc_ring *ring = *state;
	struct net_packet *in = make_packet(7, 1514, 100), out;
	uint16_t port;

	assert_true(spsc_ring_send(ring, 3, in));
	/* The ring holds a copy: the sender's buffers may be reused at once. */
	memset((void *)in->segment[0].data, 0, in->len);
	assert_true(spsc_ring_peek(ring, &out, &port));
	assert_int_equal(port, 3);
	assert_int_equal(out.count, 1);
	assert_true(packet_matches(&out, 7, 1514));
	/* Peeking again sees the same packet until it is released. */
	assert_true(spsc_ring_peek(ring, &out, &port));
	spsc_ring_release(ring);
	assert_false(spsc_ring_peek(ring, &out, &port));
	assert_int_equal(ring->sent, 1);
	assert_int_equal(ring->received, 1);
	free_packet(in);
}

static void test_fifo_order(void **state)
{
	struct spsc_ring *ring = *state;
	struct net_packet out;
	uint16_t port;

	for (uint32_t seq = 0; seq < 20; seq++) {
		struct net_packet *in = make_packet(seq, 60 + seq * 300, 512);

		assert_true(spsc_ring_send(ring, (uint16_t)seq, in));
		free_packet(in);
	}
	for (uint32_t seq = 0; seq < 20; seq++) {
		assert_true(spsc_ring_peek(ring, &out, &port));
		assert_int_equal(port, seq);
		assert_true(packet_matches(&out, seq, 60 + seq * 300));
		spsc_ring_release(ring);
	}
	assert_false(spsc_ring_peek(ring, &out, &port));
}

/* A 64 KiB frame placed near the end continues at the start of the cells. */
static void test_wraparound(void **state)
{
	struct spsc_ring *ring = *state;
	struct net_packet *small = make_packet(1, 1000, 1000), *big;
	struct net_packet out;
	uint16_t port;

	for (unsigned int i = 0; i < SPSC_RING_CELLS - 10; i++) {
		assert_true(spsc_ring_send(ring, 0, small));
		assert_true(spsc_ring_peek(ring, &out, &port));
		spsc_ring_release(ring);
	}
	big = make_packet(2, NET_FRAME_MAX, 4096);
	assert_true(spsc_ring_send(ring, 9, big));
	assert_true(spsc_ring_peek(ring, &out, &port));
	assert_int_equal(out.count, 2);
	assert_ptr_equal(out.segment[1].data, ring->cells);
	assert_true(packet_matches(&out, 2, NET_FRAME_MAX));
	spsc_ring_release(ring);
	assert_int_equal(ring->tail, SPSC_RING_CELLS - 10 + 33);
	free_packet(small);
	free_packet(big);
}

static void test_full_ring_drops(void **state)
{
	struct spsc_ring *ring = *state;
	struct net_packet *big = make_packet(3, NET_FRAME_MAX, 65536), out;
	unsigned int sent = 0;
	uint16_t port;

	while (spsc_ring_send(ring, 1, big))
		sent++;
	assert_int_equal(sent, SPSC_RING_CELLS / 33);
	assert_int_equal(ring->full_drops, 1);
	assert_false(spsc_ring_send(ring, 1, big));
	assert_int_equal(ring->full_drops, 2);

	/* A small one still fits in what is left. */
	free_packet(big);
	big = make_packet(4, 60, 60);
	assert_true(spsc_ring_send(ring, 1, big));

	assert_true(spsc_ring_peek(ring, &out, &port));
	assert_true(packet_matches(&out, 3, NET_FRAME_MAX));
	spsc_ring_release(ring);
	assert_int_equal(ring->sent, sent + 1);
	free_packet(big);
}

/* --- two threads ----------------------------------------------------------- */

/* Mostly small frames, now and then a 64 KiB one, as TCP traffic looks. */
static uint32_t stress_len(uint32_t seq)
{
	uint32_t r = seq * 2654435761u;

	if (r % 64 == 0)
		return NET_FRAME_MAX - r % 4096;
	return 14 + (r >> 8) % 1600;
}

struct stress {
	struct spsc_ring *ring;
	uint64_t retries;
	uint32_t bad;
};

static void *stress_producer(void *arg)
{
	struct stress *s = arg;

	for (uint32_t seq = 0; seq < STRESS_PACKETS; seq++) {
		struct net_packet *pkt = make_packet(seq, stress_len(seq), 1500);

		while (!spsc_ring_send(s->ring, (uint16_t)seq, pkt))
			s->retries++;
		free_packet(pkt);
	}
	return NULL;
}

static void *stress_consumer(void *arg)
{
	struct stress *s = arg;
	struct net_packet pkt;
	uint16_t port;

	for (uint32_t seq = 0; seq < STRESS_PACKETS; seq++) {
		while (!spsc_ring_peek(s->ring, &pkt, &port))
			;
		if (port != (uint16_t)seq || !packet_matches(&pkt, seq, stress_len(seq)))
			s->bad++;
		spsc_ring_release(s->ring);
	}
	return NULL;
}

static void test_two_threads(void **state)
{
	struct stress s = { .ring = *state };
	pthread_t producer, consumer;

	assert_int_equal(pthread_create(&consumer, NULL, stress_consumer, &s), 0);
	assert_int_equal(pthread_create(&producer, NULL, stress_producer, &s), 0);
	pthread_join(producer, NULL);
	pthread_join(consumer, NULL);
	assert_int_equal(s.bad, 0);
	assert_int_equal(s.ring->sent, STRESS_PACKETS);
	assert_int_equal(s.ring->received, STRESS_PACKETS);
	assert_int_equal(s.ring->full_drops, s.retries);
	assert_int_equal(s.ring->head, s.ring->tail);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, ring_setup, ring_teardown)
	const struct CMUnitTest tests[] = {
		T(test_empty),
		T(test_round_trip),
		T(test_fifo_order),
		T(test_wraparound),
		T(test_full_ring_drops),
		T(test_two_threads),
	};
#undef T

	return cmocka_run_group_tests_name("spsc ring", tests, NULL, NULL) ? 1 : 0;
}
