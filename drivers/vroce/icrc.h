/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCE invariant CRC (IBTA annexes A16.4 and A17.3.3): a CRC-32 over the
 * packet from the IP header (RoCE v1: the GRH) to the end of the padded
 * payload, with every field a router may change replaced by ones,
 * preceded by 8 bytes of ones standing for the InfiniBand LRH.  Pure code:
 * works on byte buffers.
 */
#ifndef VROCE_ICRC_H
#define VROCE_ICRC_H

#include <linux/types.h>

/**
 * enum vroce_wire - the headers a RoCE packet carries before its BTH
 * @VROCE_WIRE_V2_IPV4: RoCE v2 over IPv4: IPv4 and UDP headers
 * @VROCE_WIRE_V2_IPV6: RoCE v2 over IPv6: IPv6 and UDP headers
 * @VROCE_WIRE_V1: RoCE v1 (Ethertype 0x8915): the GRH alone, laid out as
 *	an IPv6 header whose next header is the BTH
 */
enum vroce_wire {
	VROCE_WIRE_V2_IPV4,
	VROCE_WIRE_V2_IPV6,
	VROCE_WIRE_V1,
};

u32 vroce_icrc_start(const void *l3, enum vroce_wire wire);
u32 vroce_icrc_update(u32 crc, const void *data, size_t len);

/**
 * vroce_icrc_final() - the value carried in the packet's last 4 bytes
 * @crc: running CRC after the last byte of padding
 *
 * Return: the ICRC, to be stored little-endian (as the CRC is computed
 * bit-reflected, its first byte on the wire is the low byte).
 */
static inline u32 vroce_icrc_final(u32 crc)
{
	return ~crc;
}

u32 vroce_icrc_packet(const void *l3, enum vroce_wire wire, size_t len);

#endif /* VROCE_ICRC_H */
