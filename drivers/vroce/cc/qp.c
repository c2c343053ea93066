// SPDX-License-Identifier: GPL-2.0
/*
 * A QP's congestion-control state: its life (init, reset, cleanup), its
 * priority, and what `rdma resource show qp -dd` shows of it.
 *
 * Only RC QPs take part: a reaction point needs a flow with a peer QP to
 * send CNPs to, and vroce paces only RC requests and READ responses.
 */
#include <net/inet_ecn.h>
#include <rdma/restrack.h>

#include "vroce.h"

/**
 * vroce_cc_qp_init() - a new QP: no CNP seen, no rate limit, no timer
 * @qp: the QP, before the wire can find it
 */
void vroce_cc_qp_init(struct vroce_qp *qp)
{
	struct vroce_cc_qp *cc = &qp->cc;

	spin_lock_init(&cc->lock);
	cc->qp = qp;
	cc->rp_active = false;
	cc->algo = NULL;
	cc->algo_gen = 0;
	cc->wants = 0;
	cc->out = (struct vroce_cc_out){ .rate = VROCE_CC_RATE_LINE };
	cc->pace_kbps = 0;
	cc->advice_kbps = 0;
	cc->advice_until_ns = 0;
	cc->next_tx_ns = 0;
	cc->last_cnp_ns = 0;
	cc->np_pending = false;
	cc->resp_waiting = false;
	cc->dead = false;
	/* soft: the callbacks run the QP and send, with bottom halves off */
	hrtimer_init(&cc->pace_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	cc->pace_timer.function = vroce_cc_pace_fire;
	hrtimer_init(&cc->algo_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	cc->algo_timer.function = vroce_cc_algo_fire;
	hrtimer_init(&cc->np_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	cc->np_timer.function = vroce_cc_np_fire;
}

/**
 * vroce_cc_qp_reset() - the QP went to RESET: forget rates and CNPs
 * @qp: the QP (run_lock held: the requester is not admitting a packet)
 *
 * A timer that fires meanwhile finds the state inactive and stops.
 */
void vroce_cc_qp_reset(struct vroce_qp *qp)
{
	struct vroce_cc_qp *cc = &qp->cc;

	lockdep_assert_held(&qp->run_lock);
	spin_lock_bh(&cc->lock);
	vroce_cc_flow_end(cc);
	vroce_cc_advice_clear(cc);
	cc->next_tx_ns = 0;
	cc->last_cnp_ns = 0;
	cc->np_pending = false;
	spin_unlock_bh(&cc->lock);
	hrtimer_try_to_cancel(&cc->np_timer);
}

/**
 * vroce_cc_qp_cleanup() - stop a dying QP's timers
 * @qp: the QP; the receive path holds no reference any more
 *
 * The requester and the responder's READ job may still run (the pace
 * timer itself runs them) but arm no timer once @dead is set, nor start a
 * flow; what is left armed hrtimer_cancel() stops, restarts included.
 * Then the flow ends, which lets its algorithm's module go.
 */
void vroce_cc_qp_cleanup(struct vroce_qp *qp)
{
	spin_lock_bh(&qp->cc.lock);
	qp->cc.dead = true;
	spin_unlock_bh(&qp->cc.lock);
	hrtimer_cancel(&qp->cc.np_timer);
	hrtimer_cancel(&qp->cc.algo_timer);
	hrtimer_cancel(&qp->cc.pace_timer);
	/* the flow's module reference */
	spin_lock_bh(&qp->cc.lock);
	vroce_cc_flow_end(&qp->cc);
	spin_unlock_bh(&qp->cc.lock);
}

/**
 * vroce_cc_qp_prio() - the priority congestion control sees a QP at
 * @qp: the QP
 *
 * Return: the port's priority of the traffic class the QP's packets leave
 * with and its service level (qos.c: trust mode, DSCP map).
 */
u8 vroce_cc_qp_prio(const struct vroce_qp *qp)
{
	u8 tclass = READ_ONCE(qp->attr.ah_attr.grh.traffic_class);
	u8 sl = READ_ONCE(qp->attr.ah_attr.sl);

	return vroce_qos_prio(qp->vdev, vroce_qos_tclass(qp->vdev, tclass),
			      sl);
}

/**
 * vroce_cc_qp_rp_on() - is @qp a reaction point (ECT(0), CNPs cut it)?
 * @qp: the QP
 */
bool vroce_cc_qp_rp_on(const struct vroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC &&
	       (READ_ONCE(qp->vdev->cc.rp_enable) & BIT(vroce_cc_qp_prio(qp)));
}

/**
 * vroce_cc_qp_paced() - must @qp's data packets pass the pacer?
 * @qp: an RC QP
 *
 * The data path's check, once per message: true while its algorithm or
 * rate advice limits the QP or, for a reaction point, while the port has
 * a line rate.
 */
bool vroce_cc_qp_paced(const struct vroce_qp *qp)
{
	return READ_ONCE(qp->cc.pace_kbps) || READ_ONCE(qp->cc.advice_kbps) ||
	       (READ_ONCE(qp->vdev->cc.line_rate_mbps) &&
		vroce_cc_qp_rp_on(qp));
}

/**
 * vroce_cc_fill_res_qp_entry() - a QP's flow for rdma resource -dd
 * @msg: the netlink message
 * @ibqp: the QP
 *
 * cc_rp_active, then while the flow runs cc_algo and what the algorithm
 * adds (DCQCN: cc_limited, cc_rate_kbps, cc_target_kbps, cc_alpha).
 *
 * Return: 0 or -EMSGSIZE.
 */
int vroce_cc_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct nlattr *table;

	if (ibqp->qp_type != IB_QPT_RC)
		return 0;
	/* rdma(8) reads driver attributes from their own nested table */
	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (vroce_cc_flow_fill_res(&to_vroce_qp(ibqp)->cc, msg)) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

/**
 * vroce_cc_ect() - mark a reaction point's data packets ECN-capable
 * @qp: the QP sending
 * @av: the address its data packets go with; ECT(0) when @qp is a
 *	reaction point, else Not-ECT as the traffic class had it
 */
void vroce_cc_ect(const struct vroce_qp *qp, struct vroce_av *av)
{
	if (vroce_cc_qp_rp_on(qp))
		av->tclass = (av->tclass & ~INET_ECN_MASK) | INET_ECN_ECT_0;
}
