/* SPDX-License-Identifier: MIT */
/*
 * stat_parse.h - the hypervisor's "stat:" samples (docs/operator.md, "Live
 * counters") read back from its console, and the rates between two of them,
 * for `sidecore stat`.
 */
#ifndef SIDECORE_TOOL_STAT_PARSE_H
#define SIDECORE_TOOL_STAT_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config_limits.h"

/* A guest, its NIC and vsock device, a NIC queue and the sidecore each: a line a sample. */
#define STAT_ITEMS_MAX 64
_Static_assert(STAT_ITEMS_MAX >= 3 * LIMIT_GUESTS + 2 * LIMIT_SIDECORES,
	       "a sample has more lines than the reader keeps");
/* A console line is cut at 511 bytes: at most this many "key=N" pairs fit. */
#define STAT_VALUES_MAX 128
#define STAT_KIND_MAX 12
#define STAT_NAME_MAX 40
#define STAT_KEY_MAX 32

struct stat_value {
	char key[STAT_KEY_MAX];
	uint64_t value;
	bool reason;		/* an exit reason ("io_instruction=N"), not a field */
};

/* One line of a sample: a guest, a port (port, vsock, nic) or a sidecore. */
struct stat_item {
	char kind[STAT_KIND_MAX];
	char name[STAT_NAME_MAX];
	char state[STAT_KEY_MAX];	/* a guest's; "" for the others */
	uint64_t tsc;			/* when its counters were read */
	unsigned int count;
	struct stat_value value[STAT_VALUES_MAX];
};

struct stat_sample {
	unsigned int seq;
	uint64_t tsc;
	uint64_t hz;		/* TSC ticks per second */
	unsigned int count;
	struct stat_item item[STAT_ITEMS_MAX];
};

/* Feeds on console lines; keeps the last two whole samples. */
struct stat_reader {
	struct stat_sample open;	/* begun, its end line not seen yet */
	bool is_open;
	struct stat_sample last[2];	/* [1] the newest */
	unsigned int samples;		/* whole samples seen */
	unsigned int malformed;		/* "stat:" lines that could not be read */
};

/* Per-second rates of one item between two samples. */
struct stat_rate_item {
	char kind[STAT_KIND_MAX];
	char name[STAT_NAME_MAX];
	char state[STAT_KEY_MAX];
	double seconds;		/* between its two readings */
	unsigned int count;
	struct {
		char key[STAT_KEY_MAX];
		double value;	/* per second; "sidecore" and "cpu" as read */
		bool reason;
	} value[STAT_VALUES_MAX];
};

struct stat_rates {
	unsigned int seq;	/* the newer sample's */
	uint64_t hz;
	unsigned int count;
	struct stat_rate_item item[STAT_ITEMS_MAX];
};

/* A guest's traffic: the sum over its ports (NIC and vsock device), per second. */
struct stat_traffic {
	double rx_packets, rx_bytes, tx_packets, tx_bytes, drops;
};

/**
 * stat_reader_init() - an empty reader
 * @r: the reader
 */
void stat_reader_init(struct stat_reader *r);

/**
 * stat_reader_line() - take one console line
 * @r: the reader
 * @line: the line, with or without its CR and LF; any text at all
 *
 * Lines that do not begin "stat: " are ignored. A sample whose end line
 * never comes (lines the console dropped) is left out; a "stat:" line that
 * cannot be read is counted in @r->malformed and left out.
 *
 * Return: true when the line ended a whole sample.
 */
bool stat_reader_line(struct stat_reader *r, const char *line);

/**
 * stat_rates() - what changed per second from one sample to the next
 * @older: the earlier sample
 * @newer: the later one
 * @out: one entry per item of @newer that @older also has, read at an
 *       earlier TSC
 *
 * A counter that went back (a guest's restart starts its vCPUs' afresh)
 * gives 0, not a negative rate.
 *
 * Return: false when @newer has no TSC rate to turn ticks into seconds.
 */
bool stat_rates(const struct stat_sample *older, const struct stat_sample *newer,
		struct stat_rates *out);

/**
 * stat_rate_value() - one field of a rate item
 * @item: the item
 * @key: the field's name
 *
 * Return: its rate, 0 when the item has no such field.
 */
double stat_rate_value(const struct stat_rate_item *item, const char *key);

/**
 * stat_guest_traffic() - a guest's packets, bytes and drops per second
 * @rates: the rates
 * @guest: the guest's name
 * @out: the sum over every port and vsock item named after the guest
 */
void stat_guest_traffic(const struct stat_rates *rates, const char *guest,
			struct stat_traffic *out);

#endif
