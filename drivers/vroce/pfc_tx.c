// SPDX-License-Identifier: GPL-2.0
/*
 * The port's priority flow control, transmit side: when a priority's
 * receive backlog passes qos/pfc_xoff, the port asks its peer to pause
 * that priority with 802.1Qbb frames, renewed before each pause runs out,
 * until the backlog falls below qos/pfc_xon; then one frame with pause
 * time 0 lets the peer go on.  A packet of a paused priority that arrives
 * when a renewal is due renews the pause too.  Only priorities with PFC
 * on (qos/pfc) ask.
 *
 * vroce's receive path takes a packet in the softirq that brought it, so
 * its only backlog is the one fault injection's delay builds (fault.c):
 * that is the slow receiver PFC protects, and its buffer's size, per
 * priority, is VROCE_PFC_RX_BUFFER.  xoff below the buffer leaves room
 * for what is on its way while the peer hears the pause.
 *
 * Frames leave through the device's netdev, to the group address every
 * port takes MAC control frames on, counted in tx_prioN_pause for each
 * priority a frame names.
 */
#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <linux/pkt_sched.h>
#include <linux/skbuff.h>

#include "pfc.h"
#include "vroce.h"

/* What a pause frame asks for: the longest pause, renewed in time. */
#define VROCE_PFC_TX_QUANTA	0xffff
/* A pause is renewed when this part of it has passed (1 / N). */
#define VROCE_PFC_TX_RENEW_DIV	4
/* A MAC control frame's size without FCS: the minimum frame. */
#define VROCE_PFC_TX_FRAME	ETH_ZLEN

/* Send one PFC frame: @pause's priorities paused, @resume's resumed. */
static void vroce_pfc_tx_frame(struct vroce_dev *vdev, u8 pause, u8 resume)
{
	struct net_device *ndev = vdev->ndev;
	unsigned int prio;
	struct sk_buff *skb;
	u8 *p;

	skb = alloc_skb(LL_RESERVED_SPACE(ndev) + VROCE_PFC_TX_FRAME,
			GFP_ATOMIC);
	if (!skb)
		return;
	skb_reserve(skb, LL_RESERVED_SPACE(ndev));
	/* the MAC control payload: where packet taps look for a header */
	skb_reset_network_header(skb);
	p = skb_put_zero(skb, VROCE_PFC_TX_FRAME - ETH_HLEN);
	put_unaligned_be16(VROCE_PFC_OP_PFC, p);
	put_unaligned_be16(pause | resume, p + 2);
	for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++)
		if (pause & BIT(prio))
			put_unaligned_be16(VROCE_PFC_TX_QUANTA, p + 4 + 2 * prio);
	skb->dev = ndev;
	skb->protocol = htons(ETH_P_PAUSE);
	skb->priority = TC_PRIO_CONTROL;
	if (dev_hard_header(skb, ndev, ETH_P_PAUSE, vroce_pfc_group,
			    ndev->dev_addr, skb->len) < 0) {
		kfree_skb(skb);
		return;
	}
	skb_reset_mac_header(skb);
	/* a lost frame is sent again at the next renewal */
	dev_queue_xmit(skb);
	for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++)
		if ((pause | resume) & BIT(prio))
			vroce_counter_inc(vdev, VROCE_CNT_TX_PRIO0_PAUSE + prio);
}

/* How often a running pause is renewed. */
static u64 vroce_pfc_tx_renew_ns(struct vroce_dev *vdev)
{
	return vroce_pfc_quanta_ns(VROCE_PFC_TX_QUANTA,
				   vroce_pfc_port_kbps(vdev)) /
	       VROCE_PFC_TX_RENEW_DIV;
}

/*
 * Renew the pauses asked for; priorities PFC was turned off for since
 * are let go.
 */
static enum hrtimer_restart vroce_pfc_tx_renew(struct hrtimer *t)
{
	struct vroce_pfc_tx *tx = container_of(t, struct vroce_pfc_tx, renew);
	struct vroce_dev *vdev = container_of(tx, struct vroce_dev, pfc_tx);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	u8 pause, resume;

