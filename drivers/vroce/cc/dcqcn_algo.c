// SPDX-License-Identifier: GPL-2.0
/*
 * DCQCN as an algorithm of cc/vroce_cc.h, "dcqcn", and "none".
 *
 * DCQCN's arithmetic is dcqcn.c's; this is its clock.  A flow starts at
 * its first CNP.  The alpha timer does not run as a timer: its periods
 * are counted from alpha_epoch_ns and applied just before every other
 * event, which gives the sequence a timer would have given (the rate
 * steps never read alpha; only a cut does) at no cost while the QP is
 * idle.  The rate increase timer is the flow's algorithm timer, asked
 * for while DCQCN limits the flow; one that fires late still steps once
 * per rp_time_reset that passed, at the times it would have fired, so the
 * trajectory does not depend on how loaded the machine is.  The byte
 * counter counts the frame bytes the pacer lets out.
 *
 * The knobs are the device's (cc/ and its flavour), read at each event.
 */
#include "vroce.h"
#include "cc/trace.h"

/* Timer steps taken in one firing at most: a QP recovers in far fewer. */
#define VROCE_DCQCN_MAX_STEPS	64

/**
 * struct vroce_dcqcn_flow - DCQCN's per-flow area
 * @s: the reaction point's state (cc/dcqcn.h)
 * @alpha_epoch_ns: nvidia: the alpha timer's periods count from here;
 *	paper: from the last CNP
 */
struct vroce_dcqcn_flow {
	struct vroce_dcqcn_state s;
	u64 alpha_epoch_ns;
};

static void vroce_dcqcn_trace(const struct vroce_cc_flow *flow,
			      const struct vroce_dcqcn_flow *f,
			      enum vroce_dcqcn_reason why, u32 old, u32 arg)
{
	if (why != VROCE_DCQCN_NONE)
		trace_vroce_cc_rate(flow->qpn, old, &f->s, why, arg);
}

/* The pacer's rate: DCQCN's current one while it limits the flow. */
static void vroce_dcqcn_out(const struct vroce_dcqcn_flow *f,
			    struct vroce_cc_out *out)
{
	out->rate = VROCE_CC_RATE_LINE;
	out->rate_kbps = f->s.limited ? f->s.rc : 0;
}

/* Apply the alpha periods that ended by @now. */
static void vroce_dcqcn_alpha_catch_up(const struct vroce_cc_flow *flow,
				       struct vroce_dcqcn_flow *f,
				       const struct vroce_dcqcn_cfg *cfg,
				       u64 now)
{
	u64 period = (u64)cfg->p.rp_dce_tcp_rtt * NSEC_PER_USEC;
	enum vroce_dcqcn_reason why;
	u64 n;

	if (!period || now <= f->alpha_epoch_ns)
		return;
	n = div64_u64(now - f->alpha_epoch_ns, period);
	if (!n)
		return;
	f->alpha_epoch_ns += n * period;
	why = vroce_dcqcn_on_alpha_timer(cfg, &f->s, min_t(u64, n, U32_MAX));
	vroce_dcqcn_trace(flow, f, why, f->s.rc, min_t(u64, n, U32_MAX));
}

static void vroce_dcqcn_init_flow(void *priv, const struct vroce_cc_flow *flow,
				  u64 now_ns)
{
	struct vroce_dcqcn_flow *f = priv;
	struct vroce_dcqcn_cfg cfg;

	vroce_cc_cfg(flow->dev, &cfg);
	vroce_dcqcn_init(&cfg, &f->s);
	f->alpha_epoch_ns = now_ns;
}

static void vroce_dcqcn_cnp(const struct vroce_cc_flow *flow,
			    struct vroce_dcqcn_flow *f, u64 now,
			    struct vroce_cc_out *out)
{
	enum vroce_dcqcn_reason why;
	struct vroce_dcqcn_cfg cfg;
	u32 old;

	vroce_cc_cfg(flow->dev, &cfg);
	vroce_dcqcn_alpha_catch_up(flow, f, &cfg, now);
	old = f->s.rc;
	why = vroce_dcqcn_on_cnp(&cfg, &f->s, div_u64(now, NSEC_PER_USEC));
	/* the paper's alpha timer counts from the last CNP */
	if (cfg.flavour == VROCE_DCQCN_PAPER)
		f->alpha_epoch_ns = now;
	vroce_dcqcn_trace(flow, f, why, old, 0);
	/* every CNP restarts the increases (a coalesced one too) */
	if (f->s.limited)
		out->timer_ns = now + (u64)cfg.p.rp_time_reset * NSEC_PER_USEC;
}

