// SPDX-License-Identifier: MIT
/*
 * test_posted.c - unit tests for hv/vmx/posted.c: the descriptor's bytes
 * where SDM Vol. 3C §30.6 puts them, NDST in xAPIC and x2APIC format,
 * pi_process() as the model of the processor (PIR into VIRR, RVI the
 * highest), one notification per batch, SN suppressing notifications but not
 * requests, and four posting threads against a consumer that processes only
 * when notified, as a processor does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <pthread.h>
#include <sched.h>

#include <cmocka.h>

#include "vmx/posted.h"

#define NOTIFY_VECTOR	0xf2

static bool virr_has(const uint32_t virr[PI_VIRR_WORDS], unsigned int vector)
{
	return virr[vector / 32] & (1u << (vector % 32));
}

static struct pi_desc make_desc(void)
{
	struct pi_desc desc;

	assert_true(pi_desc_init(&desc, NOTIFY_VECTOR, 3, false));
	return desc;
}

/* The bytes of the descriptor, little-endian, as the processor reads them. */
static void test_layout(void **state)
{
	struct pi_desc desc;
	const uint8_t *byte = (const uint8_t *)&desc;

	(void)state;
	assert_int_equal((uintptr_t)&desc % 64, 0);
	memset(&desc, 0xa5, sizeof(desc));
	assert_true(pi_desc_init(&desc, NOTIFY_VECTOR, 0x12345678, true));
	for (unsigned int i = 0; i < 64; i++) {
		switch (i) {
		case 34: assert_int_equal(byte[i], NOTIFY_VECTOR); break;	/* NV: bits 279:272 */
		case 36: assert_int_equal(byte[i], 0x78); break;		/* NDST: bits 319:288 */
		case 37: assert_int_equal(byte[i], 0x56); break;
		case 38: assert_int_equal(byte[i], 0x34); break;
		case 39: assert_int_equal(byte[i], 0x12); break;
		default: assert_int_equal(byte[i], 0); break;
		}
	}

	assert_true(pi_post(&desc, 0x41));
	assert_int_equal(byte[0x41 / 8], 1u << (0x41 % 8));	/* PIR bit 65 */
	assert_int_equal(byte[32], 0x01);			/* ON: bit 256 */
	pi_suppress(&desc);
	assert_int_equal(byte[32], 0x03);			/* SN: bit 257 */
	assert_false(pi_post(&desc, 0xff));
	assert_int_equal(byte[31], 0x80);			/* PIR bit 255 */
	assert_int_equal(byte[33], 0);				/* bits 271:264 reserved */
	assert_int_equal(byte[35], 0);				/* bits 287:280 reserved */
	for (unsigned int i = 40; i < 64; i++)
		assert_int_equal(byte[i], 0);
}

static void test_ndst_format(void **state)
{
	struct pi_desc desc;

	(void)state;
	assert_true(pi_desc_init(&desc, NOTIFY_VECTOR, 0x2a, false));
	assert_int_equal(desc.control >> PI_CONTROL_NDST_SHIFT, 0x2a00);
	assert_int_equal(((const uint8_t *)&desc)[37], 0x2a);	/* NDST bits 15:8 */
	assert_true(pi_desc_init(&desc, NOTIFY_VECTOR, 0xff, false));
	assert_int_equal(desc.control >> PI_CONTROL_NDST_SHIFT, 0xff00);

	assert_true(pi_desc_init(&desc, NOTIFY_VECTOR, 0x2a, true));
	assert_int_equal(desc.control >> PI_CONTROL_NDST_SHIFT, 0x2a);
	assert_true(pi_desc_init(&desc, NOTIFY_VECTOR, 0xffffffff, true));
	assert_int_equal(desc.control >> PI_CONTROL_NDST_SHIFT, 0xffffffff);
	assert_int_equal((desc.control >> PI_CONTROL_NV_SHIFT) & 0xff, NOTIFY_VECTOR);

	/* An xAPIC ID has 8 bits: a larger one is refused and nothing changes. */
	assert_false(pi_desc_init(&desc, 0x40, 0x100, false));
	assert_int_equal(desc.control >> PI_CONTROL_NDST_SHIFT, 0xffffffff);
	assert_int_equal((desc.control >> PI_CONTROL_NV_SHIFT) & 0xff, NOTIFY_VECTOR);
}

/* Re-initializing forgets requests, ON and SN. */
static void test_init_clears(void **state)
{
	struct pi_desc desc = make_desc();

	(void)state;
	pi_post(&desc, 0x50);
	pi_suppress(&desc);
	assert_true(pi_desc_init(&desc, NOTIFY_VECTOR, 3, false));
	assert_false(pi_pending(&desc));
	assert_true(pi_post(&desc, 0x50));
}

