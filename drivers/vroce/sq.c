// SPDX-License-Identifier: GPL-2.0
/*
 * The send queue of a QP: posting (kernel verbs and the user doorbell),
 * the checks every send WQE passes before the send path sees it, and the
 * runner's send-queue steps: intake, execution of local operations,
 * completion in order, the SQD drain and the flush.
 *
 * Every WQE the transport will read sits in the private ring
 * (vroce_sq.slots), checked.  Kernel post_send writes it there.  A user
 * QP's process writes into the shared ring and rings the doorbell
 * (POST_SEND with no work request); the runner then copies each new WQE
 * out of the shared ring once, into its private slot, and checks only
 * that copy: opcode valid for the QP type (REG_MR never from a process),
 * num_sge within max_sge, inline length within max_inline, lengths
 * recomputed from the SGEs, every lkey valid for the QP's PD with the
 * rights the opcode needs, the AH of a UD WQE existing in the QP's PD.
 * A WQE that fails keeps the error status it will complete with; nothing
 * executes past it.  head/next/tail index both rings alike: the shared
 * ring's consumer index is head, so a slot returns to the process only
 * when its WQE completed.
 *
 * The runner (runner.c) calls the steps here with run_lock held and a
 * budget of steps: RTS: take WQEs in, execute the local operations
 * (REG_MR, LOCAL_INV, BIND_MW) that reach the head, complete them (a CQE
 * only when signaled, or on error; an error moves the QP to ERR); SQD:
 * take WQEs in, report the drain; SQE/ERR: complete every send WQE with
 * FLUSH_ERR.  Network operations go to the requester (req.c).  Nothing
 * here sleeps: the runner may run in softirq.
 */
#include <linux/nospec.h>

#include "vroce.h"

/* Send flags a WQE keeps; others (IP_CSUM: no LSO) are dropped. */
#define VROCE_SEND_FLAGS	(IB_SEND_FENCE | IB_SEND_SIGNALED | \
				 IB_SEND_SOLICITED | IB_SEND_INLINE)

/* Properties of a send opcode: the QP types it is valid on, its kind. */
#define VROCE_WR_RC		BIT(0)
#define VROCE_WR_UC		BIT(1)
#define VROCE_WR_UD		BIT(2)	/* UD and GSI */
#define VROCE_WR_KERNEL		BIT(3)	/* kernel verbs only: has a pointer */
#define VROCE_WR_USER		BIT(4)	/* user rings only: no kernel form */
#define VROCE_WR_LOCAL		BIT(5)	/* executed by the send path itself */
#define VROCE_WR_INLINE		BIT(6)	/* may carry inline data */
#define VROCE_WR_RDMA		BIT(7)	/* remote address in wr.rdma */
#define VROCE_WR_ATOMIC		BIT(8)	/* remote address in wr.atomic */
#define VROCE_WR_LWRITE		BIT(9)	/* writes local memory */
#define VROCE_WR_PLACEMENT	BIT(10)	/* FLUSH, ATOMIC WRITE: no SGEs */

struct vroce_wr_info {
	u16 flags;
	enum ib_wc_opcode wc_opcode;
};

/*
 * The opcodes vroce executes.  LSO, masked atomics and READ_WITH_INV
 * (iWARP) are refused.  FLUSH and ATOMIC_WRITE exist where the kernel has
 * them, from user QPs only: librxe puts the 8 bytes of an ATOMIC WRITE in
 * the WQE, a form kernel verbs have no field for.
 */
