// SPDX-License-Identifier: GPL-2.0
/*
 * Responder: requests arriving at one of our QPs.
 *
 * Runs in the receive path (softirq, or the loopback work with bottom
 * halves off), one packet at a time per QP under resp.lock.  Packets it
 * answers with (ACK, NAK, read responses, atomic ACK) are built under the
 * lock and sent after it is dropped: vroce_pkt_send() may deliver
 * locally, and the sender's engines must never be re-entered with a lock
 * held.
 *
 * Every field of a request comes from the wire: keys, addresses and
 * lengths are checked by the MR lookups; message lengths against the RETH
 * and the receive WQE; opcodes against the message in progress.
 *
 * A READ may ask for up to 2 GiB: the receive path builds at most one
 * window of its responses, a job (struct vroce_resp_job) on the QP's work
 * item the rest, one window per run.  While a job is pending, later
 * answers wait behind it, so the peer sees every response in PSN order.
 * The receive path, the work item and the gap timer each build answers
 * under the lock and send them after it: vroce_resp_answer() keeps them in
 * the order they were built.
 */
#include <linux/etherdevice.h>
#include <linux/slab.h>
#include <net/inet_ecn.h>
#include <rdma/ib_mad.h>

#include "pkt.h"
#include "reseq.h"
#include "resp.h"
#include "vroce.h"

/* Room for a receive WQE of the largest SGE list an RQ or SRQ can have. */
#define VROCE_RESP_WQE_SIZE	(sizeof(struct rxe_recv_wqe) + \
				 max(VROCE_MAX_SGE, VROCE_MAX_SRQ_SGE) * \
				 sizeof(struct rxe_sge))

/* ACK syndrome with the "no credit count" value: RoCE has no credits. */
#define VROCE_AETH_ACK_UNLIMITED	(VROCE_AETH_ACK | VROCE_AETH_CREDIT_MASK)

/* Size of the GRH area at the start of a UD receive buffer. */
#define VROCE_GRH_SIZE		40

/* READ response packets built per request in the receive path, per job run. */
#define VROCE_RESP_READ_WINDOW	256

/* Bounds on what a peer can make a QP hold: READ jobs, answers behind them. */
#define VROCE_RESP_MAX_JOBS	(2 * VROCE_MAX_QP_RD_ATOM)
#define VROCE_RESP_MAX_AFTER	256

/*
 * Executed packets acknowledged at least this often, AckReq or not.  A
 * sender that asks only at message ends (rdma_rxe: every 64 packets) and
 * is slowed down by its own transmit queue would otherwise see its
 * retransmission timer expire under a long message that arrives intact;
 * rdma_rxe 6.1 then resends from a stale PSN and can shift a SEND's
 * packets by one, which ends the message with a length error.
 */
#define VROCE_RESP_ACK_EVERY	8

/* Serialises atomics of all devices, so a compare-and-swap is atomic. */
static DEFINE_SPINLOCK(vroce_atomic_lock);

/**
 * struct vroce_resp_job - READ responses still to send
 * @list: in vroce_resp.jobs
 * @after: answers to requests that arrived after this READ, sent when its
 *	last response is
 * @va: first byte (as the peer named it, before the MR's translation)
 * @rkey: the key, looked up again each window (the region may go away)
 * @len: bytes of the response stream
 * @psn: PSN of its first response
 * @msn: MSN for the AETHs
 * @mtu: payload bytes per response
 * @npkts: responses in the stream
 * @next: next response to build
 * @av: where the responses go
 * @entropy: flow entropy for the UDP source port
 * @paced: the pacer stopped the last window; its timer runs the job again
 */
struct vroce_resp_job {
	struct list_head list;
	struct sk_buff_head after;
	u64 va;
	u32 rkey;
	u32 len;
	u32 psn;
	u32 msn;
	u32 mtu;
	u32 npkts;
	u32 next;
	struct vroce_av av;
	u32 entropy;
	bool paced;
};

static void vroce_resp_work(struct work_struct *work);

/**
 * vroce_resp_av() - where the answers to @pkt go: back where it came from
 * @qp: the QP @pkt arrived at
 * @pkt: the packet
 * @av: set: @pkt's addresses swapped, its DSCP, Not-ECT
 * @entropy: set: the flow's UDP source port entropy
 */
void vroce_resp_av(struct vroce_qp *qp, const struct vroce_pkt *pkt,
		   struct vroce_av *av, u32 *entropy)
{
	memset(av, 0, sizeof(*av));
	av->roce_v1 = pkt->roce_v1;
	av->ipv6 = pkt->ipv6;
	av->saddr = pkt->daddr;
	av->daddr = pkt->saddr;
	av->tclass = pkt->tos & ~INET_ECN_MASK;
	av->hop_limit = 64;
	av->oif = pkt->oif;
	av->prio = vroce_cc_qp_prio(qp);
	/* RoCE v1 is not routed: back to the MAC it came from */
	if (pkt->roce_v1 && skb_mac_header_was_set(pkt->skb))
		ether_addr_copy(av->dmac, eth_hdr(pkt->skb)->h_source);
	*entropy = rdma_calc_flow_label(qp->ibqp.qp_num,
					READ_ONCE(qp->attr.dest_qp_num));
}

/*
 * Send the answers in @out, queued in PSN order, no lock held.  READ
 * responses are data: ECT(0) when the QP is a reaction point.  ACKs stay
 * Not-ECT.
 */
static void vroce_resp_xmit(struct vroce_qp *qp, const struct vroce_av *av,
			    u32 entropy, struct sk_buff_head *out)
{
	struct vroce_av data_av = *av;
	struct sk_buff *skb;

	vroce_cc_ect(qp, &data_av);
	while ((skb = __skb_dequeue(out))) {
		u32 flags = vroce_opcodes[skb->data[0]].flags;

		vroce_pkt_send(qp->vdev,
			       (flags & VROCE_F_PAYLOAD) ? &data_av : av, skb,
			       entropy, NULL);
	}
}

/**
 * struct vroce_resp_batch - answers waiting for the QP's sending context
 * @list: in vroce_resp.sendq
 * @av: their addresses, as vroce_resp_xmit() takes them
 * @entropy: their flow's UDP source port entropy
 * @skbs: the packets, in PSN order
 */
struct vroce_resp_batch {
	struct list_head list;
	struct vroce_av av;
	u32 entropy;
	struct sk_buff_head skbs;
};

/*
 * Send @out, built under the responder's lock, which is held on entry and
 * dropped here.  Answers are built by the receive path, the READ job's
 * work item and the gap timer, on any CPU, and each sends them after
 * dropping the lock: two of them could otherwise overtake each other on
 * the way out.  An ACK of a later request ahead of a READ's last
 * responses reads to the requester as an implied NAK (it asks for the
 * READ again), a READ's second window ahead of its first as a sequence
 * error.  So one context at a time sends: the first to come; the others
 * leave their answers in @sendq and go, and the sender takes them in turn
 * before it stops.  A context the sender re-enters (loopback delivery)
 * queues in the same way.  When that queue's entry cannot be allocated
 * the answers are dropped and counted, like a packet lost on the wire.
 */
