// SPDX-License-Identifier: GPL-2.0
/*
 * The reaction point's input: CNPs arriving for an RC QP go to its flow's
 * algorithm (cc/flow.c), whose rate the pacer (cc/pace.c) lets packets
 * out at.
 */
#include "vroce.h"

#define CREATE_TRACE_POINTS
#include "cc/trace.h"

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
 * Counted rp_cnp_handled when it reached a QP's flow, rp_cnp_ignored
 * otherwise (no such QP, not RC, not from the QP's peer, no BECN, or
 * congestion control off for the QP).
 */
void vroce_cc_cnp_rcv(struct vroce_pkt *pkt)
{
	struct vroce_cc_event ev = { .type = VROCE_CC_EV_CNP, .count = 1 };
	struct vroce_dev *vdev = pkt->vdev;
	struct vroce_qp *qp;

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
