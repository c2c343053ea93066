/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the supported kernels (6.1 and 6.12).
 *
 * compat-generated.h is written at build time by probes/run-probes.sh: one
 * HAVE_* macro per probe in probes/ that compiles against the target
 * kernel.  Code tests those macros, never LINUX_VERSION_CODE, so distro
 * backports are handled too.
 */
#ifndef VROCE_COMPAT_H
#define VROCE_COMPAT_H

#include "compat-generated.h"

/*
 * FLUSH and ATOMIC WRITE (HAVE_FLUSH_ATOMIC_WRITE): the MR and QP access
 * right a FLUSH to global visibility needs; 0 where the kernel has none.
 * A QP may also be granted the persistent one: ib_cm grants both to every
 * rdma_cm QP of a device with any FLUSH capability; the responder still
 * refuses what the MR does not allow.
 */
#ifdef HAVE_FLUSH_ATOMIC_WRITE
#define VROCE_ACCESS_FLUSH	IB_ACCESS_FLUSH_GLOBAL
#define VROCE_QP_ACCESS_FLUSH	(IB_ACCESS_FLUSH_GLOBAL | \
				 IB_ACCESS_FLUSH_PERSISTENT)
#else
#define VROCE_ACCESS_FLUSH	0
#define VROCE_QP_ACCESS_FLUSH	0
#endif

/*
 * The length at which a CPU's receive backlog (where veth and loopback
 * queue what they are sent) drops packets (HAVE_NET_HOTDATA).
 */
#ifdef HAVE_NET_HOTDATA
#include <net/hotdata.h>
#define vroce_max_backlog()	READ_ONCE(net_hotdata.max_backlog)
#else
#include <linux/netdevice.h>
#define vroce_max_backlog()	READ_ONCE(netdev_max_backlog)
#endif

#endif /* VROCE_COMPAT_H */
