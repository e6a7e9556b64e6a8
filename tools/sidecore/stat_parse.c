/* SPDX-License-Identifier: MIT */
/*
 * stat_parse.c - "stat:" samples read back from the console, and their
 * rates (docs/operator.md, "Live counters"). The console is a serial line:
 * lines may be cut, dropped or mixed with anything, so every field is
 * checked and a sample counts only once its end line is seen.
 */
#include <string.h>

#include "tools/sidecore/stat_parse.h"

#define STAT_PREFIX "stat: "
#define STAT_WORDS_MAX (2 * STAT_VALUES_MAX + 4)

/* Fields that name a place rather than count: their value is kept as read. */
static bool stat_is_label(const char *key)
{
	return !strcmp(key, "sidecore") || !strcmp(key, "cpu");
}

/* A whole decimal number, no sign, no overflow. */
static bool stat_number(const char *text, uint64_t *value)
{
	uint64_t v = 0;

	if (!*text)
		return false;
	for (; *text; text++) {
		if (*text < '0' || *text > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*text - '0');
	}
	*value = v;
	return true;
}

static bool stat_copy(char *dst, unsigned int size, const char *src)
{
	if (!*src || strlen(src) >= size)
		return false;
	memcpy(dst, src, strlen(src) + 1);
	return true;
}

/* Cuts text at spaces; the number of words, 0 when there are too many. */
static unsigned int stat_split(char *text, char **word)
{
	unsigned int n = 0;

	for (char *t = strtok(text, " "); t; t = strtok(NULL, " ")) {
		if (n == STAT_WORDS_MAX)
			return 0;
		word[n++] = t;
	}
	return n;
}

/* word[0] KIND, word[1] NAME, then "key value" and "reason=value" pairs. */
static bool stat_parse_item(struct stat_item *item, char **word, unsigned int n)
{
	bool have_tsc = false;

	memset(item, 0, sizeof(*item));
	if (n < 2 || !stat_copy(item->kind, sizeof(item->kind), word[0]) ||
	    !stat_copy(item->name, sizeof(item->name), word[1]))
		return false;
	for (unsigned int i = 2; i < n; i++) {
		char *eq = strchr(word[i], '=');
		struct stat_value *v = &item->value[item->count];

		if (item->count == STAT_VALUES_MAX)
			return false;
		if (eq) {
			*eq = '\0';
			if (!stat_copy(v->key, sizeof(v->key), word[i]) || !stat_number(eq + 1, &v->value))
				return false;
			v->reason = true;
		} else if (i + 1 == n) {
			return false;
		} else if (!strcmp(word[i], "state")) {
			if (!stat_copy(item->state, sizeof(item->state), word[++i]))
				return false;
			continue;
		} else if (!strcmp(word[i], "tsc")) {
			if (!stat_number(word[++i], &item->tsc))
				return false;
			have_tsc = true;
			continue;
		} else {
			if (!stat_copy(v->key, sizeof(v->key), word[i]) ||
			    !stat_number(word[++i], &v->value))
				return false;
		}
		item->count++;
	}
	return have_tsc;
}

/* "stat: sample SEQ tsc T hz H" */
static bool stat_begin(struct stat_reader *r, char **word, unsigned int n)
{
	uint64_t seq;

	if (n != 6 || strcmp(word[2], "tsc") || strcmp(word[4], "hz") ||
	    !stat_number(word[1], &seq) || seq > UINT32_MAX)
		return false;
	memset(&r->open, 0, sizeof(r->open));
	r->open.seq = (unsigned int)seq;
	if (!stat_number(word[3], &r->open.tsc) || !stat_number(word[5], &r->open.hz))
		return false;
	r->is_open = true;
	return true;
}

/* "stat: end SEQ" of the open sample: it is whole. */
static bool stat_end(struct stat_reader *r, char **word, unsigned int n)
{
	uint64_t seq;

	if (n != 2 || !stat_number(word[1], &seq) || !r->is_open || seq != r->open.seq)
		return false;
	r->last[0] = r->last[1];
	r->last[1] = r->open;
	r->is_open = false;
	r->samples++;
	return true;
}

/* An item of the open sample; a second line for the same item replaces the first. */
static bool stat_add(struct stat_reader *r, char **word, unsigned int n)
{
	struct stat_sample *s = &r->open;
	struct stat_item item;
	unsigned int i;

	if (!r->is_open || !stat_parse_item(&item, word, n))
		return false;
	for (i = 0; i < s->count; i++)
		if (!strcmp(s->item[i].kind, item.kind) && !strcmp(s->item[i].name, item.name))
			break;
	if (i == STAT_ITEMS_MAX)
		return false;
	s->item[i] = item;
	if (i == s->count)
		s->count++;
	return true;
}

