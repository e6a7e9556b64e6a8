/* SPDX-License-Identifier: MIT */
/*
 * cmd_stat.c - `sidecore stat [--once] [--json] CONSOLE`: the hypervisor's
 * live counters (docs/operator.md, "Live counters") as rates, refreshed with
 * each sample. CONSOLE is the serial device or pseudo-terminal the
 * hypervisor's console is on, where the tool types `stat on` itself, or a
 * log of that console, followed as it grows (a finished one gives its last
 * two samples).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "tools/sidecore/commands.h"
#include "tools/sidecore/stat_parse.h"

#define STAT_LINE_MAX 1024
#define STAT_FOLLOW_NS 200000000L	/* a growing log is looked at five times a second */

struct stat_options {
	bool once;
	bool json;
	const char *path;
};

/* A guest's exit reasons, busiest first. */
static void stat_print_reasons(const struct stat_rate_item *item)
{
	unsigned int order[STAT_VALUES_MAX], n = 0;

	for (unsigned int i = 0; i < item->count; i++)
		if (item->value[i].reason && item->value[i].value > 0)
			order[n++] = i;
	/* A handful of reasons: insertion sort, busiest first. */
	for (unsigned int i = 1; i < n; i++)
		for (unsigned int j = i; j && item->value[order[j]].value >
				       item->value[order[j - 1]].value; j--) {
			unsigned int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	if (!n)
		return;
	printf("    exits/s:");
	for (unsigned int i = 0; i < n; i++)
		printf(" %s %.1f", item->value[order[i]].key, item->value[order[i]].value);
	printf("\n");
}

static bool stat_is_port(const struct stat_rate_item *item)
{
	return !strcmp(item->kind, "port") || !strcmp(item->kind, "vsock") ||
	       !strcmp(item->kind, "nic");
}

static void stat_print_text(const struct stat_rates *r, const char *path)
{
	struct stat_traffic t;

	printf("sidecore stat %s  sample %u\n\n", path, r->seq);
	printf("%-12s %-9s %10s %9s %10s %12s %10s %12s %8s\n", "guest", "state", "exits/s",
	       "irqs/s", "rx pkt/s", "rx B/s", "tx pkt/s", "tx B/s", "drops/s");
	for (unsigned int i = 0; i < r->count; i++) {
		const struct stat_rate_item *item = &r->item[i];

		if (strcmp(item->kind, "guest"))
			continue;
		stat_guest_traffic(r, item->name, &t);
		printf("%-12s %-9s %10.1f %9.1f %10.1f %12.0f %10.1f %12.0f %8.1f\n", item->name,
		       item->state, stat_rate_value(item, "exits"), stat_rate_value(item, "irqs"),
		       t.rx_packets, t.rx_bytes, t.tx_packets, t.tx_bytes, t.drops);
		stat_print_reasons(item);
	}
	printf("\n%-6s %-16s %8s %10s %12s %10s %12s %8s\n", "port", "name", "sidecore",
	       "rx pkt/s", "rx B/s", "tx pkt/s", "tx B/s", "drops/s");
	for (unsigned int i = 0; i < r->count; i++) {
		const struct stat_rate_item *item = &r->item[i];

		if (!stat_is_port(item))
			continue;
		printf("%-6s %-16s %8.0f %10.1f %12.0f %10.1f %12.0f %8.1f\n", item->kind,
		       item->name, stat_rate_value(item, "sidecore"),
		       stat_rate_value(item, "rx_packets"), stat_rate_value(item, "rx_bytes"),
		       stat_rate_value(item, "tx_packets"), stat_rate_value(item, "tx_bytes"),
		       stat_rate_value(item, "drops"));
	}
	printf("\n%-8s %4s %7s %10s\n", "sidecore", "cpu", "busy", "pkt/s");
	for (unsigned int i = 0; i < r->count; i++) {
		const struct stat_rate_item *item = &r->item[i];

		if (strcmp(item->kind, "sidecore"))
			continue;
		printf("%-8s %4.0f %6.1f%% %10.1f\n", item->name, stat_rate_value(item, "cpu"),
		       100.0 * stat_rate_value(item, "busy_tsc") / (double)r->hz,
		       stat_rate_value(item, "packets"));
	}
}

/* Names come from the console, checked to be one word, but may hold " or \. */
static void stat_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if ((unsigned char)*s >= ' ')
			putchar(*s);
	}
	putchar('"');
}

