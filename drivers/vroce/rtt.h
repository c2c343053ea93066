/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Round-trip time of a QP's requests and the retransmit timeout it calls
 * for.  A hardware NIC's round trip is microseconds, far below any local
 * ACK timeout a QP sets; a software NIC's is whatever its host gives it:
 * on a loaded or emulated host (the debug kernel under TCG moves a few
 * hundred packets a second) ACKs queue behind thousands of packets in
 * flight and arrive seconds late.  A fixed timeout then fires while
 * nothing is lost, and each firing resends a window that deepens the
 * queue.  So the requester measures the round trip (one request at a
 * time, never a retransmitted one) and waits at least the RFC 6298
 * estimate, srtt + 4 * rttvar (with a margin of at least srtt / 2),
 * besides the QP's own timeout.
 */
#ifndef VROCE_RTT_H
#define VROCE_RTT_H

#include <linux/types.h>

/*
 * Longest sample taken: keeps the arithmetic in 32 bits and bounds the
 * wait a single pathological sample can cause.
 */
#define VROCE_RTT_MAX_US	(30U * USEC_PER_SEC)

/**
 * struct vroce_rtt - smoothed round-trip time of a QP
 * @srtt_us: smoothed round trip; 0 before the first sample
 * @rttvar_us: its mean deviation
 */
struct vroce_rtt {
	u32 srtt_us;
	u32 rttvar_us;
};

void vroce_rtt_sample(struct vroce_rtt *rtt, u32 sample_us);
u32 vroce_rtt_rto_us(const struct vroce_rtt *rtt);

#endif
