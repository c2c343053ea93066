// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions and memory windows.
 *
 * Every MR and MW owns one index in vroce_dev.mem_keys; its keys are
 * (index << 8) | variant.  MR entries are stored as plain pointers, MW
 * entries carry xarray pointer tag 1, so that a lookup knows what it found
 * before touching it.  Lookups run under RCU and take a reference with
 * refcount_inc_not_zero(); destruction erases the index, drops the initial
 * reference, waits for the others and only then frees.  MRs are ours to
 * free and go through kfree_rcu(); MWs are freed by ib_core as soon as
 * dealloc_mw returns, so dealloc_mw waits for a grace period itself.
 *
 * Address translation: DMA MRs name kernel virtual addresses (the device
 * uses ib_core's virtual DMA); user MRs keep an array of their pinned
 * pages; fast-reg MRs keep the page list of the last REG_MR, copied from
 * the one map_mr_sg built so that a remap never changes a live
 * registration.
 */
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/rdma_user_rxe.h>

#include "vroce.h"

/* xarray pointer tags of vroce_dev.mem_keys entries. */
#define VROCE_KEY_TAG_MR	0
#define VROCE_KEY_TAG_MW	1

#define VROCE_REMOTE_ACCESS	(IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)
/* Rights an MR can hold. */
#define VROCE_MR_ACCESS		(IB_ACCESS_LOCAL_WRITE | VROCE_REMOTE_ACCESS | \
				 IB_ACCESS_MW_BIND | IB_ZERO_BASED | \
				 VROCE_ACCESS_FLUSH)
/* Rights a window binding can grant. */
#define VROCE_MW_ACCESS		(VROCE_REMOTE_ACCESS | IB_ZERO_BASED)

static struct vroce_dev *vroce_mr_dev(struct vroce_mr *mr)
{
	return to_vroce_dev(mr->ibmr.device);
}

/*
 * Kernel callers (ib_alloc_pd's DMA MR, REG_MR work requests) do not go
 * through ib_check_mr_access(): apply the IBTA rule here (remote write or
 * atomic needs local write) and refuse rights this device does not
 * implement.  Optional rights such as relaxed ordering are hints: dropped.
 */
static int vroce_kernel_access(int access)
{
	access &= ~IB_ACCESS_OPTIONAL;
	if (access & ~VROCE_MR_ACCESS)
		return -EINVAL;
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return access;
}

/* Is [iova, iova + len) inside [base, base + size)?  No sum can wrap. */
static bool vroce_range_ok(u64 base, u64 size, u64 iova, u64 len)
{
	if (iova < base)
		return false;
	iova -= base;
	return iova <= size && len <= size - iova;
}

static u32 vroce_key_make(u32 index, u32 variant)
{
	return (index << VROCE_KEY_VARIANT_BITS) |
	       (variant & VROCE_KEY_VARIANT_MASK);
}

static int vroce_key_alloc(struct vroce_dev *vdev, void *entry, u32 *index)
{
	int err;

	err = xa_alloc_cyclic_irq(&vdev->mem_keys, index, entry,
				  XA_LIMIT(1, VROCE_KEY_INDEX_MAX),
				  &vdev->next_mem_key, GFP_KERNEL);
	if (err == -EBUSY)
		return -ENOMEM;
	return err < 0 ? err : 0;
}

/*
 * Find the MR or MW behind a key's index and take a reference.  Only the
 * index is matched here: callers compare the whole key under the object's
 * lock.  Return: the object and its tag in *tag, or NULL.
 */
static void *vroce_key_get(struct vroce_dev *vdev, u32 key, unsigned int *tag)
{
	struct vroce_mr *mr;
	struct vroce_mw *mw;
	void *entry, *obj = NULL;

	rcu_read_lock();
	entry = xa_load(&vdev->mem_keys, key >> VROCE_KEY_VARIANT_BITS);
	if (!entry)
		goto unlock;
	*tag = xa_pointer_tag(entry);
	if (*tag == VROCE_KEY_TAG_MW) {
		mw = xa_untag_pointer(entry);
		if (refcount_inc_not_zero(&mw->ref))
			obj = mw;
	} else {
		mr = xa_untag_pointer(entry);
		if (refcount_inc_not_zero(&mr->ref))
			obj = mr;
	}
unlock:
	rcu_read_unlock();
	return obj;
}

/**
 * vroce_mr_put() - drop a reference on an MR
 * @mr: the MR
 *
 * The last reference wakes dereg_mr, which frees the MR.
 */
void vroce_mr_put(struct vroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->released);
}

static void vroce_mw_put(struct vroce_mw *mw)
{
	if (refcount_dec_and_test(&mw->ref))
		complete(&mw->released);
}

static struct vroce_mr *vroce_mr_get(struct vroce_dev *vdev, u32 key)
{
	unsigned int tag;
	void *obj;

	obj = vroce_key_get(vdev, key, &tag);
	if (obj && tag != VROCE_KEY_TAG_MR) {
		vroce_mw_put(obj);
		obj = NULL;
	}
	return obj;
}

