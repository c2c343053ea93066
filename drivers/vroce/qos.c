// SPDX-License-Identifier: GPL-2.0
/*
 * A port's QoS settings, where ConnectX users find them (MLNX_OFED's
 * layout; the mlnx_qos or dcb command that does the same on a ConnectX in
 * brackets):
 *
 *   /sys/class/infiniband/<dev>/tc/1/traffic_class
 *	the traffic class of RoCE traffic whose application set none
 *	(traffic class 0): "106" or "tclass=106" sets it, -1 clears it; reads
 *	"Global tclass=106".  rdma_cm's default_roce_tos (configfs) still
 *	decides for rdma_cm QPs, whose traffic class it sets
 *   /sys/class/net/<netdev>/qos/trust
 *	pcp | dscp (mlnx_qos --trust); vroce starts at dscp, see below
 *   /sys/class/net/<netdev>/qos/dscp2prio
 *	"DSCP PRIO" per line, DSCP 0 first; writing "26 3" (or
 *	"set,26,3") maps one DSCP (mlnx_qos --dscp2prio set,26,3)
 *   /sys/class/net/<netdev>/qos/pfc
 *	PFC per priority, "0,0,0,1,0,0,0,0" (mlnx_qos --pfc 0,0,0,1,0,0,0,0);
 *	pfc_port.c acts on it
 *   /sys/class/net/<netdev>/qos/pfc_prevention_tout
 *	the PFC watchdog's timeout in ms: 0 (off), 80-8000 or "auto" (100)
 *	(ethtool --set-tunable <netdev> pfc-prevention-tout 100)
 *   /sys/class/net/<netdev>/qos/pfc_xoff, qos/pfc_xon
 *	a priority's receive backlog, in bytes, above which the port asks
 *	its peer to pause the priority, and below which it lets it go on
 *	(ConnectX derives them from mlnx_qos --buffer_size and the cable);
 *	xon stays below xoff, xoff within the receive buffer (pfc_tx.c)
 *
 * A ConnectX starts in trust pcp; vroce starts in trust dscp with
 * ConnectX's default map (DSCP / 8), which is what congestion control's
 * per-priority enables have always used here and what RoCE deployment
 * guides configure.  In trust pcp a QP's priority is its service level
 * (ah_attr.sl), the value a VLAN carries in its PCP bits.
 *
 * qos/ lives in the netdev's namespace, as ecn/ does; tc/ under the ib
 * device, which ib_core shows in its own namespace only.  Every write is
 * parsed and checked before anything changes: a bad value returns -EINVAL
 * and keeps the old one.  The data path reads each field with READ_ONCE()
 * when it builds a packet's address or asks for a QP's priority.
 */
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/mutex.h>
#include <linux/rtnetlink.h>
#include <net/dsfield.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "vroce.h"

/* MLNX_OFED's prefix of traffic_class, on reads and optional on writes. */
#define VROCE_QOS_TCLASS_KEY	"tclass="

/*
 * Serialises the directories' creation and removal.  Never taken by a
 * store: removal waits for running stores.  A store writes one field with
 * one WRITE_ONCE(), so concurrent writers need no lock (the last wins).
 */
static DEFINE_MUTEX(vroce_qos_lock);

/**
 * vroce_qos_init() - a new device's settings: trust dscp, DSCP / 8, no
 *	default traffic class, PFC off, the PFC watchdog at ConnectX's "auto"
 * @vdev: the device, before registration
 */
void vroce_qos_init(struct vroce_dev *vdev)
{
	struct vroce_qos *qos = &vdev->qos;
	unsigned int dscp;

	qos->trust = VROCE_TRUST_DSCP;
	for (dscp = 0; dscp < VROCE_QOS_NR_DSCP; dscp++)
		qos->dscp2prio[dscp] = dscp / 8;
	qos->tclass = -1;
	qos->pfc = 0;
	qos->pfc_tout_ms = VROCE_QOS_PFC_TOUT_AUTO_MS;
	qos->pfc_xoff = VROCE_QOS_PFC_XOFF;
	qos->pfc_xon = VROCE_QOS_PFC_XON;
}

