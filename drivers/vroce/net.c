// SPDX-License-Identifier: GPL-2.0
/*
 * UDP port 4791 per network namespace, and RoCE v1 frames from any.
 *
 * A vroce device works in whichever network namespace its netdev lives in,
 * so the RoCEv2 receive sockets are per netns: created on first use (the
 * first device in that namespace) and released when the namespace dies.
 * init_net's sockets are opened at module load, which is also how we notice
 * a second soft-RoCE driver (rdma_rxe) that already owns the port there.
 *
 * Lifetime: a device holds a reference on its netdev until dealloc_driver,
 * and netns teardown unregisters (and waits for) every netdev before the
 * subsys exit below runs, so no device outlives its namespace's sockets.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "icrc.h"
#include "pkt.h"
#include "vroce.h"

/**
 * struct vroce_netns - vroce's state in one network namespace
 * @lock: serialises socket creation against other device creations
 * @sk4: IPv4 socket bound to port 4791, NULL until first needed
 * @sk6: IPv6-only socket bound to port 4791, NULL without IPv6
 * @rx_unhandled: packets received before the transport could take them
 */
struct vroce_netns {
	struct mutex lock; /* socket creation and teardown */
	struct socket *sk4;
	struct socket *sk6;
	atomic64_t rx_unhandled;
};

static unsigned int vroce_net_id;

/* The GRH's next header for a BTH (IBTA vol. 1, 8.3.1): RoCE v1. */
#define VROCE_GRH_NEXT_HDR_BTH	0x1b

static struct vroce_netns *vroce_netns(struct net *net)
{
	return net_generic(net, vroce_net_id);
}

/* The device a packet arriving on @ndev is for (referenced), or NULL. */
static struct vroce_dev *vroce_dev_of_netdev(struct net_device *ndev)
{
	struct ib_device *ibdev;

	if (is_vlan_dev(ndev))
		ndev = vlan_dev_real_dev(ndev);
	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	return ibdev ? to_vroce_dev(ibdev) : NULL;
}

/*
 * What a received packet tells the receive path, in skb->cb until it has
 * been checked: @no_icrc, its ICRC was not computed (a loopback packet:
 * there is no wire between the two devices, so nothing can corrupt it,
 * except fault injection, which gets a real ICRC, vroce_rcv()); @roce_v1,
 * its network header is a RoCE v1 GRH and no UDP header follows it.
 */
struct vroce_rx_cb {
	bool no_icrc;
	bool roce_v1;
};

static struct vroce_rx_cb *vroce_rx_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct vroce_rx_cb) > sizeof(skb->cb));
	return (struct vroce_rx_cb *)skb->cb;
}

/*
 * Loopback deliveries nested on this CPU (bottom halves are off while
 * one runs): a runner's packet reaches the peer's responder, whose ACK
 * reaches the runner's completer, and so on.  Deeper chains go through
 * the target's work item.
 */
static DEFINE_PER_CPU(unsigned int, vroce_loop_depth);
#define VROCE_LOOP_MAX_DEPTH	3

static void vroce_drop(struct vroce_dev *vdev, struct sk_buff *skb,
		       enum vroce_counter why)
{
	vroce_counter_inc(vdev, why);
	kfree_skb(skb);
}

/* skb->data is the BTH: a responder's packet or a CNP (portq.c)? */
static bool vroce_pkt_is_answer(const struct sk_buff *skb)
{
	return vroce_opcodes[skb->data[0]].flags &
	       (VROCE_F_RESP | VROCE_F_CNP);
}

static enum vroce_wire vroce_wire(bool roce_v1, bool ipv6)
{
	if (roce_v1)
		return VROCE_WIRE_V1;
	return ipv6 ? VROCE_WIRE_V2_IPV6 : VROCE_WIRE_V2_IPV4;
}

/*
 * Check a received packet and hand it to the engines.  On entry skb->data
 * is the BTH, the skb is linear and its network and transport headers are
 * set.  Every length comes from the wire: each is checked before use.
 */
