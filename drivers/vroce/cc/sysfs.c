// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/class/infiniband/<dev>/cc/: congestion control's fixed interface.
 *
 *   enable                 0/1: both roles on every priority
 *   flavour                nvidia | paper
 *   line_rate              Mb/s, 0 for none
 *   cnp_delay_us           vroce's own: CNPs leave this long after the mark
 *   <knob>                 one per vroce_dcqcn_knobs[] entry, mlx5's names
 *   roce_np/enable/<prio>  0/1: the notification point per priority
 *   roce_rp/enable/<prio>  0/1: the reaction point per priority
 *
 * The per-priority layout is that of mlx5's /sys/class/net/<if>/ecn/.
 * Every write is parsed and range-checked before anything changes: a bad
 * value returns -EINVAL and keeps the old one.  Values change under the
 * device's cc.lock; the data path picks them up at its next event.
 */
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "vroce.h"

/**
 * struct vroce_cc_dir - one directory of cc/
 * @kobj: its kobject
 * @vdev: the device
 * @rp: roce_rp/enable (else roce_np/enable), for the priority files
 */
struct vroce_cc_dir {
	struct kobject kobj;
	struct vroce_dev *vdev;
	bool rp;
};

/*
 * An attribute and what it sets: a knob's id, a priority, or the number
 * of one of the device-wide files below.
 */
struct vroce_cc_attr {
	struct kobj_attribute attr;
	unsigned int id;
};

enum vroce_cc_file {
	VROCE_CC_F_ENABLE,
	VROCE_CC_F_FLAVOUR,
	VROCE_CC_F_LINE_RATE,
	VROCE_CC_F_CNP_DELAY,
	VROCE_CC_NR_FILES,
};

static const char * const vroce_cc_flavours[] = {
	[VROCE_DCQCN_NVIDIA] = "nvidia",
	[VROCE_DCQCN_PAPER] = "paper",
};

static struct vroce_dev *vroce_cc_vdev(struct kobject *kobj)
{
	return container_of(kobj, struct vroce_cc_dir, kobj)->vdev;
}

static unsigned int vroce_cc_id(struct kobj_attribute *attr)
{
	return container_of(attr, struct vroce_cc_attr, attr)->id;
}

static int vroce_cc_parse(const char *buf, u32 max, u32 *val)
{
	if (kstrtou32(buf, 0, val) || *val > max)
		return -EINVAL;
	return 0;
}

static ssize_t vroce_cc_file_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct vroce_cc_dev *cc = &vroce_cc_vdev(kobj)->cc;

	switch (vroce_cc_id(attr)) {
	case VROCE_CC_F_ENABLE:
		return sysfs_emit(buf, "%d\n", !!(READ_ONCE(cc->np_enable) |
						  READ_ONCE(cc->rp_enable)));
	case VROCE_CC_F_FLAVOUR:
		return sysfs_emit(buf, "%s\n",
				  vroce_cc_flavours[READ_ONCE(cc->cfg.flavour)]);
	case VROCE_CC_F_LINE_RATE:
		return sysfs_emit(buf, "%u\n", READ_ONCE(cc->line_rate_mbps));
	default:
		return sysfs_emit(buf, "%u\n", READ_ONCE(cc->cnp_delay_us));
	}
}

static ssize_t vroce_cc_file_store(struct kobject *kobj,
				   struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	struct vroce_dev *vdev = vroce_cc_vdev(kobj);
	struct vroce_cc_dev *cc = &vdev->cc;
	int flavour;
	u32 val;

	switch (vroce_cc_id(attr)) {
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
	default:
		if (vroce_cc_parse(buf, VROCE_CC_CNP_DELAY_MAX, &val))
			return -EINVAL;
		WRITE_ONCE(cc->cnp_delay_us, val);
		return count;
	}
}

static ssize_t vroce_cc_knob_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct vroce_cc_dev *cc = &vroce_cc_vdev(kobj)->cc;
	u32 val;

	spin_lock_bh(&cc->lock);
	val = vroce_dcqcn_knob_get(&cc->cfg.p, vroce_cc_id(attr));
	spin_unlock_bh(&cc->lock);
	return sysfs_emit(buf, "%u\n", val);
}

static ssize_t vroce_cc_knob_store(struct kobject *kobj,
				   struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	struct vroce_cc_dev *cc = &vroce_cc_vdev(kobj)->cc;
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

static ssize_t vroce_cc_prio_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct vroce_cc_dir *dir = container_of(kobj, struct vroce_cc_dir,
						kobj);
	struct vroce_cc_dev *cc = &dir->vdev->cc;
	u8 mask = dir->rp ? READ_ONCE(cc->rp_enable) :
		  READ_ONCE(cc->np_enable);

	return sysfs_emit(buf, "%d\n", !!(mask & BIT(vroce_cc_id(attr))));
}

