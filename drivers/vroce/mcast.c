// SPDX-License-Identifier: GPL-2.0
/*
 * UD multicast groups (attach_mcast / detach_mcast) and their receive
 * fan-out.
 *
 * A group lives in the device's hash table while at least one QP is
 * attached.  Each attachment is a struct vroce_mca on two lists: the
 * group's members (read under RCU by the receive path) and the QP's
 * mcg_list (so that a QP leaves its groups without a table walk).  The
 * receive path copies the members' QP numbers and hands each one a clone
 * of the packet through the ordinary UD responder, which looks the QP up
 * by number with a reference: the group never holds a QP pointer, so a
 * QP being destroyed leaves nothing dangling.
 *
 * ib_core (ib_attach_mcast/ib_detach_mcast, uverbs) already checks that
 * the QP is UD and the GID multicast, filters duplicate attaches of a
 * process, and refuses to destroy a QP that is still attached (EBUSY
 * from ib_destroy_qp_user(), and uverbs detaches the QPs of a process
 * that goes away).  Each of these is checked here again all the same.
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/jhash.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ipv6.h>

#include "mcast.h"
#include "pkt.h"
#include "vroce.h"

/**
 * struct vroce_mcg - a multicast group with QPs of this device attached
 * @node: in vroce_mcast.groups (RCU)
 * @mgid: the group's GID, also its IP address (v4-mapped for IPv4)
 * @members: struct vroce_mca.grp_node, add and delete under the device's
 *	mcast lock, walked under RCU
 * @num_members: entries in @members (mcast lock)
 * @net_cookie: the namespace whose IP layer was joined to the group
 *	(the netdev may have moved since; the join died with it)
 * @rcu: freed after a grace period
 */
struct vroce_mcg {
	struct hlist_node node;
	struct in6_addr mgid;
	struct list_head members;
	u32 num_members;
	u64 net_cookie;
	struct rcu_head rcu;
};

/**
 * struct vroce_mca - one QP attached to one group
 * @grp_node: in vroce_mcg.members (RCU)
 * @qp_node: in vroce_qp.mcg_list (mcast lock)
 * @mcg: the group
 * @qpn: the QP's number, all the receive path needs
 * @rcu: freed after a grace period
 */
struct vroce_mca {
	struct list_head grp_node;
	struct list_head qp_node;
	struct vroce_mcg *mcg;
	u32 qpn;
	struct rcu_head rcu;
};

/**
 * vroce_mcast_addr() - is @addr a multicast GID (IPv6, or v4-mapped IPv4)
 * @addr: GID or IP address as an IPv6 address
 *
 * Return: true for ff00::/8 and ::ffff:224.0.0.0/100.
 */
bool vroce_mcast_addr(const struct in6_addr *addr)
{
	if (ipv6_addr_is_multicast(addr))
		return true;
	return ipv6_addr_v4mapped(addr) &&
	       ipv4_is_multicast(addr->s6_addr32[3]);
}

static u32 vroce_mcg_hash(const struct in6_addr *mgid)
{
	return jhash(mgid, sizeof(*mgid), 0);
}

/* Writers hold the mcast lock, readers rcu_read_lock(). */
static struct vroce_mcg *vroce_mcg_find(struct vroce_dev *vdev,
					const struct in6_addr *mgid)
{
	struct vroce_mcg *mcg;

	hash_for_each_possible_rcu(vdev->mcast.groups, mcg, node,
				   vroce_mcg_hash(mgid),
				   lockdep_is_held(&vdev->mcast.lock))
		if (ipv6_addr_equal(&mcg->mgid, mgid))
			return mcg;
	return NULL;
}

/*
 * Make the netdev and the IP layer accept the group's packets: IGMP or
 * MLD membership of the interface, which also adds the MAC to the
 * netdev's filter.  Our UDP sockets take every group the interface
 * accepts (they never restrict IP_MULTICAST_ALL).
 */
static int vroce_mcg_join(struct vroce_dev *vdev, struct vroce_mcg *mcg)
{
	struct net_device *ndev = vdev->ndev;
	struct in_device *in_dev;
	int err = 0;

	lockdep_assert_held(&vdev->mcast.lock);
	rtnl_lock();
	mcg->net_cookie = dev_net(ndev)->net_cookie;
	if (ipv6_addr_v4mapped(&mcg->mgid)) {
		in_dev = __in_dev_get_rtnl(ndev);
		if (in_dev)
			ip_mc_inc_group(in_dev, mcg->mgid.s6_addr32[3]);
		else
			err = -ENODEV;
	} else if (IS_ENABLED(CONFIG_IPV6)) {
		err = ipv6_dev_mc_inc(ndev, &mcg->mgid);
	} else {
		err = -EAFNOSUPPORT;
	}
	rtnl_unlock();
	return err;
}

