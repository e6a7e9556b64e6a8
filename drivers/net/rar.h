/* SPDX-License-Identifier: MIT */
/*
 * rar.h - the receive address registers (RAL/RAH) of Intel NICs, laid out
 * alike on the 8254x (SDM §13) and the 82599 (§8.2.3.7.9-10): the address's
 * first four bytes in RAL, low byte first, its last two in RAH's low half.
 * The valid bit and, on the 82599, the pool bits are each driver's own.
 */
#ifndef SIDECORE_DRIVERS_NET_RAR_H
#define SIDECORE_DRIVERS_NET_RAR_H

#include <stdint.h>

#include "net/net.h"

/**
 * rar_low() - the RAL value for an address.
 * @mac: the address
 *
 * Return: its first four bytes, the first in bits 7:0.
 */
static inline uint32_t rar_low(const uint8_t mac[ETH_ALEN])
{
	return (uint32_t)mac[0] | (uint32_t)mac[1] << 8 | (uint32_t)mac[2] << 16 |
	       (uint32_t)mac[3] << 24;
}

/**
 * rar_high() - the address bits of the RAH value for an address.
 * @mac: the address
 *
 * Return: its last two bytes, the fifth in bits 7:0; no valid bit.
 */
static inline uint32_t rar_high(const uint8_t mac[ETH_ALEN])
{
	return (uint32_t)mac[4] | (uint32_t)mac[5] << 8;
}

/**
 * rar_mac() - the address an RAL/RAH pair holds.
 * @lo: RAL
 * @hi: RAH; bits above 15 are not looked at
 * @mac: where the address goes
 */
static inline void rar_mac(uint32_t lo, uint32_t hi, uint8_t mac[ETH_ALEN])
{
	mac[0] = (uint8_t)lo;
	mac[1] = (uint8_t)(lo >> 8);
	mac[2] = (uint8_t)(lo >> 16);
	mac[3] = (uint8_t)(lo >> 24);
	mac[4] = (uint8_t)hi;
	mac[5] = (uint8_t)(hi >> 8);
}

#endif