static struct vroce_mw *vroce_mw_get(struct vroce_dev *vdev, u32 key)
{
	unsigned int tag;
	void *obj;

	obj = vroce_key_get(vdev, key, &tag);
	if (obj && tag != VROCE_KEY_TAG_MW) {
		vroce_mr_put(obj);
		obj = NULL;
	}
	return obj;
}

/* --- MR life cycle ------------------------------------------------------ */

static struct vroce_mr *vroce_mr_alloc(struct ib_pd *pd,
				       enum vroce_mem_type type, int access)
{
	struct vroce_dev *vdev = to_vroce_dev(pd->device);
	struct vroce_mr *mr;

	if (vroce_fault_alloc_fail(vdev) ||
	    !vroce_count_get(&vdev->num_mrs, VROCE_MAX_MR))
		return ERR_PTR(-ENOMEM);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		atomic_dec(&vdev->num_mrs);
		return ERR_PTR(-ENOMEM);
	}
	/* ib_core sets these after we return; lookups need them before. */
	mr->ibmr.device = pd->device;
	mr->ibmr.pd = pd;
	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);
	spin_lock_init(&mr->lock);
	mr->type = type;
	mr->access = access;
	mr->state = VROCE_MEM_INVALID;
	return mr;
}

/* Undo vroce_mr_alloc() and the memory attached since. */
static void vroce_mr_free(struct vroce_mr *mr, bool published)
{
	struct vroce_dev *vdev = vroce_mr_dev(mr);

	ib_umem_release(mr->umem);
	kvfree(mr->upages);
	kfree(mr->pages);
	kfree(mr->map_pages);
	atomic_dec(&vdev->num_mrs);
	if (published)
		kfree_rcu(mr, rcu);
	else
		kfree(mr);
}

/*
 * Give the MR its index and first key.  The key is written under the lock
 * after the entry is visible; until then mr->key is 0, which no lookup
 * key with this index can match.
 */
static int vroce_mr_publish(struct vroce_mr *mr, enum vroce_mem_state state)
{
	unsigned long flags;
	u32 key;
	int err;

	err = vroce_key_alloc(vroce_mr_dev(mr), mr, &mr->index);
	if (err)
		return err;
	key = vroce_key_make(mr->index, get_random_u32());
	spin_lock_irqsave(&mr->lock, flags);
	mr->key = key;
	mr->state = state;
	spin_unlock_irqrestore(&mr->lock, flags);
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	return 0;
}

/* Remove a published MR: no new lookups, wait for the running ones. */
static void vroce_mr_destroy(struct vroce_mr *mr)
{
	xa_erase_irq(&vroce_mr_dev(mr)->mem_keys, mr->index);
	vroce_mr_put(mr);
	vroce_wait_released(&vroce_mr_dev(mr)->ibdev, &mr->released, &mr->ref,
			    "MR", mr->index, VROCE_RELEASE_WARN_MS);
	vroce_mr_free(mr, true);
}

static struct ib_mr *vroce_get_dma_mr(struct ib_pd *pd, int access)
{
	struct vroce_mr *mr;
	int err;

	access = vroce_kernel_access(access);
	if (access < 0)
		return ERR_PTR(access);
	/* A DMA MR is not zero based: its addresses are kernel addresses. */
	mr = vroce_mr_alloc(pd, VROCE_MEM_DMA, access & ~IB_ZERO_BASED);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->iova = 0;
	mr->length = U64_MAX;
	err = vroce_mr_publish(mr, VROCE_MEM_VALID);
	if (err) {
		vroce_mr_free(mr, false);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/*
 * Pin [start, start + length) and name it [iova, iova + length), or
 * [0, length) for a zero-based MR.  ib_core has checked the access flags
 * (ib_check_mr_access) and that start and iova share their page offset.
 */
static struct vroce_mr *vroce_mr_create_user(struct ib_pd *pd, u64 start,
					     u64 length, u64 iova, int access)
{
	struct ib_umem *umem;
	struct sg_page_iter it;
	struct vroce_mr *mr;
	unsigned long n = 0;
	u64 base;
	int err;

	base = (access & IB_ZERO_BASED) ? 0 : iova;
	if (!length || base + (length - 1) < base)
		return ERR_PTR(-EINVAL);

	mr = vroce_mr_alloc(pd, VROCE_MEM_USER, access & VROCE_MR_ACCESS);
	if (IS_ERR(mr))
		return mr;

	umem = ib_umem_get(pd->device, start, length, access);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto free_mr;
	}
	mr->umem = umem;

	/* One array lookup per page at copy time instead of an sg walk. */
	mr->nupages = ib_umem_num_pages(umem);
	mr->upages = kvmalloc_array(mr->nupages, sizeof(*mr->upages),
				    GFP_KERNEL_ACCOUNT);
	if (!mr->upages) {
		err = -ENOMEM;
		goto free_mr;
	}
	for_each_sgtable_page(&umem->sgt_append.sgt, &it, 0) {
		if (n == mr->nupages)
			break;
		mr->upages[n++] = sg_page_iter_page(&it);
	}
	if (n != mr->nupages) {
		err = -EFAULT;
		goto free_mr;
	}

	mr->iova = base;
	mr->length = length;
	/* What the consumer sees (ib_core sets these too, except on rereg). */
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	err = vroce_mr_publish(mr, VROCE_MEM_VALID);
	if (err)
		goto free_mr;
	return mr;

free_mr:
	vroce_mr_free(mr, false);
	return ERR_PTR(err);
}

static struct ib_mr *vroce_reg_user_mr(struct ib_pd *pd, u64 start,
				       u64 length, u64 iova, int access,
				       struct ib_udata *udata)
{
	struct vroce_mr *mr;