void __vroce_rcv(struct vroce_dev *vdev, struct sk_buff *skb)
{
	struct vroce_pkt pkt = { .vdev = vdev, .skb = skb };
	unsigned int total, hdr_len, pad, l3_len;
	u32 icrc;

	pkt.roce_v1 = vroce_rx_cb(skb)->roce_v1;
	if (pkt.roce_v1) {
		/* the GRH's payload length counts BTH to ICRC */
		total = ntohs(ipv6_hdr(skb)->payload_len);
	} else {
		total = ntohs(udp_hdr(skb)->len);
		if (total < sizeof(struct udphdr))
			goto hdr_err;
		total -= sizeof(struct udphdr);
		pkt.sport = udp_hdr(skb)->source;
	}
	if (total < sizeof(struct vroce_bth) + VROCE_ICRC_SIZE ||
	    total > skb->len)
		goto hdr_err;
	skb_trim(skb, total);	/* Ethernet minimum-frame padding */

	pkt.bth = (struct vroce_bth *)skb->data;
	pkt.opcode = pkt.bth->opcode;
	pkt.flags = vroce_opcodes[pkt.opcode].flags;
	if (!(pkt.flags & VROCE_F_VALID) ||
	    vroce_bth_tver(pkt.bth) != VROCE_BTH_TVER)
		goto hdr_err;
	hdr_len = vroce_opcode_hdr_len(pkt.opcode);
	pad = vroce_bth_pad(pkt.bth);
	if (total < hdr_len + pad + VROCE_ICRC_SIZE)
		goto hdr_err;

	if (ip_hdr(skb)->version == 4) {
		const struct iphdr *iph = ip_hdr(skb);

		/* The ICRC covers a 20-byte IPv4 header: no options. */
		if (iph->ihl != 5)
			goto hdr_err;
		pkt.ipv6 = false;
		ipv6_addr_set_v4mapped(iph->saddr, &pkt.saddr);
		ipv6_addr_set_v4mapped(iph->daddr, &pkt.daddr);
		pkt.tos = iph->tos;
	} else {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		pkt.ipv6 = true;
		pkt.saddr = ip6h->saddr;
		pkt.daddr = ip6h->daddr;
		pkt.tos = ipv6_get_dsfield(ip6h);
		/* RoCE v1 has no ECN: its traffic class is all class */
		if (pkt.roce_v1)
			pkt.tos &= ~INET_ECN_MASK;
	}
	if (skb->dev && is_vlan_dev(skb->dev))
		pkt.oif = skb->dev->ifindex;
	if (!vroce_rx_cb(skb)->no_icrc) {
		l3_len = skb->data - skb_network_header(skb);
		icrc = vroce_icrc_packet(skb_network_header(skb),
					 vroce_wire(pkt.roce_v1, pkt.ipv6),
					 l3_len + total - VROCE_ICRC_SIZE);
		if (icrc != get_unaligned_le32(skb->data + total -
					       VROCE_ICRC_SIZE)) {
			vroce_drop(vdev, skb, VROCE_CNT_RX_ICRC_ERR);
			return;
		}
	}

	pkt.psn = vroce_bth_psn(pkt.bth);
	pkt.qpn = vroce_bth_qpn(pkt.bth);
	pkt.hdr_len = hdr_len;
	pkt.paylen = total - hdr_len - pad - VROCE_ICRC_SIZE;
	vroce_counter_inc(vdev, VROCE_CNT_RX_PACKETS);

	if (unlikely(pkt.qpn == VROCE_MCAST_QPN ||
		     vroce_mcast_addr(&pkt.daddr)))
		vroce_mcast_rcv(&pkt);
	else if (pkt.flags & VROCE_F_REQ)
		vroce_resp_rcv(&pkt);
	else if (pkt.flags & VROCE_F_RESP)
		vroce_comp_rcv(&pkt);
	else
		vroce_cc_cnp_rcv(&pkt);
	return;

hdr_err:
	vroce_drop(vdev, skb, VROCE_CNT_RX_HDR_ERR);
}

/* A loopback packet without ICRC gets one: fault injection may corrupt it. */
static void vroce_loop_add_icrc(struct sk_buff *skb)
{
	struct vroce_rx_cb *cb = vroce_rx_cb(skb);
	u8 *end = skb_tail_pointer(skb) - VROCE_ICRC_SIZE;
	u32 icrc;

	if (!cb->no_icrc)
		return;
	cb->no_icrc = false;
	icrc = vroce_icrc_packet(skb_network_header(skb),
				 vroce_wire(cb->roce_v1,
					    ip_hdr(skb)->version != 4),
				 end - skb_network_header(skb));
	put_unaligned_le32(icrc, end);
}

/* The receive entry: fault injection (fault.c) first, when set. */
static void vroce_rcv(struct vroce_dev *vdev, struct sk_buff *skb)
{
	if (unlikely(READ_ONCE(vdev->fault_on))) {
		vroce_loop_add_icrc(skb);
		if (vroce_fault_rx(vdev, skb))
			return;
	}
	__vroce_rcv(vdev, skb);
}

/*
 * Receive entry of RoCEv2 packets from the network stack; skb->data is the
 * UDP header.  Returning 0 tells UDP that the skb is consumed.
 */
static int vroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct vroce_netns *vn = vroce_netns(sock_net(sk));
	struct vroce_dev *vdev;

	/*
	 * For a multicast packet, UDP's early demux keeps the input route
	 * (whose device is the namespace's loopback) in the one socket bound
	 * to the port, until the socket closes.  Ours close after the
	 * namespace's devices are gone, and that waits for this route: the
	 * namespace would never die.  Keep no route.
	 */
	if (unlikely(rcu_access_pointer(sk->sk_rx_dst)))
		dst_release(unrcu_pointer(xchg(&sk->sk_rx_dst, NULL)));

	vdev = vroce_dev_of_netdev(skb->dev);
	if (!vdev) {
		atomic64_inc(&vn->rx_unhandled);
		kfree_skb(skb);
		return 0;
	}
	if (skb_linearize(skb)) {
		vroce_drop(vdev, skb, VROCE_CNT_RX_HDR_ERR);
	} else {
		skb_pull(skb, sizeof(struct udphdr));
		vroce_rx_cb(skb)->no_icrc = false;
		vroce_rx_cb(skb)->roce_v1 = false;
		vroce_rcv(vdev, skb);
	}
	ib_device_put(&vdev->ibdev);
	return 0;
}

/*
 * Receive entry of RoCE v1 frames (Ethertype 0x8915), from any netdev of
 * any namespace: the device of the netdev (or of the VLAN device's real
 * one) takes them; skb->data is the GRH.
 */
