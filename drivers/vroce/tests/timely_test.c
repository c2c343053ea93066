// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: TIMELY's arithmetic (cc/timely.c) against the paper's Algorithm 1
 * (Mittal et al., SIGCOMM 2015) worked by hand with the knobs' fixed point:
 * beta and the EWMA weight in 1/1024, the RTT difference in us << 10,
 * rates in kb/s.  The defaults are t_low 5000, t_high 50000, min_rtt
 * 2000 us, delta 10 Mb/s, beta 819 (0.8), ewma 20 (0.02), N 5.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/stddef.h>

#include "cc/timely.h"

#define LINE	1000000U	/* 1 Gb/s in kb/s */
#define DELTA	10000U		/* the default add_mbps in kb/s */

/* A flow at @rate whose previous sample was @prev_us. */
static void timely_flow(struct vroce_timely_state *s, u32 rate, u32 prev_us)
{
	vroce_timely_init(s, LINE);
	s->rate = rate;
	s->prev_rtt_us = prev_us;
}

static void timely_defaults_valid(struct kunit *test)
{
	struct vroce_timely_params p;

	vroce_timely_params_default(&p);
	KUNIT_EXPECT_EQ(test, vroce_timely_params_validate(&p), 0);
	KUNIT_EXPECT_EQ(test, p.t_low_us, 5000U);
	KUNIT_EXPECT_EQ(test, p.t_high_us, 50000U);
	KUNIT_EXPECT_EQ(test, p.beta, 819U);
}

/* One knob set to a value, and what validation answers. */
struct timely_knob_case {
	const char *name;
	size_t off;
	u32 val;
	int want;
};

#define KNOB(f, v, w) \
	{ #f, offsetof(struct vroce_timely_params, f), v, w }

/* Each knob out of range alone is refused; the edges are accepted. */
static void timely_validate(struct kunit *test)
{
	static const struct timely_knob_case cases[] = {
		KNOB(t_low_us, 0, -EINVAL),
		KNOB(t_low_us, 50001, -EINVAL),	/* above t_high */
		KNOB(t_low_us, 50000, 0),
		KNOB(t_high_us, 4999, -EINVAL),	/* below t_low */
		KNOB(min_rtt_us, 0, -EINVAL),
		KNOB(add_mbps, 0, -EINVAL),
		KNOB(add_mbps, 1600001, -EINVAL),
		KNOB(add_mbps, 1600000, 0),
		KNOB(beta, 1025, -EINVAL),
		KNOB(beta, 1024, 0),
		KNOB(beta, 0, 0),
		KNOB(ewma, 0, -EINVAL),
		KNOB(ewma, 1025, -EINVAL),
		KNOB(ewma, 1024, 0),
		KNOB(hai_n, 0, -EINVAL),
		KNOB(hai_n, 1, 0),
	};
	struct vroce_timely_params p;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		vroce_timely_params_default(&p);
		*(u32 *)((u8 *)&p + cases[i].off) = cases[i].val;
		KUNIT_EXPECT_EQ_MSG(test, vroce_timely_params_validate(&p),
				    cases[i].want, "%s = %u", cases[i].name,
				    cases[i].val);
	}
}

/* The first sample only records the RTT: no gradient yet. */
static void timely_first_sample(struct kunit *test)
{
	struct vroce_timely_params p;
	struct vroce_timely_state s;

	vroce_timely_params_default(&p);
	vroce_timely_init(&s, LINE);
	KUNIT_EXPECT_EQ(test, s.rate, LINE);
	KUNIT_EXPECT_EQ(test, vroce_timely_on_rtt(&p, &s, 30000, LINE),
			VROCE_TIMELY_FIRST);
	KUNIT_EXPECT_EQ(test, s.rate, LINE);
	KUNIT_EXPECT_EQ(test, s.prev_rtt_us, 30000U);
	/* a zero sample still counts as one: no later division by it */
	vroce_timely_init(&s, LINE);
	vroce_timely_on_rtt(&p, &s, 0, LINE);
	KUNIT_EXPECT_EQ(test, s.prev_rtt_us, 1U);
}

/* Below t_low: + delta whatever the gradient, never past the line. */
static void timely_below_t_low(struct kunit *test)
{
	struct vroce_timely_params p;
	struct vroce_timely_state s;

	vroce_timely_params_default(&p);
	timely_flow(&s, 500000, 1000);
	/* 1000 -> 4000 us is a rising RTT, but under t_low */
	KUNIT_EXPECT_EQ(test, vroce_timely_on_rtt(&p, &s, 4000, LINE),
			VROCE_TIMELY_LOW);
	KUNIT_EXPECT_EQ(test, s.rate, 500000U + DELTA);
	timely_flow(&s, LINE - 1, 1000);
	vroce_timely_on_rtt(&p, &s, 1000, LINE);
	KUNIT_EXPECT_EQ(test, s.rate, LINE);
}

