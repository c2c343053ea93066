// SPDX-License-Identifier: GPL-2.0
/*
 * Requester: turns the send WQE at sq.next into packets.
 *
 * Runs in the QP's runner (runner.c) with run_lock held, so the QP's
 * attributes are stable (modify_qp holds run_lock too).  A WQE is sent
 * whole: its PSNs are first_psn..last_psn, assigned from req.psn; a
 * retransmission rewinds req.psn to the first_psn of the oldest WQE to
 * send again, so every packet keeps its PSN (go-back-N, comp.c).  The
 * packets leave through vroce_pkt_send(), the one exit to the wire.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <rdma/ib_mad.h>

#include "pkt.h"
#include "req.h"
#include "vroce.h"

/*
 * Packets a QP may have unacknowledged before it waits for ACKs: at most
 * VROCE_REQ_WINDOW.  A software NIC runs on lossy virtual links and loaded
 * hosts with no PFC: a receiver that falls behind drops, and every drop
 * costs a go-back-N resend of what is in flight.  So the window halves on
 * a sequence NAK (to VROCE_REQ_MIN_WINDOW at least) and grows by one
 * packet per ACK that makes progress: on a path that loses nothing
 * (loopback) it stays at the maximum.
 *
 * A timeout sends one packet again, the oldest not acknowledged, and waits
 * for what that brings (as TCP's F-RTO does): on a slow path the timeout
 * is often spurious, the packets it rewound arrive anyway, and their ACKs
 * then complete them without a resend (comp.c); after a real loss the ACK
 * or NAK of that one packet restarts the flow.
 */
#define VROCE_REQ_WINDOW		256
#define VROCE_REQ_MIN_WINDOW		8
#define VROCE_REQ_TIMEOUT_WINDOW	1

/*
 * A long message asks for an ACK every this many packets: the ACKs show
 * progress, which keeps the retransmit timer from firing while the
 * responder is still busy with the message, and tell a retransmission
 * where to start.
 */
#define VROCE_REQ_ACK_EVERY	64

/**
 * vroce_req_timeout() - the QP's retransmit timeout in jiffies
 * @qp: a QP whose timeout attribute is not 0 (infinite)
 *
 * The attribute is never below VROCE_REQ_MIN_TIMEOUT (qp_state.c raises
 * it there, and query_qp reports the raised value).  On a path whose
 * measured round trip calls for longer (rtt.h), the requester waits that.
 *
 * Return: the longer of 4.096 us * 2^timeout and the round-trip estimate.
 */
unsigned long vroce_req_timeout(struct vroce_qp *qp)
{
	return max(nsecs_to_jiffies(4096ULL << min_t(u8, qp->attr.timeout, 31)),
		   usecs_to_jiffies(vroce_rtt_rto_us(&qp->req.rtt)));
}

static void vroce_req_timer(struct timer_list *t)
{
	struct vroce_req *req = from_timer(req, t, timer);
	struct vroce_qp *qp = container_of(req, struct vroce_qp, req);

	if (READ_ONCE(req->dying))
		return;
	atomic_set(&req->timer_fired, 1);
	vroce_qp_run(qp, false);
}

/**
 * vroce_req_init() - set up a new QP's requester
 * @qp: the QP being created
 *
 * Return: 0 or -ENOMEM.
 */
int vroce_req_init(struct vroce_qp *qp)
{
	timer_setup(&qp->req.timer, vroce_req_timer, 0);
	skb_queue_head_init(&qp->req.rx_q);
	return dst_cache_init(&qp->req.route.dst, GFP_KERNEL);
}

/**
 * vroce_req_cleanup() - stop the timer and drop queued responses
 * @qp: a QP being destroyed (before its runner work is cancelled)
 */
