/* SPDX-License-Identifier: MIT */
/*
 * config_guest.h - the keys of a `[guest NAME]` section (docs/config.md):
 * their names and lines for messages, the default MAC, and what config.c
 * calls to read a section.
 */
#ifndef SIDECORE_CONFIG_CONFIG_GUEST_H
#define SIDECORE_CONFIG_CONFIG_GUEST_H

#include <stdint.h>

#include "config/config.h"

/* config/config_lex.h; their insides are the parser's alone. */
struct config_parser;
struct config_line;

/* The spelling of a guest key in the file, e.g. "kernel". */
const char *config_guest_key_name(enum config_guest_key key);

/* The key's line, or the section header's when the key kept its default. */
unsigned int config_guest_line(const struct config_guest *guest, enum config_guest_key key);

/*
 * The default MAC of a guest named name: 02 followed by the low 40 bits of
 * the 64-bit FNV-1a hash of the name, most significant byte first.
 */
void config_derive_mac(const char *name, uint8_t mac[CONFIG_MAC_BYTES]);

/* The guest key with this name, or -1. */
int config_find_guest_key(const char *name);

/* Parses one key of the current guest's section. */
void config_apply_guest(struct config_parser *parser, const struct config_line *line,
			enum config_guest_key key);

/* Gives a new section's guest its defaults; header_line is where it starts. */
void config_init_guest(struct config_guest *guest, unsigned int header_line);

/* Ends the current section, if any: required keys, derived defaults. */
void config_finish_guest(struct config_parser *parser);

#endif
