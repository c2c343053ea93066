// SPDX-License-Identifier: GPL-2.0
/*
 * The sysfs parent of each vroce device.
 *
 * A hardware RoCE function shows its netdev under the same parent device
 * as its ib_device (/sys/class/infiniband/mlx5_0/device/net/eth0), and
 * ibdev2netdev-style tools and test suites read that link.  vroce gives
 * every ib_device a parent of its own, /sys/devices/vroce/nicN, holding
 * "net/<netdev>" as a symlink.  The parent has no bus and no modalias, so
 * no hardware provider of rdma-core can claim the device: librxe does, by
 * driver id.  DMA stays virtual: the parent is not passed as DMA device.
 */
#include <linux/idr.h>
#include <linux/slab.h>

#include "vroce.h"

static struct device *vroce_root;
static DEFINE_IDA(vroce_parent_ida);

static void vroce_parent_release(struct device *dev)
{
	kfree(dev);
}

static int vroce_parent_link(struct vroce_dev *vdev)
{
	return sysfs_create_link(vdev->parent_net, &vdev->ndev->dev.kobj,
				 netdev_name(vdev->ndev));
}

/**
 * vroce_parent_add() - create the parent device and its net/ link
 * @vdev: a device being created; @vdev->ndev is set
 *
 * Return: 0 or a negative errno; on error nothing is left behind.
 */
int vroce_parent_add(struct vroce_dev *vdev)
{
	struct device *dev;
	int err;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	err = ida_alloc(&vroce_parent_ida, GFP_KERNEL);
	if (err < 0) {
		kfree(dev);
		return err;
	}
	vdev->parent_id = err;
	vdev->parent = dev;

	device_initialize(dev);
	dev->parent = vroce_root;
	dev->release = vroce_parent_release;
	err = dev_set_name(dev, "nic%d", vdev->parent_id);
	if (err)
		goto put_dev;
	err = device_add(dev);
	if (err)
		goto put_dev;

	vdev->parent_net = kobject_create_and_add("net", &dev->kobj);
	if (!vdev->parent_net) {
		err = -ENOMEM;
		goto del_dev;
	}
	err = vroce_parent_link(vdev);
	if (err)
		goto put_net;
	vdev->ibdev.dev.parent = dev;
	return 0;

put_net:
	kobject_put(vdev->parent_net);
	vdev->parent_net = NULL;
del_dev:
	device_del(dev);
put_dev:
	put_device(dev);
	vdev->parent = NULL;
	ida_free(&vroce_parent_ida, vdev->parent_id);
	return err;
}

/**
 * vroce_parent_rename() - follow a rename of the netdev
 * @vdev: the device (RTNL held by the netdev notifier)
 *
 * The link's old name is unknown here (the netdev already carries the new
 * one), so the whole "net" directory is rebuilt.
 */
void vroce_parent_rename(struct vroce_dev *vdev)
{
	ASSERT_RTNL();
	if (!vdev->parent_net)
		return;
	kobject_put(vdev->parent_net);
	vdev->parent_net = kobject_create_and_add("net", &vdev->parent->kobj);
	if (vdev->parent_net && vroce_parent_link(vdev))
		vroce_dbg(vdev, "cannot relink %s\n", netdev_name(vdev->ndev));
}

/**
 * vroce_parent_del() - remove the parent after the ib_device is gone
 * @vdev: the device, from dealloc_driver
 */
void vroce_parent_del(struct vroce_dev *vdev)
{
	if (vdev->parent_net) {
		kobject_put(vdev->parent_net);
		vdev->parent_net = NULL;
	}
	device_del(vdev->parent);
	put_device(vdev->parent);
	vdev->parent = NULL;
	ida_free(&vroce_parent_ida, vdev->parent_id);
}

/**
 * vroce_parent_class_init() - create /sys/devices/vroce
 *
 * Return: 0 or a negative errno.
 */
int vroce_parent_class_init(void)
{
	vroce_root = root_device_register(VROCE_DRV_NAME);
	return PTR_ERR_OR_ZERO(vroce_root);
}

/**
 * vroce_parent_class_exit() - remove /sys/devices/vroce
 */
void vroce_parent_class_exit(void)
{
	root_device_unregister(vroce_root);
	ida_destroy(&vroce_parent_ida);
}
