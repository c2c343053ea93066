/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queue pairs: attributes, the IBTA state machine, the send and receive
 * queues, and flushing to ERR.  The transport engines (req/resp/comp)
 * build on this struct.
 *
 * Files: qp.c creates, looks up and destroys QPs; qp_state.c holds
 * modify_qp/query_qp and the state machine; wq.c the rings' geometry;
 * sq.c and rq.c posting, the checks every WQE passes, completion and
 * flush; runner.c the run state that drives the send side (never
 * sleeping).
 *
 * The send queue has two rings.  A user QP's process writes WQEs into a
 * shared ring (@sq.queue); the kernel copies each one into a private ring
 * (@sq.slots) and checks the copy, which is all the transport ever reads.
 * A kernel QP has only the private ring, written by post_send.  The
 * shared ring's consumer index follows @sq.head: it moves when a WQE
 * completes, never when it is copied.  The receive queue is one ring
 * (process- or kernel-produced) that the responder and the flush consume
 * from, copying each WQE out first.
 */
#ifndef VROCE_QP_H
#define VROCE_QP_H

#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>

#include "cc/cc.h"
#include "queue.h"
#include "req.h"
#include "resp.h"

struct vroce_ah;
struct vroce_dev;

/**
 * struct vroce_sq_slot - header of one entry of a send queue's private ring
 * @ah: kernel UD/GSI work request: its AH, which the ULP keeps alive until
 *	the WQE completes; NULL for a user WQE, which names its AH by
 *	wr.wr.ud.ah_num (looked up and PD-checked when used)
 * @status: IB_WC_SUCCESS, or the error the WQE completes with when the
 *	send path reaches it (set by the checks of a user WQE)
 * @resume: packet of the WQE its next (re)transmission starts at: 0, or
 *	where the peer asked to go on from (a NAK's PSN, the first READ
 *	response not yet received); set by the runner
 *
 * The struct rxe_send_wqe follows (vroce_sq_wqe()), then up to
 * max(max_sge SGEs, max_inline bytes).  Entries between head and tail are
 * written once, before tail moves past them, and read by the runner.
 */
struct vroce_sq_slot {
	struct vroce_ah *ah;
	enum ib_wc_status status;
	u32 resume;
};

/* Offset of the WQE in a private slot. */
#define VROCE_SQ_SLOT_HDR	ALIGN(sizeof(struct vroce_sq_slot), 8)

/**
 * struct vroce_sq - send queue
 * @lock: serialises kernel posters with each other and with the runner's
 *	use of @head and @tail; irqsave (ULPs post from any context)
 * @queue: user QP only: the ring the process writes WQEs into (owned by
 *	the runner, under the QP's run_lock)
 * @slots: the private ring: checked copies of the WQEs from @head to @tail
 * @slot_size: bytes per entry of @slots (immutable)
 * @mask: entries in @slots - 1, a power of two minus one (immutable)
 * @max_wr: WQEs the queue holds, as reported to the consumer (immutable)
 * @max_sge: SGEs per WQE, as reported (immutable)
 * @max_inline: inline bytes per WQE, as reported (immutable)
 * @head: oldest WQE not completed, free running; written by the runner
 *	under @lock
 * @next: next WQE for the send path (@head <= @next <= @tail): the WQEs
 *	before it are being executed; runner only (run_lock)
 * @tail: next free entry, free running; kernel QP: written by post_send
 *	under @lock; user QP: by the runner under run_lock
 */
struct vroce_sq {
	spinlock_t lock; /* see above */
	struct vroce_queue queue;
	void *slots;
	u32 slot_size;
	u32 mask;
	u32 max_wr;
	u32 max_sge;
	u32 max_inline;
	u32 head;
	u32 next;
	u32 tail;
};

/**
 * struct vroce_rq - receive queue (not used when the QP has an SRQ)
 * @lock: serialises kernel posters with each other, and the consumers
 *	(responder, flush, reset) with each other; irqsave
 * @queue: ring of struct rxe_recv_wqe + @max_sge SGEs per slot; produced
 *	by the process (user QP) or by post_recv
 * @max_wr: WQEs the queue holds, as reported (immutable)
 * @max_sge: SGEs per WQE, as reported (immutable)
 */
struct vroce_rq {
	spinlock_t lock; /* see above */
	struct vroce_queue queue;
	u32 max_wr;
	u32 max_sge;
};

