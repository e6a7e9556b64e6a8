/* SPDX-License-Identifier: MIT */
/*
 * guest_log.h - console lines a guest causes (its UART output, reports of
 * what it did wrong), prefixed with its name and limited per guest, so one
 * guest cannot keep the shared console ring full.
 */
#ifndef SIDECORE_GUEST_GUEST_LOG_H
#define SIDECORE_GUEST_GUEST_LOG_H

#include <stdbool.h>

#include "lib/log.h"

struct guest;

bool guest_log_allow(struct guest *g);
void guest_log_gate_init(struct log_gate *gate, struct guest *g);
void guest_log(struct guest *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