void vroce_req_cleanup(struct vroce_qp *qp)
{
	/*
	 * The runner re-arms the timer and the timer schedules the runner:
	 * once dying is set under run_lock neither does, so the timer stays
	 * dead after this and the caller's cancel of the work is final.
	 */
	vroce_run_lock(qp);
	WRITE_ONCE(qp->req.dying, true);
	vroce_run_unlock(qp);
	del_timer_sync(&qp->req.timer);
	skb_queue_purge(&qp->req.rx_q);
	dst_cache_destroy(&qp->req.route.dst);
}

/**
 * vroce_req_reset() - new send PSN (RTR->RTS) or RESET
 * @qp: the QP (run_lock held)
 * @sq_psn: first PSN to send
 */
void vroce_req_reset(struct vroce_qp *qp, u32 sq_psn)
{
	struct vroce_req *req = &qp->req;

	del_timer(&req->timer);
	atomic_set(&req->timer_fired, 0);
	skb_queue_purge(&req->rx_q);
	req->psn = sq_psn & VROCE_PSN_MASK;
	req->rd_atomic = 0;
	req->retry_left = qp->attr.retry_cnt;
	req->rnr_left = qp->attr.rnr_retry;
	req->rnr_wait = false;
	req->gap_retry = false;
	req->partial = false;
	req->home_wait = false;
	req->window = VROCE_REQ_WINDOW;
	req->recovering = false;
	req->psn_new = req->psn;
	req->sent_end = qp->sq.next;
	req->rtt = (struct vroce_rtt){};
	req->rtt_timing = false;
}

/*
 * Packet @psn of a WQE whose PSNs end at @last_psn went out: time it when
 * it is new, asks for a response, and no other request is being timed.
 */
static void vroce_req_rtt_start(struct vroce_qp *qp, u32 psn, u32 last_psn,
				bool answered)
{
	struct vroce_req *req = &qp->req;

	if (vroce_psn_diff(psn, req->psn_new) < 0)
		return;		/* sent before */
	req->psn_new = vroce_psn_add(last_psn, 1);
	if (!answered || req->rtt_timing)
		return;
	req->rtt_timing = true;
	req->rtt_psn = psn;
	req->rtt_sent_ns = ktime_get_ns();
}

/**
 * vroce_req_rtt_end() - a response for @psn arrived: end a timing it covers
 * @qp: the QP (run_lock held)
 * @psn: the response's PSN
 */
void vroce_req_rtt_end(struct vroce_qp *qp, u32 psn)
{
	struct vroce_req *req = &qp->req;
	u64 now;

	lockdep_assert_held(&qp->run_lock);
	if (!req->rtt_timing || vroce_psn_diff(psn, req->rtt_psn) < 0)
		return;
	now = ktime_get_ns();
	req->rtt_timing = false;
	vroce_rtt_sample(&req->rtt, div_u64(now - req->rtt_sent_ns,
					    NSEC_PER_USEC));
	vroce_cc_rtt(qp, req->rtt_psn, req->rtt_sent_ns, now);
}

/* The address packets of @qp (RC, UC) go to. */
static int vroce_req_qp_av(struct vroce_qp *qp, struct vroce_av *av)
{
	struct rdma_ah_attr attr = qp->attr.ah_attr;

	attr.grh.sgid_attr = qp->ibqp.av_sgid_attr;
	return vroce_av_from_attr(av, &attr);
}

/* Copy @len bytes at @offset of the WQE's data (inline or SGEs) to @dst. */
static int vroce_req_gather(struct vroce_qp *qp, struct rxe_send_wqe *wqe,
			    u32 offset, void *dst, u32 len)
{
	if (wqe->wr.send_flags & IB_SEND_INLINE) {
		if ((u64)offset + len > wqe->dma.length)
			return -EINVAL;
		memcpy(dst, wqe->dma.inline_data + offset, len);
		return 0;
	}
	return vroce_sge_copy(qp->vdev, qp->ibqp.pd, wqe->dma.sge,
			      wqe->dma.num_sge, offset, dst, len, false);
}

