// SPDX-License-Identifier: GPL-2.0
/*
 * The reaction point: CNPs arriving for an RC QP drive its DCQCN state
 * (cc/dcqcn.c), and the rate increase timer brings the rate back.  The
 * rate DCQCN gives is what the pacer (cc/pace.c) lets packets out at.
 *
 * Time is the monotonic clock.  The alpha timer does not run as a timer:
 * its periods are counted from alpha_epoch_ns and applied just before
 * every other event, which gives the sequence a timer would have given
 * (the rate steps never read alpha; only a cut does) at no cost while the
 * QP is idle.  The rate increase timer is an hrtimer armed while DCQCN
 * limits the QP; one that fires late still steps once per rp_time_reset
 * that passed, at the times it would have fired, so the trajectory does
 * not depend on how loaded the machine is.
 */
#include "vroce.h"

#define CREATE_TRACE_POINTS
#include "cc/trace.h"

/* Timer steps taken in one firing at most: a QP recovers in far fewer. */
#define VROCE_CC_RP_MAX_STEPS	64

/* Apply the alpha periods that ended by @now. */
static void vroce_cc_alpha_catch_up(struct vroce_cc_qp *cc,
				    const struct vroce_dcqcn_cfg *cfg, u64 now)
{
	u64 period = (u64)cfg->p.rp_dce_tcp_rtt * NSEC_PER_USEC;
	enum vroce_dcqcn_reason why;
	u64 n;

	lockdep_assert_held(&cc->lock);
	if (!period || now <= cc->alpha_epoch_ns)
		return;
	n = div64_u64(now - cc->alpha_epoch_ns, period);
	if (!n)
		return;
	cc->alpha_epoch_ns += n * period;
	why = vroce_dcqcn_on_alpha_timer(cfg, &cc->dcqcn,
					 min_t(u64, n, U32_MAX));
	if (why != VROCE_DCQCN_NONE)
		trace_vroce_cc_rate(cc->qp->ibqp.qp_num, cc->dcqcn.rc,
				    &cc->dcqcn, why, min_t(u64, n, U32_MAX));
}

/**
 * vroce_cc_rp_rate() - DCQCN's rate changed: tell the pacer
 * @cc: the QP's state (lock held)
 * @why: the step that changed it
 * @old: the rate before, kb/s
 * @arg: the step's argument, for the tracepoint (bytes, periods)
 */
void vroce_cc_rp_rate(struct vroce_cc_qp *cc, enum vroce_dcqcn_reason why,
		      u32 old, u32 arg)
{
	lockdep_assert_held(&cc->lock);
	if (why == VROCE_DCQCN_NONE)
		return;
	trace_vroce_cc_rate(cc->qp->ibqp.qp_num, old, &cc->dcqcn, why, arg);
	WRITE_ONCE(cc->pace_kbps, cc->dcqcn.limited ? cc->dcqcn.rc : 0);
}

/*
 * A CNP for @qp: false when it is to be ignored (not RC, not in a state
 * that sends, not from the peer, congestion control off for the QP's
 * priority).  RTR counts: a responder answers READs from RTR (perftest
 * never moves a READ server's QP to RTS), and its READ responses are
 * what the CNP is about.
 */
static bool vroce_cc_cnp_for(struct vroce_qp *qp, const struct vroce_pkt *pkt)
{
	enum ib_qp_state state = vroce_qp_state(qp);

	if (qp->ibqp.qp_type != IB_QPT_RC ||
	    (state != IB_QPS_RTR && state != IB_QPS_RTS &&
	     state != IB_QPS_SQD))
		return false;
	if (!vroce_pkt_from_peer(pkt, qp))
		return false;
	return vroce_cc_qp_rp_on(qp);
}

/**
 * vroce_cc_cnp_rcv() - a CNP arrived
 * @pkt: parsed packet, its length checked; its skb is consumed
 *
 * Counted rp_cnp_handled when it reached a QP's DCQCN, rp_cnp_ignored
 * otherwise (no such QP, not RC, not from the QP's peer, no BECN, or
 * congestion control off for the QP).
 */