static void vroce_resp_answer(struct vroce_qp *qp, const struct vroce_av *av,
			      u32 entropy, struct sk_buff_head *out)
	__releases(&qp->resp.lock)
{
	struct vroce_resp *resp = &qp->resp;
	struct vroce_resp_batch *batch;
	struct vroce_av next_av;

	lockdep_assert_held(&resp->lock);
	if (resp->sending) {
		batch = kmalloc(sizeof(*batch), GFP_ATOMIC);
		if (batch) {
			batch->av = *av;
			batch->entropy = entropy;
			__skb_queue_head_init(&batch->skbs);
			skb_queue_splice_tail_init(out, &batch->skbs);
			list_add_tail(&batch->list, &resp->sendq);
		} else {
			vroce_counter_add(qp->vdev, VROCE_CNT_TX_ERR,
					  skb_queue_len(out));
			__skb_queue_purge(out);
		}
		spin_unlock_bh(&resp->lock);
		return;
	}
	resp->sending = true;
	next_av = *av;
	for (;;) {
		spin_unlock_bh(&resp->lock);
		vroce_resp_xmit(qp, &next_av, entropy, out);
		spin_lock_bh(&resp->lock);
		batch = list_first_entry_or_null(&resp->sendq,
						 struct vroce_resp_batch, list);
		if (!batch)
			break;
		list_del(&batch->list);
		skb_queue_splice_init(&batch->skbs, out);
		next_av = batch->av;
		entropy = batch->entropy;
		kfree(batch);
	}
	resp->sending = false;
	spin_unlock_bh(&resp->lock);
}

/* Answers queued for a sender (QP reset or destroyed): never sent. */
static void vroce_resp_drop_sendq(struct vroce_resp *resp)
{
	struct vroce_resp_batch *batch, *tmp;

	lockdep_assert_held(&resp->lock);
	list_for_each_entry_safe(batch, tmp, &resp->sendq, list) {
		list_del(&batch->list);
		__skb_queue_purge(&batch->skbs);
		kfree(batch);
	}
}

/* Forget every pending READ job and what waits behind it. */
static void vroce_resp_drop_jobs(struct vroce_resp *resp)
{
	struct vroce_resp_job *job, *tmp;

	lockdep_assert_held(&resp->lock);
	list_for_each_entry_safe(job, tmp, &resp->jobs, list) {
		list_del(&job->list);
		__skb_queue_purge(&job->after);
		kfree(job);
	}
	resp->njobs = 0;
	resp->nafter = 0;
}

/**
 * vroce_resp_init() - allocate a new QP's responder state
 * @qp: the QP being created
 *
 * Return: 0 or -ENOMEM.
 */
