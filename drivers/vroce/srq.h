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
 * @lock: serialises takers, kernel posters, modify (resize, limit);
 *	irqsave (the receive path takes in softirq)
 * @queue: ring of struct rxe_recv_wqe + max_sge SGEs per slot (@lock)
 * @is_user: the ring is mapped by a process (immutable)
 * @srq_num: number reported to user space (create_srq response), index
 *	in vroce_dev.srqs; nothing looks SRQs up by number yet: a lookup
 *	(XRC) must add a reference count first (immutable)
 * @max_wr: usable slots as reported to the consumer (@lock)
 * @max_sge: SGEs per WQE as reported to the consumer (immutable)
 * @limit: armed limit (0: not armed); the event fires once, then
 *	disarms (@lock)
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
 * @len: size of @wqe; at least sizeof(struct rxe_recv_wqe) plus max_sge
 *	struct rxe_sge, or WQEs with many SGEs are refused
 *
 * Callable from any context.  Only the copy in @wqe is validated and
 * returned: num_sge within max_sge, the length fields recomputed from the
 * SGEs, the DMA cursor reset.  A bad WQE is consumed all the same.
 * Raises IB_EVENT_SRQ_LIMIT_REACHED once when the armed limit is crossed.
 *
 * Return: 0 with @wqe filled, -EAGAIN when empty, -EINVAL for a bad WQE.
 */
int vroce_srq_take(struct vroce_srq *srq, struct rxe_recv_wqe *wqe,
		   size_t len);

extern const struct ib_device_ops vroce_srq_ops;

#endif /* VROCE_SRQ_H */
