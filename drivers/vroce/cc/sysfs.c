// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control's fixed interface, in two places.
 *
 * /sys/class/infiniband/<dev>/cc/, the attribute group vroce_cc_attr_group
 * (ib_device_ops.device_group):
 *
 *   enable                 0/1: both roles on every priority
 *   flavour                nvidia | paper
 *   line_rate              Mb/s, 0 for none
 *   cnp_delay_us           vroce's own: CNPs leave this long after the mark
 *   roce_np_enable         the notification point per priority: 8 x 0/1,
 *                          comma-separated, priority 0 first
 *   roce_rp_enable         the reaction point per priority, the same way
 *   algo                   the algorithm new flows start with: one name
 *                          for every priority, or eight comma-separated,
 *                          priority 0 first (cc/algo.c)
 *   algos                  read-only: the algorithms there are
 *   rate_advice            0/1: rate advice honoured (cc/advice.c)
 *   <knob>                 one per vroce_dcqcn_knobs[] entry, mlx5's names
 *   timely_*               TIMELY's knobs (cc/timely.h)
 *
 * ib_core gives the device's compat devices (one per network namespace in
 * its shared netns mode) the same groups, so cc/ is there in every
 * namespace; the callbacks find the device with rdma_device_to_ibdev(),
 * which maps both.  Groups do not nest, hence the lists of priorities.
 *
 * /sys/class/net/<netdev>/ecn/roce_{np,rp}/enable/<prio>, mlx5's own
 * per-priority layout: kobjects under the netdev's device, in the netdev's
 * namespace, from vroce_cc_sysfs_init() until vroce_cc_sysfs_cleanup().
 *
 * Every write is parsed and range-checked before anything changes: a bad
 * value returns -EINVAL and keeps the old one.  Values change under the
 * device's cc.lock; the data path picks them up at its next event.
 */
#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "vroce.h"

/* The ecn/ directory vroce_cc_sysfs_init() adds under the netdev. */
#define VROCE_CC_ECN_DIR	"ecn"

/*
 * An attribute of cc/ and what it sets: a knob's id, or the number of one
 * of the device-wide files below.
 */
struct vroce_cc_attr {
	struct device_attribute attr;
	unsigned int id;
};

/**
 * struct vroce_cc_dir - one directory of ecn/
 * @kobj: its kobject
 * @vdev: the device
 * @rp: roce_rp/enable (else roce_np/enable), for the priority files
 */
struct vroce_cc_dir {
	struct kobject kobj;
	struct vroce_dev *vdev;
	bool rp;
};

/* A priority file of ecn/roce_{np,rp}/enable/. */
struct vroce_cc_prio_attr {
	struct kobj_attribute attr;
	unsigned int prio;
};

enum vroce_cc_file {
	VROCE_CC_F_ENABLE,
	VROCE_CC_F_FLAVOUR,
	VROCE_CC_F_LINE_RATE,
	VROCE_CC_F_CNP_DELAY,
	VROCE_CC_F_NP_ENABLE,
	VROCE_CC_F_RP_ENABLE,
	VROCE_CC_F_ALGO,
	VROCE_CC_F_ALGOS,
	VROCE_CC_F_RATE_ADVICE,
	VROCE_CC_NR_FILES,
};

static const char * const vroce_cc_flavours[] = {
	[VROCE_DCQCN_NVIDIA] = "nvidia",
	[VROCE_DCQCN_PAPER] = "paper",
};

/*
 * Serialises the ecn/ kobjects' creation and removal: newlink, the netdev
 * notifier and dealloc_driver.  Taken after the RTNL.
 */
static DEFINE_MUTEX(vroce_cc_ecn_lock);

static struct vroce_dev *vroce_cc_vdev(struct device *dev)
{
	return rdma_device_to_drv_device(dev, struct vroce_dev, ibdev);
}

static unsigned int vroce_cc_id(struct device_attribute *attr)
{
	return container_of(attr, struct vroce_cc_attr, attr)->id;
}

