// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: creation, lookup by number, destruction.  The state
 * machine is in qp_state.c, the work queues in wq.c, sq.c and rq.c.
 *
 * QP numbers come from vroce_dev.qps: 16..2^24-1, cyclic, so that a
 * number is not reused while packets for its last owner may still be on
 * the wire; 0 is reserved (QP0 has no meaning on RoCE) and 1 is the GSI
 * QP's.  The number is reserved at the start of create_qp and the QP
 * becomes visible to lookups only once it is complete.
 */
#include <rdma/uverbs_ioctl.h>

#include "vroce.h"

#define VROCE_QPN_MIN	16
#define VROCE_QPN_MAX	0xffffff
#define VROCE_GSI_QPN	1

/* Create flags: none is supported (no LSO, no integrity, no netdev QPs). */
#define VROCE_QP_CREATE_FLAGS	0

/**
 * vroce_qp_get() - look a QP up by number
 * @vdev: the device
 * @qpn: 24-bit QP number
 *
 * Callable from any context.
 *
 * Return: referenced QP (vroce_qp_put()) or NULL.
 */
struct vroce_qp *vroce_qp_get(struct vroce_dev *vdev, u32 qpn)
{
	struct vroce_qpn *entry;
	struct vroce_qp *qp = NULL;

	rcu_read_lock();
	entry = xa_load(&vdev->qps, qpn);
	/* the entry outlives this RCU section; the QP only a reference */
	if (entry && refcount_inc_not_zero(&entry->ref))
		qp = entry->qp;
	rcu_read_unlock();
	return qp;
}

/**
 * vroce_qp_put() - drop a reference taken by vroce_qp_get()
 * @qp: the QP
 *
 * Callable from any context.
 */
void vroce_qp_put(struct vroce_qp *qp)
{
	if (refcount_dec_and_test(&qp->qpn->ref))
		complete(&qp->released);
}

/**
 * vroce_qp_for_each() - call @fn for every QP of @vdev
 * @vdev: the device
 * @fn: called with a reference on the QP held, under RCU: must not sleep
 * @arg: passed to @fn
 *
 * Callable from any context.  QPs created or destroyed meanwhile may be
 * seen or not.
 *
 * Return: how many calls of @fn returned true.
 */
unsigned int vroce_qp_for_each(struct vroce_dev *vdev,
			       bool (*fn)(struct vroce_qp *qp, void *arg),
			       void *arg)
{
	struct vroce_qpn *entry;
	unsigned int n = 0;
	unsigned long idx;

	rcu_read_lock();
	xa_for_each(&vdev->qps, idx, entry) {
		if (!refcount_inc_not_zero(&entry->ref))
			continue;
		n += fn(entry->qp, arg);
		vroce_qp_put(entry->qp);
	}
	rcu_read_unlock();
	return n;
}

/**
 * vroce_qp_event() - raise an affiliated asynchronous event
 * @qp: the QP
 * @type: the event
 *
 * Callable from any context (ib_core's and uverbs' handlers only queue).
 */
void vroce_qp_event(struct vroce_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

static int vroce_qp_check_init(struct vroce_dev *vdev,
			       struct ib_qp_init_attr *init,
			       struct ib_udata *udata)
{
	struct ib_qp_cap *cap = &init->cap;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		/* ib_mad's QP1; a process has no business with it */
		if (udata || init->port_num != 1)
			return -EINVAL;
		break;
	default:
		/* XRC, raw packet, SMI (no QP0 on RoCE), driver types */
		return -EOPNOTSUPP;
	}
	if (init->create_flags & ~VROCE_QP_CREATE_FLAGS)
		return -EOPNOTSUPP;
	if (init->rwq_ind_tbl)
		return -EOPNOTSUPP;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;

	if (cap->max_send_wr > VROCE_MAX_QP_WR ||
	    cap->max_send_sge > VROCE_MAX_SGE ||
	    cap->max_inline_data > VROCE_MAX_INLINE_DATA)
		return -EINVAL;
	/* With an SRQ the receive caps are ignored (IBTA 11.2.4.1). */
	if (!init->srq && (cap->max_recv_wr > VROCE_MAX_QP_WR ||
			   cap->max_recv_sge > VROCE_MAX_SGE))
		return -EINVAL;

	/* rxe ABI: no driver input; a longer, zeroed command is fine */
	if (udata) {
		if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
			return -EINVAL;
		if (udata->outlen < sizeof(struct rxe_create_qp_resp))
			return -EINVAL;
	}
	return 0;
}

static int vroce_qpn_reserve(struct vroce_qp *qp, struct ib_qp_init_attr *init)
{
	struct vroce_dev *vdev = qp->vdev;
	u32 qpn;
	int err;

	if (init->qp_type == IB_QPT_GSI) {
		/* One per device: ib_mad opens it once per port. */
		err = xa_insert_irq(&vdev->qps, VROCE_GSI_QPN, NULL, GFP_KERNEL);
		qpn = VROCE_GSI_QPN;
	} else {
		err = xa_alloc_cyclic_irq(&vdev->qps, &qpn, NULL,
					  XA_LIMIT(VROCE_QPN_MIN, VROCE_QPN_MAX),
					  &vdev->next_qpn, GFP_KERNEL);
		if (err > 0)	/* wrapped around: fine */
			err = 0;
	}
	if (err == -EBUSY)	/* GSI taken, or every number in use */
		err = init->qp_type == IB_QPT_GSI ? -EEXIST : -ENOMEM;
	if (!err)
		qp->ibqp.qp_num = qpn;
	return err;
}

