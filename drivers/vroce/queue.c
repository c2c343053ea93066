// SPDX-License-Identifier: GPL-2.0
/*
 * Shared rings: allocation, the mmap scheme, index discipline and copies
 * in and out of slots.  See queue.h for the layout and the trust model.
 *
 * Index discipline.  Each index has one owner: the producer owns
 * producer_index, the consumer owns consumer_index.  The kernel keeps the
 * index it owns in struct vroce_queue (@prod or @cons) and only ever
 * writes it to the header (store-release), never reads it back from there:
 * on a user ring the process can scribble over the whole header.  The
 * index of the other side is read once per use with a load-acquire and
 * masked with the kernel's own @index_mask, so a garbage index can only
 * point at some slot of this ring.  On a kernel ring both indices are the
 * kernel's, and the side that does not own an index also reads it from
 * the header, so a producer and a consumer under different locks meet
 * only through the release/acquire pair.
 */
#include <linux/cache.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "vroce.h"

/**
 * struct vroce_mmap_entry - a user ring as ib_core's mmap machinery sees it
 * @rdma: the core entry: offset cookie, length, reference count.  The
 *	object holds one reference until it is destroyed (or resized away),
 *	each VMA mapping the ring holds one more
 * @buf: the ring buffer (vmalloc_user); freed by vroce_mmap_free() when
 *	the last reference goes
 * @size: bytes of @buf, page aligned
 *
 * Immutable after creation.
 */
struct vroce_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *buf;
	size_t size;
};

static struct vroce_mmap_entry *
to_vroce_mmap_entry(struct rdma_user_mmap_entry *entry)
{
	return container_of(entry, struct vroce_mmap_entry, rdma);
}

static void *vroce_queue_slot(const struct vroce_queue *q, u32 index)
{
	return q->buf->data + ((size_t)(index & q->index_mask) <<
			       q->log2_elem_size);
}

/*
 * The other side's index, read once.  Acquire: the slots it covers were
 * written (producer) or read (consumer) before the other side released
 * it.  The mask keeps a user-written value inside the ring.
 */
static u32 vroce_queue_read_index(const struct vroce_queue *q, const u32 *idx)
{
	/* pairs with the release in vroce_queue_write_index() or user space */
	return smp_load_acquire(idx) & q->index_mask;
}

/*
 * Publish an index the kernel owns.  Release: the slot writes (producer)
 * or reads (consumer) are done before the other side sees the index.
 */
static void vroce_queue_write_index(u32 *idx, u32 val)
{
	/* pairs with the acquire in vroce_queue_read_index() or user space */
	smp_store_release(idx, val);
}

/* A process produces into this ring (user SQ, RQ, SRQ). */
static bool vroce_queue_user_produces(const struct vroce_queue *q)
{
	return q->user && q->owner == VROCE_Q_USER_PRODUCER;
}

/* A process consumes from this ring (user CQ). */
static bool vroce_queue_user_consumes(const struct vroce_queue *q)
{
	return q->user && q->owner == VROCE_Q_KERNEL_PRODUCER;
}

/*
 * The producer index for readers that are not the producer, or that do
 * not know which side they are on (count, full, empty).  The kernel's own
 * index of a user ring comes from its private copy.
 */
static u32 vroce_queue_load_prod(const struct vroce_queue *q)
{
	if (vroce_queue_user_consumes(q))
		return q->prod;
	return vroce_queue_read_index(q, &q->buf->producer_index);
}

/* The consumer index, likewise. */
static u32 vroce_queue_load_cons(const struct vroce_queue *q)
{
	if (vroce_queue_user_produces(q))
		return q->cons;
	return vroce_queue_read_index(q, &q->buf->consumer_index);
}

/**
 * vroce_queue_init() - allocate a ring
 * @q: the ring to set up (overwritten)
 * @ibdev: the device (for debug output)
 * @num_elem: entries the ring must hold (0 allowed: an always-full ring)
 * @elem_size: bytes of one entry; the slot is the next power of two, at
 *	least a cache line so that neighbouring slots do not share one
 * @owner: which side produces
 * @user: the ring will be mapped by a process (vmalloc_user memory, page
 *	aligned, zeroed)
 *
 * Process context.  The slot count is the power of two above @num_elem,
 * so vroce_queue_capacity() >= @num_elem.
 *
 * Return: 0, -EINVAL for sizes beyond the allocator's bounds, -ENOMEM.
 */