static int vroce_cc_parse(const char *buf, u32 max, u32 *val)
{
	if (kstrtou32(buf, 0, val) || *val > max)
		return -EINVAL;
	return 0;
}

static ssize_t vroce_cc_file_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	struct vroce_dev *vdev = vroce_cc_vdev(dev);
	struct vroce_cc_dev *cc = &vdev->cc;

	switch (vroce_cc_id(attr)) {
	case VROCE_CC_F_ALGO:
		return vroce_cc_algo_show(vdev, buf);
	case VROCE_CC_F_ALGOS:
		return vroce_cc_algos_show(buf);
	case VROCE_CC_F_ENABLE:
		return sysfs_emit(buf, "%d\n", !!(READ_ONCE(cc->np_enable) |
						  READ_ONCE(cc->rp_enable)));
	case VROCE_CC_F_FLAVOUR:
		return sysfs_emit(buf, "%s\n",
				  vroce_cc_flavours[READ_ONCE(cc->cfg.flavour)]);
	case VROCE_CC_F_LINE_RATE:
		return sysfs_emit(buf, "%u\n", READ_ONCE(cc->line_rate_mbps));
	case VROCE_CC_F_NP_ENABLE:
		return vroce_qos_show_prios(buf, READ_ONCE(cc->np_enable));
	case VROCE_CC_F_RP_ENABLE:
		return vroce_qos_show_prios(buf, READ_ONCE(cc->rp_enable));
	case VROCE_CC_F_RATE_ADVICE:
		return sysfs_emit(buf, "%u\n", READ_ONCE(cc->rate_advice));
	default:
		return sysfs_emit(buf, "%u\n", READ_ONCE(cc->cnp_delay_us));
	}
}

static ssize_t vroce_cc_file_store(struct device *dev,
				   struct device_attribute *attr,
				   const char *buf, size_t count)
{
	struct vroce_dev *vdev = vroce_cc_vdev(dev);
	struct vroce_cc_dev *cc = &vdev->cc;
	unsigned int id = vroce_cc_id(attr);
	int flavour;
	u8 mask;
	u32 val;

	switch (id) {
	case VROCE_CC_F_ALGO:
		return vroce_cc_algo_set(vdev, buf) ?: count;
	case VROCE_CC_F_ALGOS:
		return -EPERM;
	case VROCE_CC_F_ENABLE:
		if (vroce_cc_parse(buf, 1, &val))
			return -EINVAL;
		spin_lock_bh(&cc->lock);
		WRITE_ONCE(cc->np_enable, val ? 0xff : 0);
		WRITE_ONCE(cc->rp_enable, val ? 0xff : 0);
		spin_unlock_bh(&cc->lock);
		return count;
	case VROCE_CC_F_FLAVOUR:
		flavour = sysfs_match_string(vroce_cc_flavours, buf);
		if (flavour < 0)
			return -EINVAL;
		spin_lock_bh(&cc->lock);
		WRITE_ONCE(cc->cfg.flavour, flavour);
		spin_unlock_bh(&cc->lock);
		return count;
	case VROCE_CC_F_LINE_RATE:
		if (vroce_cc_parse(buf, VROCE_DCQCN_RATE_MAX_MBPS, &val))
			return -EINVAL;
		return vroce_cc_set_line_rate(vdev, val) ?: count;
	case VROCE_CC_F_NP_ENABLE:
	case VROCE_CC_F_RP_ENABLE:
		if (vroce_qos_parse_prios(buf, count, &mask))
			return -EINVAL;
		spin_lock_bh(&cc->lock);
		if (id == VROCE_CC_F_NP_ENABLE)
			WRITE_ONCE(cc->np_enable, mask);
		else
			WRITE_ONCE(cc->rp_enable, mask);
		spin_unlock_bh(&cc->lock);
		return count;
	case VROCE_CC_F_RATE_ADVICE:
		if (vroce_cc_parse(buf, 1, &val))
			return -EINVAL;
		WRITE_ONCE(cc->rate_advice, val);
		return count;
	default:
		if (vroce_cc_parse(buf, VROCE_CC_CNP_DELAY_MAX, &val))
			return -EINVAL;
		WRITE_ONCE(cc->cnp_delay_us, val);
		return count;
	}
}

