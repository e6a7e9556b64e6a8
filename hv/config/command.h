/* SPDX-License-Identifier: MIT */
/*
 * command.h - one line typed at the hypervisor's console, parsed
 * (docs/operator.md).
 */
#ifndef SIDECORE_CONFIG_COMMAND_H
#define SIDECORE_CONFIG_COMMAND_H

#include <stdbool.h>

#include "config/config.h"

enum command_verb {
	COMMAND_HELP,
	COMMAND_GUESTS,
	COMMAND_COUNTERS,
	COMMAND_STOP,
	COMMAND_START,
	COMMAND_RESTART,
	COMMAND_STAT,
};

struct command {
	enum command_verb verb;
	char guest[CONFIG_NAME_MAX];	/* for stop, start and restart */
	bool stat_on;			/* for stat: on, or off */
};

/**
 * command_parse() - parse one console line
 * @line: the text, without its line end
 * @cmd: filled in on success
 * @error: on failure, what was wrong, naming the word
 * @error_size: room in @error
 *
 * Words are separated by spaces. "help", "guests" and "counters" take no
 * argument; "stop", "start" and "restart" take one guest name; "stat"
 * takes "on" or "off".
 *
 * Return: true if @line is a command.
 */
bool command_parse(const char *line, struct command *cmd, char *error, unsigned int error_size);

#endif