/**
 * vroce_qos_tclass() - the traffic class a packet leaves with
 * @vdev: the sending device
 * @tclass: the one the application chose (its address handle or QP)
 *
 * Any context.
 *
 * Return: @tclass, or the port's default traffic class when @tclass is 0
 * and a default is set.
 */
u8 vroce_qos_tclass(const struct vroce_dev *vdev, u8 tclass)
{
	int def = READ_ONCE(vdev->qos.tclass);

	return tclass || def < 0 ? tclass : def;
}

/**
 * vroce_qos_prio() - the priority of traffic of a traffic class and SL
 * @vdev: the device
 * @tclass: the traffic class the packets leave with (vroce_qos_tclass())
 * @sl: the service level of the QP or address handle
 *
 * Any context.
 *
 * Return: 0..7: the DSCP's entry in dscp2prio in trust dscp, the service
 * level in trust pcp.
 */
u8 vroce_qos_prio(const struct vroce_dev *vdev, u8 tclass, u8 sl)
{
	if (READ_ONCE(vdev->qos.trust) == VROCE_TRUST_PCP)
		return sl % VROCE_QOS_NR_PRIOS;
	return READ_ONCE(vdev->qos.dscp2prio[tclass >> 2]);
}

/**
 * vroce_qos_parse_prios() - a priority mask as mlnx_qos writes its lists
 * @buf: "0,0,0,1,0,0,0,0": priority 0 first, one trailing newline allowed,
 *	nothing else
 * @count: its length
 * @mask: set (bit N: priority N) when @buf is well formed
 *
 * Return: 0 or -EINVAL.
 */
int vroce_qos_parse_prios(const char *buf, size_t count, u8 *mask)
{
	unsigned int i;
	u8 m = 0;

	if (count && buf[count - 1] == '\n')
		count--;
	if (count != 2 * VROCE_QOS_NR_PRIOS - 1)
		return -EINVAL;
	for (i = 0; i < VROCE_QOS_NR_PRIOS; i++) {
		char c = buf[2 * i];

		if (c != '0' && c != '1')
			return -EINVAL;
		if (i < VROCE_QOS_NR_PRIOS - 1 && buf[2 * i + 1] != ',')
			return -EINVAL;
		if (c == '1')
			m |= BIT(i);
	}
	*mask = m;
	return 0;
}

/**
 * vroce_qos_show_prios() - a priority mask as mlnx_qos shows its lists
 * @buf: a sysfs page
 * @mask: bit N: priority N
 *
 * Return: the bytes written.
 */
ssize_t vroce_qos_show_prios(char *buf, u8 mask)
{
	char s[2 * VROCE_QOS_NR_PRIOS];
	unsigned int i;

	for (i = 0; i < VROCE_QOS_NR_PRIOS; i++) {
		s[2 * i] = mask & BIT(i) ? '1' : '0';
		s[2 * i + 1] = i < VROCE_QOS_NR_PRIOS - 1 ? ',' : '\0';
	}
	return sysfs_emit(buf, "%s\n", s);
}

/**
 * vroce_qos_rx_prio() - the priority of a received packet
 * @vdev: the receiving device
 * @skb: the packet, its network header set (IPv4, IPv6 or a RoCE v1 GRH)
 *
 * Any context.
 *
 * Return: 0..7: its DSCP's entry in dscp2prio in trust dscp; in trust
 * pcp, its 802.1Q PCP while the frame still carries its tag, else 0 (a
 * VLAN device took the tag off).
 */
u8 vroce_qos_rx_prio(const struct vroce_dev *vdev, const struct sk_buff *skb)
{
	u8 ds;

	if (READ_ONCE(vdev->qos.trust) == VROCE_TRUST_PCP)
		return skb_vlan_tag_present(skb) ? skb_vlan_tag_get_prio(skb) : 0;
	if (ip_hdr(skb)->version == 4)
		ds = ipv4_get_dsfield(ip_hdr(skb));
	else
		ds = ipv6_get_dsfield(ipv6_hdr(skb));
	return READ_ONCE(vdev->qos.dscp2prio[ds >> 2]);
}

/* tc/1/traffic_class */

