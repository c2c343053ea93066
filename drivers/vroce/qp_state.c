// SPDX-License-Identifier: GPL-2.0
/*
 * The QP state machine: modify_qp, query_qp, and errors from the data
 * path.
 *
 * modify_qp checks every attribute's range first (no lock needed), then,
 * under run_lock (so no runner or doorbell is half way through) and
 * state_lock, compares the transition and the attribute mask with IBTA's
 * tables (ib_modify_qp_is_ok()) against the state the QP is in now, and
 * stores the attributes and the new state.  The side effects of the new
 * state are applied in one place, vroce_qp_enter():
 *   RESET  every WQE is dropped without completion, the rings are empty;
 *   RTS    the send path is woken (WQEs posted in SQD, or after SQE);
 *   SQD    the send path stops starting WQEs; when the ones started have
 *          completed, IB_EVENT_SQ_DRAINED (if en_sqd_async_notify);
 *   SQE    posted sends are flushed, receives continue;
 *   ERR    every outstanding WQE of both queues completes with
 *          IB_WC_WR_FLUSH_ERR, and so does every WQE posted later
 *          (see rq.c for how a user RQ is watched).
 * ib_modify_qp_is_ok() already encodes each source state's legal targets
 * and masks, so there is no per-state function: the one rule it lacks
 * (SQD->SQD only once drained) is checked beside it.
 */
#include <rdma/ib_verbs.h>

#include "vroce.h"

#define VROCE_MAX_TIMEOUT	31	/* 5-bit fields */
#define VROCE_MAX_RETRY		7	/* 3-bit fields */

/* Access rights a QP can grant to remote requests (IBTA 11.2.4.1). */
#define VROCE_QP_ACCESS		(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC | \
				 VROCE_QP_ACCESS_FLUSH)

static const char * const vroce_qps_name[] = {
	[IB_QPS_RESET]	= "RESET",
	[IB_QPS_INIT]	= "INIT",
	[IB_QPS_RTR]	= "RTR",
	[IB_QPS_RTS]	= "RTS",
	[IB_QPS_SQD]	= "SQD",
	[IB_QPS_SQE]	= "SQE",
	[IB_QPS_ERR]	= "ERR",
};

static const char *vroce_qps_str(enum ib_qp_state state)
{
	if ((unsigned int)state < ARRAY_SIZE(vroce_qps_name))
		return vroce_qps_name[state];
	return "?";
}

/* A primary path: RoCEv2 needs a GRH with a source GID of this port. */
static int vroce_check_av(const struct rdma_ah_attr *ah)
{
	const struct ib_global_route *grh;

	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    rdma_ah_get_port_num(ah) != 1 ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(ah);
	/* ib_core resolved sgid_index into sgid_attr, or failed already */
	if (grh->sgid_index >= VROCE_GID_TBL_LEN || !grh->sgid_attr)
		return -EINVAL;
	return 0;
}

static int vroce_check_mtu(struct vroce_dev *vdev, enum ib_mtu mtu)
{
	unsigned long flags;
	enum ib_mtu port_mtu;

	if (mtu < IB_MTU_256 || mtu > IB_MTU_4096)
		return -EINVAL;
	spin_lock_irqsave(&vdev->port_lock, flags);
	port_mtu = vdev->port_mtu;
	spin_unlock_irqrestore(&vdev->port_lock, flags);
	return mtu > port_mtu ? -EINVAL : 0;
}

/* The range of each attribute in @mask; which ones may be given is
 * checked against the transition later.
 */
static int vroce_check_attr(struct vroce_qp *qp, const struct ib_qp_attr *attr,
			    int mask)
{
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index >= VROCE_MAX_PKEYS)
		return -EINVAL;
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) && vroce_check_mtu(qp->vdev, attr->path_mtu))
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > VROCE_MAX_TIMEOUT)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > VROCE_MAX_RETRY)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > VROCE_MAX_RETRY)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) &&
	    attr->min_rnr_timer > VROCE_MAX_TIMEOUT)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > VROCE_MAX_QP_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > VROCE_MAX_QP_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_AV) && vroce_check_av(&attr->ah_attr))
		return -EINVAL;
	/* no automatic path migration on RoCE (ib_core bans it too) */
	if (mask & IB_QP_ALT_PATH)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MIG_STATE) &&
	    (unsigned int)attr->path_mig_state > IB_MIG_ARMED)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > VROCE_QPN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_RQ_PSN) && attr->rq_psn > VROCE_PSN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_SQ_PSN) && attr->sq_psn > VROCE_PSN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~VROCE_QP_ACCESS))
		return -EINVAL;
	return 0;
}

