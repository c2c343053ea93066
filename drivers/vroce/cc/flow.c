// SPDX-License-Identifier: GPL-2.0
/*
 * A reaction point's flow and its algorithm: the states a flow goes
 * through, events in, the algorithm's answer out.
 *
 *   idle to started: an event of a type the algorithm the device has for
 *	the QP's priority starts on
 *   started, an event its algorithm takes: the algorithm answers
 *   started to idle: the device chose another algorithm for the flow's
 *	priority (seen at the flow's next event, which may start it again
 *	with the new one), the QP was reset or destroyed, congestion
 *	control was turned off for the QP's priority
 *
 * Everything happens under the QP's cc.lock with bottom halves off, which
 * is what lets an algorithm keep its per-flow area without a lock of its
 * own.  The answer (struct vroce_cc_out) becomes the pacer's rate
 * (pace_kbps, 0 while not limited) and the algorithm's timer, an hrtimer
 * armed at the time the algorithm asked for.
 */
#include <linux/module.h>

#include "vroce.h"
#include "cc/trace.h"

/* The earliest an algorithm's timer fires after the event that set it. */
#define VROCE_CC_TIMER_MIN_NS	NSEC_PER_USEC

/* The pacer's rate for @out: kb/s, 0 for not limited. */
static u32 vroce_cc_out_kbps(const struct vroce_cc_out *out, u32 line_kbps)
{
	u64 kbps;

	if (out->rate_kbps)
		return out->rate_kbps;
	if (out->rate >= VROCE_CC_RATE_LINE)
		return 0;
	kbps = ((u64)out->rate * line_kbps) >> VROCE_CC_RATE_SHIFT;
	/* a rate of 0 would mean "not limited": the slowest there is */
	return max_t(u64, kbps, 1);
}

/**
 * vroce_cc_flow_end() - the flow stops: its algorithm lets it go
 * @cc: the QP's state (lock held)
 *
 * The pacer stops limiting it; the algorithm's timer, should it be firing
 * now, finds the flow idle and stops.
 */
void vroce_cc_flow_end(struct vroce_cc_qp *cc)
{
	const struct vroce_cc_algo *algo = cc->algo;

	lockdep_assert_held(&cc->lock);
	if (!cc->rp_active)
		return;
	hrtimer_try_to_cancel(&cc->algo_timer);
	if (algo->release)
		algo->release(cc->priv, &cc->flow);
	cc->rp_active = false;
	cc->algo = NULL;
	WRITE_ONCE(cc->wants, 0);
	cc->out = (struct vroce_cc_out){ .rate = VROCE_CC_RATE_LINE };
	WRITE_ONCE(cc->pace_kbps, 0);
	module_put(algo->owner);
}

/* Start the flow with the device's algorithm, if @type starts it. */
static bool vroce_cc_flow_start(struct vroce_cc_qp *cc,
				enum vroce_cc_event_type type, u64 now)
{
	struct vroce_dev *vdev = cc->qp->vdev;
	u8 prio = vroce_cc_qp_prio(cc->qp);
	const struct vroce_cc_algo *algo;
	u32 gen;

	lockdep_assert_held(&cc->lock);
	/* the device holds a reference: the module stays while we look */
	spin_lock(&vdev->cc.lock);
	algo = vdev->cc.algo[prio];
	gen = vdev->cc.algo_gen[prio];
	if (!(algo->start_events & BIT(type)) || !try_module_get(algo->owner))
		algo = NULL;
	spin_unlock(&vdev->cc.lock);
	if (!algo)
		return false;

	memset(cc->priv, 0, sizeof(cc->priv));
	cc->algo = algo;
	cc->algo_gen = gen;
	cc->rp_active = true;
	WRITE_ONCE(cc->wants, algo->events);
	cc->out = (struct vroce_cc_out){ .rate = VROCE_CC_RATE_LINE };
	cc->flow.qpn = cc->qp->ibqp.qp_num;
	cc->flow.prio = prio;
	cc->flow.line_kbps = READ_ONCE(vdev->cc.cfg.line_rate);
	cc->flow.dev = vdev;
	algo->init(cc->priv, &cc->flow, now);
	return true;
}

/*
 * Deliver @ev; the answer's timer, in @timer_ns, is left to the caller.
 * Return: whether the algorithm was called.
 */