static void test_post_then_process(void **state)
{
	static const uint8_t vectors[] = { 0x31, 0x80, 0xec, 0x20, 0x3f, 0x40 };
	struct pi_desc desc = make_desc();
	uint32_t virr[PI_VIRR_WORDS] = { 0 };
	uint8_t rvi = 0;
	uint64_t control = desc.control;

	(void)state;
	assert_false(pi_pending(&desc));
	for (unsigned int i = 0; i < sizeof(vectors); i++)
		pi_post(&desc, vectors[i]);
	assert_true(pi_pending(&desc));

	assert_true(pi_process(&desc, virr, &rvi));
	assert_int_equal(rvi, 0xec);
	for (unsigned int v = 0; v < PI_VECTORS; v++)
		assert_int_equal(virr_has(virr, v), memchr(vectors, v, sizeof(vectors)) != NULL);
	assert_false(pi_pending(&desc));
	assert_int_equal(desc.control, control);	/* ON clear, NV and NDST kept */

	/* Nothing posted: nothing moves, RVI stays. */
	assert_false(pi_process(&desc, virr, &rvi));
	assert_int_equal(rvi, 0xec);
}

/* VIRR is ORed into, and RVI never falls: the higher of old and new wins. */
static void test_process_merges(void **state)
{
	struct pi_desc desc = make_desc();
	uint32_t virr[PI_VIRR_WORDS] = { 0 };
	uint8_t rvi = 0xd1;

	(void)state;
	virr[0xd1 / 32] = 1u << (0xd1 % 32);
	pi_post(&desc, 0x61);
	assert_true(pi_process(&desc, virr, &rvi));
	assert_int_equal(rvi, 0xd1);
	assert_true(virr_has(virr, 0xd1));
	assert_true(virr_has(virr, 0x61));

	pi_post(&desc, 0xfe);
	assert_true(pi_process(&desc, virr, &rvi));
	assert_int_equal(rvi, 0xfe);
	assert_true(virr_has(virr, 0xfe));
	assert_true(virr_has(virr, 0xd1));
}

/* pi_collect() hands over PIR as it was, word by word, and empties it. */
static void test_collect(void **state)
{
	struct pi_desc desc = make_desc();
	uint64_t pir[PI_PIR_WORDS];

	(void)state;
	pi_post(&desc, 0x00);
	pi_post(&desc, 0x7f);
	pi_post(&desc, 0xc3);
	assert_true(pi_collect(&desc, pir));
	assert_int_equal(pir[0], 1);
	assert_int_equal(pir[1], 1ull << 63);
	assert_int_equal(pir[2], 0);
	assert_int_equal(pir[3], 1ull << 3);
	assert_false(pi_pending(&desc));
	assert_false(pi_collect(&desc, pir));
}

/* Only the post that sets ON notifies, until the requests are processed. */
static void test_one_notification_per_batch(void **state)
{
	struct pi_desc desc = make_desc();
	uint32_t virr[PI_VIRR_WORDS] = { 0 };
	uint8_t rvi = 0;

	(void)state;
	assert_true(pi_post(&desc, 0x30));
	assert_false(pi_post(&desc, 0x30));
	assert_false(pi_post(&desc, 0x31));
	assert_false(pi_post(&desc, 0xa0));
	assert_true(pi_process(&desc, virr, &rvi));
	assert_true(virr_has(virr, 0x30) && virr_has(virr, 0x31) && virr_has(virr, 0xa0));
	assert_true(pi_post(&desc, 0x30));
}

static void test_suppress(void **state)
{
	struct pi_desc desc = make_desc();
	uint32_t virr[PI_VIRR_WORDS] = { 0 };
	uint8_t rvi = 0;

	(void)state;
	pi_suppress(&desc);
	assert_false(pi_post(&desc, 0x45));
	assert_false(pi_post(&desc, 0x46));
	assert_false(desc.control & PI_CONTROL_ON);
	assert_true(pi_pending(&desc));

	/* What arrived while suppressed is reported, then taken. */
	assert_true(pi_unsuppress(&desc));
	assert_true(pi_process(&desc, virr, &rvi));
	assert_true(virr_has(virr, 0x45) && virr_has(virr, 0x46));
	assert_int_equal(rvi, 0x46);
	assert_false(pi_unsuppress(&desc));
	assert_true(pi_post(&desc, 0x47));

	/* SN set while a notification is outstanding: ON stays, SN survives processing. */
	pi_suppress(&desc);
	assert_false(pi_post(&desc, 0x48));
	assert_true(pi_process(&desc, virr, &rvi));
	assert_true(desc.control & PI_CONTROL_SN);
	assert_false(pi_post(&desc, 0x49));
	assert_true(pi_unsuppress(&desc));
	assert_true(pi_post(&desc, 0x4a));
}