static const struct vroce_wr_info vroce_wr_info[] = {
	[IB_WR_RDMA_WRITE] = {
		VROCE_WR_RC | VROCE_WR_UC | VROCE_WR_INLINE | VROCE_WR_RDMA,
		IB_WC_RDMA_WRITE },
	[IB_WR_RDMA_WRITE_WITH_IMM] = {
		VROCE_WR_RC | VROCE_WR_UC | VROCE_WR_INLINE | VROCE_WR_RDMA,
		IB_WC_RDMA_WRITE },
	[IB_WR_SEND] = {
		VROCE_WR_RC | VROCE_WR_UC | VROCE_WR_UD | VROCE_WR_INLINE,
		IB_WC_SEND },
	[IB_WR_SEND_WITH_IMM] = {
		VROCE_WR_RC | VROCE_WR_UC | VROCE_WR_UD | VROCE_WR_INLINE,
		IB_WC_SEND },
	[IB_WR_RDMA_READ] = {
		VROCE_WR_RC | VROCE_WR_RDMA | VROCE_WR_LWRITE,
		IB_WC_RDMA_READ },
	[IB_WR_ATOMIC_CMP_AND_SWP] = {
		VROCE_WR_RC | VROCE_WR_ATOMIC | VROCE_WR_LWRITE,
		IB_WC_COMP_SWAP },
	[IB_WR_ATOMIC_FETCH_AND_ADD] = {
		VROCE_WR_RC | VROCE_WR_ATOMIC | VROCE_WR_LWRITE,
		IB_WC_FETCH_ADD },
	[IB_WR_LOCAL_INV] = {
		VROCE_WR_RC | VROCE_WR_UC | VROCE_WR_LOCAL,
		IB_WC_LOCAL_INV },
	[IB_WR_BIND_MW] = {
		VROCE_WR_RC | VROCE_WR_UC | VROCE_WR_LOCAL | VROCE_WR_USER,
		IB_WC_BIND_MW },
	[IB_WR_SEND_WITH_INV] = {
		VROCE_WR_RC | VROCE_WR_INLINE,
		IB_WC_SEND },
	[IB_WR_REG_MR] = {
		VROCE_WR_RC | VROCE_WR_UC | VROCE_WR_LOCAL | VROCE_WR_KERNEL,
		IB_WC_REG_MR },
#ifdef HAVE_FLUSH_ATOMIC_WRITE
	[IB_WR_FLUSH] = {
		VROCE_WR_RC | VROCE_WR_USER | VROCE_WR_PLACEMENT,
		IB_WC_FLUSH },
	[IB_WR_ATOMIC_WRITE] = {
		VROCE_WR_RC | VROCE_WR_USER | VROCE_WR_PLACEMENT |
		VROCE_WR_RDMA,
		IB_WC_ATOMIC_WRITE },
#endif
};

static bool vroce_qp_is_ud(const struct vroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

/* Properties of @opcode on this QP, 0 when it is not valid there. */
static u16 vroce_wr_flags(const struct vroce_qp *qp, u32 opcode)
{
	u16 flags, type;

	if (opcode >= ARRAY_SIZE(vroce_wr_info))
		return 0;
	opcode = array_index_nospec(opcode, ARRAY_SIZE(vroce_wr_info));
	flags = vroce_wr_info[opcode].flags;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		type = VROCE_WR_RC;
		break;
	case IB_QPT_UC:
		type = VROCE_WR_UC;
		break;
	default:
		type = VROCE_WR_UD;
		break;
	}
	if (!(flags & type))
		return 0;
	if (flags & (qp->is_user ? VROCE_WR_KERNEL : VROCE_WR_USER))
		return 0;
	return flags;
}

/* Completion opcode of a send WQE, whatever its opcode (flush). */
static enum ib_wc_opcode vroce_wc_opcode(u32 opcode)
{
	if (opcode >= ARRAY_SIZE(vroce_wr_info))
		return IB_WC_SEND;
	opcode = array_index_nospec(opcode, ARRAY_SIZE(vroce_wr_info));
	if (!vroce_wr_info[opcode].flags)
		return IB_WC_SEND;
	return vroce_wr_info[opcode].wc_opcode;
}

/* Largest UD message: one packet of the port's active MTU. */
static u32 vroce_ud_max_len(struct vroce_dev *vdev)
{
	unsigned long flags;
	enum ib_mtu mtu;

	spin_lock_irqsave(&vdev->port_lock, flags);
	mtu = vdev->port_mtu;
	spin_unlock_irqrestore(&vdev->port_lock, flags);
	return ib_mtu_enum_to_int(mtu);
}

static u32 vroce_sq_tail(struct vroce_sq *sq)
{
	unsigned long flags;
	u32 tail;

	spin_lock_irqsave(&sq->lock, flags);
	tail = sq->tail;
	spin_unlock_irqrestore(&sq->lock, flags);
	return tail;
}

/**
 * vroce_sq_discard() - drop every send WQE without completion
 * @qp: the QP (run_lock held)
 *
 * A user ring is emptied up to the process's producer index; its consumer
 * index stays at our head.
 */
