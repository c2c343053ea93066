// SPDX-License-Identifier: GPL-2.0
/*
 * Round-trip estimator (RFC 6298, section 2, with alpha 1/8 and beta 1/4):
 * pure arithmetic on struct vroce_rtt; the requester takes the samples
 * (req.c) and the completer ends them (comp.c).
 */
#include <linux/minmax.h>
#include <linux/time64.h>

#include "rtt.h"

/**
 * vroce_rtt_sample() - fold one measured round trip into the estimate
 * @rtt: the estimate
 * @sample_us: time from sending a request to its response, in us
 */
void vroce_rtt_sample(struct vroce_rtt *rtt, u32 sample_us)
{
	u32 r = min(sample_us, VROCE_RTT_MAX_US);
	u32 dev;

	if (!rtt->srtt_us) {
		/* the first sample: srtt = R, rttvar = R / 2 (0 stays 1) */
		rtt->srtt_us = max(r, 1U);
		rtt->rttvar_us = r / 2;
		return;
	}
	dev = rtt->srtt_us > r ? rtt->srtt_us - r : r - rtt->srtt_us;
	rtt->rttvar_us = rtt->rttvar_us - rtt->rttvar_us / 4 + dev / 4;
	rtt->srtt_us = max(rtt->srtt_us - rtt->srtt_us / 8 + r / 8, 1U);
}

/**
 * vroce_rtt_rto_us() - the retransmit timeout the estimate calls for
 * @rtt: the estimate
 *
 * On a steady path rttvar decays towards 0 and srtt + 4 * rttvar towards
 * srtt itself, so that any round trip a little longer than the mean would
 * time out; the margin is therefore at least half the mean (TCP stacks
 * bound it from below too: Linux by its minimum RTO).
 *
 * Return: srtt + max(4 * rttvar, srtt / 2) in us, 0 before the first
 * sample.
 */
u32 vroce_rtt_rto_us(const struct vroce_rtt *rtt)
{
	if (!rtt->srtt_us)
		return 0;
	return rtt->srtt_us + max(4 * rtt->rttvar_us, rtt->srtt_us / 2);
}
