/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of congestion control (vroce:*): every change of a QP's
 * DCQCN state, every round-trip sample and every CNP sent and received,
 * so that trace-cmd or perf record a rate trajectory with no special
 * tool.  Rates in kb/s, alpha in 2^-20 (the state's unit,
 * VROCE_DCQCN_A_ONE).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM vroce

#if !defined(VROCE_CC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define VROCE_CC_TRACE_H

#include <linux/tracepoint.h>

#include "cc/dcqcn.h"

/* the names vroce_dcqcn_reason_name() gives */
#define vroce_cc_reason_sym(r, name) { VROCE_DCQCN_##r, name }

TRACE_EVENT(vroce_cc_rate,
	TP_PROTO(u32 qpn, u32 old_rate, const struct vroce_dcqcn_state *s,
		 enum vroce_dcqcn_reason why, u32 arg),
	TP_ARGS(qpn, old_rate, s, why, arg),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, old_rate)
		__field(u32, rate)
		__field(u32, target)
		__field(u32, alpha)
		__field(u32, reason)
		__field(u32, arg)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->old_rate = old_rate;
		__entry->rate = s->rc;
		__entry->target = s->rt;
		__entry->alpha = s->alpha;
		__entry->reason = why;
		__entry->arg = arg;
	),
	TP_printk("qpn=%u old_rate=%u rate=%u target=%u alpha=%u reason=%s arg=%u",
		  __entry->qpn, __entry->old_rate, __entry->rate,
		  __entry->target, __entry->alpha,
		  __print_symbolic(__entry->reason,
				   vroce_cc_reason_sym(NONE, "none"),
				   vroce_cc_reason_sym(CNP_CUT, "cnp"),
				   vroce_cc_reason_sym(CNP_FIRST_SET, "cnp_first_set"),
				   vroce_cc_reason_sym(CNP_COALESCED, "cnp_coalesced"),
				   vroce_cc_reason_sym(TIMER_FR, "timer_fr"),
				   vroce_cc_reason_sym(TIMER_AI, "timer_ai"),
				   vroce_cc_reason_sym(TIMER_HAI, "timer_hai"),
				   vroce_cc_reason_sym(BYTES_FR, "bytes_fr"),
				   vroce_cc_reason_sym(BYTES_AI, "bytes_ai"),
				   vroce_cc_reason_sym(BYTES_HAI, "bytes_hai"),
				   vroce_cc_reason_sym(ALPHA_UP, "alpha_up"),
				   vroce_cc_reason_sym(ALPHA_DOWN, "alpha_down")),
		  __entry->arg)
);

/* one round-trip sample of a QP's requests (cc/flow.c, vroce_cc_rtt()) */
TRACE_EVENT(vroce_cc_rtt,
	TP_PROTO(u32 qpn, u32 psn, u64 rtt_ns),
	TP_ARGS(qpn, psn, rtt_ns),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__field(u64, rtt_ns)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->rtt_ns = rtt_ns;
	),
	TP_printk("qpn=%u psn=%u rtt_ns=%llu", __entry->qpn, __entry->psn,
		  __entry->rtt_ns)
);

/* t_ns: the ktime_get_ns() the notification point's gap rule compared */
TRACE_EVENT(vroce_ce_recv,
	TP_PROTO(u32 qpn, u64 t_ns, bool cnp),
	TP_ARGS(qpn, t_ns, cnp),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u64, t_ns)
		__field(bool, cnp)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->t_ns = t_ns;
		__entry->cnp = cnp;
	),
	TP_printk("qpn=%u t_ns=%llu cnp=%d", __entry->qpn, __entry->t_ns,
		  __entry->cnp)
);

TRACE_EVENT(vroce_cnp_sent,
	TP_PROTO(u32 qpn, u32 dqpn),
	TP_ARGS(qpn, dqpn),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, dqpn)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->dqpn = dqpn;
	),
	TP_printk("qpn=%u dqpn=%u", __entry->qpn, __entry->dqpn)
);

TRACE_EVENT(vroce_cnp_recv,
	TP_PROTO(u32 qpn, bool handled),
	TP_ARGS(qpn, handled),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(bool, handled)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->handled = handled;
	),
	TP_printk("qpn=%u handled=%d", __entry->qpn, __entry->handled)
);

#endif /* VROCE_CC_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH cc
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
