/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Rate advice: the network (or the receiver) tells a sender a rate, not
 * only "congested" (the idea of the IETF SCONE draft), in band.
 *
 * The message is a RoCEv2 CNP (BTH opcode 0x81, UDP port 4791, ICRC)
 * whose 16 bytes after the BTH, reserved and zero in a plain CNP, hold
 * struct vroce_rate_advice.  A device with cc/rate_advice 1 honours it as
 * a cap on the named QP's rate (or on every QP that sends to the
 * advice's source, VROCE_RATE_ADVICE_F_ALL) until it expires.  Elsewhere
 * (cc/rate_advice 0, or another vendor's NIC) it is a CNP like any other,
 * so a sender set the BTH's BECN bit only where a plain rate cut is the
 * wanted fallback.
 *
 * Checks, in order; a message that fails one is counted
 * (rp_rate_advice_ignored) and does nothing:
 *   - the source address is the QP's peer (as for a CNP);
 *   - version VROCE_RATE_ADVICE_VERSION, no flag but those below,
 *     reserved 0;
 *   - rate_mbps 1 .. VROCE_RATE_ADVICE_MAX_MBPS;
 *   - expiry_ms 1 .. VROCE_RATE_ADVICE_MAX_MS;
 *   - the QP is RC, may send (RTR, RTS, SQD) and has congestion control
 *     on for its priority.
 * A later advice for a QP replaces the earlier one.
 */
#ifndef _UAPI_RDMA_VROCE_RATE_ADVICE_H
#define _UAPI_RDMA_VROCE_RATE_ADVICE_H

#include <linux/types.h>

/* "VRRA", at the start of the CNP's reserved bytes */
#define VROCE_RATE_ADVICE_MAGIC		0x56525241U
#define VROCE_RATE_ADVICE_VERSION	1
/* every QP of the device whose peer is the advice's source address */
#define VROCE_RATE_ADVICE_F_ALL		0x01
#define VROCE_RATE_ADVICE_MAX_MBPS	1600000U
#define VROCE_RATE_ADVICE_MAX_MS	60000U

/**
 * struct vroce_rate_advice - the CNP's 16 reserved bytes, big-endian
 * @magic: VROCE_RATE_ADVICE_MAGIC
 * @version: VROCE_RATE_ADVICE_VERSION
 * @flags: VROCE_RATE_ADVICE_F_*
 * @reserved: 0
 * @rate_mbps: the cap, Mb/s
 * @expiry_ms: how long it holds from its arrival
 */
struct vroce_rate_advice {
	__be32 magic;
	__u8 version;
	__u8 flags;
	__be16 reserved;
	__be32 rate_mbps;
	__be32 expiry_ms;
};

#endif /* _UAPI_RDMA_VROCE_RATE_ADVICE_H */