	mr = vroce_mr_create_user(pd, start, length, iova, access);
	if (IS_ERR(mr)) {
		vroce_dbg(to_vroce_dev(pd->device), "failed: %ld\n",
			  PTR_ERR(mr));
		return ERR_CAST(mr);
	}
	return &mr->ibmr;
}

/*
 * rereg_mr.  Contract of ib_uverbs_rereg_mr (the same on 6.1 and 6.12):
 * return NULL when the MR was changed in place, or a new ib_mr that
 * replaces it under the same handle (ib_core then destroys the old one
 * through dereg_mr).  A new translation, a wider pin (read-only pages
 * that must become writable) or a change of zero-based addressing build
 * a new MR, with new keys; access and PD changes alone are made in place.
 * An MR with bound windows cannot change (IBTA), nor can it be replaced,
 * as the old one could then not be deregistered.
 */
static struct ib_mr *vroce_rereg_user_mr(struct ib_mr *ibmr, int flags,
					 u64 start, u64 length, u64 iova,
					 int access, struct ib_pd *pd,
					 struct ib_udata *udata)
{
	struct vroce_mr *mr = to_vroce_mr(ibmr);
	struct vroce_dev *vdev = vroce_mr_dev(mr);
	struct vroce_mr *new;
	unsigned long irqflags;
	bool translate;
	int old_access;

	if (mr->type != VROCE_MEM_USER)
		return ERR_PTR(-EINVAL);

	/* Only rereg changes a user MR's access, and uverbs serialises it. */
	old_access = mr->access;
	if (!(flags & IB_MR_REREG_ACCESS))
		access = old_access;
	translate = flags & IB_MR_REREG_TRANS;
	if (!translate &&
	    ((ib_access_writable(access) && !mr->umem->writable) ||
	     ((access ^ old_access) & IB_ZERO_BASED))) {
		start = mr->umem->address;
		length = mr->umem->length;
		iova = mr->ibmr.iova;
		translate = true;
	}

	if (translate) {
		new = vroce_mr_create_user(pd, start, length, iova, access);
		if (IS_ERR(new))
			return ERR_CAST(new);
		spin_lock_irqsave(&mr->lock, irqflags);
		if (mr->num_mw) {
			spin_unlock_irqrestore(&mr->lock, irqflags);
			vroce_mr_destroy(new);
			vroce_dbg(vdev, "MR %#x has bound windows\n", mr->key);
			return ERR_PTR(-EBUSY);
		}
		/* ib_core deregisters it next: no window may bind meanwhile. */
		mr->dead = true;
		spin_unlock_irqrestore(&mr->lock, irqflags);
		return &new->ibmr;
	}

	spin_lock_irqsave(&mr->lock, irqflags);
	if (mr->num_mw) {
		spin_unlock_irqrestore(&mr->lock, irqflags);
		vroce_dbg(vdev, "MR %#x has bound windows\n", mr->key);
		return ERR_PTR(-EBUSY);
	}
	mr->access = access & VROCE_MR_ACCESS;
	/* ib_core stores the same PD again once we return. */
	WRITE_ONCE(mr->ibmr.pd, pd);
	spin_unlock_irqrestore(&mr->lock, irqflags);
	return NULL;
}

static int vroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct vroce_mr *mr = to_vroce_mr(ibmr);
	unsigned long flags;

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->num_mw) {
		spin_unlock_irqrestore(&mr->lock, flags);
		/* uverbs retries after closing the windows of a dying process. */
		vroce_dbg(vroce_mr_dev(mr), "MR %#x has bound windows\n",
			  mr->key);
		return -EBUSY;
	}
	mr->dead = true;
	mr->state = VROCE_MEM_INVALID;
	spin_unlock_irqrestore(&mr->lock, flags);

	vroce_mr_destroy(mr);
	return 0;
}

static struct ib_mr *vroce_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
				    u32 max_num_sg)
{
	struct vroce_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg ||
	    max_num_sg > pd->device->attrs.max_fast_reg_page_list_len)
		return ERR_PTR(-EINVAL);

	mr = vroce_mr_alloc(pd, VROCE_MEM_FAST_REG, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->max_pages = max_num_sg;
	mr->pages = kcalloc(max_num_sg, sizeof(*mr->pages), GFP_KERNEL);
	mr->map_pages = kcalloc(max_num_sg, sizeof(*mr->map_pages), GFP_KERNEL);
	if (!mr->pages || !mr->map_pages) {
		err = -ENOMEM;
		goto free_mr;
	}
	/* Unusable until a REG_MR work request makes it valid. */
	err = vroce_mr_publish(mr, VROCE_MEM_INVALID);
	if (err)
		goto free_mr;
	return &mr->ibmr;

free_mr:
	vroce_mr_free(mr, false);
	return ERR_PTR(err);
}

