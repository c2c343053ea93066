/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Responder: executes requests that arrive at a QP (SEND, RDMA WRITE, RDMA
 * READ, atomics, ATOMIC WRITE, FLUSH), answers with ACKs, NAKs, read
 * responses and atomic ACKs, and keeps the responder resources that let a
 * duplicate READ or atomic be answered again without executing it twice.
 */
#ifndef VROCE_RESP_H
#define VROCE_RESP_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct vroce_qp;
struct vroce_mr;
struct rxe_recv_wqe;
struct vroce_pkt;
struct vroce_av;
struct vroce_reseq;

/**
 * struct vroce_resp_res - a READ or atomic request kept for replay
 * @valid: the entry holds a request
 * @atomic: atomic (@orig valid) rather than READ
 * @psn: PSN of the request (first response PSN)
 * @npkts: PSNs the request used (READ: response packets; atomic: 1)
 * @va: READ: start address
 * @rkey: READ: key
 * @len: READ: length
 * @orig: atomic: the value returned the first time
 */
struct vroce_resp_res {
	bool valid;
	bool atomic;
	u32 psn;
	u32 npkts;
	u64 va;
	u32 rkey;
	u32 len;
	u64 orig;
};

/**
 * struct vroce_resp - responder state of a QP
 * @lock: serialises packets of this QP and the flush; BH-safe
 * @epsn: next expected request PSN (RC, UC)
 * @msn: message sequence number of the last completed request
 * @nak_sent: a PSN sequence error NAK was sent for @epsn; the next one is
 *	sent only after the expected packet or a duplicate (the requester
 *	went back and may meet the gap again) arrived
 * @dup_acked: a duplicate SEND or WRITE packet was acknowledged since the
 *	last expected packet; more duplicates are acknowledged only when
 *	they ask (AckReq), not one ACK per packet of a resent window
 * @unacked: packets executed since the last ACK of an executed packet
 * @signal_owed: a receive completion of the packet being handled found the
 *	CQ armed; its event is raised once the packet's answers are sent
 *	or queued behind READ jobs
 * @in_msg: a multi-packet SEND or WRITE is in progress
 * @msg_flags: VROCE_F_SEND or VROCE_F_WRITE of the message in progress
 * @drop_msg: UC: drop packets until the next FIRST or ONLY
 * @have_wqe: @wqe holds a receive WQE taken for the message in progress
 * @wqe: copy of that receive WQE (and its SGE list)
 * @wqe_off: bytes already placed into @wqe
 * @mr: WRITE in progress: target region (referenced)
 * @va: WRITE in progress: next address
 * @resid: WRITE in progress: bytes still expected
 * @write_len: WRITE in progress: total length from the RETH
 * @res: responder resources, @nres entries, used round robin from @res_next
 * @nres: entries in @res (max_dest_rd_atomic, at least 1)
 * @res_next: next entry to reuse
 * @jobs: READ response streams longer than one window, oldest first
 *	(struct vroce_resp_job in resp.c); while one is pending, every
 *	answer waits behind it, so answers leave in PSN order
 * @njobs: entries in @jobs
 * @nafter: answers waiting behind @jobs
 * @work: generates the next window of the oldest job
 * @sending: a context is sending the QP's answers (vroce_resp_answer())
 * @sendq: answers built while @sending, for that context to send after
 *	its own, in order (struct vroce_resp_batch in resp.c)
 * @reseq: RC: requests held ahead of a gap (reseq.c), allocated on first
 *	need
 */
struct vroce_resp {
	spinlock_t lock; /* see above */
	u32 epsn;
	u32 msn;
	bool nak_sent;
	bool dup_acked;
	u32 unacked;
	bool signal_owed;
	bool in_msg;
	u32 msg_flags;
	bool drop_msg;
	bool have_wqe;
	struct rxe_recv_wqe *wqe;
	u32 wqe_off;
	struct vroce_mr *mr;
	u64 va;
	u32 resid;
	u32 write_len;
	struct vroce_resp_res *res;
	u32 nres;
	u32 res_next;
	struct list_head jobs;
	u32 njobs;
	u32 nafter;
	struct work_struct work;
	bool sending;
	struct list_head sendq;
	struct vroce_reseq *reseq;
};

int vroce_resp_init(struct vroce_qp *qp);
void vroce_resp_cleanup(struct vroce_qp *qp);
void vroce_resp_reset(struct vroce_qp *qp, u32 rq_psn);
void vroce_resp_flush(struct vroce_qp *qp);
void vroce_resp_kick(struct vroce_qp *qp);
void vroce_resp_gap_expired(struct vroce_qp *qp);
void vroce_resp_av(struct vroce_qp *qp, const struct vroce_pkt *pkt,
		   struct vroce_av *av, u32 *entropy);

#endif /* VROCE_RESP_H */