/*
 * Above t_high: rate * (1 - beta * (1 - t_high / rtt)).  800,000 kb/s at
 * 100,000 us: the cut is 800,000 * 819 / 1024 = 639,843 (floor), times
 * (100,000 - 50,000) / 100,000 = 319,921 (floor of 319,921.5); the paper
 * in reals, 800,000 * 0.7998 * 0.5 = 319,921.9.
 */
static void timely_above_t_high(struct kunit *test)
{
	struct vroce_timely_params p;
	struct vroce_timely_state s;

	vroce_timely_params_default(&p);
	timely_flow(&s, 800000, 100000);
	s.neg_run = 3;
	KUNIT_EXPECT_EQ(test, vroce_timely_on_rtt(&p, &s, 100000, LINE),
			VROCE_TIMELY_HIGH);
	KUNIT_EXPECT_EQ(test, s.rate, 800000U - 319921U);
	KUNIT_EXPECT_EQ(test, s.neg_run, 0U);
}

/*
 * Between the thresholds, a rising RTT: 10,000 -> 20,000 us.  The
 * difference 10,000 us is 10,240,000 in us << 10; the EWMA from 0 keeps
 * 20/1024 of it, 200,000 (195.3 us); the gradient 200,000 / 2,000 = 100
 * (0.098).  The cut: 1,000,000 * 819 / 1024 = 799,804, times 100 / 1024 =
 * 78,105; the paper in reals, 1,000,000 * 0.8 * 0.1 = 80,000 (its ewma
 * 0.02 against 20/1024 here).
 */
static void timely_gradient_decrease(struct kunit *test)
{
	struct vroce_timely_params p;
	struct vroce_timely_state s;

	vroce_timely_params_default(&p);
	timely_flow(&s, LINE, 10000);
	KUNIT_EXPECT_EQ(test, vroce_timely_on_rtt(&p, &s, 20000, LINE),
			VROCE_TIMELY_MD);
	KUNIT_EXPECT_EQ(test, s.rtt_diff, 200000LL);
	KUNIT_EXPECT_EQ(test, s.rate, LINE - 78105U);
}

/*
 * A gradient of 1 or more cuts by beta at most: 20,000 us from 1,000 with
 * ewma 1.0 makes the gradient 19,000 / 2,000 = 9.5; the cut is
 * 1,000,000 * 819 / 1024 = 799,804, leaving 200,196.
 */
static void timely_gradient_cut_bounded(struct kunit *test)
{
	struct vroce_timely_params p;
	struct vroce_timely_state s;

	vroce_timely_params_default(&p);
	p.ewma = VROCE_TIMELY_ONE;
	p.t_low_us = 500;
	timely_flow(&s, LINE, 1000);
	KUNIT_EXPECT_EQ(test, vroce_timely_on_rtt(&p, &s, 20000, LINE),
			VROCE_TIMELY_MD);
	KUNIT_EXPECT_EQ(test, s.rate, LINE - 799804U);
}

/*
 * A falling RTT between the thresholds: + delta, and after N = 5 such
 * samples in a row + 5 delta each (hyperactive increase) until a sample
 * that is not a fall.  20,000 -> 15,000 us: the EWMA moves to
 * -5,120,000 * 20 / 1024 = -100,000, the gradient -50.
 */
static void timely_additive_and_hyperactive(struct kunit *test)
{
	static const enum vroce_timely_step want[] = {
		VROCE_TIMELY_AI, VROCE_TIMELY_AI, VROCE_TIMELY_AI,
		VROCE_TIMELY_AI, VROCE_TIMELY_HAI, VROCE_TIMELY_HAI,
	};
	static const u32 rate[] = {
		510000, 520000, 530000, 540000, 590000, 640000,
	};
	struct vroce_timely_params p;
	struct vroce_timely_state s;
	u32 rtt = 20000, before;
	unsigned int i;

	vroce_timely_params_default(&p);
	timely_flow(&s, 500000, rtt);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		rtt -= 1000;
		KUNIT_EXPECT_EQ_MSG(test, vroce_timely_on_rtt(&p, &s, rtt, LINE),
				    want[i], "sample %u", i);
		KUNIT_EXPECT_EQ_MSG(test, s.rate, rate[i], "sample %u", i);
	}
	KUNIT_EXPECT_EQ(test, s.neg_run, p.hai_n);
	/* a jump of 20,000 us turns the gradient positive: a decrease */
	before = s.rate;
	KUNIT_EXPECT_EQ(test, vroce_timely_on_rtt(&p, &s, rtt + 20000, LINE),
			VROCE_TIMELY_MD);
	KUNIT_EXPECT_GT(test, s.rtt_diff, 0LL);
	KUNIT_EXPECT_GT(test, before, s.rate);
	KUNIT_EXPECT_EQ(test, s.neg_run, 0U);
	/* and the first fall after it is additive again */
	KUNIT_EXPECT_EQ(test, vroce_timely_on_rtt(&p, &s, 10000, LINE),
			VROCE_TIMELY_AI);
}

