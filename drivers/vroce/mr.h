/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory regions and memory windows: keys, access checks, and copies
 * to and from registered memory.  Keys of MRs and MWs share one space:
 * key = (index << 8) | variant, index allocated in vroce_dev.mem_keys; the
 * low byte is the part REG_MR / bind / ib_inc_rkey change (generations).
 *
 * NOTE for callers (changed from the first draft of this header):
 * - vroce_mr_lookup_rkey() takes the address by pointer: a zero-based
 *   window names offsets, and the lookup rewrites *iova into the address
 *   space of the MR it returns, which is what vroce_mr_copy() wants.
 * - Keep MR references short (one packet / one SGE): dereg_mr waits for
 *   the last one.  Never hold an MR reference while waiting on the wire.
 * - IB_WR_REG_MR carries a kernel ib_mr pointer: only kernel QPs may post
 *   it; a user WQE with that opcode must be refused before it gets here.
 */
#ifndef VROCE_MR_H
#define VROCE_MR_H

#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

struct vroce_dev;
struct vroce_qp;
struct rxe_send_wqe;

/* Key layout: the index lives above the 8-bit variant. */
#define VROCE_KEY_VARIANT_BITS	8
#define VROCE_KEY_VARIANT_MASK	0xffU
#define VROCE_KEY_INDEX_MAX	((1U << (32 - VROCE_KEY_VARIANT_BITS)) - 1)

enum vroce_mem_type {
	VROCE_MEM_DMA,		/* kernel DMA MR: iova is a kernel address */
	VROCE_MEM_USER,		/* pinned user pages (ib_umem) */
	VROCE_MEM_FAST_REG,	/* page list set by map_mr_sg + REG_MR */
};

enum vroce_mem_state {
	VROCE_MEM_INVALID,	/* fast-reg MR before REG_MR / after LOCAL_INV */
	VROCE_MEM_VALID,
};

/**
 * struct vroce_mr - memory region
 * @ibmr: the ib_core MR.  Its lkey/rkey/iova/length are what the consumer
 *	sees and may be changed by it (ib_update_fast_reg_key, map_mr_sg);
 *	the fields below are what the device enforces.
 * @ref: lookups hold a reference; dereg waits for the last one
 * @released: completed when @ref drops to zero
 * @rcu: the MR is freed after a grace period: lookups run under RCU
 * @type: how addresses translate; immutable
 * @index: key index in vroce_dev.mem_keys; immutable
 * @lock: protects the fields from @state to @map_shift, and the copy into
 *	a fast-reg MR's pages (LOCAL_INV must not complete under a copy)
 * @state: only VALID MRs can be looked up
 * @key: the current lkey == rkey (index and variant)
 * @access: IB_ACCESS_* flags in force
 * @iova: first address of the region (0 for zero-based user MRs); only
 *	REG_MR changes it, so DMA and user MRs may read it without @lock
 * @length: bytes in the region; same rule as @iova
 * @num_mw: memory windows bound to this MR (each holds a reference)
 * @dead: being deregistered: no new window may bind
 * @npages: fast-reg: valid entries in @pages
 * @page_shift: fast-reg: log2 of the page size of @pages
 * @page_offset: fast-reg: offset of @iova in @pages[0]
 * @pages: fast-reg: the page list in force since the last REG_MR
 *	(kernel virtual addresses: the device uses virtual DMA)
 * @map_pages: fast-reg: the list map_mr_sg builds, copied into @pages by
 *	REG_MR so that remapping never changes a live registration
 * @map_npages: fast-reg: valid entries in @map_pages; under @lock
 * @map_offset: fast-reg: offset of the first byte in @map_pages[0]
 * @map_shift: fast-reg: log2 of the page size map_mr_sg was given
 * @max_pages: fast-reg: size of @pages and @map_pages; immutable
 * @umem: user: the pinned pages; immutable
 * @upages: user: @umem's pages in order, for O(1) translation; immutable
 * @nupages: user: entries in @upages; immutable
 */
struct vroce_mr {
	struct ib_mr ibmr;
	refcount_t ref;
	struct completion released;
	struct rcu_head rcu;
	enum vroce_mem_type type;
	u32 index;

	spinlock_t lock; /* see above */
	enum vroce_mem_state state;
	u32 key;
	int access;
	u64 iova;
	u64 length;
	u32 num_mw;
	bool dead;
	u32 npages;
	u32 page_shift;
	u32 page_offset;
	u64 *pages;
	u64 *map_pages;
	u32 map_npages;
	u32 map_offset;
	u32 map_shift;

	u32 max_pages;
	struct ib_umem *umem;
	struct page **upages;
	unsigned long nupages;
};

