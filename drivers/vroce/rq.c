// SPDX-License-Identifier: GPL-2.0
/*
 * The receive queue of a QP without SRQ: kernel post_recv, the responder's
 * way to take the next WQE (copied out and validated), and the runner's
 * ERR step that flushes it.
 *
 * Receives posted in ERR.  Kernel post_recv in ERR schedules a flush.  A
 * process posts receives without entering the kernel, so while a user QP
 * without SRQ is in ERR its RQ is also polled: from 1 ms after the
 * transition, doubling while nothing is found up to 200 ms, and on every
 * doorbell and modify_qp.  A receive posted in ERR thus completes with
 * IB_WC_WR_FLUSH_ERR within 200 ms at worst, with no cost while no QP is
 * in ERR.
 */
#include <linux/workqueue.h>

#include "vroce.h"

#define VROCE_ERR_POLL_MIN_MS	1
#define VROCE_ERR_POLL_MAX_MS	200

/* ERR: every receive WQE completes with FLUSH_ERR.  Return: any found. */
static bool vroce_rq_flush(struct vroce_qp *qp, int *budget)
{
	struct vroce_rq *rq = &qp->rq;
	struct rxe_recv_wqe wqe;
	unsigned long flags;
	bool found = false;
	struct ib_wc wc;
	u32 n;

	lockdep_assert_held(&qp->run_lock);

	/* one ring's worth per run: a process posting on and on waits */
	for (n = 0; n < vroce_queue_capacity(&rq->queue) && *budget > 0;
	     n++) {
		spin_lock_irqsave(&rq->lock, flags);
		if (!vroce_queue_peek_copy(&rq->queue, &wqe, sizeof(wqe))) {
			spin_unlock_irqrestore(&rq->lock, flags);
			break;
		}
		vroce_queue_consume(&rq->queue);
		spin_unlock_irqrestore(&rq->lock, flags);

		memset(&wc, 0, sizeof(wc));
		wc.wr_id = wqe.wr_id;
		wc.status = IB_WC_WR_FLUSH_ERR;
		wc.opcode = IB_WC_RECV;
		wc.qp = &qp->ibqp;
		vroce_cq_post(to_vroce_cq(qp->ibqp.recv_cq), &wc, true);
		found = true;
		(*budget)--;
	}
	return found;
}

/**
 * vroce_qp_run_err() - ERR: the receive side
 * @qp: the QP (run_lock held)
 * @budget: the run's steps left, one per receive WQE flushed
 */
void vroce_qp_run_err(struct vroce_qp *qp, int *budget)
{
	unsigned long min = msecs_to_jiffies(VROCE_ERR_POLL_MIN_MS);
	unsigned long max = msecs_to_jiffies(VROCE_ERR_POLL_MAX_MS);
	bool found;

	/* the receive WQE of a message in progress completes first */
	vroce_resp_flush(qp);

	if (qp->ibqp.srq) {
		/* IBTA 10.3.1: the SRQ's consumer learns the QP is done */
		if (!qp->err_seen)
			vroce_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
		qp->err_seen = true;
		return;
	}

	found = vroce_rq_flush(qp, budget);
	if (!qp->is_user)
		return;
	/* the process posts receives without telling us: look again later */
	if (found || !qp->err_seen)
		qp->err_poll = min;
	else
		qp->err_poll = min(qp->err_poll * 2, max);
	qp->err_seen = true;
	queue_delayed_work(system_unbound_wq, &qp->run_work, qp->err_poll);
}

static int vroce_post_one_recv(struct vroce_rq *rq, const struct ib_recv_wr *wr)
{
	struct rxe_recv_wqe *wqe;
	u64 length = 0;
	int i;

	lockdep_assert_held(&rq->lock);

	if (wr->num_sge < 0 || (u32)wr->num_sge > rq->max_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		length += wr->sg_list[i].length;
	if (length > VROCE_MAX_MSG_SIZE)
		return -EINVAL;

	wqe = vroce_queue_producer_slot(&rq->queue);
	if (!wqe)
		return -ENOMEM;
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->dma.sge[i].addr = wr->sg_list[i].addr;
		wqe->dma.sge[i].length = wr->sg_list[i].length;
		wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
	}
	vroce_queue_produce(&rq->queue);
	return 0;
}

/**
 * vroce_post_recv() - post receive work requests (post_recv verb)
 * @ibqp: a kernel QP without SRQ (a process posts into its ring)
 * @wr: the chain to post
 * @bad_wr: set to the first request not posted
 *
 * Any context.  Posting in RESET fails; in ERR the requests complete
 * with IB_WC_WR_FLUSH_ERR.
 *
 * Return: 0, -EINVAL (bad request, state, or a QP with SRQ), -ENOMEM
 * (queue full).
 */
int vroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct vroce_qp *qp = to_vroce_qp(ibqp);
	struct vroce_rq *rq = &qp->rq;
	unsigned long flags;
	bool flush;
	int err = 0;

	if (ibqp->srq || qp->is_user ||
	    vroce_qp_state(qp) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&rq->lock, flags);
	for (; wr; wr = wr->next) {
		err = vroce_post_one_recv(rq, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	/*
	 * Read after the WQEs are in: a flush that took rq->lock before us
	 * ran after the state changed, so then we see ERR here and start
	 * another one.
	 */
	flush = vroce_qp_state(qp) == IB_QPS_ERR;
	spin_unlock_irqrestore(&rq->lock, flags);

	if (flush)
		vroce_qp_schedule(qp);
	return err;
}

/**
 * vroce_rq_take() - remove the next receive WQE, copied and validated
 * @qp: a QP without SRQ
 * @wqe: buffer for the WQE
 * @len: size of @wqe: sizeof(struct rxe_recv_wqe) + max_sge SGEs
 *
 * Any context; see qp.h.
 *
 * Return: 0, -EAGAIN when empty, -EINVAL for a bad WQE.
 */
int vroce_rq_take(struct vroce_qp *qp, struct rxe_recv_wqe *wqe, size_t len)
{
	struct vroce_rq *rq = &qp->rq;
	unsigned long flags;
	u64 length = 0;
	u32 num_sge, i;
	bool got;

	if (len < sizeof(*wqe))
		return -EINVAL;

	spin_lock_irqsave(&rq->lock, flags);
	got = vroce_queue_peek_copy(&rq->queue, wqe, len);
	if (got)
		vroce_queue_consume(&rq->queue);
	spin_unlock_irqrestore(&rq->lock, flags);
	if (!got)
		return -EAGAIN;

	num_sge = wqe->dma.num_sge;
	if (num_sge > rq->max_sge ||
	    sizeof(*wqe) + (size_t)num_sge * sizeof(struct rxe_sge) > len)
		return -EINVAL;
	for (i = 0; i < num_sge; i++)
		length += wqe->dma.sge[i].length;
	if (length > VROCE_MAX_MSG_SIZE)
		return -EINVAL;
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.cur_sge = 0;
	wqe->dma.sge_offset = 0;
	return 0;
}
