// SPDX-License-Identifier: GPL-2.0
/*
 * The work queues of a QP: ring geometry (sizes rounded and reported back,
 * the private send ring, the mappable rings of a user QP) and reset.
 * Posting and the runner's steps are in sq.c (send) and rq.c (receive).
 */
#include <linux/cache.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>

#include "vroce.h"

/* Slot size of a ring of @size-byte entries, as queue.c rounds it. */
static u32 vroce_wq_elem(size_t size)
{
	return roundup_pow_of_two(max_t(size_t, size, SMP_CACHE_BYTES));
}

/**
 * vroce_wq_create() - set up the send and receive queues of a new QP
 * @qp: the QP; is_user, the CQs and srq are set
 * @init: the requested caps; rounded up and written back
 * @udata: user QP: the rings are made mappable
 * @resp: user QP: filled with the rings' mmap information
 *
 * Process context.  Send slot: struct rxe_send_wqe + max(max_send_sge
 * SGEs, max_inline_data), receive slot: struct rxe_recv_wqe +
 * max_recv_sge SGEs, each rounded up to a power of two; what the rounding
 * adds is reported back as more SGEs and inline bytes (up to the device
 * limits), and the slot count likewise as more WRs.
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int vroce_wq_create(struct vroce_qp *qp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata, struct rxe_create_qp_resp *resp)
{
	struct ib_device *ibdev = qp->ibqp.device;
	struct ib_qp_cap *cap = &init->cap;
	struct vroce_sq *sq = &qp->sq;
	struct vroce_rq *rq = &qp->rq;
	struct ib_ucontext *uctx;
	u32 elem, payload, nslots;
	int err;

	elem = vroce_wq_elem(sizeof(struct rxe_send_wqe) +
			     max_t(u32, cap->max_send_sge *
					sizeof(struct rxe_sge),
				   cap->max_inline_data));
	if (qp->is_user) {
		err = vroce_queue_init(&sq->queue, ibdev,
				       max_t(u32, cap->max_send_wr, 1), elem,
				       VROCE_Q_USER_PRODUCER, true);
		if (err)
			return err;
		elem = sq->queue.elem_size;
		nslots = sq->queue.index_mask + 1;
	} else {
		nslots = roundup_pow_of_two(max_t(u32, cap->max_send_wr, 1) + 1);
	}
	payload = elem - sizeof(struct rxe_send_wqe);
	sq->max_sge = min_t(u32, payload / sizeof(struct rxe_sge),
			    VROCE_MAX_SGE);
	sq->max_inline = min_t(u32, payload, VROCE_MAX_INLINE_DATA);
	sq->mask = nslots - 1;
	sq->max_wr = sq->mask;
	/* the private copy keeps only what the caps allow */
	payload = max_t(u32, sq->max_sge * sizeof(struct rxe_sge),
			sq->max_inline);
	sq->slot_size = ALIGN(VROCE_SQ_SLOT_HDR + sizeof(struct rxe_send_wqe) +
			      payload, 8);
	sq->slots = kvcalloc(nslots, sq->slot_size, GFP_KERNEL);
	if (!sq->slots) {
		err = -ENOMEM;
		goto cleanup_sq_ring;
	}

	if (!init->srq) {
		elem = vroce_wq_elem(sizeof(struct rxe_recv_wqe) +
				     cap->max_recv_sge * sizeof(struct rxe_sge));
		err = vroce_queue_init(&rq->queue, ibdev,
				       max_t(u32, cap->max_recv_wr, 1), elem,
				       VROCE_Q_USER_PRODUCER, qp->is_user);
		if (err)
			goto free_slots;
		rq->max_wr = vroce_queue_capacity(&rq->queue);
		rq->max_sge = min_t(u32, (rq->queue.elem_size -
					  sizeof(struct rxe_recv_wqe)) /
					 sizeof(struct rxe_sge),
				    VROCE_MAX_SGE);
	}

	if (udata) {
		uctx = &rdma_udata_to_drv_context(udata, struct vroce_ucontext,
						  ibuc)->ibuc;
		err = vroce_queue_mmap_info(&sq->queue, uctx, &resp->sq_mi);
		if (!err && !init->srq)
			err = vroce_queue_mmap_info(&rq->queue, uctx,
						    &resp->rq_mi);
		if (err)
			goto cleanup_rq_ring;
	}

	cap->max_send_wr = sq->max_wr;
	cap->max_send_sge = sq->max_sge;
	cap->max_inline_data = sq->max_inline;
	cap->max_recv_wr = rq->max_wr;
	cap->max_recv_sge = rq->max_sge;
	return 0;

cleanup_rq_ring:
	vroce_queue_cleanup(&rq->queue);
free_slots:
	kvfree(sq->slots);
	sq->slots = NULL;
cleanup_sq_ring:
	vroce_queue_cleanup(&sq->queue);
	return err;
}

/**
 * vroce_wq_destroy() - free the queues of a QP
 * @qp: the QP; nothing runs on it any more
 *
 * Process context.  A ring the process still maps lives on until it
 * unmaps it.
 */
void vroce_wq_destroy(struct vroce_qp *qp)
{
	kvfree(qp->sq.slots);
	qp->sq.slots = NULL;
	/* both are zeroed when absent (kernel SQ ring, SRQ) */
	vroce_queue_cleanup(&qp->sq.queue);
	vroce_queue_cleanup(&qp->rq.queue);
}

/**
 * vroce_wq_reset() - drop every WQE without completion (to RESET)
 * @qp: the QP
 *
 * Caller holds run_lock: no runner is half way through the queues.
 */
void vroce_wq_reset(struct vroce_qp *qp)
{
	struct vroce_rq *rq = &qp->rq;
	unsigned long flags;
	u32 n;

	lockdep_assert_held(&qp->run_lock);

	vroce_sq_discard(qp);
	if (!qp->ibqp.srq) {
		spin_lock_irqsave(&rq->lock, flags);
		for (n = vroce_queue_count(&rq->queue); n; n--)
			vroce_queue_consume(&rq->queue);
		spin_unlock_irqrestore(&rq->lock, flags);
	}
	qp->err_seen = false;
}