int vroce_queue_init(struct vroce_queue *q, struct ib_device *ibdev,
		     u32 num_elem, u32 elem_size, enum vroce_queue_owner owner,
		     bool user)
{
	u32 num_slots, slot_size;
	size_t size;

	memset(q, 0, sizeof(*q));
	if (num_elem >= VROCE_QUEUE_MAX_ELEM || !elem_size ||
	    elem_size > VROCE_QUEUE_MAX_ELEM_SIZE) {
		ibdev_dbg(ibdev, "ring of %u x %u bytes refused\n", num_elem,
			  elem_size);
		return -EINVAL;
	}

	slot_size = roundup_pow_of_two(max_t(u32, elem_size, SMP_CACHE_BYTES));
	num_slots = roundup_pow_of_two(num_elem + 1);
	size = VROCE_QUEUE_HDR_SIZE + ((size_t)num_slots * slot_size);

	if (user) {
		size = PAGE_ALIGN(size);
		q->buf = vmalloc_user(size);
	} else {
		q->buf = kvzalloc(size, GFP_KERNEL);
	}
	if (!q->buf)
		return -ENOMEM;

	q->buf_size = size;
	q->log2_elem_size = ilog2(slot_size);
	q->elem_size = slot_size;
	q->index_mask = num_slots - 1;
	q->owner = owner;
	q->user = user;

	/* A copy for the other side; the kernel never reads it back. */
	q->buf->log2_elem_size = q->log2_elem_size;
	q->buf->index_mask = q->index_mask;
	return 0;
}

/**
 * vroce_queue_mmap_info() - make a user ring mappable and describe it
 * @q: a ring created with @user set
 * @uctx: the process's context; the offset is only valid on its file
 * @mi: filled with the offset and size the process passes to mmap()
 *
 * Process context.  The first call hands the buffer over to a new mmap
 * entry; later calls return the same offset.
 *
 * Return: 0, -EINVAL for a kernel ring, -ENOMEM.
 */
int vroce_queue_mmap_info(struct vroce_queue *q, struct ib_ucontext *uctx,
			  struct mminfo *mi)
{
	struct vroce_mmap_entry *entry;
	int err;

	if (WARN_ON_ONCE(!q->user || !uctx))
		return -EINVAL;

	if (!q->mmap) {
		entry = kzalloc(sizeof(*entry), GFP_KERNEL);
		if (!entry)
			return -ENOMEM;
		entry->buf = q->buf;
		entry->size = q->buf_size;
		err = rdma_user_mmap_entry_insert(uctx, &entry->rdma,
						  entry->size);
		if (err) {
			kfree(entry);
			return err;
		}
		q->mmap = entry;
	}

	mi->offset = rdma_user_mmap_get_offset(&q->mmap->rdma);
	mi->size = q->buf_size;
	mi->pad = 0;
	return 0;
}

/**
 * vroce_queue_cleanup() - release a ring
 * @q: the ring; may be zeroed or already cleaned up
 *
 * Process context.  A mapped ring's buffer lives on until the process
 * unmaps it (vroce_mmap_free()); no new mapping can be made after this.
 */
void vroce_queue_cleanup(struct vroce_queue *q)
{
	if (q->mmap)
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
	else
		kvfree(q->buf);
	q->mmap = NULL;
	q->buf = NULL;
}

/**
 * vroce_queue_count() - entries waiting in the ring
 * @q: the ring
 *
 * On a user ring the process controls the other side's index: the answer
 * is then whatever it claims, but always within the ring.
 *
 * Return: number of entries between consumer and producer.
 */
u32 vroce_queue_count(const struct vroce_queue *q)
{
	u32 prod = vroce_queue_load_prod(q);
	u32 cons = vroce_queue_load_cons(q);

	return (prod - cons) & q->index_mask;
}

/**
 * vroce_queue_full() - no slot left for the producer
 * @q: the ring
 *
 * Return: true when full.
 */
bool vroce_queue_full(const struct vroce_queue *q)
{
	u32 prod = vroce_queue_load_prod(q);
	u32 cons = vroce_queue_load_cons(q);

	return ((prod + 1) & q->index_mask) == cons;
}

/**
 * vroce_queue_empty() - nothing for the consumer
 * @q: the ring
 *
 * Return: true when empty.
 */
bool vroce_queue_empty(const struct vroce_queue *q)
{
	return vroce_queue_load_prod(q) == vroce_queue_load_cons(q);
}

/**
 * vroce_queue_producer_slot() - the slot the kernel fills next
 * @q: a ring the kernel produces into
 *
 * Caller holds the producer lock; publish the slot with
 * vroce_queue_produce().  The slot of a user ring is user-visible memory:
 * write to it, never read it back.
 *
 * Return: the slot, or NULL when the ring is full.
 */
void *vroce_queue_producer_slot(struct vroce_queue *q)
{
	u32 cons;

	if (WARN_ON_ONCE(vroce_queue_user_produces(q)))
		return NULL;
	cons = vroce_queue_read_index(q, &q->buf->consumer_index);
	if (((q->prod + 1) & q->index_mask) == cons)
		return NULL;
	return vroce_queue_slot(q, q->prod);
}