/* BTH opcode of packet @i of @n of a WQE, or -1 if the QP cannot send it. */
static int vroce_req_opcode(struct vroce_qp *qp, u32 wr_op, u32 i, u32 n)
{
	bool first = i == 0, last = i == n - 1;
	int t;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		t = VROCE_OP_RC;
		break;
	case IB_QPT_UC:
		t = VROCE_OP_UC;
		break;
	default:
		if (wr_op == IB_WR_SEND)
			return VROCE_OP_UD | VROCE_SEND_ONLY;
		if (wr_op == IB_WR_SEND_WITH_IMM)
			return VROCE_OP_UD | VROCE_SEND_ONLY_IMM;
		return -1;
	}

	switch (wr_op) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
		if (!last)
			return t | (first ? VROCE_SEND_FIRST : VROCE_SEND_MIDDLE);
		if (wr_op == IB_WR_SEND_WITH_IMM)
			return t | (first ? VROCE_SEND_ONLY_IMM :
				    VROCE_SEND_LAST_IMM);
		if (wr_op == IB_WR_SEND_WITH_INV)
			return t == VROCE_OP_RC ?
			       t | (first ? VROCE_SEND_ONLY_INV :
				    VROCE_SEND_LAST_INV) : -1;
		return t | (first ? VROCE_SEND_ONLY : VROCE_SEND_LAST);
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		if (!last)
			return t | (first ? VROCE_WRITE_FIRST :
				    VROCE_WRITE_MIDDLE);
		if (wr_op == IB_WR_RDMA_WRITE_WITH_IMM)
			return t | (first ? VROCE_WRITE_ONLY_IMM :
				    VROCE_WRITE_LAST_IMM);
		return t | (first ? VROCE_WRITE_ONLY : VROCE_WRITE_LAST);
	case IB_WR_RDMA_READ:
		return t == VROCE_OP_RC ? t | VROCE_READ_REQUEST : -1;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return t == VROCE_OP_RC ? t | VROCE_CMP_SWAP : -1;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return t == VROCE_OP_RC ? t | VROCE_FETCH_ADD : -1;
#ifdef HAVE_FLUSH_ATOMIC_WRITE
	case IB_WR_FLUSH:
		return t == VROCE_OP_RC ? t | VROCE_FLUSH : -1;
	case IB_WR_ATOMIC_WRITE:
		return t == VROCE_OP_RC ? t | VROCE_ATOMIC_WRITE : -1;
#endif
	default:
		return -1;
	}
}

/*
 * RETH of a FLUSH: the range (or, at the MR level, just the key) from the
 * WQE's flush fields, which overlay wr.rdma differently; and the FETH.
 */
static void vroce_req_flush_ext(struct rxe_send_wqe *wqe, u8 op, void *bth)
{
#ifdef HAVE_FLUSH_ATOMIC_WRITE
	struct vroce_reth *reth = bth + vroce_opcode_ext_offset(op,
							      VROCE_EXT_RETH);
	struct vroce_feth *feth = bth + vroce_opcode_ext_offset(op,
							      VROCE_EXT_FETH);

	reth->va = cpu_to_be64(wqe->wr.wr.flush.remote_addr);
	reth->rkey = cpu_to_be32(wqe->wr.wr.flush.rkey);
	reth->len = cpu_to_be32(wqe->wr.wr.flush.length);
	vroce_feth_set(feth, wqe->wr.wr.flush.type, wqe->wr.wr.flush.level);
#endif
}

/*
 * Fill the extension headers of a request packet.  @skip: bytes of a READ
 * already received, which its request asks for no more.
 */
