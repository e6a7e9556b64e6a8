/* SPDX-License-Identifier: MIT */
/*
 * flow.h - which flow a frame belongs to, as a number: a device with
 * several receive queues steers by it, so every frame of one TCP
 * connection lands on the same queue and is never reordered
 * (docs/data-path.md, "Multiqueue").
 */
#ifndef SIDECORE_NET_FLOW_H
#define SIDECORE_NET_FLOW_H

#include <stdint.h>

#include "net/net.h"

/**
 * net_flow_hash() - a hash that every frame of one flow shares.
 * @pkt: the packet, snapshotted by net_packet_snapshot()
 *
 * Hashes the IPv4 or IPv6 source and destination addresses, the protocol,
 * and for TCP and UDP the two ports, where net_headers_parse() finds them
 * (behind up to two VLAN tags and IPv6 extension headers). The two
 * endpoints are taken in one order whichever is the source, so a reply
 * hashes as its request does and a device can steer it to the queue the
 * request left from. A fragment of an IPv4 or IPv6 datagram, and a packet
 * of another protocol than TCP or UDP, is hashed by addresses and protocol
 * alone: only the first fragment carries the ports, and every fragment must
 * go where the others go. The header bytes are copied out once
 * (net_packet_read()), so a sender rewriting its buffers meanwhile only
 * changes the answer.
 *
 * Return: the hash; 0 for a frame that is not IP (ARP, say) or whose IP
 * header is cut short.
 */
uint32_t net_flow_hash(const struct net_packet *pkt);

#endif
