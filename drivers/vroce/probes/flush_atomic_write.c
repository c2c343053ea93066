// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_FLUSH_ATOMIC_WRITE: the IBTA 1.5 memory placement operations, FLUSH
 * and ATOMIC WRITE, in the verbs (work request and completion opcodes,
 * device capabilities, MR access rights) and in the soft-RoCE user ABI's
 * send WQE (v6.2, "RDMA/rxe: Implement flush" and "RDMA/rxe: Implement
 * atomic write").
 */
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

int probe_flush_atomic_write(struct rxe_send_wr *wr, struct ib_wc *wc);

int probe_flush_atomic_write(struct rxe_send_wr *wr, struct ib_wc *wc)
{
	u64 caps = IB_DEVICE_FLUSH_GLOBAL | IB_DEVICE_FLUSH_PERSISTENT |
		   IB_DEVICE_ATOMIC_WRITE;
	int access = IB_ACCESS_FLUSH_GLOBAL | IB_ACCESS_FLUSH_PERSISTENT;

	wr->opcode = IB_WR_FLUSH;
	wr->wr.flush.type = IB_FLUSH_GLOBAL;
	wr->wr.flush.level = IB_FLUSH_RANGE;
	wc->opcode = wr->wr.flush.rkey ? IB_WC_FLUSH : IB_WC_ATOMIC_WRITE;
	return caps && access && IB_WR_ATOMIC_WRITE;
}
