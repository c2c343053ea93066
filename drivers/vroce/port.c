// SPDX-License-Identifier: GPL-2.0
/*
 * Device and port attributes: what query_device and query_port report, and
 * how the port follows its netdev (state, MTU, events).
 */
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <net/addrconf.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

#include "vroce.h"

/*
 * Bytes a RoCEv2 packet needs around its IB payload in the worst case:
 * IPv6 header, UDP, BTH, the largest extension header (AtomicETH, 28 bytes)
 * and the ICRC.  The active IB MTU is the largest that fits the netdev MTU.
 */
#define VROCE_ROCE_OVERHEAD	(40 + 8 + 12 + 28 + 4)

static enum ib_mtu vroce_mtu_from_netdev(unsigned int mtu)
{
	int payload = (int)mtu - VROCE_ROCE_OVERHEAD;

	if (payload >= 4096)
		return IB_MTU_4096;
	if (payload >= 2048)
		return IB_MTU_2048;
	if (payload >= 1024)
		return IB_MTU_1024;
	if (payload >= 512)
		return IB_MTU_512;
	return IB_MTU_256;
}

/**
 * vroce_guid_from_mac() - EUI-64 from a MAC address, as RoCE NICs do
 * @mac: the netdev's 6-byte address
 *
 * Return: the GUID in network byte order, as ib_core stores GUIDs.
 */
u64 vroce_guid_from_mac(const u8 *mac)
{
	u8 eui[8];
	__be64 guid;

	addrconf_addr_eui48(eui, mac);
	memcpy(&guid, eui, sizeof(guid));
	return (__force u64)guid;
}

/**
 * vroce_query_device() - report the device's capabilities and limits
 * @ibdev: the device
 * @attr: filled in
 * @udata: must carry no driver input or output
 *
 * Return: 0 or -EINVAL for unexpected driver data.
 */
int vroce_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		       struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibdev);

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = 0;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = VROCE_MAX_MR_SIZE;
	attr->page_size_cap = VROCE_PAGE_SIZE_CAP;
	attr->vendor_id = VROCE_VENDOR_ID;
	attr->vendor_part_id = 0;
	attr->hw_ver = 0;
	attr->max_qp = VROCE_MAX_QP;
	attr->max_qp_wr = VROCE_MAX_QP_WR;
	attr->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR |
				 IB_DEVICE_BAD_QKEY_CNTR |
				 IB_DEVICE_UD_AV_PORT_ENFORCE |
				 IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_SRQ_RESIZE |
				 IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B;
#ifdef HAVE_FLUSH_ATOMIC_WRITE
	/*
	 * FLUSH to global visibility (what the responder wrote is visible
	 * when it answers) and ATOMIC WRITE.  Not FLUSH_PERSISTENT: vroce
	 * has no persistent memory to make data durable in.
	 */
	attr->device_cap_flags |= IB_DEVICE_FLUSH_GLOBAL |
				  IB_DEVICE_ATOMIC_WRITE;
#endif
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_send_sge = VROCE_MAX_SGE;
	attr->max_recv_sge = VROCE_MAX_SGE;
	attr->max_sge_rd = VROCE_MAX_SGE_RD;
	attr->max_cq = VROCE_MAX_CQ;
	attr->max_cqe = VROCE_MAX_CQE;
	attr->max_mr = VROCE_MAX_MR;
	attr->max_mw = VROCE_MAX_MW;
	attr->max_pd = VROCE_MAX_PD;
	attr->max_qp_rd_atom = VROCE_MAX_QP_RD_ATOM;
	attr->max_qp_init_rd_atom = VROCE_MAX_QP_RD_ATOM;
	attr->max_res_rd_atom = VROCE_MAX_RES_RD_ATOM;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_mcast_grp = VROCE_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = VROCE_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = VROCE_MAX_MCAST_GRP *
					  VROCE_MAX_MCAST_QP_ATTACH;
	attr->max_ah = VROCE_MAX_AH;
	attr->max_srq = VROCE_MAX_SRQ;
	attr->max_srq_wr = VROCE_MAX_SRQ_WR;
	attr->max_srq_sge = VROCE_MAX_SRQ_SGE;
	attr->max_fast_reg_page_list_len = 512;
	attr->max_pi_fast_reg_page_list_len = 0;
	attr->max_pkeys = VROCE_MAX_PKEYS;
	attr->local_ca_ack_delay = VROCE_LOCAL_CA_ACK_DELAY;
	attr->max_sgl_rd = 0;
	vroce_dbg(vdev, "reported\n");
	return 0;
}

/**
 * vroce_query_port() - report port 1's attributes
 * @ibdev: the device
 * @port_num: always 1 (ib_core checks the range)
 * @attr: zeroed by ib_core, filled in here
 *
 * qkey_viol_cntr is the rx_qkey_violation hw counter (UD packets dropped
 * for a wrong Q_Key), saturated at U32_MAX.
 *
 * Return: 0.
 */