void vroce_sq_discard(struct vroce_qp *qp)
{
	struct vroce_sq *sq = &qp->sq;
	unsigned long flags;
	u32 n, i;

	lockdep_assert_held(&qp->run_lock);

	spin_lock_irqsave(&sq->lock, flags);
	n = sq->tail - sq->head;
	if (qp->is_user) {
		n = max(n, vroce_queue_count(&sq->queue));
		for (i = 0; i < n; i++)
			vroce_queue_consume(&sq->queue);
	}
	sq->head += n;
	sq->next = sq->head;
	sq->tail = sq->head;
	spin_unlock_irqrestore(&sq->lock, flags);
}

/*
 * Complete the WQE at the head with @status: a CQE when it was signaled
 * or failed, and its slot goes back.
 */
void vroce_sq_complete(struct vroce_qp *qp, enum ib_wc_status status)
{
	struct vroce_sq *sq = &qp->sq;
	struct rxe_send_wqe *wqe = vroce_sq_wqe(vroce_sq_slot(sq, sq->head));
	unsigned long flags;
	struct ib_wc wc;
	bool signal;

	lockdep_assert_held(&qp->run_lock);

	signal = status != IB_WC_SUCCESS || qp->sq_sig_all ||
		 (wqe->wr.send_flags & IB_SEND_SIGNALED);
	if (signal) {
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = wqe->wr.wr_id;
		wc.status = status;
		wc.opcode = vroce_wc_opcode(wqe->wr.opcode);
		wc.qp = &qp->ibqp;
		if (status == IB_WC_SUCCESS)
			wc.byte_len = wqe->dma.length;
	}

	/*
	 * The slot is free before the CQE shows: a consumer that posts again
	 * when it sees the completion always finds room.
	 */
	spin_lock_irqsave(&sq->lock, flags);
	sq->head++;
	spin_unlock_irqrestore(&sq->lock, flags);
	if (qp->is_user)
		vroce_queue_consume(&sq->queue);

	/* an error completion also satisfies a solicited-only arm (IBTA) */
	if (signal)
		vroce_cq_post(to_vroce_cq(qp->ibqp.send_cq), &wc,
			      status != IB_WC_SUCCESS);
}

static enum ib_wc_status vroce_sq_check_sges(struct vroce_qp *qp,
					     const struct rxe_sge *sge,
					     u32 num_sge, int access)
{
	struct vroce_mr *mr;
	u32 i;

	for (i = 0; i < num_sge; i++) {
		if (!sge[i].length)
			continue;
		mr = vroce_mr_lookup_lkey(qp->vdev, qp->ibqp.pd, sge[i].lkey,
					  sge[i].addr, sge[i].length, access);
		if (IS_ERR(mr))
			return IB_WC_LOC_PROT_ERR;
		vroce_mr_put(mr);
	}
	return IB_WC_SUCCESS;
}

static enum ib_wc_status vroce_sq_check_ud(struct vroce_qp *qp,
					   const struct rxe_send_wqe *wqe)
{
	const struct rxe_av *av = &wqe->wr.wr.ud.av;
	struct vroce_ah *ah;

	if (wqe->wr.wr.ud.remote_qpn > VROCE_QPN_MASK)
		return IB_WC_LOC_QP_OP_ERR;
	if (wqe->wr.wr.ud.ah_num) {
		/* the send path looks it up again: only the number is kept */
		ah = vroce_ah_get(qp->vdev, wqe->wr.wr.ud.ah_num, qp->ibqp.pd);
		if (!ah)
			return IB_WC_LOC_QP_OP_ERR;
		vroce_ah_put(ah);
		return IB_WC_SUCCESS;
	}
	/* an old librxe puts the address itself in the WQE (ah.h) */
	if (av->port_num != 1 || (av->network_type != RXE_NETWORK_TYPE_IPV4 &&
				  av->network_type != RXE_NETWORK_TYPE_IPV6))
		return IB_WC_LOC_QP_OP_ERR;
	return IB_WC_SUCCESS;
}

/*
 * FLUSH: no local data; the range (or the whole MR) and the key are in
 * wr.flush, with a placement type and a selectivity level the responder
 * acts on.  ATOMIC WRITE: its 8 bytes are in the WQE itself (where inline
 * data goes), the remote address and key in wr.rdma; the responder checks
 * the alignment, as for a peer's request.
 */
