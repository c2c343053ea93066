// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: ring index arithmetic (queue.c).  Geometry from the sizes asked
 * for, produce/consume across many wraps of the index, and the trust
 * model of user rings: whatever a process writes into the shared header
 * (either index, the geometry copy), the kernel's view stays inside the
 * ring and the index the kernel owns is never taken back from the header.
 * Under KASAN an access outside the buffer is a report, so these cases
 * also prove every slot address stays inside it.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "queue.h"

/* A slot's first word: distinct per sequence number. */
static u32 tag(u32 seq)
{
	return 0x5a000000U ^ (seq * 2654435761U);
}

static void init_geometry(struct kunit *test)
{
	static const struct {
		u32 num, size, slots, slot_size;
	} g[] = {
		{ 0, 1, 1, SMP_CACHE_BYTES },	/* capacity 0: always full */
		{ 1, 8, 2, SMP_CACHE_BYTES },
		{ 5, 16, 8, SMP_CACHE_BYTES },
		{ 7, 100, 8, 128 },
		{ 8, 128, 16, 128 },
		{ 1000, 4096, 1024, 4096 },
	};
	struct vroce_queue q;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(g); i++) {
		KUNIT_ASSERT_EQ(test, vroce_queue_init(&q, NULL, g[i].num,
						       g[i].size,
						       VROCE_Q_KERNEL_PRODUCER,
						       false), 0);
		KUNIT_EXPECT_EQ_MSG(test, q.index_mask + 1, g[i].slots,
				    "num %u", g[i].num);
		KUNIT_EXPECT_EQ_MSG(test, q.elem_size, g[i].slot_size,
				    "size %u", g[i].size);
		KUNIT_EXPECT_GE(test, vroce_queue_capacity(&q), g[i].num);
		KUNIT_EXPECT_EQ(test, 1U << q.log2_elem_size, q.elem_size);
		/* the copy of the geometry for the other side */
		KUNIT_EXPECT_EQ(test, q.buf->index_mask, q.index_mask);
		KUNIT_EXPECT_EQ(test, q.buf->log2_elem_size, q.log2_elem_size);
		KUNIT_EXPECT_TRUE(test, vroce_queue_empty(&q));
		KUNIT_EXPECT_EQ(test, vroce_queue_full(&q), g[i].num == 0);
		vroce_queue_cleanup(&q);
	}
}

static void init_refuses_bad_sizes(struct kunit *test)
{
	struct vroce_queue q;

	KUNIT_EXPECT_EQ(test, vroce_queue_init(&q, NULL, VROCE_QUEUE_MAX_ELEM,
					       64, VROCE_Q_USER_PRODUCER,
					       false), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_queue_init(&q, NULL, U32_MAX, 64,
					       VROCE_Q_USER_PRODUCER, false),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_queue_init(&q, NULL, 4, 0,
					       VROCE_Q_USER_PRODUCER, false),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_queue_init(&q, NULL, 4,
					       VROCE_QUEUE_MAX_ELEM_SIZE + 1,
					       VROCE_Q_USER_PRODUCER, false),
			-EINVAL);
	KUNIT_EXPECT_NULL(test, q.buf);
}

/*
 * A kernel ring (both sides kernel code, as for a kernel consumer's CQ)
 * through 50 wraps, with fill levels that change every round: counts,
 * full/empty and FIFO order at every step.
 */
