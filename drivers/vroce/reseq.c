// SPDX-License-Identifier: GPL-2.0
/*
 * RC responder resequencing: a request ahead of a gap waits for it.
 *
 * RC's go-back-N assumes a wire that keeps one QP's packets in order: a
 * request past a gap is discarded, the responder NAKs once and the
 * requester sends everything again from the gap.  A NIC's wire keeps that
 * order; the netdevs under a software device do not always.  A qdisc that
 * delays packets (tbf, netem) dequeues on whichever CPU its timer or a
 * sender runs on, and a veth queues what a CPU sends on that CPU's own
 * receive backlog, so two CPUs' backlogs race with one flow's packets in
 * both.  vroce sends each QP's packets in order (txq.c), yet one paced QP
 * through a 100 Mb/s tbf on a bridge's port arrived 137 times out of order
 * in 20 s, each time costing a NAK and a resent window.
 *
 * So a request that arrives fewer than VROCE_RESEQ_SLOTS PSNs ahead of the
 * expected one is held, for at most rx_reorder_us (module parameter) from
 * when the gap opened or last moved.  When the gap fills, the held
 * requests run in PSN order, as if they had arrived so (rx_resequenced
 * counts them).  When it does not, they are discarded (out_of_sequence)
 * and the sequence error NAK leaves then, as it would have on arrival: a
 * real loss costs up to rx_reorder_us more to recover.  With 0 every
 * request past a gap is discarded at once, as rdma_rxe does.  A request
 * further ahead, or one after the NAK went, takes that path too.
 *
 * The slot table, indexed by PSN, is allocated the first time a QP needs
 * it and freed with the QP; each held request is a copy of its parsed
 * packet.  Both are allocated on receive: without memory the request
 * takes the old path.  Everything here runs under the responder's lock; the
 * timer (a softirq) takes that lock to expire the gap.
 */
#include <linux/hrtimer.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "vroce.h"
#include "reseq.h"

/*
 * PSNs a held request may be ahead of the expected one, plus one: the
 * depth of a tbf's burst (64 KiB) in 1 KiB packets, four times over.
 */
#define VROCE_RESEQ_SLOTS	256

static unsigned int vroce_rx_reorder_us = 10000;

static int vroce_rx_reorder_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, USEC_PER_SEC);
}

static const struct kernel_param_ops vroce_rx_reorder_ops = {
	.set = vroce_rx_reorder_set,
	.get = param_get_uint,
};

module_param_cb(rx_reorder_us, &vroce_rx_reorder_ops, &vroce_rx_reorder_us,
		0644);
MODULE_PARM_DESC(rx_reorder_us,
		 "how long an RC request ahead of a gap waits for it, in us (0: discarded at once; default 10000)");

/**
 * struct vroce_reseq - the requests one RC responder holds ahead of a gap
 * @timer: expires the gap (vroce_resp_gap_expired())
 * @qp: the QP whose responder this is
 * @gap_psn: the expected PSN when @timer was started
 * @nheld: slots in use
 * @slot: held requests, at their PSN modulo VROCE_RESEQ_SLOTS; NULL
 *	where none is
 */
struct vroce_reseq {
	struct hrtimer timer;
	struct vroce_qp *qp;
	u32 gap_psn;
	unsigned int nheld;
	struct vroce_pkt *slot[VROCE_RESEQ_SLOTS];
};

static enum hrtimer_restart vroce_reseq_expired(struct hrtimer *timer)
{
	struct vroce_reseq *rs = container_of(timer, struct vroce_reseq, timer);

	vroce_resp_gap_expired(rs->qp);
	return HRTIMER_NORESTART;
}

static struct vroce_reseq *vroce_reseq_get(struct vroce_qp *qp)
{
	struct vroce_reseq *rs = qp->resp.reseq;

	if (rs)
		return rs;
	rs = kzalloc(sizeof(*rs), GFP_ATOMIC | __GFP_NOWARN);
	if (!rs)
		return NULL;
	hrtimer_init(&rs->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	rs->timer.function = vroce_reseq_expired;
	rs->qp = qp;
	qp->resp.reseq = rs;
	return rs;
}

/* The gap at the expected PSN gets its own full wait. */
static void vroce_reseq_arm(struct vroce_qp *qp, struct vroce_reseq *rs)
{
	rs->gap_psn = qp->resp.epsn;
	hrtimer_start(&rs->timer,
		      ns_to_ktime((u64)READ_ONCE(vroce_rx_reorder_us) *
				  NSEC_PER_USEC),
		      HRTIMER_MODE_REL_SOFT);
}

/* Move the request in @slot to @pkt, whose skb it then is. */
static void vroce_reseq_take(struct vroce_reseq *rs, struct vroce_pkt **slot,
			     struct vroce_pkt *pkt)
{
	*pkt = **slot;
	kfree(*slot);
	*slot = NULL;
	rs->nheld--;
}

static void vroce_reseq_free_slot(struct vroce_reseq *rs,
				  struct vroce_pkt **slot)
{
	struct vroce_pkt pkt;