static bool vroce_cc_flow_call(struct vroce_cc_qp *cc,
			       const struct vroce_cc_event *ev, u64 *timer_ns)
{
	struct vroce_dev *vdev = cc->qp->vdev;
	struct vroce_cc_out out;

	lockdep_assert_held(&cc->lock);
	if (cc->rp_active &&
	    cc->algo_gen != READ_ONCE(vdev->cc.algo_gen[cc->flow.prio]))
		vroce_cc_flow_end(cc);
	if (!cc->rp_active &&
	    (cc->dead || !(READ_ONCE(vdev->cc.algo_start) & BIT(ev->type)) ||
	     !vroce_cc_flow_start(cc, ev->type, ev->now_ns)))
		return false;
	if (!(cc->algo->events & BIT(ev->type)))
		return false;
	cc->flow.line_kbps = READ_ONCE(vdev->cc.cfg.line_rate);
	out = cc->out;
	cc->algo->event(cc->priv, &cc->flow, ev, &out);
	cc->out.rate = out.rate;
	cc->out.rate_kbps = out.rate_kbps;
	WRITE_ONCE(cc->pace_kbps, vroce_cc_out_kbps(&out, cc->flow.line_kbps));
	*timer_ns = out.timer_ns;
	/* a timer due now or before would fire again and again */
	if (out.timer_ns && out.timer_ns <= ev->now_ns)
		*timer_ns = ev->now_ns + VROCE_CC_TIMER_MIN_NS;
	return true;
}

/**
 * __vroce_cc_flow_event() - an event for a QP's flow, lock held
 * @cc: the QP's state (lock held)
 * @ev: the event
 */
void __vroce_cc_flow_event(struct vroce_cc_qp *cc,
			   const struct vroce_cc_event *ev)
{
	u64 at;

	lockdep_assert_held(&cc->lock);
	if (!vroce_cc_flow_call(cc, ev, &at) || at == cc->out.timer_ns)
		return;
	cc->out.timer_ns = at;
	if (at && !cc->dead)
		hrtimer_start(&cc->algo_timer, ns_to_ktime(at),
			      HRTIMER_MODE_ABS_SOFT);
	else
		hrtimer_try_to_cancel(&cc->algo_timer);
}

/**
 * vroce_cc_flow_event() - an event for a QP's flow
 * @qp: the QP (RC)
 * @ev: the event
 */
void vroce_cc_flow_event(struct vroce_qp *qp, const struct vroce_cc_event *ev)
{
	spin_lock_bh(&qp->cc.lock);
	__vroce_cc_flow_event(&qp->cc, ev);
	spin_unlock_bh(&qp->cc.lock);
}

/**
 * vroce_cc_algo_fire() - the algorithm's timer
 * @t: the QP's algo_timer
 *
 * Return: HRTIMER_RESTART when the algorithm asked for it again.
 */
enum hrtimer_restart vroce_cc_algo_fire(struct hrtimer *t)
{
	struct vroce_cc_qp *cc = container_of(t, struct vroce_cc_qp,
					      algo_timer);
	struct vroce_cc_event ev = {
		.type = VROCE_CC_EV_TIMER,
		.count = 1,
		.now_ns = ktime_get_ns(),
	};
	bool again = false;
	u64 at;

	spin_lock_bh(&cc->lock);
	/*
	 * An event restarted the timer meanwhile: that start stands.  No
	 * timer asked for (out.timer_ns 0): the flow that armed it ended, or
	 * its algorithm asked for none since; a new flow must not get it.
	 */
	if (hrtimer_is_queued(t) || !cc->out.timer_ns)
		goto unlock;
	ev.timer.due_ns = ktime_to_ns(hrtimer_get_expires(t));
	cc->out.timer_ns = 0;
	if (!cc->rp_active || !vroce_cc_flow_call(cc, &ev, &at))
		goto unlock;
	again = at && !cc->dead;
	if (again) {
		cc->out.timer_ns = at;
		hrtimer_set_expires(t, ns_to_ktime(at));
	}
unlock:
	spin_unlock_bh(&cc->lock);
	return again ? HRTIMER_RESTART : HRTIMER_NORESTART;
}

