/* SPDX-License-Identifier: MIT */
/*
 * stat.h - the live counters the operator switches on and off
 * (docs/operator.md, "Live counters").
 */
#ifndef SIDECORE_INIT_STAT_H
#define SIDECORE_INIT_STAT_H

#include <stdbool.h>

/**
 * stat_switch() - start or stop the periodic "stat:" samples
 * @on: true to print one a second from now on, false to stop
 *
 * Call on the console's drainer (a typed line runs there): the samples are
 * printed from its loop, a line per pass, never from a sidecore's pass.
 */
void stat_switch(bool on);

#endif
