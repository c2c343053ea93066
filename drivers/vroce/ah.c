// SPDX-License-Identifier: GPL-2.0
/*
 * Address handles.
 *
 * Every AH has a GRH whose source GID is a RoCE v2 (UDP encapsulated)
 * GID, IPv4-mapped or IPv6, or a RoCE v1 GID (its GRH carries the GIDs as
 * they are); ib_core has resolved the destination MAC before we see the
 * attributes.  Kernel AHs may be
 * created and destroyed in atomic context (ib_mad answers from its
 * completion handler), so their path allocates nothing and never sleeps.
 * User AHs get a number in vroce_dev.ahs: librxe puts it in UD WQEs.
 */
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "vroce.h"

/* ah_num space: any non-zero u32 works for librxe; stay compact. */
#define VROCE_AH_NUM_MAX	((1U << 24) - 1)

static int vroce_ah_check(struct vroce_dev *vdev,
			  const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;
	enum rdma_network_type type;
	bool src_v4, dst_v4;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    rdma_ah_get_port_num(attr) != 1)
		return -EINVAL;
	/* RoCE has no LIDs: the GRH is the address. */
	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	if (!grh->sgid_attr)
		return -EINVAL;
	if (grh->sgid_attr->gid_type == IB_GID_TYPE_ROCE)
		return 0;
	if (grh->sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	type = rdma_gid_attr_network_type(grh->sgid_attr);
	if (type != RDMA_NETWORK_IPV4 && type != RDMA_NETWORK_IPV6)
		return -EINVAL;
	/* One IP family per packet: source and destination must agree. */
	src_v4 = type == RDMA_NETWORK_IPV4;
	dst_v4 = ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw);
	if (src_v4 != dst_v4) {
		vroce_dbg(vdev, "source and destination GID families differ\n");
		return -EINVAL;
	}
	return 0;
}

static int vroce_create_ah(struct ib_ah *ibah,
			   struct rdma_ah_init_attr *init_attr,
			   struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibah->device);
	struct vroce_ah *ah = to_vroce_ah(ibah);
	struct rxe_create_ah_resp resp = {};
	int err;

	err = vroce_ah_check(vdev, init_attr->ah_attr);
	if (err)
		return err;
	if (!vroce_count_get(&vdev->num_ahs, VROCE_MAX_AH))
		return -ENOMEM;

	ah->attr = *init_attr->ah_attr;
	/* ib_core holds this reference until the AH is destroyed. */
	ah->attr.grh.sgid_attr = ibah->sgid_attr;
	ah->net_type = rdma_gid_attr_network_type(ibah->sgid_attr);
	refcount_set(&ah->ref, 1);
	init_completion(&ah->released);
	ah->ah_num = 0;

	/*
	 * A librxe older than the ah_num ABI passes a response buffer too
	 * short for it, and keeps putting the address in each WQE.
	 */
	if (!udata || udata->outlen < sizeof(resp))
		return 0;

	/* Reserve the number; publish the AH once the user has it. */
	err = xa_alloc_cyclic_irq(&vdev->ahs, &ah->ah_num, NULL,
				  XA_LIMIT(1, VROCE_AH_NUM_MAX),
				  &vdev->next_ah_num, GFP_KERNEL);
	if (err < 0) {
		err = err == -EBUSY ? -ENOMEM : err;
		goto uncount;
	}
	resp.ah_num = ah->ah_num;
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		goto release_num;
	/* The slot exists already: this store allocates nothing. */
	xa_store_irq(&vdev->ahs, ah->ah_num, ah, GFP_KERNEL);
	return 0;

release_num:
	xa_erase_irq(&vdev->ahs, ah->ah_num);
uncount:
	atomic_dec(&vdev->num_ahs);
	return err;
}

static int vroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct vroce_dev *vdev = to_vroce_dev(ibah->device);
	struct vroce_ah *ah = to_vroce_ah(ibah);

	/*
	 * Only user AHs are numbered, and uverbs always destroys them with
	 * RDMA_DESTROY_AH_SLEEPABLE: waiting is allowed here.  Kernel AHs
	 * (possibly destroyed in atomic context) take none of this path.
	 */
	if (ah->ah_num) {
		xa_erase_irq(&vdev->ahs, ah->ah_num);
		vroce_ah_put(ah);
		vroce_wait_released(ibah->device, &ah->released, &ah->ref,
				    "AH", ah->ah_num, VROCE_RELEASE_WARN_MS);
		/* ib_core frees the AH without a grace period. */
		synchronize_rcu();
	}
	atomic_dec(&vdev->num_ahs);
	return 0;
}

static int vroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct vroce_ah *ah = to_vroce_ah(ibah);

	*attr = ah->attr;
	/* The caller did not take a reference on the GID attribute. */
	attr->grh.sgid_attr = NULL;
	return 0;
}

/**
 * vroce_ah_get() - the AH a user UD WQE names, checked against the QP's PD
 * @vdev: the device
 * @ah_num: from the WQE (any value: it comes from user memory)
 * @pd: the QP's PD
 *
 * Callable from any context.
 *
 * Return: referenced AH (vroce_ah_put()) or NULL (unknown or other PD).
 */
struct vroce_ah *vroce_ah_get(struct vroce_dev *vdev, u32 ah_num,
			      struct ib_pd *pd)
{
	struct vroce_ah *ah;

	rcu_read_lock();
	ah = xa_load(&vdev->ahs, ah_num);
	if (ah && (ah->ibah.pd != pd || !refcount_inc_not_zero(&ah->ref)))
		ah = NULL;
	rcu_read_unlock();
	return ah;
}

/**
 * vroce_ah_put() - drop a reference taken by vroce_ah_get()
 * @ah: the AH
 */
void vroce_ah_put(struct vroce_ah *ah)
{
	if (refcount_dec_and_test(&ah->ref))
		complete(&ah->released);
}

const struct ib_device_ops vroce_ah_ops = {
	.create_ah = vroce_create_ah,
	.create_user_ah = vroce_create_ah,
	.destroy_ah = vroce_destroy_ah,
	.query_ah = vroce_query_ah,
};
