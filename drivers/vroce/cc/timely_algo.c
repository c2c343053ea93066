// SPDX-License-Identifier: GPL-2.0
/*
 * TIMELY as an algorithm of cc/vroce_cc.h, "timely": a flow starts at its
 * first RTT sample and each sample moves its rate (cc/timely.c).  The
 * knobs are the device's (cc/timely_*), read at each sample.
 */
#include "vroce.h"

/**
 * vroce_cc_timely_params() - a consistent copy of the device's TIMELY knobs
 * @vdev: the device
 * @p: set
 */
void vroce_cc_timely_params(struct vroce_dev *vdev,
			    struct vroce_timely_params *p)
{
	spin_lock_bh(&vdev->cc.lock);
	*p = vdev->cc.timely;
	spin_unlock_bh(&vdev->cc.lock);
}

static void vroce_timely_init_flow(void *priv, const struct vroce_cc_flow *flow,
				   u64 now_ns)
{
	vroce_timely_init(priv, flow->line_kbps);
}

static void vroce_timely_event(void *priv, const struct vroce_cc_flow *flow,
			       const struct vroce_cc_event *ev,
			       struct vroce_cc_out *out)
{
	struct vroce_timely_state *s = priv;
	struct vroce_timely_params p;
	u64 rtt_us;

	if (ev->type != VROCE_CC_EV_RTT)
		return;
	vroce_cc_timely_params(flow->dev, &p);
	rtt_us = div_u64(ev->rtt.received_ns - ev->rtt.sent_ns, NSEC_PER_USEC);
	vroce_timely_on_rtt(&p, s, min_t(u64, rtt_us, U32_MAX),
			    flow->line_kbps);
	out->rate = VROCE_CC_RATE_LINE;
	out->rate_kbps = s->rate < flow->line_kbps ? s->rate : 0;
}

static int vroce_timely_fill_res(const void *priv, struct sk_buff *msg)
{
	const struct vroce_timely_state *s = priv;

	if (rdma_nl_put_driver_u32(msg, "cc_rate_kbps", s->rate) ||
	    rdma_nl_put_driver_u32(msg, "cc_timely_rtt_us", s->prev_rtt_us))
		return -EMSGSIZE;
	return 0;
}

struct vroce_cc_algo vroce_cc_timely_algo = {
	.name = "timely",
	.priv_size = sizeof(struct vroce_timely_state),
	.events = VROCE_CC_EVF(RTT),
	.start_events = VROCE_CC_EVF(RTT),
	.init = vroce_timely_init_flow,
	.event = vroce_timely_event,
	.fill_res = vroce_timely_fill_res,
};

static_assert(sizeof(struct vroce_timely_state) <= VROCE_CC_PRIV_SIZE);
