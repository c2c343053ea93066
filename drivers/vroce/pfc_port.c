// SPDX-License-Identifier: GPL-2.0
/*
 * The port's priority flow control, receive side: MAC control frames
 * (Ethertype 0x8808) arriving on a vroce device's netdev pause the
 * device's transmission of the priorities they name, as a ConnectX port's
 * MAC does (pfc.h has the frame and the state machine).
 *
 * - Only priorities with PFC on (qos/pfc) pause; a device with PFC off
 *   everywhere ignores flow control, as a port without it configured.
 *   802.3x PAUSE acts on every enabled priority.
 * - A pause lasts the frame's quanta at the port's line rate (cc/line_rate,
 *   taken from the netdev's speed; 10 Gb/s when the netdev has none).
 * - The port's FIFO (portq.c) holds a paused priority's packets in order;
 *   the other priorities keep going.  The FIFO takes every packet of the
 *   device while PFC is on for a priority.
 * - The watchdog (qos/pfc_prevention_tout, ConnectX's pfc-prevention-tout)
 *   takes over a priority paused longer than its timeout: the priority's
 *   queued and new packets are dropped and its frames ignored until they
 *   stop for one timeout, so a peer that never stops pausing (a PFC storm)
 *   cannot hang the host's QPs: they end in retry errors.
 *
 * Frames come from the wire: one too short for its opcode, with another
 * opcode, for another station or naming only priorities without PFC is
 * counted in rx_pause_ignored and changes nothing.  The pause state lives
 * in the port's FIFO, under its lock: the drain reads it per packet.
 */
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "pfc.h"
#include "vroce.h"

/* The pause time unit's speed on a netdev that reports none. */
#define VROCE_PFC_DEFAULT_KBPS	(10000 * VROCE_DCQCN_KBPS_PER_MBPS)

/* 802.1Qbb and 802.3x: MAC control frames go to this group address. */
const u8 vroce_pfc_group[ETH_ALEN] = {
	0x01, 0x80, 0xc2, 0x00, 0x00, 0x01
};

/**
 * vroce_pfc_port_kbps() - the speed a pause time's quanta are counted at
 * @vdev: the device
 *
 * Return: the port's line rate in kb/s (cc/line_rate, else the netdev's
 * speed, else 10 Gb/s).
 */
u64 vroce_pfc_port_kbps(struct vroce_dev *vdev)
{
	u64 mbps = READ_ONCE(vdev->cc.line_rate_mbps);

	return mbps ? mbps * VROCE_DCQCN_KBPS_PER_MBPS : VROCE_PFC_DEFAULT_KBPS;
}

/**
 * vroce_pfc_port_tout_ns() - the PFC watchdog's timeout
 * @vdev: the device
 *
 * Return: nanoseconds, 0 for no watchdog.
 */
u64 vroce_pfc_port_tout_ns(struct vroce_dev *vdev)
{
	return (u64)READ_ONCE(vdev->qos.pfc_tout_ms) * NSEC_PER_MSEC;
}

/* Count what a state change did; drop what the watchdog took over. */
static void vroce_pfc_port_account(struct vroce_dev *vdev,
				   const struct vroce_pfc_events *ev)
{
	struct vroce_portq *pq = &vdev->portq;
	unsigned int prio;

	lockdep_assert_held(&pq->q.lock);
	for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++) {
		if (ev->paused_ns[prio])
			vroce_counter_add(vdev,
					  VROCE_CNT_RX_PRIO0_PAUSE_DURATION + prio,
					  ev->paused_ns[prio]);
		if (!(ev->fired & BIT(prio)))
			continue;
		vroce_counter_inc(vdev, VROCE_CNT_PFC_WATCHDOG_EVENTS);
		ibdev_warn_ratelimited(&vdev->ibdev,
				       "PFC watchdog: priority %u paused for over %u ms; its packets are dropped until the pause frames stop\n",
				       prio, READ_ONCE(vdev->qos.pfc_tout_ms));
	}
	if (ev->fired)
		vroce_portq_pfc_drop(vdev, ev->fired);
	pq->pfc_next_ns = vroce_pfc_next_ns(&pq->pfc,
					    vroce_pfc_port_tout_ns(vdev));
}

/* The pause time so far, pauses that ran out, the watchdog: all of it. */
static void vroce_pfc_port_run(struct vroce_dev *vdev, u64 now)
{
	struct vroce_pfc_events ev = {};

	lockdep_assert_held(&vdev->portq.q.lock);
	vroce_pfc_tick(&vdev->portq.pfc, vroce_pfc_port_tout_ns(vdev), now,
		       &ev);
	vroce_pfc_port_account(vdev, &ev);
}

/**
 * vroce_pfc_port_tick() - end pauses that ran out, run the watchdog
 * @vdev: the device
 * @now: ktime_get_ns()
 *
 * Cheap when nothing is due: the drain calls it per packet.
 *
 * Context: the port's FIFO lock held.
 */
void vroce_pfc_port_tick(struct vroce_dev *vdev, u64 now)
{
	struct vroce_portq *pq = &vdev->portq;

	lockdep_assert_held(&pq->q.lock);
	if (pq->pfc_next_ns && now >= pq->pfc_next_ns)
		vroce_pfc_port_run(vdev, now);
}

/**
 * vroce_pfc_port_settle() - count pause time up to now (counters read)
 * @vdev: the device
 *
 * Context: process or softirq, no FIFO lock held.
 */
void vroce_pfc_port_settle(struct vroce_dev *vdev)
{
	struct vroce_portq *pq = &vdev->portq;

	spin_lock_bh(&pq->q.lock);
	vroce_pfc_port_run(vdev, ktime_get_ns());
	spin_unlock_bh(&pq->q.lock);
}

