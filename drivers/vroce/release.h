/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Destroying a referenced object: the destroy verb drops the object's own
 * reference and waits for lookups in flight to drop theirs.  A reference
 * that is never dropped (a leak) would hang that verb without a word;
 * vroce_wait_released() names the object once the wait passes a bound and
 * goes on waiting, since freeing it would turn the leak into a
 * use-after-free.
 */
#ifndef VROCE_RELEASE_H
#define VROCE_RELEASE_H

#include <linux/completion.h>
#include <linux/refcount.h>

struct ib_device;

/*
 * How long a destroy waits before it says so: lookups hold a reference
 * for one packet or one verb, microseconds even on the debug kernel.
 */
#define VROCE_RELEASE_WARN_MS	(10 * MSEC_PER_SEC)

bool vroce_wait_released(struct ib_device *ibdev, struct completion *released,
			 const refcount_t *ref, const char *what, u32 id,
			 unsigned int warn_ms);

#endif