int vroce_resp_init(struct vroce_qp *qp)
{
	struct vroce_resp *resp = &qp->resp;

	spin_lock_init(&resp->lock);
	INIT_LIST_HEAD(&resp->jobs);
	INIT_LIST_HEAD(&resp->sendq);
	INIT_WORK(&resp->work, vroce_resp_work);
	resp->wqe = kzalloc(VROCE_RESP_WQE_SIZE, GFP_KERNEL);
	resp->nres = VROCE_MAX_QP_RD_ATOM;
	resp->res = kcalloc(resp->nres, sizeof(*resp->res), GFP_KERNEL);
	if (!resp->wqe || !resp->res) {
		kfree(resp->wqe);
		kfree(resp->res);
		resp->wqe = NULL;
		resp->res = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void vroce_resp_drop_msg(struct vroce_resp *resp)
{
	lockdep_assert_held(&resp->lock);
	if (resp->mr) {
		vroce_mr_put(resp->mr);
		resp->mr = NULL;
	}
	resp->in_msg = false;
	resp->msg_flags = 0;
}

/**
 * vroce_resp_cleanup() - free a QP's responder state
 * @qp: the QP being destroyed; no packet can reach it any more
 */
void vroce_resp_cleanup(struct vroce_qp *qp)
{
	struct vroce_resp *resp = &qp->resp;

	cancel_work_sync(&resp->work);
	vroce_reseq_cleanup(qp);
	spin_lock_bh(&resp->lock);
	vroce_resp_drop_msg(resp);
	vroce_resp_drop_jobs(resp);
	vroce_resp_drop_sendq(resp);
	spin_unlock_bh(&resp->lock);
	kfree(resp->wqe);
	kfree(resp->res);
	resp->wqe = NULL;
	resp->res = NULL;
}

/**
 * vroce_resp_reset() - start afresh (RESET, or RTR with a new rq_psn)
 * @qp: the QP
 * @rq_psn: first expected request PSN
 *
 * A receive WQE still held is not completed here: see vroce_resp_flush().
 */
void vroce_resp_reset(struct vroce_qp *qp, u32 rq_psn)
{
	struct vroce_resp *resp = &qp->resp;

	spin_lock_bh(&resp->lock);
	vroce_resp_drop_msg(resp);
	vroce_resp_drop_jobs(resp);
	vroce_resp_drop_sendq(resp);
	vroce_reseq_drop(qp);
	resp->epsn = rq_psn & VROCE_PSN_MASK;
	resp->msn = 0;
	resp->nak_sent = false;
	resp->dup_acked = false;
	resp->unacked = 0;
	resp->drop_msg = false;
	resp->wqe_off = 0;
	resp->res_next = 0;
	memset(resp->res, 0, resp->nres * sizeof(*resp->res));
	spin_unlock_bh(&resp->lock);
}

/*
 * A receive completion.  With @signal_owed, an armed CQ's event is left to
 * the caller (*@signal_owed set), else it is raised here.
 */
static void vroce_resp_complete(struct vroce_qp *qp, struct ib_wc *wc,
				bool solicited, bool *signal_owed)
{
	struct vroce_cq *cq = to_vroce_cq(qp->ibqp.recv_cq);

	wc->qp = &qp->ibqp;
	wc->port_num = 1;
	if (signal_owed)
		vroce_cq_post_quiet(cq, wc, solicited, signal_owed);
	else
		vroce_cq_post(cq, wc, solicited);
}

/**
 * vroce_resp_flush() - the QP entered ERR: complete a held receive WQE
 * @qp: the QP
 *
 * A receive WQE the responder took for a message still in progress
 * belongs to nobody else: it completes here with IB_WC_WR_FLUSH_ERR.
 */
void vroce_resp_flush(struct vroce_qp *qp)
{
	struct vroce_resp *resp = &qp->resp;
	struct ib_wc wc = {};
	bool flush;

	spin_lock_bh(&resp->lock);
	flush = resp->have_wqe;
	if (flush) {
		wc.wr_id = resp->wqe->wr_id;
		resp->have_wqe = false;
	}
	vroce_resp_drop_msg(resp);
	vroce_resp_drop_jobs(resp);
	vroce_reseq_drop(qp);
	spin_unlock_bh(&resp->lock);

	if (flush) {
		wc.status = IB_WC_WR_FLUSH_ERR;
		wc.opcode = IB_WC_RECV;
		vroce_resp_complete(qp, &wc, false, NULL);
	}
}

static int vroce_resp_take_wqe(struct vroce_qp *qp)
{
	struct vroce_resp *resp = &qp->resp;
	int err;

	lockdep_assert_held(&resp->lock);
	if (qp->ibqp.srq)
		err = vroce_srq_take(to_vroce_srq(qp->ibqp.srq), resp->wqe,
				     VROCE_RESP_WQE_SIZE);
	else
		err = vroce_rq_take(qp, resp->wqe, VROCE_RESP_WQE_SIZE);
	if (err == -EINVAL) {
		/* Consumed, but unusable: complete it as the QP's error. */
		resp->have_wqe = true;
		return err;
	}
	if (err)
		return err;
	resp->have_wqe = true;
	resp->wqe_off = 0;
	return 0;
}

/*
 * Place @len bytes at offset resp->wqe_off of the receive WQE's SGE list.
 * Walks the list from the start each time: receive SGE lists are short.
 */
static int vroce_resp_place(struct vroce_qp *qp, const void *data, u32 len)
{
	struct vroce_resp *resp = &qp->resp;
	struct rxe_recv_wqe *wqe = resp->wqe;
	struct ib_pd *pd = qp->ibqp.srq ? qp->ibqp.srq->pd : qp->ibqp.pd;
	u32 skip = resp->wqe_off, i;

	lockdep_assert_held(&resp->lock);
	if ((u64)resp->wqe_off + len > wqe->dma.length)
		return -EMSGSIZE;

	for (i = 0; i < wqe->dma.num_sge && len; i++) {
		struct rxe_sge *sge = &wqe->dma.sge[i];
		struct vroce_mr *mr;
		u32 n;
		int err;

		if (skip >= sge->length) {
			skip -= sge->length;
			continue;
		}
		n = min(len, sge->length - skip);
		mr = vroce_mr_lookup_lkey(qp->vdev, pd, sge->lkey,
					  sge->addr + skip, n,
					  IB_ACCESS_LOCAL_WRITE);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
		err = vroce_mr_copy(mr, sge->addr + skip, (void *)data, n, true);
		vroce_mr_put(mr);
		if (err)
			return err;
		data += n;
		len -= n;
		resp->wqe_off += n;
		skip = 0;
	}
	return len ? -EMSGSIZE : 0;
}

/* An answer packet: BTH and the given extension bytes, @payload after. */
static struct sk_buff *vroce_resp_skb(struct vroce_qp *qp, u8 opcode, u32 psn,
				      u32 payload, struct vroce_bth **bthp)
{
	unsigned int hdr = vroce_opcode_hdr_len(opcode);
	unsigned int pad = vroce_pkt_pad(payload);
	struct sk_buff *skb;

	skb = vroce_pkt_alloc(qp->vdev, hdr + payload + pad);
	if (!skb)
		return NULL;
	*bthp = vroce_pkt_put(skb, hdr, payload, pad);
	vroce_bth_set(*bthp, opcode, false, pad, IB_DEFAULT_PKEY_FULL,
		      READ_ONCE(qp->attr.dest_qp_num), false, psn);
	return skb;
}

/* A packet of BTH and AETH only: @op is an ACK or an empty READ response. */
static void vroce_resp_queue_aeth(struct vroce_qp *qp, struct sk_buff_head *out,
				  u8 op, u8 syndrome, u32 psn)
{
	struct vroce_bth *bth;
	struct sk_buff *skb;

	skb = vroce_resp_skb(qp, VROCE_OP_RC | op, psn, 0, &bth);
	if (!skb)
		return;
	vroce_aeth_set((struct vroce_aeth *)(bth + 1), syndrome, qp->resp.msn);
	__skb_queue_tail(out, skb);
}

static void vroce_resp_queue_ack(struct vroce_qp *qp, struct sk_buff_head *out,
				 u8 syndrome, u32 psn)
{
	vroce_resp_queue_aeth(qp, out, VROCE_ACK, syndrome, psn);
}

/*
 * Build responses @job->next.. of a READ stream, at most @max of them.
 * The region is looked up again each time: a key invalidated or a region
 * deregistered since ends the stream (-EFAULT).
 */
static int vroce_resp_read_window(struct vroce_qp *qp,
				  struct sk_buff_head *out,
				  struct vroce_resp_job *job, u32 max)
{
	struct vroce_mr *mr = NULL;
	u64 va = job->va;
	u32 end = job->npkts - job->next > max ? job->next + max : job->npkts;
	bool paced = vroce_cc_qp_paced(qp);
	int err = 0;
	u64 wait;

	lockdep_assert_held(&qp->resp.lock);
	job->paced = false;
	if (job->len) {
		mr = vroce_mr_lookup_rkey(qp->vdev, qp->ibqp.pd,
					  qp->ibqp.qp_num, job->rkey, &va,
					  job->len, IB_ACCESS_REMOTE_READ);
		if (IS_ERR(mr))
			return -EFAULT;
	}
	for (; job->next < end; job->next++) {
		u32 i = job->next, off = i * job->mtu;
		u32 n = min(job->len - off, job->mtu);
		struct vroce_bth *bth;
		struct sk_buff *skb;
		u8 op;
		int aeth;

		if (job->npkts == 1)
			op = VROCE_READ_RESP_ONLY;
		else if (i == 0)
			op = VROCE_READ_RESP_FIRST;
		else if (i == job->npkts - 1)
			op = VROCE_READ_RESP_LAST;
		else
			op = VROCE_READ_RESP_MIDDLE;
		op |= VROCE_OP_RC;

		if (paced &&
		    !vroce_cc_tx_admit(qp, vroce_opcode_hdr_len(op) + n +
				       vroce_pkt_pad(n), true)) {
			job->paced = true;
			break;
		}
		/* the port's FIFO is full (portq.c): the pace timer again */
		wait = vroce_portq_wait_ns(qp->vdev, vroce_cc_qp_prio(qp));
		if (wait) {
			vroce_cc_tx_wait(qp, wait, true);
			job->paced = true;
			break;
		}
		skb = vroce_resp_skb(qp, op, vroce_psn_add(job->psn, i), n,
				     &bth);
		if (!skb) {
			err = -ENOMEM;
			break;
		}
		aeth = vroce_opcode_ext_offset(op, VROCE_EXT_AETH);
		if (aeth > 0)
			vroce_aeth_set((void *)bth + aeth,
				       VROCE_AETH_ACK_UNLIMITED, job->msn);
		if (n && vroce_mr_copy(mr, va + off,
				       (u8 *)bth + vroce_opcode_hdr_len(op), n,
				       false)) {
			kfree_skb(skb);
			err = -EFAULT;
			break;
		}
		__skb_queue_tail(out, skb);
	}
	if (mr)
		vroce_mr_put(mr);
	return err;
}

/*
 * Read responses for @len bytes at @va (@rkey) starting at @psn, answering
 * @pkt.  The first window goes to @out unless older jobs are pending; the
 * rest becomes a job.
 */
static int vroce_resp_queue_read(struct vroce_qp *qp, struct vroce_pkt *pkt,
				 struct sk_buff_head *out, u64 va, u32 rkey,
				 u32 len, u32 psn)
{
	struct vroce_resp *resp = &qp->resp;
	u32 mtu = ib_mtu_enum_to_int(READ_ONCE(qp->attr.path_mtu));
	struct vroce_resp_job tmp = {
		.va = va,
		.rkey = rkey,
		.len = len,
		.psn = psn,
		.msn = resp->msn,
		.mtu = mtu,
		.npkts = len ? DIV_ROUND_UP(len, mtu) : 1,
	};
	struct vroce_resp_job *job;
	int err;

	lockdep_assert_held(&resp->lock);
	if (list_empty(&resp->jobs)) {
		err = vroce_resp_read_window(qp, out, &tmp,
					     VROCE_RESP_READ_WINDOW);
		if (err || tmp.next == tmp.npkts)
			return err;
	}
	/* Lost like a packet: the requester asks again for what is missing. */
	if (resp->njobs >= VROCE_RESP_MAX_JOBS)
		return -ENOBUFS;
	job = kmalloc(sizeof(*job), GFP_ATOMIC);
	if (!job)
		return -ENOMEM;
	*job = tmp;
	__skb_queue_head_init(&job->after);
	vroce_resp_av(qp, pkt, &job->av, &job->entropy);
	list_add_tail(&job->list, &resp->jobs);
	resp->njobs++;
	queue_work(system_highpri_wq, &resp->work);
	return 0;
}

/* Run of the QP's work item: the next window of the oldest READ job. */
static void vroce_resp_work(struct work_struct *work)
{
	struct vroce_qp *qp = container_of(work, struct vroce_qp, resp.work);
	struct vroce_resp *resp = &qp->resp;
	struct vroce_resp_job *job;
	struct sk_buff_head out;
	struct vroce_av av;
	u32 entropy;
	bool more, paced;
	int err;

	__skb_queue_head_init(&out);
	spin_lock_bh(&resp->lock);
	job = list_first_entry_or_null(&resp->jobs, struct vroce_resp_job,
				       list);
	if (!job) {
		spin_unlock_bh(&resp->lock);
		return;
	}
	err = vroce_resp_read_window(qp, &out, job, VROCE_RESP_READ_WINDOW);
	av = job->av;
	entropy = job->entropy;
	paced = job->paced;
	if (err || job->next == job->npkts) {
		/*
		 * Done, or its memory went away or no memory (the requester
		 * asks again): what waited behind it goes out now.
		 */
		resp->nafter -= skb_queue_len(&job->after);
		skb_queue_splice_tail_init(&job->after, &out);
		list_del(&job->list);
		resp->njobs--;
		kfree(job);
	}
	/* a job the pacer stopped goes on when its timer says */
	more = !list_empty(&resp->jobs) && !(paced && !err);
	if (skb_queue_empty(&out))
		spin_unlock_bh(&resp->lock);
	else
		vroce_resp_answer(qp, &av, entropy, &out);
	if (more)
		queue_work(system_highpri_wq, &resp->work);
}

/**
 * vroce_resp_kick() - run the QP's READ job (the pacer lets it go on)
 * @qp: the QP
 */
void vroce_resp_kick(struct vroce_qp *qp)
{
	queue_work(system_highpri_wq, &qp->resp.work);
}

/*
 * Answers of a packet that arrived while READ jobs are pending wait behind
 * the newest one, a bounded number: more are dropped as if lost.
 */
static void vroce_resp_defer(struct vroce_qp *qp, struct sk_buff_head *out)
{
	struct vroce_resp *resp = &qp->resp;
	struct vroce_resp_job *job;
	struct sk_buff *skb;

	lockdep_assert_held(&resp->lock);
	job = list_last_entry(&resp->jobs, struct vroce_resp_job, list);
	while ((skb = __skb_dequeue(out))) {
		if (resp->nafter >= VROCE_RESP_MAX_AFTER) {
			vroce_counter_inc(qp->vdev, VROCE_CNT_TX_ERR);
			kfree_skb(skb);
			continue;
		}
		__skb_queue_tail(&job->after, skb);
		resp->nafter++;
	}
}

static struct vroce_resp_res *vroce_resp_res_find(struct vroce_resp *resp,
						  u32 psn)
{
	u32 i;

	for (i = 0; i < resp->nres; i++) {
		struct vroce_resp_res *res = &resp->res[i];

		if (res->valid && vroce_psn_diff(psn, res->psn) >= 0 &&
		    vroce_psn_diff(psn, res->psn) < res->npkts)
			return res;
	}
	return NULL;
}

static struct vroce_resp_res *vroce_resp_res_new(struct vroce_qp *qp)
{
	struct vroce_resp *resp = &qp->resp;
	u32 n = clamp_t(u32, READ_ONCE(qp->attr.max_dest_rd_atomic), 1,
			resp->nres);
	struct vroce_resp_res *res;

	resp->res_next %= n;
	res = &resp->res[resp->res_next++];
	memset(res, 0, sizeof(*res));
	res->valid = true;
	return res;
}

/* A duplicate request: answer again what was answered, execute nothing. */
static void vroce_resp_duplicate(struct vroce_qp *qp, struct vroce_pkt *pkt,
				 struct sk_buff_head *out)
{
	struct vroce_resp *resp = &qp->resp;
	struct vroce_resp_res *res;

	vroce_counter_inc(qp->vdev, VROCE_CNT_DUPLICATE_REQUEST);
	/*
	 * The requester went back: if its resent packets skip @epsn again
	 * (lost again), the first one past the gap must get a new NAK, or
	 * only its timeout would resend, from the start of the WQE again.
	 */
	resp->nak_sent = false;
	if (!(pkt->flags & (VROCE_F_READ | VROCE_F_ATOMIC))) {
		/*
		 * Everything before epsn was executed: acknowledge it all,
		 * once per resent window and where the requester asks.
		 */
		if (resp->dup_acked && !vroce_bth_ackreq(pkt->bth))
			return;
		resp->dup_acked = true;
		vroce_resp_queue_ack(qp, out, VROCE_AETH_ACK_UNLIMITED,
				     vroce_psn_add(resp->epsn, VROCE_PSN_MASK));
		return;
	}
	res = vroce_resp_res_find(resp, pkt->psn);
	if (!res)
		return;
	if (res->atomic) {
		struct vroce_bth *bth;
		struct sk_buff *skb;
		u8 op = VROCE_OP_RC | VROCE_ATOMIC_ACK;

		skb = vroce_resp_skb(qp, op, res->psn, 0, &bth);
		if (!skb)
			return;
		vroce_aeth_set((struct vroce_aeth *)(bth + 1),
			       VROCE_AETH_ACK_UNLIMITED, resp->msn);
		((struct vroce_atmack *)((u8 *)bth +
			vroce_opcode_ext_offset(op, VROCE_EXT_ATMACK)))->orig =
			cpu_to_be64(res->orig);
		__skb_queue_tail(out, skb);
	} else {
		u32 mtu = ib_mtu_enum_to_int(READ_ONCE(qp->attr.path_mtu));
		u64 skip = (u64)vroce_psn_diff(pkt->psn, res->psn) * mtu;

		/* Replay from the PSN asked for, with the memory as it is now. */
		if (skip > res->len)
			return;
		vroce_resp_queue_read(qp, pkt, out, res->va + skip, res->rkey,
				      res->len - skip, pkt->psn);
	}
}

/* Outcome of executing one request packet. */
enum vroce_resp_result {
	VROCE_RESP_OK,		/* executed; ACK if asked */
	VROCE_RESP_REPLIED,	/* executed; the answer is already queued */
	VROCE_RESP_RNR,		/* no receive WQE: RNR NAK, PSN not consumed */
	VROCE_RESP_INVALID,	/* NAK invalid request, QP to ERR */
	VROCE_RESP_ACCESS,	/* NAK remote access error, QP to ERR */
	VROCE_RESP_OP_ERR,	/* NAK remote operational error, QP to ERR */
	VROCE_RESP_DROP,	/* silently dropped (UC/UD) */
};

static enum vroce_resp_result vroce_resp_access_err(struct vroce_qp *qp)
{
	vroce_counter_inc(qp->vdev, VROCE_CNT_RESP_REMOTE_ACCESS_ERRORS);
	return VROCE_RESP_ACCESS;
}

/* The recv completion of a finished SEND or WRITE with immediate. */
static void vroce_resp_recv_done(struct vroce_qp *qp, struct vroce_pkt *pkt,
				 enum ib_wc_opcode opcode, u32 byte_len,
				 int status)
{
	struct vroce_resp *resp = &qp->resp;
	struct ib_wc wc = {};

	wc.wr_id = resp->wqe->wr_id;
	wc.status = status;
	wc.opcode = opcode;
	wc.byte_len = byte_len;
	if (pkt->flags & VROCE_F_IMM) {
		wc.ex.imm_data = ((struct vroce_immdt *)
				  vroce_pkt_ext(pkt, VROCE_EXT_IMMDT))->imm;
		wc.wc_flags |= IB_WC_WITH_IMM;
	} else if (pkt->flags & VROCE_F_INV) {
		u32 rkey = be32_to_cpu(((struct vroce_ieth *)
				vroce_pkt_ext(pkt, VROCE_EXT_IETH))->rkey);

		wc.ex.invalidate_rkey = rkey;
		wc.wc_flags |= IB_WC_WITH_INVALIDATE;
		if (status == IB_WC_SUCCESS && vroce_mem_invalidate(qp, rkey))
			wc.status = IB_WC_LOC_PROT_ERR;
	}
	if (pkt->flags & VROCE_F_EXT(VROCE_EXT_DETH)) {
		struct vroce_deth *deth = vroce_pkt_ext(pkt, VROCE_EXT_DETH);

		wc.src_qp = vroce_deth_sqp(deth);
		wc.wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
		if (pkt->roce_v1)
			wc.network_hdr_type = RDMA_NETWORK_ROCE_V1;
		else
			wc.network_hdr_type = pkt->ipv6 ? RDMA_NETWORK_IPV6 :
							  RDMA_NETWORK_IPV4;
	}
	resp->have_wqe = false;
	/*
	 * The event waits until vroce_resp_rcv() has sent this packet's ACK:
	 * a NIC's ACK leaves before the CQE is written, so the requester
	 * learns its SEND completed before the peer, woken by the receive,
	 * can answer it.  perftest 4.5's event mode (one channel for both
	 * CQs) hangs when the answer overtakes the ACK.
	 */
	vroce_resp_complete(qp, &wc, vroce_bth_se(pkt->bth),
			    &resp->signal_owed);
}

static enum vroce_resp_result vroce_resp_send(struct vroce_qp *qp,
					      struct vroce_pkt *pkt)
{
	struct vroce_resp *resp = &qp->resp;
	int err;

	if (pkt->flags & VROCE_F_FIRST) {
		if (!resp->have_wqe) {
			err = vroce_resp_take_wqe(qp);
			if (err == -EAGAIN) {
				vroce_counter_inc(qp->vdev,
						  VROCE_CNT_OUT_OF_BUFFER);
				return VROCE_RESP_RNR;
			}
			if (err) {
				vroce_resp_recv_done(qp, pkt, IB_WC_RECV, 0,
						     IB_WC_LOC_QP_OP_ERR);
				return VROCE_RESP_OP_ERR;
			}
		}
		resp->wqe_off = 0;
	}
	err = vroce_resp_place(qp, vroce_pkt_payload(pkt), pkt->paylen);
	if (err) {
		int status = err == -EMSGSIZE ? IB_WC_LOC_LEN_ERR :
						IB_WC_LOC_PROT_ERR;

		if (err == -EMSGSIZE)
			vroce_counter_inc(qp->vdev,
					  VROCE_CNT_RESP_LOCAL_LENGTH_ERROR);
		vroce_resp_recv_done(qp, pkt, IB_WC_RECV, resp->wqe_off,
				     status);
		return err == -EMSGSIZE ? VROCE_RESP_INVALID :
					  VROCE_RESP_OP_ERR;
	}
	if (pkt->flags & VROCE_F_LAST)
		vroce_resp_recv_done(qp, pkt, IB_WC_RECV, resp->wqe_off,
				     IB_WC_SUCCESS);
	return VROCE_RESP_OK;
}

static enum vroce_resp_result vroce_resp_write(struct vroce_qp *qp,
					       struct vroce_pkt *pkt)
{
	struct vroce_resp *resp = &qp->resp;
	u32 mtu = ib_mtu_enum_to_int(READ_ONCE(qp->attr.path_mtu));
	int err;

	if (pkt->flags & VROCE_F_FIRST) {
		struct vroce_reth *reth = vroce_pkt_ext(pkt, VROCE_EXT_RETH);
		struct vroce_mr *mr = NULL;
		u32 len = be32_to_cpu(reth->len);
		u64 va = be64_to_cpu(reth->va);

		vroce_counter_inc(qp->vdev, VROCE_CNT_RX_WRITE_REQUESTS);
		if (len) {
			mr = vroce_mr_lookup_rkey(qp->vdev, qp->ibqp.pd,
						  qp->ibqp.qp_num,
						  be32_to_cpu(reth->rkey), &va,
						  len, IB_ACCESS_REMOTE_WRITE);
			if (IS_ERR(mr))
				return vroce_resp_access_err(qp);
		}
		resp->mr = mr;
		resp->va = va;
		resp->resid = len;
		resp->write_len = len;
	}

	/* Every packet but the last carries exactly one MTU. */
	if (pkt->paylen > resp->resid ||
	    (!(pkt->flags & VROCE_F_LAST) && pkt->paylen != mtu) ||
	    ((pkt->flags & VROCE_F_LAST) && pkt->paylen != resp->resid)) {
		vroce_counter_inc(qp->vdev, VROCE_CNT_RESP_INVALID_REQUEST);
		return VROCE_RESP_INVALID;
	}
	if (pkt->paylen) {
		err = vroce_mr_copy(resp->mr, resp->va, vroce_pkt_payload(pkt),
				    pkt->paylen, true);
		if (err)
			return VROCE_RESP_ACCESS;
		resp->va += pkt->paylen;
		resp->resid -= pkt->paylen;
	}
	if (!(pkt->flags & VROCE_F_LAST))
		return VROCE_RESP_OK;

	if (resp->mr) {
		vroce_mr_put(resp->mr);
		resp->mr = NULL;
	}
	if (pkt->flags & VROCE_F_IMM) {
		/* Only the immediate needs a receive WQE, and no buffer. */
		if (!resp->have_wqe) {
			err = vroce_resp_take_wqe(qp);
			if (err == -EAGAIN) {
				vroce_counter_inc(qp->vdev,
						  VROCE_CNT_OUT_OF_BUFFER);
				return VROCE_RESP_RNR;
			}
			if (err) {
				vroce_resp_recv_done(qp, pkt,
						     IB_WC_RECV_RDMA_WITH_IMM,
						     0, IB_WC_LOC_QP_OP_ERR);
				return VROCE_RESP_OP_ERR;
			}
		}
		vroce_resp_recv_done(qp, pkt, IB_WC_RECV_RDMA_WITH_IMM,
				     resp->write_len, IB_WC_SUCCESS);
	}
	return VROCE_RESP_OK;
}

static enum vroce_resp_result vroce_resp_read(struct vroce_qp *qp,
					      struct vroce_pkt *pkt,
					      struct sk_buff_head *out)
{
	struct vroce_reth *reth = vroce_pkt_ext(pkt, VROCE_EXT_RETH);
	u32 mtu = ib_mtu_enum_to_int(READ_ONCE(qp->attr.path_mtu));
	u32 len = be32_to_cpu(reth->len);
	u64 va = be64_to_cpu(reth->va);
	struct vroce_resp_res *res;
	struct vroce_mr *mr = NULL;
	int err;

	vroce_counter_inc(qp->vdev, VROCE_CNT_RX_READ_REQUESTS);
	if (len > VROCE_MAX_MSG_SIZE)
		return VROCE_RESP_INVALID;
	if (len) {
		mr = vroce_mr_lookup_rkey(qp->vdev, qp->ibqp.pd,
					  qp->ibqp.qp_num,
					  be32_to_cpu(reth->rkey), &va, len,
					  IB_ACCESS_REMOTE_READ);
		if (IS_ERR(mr)) {
			vroce_counter_inc(qp->vdev,
					  VROCE_CNT_RESP_REMOTE_ACCESS_ERRORS);
			return VROCE_RESP_ACCESS;
		}
	}

	res = vroce_resp_res_new(qp);
	res->psn = pkt->psn;
	res->npkts = len ? DIV_ROUND_UP(len, mtu) : 1;
	res->va = be64_to_cpu(reth->va);
	res->rkey = be32_to_cpu(reth->rkey);
	res->len = len;

	if (mr)
		vroce_mr_put(mr);
	/* The responses use the request's PSNs; the MSN counts the READ. */
	qp->resp.msn = (qp->resp.msn + 1) & VROCE_AETH_MSN_MASK;
	err = vroce_resp_queue_read(qp, pkt, out, res->va, res->rkey, len,
				    pkt->psn);
	qp->resp.epsn = vroce_psn_add(pkt->psn, res->npkts);
	/* Lost responses (no memory) are asked for again by the requester. */
	return err == -EFAULT ? VROCE_RESP_ACCESS : VROCE_RESP_REPLIED;
}

static enum vroce_resp_result vroce_resp_atomic(struct vroce_qp *qp,
						struct vroce_pkt *pkt,
						struct sk_buff_head *out)
{
	struct vroce_atmeth *ae = vroce_pkt_ext(pkt, VROCE_EXT_ATMETH);
	u8 op = VROCE_OP_RC | VROCE_ATOMIC_ACK;
	u64 va = be64_to_cpu(ae->va), orig, val;
	struct vroce_resp_res *res;
	struct vroce_bth *bth;
	struct vroce_mr *mr;
	struct sk_buff *skb;
	int err;

	vroce_counter_inc(qp->vdev, VROCE_CNT_RX_ATOMIC_REQUESTS);
	if (va & 7)
		return VROCE_RESP_INVALID;
	mr = vroce_mr_lookup_rkey(qp->vdev, qp->ibqp.pd, qp->ibqp.qp_num,
				  be32_to_cpu(ae->rkey), &va, sizeof(u64),
				  IB_ACCESS_REMOTE_ATOMIC);
	if (IS_ERR(mr)) {
		vroce_counter_inc(qp->vdev, VROCE_CNT_RESP_REMOTE_ACCESS_ERRORS);
		return VROCE_RESP_ACCESS;
	}

	spin_lock(&vroce_atomic_lock);
	err = vroce_mr_copy(mr, va, &orig, sizeof(orig), false);
	if (!err) {
		if ((pkt->opcode & 0x1f) == VROCE_CMP_SWAP)
			val = orig == be64_to_cpu(ae->comp) ?
			      be64_to_cpu(ae->swap_add) : orig;
		else
			val = orig + be64_to_cpu(ae->swap_add);
		err = vroce_mr_copy(mr, va, &val, sizeof(val), true);
	}
	spin_unlock(&vroce_atomic_lock);
	vroce_mr_put(mr);
	if (err)
		return VROCE_RESP_ACCESS;

	res = vroce_resp_res_new(qp);
	res->atomic = true;
	res->psn = pkt->psn;
	res->npkts = 1;
	res->orig = orig;
	qp->resp.msn = (qp->resp.msn + 1) & VROCE_AETH_MSN_MASK;
	qp->resp.epsn = vroce_psn_add(pkt->psn, 1);

	skb = vroce_resp_skb(qp, op, pkt->psn, 0, &bth);
	if (skb) {
		vroce_aeth_set((struct vroce_aeth *)(bth + 1),
			       VROCE_AETH_ACK_UNLIMITED, qp->resp.msn);
		((struct vroce_atmack *)((u8 *)bth +
			vroce_opcode_ext_offset(op, VROCE_EXT_ATMACK)))->orig =
			cpu_to_be64(orig);
		__skb_queue_tail(out, skb);
	}
	return VROCE_RESP_REPLIED;
}

/*
 * ATOMIC WRITE (8 bytes written as one) and FLUSH (placement is done).
 * Both are answered with an RDMA READ response without data, whether or
 * not the requester asked for an ACK, as IBTA's memory placement
 * extensions and rdma_rxe do; the completer takes an ACK as well.
 */
static enum vroce_resp_result vroce_resp_placement(struct vroce_qp *qp,
						   struct vroce_pkt *pkt,
						   struct sk_buff_head *out)
{
	struct vroce_reth *reth = vroce_pkt_ext(pkt, VROCE_EXT_RETH);
	bool awrite = pkt->flags & VROCE_F_ATOMIC_WRITE;
	u64 va = be64_to_cpu(reth->va);
	u32 len = awrite ? sizeof(u64) : be32_to_cpu(reth->len);
	int access = IB_ACCESS_REMOTE_WRITE;
	u64 *range = &va;
	struct vroce_mr *mr;
	int err = 0;

	if (awrite && (pkt->paylen != sizeof(u64) || (va & 7)))
		return VROCE_RESP_INVALID;
	if (!awrite) {
		struct vroce_feth *feth = vroce_pkt_ext(pkt, VROCE_EXT_FETH);
		u8 level = vroce_feth_sel(feth);

		/*
		 * vroce places into memory, never persistently, and does not
		 * advertise it: a persistent (or reserved) placement type is
		 * a request this responder cannot execute, as rdma_rxe
		 * answers one its QP was not granted.  The MR must allow
		 * what the type asks for; the key is checked even for an
		 * empty range, and at the MR level the range is not read.
		 */
		if (vroce_feth_plt(feth) != VROCE_FETH_PLT_GLOBAL ||
		    level > VROCE_FETH_SEL_MR || !VROCE_ACCESS_FLUSH)
			return VROCE_RESP_INVALID;
		access = VROCE_ACCESS_FLUSH;
		if (level == VROCE_FETH_SEL_MR)
			range = NULL;
	}
	mr = vroce_mr_lookup_rkey(qp->vdev, qp->ibqp.pd, qp->ibqp.qp_num,
				  be32_to_cpu(reth->rkey), range, len, access);
	if (IS_ERR(mr))
		return vroce_resp_access_err(qp);
	if (awrite) {
		spin_lock(&vroce_atomic_lock);
		err = vroce_mr_copy(mr, va, vroce_pkt_payload(pkt), len, true);
		spin_unlock(&vroce_atomic_lock);
	}
	vroce_mr_put(mr);
	if (err)
		return VROCE_RESP_ACCESS;
	qp->resp.msn = (qp->resp.msn + 1) & VROCE_AETH_MSN_MASK;
	qp->resp.epsn = vroce_psn_add(pkt->psn, 1);
	vroce_resp_queue_aeth(qp, out, VROCE_READ_RESP_ONLY,
			      VROCE_AETH_ACK_UNLIMITED, pkt->psn);
	return VROCE_RESP_REPLIED;
}

/* Is @pkt the packet the message in progress (or its absence) allows? */
static bool vroce_resp_seq_ok(struct vroce_resp *resp, struct vroce_pkt *pkt)
{
	u32 kind = pkt->flags & (VROCE_F_SEND | VROCE_F_WRITE);

	if (resp->in_msg)
		return !(pkt->flags & VROCE_F_FIRST) && kind == resp->msg_flags;
	return pkt->flags & VROCE_F_FIRST;
}

/*
 * Does the QP's qp_access_flags let the peer do this?  A valid rkey is
 * not enough: a QP brought up without remote rights must refuse remote
 * access to any MR of its PD (a remote access error, as for a bad key).
 * FLUSH to global visibility needs that flush right; a persistent one is
 * refused whatever the QP allows (vroce_resp_placement()).
 */
static bool vroce_resp_qp_allows(struct vroce_qp *qp, struct vroce_pkt *pkt)
{
	int access = READ_ONCE(qp->attr.qp_access_flags);

	if (pkt->flags & VROCE_F_READ)
		return access & IB_ACCESS_REMOTE_READ;
	if (pkt->flags & VROCE_F_ATOMIC)
		return access & IB_ACCESS_REMOTE_ATOMIC;
	if (pkt->flags & (VROCE_F_WRITE | VROCE_F_ATOMIC_WRITE))
		return access & IB_ACCESS_REMOTE_WRITE;
	if (pkt->flags & VROCE_F_FLUSH) {
		struct vroce_feth *feth = vroce_pkt_ext(pkt, VROCE_EXT_FETH);

		return !(vroce_feth_plt(feth) & VROCE_FETH_PLT_GLOBAL) ||
		       (access & VROCE_ACCESS_FLUSH);
	}
	return true;
}

static enum vroce_resp_result vroce_resp_execute(struct vroce_qp *qp,
						 struct vroce_pkt *pkt,
						 struct sk_buff_head *out)
{
	struct vroce_resp *resp = &qp->resp;
	enum vroce_resp_result r;

	if (!vroce_resp_seq_ok(resp, pkt)) {
		vroce_counter_inc(qp->vdev, VROCE_CNT_RESP_INVALID_REQUEST);
		return VROCE_RESP_INVALID;
	}
	if (!vroce_resp_qp_allows(qp, pkt))
		return vroce_resp_access_err(qp);
	if (pkt->flags & VROCE_F_READ)
		return vroce_resp_read(qp, pkt, out);
	if (pkt->flags & VROCE_F_ATOMIC)
		return vroce_resp_atomic(qp, pkt, out);
	if (pkt->flags & VROCE_F_SEND)
		r = vroce_resp_send(qp, pkt);
	else if (pkt->flags & VROCE_F_WRITE)
		r = vroce_resp_write(qp, pkt);
	else
		return vroce_resp_placement(qp, pkt, out);
	if (r != VROCE_RESP_OK)
		return r;

	if (pkt->flags & VROCE_F_LAST) {
		resp->in_msg = false;
		resp->msg_flags = 0;
		resp->msn = (resp->msn + 1) & VROCE_AETH_MSN_MASK;
	} else {
		resp->in_msg = true;
		resp->msg_flags = pkt->flags & (VROCE_F_SEND | VROCE_F_WRITE);
	}
	return VROCE_RESP_OK;
}

/*
 * A request past a gap was discarded: one sequence error NAK for the
 * gap, until the expected packet or a duplicate arrives (@nak_sent).
 */
static void vroce_resp_nak_gap(struct vroce_qp *qp, struct sk_buff_head *out)
{
	struct vroce_resp *resp = &qp->resp;

	lockdep_assert_held(&resp->lock);
	if (resp->nak_sent)
		return;
	resp->nak_sent = true;
	resp->dup_acked = false;
	vroce_resp_queue_ack(qp, out, VROCE_NAK_PSN_SEQ_ERR, resp->epsn);
}

static void vroce_resp_rc(struct vroce_qp *qp, struct vroce_pkt *pkt,
			  struct sk_buff_head *out, bool *error)
{
	struct vroce_resp *resp = &qp->resp;
	s32 diff = vroce_psn_diff(pkt->psn, resp->epsn);
	enum vroce_resp_result r;
	u8 syndrome;

	if (diff > 0) {
		if (vroce_reseq_hold(qp, pkt, diff))
			return;
		/* go-back-N: the requester resends what is held too */
		vroce_counter_add(qp->vdev, VROCE_CNT_OUT_OF_SEQUENCE,
				  1 + vroce_reseq_drop(qp));
		vroce_resp_nak_gap(qp, out);
		return;
	}
	if (diff < 0) {
		vroce_resp_duplicate(qp, pkt, out);
		return;
	}
	resp->nak_sent = false;
	resp->dup_acked = false;

	r = vroce_resp_execute(qp, pkt, out);
	switch (r) {
	case VROCE_RESP_OK:
		resp->epsn = vroce_psn_add(pkt->psn, 1);
		if (vroce_bth_ackreq(pkt->bth) ||
		    ++resp->unacked >= VROCE_RESP_ACK_EVERY) {
			resp->unacked = 0;
			vroce_resp_queue_ack(qp, out, VROCE_AETH_ACK_UNLIMITED,
					     pkt->psn);
		}
		return;
	case VROCE_RESP_REPLIED:
		/* A READ response or atomic ACK acknowledges all before it. */
		resp->unacked = 0;
		return;
	case VROCE_RESP_RNR:
		syndrome = VROCE_AETH_RNR_NAK |
			   (READ_ONCE(qp->attr.min_rnr_timer) &
			    VROCE_AETH_CREDIT_MASK);
		vroce_resp_queue_ack(qp, out, syndrome, pkt->psn);
		/* it resends from @pkt on, what is held included */
		vroce_counter_add(qp->vdev, VROCE_CNT_OUT_OF_SEQUENCE,
				  vroce_reseq_drop(qp));
		return;
	case VROCE_RESP_INVALID:
		syndrome = VROCE_NAK_INVALID_REQ;
		break;
	case VROCE_RESP_ACCESS:
		syndrome = VROCE_NAK_REM_ACCESS;
		break;
	default:
		syndrome = VROCE_NAK_REM_OP_ERR;
		break;
	}
	/* Class C/D errors: NAK, and the responder QP goes to ERR. */
	vroce_resp_queue_ack(qp, out, syndrome, pkt->psn);
	vroce_resp_drop_msg(resp);
	*error = true;
}

/*
 * Requests held ahead of a gap that the last one filled, in PSN order.
 * Like a packet that arrives while READ jobs are pending (one of them
 * may be a held READ's), a request's answers wait behind the jobs;
 * otherwise they join @out.
 */
static void vroce_resp_rc_held(struct vroce_qp *qp, struct sk_buff_head *out,
			       bool *error)
{
	struct sk_buff_head mine;
	struct vroce_pkt held;
	bool behind;

	__skb_queue_head_init(&mine);
	while (!*error && vroce_reseq_next(qp, &held)) {
		behind = !list_empty(&qp->resp.jobs);
		vroce_resp_rc(qp, &held, &mine, error);
		kfree_skb(held.skb);
		if (behind && !*error)
			vroce_resp_defer(qp, &mine);
		else
			skb_queue_splice_tail_init(&mine, out);
	}
}

/**
 * vroce_resp_gap_expired() - requests held ahead of a gap waited too long
 * @qp: the QP
 *
 * The gap is a loss after all: the held requests are discarded and the
 * sequence error NAK that their arrival would have sent goes now, unless
 * one went already.  Softirq context (reseq.c's timer).
 */
void vroce_resp_gap_expired(struct vroce_qp *qp)
{
	struct vroce_resp *resp = &qp->resp;
	struct vroce_pkt from = {};
	struct sk_buff_head out;
	struct vroce_av av;
	u32 entropy;

	__skb_queue_head_init(&out);
	spin_lock_bh(&resp->lock);
	if (vroce_reseq_take_any(qp, &from)) {
		vroce_counter_add(qp->vdev, VROCE_CNT_OUT_OF_SEQUENCE,
				  1 + vroce_reseq_drop(qp));
		vroce_resp_nak_gap(qp, &out);
		if (!list_empty(&resp->jobs))
			vroce_resp_defer(qp, &out);
	}
	if (skb_queue_empty(&out)) {
		spin_unlock_bh(&resp->lock);
	} else {
		vroce_resp_av(qp, &from, &av, &entropy);
		vroce_resp_answer(qp, &av, entropy, &out);
	}
	kfree_skb(from.skb);
}

static void vroce_resp_uc(struct vroce_qp *qp, struct vroce_pkt *pkt,
			  bool *error)
{
	struct vroce_resp *resp = &qp->resp;
	enum vroce_resp_result r;

	if (pkt->psn != resp->epsn || resp->drop_msg) {
		/* A lost packet kills its message; resynchronise on the next. */
		if (resp->in_msg)
			vroce_resp_drop_msg(resp);
		resp->drop_msg = !(pkt->flags & VROCE_F_FIRST);
		if (resp->drop_msg) {
			resp->epsn = vroce_psn_add(pkt->psn, 1);
			return;
		}
	}
	resp->epsn = vroce_psn_add(pkt->psn, 1);
	r = vroce_resp_execute(qp, pkt, NULL);
	if (r == VROCE_RESP_OK)
		return;
	vroce_resp_drop_msg(resp);
	resp->drop_msg = !(pkt->flags & VROCE_F_LAST);
	/* No RNR on UC: the message is dropped; other errors are the QP's. */
	if (r != VROCE_RESP_RNR && r != VROCE_RESP_ACCESS &&
	    r != VROCE_RESP_INVALID)
		*error = true;
}

static void vroce_resp_ud(struct vroce_qp *qp, struct vroce_pkt *pkt,
			  bool *error)
{
	struct vroce_resp *resp = &qp->resp;
	struct vroce_deth *deth = vroce_pkt_ext(pkt, VROCE_EXT_DETH);
	u8 grh[VROCE_GRH_SIZE] = {};
	struct ipv6hdr *ip6h;
	int err;

	if (be32_to_cpu(deth->qkey) != READ_ONCE(qp->attr.qkey)) {
		vroce_counter_inc(qp->vdev, VROCE_CNT_RX_QKEY_VIOLATION);
		return;
	}
	err = vroce_resp_take_wqe(qp);
	if (err == -EAGAIN) {
		vroce_counter_inc(qp->vdev, VROCE_CNT_OUT_OF_BUFFER);
		return;
	}
	if (err) {
		vroce_resp_recv_done(qp, pkt, IB_WC_RECV, 0,
				     IB_WC_LOC_QP_OP_ERR);
		*error = true;
		return;
	}

	/*
	 * The first 40 bytes of a UD receive hold the GRH; for RoCEv2 over
	 * IPv4, the IPv4 header in their last 20 bytes (ib_core reads it
	 * there when the completion says RDMA_NETWORK_IPV4).
	 */
	if (pkt->ipv6) {
		ip6h = ipv6_hdr(pkt->skb);
		memcpy(grh, ip6h, sizeof(*ip6h));
	} else {
		memcpy(grh + 20, ip_hdr(pkt->skb), sizeof(struct iphdr));
	}
	err = vroce_resp_place(qp, grh, sizeof(grh));
	if (!err)
		err = vroce_resp_place(qp, vroce_pkt_payload(pkt),
				       pkt->paylen);
	if (err) {
		if (err == -EMSGSIZE)
			vroce_counter_inc(qp->vdev,
					  VROCE_CNT_RESP_LOCAL_LENGTH_ERROR);
		vroce_resp_recv_done(qp, pkt, IB_WC_RECV, resp->wqe_off,
				     err == -EMSGSIZE ? IB_WC_LOC_LEN_ERR :
							IB_WC_LOC_PROT_ERR);
		*error = err != -EMSGSIZE;
		return;
	}
	vroce_resp_recv_done(qp, pkt, IB_WC_RECV, resp->wqe_off,
			     IB_WC_SUCCESS);
}

/* Does the packet's transport match the QP's type? */
static bool vroce_resp_type_ok(struct vroce_qp *qp, u8 opcode)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		return (opcode & 0xe0) == VROCE_OP_RC;
	case IB_QPT_UC:
		return (opcode & 0xe0) == VROCE_OP_UC;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		return (opcode & 0xe0) == VROCE_OP_UD;
	default:
		return false;
	}
}

