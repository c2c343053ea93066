// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_IB_SPEED_XDR: ib_core knows the XDR lane speed, 200 Gb/s per
 * lane (in 6.12, not in 6.1; "IB/core: Add support for XDR link speed").
 */
#include <rdma/ib_verbs.h>

int probe_ib_speed_xdr(void);

int probe_ib_speed_xdr(void)
{
	return IB_SPEED_XDR;
}
