// SPDX-License-Identifier: GPL-2.0
/*
 * The notification point: a CE-marked packet arriving at an RC QP makes
 * the QP send a CNP to its peer, at most one per np_min_time_between_cnps.
 * The responder is the notification point of requests, the requester the
 * notification point of READ responses: both call vroce_cc_ce_rcv().
 *
 * A CNP is BTH (opcode 0x81, BECN, the peer's QPN, PSN 0) and 16 reserved
 * zero bytes; it leaves with DSCP np_cnp_dscp and Not-ECT, so a CNP is
 * never marked and never causes a CNP.  With cnp_delay_us set it leaves
 * that long after the mark, as from a NIC that takes time to answer; the
 * minimum gap counts from the mark that caused the CNP.
 */
#include <net/inet_ecn.h>
#include <rdma/ib_mad.h>

#include "cc/trace.h"
#include "vroce.h"

static void vroce_cnp_send(struct vroce_qp *qp, const struct vroce_av *peer,
			   u32 entropy)
{
	struct vroce_dev *vdev = qp->vdev;
	unsigned int hdr = vroce_opcode_hdr_len(VROCE_OP_CNP);
	u32 dqpn = READ_ONCE(qp->attr.dest_qp_num);
	struct vroce_av av = *peer;
	struct vroce_bth *bth;
	struct sk_buff *skb;

	skb = vroce_pkt_alloc(vdev, hdr);
	if (!skb)
		return;	/* as lost on the wire: the next mark sends one */
	bth = vroce_pkt_put(skb, hdr, 0, 0);
	vroce_bth_set(bth, VROCE_OP_CNP, false, 0, IB_DEFAULT_PKEY_FULL, dqpn,
		      false, 0);
	bth->qpn |= cpu_to_be32(VROCE_BTH_BECN);
	av.tclass = READ_ONCE(vdev->cc.cfg.p.np_cnp_dscp) << 2;
	/* mlx5's cnp_prio_mode: 1 is the marked packet's priority */
	av.prio = READ_ONCE(vdev->cc.cfg.p.np_cnp_prio_mode) ?
		  vroce_cc_qp_prio(qp) : READ_ONCE(vdev->cc.cfg.p.np_cnp_prio);
	vroce_counter_inc(vdev, VROCE_CNT_NP_CNP_SENT);
	trace_vroce_cnp_sent(qp->ibqp.qp_num, dqpn);
	vroce_pkt_send(vdev, &av, skb, entropy, NULL);
}

/**
 * vroce_cc_ce_rcv() - a CE-marked packet arrived at @qp
 * @qp: an RC QP in a receiving state, the packet from its peer; no lock
 *	of the QP held (the CNP may be delivered locally before this returns)
 * @pkt: the packet (not a CNP: those go to the reaction point)
 */
void vroce_cc_ce_rcv(struct vroce_qp *qp, const struct vroce_pkt *pkt)
{
	struct vroce_dev *vdev = qp->vdev;
	struct vroce_cc_qp *cc = &qp->cc;
	u64 now, gap_ns, delay_ns;
	struct vroce_av av;
	u32 entropy;
	bool due;

	vroce_counter_inc(vdev, VROCE_CNT_NP_ECN_MARKED);
	if (!(READ_ONCE(vdev->cc.np_enable) & BIT(vroce_cc_qp_prio(qp))))
		return;
	gap_ns = (u64)READ_ONCE(vdev->cc.cfg.p.np_min_time_between_cnps) *
		 NSEC_PER_USEC;
	delay_ns = (u64)READ_ONCE(vdev->cc.cnp_delay_us) * NSEC_PER_USEC;

	/*
	 * The gap counts from the mark that made the last CNP.  The clock is
	 * read under the lock so that decisions and their times are in one
	 * order on every CPU.
	 */
	spin_lock_bh(&cc->lock);
	now = ktime_get_ns();
	due = !cc->dead && !cc->np_pending &&
	      (!cc->last_cnp_ns || now - cc->last_cnp_ns >= gap_ns);
	if (due)
		cc->last_cnp_ns = now;
	spin_unlock_bh(&cc->lock);
	trace_vroce_ce_recv(qp->ibqp.qp_num, now, due);
	if (!due)
		return;

	vroce_resp_av(qp, pkt, &av, &entropy);
	if (!delay_ns) {
		vroce_cnp_send(qp, &av, entropy);
		return;
	}
	spin_lock_bh(&cc->lock);
	if (!cc->dead) {
		cc->np_pending = true;
		cc->np_av = av;
		cc->np_entropy = entropy;
		hrtimer_start(&cc->np_timer, ns_to_ktime(now + delay_ns),
			      HRTIMER_MODE_ABS_SOFT);
	}
	spin_unlock_bh(&cc->lock);
}

/**
 * vroce_cc_np_fire() - a delayed CNP's time came
 * @t: the QP's np_timer
 *
 * Return: HRTIMER_NORESTART.
 */
enum hrtimer_restart vroce_cc_np_fire(struct hrtimer *t)
{
	struct vroce_cc_qp *cc = container_of(t, struct vroce_cc_qp, np_timer);
	bool send;
	struct vroce_av av;
	u32 entropy;

	spin_lock_bh(&cc->lock);
	send = cc->np_pending;
	cc->np_pending = false;
	av = cc->np_av;
	entropy = cc->np_entropy;
	spin_unlock_bh(&cc->lock);
	if (send)
		vroce_cnp_send(cc->qp, &av, entropy);
	return HRTIMER_NORESTART;
}