static int vroce_v1_recv(struct sk_buff *skb, struct net_device *ndev,
			 struct packet_type *pt, struct net_device *orig_dev)
{
	const struct ipv6hdr *grh;
	struct vroce_dev *vdev;

	if (skb->pkt_type == PACKET_OTHERHOST ||
	    skb->pkt_type == PACKET_LOOPBACK)
		goto free;
	vdev = vroce_dev_of_netdev(ndev);
	if (!vdev)
		goto free;
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		goto out;
	if (skb_linearize(skb) || skb->len < sizeof(*grh)) {
		vroce_drop(vdev, skb, VROCE_CNT_RX_HDR_ERR);
		goto out;
	}
	skb_reset_network_header(skb);
	grh = ipv6_hdr(skb);
	if (grh->version != 6 || grh->nexthdr != VROCE_GRH_NEXT_HDR_BTH) {
		vroce_drop(vdev, skb, VROCE_CNT_RX_HDR_ERR);
		goto out;
	}
	skb_pull(skb, sizeof(*grh));
	skb_reset_transport_header(skb);
	vroce_rx_cb(skb)->no_icrc = false;
	vroce_rx_cb(skb)->roce_v1 = true;
	vroce_rcv(vdev, skb);
out:
	ib_device_put(&vdev->ibdev);
	return NET_RX_SUCCESS;
free:
	kfree_skb(skb);
	return NET_RX_DROP;
}

static struct packet_type vroce_v1_packet_type __read_mostly = {
	.type = cpu_to_be16(ETH_P_IBOE),
	.func = vroce_v1_recv,
};

/*
 * Loopback: a packet for an address of this host goes straight to the
 * vroce device owning that address, without the IP stack, and is received
 * in the sender's call (vroce_loop_deliver()).  The target's work item
 * takes what cannot be: chains nested too deep, and whatever queued behind
 * them, so that a QP's packets keep their order.  It runs with bottom
 * halves off, like packets from the network.
 */
static void vroce_loop_work(struct work_struct *work)
{
	struct vroce_dev *vdev = container_of(work, struct vroce_dev, loop_work);
	struct sk_buff *skb;
	int budget = 64;

	if (!ib_device_try_get(&vdev->ibdev)) {
		skb_queue_purge(&vdev->loop_q);
		return;
	}
	local_bh_disable();
	while (budget-- && (skb = skb_dequeue(&vdev->loop_q))) {
		vroce_counter_inc(vdev, VROCE_CNT_RX_LOOPBACK);
		vroce_rcv(vdev, skb);
	}
	local_bh_enable();
	if (!skb_queue_empty(&vdev->loop_q))
		queue_work(system_highpri_wq, &vdev->loop_work);
	ib_device_put(&vdev->ibdev);
}

/**
 * vroce_loop_init() - set up a device's loopback queue
 * @vdev: device being created
 */
void vroce_loop_init(struct vroce_dev *vdev)
{
	skb_queue_head_init(&vdev->loop_q);
	INIT_WORK(&vdev->loop_work, vroce_loop_work);
}

/**
 * vroce_loop_cleanup() - drop what is still queued, from dealloc_driver
 * @vdev: device being freed
 */
void vroce_loop_cleanup(struct vroce_dev *vdev)
{
	cancel_work_sync(&vdev->loop_work);
	skb_queue_purge(&vdev->loop_q);
}

/*
 * Multicast loopback, as a NIC does it: QPs of the sending device attached
 * to the group get one copy through the loopback queue.  The IP stack
 * loops nothing back (our sockets have IP_MULTICAST_LOOP off), so each
 * member sees the packet exactly once.
 */
static void vroce_mcast_loop(struct vroce_dev *vdev, const struct vroce_av *av,
			     struct sk_buff *skb)
{
	struct sk_buff *copy;

	if (!vroce_mcast_has_members(vdev, &av->daddr))
		return;
	copy = skb_copy(skb, GFP_ATOMIC);
	if (!copy) {
		vroce_counter_inc(vdev, VROCE_CNT_TX_ERR);
		return;
	}
	/* a RoCE v1 packet's transport header is its BTH */
	skb_pull(copy, skb_transport_offset(copy) +
		 (av->roce_v1 ? 0 : sizeof(struct udphdr)));
	vroce_rx_cb(copy)->no_icrc = false;
	vroce_rx_cb(copy)->roce_v1 = av->roce_v1;
	skb_queue_tail(&vdev->loop_q, copy);
	queue_work(system_highpri_wq, &vdev->loop_work);
}

/*
 * Receive a loopback packet on @target now, with bottom halves off as in
 * the receive softirq.  The engines take no lock across a send, so the
 * receive path may run the sender's own runner again: it is never waited
 * for (runner.c).
 */
static void vroce_loop_deliver(struct vroce_dev *target, struct sk_buff *skb)
{
	local_bh_disable();
	if (__this_cpu_read(vroce_loop_depth) >= VROCE_LOOP_MAX_DEPTH ||
	    !skb_queue_empty_lockless(&target->loop_q)) {
		skb_queue_tail(&target->loop_q, skb);
		queue_work(system_highpri_wq, &target->loop_work);
	} else {
		__this_cpu_inc(vroce_loop_depth);
		vroce_counter_inc(target, VROCE_CNT_RX_LOOPBACK);
		vroce_rcv(target, skb);
		__this_cpu_dec(vroce_loop_depth);
	}
	local_bh_enable();
}

