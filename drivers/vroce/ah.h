/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address handles.  User AHs get an ah_num that UD WQEs carry instead of
 * the address; the send path resolves it with vroce_ah_get().  An old
 * librxe (response buffer too short for struct rxe_create_ah_resp) gets
 * ah_num 0 and puts a struct rxe_av in every UD WQE instead: that address
 * comes from user memory and must be validated by the send path.
 * Kernel UD work requests carry the ib_ah pointer itself.
 */
#ifndef VROCE_AH_H
#define VROCE_AH_H

#include <linux/completion.h>
#include <linux/refcount.h>
#include <rdma/ib_verbs.h>

struct vroce_dev;

/**
 * struct vroce_ah - address handle
 * @ibah: the ib_core AH (pd, sgid_attr)
 * @ah_num: index in vroce_dev.ahs, 0 for kernel AHs and for user AHs of
 *	an old librxe that puts the address in each WQE; immutable
 * @net_type: RDMA_NETWORK_IPV4, RDMA_NETWORK_IPV6 or (RoCE v1)
 *	RDMA_NETWORK_ROCE_V1, from the source GID;
 *	immutable
 * @attr: the address as given at creation (destination MAC resolved by
 *	ib_core; grh.sgid_attr is ibah.sgid_attr, held by ib_core for the
 *	AH's life); immutable
 * @ref: lookups by ah_num hold a reference; destroy waits for the last
 * @released: completed when @ref drops to zero
 *
 * An AH never changes after creation, so it needs no lock.
 */
struct vroce_ah {
	struct ib_ah ibah;
	u32 ah_num;
	enum rdma_network_type net_type;
	struct rdma_ah_attr attr;
	refcount_t ref;
	struct completion released;
};

static inline struct vroce_ah *to_vroce_ah(struct ib_ah *ibah)
{
	return ibah ? container_of(ibah, struct vroce_ah, ibah) : NULL;
}

/**
 * vroce_ah_get() - the AH a user UD WQE names, checked against the QP's PD
 * @vdev: the device
 * @ah_num: from the WQE
 * @pd: the QP's PD
 *
 * Callable from any context.
 *
 * Return: referenced AH (vroce_ah_put()) or NULL (unknown or other PD).
 */
struct vroce_ah *vroce_ah_get(struct vroce_dev *vdev, u32 ah_num,
			      struct ib_pd *pd);

/**
 * vroce_ah_put() - drop a reference taken by vroce_ah_get()
 * @ah: the AH
 */
void vroce_ah_put(struct vroce_ah *ah);

extern const struct ib_device_ops vroce_ah_ops;

#endif /* VROCE_AH_H */