/**
 * vroce_queue_produce() - publish the slot from vroce_queue_producer_slot()
 * @q: the ring
 *
 * Caller holds the producer lock.  The release orders the slot's content
 * before the new index for the consumer's acquire.
 */
void vroce_queue_produce(struct vroce_queue *q)
{
	if (WARN_ON_ONCE(vroce_queue_user_produces(q)))
		return;
	q->prod = (q->prod + 1) & q->index_mask;
	vroce_queue_write_index(&q->buf->producer_index, q->prod);
}

/**
 * vroce_queue_peek_copy_at() - copy an entry at or behind the head out
 * @q: a ring the kernel consumes from
 * @offset: how many entries after the head (0: the head)
 * @dst: destination
 * @len: bytes of @dst; bytes beyond the slot size are zeroed
 *
 * Caller holds the consumer lock.  The copy is taken once: validate and
 * use only @dst, the slot may change under us.  Nothing is consumed.  On
 * a user ring the number of waiting entries is what the process claims
 * (within the ring): copying the same slot again later may give other
 * bytes, so a caller that looks ahead keeps its copies.
 *
 * Return: true with @dst filled, false when fewer than @offset + 1
 * entries wait.
 */
bool vroce_queue_peek_copy_at(struct vroce_queue *q, u32 offset, void *dst,
			      size_t len)
{
	size_t n = min_t(size_t, len, q->elem_size);
	u32 prod;

	if (WARN_ON_ONCE(vroce_queue_user_consumes(q)))
		return false;
	prod = vroce_queue_read_index(q, &q->buf->producer_index);
	if (offset >= ((prod - q->cons) & q->index_mask))
		return false;
	memcpy(dst, vroce_queue_slot(q, q->cons + offset), n);
	if (len > n)
		memset((u8 *)dst + n, 0, len - n);
	return true;
}

/**
 * vroce_queue_peek_copy() - copy the head entry into kernel memory
 * @q: a ring the kernel consumes from
 * @dst: destination
 * @len: bytes of @dst; bytes beyond the slot size are zeroed
 *
 * As vroce_queue_peek_copy_at() with offset 0; the entry stays in the
 * ring until vroce_queue_consume().
 *
 * Return: true with @dst filled, false when the ring is empty.
 */
bool vroce_queue_peek_copy(struct vroce_queue *q, void *dst, size_t len)
{
	return vroce_queue_peek_copy_at(q, 0, dst, len);
}

/**
 * vroce_queue_consume() - hand the head slot back to the producer
 * @q: the ring
 *
 * Caller holds the consumer lock and is done reading the slot: the
 * release orders the reads before the producer may overwrite it.
 */
void vroce_queue_consume(struct vroce_queue *q)
{
	if (WARN_ON_ONCE(vroce_queue_user_consumes(q)))
		return;
	q->cons = (q->cons + 1) & q->index_mask;
	vroce_queue_write_index(&q->buf->consumer_index, q->cons);
}

/**
 * vroce_queue_kernel_consumer_slot() - the head slot of a kernel ring
 * @q: a ring no process maps
 *
 * Caller holds the consumer lock.  No copy is needed: only the kernel
 * writes this memory.
 *
 * Return: the head slot, or NULL when empty (or for a user ring).
 */
void *vroce_queue_kernel_consumer_slot(struct vroce_queue *q)
{
	u32 prod;

	if (WARN_ON_ONCE(q->user))
		return NULL;
	prod = vroce_queue_read_index(q, &q->buf->producer_index);
	if (prod == q->cons)
		return NULL;
	return vroce_queue_slot(q, q->cons);
}

/**
 * vroce_queue_filter_pending() - drop waiting entries of a kernel ring
 * @q: a ring the kernel produces into and no process maps (a kernel CQ)
 * @keep: called for each waiting slot, oldest first; false drops it
 * @arg: passed to @keep
 *
 * Caller holds the producer and the consumer lock (the CQ lock is both).
 * The kept entries close up in order.  A user ring cannot be filtered:
 * its consumer index is the process's and may move meanwhile.
 *
 * Return: the number of entries dropped.
 */