/**
 * struct vroce_mw - memory window (type 1 or 2B)
 * @ibmw: the ib_core MW (type, pd; rkey as allocated)
 * @ref: lookups hold a reference; dealloc waits for the last one
 * @released: completed when @ref drops to zero
 * @index: key index in vroce_dev.mem_keys; immutable
 * @lock: protects every field below it
 * @rkey: the current rkey (variant changes with each bind)
 * @mr: bound MR (referenced, counted in its num_mw) or NULL
 * @qp_num: type 2B: the QP the window is bound to
 * @addr: first bound address, in the MR's address space
 * @length: bound length
 * @access: remote access rights of the binding (and IB_ZERO_BASED)
 * @valid: bound and not invalidated
 */
struct vroce_mw {
	struct ib_mw ibmw;
	refcount_t ref;
	struct completion released;
	u32 index;

	spinlock_t lock; /* see above */
	u32 rkey;
	struct vroce_mr *mr;
	u32 qp_num;
	u64 addr;
	u64 length;
	int access;
	bool valid;
};

static inline struct vroce_mr *to_vroce_mr(struct ib_mr *ibmr)
{
	return ibmr ? container_of(ibmr, struct vroce_mr, ibmr) : NULL;
}

static inline struct vroce_mw *to_vroce_mw(struct ib_mw *ibmw)
{
	return ibmw ? container_of(ibmw, struct vroce_mw, ibmw) : NULL;
}

/**
 * vroce_mr_lookup_lkey() - find the MR behind a local key and check a use
 * @vdev: the device
 * @pd: the PD the MR must belong to
 * @lkey: the key from an SGE
 * @iova: first byte accessed
 * @len: bytes accessed (0 is allowed and skips the range check)
 * @access: rights needed (0 for local read, IB_ACCESS_LOCAL_WRITE...)
 *
 * Callable from any context.  Return: the MR with a reference (drop it
 * with vroce_mr_put()), or ERR_PTR(-EINVAL) for an unknown/invalid key,
 * ERR_PTR(-EACCES) for wrong PD or missing rights, ERR_PTR(-ERANGE)
 * for an access outside the region.
 */
struct vroce_mr *vroce_mr_lookup_lkey(struct vroce_dev *vdev,
				      struct ib_pd *pd, u32 lkey, u64 iova,
				      u64 len, int access);

/**
 * vroce_mr_lookup_rkey() - find the memory behind a remote key
 * @vdev: the device
 * @pd: the PD of the QP the request arrived on
 * @qp_num: that QP (type 2B windows are bound to one QP)
 * @rkey: key from the packet, naming an MR or a bound MW
 * @iova: in: the address from the packet; out: the same byte in the
 *	address space of the returned MR (differs for zero-based windows);
 *	NULL: the whole region, no range to check (a FLUSH at the MR level)
 * @len: bytes accessed
 * @access: IB_ACCESS_REMOTE_{READ,WRITE,ATOMIC}, IB_ACCESS_FLUSH_GLOBAL
 *
 * Callable from any context.  Return: as vroce_mr_lookup_lkey(); for a
 * window, the MR it is bound to.
 */
struct vroce_mr *vroce_mr_lookup_rkey(struct vroce_dev *vdev,
				      struct ib_pd *pd, u32 qp_num, u32 rkey,
				      u64 *iova, u64 len, int access);

/**
 * vroce_mr_put() - drop a reference taken by a lookup
 * @mr: the MR
 */
void vroce_mr_put(struct vroce_mr *mr);

/**
 * vroce_mr_copy() - copy between a kernel buffer and registered memory
 * @mr: a referenced MR whose range was checked by a lookup
 * @iova: address in the MR
 * @buf: kernel buffer
 * @len: bytes
 * @to_mr: true to write into the MR, false to read from it
 *
 * Callable from any context (user pages are pinned; mapped with kmap).
 * The range is checked again against the region as it is now: a fast-reg
 * MR invalidated since the lookup is not touched.
 * Return: 0 or -EFAULT when the range leaves the region.
 */
int vroce_mr_copy(struct vroce_mr *mr, u64 iova, void *buf, u64 len,
		  bool to_mr);

struct rxe_sge;
int vroce_sge_copy(struct vroce_dev *vdev, struct ib_pd *pd,
		   const struct rxe_sge *sge, u32 num_sge, u32 offset,
		   void *buf, u32 len, bool to_mr);

/*
 * Send-queue memory operations, executed in order by the QP's send path.
 * Return 0, or -EINVAL / -EACCES for a bad key or rights; the caller turns
 * the error into IB_WC_MW_BIND_ERR (bind) or IB_WC_LOC_PROT_ERR.
 * vroce_mem_invalidate() also serves SEND_WITH_INV on the responder.
 * All are callable from any context.
 */
int vroce_mr_reg_wqe(struct vroce_qp *qp, struct ib_mr *ibmr, u32 key,
		     int access);
int vroce_mem_invalidate(struct vroce_qp *qp, u32 key);
int vroce_mw_bind_wqe(struct vroce_qp *qp, const struct rxe_send_wqe *wqe);

extern const struct ib_device_ops vroce_mr_ops;

#endif /* VROCE_MR_H */
