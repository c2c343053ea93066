/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A token bucket kept as one time: when the next packet may leave.  Each
 * packet sent pushes that time on by its length at the rate; time the
 * sender did not use may be caught up, up to a bound, so that a timer that
 * fires late (an emulated guest's vCPUs take turns) does not lower the
 * rate, and the bound is the most that then leaves back to back.  The
 * port's shaper (portq.c) and the pacer (cc/pace.c) keep their rates so.
 */
#ifndef VROCE_TBF_H
#define VROCE_TBF_H

#include <linux/types.h>

u64 vroce_tbf_ns(u64 bytes, u32 kbps);
void vroce_tbf_charge(u64 *next_ns, u64 now, u64 burst_ns, u64 cost_ns);

#endif /* VROCE_TBF_H */
