/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UD multicast: groups of UD QPs attached to a multicast GID, as a RoCEv2
 * NIC keeps them.  The MGID is an IPv6 multicast address or an
 * IPv4-mapped IPv4 multicast address; the first QP of a device attaching
 * to a group joins it on the device's netdev (IGMP/MLD and the MAC
 * filter), the last one leaving leaves it.  Received packets addressed to
 * the group with destination QP 0xFFFFFF go to every attached QP; sent
 * ones also reach the QPs attached on the sending device (loopback, done
 * by net.c instead of the IP stack's).
 */
#ifndef VROCE_MCAST_H
#define VROCE_MCAST_H

#include <linux/hashtable.h>
#include <linux/in6.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

struct vroce_dev;
struct vroce_pkt;
struct vroce_qp;

/* BTH destination QP of every multicast packet. */
#define VROCE_MCAST_QPN		0xffffff

#define VROCE_MCAST_HASH_BITS	6

/**
 * struct vroce_mcast - a device's multicast groups
 * @lock: serialises attach, detach and QP teardown; protects @num_groups
 *	and every group's member count and the QPs' attachment lists.
 *	Taken before the RTNL (joins and leaves).
 * @groups: MGID -> struct vroce_mcg; writers under @lock, the receive and
 *	send paths read under RCU
 * @num_groups: groups in @groups, at most VROCE_MAX_MCAST_GRP
 */
struct vroce_mcast {
	struct mutex lock; /* see above */
	DECLARE_HASHTABLE(groups, VROCE_MCAST_HASH_BITS);
	u32 num_groups;
};

void vroce_mcast_init(struct vroce_dev *vdev);
void vroce_mcast_cleanup(struct vroce_dev *vdev);
void vroce_mcast_qp_destroy(struct vroce_qp *qp);
bool vroce_mcast_addr(const struct in6_addr *addr);
bool vroce_mcast_has_members(struct vroce_dev *vdev,
			     const struct in6_addr *mgid);
void vroce_mcast_rcv(struct vroce_pkt *pkt);

extern const struct ib_device_ops vroce_mcast_ops;

#endif /* VROCE_MCAST_H */