static ssize_t vroce_cc_knob_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	struct vroce_cc_dev *cc = &vroce_cc_vdev(dev)->cc;
	u32 val;

	spin_lock_bh(&cc->lock);
	val = vroce_dcqcn_knob_get(&cc->cfg.p, vroce_cc_id(attr));
	spin_unlock_bh(&cc->lock);
	return sysfs_emit(buf, "%u\n", val);
}

static ssize_t vroce_cc_knob_store(struct device *dev,
				   struct device_attribute *attr,
				   const char *buf, size_t count)
{
	struct vroce_cc_dev *cc = &vroce_cc_vdev(dev)->cc;
	struct vroce_dcqcn_params p;
	int err;
	u32 val;

	if (kstrtou32(buf, 0, &val))
		return -EINVAL;
	spin_lock_bh(&cc->lock);
	p = cc->cfg.p;
	err = vroce_dcqcn_knob_set(&p, vroce_cc_id(attr), val);
	if (!err)
		err = vroce_dcqcn_params_validate(&p);
	if (!err)
		cc->cfg.p = p;
	spin_unlock_bh(&cc->lock);
	return err ? -EINVAL : count;
}

#define VROCE_CC_FILE(_name, _mode, _id) {				\
	.attr = __ATTR(_name, _mode, vroce_cc_file_show,		\
		       vroce_cc_file_store),				\
	.id = (_id),							\
}

static struct vroce_cc_attr vroce_cc_files[VROCE_CC_NR_FILES] = {
	VROCE_CC_FILE(enable, 0644, VROCE_CC_F_ENABLE),
	VROCE_CC_FILE(flavour, 0644, VROCE_CC_F_FLAVOUR),
	VROCE_CC_FILE(line_rate, 0644, VROCE_CC_F_LINE_RATE),
	VROCE_CC_FILE(cnp_delay_us, 0644, VROCE_CC_F_CNP_DELAY),
	VROCE_CC_FILE(roce_np_enable, 0644, VROCE_CC_F_NP_ENABLE),
	VROCE_CC_FILE(roce_rp_enable, 0644, VROCE_CC_F_RP_ENABLE),
	VROCE_CC_FILE(algo, 0644, VROCE_CC_F_ALGO),
	VROCE_CC_FILE(algos, 0444, VROCE_CC_F_ALGOS),
	VROCE_CC_FILE(rate_advice, 0644, VROCE_CC_F_RATE_ADVICE),
};

/* Filled from vroce_dcqcn_knobs[] at module load. */
static struct vroce_cc_attr vroce_cc_knobs[VROCE_DCQCN_NR_KNOBS];

/* TIMELY's knobs (cc/timely.h): each a u32 at an offset. */
static const struct {
	const char *name;
	size_t offset;
} vroce_cc_timely_knobs[] = {
	{ "timely_t_low_us", offsetof(struct vroce_timely_params, t_low_us) },
	{ "timely_t_high_us", offsetof(struct vroce_timely_params, t_high_us) },
	{ "timely_min_rtt_us",
	  offsetof(struct vroce_timely_params, min_rtt_us) },
	{ "timely_add_mbps", offsetof(struct vroce_timely_params, add_mbps) },
	{ "timely_beta", offsetof(struct vroce_timely_params, beta) },
	{ "timely_ewma", offsetof(struct vroce_timely_params, ewma) },
	{ "timely_hai_n", offsetof(struct vroce_timely_params, hai_n) },
};

#define VROCE_CC_NR_TIMELY	ARRAY_SIZE(vroce_cc_timely_knobs)

static struct vroce_cc_attr vroce_cc_timely_attrs[VROCE_CC_NR_TIMELY];