/*
 * Four posters, each with 56 vectors of its own, against a consumer that
 * runs pi_process() only when a notification is outstanding. A poster posts
 * a vector again only after the consumer saw the previous post of it, so
 * every post must be seen exactly once; a request left in PIR with no
 * notification on its way would stop its poster, which gives up after a
 * deadline and the test fails.
 */
#define POSTERS			4
#define POSTS_PER_THREAD	10000
#define VECTORS_PER_POSTER	((PI_VECTORS - 32) / POSTERS)
#define DEADLINE_SECONDS	30

struct stress {
	struct pi_desc desc;
	bool doorbell;		/* the notification IPI: pending in the APIC or not */
	bool stop;
	uint32_t posted[PI_VECTORS];
	uint32_t seen[PI_VECTORS];
	uint32_t notifications;
	uint32_t stuck;
};

struct poster {
	struct stress *s;
	unsigned int first_vector;
};

static bool past_deadline(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - start->tv_sec > DEADLINE_SECONDS;
}

static void *stress_poster(void *arg)
{
	const struct poster *p = arg;
	struct stress *s = p->s;
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (unsigned int i = 0; i < POSTS_PER_THREAD; i++) {
		unsigned int vector = p->first_vector + (i * 7) % VECTORS_PER_POSTER;

		while (__atomic_load_n(&s->seen[vector], __ATOMIC_ACQUIRE) != s->posted[vector]) {
			if (past_deadline(&start)) {
				__atomic_fetch_add(&s->stuck, 1, __ATOMIC_RELAXED);
				return NULL;
			}
			sched_yield();
		}
		s->posted[vector]++;
		if (pi_post(&s->desc, (uint8_t)vector)) {
			__atomic_fetch_add(&s->notifications, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&s->doorbell, true, __ATOMIC_RELEASE);
		}
	}
	return NULL;
}

/* The vCPU's processor: on each notification, process; the guest takes all. */
static void stress_take(struct stress *s)
{
	uint32_t virr[PI_VIRR_WORDS] = { 0 };
	uint8_t rvi = 0;

	if (!__atomic_exchange_n(&s->doorbell, false, __ATOMIC_ACQUIRE))
		return;
	pi_process(&s->desc, virr, &rvi);
	for (unsigned int v = 0; v < PI_VECTORS; v++)
		if (virr_has(virr, v))
			__atomic_fetch_add(&s->seen[v], 1, __ATOMIC_RELEASE);
}

static void *stress_consumer(void *arg)
{
	struct stress *s = arg;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		stress_take(s);
		sched_yield();
	}
	stress_take(s);
	return NULL;
}

static void test_concurrent_posters(void **state)
{
	static struct stress s;
	struct poster posters[POSTERS];
	pthread_t poster_threads[POSTERS], consumer;
	uint64_t total = 0;

	(void)state;
	assert_true(pi_desc_init(&s.desc, NOTIFY_VECTOR, 1, true));
	assert_int_equal(pthread_create(&consumer, NULL, stress_consumer, &s), 0);
	for (unsigned int t = 0; t < POSTERS; t++) {
		posters[t] = (struct poster){ &s, 32 + t * VECTORS_PER_POSTER };
		assert_int_equal(pthread_create(&poster_threads[t], NULL, stress_poster,
						&posters[t]), 0);
	}
	for (unsigned int t = 0; t < POSTERS; t++)
		pthread_join(poster_threads[t], NULL);
	__atomic_store_n(&s.stop, true, __ATOMIC_RELEASE);
	pthread_join(consumer, NULL);

	assert_int_equal(s.stuck, 0);
	for (unsigned int v = 0; v < PI_VECTORS; v++) {
		assert_int_equal(s.seen[v], s.posted[v]);
		total += s.posted[v];
	}
	assert_int_equal(total, POSTERS * POSTS_PER_THREAD);
	assert_in_range(s.notifications, 1, total);
	assert_false(pi_pending(&s.desc));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_ndst_format),
		cmocka_unit_test(test_init_clears),
		cmocka_unit_test(test_post_then_process),
		cmocka_unit_test(test_process_merges),
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_one_notification_per_batch),
		cmocka_unit_test(test_suppress),
		cmocka_unit_test(test_concurrent_posters),
	};

	return cmocka_run_group_tests_name("posted interrupts", tests, NULL, NULL) ? 1 : 0;
}
