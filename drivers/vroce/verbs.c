// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs of objects without a file of their own: the user context and the
 * protection domain.  The other objects export their verbs from their own
 * files (cq.c, srq.c, mr.c, ah.c, qp.c) as ib_device_ops tables.
 */
#include "vroce.h"

/**
 * vroce_alloc_ucontext() - a process opened the device
 * @ibuc: allocated and zeroed by ib_core
 * @udata: the rxe ABI passes no driver data here
 *
 * Return: 0 or -ENOMEM.
 */
int vroce_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct vroce_ucontext *uc = to_vroce_uc(ibuc);

	uc->umaps = vroce_umaps_alloc();
	return uc->umaps ? 0 : -ENOMEM;
}

/**
 * vroce_dealloc_ucontext() - the process closed the device, or it is gone
 * @ibuc: freed by ib_core after this returns
 *
 * The mapping list lives on while revoked VMAs still point at it.
 */
void vroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	vroce_umaps_put(to_vroce_uc(ibuc)->umaps);
}

/**
 * vroce_disassociate_ucontext() - the device goes while a process has it
 * @ibuc: the process's context; its objects are destroyed already
 *
 * Revokes the process's ring mappings, so that the rings' buffers are
 * freed now and ib_core can finish removing the device without waiting
 * for the process.
 */
void vroce_disassociate_ucontext(struct ib_ucontext *ibuc)
{
	vroce_umaps_revoke(to_vroce_uc(ibuc)->umaps);
}

/**
 * vroce_alloc_pd() - allocate a protection domain
 * @ibpd: allocated and zeroed by ib_core
 * @udata: the rxe ABI passes no driver data here
 *
 * A PD is only a name that other objects are checked against; its only
 * state is the device-wide count a real NIC would run out of.
 *
 * Return: 0, or -ENOMEM past VROCE_MAX_PD.
 */
int vroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibpd->device);

	if (vroce_fault_alloc_fail(vdev))
		return -ENOMEM;
	if (atomic_inc_return(&vdev->num_pds) > VROCE_MAX_PD) {
		atomic_dec(&vdev->num_pds);
		return -ENOMEM;
	}
	return 0;
}

/**
 * vroce_dealloc_pd() - free a protection domain
 * @ibpd: freed by ib_core after this returns
 * @udata: unused
 *
 * Return: 0.
 */
int vroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct vroce_dev *vdev = to_vroce_dev(ibpd->device);

	atomic_dec(&vdev->num_pds);
	return 0;
}