static u32 *vroce_cc_timely_ptr(struct vroce_timely_params *p,
				unsigned int id)
{
	return (u32 *)((u8 *)p + vroce_cc_timely_knobs[id].offset);
}

static ssize_t vroce_cc_timely_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct vroce_timely_params p;

	vroce_cc_timely_params(vroce_cc_vdev(dev), &p);
	return sysfs_emit(buf, "%u\n", *vroce_cc_timely_ptr(&p,
							 vroce_cc_id(attr)));
}

/* Any value the knobs' relations allow (vroce_timely_params_validate()). */
static ssize_t vroce_cc_timely_store(struct device *dev,
				     struct device_attribute *attr,
				     const char *buf, size_t count)
{
	struct vroce_cc_dev *cc = &vroce_cc_vdev(dev)->cc;
	struct vroce_timely_params p;
	int err;
	u32 val;

	if (kstrtou32(buf, 0, &val))
		return -EINVAL;
	spin_lock_bh(&cc->lock);
	p = cc->timely;
	*vroce_cc_timely_ptr(&p, vroce_cc_id(attr)) = val;
	err = vroce_timely_params_validate(&p);
	if (!err)
		cc->timely = p;
	spin_unlock_bh(&cc->lock);
	return err ? -EINVAL : count;
}

static struct attribute *vroce_cc_attrs[VROCE_CC_NR_FILES +
					VROCE_DCQCN_NR_KNOBS +
					VROCE_CC_NR_TIMELY + 1];

/*
 * ib_core keeps a pointer to the group (device->groups[1]) and creates
 * its files at ib_register_device() and for each compat device; the
 * attribute array behind it is filled once, by
 * vroce_cc_sysfs_module_init(), before the link type is registered.
 */
const struct attribute_group vroce_cc_attr_group = {
	.name = "cc",
	.attrs = vroce_cc_attrs,
};

/* ecn/roce_{np,rp}/enable/<prio> */

static ssize_t vroce_cc_prio_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct vroce_cc_dir *dir = container_of(kobj, struct vroce_cc_dir,
						kobj);
	struct vroce_cc_dev *cc = &dir->vdev->cc;
	u8 mask = dir->rp ? READ_ONCE(cc->rp_enable) :
		  READ_ONCE(cc->np_enable);
	unsigned int prio = container_of(attr, struct vroce_cc_prio_attr,
					 attr)->prio;

	return sysfs_emit(buf, "%d\n", !!(mask & BIT(prio)));
}

static ssize_t vroce_cc_prio_store(struct kobject *kobj,
				   struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	struct vroce_cc_dir *dir = container_of(kobj, struct vroce_cc_dir,
						kobj);
	struct vroce_cc_dev *cc = &dir->vdev->cc;
	u8 *mask = dir->rp ? &cc->rp_enable : &cc->np_enable;
	u8 bit = BIT(container_of(attr, struct vroce_cc_prio_attr,
				  attr)->prio);
	u32 val;

	if (vroce_cc_parse(buf, 1, &val))
		return -EINVAL;
	spin_lock_bh(&cc->lock);
	WRITE_ONCE(*mask, val ? *mask | bit : *mask & ~bit);
	spin_unlock_bh(&cc->lock);
	return count;
}

#define VROCE_CC_PRIO(_name, _p) {					\
	.attr = __ATTR(_name, 0644, vroce_cc_prio_show,			\
		       vroce_cc_prio_store),				\
	.prio = (_p),							\
}

static struct vroce_cc_prio_attr vroce_cc_prios[VROCE_CC_NR_PRIOS] = {
	VROCE_CC_PRIO(0, 0), VROCE_CC_PRIO(1, 1), VROCE_CC_PRIO(2, 2),
	VROCE_CC_PRIO(3, 3), VROCE_CC_PRIO(4, 4), VROCE_CC_PRIO(5, 5),
	VROCE_CC_PRIO(6, 6), VROCE_CC_PRIO(7, 7),
};

