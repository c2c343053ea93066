// SPDX-License-Identifier: GPL-2.0
/*
 * The pacer: a reaction point's data packets leave no faster than the
 * QP's rate, the lower of its algorithm's rate (while it limits the QP)
 * and the port's emulated line rate.  The rate counts Ethernet frame bytes
 * (headers from Ethernet to ICRC, no preamble or gap).
 *
 * The rate is a token bucket (tbf.h): a packet asked for too early is
 * refused and the pace timer runs the QP when it may go.  Its catch-up is
 * VROCE_CC_PACE_BURST_NS, and no more than VROCE_CC_PACE_BURST_BYTES leave
 * back to back.  The pace timer also runs a QP that waited for room in
 * the port's shaper (portq.c), which holds the whole device to the line
 * rate beneath.  The byte bound is what a
 * switch's buffer sees: at 10 Gb/s 8 ms would be 10 MB at once.  A
 * QP no limit applies to never comes here (vroce_cc_qp_paced()), and an idle
 * paced QP has no timer armed.
 *
 * The algorithm hears of each packet let out (VROCE_CC_EV_TX, the same
 * bytes): DCQCN's byte counter counts them.  Requests (the
 * requester, under run_lock) and READ responses (the responder, under
 * resp.lock) take from the same rate.
 */
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>

#include "cc/trace.h"
#include "tbf.h"
#include "vroce.h"

#define VROCE_CC_PACE_BURST_NS	(8 * NSEC_PER_MSEC)
/*
 * A 64 KiB message: at rates above 64 Mb/s less than 8 ms of catch-up,
 * yet still more than a late timer of a few ms needs below 100 Mb/s.
 */
#define VROCE_CC_PACE_BURST_BYTES	(64 * 1024)
/* Bytes of a frame besides BTH .. pad (IPv4; IPv6 adds 20). */
#define VROCE_CC_FRAME_OVERHEAD	(ETH_HLEN + sizeof(struct iphdr) + \
				 sizeof(struct udphdr) + VROCE_ICRC_SIZE)

/**
 * vroce_cc_tx_admit() - may a data packet of @qp leave now?
 * @qp: an RC QP, vroce_cc_qp_paced()
 * @bytes: the packet, BTH to pad
 * @resp: a READ response (resp.lock held), else a request (run_lock held)
 *
 * Requests and READ responses share the QP's rate: the responder is the
 * reaction point of a READ.
 *
 * Return: true, and the packet is counted as sent; false, and the pace
 * timer runs the QP (@resp: the READ job) when it may.
 */
bool vroce_cc_tx_admit(struct vroce_qp *qp, u32 bytes, bool resp)
{
	struct vroce_cc_qp *cc = &qp->cc;
	u32 line = READ_ONCE(qp->vdev->cc.line_rate_mbps) *
		   VROCE_DCQCN_KBPS_PER_MBPS;
	bool ok = true, rp_on;
	u64 now, burst;
	u32 rate, adv;

	if (resp)
		lockdep_assert_held(&qp->resp.lock);
	else
		lockdep_assert_held(&qp->run_lock);
	bytes += VROCE_CC_FRAME_OVERHEAD;
	now = ktime_get_ns();

	rp_on = vroce_cc_qp_rp_on(qp);
	spin_lock_bh(&cc->lock);
	if (cc->rp_active && !rp_on)
		vroce_cc_flow_end(cc);
	rate = cc->pace_kbps;
	if (rp_on && line && (!rate || line < rate))
		rate = line;
	adv = vroce_cc_advice_kbps(cc, now);
	if (rp_on && adv && (!rate || adv < rate))
		rate = adv;
	if (!rate || cc->dead)
		goto out;
	if (cc->next_tx_ns > now) {
		ok = false;
		cc->resp_waiting |= resp;
		if (!hrtimer_is_queued(&cc->pace_timer))
			hrtimer_start(&cc->pace_timer,
				      ns_to_ktime(cc->next_tx_ns),
				      HRTIMER_MODE_ABS_SOFT);
		goto out;
	}
	burst = min_t(u64, VROCE_CC_PACE_BURST_NS,
		      vroce_tbf_ns(VROCE_CC_PACE_BURST_BYTES, rate));
	vroce_tbf_charge(&cc->next_tx_ns, now, burst, vroce_tbf_ns(bytes, rate));
	if (rp_on) {
		struct vroce_cc_event ev = {
			.type = VROCE_CC_EV_TX,
			.count = 1,
			.now_ns = now,
			.tx = { .bytes = bytes, .packets = 1 },
		};

		__vroce_cc_flow_event(cc, &ev);
	}
out:
	spin_unlock_bh(&cc->lock);
	return ok;
}

/**
 * vroce_cc_tx_wait() - run @qp again in @ns: the port's FIFO is full
 * @qp: the QP
 * @ns: how long the FIFO takes to drain enough (vroce_portq_wait_ns())
 * @resp: the READ job waits, else the requester
 *
 * The pace timer stands in for a NIC's send engine that waits for room:
 * an earlier time already set runs the QP sooner, which asks again.
 */
void vroce_cc_tx_wait(struct vroce_qp *qp, u64 ns, bool resp)
{
	struct vroce_cc_qp *cc = &qp->cc;

	spin_lock_bh(&cc->lock);
	cc->resp_waiting |= resp;
	if (!cc->dead && !hrtimer_is_queued(&cc->pace_timer))
		hrtimer_start(&cc->pace_timer,
			      ns_to_ktime(ktime_get_ns() + ns),
			      HRTIMER_MODE_ABS_SOFT);
	spin_unlock_bh(&cc->lock);
}

/**
 * vroce_cc_pace_fire() - the pacer lets the next packet go: run the QP
 * @t: the QP's pace_timer
 *
 * Return: HRTIMER_NORESTART.
 */
enum hrtimer_restart vroce_cc_pace_fire(struct hrtimer *t)
{
	struct vroce_cc_qp *cc = container_of(t, struct vroce_cc_qp,
					      pace_timer);
	bool resp;

	spin_lock_bh(&cc->lock);
	resp = cc->resp_waiting;
	cc->resp_waiting = false;
	spin_unlock_bh(&cc->lock);
	if (resp)
		vroce_resp_kick(cc->qp);
	vroce_qp_run(cc->qp, false);
	return HRTIMER_NORESTART;
}