static void vroce_mcg_leave(struct vroce_dev *vdev, struct vroce_mcg *mcg)
{
	struct net_device *ndev = vdev->ndev;
	struct in_device *in_dev;

	lockdep_assert_held(&vdev->mcast.lock);
	rtnl_lock();
	/* After a move to another namespace the membership is gone. */
	if (dev_net(ndev)->net_cookie != mcg->net_cookie)
		goto out;
	if (ipv6_addr_v4mapped(&mcg->mgid)) {
		/* none after the netdev was unregistered: nothing to leave */
		in_dev = __in_dev_get_rtnl(ndev);
		if (in_dev)
			ip_mc_dec_group(in_dev, mcg->mgid.s6_addr32[3]);
	} else if (IS_ENABLED(CONFIG_IPV6)) {
		ipv6_dev_mc_dec(ndev, &mcg->mgid);
	}
out:
	rtnl_unlock();
}

/* Detach one attachment; the last member takes the group with it. */
static void vroce_mca_del(struct vroce_dev *vdev, struct vroce_mca *mca)
{
	struct vroce_mcg *mcg = mca->mcg;

	lockdep_assert_held(&vdev->mcast.lock);
	list_del_rcu(&mca->grp_node);
	list_del(&mca->qp_node);
	kfree_rcu(mca, rcu);
	if (--mcg->num_members)
		return;
	hash_del_rcu(&mcg->node);
	vdev->mcast.num_groups--;
	vroce_mcg_leave(vdev, mcg);
	kfree_rcu(mcg, rcu);
}

static struct vroce_mca *vroce_mca_find(struct vroce_qp *qp,
					const struct in6_addr *mgid)
{
	struct vroce_mca *mca;

	lockdep_assert_held(&qp->vdev->mcast.lock);
	list_for_each_entry(mca, &qp->mcg_list, qp_node)
		if (ipv6_addr_equal(&mca->mcg->mgid, mgid))
			return mca;
	return NULL;
}

/* The QP types a group takes: UD only (not GSI, not connected ones). */
static int vroce_mcast_check(struct ib_qp *ibqp, const union ib_gid *gid)
{
	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	if (!vroce_mcast_addr((const struct in6_addr *)gid->raw))
		return -EINVAL;
	return 0;
}

/**
 * vroce_attach_mcast() - attach a UD QP to a multicast group
 * @ibqp: the QP
 * @gid: the group's GID
 * @lid: ignored (RoCE has no LIDs)
 *
 * Process context.  The first QP of the device in a group joins the
 * group on the netdev.
 *
 * Return: 0; -EINVAL for a QP that is not UD, a GID that is not multicast
 * or a QP already attached to the group (ib_core counts each successful
 * attach as a use of the QP, so a second one must not succeed); -ENOMEM
 * past VROCE_MAX_MCAST_GRP groups or VROCE_MAX_MCAST_QP_ATTACH QPs in a
 * group; -ENODEV when the netdev has no IP layer for the group.
 */
static int vroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	const struct in6_addr *mgid = (const struct in6_addr *)gid->raw;
	struct vroce_qp *qp = to_vroce_qp(ibqp);
	struct vroce_dev *vdev = qp->vdev;
	struct vroce_mcg *mcg, *new_mcg = NULL;
	struct vroce_mca *mca;
	int err;

	err = vroce_mcast_check(ibqp, gid);
	if (err)
		return err;
	mca = kzalloc(sizeof(*mca), GFP_KERNEL);
	if (!mca)
		return -ENOMEM;

	mutex_lock(&vdev->mcast.lock);
	if (vroce_mca_find(qp, mgid)) {
		err = -EINVAL;
		goto unlock;
	}
	mcg = vroce_mcg_find(vdev, mgid);
	if (!mcg) {
		err = -ENOMEM;
		if (vdev->mcast.num_groups >= VROCE_MAX_MCAST_GRP)
			goto unlock;
		new_mcg = kzalloc(sizeof(*new_mcg), GFP_KERNEL);
		if (!new_mcg)
			goto unlock;
		new_mcg->mgid = *mgid;
		INIT_LIST_HEAD(&new_mcg->members);
		err = vroce_mcg_join(vdev, new_mcg);
		if (err)
			goto unlock;
		mcg = new_mcg;
		hash_add_rcu(vdev->mcast.groups, &mcg->node,
			     vroce_mcg_hash(mgid));
		vdev->mcast.num_groups++;
	} else if (mcg->num_members >= VROCE_MAX_MCAST_QP_ATTACH) {
		err = -ENOMEM;
		goto unlock;
	}

	mca->mcg = mcg;
	mca->qpn = ibqp->qp_num;
	list_add_tail(&mca->qp_node, &qp->mcg_list);
	list_add_tail_rcu(&mca->grp_node, &mcg->members);
	mcg->num_members++;
	mutex_unlock(&vdev->mcast.lock);
	vroce_dbg(vdev, "qp %u attached to %pI6c (%u members)\n",
		  ibqp->qp_num, mgid, mcg->num_members);
	return 0;

unlock:
	mutex_unlock(&vdev->mcast.lock);
	/* a group that could not be joined was never published */
	kfree(new_mcg);
	kfree(mca);
	return err;
}

/**
 * vroce_detach_mcast() - detach a UD QP from a multicast group
 * @ibqp: the QP
 * @gid: the group's GID
 * @lid: ignored
 *
 * Process context.  The last QP of the device leaving the group leaves it
 * on the netdev.  Packets the receive path is delivering may still reach
 * the QP until this returns; none after.
 *
 * Return: 0, or -EINVAL when the QP is not attached to the group.
 */
