// SPDX-License-Identifier: GPL-2.0
/*
 * RoCEv2 ICRC.  The variant fields masked with ones: IPv4 TOS, TTL and
 * header checksum; IPv6 traffic class, flow label and hop limit; the UDP
 * checksum; and the BTH reserved byte before the destination QP.
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

/**
 * vroce_icrc_start() - CRC over the masked IP, UDP and BTH headers
 * @l3: the IPv4 or IPv6 header, followed by UDP and BTH
 * @ipv6: which of the two @l3 is
 *
 * Return: running CRC to continue with vroce_icrc_update() from the first
 * byte after the BTH.
 */
u32 vroce_icrc_start(const void *l3, bool ipv6)
{
	u8 buf[sizeof(struct ipv6hdr) + sizeof(struct udphdr) +
	       sizeof(struct vroce_bth)];
	size_t l3len = ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	size_t len = l3len + sizeof(struct udphdr) + sizeof(struct vroce_bth);
	struct vroce_bth *bth;
	struct udphdr *udp;

	memcpy(buf, l3, len);
	if (ipv6) {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)buf;

		ip6->priority = 0xf;
		memset(ip6->flow_lbl, 0xff, sizeof(ip6->flow_lbl));
		ip6->hop_limit = 0xff;
	} else {
		struct iphdr *ip4 = (struct iphdr *)buf;

		ip4->tos = 0xff;
		ip4->ttl = 0xff;
		ip4->check = CSUM_MANGLED_0;
	}
	udp = (struct udphdr *)(buf + l3len);
	udp->check = CSUM_MANGLED_0;
	bth = (struct vroce_bth *)(udp + 1);
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
 * @l3: IP header of the packet
 * @ipv6: which IP version
 * @len: bytes from @l3 up to (not including) the ICRC field
 *
 * Return: the ICRC value (see vroce_icrc_final()), 0 when @len does not
 * even cover the headers.
 */
u32 vroce_icrc_packet(const void *l3, bool ipv6, size_t len)
{
	size_t hdr = (ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr)) +
		     sizeof(struct udphdr) + sizeof(struct vroce_bth);
	u32 crc;

	if (len < hdr)
		return 0;
	crc = vroce_icrc_start(l3, ipv6);
	crc = vroce_icrc_update(crc, (const u8 *)l3 + hdr, len - hdr);
	return vroce_icrc_final(crc);
}
