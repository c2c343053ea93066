/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The congestion-control algorithm interface: what an algorithm module
 * includes.  Stable within a release; Documentation/congestion-control.md
 * ("Writing an algorithm") maps it to NVIDIA DOCA PCC side by side.
 *
 * An algorithm registers a struct vroce_cc_algo.  vroce keeps a private
 * area of @priv_size bytes per flow (one RC QP's reaction point) and calls
 * @init once, then @event once per event of the types the algorithm takes,
 * always under the flow's lock with bottom halves off: no sleeping, no
 * floating point, no lock of the algorithm's own needed for the area.
 * Each call leaves its answer in a struct vroce_cc_out: the rate the flow
 * may send at, and when the algorithm's timer should fire next.
 *
 * A flow starts at the first event of a type in @start_events and ends
 * when its QP is reset or destroyed, or congestion control is turned off
 * for its priority.  While a flow uses an algorithm its module cannot be
 * unloaded; nor while a device has it as its default.
 */
#ifndef VROCE_CC_ALGO_H
#define VROCE_CC_ALGO_H

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/types.h>

struct module;
struct sk_buff;

/* Longest algorithm name, with its NUL. */
#define VROCE_CC_NAME_MAX	16
/* Bytes of an algorithm's per-flow area (DOCA PCC gives 48), 8-aligned. */
#define VROCE_CC_PRIV_SIZE	64
/* The rate's fixed point, as DOCA PCC's: VROCE_CC_RATE_LINE = line rate. */
#define VROCE_CC_RATE_SHIFT	20
#define VROCE_CC_RATE_LINE	BIT(VROCE_CC_RATE_SHIFT)

/**
 * enum vroce_cc_event_type - what happened to a flow
 * @VROCE_CC_EV_CNP: a CNP arrived for the flow
 * @VROCE_CC_EV_TX: the flow sent a data packet (@tx); only while the pacer
 *	sees the QP: the port has a line rate (cc/line_rate) or the flow is
 *	limited
 * @VROCE_CC_EV_ACK: a response arrived that acknowledges (@ack): an ACK or
 *	a READ response (atomic responses too)
 * @VROCE_CC_EV_NACK: a NAK arrived, or the retransmit timer fired (@nack)
 * @VROCE_CC_EV_RTT: a round-trip sample (@rtt)
 * @VROCE_CC_EV_TIMER: the algorithm's timer fired (@timer)
 * @VROCE_CC_NR_EVENTS: number of types
 */
enum vroce_cc_event_type {
	VROCE_CC_EV_CNP,
	VROCE_CC_EV_TX,
	VROCE_CC_EV_ACK,
	VROCE_CC_EV_NACK,
	VROCE_CC_EV_RTT,
	VROCE_CC_EV_TIMER,
	VROCE_CC_NR_EVENTS,
};

/**
 * enum vroce_cc_nack_kind - why a VROCE_CC_EV_NACK came
 * @VROCE_CC_NACK_SEQ: a PSN sequence error NAK: the responder lost a packet
 * @VROCE_CC_NACK_RNR: a receiver-not-ready NAK
 * @VROCE_CC_NACK_TIMEOUT: the retransmit timer fired; packets go again
 */
enum vroce_cc_nack_kind {
	VROCE_CC_NACK_SEQ,
	VROCE_CC_NACK_RNR,
	VROCE_CC_NACK_TIMEOUT,
};

/* A set of event types, for @events and @start_events. */
#define VROCE_CC_EVF(type)	BIT(VROCE_CC_EV_##type)

/**
 * struct vroce_cc_event - one event of one flow
 * @type: what happened
 * @count: events of @type this one stands for (1 unless coalesced)
 * @now_ns: the monotonic clock when vroce delivered it
 * @tx: VROCE_CC_EV_TX: frame bytes (Ethernet header to ICRC) and packets
 * @ack: VROCE_CC_EV_ACK: the response's PSN
 * @nack: VROCE_CC_EV_NACK: why, and the PSN the requester sends again from
 *	(a timeout: the oldest unacknowledged request's)
 * @rtt: VROCE_CC_EV_RTT: when a request left and when its response came,
 *	monotonic ns.  One request at a time is timed, never one sent again
 *	(as TCP's Karn rule); a READ's first request stands for the READ
 * @timer: VROCE_CC_EV_TIMER: the time it was due (at or before @now_ns;
 *	later under load: an algorithm that steps per period catches up)
 */
struct vroce_cc_event {
	enum vroce_cc_event_type type;
	u32 count;
	u64 now_ns;
	union {
		struct {
			u32 bytes;
			u32 packets;
		} tx;
		struct {
			u32 psn;
		} ack;
		struct {
			enum vroce_cc_nack_kind kind;
			u32 psn;
		} nack;
		struct {
			u64 sent_ns;
			u64 received_ns;
		} rtt;
		struct {
			u64 due_ns;
		} timer;
	};
};

/**
 * struct vroce_cc_flow - what an algorithm may read about its flow
 * @qpn: the QP's number, for tracing
 * @prio: the priority the QP's packets leave at (0-7)
 * @line_kbps: the port's line rate in kb/s (400 Gb/s for a port with none)
 * @dev: the vroce device, for vroce's own algorithms (opaque to others)
 */
struct vroce_cc_flow {
	u32 qpn;
	u8 prio;
	u32 line_kbps;
	void *dev;
};

/**
 * struct vroce_cc_out - an algorithm's answer to one call
 * @rate: fraction of the line rate the flow may send at,
 *	VROCE_CC_RATE_LINE for the whole line rate (not limited); more is
 *	read as the line rate
 * @rate_kbps: instead of @rate, an absolute rate in kb/s, for algorithms
 *	whose knobs are absolute (DCQCN's are in Mb/s); 0 to use @rate
 * @timer_ns: when to deliver VROCE_CC_EV_TIMER, monotonic ns; 0 for never.
 *	A time not after the event's @now_ns is read as 1 us after it.
 *	Re-arming with the same time does not move the timer
 *
 * vroce fills it with the flow's previous answer before each call, so an
 * algorithm sets only what changes.
 */
struct vroce_cc_out {
	u32 rate;
	u32 rate_kbps;
	u64 timer_ns;
};

/**
 * struct vroce_cc_algo - a congestion-control algorithm
 * @name: what users write to cc/algo; unique, at most
 *	VROCE_CC_NAME_MAX - 1 characters
 * @owner: THIS_MODULE
 * @priv_size: bytes of the per-flow area, at most VROCE_CC_PRIV_SIZE;
 *	zeroed before @init
 * @events: VROCE_CC_EVF() set of the event types @event is called for
 * @start_events: the types that start a flow (a subset of @events); events
 *	of other types before the flow starts are not delivered
 * @init: a flow starts: set up @priv; the first event follows at once
 * @event: an event; @out holds the previous answer
 * @release: optional: the flow ends (no timer will fire for it any more)
 * @fill_res: optional: the flow's state for `rdma resource show qp -dd`,
 *	with rdma_nl_put_driver_u32() and friends; 0 or -EMSGSIZE
 * @list: vroce's list of algorithms
 */
struct vroce_cc_algo {
	const char *name;
	struct module *owner;
	u32 priv_size;
	u32 events;
	u32 start_events;
	void (*init)(void *priv, const struct vroce_cc_flow *flow, u64 now_ns);
	void (*event)(void *priv, const struct vroce_cc_flow *flow,
		      const struct vroce_cc_event *ev,
		      struct vroce_cc_out *out);
	void (*release)(void *priv, const struct vroce_cc_flow *flow);
	int (*fill_res)(const void *priv, struct sk_buff *msg);
	struct list_head list;
};

int vroce_cc_algo_register(struct vroce_cc_algo *algo);
void vroce_cc_algo_unregister(struct vroce_cc_algo *algo);

#endif /* VROCE_CC_ALGO_H */