static struct attribute *vroce_cc_prio_attrs[] = {
	&vroce_cc_prios[0].attr.attr, &vroce_cc_prios[1].attr.attr,
	&vroce_cc_prios[2].attr.attr, &vroce_cc_prios[3].attr.attr,
	&vroce_cc_prios[4].attr.attr, &vroce_cc_prios[5].attr.attr,
	&vroce_cc_prios[6].attr.attr, &vroce_cc_prios[7].attr.attr,
	NULL,
};

static const struct attribute_group vroce_cc_prio_group = {
	.attrs = vroce_cc_prio_attrs,
};

/* Fill @a as a 0644 knob file @name with knob number @id; its attribute. */
static struct attribute *vroce_cc_knob_attr(struct vroce_cc_attr *a,
					    const char *name,
					    ssize_t (*show)(struct device *,
							    struct device_attribute *,
							    char *),
					    ssize_t (*store)(struct device *,
							     struct device_attribute *,
							     const char *, size_t),
					    unsigned int id)
{
	sysfs_attr_init(&a->attr.attr);
	a->attr.attr.name = name;
	a->attr.attr.mode = 0644;
	a->attr.show = show;
	a->attr.store = store;
	a->id = id;
	return &a->attr.attr;
}

/**
 * vroce_cc_sysfs_module_init() - cc/'s attribute array, once at load
 *
 * Must run before the first device is registered: ib_core creates cc/
 * from vroce_cc_attr_group at registration.
 */
void vroce_cc_sysfs_module_init(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < VROCE_CC_NR_FILES; i++)
		vroce_cc_attrs[n++] = &vroce_cc_files[i].attr.attr;
	for (i = 0; i < VROCE_DCQCN_NR_KNOBS; i++)
		vroce_cc_attrs[n++] = vroce_cc_knob_attr(&vroce_cc_knobs[i],
							 vroce_dcqcn_knobs[i].name,
							 vroce_cc_knob_show,
							 vroce_cc_knob_store, i);
	for (i = 0; i < VROCE_CC_NR_TIMELY; i++)
		vroce_cc_attrs[n++] =
			vroce_cc_knob_attr(&vroce_cc_timely_attrs[i],
					   vroce_cc_timely_knobs[i].name,
					   vroce_cc_timely_show,
					   vroce_cc_timely_store, i);
	vroce_cc_attrs[n] = NULL;
}

static void vroce_cc_dir_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct vroce_cc_dir, kobj));
}

static const struct kobj_type vroce_cc_dir_ktype = {
	.release = vroce_cc_dir_release,
	.sysfs_ops = &kobj_sysfs_ops,
};

static struct kobject *vroce_cc_dir_add(struct vroce_dev *vdev,
					struct kobject *parent,
					const char *name, bool rp,
					const struct attribute_group *grp)
{
	struct vroce_cc_dir *dir = kzalloc(sizeof(*dir), GFP_KERNEL);

	if (!dir)
		return NULL;
	dir->vdev = vdev;
	dir->rp = rp;
	if (kobject_init_and_add(&dir->kobj, &vroce_cc_dir_ktype, parent,
				 "%s", name))
		goto put;
	if (grp && sysfs_create_group(&dir->kobj, grp))
		goto put;
	return &dir->kobj;
put:
	kobject_put(&dir->kobj);
	return NULL;
}

/**
 * vroce_sysfs_dir_add() - a directory of attributes that knows its device
 * @vdev: the device its attributes act on (vroce_sysfs_dir_vdev())
 * @parent: where it goes
 * @name: its name
 * @grp: its files (kobj_attribute), or NULL
 *
 * Process context.  kobject_put() removes it.
 *
 * Return: the directory's kobject, or NULL.
 */
struct kobject *vroce_sysfs_dir_add(struct vroce_dev *vdev,
				    struct kobject *parent, const char *name,
				    const struct attribute_group *grp)
{
	return vroce_cc_dir_add(vdev, parent, name, false, grp);
}

/**
 * vroce_sysfs_dir_vdev() - the device of a vroce_sysfs_dir_add() directory
 * @kobj: the directory, as a kobj_attribute callback gets it
 *
 * Return: the device.
 */