/*
 * Raise a receive completion's event.  Responses that reached this QP
 * before the request may still wait for the runner (comp.c); a NIC
 * handles a QP's packets in arrival order, so their send completions must
 * not come after this event: an application woken by it could find the
 * CQE of its own earlier SEND missing.  So an RC QP's event is the
 * runner's to raise, after the responses queued before it: in place when
 * the runner is idle, else by its holder's next pass (vroce_qp_run()).
 */
static void vroce_resp_signal(struct vroce_qp *qp)
{
	if (qp->ibqp.qp_type == IB_QPT_RC) {
		atomic_set(&qp->req.recv_event, 1);
		vroce_qp_run(qp, false);
		return;
	}
	vroce_cq_signal(to_vroce_cq(qp->ibqp.recv_cq));
}

/**
 * vroce_resp_rcv() - a request packet for one of our QPs
 * @pkt: parsed packet; its skb is consumed
 */
void vroce_resp_rcv(struct vroce_pkt *pkt)
{
	struct sk_buff_head out;
	struct vroce_qp *qp;
	bool error = false, behind = false, signal;
	enum ib_qp_state state;
	struct vroce_av av;
	u32 entropy;

	qp = vroce_qp_get(pkt->vdev, pkt->qpn);
	if (!qp || !vroce_resp_type_ok(qp, pkt->opcode)) {
		vroce_counter_inc(pkt->vdev, VROCE_CNT_RX_NO_QP);
		goto free;
	}
	state = vroce_qp_state(qp);
	if (state != IB_QPS_RTR && state != IB_QPS_RTS &&
	    state != IB_QPS_SQD && state != IB_QPS_SQE)
		goto free;
	if ((qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC) &&
	    !vroce_pkt_from_peer(pkt, qp))
		goto free;
	/* the notification point of requests; the CNP leaves now */
	if (unlikely(INET_ECN_is_ce(pkt->tos)) &&
	    qp->ibqp.qp_type == IB_QPT_RC)
		vroce_cc_ce_rcv(qp, pkt);

	__skb_queue_head_init(&out);
	spin_lock_bh(&qp->resp.lock);
	if (!qp->resp.wqe)
		goto unlock;
	behind = !list_empty(&qp->resp.jobs);
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		vroce_resp_rc(qp, pkt, &out, &error);
		break;
	case IB_QPT_UC:
		vroce_resp_uc(qp, pkt, &error);
		break;
	default:
		vroce_resp_ud(qp, pkt, &error);
		break;
	}
	/* An error NAK goes now: the QP's flush ends the jobs anyway. */
	if (behind && !error)
		vroce_resp_defer(qp, &out);
	if (qp->ibqp.qp_type == IB_QPT_RC)
		vroce_resp_rc_held(qp, &out, &error);
unlock:
	signal = qp->resp.signal_owed;
	qp->resp.signal_owed = false;
	if (skb_queue_empty(&out)) {
		spin_unlock_bh(&qp->resp.lock);
	} else {
		vroce_resp_av(qp, pkt, &av, &entropy);
		vroce_resp_answer(qp, &av, entropy, &out);
	}
	if (signal)
		vroce_resp_signal(qp);
	if (error)
		vroce_qp_error(qp);
free:
	if (qp)
		vroce_qp_put(qp);
	kfree_skb(pkt->skb);
}
