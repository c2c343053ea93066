// SPDX-License-Identifier: GPL-2.0
/*
 * Ring mappings of a process and their revocation (see umap.h).
 *
 * Each VMA that maps a ring holds a struct vroce_umap on its process's
 * list: the ring's mmap entry (a reference that keeps the buffer alive)
 * and a reference on the list itself, which outlives the user context for
 * as long as VMAs point at it.  Revoking zaps every listed VMA's pages and
 * drops its entry; a later touch of the VMA faults in a page of a zeroed
 * buffer of the VMA's own (a shared page would let the indices a process
 * writes into one revoked ring show up in another: an SQ's producer index
 * would fill its CQ with bogus completions).  A
 * VMA also pins this module: with disassociate_ucontext the uverbs file no
 * longer does, and the VMA's ops are ours.
 *
 * The rings are vmalloc memory mapped page by page as PFN maps, the kind
 * of mapping zap_vma_ptes() can revoke.
 *
 * Lock order: mmap_lock, then umaps->lock (the VMA ops run under the
 * first).
 */
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "umap.h"

/**
 * struct vroce_umaps - the ring mappings of one user context
 * @ref: one for the user context, one per struct vroce_umap
 * @lock: guards the rest
 * @vmas: struct vroce_umap.link of VMAs not revoked
 * @revoked: the context is gone: no VMA is added any more
 */
struct vroce_umaps {
	struct kref ref;
	struct mutex lock;	/* nests under mmap_lock */
	struct list_head vmas;
	bool revoked;
};

/**
 * struct vroce_umap - one VMA's mapping of a ring
 * @link: in umaps->vmas; empty once revoked
 * @vma: the VMA
 * @entry: the ring's mmap entry, NULL once revoked (umaps->lock)
 * @umaps: the list of the context that made the mapping
 * @shadow: what the VMA shows once revoked: zeroed memory of its size,
 *	allocated on the first fault after revocation (umaps->lock), freed
 *	when the VMA closes (its pages unmapped by then)
 */
struct vroce_umap {
	struct list_head link;
	struct vm_area_struct *vma;
	struct rdma_user_mmap_entry *entry;
	struct vroce_umaps *umaps;
	void *shadow;
};

/**
 * vroce_umaps_alloc() - an empty list for a new user context
 *
 * Return: the list, or NULL.
 */
struct vroce_umaps *vroce_umaps_alloc(void)
{
	struct vroce_umaps *umaps = kzalloc(sizeof(*umaps), GFP_KERNEL);

	if (!umaps)
		return NULL;
	kref_init(&umaps->ref);
	mutex_init(&umaps->lock);
	INIT_LIST_HEAD(&umaps->vmas);
	return umaps;
}

static void vroce_umaps_release(struct kref *ref)
{
	struct vroce_umaps *umaps = container_of(ref, struct vroce_umaps, ref);

	WARN_ON(!list_empty(&umaps->vmas));
	mutex_destroy(&umaps->lock);
	kfree(umaps);
}

/**
 * vroce_umaps_put() - drop a reference (the context's, at dealloc)
 * @umaps: the list
 */
void vroce_umaps_put(struct vroce_umaps *umaps)
{
	kref_put(&umaps->ref, vroce_umaps_release);
}

/* Unlink @um (if listed) and drop its entry (umaps->lock held). */
static void vroce_umap_detach(struct vroce_umap *um)
{
	lockdep_assert_held(&um->umaps->lock);
	list_del_init(&um->link);
	if (um->entry) {
		rdma_user_mmap_entry_put(um->entry);
		um->entry = NULL;
	}
}

static struct vroce_umap *vroce_umap_new(struct vroce_umaps *umaps,
					 struct vm_area_struct *vma,
					 struct rdma_user_mmap_entry *entry)
{
	struct vroce_umap *um = kzalloc(sizeof(*um), GFP_KERNEL);

	if (!um)
		return NULL;
	um->vma = vma;
	um->entry = entry;
	um->umaps = umaps;
	kref_get(&umaps->ref);
	/* a revoked mapping (no entry) is not on the list */
	if (entry)
		list_add(&um->link, &umaps->vmas);
	else
		INIT_LIST_HEAD(&um->link);
	return um;
}

/*
 * A copy of the VMA (fork, split): one more mapping of the same ring, with
 * a reference of its own on the entry, or, after revocation, one more
 * revoked mapping (with a shadow of its own on the first fault).
 */
static void vroce_vma_open(struct vm_area_struct *vma)
{
	struct vroce_umap *old = vma->vm_private_data, *um;

	__module_get(THIS_MODULE);
	vma->vm_private_data = NULL;
	if (!old)
		return;
	mutex_lock(&old->umaps->lock);
	um = vroce_umap_new(old->umaps, vma, old->entry);
	if (um && um->entry)
		kref_get(&um->entry->ref);
	mutex_unlock(&old->umaps->lock);
	vma->vm_private_data = um;
	/* no record, no way to revoke: no pages either */
	if (!um)
		zap_vma_ptes(vma, vma->vm_start, vma->vm_end - vma->vm_start);
}