static void stat_print_json(const struct stat_rates *r)
{
	struct stat_traffic t;
	const char *sep = "";

	printf("{\"sample\": %u, \"tsc_hz\": %llu, \"guests\": [", r->seq,
	       (unsigned long long)r->hz);
	for (unsigned int i = 0; i < r->count; i++) {
		const struct stat_rate_item *item = &r->item[i];
		const char *rsep = "";

		if (strcmp(item->kind, "guest"))
			continue;
		stat_guest_traffic(r, item->name, &t);
		printf("%s\n  {\"name\": ", sep);
		stat_json_string(item->name);
		printf(", \"state\": ");
		stat_json_string(item->state);
		printf(", \"seconds\": %.6f, \"exits\": %.3f, \"irqs\": %.3f, \"rx_packets\": %.3f, "
		       "\"rx_bytes\": %.3f, \"tx_packets\": %.3f, \"tx_bytes\": %.3f, "
		       "\"drops\": %.3f, \"exit_reasons\": {", item->seconds,
		       stat_rate_value(item, "exits"), stat_rate_value(item, "irqs"), t.rx_packets,
		       t.rx_bytes, t.tx_packets, t.tx_bytes, t.drops);
		for (unsigned int v = 0; v < item->count; v++) {
			if (!item->value[v].reason)
				continue;
			printf("%s", rsep);
			stat_json_string(item->value[v].key);
			printf(": %.3f", item->value[v].value);
			rsep = ", ";
		}
		printf("}}");
		sep = ",";
	}
	printf("],\n \"ports\": [");
	sep = "";
	for (unsigned int i = 0; i < r->count; i++) {
		const struct stat_rate_item *item = &r->item[i];

		if (!stat_is_port(item))
			continue;
		printf("%s\n  {\"kind\": ", sep);
		stat_json_string(item->kind);
		printf(", \"name\": ");
		stat_json_string(item->name);
		printf(", \"sidecore\": %.0f, \"seconds\": %.6f, \"rx_packets\": %.3f, "
		       "\"rx_bytes\": %.3f, \"tx_packets\": %.3f, \"tx_bytes\": %.3f, \"drops\": %.3f}",
		       stat_rate_value(item, "sidecore"), item->seconds,
		       stat_rate_value(item, "rx_packets"), stat_rate_value(item, "rx_bytes"),
		       stat_rate_value(item, "tx_packets"), stat_rate_value(item, "tx_bytes"),
		       stat_rate_value(item, "drops"));
		sep = ",";
	}
	printf("],\n \"sidecores\": [");
	sep = "";
	for (unsigned int i = 0; i < r->count; i++) {
		const struct stat_rate_item *item = &r->item[i];

		if (strcmp(item->kind, "sidecore"))
			continue;
		/* A sidecore line is named by its number. */
		printf("%s\n  {\"index\": %lu", sep, strtoul(item->name, NULL, 10));
		printf(", \"cpu\": %.0f, \"seconds\": %.6f, \"busy\": %.6f, \"packets\": %.3f}",
		       stat_rate_value(item, "cpu"), item->seconds,
		       stat_rate_value(item, "busy_tsc") / (double)r->hz,
		       stat_rate_value(item, "packets"));
		sep = ",";
	}
	printf("]}\n");
}

/* The rates of the last two whole samples, as the options ask. */
static bool stat_show(const struct stat_reader *reader, const struct stat_options *opt,
		      struct stat_rates *rates)
{
	if (reader->samples < 2 || !stat_rates(&reader->last[0], &reader->last[1], rates))
		return false;
	if (opt->json) {
		stat_print_json(rates);
	} else {
		if (!opt->once)
			printf("\033[H\033[2J");	/* a terminal's home and clear: a refresh */
		stat_print_text(rates, opt->path);
	}
	fflush(stdout);
	return true;
}

/* A serial line or pseudo-terminal: raw bytes at the console's 115200 8N1. */
static bool stat_setup_tty(int fd)
{
	struct termios tio;

	if (tcgetattr(fd, &tio))
		return false;
	cfmakeraw(&tio);
	cfsetispeed(&tio, B115200);
	cfsetospeed(&tio, B115200);
	tio.c_cflag |= CLOCAL | CREAD;
	return tcsetattr(fd, TCSANOW, &tio) == 0;
}

