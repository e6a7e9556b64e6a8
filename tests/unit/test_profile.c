/* SPDX-License-Identifier: MIT */
/*
 * test_profile.c - unit tests for hv/lib/profile.c, the sidecores' sampled
 * RIP histogram: samples land in the bucket of their address, RIPs outside
 * the text are counted apart, the text is capped at PROFILE_MAX_BUCKETS, and
 * the printed pairs come in bucket order, each whole, across as many calls
 * as the buffer needs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/profile.h"

#define TEXT	0x200020ull

static struct profile *new_profile(uint64_t size)
{
	struct profile *p = malloc(sizeof(*p));

	assert_non_null(p);
	profile_init(p, TEXT, TEXT + size);
	return p;
}

static void test_buckets(void **state)
{
	struct profile *p = new_profile(100);

	(void)state;
	assert_int_equal(p->buckets, (100 + PROFILE_BUCKET - 1) / PROFILE_BUCKET);
	profile_sample(p, TEXT);
	profile_sample(p, TEXT + PROFILE_BUCKET - 1);
	profile_sample(p, TEXT + PROFILE_BUCKET);
	profile_sample(p, TEXT + 99);
	profile_sample(p, TEXT - 1);
	profile_sample(p, TEXT + (uint64_t)p->buckets * PROFILE_BUCKET);
	profile_sample(p, 0);
	profile_sample(p, UINT64_MAX);
	assert_int_equal(p->count[0], 2);
	assert_int_equal(p->count[1], 1);
	assert_int_equal(p->count[99 / PROFILE_BUCKET], 1);
	assert_int_equal(p->samples, 8);
	assert_int_equal(p->outside, 4);
	free(p);
}

static void test_text_capped(void **state)
{
	struct profile *p = new_profile(1ull << 40);

	(void)state;
	assert_int_equal(p->buckets, PROFILE_MAX_BUCKETS);
	profile_sample(p, TEXT + (uint64_t)PROFILE_MAX_BUCKETS * PROFILE_BUCKET);
	assert_int_equal(p->outside, 1);
	profile_init(p, TEXT, TEXT);
	assert_int_equal(p->buckets, 0);
	profile_sample(p, TEXT);
	assert_int_equal(p->outside, 1);
	free(p);
}

static void test_format(void **state)
{
	struct profile *p = new_profile(4096);
	char buf[64];
	unsigned int next;

	(void)state;
	next = profile_format(p, 0, buf, sizeof(buf));
	assert_int_equal(next, p->buckets);
	assert_string_equal(buf, "");
	for (int i = 0; i < 12; i++)
		profile_sample(p, TEXT + 0x40);
	profile_sample(p, TEXT + 0x7e0);
	profile_sample(p, TEXT + 0xfe0);
	next = profile_format(p, 0, buf, sizeof(buf));
	assert_int_equal(next, p->buckets);
	assert_string_equal(buf, " 200060:12 200800:1 201000:1");

	/* 21 bytes hold the first two pairs (10 and 9 characters), not the third. */
	next = profile_format(p, 0, buf, 21);
	assert_string_equal(buf, " 200060:12 200800:1");
	assert_int_equal(next, 0xfe0 / PROFILE_BUCKET);	/* the bucket that did not fit */
	next = profile_format(p, next, buf, 21);
	assert_string_equal(buf, " 201000:1");
	assert_int_equal(next, p->buckets);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_text_capped),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