/* The exact -5,000 us step of the comment above. */
static void timely_ewma_of_a_fall(struct kunit *test)
{
	struct vroce_timely_params p;
	struct vroce_timely_state s;

	vroce_timely_params_default(&p);
	timely_flow(&s, 500000, 20000);
	KUNIT_EXPECT_EQ(test, vroce_timely_on_rtt(&p, &s, 15000, LINE),
			VROCE_TIMELY_AI);
	KUNIT_EXPECT_EQ(test, s.rtt_diff, -100000LL);
	KUNIT_EXPECT_EQ(test, s.prev_rtt_us, 15000U);
}

/*
 * Rates stay between 1,000 kb/s (or the line, if lower) and the line,
 * and the largest inputs do not overflow: 1.6 Tb/s at an RTT of U32_MAX us
 * with beta 1.0 keeps 1.6e9 * 50,000 / U32_MAX = 18,626.45 kb/s, 18,627
 * after the floor of the cut.
 */
static void timely_bounds(struct kunit *test)
{
	const u32 big = 1600000000U;
	struct vroce_timely_params p;
	struct vroce_timely_state s;

	vroce_timely_params_default(&p);
	timely_flow(&s, 1500, 100000);
	vroce_timely_on_rtt(&p, &s, 10000000, LINE);
	KUNIT_EXPECT_EQ(test, s.rate, 1000U);
	/* a line under the floor: the line is the floor */
	vroce_timely_init(&s, 500);
	s.prev_rtt_us = 100000;
	vroce_timely_on_rtt(&p, &s, 10000000, 500);
	KUNIT_EXPECT_EQ(test, s.rate, 500U);

	p.beta = VROCE_TIMELY_ONE;
	vroce_timely_init(&s, big);
	s.prev_rtt_us = U32_MAX;
	KUNIT_EXPECT_EQ(test, vroce_timely_on_rtt(&p, &s, U32_MAX, big),
			VROCE_TIMELY_HIGH);
	KUNIT_EXPECT_EQ(test, s.rate, 18627U);
	/* from U32_MAX to 1 us and back: the EWMA stays finite and signed */
	p.ewma = VROCE_TIMELY_ONE;
	vroce_timely_on_rtt(&p, &s, 1, big);
	KUNIT_EXPECT_EQ(test, s.rtt_diff, -(s64)(U32_MAX - 1ULL) * 1024);
	vroce_timely_on_rtt(&p, &s, 40000, big);
	KUNIT_EXPECT_EQ(test, s.rtt_diff, 39999LL * 1024);
	KUNIT_EXPECT_LE(test, s.rate, big);
	KUNIT_EXPECT_GE_MSG(test, s.rate, 1000U, "rate %u", s.rate);
}

/*
 * The closed loop's fixed point: an RTT that rises while the rate is
 * above a capacity and falls below it settles the rate near the capacity,
 * and a constant RTT in the band brings the rate up to the line.
 */
static void timely_settles(struct kunit *test)
{
	const u32 cap = 400000;
	struct vroce_timely_params p;
	struct vroce_timely_state s;
	u32 rtt = 10000;
	int i;

	vroce_timely_params_default(&p);
	vroce_timely_init(&s, LINE);
	for (i = 0; i < 2000; i++) {
		/* a queue: grows by 2 us per kb/s over capacity per sample */
		if (s.rate > cap)
			rtt += min((s.rate - cap) / 500, 40000U);
		else if (rtt > 6000)
			rtt -= min((cap - s.rate) / 500, rtt - 6000);
		vroce_timely_on_rtt(&p, &s, rtt, LINE);
	}
	KUNIT_EXPECT_LE_MSG(test, s.rate, cap + cap / 4, "rate %u", s.rate);
	KUNIT_EXPECT_GE_MSG(test, s.rate, cap / 2, "rate %u", s.rate);
	KUNIT_EXPECT_LE_MSG(test, rtt, p.t_high_us * 2, "rtt %u", rtt);

	vroce_timely_init(&s, LINE);
	s.rate = 100000;
	for (i = 0; i < 200; i++)
		vroce_timely_on_rtt(&p, &s, 20000, LINE);
	KUNIT_EXPECT_EQ(test, s.rate, LINE);
}

static struct kunit_case vroce_timely_cases[] = {
	KUNIT_CASE(timely_defaults_valid),
	KUNIT_CASE(timely_validate),
	KUNIT_CASE(timely_first_sample),
	KUNIT_CASE(timely_below_t_low),
	KUNIT_CASE(timely_above_t_high),
	KUNIT_CASE(timely_gradient_decrease),
	KUNIT_CASE(timely_gradient_cut_bounded),
	KUNIT_CASE(timely_additive_and_hyperactive),
	KUNIT_CASE(timely_ewma_of_a_fall),
	KUNIT_CASE(timely_bounds),
	KUNIT_CASE(timely_settles),
	{}
};

static struct kunit_suite vroce_timely_suite = {
	.name = "vroce_timely",
	.test_cases = vroce_timely_cases,
};

kunit_test_suites(&vroce_timely_suite);
