/* SPDX-License-Identifier: MIT */
/*
 * config_limits.h - the sizes every layer is built for, in one place: the
 * configuration parser refuses more, the planner never places more, and the
 * switch, the sidecores and the guest table size their arrays from these.
 * Where two layers meet, a _Static_assert ties their own names to these.
 */
#ifndef SIDECORE_CONFIG_CONFIG_LIMITS_H
#define SIDECORE_CONFIG_CONFIG_LIMITS_H

#define LIMIT_SIDECORES		8	/* polling cores in the machine */
#define LIMIT_GUESTS		16	/* guest sections, guests running */
#define LIMIT_GUEST_VCPUS	8	/* vCPUs of one guest */

/* The limit as text, for messages: LIMIT_TEXT(LIMIT_GUESTS) is "16". */
#define LIMIT_TEXT_(n)		#n
#define LIMIT_TEXT(n)		LIMIT_TEXT_(n)

#endif