int vroce_query_port(struct ib_device *ibdev, u32 port_num,
		     struct ib_port_attr *attr)
{
	struct vroce_dev *vdev = to_vroce_dev(ibdev);
	unsigned long flags;
	int err;

	spin_lock_irqsave(&vdev->port_lock, flags);
	attr->state = vdev->port_state;
	attr->active_mtu = vdev->port_mtu;
	spin_unlock_irqrestore(&vdev->port_lock, flags);

	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->gid_tbl_len = VROCE_GID_TBL_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP |
			       IB_PORT_VENDOR_CLASS_SUP;
	attr->max_msg_sz = VROCE_MAX_MSG_SIZE;
	attr->bad_pkey_cntr = 0;
	/* a 64-bit hw counter in a u32: saturate rather than wrap */
	attr->qkey_viol_cntr = min_t(u64, U32_MAX,
				     vroce_counter_read(vdev,
							VROCE_CNT_RX_QKEY_VIOLATION));
	attr->pkey_tbl_len = VROCE_MAX_PKEYS;
	attr->lid = 0;
	attr->sm_lid = 0;
	attr->lmc = 0;
	attr->max_vl_num = 1;
	attr->sm_sl = 0;
	attr->subnet_timeout = 0;
	attr->init_type_reply = 0;

	/* The emulated line rate (cc/line_rate), else ethtool's speed. */
	if (vroce_cc_port_speed(vdev, &attr->active_speed, &attr->active_width))
		return 0;
	err = ib_get_eth_speed(ibdev, port_num, &attr->active_speed,
			       &attr->active_width);
	if (err)
		vroce_dbg(vdev, "no link speed: %d\n", err);
	return 0;
}

/**
 * vroce_get_port_immutable() - fixed port properties, read once by ib_core
 * @ibdev: the device
 * @port_num: always 1
 * @immutable: filled in
 *
 * RoCE v1 and v2, as a ConnectX port: ib_core then fills the GID table
 * with a "IB/RoCE v1" and a "RoCE v2" entry per address of the netdev, in
 * that order (link-local at 0 and 1, the first IPv4 address at 2 and 3).
 * With the module parameter roce_v1 off, as rdma_rxe: "RoCE v2" entries
 * only (the first IPv4 address at 1).
 *
 * Return: 0.
 */
int vroce_get_port_immutable(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	if (to_vroce_dev(ibdev)->roce_v1)
		immutable->core_cap_flags |= RDMA_CORE_PORT_IBA_ROCE;
	immutable->pkey_tbl_len = VROCE_MAX_PKEYS;
	immutable->gid_tbl_len = VROCE_GID_TBL_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

/**
 * vroce_get_link_layer() - RoCE runs on Ethernet
 * @ibdev: the device
 * @port_num: always 1
 *
 * Without this op ib_core derives InfiniBand from the node type.
 *
 * Return: IB_LINK_LAYER_ETHERNET.
 */
enum rdma_link_layer vroce_get_link_layer(struct ib_device *ibdev,
					  u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

/**
 * vroce_query_pkey() - the one default P_Key
 * @ibdev: the device
 * @port_num: always 1
 * @index: P_Key table index
 * @pkey: the full-membership default P_Key
 *
 * Return: 0, or -EINVAL for an index past the table.
 */
int vroce_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
		     u16 *pkey)
{
	if (index >= VROCE_MAX_PKEYS)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static enum ib_port_state vroce_port_state_of(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev) ?
	       IB_PORT_ACTIVE : IB_PORT_DOWN;
}

/**
 * vroce_port_init() - take the port's initial state from the netdev
 * @vdev: a device not yet registered
 */
void vroce_port_init(struct vroce_dev *vdev)
{
	spin_lock_init(&vdev->port_lock);
	vdev->port_state = vroce_port_state_of(vdev->ndev);
	vdev->port_mtu = vroce_mtu_from_netdev(READ_ONCE(vdev->ndev->mtu));
}

/**
 * vroce_port_update() - follow a netdev state or MTU change
 * @vdev: a registered device
 *
 * Called from the netdev notifier (RTNL held).  Dispatches PORT_ACTIVE or
 * PORT_ERR only when the state really changes, as a NIC raises one event
 * per link transition.
 */
void vroce_port_update(struct vroce_dev *vdev)
{
	enum ib_port_state state = vroce_port_state_of(vdev->ndev);
	struct ib_event ev = {};
	unsigned long flags;
	bool changed;

	ASSERT_RTNL();
	spin_lock_irqsave(&vdev->port_lock, flags);
	changed = state != vdev->port_state;
	vdev->port_state = state;
	vdev->port_mtu = vroce_mtu_from_netdev(READ_ONCE(vdev->ndev->mtu));
	spin_unlock_irqrestore(&vdev->port_lock, flags);

	if (!changed)
		return;

	ev.device = &vdev->ibdev;
	ev.element.port_num = 1;
	ev.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
					     IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
	vroce_dbg(vdev, "port %s\n", state == IB_PORT_ACTIVE ? "active" : "down");
}