/*
 * The vroce device owning local address @av->daddr (referenced), or NULL.
 * A RoCE v1 GID of an IPv4 address is v4-mapped like a RoCE v2 one.
 */
static struct vroce_dev *vroce_local_dev(struct net *net,
					 const struct vroce_av *av)
{
	struct net_device *ndev;
	struct vroce_dev *vdev = NULL;

	rcu_read_lock();
	if (!ipv6_addr_v4mapped(&av->daddr))
		ndev = ipv6_dev_find(net, &av->daddr, NULL);
	else
		ndev = __ip_dev_find(net, av->daddr.s6_addr32[3], false);
	if (ndev)
		vdev = vroce_dev_of_netdev(ndev);
	rcu_read_unlock();
	return vdev;
}

/**
 * vroce_pkt_sport() - RoCEv2 UDP source port for a flow
 * @entropy: flow label (or any per-flow value)
 *
 * Return: a port in 0xc000..0xffff, so ECMP spreads flows as for hardware.
 */
__be16 vroce_pkt_sport(u32 entropy)
{
	return cpu_to_be16(rdma_flow_label_to_udp_sport(entropy));
}

/**
 * vroce_av_from_attr() - address vector from an ib_core address
 * @av: filled in
 * @attr: RoCE address with GRH and source GID attribute
 *
 * Return: 0, or -EINVAL when the address is neither a RoCE v2 nor a
 * RoCE v1 one.
 */
int vroce_av_from_attr(struct vroce_av *av, const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;
	enum rdma_network_type type;
	struct net_device *ndev;
	struct vroce_dev *vdev;
	bool roce_v1;

	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) ||
	    attr->type != RDMA_AH_ATTR_TYPE_ROCE)
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	if (!grh->sgid_attr)
		return -EINVAL;
	roce_v1 = grh->sgid_attr->gid_type == IB_GID_TYPE_ROCE;
	type = rdma_gid_attr_network_type(grh->sgid_attr);
	if (!roce_v1 && type != RDMA_NETWORK_IPV4 && type != RDMA_NETWORK_IPV6)
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	av->roce_v1 = roce_v1;
	/* a RoCE v1 GRH carries the GIDs as they are: IPv6 layout */
	av->ipv6 = roce_v1 || type == RDMA_NETWORK_IPV6;
	memcpy(&av->saddr, grh->sgid_attr->gid.raw, sizeof(av->saddr));
	memcpy(&av->daddr, grh->dgid.raw, sizeof(av->daddr));
	if (!av->ipv6 && (!ipv6_addr_v4mapped(&av->saddr) ||
			  !ipv6_addr_v4mapped(&av->daddr)))
		return -EINVAL;
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	/* the port's default traffic class when the application set none */
	vdev = to_vroce_dev(grh->sgid_attr->device);
	av->tclass = vroce_qos_tclass(vdev, grh->traffic_class);
	av->prio = vroce_qos_prio(vdev, av->tclass, rdma_ah_get_sl(attr));
	/* a VLAN's GID is the VLAN device's address: send through it */
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(grh->sgid_attr);
	if (!IS_ERR(ndev) && ndev != vdev->ndev)
		av->oif = ndev->ifindex;
	rcu_read_unlock();
	av->hop_limit = grh->hop_limit ? grh->hop_limit : 64;
	av->flow_label = grh->flow_label;
	return 0;
}

/**
 * vroce_pkt_alloc() - a packet buffer with room for every header
 * @vdev: sending device
 * @len: BTH, extension headers, payload and pad; the caller skb_put()s
 *	them, net.c adds the ICRC
 *
 * Return: the skb or NULL.  Callable from any context.
 */
struct sk_buff *vroce_pkt_alloc(struct vroce_dev *vdev, unsigned int len)
{
	struct sk_buff *skb;

	skb = alloc_skb(VROCE_PKT_HEADROOM + len + VROCE_ICRC_SIZE,
			GFP_ATOMIC);
	if (skb)
		skb_reserve(skb, VROCE_PKT_HEADROOM);
	return skb;
}

/* A route @cache holds for @av, referenced, or NULL. */
static struct dst_entry *vroce_route_cached(struct vroce_route_cache *cache,
					    const struct vroce_av *av,
					    bool *local)
{
	struct dst_entry *dst;
	struct in6_addr saddr6;
	__be32 saddr;

	if (!ipv6_addr_equal(&cache->daddr, &av->daddr))
		return NULL;
	if (!av->ipv6) {
		struct rtable *rt = dst_cache_get_ip4(&cache->dst, &saddr);

		if (!rt)
			return NULL;
		if (saddr != av->saddr.s6_addr32[3]) {
			ip_rt_put(rt);
			return NULL;
		}
		*local = rt->rt_type == RTN_LOCAL;
		return &rt->dst;
	}
#if IS_ENABLED(CONFIG_IPV6)
	dst = dst_cache_get_ip6(&cache->dst, &saddr6);
	if (!dst)
		return NULL;
	if (!ipv6_addr_equal(&saddr6, &av->saddr)) {
		dst_release(dst);
		return NULL;
	}
	*local = dst->dev->flags & IFF_LOOPBACK;
	return dst;
#else
	return NULL;
#endif
}