/*
 * May an event of @type matter to @qp's flow: does its algorithm, or the
 * one a flow would start with, take it?  The check before the event is
 * built, so that a QP whose algorithm takes no ACKs pays two loads per
 * response.
 */
static bool vroce_cc_flow_wants(const struct vroce_qp *qp,
				enum vroce_cc_event_type type)
{
	u32 mask = READ_ONCE(qp->cc.wants) |
		   READ_ONCE(qp->vdev->cc.algo_start);

	return (mask & BIT(type)) && vroce_cc_qp_rp_on(qp);
}

/* Deliver @ev if @qp's flow may take it; stamped now unless it has a time. */
static void vroce_cc_offer(struct vroce_qp *qp, struct vroce_cc_event *ev)
{
	if (!vroce_cc_flow_wants(qp, ev->type))
		return;
	if (!ev->now_ns)
		ev->now_ns = ktime_get_ns();
	vroce_cc_flow_event(qp, ev);
}

/**
 * vroce_cc_ack() - a response that acknowledges arrived for @qp
 * @qp: an RC QP (run_lock held: the completer)
 * @psn: the response's PSN
 */
void vroce_cc_ack(struct vroce_qp *qp, u32 psn)
{
	struct vroce_cc_event ev = {
		.type = VROCE_CC_EV_ACK,
		.count = 1,
		.ack.psn = psn,
	};

	vroce_cc_offer(qp, &ev);
}

/**
 * vroce_cc_nack() - @qp's requester sends again: a NAK or a timeout
 * @qp: an RC QP (run_lock held: the completer)
 * @kind: why
 * @psn: where the requester sends again from
 */
void vroce_cc_nack(struct vroce_qp *qp, enum vroce_cc_nack_kind kind, u32 psn)
{
	struct vroce_cc_event ev = {
		.type = VROCE_CC_EV_NACK,
		.count = 1,
		.nack = { .kind = kind, .psn = psn },
	};

	vroce_cc_offer(qp, &ev);
}

/**
 * vroce_cc_rtt() - a round-trip sample of @qp's requests
 * @qp: an RC QP (run_lock held: the completer)
 * @psn: the timed request's PSN
 * @sent_ns: when it left
 * @received_ns: when its response came (the sample's end)
 *
 * Traced (vroce_cc_rtt) whatever the algorithm.
 */
void vroce_cc_rtt(struct vroce_qp *qp, u32 psn, u64 sent_ns, u64 received_ns)
{
	struct vroce_cc_event ev = {
		.type = VROCE_CC_EV_RTT,
		.count = 1,
		.now_ns = received_ns,
		.rtt = { .sent_ns = sent_ns, .received_ns = received_ns },
	};

	trace_vroce_cc_rtt(qp->ibqp.qp_num, psn, received_ns - sent_ns);
	vroce_cc_offer(qp, &ev);
}

/**
 * vroce_cc_flow_fill_res() - the flow for `rdma resource show qp -dd`
 * @cc: the QP's state
 * @msg: the netlink message, inside the driver attributes' table
 *
 * cc_rp_active, rate advice's cap (cc_advice_kbps, 0 for none); while
 * the flow runs, its algorithm (cc_algo), the rate the pacer holds it to
 * (cc_pace_kbps, 0 for not limited) and what the algorithm's fill_res
 * adds.
 *
 * Return: 0 or -EMSGSIZE.
 */
int vroce_cc_flow_fill_res(struct vroce_cc_qp *cc, struct sk_buff *msg)
{
	int err = 0;

	spin_lock_bh(&cc->lock);
	if (rdma_nl_put_driver_u32(msg, "cc_rp_active", cc->rp_active) ||
	    rdma_nl_put_driver_u32(msg, "cc_advice_kbps",
				   vroce_cc_advice_kbps(cc, ktime_get_ns())))
		err = -EMSGSIZE;
	else if (cc->rp_active &&
		 (rdma_nl_put_driver_string(msg, "cc_algo", cc->algo->name) ||
		  rdma_nl_put_driver_u32(msg, "cc_pace_kbps", cc->pace_kbps)))
		err = -EMSGSIZE;
	else if (cc->rp_active && cc->algo->fill_res)
		err = cc->algo->fill_res(cc->priv, msg);
	spin_unlock_bh(&cc->lock);
	return err;
}