static ssize_t vroce_qos_tclass_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	struct vroce_dev *vdev = vroce_sysfs_dir_vdev(kobj);

	return sysfs_emit(buf, "Global %s%d\n", VROCE_QOS_TCLASS_KEY,
			  READ_ONCE(vdev->qos.tclass));
}

static ssize_t vroce_qos_tclass_store(struct kobject *kobj,
				      struct kobj_attribute *attr,
				      const char *buf, size_t count)
{
	struct vroce_dev *vdev = vroce_sysfs_dir_vdev(kobj);
	int val;

	if (str_has_prefix(buf, VROCE_QOS_TCLASS_KEY))
		buf += strlen(VROCE_QOS_TCLASS_KEY);
	if (kstrtoint(buf, 0, &val) || val < -1 || val > U8_MAX)
		return -EINVAL;
	WRITE_ONCE(vdev->qos.tclass, val);
	return count;
}

static struct kobj_attribute vroce_qos_tclass_attr =
	__ATTR(traffic_class, 0644, vroce_qos_tclass_show,
	       vroce_qos_tclass_store);

static struct attribute *vroce_qos_tc_attrs[] = {
	&vroce_qos_tclass_attr.attr,
	NULL,
};

static const struct attribute_group vroce_qos_tc_group = {
	.attrs = vroce_qos_tc_attrs,
};

/* qos/trust */

static const char * const vroce_qos_trusts[] = {
	[VROCE_TRUST_PCP] = "pcp",
	[VROCE_TRUST_DSCP] = "dscp",
};

static ssize_t vroce_qos_trust_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	struct vroce_dev *vdev = vroce_sysfs_dir_vdev(kobj);

	return sysfs_emit(buf, "%s\n",
			  vroce_qos_trusts[READ_ONCE(vdev->qos.trust)]);
}

static ssize_t vroce_qos_trust_store(struct kobject *kobj,
				     struct kobj_attribute *attr,
				     const char *buf, size_t count)
{
	struct vroce_dev *vdev = vroce_sysfs_dir_vdev(kobj);
	int trust = sysfs_match_string(vroce_qos_trusts, buf);

	if (trust < 0)
		return -EINVAL;
	WRITE_ONCE(vdev->qos.trust, trust);
	return count;
}

static struct kobj_attribute vroce_qos_trust_attr =
	__ATTR(trust, 0644, vroce_qos_trust_show, vroce_qos_trust_store);

/* qos/dscp2prio */

static ssize_t vroce_qos_dscp2prio_show(struct kobject *kobj,
					struct kobj_attribute *attr, char *buf)
{
	struct vroce_dev *vdev = vroce_sysfs_dir_vdev(kobj);
	unsigned int dscp;
	int len = 0;

	for (dscp = 0; dscp < VROCE_QOS_NR_DSCP; dscp++)
		len += sysfs_emit_at(buf, len, "%u %u\n", dscp,
				     READ_ONCE(vdev->qos.dscp2prio[dscp]));
	return len;
}

/*
 * "DSCP PRIO" or mlnx_qos's "set,DSCP,PRIO": two numbers in range, one
 * trailing newline allowed, nothing else.
 */
static int vroce_qos_parse_map(const char *buf, size_t count, u8 *dscp,
			       u8 *prio)
{
	char s[24], *p, *d;

	if (count >= sizeof(s))
		return -EINVAL;
	memcpy(s, buf, count);
	s[count] = '\0';
	if (count && s[count - 1] == '\n')
		s[count - 1] = '\0';
	p = s;
	if (str_has_prefix(p, "set,"))
		p += strlen("set,");
	d = strsep(&p, ", ");
	if (!p || kstrtou8(d, 10, dscp) || kstrtou8(p, 10, prio) ||
	    *dscp >= VROCE_QOS_NR_DSCP || *prio >= VROCE_QOS_NR_PRIOS)
		return -EINVAL;
	return 0;
}

static ssize_t vroce_qos_dscp2prio_store(struct kobject *kobj,
					 struct kobj_attribute *attr,
					 const char *buf, size_t count)
{
	struct vroce_dev *vdev = vroce_sysfs_dir_vdev(kobj);
	u8 dscp, prio;

	if (vroce_qos_parse_map(buf, count, &dscp, &prio))
		return -EINVAL;
	WRITE_ONCE(vdev->qos.dscp2prio[dscp], prio);
	return count;
}

