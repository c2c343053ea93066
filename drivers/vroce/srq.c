// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues.
 *
 * The ring holds struct rxe_recv_wqe entries followed by max_sge SGEs.
 * The consumer of the verbs produces (librxe writes a user SRQ's ring
 * directly, kernel ULPs go through post_srq_recv); the responder takes
 * entries with vroce_srq_take(), which copies each one out and checks it
 * before anyone uses it.
 */
#include <linux/uaccess.h>
#include <rdma/uverbs_ioctl.h>

#include "vroce.h"

/* SRQ numbers travel in the 24-bit XRCETH field on the wire. */
#define VROCE_SRQ_NUM_MAX	((1U << 24) - 1)

static u32 vroce_srq_wqe_size(u32 max_sge)
{
	return sizeof(struct rxe_recv_wqe) + max_sge * sizeof(struct rxe_sge);
}

static void vroce_srq_event(struct vroce_srq *srq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = type,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/*
 * Total length of a receive WQE's SGEs, or -EINVAL when it does not fit
 * the 32-bit length field of the WQE.
 */
static int vroce_srq_sge_total(const struct rxe_sge *sge, u32 num_sge,
			       u32 *total)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < num_sge; i++)
		sum += sge[i].length;
	if (sum > U32_MAX)
		return -EINVAL;
	*total = sum;
	return 0;
}

static int vroce_create_srq(struct ib_srq *ibsrq,
			    struct ib_srq_init_attr *init,
			    struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibsrq->device);
	struct vroce_srq *srq = to_vroce_srq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	struct rxe_create_srq_resp resp = {};
	struct vroce_ucontext *uc;
	int err;

	if (vroce_fault_alloc_fail(vdev))
		return -ENOMEM;
	if (init->srq_type != IB_SRQT_BASIC) {
		vroce_dbg(vdev, "srq type %d not supported\n", init->srq_type);
		return -EOPNOTSUPP;
	}
	if (attr->max_wr < 1 || attr->max_wr > VROCE_MAX_SRQ_WR ||
	    attr->max_sge > VROCE_MAX_SRQ_SGE) {
		vroce_dbg(vdev, "max_wr %u max_sge %u refused\n", attr->max_wr,
			  attr->max_sge);
		return -EINVAL;
	}
	if (udata && udata->outlen < sizeof(resp)) {
		vroce_dbg(vdev, "response buffer too small\n");
		return -EINVAL;
	}
	if (!vroce_count_get(&vdev->num_srqs, VROCE_MAX_SRQ))
		return -ENOMEM;

	spin_lock_init(&srq->lock);
	srq->is_user = !!udata;
	/* A WQE with no SGE is legal; the slot still has room for one. */
	srq->max_sge = max_t(u32, attr->max_sge, 1);
	/*
	 * srq_limit is ignored at creation (ibv_create_srq(3)): the limit
	 * event is armed with modify_srq only.
	 */
	srq->limit = 0;
	err = vroce_queue_init(&srq->queue, ibsrq->device, attr->max_wr,
			       vroce_srq_wqe_size(srq->max_sge),
			       VROCE_Q_USER_PRODUCER, srq->is_user);
	if (err)
		goto put_count;
	srq->max_wr = vroce_queue_capacity(&srq->queue);

	err = xa_alloc_cyclic_irq(&vdev->srqs, &srq->srq_num, srq,
				  XA_LIMIT(1, VROCE_SRQ_NUM_MAX),
				  &vdev->next_srq_num, GFP_KERNEL);
	if (err < 0)
		goto cleanup_queue;

	if (udata) {
		uc = rdma_udata_to_drv_context(udata, struct vroce_ucontext,
					       ibuc);
		err = vroce_queue_mmap_info(&srq->queue, &uc->ibuc, &resp.mi);
		if (err)
			goto erase_num;
		resp.srq_num = srq->srq_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto erase_num;
	}

	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	return 0;

erase_num:
	xa_erase_irq(&vdev->srqs, srq->srq_num);
cleanup_queue:
	vroce_queue_cleanup(&srq->queue);
put_count:
	atomic_dec(&vdev->num_srqs);
	return err;
}

static int vroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibsrq->device);
	struct vroce_srq *srq = to_vroce_srq(ibsrq);
	struct rxe_modify_srq_cmd cmd = {};
	struct ib_ucontext *uctx = NULL;
	struct mminfo __user *umi = NULL;
	struct vroce_ucontext *uc;
	unsigned long flags;
	u32 max_wr, limit;
	int err;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;

	spin_lock_irqsave(&srq->lock, flags);
	max_wr = srq->max_wr;
	limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);

	if (mask & IB_SRQ_MAX_WR) {
		if (attr->max_wr < 1 || attr->max_wr > VROCE_MAX_SRQ_WR)
			return -EINVAL;
		max_wr = attr->max_wr;
	}
	if (mask & IB_SRQ_LIMIT)
		limit = attr->srq_limit;
	/* Also catches a resize below an armed limit. */
	if (limit > max_wr) {
		vroce_dbg(vdev, "limit %u above max_wr %u\n", limit, max_wr);
		return -EINVAL;
	}

	if (mask & IB_SRQ_MAX_WR) {
		if (srq->is_user) {
			/*
			 * librxe passes a pointer to where the new mminfo goes
			 * instead of using the response buffer.
			 */
			if (!udata || udata->inlen < sizeof(cmd))
				return -EINVAL;
			if (ib_copy_from_udata(&cmd, udata, sizeof(cmd)))
				return -EFAULT;
			umi = u64_to_user_ptr(cmd.mmap_info_addr);
			uc = rdma_udata_to_drv_context(udata,
						       struct vroce_ucontext,
						       ibuc);
			uctx = &uc->ibuc;
		}
		/* -EINVAL when more WQEs wait than the new size. */
		err = vroce_queue_resize(&srq->queue, ibsrq->device,
					 attr->max_wr, uctx, umi, &srq->lock);
		if (err)
			return err;
		spin_lock_irqsave(&srq->lock, flags);
		srq->max_wr = vroce_queue_capacity(&srq->queue);
		spin_unlock_irqrestore(&srq->lock, flags);
	}

	if (mask & IB_SRQ_LIMIT) {
		/* 0 disarms; the event fires once, then needs re-arming. */
		spin_lock_irqsave(&srq->lock, flags);
		srq->limit = attr->srq_limit;
		spin_unlock_irqrestore(&srq->lock, flags);
	}
	return 0;
}