static int vroce_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct vroce_mr *mr = to_vroce_mr(ibmr);

	lockdep_assert_held(&mr->lock);
	if (mr->map_npages >= mr->max_pages)
		return -ENOMEM;
	mr->map_pages[mr->map_npages++] = addr;
	return 0;
}

/*
 * Build the page list the next REG_MR will install.  The list in force
 * is left alone: consumers such as iSER map a still-valid MR and then
 * post LOCAL_INV and REG_MR in one chain.
 */
static int vroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
			   int sg_nents, unsigned int *sg_offset)
{
	struct vroce_mr *mr = to_vroce_mr(ibmr);
	unsigned long flags;
	int n;

	if (mr->type != VROCE_MEM_FAST_REG)
		return -EINVAL;
	if (!is_power_of_2(ibmr->page_size) || ibmr->page_size < SZ_4K)
		return -EINVAL;

	spin_lock_irqsave(&mr->lock, flags);
	mr->map_npages = 0;
	mr->map_shift = ilog2(ibmr->page_size);
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, vroce_set_page);
	/* ib_sg_to_pages() set iova to the first mapped byte. */
	mr->map_offset = ibmr->iova & (ibmr->page_size - 1);
	spin_unlock_irqrestore(&mr->lock, flags);
	return n;
}

/* --- lookups and copies ------------------------------------------------- */

/**
 * vroce_mr_lookup_lkey() - find the MR behind a local key and check a use
 * @vdev: the device
 * @pd: the PD the MR must belong to
 * @lkey: the key from an SGE
 * @iova: first byte accessed
 * @len: bytes accessed (0 skips the range check)
 * @access: rights needed (0 for local read, IB_ACCESS_LOCAL_WRITE...)
 *
 * Callable from any context.
 *
 * Return: the referenced MR, or ERR_PTR(-EINVAL) for an unknown or
 * invalid key, -EACCES for another PD or missing rights, -ERANGE for an
 * access outside the region.
 */
struct vroce_mr *vroce_mr_lookup_lkey(struct vroce_dev *vdev,
				      struct ib_pd *pd, u32 lkey, u64 iova,
				      u64 len, int access)
{
	struct vroce_mr *mr;
	unsigned long flags;
	int err = 0;

	mr = vroce_mr_get(vdev, lkey);
	if (!mr)
		return ERR_PTR(-EINVAL);

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->state != VROCE_MEM_VALID || mr->key != lkey)
		err = -EINVAL;
	else if (READ_ONCE(mr->ibmr.pd) != pd ||
		 (mr->access & access) != access)
		err = -EACCES;
	else if (len && !vroce_range_ok(mr->iova, mr->length, iova, len))
		err = -ERANGE;
	spin_unlock_irqrestore(&mr->lock, flags);

	if (err) {
		vroce_mr_put(mr);
		return ERR_PTR(err);
	}
	return mr;
}

static struct vroce_mr *vroce_mw_lookup(struct vroce_mw *mw, struct ib_pd *pd,
					u32 qp_num, u32 rkey, u64 *iova,
					u64 len, int access)
{
	struct vroce_mr *mr = NULL;
	unsigned long flags;
	u64 off;
	int err;

	spin_lock_irqsave(&mw->lock, flags);
	err = -EINVAL;
	if (!mw->valid || mw->rkey != rkey)
		goto unlock;
	err = -EACCES;
	if (mw->ibmw.pd != pd ||
	    (mw->ibmw.type == IB_MW_TYPE_2 && mw->qp_num != qp_num) ||
	    (mw->access & access) != access)
		goto unlock;
	/* A zero-based window names offsets from its first byte. */
	err = -ERANGE;
	if (iova) {
		if (mw->access & IB_ZERO_BASED) {
			off = *iova;
		} else {
			if (*iova < mw->addr)
				goto unlock;
			off = *iova - mw->addr;
		}
		if (off > mw->length || len > mw->length - off)
			goto unlock;
		*iova = mw->addr + off;
	}
	/*
	 * The binding holds a reference on the MR and keeps it valid (no
	 * LOCAL_INV, rereg or dereg while windows are bound).
	 */
	mr = mw->mr;
	refcount_inc(&mr->ref);
	err = 0;
unlock:
	spin_unlock_irqrestore(&mw->lock, flags);
	return err ? ERR_PTR(err) : mr;
}

