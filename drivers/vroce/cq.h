/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Completion queues.  The engines and the QP flush path post completions
 * with vroce_cq_post(); cq.c owns the ring, arming and events.
 */
#ifndef VROCE_CQ_H
#define VROCE_CQ_H

#include "queue.h"

/**
 * struct vroce_cq - completion queue
 * @ibcq: the ib_core CQ
 * @lock: serialises producers (engines, flush), poll_cq, arming and resize;
 *	taken with irqsave, never held while calling comp_handler
 * @queue: the ring; a user CQ's slots are struct ib_uverbs_wc (the rxe
 *	ABI), a kernel CQ's are struct ib_wc (@lock)
 * @is_user: the ring is mapped by a process (immutable)
 * @notify: IB_CQ_NEXT_COMP / IB_CQ_SOLICITED bits armed, 0 when not
 *	armed; cleared when the comp_handler is scheduled (@lock)
 * @overflowed: a completion was lost; the CQ is in error (IB_EVENT_CQ_ERR
 *	was raised once) and further posts fail; entries already in the
 *	ring can still be polled (@lock)
 */
struct vroce_cq {
	struct ib_cq ibcq;
	spinlock_t lock; /* see above */
	struct vroce_queue queue;
	bool is_user;
	u8 notify;
	bool overflowed;
};

static inline struct vroce_cq *to_vroce_cq(struct ib_cq *ibcq)
{
	return ibcq ? container_of(ibcq, struct vroce_cq, ibcq) : NULL;
}

/**
 * vroce_cq_post() - add one completion and signal it if armed
 * @cq: the CQ
 * @wc: the completion, kernel form (wc->qp set)
 * @solicited: the completion is for a solicited event
 *
 * Callable from any context.  Calls the CQ's comp_handler (after dropping
 * the CQ lock) when the CQ was armed for this completion.
 *
 * Return: 0, or -ENOSPC when the CQ is full or in error: the completion
 * is dropped; on the first overflow the CQ goes into error and
 * IB_EVENT_CQ_ERR is raised.
 */
int vroce_cq_post(struct vroce_cq *cq, const struct ib_wc *wc, bool solicited);
int vroce_cq_post_quiet(struct vroce_cq *cq, const struct ib_wc *wc,
			bool solicited, bool *signal);
void vroce_cq_signal(struct vroce_cq *cq);

void vroce_cq_forget_qp(struct vroce_cq *cq, struct ib_qp *qp);

extern const struct ib_device_ops vroce_cq_ops;

#endif /* VROCE_CQ_H */