static struct kobj_attribute vroce_qos_dscp2prio_attr =
	__ATTR(dscp2prio, 0644, vroce_qos_dscp2prio_show,
	       vroce_qos_dscp2prio_store);

/* qos/pfc */

static ssize_t vroce_qos_pfc_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct vroce_dev *vdev = vroce_sysfs_dir_vdev(kobj);

	return vroce_qos_show_prios(buf, READ_ONCE(vdev->qos.pfc));
}

static ssize_t vroce_qos_pfc_store(struct kobject *kobj,
				   struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	struct vroce_dev *vdev = vroce_sysfs_dir_vdev(kobj);
	u8 mask;

	if (vroce_qos_parse_prios(buf, count, &mask))
		return -EINVAL;
	vroce_pfc_port_set(vdev, mask);
	return count;
}

static struct kobj_attribute vroce_qos_pfc_attr =
	__ATTR(pfc, 0644, vroce_qos_pfc_show, vroce_qos_pfc_store);

/* qos/pfc_prevention_tout */

static ssize_t vroce_qos_pfc_tout_show(struct kobject *kobj,
				       struct kobj_attribute *attr, char *buf)
{
	struct vroce_dev *vdev = vroce_sysfs_dir_vdev(kobj);

	return sysfs_emit(buf, "%u\n", READ_ONCE(vdev->qos.pfc_tout_ms));
}

/* ms: 0 (off), ConnectX's range, or "auto" */
static ssize_t vroce_qos_pfc_tout_store(struct kobject *kobj,
					struct kobj_attribute *attr,
					const char *buf, size_t count)
{
	struct vroce_dev *vdev = vroce_sysfs_dir_vdev(kobj);
	u32 ms;

	if (sysfs_streq(buf, "auto"))
		ms = VROCE_QOS_PFC_TOUT_AUTO_MS;
	else if (kstrtou32(buf, 10, &ms) ||
		 (ms && (ms < VROCE_QOS_PFC_TOUT_MIN_MS ||
			 ms > VROCE_QOS_PFC_TOUT_MAX_MS)))
		return -EINVAL;
	WRITE_ONCE(vdev->qos.pfc_tout_ms, ms);
	return count;
}

static struct kobj_attribute vroce_qos_pfc_tout_attr =
	__ATTR(pfc_prevention_tout, 0644, vroce_qos_pfc_tout_show,
	       vroce_qos_pfc_tout_store);

/*
 * qos/pfc_xoff, qos/pfc_xon: bytes.  A store checks the pair (xon below
 * xoff) against the other's current value: this lock makes check and
 * write one step.  No reader takes it.
 */
static DEFINE_MUTEX(vroce_qos_pfc_lock);

/* xoff within the receive buffer, xon below it */
static ssize_t vroce_qos_pfc_thresh_store(struct kobject *kobj, bool xoff,
					  const char *buf, size_t count)
{
	struct vroce_dev *vdev = vroce_sysfs_dir_vdev(kobj);
	int err = -EINVAL;
	u32 val;

	if (kstrtou32(buf, 10, &val))
		return -EINVAL;
	mutex_lock(&vroce_qos_pfc_lock);
	if (xoff && val <= VROCE_PFC_RX_BUFFER &&
	    val > READ_ONCE(vdev->qos.pfc_xon)) {
		WRITE_ONCE(vdev->qos.pfc_xoff, val);
		err = 0;
	} else if (!xoff && val < READ_ONCE(vdev->qos.pfc_xoff)) {
		WRITE_ONCE(vdev->qos.pfc_xon, val);
		err = 0;
	}
	mutex_unlock(&vroce_qos_pfc_lock);
	return err ?: count;
}

static ssize_t vroce_qos_pfc_xoff_show(struct kobject *kobj,
				       struct kobj_attribute *attr, char *buf)
{
	struct vroce_dev *vdev = vroce_sysfs_dir_vdev(kobj);

	return sysfs_emit(buf, "%u\n", READ_ONCE(vdev->qos.pfc_xoff));
}