/**
 * vroce_mr_lookup_rkey() - find the memory behind a remote key
 * @vdev: the device
 * @pd: the PD of the QP the request arrived on
 * @qp_num: that QP (type 2B windows are bound to one QP)
 * @rkey: key from the packet, naming an MR or a bound MW
 * @iova: in: the address from the packet; out: the address in the MR;
 *	NULL: the whole region (a FLUSH at the MR level)
 * @len: bytes accessed
 * @access: IB_ACCESS_REMOTE_{READ,WRITE,ATOMIC}, IB_ACCESS_FLUSH_GLOBAL
 *
 * Callable from any context.
 *
 * Return: as vroce_mr_lookup_lkey(); for a window, its MR.
 */
struct vroce_mr *vroce_mr_lookup_rkey(struct vroce_dev *vdev,
				      struct ib_pd *pd, u32 qp_num, u32 rkey,
				      u64 *iova, u64 len, int access)
{
	struct vroce_mr *mr;
	struct vroce_mw *mw;
	unsigned long flags;
	unsigned int tag;
	void *obj;
	int err = 0;

	obj = vroce_key_get(vdev, rkey, &tag);
	if (!obj)
		return ERR_PTR(-EINVAL);
	if (tag == VROCE_KEY_TAG_MW) {
		mw = obj;
		mr = vroce_mw_lookup(mw, pd, qp_num, rkey, iova, len, access);
		vroce_mw_put(mw);
		return mr;
	}

	mr = obj;
	spin_lock_irqsave(&mr->lock, flags);
	if (mr->state != VROCE_MEM_VALID || mr->key != rkey)
		err = -EINVAL;
	else if (READ_ONCE(mr->ibmr.pd) != pd ||
		 (mr->access & access) != access)
		err = -EACCES;
	else if (iova && !vroce_range_ok(mr->iova, mr->length, *iova, len))
		err = -ERANGE;
	spin_unlock_irqrestore(&mr->lock, flags);

	if (err) {
		vroce_mr_put(mr);
		return ERR_PTR(err);
	}
	return mr;
}

static void vroce_copy_chunk(void *mem, void *buf, size_t n, bool to_mr)
{
	if (to_mr)
		memcpy(mem, buf, n);
	else
		memcpy(buf, mem, n);
}

static int vroce_copy_user(struct vroce_mr *mr, u64 iova, void *buf, u64 len,
			   bool to_mr)
{
	u64 off;

	if (!vroce_range_ok(mr->iova, mr->length, iova, len))
		return -EFAULT;
	off = iova - mr->iova + ib_umem_offset(mr->umem);
	while (len) {
		unsigned long idx = off >> PAGE_SHIFT;
		size_t pgoff = offset_in_page(off);
		size_t n = min_t(u64, len, PAGE_SIZE - pgoff);
		struct page *page;
		void *va;

		if (idx >= mr->nupages)
			return -EFAULT;
		page = mr->upages[idx];
		va = kmap_local_page(page);
		vroce_copy_chunk(va + pgoff, buf, n, to_mr);
		kunmap_local(va);
		if (to_mr)
			flush_dcache_page(page);
		off += n;
		buf += n;
		len -= n;
	}
	return 0;
}

/*
 * One page at a time under the lock: a LOCAL_INV that completes has no
 * copy into the old pages still running, and interrupts stay off for one
 * page at most.
 */
static int vroce_copy_fast_reg(struct vroce_mr *mr, u64 iova, void *buf,
			       u64 len, bool to_mr)
{
	unsigned long flags;
	int err = 0;

	while (len && !err) {
		u64 off, pgsize, pgoff;
		size_t n = 0;
		u32 idx;

		spin_lock_irqsave(&mr->lock, flags);
		if (mr->state != VROCE_MEM_VALID ||
		    !vroce_range_ok(mr->iova, mr->length, iova, len)) {
			err = -EFAULT;
			goto unlock;
		}
		pgsize = 1ULL << mr->page_shift;
		off = iova - mr->iova + mr->page_offset;
		if ((off >> mr->page_shift) >= mr->npages) {
			err = -EFAULT;
			goto unlock;
		}
		idx = off >> mr->page_shift;
		pgoff = off & (pgsize - 1);
		n = min_t(u64, len, pgsize - pgoff);
		n = min_t(u64, n, PAGE_SIZE - offset_in_page(pgoff));
		vroce_copy_chunk((void *)(uintptr_t)(mr->pages[idx] + pgoff),
				 buf, n, to_mr);
unlock:
		spin_unlock_irqrestore(&mr->lock, flags);
		iova += n;
		buf += n;
		len -= n;
	}
	return err;
}

/**
 * vroce_mr_copy() - copy between a kernel buffer and registered memory
 * @mr: a referenced MR whose range was checked by a lookup
 * @iova: address in the MR
 * @buf: kernel buffer
 * @len: bytes
 * @to_mr: true to write into the MR, false to read from it
 *
 * Callable from any context.  The range is checked again against the
 * region as it is now.
 *
 * Return: 0 or -EFAULT when the range leaves the region.
 */
