// SPDX-License-Identifier: GPL-2.0
/*
 * vroce_cc_example: a congestion-control algorithm for vroce in one file,
 * the template to copy (Documentation/congestion-control.md, "Writing an
 * algorithm").  Multiplicative decrease, additive increase: each CNP
 * halves the flow's rate, each timer period without a CNP adds step/1024
 * of the line rate back, until the flow runs at the line rate again.
 *
 *   insmod vroce_cc_example.ko [period_us=N] [step=N]
 *   echo example > /sys/class/infiniband/<dev>/cc/algo
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <rdma/restrack.h>

#include "vroce_cc.h"

static unsigned int period_us = 1000;
module_param(period_us, uint, 0444);
MODULE_PARM_DESC(period_us, "us between two increases (default 1000)");

static unsigned int step = 32;
module_param(step, uint, 0444);
MODULE_PARM_DESC(step, "1/1024s of the line rate one increase adds (default 32)");

/* The per-flow area: at most VROCE_CC_PRIV_SIZE bytes, zeroed at start. */
struct example_flow {
	u32 rate;	/* VROCE_CC_RATE_LINE = line rate */
	u32 cnps;	/* CNPs seen, for rdma resource */
};

static void example_init(void *priv, const struct vroce_cc_flow *flow,
			 u64 now_ns)
{
	struct example_flow *f = priv;

	f->rate = VROCE_CC_RATE_LINE;
}

static void example_event(void *priv, const struct vroce_cc_flow *flow,
			  const struct vroce_cc_event *ev,
			  struct vroce_cc_out *out)
{
	struct example_flow *f = priv;
	u64 inc = ((u64)step * VROCE_CC_RATE_LINE) >> 10;

	switch (ev->type) {
	case VROCE_CC_EV_CNP:
		f->cnps += ev->count;
		f->rate = max(f->rate >> 1, 1U);
		break;
	case VROCE_CC_EV_TIMER:
		f->rate = min_t(u64, f->rate + inc, VROCE_CC_RATE_LINE);
		break;
	default:
		return;
	}
	out->rate = f->rate;
	/* a limited flow asks for its next increase; at line rate, none */
	out->timer_ns = f->rate < VROCE_CC_RATE_LINE ?
			ev->now_ns + (u64)period_us * NSEC_PER_USEC : 0;
}

static int example_fill_res(const void *priv, struct sk_buff *msg)
{
	const struct example_flow *f = priv;

	if (rdma_nl_put_driver_u32(msg, "cc_example_rate", f->rate) ||
	    rdma_nl_put_driver_u32(msg, "cc_example_cnps", f->cnps))
		return -EMSGSIZE;
	return 0;
}

static struct vroce_cc_algo example_algo = {
	.name = "example",
	.owner = THIS_MODULE,
	.priv_size = sizeof(struct example_flow),
	.events = VROCE_CC_EVF(CNP) | VROCE_CC_EVF(TIMER),
	.start_events = VROCE_CC_EVF(CNP),
	.init = example_init,
	.event = example_event,
	.fill_res = example_fill_res,
};

static int __init example_load(void)
{
	return vroce_cc_algo_register(&example_algo);
}

static void __exit example_unload(void)
{
	vroce_cc_algo_unregister(&example_algo);
}

module_init(example_load);
module_exit(example_unload);
MODULE_DESCRIPTION("vroce congestion-control example: halve on CNP, add per period");
MODULE_LICENSE("GPL");
