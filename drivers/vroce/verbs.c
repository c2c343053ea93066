// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs entry points.  Each checks its arguments and calls into the file
 * that owns the object.  Verbs whose objects are not implemented yet say so
 * with -EOPNOTSUPP; ib_core needs them present to register the device.
 */
#include "vroce.h"

/**
 * vroce_alloc_ucontext() - a process opened the device
 * @ibuc: allocated and zeroed by ib_core
 * @udata: the rxe ABI passes no driver data here
 *
 * Return: 0.
 */
int vroce_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	return 0;
}

/**
 * vroce_dealloc_ucontext() - the process closed the device
 * @ibuc: freed by ib_core after this returns
 */
void vroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

/**
 * vroce_alloc_pd() - allocate a protection domain
 * @ibpd: allocated and zeroed by ib_core
 * @udata: the rxe ABI passes no driver data here
 *
 * A PD is only a name that other objects are checked against; its only
 * state is the device-wide count a real NIC would run out of.
 *
 * Return: 0, or -ENOMEM past VROCE_MAX_PD.
 */
int vroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibpd->device);

	if (atomic_inc_return(&vdev->num_pds) > VROCE_MAX_PD) {
		atomic_dec(&vdev->num_pds);
		return -ENOMEM;
	}
	return 0;
}

/**
 * vroce_dealloc_pd() - free a protection domain
 * @ibpd: freed by ib_core after this returns
 * @udata: unused
 *
 * Return: 0.
 */
int vroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibpd->device);

	atomic_dec(&vdev->num_pds);
	return 0;
}

static int vroce_no_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *init,
			      struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int vroce_no_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr,
			      int mask, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int vroce_no_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	return 0;
}

static int vroce_no_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			      const struct ib_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static int vroce_no_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
			      const struct ib_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

#ifdef HAVE_CREATE_CQ_ATTR_BUNDLE
static int vroce_no_create_cq(struct ib_cq *cq,
			      const struct ib_cq_init_attr *attr,
			      struct uverbs_attr_bundle *attrs)
#else
static int vroce_no_create_cq(struct ib_cq *cq,
			      const struct ib_cq_init_attr *attr,
			      struct ib_udata *udata)
#endif
{
	return -EOPNOTSUPP;
}

static int vroce_no_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	return 0;
}

static int vroce_no_poll_cq(struct ib_cq *cq, int num, struct ib_wc *wc)
{
	return -EOPNOTSUPP;
}

static int vroce_no_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags f)
{
	return -EOPNOTSUPP;
}

static struct ib_mr *vroce_no_get_dma_mr(struct ib_pd *pd, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static struct ib_mr *vroce_no_reg_user_mr(struct ib_pd *pd, u64 start,
					  u64 length, u64 iova, int access,
					  struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int vroce_no_dereg_mr(struct ib_mr *mr, struct ib_udata *udata)
{
	return 0;
}

/*
 * Mandatory verbs of objects that cannot be created yet.  The destroy
 * entries are never reached (no object exists) but must not fail if they
 * were.
 */
const struct ib_device_ops vroce_unsupported_ops = {
	.create_qp = vroce_no_create_qp,
	.modify_qp = vroce_no_modify_qp,
	.destroy_qp = vroce_no_destroy_qp,
	.post_send = vroce_no_post_send,
	.post_recv = vroce_no_post_recv,
	.create_cq = vroce_no_create_cq,
	.destroy_cq = vroce_no_destroy_cq,
	.poll_cq = vroce_no_poll_cq,
	.req_notify_cq = vroce_no_req_notify_cq,
	.get_dma_mr = vroce_no_get_dma_mr,
	.reg_user_mr = vroce_no_reg_user_mr,
	.dereg_mr = vroce_no_dereg_mr,
};
