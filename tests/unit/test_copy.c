/* SPDX-License-Identifier: MIT */
/*
 * test_copy.c - unit tests for hv/lib/copy.h: each copy and fill routine at
 * every source and destination alignment within a cache word and every
 * length from 8 (the least they take) to 4096, against a byte-loop reference, with guard bytes
 * on both sides that must stay untouched.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/copy.h"

#define MIN_LEN		8
#define MAX_LEN		4096
#define ALIGNS		8	/* a qword: every offset the word loop can see */
#define GUARD		32
#define BUF_SIZE	(GUARD + ALIGNS + MAX_LEN + GUARD)

typedef void (*copy_fn)(void *dst, const void *src, size_t n);
typedef void (*fill_fn)(void *dst, uint8_t c, size_t n);

static uint8_t src_buf[BUF_SIZE], dst_buf[BUF_SIZE], ref_buf[BUF_SIZE];

static void reference_copy(uint8_t *dst, const uint8_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = src[i];
}

static void check_copy(copy_fn copy)
{
	for (size_t i = 0; i < BUF_SIZE; i++)
		src_buf[i] = (uint8_t)(i * 7 + 3);
	for (unsigned int sa = 0; sa < ALIGNS; sa++) {
		for (unsigned int da = 0; da < ALIGNS; da++) {
			for (size_t len = MIN_LEN; len <= MAX_LEN; len++) {
				uint8_t *dst = dst_buf + GUARD + da;

				memset(dst_buf, 0xa5, sizeof(dst_buf));
				memset(ref_buf, 0xa5, sizeof(ref_buf));
				copy(dst, src_buf + GUARD + sa, len);
				reference_copy(ref_buf + GUARD + da, src_buf + GUARD + sa, len);
				if (memcmp(dst_buf, ref_buf, sizeof(dst_buf)))
					fail_msg("copy: src align %u dst align %u len %zu", sa, da,
						 len);
			}
		}
	}
}

static void check_fill(fill_fn fill)
{
	for (unsigned int da = 0; da < ALIGNS; da++) {
		for (size_t len = MIN_LEN; len <= MAX_LEN; len++) {
			uint8_t c = (uint8_t)(len * 13 + da);

			memset(dst_buf, 0xa5, sizeof(dst_buf));
			memset(ref_buf, 0xa5, sizeof(ref_buf));
			fill(dst_buf + GUARD + da, c, len);
			for (size_t i = 0; i < len; i++)
				ref_buf[GUARD + da + i] = c;
			if (memcmp(dst_buf, ref_buf, sizeof(dst_buf)))
				fail_msg("fill: dst align %u len %zu value %#x", da, len, c);
		}
	}
}

static void test_copy_qwords(void **state)
{
	(void)state;
	check_copy(copy_qwords);
}

static void test_fill_qwords(void **state)
{
	(void)state;
	check_fill(fill_qwords);
}

/*
 * memmove's forward case reuses the copy: an overlap with dst below src, at
 * every destination alignment, so the ends' moves meet the REP's bytes.
 */
static void test_copy_overlap_forward(void **state)
{
	static const size_t lens[] = { 65, 71, 200, 1000 };

	(void)state;
	for (size_t shift = 1; shift <= 16; shift++) {
		for (unsigned int da = 0; da < ALIGNS; da++) {
			for (unsigned int l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
				for (size_t i = 0; i < BUF_SIZE; i++)
					src_buf[i] = ref_buf[i] = (uint8_t)i;
				copy_qwords(src_buf + da, src_buf + da + shift, lens[l]);
				memmove(ref_buf + da, ref_buf + da + shift, lens[l]);
				assert_memory_equal(src_buf, ref_buf, BUF_SIZE);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_qwords),
		cmocka_unit_test(test_fill_qwords),
		cmocka_unit_test(test_copy_overlap_forward),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