/* Keep @dst, the route just looked up for @av, in @cache. */
static void vroce_route_keep(struct vroce_route_cache *cache,
			     const struct vroce_av *av, struct dst_entry *dst)
{
	/* the other CPUs' entries are for the old destination */
	if (!ipv6_addr_equal(&cache->daddr, &av->daddr)) {
		dst_cache_reset_now(&cache->dst);
		cache->daddr = av->daddr;
	}
	if (!av->ipv6)
		dst_cache_set_ip4(&cache->dst, dst, av->saddr.s6_addr32[3]);
#if IS_ENABLED(CONFIG_IPV6)
	else
		dst_cache_set_ip6(&cache->dst, dst, &av->saddr);
#endif
}

static struct dst_entry *vroce_route(struct net *net, struct vroce_dev *vdev,
				     const struct vroce_av *av, bool *local)
{
	if (!av->ipv6) {
		struct flowi4 fl = {};
		struct rtable *rt;

		fl.daddr = av->daddr.s6_addr32[3];
		fl.saddr = av->saddr.s6_addr32[3];
		fl.flowi4_oif = av->oif ? av->oif : vdev->ndev->ifindex;
		fl.flowi4_proto = IPPROTO_UDP;
		rt = ip_route_output_key(net, &fl);
		if (IS_ERR(rt))
			return NULL;
		*local = rt->rt_type == RTN_LOCAL;
		return &rt->dst;
	}
#if IS_ENABLED(CONFIG_IPV6)
	{
		struct vroce_netns *vn = vroce_netns(net);
		struct flowi6 fl6 = {};
		struct dst_entry *dst;

		if (!vn->sk6)
			return NULL;
		fl6.daddr = av->daddr;
		fl6.saddr = av->saddr;
		fl6.flowi6_oif = av->oif ? av->oif : vdev->ndev->ifindex;
		fl6.flowi6_proto = IPPROTO_UDP;
		dst = ipv6_stub->ipv6_dst_lookup_flow(net, vn->sk6->sk, &fl6,
						      NULL);
		if (IS_ERR(dst))
			return NULL;
		*local = dst->dev->flags & IFF_LOOPBACK;
		return dst;
	}
#else
	return NULL;
#endif
}

/*
 * An IPv6 header, or a RoCE v1 GRH (the same layout), before skb->data;
 * its payload is what the skb holds.
 */
static void vroce_push_ip6(struct sk_buff *skb, const struct vroce_av *av,
			   u8 nexthdr)
{
	unsigned int plen = skb->len;
	struct ipv6hdr *ip6h = skb_push(skb, sizeof(*ip6h));

	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, av->tclass, htonl(av->flow_label));
	ip6h->payload_len = htons(plen);
	ip6h->nexthdr = nexthdr;
	ip6h->hop_limit = av->hop_limit;
	ip6h->saddr = av->saddr;
	ip6h->daddr = av->daddr;
}

static void vroce_push_ip(struct net *net, struct sk_buff *skb,
			  const struct vroce_av *av)
{
	if (!av->ipv6) {
		struct iphdr *iph;

		skb_push(skb, sizeof(*iph));
		skb_reset_network_header(skb);
		iph = ip_hdr(skb);
		iph->version = 4;
		iph->ihl = 5;
		iph->tos = av->tclass;
		iph->tot_len = htons(skb->len);
		iph->frag_off = htons(IP_DF);
		iph->ttl = av->hop_limit;
		iph->protocol = IPPROTO_UDP;
		iph->saddr = av->saddr.s6_addr32[3];
		iph->daddr = av->daddr.s6_addr32[3];
		ip_select_ident(net, skb, NULL);
		ip_send_check(iph);
		skb->protocol = htons(ETH_P_IP);
	} else {
		vroce_push_ip6(skb, av, IPPROTO_UDP);
		skb->protocol = htons(ETH_P_IPV6);
	}
}

static int vroce_pkt_xmit(struct vroce_dev *vdev, const struct vroce_av *av,
			  struct sk_buff *skb, u32 entropy, bool corrupt,
			  struct vroce_route_cache *route);

/**
 * vroce_pkt_send() - the one place RoCEv2 packets leave a device
 * @vdev: sending device
 * @av: destination
 * @skb: from vroce_pkt_alloc(), data = BTH .. pad; consumed
 * @entropy: per-flow value for the UDP source port
 * @route: the sender's route cache (bottom halves off, one sender at a
 *	time), or NULL: the route is looked up for this packet
 *
 * Adds UDP and IP headers (RoCE v1: a GRH and the Ethernet header) and
 * the ICRC, then hands the packet to the IP stack (RoCE v1: the netdev),
 * or to the local vroce device owning the destination address, whose
 * receive path takes it before this returns (no ICRC then: there is no
 * wire).  A multicast packet also goes to the sending device's own
 * members.  Callable with the sending QP's run_lock held, but no other
 * engine lock: the receive path takes those.
 *
 * Return: 0, or -EHOSTUNREACH / -ENETUNREACH / -ENETDOWN / -ENOBUFS; the
 * packet is then dropped and counted (reliable transports retransmit).
 */
int vroce_pkt_send(struct vroce_dev *vdev, const struct vroce_av *av,
		   struct sk_buff *skb, u32 entropy,
		   struct vroce_route_cache *route)
{
	bool corrupt = false;