static int stat_parse_options(int argc, char **argv, struct stat_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--once"))
			opt->once = true;
		else if (!strcmp(argv[i], "--json"))
			opt->json = true;
		else if (argv[i][0] != '-' && !opt->path)
			opt->path = argv[i];
		else
			return -1;
	}
	return opt->path ? 0 : -1;
}

/* Reads the console to its end, or for good; the exit status. */
static int stat_follow(int fd, bool tty, const struct stat_options *opt,
		       struct stat_reader *reader, struct stat_rates *rates)
{
	char buf[4096], line[STAT_LINE_MAX];
	unsigned int len = 0, fresh = 0;
	bool shown = false;
	const struct timespec pause = { 0, STAT_FOLLOW_NS };

	for (;;) {
		ssize_t got = read(fd, buf, sizeof(buf));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			fprintf(stderr, "sidecore: %s: %s\n", opt->path, strerror(errno));
			return TOOL_EXIT_USAGE;
		}
		if (got == 0 && tty)
			break;	/* the other end closed */
		if (got == 0) {
			/* A log at its end: what it holds now is the latest. */
			if (opt->once)
				break;
			if (fresh && stat_show(reader, opt, rates))
				shown = true;
			fresh = 0;
			nanosleep(&pause, NULL);
			continue;
		}
		for (ssize_t i = 0; i < got; i++) {
			if (buf[i] != '\n') {
				/* An overlong line is not a stat: line: keep its start only. */
				if (len < sizeof(line) - 1)
					line[len++] = buf[i];
				continue;
			}
			line[len] = '\0';
			len = 0;
			if (!stat_reader_line(reader, line))
				continue;
			fresh++;
			/* A terminal's samples are live: each is shown as it ends. */
			if (tty && stat_show(reader, opt, rates)) {
				shown = true;
				if (opt->once)
					return TOOL_EXIT_OK;
			}
		}
	}
	if (opt->once && !tty)
		shown = stat_show(reader, opt, rates);
	if (!shown) {
		fprintf(stderr, "sidecore: %s: fewer than two whole stat: samples "
			"(stat on at the console starts them)\n", opt->path);
		return TOOL_EXIT_REJECTED;
	}
	return TOOL_EXIT_OK;
}

int command_stat(int argc, char **argv)
{
	static const char stat_on[] = "stat on\r";
	struct stat_options opt;
	struct stat_reader *reader;
	struct stat_rates *rates;
	struct stat st;
	bool tty;
	int fd, status;

	if (stat_parse_options(argc, argv, &opt)) {
		fprintf(stderr, "usage: sidecore stat [--once] [--json] CONSOLE\n");
		return TOOL_EXIT_USAGE;
	}
	fd = open(opt.path, O_RDONLY | O_NOCTTY);
	if (fd >= 0 && !fstat(fd, &st) && S_ISCHR(st.st_mode) && isatty(fd)) {
		/* A terminal is typed at as well: open it again for writing. */
		close(fd);
		fd = open(opt.path, O_RDWR | O_NOCTTY);
	}
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "sidecore: %s: %s\n", opt.path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return TOOL_EXIT_USAGE;
	}
	tty = S_ISCHR(st.st_mode) && isatty(fd);
	if (tty && (!stat_setup_tty(fd) ||
		    write(fd, stat_on, sizeof(stat_on) - 1) != (ssize_t)sizeof(stat_on) - 1)) {
		fprintf(stderr, "sidecore: %s: cannot type stat on: %s\n", opt.path,
			strerror(errno));
		close(fd);
		return TOOL_EXIT_USAGE;
	}
	reader = malloc(sizeof(*reader));
	rates = malloc(sizeof(*rates));
	if (!reader || !rates) {
		fprintf(stderr, "sidecore: out of memory\n");
		free(reader);
		free(rates);
		close(fd);
		return TOOL_EXIT_USAGE;
	}
	stat_reader_init(reader);
	status = stat_follow(fd, tty, &opt, reader, rates);
	if (reader->malformed)
		fprintf(stderr, "sidecore: %s: %u stat: lines could not be read\n", opt.path,
			reader->malformed);
	free(reader);
	free(rates);
	close(fd);
	return status;
}
