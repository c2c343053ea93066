// SPDX-License-Identifier: GPL-2.0
/*
 * A device's congestion-control settings: defaults, the copy the data
 * path takes, and the port's emulated line rate.
 */
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>

#include "vroce.h"

/* The line rate DCQCN counts in, kb/s. */
static u32 vroce_cc_line_kbps(u32 mbps)
{
	return mbps ? mbps * VROCE_DCQCN_KBPS_PER_MBPS : VROCE_CC_UNLIMITED_KBPS;
}

/**
 * vroce_cc_dev_init() - congestion control off, mlx5's knob defaults
 * @vdev: a device being created (newlink, process context, no RTNL)
 *
 * The line rate starts at the netdev's speed when it reports one (veth:
 * 10 Gb/s; virtio-net: usually none), else none.
 */
void vroce_cc_dev_init(struct vroce_dev *vdev)
{
	struct vroce_cc_dev *cc = &vdev->cc;
	struct ethtool_link_ksettings ks = {};
	u32 mbps = 0;
	int err;

	spin_lock_init(&cc->lock);
	cc->cfg.flavour = VROCE_DCQCN_NVIDIA;
	vroce_dcqcn_params_default(&cc->cfg.p);
	rtnl_lock();
	err = __ethtool_get_link_ksettings(vdev->ndev, &ks);
	rtnl_unlock();
	if (!err && ks.base.speed != SPEED_UNKNOWN && ks.base.speed &&
	    ks.base.speed <= VROCE_DCQCN_RATE_MAX_MBPS)
		mbps = ks.base.speed;
	cc->line_rate_mbps = mbps;
	cc->line_rate_shapes = false;
	cc->cfg.line_rate = vroce_cc_line_kbps(mbps);
	cc->np_enable = 0;
	cc->rp_enable = 0;
	cc->cnp_delay_us = 0;
	vroce_timely_params_default(&cc->timely);
	cc->rate_advice = 0;
	cc->ecn_gone = false;
	vroce_cc_algo_dev_init(vdev);
}

/**
 * vroce_cc_cfg() - a consistent copy of the settings DCQCN reads
 * @vdev: the device
 * @cfg: set
 */
void vroce_cc_cfg(struct vroce_dev *vdev, struct vroce_dcqcn_cfg *cfg)
{
	spin_lock_bh(&vdev->cc.lock);
	*cfg = vdev->cc.cfg;
	spin_unlock_bh(&vdev->cc.lock);
}

/**
 * vroce_cc_set_line_rate() - set the port's emulated line rate
 * @vdev: the device
 * @mbps: Mb/s, 0 for none
 *
 * From here on the port's shaper holds the device's traffic to it.
 *
 * Return: 0, or -EINVAL above VROCE_DCQCN_RATE_MAX_MBPS (nothing changed).
 */
int vroce_cc_set_line_rate(struct vroce_dev *vdev, u32 mbps)
{
	if (mbps > VROCE_DCQCN_RATE_MAX_MBPS)
		return -EINVAL;
	spin_lock_bh(&vdev->cc.lock);
	WRITE_ONCE(vdev->cc.line_rate_mbps, mbps);
	WRITE_ONCE(vdev->cc.line_rate_shapes, true);
	vdev->cc.cfg.line_rate = vroce_cc_line_kbps(mbps);
	spin_unlock_bh(&vdev->cc.lock);
	return 0;
}

/*
 * IB speed and width for an emulated line rate: the slowest that carries
 * it.  The rows ib_core uses for a netdev without lanes (up to 400 Gb/s)
 * give its answer, so a line rate taken from the netdev's speed reports
 * what ib_core did before; the other rows fill the gaps and go beyond.
 */
static const struct {
	u32 mbps;
	u16 speed;
	u8 width;
} vroce_ib_rates[] = {
	{ 2500, IB_SPEED_SDR, IB_WIDTH_1X },
	{ 5000, IB_SPEED_DDR, IB_WIDTH_1X },
	{ 10000, IB_SPEED_FDR10, IB_WIDTH_1X },
	{ 14000, IB_SPEED_FDR, IB_WIDTH_1X },
	{ 20000, IB_SPEED_DDR, IB_WIDTH_4X },
	{ 25000, IB_SPEED_EDR, IB_WIDTH_1X },
	{ 40000, IB_SPEED_FDR10, IB_WIDTH_4X },
	{ 50000, IB_SPEED_EDR, IB_WIDTH_2X },
	{ 100000, IB_SPEED_EDR, IB_WIDTH_4X },
	{ 200000, IB_SPEED_HDR, IB_WIDTH_4X },
	{ 400000, IB_SPEED_NDR, IB_WIDTH_4X },
	{ 800000, IB_SPEED_NDR, IB_WIDTH_8X },
	{ 1200000, IB_SPEED_NDR, IB_WIDTH_12X },
#ifdef HAVE_IB_SPEED_XDR
	{ 1600000, IB_SPEED_XDR, IB_WIDTH_8X },
#endif
};

/**
 * vroce_cc_port_speed() - query_port's speed and width for the line rate
 * @vdev: the device
 * @speed: set to an IB_SPEED_*
 * @width: set to an IB_WIDTH_*
 *
 * The slowest IB speed and width that carry the line rate; past the last
 * row, the fastest this kernel can name.
 *
 * Return: true, or false without a line rate (the caller asks ethtool).
 */
bool vroce_cc_port_speed(struct vroce_dev *vdev, u16 *speed, u8 *width)
{
	u32 mbps = READ_ONCE(vdev->cc.line_rate_mbps);
	unsigned int i;

	if (!mbps)
		return false;
	for (i = 0; i < ARRAY_SIZE(vroce_ib_rates) - 1; i++)
		if (mbps <= vroce_ib_rates[i].mbps)
			break;
	*speed = vroce_ib_rates[i].speed;
	*width = vroce_ib_rates[i].width;
	return true;
}