static enum ib_wc_status vroce_sq_check_placement(struct vroce_qp *qp,
						  struct rxe_send_wqe *wqe)
{
#ifdef HAVE_FLUSH_ATOMIC_WRITE
	struct vroce_sq *sq = &qp->sq;
	u32 room = max_t(u32, sq->max_sge * sizeof(struct rxe_sge),
			 sq->max_inline);

	wqe->wr.send_flags &= ~IB_SEND_INLINE;
	wqe->dma.num_sge = 0;
	if (wqe->wr.opcode == IB_WR_FLUSH) {
		u8 type = wqe->wr.wr.flush.type;

		if (!type ||
		    (type & ~(IB_FLUSH_GLOBAL | IB_FLUSH_PERSISTENT)) ||
		    wqe->wr.wr.flush.level > IB_FLUSH_MR)
			return IB_WC_LOC_QP_OP_ERR;
		/*
		 * librxe's wr_flush() puts the range's length in dma.length
		 * and leaves wr.flush.length 0; rdma_rxe sends dma.resid.
		 * The private slot keeps it in wr.flush.length, where the
		 * requester takes the RETH's length from, and sends no data.
		 * A persistent type goes out: whether the peer places
		 * persistently is the peer's to answer.
		 */
		wqe->wr.wr.flush.length = wqe->dma.length;
		wqe->iova = wqe->wr.wr.flush.remote_addr;
		wqe->dma.length = 0;
		wqe->dma.resid = 0;
		return IB_WC_SUCCESS;
	}
	/* the private slot keeps only what the caps allow */
	if (wqe->dma.length != sizeof(u64) || room < sizeof(u64))
		return IB_WC_LOC_LEN_ERR;
	wqe->iova = wqe->wr.wr.rdma.remote_addr;
	wqe->dma.resid = sizeof(u64);
	return IB_WC_SUCCESS;
#else
	return IB_WC_LOC_QP_OP_ERR;
#endif
}

/*
 * Check a user WQE copied into its private slot, and make it the form
 * the send path expects.  Every field is read from the copy only.
 */
static enum ib_wc_status vroce_sq_check_user(struct vroce_qp *qp,
					     struct rxe_send_wqe *wqe)
{
	struct vroce_sq *sq = &qp->sq;
	enum ib_wc_status status;
	u64 length = 0;
	u32 num_sge, i;
	u16 flags;

	flags = vroce_wr_flags(qp, wqe->wr.opcode);
	if (!flags)
		return IB_WC_LOC_QP_OP_ERR;
	wqe->wr.send_flags &= VROCE_SEND_FLAGS;

	/* the send path's own fields start from zero */
	wqe->status = 0;
	wqe->state = 0;
	wqe->mask = 0;
	wqe->first_psn = 0;
	wqe->last_psn = 0;
	wqe->ack_length = 0;
	wqe->ssn = 0;
	wqe->has_rd_atomic = 0;
	wqe->dma.cur_sge = 0;
	wqe->dma.sge_offset = 0;
	wqe->dma.reserved = 0;
	if (flags & VROCE_WR_PLACEMENT)
		return vroce_sq_check_placement(qp, wqe);
	if (flags & VROCE_WR_RDMA)
		wqe->iova = wqe->wr.wr.rdma.remote_addr;
	else if (flags & VROCE_WR_ATOMIC)
		wqe->iova = wqe->wr.wr.atomic.remote_addr;
	else
		wqe->iova = 0;

	if (flags & VROCE_WR_LOCAL) {
		/* keys and rights are checked when it executes */
		wqe->dma.length = 0;
		wqe->dma.resid = 0;
		wqe->dma.num_sge = 0;
		return IB_WC_SUCCESS;
	}

	if (vroce_qp_is_ud(qp)) {
		status = vroce_sq_check_ud(qp, wqe);
		if (status != IB_WC_SUCCESS)
			return status;
	}

	if (wqe->wr.send_flags & IB_SEND_INLINE) {
		if (!(flags & VROCE_WR_INLINE))
			return IB_WC_LOC_QP_OP_ERR;
		length = wqe->dma.length;
		if (length > sq->max_inline)
			return IB_WC_LOC_LEN_ERR;
		wqe->dma.num_sge = 0;
	} else {
		num_sge = wqe->dma.num_sge;
		if (num_sge > sq->max_sge)
			return IB_WC_LOC_LEN_ERR;
		for (i = 0; i < num_sge; i++)
			length += wqe->dma.sge[i].length;
		if (length > VROCE_MAX_MSG_SIZE)
			return IB_WC_LOC_LEN_ERR;
		status = vroce_sq_check_sges(qp, wqe->dma.sge, num_sge,
					     (flags & VROCE_WR_LWRITE) ?
					     IB_ACCESS_LOCAL_WRITE : 0);
		if (status != IB_WC_SUCCESS)
			return status;
	}