static int vroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct vroce_srq *srq = to_vroce_srq(ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

/*
 * ib_core refuses to destroy an SRQ that a QP still uses, so the receive
 * path cannot be taking from it here.
 */
static int vroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibsrq->device);
	struct vroce_srq *srq = to_vroce_srq(ibsrq);

	xa_erase_irq(&vdev->srqs, srq->srq_num);
	vroce_queue_cleanup(&srq->queue);
	atomic_dec(&vdev->num_srqs);
	return 0;
}

static int vroce_srq_post_one(struct vroce_srq *srq,
			      const struct ib_recv_wr *wr)
{
	struct rxe_recv_wqe *wqe;
	u64 total = 0;
	int i;

	lockdep_assert_held(&srq->lock);

	if (wr->num_sge < 0 || wr->num_sge > srq->max_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > U32_MAX)
		return -EINVAL;

	wqe = vroce_queue_producer_slot(&srq->queue);
	if (!wqe)
		return -ENOMEM;

	memset(wqe, 0, vroce_srq_wqe_size(wr->num_sge));
	wqe->wr_id = wr->wr_id;
	wqe->dma.length = total;
	wqe->dma.resid = total;
	wqe->dma.num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->dma.sge[i].addr = wr->sg_list[i].addr;
		wqe->dma.sge[i].length = wr->sg_list[i].length;
		wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
	}
	vroce_queue_produce(&srq->queue);
	return 0;
}

static int vroce_post_srq_recv(struct ib_srq *ibsrq,
			       const struct ib_recv_wr *wr,
			       const struct ib_recv_wr **bad_wr)
{
	struct vroce_srq *srq = to_vroce_srq(ibsrq);
	unsigned long flags;
	int err = 0;

	/* A process posts by writing its ring, never through here. */
	if (srq->is_user) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		err = vroce_srq_post_one(srq, wr);
		if (err)
			break;
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (err)
		*bad_wr = wr;
	return err;
}

/**
 * vroce_srq_take() - remove the next receive WQE, copied and validated
 * @srq: the SRQ
 * @wqe: buffer for the WQE (header and SGE list)
 * @len: size of @wqe; at least vroce_srq_wqe_size(@srq->max_sge)
 *
 * Callable from any context.  The WQE is copied out of the ring once and
 * only the copy is checked and returned: num_sge within max_sge, the SGE
 * list inside the copy, the total length recomputed from the SGEs (the
 * ring's length fields are not trusted), the DMA cursor reset.  A bad WQE
 * is consumed all the same, so the ring moves on.  Raises
 * IB_EVENT_SRQ_LIMIT_REACHED, once, when an armed limit is crossed.
 *
 * Return: 0 with @wqe filled, -EAGAIN when empty, -EINVAL for a bad WQE.
 */
int vroce_srq_take(struct vroce_srq *srq, struct rxe_recv_wqe *wqe,
		   size_t len)
{
	bool limit_reached = false;
	unsigned long flags;
	size_t copied;
	u32 num_sge, total;
	int err;

	if (WARN_ON_ONCE(len < sizeof(*wqe)))
		return -EINVAL;

	spin_lock_irqsave(&srq->lock, flags);
	if (!vroce_queue_peek_copy(&srq->queue, wqe, len)) {
		err = -EAGAIN;
		goto unlock;
	}
	vroce_queue_consume(&srq->queue);
	copied = min_t(size_t, len, srq->queue.elem_size);

	num_sge = wqe->dma.num_sge;
	if (num_sge > srq->max_sge ||
	    vroce_srq_wqe_size(num_sge) > copied ||
	    vroce_srq_sge_total(wqe->dma.sge, num_sge, &total)) {
		err = -EINVAL;
	} else {
		wqe->dma.length = total;
		wqe->dma.resid = total;
		wqe->dma.cur_sge = 0;
		wqe->dma.sge_offset = 0;
		err = 0;
	}

	if (srq->limit && vroce_queue_count(&srq->queue) < srq->limit) {
		srq->limit = 0;
		limit_reached = true;
	}
unlock:
	spin_unlock_irqrestore(&srq->lock, flags);

	if (limit_reached)
		vroce_srq_event(srq, IB_EVENT_SRQ_LIMIT_REACHED);
	return err;
}

const struct ib_device_ops vroce_srq_ops = {
	.create_srq = vroce_create_srq,
	.destroy_srq = vroce_destroy_srq,
	.modify_srq = vroce_modify_srq,
	.post_srq_recv = vroce_post_srq_recv,
	.query_srq = vroce_query_srq,
};
