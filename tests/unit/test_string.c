/* SPDX-License-Identifier: MIT */
/*
 * test_string.c - unit tests for hv/lib/string.c's memcpy, memmove and
 * memset: every size from 0 to 80 (each size class of the small path and
 * the step to REP) and a few large ones, at every alignment within a
 * qword, memmove over ranges that overlap either way, with guard bytes on
 * both sides that must stay untouched. The Makefile builds string.c under
 * hv_ names, so the host C library's functions are not what is tested.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

void *hv_memcpy(void *dst, const void *src, size_t n);
void *hv_memmove(void *dst, const void *src, size_t n);
void *hv_memset(void *dst, int c, size_t n);
int hv_memcmp(const void *a, const void *b, size_t n);

#define SMALL_MAX	80
#define ALIGNS		8	/* a qword: every offset the small path can see */
#define GUARD		64
#define LARGE_MAX	4097
#define BUF_SIZE	(GUARD + ALIGNS + LARGE_MAX + GUARD)

static const size_t large[] = { 127, 128, 129, 255, 1514, 4096, LARGE_MAX };

static uint8_t src_buf[BUF_SIZE], dst_buf[BUF_SIZE], ref_buf[BUF_SIZE];

/* Calls fn with every size 0..SMALL_MAX, then each large one. */
static void each_size(void (*fn)(size_t len))
{
	for (size_t len = 0; len <= SMALL_MAX; len++)
		fn(len);
	for (size_t i = 0; i < sizeof(large) / sizeof(large[0]); i++)
		fn(large[i]);
}

static void fill_pattern(uint8_t *buf, size_t seed)
{
	for (size_t i = 0; i < BUF_SIZE; i++)
		buf[i] = (uint8_t)(i * 7 + seed);
}

typedef void *(*copy_fn)(void *dst, const void *src, size_t n);

/* A copy between separate buffers at every alignment, returning dst. */
static void check_copy(const char *name, copy_fn copy, size_t len)
{
	for (unsigned int sa = 0; sa < ALIGNS; sa++) {
		for (unsigned int da = 0; da < ALIGNS; da++) {
			uint8_t *dst = dst_buf + GUARD + da;
			const uint8_t *src = src_buf + GUARD + sa;

			memset(dst_buf, 0xa5, sizeof(dst_buf));
			memset(ref_buf, 0xa5, sizeof(ref_buf));
			assert_ptr_equal(copy(dst, src, len), dst);
			for (size_t i = 0; i < len; i++)
				ref_buf[GUARD + da + i] = src[i];
			if (memcmp(dst_buf, ref_buf, sizeof(dst_buf)))
				fail_msg("%s: src align %u dst align %u len %zu", name, sa, da,
					 len);
		}
	}
}

static void check_copy_len(size_t len)
{
	check_copy("memcpy", hv_memcpy, len);
}

static void test_memcpy(void **state)
{
	(void)state;
	fill_pattern(src_buf, 3);
	each_size(check_copy_len);
}

static void check_fill_len(size_t len)
{
	static const int values[] = { 0, 0x5a, 0xff, 0x180 };

	for (unsigned int da = 0; da < ALIGNS; da++) {
		for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
			uint8_t *dst = dst_buf + GUARD + da;

			memset(dst_buf, 0xa5, sizeof(dst_buf));
			memset(ref_buf, 0xa5, sizeof(ref_buf));
			assert_ptr_equal(hv_memset(dst, values[v], len), dst);
			/* memset stores (unsigned char)c: 0x180 fills with 0x80. */
			for (size_t i = 0; i < len; i++)
				ref_buf[GUARD + da + i] = (uint8_t)values[v];
			if (memcmp(dst_buf, ref_buf, sizeof(dst_buf)))
				fail_msg("memset: dst align %u len %zu value %#x", da, len,
					 values[v]);
		}
	}
}

static void test_memset(void **state)
{
	(void)state;
	each_size(check_fill_len);
}

/*
 * memmove within one buffer, dst shift bytes after src (or before, for a
 * negative shift), against a copy through a separate buffer.
 */
static void check_move(size_t len, ptrdiff_t shift, unsigned int align)
{
	size_t from = GUARD + ALIGNS + align + (shift < 0 ? (size_t)-shift : 0);
	size_t to = (size_t)((ptrdiff_t)from + shift);
	uint8_t tmp[LARGE_MAX];

	fill_pattern(dst_buf, 11);
	fill_pattern(ref_buf, 11);
	memcpy(tmp, ref_buf + from, len);
	memcpy(ref_buf + to, tmp, len);
	assert_ptr_equal(hv_memmove(dst_buf + to, dst_buf + from, len), dst_buf + to);
	if (memcmp(dst_buf, ref_buf, sizeof(dst_buf)))
		fail_msg("memmove: len %zu shift %td align %u", len, shift, align);
}

static void check_move_len(size_t len)
{
	for (unsigned int align = 0; align < ALIGNS; align++) {
		for (ptrdiff_t shift = 1; shift <= 40; shift++) {
			check_move(len, shift, align);
			check_move(len, -shift, align);
		}
		check_move(len, 0, align);
	}
}

static void test_memmove_overlap(void **state)
{
	(void)state;
	each_size(check_move_len);
}

/* Ranges apart: memmove is a copy. */
static void check_move_apart_len(size_t len)
{
	check_copy("memmove apart", hv_memmove, len);
}

static void test_memmove_apart(void **state)
{
	(void)state;
	fill_pattern(src_buf, 5);
	each_size(check_move_apart_len);
}

static void test_memcmp(void **state)
{
	uint8_t a[SMALL_MAX], b[SMALL_MAX];

	(void)state;
	for (size_t len = 1; len <= SMALL_MAX; len++) {
		for (size_t i = 0; i < len; i++)
			a[i] = b[i] = (uint8_t)(i * 3);
		assert_int_equal(hv_memcmp(a, b, len), 0);
		b[len - 1] = (uint8_t)(a[len - 1] + 1);
		assert_true(hv_memcmp(a, b, len) < 0);
		assert_true(hv_memcmp(b, a, len) > 0);
	}
	assert_int_equal(hv_memcmp(a, b, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memcpy),
		cmocka_unit_test(test_memset),
		cmocka_unit_test(test_memmove_overlap),
		cmocka_unit_test(test_memmove_apart),
		cmocka_unit_test(test_memcmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