	if (flags & VROCE_WR_ATOMIC) {
		if (length != sizeof(u64))
			return IB_WC_LOC_LEN_ERR;
		if (wqe->iova & (sizeof(u64) - 1))
			return IB_WC_LOC_QP_OP_ERR;
	}
	if (vroce_qp_is_ud(qp) && length > vroce_ud_max_len(qp->vdev))
		return IB_WC_LOC_LEN_ERR;

	wqe->dma.length = length;
	wqe->dma.resid = length;
	return IB_WC_SUCCESS;
}

/**
 * vroce_sq_intake() - take a user QP's new WQEs into the private ring
 * @qp: the QP (run_lock held)
 * @check: check each copy; without (SQE, ERR) they are only flushed
 * @budget: the run's steps left, one per WQE taken in
 *
 * Copies the WQEs the process queued since the last time.  A kernel QP's
 * post_send writes its private ring itself: nothing to do.
 */
void vroce_sq_intake(struct vroce_qp *qp, bool check, int *budget)
{
	size_t len = qp->sq.slot_size - VROCE_SQ_SLOT_HDR;
	struct vroce_sq *sq = &qp->sq;
	struct vroce_sq_slot *slot;
	unsigned long flags;
	u32 queued, n;

	lockdep_assert_held(&qp->run_lock);
	if (!qp->is_user)
		return;

	/*
	 * The process's claim, within the ring.  WQEs already taken stay
	 * taken if it moves its index back; queued <= mask, so the private
	 * ring (mask + 1 slots) cannot overflow.
	 */
	queued = vroce_queue_count(&sq->queue);
	for (n = sq->tail - sq->head; n < queued && *budget > 0; n++) {
		slot = vroce_sq_slot(sq, sq->tail);
		if (!vroce_queue_peek_copy_at(&sq->queue, n, vroce_sq_wqe(slot),
					      len))
			break;
		slot->ah = NULL;
		slot->resume = 0;
		slot->status = check ? vroce_sq_check_user(qp,
							   vroce_sq_wqe(slot)) :
				       IB_WC_SUCCESS;
		spin_lock_irqsave(&sq->lock, flags);
		sq->tail++;
		spin_unlock_irqrestore(&sq->lock, flags);
		if (slot->status != IB_WC_SUCCESS) {
			vroce_dbg(qp->vdev, "qp %u: bad WQE (opcode %u): %s\n",
				  qp->ibqp.qp_num, vroce_sq_wqe(slot)->wr.opcode,
				  ib_wc_status_msg(slot->status));
			break;
		}
		(*budget)--;
	}
}

static enum ib_wc_status vroce_sq_exec_local(struct vroce_qp *qp,
					     const struct rxe_send_wqe *wqe)
{
	switch (wqe->wr.opcode) {
	case IB_WR_REG_MR:
		if (vroce_mr_reg_wqe(qp, wqe->wr.wr.reg.mr, wqe->wr.wr.reg.key,
				     wqe->wr.wr.reg.access))
			return IB_WC_LOC_PROT_ERR;
		break;
	case IB_WR_LOCAL_INV:
		if (vroce_mem_invalidate(qp, wqe->wr.ex.invalidate_rkey))
			return IB_WC_LOC_PROT_ERR;
		break;
	case IB_WR_BIND_MW:
		if (vroce_mw_bind_wqe(qp, wqe))
			return IB_WC_MW_BIND_ERR;
		break;
	default:
		break;
	}
	return IB_WC_SUCCESS;
}

/**
 * vroce_sq_exec() - RTS: move the send queue on
 * @qp: the QP (run_lock held)
 * @budget: the run's steps left, one per WQE
 *
 * Network operations go to the requester, in order, as far as it takes
 * them; local operations and WQEs that failed their checks execute when
 * they reach the head with nothing in flight before them.
 */