/* Byte counter events for @bytes sent, as many as the bytes make. */
static void vroce_dcqcn_tx(const struct vroce_cc_flow *flow,
			   struct vroce_dcqcn_flow *f, u32 bytes)
{
	struct vroce_dev *vdev = flow->dev;
	enum vroce_dcqcn_reason why;
	struct vroce_dcqcn_cfg cfg;
	u32 old;

	if (!f->s.limited || !READ_ONCE(vdev->cc.cfg.p.rp_byte_reset))
		return;
	vroce_cc_cfg(vdev, &cfg);
	do {
		old = f->s.rc;
		why = vroce_dcqcn_on_bytes(&cfg, &f->s, bytes);
		vroce_dcqcn_trace(flow, f, why, old, bytes);
		bytes = 0;
	} while (why != VROCE_DCQCN_NONE);
}

/* The rate increase timer, due at @due: every period that passed. */
static void vroce_dcqcn_timer(const struct vroce_cc_flow *flow,
			      struct vroce_dcqcn_flow *f, u64 due, u64 now,
			      struct vroce_cc_out *out)
{
	enum vroce_dcqcn_reason why;
	struct vroce_dcqcn_cfg cfg;
	u64 at = due, period;
	int steps;
	u32 old;

	vroce_cc_cfg(flow->dev, &cfg);
	period = (u64)max(cfg.p.rp_time_reset, 1U) * NSEC_PER_USEC;
	for (steps = 0; f->s.limited && at <= now &&
	     steps < VROCE_DCQCN_MAX_STEPS; steps++) {
		vroce_dcqcn_alpha_catch_up(flow, f, &cfg, at);
		old = f->s.rc;
		why = vroce_dcqcn_on_timer(&cfg, &f->s);
		vroce_dcqcn_trace(flow, f, why, old, 0);
		at += period;
	}
	if (at <= now)		/* too late by far: go on from now */
		at = now + period;
	out->timer_ns = f->s.limited ? at : 0;
}

static void vroce_dcqcn_event(void *priv, const struct vroce_cc_flow *flow,
			      const struct vroce_cc_event *ev,
			      struct vroce_cc_out *out)
{
	struct vroce_dcqcn_flow *f = priv;

	switch (ev->type) {
	case VROCE_CC_EV_CNP:
		vroce_dcqcn_cnp(flow, f, ev->now_ns, out);
		break;
	case VROCE_CC_EV_TX:
		vroce_dcqcn_tx(flow, f, ev->tx.bytes);
		break;
	case VROCE_CC_EV_TIMER:
		vroce_dcqcn_timer(flow, f, ev->timer.due_ns, ev->now_ns, out);
		break;
	default:
		break;
	}
	vroce_dcqcn_out(f, out);
}

/* In the knobs' 1/1024 for alpha, as mlx5 users read it. */
static int vroce_dcqcn_fill_res(const void *priv, struct sk_buff *msg)
{
	const struct vroce_dcqcn_flow *f = priv;

	if (rdma_nl_put_driver_u32(msg, "cc_limited", f->s.limited) ||
	    rdma_nl_put_driver_u32(msg, "cc_rate_kbps", f->s.rc) ||
	    rdma_nl_put_driver_u32(msg, "cc_target_kbps", f->s.rt) ||
	    rdma_nl_put_driver_u32(msg, "cc_alpha",
				   f->s.alpha >> VROCE_DCQCN_KNOB_TO_A))
		return -EMSGSIZE;
	return 0;
}

struct vroce_cc_algo vroce_cc_dcqcn_algo = {
	.name = "dcqcn",
	.priv_size = sizeof(struct vroce_dcqcn_flow),
	.events = VROCE_CC_EVF(CNP) | VROCE_CC_EVF(TX) | VROCE_CC_EVF(TIMER),
	.start_events = VROCE_CC_EVF(CNP),
	.init = vroce_dcqcn_init_flow,
	.event = vroce_dcqcn_event,
	.fill_res = vroce_dcqcn_fill_res,
};

static void vroce_cc_none_init(void *priv, const struct vroce_cc_flow *flow,
			       u64 now_ns)
{
}

static void vroce_cc_none_event(void *priv, const struct vroce_cc_flow *flow,
				const struct vroce_cc_event *ev,
				struct vroce_cc_out *out)
{
}

/* CNPs are handled (counted) and change nothing: the line rate stays. */
struct vroce_cc_algo vroce_cc_none_algo = {
	.name = "none",
	.events = VROCE_CC_EVF(CNP),
	.start_events = VROCE_CC_EVF(CNP),
	.init = vroce_cc_none_init,
	.event = vroce_cc_none_event,
};

static_assert(sizeof(struct vroce_dcqcn_flow) <= VROCE_CC_PRIV_SIZE);
