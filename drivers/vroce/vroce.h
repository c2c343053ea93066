/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vroce: a software RoCEv2 NIC.
 *
 * Every object type of the driver, the device limits and the to_vroce_*()
 * helpers live here, so that the rest of the tree can be read one concern
 * per file.  Each driver object embeds the ib_core object it extends and
 * ib_core allocates it (INIT_RDMA_OBJ_SIZE), so object lifetime is owned by
 * ib_core's uobject machinery rather than by a private pool.
 */
#ifndef VROCE_H
#define VROCE_H

#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include <rdma/vroce-abi.h>

#include "compat.h"
#include "ah.h"
#include "cc/cc.h"
#include "counters.h"
#include "cq.h"
#include "fault.h"
#include "mcast.h"
#include "mr.h"
#include "pfc.h"
#include "qos.h"
#include "qp.h"
#include "queue.h"
#include "release.h"
#include "umap.h"
#include "srq.h"

/*
 * Module and link type name.  The user ABI version is the rxe one: rdma-core's
 * rxe provider accepts versions 1 and 2.
 */
#define VROCE_DRV_NAME		VROCE_LINK_TYPE
#define VROCE_ROCE_V2_PORT	VROCE_UDP_PORT

/* Device limits reported by query_device (see port.c for their use). */
#define VROCE_MAX_QP		0x10000
#define VROCE_MAX_QP_WR		0x4000
#define VROCE_MAX_SGE		32
#define VROCE_MAX_SGE_RD	32
#define VROCE_MAX_CQ		0x4000
/*
 * CQ depth: libfabric's RxM (1.17) sizes the verbs CQ behind each RDM
 * endpoint for its whole universe, (128 + 128) * FI_UNIVERSE_SIZE (1024 by
 * default) = 262144 entries, and fails fi_enable() with -EINVAL if the
 * device refuses that.  A user ring slot is 64 bytes, so the largest CQ
 * costs 64 MiB of vmalloc memory.
 */
#define VROCE_MAX_CQE		(SZ_1M - 1)
#define VROCE_MAX_MR		0x10000
#define VROCE_MAX_MW		0x10000
#define VROCE_MAX_PD		0x10000
#define VROCE_MAX_SRQ		0x4000
#define VROCE_MAX_SRQ_WR	0x4000
#define VROCE_MAX_SRQ_SGE	27
#define VROCE_MAX_AH		0x10000
#define VROCE_MAX_QP_RD_ATOM	128
#define VROCE_MAX_RES_RD_ATOM	0x3f000
#define VROCE_MAX_MCAST_GRP	8192
#define VROCE_MAX_MCAST_QP_ATTACH 56
#define VROCE_MAX_INLINE_DATA	400
#define VROCE_MAX_MSG_SIZE	0x80000000U
#define VROCE_MAX_MR_SIZE	(~0ULL)
#define VROCE_MAX_PKEYS		1
#define VROCE_GID_TBL_LEN	1024
#define VROCE_PAGE_SIZE_CAP	0xfffff000ULL
#define VROCE_VENDOR_ID		0xffffff
#define VROCE_LOCAL_CA_ACK_DELAY 15

/**
 * struct vroce_portq - the port's shaper (portq.c)
 * @q: requests that may not leave yet, in order; its lock guards the rest
 * @aq: a responder's packets and CNPs that may not leave yet
 * @requests_next: @q's turn, while both hold packets
 * @bytes: their frames' bytes, in every FIFO
 * @prio_bytes: per priority, its part of @bytes
 * @held_bytes: the part of @bytes in @held
 * @next_ns: when the next frame may leave (CLOCK_MONOTONIC)
 * @busy: the drain is scheduled, running or waiting on @timer
 * @dead: the device is going: nothing is queued or sent any more
 * @cpu: the home CPU, where every packet of the FIFO leaves
 * @kick: the IPI that wakes @drain from another CPU
 * @drain: sends @q on @cpu
 * @timer: pinned to @cpu: the next packet's time
 * @held: per priority, packets of a priority that PFC paused, in order;
 *	older than any of that priority still in @q or @aq
 * @pfc: the pause state PFC frames from the peer set (pfc_port.c)
 * @pfc_next_ns: when @pfc next has something to do (vroce_pfc_next_ns())
 */
struct vroce_portq {
	struct sk_buff_head q;
	struct sk_buff_head aq;
	bool requests_next;
	u32 bytes;
	u32 prio_bytes[VROCE_PFC_NR_PRIOS];
	u32 held_bytes;
	u64 next_ns;
	bool busy;
	bool dead;
	unsigned int cpu;
	call_single_data_t kick;
	struct tasklet_struct drain;
	struct hrtimer timer;
	struct sk_buff_head held[VROCE_PFC_NR_PRIOS];
	struct vroce_pfc_state pfc;
	u64 pfc_next_ns;
};