static int vroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	const struct in6_addr *mgid = (const struct in6_addr *)gid->raw;
	struct vroce_qp *qp = to_vroce_qp(ibqp);
	struct vroce_dev *vdev = qp->vdev;
	struct vroce_mca *mca;
	int err;

	err = vroce_mcast_check(ibqp, gid);
	if (err)
		return err;
	mutex_lock(&vdev->mcast.lock);
	mca = vroce_mca_find(qp, mgid);
	if (mca)
		vroce_mca_del(vdev, mca);
	mutex_unlock(&vdev->mcast.lock);
	if (!mca)
		return -EINVAL;
	vroce_dbg(vdev, "qp %u detached from %pI6c\n", ibqp->qp_num, mgid);
	return 0;
}

/**
 * vroce_mcast_qp_destroy() - detach a QP being destroyed from its groups
 * @qp: the QP
 *
 * ib_core refuses to destroy an attached QP, so this normally finds
 * nothing; it makes sure no group outlives the QP's attachment all the
 * same.  Process context.
 */
void vroce_mcast_qp_destroy(struct vroce_qp *qp)
{
	struct vroce_dev *vdev = qp->vdev;
	struct vroce_mca *mca, *next;

	mutex_lock(&vdev->mcast.lock);
	list_for_each_entry_safe(mca, next, &qp->mcg_list, qp_node)
		vroce_mca_del(vdev, mca);
	mutex_unlock(&vdev->mcast.lock);
}

/**
 * vroce_mcast_has_members() - are QPs of @vdev attached to group @mgid
 * @vdev: the device
 * @mgid: the group
 *
 * Callable from any context (the send path's loopback decision).
 *
 * Return: true when at least one QP is attached.
 */
bool vroce_mcast_has_members(struct vroce_dev *vdev,
			     const struct in6_addr *mgid)
{
	bool ret;

	rcu_read_lock();
	ret = !!vroce_mcg_find(vdev, mgid);
	rcu_read_unlock();
	return ret;
}

/**
 * vroce_mcast_rcv() - a packet for a multicast group
 * @pkt: parsed packet whose destination QP is VROCE_MCAST_QPN or whose
 *	destination IP is multicast; its skb is consumed
 *
 * Both must hold, and the packet must be a UD request: then each QP
 * attached to the group gets it through the UD responder, which checks
 * the QP's state and Q_Key as for a unicast packet.  Anything else is
 * dropped and counted.  Softirq, or the loopback work with BHs off.
 */
void vroce_mcast_rcv(struct vroce_pkt *pkt)
{
	struct vroce_dev *vdev = pkt->vdev;
	u32 qpns[VROCE_MAX_MCAST_QP_ATTACH];
	unsigned int n = 0, i;
	struct vroce_mcg *mcg;
	struct vroce_mca *mca;

	if (pkt->qpn != VROCE_MCAST_QPN || !vroce_mcast_addr(&pkt->daddr) ||
	    !(pkt->flags & VROCE_F_REQ) ||
	    (pkt->opcode & 0xe0) != VROCE_OP_UD) {
		vroce_counter_inc(vdev, VROCE_CNT_RX_HDR_ERR);
		kfree_skb(pkt->skb);
		return;
	}

	rcu_read_lock();
	mcg = vroce_mcg_find(vdev, &pkt->daddr);
	if (mcg) {
		list_for_each_entry_rcu(mca, &mcg->members, grp_node) {
			if (n == ARRAY_SIZE(qpns))
				break;
			qpns[n++] = mca->qpn;
		}
	}
	rcu_read_unlock();
	if (!n) {
		vroce_counter_inc(vdev, VROCE_CNT_RX_NO_QP);
		kfree_skb(pkt->skb);
		return;
	}

	/* Clones share the data, which the responder only reads. */
	for (i = 0; i < n; i++) {
		struct vroce_pkt one = *pkt;

		one.qpn = qpns[i];
		if (i + 1 < n) {
			one.skb = skb_clone(pkt->skb, GFP_ATOMIC);
			if (!one.skb) {
				vroce_counter_inc(vdev, VROCE_CNT_RX_NO_QP);
				continue;
			}
		}
		vroce_resp_rcv(&one);
	}
}

/**
 * vroce_mcast_init() - empty group table of a new device
 * @vdev: the device
 */
void vroce_mcast_init(struct vroce_dev *vdev)
{
	mutex_init(&vdev->mcast.lock);
	hash_init(vdev->mcast.groups);
	vdev->mcast.num_groups = 0;
}

/**
 * vroce_mcast_cleanup() - free the group table, from dealloc_driver
 * @vdev: the device; every QP is gone, so every group is too
 */
void vroce_mcast_cleanup(struct vroce_dev *vdev)
{
	mutex_destroy(&vdev->mcast.lock);
}

const struct ib_device_ops vroce_mcast_ops = {
	.attach_mcast = vroce_attach_mcast,
	.detach_mcast = vroce_detach_mcast,
};
