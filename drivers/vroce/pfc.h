/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Priority flow control as a ConnectX port does it (IEEE 802.1Qbb, and
 * 802.3x PAUSE for all priorities at once).  Pure code: the frame parser
 * and the per-priority pause state, in nanoseconds of CLOCK_MONOTONIC,
 * so KUnit tests them without a device.
 *
 * A MAC control frame (Ethertype 0x8808) holds an opcode and, for PFC, a
 * class-enable vector and eight pause times; a time is in quanta of 512
 * bit times at the port's speed, so 0xffff quanta at 10 Gb/s is 3.4 ms
 * and at 10 Mb/s 3.4 s.  A quanta of 0 resumes the priority at once.
 *
 * Each priority is in one of three states: running; paused until a time
 * (a frame's quanta from its arrival, renewed by each frame); or taken
 * over by the watchdog after a pause that lasted longer than its timeout
 * (a peer that never stops pausing: a PFC storm).  A taken-over priority
 * ignores PFC frames, and the port drops its packets, until no frame for
 * it came for one timeout: ConnectX's PFC storm prevention.
 */
#ifndef VROCE_PFC_H
#define VROCE_PFC_H

#include <linux/types.h>

#define VROCE_PFC_NR_PRIOS	8
#define VROCE_PFC_OP_PAUSE	0x0001	/* 802.3x: every priority */
#define VROCE_PFC_OP_PFC	0x0101	/* 802.1Qbb: per priority */
/* opcode, class-enable vector, eight times: the PFC payload's bytes */
#define VROCE_PFC_PAYLOAD_LEN	(2 + 2 + 2 * VROCE_PFC_NR_PRIOS)
#define VROCE_PFC_QUANTUM_BITS	512
/* A priority's receive buffer, in bytes (fault.c, pfc_tx.c). */
#define VROCE_PFC_RX_BUFFER	(2 * 1024 * 1024)

/**
 * struct vroce_pfc_req - what one received frame asks for
 * @mask: the priorities it names
 * @quanta: the pause time of each priority in @mask (0: resume)
 */
struct vroce_pfc_req {
	u8 mask;
	u16 quanta[VROCE_PFC_NR_PRIOS];
};

/**
 * struct vroce_pfc_state - one port's pause state, per priority
 * @until_ns: when its pause ends (0: not paused)
 * @since_ns: when its current pause began: the watchdog's clock, which
 *	a stream of frames does not reset
 * @counted_ns: its pause time before this has been added to a
 *	duration (0: none pending)
 * @storm_ns: the watchdog holds it: when its last frame came (0: no)
 */
struct vroce_pfc_state {
	u64 until_ns[VROCE_PFC_NR_PRIOS];
	u64 since_ns[VROCE_PFC_NR_PRIOS];
	u64 counted_ns[VROCE_PFC_NR_PRIOS];
	u64 storm_ns[VROCE_PFC_NR_PRIOS];
};

/**
 * struct vroce_pfc_events - what one state change did, for the counters
 * @paused_ns: per priority, pause time newly elapsed
 * @fired: priorities the watchdog took over
 * @released: priorities the watchdog gave back
 */
struct vroce_pfc_events {
	u64 paused_ns[VROCE_PFC_NR_PRIOS];
	u8 fired;
	u8 released;
};

int vroce_pfc_parse(const u8 *payload, unsigned int len,
		    struct vroce_pfc_req *req);
u64 vroce_pfc_quanta_ns(u16 quanta, u64 kbps);
u8 vroce_pfc_apply(struct vroce_pfc_state *st, const struct vroce_pfc_req *req,
		   u8 enabled, u64 kbps, u64 now_ns,
		   struct vroce_pfc_events *ev);
void vroce_pfc_tick(struct vroce_pfc_state *st, u64 timeout_ns, u64 now_ns,
		    struct vroce_pfc_events *ev);
u64 vroce_pfc_next_ns(const struct vroce_pfc_state *st, u64 timeout_ns);

/**
 * vroce_pfc_paused() - is @prio paused now?
 * @st: the port's state
 * @prio: 0-7
 * @now_ns: now
 *
 * Return: true while a pause of @prio runs.
 */
static inline bool vroce_pfc_paused(const struct vroce_pfc_state *st,
				    unsigned int prio, u64 now_ns)
{
	return st->until_ns[prio] > now_ns;
}

/**
 * vroce_pfc_storm() - does the watchdog hold @prio (its packets dropped)?
 * @st: the port's state
 * @prio: 0-7
 *
 * Return: true from the watchdog's firing until it gives @prio back.
 */
static inline bool vroce_pfc_storm(const struct vroce_pfc_state *st,
				   unsigned int prio)
{
	return st->storm_ns[prio];
}

#endif /* VROCE_PFC_H */
