/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work and completion rings (SQ, RQ, SRQ, CQ).
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
 * The buffer of a user ring belongs to its rdma_user_mmap_entry and is
 * freed by the mmap_free op once the object is gone AND every mapping is
 * closed, so a process can never map freed pages.
 */
#ifndef VROCE_QUEUE_H
#define VROCE_QUEUE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

/* Size of the ring header; slots start right after it. */
#define VROCE_QUEUE_HDR_SIZE	offsetof(struct rxe_queue_buf, data)

/**
 * enum vroce_queue_owner - who produces into the ring
 * @VROCE_Q_USER_PRODUCER: user space produces (SQ, RQ, SRQ of a user QP)
 * @VROCE_Q_KERNEL_PRODUCER: the kernel produces (every CQ; every ring of a
 *	kernel consumer, where the "user" side is also kernel code)
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
 * @prod: the kernel's producer index when the kernel produces
 * @cons: the kernel's consumer index when the kernel consumes
 * @owner: which side produces
 * @mmap: mmap entry of a user ring, NULL for a kernel ring
 *
 * Locking: the object owning the ring serialises producers and consumers
 * (CQ lock, SQ/RQ/SRQ locks); the ring itself has no lock.
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
	struct vroce_mmap_entry *mmap;
};

int vroce_queue_init(struct vroce_queue *q, struct ib_device *ibdev,
		     u32 num_slots, u32 elem_size, enum vroce_queue_owner owner,
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

/* Kernel ring of a kernel consumer: the kernel is also the other side. */
void *vroce_queue_kernel_consumer_slot(struct vroce_queue *q);

int vroce_queue_resize(struct vroce_queue *q, struct ib_device *ibdev,
		       u32 num_slots, struct ib_ucontext *uctx,
		       struct mminfo *mi);

/* ib_device_ops.mmap and .mmap_free (queue.c) */
int vroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void vroce_mmap_free(struct rdma_user_mmap_entry *entry);

#endif /* VROCE_QUEUE_H */
