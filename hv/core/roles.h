/* SPDX-License-Identifier: MIT */
/*
 * roles.h - what each core does: one polling sidecore per NUMA node (by
 * default the node's first CPU, or the config's `sidecores`), the others
 * free for vCPUs.
 */
#ifndef SIDECORE_CORE_ROLES_H
#define SIDECORE_CORE_ROLES_H

#include "config/config.h"
#include "platform/topology.h"

void roles_assign(const struct topology *topo, const struct config *config);
void roles_print(const struct topology *topo);

#endif
