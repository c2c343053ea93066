// SPDX-License-Identifier: GPL-2.0
/*
 * vroce_cc_probe: a congestion-control "algorithm" for tests.  It never
 * limits a flow; it counts the events vroce delivers, by type, and keeps
 * the last RTT sample and NAK, so that 73-cc-algo sees through
 * `rdma resource show qp -dd` that each event type reaches an algorithm.
 * A flow starts at its first event of any type but the timer.
 */
#include <linux/module.h>
#include <rdma/restrack.h>

#include "vroce_cc.h"

static const char * const probe_names[VROCE_CC_NR_EVENTS] = {
	[VROCE_CC_EV_CNP] = "cc_probe_cnp",
	[VROCE_CC_EV_TX] = "cc_probe_tx",
	[VROCE_CC_EV_ACK] = "cc_probe_ack",
	[VROCE_CC_EV_NACK] = "cc_probe_nack",
	[VROCE_CC_EV_RTT] = "cc_probe_rtt",
	[VROCE_CC_EV_TIMER] = "cc_probe_timer",
};

struct probe_flow {
	u32 events[VROCE_CC_NR_EVENTS];	/* by type, coalesced ones counted */
	u32 tx_bytes;			/* bytes of the TX events, wrapping */
	u32 last_rtt_us;		/* the last RTT sample */
	u32 nack_kinds;			/* BIT(kind) of every NACK seen */
};

static void probe_init(void *priv, const struct vroce_cc_flow *flow,
		       u64 now_ns)
{
}

static void probe_event(void *priv, const struct vroce_cc_flow *flow,
			const struct vroce_cc_event *ev,
			struct vroce_cc_out *out)
{
	struct probe_flow *f = priv;

	f->events[ev->type] += ev->count;
	if (ev->type == VROCE_CC_EV_TX)
		f->tx_bytes += ev->tx.bytes;
	else if (ev->type == VROCE_CC_EV_RTT)
		f->last_rtt_us = div_u64(ev->rtt.received_ns - ev->rtt.sent_ns,
					 NSEC_PER_USEC);
	else if (ev->type == VROCE_CC_EV_NACK)
		f->nack_kinds |= BIT(ev->nack.kind);
}

static int probe_fill_res(const void *priv, struct sk_buff *msg)
{
	const struct probe_flow *f = priv;
	int i;

	for (i = 0; i < VROCE_CC_NR_EVENTS; i++)
		if (rdma_nl_put_driver_u32(msg, probe_names[i], f->events[i]))
			return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "cc_probe_tx_bytes", f->tx_bytes) ||
	    rdma_nl_put_driver_u32(msg, "cc_probe_last_rtt_us",
				   f->last_rtt_us) ||
	    rdma_nl_put_driver_u32(msg, "cc_probe_nack_kinds", f->nack_kinds))
		return -EMSGSIZE;
	return 0;
}

#define PROBE_ALL	(VROCE_CC_EVF(CNP) | VROCE_CC_EVF(TX) | \
			 VROCE_CC_EVF(ACK) | VROCE_CC_EVF(NACK) | \
			 VROCE_CC_EVF(RTT))

static struct vroce_cc_algo probe_algo = {
	.name = "probe",
	.owner = THIS_MODULE,
	.priv_size = sizeof(struct probe_flow),
	.events = PROBE_ALL,
	.start_events = PROBE_ALL,
	.init = probe_init,
	.event = probe_event,
	.fill_res = probe_fill_res,
};

static int __init probe_load(void)
{
	return vroce_cc_algo_register(&probe_algo);
}

static void __exit probe_unload(void)
{
	vroce_cc_algo_unregister(&probe_algo);
}

module_init(probe_load);
module_exit(probe_unload);
MODULE_DESCRIPTION("vroce congestion-control probe: counts the events delivered");
MODULE_LICENSE("GPL");