static ssize_t vroce_cc_prio_store(struct kobject *kobj,
				   struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	struct vroce_cc_dir *dir = container_of(kobj, struct vroce_cc_dir,
						kobj);
	struct vroce_cc_dev *cc = &dir->vdev->cc;
	u8 *mask = dir->rp ? &cc->rp_enable : &cc->np_enable;
	u8 bit = BIT(vroce_cc_id(attr));
	u32 val;

	if (vroce_cc_parse(buf, 1, &val))
		return -EINVAL;
	spin_lock_bh(&cc->lock);
	WRITE_ONCE(*mask, val ? *mask | bit : *mask & ~bit);
	spin_unlock_bh(&cc->lock);
	return count;
}

#define VROCE_CC_ATTR(_name, _kind, _id) {				\
	.attr = __ATTR(_name, 0644, vroce_cc_##_kind##_show,		\
		       vroce_cc_##_kind##_store),			\
	.id = (_id),							\
}

static struct vroce_cc_attr vroce_cc_files[VROCE_CC_NR_FILES] = {
	VROCE_CC_ATTR(enable, file, VROCE_CC_F_ENABLE),
	VROCE_CC_ATTR(flavour, file, VROCE_CC_F_FLAVOUR),
	VROCE_CC_ATTR(line_rate, file, VROCE_CC_F_LINE_RATE),
	VROCE_CC_ATTR(cnp_delay_us, file, VROCE_CC_F_CNP_DELAY),
};

static struct vroce_cc_attr vroce_cc_prios[VROCE_CC_NR_PRIOS] = {
	VROCE_CC_ATTR(0, prio, 0), VROCE_CC_ATTR(1, prio, 1),
	VROCE_CC_ATTR(2, prio, 2), VROCE_CC_ATTR(3, prio, 3),
	VROCE_CC_ATTR(4, prio, 4), VROCE_CC_ATTR(5, prio, 5),
	VROCE_CC_ATTR(6, prio, 6), VROCE_CC_ATTR(7, prio, 7),
};

/* Filled from vroce_dcqcn_knobs[] at module load. */
static struct vroce_cc_attr vroce_cc_knobs[VROCE_DCQCN_NR_KNOBS];

static struct attribute *vroce_cc_top_attrs[VROCE_CC_NR_FILES +
					    VROCE_DCQCN_NR_KNOBS + 1];
static struct attribute *vroce_cc_prio_attrs[VROCE_CC_NR_PRIOS + 1];

static const struct attribute_group vroce_cc_top_group = {
	.attrs = vroce_cc_top_attrs,
};

static const struct attribute_group vroce_cc_prio_group = {
	.attrs = vroce_cc_prio_attrs,
};

/**
 * vroce_cc_sysfs_module_init() - the attribute tables, once at load
 */
void vroce_cc_sysfs_module_init(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < VROCE_CC_NR_FILES; i++)
		vroce_cc_top_attrs[n++] = &vroce_cc_files[i].attr.attr;
	for (i = 0; i < VROCE_DCQCN_NR_KNOBS; i++) {
		struct vroce_cc_attr *a = &vroce_cc_knobs[i];

		sysfs_attr_init(&a->attr.attr);
		a->attr.attr.name = vroce_dcqcn_knobs[i].name;
		a->attr.attr.mode = 0644;
		a->attr.show = vroce_cc_knob_show;
		a->attr.store = vroce_cc_knob_store;
		a->id = i;
		vroce_cc_top_attrs[n++] = &a->attr.attr;
	}
	for (i = 0; i < VROCE_CC_NR_PRIOS; i++)
		vroce_cc_prio_attrs[i] = &vroce_cc_prios[i].attr.attr;
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
 * vroce_cc_sysfs_init() - create cc/ under a registered device
 * @vdev: the device
 *
 * Return: 0, or -ENOMEM with nothing created: the device works without
 * it (its settings stay at their defaults: off).
 */
int vroce_cc_sysfs_init(struct vroce_dev *vdev)
{
	struct kobject **d = vdev->cc.dirs;

	d[0] = vroce_cc_dir_add(vdev, &vdev->ibdev.dev.kobj, "cc", false,
				&vroce_cc_top_group);
	d[1] = d[0] ? vroce_cc_dir_add(vdev, d[0], "roce_np", false, NULL) :
		NULL;
	d[2] = d[1] ? vroce_cc_dir_add(vdev, d[1], "enable", false,
				       &vroce_cc_prio_group) : NULL;
	d[3] = d[2] ? vroce_cc_dir_add(vdev, d[0], "roce_rp", true, NULL) :
		NULL;
	d[4] = d[3] ? vroce_cc_dir_add(vdev, d[3], "enable", true,
				       &vroce_cc_prio_group) : NULL;
	if (d[4])
		return 0;
	vroce_cc_sysfs_cleanup(vdev);
	return -ENOMEM;
}

/**
 * vroce_cc_sysfs_cleanup() - remove cc/, children first
 * @vdev: the device
 */
void vroce_cc_sysfs_cleanup(struct vroce_dev *vdev)
{
	int i;

	for (i = VROCE_CC_NR_DIRS - 1; i >= 0; i--) {
		kobject_put(vdev->cc.dirs[i]);
		vdev->cc.dirs[i] = NULL;
	}
}
