// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_IB_ALLOC_DEVICE_WITH_NET: a driver can allocate its ib_device in a
 * network namespace other than init_net, where it is registered and, in
 * ib_core's exclusive netns mode, seen ("RDMA/core: Extend RDMA device
 * registration to be net namespace aware", 2025; not in 6.1 nor 6.12).
 */
#include <rdma/ib_verbs.h>

struct probe_dev {
	struct ib_device ibdev;
};

struct ib_device *probe_alloc_device_with_net(struct net *net);

struct ib_device *probe_alloc_device_with_net(struct net *net)
{
	struct probe_dev *p = ib_alloc_device_with_net(probe_dev, ibdev, net);

	return p ? &p->ibdev : NULL;
}
