/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TIMELY (Mittal et al., SIGCOMM 2015): a rate from the RTT and its
 * gradient.  Pure arithmetic, as dcqcn.h: the caller keeps one
 * struct vroce_timely_state per flow under its own lock and passes each
 * RTT sample.  Rates kb/s; times us; the fractions (beta, the EWMA
 * weight) 1/1024.
 */
#ifndef VROCE_CC_TIMELY_H
#define VROCE_CC_TIMELY_H

#include <linux/types.h>

#define VROCE_TIMELY_ONE	1024U	/* 1.0 in the knobs' fractions */

/**
 * struct vroce_timely_params - the knobs (cc/timely_*)
 * @t_low_us: below this RTT, additive increase whatever the gradient
 * @t_high_us: above it, multiplicative decrease by (1 - t_high / rtt)
 * @min_rtt_us: the gradient's normaliser (the path's lowest RTT)
 * @add_mbps: additive step (delta)
 * @beta: decrease factor, 1/1024
 * @ewma: weight of a new RTT difference in the gradient, 1/1024
 * @hai_n: negative gradients in a row after which each step adds
 *	5 delta (hyperactive increase)
 */
struct vroce_timely_params {
	u32 t_low_us;
	u32 t_high_us;
	u32 min_rtt_us;
	u32 add_mbps;
	u32 beta;
	u32 ewma;
	u32 hai_n;
};

/**
 * struct vroce_timely_state - one flow
 * @rate: kb/s
 * @prev_rtt_us: the previous sample, 0 before the first
 * @rtt_diff: EWMA of the RTT differences, us << 10 (signed)
 * @neg_run: negative gradients in a row
 */
struct vroce_timely_state {
	u32 rate;
	u32 prev_rtt_us;
	s64 rtt_diff;
	u32 neg_run;
};

/**
 * enum vroce_timely_step - what a sample did
 * @VROCE_TIMELY_FIRST: the first sample: no gradient yet
 * @VROCE_TIMELY_LOW: below t_low: additive increase
 * @VROCE_TIMELY_HIGH: above t_high: multiplicative decrease
 * @VROCE_TIMELY_AI: gradient <= 0: additive increase
 * @VROCE_TIMELY_HAI: gradient <= 0 for hai_n samples: 5 delta
 * @VROCE_TIMELY_MD: gradient > 0: decrease by beta * gradient
 */
enum vroce_timely_step {
	VROCE_TIMELY_FIRST,
	VROCE_TIMELY_LOW,
	VROCE_TIMELY_HIGH,
	VROCE_TIMELY_AI,
	VROCE_TIMELY_HAI,
	VROCE_TIMELY_MD,
};

void vroce_timely_params_default(struct vroce_timely_params *p);
int vroce_timely_params_validate(const struct vroce_timely_params *p);
void vroce_timely_init(struct vroce_timely_state *s, u32 line_kbps);
enum vroce_timely_step vroce_timely_on_rtt(const struct vroce_timely_params *p,
					   struct vroce_timely_state *s,
					   u32 rtt_us, u32 line_kbps);

#endif /* VROCE_CC_TIMELY_H */
