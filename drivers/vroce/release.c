// SPDX-License-Identifier: GPL-2.0
/*
 * Waiting for an object's last reference (release.h).  The warning's text
 * is matched by the test harness (ci/guest/klog.sh), so a leaked
 * reference fails whichever scenario shows it.
 */
#include <linux/jiffies.h>
#include <rdma/ib_verbs.h>

#include "release.h"

/**
 * vroce_wait_released() - wait until an object's references are all gone
 * @ibdev: the device, for the log line
 * @released: completed when the last reference is dropped
 * @ref: the reference count, read for the log line only
 * @what: the object's kind ("QP", "MR", ...)
 * @id: its number (QPN, key index, AH number)
 * @warn_ms: log after this long
 *
 * Sleeps without a limit: the caller frees the object next.  After
 * @warn_ms one line names the object and the references left.
 *
 * Return: true when the wait outlasted @warn_ms (the line was logged).
 */
bool vroce_wait_released(struct ib_device *ibdev, struct completion *released,
			 const refcount_t *ref, const char *what, u32 id,
			 unsigned int warn_ms)
{
	might_sleep();
	if (wait_for_completion_timeout(released, msecs_to_jiffies(warn_ms)))
		return false;
	ibdev_warn(ibdev,
		   "destroy of %s %u still waits for %u references after %u ms\n",
		   what, id, refcount_read(ref), warn_ms);
	wait_for_completion(released);
	ibdev_info(ibdev, "destroy of %s %u: the last reference went\n",
		   what, id);
	return true;
}
