// SPDX-License-Identifier: GPL-2.0
/*
 * TIMELY's arithmetic (cc/timely.h), integer only.  Per RTT sample, as
 * the paper's Algorithm 1:
 *
 *   rtt_diff = (1 - ewma) * rtt_diff + ewma * (rtt - prev_rtt)
 *   rtt < t_low:   rate += delta
 *   rtt > t_high:  rate *= 1 - beta * (1 - t_high / rtt)
 *   gradient = rtt_diff / min_rtt
 *   gradient <= 0: rate += delta (5 delta after hai_n in a row)
 *   else:          rate *= 1 - beta * gradient
 *
 * and the rate stays between VROCE_TIMELY_MIN_KBPS and the line rate.
 * Where vroce departs: the paper's defaults are for 10 Gb/s NICs with
 * microsecond RTTs (t_low 50, t_high 500, min_rtt 20 us); an emulated
 * guest's RTTs are hundreds of microseconds to milliseconds, so the
 * defaults here are scaled by 100 (congestion-control.md, "TIMELY").
 * vroce samples one request per round trip, not every 16-64 KB segment.
 */
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include "dcqcn.h"
#include "timely.h"

/* The rate never goes below this (kb/s): the paper names no floor. */
#define VROCE_TIMELY_MIN_KBPS	1000U
/* Steps of delta in hyperactive increase (the paper's N). */
#define VROCE_TIMELY_HAI_STEPS	5U

/**
 * vroce_timely_params_default() - the defaults (the paper's, RTTs x 100)
 * @p: filled
 */
void vroce_timely_params_default(struct vroce_timely_params *p)
{
	*p = (struct vroce_timely_params) {
		.t_low_us = 5000,
		.t_high_us = 50000,
		.min_rtt_us = 2000,
		.add_mbps = 10,
		.beta = 819,		/* 0.8 */
		.ewma = 20,		/* 0.02, the authors' code */
		.hai_n = 5,
	};
}

/**
 * vroce_timely_params_validate() - the knobs' ranges and relations
 * @p: the knobs
 *
 * Return: 0, or -EINVAL (a zero threshold or step, t_low above t_high,
 * beta or ewma above 1.0).
 */
int vroce_timely_params_validate(const struct vroce_timely_params *p)
{
	if (!p->t_low_us || p->t_low_us > p->t_high_us || !p->min_rtt_us ||
	    !p->add_mbps || p->add_mbps > VROCE_DCQCN_RATE_MAX_MBPS ||
	    p->beta > VROCE_TIMELY_ONE || !p->ewma ||
	    p->ewma > VROCE_TIMELY_ONE || !p->hai_n)
		return -EINVAL;
	return 0;
}

/**
 * vroce_timely_init() - a flow starts at the line rate
 * @s: the flow
 * @line_kbps: the line rate
 */
void vroce_timely_init(struct vroce_timely_state *s, u32 line_kbps)
{
	*s = (struct vroce_timely_state) { .rate = line_kbps };
}

static u32 timely_clamp(u64 rate, u32 line_kbps)
{
	return clamp_t(u64, rate, min(VROCE_TIMELY_MIN_KBPS, line_kbps),
		       line_kbps);
}

/**
 * vroce_timely_on_rtt() - one RTT sample
 * @p: the knobs (valid)
 * @s: the flow, updated
 * @rtt_us: the sample
 * @line_kbps: the line rate
 *
 * Return: what the sample did.
 */
enum vroce_timely_step vroce_timely_on_rtt(const struct vroce_timely_params *p,
					   struct vroce_timely_state *s,
					   u32 rtt_us, u32 line_kbps)
{
	u64 add = (u64)p->add_mbps * VROCE_DCQCN_KBPS_PER_MBPS, cut;
	s64 diff, grad;

	if (!s->prev_rtt_us) {
		s->prev_rtt_us = max(rtt_us, 1U);
		return VROCE_TIMELY_FIRST;
	}
	diff = ((s64)rtt_us - s->prev_rtt_us) * VROCE_TIMELY_ONE;
	s->prev_rtt_us = max(rtt_us, 1U);
	s->rtt_diff += div_s64((diff - s->rtt_diff) * p->ewma,
			       VROCE_TIMELY_ONE);

	if (rtt_us < p->t_low_us) {
		s->neg_run = 0;
		s->rate = timely_clamp((u64)s->rate + add, line_kbps);
		return VROCE_TIMELY_LOW;
	}
	if (rtt_us > p->t_high_us) {
		s->neg_run = 0;
		/* rate * beta * (rtt - t_high) / rtt */
		cut = div_u64((u64)s->rate * p->beta / VROCE_TIMELY_ONE *
			      (rtt_us - p->t_high_us), rtt_us);
		s->rate = timely_clamp(s->rate - min_t(u64, cut, s->rate),
				       line_kbps);
		return VROCE_TIMELY_HIGH;
	}
	/* gradient in 1/1024 */
	grad = div_s64(s->rtt_diff, p->min_rtt_us);
	if (grad <= 0) {
		if (s->neg_run < p->hai_n)
			s->neg_run++;
		if (s->neg_run >= p->hai_n) {
			s->rate = timely_clamp((u64)s->rate +
					       VROCE_TIMELY_HAI_STEPS * add,
					       line_kbps);
			return VROCE_TIMELY_HAI;
		}
		s->rate = timely_clamp((u64)s->rate + add, line_kbps);
		return VROCE_TIMELY_AI;
	}
	s->neg_run = 0;
	/* rate * beta * gradient, both in 1/1024; at most the whole rate */
	cut = div_u64((u64)s->rate * p->beta, VROCE_TIMELY_ONE);
	cut = grad >= VROCE_TIMELY_ONE ? cut :
	      div_u64(cut * (u64)grad, VROCE_TIMELY_ONE);
	s->rate = timely_clamp(s->rate - min_t(u64, cut, s->rate), line_kbps);
	return VROCE_TIMELY_MD;
}