int vroce_mr_copy(struct vroce_mr *mr, u64 iova, void *buf, u64 len,
		  bool to_mr)
{
	if (!len)
		return 0;
	switch (mr->type) {
	case VROCE_MEM_DMA:
		/* Kernel memory named by a kernel consumer. */
		vroce_copy_chunk((void *)(uintptr_t)iova, buf, len, to_mr);
		return 0;
	case VROCE_MEM_USER:
		return vroce_copy_user(mr, iova, buf, len, to_mr);
	case VROCE_MEM_FAST_REG:
		return vroce_copy_fast_reg(mr, iova, buf, len, to_mr);
	}
	return -EFAULT;
}

/* --- send-queue memory operations -------------------------------------- */

/**
 * vroce_mr_reg_wqe() - execute a REG_MR work request (kernel QPs only)
 * @qp: the QP that posted it
 * @ibmr: the fast-reg MR, mapped by map_mr_sg
 * @key: the new key: same index, the variant may change
 * @access: IB_ACCESS_* rights of the registration
 *
 * Installs the page list map_mr_sg built, with the iova and length the
 * ib_mr holds now.  Callable from any context.
 *
 * Return: 0, -EINVAL for a wrong MR, key, state or access, -EACCES for an
 * MR of another PD.
 */
int vroce_mr_reg_wqe(struct vroce_qp *qp, struct ib_mr *ibmr, u32 key,
		     int access)
{
	struct vroce_mr *mr = to_vroce_mr(ibmr);
	unsigned long flags;
	u64 span, iova, len;
	int err = -EINVAL;

	if (!mr || mr->type != VROCE_MEM_FAST_REG)
		return -EINVAL;
	access = vroce_kernel_access(access);
	if (access < 0)
		return -EINVAL;

	spin_lock_irqsave(&mr->lock, flags);
	/* IBTA: only a free (invalid) MR can be fast-registered. */
	if (mr->dead || mr->state != VROCE_MEM_INVALID ||
	    (key >> VROCE_KEY_VARIANT_BITS) != mr->index)
		goto unlock;
	if (READ_ONCE(mr->ibmr.pd) != qp->ibqp.pd) {
		err = -EACCES;
		goto unlock;
	}
	iova = ibmr->iova;
	len = ibmr->length;
	span = (u64)mr->map_npages << mr->map_shift;
	if (span < mr->map_offset || len > span - mr->map_offset ||
	    (len && iova + (len - 1) < iova))
		goto unlock;

	memcpy(mr->pages, mr->map_pages, mr->map_npages * sizeof(u64));
	mr->npages = mr->map_npages;
	mr->page_shift = mr->map_shift;
	mr->page_offset = mr->map_offset;
	mr->iova = iova;
	mr->length = len;
	mr->access = access;
	mr->key = key;
	mr->state = VROCE_MEM_VALID;
	ibmr->lkey = key;
	ibmr->rkey = key;
	err = 0;
unlock:
	spin_unlock_irqrestore(&mr->lock, flags);
	return err;
}

/* Drop a window's hold on its MR (after the window's lock is released). */
static void vroce_mw_release_mr(struct vroce_mr *mr)
{
	unsigned long flags;

	if (!mr)
		return;
	spin_lock_irqsave(&mr->lock, flags);
	mr->num_mw--;
	spin_unlock_irqrestore(&mr->lock, flags);
	vroce_mr_put(mr);
}

static int vroce_mr_invalidate(struct vroce_qp *qp, struct vroce_mr *mr,
			       u32 key)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&mr->lock, flags);
	/* Only fast-reg MRs can be invalidated; not under bound windows. */
	if (mr->type != VROCE_MEM_FAST_REG || mr->key != key || mr->num_mw)
		err = -EINVAL;
	else if (READ_ONCE(mr->ibmr.pd) != qp->ibqp.pd)
		err = -EACCES;
	else
		mr->state = VROCE_MEM_INVALID;
	spin_unlock_irqrestore(&mr->lock, flags);
	return err;
}

static int vroce_mw_invalidate(struct vroce_qp *qp, struct vroce_mw *mw,
			       u32 key)
{
	struct vroce_mr *old = NULL;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&mw->lock, flags);
	/* o10-37.2.26: a type 1 window is only unbound by a new bind. */
	if (mw->ibmw.type != IB_MW_TYPE_2 || !mw->valid || mw->rkey != key) {
		err = -EINVAL;
	} else if (mw->ibmw.pd != qp->ibqp.pd) {
		err = -EACCES;
	} else {
		old = mw->mr;
		mw->mr = NULL;
		mw->valid = false;
		mw->addr = 0;
		mw->length = 0;
		mw->access = 0;
		mw->qp_num = 0;
	}
	spin_unlock_irqrestore(&mw->lock, flags);
	vroce_mw_release_mr(old);
	return err;
}

/**
 * vroce_mem_invalidate() - LOCAL_INV or SEND_WITH_INV of a key
 * @qp: the QP that posted LOCAL_INV or received SEND_WITH_INV
 * @key: a fast-reg MR's key or a type 2B window's rkey
 *
 * The MR or window must be in @qp's PD and the key must be the current
 * one (variant included).  Callable from any context.
 *
 * Return: 0, -EINVAL for an unknown or stale key or an object that cannot
 * be invalidated, -EACCES for another PD.
 */