/**
 * struct vroce_qpn - what vroce_dev.qps holds for a QP number
 * @ref: one for the QP's life, plus one per lookup holding the QP
 * @qp: the QP
 * @rcu: the entry is freed a grace period after the QP left the table: a
 *	lookup that found it may still try @ref, and touches @qp only once
 *	that succeeded.  ib_core frees the QP itself as soon as destroy_qp
 *	returns, so the count cannot live there without a synchronize_rcu()
 *	in every destroy.
 */
struct vroce_qpn {
	refcount_t ref;
	struct vroce_qp *qp;
	struct rcu_head rcu;
};

/**
 * struct vroce_qp - queue pair
 * @ibqp: the ib_core QP (qp_num, qp_type, pd, send_cq, recv_cq, srq;
 *	av_sgid_attr: the source GID of the primary path)
 * @vdev: the device
 * @qpn: the QP's entry in vroce_dev.qps, which counts the references of
 *	lookups by QPN (the wire, multicast); destroy removes the entry and
 *	then waits for @released
 * @released: completed when the last reference is dropped
 * @run_lock: held by the runner while it runs (runner.c: taken with a
 *	trylock, never waited for by the data path) and by modify_qp, reset
 *	and destroy to hold it off; BH-safe, nothing under it sleeps
 * @run_flags: VROCE_RUN_AGAIN: a run was asked for; the holder of
 *	@run_lock makes another pass (atomic bit operations)
 * @run_work: runs the runner from process context (kernel QPs, a run
 *	past its budget, data-path errors, the ERR poll of a user RQ)
 * @err_poll: delay of the next ERR poll of a user RQ (@run_lock)
 * @err_seen: the runner has handled ERR since the last RESET: the poll
 *	delay is set up, IB_EVENT_QP_LAST_WQE_REACHED was raised (SRQ)
 *	(@run_lock)
 * @state_lock: protects @state, @sq_draining and @attr against modify_qp
 *	and the data path; irqsave (the data path runs in softirq)
 * @state: current IBTA state; read locklessly (READ_ONCE) where a stale
 *	value is followed by a kick of the runner, which rereads it
 * @sq_draining: in SQD, WQEs the send path had started are not complete
 * @attr: the attributes last set by modify_qp, returned by query_qp
 *	(ah_attr without its sgid_attr: ib_core keeps that in @ibqp)
 * @is_user: rings are mapped by a process (immutable)
 * @sq_sig_all: IB_SIGNAL_ALL_WR at creation (immutable)
 * @sq: send queue
 * @rq: receive queue (unused when the QP has an SRQ)
 * @mcg_list: multicast groups this UD QP is attached to (transport)
 * @resp: responder state (resp.c)
 * @req: requester and completer state (req.c, comp.c)
 * @cc: congestion control's notification and reaction points (cc/)
 *
 * Transport state joins here.  Its hooks belong in: vroce_create_qp()
 * and vroce_destroy_qp() (qp.c); vroce_qp_enter() for RESET and
 * vroce_modify_qp() for a new rq_psn/sq_psn (qp_state.c);
 * vroce_qp_run_err() in rq.c for a receive WQE the responder holds (before
 * the RQ flush); vroce_req_kick() (runner.c) to wake the requester.
 */
struct vroce_qp {
	struct ib_qp ibqp;
	struct vroce_dev *vdev;
	struct vroce_qpn *qpn;
	struct completion released;

	spinlock_t run_lock; /* see above */
	unsigned long run_flags;
	struct delayed_work run_work;
	unsigned long err_poll;
	bool err_seen;

	spinlock_t state_lock; /* see above */
	enum ib_qp_state state;
	bool sq_draining;
	struct ib_qp_attr attr;

	bool is_user;
	bool sq_sig_all;
	struct vroce_sq sq;
	struct vroce_rq rq;
	struct list_head mcg_list;
	struct vroce_resp resp;
	struct vroce_req req;
	struct vroce_cc_qp cc;
};

/* Bit of vroce_qp.run_flags. */
#define VROCE_RUN_AGAIN		0

static inline struct vroce_qp *to_vroce_qp(struct ib_qp *ibqp)
{
	return ibqp ? container_of(ibqp, struct vroce_qp, ibqp) : NULL;
}

/* The state for a quick check; see @state above. */
static inline enum ib_qp_state vroce_qp_state(const struct vroce_qp *qp)
{
	return READ_ONCE(qp->state);
}

