/* SPDX-License-Identifier: MIT */
/*
 * profile.h - where a core's time goes: a periodic interrupt records the RIP
 * it interrupted, counted per PROFILE_BUCKET bytes of the hypervisor's text.
 * The counter snapshot prints the buckets that were hit; tools/bench_report.py
 * names each bucket's function from the ELF's symbols (docs/data-path.md,
 * "Profile"). Pure: the sidecores use it, the unit tests check it.
 */
#ifndef SIDECORE_LIB_PROFILE_H
#define SIDECORE_LIB_PROFILE_H

#include <stddef.h>
#include <stdint.h>

/* Functions start 16-byte aligned (GCC's -O2 x86-64 default): a bucket is one function's. */
#define PROFILE_BUCKET		16
#define PROFILE_MAX_BUCKETS	16384	/* 256 KiB of text */

struct profile {
	uint64_t base;		/* the first text address */
	uint32_t buckets;	/* buckets in use: the text's size over PROFILE_BUCKET */
	uint64_t samples;	/* every sample, outside ones included */
	uint64_t outside;	/* RIPs outside the text */
	uint32_t count[PROFILE_MAX_BUCKETS];
};

/**
 * profile_init() - an empty profile of a text range
 * @p: the profile, cleared here
 * @text_start: the first text address
 * @text_end: the address after the text
 *
 * Covers [text_start, text_end), or its first PROFILE_MAX_BUCKETS buckets.
 */
void profile_init(struct profile *p, uint64_t text_start, uint64_t text_end);

/**
 * profile_sample() - count one sample
 * @p: the profile
 * @rip: the interrupted instruction pointer
 *
 * Takes no lock: safe to call from an interrupt on the profiled core, the
 * only one that writes the profile. A RIP outside the text is counted in
 * p->outside.
 */
void profile_sample(struct profile *p, uint64_t rip);

/**
 * profile_format() - print hit buckets as " ADDRESS:COUNT" pairs (hex, decimal).
 * @p: the profile
 * @from: the first bucket to consider
 * @buf: where the text goes, NUL-terminated
 * @size: bytes at buf, at least 40; a pair that does not fit whole waits for
 *        the next call
 *
 * Return: the bucket to start the next call from; p->buckets when all are out.
 */
unsigned int profile_format(const struct profile *p, unsigned int from, char *buf, size_t size);

#endif
