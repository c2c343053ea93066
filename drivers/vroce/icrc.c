// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE ICRC.  The variant fields masked with ones: IPv4 TOS, TTL and
 * header checksum; IPv6 traffic class, flow label and hop limit (and the
 * same three fields of a RoCE v1 GRH, which has the IPv6 header's layout);
 * the UDP checksum; and the BTH reserved byte before the destination QP.
 */
#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/string.h>
#include <linux/udp.h>
#include <net/checksum.h>

#include "hdr.h"
#include "icrc.h"

/*
 * CRC-32 (reflected, seed ~0) of eight 0xff bytes: the masked LRH that
 * IBTA puts in front of a RoCEv2 packet for the ICRC.
 */
#define VROCE_ICRC_LRH_SEED	0xdebb20e3U

/* Bytes of the headers before the BTH on @wire. */
static size_t vroce_icrc_l3_len(enum vroce_wire wire)
{
	switch (wire) {
	case VROCE_WIRE_V2_IPV4:
		return sizeof(struct iphdr) + sizeof(struct udphdr);
	case VROCE_WIRE_V2_IPV6:
		return sizeof(struct ipv6hdr) + sizeof(struct udphdr);
	default:
		return sizeof(struct ipv6hdr);	/* the GRH */
	}
}

/**
 * vroce_icrc_start() - CRC over the masked network headers and the BTH
 * @l3: the IPv4 or IPv6 header followed by UDP and BTH, or the RoCE v1 GRH
 *	followed by the BTH
 * @wire: which of the three @l3 is
 *
 * Return: running CRC to continue with vroce_icrc_update() from the first
 * byte after the BTH.
 */
u32 vroce_icrc_start(const void *l3, enum vroce_wire wire)
{
	u8 buf[sizeof(struct ipv6hdr) + sizeof(struct udphdr) +
	       sizeof(struct vroce_bth)];
	size_t hdrs = vroce_icrc_l3_len(wire);
	size_t len = hdrs + sizeof(struct vroce_bth);
	struct vroce_bth *bth;

	memcpy(buf, l3, len);
	if (wire == VROCE_WIRE_V2_IPV4) {
		struct iphdr *ip4 = (struct iphdr *)buf;

		ip4->tos = 0xff;
		ip4->ttl = 0xff;
		ip4->check = CSUM_MANGLED_0;
	} else {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)buf;

		ip6->priority = 0xf;
		memset(ip6->flow_lbl, 0xff, sizeof(ip6->flow_lbl));
		ip6->hop_limit = 0xff;
	}
	if (wire != VROCE_WIRE_V1) {
		struct udphdr *udp = (struct udphdr *)(buf + hdrs -
						       sizeof(*udp));

		udp->check = CSUM_MANGLED_0;
	}
	bth = (struct vroce_bth *)(buf + hdrs);
	bth->qpn |= cpu_to_be32(~VROCE_QPN_MASK);

	return crc32_le(VROCE_ICRC_LRH_SEED, buf, len);
}

/**
 * vroce_icrc_update() - continue the CRC over more packet bytes
 * @crc: running CRC
 * @data: next bytes (extension headers, payload, padding)
 * @len: their length
 *
 * Return: the new running CRC.
 */
u32 vroce_icrc_update(u32 crc, const void *data, size_t len)
{
	return crc32_le(crc, data, len);
}

/**
 * vroce_icrc_packet() - ICRC of a contiguous packet
 * @l3: IP header of the packet (the GRH of a RoCE v1 one)
 * @wire: which headers @l3 starts
 * @len: bytes from @l3 up to (not including) the ICRC field
 *
 * Return: the ICRC value (see vroce_icrc_final()), 0 when @len does not
 * even cover the headers.
 */
u32 vroce_icrc_packet(const void *l3, enum vroce_wire wire, size_t len)
{
	size_t hdr = vroce_icrc_l3_len(wire) + sizeof(struct vroce_bth);
	u32 crc;

	if (len < hdr)
		return 0;
	crc = vroce_icrc_start(l3, wire);
	crc = vroce_icrc_update(crc, (const u8 *)l3 + hdr, len - hdr);
	return vroce_icrc_final(crc);
}
