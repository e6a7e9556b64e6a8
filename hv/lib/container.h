/* SPDX-License-Identifier: MIT */
/*
 * container.h - from an embedded member back to the structure holding it:
 * how an interface (a port, a device) reaches the object that implements it.
 */
#ifndef SIDECORE_LIB_CONTAINER_H
#define SIDECORE_LIB_CONTAINER_H

#include <stddef.h>

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#endif