	if (unlikely(READ_ONCE(vdev->fault_on))) {
		skb = vroce_fault_tx(vdev, av, skb, entropy, &corrupt);
		if (!skb)
			return 0;
	}
	return vroce_pkt_xmit(vdev, av, skb, entropy, corrupt, route);
}

/* vroce_pkt_send() below the fault hook; @corrupt: after the ICRC. */
int __vroce_pkt_send(struct vroce_dev *vdev, const struct vroce_av *av,
		     struct sk_buff *skb, u32 entropy, bool corrupt)
{
	return vroce_pkt_xmit(vdev, av, skb, entropy, corrupt, NULL);
}

/*
 * The Ethernet header of a RoCE v1 frame.  It leaves through the device's
 * own netdev, which the device holds while any of its packets is queued;
 * a GID of a VLAN device on it (@av->oif) is reached with that VLAN's tag,
 * the PCP from the VLAN's egress map, as the VLAN device would send it.
 */
static int vroce_v1_push_eth(struct vroce_dev *vdev, const struct vroce_av *av,
			     struct sk_buff *skb)
{
	struct net_device *ndev = vdev->ndev;
	struct net_device *vlan;
	int err = 0;
	u16 tci;

	if (av->oif) {
		rcu_read_lock();
		vlan = dev_get_by_index_rcu(dev_net(ndev), av->oif);
		if (!vlan || !is_vlan_dev(vlan) ||
		    vlan_dev_real_dev(vlan) != ndev) {
			err = -ENETUNREACH;
		} else {
			tci = vlan_dev_vlan_id(vlan) |
			      vlan_dev_get_egress_qos_mask(vlan, skb->priority);
			__vlan_hwaccel_put_tag(skb, vlan_dev_vlan_proto(vlan),
					       tci);
		}
		rcu_read_unlock();
		if (err)
			return err;
	}
	skb->dev = ndev;
	skb->protocol = htons(ETH_P_IBOE);
	if (dev_hard_header(skb, ndev, ETH_P_IBOE, av->dmac, ndev->dev_addr,
			    skb->len) < 0)
		return -ENETUNREACH;
	skb_reset_mac_header(skb);
	return 0;
}

/*
 * vroce_pkt_xmit() for RoCE v1: a GRH instead of IP and UDP, no route (the
 * destination is on the local link: ib_core resolved its MAC), Ethertype
 * 0x8915.  A destination GID that is an address of this host is looped
 * back, as for RoCE v2.
 */
static int vroce_pkt_xmit_v1(struct vroce_dev *vdev, const struct vroce_av *av,
			     struct sk_buff *skb, u32 entropy, bool corrupt,
			     struct vroce_route_cache *route)
{
	struct net *net = dev_net(vdev->ndev);
	bool answer = vroce_pkt_is_answer(skb);
	struct vroce_dev *target = NULL;
	u32 icrc;

	if (!vroce_mcast_addr(&av->daddr))
		target = vroce_local_dev(net, av);

	skb_put(skb, VROCE_ICRC_SIZE);
	skb_reset_transport_header(skb);
	vroce_push_ip6(skb, av, VROCE_GRH_NEXT_HDR_BTH);
	skb->priority = av->prio;

	vroce_rx_cb(skb)->roce_v1 = true;
	vroce_rx_cb(skb)->no_icrc = target && !corrupt;
	if (!vroce_rx_cb(skb)->no_icrc) {
		icrc = vroce_icrc_packet(skb->data, VROCE_WIRE_V1,
					 skb->len - VROCE_ICRC_SIZE);
		put_unaligned_le32(icrc,
				   skb_tail_pointer(skb) - VROCE_ICRC_SIZE);
	}
	if (unlikely(corrupt))
		vroce_fault_corrupt(vdev, skb, sizeof(struct ipv6hdr));
	vroce_counter_inc(vdev, VROCE_CNT_TX_PACKETS);

	if (target) {
		skb_pull(skb, sizeof(struct ipv6hdr));
		vroce_loop_deliver(target, skb);
		ib_device_put(&target->ibdev);
		return 0;
	}
	if (vroce_mcast_addr(&av->daddr)) {
		vroce_mcast_loop(vdev, av, skb);
		vroce_portq_take(vdev, skb->len + ETH_HLEN);
	}
	if (vroce_v1_push_eth(vdev, av, skb)) {
		vroce_drop(vdev, skb, VROCE_CNT_TX_ERR);
		return -ENETUNREACH;
	}
	if (!vroce_mcast_addr(&av->daddr) && vroce_portq_shaped(vdev))
		return vroce_portq_xmit(vdev, skb, true, answer);
	return vroce_txq_xmit(vdev, skb, entropy, true,
			      route && route->ordered, !!route);
}

static int vroce_pkt_xmit(struct vroce_dev *vdev, const struct vroce_av *av,
			  struct sk_buff *skb, u32 entropy, bool corrupt,
			  struct vroce_route_cache *route)
{
	struct net *net = dev_net(vdev->ndev);
	struct vroce_dev *target;
	struct dst_entry *dst;
	struct sock *sk = NULL;
	struct udphdr *udph;
	bool local = false;
	bool answer;
	u32 icrc;

