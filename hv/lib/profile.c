/* SPDX-License-Identifier: MIT */
/* profile.c - a sampled RIP histogram (profile.h). */
#include <string.h>

#include "lib/profile.h"

void profile_init(struct profile *p, uint64_t text_start, uint64_t text_end)
{
	uint64_t buckets = text_end > text_start ?
			   (text_end - text_start + PROFILE_BUCKET - 1) / PROFILE_BUCKET : 0;

	memset(p, 0, sizeof(*p));
	p->base = text_start;
	p->buckets = buckets < PROFILE_MAX_BUCKETS ? (uint32_t)buckets : PROFILE_MAX_BUCKETS;
}

void profile_sample(struct profile *p, uint64_t rip)
{
	uint64_t bucket = (rip - p->base) / PROFILE_BUCKET;

	p->samples++;
	if (rip < p->base || bucket >= p->buckets)
		p->outside++;
	else
		p->count[bucket]++;
}

/* Writes value in base (10 or 16) at out; returns the digits written. */
static size_t format_number(char *out, uint64_t value, unsigned int base)
{
	char digits[20];
	size_t n = 0;

	do {
		digits[n++] = "0123456789abcdef"[value % base];
		value /= base;
	} while (value);
	for (size_t i = 0; i < n; i++)
		out[i] = digits[n - 1 - i];
	return n;
}

unsigned int profile_format(const struct profile *p, unsigned int from, char *buf, size_t size)
{
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (; from < p->buckets; from++) {
		uint32_t count = __atomic_load_n(&p->count[from], __ATOMIC_RELAXED);
		char pair[40];
		size_t n = 0;

		if (!count)
			continue;
		pair[n++] = ' ';
		n += format_number(pair + n, p->base + (uint64_t)from * PROFILE_BUCKET, 16);
		pair[n++] = ':';
		n += format_number(pair + n, count, 10);
		if (len + n >= size)
			return from;
		memcpy(buf + len, pair, n);
		len += n;
		buf[len] = '\0';
	}
	return from;
}
