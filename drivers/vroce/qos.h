/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Quality of service as a ConnectX port has it: the default traffic class
 * of RoCE traffic, the trust mode, the DSCP -> priority map and the PFC
 * settings.  The priority chosen here is what congestion control's
 * per-priority enables and PFC (pfc_port.c, pfc_tx.c) act on, and what a
 * VLAN's egress map turns into PCP bits.
 */
#ifndef VROCE_QOS_H
#define VROCE_QOS_H

#include <linux/kobject.h>
#include <linux/types.h>

struct sk_buff;
struct vroce_dev;

#define VROCE_QOS_NR_DSCP	64
#define VROCE_QOS_NR_PRIOS	8
/* tc/, tc/1/ under the ib device; qos/ under the netdev */
#define VROCE_QOS_NR_DIRS	3
/* ConnectX's pfc-prevention-tout: "auto", its bounds */
#define VROCE_QOS_PFC_TOUT_AUTO_MS	100
#define VROCE_QOS_PFC_TOUT_MIN_MS	80
#define VROCE_QOS_PFC_TOUT_MAX_MS	8000
/* default PFC thresholds of a priority's receive backlog, bytes */
#define VROCE_QOS_PFC_XOFF		(256 * 1024)
#define VROCE_QOS_PFC_XON		(128 * 1024)

/**
 * enum vroce_trust - where a packet's priority comes from
 * @VROCE_TRUST_PCP: the QP's service level, which a VLAN carries in its
 *	PCP bits (ConnectX's default)
 * @VROCE_TRUST_DSCP: the DSCP of the traffic class, through @dscp2prio
 */
enum vroce_trust {
	VROCE_TRUST_PCP,
	VROCE_TRUST_DSCP,
};

/**
 * struct vroce_qos - a port's QoS settings
 * @trust: enum vroce_trust
 * @dscp2prio: priority of each DSCP (trust dscp)
 * @tclass: traffic class of RoCE traffic whose application set none,
 *	-1 for none
 * @pfc: the priorities PFC is on for (bit N: priority N)
 * @pfc_tout_ms: the PFC watchdog's timeout in ms, 0 for none
 * @pfc_xoff: receive backlog of a priority, in bytes, from which the
 *	port asks its peer to pause it
 * @pfc_xon: ... below which it lets the peer go on; < @pfc_xoff
 * @dirs: the sysfs directories (qos.c), children after their parents;
 *	NULL where absent
 * @gone: vroce_qos_sysfs_cleanup() ran: nothing is (re)created
 *
 * Each sysfs write stores one field with WRITE_ONCE(); the data path reads
 * them with READ_ONCE(): a reader racing a writer sees the old or the new
 * value of each field, never a torn one.  @dirs and @gone are under
 * qos.c's directory lock.
 */
struct vroce_qos {
	u8 trust;
	u8 dscp2prio[VROCE_QOS_NR_DSCP];
	int tclass;
	u8 pfc;
	u32 pfc_tout_ms;
	u32 pfc_xoff;
	u32 pfc_xon;
	struct kobject *dirs[VROCE_QOS_NR_DIRS];
	bool gone;
};

void vroce_qos_init(struct vroce_dev *vdev);
u8 vroce_qos_tclass(const struct vroce_dev *vdev, u8 tclass);
u8 vroce_qos_prio(const struct vroce_dev *vdev, u8 tclass, u8 sl);
u8 vroce_qos_rx_prio(const struct vroce_dev *vdev, const struct sk_buff *skb);
int vroce_qos_parse_prios(const char *buf, size_t count, u8 *mask);
ssize_t vroce_qos_show_prios(char *buf, u8 mask);
int vroce_qos_sysfs_init(struct vroce_dev *vdev);
void vroce_qos_sysfs_cleanup(struct vroce_dev *vdev);

#endif /* VROCE_QOS_H */
