// SPDX-License-Identifier: GPL-2.0
/*
 * Completer: ACKs, NAKs, read responses and atomic ACKs for our requests,
 * and the retransmit and RNR timers.
 *
 * The receive path queues a response on its QP (vroce_comp_rcv()) and
 * runs the runner, which usually completes it in the same pass; all of
 * the following runs in the runner with run_lock held: matching a
 * response to the in-flight WQE whose PSNs it covers, placing read
 * data, marking WQEs done, going back to the oldest WQE to send again
 * (go-back-N) on a NAK or a timeout, and completing done WQEs in order
 * from the head of the send queue.
 */
#include <net/inet_ecn.h>

#include "pkt.h"
#include "req.h"
#include "vroce.h"

/* What the runner needs of a queued response, kept in skb->cb. */
struct vroce_resp_cb {
	u32 psn;
	u32 paylen;
	u16 hdr_len;
	u8 opcode;
};

static struct vroce_resp_cb *vroce_resp_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct vroce_resp_cb) > sizeof(skb->cb));
	return (struct vroce_resp_cb *)skb->cb;
}

/* IBTA RNR NAK timer field (5 bits) to microseconds. */
static const u32 vroce_rnr_usecs[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/**
 * vroce_comp_rcv() - a response packet for one of our QPs
 * @pkt: parsed packet; its skb is consumed
 *
 * Receive path: queue it for the QP's runner, and run it (in place, or by
 * the runner's current holder: the packets of a QP are taken in arrival
 * order either way).
 */
void vroce_comp_rcv(struct vroce_pkt *pkt)
{
	struct sk_buff *skb = pkt->skb;
	struct vroce_resp_cb *cb;
	struct vroce_qp *qp;

	qp = vroce_qp_get(pkt->vdev, pkt->qpn);
	if (!qp || qp->ibqp.qp_type != IB_QPT_RC ||
	    (pkt->opcode & 0xe0) != VROCE_OP_RC) {
		vroce_counter_inc(pkt->vdev, VROCE_CNT_RX_NO_QP);
		kfree_skb(skb);
		goto out;
	}
	if (!vroce_pkt_from_peer(pkt, qp)) {
		kfree_skb(skb);
		goto out;
	}
	/* the notification point of READ responses */
	if (unlikely(INET_ECN_is_ce(pkt->tos)))
		vroce_cc_ce_rcv(qp, pkt);
	cb = vroce_resp_cb(skb);
	cb->psn = pkt->psn;
	cb->paylen = pkt->paylen;
	cb->hdr_len = pkt->hdr_len;
	cb->opcode = pkt->opcode;
	skb_queue_tail(&qp->req.rx_q, skb);
	vroce_qp_run(qp, false);
out:
	if (qp)
		vroce_qp_put(qp);
}

static struct rxe_send_wqe *vroce_comp_wqe(struct vroce_qp *qp, u32 index)
{
	return vroce_sq_wqe(vroce_sq_slot(&qp->sq, index));
}

/*
 * Nothing in flight: no WQE sent but not done, or only the one going out
 * in parts (the head) with every packet sent so far acknowledged, its
 * rest waiting at home for room in the port's FIFO (which a PFC pause may
 * hold for long) or for the pacer, whose timer sends it.  A recovery that
 * waits for ACKs is in flight; so is a packet the netdev refused, which
 * only a timeout sends again.
 */
static bool vroce_comp_idle(struct vroce_qp *qp)
{
	struct vroce_req *req = &qp->req;
	struct rxe_send_wqe *wqe;
	u32 mtu;

	if (req->recovering)
		return false;
	if (qp->sq.head == qp->sq.next)
		return true;
	if (!req->partial || !req->home_wait || qp->sq.head != qp->sq.next - 1)
		return false;
	wqe = vroce_comp_wqe(qp, qp->sq.head);
	mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	return (u64)vroce_psn_diff(req->psn, wqe->first_psn) * mtu <=
	       wqe->ack_length;
}

/*
 * The retransmit timer measures time without progress while packets are
 * in flight: it is pushed back only when a response completes something
 * (and started by the requester when it sends with none in flight), and
 * stopped when none are.  Time a message's rest waits at home is not a
 * lost packet: a ConnectX's transport timer, too, runs for requests on
 * the wire only.
 */
static void vroce_comp_arm(struct vroce_qp *qp, bool progress)
{
	struct vroce_req *req = &qp->req;

	if (req->dying)
		return;
	if (!qp->attr.timeout || vroce_comp_idle(qp)) {
		del_timer(&req->timer);
		return;
	}
	if (progress || !timer_pending(&req->timer))
		mod_timer(&req->timer, jiffies + vroce_req_timeout(qp));
}

/*
 * Send again from WQE @index: every WQE from it on goes back to pending.
 * The first one resumes at @psn, the PSN the responder expects (a NAK's),
 * or past the packets an ACK covered; a READ at its first response not
 * received: what came before arrived and is not sent again.
 * WQE @index must not be done: a done WQE is never sent again.
 */
static void vroce_comp_rewind(struct vroce_qp *qp, u32 index, u32 psn)
{
	struct rxe_send_wqe *wqe = vroce_comp_wqe(qp, index);
	u32 mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	struct vroce_sq *sq = &qp->sq;
	struct vroce_req *req = &qp->req;
	s32 resume;
	u32 i;

	if (wqe->wr.opcode == IB_WR_RDMA_READ)
		resume = wqe->ack_length / mtu;
	else if (vroce_wr_is_rd_atomic(wqe->wr.opcode))
		resume = 0;
	else
		resume = clamp_t(s32, vroce_psn_diff(psn, wqe->first_psn),
				 wqe->ack_length / mtu,
				 vroce_psn_diff(wqe->last_psn, wqe->first_psn));
	for (i = index; i != sq->next; i++) {
		struct rxe_send_wqe *w = vroce_comp_wqe(qp, i);

		if (w->state == VROCE_WQE_SENT &&
		    vroce_wr_is_rd_atomic(w->wr.opcode))
			req->rd_atomic--;
		w->state = VROCE_WQE_PENDING;
		vroce_sq_slot(sq, i)->resume = i == index ? resume : 0;
	}
	req->psn = vroce_psn_add(wqe->first_psn, resume);
	req->partial = false;
	req->home_wait = false;
	/* a response may now be to the resent copy: no round trip in it */
	req->rtt_timing = false;
	sq->next = index;
}

/*
 * A response shows that the responses of the READ or atomic at @index
 * were lost: ask again now rather than at the timeout, but once per loss.
 */
static void vroce_comp_gap(struct vroce_qp *qp, u32 index)
{
	if (qp->req.gap_retry)
		return;
	qp->req.gap_retry = true;
	vroce_counter_inc(qp->vdev, VROCE_CNT_IMPLIED_NAK_SEQ_ERR);
	vroce_comp_rewind(qp, index, vroce_comp_wqe(qp, index)->first_psn);
}

/* A progress-making response: the retry budget starts again. */
static void vroce_comp_progress(struct vroce_qp *qp)
{
	qp->req.retry_left = qp->attr.retry_cnt;
	qp->req.rnr_left = qp->attr.rnr_retry;
	qp->req.progress = true;
	qp->req.gap_retry = false;
	vroce_req_window_grow(qp);
}

static void vroce_comp_done(struct vroce_qp *qp, struct rxe_send_wqe *wqe,
			    enum ib_wc_status status)
{
	if (wqe->state == VROCE_WQE_SENT &&
	    vroce_wr_is_rd_atomic(wqe->wr.opcode))
		qp->req.rd_atomic--;
	wqe->state = VROCE_WQE_DONE;
	wqe->status = status;
}

/* Place read response data, or an atomic's original value, in the SGEs. */
static int vroce_comp_scatter(struct vroce_qp *qp, struct rxe_send_wqe *wqe,
			      u32 offset, const void *data, u32 len)
{
	if ((u64)offset + len > wqe->dma.length)
		return -EINVAL;
	return vroce_sge_copy(qp->vdev, qp->ibqp.pd, wqe->dma.sge,
			      wqe->dma.num_sge, offset, (void *)data, len, true);
}

static enum ib_wc_status vroce_comp_nak_status(u8 syndrome)
{
	switch (syndrome) {
	case VROCE_NAK_INVALID_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	case VROCE_NAK_REM_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	default:
		return IB_WC_REM_OP_ERR;
	}
}

/* A NAK or RNR NAK for the WQE at @index. */
static void vroce_comp_nak(struct vroce_qp *qp, u32 index, u8 syndrome,
			   u32 psn)
{
	struct rxe_send_wqe *wqe = vroce_comp_wqe(qp, index);
	struct vroce_req *req = &qp->req;
	u32 delay;

	if ((syndrome & VROCE_AETH_TYPE_MASK) == VROCE_AETH_RNR_NAK) {
		vroce_counter_inc(qp->vdev, VROCE_CNT_RNR_NAK_RECEIVED);
		if (req->rnr_left == 0) {
			vroce_comp_done(qp, wqe, IB_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		if (req->rnr_left != 7)
			req->rnr_left--;
		vroce_comp_rewind(qp, index, psn);
		req->rnr_wait = true;
		vroce_cc_nack(qp, VROCE_CC_NACK_RNR, psn);
		delay = vroce_rnr_usecs[syndrome & VROCE_AETH_CREDIT_MASK];
		if (!req->dying)
			mod_timer(&req->timer,
				  jiffies + usecs_to_jiffies(delay));
		return;
	}
	if (syndrome == VROCE_NAK_PSN_SEQ_ERR) {
		vroce_counter_inc(qp->vdev, VROCE_CNT_PACKET_SEQ_ERR);
		vroce_cc_nack(qp, VROCE_CC_NACK_SEQ, psn);
		vroce_req_window_loss(qp, false);
		/* Everything before @psn arrived: send again from there. */
		vroce_comp_rewind(qp, index, psn);
		return;
	}
	vroce_comp_done(qp, wqe, vroce_comp_nak_status(syndrome));
}

/* A WQE that an ACK completes: one whose requests return no data. */
static bool vroce_comp_ack_done(u32 wr_op)
{
	switch (wr_op) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return true;
	default:
		return false;
	}
}

/*
 * The packets of @wqe up to @psn arrived, the rest did not: the requester
 * goes on from the next one.
 */
static void vroce_comp_ack_part(struct vroce_qp *qp, struct rxe_send_wqe *wqe,
				struct vroce_sq_slot *slot, u32 psn)
{
	u32 mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);

	slot->resume = vroce_psn_diff(psn, wqe->first_psn) + 1;
	wqe->ack_length = max_t(u32, wqe->ack_length, slot->resume * mtu);
	qp->req.psn = vroce_psn_add(psn, 1);
	vroce_comp_progress(qp);
}

/*
 * An ACK for @psn, past the packets being sent again after a rewind: what
 * it covers arrived the first time (the timeout was spurious, or only a
 * later packet was lost).  The rest of a WQE going out in parts, and the
 * rewound WQEs it covers, complete without being sent again; the
 * requester resumes after @psn.  Only SENDs and WRITEs sent before
 * (below req.sent_end): a READ or atomic needs its response.
 */
static void vroce_comp_skip_acked(struct vroce_qp *qp, u32 psn)
{
	struct vroce_sq *sq = &qp->sq;
	struct vroce_req *req = &qp->req;
	bool ahead = vroce_psn_diff(psn, req->psn) >= 0;

	/* an ACK of a PSN never sent (forged, or very stale) says nothing */
	if (vroce_psn_diff(psn, req->psn_new) >= 0)
		return;
	vroce_req_recovery_ack(qp, psn, ahead);
	if (!ahead)
		return;
	if (req->partial) {
		struct rxe_send_wqe *wqe = vroce_comp_wqe(qp, sq->next - 1);
		struct vroce_sq_slot *slot = vroce_sq_slot(sq, sq->next - 1);

		if (vroce_psn_diff(psn, wqe->last_psn) < 0) {
			vroce_comp_ack_part(qp, wqe, slot, psn);
			return;
		}
		req->partial = false;
		req->psn = vroce_psn_add(wqe->last_psn, 1);
	}
	while ((s32)(req->sent_end - sq->next) > 0) {
		struct vroce_sq_slot *slot = vroce_sq_slot(sq, sq->next);
		struct rxe_send_wqe *wqe = vroce_sq_wqe(slot);
		u32 op = wqe->wr.opcode;

		if (wqe->state != VROCE_WQE_PENDING ||
		    slot->status != IB_WC_SUCCESS || !vroce_comp_ack_done(op) ||
		    vroce_psn_diff(req->psn, wqe->first_psn) < 0 ||
		    vroce_psn_diff(req->psn, wqe->last_psn) > 0)
			return;
		if (vroce_psn_diff(psn, wqe->last_psn) < 0) {
			vroce_comp_ack_part(qp, wqe, slot, psn);
			return;
		}
		vroce_comp_done(qp, wqe, IB_WC_SUCCESS);
		vroce_comp_progress(qp);
		req->psn = vroce_psn_add(wqe->last_psn, 1);
		sq->next++;
	}
}

/* One response, matched against the WQEs in flight from the head. */
static void vroce_comp_pkt(struct vroce_qp *qp, struct sk_buff *skb)
{
	struct vroce_resp_cb *cb = vroce_resp_cb(skb);
	u32 mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	struct vroce_sq *sq = &qp->sq;
	u8 op = cb->opcode & 0x1f;
	struct vroce_aeth *aeth = NULL;
	u8 syndrome = VROCE_AETH_ACK;
	void *bth = skb->data;
	int off;
	u32 i;

	off = vroce_opcode_ext_offset(cb->opcode, VROCE_EXT_AETH);
	if (off > 0) {
		aeth = bth + off;
		syndrome = vroce_aeth_syndrome(aeth);
	}
	vroce_req_rtt_end(qp, cb->psn);
	if ((syndrome & VROCE_AETH_TYPE_MASK) == VROCE_AETH_ACK)
		vroce_cc_ack(qp, cb->psn);

	for (i = sq->head; i != sq->next; i++) {
		struct rxe_send_wqe *wqe = vroce_comp_wqe(qp, i);
		bool rd = vroce_wr_is_rd_atomic(wqe->wr.opcode);
		bool place = vroce_wr_is_placement(wqe->wr.opcode);
		s32 before = vroce_psn_diff(cb->psn, wqe->first_psn);
		s32 after = vroce_psn_diff(cb->psn, wqe->last_psn);

		if (wqe->state != VROCE_WQE_SENT)
			continue;
		if (before < 0)
			return;		/* older than anything in flight */
		if (after > 0) {
			/*
			 * A response past this WQE acknowledges a SEND or
			 * WRITE, and a FLUSH or ATOMIC WRITE (the responder
			 * executes in order, and they return no data); past a
			 * READ or atomic it means their responses were lost:
			 * ask again.
			 */
			if (rd && !place) {
				vroce_comp_gap(qp, i);
				return;
			}
			vroce_comp_done(qp, wqe, IB_WC_SUCCESS);
			vroce_comp_progress(qp);
			continue;
		}

		/* The response is for this WQE. */
		if (op == VROCE_ACK) {
			if ((syndrome & VROCE_AETH_TYPE_MASK) != VROCE_AETH_ACK) {
				vroce_comp_nak(qp, i, syndrome, cb->psn);
				return;
			}
			/*
			 * A READ or atomic needs its data; a FLUSH or ATOMIC
			 * WRITE is done by an ACK too (the answer to a
			 * duplicate of it).
			 */
			if (rd && !place)
				return;
			if (after == 0) {
				vroce_comp_done(qp, wqe, IB_WC_SUCCESS);
			} else {
				/* Part of a long message arrived. */
				wqe->ack_length = max_t(u32, wqe->ack_length,
							(before + 1) * mtu);
			}
			vroce_comp_progress(qp);
			vroce_comp_skip_acked(qp, cb->psn);
			return;
		}
		if (op == VROCE_ATOMIC_ACK && wqe->wr.opcode != IB_WR_RDMA_READ &&
		    rd) {
			struct vroce_atmack *ack = bth +
				vroce_opcode_ext_offset(cb->opcode,
							VROCE_EXT_ATMACK);
			u64 orig = be64_to_cpu(ack->orig);

			vroce_comp_done(qp, wqe,
					vroce_comp_scatter(qp, wqe, 0, &orig,
							   sizeof(orig)) ?
					IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS);
			vroce_comp_progress(qp);
			return;
		}
		/* FLUSH, ATOMIC WRITE: a READ response without data. */
		if (op == VROCE_READ_RESP_ONLY && place) {
			if ((syndrome & VROCE_AETH_TYPE_MASK) != VROCE_AETH_ACK) {
				vroce_comp_nak(qp, i, syndrome, cb->psn);
				return;
			}
			vroce_comp_done(qp, wqe, IB_WC_SUCCESS);
			vroce_comp_progress(qp);
			return;
		}
		if (op >= VROCE_READ_RESP_FIRST && op <= VROCE_READ_RESP_ONLY &&
		    wqe->wr.opcode == IB_WR_RDMA_READ) {
			u32 offset = before * mtu;

			/* In order only: ask again from the first missing. */
			if (offset != wqe->ack_length) {
				if (offset > wqe->ack_length)
					vroce_comp_gap(qp, i);
				return;
			}
			if (vroce_comp_scatter(qp, wqe, offset,
					       (u8 *)bth + cb->hdr_len,
					       cb->paylen)) {
				vroce_comp_done(qp, wqe, IB_WC_LOC_PROT_ERR);
				return;
			}
			wqe->ack_length += cb->paylen;
			vroce_comp_progress(qp);
			if (op == VROCE_READ_RESP_LAST ||
			    op == VROCE_READ_RESP_ONLY)
				vroce_comp_done(qp, wqe,
						wqe->ack_length == wqe->dma.length ?
						IB_WC_SUCCESS :
						IB_WC_LOC_LEN_ERR);
		}
		return;
	}
	/* past every WQE in flight: maybe past rewound ones too */
	if (op == VROCE_ACK &&
	    (syndrome & VROCE_AETH_TYPE_MASK) == VROCE_AETH_ACK)
		vroce_comp_skip_acked(qp, cb->psn);
}

static void vroce_comp_timeout(struct vroce_qp *qp)
{
	struct vroce_req *req = &qp->req;
	struct vroce_sq *sq = &qp->sq;
	struct rxe_send_wqe *wqe;
	u32 i;

	if (req->rnr_wait) {
		req->rnr_wait = false;
		return;
	}
	/*
	 * The oldest WQE still waiting: ones done by the responses just
	 * processed are not completed yet, and must not be sent again.
	 */
	for (i = sq->head; i != sq->next; i++)
		if (vroce_comp_wqe(qp, i)->state != VROCE_WQE_DONE)
			break;
	if (i == sq->next) {
		/*
		 * A recovery waited for ACKs of packets that were lost: the
		 * rest goes again from where the ACKs ended.
		 */
		if (req->recovering)
			vroce_req_window_loss(qp, false);
		return;
	}
	wqe = vroce_comp_wqe(qp, i);
	if (req->retry_left-- <= 0) {
		vroce_comp_done(qp, wqe, IB_WC_RETRY_EXC_ERR);
		return;
	}
	vroce_counter_inc(qp->vdev, VROCE_CNT_LOCAL_ACK_TIMEOUT_ERR);
	vroce_cc_nack(qp, VROCE_CC_NACK_TIMEOUT, wqe->first_psn);
	vroce_req_window_loss(qp, true);
	req->gap_retry = false;
	vroce_comp_rewind(qp, i, wqe->first_psn);
}

/**
 * vroce_comp_run() - process queued responses and timer expiries
 * @qp: the QP (run_lock held)
 * @budget: the run's steps left, one per response
 *
 * Responses left over when the budget runs out wait for the runner's
 * next pass, and so does a timer expiry behind them.
 */
void vroce_comp_run(struct vroce_qp *qp, int *budget)
{
	struct sk_buff *skb;

	lockdep_assert_held(&qp->run_lock);
	while (*budget > 0 && (skb = skb_dequeue(&qp->req.rx_q))) {
		if (qp->ibqp.qp_type == IB_QPT_RC)
			vroce_comp_pkt(qp, skb);
		kfree_skb(skb);
		(*budget)--;
	}
	/*
	 * A timeout counts only once every response that arrived before it
	 * has been looked at, and made no progress, and only with packets
	 * in flight: a busy runner must not take its own lateness for the
	 * peer's silence, nor a timer that fired as the last ACK came in.
	 */
	if (skb_queue_empty(&qp->req.rx_q) &&
	    atomic_xchg(&qp->req.timer_fired, 0) &&
	    (qp->req.rnr_wait ||
	     (!qp->req.progress && !vroce_comp_idle(qp))))
		vroce_comp_timeout(qp);
	vroce_comp_complete(qp);
	if (!qp->req.rnr_wait)
		vroce_comp_arm(qp, qp->req.progress);
	qp->req.progress = false;
}

/**
 * vroce_comp_complete() - complete done WQEs in order from the head
 * @qp: the QP (run_lock held)
 *
 * A WQE that completes in error moves the QP to ERR; the flush then
 * completes the rest.
 */
void vroce_comp_complete(struct vroce_qp *qp)
{
	struct vroce_sq *sq = &qp->sq;

	lockdep_assert_held(&qp->run_lock);
	while (sq->head != sq->next) {
		struct rxe_send_wqe *wqe = vroce_comp_wqe(qp, sq->head);
		enum ib_wc_status status = wqe->status;

		if (wqe->state != VROCE_WQE_DONE)
			break;
		vroce_sq_complete(qp, status);
		if (status != IB_WC_SUCCESS) {
			/* the completion reports it: no async event */
			vroce_qp_set_error(qp);
			break;
		}
	}
}