/**
 * struct vroce_pfc_tx - the PFC frames a port sends (pfc_tx.c)
 * @lock: guards the fields but @renew, and starting @renew
 * @xoff: priorities whose receive backlog passed xoff and not yet fell
 *	below xon: the peer is asked to pause them
 * @sent_ns: when the last frame was sent
 * @renewing: @renew is armed or running and will renew or stop by itself
 * @dead: the device is going: no more frames
 * @renew: renews the pauses before they run out
 */
struct vroce_pfc_tx {
	spinlock_t lock; /* see above */
	u8 xoff;
	u64 sent_ns;
	bool renewing;
	bool dead;
	struct hrtimer renew;
};

/**
 * struct vroce_dev - one vroce RDMA device, bound to one Ethernet netdev
 * @ibdev: the ib_core device; must stay first (ib_alloc_device)
 * @ndev: the netdev we sit on; a tracked reference is held from newlink to
 *	dealloc_driver, so the pointer is stable for the device's lifetime
 * @ndev_tracker: reference tracker for @ndev
 * @parent: sysfs parent of @ibdev: gives the device a "device/net/<ndev>"
 *	directory like a PCI RoCE function, without a modalias that a
 *	hardware provider could match.  Allocated on its own: @ibdev's
 *	struct device drops its parent reference after freeing this struct
 * @parent_net: the "net" directory under @parent, holding a link to @ndev
 * @parent_id: instance number in the parent device's name
 * @port_lock: protects @port_state and @port_mtu against concurrent netdev
 *	events and queries
 * @port_state: last port state dispatched to ib_core
 * @port_mtu: active IB MTU derived from the netdev MTU
 * @qps: QP number -> struct vroce_qpn (qp.h); xa_lock (irq) for
 *	writers, RCU plus a reference for lookups (vroce_qp_get())
 * @next_qpn: cyclic allocation hint for @qps (QPNs 0 and 1 are special)
 * @mem_keys: key index (key >> 8) -> struct vroce_mr or struct vroce_mw
 *	(told apart by xa_tag_pointer tagging in mr.c); same locking as @qps
 * @next_mem_key: cyclic allocation hint for @mem_keys
 * @ahs: ah_num -> struct vroce_ah of user AHs; same locking as @qps
 * @next_ah_num: cyclic allocation hint for @ahs
 * @srqs: srq_num -> struct vroce_srq; same locking as @qps
 * @next_srq_num: cyclic allocation hint for @srqs
 * @counters: per-CPU event counters (counters.c)
 * @loop_q: packets from local senders waiting for @loop_work (net.c);
 *	the queue's own lock
 * @loop_work: delivers @loop_q to the receive path
 * @mcast: multicast groups with QPs of this device attached (mcast.c)
 * @fault: fault injection state (fault.c), NULL without debugfs
 * @fault_on: a fault knob is set: the one test on the packet paths
 * @roce_v1: the port has RoCE v1 GIDs beside its RoCE v2 ones (the
 *	module parameter roce_v1 when the device was created); immutable
 * @cc: congestion-control settings (cc/cc.h)
 * @portq: the port's FIFO: its shaper, and PFC's pauses (portq.c)
 * @pfc_tx: the PFC frames the port sends (pfc_tx.c)
 * @pfc_group_added: the netdev was asked to receive MAC control frames'
 *	group address (vroce_pfc_port_open())
 * @qos: traffic class, trust, priorities and PFC settings (qos.h)
 * @num_pds: protection domains allocated, bounded by VROCE_MAX_PD
 * @num_qps: QPs, bounded by VROCE_MAX_QP
 * @num_cqs: CQs, bounded by VROCE_MAX_CQ
 * @num_srqs: SRQs, bounded by VROCE_MAX_SRQ
 * @num_mrs: MRs, bounded by VROCE_MAX_MR
 * @num_mws: memory windows, bounded by VROCE_MAX_MW
 * @num_ahs: address handles, bounded by VROCE_MAX_AH
 */
struct vroce_dev {
	struct ib_device ibdev;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;

	struct device *parent;
	struct kobject *parent_net;
	int parent_id;

	spinlock_t port_lock; /* port_state, port_mtu */
	enum ib_port_state port_state;
	enum ib_mtu port_mtu;

	struct xarray qps;
	u32 next_qpn;
	struct xarray mem_keys;
	u32 next_mem_key;
	struct xarray ahs;
	u32 next_ah_num;
	struct xarray srqs;
	u32 next_srq_num;

	struct vroce_counters __percpu *counters;
	struct sk_buff_head loop_q;
	struct work_struct loop_work;
	struct vroce_mcast mcast;
	struct vroce_fault *fault;
	bool fault_on;
	bool roce_v1;
	struct vroce_cc_dev cc;
	struct vroce_portq portq;
	struct vroce_pfc_tx pfc_tx;
	bool pfc_group_added;
	struct vroce_qos qos;