struct vroce_dev *vroce_sysfs_dir_vdev(struct kobject *kobj)
{
	return container_of(kobj, struct vroce_cc_dir, kobj)->vdev;
}

/**
 * vroce_sysfs_dirs_del() - remove vroce_sysfs_dir_add() directories
 * @dirs: the directories, children after their parents; NULL where absent
 * @n: how many
 *
 * Process context.  Children go first; every entry ends NULL.
 */
void vroce_sysfs_dirs_del(struct kobject **dirs, unsigned int n)
{
	while (n--) {
		kobject_put(dirs[n]);
		dirs[n] = NULL;
	}
}

/**
 * vroce_sysfs_has_child() - whether a directory has a child of that name
 * @kobj: the directory (a netdev's: does a ConnectX's own ecn/ or qos/
 *	stand there?)
 * @name: the child's name
 *
 * Return: true when it has.
 */
bool vroce_sysfs_has_child(struct kobject *kobj, const char *name)
{
	struct kernfs_node *kn = kernfs_find_and_get(kobj->sd, name);

	kernfs_put(kn);
	return kn;
}

/**
 * vroce_cc_sysfs_init() - add ecn/ under the netdev of a registered device
 * @vdev: the device
 *
 * cc/ itself is ib_core's (vroce_cc_attr_group).  ecn/ is skipped when
 * the netdev has one already (a ConnectX), is going away, or left for
 * another namespace (vroce_cc_sysfs_cleanup() ran from the notifier).
 *
 * Return: 0, or -ENOMEM with nothing created: the device works without
 * it (cc/ has the same settings).
 */
int vroce_cc_sysfs_init(struct vroce_dev *vdev)
{
	struct net_device *ndev = vdev->ndev;
	struct kobject **d = vdev->cc.dirs;
	int err = 0;

	rtnl_lock();
	mutex_lock(&vroce_cc_ecn_lock);
	if (vdev->cc.ecn_gone || ndev->reg_state != NETREG_REGISTERED ||
	    vroce_sysfs_has_child(&ndev->dev.kobj, VROCE_CC_ECN_DIR))
		goto unlock;
	d[0] = vroce_cc_dir_add(vdev, &ndev->dev.kobj, VROCE_CC_ECN_DIR,
				false, NULL);
	d[1] = d[0] ? vroce_cc_dir_add(vdev, d[0], "roce_np", false, NULL) :
		NULL;
	d[2] = d[1] ? vroce_cc_dir_add(vdev, d[1], "enable", false,
				       &vroce_cc_prio_group) : NULL;
	d[3] = d[2] ? vroce_cc_dir_add(vdev, d[0], "roce_rp", true, NULL) :
		NULL;
	d[4] = d[3] ? vroce_cc_dir_add(vdev, d[3], "enable", true,
				       &vroce_cc_prio_group) : NULL;
	if (!d[4]) {
		vroce_sysfs_dirs_del(d, VROCE_CC_NR_DIRS);
		err = -ENOMEM;
	}
unlock:
	mutex_unlock(&vroce_cc_ecn_lock);
	rtnl_unlock();
	return err;
}

/**
 * vroce_cc_sysfs_cleanup() - remove ecn/ from the netdev, for good
 * @vdev: the device
 *
 * Called from the netdev notifier at NETDEV_UNREGISTER (the netdev goes
 * away or moves to another namespace: ecn/ must not outlive the device
 * there or follow the netdev) and from dealloc_driver; the second call
 * finds nothing left.  Either way before the netdev reference is dropped.
 */
void vroce_cc_sysfs_cleanup(struct vroce_dev *vdev)
{
	mutex_lock(&vroce_cc_ecn_lock);
	vdev->cc.ecn_gone = true;
	vroce_sysfs_dirs_del(vdev->cc.dirs, VROCE_CC_NR_DIRS);
	mutex_unlock(&vroce_cc_ecn_lock);
}
