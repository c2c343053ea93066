/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A RoCE packet as the engines see it, and the address vector a packet is
 * sent to.  net.c builds and parses RoCE v2 (IP and UDP) and RoCE v1
 * (Ethertype 0x8915, a GRH) framing; the engines fill headers and payload
 * through these helpers and never touch IP, UDP or the GRH.
 */
#ifndef VROCE_PKT_H
#define VROCE_PKT_H

#include <linux/in6.h>
#include <linux/skbuff.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>

#include "hdr.h"
#include "opcode.h"

struct vroce_dev;
struct vroce_qp;

/**
 * struct vroce_av - where packets of a QP or AH go
 * @roce_v1: RoCE v1: a GRH straight after the Ethernet header, sent to
 *	@dmac on the local link, never routed (@ipv6 is then set: the GRH
 *	has the IPv6 header's layout)
 * @ipv6: RoCEv2 over IPv6 (else IPv4; addresses are then v4-mapped)
 * @saddr: source address (from the source GID)
 * @daddr: destination address (from the destination GID)
 * @dmac: destination MAC resolved by ib_core
 * @tclass: IP DSCP/ECN byte (traffic class of the AH/QP)
 * @hop_limit: IP TTL / hop limit
 * @flow_label: IPv6 flow label; also feeds the UDP source port
 * @oif: the netdev the packets leave through: the source GID's (a VLAN
 *	upper device's GID sends tagged through it); 0 for the device's own
 * @prio: 802.1p priority (qos.c): a VLAN device maps it to the PCP bits
 *	with its egress map
 */
struct vroce_av {
	bool roce_v1;
	bool ipv6;
	struct in6_addr saddr;
	struct in6_addr daddr;
	u8 dmac[ETH_ALEN];
	u8 tclass;
	u8 hop_limit;
	u32 flow_label;
	int oif;
	u8 prio;
};

int vroce_av_from_attr(struct vroce_av *av, const struct rdma_ah_attr *attr);

/**
 * struct vroce_route_cache - the route a sender's packets took last time
 * @dst: the route, per CPU, with the source address it was looked up for
 *	(the IP stack invalidates it when routes change)
 * @daddr: the destination it was looked up for
 * @ordered: the sender is paced: its packets leave from its flow's home
 *	CPU, in order (txq.c), as the module parameter tx_flow_cpu says
 *
 * Used with bottom halves off, by one sender at a time (a QP's runner).
 */
struct vroce_route_cache {
	struct dst_cache dst;
	struct in6_addr daddr;
	bool ordered;
};

/**
 * struct vroce_pkt - a received packet, parsed and checked
 * @vdev: the device it arrived on
 * @skb: the packet; skb->data is the BTH, network header set
 * @bth: the BTH (in @skb's linear data)
 * @opcode: BTH opcode
 * @flags: vroce_opcodes[@opcode].flags
 * @psn: BTH PSN
 * @qpn: BTH destination QP
 * @hdr_len: BTH and extension headers
 * @paylen: payload bytes (padding and ICRC excluded)
 * @roce_v1: a RoCE v1 packet: its GRH is the network header (@ipv6 set),
 *	it has no UDP header (@sport 0) and no ECN
 * @ipv6: IP version of the packet
 * @saddr: source IP (v4-mapped for IPv4)
 * @daddr: destination IP (v4-mapped for IPv4)
 * @tos: DSCP/ECN byte the packet carried
 * @sport: UDP source port
 * @oif: the VLAN device it arrived through, 0 for the device's own netdev:
 *	where answers leave
 */
struct vroce_pkt {
	struct vroce_dev *vdev;
	struct sk_buff *skb;
	struct vroce_bth *bth;
	u8 opcode;
	u32 flags;
	u32 psn;
	u32 qpn;
	u16 hdr_len;
	u32 paylen;
	bool roce_v1;
	bool ipv6;
	struct in6_addr saddr;
	struct in6_addr daddr;
	u8 tos;
	__be16 sport;
	int oif;
};

/* Extension header @e of a packet that carries it (checked by the parser). */
static inline void *vroce_pkt_ext(const struct vroce_pkt *pkt,
				  enum vroce_ext e)
{
	return (u8 *)pkt->bth + vroce_opcode_ext_offset(pkt->opcode, e);
}

static inline void *vroce_pkt_payload(const struct vroce_pkt *pkt)
{
	return (u8 *)pkt->bth + pkt->hdr_len;
}

/* Room before the BTH for Ethernet, IP and UDP headers (or a GRH). */
#define VROCE_PKT_HEADROOM	(LL_MAX_HEADER + sizeof(struct ipv6hdr) + \
				 sizeof(struct udphdr))

struct sk_buff *vroce_pkt_alloc(struct vroce_dev *vdev, unsigned int len);

/* Pad bytes after @payload bytes: the ICRC starts on a 4-byte boundary. */
static inline unsigned int vroce_pkt_pad(u32 payload)
{
	return (4 - (payload & 3)) & 3;
}

/*
 * Room for @hdr header bytes, @len payload bytes and @pad pad bytes at the
 * end of @skb: headers and pad zeroed, the payload left for the caller to
 * fill whole (or to drop the packet).  Return: the BTH.
 */
static inline struct vroce_bth *vroce_pkt_put(struct sk_buff *skb,
					      unsigned int hdr,
					      unsigned int len,
					      unsigned int pad)
{
	u8 *bth = skb_put(skb, hdr + len + pad);

	memset(bth, 0, hdr);
	memset(bth + hdr + len, 0, pad);
	return (struct vroce_bth *)bth;
}

int vroce_pkt_send(struct vroce_dev *vdev, const struct vroce_av *av,
		   struct sk_buff *skb, u32 entropy,
		   struct vroce_route_cache *route);
__be16 vroce_pkt_sport(u32 entropy);

/* Receive dispatch (the engines; resp.c for requests, comp.c for responses). */
bool vroce_pkt_from_peer(const struct vroce_pkt *pkt, struct vroce_qp *qp);
bool vroce_qp_peer_is(const struct vroce_qp *qp, const struct in6_addr *addr);
void vroce_resp_rcv(struct vroce_pkt *pkt);
void vroce_comp_rcv(struct vroce_pkt *pkt);

#endif /* VROCE_PKT_H */
