// SPDX-License-Identifier: GPL-2.0
/*
 * The reaction point's input: CNPs arriving for an RC QP go to its flow's
 * algorithm (cc/flow.c), whose rate the pacer (cc/pace.c) lets packets
 * out at; a CNP that carries rate advice (cc/advice.c) caps the rate
 * instead.
 */
#include "vroce.h"

#define CREATE_TRACE_POINTS
#include "cc/trace.h"

/*
 * Does @qp take CNPs (and rate advice) at all: RC, in a state that sends,
 * congestion control on for its priority.  RTR counts: a responder
 * answers READs from RTR (perftest never moves a READ server's QP to
 * RTS), and its READ responses are what the CNP is about.
 */
static bool vroce_cc_rp_takes(struct vroce_qp *qp)
{
	enum ib_qp_state state = vroce_qp_state(qp);

	return qp->ibqp.qp_type == IB_QPT_RC &&
	       (state == IB_QPS_RTR || state == IB_QPS_RTS ||
		state == IB_QPS_SQD) &&
	       vroce_cc_qp_rp_on(qp);
}

/* A CNP for @qp that may act: @qp takes it, and it came from the peer. */
static bool vroce_cc_cnp_for(struct vroce_qp *qp, const struct vroce_pkt *pkt)
{
	return vroce_cc_rp_takes(qp) && vroce_pkt_from_peer(pkt, qp);
}

/* What advice for every QP of a peer hands each QP. */
struct vroce_cc_advice_all {
	const struct vroce_pkt *pkt;
	const struct vroce_cc_advice *adv;
};

/* Caps @qp if it sends to the advice's source (not a mismatch if not). */
static bool vroce_cc_advice_one(struct vroce_qp *qp, void *arg)
{
	const struct vroce_cc_advice_all *a = arg;

	if (!vroce_cc_rp_takes(qp) || !vroce_qp_peer_is(qp, &a->pkt->saddr))
		return false;
	vroce_cc_advice_apply(qp, a->adv);
	return true;
}

/*
 * Rate advice (@err 0: well formed, @adv) for the QP it names, or every QP
 * whose peer sent it: rp_rate_advice_handled when it capped one, else
 * rp_rate_advice_ignored.
 */
static void vroce_cc_advice_rcv(struct vroce_pkt *pkt, int err,
				const struct vroce_cc_advice *adv)
{
	struct vroce_cc_advice_all all = { .pkt = pkt, .adv = adv };
	struct vroce_dev *vdev = pkt->vdev;
	struct vroce_qp *qp;
	unsigned int n = 0;

	if (!err && adv->all) {
		n = vroce_qp_for_each(vdev, vroce_cc_advice_one, &all);
	} else if (!err) {
		qp = vroce_qp_get(vdev, pkt->qpn);
		if (qp && vroce_cc_cnp_for(qp, pkt)) {
			vroce_cc_advice_apply(qp, adv);
			n = 1;
		}
		if (qp)
			vroce_qp_put(qp);
	}
	vroce_counter_inc(vdev, n ? VROCE_CNT_RP_RATE_ADVICE_HANDLED :
				    VROCE_CNT_RP_RATE_ADVICE_IGNORED);
}

/**
 * vroce_cc_cnp_rcv() - a CNP arrived
 * @pkt: parsed packet, its length checked; its skb is consumed
 *
 * Rate advice, where the device takes it, goes to vroce_cc_advice_rcv().
 * Any other CNP is counted rp_cnp_handled when it reached a QP's flow,
 * rp_cnp_ignored otherwise (no such QP, not RC, not from the QP's peer,
 * no BECN, or congestion control off for the QP).
 */
void vroce_cc_cnp_rcv(struct vroce_pkt *pkt)
{
	struct vroce_cc_event ev = { .type = VROCE_CC_EV_CNP, .count = 1 };
	struct vroce_dev *vdev = pkt->vdev;
	struct vroce_cc_advice adv;
	struct vroce_qp *qp;
	int err;

	err = vroce_cc_advice_parse(pkt, &adv);
	if (err != -ENOENT) {
		vroce_cc_advice_rcv(pkt, err, &adv);
		kfree_skb(pkt->skb);
		return;
	}
	qp = vroce_qp_get(vdev, pkt->qpn);
	if (!qp || !vroce_bth_becn(pkt->bth) || !vroce_cc_cnp_for(qp, pkt)) {
		vroce_counter_inc(vdev, VROCE_CNT_RP_CNP_IGNORED);
		trace_vroce_cnp_recv(pkt->qpn, false);
		goto out;
	}
	ev.now_ns = ktime_get_ns();
	vroce_cc_flow_event(qp, &ev);
	vroce_counter_inc(vdev, VROCE_CNT_RP_CNP_HANDLED);
	trace_vroce_cnp_recv(pkt->qpn, true);
out:
	if (qp)
		vroce_qp_put(qp);
	kfree_skb(pkt->skb);
}