/**
 * vroce_pfc_port_set() - PFC was turned on or off for priorities
 * @vdev: the device
 * @enabled: the priorities it is on for now
 *
 * A priority it was turned off for runs again at once, whatever paused it.
 *
 * Context: process, no FIFO lock held.
 */
void vroce_pfc_port_set(struct vroce_dev *vdev, u8 enabled)
{
	struct vroce_portq *pq = &vdev->portq;
	struct vroce_pfc_req resume = { .mask = (u8)~enabled };
	struct vroce_pfc_events ev = {};
	unsigned int prio;

	spin_lock_bh(&pq->q.lock);
	WRITE_ONCE(vdev->qos.pfc, enabled);
	vroce_pfc_apply(&pq->pfc, &resume, resume.mask,
			vroce_pfc_port_kbps(vdev), ktime_get_ns(), &ev);
	for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++)
		if (resume.mask & BIT(prio))
			pq->pfc.storm_ns[prio] = 0;
	vroce_pfc_port_account(vdev, &ev);
	spin_unlock_bh(&pq->q.lock);
	local_bh_disable();
	vroce_portq_kick(vdev);
	local_bh_enable();
}

/*
 * What a frame asks, or false when it is not for this port: too short,
 * another opcode, another station's.
 */
static bool vroce_pfc_port_parse(struct vroce_dev *vdev, struct sk_buff *skb,
				 struct vroce_pfc_req *req)
{
	const u8 *dest = eth_hdr(skb)->h_dest;
	u8 buf[VROCE_PFC_PAYLOAD_LEN];
	unsigned int len;
	const u8 *p;

	if (!ether_addr_equal(dest, vroce_pfc_group) &&
	    !ether_addr_equal(dest, vdev->ndev->dev_addr))
		return false;
	/* a PAUSE frame's opcode and time fit in a PFC frame's length */
	len = min_t(unsigned int, skb->len, sizeof(buf));
	p = skb_header_pointer(skb, 0, len, buf);
	return p && !vroce_pfc_parse(p, len, req);
}

/*
 * Receive entry of MAC control frames, from any netdev of any namespace:
 * the frames of a vroce device's netdev act on it; the rest are left
 * alone (a real NIC's MAC eats them before the stack sees them).
 */
static int vroce_pfc_port_rcv(struct sk_buff *skb, struct net_device *ndev,
			      struct packet_type *pt,
			      struct net_device *orig_dev)
{
	struct vroce_pfc_events ev = {};
	struct vroce_pfc_req req;
	struct ib_device *ibdev;
	struct vroce_portq *pq;
	struct vroce_dev *vdev;
	unsigned int prio;
	u8 honoured = 0;
	bool busy;
	u64 now;

	if (skb->pkt_type == PACKET_LOOPBACK || is_vlan_dev(ndev))
		goto free;
	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (!ibdev)
		goto free;
	vdev = to_vroce_dev(ibdev);
	pq = &vdev->portq;
	if (vroce_pfc_port_parse(vdev, skb, &req)) {
		now = ktime_get_ns();
		spin_lock(&pq->q.lock);
		/* the watchdog first: it may have taken the priority over */
		vroce_pfc_port_tick(vdev, now);
		honoured = vroce_pfc_apply(&pq->pfc, &req,
					   READ_ONCE(vdev->qos.pfc),
					   vroce_pfc_port_kbps(vdev), now, &ev);
		vroce_pfc_port_account(vdev, &ev);
		busy = pq->busy;
		spin_unlock(&pq->q.lock);
		/* a priority may have resumed: the drain looks again */
		if (honoured && busy)
			vroce_portq_kick(vdev);
	}
	for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++)
		if (honoured & BIT(prio))
			vroce_counter_inc(vdev, VROCE_CNT_RX_PRIO0_PAUSE + prio);
	if (!honoured)
		vroce_counter_inc(vdev, VROCE_CNT_RX_PAUSE_IGNORED);
	ib_device_put(ibdev);
	consume_skb(skb);
	return NET_RX_SUCCESS;
free:
	kfree_skb(skb);
	return NET_RX_DROP;
}

static struct packet_type vroce_pfc_packet_type __read_mostly = {
	.type = cpu_to_be16(ETH_P_PAUSE),
	.func = vroce_pfc_port_rcv,
};

/**
 * vroce_pfc_port_init() - take MAC control frames (module load)
 */
void vroce_pfc_port_init(void)
{
	dev_add_pack(&vroce_pfc_packet_type);
}

/**
 * vroce_pfc_port_exit() - stop taking them; waits for receivers in flight
 */
void vroce_pfc_port_exit(void)
{
	dev_remove_pack(&vroce_pfc_packet_type);
}

/**
 * vroce_pfc_port_open() - a new device's netdev receives MAC control frames
 * @vdev: the device
 *
 * A NIC's MAC takes PFC and PAUSE frames whatever its address filter
 * says.  The netdev under vroce passes on only the group addresses it was
 * asked for when it filters at all: a virtual NIC between two VMs dropped
 * every PFC frame its peer sent, where a veth, which filters nothing,
 * passed them.
 */
void vroce_pfc_port_open(struct vroce_dev *vdev)
{
	vdev->pfc_group_added = !dev_mc_add(vdev->ndev, vroce_pfc_group);
}

/**
 * vroce_pfc_port_close() - undo vroce_pfc_port_open()
 * @vdev: the device, going
 */
void vroce_pfc_port_close(struct vroce_dev *vdev)
{
	if (vdev->pfc_group_added)
		dev_mc_del(vdev->ndev, vroce_pfc_group);
	vdev->pfc_group_added = false;
}
