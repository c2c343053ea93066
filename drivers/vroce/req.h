/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Requester and completer: send WQEs become packets (req.c), responses
 * complete them or make them go again (comp.c).  Both run inside the QP's
 * runner (runner.c, under run_lock, any context, never sleeping); the
 * receive path queues a response and runs the runner (or makes its
 * holder run again), and so does the retransmit timer.
 */
#ifndef VROCE_REQ_H
#define VROCE_REQ_H

#include <linux/skbuff.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "pkt.h"
#include "rtt.h"

struct vroce_qp;

/*
 * FLUSH and ATOMIC WRITE: one request PSN, answered by a zero-length READ
 * response; ordered and counted like READ and atomics (max_rd_atomic).
 * Never true on a kernel without them (compat.h).
 */
static inline bool vroce_wr_is_placement(u32 wr_op)
{
#ifdef HAVE_FLUSH_ATOMIC_WRITE
	return wr_op == IB_WR_FLUSH || wr_op == IB_WR_ATOMIC_WRITE;
#else
	return false;
#endif
}

/*
 * READ, the atomics, FLUSH and ATOMIC WRITE: one request packet each,
 * answered by responses of their own, counted against max_rd_atomic.
 */
static inline bool vroce_wr_is_rd_atomic(u32 wr_op)
{
	return wr_op == IB_WR_RDMA_READ || wr_op == IB_WR_ATOMIC_CMP_AND_SWP ||
	       wr_op == IB_WR_ATOMIC_FETCH_AND_ADD ||
	       vroce_wr_is_placement(wr_op);
}

/* Send WQE progress, kept in rxe_send_wqe.state of the private slot. */
enum vroce_wqe_state {
	VROCE_WQE_PENDING = 0,	/* not sent, or to be sent again */
	VROCE_WQE_SENT,		/* every packet sent, waiting for a response */
	VROCE_WQE_DONE,		/* acknowledged (or needs none): complete it */
};

/**
 * struct vroce_req - requester and completer state of a QP
 * @psn: PSN of the next packet to send (run_lock)
 * @rd_atomic: READ and atomic WQEs sent and not complete (run_lock)
 * @retry_left: transport retries left before IB_WC_RETRY_EXC_ERR
 *	(run_lock)
 * @rnr_left: RNR retries left; 7 at the start means infinite (run_lock)
 * @rnr_wait: an RNR NAK arrived: nothing is sent until @timer fires
 *	(run_lock)
 * @timer: retransmit timeout, or the RNR delay while @rnr_wait
 * @timer_fired: set by @timer, consumed by the runner
 * @recv_event: the responder left a receive completion's event to the
 *	runner, to be raised after the responses queued before it
 * @dying: the QP is being destroyed: nothing arms @timer or kicks the
 *	runner any more (set under run_lock, read locklessly by @timer)
 * @progress: a response completed something in this run (run_lock)
 * @gap_retry: a lost READ response was asked for again without waiting
 *	for the timeout; until that brings progress, later signs of the same
 *	loss are ignored, or each stale response would send again (run_lock)
 * @partial: the WQE at sq.next - 1 has packets left to send, from its
 *	slot's resume on, when the window opens (run_lock)
 * @home_wait: those packets wait for room in the port's FIFO or for the
 *	pacer's time, whose timer runs the QP again: nothing lost, nothing
 *	for the retransmit timer to time (comp.c) (run_lock)
 * @rx_q: responses from the receive path waiting for the runner (its own
 *	lock)
 * @window: packets the QP may have unacknowledged (req.c) (run_lock)
 * @recovering: a timeout sent the oldest packet again and waits for what
 *	its ACKs show (req.c) (run_lock)
 * @recover_psn: the last PSN sent before that timeout (run_lock)
 * @window_saved: the window before it (run_lock)
 * @route: route of the QP's packets (RC, UC: one destination, changed
 *	only by modify_qp under run_lock, which resets it) (run_lock)
 * @psn_new: the first PSN never sent: a packet below it is a
 *	retransmission, whose response says nothing of the round trip
 *	(run_lock)
 * @sent_end: one past the newest WQE (free-running index) the requester
 *	has sent packets of; the WQEs from sq.next to it after a rewind were
 *	sent before and may be acknowledged without being sent again
 *	(run_lock)
 * @rtt: the measured round trip (rtt.h) (run_lock)
 * @rtt_timing: a request is being timed: @rtt_psn, sent at @rtt_sent_ns
 *	(ktime_get_ns()); the first response at or past it ends the timing,
 *	a rewind cancels it (run_lock)
 * @rtt_psn: PSN of the request being timed (run_lock)
 * @rtt_sent_ns: when it was sent (run_lock)
 */
struct vroce_req {
	u32 psn;
	u32 rd_atomic;
	int retry_left;
	int rnr_left;
	bool rnr_wait;
	struct timer_list timer;
	atomic_t timer_fired;
	atomic_t recv_event;
	bool dying;
	bool progress;
	bool gap_retry;
	bool partial;
	bool home_wait;
	struct sk_buff_head rx_q;
	u32 window;
	bool recovering;
	u32 recover_psn;
	u32 window_saved;
	struct vroce_route_cache route;
	u32 psn_new;
	u32 sent_end;
	struct vroce_rtt rtt;
	bool rtt_timing;
	u32 rtt_psn;
	u64 rtt_sent_ns;
};

int vroce_req_init(struct vroce_qp *qp);
void vroce_req_cleanup(struct vroce_qp *qp);
void vroce_req_reset(struct vroce_qp *qp, u32 sq_psn);

/*
 * Shortest local ACK timeout, as the exponent of 4.096 us * 2^timeout
 * (15: 134 ms).  IBTA's timeout is a wire time; a software NIC under load
 * (or under emulation) answers in milliseconds, and a spurious timeout
 * costs a go-back-N resend.  A smaller non-zero timeout is raised to this
 * one, and query_qp reports what the QP uses.
 */
#define VROCE_REQ_MIN_TIMEOUT	15

unsigned long vroce_req_timeout(struct vroce_qp *qp);

/* In the runner (run_lock held). */
bool vroce_req_wqe(struct vroce_qp *qp, u32 index);
bool vroce_req_rest(struct vroce_qp *qp);
void vroce_req_window_loss(struct vroce_qp *qp, bool timeout);
void vroce_req_window_grow(struct vroce_qp *qp);
void vroce_req_recovery_ack(struct vroce_qp *qp, u32 psn, bool ahead);
void vroce_req_rtt_end(struct vroce_qp *qp, u32 psn);
void vroce_comp_run(struct vroce_qp *qp, int *budget);
void vroce_comp_complete(struct vroce_qp *qp);

#endif /* VROCE_REQ_H */
