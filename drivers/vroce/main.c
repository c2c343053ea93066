// SPDX-License-Identifier: GPL-2.0
/*
 * vroce module: load and unload, the "vroce" rdma link type, the device
 * ops table, and the netdev notifier that ties each device to its netdev.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <net/net_namespace.h>
#include <rdma/rdma_netlink.h>

#include "vroce.h"

/* Serialises "one device per netdev" check and registration in newlink. */
static DEFINE_MUTEX(vroce_newlink_lock);

static void vroce_dealloc_driver(struct ib_device *ibdev)
{
	struct vroce_dev *vdev = to_vroce_dev(ibdev);

	vroce_cc_sysfs_cleanup(vdev);
	vroce_cc_algo_dev_cleanup(vdev);
	vroce_qos_sysfs_cleanup(vdev);
	vroce_fault_cleanup(vdev);
	vroce_pfc_port_close(vdev);
	vroce_pfc_tx_cleanup(vdev);
	vroce_portq_cleanup(vdev);
	vroce_loop_cleanup(vdev);
	vroce_mcast_cleanup(vdev);
	vroce_parent_del(vdev);
	xa_destroy(&vdev->qps);
	xa_destroy(&vdev->mem_keys);
	xa_destroy(&vdev->ahs);
	xa_destroy(&vdev->srqs);
	vroce_counters_free(vdev);
	vroce_net_put(dev_net(vdev->ndev));
	netdev_put(vdev->ndev, &vdev->ndev_tracker);
}

const struct ib_device_ops vroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = VROCE_UVERBS_ABI_VERSION,

	.alloc_pd = vroce_alloc_pd,
	.alloc_ucontext = vroce_alloc_ucontext,
	.dealloc_driver = vroce_dealloc_driver,
	.dealloc_pd = vroce_dealloc_pd,
	.dealloc_ucontext = vroce_dealloc_ucontext,
	.device_group = &vroce_cc_attr_group,
	.disassociate_ucontext = vroce_disassociate_ucontext,
	.fill_res_qp_entry = vroce_cc_fill_res_qp_entry,
	.get_link_layer = vroce_get_link_layer,
	.get_port_immutable = vroce_get_port_immutable,
	.query_device = vroce_query_device,
	.query_pkey = vroce_query_pkey,
	.query_port = vroce_query_port,

	INIT_RDMA_OBJ_SIZE(ib_ah, vroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, vroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, vroce_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, vroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, vroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, vroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, vroce_ucontext, ibuc),
	/* Each object file adds its verbs through its own ops table. */
};

/*
 * rdma link add passes no extack to newlink: the errno is all the command
 * shows, so each refusal also says why, and what to do instead, in one
 * rate-limited line.
 */
static int vroce_check_netdev(struct net_device *ndev)
{
	struct ib_device *other;

	/*
	 * RoCE carries VLANs in the GID table of the device on the real
	 * netdev; a second device on a VLAN would answer the same packets.
	 */
	if (is_vlan_dev(ndev)) {
		pr_warn_ratelimited("%s is a VLAN device: add the vroce device on %s, its GID table covers the VLAN (EOPNOTSUPP)\n",
				    netdev_name(ndev),
				    netdev_name(vlan_dev_real_dev(ndev)));
		return -EOPNOTSUPP;
	}
	if (ndev->flags & IFF_LOOPBACK) {
		pr_warn_ratelimited("%s is the loopback device: add the vroce device on an Ethernet netdev; its own traffic loops back inside vroce (EINVAL)\n",
				    netdev_name(ndev));
		return -EINVAL;
	}
	if (ndev->type != ARPHRD_ETHER || ndev->addr_len != ETH_ALEN) {
		pr_warn_ratelimited("%s is not an Ethernet device (ARPHRD type %u): RoCEv2 needs one, e.g. a NIC, veth or bond (EINVAL)\n",
				    netdev_name(ndev), ndev->type);
		return -EINVAL;
	}

	other = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (other) {
		pr_warn_ratelimited("%s already has the RDMA device %s: one per netdev, use it or rdma link delete it first (EEXIST)\n",
				    netdev_name(ndev), dev_name(&other->dev));
		ib_device_put(other);
		return -EEXIST;
	}
	return 0;
}

/*
 * A ConnectX port's GID table has a RoCE v1 and a RoCE v2 entry per
 * address, and RoCE users' scripts expect the IPv4 RoCE v2 GID at index 3.
 * rdma_rxe's has RoCE v2 entries only (IPv4 at index 1): off gives that.
 */