	spin_lock(&tx->lock);
	resume = tx->xoff & ~READ_ONCE(vdev->qos.pfc);
	tx->xoff &= ~resume;
	pause = tx->xoff;
	if (pause | resume)
		tx->sent_ns = ktime_get_ns();
	/* under the lock: vroce_pfc_tx_backlog() starts it only when idle */
	if (pause && !tx->dead) {
		hrtimer_forward_now(t, ns_to_ktime(vroce_pfc_tx_renew_ns(vdev)));
		ret = HRTIMER_RESTART;
	} else {
		tx->renewing = false;
	}
	spin_unlock(&tx->lock);
	if (pause | resume)
		vroce_pfc_tx_frame(vdev, pause, resume);
	return ret;
}

/**
 * vroce_pfc_tx_backlog() - a priority's receive backlog changed
 * @vdev: the receiving device
 * @prio: the priority
 * @bytes: its backlog now
 *
 * Crossing xoff upwards (PFC on for @prio) sends a pause and starts its
 * renewal; falling below xon sends the resume.
 *
 * Context: any but hard interrupts; no vroce lock held.
 */
void vroce_pfc_tx_backlog(struct vroce_dev *vdev, unsigned int prio,
			  u32 bytes)
{
	struct vroce_pfc_tx *tx = &vdev->pfc_tx;
	u8 bit = BIT(prio), pause = 0, resume = 0;
	u64 now;

	spin_lock_bh(&tx->lock);
	if (tx->dead) {
		spin_unlock_bh(&tx->lock);
		return;
	}
	now = ktime_get_ns();
	if (!(tx->xoff & bit) && (READ_ONCE(vdev->qos.pfc) & bit) &&
	    bytes >= READ_ONCE(vdev->qos.pfc_xoff)) {
		tx->xoff |= bit;
		pause = tx->xoff;
	} else if ((tx->xoff & bit) && bytes < READ_ONCE(vdev->qos.pfc_xon)) {
		tx->xoff &= ~bit;
		resume = bit;
	} else if ((tx->xoff & bit) &&
		   now - tx->sent_ns >= vroce_pfc_tx_renew_ns(vdev)) {
		/*
		 * The renewal timer runs late (a loaded or emulated CPU) and
		 * the peer's pause ran out: its packets come again.  Each
		 * one renews the pause, so the burst stays short.
		 */
		pause = tx->xoff;
	}
	if (pause | resume)
		tx->sent_ns = now;
	/* the timer runs, or is about to stop, while renewing is set */
	if (tx->xoff && !tx->renewing) {
		tx->renewing = true;
		hrtimer_start(&tx->renew,
			      ns_to_ktime(vroce_pfc_tx_renew_ns(vdev)),
			      HRTIMER_MODE_REL_SOFT);
	}
	spin_unlock_bh(&tx->lock);
	if (pause | resume)
		vroce_pfc_tx_frame(vdev, pause, resume);
}

/**
 * vroce_pfc_tx_init() - a new device asks for no pause
 * @vdev: the device, before it receives
 */
void vroce_pfc_tx_init(struct vroce_dev *vdev)
{
	struct vroce_pfc_tx *tx = &vdev->pfc_tx;

	spin_lock_init(&tx->lock);
	tx->xoff = 0;
	tx->sent_ns = 0;
	tx->renewing = false;
	tx->dead = false;
	hrtimer_init(&tx->renew, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	tx->renew.function = vroce_pfc_tx_renew;
}

/**
 * vroce_pfc_tx_cleanup() - stop renewing pauses
 * @vdev: the device, its receive backlog gone (vroce_fault_cleanup())
 *
 * The peer's pauses run out by themselves.
 */
void vroce_pfc_tx_cleanup(struct vroce_dev *vdev)
{
	struct vroce_pfc_tx *tx = &vdev->pfc_tx;

	spin_lock_bh(&tx->lock);
	tx->dead = true;
	tx->xoff = 0;
	spin_unlock_bh(&tx->lock);
	hrtimer_cancel(&tx->renew);
}
