// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of congestion-control algorithms (cc/vroce_cc.h) and each
 * device's choice among them, cc/algo.
 *
 * A device holds a reference on the module of the algorithm it names, as
 * TCP does for its default congestion control: the module cannot be
 * unloaded while a device would start flows with it.  Each flow holds
 * one more (cc/flow.c).  Built-in algorithms have no owner.
 *
 * Changing a device's algorithm bumps its generation; a running flow
 * notices at its next event (its timer is one) and starts over with the
 * new algorithm, from the line rate.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "vroce.h"

/* The algorithms, under vroce_cc_algos_lock (process context only). */
static LIST_HEAD(vroce_cc_algos);
static DEFINE_MUTEX(vroce_cc_algos_lock);

static struct vroce_cc_algo *vroce_cc_algo_find(const char *name, size_t len)
{
	struct vroce_cc_algo *algo;

	lockdep_assert_held(&vroce_cc_algos_lock);
	list_for_each_entry(algo, &vroce_cc_algos, list)
		if (strlen(algo->name) == len && !strncmp(algo->name, name, len))
			return algo;
	return NULL;
}

static bool vroce_cc_algo_valid(const struct vroce_cc_algo *algo)
{
	size_t len = algo->name ? strnlen(algo->name, VROCE_CC_NAME_MAX) : 0;
	u32 all = BIT(VROCE_CC_NR_EVENTS) - 1;

	return len && len < VROCE_CC_NAME_MAX && !strchr(algo->name, ' ') &&
	       !strchr(algo->name, '\n') && algo->init && algo->event &&
	       algo->priv_size <= VROCE_CC_PRIV_SIZE &&
	       !(algo->events & ~all) &&
	       !(algo->start_events & ~algo->events) &&
	       !(algo->start_events & VROCE_CC_EVF(TIMER));
}

/**
 * vroce_cc_algo_register() - make an algorithm available to cc/algo
 * @algo: the algorithm, valid until vroce_cc_algo_unregister()
 *
 * Return: 0; -EINVAL when a field is out of its bounds
 * (struct vroce_cc_algo); -EEXIST when the name is taken.
 */
int vroce_cc_algo_register(struct vroce_cc_algo *algo)
{
	int err = 0;

	if (!vroce_cc_algo_valid(algo))
		return -EINVAL;
	mutex_lock(&vroce_cc_algos_lock);
	if (vroce_cc_algo_find(algo->name, strlen(algo->name)))
		err = -EEXIST;
	else
		list_add_tail(&algo->list, &vroce_cc_algos);
	mutex_unlock(&vroce_cc_algos_lock);
	return err;
}
EXPORT_SYMBOL_GPL(vroce_cc_algo_register);

/**
 * vroce_cc_algo_unregister() - withdraw an algorithm
 * @algo: a registered algorithm
 *
 * From its module's exit: no device names it and no flow uses it any
 * more, since each holds a reference on the module.
 */
void vroce_cc_algo_unregister(struct vroce_cc_algo *algo)
{
	mutex_lock(&vroce_cc_algos_lock);
	list_del(&algo->list);
	mutex_unlock(&vroce_cc_algos_lock);
}
EXPORT_SYMBOL_GPL(vroce_cc_algo_unregister);

/**
 * vroce_cc_algo_module_init() - register the built-in algorithms
 *
 * At module load, before the first device.
 */
void vroce_cc_algo_module_init(void)
{
	WARN_ON(vroce_cc_algo_register(&vroce_cc_dcqcn_algo));
	WARN_ON(vroce_cc_algo_register(&vroce_cc_none_algo));
}

/**
 * vroce_cc_algo_module_exit() - withdraw the built-in algorithms
 */
void vroce_cc_algo_module_exit(void)
{
	vroce_cc_algo_unregister(&vroce_cc_none_algo);
	vroce_cc_algo_unregister(&vroce_cc_dcqcn_algo);
}

/**
 * vroce_cc_algo_dev_init() - a new device starts flows with DCQCN
 * @vdev: the device
 */
void vroce_cc_algo_dev_init(struct vroce_dev *vdev)
{
	vdev->cc.algo = &vroce_cc_dcqcn_algo;
	vdev->cc.algo_start = vroce_cc_dcqcn_algo.start_events;
	vdev->cc.algo_gen = 0;
}

/**
 * vroce_cc_algo_dev_cleanup() - drop the device's algorithm reference
 * @vdev: the device, from dealloc_driver: no flow is left
 */
void vroce_cc_algo_dev_cleanup(struct vroce_dev *vdev)
{
	module_put(vdev->cc.algo->owner);
	vdev->cc.algo = &vroce_cc_dcqcn_algo;
}

/**
 * vroce_cc_algo_set() - choose the algorithm a device's flows run
 * @vdev: the device
 * @name: a registered algorithm's name; a trailing newline is ignored
 *
 * Process context.
 *
 * Return: 0, or -EINVAL (no such algorithm, or its module is on its way
 * out) with the old choice kept.
 */
int vroce_cc_algo_set(struct vroce_dev *vdev, const char *name)
{
	struct vroce_cc_dev *cc = &vdev->cc;
	const struct vroce_cc_algo *old;
	struct vroce_cc_algo *algo;
	size_t len = strcspn(name, "\n");

	mutex_lock(&vroce_cc_algos_lock);
	algo = vroce_cc_algo_find(name, len);
	if (!algo || !try_module_get(algo->owner)) {
		mutex_unlock(&vroce_cc_algos_lock);
		return -EINVAL;
	}
	mutex_unlock(&vroce_cc_algos_lock);

	spin_lock_bh(&cc->lock);
	old = cc->algo;
	cc->algo = algo;
	WRITE_ONCE(cc->algo_start, algo->start_events);
	WRITE_ONCE(cc->algo_gen, cc->algo_gen + 1);
	spin_unlock_bh(&cc->lock);
	module_put(old->owner);
	return 0;
}

/**
 * vroce_cc_algo_show() - the name of a device's algorithm, for cc/algo
 * @vdev: the device
 * @buf: a sysfs page
 *
 * Return: bytes written.
 */
ssize_t vroce_cc_algo_show(struct vroce_dev *vdev, char *buf)
{
	char name[VROCE_CC_NAME_MAX];

	spin_lock_bh(&vdev->cc.lock);
	strscpy(name, vdev->cc.algo->name, sizeof(name));
	spin_unlock_bh(&vdev->cc.lock);
	return sysfs_emit(buf, "%s\n", name);
}

/**
 * vroce_cc_algos_show() - the registered algorithms, for cc/algos
 * @buf: a sysfs page
 *
 * Return: bytes written: the names, space-separated, in the order they
 * were registered.
 */
ssize_t vroce_cc_algos_show(char *buf)
{
	struct vroce_cc_algo *algo;
	ssize_t n = 0;

	mutex_lock(&vroce_cc_algos_lock);
	list_for_each_entry(algo, &vroce_cc_algos, list)
		n += sysfs_emit_at(buf, n, "%s%s", n ? " " : "", algo->name);
	mutex_unlock(&vroce_cc_algos_lock);
	return n + sysfs_emit_at(buf, n, "\n");
}