static bool vroce_roce_v1 = true;
module_param_named(roce_v1, vroce_roce_v1, bool, 0644);
MODULE_PARM_DESC(roce_v1,
		 "devices created from now on have RoCE v1 GIDs beside RoCE v2 ones, as ConnectX (IPv4 RoCE v2 GID at index 3); 0: RoCE v2 only, as rdma_rxe (at index 1) (default: 1)");

/*
 * In ib_core's exclusive netns mode (rdma system set netns exclusive) a
 * device is seen and used only in its own namespace: vroce's is its
 * netdev's, where rdma link add found the netdev, as mlx5 puts a device in
 * its devlink instance's.  In shared mode ib_core keeps every device in
 * init_net and shows it to every namespace.  ib_register_device() must be
 * done before @net dies: the caller holds a reference.
 */
static struct vroce_dev *vroce_alloc_dev(struct net *net)
{
#ifdef HAVE_IB_ALLOC_DEVICE_WITH_NET
	/* init_net in shared mode: ib_core decides */
	return ib_alloc_device_with_net(vroce_dev, ibdev, net);
#else
	struct vroce_dev *vdev = ib_alloc_device(vroce_dev, ibdev);

	/*
	 * What ib_alloc_device_with_net() does: the device is still in
	 * init_net, and only exclusive mode hides it from @net.  The mode
	 * cannot change while a namespace other than init_net exists.
	 */
	if (vdev && !rdma_dev_access_netns(&vdev->ibdev, net))
		write_pnet(&vdev->ibdev.coredev.rdma_net, net);
	return vdev;
#endif
}

static int vroce_register(const char *name, struct net_device *ndev)
{
	struct vroce_dev *vdev;
	struct ib_device *ibdev;
	struct net *net;
	int err;

	/* a namespace already on its way out gets no new device */
	net = maybe_get_net(dev_net(ndev));
	if (!net)
		return -ENODEV;
	err = vroce_net_get(net);
	if (err)
		goto put_net;

	vdev = vroce_alloc_dev(net);
	if (!vdev) {
		err = -ENOMEM;
		goto put_vroce_net;
	}
	ibdev = &vdev->ibdev;
	vdev->ndev = ndev;
	vdev->roce_v1 = READ_ONCE(vroce_roce_v1);
	netdev_hold(ndev, &vdev->ndev_tracker, GFP_KERNEL);

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	/*
	 * Completion events run where the CQE was written, whatever vector
	 * a CQ asked for: one vector is what vroce really has.
	 */
	ibdev->num_comp_vectors = 1;
	ibdev->local_dma_lkey = 0;
	ibdev->node_guid = (__force __be64)vroce_guid_from_mac(ndev->dev_addr);
	snprintf(ibdev->node_desc, sizeof(ibdev->node_desc), "vroce %s",
		 netdev_name(ndev));
	/* librxe rings its send doorbell and arms CQs with write commands. */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);

	/* Each object file contributes its verbs (the first set of an op wins). */
	ib_set_device_ops(ibdev, &vroce_dev_ops);
	ib_set_device_ops(ibdev, &vroce_ah_ops);
	ib_set_device_ops(ibdev, &vroce_counters_ops);
	ib_set_device_ops(ibdev, &vroce_mcast_ops);
	ib_set_device_ops(ibdev, &vroce_cq_ops);
	ib_set_device_ops(ibdev, &vroce_mr_ops);
	ib_set_device_ops(ibdev, &vroce_qp_ops);
	ib_set_device_ops(ibdev, &vroce_srq_ops);

	xa_init_flags(&vdev->qps, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&vdev->mem_keys, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&vdev->ahs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&vdev->srqs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);

	vroce_port_init(vdev);
	vroce_cc_dev_init(vdev);
	vroce_qos_init(vdev);
	vroce_loop_init(vdev);
	vroce_portq_init(vdev);
	vroce_pfc_tx_init(vdev);
	vroce_mcast_init(vdev);
	err = vroce_counters_init(vdev);
	if (err)
		goto free_dev;
	err = ib_device_set_netdev(ibdev, ndev, 1);
	if (err)
		goto free_counters;
	err = vroce_parent_add(vdev);
	if (err)
		goto free_counters;

	/* No DMA device: ib_core gives the device virtual DMA. */
	err = ib_register_device(ibdev, name, NULL);
	if (err)
		goto del_parent;
	vroce_fault_init(vdev);
	vroce_pfc_port_open(vdev);
	/* mlx5's ecn/ under the netdev; without it cc/ has every setting */
	vroce_cc_sysfs_init(vdev);
	/* tc/1/traffic_class, and qos/ under the netdev */
	vroce_qos_sysfs_init(vdev);
	/* from here ib_core's namespace exit takes the device to init_net */
	put_net(net);
	return 0;