static ssize_t vroce_qos_pfc_xoff_store(struct kobject *kobj,
					struct kobj_attribute *attr,
					const char *buf, size_t count)
{
	return vroce_qos_pfc_thresh_store(kobj, true, buf, count);
}

static ssize_t vroce_qos_pfc_xon_show(struct kobject *kobj,
				      struct kobj_attribute *attr, char *buf)
{
	struct vroce_dev *vdev = vroce_sysfs_dir_vdev(kobj);

	return sysfs_emit(buf, "%u\n", READ_ONCE(vdev->qos.pfc_xon));
}

static ssize_t vroce_qos_pfc_xon_store(struct kobject *kobj,
				       struct kobj_attribute *attr,
				       const char *buf, size_t count)
{
	return vroce_qos_pfc_thresh_store(kobj, false, buf, count);
}

static struct kobj_attribute vroce_qos_pfc_xoff_attr =
	__ATTR(pfc_xoff, 0644, vroce_qos_pfc_xoff_show,
	       vroce_qos_pfc_xoff_store);
static struct kobj_attribute vroce_qos_pfc_xon_attr =
	__ATTR(pfc_xon, 0644, vroce_qos_pfc_xon_show, vroce_qos_pfc_xon_store);

static struct attribute *vroce_qos_attrs[] = {
	&vroce_qos_trust_attr.attr,
	&vroce_qos_dscp2prio_attr.attr,
	&vroce_qos_pfc_attr.attr,
	&vroce_qos_pfc_tout_attr.attr,
	&vroce_qos_pfc_xoff_attr.attr,
	&vroce_qos_pfc_xon_attr.attr,
	NULL,
};

static const struct attribute_group vroce_qos_group = {
	.attrs = vroce_qos_attrs,
};

static void vroce_qos_dirs_del(struct vroce_dev *vdev)
{
	lockdep_assert_held(&vroce_qos_lock);
	vroce_sysfs_dirs_del(vdev->qos.dirs, VROCE_QOS_NR_DIRS);
}

/**
 * vroce_qos_sysfs_init() - add tc/1/ under a registered device, qos/
 *	under its netdev
 * @vdev: the device
 *
 * qos/ is skipped when the netdev has one already (a ConnectX), is going
 * away, or left for another namespace.
 *
 * Return: 0, or -ENOMEM with nothing created: the device works on with
 * the defaults.
 */
int vroce_qos_sysfs_init(struct vroce_dev *vdev)
{
	struct net_device *ndev = vdev->ndev;
	struct kobject **d = vdev->qos.dirs;
	int err = 0;

	rtnl_lock();
	mutex_lock(&vroce_qos_lock);
	if (vdev->qos.gone)
		goto unlock;
	d[0] = vroce_sysfs_dir_add(vdev, &vdev->ibdev.dev.kobj, "tc", NULL);
	d[1] = d[0] ? vroce_sysfs_dir_add(vdev, d[0], "1",
					  &vroce_qos_tc_group) : NULL;
	if (!d[1])
		goto nomem;
	if (ndev->reg_state != NETREG_REGISTERED ||
	    vroce_sysfs_has_child(&ndev->dev.kobj, "qos"))
		goto unlock;
	d[2] = vroce_sysfs_dir_add(vdev, &ndev->dev.kobj, "qos",
				   &vroce_qos_group);
	if (d[2])
		goto unlock;
nomem:
	vroce_qos_dirs_del(vdev);
	err = -ENOMEM;
unlock:
	mutex_unlock(&vroce_qos_lock);
	rtnl_unlock();
	return err;
}

/**
 * vroce_qos_sysfs_cleanup() - remove tc/ and qos/, for good
 * @vdev: the device
 *
 * Called where vroce_cc_sysfs_cleanup() is (the netdev leaves or goes
 * away; dealloc_driver); the second call finds nothing left.
 */
void vroce_qos_sysfs_cleanup(struct vroce_dev *vdev)
{
	mutex_lock(&vroce_qos_lock);
	vdev->qos.gone = true;
	vroce_qos_dirs_del(vdev);
	mutex_unlock(&vroce_qos_lock);
}