u32 vroce_queue_filter_pending(struct vroce_queue *q,
			       bool (*keep)(void *slot, void *arg), void *arg)
{
	u32 i, kept, dropped = 0;
	void *slot;

	if (WARN_ON_ONCE(q->user || q->owner != VROCE_Q_KERNEL_PRODUCER))
		return 0;
	kept = q->cons;
	for (i = q->cons; i != q->prod; i = (i + 1) & q->index_mask) {
		slot = vroce_queue_slot(q, i);
		if (!keep(slot, arg)) {
			dropped++;
			continue;
		}
		if (kept != i)
			memcpy(vroce_queue_slot(q, kept), slot, q->elem_size);
		kept = (kept + 1) & q->index_mask;
	}
	if (dropped) {
		q->prod = kept;
		vroce_queue_write_index(&q->buf->producer_index, q->prod);
	}
	return dropped;
}

/**
 * vroce_queue_resize() - move a ring to a new size, keeping its entries
 * @q: the ring
 * @ibdev: the device
 * @num_elem: entries the new ring must hold
 * @uctx: the process's context (user ring)
 * @umi: where the process wants the new ring's mminfo (user ring), or NULL
 * @lock: the lock that serialises every producer and consumer of @q; not
 *	held by the caller
 *
 * Process context.  The new ring is allocated and announced to the
 * process before anything changes; then, under @lock, the waiting entries
 * are copied to the start of the new ring and the rings are swapped.  The
 * process maps the new ring with the mminfo written to @umi; its old
 * mapping stays valid (and unused) until it unmaps it.
 *
 * Return: 0; -EINVAL when more entries wait than @num_elem (or for a
 * bad size); -EFAULT when @umi cannot be written; -ENOMEM.  On
 * error @q is unchanged.
 */
int vroce_queue_resize(struct vroce_queue *q, struct ib_device *ibdev,
		       u32 num_elem, struct ib_ucontext *uctx,
		       struct mminfo __user *umi, spinlock_t *lock)
{
	struct vroce_queue nq;
	struct mminfo mi;
	unsigned long flags;
	u32 prod, cons, count, i;
	int err;

	lockdep_assert_not_held(lock);

	err = vroce_queue_init(&nq, ibdev, num_elem, q->elem_size, q->owner,
			       q->user);
	if (err)
		return err;

	if (q->user) {
		err = vroce_queue_mmap_info(&nq, uctx, &mi);
		if (err)
			goto cleanup;
		if (umi && copy_to_user(umi, &mi, sizeof(mi))) {
			err = -EFAULT;
			goto cleanup;
		}
	}

	spin_lock_irqsave(lock, flags);
	/* Each index read once: a user index may change under us. */
	prod = vroce_queue_load_prod(q);
	cons = vroce_queue_load_cons(q);
	count = (prod - cons) & q->index_mask;
	/*
	 * Against the size asked for, not the rounded-up capacity: asking
	 * for fewer entries than are waiting is an error even when the
	 * rounding would make room.
	 */
	if (count > num_elem) {
		spin_unlock_irqrestore(lock, flags);
		ibdev_dbg(ibdev, "%u entries waiting, %u asked for\n", count,
			  num_elem);
		err = -EINVAL;
		goto cleanup;
	}
	for (i = 0; i < count; i++)
		memcpy(vroce_queue_slot(&nq, i), vroce_queue_slot(q, cons + i),
		       q->elem_size);
	nq.prod = count;
	nq.cons = 0;
	vroce_queue_write_index(&nq.buf->producer_index, count);
	swap(*q, nq);
	spin_unlock_irqrestore(lock, flags);

	/* nq now holds the old ring. */
cleanup:
	vroce_queue_cleanup(&nq);
	return err;
}

/**
 * vroce_mmap() - ib_device_ops.mmap: map a ring into a process
 * @uctx: the process's context
 * @vma: a shared mapping whose offset came from vroce_queue_mmap_info()
 *
 * Only the whole ring can be mapped, shared.
 *
 * Return: 0, -EINVAL for an unknown offset or a wrong size or type,
 * or the error of vroce_umap_map().
 */
int vroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct vroce_mmap_entry *entry;
	int err;

	/* Checks VM_SHARED and that the VMA covers the entry exactly. */
	rdma_entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!rdma_entry)
		return -EINVAL;
	entry = to_vroce_mmap_entry(rdma_entry);

	if (vma->vm_end - vma->vm_start != entry->size) {
		err = -EINVAL;
		goto put_entry;
	}
	/* on success the reference taken above belongs to the VMA */
	err = vroce_umap_map(to_vroce_uc(uctx)->umaps, vma, rdma_entry,
			     entry->buf);
	if (err)
		goto put_entry;
	return 0;

put_entry:
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

/**
 * vroce_mmap_free() - ib_device_ops.mmap_free: the last reference is gone
 * @rdma_entry: entry of a ring; no object and no VMA uses it any more
 */
void vroce_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct vroce_mmap_entry *entry = to_vroce_mmap_entry(rdma_entry);

	vfree(entry->buf);
	kfree(entry);
}
