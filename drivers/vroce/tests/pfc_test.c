// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: PFC's frame parser and pause state (pfc.c).
 */
#include <kunit/test.h>

#include "pfc.h"

/* A PFC frame's payload: opcode 0x0101, vector, eight pause times. */
static const u8 pfc_prio3[VROCE_PFC_PAYLOAD_LEN] = {
	0x01, 0x01, 0x00, 0x08,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void pfc_parses_pfc(struct kunit *test)
{
	struct vroce_pfc_req req;

	KUNIT_ASSERT_EQ(test, vroce_pfc_parse(pfc_prio3, sizeof(pfc_prio3),
					      &req), 0);
	KUNIT_EXPECT_EQ(test, req.mask, 0x08);
	KUNIT_EXPECT_EQ(test, req.quanta[3], 0xffff);
	KUNIT_EXPECT_EQ(test, req.quanta[0], 0);
}

static void pfc_parses_pause(struct kunit *test)
{
	static const u8 pause[] = { 0x00, 0x01, 0x12, 0x34 };
	struct vroce_pfc_req req;
	unsigned int prio;

	KUNIT_ASSERT_EQ(test, vroce_pfc_parse(pause, sizeof(pause), &req), 0);
	KUNIT_EXPECT_EQ(test, req.mask, 0xff);
	for (prio = 0; prio < VROCE_PFC_NR_PRIOS; prio++)
		KUNIT_EXPECT_EQ(test, req.quanta[prio], 0x1234);
}

/* Short frames and unknown opcodes are refused; nothing is read past len. */
static void pfc_refuses_malformed(struct kunit *test)
{
	static const u8 other[] = { 0x00, 0x02, 0x00, 0x00 };
	struct vroce_pfc_req req;
	unsigned int len;
	u8 *p;

	for (len = 0; len < VROCE_PFC_PAYLOAD_LEN; len++) {
		/* an exact-size copy: KASAN sees any read past it */
		p = kunit_kmalloc(test, len ? len : 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p);
		memcpy(p, pfc_prio3, len);
		KUNIT_EXPECT_EQ_MSG(test, vroce_pfc_parse(p, len, &req),
				    -EINVAL, "len %u", len);
	}
	KUNIT_EXPECT_EQ(test, vroce_pfc_parse(other, sizeof(other), &req),
			-EOPNOTSUPP);
}

/* 0xffff quanta of 512 bits at 100 Mb/s: 335.5 ms; at 100 Gb/s 335.5 us. */
static void pfc_quanta_time(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vroce_pfc_quanta_ns(0xffff, 100000),
			335539200ULL);
	KUNIT_EXPECT_EQ(test, vroce_pfc_quanta_ns(0xffff, 100000000),
			335539ULL);
	KUNIT_EXPECT_EQ(test, vroce_pfc_quanta_ns(0, 100000), 0ULL);
	/* a port of unknown speed still ends the pause */
	KUNIT_EXPECT_GT(test, vroce_pfc_quanta_ns(1, 0), 0ULL);
}

#define Q3_NS	335539200ULL	/* 0xffff quanta at 100 Mb/s */

/*
 * Only enabled priorities pause; a refresh extends the pause; quanta 0
 * resumes; the time paused is counted once, up to the resume.
 */
static void pfc_pause_resume(struct kunit *test)
{
	struct vroce_pfc_events ev = {};
	struct vroce_pfc_state st = {};
	struct vroce_pfc_req req;

	KUNIT_ASSERT_EQ(test, vroce_pfc_parse(pfc_prio3, sizeof(pfc_prio3),
					      &req), 0);
	KUNIT_EXPECT_EQ(test, vroce_pfc_apply(&st, &req, 0x01, 100000, 1000,
					      &ev), 0);
	KUNIT_EXPECT_FALSE(test, vroce_pfc_paused(&st, 3, 1000));
	KUNIT_EXPECT_EQ(test, vroce_pfc_apply(&st, &req, 0x08, 100000, 1000,
					      &ev), 0x08);
	KUNIT_EXPECT_TRUE(test, vroce_pfc_paused(&st, 3, 1001));
	KUNIT_EXPECT_FALSE(test, vroce_pfc_paused(&st, 0, 1001));
	/* a refresh at 2000 ends the pause at 2000 + Q3_NS */
	KUNIT_EXPECT_EQ(test, vroce_pfc_apply(&st, &req, 0x08, 100000, 2000,
					      &ev), 0x08);
	KUNIT_EXPECT_TRUE(test, vroce_pfc_paused(&st, 3, 1999 + Q3_NS));
	KUNIT_EXPECT_FALSE(test, vroce_pfc_paused(&st, 3, 2000 + Q3_NS));
	req.quanta[3] = 0;
	KUNIT_EXPECT_EQ(test, vroce_pfc_apply(&st, &req, 0x08, 100000, 5000,
					      &ev), 0x08);
	KUNIT_EXPECT_FALSE(test, vroce_pfc_paused(&st, 3, 5001));
	KUNIT_EXPECT_EQ(test, ev.paused_ns[3], 4000ULL);
	KUNIT_EXPECT_EQ(test, vroce_pfc_next_ns(&st, 100), 0ULL);
}

