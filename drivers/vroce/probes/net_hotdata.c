// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_NET_HOTDATA: the receive backlog's limit is net_hotdata.max_backlog,
 * not the variable netdev_max_backlog (v6.9, "net: move netdev_max_backlog
 * to net_hotdata").
 */
#include <net/hotdata.h>

int probe_max_backlog(void);

int probe_max_backlog(void)
{
	return READ_ONCE(net_hotdata.max_backlog);
}
