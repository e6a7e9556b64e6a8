/* SPDX-License-Identifier: MIT */
/*
 * command.c - the operator's console commands, parsed (docs/operator.md).
 */
#include <string.h>

#include "config/command.h"
#include "lib/printf.h"

static const struct {
	const char *word;
	enum command_verb verb;
	bool takes_guest;
	bool takes_switch;	/* on or off */
} command_words[] = {
	{ "help", COMMAND_HELP, false, false },
	{ "guests", COMMAND_GUESTS, false, false },
	{ "counters", COMMAND_COUNTERS, false, false },
	{ "stop", COMMAND_STOP, true, false },
	{ "start", COMMAND_START, true, false },
	{ "restart", COMMAND_RESTART, true, false },
	{ "stat", COMMAND_STAT, false, true },
};

#define COMMAND_WORDS_MAX 3	/* one more than any command has, to see the excess */
#define COMMAND_LINE_MAX 128

/* Cuts @text at spaces into at most @max words; returns how many, max + 1 if more. */
static unsigned int command_split(char *text, const char **word, unsigned int max)
{
	unsigned int n = 0;

	for (;;) {
		while (*text == ' ')
			*text++ = '\0';
		if (!*text)
			return n;
		if (n == max)
			return max + 1;
		word[n++] = text;
		while (*text && *text != ' ')
			text++;
	}
}

bool command_parse(const char *line, struct command *cmd, char *error, unsigned int error_size)
{
	char text[COMMAND_LINE_MAX];
	const char *word[COMMAND_WORDS_MAX];
	unsigned int n;

	if (strlen(line) >= sizeof(text)) {
		snprintf(error, error_size, "line longer than %u characters", COMMAND_LINE_MAX - 1);
		return false;
	}
	memcpy(text, line, strlen(line) + 1);
	n = command_split(text, word, COMMAND_WORDS_MAX);
	if (n == 0) {
		snprintf(error, error_size, "empty line (help lists the commands)");
		return false;
	}
	for (unsigned int i = 0; i < sizeof(command_words) / sizeof(command_words[0]); i++) {
		const char *w = command_words[i].word;
		bool takes_one = command_words[i].takes_guest || command_words[i].takes_switch;

		if (strcmp(w, word[0]))
			continue;
		if (command_words[i].takes_switch &&
		    (n != 2 || (strcmp(word[1], "on") && strcmp(word[1], "off")))) {
			snprintf(error, error_size, "%s takes on or off", w);
			return false;
		}
		if (n != (takes_one ? 2u : 1u)) {
			snprintf(error, error_size, command_words[i].takes_guest ?
				 "%s takes one guest name" : "%s takes no argument", w);
			return false;
		}
		cmd->verb = command_words[i].verb;
		cmd->guest[0] = '\0';
		cmd->stat_on = command_words[i].takes_switch && !strcmp(word[1], "on");
		if (command_words[i].takes_guest) {
			if (strlen(word[1]) >= sizeof(cmd->guest)) {
				snprintf(error, error_size, "guest name '%s' is too long", word[1]);
				return false;
			}
			memcpy(cmd->guest, word[1], strlen(word[1]) + 1);
		}
		return true;
	}
	snprintf(error, error_size, "unknown command '%s' (help lists the commands)", word[0]);
	return false;
}