static void kernel_ring_wraps(struct kunit *test)
{
	u32 produced = 0, consumed = 0, round, n, cap;
	struct vroce_queue q;
	u32 *slot;

	KUNIT_ASSERT_EQ(test, vroce_queue_init(&q, NULL, 6, 32,
					       VROCE_Q_KERNEL_PRODUCER, false),
			0);
	cap = vroce_queue_capacity(&q);
	KUNIT_ASSERT_EQ(test, cap, 7U);
	for (round = 0; round < 50 * (cap + 1); round++) {
		u32 fill = 1 + round % cap;

		for (n = 0; n < fill; n++) {
			slot = vroce_queue_producer_slot(&q);
			KUNIT_ASSERT_NOT_NULL(test, slot);
			*slot = tag(produced++);
			vroce_queue_produce(&q);
		}
		KUNIT_EXPECT_EQ(test, vroce_queue_count(&q), fill);
		KUNIT_EXPECT_EQ(test, vroce_queue_full(&q), fill == cap);
		if (fill == cap)
			KUNIT_EXPECT_NULL(test, vroce_queue_producer_slot(&q));
		for (n = 0; n < fill; n++) {
			slot = vroce_queue_kernel_consumer_slot(&q);
			KUNIT_ASSERT_NOT_NULL(test, slot);
			KUNIT_EXPECT_EQ(test, *slot, tag(consumed));
			consumed++;
			vroce_queue_consume(&q);
		}
		KUNIT_EXPECT_TRUE(test, vroce_queue_empty(&q));
		KUNIT_EXPECT_NULL(test, vroce_queue_kernel_consumer_slot(&q));
		/* indices stay masked, in the struct and in the header */
		KUNIT_EXPECT_LE(test, q.prod, q.index_mask);
		KUNIT_EXPECT_LE(test, q.cons, q.index_mask);
		KUNIT_EXPECT_EQ(test, q.buf->producer_index, q.prod);
		KUNIT_EXPECT_EQ(test, q.buf->consumer_index, q.cons);
	}
	KUNIT_EXPECT_EQ(test, produced, consumed);
	vroce_queue_cleanup(&q);
}

/* Look-ahead copies: the entries behind the head, nothing past the tail. */
static void peek_copy_at_bounds(struct kunit *test)
{
	struct vroce_queue q;
	u32 i, v, big[40];

	KUNIT_ASSERT_EQ(test, vroce_queue_init(&q, NULL, 7, 64,
					       VROCE_Q_USER_PRODUCER, true), 0);
	/* play the process: three entries, the index wrapped past the end */
	q.cons = 6;
	q.buf->consumer_index = 6;
	for (i = 0; i < 3; i++)
		*(u32 *)(q.buf->data + (((6 + i) & q.index_mask) <<
					 q.log2_elem_size)) = tag(i);
	q.buf->producer_index = (6 + 3) & q.index_mask;
	KUNIT_EXPECT_EQ(test, vroce_queue_count(&q), 3U);
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_TRUE(test, vroce_queue_peek_copy_at(&q, i, &v,
								 sizeof(v)));
		KUNIT_EXPECT_EQ(test, v, tag(i));
	}
	KUNIT_EXPECT_FALSE(test, vroce_queue_peek_copy_at(&q, 3, &v,
							  sizeof(v)));
	KUNIT_EXPECT_FALSE(test, vroce_queue_peek_copy_at(&q, U32_MAX, &v,
							  sizeof(v)));
	/* a destination larger than a slot: the rest is zeroed */
	memset(big, 0xee, sizeof(big));
	KUNIT_ASSERT_TRUE(test, vroce_queue_peek_copy(&q, big, sizeof(big)));
	KUNIT_EXPECT_EQ(test, big[0], tag(0));
	for (i = q.elem_size / 4; i < ARRAY_SIZE(big); i++)
		KUNIT_EXPECT_EQ(test, big[i], 0U);
	vroce_queue_consume(&q);
	KUNIT_EXPECT_EQ(test, vroce_queue_count(&q), 2U);
	vroce_queue_cleanup(&q);
}

static const u32 hostile_index[] = {
	0, 1, 7, 8, 9, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
	0xdeadbeef,
};

/*
 * A ring a process produces into (SQ, RQ, SRQ).  The process may write
 * anything into the producer index, and also into the consumer index and
 * the geometry, which it does not own: the kernel's count stays within
 * the capacity, its consumer index and geometry are its own, and every
 * copy comes from inside the ring.
 */
