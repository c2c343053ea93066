// SPDX-License-Identifier: GPL-2.0
/*
 * The token bucket's arithmetic (tbf.h): pure functions, no state.
 */
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/time64.h>

#include "tbf.h"

/**
 * vroce_tbf_ns() - how long @bytes take at @kbps
 * @bytes: bytes on the wire
 * @kbps: the rate in kb/s (1000 bit/s), not 0
 *
 * Return: nanoseconds, rounded down.
 */
u64 vroce_tbf_ns(u64 bytes, u32 kbps)
{
	/* kb/s: 8 bits per byte, 10^6 ns per ms */
	return div_u64(bytes * 8 * NSEC_PER_MSEC, kbps);
}

/**
 * vroce_tbf_charge() - a packet leaves at @now: push the next time on
 * @next_ns: when the next packet may leave; at most @now on entry
 * @now: the time
 * @burst_ns: unused time before @now that may be caught up
 * @cost_ns: the packet's length at the rate (vroce_tbf_ns())
 */
void vroce_tbf_charge(u64 *next_ns, u64 now, u64 burst_ns, u64 cost_ns)
{
	u64 from = max(*next_ns, now - min(burst_ns, now));

	*next_ns = from + cost_ns;
}
