/* SPDX-License-Identifier: MIT */
/*
 * net_mac.h - what an Ethernet address says of itself, for every layer that
 * checks one: the config, a guest's NIC, the switch, the NIC drivers.
 */
#ifndef SIDECORE_LIB_NET_MAC_H
#define SIDECORE_LIB_NET_MAC_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/if_ether.h>

/**
 * net_mac_is_group() - whether an address names a group of stations.
 * @mac: the address
 *
 * IEEE 802: the lowest bit of the first octet marks a group (multicast)
 * address; broadcast is one of them.
 *
 * Return: true for a group address.
 */
static inline bool net_mac_is_group(const uint8_t mac[ETH_ALEN])
{
	return mac[0] & 1;
}

/**
 * net_mac_is_usable() - whether an address may be one station's own.
 * @mac: the address
 *
 * Return: true for an individual (unicast) address other than all zeroes.
 */
static inline bool net_mac_is_usable(const uint8_t mac[ETH_ALEN])
{
	uint8_t any = 0;

	for (unsigned int i = 0; i < ETH_ALEN; i++)
		any |= mac[i];
	return !net_mac_is_group(mac) && any;
}

#endif