	vroce_reseq_take(rs, slot, &pkt);
	kfree_skb(pkt.skb);
}

/**
 * vroce_reseq_hold() - hold an RC request that arrived ahead of a gap
 * @qp: the QP
 * @pkt: the request; held, its skb is the responder's and @pkt->skb NULL
 * @ahead: PSNs between the expected one and @pkt's (> 0)
 *
 * Return: true if @pkt was taken (held, or a second copy of a held PSN,
 * freed); false if it takes the go-back-N path: too far ahead, the NAK
 * for this gap already sent, resequencing off, or no memory.
 */
bool vroce_reseq_hold(struct vroce_qp *qp, struct vroce_pkt *pkt, s32 ahead)
{
	struct vroce_pkt **slot, *held;
	struct vroce_reseq *rs;

	lockdep_assert_held(&qp->resp.lock);
	if (!READ_ONCE(vroce_rx_reorder_us) || ahead <= 0 ||
	    ahead >= VROCE_RESEQ_SLOTS || qp->resp.nak_sent)
		return false;
	rs = vroce_reseq_get(qp);
	if (!rs)
		return false;
	slot = &rs->slot[pkt->psn % VROCE_RESEQ_SLOTS];
	if (*slot) {
		if ((*slot)->psn == pkt->psn) {
			vroce_counter_inc(qp->vdev,
					  VROCE_CNT_DUPLICATE_REQUEST);
			kfree_skb(pkt->skb);
			pkt->skb = NULL;
			return true;
		}
		/*
		 * A PSN the expected one went past without running it (a
		 * peer that sent requests inside a READ's PSN range): it
		 * will never be next.
		 */
		vroce_reseq_free_slot(rs, slot);
		vroce_counter_inc(qp->vdev, VROCE_CNT_OUT_OF_SEQUENCE);
	}
	held = kmemdup(pkt, sizeof(*pkt), GFP_ATOMIC | __GFP_NOWARN);
	if (!held)
		return false;
	*slot = held;
	pkt->skb = NULL;
	if (!rs->nheld++)
		vroce_reseq_arm(qp, rs);
	return true;
}

/**
 * vroce_reseq_next() - the held request at the expected PSN, if any
 * @qp: the QP
 * @pkt: gets it; its skb is then the caller's
 *
 * Called after every request that ran: when none is held at the expected
 * PSN but some are held, the gap moved or stays; a moved gap gets its
 * own full wait.
 *
 * Return: true if @pkt was filled.
 */
bool vroce_reseq_next(struct vroce_qp *qp, struct vroce_pkt *pkt)
{
	struct vroce_reseq *rs = qp->resp.reseq;
	u32 epsn = qp->resp.epsn;
	struct vroce_pkt **slot;

	lockdep_assert_held(&qp->resp.lock);
	if (!rs || !rs->nheld)
		return false;
	slot = &rs->slot[epsn % VROCE_RESEQ_SLOTS];
	if (*slot && (*slot)->psn == epsn) {
		vroce_reseq_take(rs, slot, pkt);
		vroce_counter_inc(qp->vdev, VROCE_CNT_RX_RESEQUENCED);
		if (!rs->nheld)
			hrtimer_try_to_cancel(&rs->timer);
		return true;
	}
	if (rs->gap_psn != epsn)
		vroce_reseq_arm(qp, rs);
	return false;
}

/**
 * vroce_reseq_take_any() - one held request, whichever
 * @qp: the QP
 * @pkt: gets it; its skb is then the caller's
 *
 * For the gap's expiry, which answers the peer the held requests came
 * from.
 *
 * Return: true if @pkt was filled; false if nothing is held, or if the
 * gap got a new wait since the timer fired.
 */
bool vroce_reseq_take_any(struct vroce_qp *qp, struct vroce_pkt *pkt)
{
	struct vroce_reseq *rs = qp->resp.reseq;
	unsigned int i;

	lockdep_assert_held(&qp->resp.lock);
	/* started again (the gap moved) while its expiry waited for the lock */
	if (!rs || !rs->nheld || hrtimer_is_queued(&rs->timer))
		return false;
	for (i = 0; i < VROCE_RESEQ_SLOTS; i++) {
		if (rs->slot[i]) {
			vroce_reseq_take(rs, &rs->slot[i], pkt);
			return true;
		}
	}
	return false;
}

/**
 * vroce_reseq_drop() - discard every held request
 * @qp: the QP
 *
 * Return: how many were held (the caller says whether they count as
 * out_of_sequence).
 */
unsigned int vroce_reseq_drop(struct vroce_qp *qp)
{
	struct vroce_reseq *rs = qp->resp.reseq;
	unsigned int i, n;

	lockdep_assert_held(&qp->resp.lock);
	if (!rs || !rs->nheld)
		return 0;
	n = rs->nheld;
	for (i = 0; i < VROCE_RESEQ_SLOTS && rs->nheld; i++)
		if (rs->slot[i])
			vroce_reseq_free_slot(rs, &rs->slot[i]);
	hrtimer_try_to_cancel(&rs->timer);
	return n;
}

/**
 * vroce_reseq_cleanup() - free a QP's resequencing state
 * @qp: the QP being destroyed; no packet can reach it any more
 */
void vroce_reseq_cleanup(struct vroce_qp *qp)
{
	struct vroce_reseq *rs = qp->resp.reseq;

	if (!rs)
		return;
	hrtimer_cancel(&rs->timer);
	spin_lock_bh(&qp->resp.lock);
	vroce_reseq_drop(qp);
	qp->resp.reseq = NULL;
	spin_unlock_bh(&qp->resp.lock);
	kfree(rs);
}