/* Store the attributes in @mask; the caller checked them. */
static void vroce_qp_store_attr(struct vroce_qp *qp,
				const struct ib_qp_attr *attr, int mask)
{
	struct ib_qp_attr *cur = &qp->attr;

	lockdep_assert_held(&qp->state_lock);

	if (mask & IB_QP_PKEY_INDEX)
		cur->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		cur->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		cur->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		cur->ah_attr = attr->ah_attr;
		/* the requester's route is for the old path (run_lock held) */
		dst_cache_reset(&qp->req.route.dst);
		/* ib_core holds the GID entry in ibqp.av_sgid_attr */
		cur->ah_attr.grh.sgid_attr = NULL;
	}
	if (mask & IB_QP_PATH_MTU)
		cur->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)	/* 0 is infinite */
		cur->timeout = attr->timeout ?
			       max_t(u8, attr->timeout, VROCE_REQ_MIN_TIMEOUT) : 0;
	if (mask & IB_QP_RETRY_CNT)
		cur->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		cur->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		cur->rq_psn = attr->rq_psn;
	if (mask & IB_QP_SQ_PSN)
		cur->sq_psn = attr->sq_psn;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		cur->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		cur->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		cur->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_PATH_MIG_STATE)
		cur->path_mig_state = attr->path_mig_state;
	if (mask & IB_QP_DEST_QPN)
		cur->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_ACCESS_FLAGS)
		cur->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		cur->en_sqd_async_notify = attr->en_sqd_async_notify;
}

/* Set the state under state_lock; also the data path's way to ERR. */
static void vroce_qp_set_state(struct vroce_qp *qp, enum ib_qp_state state)
{
	lockdep_assert_held(&qp->state_lock);

	WRITE_ONCE(qp->state, state);
	qp->attr.qp_state = state;
	qp->attr.cur_qp_state = state;
	/* SQD starts draining; every other state ends it */
	qp->sq_draining = state == IB_QPS_SQD;
}

/*
 * Side effects of entering @state from @old; run_lock held, not
 * state_lock.  Returns what to do once run_lock is dropped.
 */
enum vroce_qp_after {
	VROCE_AFTER_NONE,
	VROCE_AFTER_KICK,	/* wake the send path */
	VROCE_AFTER_RUN,	/* run the runner: drain check, flush */
};

static enum vroce_qp_after vroce_qp_enter(struct vroce_qp *qp,
					  enum ib_qp_state old,
					  enum ib_qp_state state)
{
	lockdep_assert_held(&qp->run_lock);

	switch (state) {
	case IB_QPS_RESET:
		vroce_wq_reset(qp);
		vroce_resp_reset(qp, 0);
		vroce_req_reset(qp, 0);
		vroce_cc_qp_reset(qp);
		return VROCE_AFTER_NONE;
	case IB_QPS_RTR:
		if (old == IB_QPS_INIT)
			vroce_resp_reset(qp, qp->attr.rq_psn);
		return VROCE_AFTER_NONE;
	case IB_QPS_RTS:
		if (old == IB_QPS_RTR)
			vroce_req_reset(qp, qp->attr.sq_psn);
		/* RTR->RTS: nothing can be queued yet; SQD/SQE->RTS resume */
		return old == IB_QPS_RTS ? VROCE_AFTER_NONE : VROCE_AFTER_KICK;
	case IB_QPS_SQD:
	case IB_QPS_SQE:
	case IB_QPS_ERR:
		/* also X->X: the runner is idempotent, ERR->ERR flushes again */
		return VROCE_AFTER_RUN;
	default:
		return VROCE_AFTER_NONE;
	}
}

/**
 * vroce_modify_qp() - change attributes and state (modify_qp verb)
 * @ibqp: the QP
 * @attr: new values of the attributes in @mask
 * @mask: IB_QP_* attributes to change
 * @udata: user QP: the rxe ABI passes no driver data (a zeroed tail is
 *	accepted) and expects none back (any output length is left alone)
 *
 * Process context.
 *
 * Return: 0; -EOPNOTSUPP for a non-standard attribute; -EINVAL for a
 * value out of range, an illegal transition, a missing or extra
 * attribute for it, or a wrong cur_qp_state.
 */
int vroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct vroce_qp *qp = to_vroce_qp(ibqp);
	enum vroce_qp_after after = VROCE_AFTER_NONE;
	enum ib_qp_state cur, new;
	unsigned long flags;
	int err = 0;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	err = vroce_check_attr(qp, attr, mask);
	if (err) {
		vroce_dbg(qp->vdev, "qp %u: bad attribute value (mask 0x%x)\n",
			  ibqp->qp_num, mask);
		return err;
	}

	vroce_run_lock(qp);
	spin_lock_irqsave(&qp->state_lock, flags);
	cur = qp->state;
	new = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur)
		err = -EINVAL;
	else if (!ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask))
		err = -EINVAL;
	else if (cur == IB_QPS_SQD && new == IB_QPS_SQD && qp->sq_draining)
		err = -EINVAL;	/* IBTA: attributes change once drained */
	if (!err) {
		vroce_qp_store_attr(qp, attr, mask);
		if (new != cur)
			vroce_qp_set_state(qp, new);
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (!err && (mask & IB_QP_STATE))
		after = vroce_qp_enter(qp, cur, new);
	vroce_run_unlock(qp);

	if (err) {
		vroce_dbg(qp->vdev, "qp %u: %s -> %s refused (mask 0x%x)\n",
			  ibqp->qp_num, vroce_qps_str(cur), vroce_qps_str(new),
			  mask);
		return err;
	}
	if (new != cur)
		vroce_dbg(qp->vdev, "qp %u: %s -> %s\n", ibqp->qp_num,
			  vroce_qps_str(cur), vroce_qps_str(new));

	switch (after) {
	case VROCE_AFTER_KICK:
		vroce_req_kick(qp);
		break;
	case VROCE_AFTER_RUN:
		if (qp->is_user)
			vroce_qp_run(qp, true);
		else
			vroce_qp_schedule(qp);
		break;
	default:
		break;
	}
	return 0;
}

/**
 * vroce_query_qp() - report attributes (query_qp verb)
 * @ibqp: the QP
 * @attr: filled with every attribute (the mask is only a hint)
 * @mask: ignored
 * @init: filled with the creation attributes and the caps as rounded
 *
 * Return: 0.
 */
int vroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct vroce_qp *qp = to_vroce_qp(ibqp);
	unsigned long flags;
	struct ib_qp_cap cap = {
		.max_send_wr = qp->sq.max_wr,
		.max_send_sge = qp->sq.max_sge,
		.max_inline_data = qp->sq.max_inline,
	};

	if (!ibqp->srq) {
		cap.max_recv_wr = qp->rq.max_wr;
		cap.max_recv_sge = qp->rq.max_sge;
	}

	spin_lock_irqsave(&qp->state_lock, flags);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->sq_draining = qp->sq_draining;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	attr->cap = cap;

	memset(init, 0, sizeof(*init));
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
					     IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->port_num = 1;
	return 0;
}

/**
 * vroce_qp_set_error() - move a QP to ERR, without event or flush
 * @qp: the QP
 *
 * Callable from any context.  RESET stays: nothing runs there.
 *
 * Return: true when the QP was moved (it was not in RESET or ERR).
 */
bool vroce_qp_set_error(struct vroce_qp *qp)
{
	unsigned long flags;
	bool moved = false;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state != IB_QPS_RESET && qp->state != IB_QPS_ERR) {
		vroce_qp_set_state(qp, IB_QPS_ERR);
		moved = true;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return moved;
}

/**
 * vroce_qp_error() - move a QP to ERR from the data path and flush it
 * @qp: the QP
 *
 * Callable from any context.  For errors that no completion reports
 * (an error reported by a WQE's completion moves the QP without event).
 */
void vroce_qp_error(struct vroce_qp *qp)
{
	if (!vroce_qp_set_error(qp))
		return;
	vroce_dbg(qp->vdev, "qp %u: fatal error\n", qp->ibqp.qp_num);
	vroce_qp_event(qp, IB_EVENT_QP_FATAL);
	vroce_qp_schedule(qp);
}