int vroce_mem_invalidate(struct vroce_qp *qp, u32 key)
{
	struct vroce_dev *vdev = to_vroce_dev(qp->ibqp.device);
	unsigned int tag;
	void *obj;
	int err;

	obj = vroce_key_get(vdev, key, &tag);
	if (!obj)
		return -EINVAL;
	if (tag == VROCE_KEY_TAG_MW) {
		err = vroce_mw_invalidate(qp, obj, key);
		vroce_mw_put(obj);
	} else {
		err = vroce_mr_invalidate(qp, obj, key);
		vroce_mr_put(obj);
	}
	if (err)
		vroce_dbg(vdev, "key %#x: %d\n", key, err);
	return err;
}

/* --- memory windows ----------------------------------------------------- */

static int vroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibmw->device);
	struct vroce_mw *mw = to_vroce_mw(ibmw);
	unsigned long flags;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	if (vroce_fault_alloc_fail(vdev) ||
	    !vroce_count_get(&vdev->num_mws, VROCE_MAX_MW))
		return -ENOMEM;

	refcount_set(&mw->ref, 1);
	init_completion(&mw->released);
	spin_lock_init(&mw->lock);
	err = vroce_key_alloc(vdev, xa_tag_pointer(mw, VROCE_KEY_TAG_MW),
			      &mw->index);
	if (err) {
		atomic_dec(&vdev->num_mws);
		return err;
	}
	/*
	 * Both types start unbound: a type 1 window is bound by ibv_bind_mw
	 * (a BIND_MW WQE from librxe), a type 2B one by a BIND_MW WQE.
	 */
	spin_lock_irqsave(&mw->lock, flags);
	mw->rkey = vroce_key_make(mw->index, get_random_u32());
	ibmw->rkey = mw->rkey;
	spin_unlock_irqrestore(&mw->lock, flags);
	return 0;
}

static int vroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct vroce_dev *vdev = to_vroce_dev(ibmw->device);
	struct vroce_mw *mw = to_vroce_mw(ibmw);
	struct vroce_mr *old;
	unsigned long flags;

	xa_erase_irq(&vdev->mem_keys, mw->index);
	vroce_mw_put(mw);
	vroce_wait_released(ibmw->device, &mw->released, &mw->ref, "MW",
			    mw->index, VROCE_RELEASE_WARN_MS);
	/*
	 * ib_core frees the window when we return, without a grace period:
	 * let lookups that loaded the entry before the erase leave RCU.
	 */
	synchronize_rcu();

	spin_lock_irqsave(&mw->lock, flags);
	old = mw->mr;
	mw->mr = NULL;
	mw->valid = false;
	spin_unlock_irqrestore(&mw->lock, flags);
	vroce_mw_release_mr(old);
	atomic_dec(&vdev->num_mws);
	return 0;
}

/* Checks on the window itself (o10-36.2.x / o10-37.2.x, C10-72). */
static int vroce_mw_check_bind(struct vroce_qp *qp, struct vroce_mw *mw,
			       u64 len, int access, u32 rkey)
{
	lockdep_assert_held(&mw->lock);
	if (mw->ibmw.pd != qp->ibqp.pd)
		return -EACCES;
	if (mw->ibmw.type == IB_MW_TYPE_1) {
		/* o10-36.2.2: type 1 windows cannot be zero based. */
		if (access & IB_ZERO_BASED)
			return -EINVAL;
	} else {
		/* o10-37.2.30, o10-37.2.40: bind a free 2B window, not empty. */
		if (mw->valid || !len)
			return -EINVAL;
	}
	/* A new generation, so that the old rkey stops working. */
	if (((rkey ^ mw->rkey) & VROCE_KEY_VARIANT_MASK) == 0)
		return -EINVAL;
	return 0;
}

/* Checks on the MR (C10-73, C10-74, C10-75); counts the new window. */
static int vroce_mw_attach_mr(struct vroce_qp *qp, struct vroce_mr *mr,
			      u32 lkey, u64 addr, u64 len, int access)
{
	unsigned long flags;
	int err = -EINVAL;

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->dead || mr->state != VROCE_MEM_VALID || mr->key != lkey ||
	    mr->type == VROCE_MEM_DMA || (mr->access & IB_ZERO_BASED))
		goto unlock;
	err = -EACCES;
	if (READ_ONCE(mr->ibmr.pd) != qp->ibqp.pd ||
	    !(mr->access & IB_ACCESS_MW_BIND))
		goto unlock;
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IB_ACCESS_LOCAL_WRITE))
		goto unlock;
	err = -EINVAL;
	if (!vroce_range_ok(mr->iova, mr->length, addr, len))
		goto unlock;
	mr->num_mw++;
	err = 0;
unlock:
	spin_unlock_irqrestore(&mr->lock, flags);
	return err;
}