del_parent:
	vroce_parent_del(vdev);
free_counters:
	vroce_counters_free(vdev);
free_dev:
	netdev_put(ndev, &vdev->ndev_tracker);
	ib_dealloc_device(ibdev);
put_vroce_net:
	vroce_net_put(net);
put_net:
	put_net(net);
	return err;
}

static int vroce_newlink(const char *name, struct net_device *ndev)
{
	int err;

	mutex_lock(&vroce_newlink_lock);
	err = vroce_check_netdev(ndev);
	if (!err)
		err = vroce_register(name, ndev);
	mutex_unlock(&vroce_newlink_lock);
	return err;
}

static struct rdma_link_ops vroce_link_ops = {
	.type = VROCE_DRV_NAME,
	.newlink = vroce_newlink,
};

static int vroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct ib_device *ibdev;
	struct vroce_dev *vdev;

	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (!ibdev)
		return NOTIFY_DONE;
	vdev = to_vroce_dev(ibdev);

	switch (event) {
	case NETDEV_UNREGISTER:
		/* Also sent when the netdev leaves for another namespace. */
		vroce_cc_sysfs_cleanup(vdev);
		vroce_qos_sysfs_cleanup(vdev);
		ib_unregister_device_queued(ibdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		vroce_port_update(vdev);
		break;
	case NETDEV_CHANGENAME:
		vroce_parent_rename(vdev);
		break;
	default:
		break;
	}
	ib_device_put(ibdev);
	return NOTIFY_OK;
}

static struct notifier_block vroce_netdev_nb = {
	.notifier_call = vroce_netdev_event,
};

/*
 * rdma_rxe speaks the same user ABI under the same driver id and casts
 * every RDMA_DRIVER_RXE device to its own type: it must not load while we
 * are here.  The other order is caught in vroce_init().
 */
static int vroce_module_event(struct notifier_block *nb, unsigned long event,
			      void *data)
{
	struct module *mod = data;

	if (event != MODULE_STATE_COMING || strcmp(mod->name, "rdma_rxe"))
		return NOTIFY_DONE;
	pr_warn_ratelimited("refusing to load rdma_rxe: it cannot run beside vroce (rmmod vroce first)\n");
	return notifier_from_errno(-EBUSY);
}

static struct notifier_block vroce_module_nb = {
	.notifier_call = vroce_module_event,
};

static int __init vroce_init(void)
{
	int err;

	vroce_txq_init();
	err = vroce_net_init();
	if (err == -EADDRINUSE) {
		pr_err("UDP port %d is taken (is rdma_rxe loaded?): vroce cannot run beside rdma_rxe, unload it first\n",
		       VROCE_ROCE_V2_PORT);
		return -EBUSY;
	}
	if (err)
		return err;

	err = register_module_notifier(&vroce_module_nb);
	if (err)
		goto net_exit;
	err = vroce_parent_class_init();
	if (err)
		goto module_nb;
	err = register_netdevice_notifier(&vroce_netdev_nb);
	if (err)
		goto parent_exit;
	/* cc/'s attributes and algorithms before the first device */
	vroce_cc_sysfs_module_init();
	vroce_cc_algo_module_init();
	rdma_link_register(&vroce_link_ops);
	vroce_fault_module_init();
	return 0;

parent_exit:
	vroce_parent_class_exit();
module_nb:
	unregister_module_notifier(&vroce_module_nb);
net_exit:
	vroce_net_exit();
	return err;
}

static void __exit vroce_exit(void)
{
	rdma_link_unregister(&vroce_link_ops);
	unregister_netdevice_notifier(&vroce_netdev_nb);
	/* Unregisters (and deallocates) every device we created. */
	ib_unregister_driver(RDMA_DRIVER_RXE);
	vroce_parent_class_exit();
	unregister_module_notifier(&vroce_module_nb);
	vroce_net_exit();
	vroce_fault_module_exit();
	vroce_cc_algo_module_exit();
	vroce_txq_exit();
}

module_init(vroce_init);
module_exit(vroce_exit);

MODULE_DESCRIPTION("vroce: software RoCEv2 RDMA device");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK(VROCE_DRV_NAME);
