/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory regions and memory windows: keys, access checks, and copies
 * to and from registered memory.  Keys of MRs and MWs share one space:
 * key = (index << 8) | variant, index allocated in vroce_dev.mem_keys; the
 * low byte is the part REG_MR / bind / ib_inc_rkey change (generations).
 */
#ifndef VROCE_MR_H
#define VROCE_MR_H

#include <linux/refcount.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

struct vroce_dev;
struct vroce_qp;
struct rxe_send_wqe;

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
 * @ibmr: the ib_core MR (lkey, rkey, iova, length, pd)
 * @ref: lookups hold a reference; dereg waits for the last one
 * @type: how addresses translate
 * @state: fast-reg MRs are only usable between REG_MR and LOCAL_INV
 * @access: IB_ACCESS_* flags
 * @umem: pinned pages of a user MR
 * @pages: page addresses of a fast-reg MR (map_mr_sg), @max_pages long
 * @npages: valid entries in @pages
 * @max_pages: size of @pages (alloc_mr's max_num_sg)
 * @page_shift: log2 of the fast-reg page size
 * @lock: protects @state, @access, keys and the page list against
 *	concurrent REG_MR / LOCAL_INV / rereg and lookups
 */
struct vroce_mr {
	struct ib_mr ibmr;
	refcount_t ref;
	struct completion released;
	enum vroce_mem_type type;
	enum vroce_mem_state state;
	int access;
	struct ib_umem *umem;
	u64 *pages;
	u32 npages;
	u32 max_pages;
	u32 page_shift;
	spinlock_t lock; /* see above */
};

/**
 * struct vroce_mw - memory window (type 1 or 2B)
 * @ibmw: the ib_core MW (rkey, type, pd)
 * @lock: protects the binding
 * @mr: bound MR (referenced) or NULL
 * @qp_num: type 2B: the QP the window is bound to
 * @addr: first bound address
 * @length: bound length
 * @access: remote access rights of the binding
 * @valid: bound and not invalidated
 */
struct vroce_mw {
	struct ib_mw ibmw;
	spinlock_t lock; /* see above */
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
 * @len: bytes accessed (0 is allowed and only checks the key)
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
 * @iova: first byte accessed
 * @len: bytes accessed
 * @access: IB_ACCESS_REMOTE_{READ,WRITE,ATOMIC}
 *
 * Return: as vroce_mr_lookup_lkey(); for a window, its MR.
 */
struct vroce_mr *vroce_mr_lookup_rkey(struct vroce_dev *vdev,
				      struct ib_pd *pd, u32 qp_num, u32 rkey,
				      u64 iova, u64 len, int access);

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
 * Return: 0 or -EFAULT when the range leaves the region.
 */
int vroce_mr_copy(struct vroce_mr *mr, u64 iova, void *buf, u64 len,
		  bool to_mr);

/*
 * Send-queue memory operations, executed in order by the QP's send path.
 * Return 0, or -EINVAL / -EACCES for a bad key or rights; the caller turns
 * the error into IB_WC_MW_BIND_ERR (bind) or IB_WC_LOC_PROT_ERR.
 */
int vroce_mr_reg_wqe(struct vroce_qp *qp, struct ib_mr *ibmr, u32 key,
		     int access);
int vroce_mem_invalidate(struct vroce_qp *qp, u32 key);
int vroce_mw_bind_wqe(struct vroce_qp *qp, const struct rxe_send_wqe *wqe);

extern const struct ib_device_ops vroce_mr_ops;

#endif /* VROCE_MR_H */