static void user_producer_hostile_header(struct kunit *test)
{
	struct vroce_queue q;
	u32 i, j, n, v[16];

	KUNIT_ASSERT_EQ(test, vroce_queue_init(&q, NULL, 7, 64,
					       VROCE_Q_USER_PRODUCER, true), 0);
	for (i = 0; i < ARRAY_SIZE(hostile_index); i++) {
		q.buf->producer_index = hostile_index[i];
		q.buf->consumer_index = ~hostile_index[i];
		q.buf->index_mask = 0xffffffff;
		q.buf->log2_elem_size = 31;
		n = vroce_queue_count(&q);
		KUNIT_EXPECT_LE(test, n, vroce_queue_capacity(&q));
		KUNIT_EXPECT_EQ(test, n,
				(hostile_index[i] - q.cons) & q.index_mask);
		KUNIT_EXPECT_EQ(test, vroce_queue_empty(&q), n == 0);
		for (j = 0; j <= q.index_mask + 1; j++)
			KUNIT_EXPECT_EQ(test,
					vroce_queue_peek_copy_at(&q, j, v,
								 sizeof(v)),
					j < n);
		if (n) {
			vroce_queue_consume(&q);
			KUNIT_EXPECT_LE(test, q.cons, q.index_mask);
			/* published, but never read back from the header */
			KUNIT_EXPECT_EQ(test, q.buf->consumer_index, q.cons);
		}
	}
	KUNIT_EXPECT_EQ(test, q.index_mask, 7U);
	KUNIT_EXPECT_EQ(test, q.elem_size, 64U);
	vroce_queue_cleanup(&q);
}

/*
 * A ring the kernel produces into and a process consumes (CQ).  Whatever
 * consumer index the process writes, the producer slot is inside the ring
 * or NULL (full), and the producer index is the kernel's own.
 */
static void user_consumer_hostile_header(struct kunit *test)
{
	struct vroce_queue q;
	u32 i, round, *slot;
	u8 *lo, *hi;

	KUNIT_ASSERT_EQ(test, vroce_queue_init(&q, NULL, 3, 32,
					       VROCE_Q_KERNEL_PRODUCER, true),
			0);
	lo = q.buf->data;
	hi = lo + ((q.index_mask + 1) << q.log2_elem_size);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < ARRAY_SIZE(hostile_index); i++) {
			u32 before = q.prod;

			q.buf->consumer_index = hostile_index[i];
			q.buf->producer_index = hostile_index[i] + 1;
			KUNIT_EXPECT_LE(test, vroce_queue_count(&q),
					vroce_queue_capacity(&q));
			slot = vroce_queue_producer_slot(&q);
			if (!slot) {
				/* full as the process tells it */
				KUNIT_EXPECT_EQ(test,
						(q.prod + 1) & q.index_mask,
						hostile_index[i] & q.index_mask);
				continue;
			}
			KUNIT_EXPECT_PTR_EQ(test, (u8 *)slot,
					    lo + (q.prod << q.log2_elem_size));
			KUNIT_EXPECT_TRUE(test, (u8 *)slot + q.elem_size <= hi);
			*slot = tag(i);
			vroce_queue_produce(&q);
			KUNIT_EXPECT_EQ(test, q.prod,
					(before + 1) & q.index_mask);
			KUNIT_EXPECT_EQ(test, q.buf->producer_index, q.prod);
		}
	}
	vroce_queue_cleanup(&q);
}

/*
 * A kernel ring of 7 slots whose six entries wrap around its end: entry i
 * holds tag(i), then i.
 */
static void wrapped_ring(struct kunit *test, struct vroce_queue *q)
{
	u32 i, *slot;

	KUNIT_ASSERT_EQ(test, vroce_queue_init(q, NULL, 7, 16,
					       VROCE_Q_KERNEL_PRODUCER, false),
			0);
	/* move the head near the end so the entries wrap */
	for (i = 0; i < 5; i++) {
		vroce_queue_producer_slot(q);
		vroce_queue_produce(q);
		vroce_queue_consume(q);
	}
	for (i = 0; i < 6; i++) {
		slot = vroce_queue_producer_slot(q);
		KUNIT_ASSERT_NOT_NULL(test, slot);
		slot[0] = tag(i);
		slot[1] = i;
		vroce_queue_produce(q);
	}
}