	atomic_t num_pds;
	atomic_t num_qps;
	atomic_t num_cqs;
	atomic_t num_srqs;
	atomic_t num_mrs;
	atomic_t num_mws;
	atomic_t num_ahs;
};

/**
 * struct vroce_ucontext - per-process context
 * @ibuc: the ib_core user context
 * @umaps: the process's ring mappings, revoked on device removal (umap.c)
 */
struct vroce_ucontext {
	struct ib_ucontext ibuc;
	struct vroce_umaps *umaps;
};

/**
 * struct vroce_pd - protection domain
 * @ibpd: the ib_core PD
 */
struct vroce_pd {
	struct ib_pd ibpd;
};

static inline struct vroce_dev *to_vroce_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct vroce_dev, ibdev);
}

static inline struct vroce_ucontext *to_vroce_uc(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct vroce_ucontext, ibuc);
}

#define vroce_dbg(vdev, fmt, ...) \
	ibdev_dbg(&(vdev)->ibdev, "%s: " fmt, __func__, ##__VA_ARGS__)

/**
 * vroce_count_get() - take one object of a per-device limit
 * @count: one of vroce_dev.num_*
 * @max: its VROCE_MAX_* limit
 *
 * Return: true when below the limit (the object is counted).
 */
static inline bool vroce_count_get(atomic_t *count, int max)
{
	if (atomic_inc_return(count) <= max)
		return true;
	atomic_dec(count);
	return false;
}

/* main.c */
extern const struct ib_device_ops vroce_dev_ops;

/* port.c */
int vroce_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		       struct ib_udata *udata);
int vroce_query_port(struct ib_device *ibdev, u32 port_num,
		     struct ib_port_attr *attr);
int vroce_get_port_immutable(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_immutable *immutable);
enum rdma_link_layer vroce_get_link_layer(struct ib_device *ibdev,
					  u32 port_num);
int vroce_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
		     u16 *pkey);
void vroce_port_init(struct vroce_dev *vdev);
void vroce_port_update(struct vroce_dev *vdev);
u64 vroce_guid_from_mac(const u8 *mac);

/* parent.c */
int vroce_parent_add(struct vroce_dev *vdev);
void vroce_parent_del(struct vroce_dev *vdev);
void vroce_parent_rename(struct vroce_dev *vdev);
int vroce_parent_class_init(void);
void vroce_parent_class_exit(void);

/* net.c */
int vroce_net_init(void);
void vroce_net_exit(void);
int vroce_net_get(struct net *net);
void vroce_loop_init(struct vroce_dev *vdev);
void vroce_loop_cleanup(struct vroce_dev *vdev);
void vroce_net_put(struct net *net);
int vroce_pkt_out(struct vroce_dev *vdev, struct sock *sk,
		  struct sk_buff *skb, bool ipv6);

/* pfc_port.c */
void vroce_pfc_port_init(void);
void vroce_pfc_port_exit(void);
void vroce_pfc_port_open(struct vroce_dev *vdev);
void vroce_pfc_port_close(struct vroce_dev *vdev);
extern const u8 vroce_pfc_group[ETH_ALEN];
u64 vroce_pfc_port_kbps(struct vroce_dev *vdev);
u64 vroce_pfc_port_tout_ns(struct vroce_dev *vdev);
void vroce_pfc_port_set(struct vroce_dev *vdev, u8 enabled);
void vroce_pfc_port_settle(struct vroce_dev *vdev);
void vroce_pfc_port_tick(struct vroce_dev *vdev, u64 now);

/* pfc_tx.c */
void vroce_pfc_tx_backlog(struct vroce_dev *vdev, unsigned int prio,
			  u32 bytes);
void vroce_pfc_tx_init(struct vroce_dev *vdev);
void vroce_pfc_tx_cleanup(struct vroce_dev *vdev);

/* portq.c */
bool vroce_portq_shaped(struct vroce_dev *vdev);
void vroce_portq_kick(struct vroce_dev *vdev);
int vroce_portq_xmit(struct vroce_dev *vdev, struct sk_buff *skb,
		     bool ipv6, bool answer);
void vroce_portq_take(struct vroce_dev *vdev, u32 bytes);
u64 vroce_portq_wait_ns(struct vroce_dev *vdev, u8 prio);
void vroce_portq_pfc_drop(struct vroce_dev *vdev, u8 prios);
void vroce_portq_init(struct vroce_dev *vdev);
void vroce_portq_cleanup(struct vroce_dev *vdev);

/* txq.c */
bool vroce_txq_backlog_full(void);
int vroce_txq_xmit(struct vroce_dev *vdev, struct sk_buff *skb, u32 entropy,
		   bool ipv6, bool ordered, bool can_retry);
void vroce_txq_init(void);
void vroce_txq_exit(void);

/* verbs.c */
int vroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int vroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int vroce_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void vroce_dealloc_ucontext(struct ib_ucontext *ibuc);
void vroce_disassociate_ucontext(struct ib_ucontext *ibuc);

#endif /* VROCE_H */
