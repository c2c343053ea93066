// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the round-trip estimator (rtt.c) against RFC 6298's formulas
 * worked by hand: srtt = 7/8 srtt + 1/8 R, rttvar = 3/4 rttvar +
 * 1/4 |srtt - R|, RTO = srtt + 4 * rttvar; the first sample sets srtt = R,
 * rttvar = R / 2.  vroce's margin is at least srtt / 2.
 */
#include <kunit/test.h>

#include "rtt.h"

static void rtt_none(struct kunit *test)
{
	struct vroce_rtt rtt = {};

	KUNIT_EXPECT_EQ(test, vroce_rtt_rto_us(&rtt), 0U);
}

static void rtt_first_and_second(struct kunit *test)
{
	struct vroce_rtt rtt = {};

	vroce_rtt_sample(&rtt, 1000);
	KUNIT_EXPECT_EQ(test, rtt.srtt_us, 1000U);
	KUNIT_EXPECT_EQ(test, rtt.rttvar_us, 500U);
	KUNIT_EXPECT_EQ(test, vroce_rtt_rto_us(&rtt), 3000U);
	/* 0.875 * 1000 + 0.125 * 2000; 0.75 * 500 + 0.25 * 1000 */
	vroce_rtt_sample(&rtt, 2000);
	KUNIT_EXPECT_EQ(test, rtt.srtt_us, 1125U);
	KUNIT_EXPECT_EQ(test, rtt.rttvar_us, 625U);
	KUNIT_EXPECT_EQ(test, vroce_rtt_rto_us(&rtt), 3625U);
	/* 0.875 * 1125 + 0.125 * 125 = 1000; 0.75 * 625 + 0.25 * 1000 */
	vroce_rtt_sample(&rtt, 125);
	KUNIT_EXPECT_EQ(test, rtt.srtt_us, 1000U);
	KUNIT_EXPECT_EQ(test, rtt.rttvar_us, 719U);
}

/*
 * A constant round trip: rttvar decays (to 3: integer quarters), and the
 * margin of half the round trip takes over.
 */
static void rtt_converges(struct kunit *test)
{
	struct vroce_rtt rtt = {};
	int i;

	for (i = 0; i < 200; i++)
		vroce_rtt_sample(&rtt, 40000);
	KUNIT_EXPECT_EQ(test, rtt.srtt_us, 40000U);
	KUNIT_EXPECT_EQ(test, rtt.rttvar_us, 3U);
	KUNIT_EXPECT_EQ(test, vroce_rtt_rto_us(&rtt), 60000U);
}

/* A queue building up: the timeout stays ahead of the round trip. */
static void rtt_follows_growth(struct kunit *test)
{
	struct vroce_rtt rtt = {};
	u32 r;

	for (r = 1000; r <= 2000000; r += r / 4) {
		vroce_rtt_sample(&rtt, r);
		KUNIT_EXPECT_GT(test, vroce_rtt_rto_us(&rtt), r + r / 4);
	}
}

static void rtt_bounds(struct kunit *test)
{
	struct vroce_rtt rtt = {};

	/* a zero sample still counts as one (srtt 0 means none) */
	vroce_rtt_sample(&rtt, 0);
	KUNIT_EXPECT_EQ(test, rtt.srtt_us, 1U);
	KUNIT_EXPECT_EQ(test, vroce_rtt_rto_us(&rtt), 1U);
	/* a sample past the bound counts as the bound: no overflow */
	rtt = (struct vroce_rtt){};
	vroce_rtt_sample(&rtt, U32_MAX);
	KUNIT_EXPECT_EQ(test, rtt.srtt_us, VROCE_RTT_MAX_US);
	KUNIT_EXPECT_EQ(test, vroce_rtt_rto_us(&rtt), 3 * VROCE_RTT_MAX_US);
	vroce_rtt_sample(&rtt, U32_MAX);
	KUNIT_EXPECT_EQ(test, rtt.srtt_us, VROCE_RTT_MAX_US);
	KUNIT_EXPECT_LE(test, vroce_rtt_rto_us(&rtt), 3 * VROCE_RTT_MAX_US);
}

static struct kunit_case vroce_rtt_cases[] = {
	KUNIT_CASE(rtt_none),
	KUNIT_CASE(rtt_first_and_second),
	KUNIT_CASE(rtt_converges),
	KUNIT_CASE(rtt_follows_growth),
	KUNIT_CASE(rtt_bounds),
	{}
};

static struct kunit_suite vroce_rtt_suite = {
	.name = "vroce_rtt",
	.test_cases = vroce_rtt_cases,
};

kunit_test_suites(&vroce_rtt_suite);