/**
 * vroce_create_qp() - create a QP (create_qp verb)
 * @ibqp: allocated and zeroed by ib_core; type, pd, CQs and srq set
 * @init: the requested attributes; caps are rounded up and written back
 * @udata: user QP: no input, output struct rxe_create_qp_resp
 *
 * Return: 0, -EOPNOTSUPP for a type or flag vroce lacks, -EINVAL for
 * caps beyond the device limits or a bad udata, -ENOMEM (out of memory
 * or past VROCE_MAX_QP), -EEXIST for a second GSI QP, -EFAULT.
 */
static int vroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibqp->device);
	struct vroce_qp *qp = to_vroce_qp(ibqp);
	struct rxe_create_qp_resp resp = {};
	int err;

	err = vroce_qp_check_init(vdev, init, udata);
	if (err) {
		vroce_dbg(vdev, "bad attributes (type %d): %d\n",
			  init->qp_type, err);
		return err;
	}
	if (vroce_fault_alloc_fail(vdev) ||
	    !vroce_count_get(&vdev->num_qps, VROCE_MAX_QP))
		return -ENOMEM;

	qp->qpn = kzalloc(sizeof(*qp->qpn), GFP_KERNEL);
	if (!qp->qpn) {
		err = -ENOMEM;
		goto uncount;
	}
	refcount_set(&qp->qpn->ref, 1);
	qp->qpn->qp = qp;
	qp->vdev = vdev;
	qp->is_user = !!udata;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	init_completion(&qp->released);
	vroce_run_init(qp);
	vroce_cc_qp_init(qp);
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	INIT_LIST_HEAD(&qp->mcg_list);
	qp->state = IB_QPS_RESET;
	qp->attr.qp_state = IB_QPS_RESET;
	qp->attr.cur_qp_state = IB_QPS_RESET;
	qp->attr.path_mtu = IB_MTU_256;
	qp->attr.port_num = 1;

	err = vroce_qpn_reserve(qp, init);
	if (err)
		goto free_entry;

	err = vroce_wq_create(qp, init, udata, &resp);
	if (err)
		goto free_qpn;
	err = vroce_req_init(qp);
	if (err)
		goto free_wq;
	err = vroce_resp_init(qp);
	if (err)
		goto destroy_wq;

	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto destroy_wq;
	}

	/* Complete: from here the wire may find it. */
	xa_store_irq(&vdev->qps, qp->ibqp.qp_num, qp->qpn, GFP_KERNEL);
	vroce_dbg(vdev, "qp %u type %d sq %u/%u/%u rq %u/%u\n",
		  qp->ibqp.qp_num, init->qp_type, init->cap.max_send_wr,
		  init->cap.max_send_sge, init->cap.max_inline_data,
		  init->cap.max_recv_wr, init->cap.max_recv_sge);
	return 0;

destroy_wq:
	vroce_req_cleanup(qp);
	vroce_resp_cleanup(qp);
free_wq:
	vroce_wq_destroy(qp);
free_qpn:
	xa_erase_irq(&vdev->qps, qp->ibqp.qp_num);
free_entry:
	kfree(qp->qpn);
uncount:
	atomic_dec(&vdev->num_qps);
	return err;
}

/**
 * vroce_destroy_qp() - destroy a QP (destroy_qp verb)
 * @ibqp: the QP; ib_core frees it after this returns
 * @udata: unused
 *
 * ib_core guarantees that no verb runs on the QP any more, but the data
 * path may still hold references and the runner may be queued: the QPN
 * goes first, then every reference and the work, then the rings.  No
 * grace period is waited for: lookups only read the QPN entry, which is
 * freed after one.
 * Outstanding WQEs are dropped without completions (consumers drain
 * first, ib_drain_qp()), and so are the QP's completions still in a
 * kernel CQ, as on a ConnectX (vroce_cq_forget_qp()).
 *
 * Return: 0.
 */
static int vroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct vroce_qp *qp = to_vroce_qp(ibqp);
	struct vroce_dev *vdev = qp->vdev;

	vroce_mcast_qp_destroy(qp);
	xa_erase_irq(&vdev->qps, ibqp->qp_num);
	vroce_qp_put(qp);
	vroce_wait_released(ibqp->device, &qp->released, &qp->qpn->ref, "QP",
			    ibqp->qp_num, VROCE_RELEASE_WARN_MS);
	/* a lookup that found the entry before the erase may still read it */
	kfree_rcu(qp->qpn, rcu);
	qp->qpn = NULL;
	/* the timer kicks the runner: stop it first */
	vroce_req_cleanup(qp);
	/* the pace timer runs the runner, which may queue the work */
	vroce_cc_qp_cleanup(qp);
	cancel_delayed_work_sync(&qp->run_work);

	vroce_resp_cleanup(qp);
	/* nothing posts for this QP any more: its kernel CQEs can go */
	vroce_cq_forget_qp(to_vroce_cq(ibqp->send_cq), ibqp);
	if (ibqp->recv_cq != ibqp->send_cq)
		vroce_cq_forget_qp(to_vroce_cq(ibqp->recv_cq), ibqp);
	vroce_wq_destroy(qp);
	atomic_dec(&vdev->num_qps);
	vroce_dbg(vdev, "qp %u\n", ibqp->qp_num);
	return 0;
}

const struct ib_device_ops vroce_qp_ops = {
	.create_qp = vroce_create_qp,
	.destroy_qp = vroce_destroy_qp,
	.modify_qp = vroce_modify_qp,
	.query_qp = vroce_query_qp,
	.post_send = vroce_post_send,
	.post_recv = vroce_post_recv,
};
