/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's mappings of its rings, tracked so that device removal can
 * revoke them (ib_device_ops.disassociate_ucontext).  With that op ib_core
 * removes a device at once, however long a process keeps its uverbs file
 * open: it destroys the process's objects, asks the driver to revoke its
 * mappings, frees the user context, and fails the process's later verbs
 * with EIO.  A revoked mapping stays valid memory (zeroed pages of its
 * own), so a process still polling a ring reads an empty one instead of
 * crashing, and the ring buffers are freed.
 */
#ifndef VROCE_UMAP_H
#define VROCE_UMAP_H

#include <linux/mm_types.h>
#include <rdma/ib_verbs.h>

struct vroce_umaps;

struct vroce_umaps *vroce_umaps_alloc(void);
void vroce_umaps_put(struct vroce_umaps *umaps);
void vroce_umaps_revoke(struct vroce_umaps *umaps);
int vroce_umap_map(struct vroce_umaps *umaps, struct vm_area_struct *vma,
		   struct rdma_user_mmap_entry *entry, void *buf);

#endif