/**
 * vroce_mw_bind_wqe() - execute a BIND_MW work request
 * @qp: the QP that posted it
 * @wqe: kernel copy of the WQE (wr.mw: addr, length, mr_lkey, mw_rkey,
 *	rkey, access)
 *
 * Binds (or, for a type 1 window and length 0, unbinds) the window named
 * by mw_rkey and moves its rkey to the variant of wr.mw.rkey.  Callable
 * from any context.
 *
 * Return: 0, -EINVAL for bad keys, state, range or flags, -EACCES for a
 * PD mismatch or missing rights on the MR.
 */
int vroce_mw_bind_wqe(struct vroce_qp *qp, const struct rxe_send_wqe *wqe)
{
	struct vroce_dev *vdev = to_vroce_dev(qp->ibqp.device);
	u64 addr = wqe->wr.wr.mw.addr;
	u64 len = wqe->wr.wr.mw.length;
	u32 mr_lkey = wqe->wr.wr.mw.mr_lkey;
	u32 rkey = wqe->wr.wr.mw.rkey;
	int access = wqe->wr.wr.mw.access;
	struct vroce_mr *mr = NULL, *old = NULL;
	struct vroce_mw *mw;
	unsigned long flags;
	int err;

	mw = vroce_mw_get(vdev, wqe->wr.wr.mw.mw_rkey);
	if (!mw)
		return -EINVAL;
	/*
	 * Local write means nothing for a window: ConnectX and rdma_rxe
	 * ignore it, and applications pass their MR's flags along.
	 */
	access &= ~IB_ACCESS_LOCAL_WRITE;
	err = -EINVAL;
	if (access & ~VROCE_MW_ACCESS)
		goto put_mw;
	if (len) {
		mr = vroce_mr_get(vdev, mr_lkey);
		if (!mr)
			goto put_mw;
	}

	spin_lock_irqsave(&mw->lock, flags);
	if (mw->rkey != wqe->wr.wr.mw.mw_rkey) {
		err = -EINVAL;
		goto unlock_mw;
	}
	err = vroce_mw_check_bind(qp, mw, len, access, rkey);
	if (err)
		goto unlock_mw;
	if (mr) {
		err = vroce_mw_attach_mr(qp, mr, mr_lkey, addr, len, access);
		if (err)
			goto unlock_mw;
	}
	old = mw->mr;
	/* The lookup's reference on the MR becomes the binding's. */
	mw->mr = mr;
	mr = NULL;
	mw->rkey = (mw->rkey & ~VROCE_KEY_VARIANT_MASK) |
		   (rkey & VROCE_KEY_VARIANT_MASK);
	mw->ibmw.rkey = mw->rkey;
	mw->addr = len ? addr : 0;
	mw->length = len;
	mw->access = len ? access : 0;
	mw->valid = len != 0;
	mw->qp_num = mw->ibmw.type == IB_MW_TYPE_2 ? qp->ibqp.qp_num : 0;
unlock_mw:
	spin_unlock_irqrestore(&mw->lock, flags);
	vroce_mw_release_mr(old);
	if (mr)
		vroce_mr_put(mr);
put_mw:
	vroce_mw_put(mw);
	if (err)
		vroce_dbg(vdev, "rkey %#x: %d\n", wqe->wr.wr.mw.mw_rkey, err);
	return err;
}

const struct ib_device_ops vroce_mr_ops = {
	.alloc_mr = vroce_alloc_mr,
	.alloc_mw = vroce_alloc_mw,
	.dealloc_mw = vroce_dealloc_mw,
	.dereg_mr = vroce_dereg_mr,
	.get_dma_mr = vroce_get_dma_mr,
	.map_mr_sg = vroce_map_mr_sg,
	.reg_user_mr = vroce_reg_user_mr,
	.rereg_user_mr = vroce_rereg_user_mr,
};

/**
 * vroce_sge_copy() - copy between a kernel buffer and an SGE list
 * @vdev: the device
 * @pd: the PD every lkey must belong to
 * @sge: the list (a checked kernel copy)
 * @num_sge: entries in @sge
 * @offset: byte offset into the list where the copy starts
 * @buf: kernel buffer
 * @len: bytes to copy
 * @to_mr: true to write into the SGEs (needs local write), false to read
 *
 * Return: 0, a lookup or copy error, or -EINVAL when the list ends first.
 */
int vroce_sge_copy(struct vroce_dev *vdev, struct ib_pd *pd,
		   const struct rxe_sge *sge, u32 num_sge, u32 offset,
		   void *buf, u32 len, bool to_mr)
{
	int access = to_mr ? IB_ACCESS_LOCAL_WRITE : 0;
	u32 i;

	for (i = 0; i < num_sge && len; i++, sge++) {
		struct vroce_mr *mr;
		u32 n;
		int err;

		if (offset >= sge->length) {
			offset -= sge->length;
			continue;
		}
		n = min(len, sge->length - offset);
		mr = vroce_mr_lookup_lkey(vdev, pd, sge->lkey,
					  sge->addr + offset, n, access);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
		err = vroce_mr_copy(mr, sge->addr + offset, buf, n, to_mr);
		vroce_mr_put(mr);
		if (err)
			return err;
		buf += n;
		len -= n;
		offset = 0;
	}
	return len ? -EINVAL : 0;
}