void stat_reader_init(struct stat_reader *r)
{
	memset(r, 0, sizeof(*r));
}

bool stat_reader_line(struct stat_reader *r, const char *line)
{
	char text[1024];
	char *word[STAT_WORDS_MAX];
	size_t len;
	unsigned int n;
	bool ok;

	if (strncmp(line, STAT_PREFIX, strlen(STAT_PREFIX)))
		return false;
	line += strlen(STAT_PREFIX);
	len = strcspn(line, "\r\n");
	if (len >= sizeof(text)) {
		r->malformed++;
		return false;
	}
	memcpy(text, line, len);
	text[len] = '\0';
	n = stat_split(text, word);
	if (n == 0) {
		r->malformed++;
		return false;
	}
	if (!strcmp(word[0], "sample")) {
		/* A sample left open lost its end line: it is dropped. */
		r->is_open = false;
		ok = stat_begin(r, word, n);
	} else if (!strcmp(word[0], "end")) {
		ok = stat_end(r, word, n);
		if (ok)
			return true;
	} else {
		ok = stat_add(r, word, n);
	}
	if (!ok)
		r->malformed++;
	return false;
}

static const struct stat_item *stat_find(const struct stat_sample *s, const struct stat_item *like)
{
	for (unsigned int i = 0; i < s->count; i++)
		if (!strcmp(s->item[i].kind, like->kind) && !strcmp(s->item[i].name, like->name))
			return &s->item[i];
	return NULL;
}

/* A field of an item; a reason not printed counted none. */
static uint64_t stat_item_value(const struct stat_item *item, const struct stat_value *like)
{
	for (unsigned int i = 0; i < item->count; i++)
		if (item->value[i].reason == like->reason && !strcmp(item->value[i].key, like->key))
			return item->value[i].value;
	return 0;
}

bool stat_rates(const struct stat_sample *older, const struct stat_sample *newer,
		struct stat_rates *out)
{
	memset(out, 0, sizeof(*out));
	out->seq = newer->seq;
	out->hz = newer->hz;
	if (!newer->hz)
		return false;
	for (unsigned int i = 0; i < newer->count; i++) {
		const struct stat_item *b = &newer->item[i];
		const struct stat_item *a = stat_find(older, b);
		struct stat_rate_item *r = &out->item[out->count];

		if (!a || b->tsc <= a->tsc)
			continue;
		memcpy(r->kind, b->kind, sizeof(r->kind));
		memcpy(r->name, b->name, sizeof(r->name));
		memcpy(r->state, b->state, sizeof(r->state));
		r->seconds = (double)(b->tsc - a->tsc) / (double)newer->hz;
		r->count = b->count;
		for (unsigned int v = 0; v < b->count; v++) {
			uint64_t then = stat_item_value(a, &b->value[v]);
			uint64_t now = b->value[v].value;

			memcpy(r->value[v].key, b->value[v].key, sizeof(r->value[v].key));
			r->value[v].reason = b->value[v].reason;
			if (stat_is_label(b->value[v].key))
				r->value[v].value = (double)now;
			else
				r->value[v].value = now < then ? 0 : (double)(now - then) / r->seconds;
		}
		out->count++;
	}
	return true;
}

double stat_rate_value(const struct stat_rate_item *item, const char *key)
{
	for (unsigned int i = 0; i < item->count; i++)
		if (!item->value[i].reason && !strcmp(item->value[i].key, key))
			return item->value[i].value;
	return 0;
}

void stat_guest_traffic(const struct stat_rates *rates, const char *guest,
			struct stat_traffic *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < rates->count; i++) {
		const struct stat_rate_item *item = &rates->item[i];

		if ((strcmp(item->kind, "port") && strcmp(item->kind, "vsock")) ||
		    strcmp(item->name, guest))
			continue;
		out->rx_packets += stat_rate_value(item, "rx_packets");
		out->rx_bytes += stat_rate_value(item, "rx_bytes");
		out->tx_packets += stat_rate_value(item, "tx_packets");
		out->tx_bytes += stat_rate_value(item, "tx_bytes");
		out->drops += stat_rate_value(item, "drops");
	}
}
