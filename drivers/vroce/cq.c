// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues.
 *
 * A user CQ is a ring of struct ib_uverbs_wc that librxe polls without
 * entering the kernel; a kernel CQ is a ring of struct ib_wc polled through
 * poll_cq.  Either way the kernel is the only producer, so it keeps the
 * producer index and never trusts the consumer index the process writes:
 * a lying process can make its own CQ look full or empty, nothing more.
 */
#include <linux/uaccess.h>
#include <rdma/uverbs_ioctl.h>

#include "vroce.h"

/*
 * wc_flags as librxe hands them to the application: rdma-core's enum
 * ibv_wc_flags, which numbers them differently from the kernel's
 * enum ib_wc_flags.
 */
#define VROCE_UWC_GRH		BIT(0)
#define VROCE_UWC_WITH_IMM	BIT(1)
#define VROCE_UWC_IP_CSUM_OK	BIT(2)
#define VROCE_UWC_WITH_INV	BIT(3)

static u32 vroce_uwc_flags(int flags)
{
	u32 uflags = 0;

	if (flags & IB_WC_GRH)
		uflags |= VROCE_UWC_GRH;
	if (flags & IB_WC_WITH_IMM)
		uflags |= VROCE_UWC_WITH_IMM;
	if (flags & IB_WC_IP_CSUM_OK)
		uflags |= VROCE_UWC_IP_CSUM_OK;
	if (flags & IB_WC_WITH_INVALIDATE)
		uflags |= VROCE_UWC_WITH_INV;
	return uflags;
}

/*
 * The SL of a user UD completion: what a ConnectX reports there for RoCE,
 * the received packet's type (bit 3: UDP-encapsulated, bits 2:0: 1 for
 * IPv6, 2 for IPv4).  RoCE has no SL of its own, and UCX's UD transport
 * reads this field to find where the destination address sits in the 40
 * bytes of network header: without it, UCX takes every RoCEv2-over-IPv4
 * datagram for one addressed to another GID and drops it.  Kernel
 * consumers read wc->network_hdr_type instead and keep the SL unchanged.
 */
#define VROCE_UWC_SL_ROCE_UDP	BIT(3)
#define VROCE_UWC_SL_ROCE_IPV6	1
#define VROCE_UWC_SL_ROCE_IPV4	2

static u8 vroce_uwc_sl(const struct ib_wc *wc)
{
	if (!(wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE))
		return wc->sl;
	switch (wc->network_hdr_type) {
	case RDMA_NETWORK_IPV4:
		return VROCE_UWC_SL_ROCE_UDP | VROCE_UWC_SL_ROCE_IPV4;
	case RDMA_NETWORK_IPV6:
		return VROCE_UWC_SL_ROCE_UDP | VROCE_UWC_SL_ROCE_IPV6;
	default:
		return wc->sl;
	}
}

/* Build the whole user CQE on the stack: every byte of the slot is set. */
static void vroce_cq_write_uwc(void *slot, const struct ib_wc *wc)
{
	struct ib_uverbs_wc uwc = {
		.wr_id = wc->wr_id,
		.status = wc->status,
		.opcode = wc->opcode,
		.vendor_err = wc->vendor_err,
		.byte_len = wc->byte_len,
		.qp_num = wc->qp ? wc->qp->qp_num : 0,
		.src_qp = wc->src_qp,
		.wc_flags = vroce_uwc_flags(wc->wc_flags),
		.pkey_index = wc->pkey_index,
		.slid = (u16)wc->slid,
		.sl = vroce_uwc_sl(wc),
		.dlid_path_bits = wc->dlid_path_bits,
		.port_num = wc->port_num,
	};

	/* Both members of the union are 32 bits: copy the raw word. */
	uwc.ex.invalidate_rkey = wc->ex.invalidate_rkey;
	memcpy(slot, &uwc, sizeof(uwc));
}

static void vroce_cq_event(struct vroce_cq *cq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = type,
	};

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/**
 * vroce_cq_post_quiet() - add one completion; the caller signals it
 * @cq: the CQ
 * @wc: the completion, kernel form (wc->qp set)
 * @solicited: the completion is for a solicited event
 * @signal: set to true when the CQ was armed for this completion: the
 *	caller owes it vroce_cq_signal(), at a moment of its choosing
 *
 * Callable from any context.  The event handler of an overflow runs after
 * the CQ lock is dropped: it may poll this CQ.
 *
 * Return: 0, or -ENOSPC when the CQ is full or already in error: the
 * completion is dropped; the first time the CQ goes into error and
 * IB_EVENT_CQ_ERR is raised.
 */
