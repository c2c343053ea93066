/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work and completion rings (SQ, RQ, SRQ, CQ).
 *
 * Note to users of this API (qp.c): the signatures used for the SQ and RQ
 * are unchanged.  @num_elem of vroce_queue_init() is the number of entries
 * the ring must hold; the ring may hold more (vroce_queue_capacity(), the
 * value to report back as max_wr).  vroce_queue_resize() gained a lock and
 * takes a user pointer for the new mminfo (only cq.c and srq.c resize).
 *
 * A ring is one buffer: a 384-byte header in the soft-RoCE ABI layout
 * (struct rxe_queue_buf: log2_elem_size, index_mask, producer_index at 128,
 * consumer_index at 256) followed by a power-of-two number of slots.  One
 * slot stays empty: the ring is full when (prod + 1) & mask == cons.
 *
 * Rings of user objects are mmapped by the process and are hostile: the
 * kernel keeps its own geometry and its own copy of the index it owns,
 * masks every index it reads from the shared header, and copies a slot out
 * before looking at it.  Only queue.c touches ring memory.
 *
 * The buffer of a user ring belongs to its rdma_user_mmap_entry once
 * vroce_queue_mmap_info() created one, and is freed by the mmap_free op
 * once the object is gone AND every mapping is closed or revoked (umap.c),
 * so a process can never reach freed pages.
 */
#ifndef VROCE_QUEUE_H
#define VROCE_QUEUE_H

#include <linux/bits.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

/* Size of the ring header; slots start right after it. */
#define VROCE_QUEUE_HDR_SIZE	offsetof(struct rxe_queue_buf, data)

/*
 * Sanity bounds of the ring allocator.  Callers check the device limits
 * (VROCE_MAX_*) first; these only keep the size arithmetic far from
 * overflow whatever a caller passes.
 */
#define VROCE_QUEUE_MAX_ELEM		BIT(20)
#define VROCE_QUEUE_MAX_ELEM_SIZE	BIT(16)

/**
 * enum vroce_queue_owner - who produces into the ring
 * @VROCE_Q_USER_PRODUCER: the consumer of the verbs produces and the
 *	kernel consumes (SQ, RQ, SRQ)
 * @VROCE_Q_KERNEL_PRODUCER: the kernel produces and the consumer of the
 *	verbs consumes (CQ)
 *
 * For a ring of a kernel consumer (not mapped) both sides are kernel code:
 * the owner then only documents the direction.
 */
enum vroce_queue_owner {
	VROCE_Q_USER_PRODUCER,
	VROCE_Q_KERNEL_PRODUCER,
};

struct vroce_mmap_entry;

/**
 * struct vroce_queue - a ring and the kernel's private view of it
 * @buf: header and slots (vmalloc_user memory for user rings)
 * @buf_size: bytes of @buf, header included, page aligned for user rings
 * @log2_elem_size: slot size, as written in the header at creation
 * @elem_size: 1 << @log2_elem_size
 * @index_mask: number of slots - 1, as written in the header at creation
 * @prod: the kernel's producer index (kernel producer side only)
 * @cons: the kernel's consumer index (kernel consumer side only)
 * @owner: which side produces
 * @user: the ring is (or may be) mapped by a process; its header is then
 *	never trusted
 * @mmap: mmap entry of a user ring once vroce_queue_mmap_info() ran,
 *	else NULL; owns @buf when set
 *
 * Locking: the object owning the ring serialises producers with each other
 * and consumers with each other (CQ lock, SQ/RQ/SRQ locks); the ring itself
 * has no lock.  The two sides meet through the header indices only
 * (store-release by the side that owns an index, load-acquire by the other
 * side), so producer and consumer may run under different locks.  Geometry
 * and @mmap change only in vroce_queue_resize(), under the owner's lock.
 */
struct vroce_queue {
	struct rxe_queue_buf *buf;
	size_t buf_size;
	u32 log2_elem_size;
	u32 elem_size;
	u32 index_mask;
	u32 prod;
	u32 cons;
	enum vroce_queue_owner owner;
	bool user;
	struct vroce_mmap_entry *mmap;
};

int vroce_queue_init(struct vroce_queue *q, struct ib_device *ibdev,
		     u32 num_elem, u32 elem_size, enum vroce_queue_owner owner,
		     bool user);
int vroce_queue_mmap_info(struct vroce_queue *q, struct ib_ucontext *uctx,
			  struct mminfo *mi);
void vroce_queue_cleanup(struct vroce_queue *q);

/* Number of usable slots (one stays empty). */
static inline u32 vroce_queue_capacity(const struct vroce_queue *q)
{
	return q->index_mask;
}

u32 vroce_queue_count(const struct vroce_queue *q);
bool vroce_queue_full(const struct vroce_queue *q);
bool vroce_queue_empty(const struct vroce_queue *q);

/* Kernel as producer: slot to fill, then publish it. */
void *vroce_queue_producer_slot(struct vroce_queue *q);
void vroce_queue_produce(struct vroce_queue *q);

/* Kernel as consumer: copy the head slot out (at most @len bytes). */
bool vroce_queue_peek_copy(struct vroce_queue *q, void *dst, size_t len);
void vroce_queue_consume(struct vroce_queue *q);

/*
 * Kernel as consumer, looking ahead: copy the entry @offset places after
 * the head without consuming (the SQ consumer index moves only when a WQE
 * completes, the send path copies the WQEs behind the head first).
 */
bool vroce_queue_peek_copy_at(struct vroce_queue *q, u32 offset, void *dst,
			      size_t len);

/* Kernel ring of a kernel consumer: the kernel is also the other side. */
void *vroce_queue_kernel_consumer_slot(struct vroce_queue *q);

/* Kernel ring of a kernel consumer: drop some waiting entries. */
u32 vroce_queue_filter_pending(struct vroce_queue *q,
			       bool (*keep)(void *slot, void *arg), void *arg);

int vroce_queue_resize(struct vroce_queue *q, struct ib_device *ibdev,
		       u32 num_elem, struct ib_ucontext *uctx,
		       struct mminfo __user *umi, spinlock_t *lock);

/* ib_device_ops.mmap and .mmap_free (queue.c; set in vroce_cq_ops) */
int vroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void vroce_mmap_free(struct rdma_user_mmap_entry *entry);

#endif /* VROCE_QUEUE_H */
