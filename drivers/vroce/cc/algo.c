// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of congestion-control algorithms (cc/vroce_cc.h) and each
 * device's choice among them per priority, cc/algo.
 *
 * A device holds a reference on the module of the algorithm it names, as
 * TCP does for its default congestion control: the module cannot be
 * unloaded while a device would start flows with it.  Each flow holds
 * one more (cc/flow.c).  Built-in algorithms have no owner.
 *
 * Changing a priority's algorithm bumps its generation; a running flow of
 * that priority notices at its next event (its timer is one) and starts
 * over with the new algorithm, from the line rate.  Which priority a QP
 * is at is its traffic class's (qos.c): choosing per priority is how one
 * QP runs another algorithm with no change to the application (rdma_cm's
 * default ToS, a GID's traffic class, or perftest's --tclass).
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
	WARN_ON(vroce_cc_algo_register(&vroce_cc_timely_algo));
}

/**
 * vroce_cc_algo_module_exit() - withdraw the built-in algorithms
 */
void vroce_cc_algo_module_exit(void)
{
	vroce_cc_algo_unregister(&vroce_cc_timely_algo);
	vroce_cc_algo_unregister(&vroce_cc_none_algo);
	vroce_cc_algo_unregister(&vroce_cc_dcqcn_algo);
}

/**
 * vroce_cc_algo_dev_init() - a new device starts flows with DCQCN
 * @vdev: the device
 */
void vroce_cc_algo_dev_init(struct vroce_dev *vdev)
{
	unsigned int prio;

	for (prio = 0; prio < VROCE_CC_NR_PRIOS; prio++) {
		vdev->cc.algo[prio] = &vroce_cc_dcqcn_algo;
		vdev->cc.algo_gen[prio] = 0;
	}
	vdev->cc.algo_start = vroce_cc_dcqcn_algo.start_events;
}

/**
 * vroce_cc_algo_dev_cleanup() - drop the device's algorithm references
 * @vdev: the device, from dealloc_driver: no flow is left
 */
void vroce_cc_algo_dev_cleanup(struct vroce_dev *vdev)
{
	unsigned int prio;

	for (prio = 0; prio < VROCE_CC_NR_PRIOS; prio++) {
		module_put(vdev->cc.algo[prio]->owner);
		vdev->cc.algo[prio] = &vroce_cc_dcqcn_algo;
	}
}

/*
 * The algorithms @names asks for, one per priority, each with a module
 * reference: one name for all, or one per priority, priority 0 first,
 * separated by commas.  Return: 0, or -EINVAL with no reference taken.
 */
static int vroce_cc_algo_parse(const char *names,
			       struct vroce_cc_algo *algo[VROCE_CC_NR_PRIOS])
{
	size_t len = strcspn(names, "\n"), n;
	unsigned int i, got = 0;
	const char *p = names;
	bool bad = false;

	mutex_lock(&vroce_cc_algos_lock);
	for (;;) {
		n = strcspn(p, ",\n");
		if (got == VROCE_CC_NR_PRIOS) {	/* a ninth */
			bad = true;
			break;
		}
		algo[got] = vroce_cc_algo_find(p, n);
		if (!algo[got] || !try_module_get(algo[got]->owner)) {
			bad = true;
			break;
		}
		got++;
		p += n;
		if (*p != ',')
			break;
		p++;
	}
	mutex_unlock(&vroce_cc_algos_lock);
	if (bad || p != names + len ||
	    (got != 1 && got != VROCE_CC_NR_PRIOS)) {
		for (i = 0; i < got; i++)
			module_put(algo[i]->owner);
		return -EINVAL;
	}
	/* one name: every priority, a reference each */
	for (i = 1; got == 1 && i < VROCE_CC_NR_PRIOS; i++) {
		algo[i] = algo[0];
		__module_get(algo[0]->owner);
	}
	return 0;
}

/**
 * vroce_cc_algo_set() - choose the algorithms a device's flows run
 * @vdev: the device
 * @names: one registered algorithm's name, for every priority, or eight
 *	separated by commas, priority 0 first; a trailing newline is ignored
 *
 * Process context.  Flows of a priority whose algorithm changed start
 * over with the new one at their next event.
 *
 * Return: 0, or -EINVAL (no such algorithm, its module on its way out,
 * neither one name nor eight) with the old choice kept.
 */
int vroce_cc_algo_set(struct vroce_dev *vdev, const char *names)
{
	const struct vroce_cc_algo *old[VROCE_CC_NR_PRIOS];
	struct vroce_cc_algo *algo[VROCE_CC_NR_PRIOS];
	struct vroce_cc_dev *cc = &vdev->cc;
	unsigned int prio;
	u32 start = 0;
	int err;

	err = vroce_cc_algo_parse(names, algo);
	if (err)
		return err;
	spin_lock_bh(&cc->lock);
	for (prio = 0; prio < VROCE_CC_NR_PRIOS; prio++) {
		old[prio] = cc->algo[prio];
		cc->algo[prio] = algo[prio];
		start |= algo[prio]->start_events;
		if (old[prio] != algo[prio])
			WRITE_ONCE(cc->algo_gen[prio], cc->algo_gen[prio] + 1);
	}
	WRITE_ONCE(cc->algo_start, start);
	spin_unlock_bh(&cc->lock);
	for (prio = 0; prio < VROCE_CC_NR_PRIOS; prio++)
		module_put(old[prio]->owner);
	return 0;
}

/**
 * vroce_cc_algo_show() - a device's algorithms, for cc/algo
 * @vdev: the device
 * @buf: a sysfs page
 *
 * Return: bytes written: one name when every priority has the same
 * algorithm, else the eight names separated by commas (what
 * vroce_cc_algo_set() takes back).
 */
ssize_t vroce_cc_algo_show(struct vroce_dev *vdev, char *buf)
{
	char name[VROCE_CC_NR_PRIOS][VROCE_CC_NAME_MAX];
	unsigned int prio, n = 1;
	ssize_t len = 0;

	spin_lock_bh(&vdev->cc.lock);
	for (prio = 0; prio < VROCE_CC_NR_PRIOS; prio++) {
		strscpy(name[prio], vdev->cc.algo[prio]->name,
			VROCE_CC_NAME_MAX);
		if (vdev->cc.algo[prio] != vdev->cc.algo[0])
			n = VROCE_CC_NR_PRIOS;
	}
	spin_unlock_bh(&vdev->cc.lock);
	for (prio = 0; prio < n; prio++)
		len += sysfs_emit_at(buf, len, "%s%s", prio ? "," : "",
				     name[prio]);
	return len + sysfs_emit_at(buf, len, "\n");
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
