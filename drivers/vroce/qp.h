/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queue pairs: attributes, the IBTA state machine, the send and receive
 * queues, and flushing to ERR.  The transport engines (req/resp/comp)
 * build on this struct.
 */
#ifndef VROCE_QP_H
#define VROCE_QP_H

#include <linux/refcount.h>
#include <linux/completion.h>

#include "queue.h"

struct vroce_dev;
struct vroce_cq;
struct vroce_srq;

/**
 * struct vroce_wq - a send or receive queue
 * @lock: serialises producers (kernel post verbs) and the consumer
 * @queue: ring of struct rxe_send_wqe (SQ) or struct rxe_recv_wqe (RQ),
 *	each followed by @max_sge SGEs or inline data
 * @max_wr: usable slots reported to the consumer
 * @max_sge: SGEs per WQE reported to the consumer
 * @max_inline: inline bytes per send WQE (SQ only)
 */
struct vroce_wq {
	spinlock_t lock; /* see above */
	struct vroce_queue queue;
	u32 max_wr;
	u32 max_sge;
	u32 max_inline;
};

/**
 * struct vroce_qp - queue pair
 * @ibqp: the ib_core QP (qp_num, qp_type, pd, send_cq, recv_cq, srq)
 * @vdev: the device
 * @ref: lookups by QPN (the wire, multicast) hold a reference; destroy
 *	removes the QPN and then waits for @released
 * @released: completed when @ref drops to zero
 * @state_lock: protects @state and @attr against modify_qp and the
 *	data path; irqsave (completions may be generated in softirq)
 * @state: current IBTA state
 * @attr: the attributes last set by modify_qp, returned by query_qp
 * @is_user: rings are mapped by a process
 * @sq_sig_all: IB_SIGNAL_ALL_WR at creation
 * @sq: send queue
 * @rq: receive queue (unused when the QP has an SRQ)
 * @mcg_list: multicast groups this UD QP is attached to (transport)
 */
struct vroce_qp {
	struct ib_qp ibqp;
	struct vroce_dev *vdev;
	refcount_t ref;
	struct completion released;

	spinlock_t state_lock; /* see above */
	enum ib_qp_state state;
	struct ib_qp_attr attr;

	bool is_user;
	bool sq_sig_all;
	struct vroce_wq sq;
	struct vroce_wq rq;
	struct list_head mcg_list;
};

static inline struct vroce_qp *to_vroce_qp(struct ib_qp *ibqp)
{
	return ibqp ? container_of(ibqp, struct vroce_qp, ibqp) : NULL;
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

/**
 * vroce_qp_error() - move a QP to ERR from the data path and flush it
 * @qp: the QP
 *
 * Raises IB_EVENT_QP_FATAL for a QP that was not already in ERR.
 */
void vroce_qp_error(struct vroce_qp *qp);

extern const struct ib_device_ops vroce_qp_ops;

#endif /* VROCE_QP_H */