static void vroce_vma_close(struct vm_area_struct *vma)
{
	struct vroce_umap *um = vma->vm_private_data;

	if (um) {
		struct vroce_umaps *umaps = um->umaps;

		mutex_lock(&umaps->lock);
		vroce_umap_detach(um);
		mutex_unlock(&umaps->lock);
		vfree(um->shadow);
		kfree(um);
		vroce_umaps_put(umaps);
	}
	module_put(THIS_MODULE);
}

/*
 * Only a revoked VMA faults (a live one is mapped whole): its shadow, an
 * empty ring to a process that polls it.
 */
static vm_fault_t vroce_vma_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct vroce_umap *um = vma->vm_private_data;
	unsigned long off = (vmf->address & PAGE_MASK) - vma->vm_start;
	struct vroce_umaps *umaps;
	void *shadow;

	if (!um)
		return VM_FAULT_SIGBUS;
	umaps = um->umaps;
	mutex_lock(&umaps->lock);
	if (umaps->revoked && !um->shadow)
		um->shadow = vmalloc_user(vma->vm_end - vma->vm_start);
	shadow = umaps->revoked ? um->shadow : NULL;
	mutex_unlock(&umaps->lock);
	if (!shadow)
		return umaps->revoked ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
	return vmf_insert_pfn(vma, vmf->address & PAGE_MASK,
			      vmalloc_to_pfn(shadow + off));
}

static const struct vm_operations_struct vroce_vm_ops = {
	.open = vroce_vma_open,
	.close = vroce_vma_close,
	.fault = vroce_vma_fault,
};

/**
 * vroce_umap_map() - map a ring into a process and track the mapping
 * @umaps: the process's list
 * @vma: a shared VMA exactly the ring's size
 * @entry: the ring's entry; its reference passes to the VMA on success
 * @buf: the ring buffer (vmalloc_user memory)
 *
 * Return: 0, -ENOMEM, -ENODEV when the context is revoked, or the error of
 * remap_pfn_range().
 */
int vroce_umap_map(struct vroce_umaps *umaps, struct vm_area_struct *vma,
		   struct rdma_user_mmap_entry *entry, void *buf)
{
	unsigned long off;
	struct vroce_umap *um;
	int err;

	for (off = 0; off < vma->vm_end - vma->vm_start; off += PAGE_SIZE) {
		err = remap_pfn_range(vma, vma->vm_start + off,
				      vmalloc_to_pfn(buf + off), PAGE_SIZE,
				      vma->vm_page_prot);
		if (err)
			return err;
	}
	mutex_lock(&umaps->lock);
	um = umaps->revoked ? NULL : vroce_umap_new(umaps, vma, entry);
	err = umaps->revoked ? -ENODEV : um ? 0 : -ENOMEM;
	mutex_unlock(&umaps->lock);
	if (err) {
		zap_vma_ptes(vma, vma->vm_start, vma->vm_end - vma->vm_start);
		return err;
	}
	__module_get(THIS_MODULE);
	vma->vm_private_data = um;
	vma->vm_ops = &vroce_vm_ops;
	return 0;
}

/*
 * A process whose VMAs are still listed, with its mm pinned; processes
 * that are exiting have their VMAs detached on the way.  NULL when none is
 * left.
 */
static struct mm_struct *vroce_umaps_next_mm(struct vroce_umaps *umaps)
{
	struct vroce_umap *um, *next;
	struct mm_struct *mm = NULL;

	mutex_lock(&umaps->lock);
	list_for_each_entry_safe(um, next, &umaps->vmas, link) {
		if (mmget_not_zero(um->vma->vm_mm)) {
			mm = um->vma->vm_mm;
			break;
		}
		/* exit_mmap() closes it later: only the entry goes now */
		vroce_umap_detach(um);
	}
	mutex_unlock(&umaps->lock);
	return mm;
}

/**
 * vroce_umaps_revoke() - unmap every ring of a context (disassociate)
 * @umaps: the context's list
 *
 * Sleeps.  After this no listed VMA maps ring memory or holds an entry,
 * so the rings' buffers are freed and the context can go.
 */
void vroce_umaps_revoke(struct vroce_umaps *umaps)
{
	struct vroce_umap *um, *next;
	struct mm_struct *mm;

	mutex_lock(&umaps->lock);
	umaps->revoked = true;
	mutex_unlock(&umaps->lock);

	while ((mm = vroce_umaps_next_mm(umaps))) {
		mmap_read_lock(mm);
		mutex_lock(&umaps->lock);
		list_for_each_entry_safe(um, next, &umaps->vmas, link) {
			struct vm_area_struct *vma = um->vma;

			if (vma->vm_mm != mm)
				continue;
			zap_vma_ptes(vma, vma->vm_start,
				     vma->vm_end - vma->vm_start);
			vroce_umap_detach(um);
		}
		mutex_unlock(&umaps->lock);
		mmap_read_unlock(mm);
		mmput(mm);
	}
}