/* A pause that runs out is counted to its end, not to when it was seen. */
static void pfc_pause_expires(struct kunit *test)
{
	struct vroce_pfc_events ev = {};
	struct vroce_pfc_state st = {};
	struct vroce_pfc_req req;

	KUNIT_ASSERT_EQ(test, vroce_pfc_parse(pfc_prio3, sizeof(pfc_prio3),
					      &req), 0);
	vroce_pfc_apply(&st, &req, 0x08, 100000, 1000, &ev);
	KUNIT_EXPECT_EQ(test, vroce_pfc_next_ns(&st, 0), 1000 + Q3_NS);
	vroce_pfc_tick(&st, 0, 1000 + Q3_NS / 2, &ev);
	KUNIT_EXPECT_EQ(test, ev.paused_ns[3], Q3_NS / 2);
	vroce_pfc_tick(&st, 0, 10 * Q3_NS, &ev);
	KUNIT_EXPECT_EQ(test, ev.paused_ns[3], Q3_NS);
	KUNIT_EXPECT_FALSE(test, vroce_pfc_paused(&st, 3, 10 * Q3_NS));
	KUNIT_EXPECT_EQ(test, vroce_pfc_next_ns(&st, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, ev.fired, 0);
}

/*
 * A storm keeps refreshing the pause; the watchdog takes the priority
 * over on time, ignores its frames while they keep coming, and gives it
 * back one timeout after the last.
 */
static void pfc_watchdog_ends_storm(struct kunit *test)
{
	const u64 ms = NSEC_PER_MSEC, tout = 100 * ms;
	struct vroce_pfc_events ev = {};
	struct vroce_pfc_state st = {};
	struct vroce_pfc_req req;
	u64 t;

	KUNIT_ASSERT_EQ(test, vroce_pfc_parse(pfc_prio3, sizeof(pfc_prio3),
					      &req), 0);
	for (t = ms; t < tout + ms; t += ms) {
		KUNIT_EXPECT_EQ(test, vroce_pfc_apply(&st, &req, 0x08, 100000,
						      t, &ev), 0x08);
		vroce_pfc_tick(&st, tout, t, &ev);
		KUNIT_EXPECT_EQ(test, ev.fired, 0);
	}
	KUNIT_EXPECT_EQ(test, vroce_pfc_next_ns(&st, tout), tout + ms);
	vroce_pfc_tick(&st, tout, tout + ms, &ev);
	KUNIT_EXPECT_EQ(test, ev.fired, 0x08);
	KUNIT_EXPECT_EQ(test, ev.paused_ns[3], tout);
	KUNIT_EXPECT_FALSE(test, vroce_pfc_paused(&st, 3, tout + ms));
	KUNIT_EXPECT_TRUE(test, vroce_pfc_storm(&st, 3));
	/* frames during the storm: ignored, and they keep the watchdog on */
	KUNIT_EXPECT_EQ(test, vroce_pfc_apply(&st, &req, 0x08, 100000,
					      tout + 50 * ms, &ev), 0);
	KUNIT_EXPECT_FALSE(test, vroce_pfc_paused(&st, 3, tout + 51 * ms));
	vroce_pfc_tick(&st, tout, 2 * tout + 49 * ms, &ev);
	KUNIT_EXPECT_EQ(test, ev.released, 0);
	KUNIT_EXPECT_EQ(test, vroce_pfc_next_ns(&st, tout), 2 * tout + 50 * ms);
	vroce_pfc_tick(&st, tout, 2 * tout + 50 * ms, &ev);
	KUNIT_EXPECT_EQ(test, ev.released, 0x08);
	KUNIT_EXPECT_FALSE(test, vroce_pfc_storm(&st, 3));
	/* back to normal: the next frame pauses again */
	KUNIT_EXPECT_EQ(test, vroce_pfc_apply(&st, &req, 0x08, 100000,
					      3 * tout, &ev), 0x08);
	KUNIT_EXPECT_TRUE(test, vroce_pfc_paused(&st, 3, 3 * tout + 1));
}

/* Without a watchdog (timeout 0) a pause is never taken over. */
static void pfc_watchdog_off(struct kunit *test)
{
	struct vroce_pfc_events ev = {};
	struct vroce_pfc_state st = {};
	struct vroce_pfc_req req;

	KUNIT_ASSERT_EQ(test, vroce_pfc_parse(pfc_prio3, sizeof(pfc_prio3),
					      &req), 0);
	vroce_pfc_apply(&st, &req, 0x08, 100000, 1, &ev);
	vroce_pfc_tick(&st, 0, Q3_NS, &ev);
	KUNIT_EXPECT_EQ(test, ev.fired, 0);
	KUNIT_EXPECT_TRUE(test, vroce_pfc_paused(&st, 3, Q3_NS));
}

static struct kunit_case vroce_pfc_cases[] = {
	KUNIT_CASE(pfc_parses_pfc),
	KUNIT_CASE(pfc_parses_pause),
	KUNIT_CASE(pfc_refuses_malformed),
	KUNIT_CASE(pfc_quanta_time),
	KUNIT_CASE(pfc_pause_resume),
	KUNIT_CASE(pfc_pause_expires),
	KUNIT_CASE(pfc_watchdog_ends_storm),
	KUNIT_CASE(pfc_watchdog_off),
	{}
};

static struct kunit_suite vroce_pfc_suite = {
	.name = "vroce_pfc",
	.test_cases = vroce_pfc_cases,
};

kunit_test_suites(&vroce_pfc_suite);