static void vroce_req_ext(struct vroce_qp *qp, struct rxe_send_wqe *wqe,
			  u8 op, void *bth, u32 skip)
{
	u32 wr_op = wqe->wr.opcode;
	int off;

	if (vroce_opcode_has(op, VROCE_F_FLUSH)) {
		vroce_req_flush_ext(wqe, op, bth);
		return;
	}
	off = vroce_opcode_ext_offset(op, VROCE_EXT_RETH);
	if (off > 0) {
		struct vroce_reth *reth = bth + off;

		reth->va = cpu_to_be64(wqe->wr.wr.rdma.remote_addr + skip);
		reth->rkey = cpu_to_be32(wqe->wr.wr.rdma.rkey);
		reth->len = cpu_to_be32(wqe->dma.length - skip);
	}
	off = vroce_opcode_ext_offset(op, VROCE_EXT_ATMETH);
	if (off > 0) {
		struct vroce_atmeth *ae = bth + off;

		ae->va = cpu_to_be64(wqe->wr.wr.atomic.remote_addr);
		ae->rkey = cpu_to_be32(wqe->wr.wr.atomic.rkey);
		if (wr_op == IB_WR_ATOMIC_CMP_AND_SWP) {
			ae->swap_add = cpu_to_be64(wqe->wr.wr.atomic.swap);
			ae->comp = cpu_to_be64(wqe->wr.wr.atomic.compare_add);
		} else {
			ae->swap_add =
				cpu_to_be64(wqe->wr.wr.atomic.compare_add);
		}
	}
	off = vroce_opcode_ext_offset(op, VROCE_EXT_DETH);
	if (off > 0) {
		struct vroce_deth *deth = bth + off;
		u32 qkey = wqe->wr.wr.ud.remote_qkey;

		/* A Q_Key with the high bit set means "the QP's own". */
		if (qkey & 0x80000000U)
			qkey = qp->attr.qkey;
		deth->qkey = cpu_to_be32(qkey);
		deth->sqp = cpu_to_be32(qp->ibqp.qp_num & VROCE_QPN_MASK);
	}
	off = vroce_opcode_ext_offset(op, VROCE_EXT_IMMDT);
	if (off > 0)
		((struct vroce_immdt *)(bth + off))->imm = wqe->wr.ex.imm_data;
	off = vroce_opcode_ext_offset(op, VROCE_EXT_IETH);
	if (off > 0)
		((struct vroce_ieth *)(bth + off))->rkey =
			cpu_to_be32(wqe->wr.ex.invalidate_rkey);
}

/* One request, a response to wait for, counted against max_rd_atomic. */
/* UD: the address of the WQE's AH, checked against the QP's PD. */
static int vroce_req_ud_av(struct vroce_qp *qp, struct vroce_sq_slot *slot,
			   struct rxe_send_wqe *wqe, struct vroce_av *av,
			   u32 *dqpn)
{
	struct vroce_ah *ah = slot->ah;
	struct rdma_ah_attr attr;
	int err;

	if (!ah) {
		ah = vroce_ah_get(qp->vdev, wqe->wr.wr.ud.ah_num, qp->ibqp.pd);
		if (!ah)
			return -EINVAL;
	}
	attr = ah->attr;
	attr.grh.sgid_attr = ah->ibah.sgid_attr;
	err = vroce_av_from_attr(av, &attr);
	if (!slot->ah)
		vroce_ah_put(ah);
	*dqpn = wqe->wr.wr.ud.remote_qpn;
	return err;
}

/*
 * RC: packets that may still go before the window of unacknowledged ones
 * is full, counted from the oldest not acknowledged: the head WQE's first,
 * past what ACKs of a long SEND or WRITE covered.
 */
static s32 vroce_req_room(struct vroce_qp *qp, u32 psn)
{
	struct rxe_send_wqe *head = vroce_sq_wqe(vroce_sq_slot(&qp->sq,
							       qp->sq.head));
	u32 oldest = head->first_psn;

	if (qp->sq.head == qp->sq.next)
		return qp->req.window;
	if (!vroce_wr_is_rd_atomic(head->wr.opcode))
		oldest = vroce_psn_add(oldest, head->ack_length /
				       ib_mtu_enum_to_int(qp->attr.path_mtu));
	return qp->req.window - vroce_psn_diff(psn, oldest);
}

/**
 * vroce_req_window_loss() - a packet was lost: send less at a time
 * @qp: the QP (run_lock held)
 * @timeout: the loss showed as a retransmit timeout, not a sequence NAK
 */
