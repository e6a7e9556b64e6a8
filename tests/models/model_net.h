/* SPDX-License-Identifier: MIT */
/*
 * model_net.h - what the NIC models share of a NIC's packet logic: the
 * Internet checksum, the pseudo-header, the Ethernet CRC and the header
 * fixups of TCP segmentation.
 *
 * Written apart from drivers/net/sw_offload.c on purpose: a model checks a
 * driver, so a bug they shared would hide.
 */
#ifndef SIDECORE_TESTS_MODEL_NET_H
#define SIDECORE_TESTS_MODEL_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * model_net_sum() - the one's complement sum of bytes (RFC 1071).
 * @sum: a sum to start from (a pseudo-header's, or 0); any 32-bit value
 * @p: the bytes, read as big-endian 16-bit words, an odd last byte padded
 * @len: how many
 *
 * Return: the sum, folded to 16 bits, not complemented: 0xffff when a
 * range that holds its own checksum is right.
 */
uint16_t model_net_sum(uint32_t sum, const uint8_t *p, size_t len);

/**
 * model_net_pseudo() - the pseudo-header sum of a TCP or UDP segment.
 * @ip: the IPv4 or IPv6 header
 * @ipv4: which of the two it is
 * @proto: the L4 protocol
 * @l4_len: the segment's length, L4 header on
 *
 * Return: the sum of addresses, protocol and length (RFC 793 §3.1, RFC 8200
 * §8.1), to hand to model_net_sum() with the segment.
 */
uint32_t model_net_pseudo(const uint8_t *ip, bool ipv4, uint32_t proto, uint32_t l4_len);

/**
 * model_net_crc32() - the IEEE 802.3 frame check sequence.
 * @p: the frame, without FCS
 * @len: its length
 *
 * Return: the CRC-32, to be stored little-endian after the frame.
 */
uint32_t model_net_crc32(const uint8_t *p, size_t len);

/**
 * model_net_tso_headers() - what a NIC rewrites in each segment of a TSO packet.
 * @seg: the segment: the packet's headers, then this segment's payload
 * @len: the segment's length
 * @ip: where its IP header starts
 * @ipv4: IPv4 (total length and identification) or IPv6 (payload length)
 * @l4: where its L4 header starts
 * @tcp: TCP (sequence number, FIN and PSH) or UDP (length)
 * @index: the segment's index in the packet, added to the IPv4 identification
 * @offset: where its payload starts in the packet's, added to the sequence number
 * @last: whether it is the packet's last: FIN and PSH stay there only
 *
 * Checksums are left to the caller, each NIC seeds them its own way.
 */
void model_net_tso_headers(uint8_t *seg, uint32_t len, uint32_t ip, bool ipv4, uint32_t l4,
			   bool tcp, uint32_t index, uint32_t offset, bool last);

#endif
