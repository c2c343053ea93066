/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCEv2 invariant CRC (IBTA annex A17.3.3): a CRC-32 over the packet from
 * the IP header to the end of the padded payload, with every field a
 * router may change replaced by ones, preceded by 8 bytes of ones standing
 * for the InfiniBand LRH.  Pure code: works on byte buffers.
 */
#ifndef VROCE_ICRC_H
#define VROCE_ICRC_H

#include <linux/types.h>

u32 vroce_icrc_start(const void *l3, bool ipv6);
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

u32 vroce_icrc_packet(const void *l3, bool ipv6, size_t len);

#endif /* VROCE_ICRC_H */
