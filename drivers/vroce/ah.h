/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address handles.  User AHs get an ah_num that UD WQEs carry instead of
 * the address; the send path resolves it with vroce_ah_get().
 */
#ifndef VROCE_AH_H
#define VROCE_AH_H

#include <rdma/ib_verbs.h>

struct vroce_dev;

/**
 * struct vroce_ah - address handle
 * @ibah: the ib_core AH
 * @ah_num: index in vroce_dev.ahs, 0 for kernel AHs
 * @attr: the address as given at creation (destination MAC resolved by
 *	ib_core, GRH with the source GID attribute)
 * @ref: lookups by ah_num hold a reference; destroy waits for the last
 */
struct vroce_ah {
	struct ib_ah ibah;
	u32 ah_num;
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
 * Return: referenced AH (vroce_ah_put()) or NULL (unknown or other PD).
 */
struct vroce_ah *vroce_ah_get(struct vroce_dev *vdev, u32 ah_num,
			      struct ib_pd *pd);
void vroce_ah_put(struct vroce_ah *ah);

extern const struct ib_device_ops vroce_ah_ops;

#endif /* VROCE_AH_H */
