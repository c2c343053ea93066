// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_CREATE_CQ_ATTR_BUNDLE: ib_device_ops.create_cq takes a
 * struct uverbs_attr_bundle instead of struct ib_udata
 * (v6.11, "RDMA: Pass uverbs_attr_bundle as part of '.create_cq' API").
 */
#include <rdma/ib_verbs.h>

static int probe_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *a,
			   struct uverbs_attr_bundle *attrs)
{
	return 0;
}

const struct ib_device_ops probe_ops = {
	.create_cq = probe_create_cq,
};