int vroce_cq_post_quiet(struct vroce_cq *cq, const struct ib_wc *wc,
			bool solicited, bool *signal)
{
	bool overflow = false;
	unsigned long flags;
	void *slot;
	int err = 0;

	spin_lock_irqsave(&cq->lock, flags);
	if (unlikely(cq->overflowed)) {
		err = -ENOSPC;
		goto unlock;
	}

	slot = vroce_queue_producer_slot(&cq->queue);
	if (unlikely(!slot)) {
		/*
		 * A real CQ cannot hold the entry either: the CQ is broken
		 * for good and the consumer learns it through the async
		 * event.  The ring itself stays consistent and pollable.
		 */
		cq->overflowed = true;
		overflow = true;
		err = -ENOSPC;
		goto unlock;
	}

	if (cq->is_user)
		vroce_cq_write_uwc(slot, wc);
	else
		memcpy(slot, wc, sizeof(*wc));
	vroce_queue_produce(&cq->queue);

	if ((cq->notify & IB_CQ_NEXT_COMP) ||
	    ((cq->notify & IB_CQ_SOLICITED) && solicited)) {
		cq->notify = 0;
		*signal = true;
	}
unlock:
	spin_unlock_irqrestore(&cq->lock, flags);

	if (overflow) {
		vroce_dbg(to_vroce_dev(cq->ibcq.device), "cq %u overflow\n",
			  cq->ibcq.res.id);
		vroce_cq_event(cq, IB_EVENT_CQ_ERR);
	}
	return err;
}

/**
 * vroce_cq_signal() - call the CQ's comp_handler
 * @cq: a CQ that vroce_cq_post_quiet() said is owed its event
 *
 * Callable from any context, not under the CQ lock (the handler may
 * re-arm or poll the CQ).
 */
void vroce_cq_signal(struct vroce_cq *cq)
{
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

/**
 * vroce_cq_post() - add one completion and signal it if armed
 * @cq: the CQ
 * @wc: the completion, kernel form (wc->qp set)
 * @solicited: the completion is for a solicited event
 *
 * Callable from any context.
 *
 * Return: as vroce_cq_post_quiet().
 */
int vroce_cq_post(struct vroce_cq *cq, const struct ib_wc *wc, bool solicited)
{
	bool signal = false;
	int err;

	err = vroce_cq_post_quiet(cq, wc, solicited, &signal);
	if (signal)
		vroce_cq_signal(cq);
	return err;
}

/* A kernel CQE: keep it unless it belongs to the destroyed QP. */
static bool vroce_cq_keep_wc(void *slot, void *qp)
{
	const struct ib_wc *wc = slot;

	return wc->qp != qp;
}

/**
 * vroce_cq_forget_qp() - drop a destroyed QP's unpolled kernel completions
 * @cq: a CQ of the QP (its send or receive CQ)
 * @qp: the QP being destroyed; it posts no completion any more
 *
 * Process context.  A kernel CQ loses the QP's entries, as on a ConnectX
 * (mlx5 cleans the CQ in destroy_qp): ib_core would otherwise hand their
 * wr_cqe, memory of the consumer's destroyed QP, to a done callback.
 *
 * A user CQ keeps them, as librxe's rdma_rxe does: the process owns the
 * consumer index, so nothing can be taken out from under a poller, and a
 * consumer that drains its CQ after destroying a QP (libfabric's verbs
 * provider keeps the successful entries it finds there) gets its data.
 */
void vroce_cq_forget_qp(struct vroce_cq *cq, struct ib_qp *qp)
{
	unsigned long flags;

	if (cq->is_user)
		return;
	spin_lock_irqsave(&cq->lock, flags);
	vroce_queue_filter_pending(&cq->queue, vroce_cq_keep_wc, qp);
	spin_unlock_irqrestore(&cq->lock, flags);
}

static int vroce_cq_init(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			 struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibcq->device);
	struct vroce_cq *cq = to_vroce_cq(ibcq);
	struct rxe_create_cq_resp resp = {};
	struct vroce_ucontext *uc;
	u32 elem_size;
	int err;

	if (attr->flags) {
		vroce_dbg(vdev, "cq flags %#x not supported\n", attr->flags);
		return -EOPNOTSUPP;
	}
	if (attr->cqe < 1 || attr->cqe > VROCE_MAX_CQE ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors) {
		vroce_dbg(vdev, "cqe %u comp_vector %u refused\n", attr->cqe,
			  attr->comp_vector);
		return -EINVAL;
	}
	if (udata && udata->outlen < sizeof(resp)) {
		vroce_dbg(vdev, "response buffer too small\n");
		return -EINVAL;
	}
	if (vroce_fault_alloc_fail(vdev) ||
	    !vroce_count_get(&vdev->num_cqs, VROCE_MAX_CQ))
		return -ENOMEM;

	spin_lock_init(&cq->lock);
	cq->is_user = !!udata;
	elem_size = cq->is_user ? sizeof(struct ib_uverbs_wc) :
				  sizeof(struct ib_wc);
	err = vroce_queue_init(&cq->queue, ibcq->device, attr->cqe, elem_size,
			       VROCE_Q_KERNEL_PRODUCER, cq->is_user);
	if (err)
		goto put_count;

	if (udata) {
		uc = rdma_udata_to_drv_context(udata, struct vroce_ucontext,
					       ibuc);
		err = vroce_queue_mmap_info(&cq->queue, &uc->ibuc, &resp.mi);
		if (err)
			goto cleanup_queue;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto cleanup_queue;
	}

	ibcq->cqe = vroce_queue_capacity(&cq->queue);
	return 0;

cleanup_queue:
	vroce_queue_cleanup(&cq->queue);
put_count:
	atomic_dec(&vdev->num_cqs);
	return err;
}

