/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-device event counters, shown by `rdma statistic` under the names
 * mlx5 uses where one exists, so existing scripts and dashboards read them.
 * A counter is added when the event it counts is implemented.
 */
#ifndef VROCE_COUNTERS_H
#define VROCE_COUNTERS_H

#include <linux/percpu.h>
#include <rdma/ib_verbs.h>

enum vroce_counter {
	VROCE_CNT_RX_PACKETS,		/* RoCE packets (v2 and v1) accepted */
	VROCE_CNT_TX_PACKETS,		/* RoCE packets (v2 and v1) sent */
	VROCE_CNT_RX_ICRC_ERR,		/* dropped: bad ICRC */
	VROCE_CNT_RX_HDR_ERR,		/* dropped: malformed headers/lengths */
	VROCE_CNT_RX_NO_QP,		/* dropped: unknown or wrong-type QP */
	VROCE_CNT_RX_LOOPBACK,		/* delivered without the network stack */
	VROCE_CNT_TX_ERR,		/* packets the stack refused or no route */
	VROCE_CNT_OUT_OF_SEQUENCE,	/* requests discarded ahead of the expected PSN */
	VROCE_CNT_RX_RESEQUENCED,	/* requests held ahead of a gap, run once it filled */
	VROCE_CNT_DUPLICATE_REQUEST,	/* requests behind the expected PSN */
	VROCE_CNT_OUT_OF_BUFFER,	/* a SEND found no receive WQE */
	VROCE_CNT_RX_READ_REQUESTS,
	VROCE_CNT_RX_WRITE_REQUESTS,
	VROCE_CNT_RX_ATOMIC_REQUESTS,
	VROCE_CNT_RESP_LOCAL_LENGTH_ERROR, /* message longer than the WQE */
	VROCE_CNT_RESP_REMOTE_ACCESS_ERRORS, /* bad rkey, rights or range */
	VROCE_CNT_RESP_INVALID_REQUEST,	/* opcode sequence or length errors */
	VROCE_CNT_RX_QKEY_VIOLATION,	/* UD: wrong Q_Key */
	VROCE_CNT_LOCAL_ACK_TIMEOUT_ERR, /* retransmit timer expiries */
	VROCE_CNT_PACKET_SEQ_ERR,	/* PSN sequence error NAKs received */
	VROCE_CNT_RNR_NAK_RECEIVED,	/* RNR NAKs received */
	VROCE_CNT_IMPLIED_NAK_SEQ_ERR,	/* READ responses found lost */
	VROCE_CNT_RX_ADDR_MISMATCH,	/* RC/UC: not from the QP's peer */
	VROCE_CNT_NP_ECN_MARKED,	/* CE-marked packets received */
	VROCE_CNT_NP_CNP_SENT,		/* CNPs sent */
	VROCE_CNT_RP_CNP_HANDLED,	/* CNPs that reached a QP's DCQCN */
	VROCE_CNT_RP_CNP_IGNORED,	/* CNPs for no QP, or one without CC */
	VROCE_CNT_RP_RATE_ADVICE_HANDLED, /* rate advice that capped a QP */
	VROCE_CNT_RP_RATE_ADVICE_IGNORED, /* malformed, forged or for no QP */
	/* PFC (pfc_port.c), eight each, priority 0 first */
	VROCE_CNT_RX_PRIO0_PAUSE,	/* frames that paused or resumed it */
	VROCE_CNT_RX_PRIO0_PAUSE_DURATION = VROCE_CNT_RX_PRIO0_PAUSE + 8,
					/* time paused: counted in ns, shown in us */
	VROCE_CNT_TX_PRIO0_PAUSE = VROCE_CNT_RX_PRIO0_PAUSE_DURATION + 8,
					/* PFC frames sent naming it */
	VROCE_CNT_RX_PAUSE_IGNORED = VROCE_CNT_TX_PRIO0_PAUSE + 8,
					/* MAC control frames not honoured */
	VROCE_CNT_PFC_WATCHDOG_EVENTS,	/* a priority's pause cut short */
	VROCE_CNT_PFC_WATCHDOG_DISCARDS, /* its packets dropped meanwhile */
	VROCE_CNT_COUNT,
};

/**
 * struct vroce_counters - per-CPU counters of one device
 * @cnt: one u64 per enum vroce_counter, summed over CPUs when read
 */
struct vroce_counters {
	u64 cnt[VROCE_CNT_COUNT];
};

struct vroce_dev;

int vroce_counters_init(struct vroce_dev *vdev);
void vroce_counters_free(struct vroce_dev *vdev);
void vroce_counter_inc(struct vroce_dev *vdev, enum vroce_counter c);
void vroce_counter_add(struct vroce_dev *vdev, enum vroce_counter c, u64 n);
u64 vroce_counter_read(struct vroce_dev *vdev, enum vroce_counter c);

extern const struct ib_device_ops vroce_counters_ops;

#endif /* VROCE_COUNTERS_H */
