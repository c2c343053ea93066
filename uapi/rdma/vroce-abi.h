/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * vroce user-visible constants.
 *
 * vroce speaks the soft-RoCE user ABI (<rdma/rdma_user_rxe.h>) so that the
 * stock rdma-core rxe provider drives it; this header only adds what is
 * vroce's own.
 */
#ifndef _UAPI_RDMA_VROCE_ABI_H
#define _UAPI_RDMA_VROCE_ABI_H

/* RoCEv2 UDP destination port (IANA). */
#define VROCE_UDP_PORT			4791

/* User ABI version reported to libibverbs: the rxe provider's. */
#define VROCE_UVERBS_ABI_VERSION	2

/* The rdma link type: "rdma link add NAME type vroce netdev DEV". */
#define VROCE_LINK_TYPE			"vroce"

#endif /* _UAPI_RDMA_VROCE_ABI_H */