/*
 * v6.11 passes the uverbs attribute bundle (NULL for kernel CQs) instead
 * of the udata; the driver data is in the bundle.
 */
#ifdef HAVE_CREATE_CQ_ATTR_BUNDLE
static int vroce_create_cq(struct ib_cq *ibcq,
			   const struct ib_cq_init_attr *attr,
			   struct uverbs_attr_bundle *attrs)
{
	return vroce_cq_init(ibcq, attr, attrs ? &attrs->driver_udata : NULL);
}
#else
static int vroce_create_cq(struct ib_cq *ibcq,
			   const struct ib_cq_init_attr *attr,
			   struct ib_udata *udata)
{
	return vroce_cq_init(ibcq, attr, udata);
}
#endif

/*
 * ib_core refuses to destroy a CQ that a QP or SRQ still uses, so no
 * producer can be running here.
 */
static int vroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibcq->device);
	struct vroce_cq *cq = to_vroce_cq(ibcq);

	vroce_queue_cleanup(&cq->queue);
	atomic_dec(&vdev->num_cqs);
	return 0;
}

static int vroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibcq->device);
	struct vroce_cq *cq = to_vroce_cq(ibcq);
	struct rxe_resize_cq_resp __user *uresp = NULL;
	struct ib_ucontext *uctx = NULL;
	struct vroce_ucontext *uc;
	int err;

	if (cqe < 1 || cqe > VROCE_MAX_CQE) {
		vroce_dbg(vdev, "cqe %d refused\n", cqe);
		return -EINVAL;
	}
	if (cq->is_user) {
		if (!udata || udata->outlen < sizeof(*uresp)) {
			vroce_dbg(vdev, "response buffer too small\n");
			return -EINVAL;
		}
		uresp = udata->outbuf;
		uc = rdma_udata_to_drv_context(udata, struct vroce_ucontext,
					       ibuc);
		uctx = &uc->ibuc;
	}

	/* -EINVAL when more completions wait than @cqe. */
	err = vroce_queue_resize(&cq->queue, ibcq->device, cqe, uctx,
				 uresp ? &uresp->mi : NULL, &cq->lock);
	if (err)
		return err;
	ibcq->cqe = vroce_queue_capacity(&cq->queue);
	return 0;
}

static int vroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct vroce_cq *cq = to_vroce_cq(ibcq);
	unsigned long flags;
	void *slot;
	int n;

	/* Process-owned consumer index: the process polls its own ring. */
	if (cq->is_user)
		return -EOPNOTSUPP;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries; n++) {
		slot = vroce_queue_kernel_consumer_slot(&cq->queue);
		if (!slot)
			break;
		memcpy(&wc[n], slot, sizeof(*wc));
		vroce_queue_consume(&cq->queue);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

static int vroce_req_notify_cq(struct ib_cq *ibcq,
			       enum ib_cq_notify_flags flags)
{
	struct vroce_cq *cq = to_vroce_cq(ibcq);
	unsigned long irq_flags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irq_flags);
	/* NEXT_COMP covers SOLICITED: keep the wider arm until it fires. */
	cq->notify |= flags & IB_CQ_SOLICITED_MASK;
	/*
	 * Entries already waiting will not trigger the handler: kernel
	 * consumers (ib_poll_cq users, ib_cq's irq_poll) rely on hearing it
	 * here, or they sleep on a CQ that has work.
	 */
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    !vroce_queue_empty(&cq->queue))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irq_flags);
	return ret;
}

/*
 * The mmap ops of every ring (CQ, QP, SRQ) are set here: ib_core takes one
 * .mmap/.mmap_free per device, and a device without CQs has no rings.  The
 * code is in queue.c.
 */
const struct ib_device_ops vroce_cq_ops = {
	.create_cq = vroce_create_cq,
	.destroy_cq = vroce_destroy_cq,
	.mmap = vroce_mmap,
	.mmap_free = vroce_mmap_free,
	.poll_cq = vroce_poll_cq,
	.req_notify_cq = vroce_req_notify_cq,
	.resize_cq = vroce_resize_cq,
};