/* Private send slot @index (free running) and the WQE in it. */
static inline struct vroce_sq_slot *vroce_sq_slot(const struct vroce_sq *sq,
						  u32 index)
{
	return sq->slots + (size_t)(index & sq->mask) * sq->slot_size;
}

static inline struct rxe_send_wqe *vroce_sq_wqe(struct vroce_sq_slot *slot)
{
	return (void *)slot + VROCE_SQ_SLOT_HDR;
}

/**
 * vroce_qp_get() - look a QP up by number, for the receive path
 * @vdev: the device
 * @qpn: 24-bit QP number
 *
 * Callable from any context.  Return: referenced QP (vroce_qp_put()) or
 * NULL.
 */
struct vroce_qp *vroce_qp_get(struct vroce_dev *vdev, u32 qpn);
void vroce_qp_put(struct vroce_qp *qp);
unsigned int vroce_qp_for_each(struct vroce_dev *vdev,
			       bool (*fn)(struct vroce_qp *qp, void *arg),
			       void *arg);

/**
 * vroce_qp_error() - move a QP to ERR from the data path and flush it
 * @qp: the QP
 *
 * Callable from any context.  Raises IB_EVENT_QP_FATAL for a QP that was
 * not already in ERR (or RESET, where nothing runs); the flush runs from
 * the QP's work item.
 */
void vroce_qp_error(struct vroce_qp *qp);

/**
 * vroce_req_kick() - wake the requester: new WQEs, or the state allows
 *	sending again
 * @qp: the QP
 *
 * The one place the send path is woken.  Kernel QP: any context, the work
 * runs from a work item.  User QP: process context (the doorbell and
 * modify_qp system calls), it runs before this returns.
 */
void vroce_req_kick(struct vroce_qp *qp);

/**
 * vroce_qp_run() - run the QP's runner now, or make its holder run again
 * @qp: the QP
 * @may_sleep: the caller is in process context and may sleep
 *
 * Callable from any context (runner.c); never waits for another runner.
 */
void vroce_qp_run(struct vroce_qp *qp, bool may_sleep);

/**
 * vroce_rq_take() - remove the next receive WQE, copied and validated
 * @qp: a QP without SRQ
 * @wqe: buffer for the WQE
 * @len: size of @wqe: sizeof(struct rxe_recv_wqe) + max_sge SGEs
 *
 * As vroce_srq_take(): any context, only the copy is validated (num_sge
 * within max_sge, lengths recomputed, cursor reset), a bad WQE is
 * consumed all the same.  A WQE taken is the caller's to complete, with
 * IB_WC_WR_FLUSH_ERR if the QP goes to ERR first.
 *
 * Return: 0, -EAGAIN when empty, -EINVAL for a bad WQE.
 */
int vroce_rq_take(struct vroce_qp *qp, struct rxe_recv_wqe *wqe, size_t len);

extern const struct ib_device_ops vroce_qp_ops;

/* Between qp.c, qp_state.c and the work-queue files only. */
struct rxe_create_qp_resp;

int vroce_wq_create(struct vroce_qp *qp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata, struct rxe_create_qp_resp *resp);
void vroce_wq_destroy(struct vroce_qp *qp);
void vroce_wq_reset(struct vroce_qp *qp);
void vroce_sq_complete(struct vroce_qp *qp, enum ib_wc_status status);
void vroce_qp_schedule(struct vroce_qp *qp);
void vroce_run_init(struct vroce_qp *qp);
void vroce_run_lock(struct vroce_qp *qp);
void vroce_run_unlock(struct vroce_qp *qp);

/* The runner's steps (sq.c, rq.c), run_lock held; @budget: steps left. */
void vroce_sq_discard(struct vroce_qp *qp);
void vroce_sq_intake(struct vroce_qp *qp, bool check, int *budget);
void vroce_sq_exec(struct vroce_qp *qp, int *budget);
void vroce_sq_drain_check(struct vroce_qp *qp);
void vroce_sq_flush(struct vroce_qp *qp, int *budget);
void vroce_qp_run_err(struct vroce_qp *qp, int *budget);
void vroce_qp_event(struct vroce_qp *qp, enum ib_event_type type);
bool vroce_qp_set_error(struct vroce_qp *qp);
int vroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int vroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
int vroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int vroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);

#endif /* VROCE_QP_H */