	if (av->roce_v1)
		return vroce_pkt_xmit_v1(vdev, av, skb, entropy, corrupt,
					 route);
	answer = vroce_pkt_is_answer(skb);
	dst = route ? vroce_route_cached(route, av, &local) : NULL;
	if (!dst) {
		dst = vroce_route(net, vdev, av, &local);
		if (dst && route)
			vroce_route_keep(route, av, dst);
	}
	if (!dst) {
		vroce_drop(vdev, skb, VROCE_CNT_TX_ERR);
		return -EHOSTUNREACH;
	}

	skb_put(skb, VROCE_ICRC_SIZE);
	udph = skb_push(skb, sizeof(*udph));
	skb_reset_transport_header(skb);
	udph->source = vroce_pkt_sport(entropy);
	udph->dest = htons(VROCE_ROCE_V2_PORT);
	udph->len = htons(skb->len);
	udph->check = 0;	/* RoCEv2: the ICRC protects the packet */
	vroce_push_ip(net, skb, av);
	skb->priority = av->prio;

	/* no wire, no ICRC: unless it is to be corrupted on the way */
	vroce_rx_cb(skb)->no_icrc = local && !corrupt;
	if (!vroce_rx_cb(skb)->no_icrc) {
		icrc = vroce_icrc_packet(skb_network_header(skb),
					 vroce_wire(false, av->ipv6),
					 skb->len - VROCE_ICRC_SIZE);
		put_unaligned_le32(icrc,
				   skb_tail_pointer(skb) - VROCE_ICRC_SIZE);
	}
	if (unlikely(corrupt))
		vroce_fault_corrupt(vdev, skb, skb_transport_offset(skb) +
				    sizeof(*udph));
	vroce_counter_inc(vdev, VROCE_CNT_TX_PACKETS);

	if (local) {
		dst_release(dst);
		target = vroce_local_dev(net, av);
		if (!target) {
			vroce_drop(vdev, skb, VROCE_CNT_TX_ERR);
			return -EHOSTUNREACH;
		}
		skb_pull(skb, skb_transport_offset(skb) + sizeof(*udph));
		vroce_rx_cb(skb)->roce_v1 = false;
		vroce_loop_deliver(target, skb);
		ib_device_put(&target->ibdev);
		return 0;
	}

	if (vroce_mcast_addr(&av->daddr)) {
		struct vroce_netns *vn = vroce_netns(net);

		vroce_mcast_loop(vdev, av, skb);
		/* the socket's IP_MULTICAST_LOOP (off) applies */
		sk = av->ipv6 ? vn->sk6->sk : vn->sk4->sk;
		vroce_portq_take(vdev, skb->len + ETH_HLEN);
	}

	skb_dst_set(skb, dst);
	/* unicast: at the port's rate when it has one set (portq.c) */
	if (!sk && vroce_portq_shaped(vdev))
		return vroce_portq_xmit(vdev, skb, av->ipv6, answer);
	if (!sk)
		/* else from the flow's home CPU, in order (txq.c) */
		return vroce_txq_xmit(vdev, skb, entropy, av->ipv6,
				      route && route->ordered, !!route);
	return vroce_pkt_out(vdev, sk, skb, av->ipv6);
}

/**
 * vroce_pkt_out() - hand a packet to the IP stack, or a RoCE v1 frame to
 *	its netdev
 * @vdev: sending device (counts a failure)
 * @sk: the multicast socket, or NULL
 * @skb: IP header on, route set; or a whole RoCE v1 frame, its device
 *	set (the device's own netdev); consumed
 * @ipv6: @skb is IPv6
 *
 * The route's device is the packet's, and its namespace the route's: a
 * queued packet's device may have left since (txq.c).
 *
 * Return: 0, or -ENOBUFS: dropped on the way (a full backlog), counted.
 */
int vroce_pkt_out(struct vroce_dev *vdev, struct sock *sk,
		  struct sk_buff *skb, bool ipv6)
{
	struct net_device *dev;
	struct net *net;
	int err;

	if (skb->protocol == htons(ETH_P_IBOE)) {
		/* net_xmit_eval() evaluates its argument twice */
		err = dev_queue_xmit(skb);
		if (unlikely(net_xmit_eval(err))) {
			vroce_counter_inc(vdev, VROCE_CNT_TX_ERR);
			return -ENOBUFS;
		}
		return 0;
	}
	dev = skb_dst(skb)->dev;
	net = dev_net(dev);
	skb->dev = dev;
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	if (ipv6)
		err = ip6_local_out(net, sk, skb);
	else
		err = ip_local_out(net, sk, skb);
	if (unlikely(net_xmit_eval(err))) {
		vroce_counter_inc(vdev, VROCE_CNT_TX_ERR);
		return -ENOBUFS;
	}
	return 0;
}

static int vroce_sock_open(struct net *net, bool ipv6, struct socket **sockp)
{
	struct udp_tunnel_sock_cfg tnl = {};
	struct udp_port_cfg cfg = {};
	struct socket *sock;
	int off = 0;
	int err;

	if (ipv6) {
		cfg.family = AF_INET6;
		cfg.ipv6_v6only = 1;
	} else {
		cfg.family = AF_INET;
	}
	cfg.local_udp_port = htons(VROCE_ROCE_V2_PORT);

	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		return err;
	/* Multicast loopback is the device's (vroce_mcast_loop()). */
	err = sock->ops->setsockopt(sock, ipv6 ? SOL_IPV6 : SOL_IP,
				    ipv6 ? IPV6_MULTICAST_LOOP :
					   IP_MULTICAST_LOOP,
				    KERNEL_SOCKPTR(&off), sizeof(off));
	if (err) {
		udp_tunnel_sock_release(sock);
		return err;
	}

	tnl.encap_type = 1;
	tnl.encap_rcv = vroce_udp_encap_recv;
	setup_udp_tunnel_sock(net, sock, &tnl);
	*sockp = sock;
	return 0;
}