void vroce_sq_exec(struct vroce_qp *qp, int *budget)
{
	struct vroce_sq *sq = &qp->sq;
	enum ib_wc_status status;
	struct vroce_sq_slot *slot;
	struct rxe_send_wqe *wqe;

	lockdep_assert_held(&qp->run_lock);

	if (!vroce_req_rest(qp))
		return;
	while (sq->next != vroce_sq_tail(sq) && *budget > 0) {
		(*budget)--;
		slot = vroce_sq_slot(sq, sq->next);
		wqe = vroce_sq_wqe(slot);
		status = slot->status;
		if (status == IB_WC_SUCCESS &&
		    !(vroce_wr_flags(qp, wqe->wr.opcode) & VROCE_WR_LOCAL)) {
			/* A network operation: the requester sends it. */
			if (!vroce_req_wqe(qp, sq->next))
				return;
			sq->next++;
			if (qp->req.partial)
				return;
			vroce_comp_complete(qp);
			if (vroce_qp_state(qp) != IB_QPS_RTS)
				return;
			continue;
		}
		/* Local operations and failed WQEs wait for the ones before. */
		if (sq->next != sq->head)
			return;
		if (status == IB_WC_SUCCESS)
			status = vroce_sq_exec_local(qp, wqe);
		sq->next++;
		vroce_sq_complete(qp, status);
		if (status != IB_WC_SUCCESS) {
			/* reported by the completion: no async event */
			vroce_qp_set_error(qp);
			return;
		}
	}
}

/**
 * vroce_sq_drain_check() - SQD: once nothing started is outstanding, say so
 * @qp: the QP (run_lock held)
 */
void vroce_sq_drain_check(struct vroce_qp *qp)
{
	bool drained = false, notify = false;
	unsigned long flags;

	lockdep_assert_held(&qp->run_lock);
	if (qp->sq.next != qp->sq.head)
		return;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state == IB_QPS_SQD && qp->sq_draining) {
		qp->sq_draining = false;
		drained = true;
		notify = qp->attr.en_sqd_async_notify;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (drained)
		vroce_dbg(qp->vdev, "qp %u: send queue drained\n",
			  qp->ibqp.qp_num);
	if (notify)
		vroce_qp_event(qp, IB_EVENT_SQ_DRAINED);
}

/**
 * vroce_sq_flush() - SQE, ERR: complete send WQEs with FLUSH_ERR
 * @qp: the QP (run_lock held)
 * @budget: the run's steps left, one per WQE
 *
 * Signaled or not, every WQE gets its flush completion.
 */
void vroce_sq_flush(struct vroce_qp *qp, int *budget)
{
	struct vroce_sq *sq = &qp->sq;
	u32 end;

	lockdep_assert_held(&qp->run_lock);

	vroce_sq_intake(qp, false, budget);
	/* what is posted meanwhile has kicked another run */
	end = vroce_sq_tail(sq);
	while (sq->head != end && *budget > 0) {
		if (sq->next == sq->head)
			sq->next++;
		vroce_sq_complete(qp, IB_WC_WR_FLUSH_ERR);
		(*budget)--;
	}
}

/* User QP: the process says it has queued WQEs. */
static int vroce_sq_doorbell(struct vroce_qp *qp)
{
	switch (vroce_qp_state(qp)) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		/*
		 * Posting is an immediate error there (IBTA 10.8.3): drop
		 * what the process queued so it never executes later.
		 */
		vroce_run_lock(qp);
		vroce_sq_discard(qp);
		vroce_run_unlock(qp);
		return -EINVAL;
	default:
		vroce_req_kick(qp);
		return 0;
	}
}