/* Resizing keeps waiting entries in order, never drops one to shrink. */
static void resize_keeps_entries(struct kunit *test)
{
	struct vroce_queue q;
	spinlock_t lock;	/* stands in for the owner's lock */
	u32 i, *slot;

	spin_lock_init(&lock);
	wrapped_ring(test, &q);
	KUNIT_EXPECT_EQ(test, vroce_queue_resize(&q, NULL, 5, NULL, NULL,
						 &lock), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_queue_count(&q), 6U);
	KUNIT_EXPECT_EQ(test, vroce_queue_capacity(&q), 7U);

	KUNIT_ASSERT_EQ(test, vroce_queue_resize(&q, NULL, 20, NULL, NULL,
						 &lock), 0);
	KUNIT_EXPECT_EQ(test, vroce_queue_capacity(&q), 31U);
	KUNIT_EXPECT_EQ(test, vroce_queue_count(&q), 6U);
	for (i = 0; i < 6; i++) {
		slot = vroce_queue_kernel_consumer_slot(&q);
		KUNIT_ASSERT_NOT_NULL(test, slot);
		KUNIT_EXPECT_EQ(test, *slot, tag(i));
		vroce_queue_consume(&q);
	}
	KUNIT_EXPECT_TRUE(test, vroce_queue_empty(&q));
	vroce_queue_cleanup(&q);
}

/* Drop the entries whose sequence number (second word) is odd. */
static bool keep_even(void *slot, void *visits)
{
	u32 *w = slot;

	(*(u32 *)visits)++;
	return !(w[1] & 1);
}

/*
 * Filtering a kernel ring (a kernel CQ losing a destroyed QP's entries):
 * the dropped entries leave, the kept ones stay in order across the wrap,
 * and the producer index in the header follows; with nothing waiting,
 * nothing is visited.
 */
static void filter_pending(struct kunit *test)
{
	struct vroce_queue q;
	u32 i, visits, *slot;

	wrapped_ring(test, &q);
	visits = 0;
	KUNIT_EXPECT_EQ(test, vroce_queue_filter_pending(&q, keep_even,
							 &visits), 3U);
	KUNIT_EXPECT_EQ(test, visits, 6U);
	KUNIT_EXPECT_EQ(test, vroce_queue_count(&q), 3U);
	KUNIT_EXPECT_EQ(test, q.buf->producer_index, q.prod);
	for (i = 0; i < 6; i += 2) {
		slot = vroce_queue_kernel_consumer_slot(&q);
		KUNIT_ASSERT_NOT_NULL(test, slot);
		KUNIT_EXPECT_EQ(test, slot[0], tag(i));
		vroce_queue_consume(&q);
	}
	KUNIT_EXPECT_TRUE(test, vroce_queue_empty(&q));
	/* nothing waiting: nothing visited, nothing moves */
	visits = 0;
	KUNIT_EXPECT_EQ(test, vroce_queue_filter_pending(&q, keep_even,
							 &visits), 0U);
	KUNIT_EXPECT_EQ(test, visits, 0U);
	vroce_queue_cleanup(&q);
}

static struct kunit_case vroce_queue_cases[] = {
	KUNIT_CASE(init_geometry),
	KUNIT_CASE(init_refuses_bad_sizes),
	KUNIT_CASE(kernel_ring_wraps),
	KUNIT_CASE(peek_copy_at_bounds),
	KUNIT_CASE(user_producer_hostile_header),
	KUNIT_CASE(user_consumer_hostile_header),
	KUNIT_CASE(resize_keeps_entries),
	KUNIT_CASE(filter_pending),
	{}
};

static struct kunit_suite vroce_queue_suite = {
	.name = "vroce_queue",
	.test_cases = vroce_queue_cases,
};

kunit_test_suites(&vroce_queue_suite);
