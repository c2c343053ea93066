// SPDX-License-Identifier: GPL-2.0
/*
 * PFC's frame parser and pause state (pfc.h).  Every frame comes from the
 * wire: the parser trusts no length or field, and a pause is bounded by
 * the largest quanta and, above that, by the watchdog.
 */
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "pfc.h"

/* A big-endian 16-bit field at any alignment. */
static u16 vroce_pfc_be16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

/**
 * vroce_pfc_parse() - what a MAC control frame asks for
 * @payload: the bytes after the Ethertype
 * @len: how many there are (a minimum-size frame pads to 46)
 * @req: filled in
 *
 * Return: 0, -EINVAL for a frame too short for its opcode, -EOPNOTSUPP
 * for an opcode other than PAUSE and PFC.
 */
int vroce_pfc_parse(const u8 *payload, unsigned int len,
		    struct vroce_pfc_req *req)
{
	unsigned int prio;
	u16 op;

	if (len < 4)
		return -EINVAL;
	op = vroce_pfc_be16(payload);
	memset(req, 0, sizeof(*req));
	switch (op) {
	case VROCE_PFC_OP_PAUSE:
		req->mask = 0xff;
		for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++)
			req->quanta[prio] = vroce_pfc_be16(payload + 2);
		return 0;
	case VROCE_PFC_OP_PFC:
		if (len < VROCE_PFC_PAYLOAD_LEN)
			return -EINVAL;
		/* the vector's high byte is reserved */
		req->mask = payload[3];
		for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++)
			req->quanta[prio] =
				vroce_pfc_be16(payload + 4 + 2 * prio);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/**
 * vroce_pfc_quanta_ns() - how long @quanta pause a port of @kbps
 * @quanta: pause time in 512 bit times
 * @kbps: the port's speed; 0 counts as 1 kb/s
 *
 * Return: nanoseconds (at most 0xffff quanta at 1 kb/s: ~33.5 ks).
 */
u64 vroce_pfc_quanta_ns(u16 quanta, u64 kbps)
{
	u64 bits = (u64)quanta * VROCE_PFC_QUANTUM_BITS;

	/* bits / (kbps * 1000 / s) in ns = bits * 1e6 / kbps */
	return div64_u64(bits * USEC_PER_SEC, max_t(u64, kbps, 1));
}

/*
 * Add @prio's pause time up to @now_ns (or its end, if sooner) to @ev;
 * a pause that ended leaves nothing pending.
 */
static void vroce_pfc_settle(struct vroce_pfc_state *st, unsigned int prio,
			     u64 now_ns, struct vroce_pfc_events *ev)
{
	u64 end = min(now_ns, st->until_ns[prio]);

	if (!st->counted_ns[prio])
		return;
	if (end > st->counted_ns[prio])
		ev->paused_ns[prio] += end - st->counted_ns[prio];
	st->counted_ns[prio] = vroce_pfc_paused(st, prio, now_ns) ? now_ns : 0;
	if (!st->counted_ns[prio]) {
		st->until_ns[prio] = 0;
		st->since_ns[prio] = 0;
	}
}

/* Running again: paused no more, nothing pending. */
static void vroce_pfc_run(struct vroce_pfc_state *st, unsigned int prio)
{
	st->until_ns[prio] = 0;
	st->since_ns[prio] = 0;
	st->counted_ns[prio] = 0;
}

/**
 * vroce_pfc_apply() - act on a received request
 * @st: the port's state
 * @req: from vroce_pfc_parse()
 * @enabled: the priorities PFC is on for (PAUSE acts on these too: a
 *	port without PFC on any priority ignores flow control)
 * @kbps: the port's speed
 * @now_ns: now (> 0)
 * @ev: pause time that elapsed is added to it
 *
 * Return: the priorities the frame paused or resumed; 0 when it was
 * ignored (none of its priorities enabled, or all held by the watchdog).
 */
u8 vroce_pfc_apply(struct vroce_pfc_state *st, const struct vroce_pfc_req *req,
		   u8 enabled, u64 kbps, u64 now_ns,
		   struct vroce_pfc_events *ev)
{
	unsigned int prio;
	u8 honoured = 0;

	for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++) {
		if (!(req->mask & enabled & BIT(prio)))
			continue;
		if (vroce_pfc_storm(st, prio)) {
			/* the storm goes on: the watchdog keeps the priority */
			if (req->quanta[prio])
				st->storm_ns[prio] = now_ns;
			continue;
		}
		honoured |= BIT(prio);
		vroce_pfc_settle(st, prio, now_ns, ev);
		if (!req->quanta[prio]) {
			vroce_pfc_run(st, prio);
			continue;
		}
		if (!vroce_pfc_paused(st, prio, now_ns)) {
			st->since_ns[prio] = now_ns;
			st->counted_ns[prio] = now_ns;
		}
		st->until_ns[prio] = now_ns +
			vroce_pfc_quanta_ns(req->quanta[prio], kbps);
	}
	return honoured;
}

/**
 * vroce_pfc_tick() - the watchdog, and the pause time so far
 * @st: the port's state
 * @timeout_ns: how long a priority may stay paused, 0 for no watchdog
 * @now_ns: now (> 0)
 * @ev: filled in: the pause time that elapsed, the priorities the
 *	watchdog took over and gave back
 *
 * A priority paused for @timeout_ns without a break is taken over: it runs
 * again and ignores its frames; one whose last frame is @timeout_ns old is
 * given back.
 */
void vroce_pfc_tick(struct vroce_pfc_state *st, u64 timeout_ns, u64 now_ns,
		    struct vroce_pfc_events *ev)
{
	unsigned int prio;

	for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++) {
		vroce_pfc_settle(st, prio, now_ns, ev);
		if (vroce_pfc_storm(st, prio) &&
		    (!timeout_ns || now_ns - st->storm_ns[prio] >= timeout_ns)) {
			st->storm_ns[prio] = 0;
			ev->released |= BIT(prio);
		}
		if (!timeout_ns || !vroce_pfc_paused(st, prio, now_ns) ||
		    now_ns - st->since_ns[prio] < timeout_ns)
			continue;
		vroce_pfc_run(st, prio);
		st->storm_ns[prio] = now_ns;
		ev->fired |= BIT(prio);
	}
}

/**
 * vroce_pfc_next_ns() - when vroce_pfc_tick() next has work
 * @st: the port's state
 * @timeout_ns: the watchdog's timeout, 0 for none
 *
 * Return: the earliest time a pause ends, the watchdog fires or gives a
 * priority back; 0 when nothing is pending.
 */
u64 vroce_pfc_next_ns(const struct vroce_pfc_state *st, u64 timeout_ns)
{
	unsigned int prio;
	u64 next = U64_MAX;

	for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++) {
		if (st->until_ns[prio])
			next = min(next, st->until_ns[prio]);
		if (st->until_ns[prio] && timeout_ns)
			next = min(next, st->since_ns[prio] + timeout_ns);
		if (st->storm_ns[prio])
			next = min(next, st->storm_ns[prio] + timeout_ns);
	}
	return next == U64_MAX ? 0 : next;
}