void vroce_req_window_loss(struct vroce_qp *qp, bool timeout)
{
	struct vroce_req *req = &qp->req;

	lockdep_assert_held(&qp->run_lock);
	if (!timeout) {
		req->recovering = false;
		req->window = max_t(u32, req->window / 2, VROCE_REQ_MIN_WINDOW);
		return;
	}
	if (!req->recovering) {
		req->recovering = true;
		req->window_saved = req->window;
	}
	req->recover_psn = vroce_psn_add(req->psn_new, VROCE_PSN_MASK);
	req->window = VROCE_REQ_TIMEOUT_WINDOW;
}

/**
 * vroce_req_recovery_ack() - an ACK for @psn while recovering from a timeout
 * @qp: the QP (run_lock held)
 * @psn: the ACK's PSN
 * @ahead: it covers packets not sent again since the timeout
 *
 * An ACK ahead of the resent packet shows the timeout was spurious: what
 * is in flight arrives anyway, so nothing more is sent until the ACKs
 * reach what was sent before the timeout (or a NAK or another timeout
 * shows a loss), and the window is then what it was.  An ACK of just the
 * resent packet shows a real loss: the window grows from one.
 */
void vroce_req_recovery_ack(struct vroce_qp *qp, u32 psn, bool ahead)
{
	struct vroce_req *req = &qp->req;

	lockdep_assert_held(&qp->run_lock);
	if (!req->recovering)
		return;
	if (vroce_psn_diff(psn, req->recover_psn) >= 0) {
		req->recovering = false;
		req->window = max(req->window, req->window_saved);
	} else if (ahead) {
		req->window = 0;
	} else {
		req->recovering = false;
		req->window = max_t(u32, req->window, VROCE_REQ_TIMEOUT_WINDOW);
	}
}

/**
 * vroce_req_window_grow() - an ACK made progress: send more at a time
 * @qp: the QP (run_lock held)
 */
void vroce_req_window_grow(struct vroce_qp *qp)
{
	lockdep_assert_held(&qp->run_lock);
	if (qp->req.window < VROCE_REQ_WINDOW && !qp->req.recovering)
		qp->req.window++;
}

/*
 * The port's FIFO has no room for a request (portq.c): the QP's pace
 * timer runs it again once it has.
 */
static bool vroce_req_port_full(struct vroce_qp *qp)
{
	u64 ns = vroce_portq_wait_ns(qp->vdev, vroce_cc_qp_prio(qp));

	if (!ns)
		return false;
	vroce_cc_tx_wait(qp, ns, false);
	return true;
}

/**
 * vroce_req_wqe() - send the packets of the WQE at @index
 * @qp: the QP (run_lock held)
 * @index: free-running index of the WQE in the private send ring: sq.next,
 *	or sq.next - 1 while qp->req.partial says it has packets to go
 *
 * A WQE sent again starts at its slot's resume packet, with the PSNs it
 * had: the packets before it arrived.  For a READ that is the first
 * response not received, and the one request asks for the rest.  An RC
 * message longer than the window goes out in parts: the WQE counts as
 * sent, req->partial is set, and the runner calls again for the rest as
 * ACKs open the window.
 *
 * Return: true when the WQE went out, in whole or in part (or failed and
 * is marked for an error completion), false when it must wait: an RNR
 * delay, the READ/atomic limit, a fence, or the window.
 */