void vroce_cc_cnp_rcv(struct vroce_pkt *pkt)
{
	struct vroce_dev *vdev = pkt->vdev;
	enum vroce_dcqcn_reason why;
	struct vroce_dcqcn_cfg cfg;
	struct vroce_cc_qp *cc;
	struct vroce_qp *qp;
	u64 now;
	u32 old;

	qp = vroce_qp_get(vdev, pkt->qpn);
	if (!qp || !vroce_bth_becn(pkt->bth) || !vroce_cc_cnp_for(qp, pkt)) {
		vroce_counter_inc(vdev, VROCE_CNT_RP_CNP_IGNORED);
		trace_vroce_cnp_recv(pkt->qpn, false);
		goto out;
	}
	cc = &qp->cc;
	vroce_cc_cfg(vdev, &cfg);
	now = ktime_get_ns();

	spin_lock_bh(&cc->lock);
	if (!cc->rp_active) {
		vroce_dcqcn_init(&cfg, &cc->dcqcn);
		cc->rp_active = true;
		cc->alpha_epoch_ns = now;
	} else {
		vroce_cc_alpha_catch_up(cc, &cfg, now);
	}
	old = cc->dcqcn.rc;
	why = vroce_dcqcn_on_cnp(&cfg, &cc->dcqcn, div_u64(now, NSEC_PER_USEC));
	/* the paper's alpha timer counts from the last CNP */
	if (cfg.flavour == VROCE_DCQCN_PAPER)
		cc->alpha_epoch_ns = now;
	vroce_cc_rp_rate(cc, why, old, 0);
	/* every CNP restarts the increases (a coalesced one too) */
	if (cc->dcqcn.limited)
		hrtimer_start(&cc->rp_timer,
			      ns_to_ktime(now + (u64)cfg.p.rp_time_reset *
					  NSEC_PER_USEC),
			      HRTIMER_MODE_ABS_SOFT);
	spin_unlock_bh(&cc->lock);
	vroce_counter_inc(vdev, VROCE_CNT_RP_CNP_HANDLED);
	trace_vroce_cnp_recv(pkt->qpn, true);
out:
	if (qp)
		vroce_qp_put(qp);
	kfree_skb(pkt->skb);
}

/**
 * vroce_cc_rp_fire() - DCQCN's rate increase timer
 * @t: the QP's rp_timer
 *
 * Return: HRTIMER_RESTART while DCQCN still limits the QP.
 */
enum hrtimer_restart vroce_cc_rp_fire(struct hrtimer *t)
{
	struct vroce_cc_qp *cc = container_of(t, struct vroce_cc_qp, rp_timer);
	enum vroce_dcqcn_reason why;
	struct vroce_dcqcn_cfg cfg;
	u64 now, at, period;
	bool again;
	int steps;
	u32 old;

	vroce_cc_cfg(cc->qp->vdev, &cfg);
	period = (u64)max(cfg.p.rp_time_reset, 1U) * NSEC_PER_USEC;
	now = ktime_get_ns();

	spin_lock_bh(&cc->lock);
	/* a CNP restarted the timer meanwhile: that start stands */
	if (hrtimer_is_queued(t)) {
		spin_unlock_bh(&cc->lock);
		return HRTIMER_NORESTART;
	}
	at = ktime_to_ns(hrtimer_get_expires(t));
	for (steps = 0; cc->rp_active && cc->dcqcn.limited && at <= now &&
	     steps < VROCE_CC_RP_MAX_STEPS; steps++) {
		vroce_cc_alpha_catch_up(cc, &cfg, at);
		old = cc->dcqcn.rc;
		why = vroce_dcqcn_on_timer(&cfg, &cc->dcqcn);
		vroce_cc_rp_rate(cc, why, old, 0);
		at += period;
	}
	if (at <= now)		/* too late by far: go on from now */
		at = now + period;
	again = cc->rp_active && cc->dcqcn.limited;
	if (again)
		hrtimer_set_expires(t, ns_to_ktime(at));
	spin_unlock_bh(&cc->lock);
	return again ? HRTIMER_RESTART : HRTIMER_NORESTART;
}