static void vroce_sock_close(struct socket **sockp)
{
	if (*sockp) {
		udp_tunnel_sock_release(*sockp);
		*sockp = NULL;
	}
}

static int vroce_netns_open(struct net *net)
{
	struct vroce_netns *vn = vroce_netns(net);
	int err;

	lockdep_assert_held(&vn->lock);
	if (vn->sk4)
		return 0;

	err = vroce_sock_open(net, false, &vn->sk4);
	if (err)
		return err;

	/* A kernel booted with IPv6 disabled still gets IPv4 RoCE. */
	err = vroce_sock_open(net, true, &vn->sk6);
	if (err == -EAFNOSUPPORT)
		err = 0;
	if (err)
		vroce_sock_close(&vn->sk4);
	return err;
}

/**
 * vroce_net_get() - make sure @net has its RoCEv2 sockets
 * @net: the network namespace of a device being created
 *
 * Return: 0, or -EADDRINUSE when another user owns UDP port 4791 in @net.
 */
int vroce_net_get(struct net *net)
{
	struct vroce_netns *vn = vroce_netns(net);
	int err;

	mutex_lock(&vn->lock);
	err = vroce_netns_open(net);
	mutex_unlock(&vn->lock);
	return err;
}

/**
 * vroce_net_put() - a device of @net is gone
 * @net: the namespace passed to vroce_net_get()
 *
 * Sockets stay open until the namespace dies: reopening them for each
 * device would let another program grab the port in between.
 */
void vroce_net_put(struct net *net)
{
}

static int __net_init vroce_netns_init(struct net *net)
{
	struct vroce_netns *vn = vroce_netns(net);

	mutex_init(&vn->lock);
	atomic64_set(&vn->rx_unhandled, 0);
	return 0;
}

static void __net_exit vroce_netns_exit(struct net *net)
{
	struct vroce_netns *vn = vroce_netns(net);

	mutex_lock(&vn->lock);
	vroce_sock_close(&vn->sk6);
	vroce_sock_close(&vn->sk4);
	mutex_unlock(&vn->lock);
	mutex_destroy(&vn->lock);
}

static struct pernet_operations vroce_net_ops = {
	.init = vroce_netns_init,
	.exit = vroce_netns_exit,
	.id = &vroce_net_id,
	.size = sizeof(struct vroce_netns),
};

/**
 * vroce_net_init() - register per-netns state, open init_net's sockets
 *	and take RoCE v1 frames and PFC frames (pfc_port.c)
 *
 * Return: 0, or -EADDRINUSE when port 4791 is already taken in init_net
 * (typically by rdma_rxe), or another errno.
 */
int vroce_net_init(void)
{
	int err;

	err = register_pernet_subsys(&vroce_net_ops);
	if (err)
		return err;

	err = vroce_net_get(&init_net);
	if (err) {
		unregister_pernet_subsys(&vroce_net_ops);
		return err;
	}
	dev_add_pack(&vroce_v1_packet_type);
	vroce_pfc_port_init();
	return 0;
}

/**
 * vroce_net_exit() - stop taking RoCE v1 frames, close every namespace's
 *	sockets
 */
void vroce_net_exit(void)
{
	/* each waits for receivers in flight */
	vroce_pfc_port_exit();
	dev_remove_pack(&vroce_v1_packet_type);
	unregister_pernet_subsys(&vroce_net_ops);
}

/**
 * vroce_qp_peer_is() - is @addr the address @qp's path names?
 * @qp: a connected (RC or UC) QP in RTR or later
 * @addr: an address as a GID holds it (IPv4 v4-mapped)
 *
 * Return: true when @addr is the QP's destination GID.
 */
bool vroce_qp_peer_is(const struct vroce_qp *qp, const struct in6_addr *addr)
{
	const union ib_gid *dgid = &qp->attr.ah_attr.grh.dgid;

	return ipv6_addr_equal(addr, (const struct in6_addr *)dgid->raw);
}

/**
 * vroce_pkt_from_peer() - did an RC/UC packet come from its QP's peer?
 * @pkt: a received packet for @qp
 * @qp: a connected (RC or UC) QP in RTR or later
 *
 * A connected QP takes packets only from the address its path names: the
 * QPN and PSN of a connection are easy to guess, the source address of a
 * packet on the wire is what a peer on another host cannot choose freely
 * in a routed network.  Counted when it does not match.
 *
 * Return: true when the source address is the QP's destination GID.
 */
bool vroce_pkt_from_peer(const struct vroce_pkt *pkt, struct vroce_qp *qp)
{
	if (likely(vroce_qp_peer_is(qp, &pkt->saddr)))
		return true;
	vroce_counter_inc(pkt->vdev, VROCE_CNT_RX_ADDR_MISMATCH);
	return false;
}