bool vroce_req_wqe(struct vroce_qp *qp, u32 index)
{
	struct vroce_req *req = &qp->req;
	struct vroce_sq_slot *slot = vroce_sq_slot(&qp->sq, index);
	struct rxe_send_wqe *wqe = vroce_sq_wqe(slot);
	bool rc = qp->ibqp.qp_type == IB_QPT_RC;
	bool ud = !rc && qp->ibqp.qp_type != IB_QPT_UC;
	u32 wr_op = wqe->wr.opcode, mtu, npkts, nsend, i, end, dqpn, start;
	u32 first;
	u32 ack_every;
	bool paced = false, shaped, home_wait = false;
	bool more = req->partial;
	bool awrite = false;
	u32 skip;
	u32 max_rd = max_t(u32, qp->attr.max_rd_atomic, 1);
	struct vroce_av av;
	u32 entropy;
	int err;

	if (req->rnr_wait)
		return false;
	if (more) {
		if (vroce_req_room(qp, req->psn) <= 0)
			return false;
	} else if (rc && vroce_wr_is_rd_atomic(wr_op) &&
		   req->rd_atomic >= max_rd) {
		return false;
	} else if (rc && (wqe->wr.send_flags & IB_SEND_FENCE) &&
		   req->rd_atomic) {
		return false;
	} else if (rc && vroce_req_room(qp, req->psn) <= 0) {
		return false;
	}

	/* UC and UD send a message whole: room first (RC: each packet's) */
	shaped = vroce_portq_shaped(qp->vdev);
	if (!rc && shaped && vroce_req_port_full(qp))
		return false;

	if (ud) {
		mtu = ib_mtu_enum_to_int(qp->vdev->port_mtu);
		err = vroce_req_ud_av(qp, slot, wqe, &av, &dqpn);
	} else {
		mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
		dqpn = qp->attr.dest_qp_num;
		err = vroce_req_qp_av(qp, &av);
	}
	wqe->status = IB_WC_SUCCESS;
	if (err || vroce_req_opcode(qp, wr_op, 0, 1) < 0) {
		wqe->status = IB_WC_LOC_QP_OP_ERR;
		wqe->state = VROCE_WQE_DONE;
		req->partial = false;
		return true;
	}
#ifdef HAVE_FLUSH_ATOMIC_WRITE
	awrite = wr_op == IB_WR_ATOMIC_WRITE;
#endif
	entropy = av.flow_label ? av.flow_label :
		  rdma_calc_flow_label(qp->ibqp.qp_num, dqpn);
	if (rc) {
		vroce_cc_ect(qp, &av);
		paced = vroce_cc_qp_paced(qp);
	}
	/* a paced QP sends from timers on any CPU: keep its order */
	req->route.ordered = paced;

	/* A READ uses one PSN per response packet; it sends one request. */
	npkts = wqe->dma.length ? DIV_ROUND_UP(wqe->dma.length, mtu) : 1;
	nsend = vroce_wr_is_rd_atomic(wr_op) ? 1 : npkts;
	if (vroce_wr_is_rd_atomic(wr_op) && wr_op != IB_WR_RDMA_READ)
		npkts = 1;

	wqe->status = IB_WC_SUCCESS;
	if ((s32)(index + 1 - req->sent_end) > 0)
		req->sent_end = index + 1;
	start = rc ? min(slot->resume, npkts - 1) : 0;
	if (!start) {
		wqe->first_psn = req->psn;
		wqe->last_psn = vroce_psn_add(req->psn, npkts - 1);
		wqe->ack_length = 0;
	}
	skip = wr_op == IB_WR_RDMA_READ ? start * mtu : 0;
	i = nsend == 1 ? 0 : start;
	end = nsend;
	if (rc && nsend > 1) {
		s32 room = vroce_req_room(qp, vroce_psn_add(wqe->first_psn, i));

		end = min_t(u32, nsend, i + max(room, 1));
	}

	/*
	 * Often enough that a responder acking only on request (rdma_rxe)
	 * keeps a small window open.
	 */
	ack_every = min_t(u32, VROCE_REQ_ACK_EVERY, max(req->window / 2, 1U));
	for (first = i; i < end; i++) {
		u32 off = i * mtu;
		/* ATOMIC WRITE: the 8 bytes the WQE itself carries (sq.c) */
		u32 len = awrite ? sizeof(u64) :
			  vroce_wr_is_rd_atomic(wr_op) ? 0 :
			  min(wqe->dma.length - off, mtu);
		int op = vroce_req_opcode(qp, wr_op, i, nsend);
		unsigned int hdr = vroce_opcode_hdr_len(op);
		unsigned int pad = vroce_pkt_pad(len);
		bool last = i == nsend - 1;
		bool ackreq = last || (i + 1) % ack_every == 0;
		u32 psn = vroce_psn_add(wqe->first_psn, nsend == 1 ? start : i);
		struct vroce_bth *bth;
		struct sk_buff *skb;

		/* the rest when the pace timer runs the QP again */
		if ((shaped && vroce_req_port_full(qp)) ||
		    (paced && !vroce_cc_tx_admit(qp, hdr + len + pad, false))) {
			home_wait = true;
			break;
		}
		skb = vroce_pkt_alloc(qp->vdev, hdr + len + pad);
		if (!skb)
			break;	/* lost: the retransmit timer sends it again */
		bth = vroce_pkt_put(skb, hdr, len, pad);
		vroce_bth_set(bth, op,
			      last && (wqe->wr.send_flags & IB_SEND_SOLICITED),
			      pad, IB_DEFAULT_PKEY_FULL, dqpn, rc && ackreq, psn);
		vroce_req_ext(qp, wqe, op, bth, skip);
		if (awrite) {
			memcpy((u8 *)bth + hdr, wqe->dma.inline_data, len);
		} else if (len && vroce_req_gather(qp, wqe, off,
						   (u8 *)bth + hdr, len)) {
			kfree_skb(skb);
			wqe->status = IB_WC_LOC_PROT_ERR;
			wqe->state = VROCE_WQE_DONE;
			req->partial = false;
			return true;
		}
		err = vroce_pkt_send(qp->vdev, &av, skb, entropy,
				     ud ? NULL : &req->route);
		if (rc && err == -ENOBUFS) {
			/*
			 * The local queue was full (a veth peer's backlog):
			 * the packet never left.  Send less at a time, and
			 * this one again when ACKs open the window.
			 */
			vroce_req_window_loss(qp, false);
			break;
		}
		/* a READ's one request stands for all its PSNs */
		if (rc)
			vroce_req_rtt_start(qp, psn,
					    nsend == 1 ? wqe->last_psn : psn,
					    ackreq || vroce_wr_is_rd_atomic(wr_op));
	}
	/*
	 * Packets left with none in flight before (comp.c stops the timer
	 * while a message's rest waits at home): the timer starts.  A paced
	 * message goes out over a long time: it counts from its last
	 * packet, not from the first.  (A WQE's first call arms it below
	 * whatever went out: a packet the netdev refused is sent again
	 * only by a timeout.)
	 */
	if (rc && i > first && qp->attr.timeout && !req->dying &&
	    (paced || !timer_pending(&req->timer)))
		mod_timer(&req->timer, jiffies + vroce_req_timeout(qp));
	req->partial = rc && i < nsend;
	req->home_wait = req->partial && home_wait;
	if (req->partial) {
		/* the rest when ACKs open the window (or a failed allocation
		 * is retried: the retransmit timer covers both)
		 */
		slot->resume = i;
		req->psn = vroce_psn_add(wqe->first_psn, i);
	} else {
		req->psn = vroce_psn_add(wqe->last_psn, 1);
	}

	if (!rc) {
		/* UC and UD are unreliable: sent is done. */
		wqe->state = VROCE_WQE_DONE;
		return true;
	}
	if (more)
		return true;
	wqe->state = VROCE_WQE_SENT;
	if (vroce_wr_is_rd_atomic(wr_op))
		req->rd_atomic++;
	if (qp->attr.timeout && !req->dying && !timer_pending(&req->timer))
		mod_timer(&req->timer, jiffies + vroce_req_timeout(qp));
	return true;
}

/**
 * vroce_req_rest() - go on sending a WQE that went out in part
 * @qp: the QP (run_lock held)
 *
 * Return: true when no WQE has packets left to send (any more), false
 * while one still waits for the window.
 */
bool vroce_req_rest(struct vroce_qp *qp)
{
	lockdep_assert_held(&qp->run_lock);
	if (!qp->req.partial)
		return true;
	vroce_req_wqe(qp, qp->sq.next - 1);
	return !qp->req.partial;
}
