/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared receive queues.  The responder takes receive WQEs with
 * vroce_srq_take(); srq.c owns the ring, resize and the limit event.
 */
#ifndef VROCE_SRQ_H
#define VROCE_SRQ_H

#include "queue.h"

/**
 * struct vroce_srq - shared receive queue
 * @ibsrq: the ib_core SRQ
 * @lock: serialises takers, kernel posters, modify (resize, limit)
 * @queue: ring of struct rxe_recv_wqe + max_sge SGEs per slot
 * @is_user: the ring is mapped by a process
 * @srq_num: number reported to user space (create_srq response)
 * @max_wr: usable slots as reported to the consumer
 * @max_sge: SGEs per WQE as reported to the consumer
 * @limit: armed limit (0: not armed); the event fires once, then disarms
 */
struct vroce_srq {
	struct ib_srq ibsrq;
	spinlock_t lock; /* see above */
	struct vroce_queue queue;
	bool is_user;
	u32 srq_num;
	u32 max_wr;
	u32 max_sge;
	u32 limit;
};

static inline struct vroce_srq *to_vroce_srq(struct ib_srq *ibsrq)
{
	return ibsrq ? container_of(ibsrq, struct vroce_srq, ibsrq) : NULL;
}

/**
 * vroce_srq_take() - remove the next receive WQE, copied and validated
 * @srq: the SRQ
 * @wqe: buffer for the WQE (header and SGE list)
 * @len: size of @wqe; at least sizeof(rxe_recv_wqe) + max_sge SGEs
 *
 * Callable from any context.  A WQE whose num_sge exceeds the SRQ's
 * max_sge is clamped to an error by returning -EINVAL after consuming it.
 * Raises IB_EVENT_SRQ_LIMIT_REACHED when the armed limit is crossed.
 *
 * Return: 0 with @wqe filled, -EAGAIN when empty, -EINVAL for a bad WQE.
 */
int vroce_srq_take(struct vroce_srq *srq, struct rxe_recv_wqe *wqe,
		   size_t len);

extern const struct ib_device_ops vroce_srq_ops;

#endif /* VROCE_SRQ_H */