/* Kernel QP: one send work request into the private ring. */
static int vroce_post_one_send(struct vroce_qp *qp, const struct ib_send_wr *wr)
{
	struct vroce_sq *sq = &qp->sq;
	struct vroce_ah *ah = NULL;
	struct vroce_sq_slot *slot;
	struct rxe_send_wqe *wqe;
	u64 length = 0;
	u16 flags;
	u8 *data;
	int i;

	lockdep_assert_held(&sq->lock);

	flags = vroce_wr_flags(qp, wr->opcode);
	if (!flags || wr->num_sge < 0 || (u32)wr->num_sge > sq->max_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		length += wr->sg_list[i].length;
	if (length > VROCE_MAX_MSG_SIZE)
		return -EINVAL;
	if ((wr->send_flags & IB_SEND_INLINE) &&
	    (!(flags & VROCE_WR_INLINE) || length > sq->max_inline))
		return -EINVAL;
	if ((flags & VROCE_WR_ATOMIC) &&
	    (length != sizeof(u64) ||
	     (atomic_wr(wr)->remote_addr & (sizeof(u64) - 1))))
		return -EINVAL;
	if (vroce_qp_is_ud(qp)) {
		ah = to_vroce_ah(ud_wr(wr)->ah);
		if (!ah || ah->ibah.pd != qp->ibqp.pd ||
		    ud_wr(wr)->remote_qpn > VROCE_QPN_MASK ||
		    length > vroce_ud_max_len(qp->vdev))
			return -EINVAL;
	}
	if (sq->tail - sq->head >= sq->max_wr)
		return -ENOMEM;

	slot = vroce_sq_slot(sq, sq->tail);
	wqe = vroce_sq_wqe(slot);
	slot->ah = ah;
	slot->resume = 0;
	slot->status = IB_WC_SUCCESS;
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags & VROCE_SEND_FLAGS;

	switch (wr->opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->wr.ex.imm_data = wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->wr.ex.invalidate_rkey = wr->ex.invalidate_rkey;
		break;
	case IB_WR_REG_MR:
		wqe->wr.wr.reg.mr = reg_wr(wr)->mr;
		wqe->wr.wr.reg.key = reg_wr(wr)->key;
		wqe->wr.wr.reg.access = reg_wr(wr)->access;
		break;
	default:
		break;
	}
	if (flags & VROCE_WR_RDMA) {
		wqe->wr.wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.wr.rdma.rkey = rdma_wr(wr)->rkey;
		wqe->iova = rdma_wr(wr)->remote_addr;
	} else if (flags & VROCE_WR_ATOMIC) {
		wqe->wr.wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.wr.atomic.rkey = atomic_wr(wr)->rkey;
		wqe->iova = atomic_wr(wr)->remote_addr;
	}
	if (ah) {
		wqe->wr.wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		wqe->wr.wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		wqe->wr.wr.ud.pkey_index = ud_wr(wr)->pkey_index;
		wqe->wr.wr.ud.ah_num = ah->ah_num;
	}

	if (!(flags & VROCE_WR_LOCAL)) {
		if (wr->send_flags & IB_SEND_INLINE) {
			/* virtual DMA: inline SGEs hold kernel addresses */
			data = wqe->dma.inline_data;
			for (i = 0; i < wr->num_sge; i++) {
				memcpy(data,
				       (void *)(uintptr_t)wr->sg_list[i].addr,
				       wr->sg_list[i].length);
				data += wr->sg_list[i].length;
			}
		} else {
			for (i = 0; i < wr->num_sge; i++) {
				wqe->dma.sge[i].addr = wr->sg_list[i].addr;
				wqe->dma.sge[i].length = wr->sg_list[i].length;
				wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
			}
			wqe->dma.num_sge = wr->num_sge;
		}
		wqe->dma.length = length;
		wqe->dma.resid = length;
	}

	sq->tail++;
	return 0;
}

/**
 * vroce_post_send() - post send work requests (post_send verb)
 * @ibqp: the QP
 * @wr: kernel QP: the chain to post; user QP: NULL, the doorbell
 * @bad_wr: set to the first request not posted
 *
 * Kernel QP: any context.  Requests are checked and copied into the send
 * queue in order; the first bad one stops the chain.  Posting in RESET,
 * INIT or RTR fails; in SQE and ERR the requests complete with
 * IB_WC_WR_FLUSH_ERR.  User QP: librxe rings the doorbell with a POST_SEND
 * command of zero requests after writing WQEs into the ring.
 *
 * Return: 0, -EINVAL (bad request or state), -ENOMEM (queue full).
 */
int vroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct vroce_qp *qp = to_vroce_qp(ibqp);
	unsigned long flags;
	int posted = 0;
	int err = 0;

	if (qp->is_user) {
		/* work requests from a process only come through its ring */
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		return vroce_sq_doorbell(qp);
	}

	switch (vroce_qp_state(qp)) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		*bad_wr = wr;
		return -EINVAL;
	default:
		break;
	}

	spin_lock_irqsave(&qp->sq.lock, flags);
	for (; wr; wr = wr->next) {
		err = vroce_post_one_send(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
		posted++;
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	if (err)
		vroce_dbg(qp->vdev, "qp %u: post_send: %d\n", ibqp->qp_num, err);
	if (posted)
		vroce_req_kick(qp);
	return err;
}
