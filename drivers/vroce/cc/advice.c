// SPDX-License-Identifier: GPL-2.0
/*
 * Rate advice (uapi/rdma/vroce-rate-advice.h): a CNP whose reserved bytes
 * carry a rate and an expiry caps a QP's rate, or that of every QP sending
 * to the advice's source, until it expires.  Opt-in per device
 * (cc/rate_advice); with it off, the message is the CNP it looks like.
 *
 * The cap sits beside the algorithm, not in it: while it holds, the pacer
 * (cc/pace.c) takes the lower of the algorithm's rate and the cap, and the
 * algorithm (or none yet) keeps its own state, as a sender would keep its
 * congestion window under a receiver's flow control.  A cap needs no
 * timer: the pacer drops it at the first packet after it expired.
 */
#include <rdma/vroce-rate-advice.h>

#include "vroce.h"

static_assert(sizeof(struct vroce_rate_advice) == 16);

/**
 * vroce_cc_advice_parse() - is this CNP rate advice, and is it well formed?
 * @pkt: a CNP (its 16 reserved bytes are there: the parser checked)
 * @adv: set when it is
 *
 * Return: 0, well-formed advice in @adv; -ENOENT, not advice (the device
 * takes none, or the reserved bytes do not start with the magic): a CNP;
 * -EINVAL, advice that breaks a rule of the format (version, flags,
 * reserved bytes, a rate or an expiry out of range).
 */
int vroce_cc_advice_parse(const struct vroce_pkt *pkt,
			  struct vroce_cc_advice *adv)
{
	const struct vroce_rate_advice *ra =
		(const void *)((const u8 *)pkt->bth + sizeof(struct vroce_bth));
	u32 mbps, ms;

	if (!READ_ONCE(pkt->vdev->cc.rate_advice) ||
	    ra->magic != cpu_to_be32(VROCE_RATE_ADVICE_MAGIC))
		return -ENOENT;
	mbps = be32_to_cpu(ra->rate_mbps);
	ms = be32_to_cpu(ra->expiry_ms);
	if (ra->version != VROCE_RATE_ADVICE_VERSION ||
	    (ra->flags & ~VROCE_RATE_ADVICE_F_ALL) || ra->reserved ||
	    !mbps || mbps > VROCE_RATE_ADVICE_MAX_MBPS ||
	    !ms || ms > VROCE_RATE_ADVICE_MAX_MS)
		return -EINVAL;
	adv->all = ra->flags & VROCE_RATE_ADVICE_F_ALL;
	adv->kbps = mbps * VROCE_DCQCN_KBPS_PER_MBPS;
	adv->until_ns = ktime_get_ns() + (u64)ms * NSEC_PER_MSEC;
	return 0;
}

/**
 * vroce_cc_advice_apply() - cap @qp's rate until the advice expires
 * @qp: an RC QP the advice passed its checks for
 * @adv: the advice; a later one replaces an earlier one
 */
void vroce_cc_advice_apply(struct vroce_qp *qp,
			   const struct vroce_cc_advice *adv)
{
	struct vroce_cc_qp *cc = &qp->cc;

	spin_lock_bh(&cc->lock);
	cc->advice_until_ns = adv->until_ns;
	WRITE_ONCE(cc->advice_kbps, adv->kbps);
	spin_unlock_bh(&cc->lock);
}

/**
 * vroce_cc_advice_kbps() - the cap on @cc now
 * @cc: the QP's state (lock held)
 * @now: ktime_get_ns()
 *
 * An expired cap is dropped here.
 *
 * Return: kb/s, 0 for none.
 */
u32 vroce_cc_advice_kbps(struct vroce_cc_qp *cc, u64 now)
{
	lockdep_assert_held(&cc->lock);
	if (cc->advice_kbps && now >= cc->advice_until_ns)
		WRITE_ONCE(cc->advice_kbps, 0);
	return cc->advice_kbps;
}

/**
 * vroce_cc_advice_clear() - forget any cap (the QP was reset)
 * @cc: the QP's state (lock held)
 */
void vroce_cc_advice_clear(struct vroce_cc_qp *cc)
{
	lockdep_assert_held(&cc->lock);
	WRITE_ONCE(cc->advice_kbps, 0);
	cc->advice_until_ns = 0;
}
