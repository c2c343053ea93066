// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the token bucket (tbf.c) as the port's shaper runs it: frames at
 * a rate, a sender that pauses, a timer that fires late.  What a capture
 * would see is the bound on bytes back to back and the long-run rate.
 */
#include <kunit/test.h>

#include "tbf.h"

#define MS	1000000ULL	/* ns */

static void tbf_ns(struct kunit *test)
{
	/* 1250 bytes are 10,000 bits: 100 us at 100 Mb/s, 1 ms at 10 */
	KUNIT_EXPECT_EQ(test, vroce_tbf_ns(1250, 100000), 100000ULL);
	KUNIT_EXPECT_EQ(test, vroce_tbf_ns(1250, 10000), MS);
	/* 64 KiB at 1.6 Tb/s: 327.68 ns, rounded down */
	KUNIT_EXPECT_EQ(test, vroce_tbf_ns(65536, 1600000000), 327ULL);
	/* the largest FIFO at the lowest rate, 1 Mb/s: no overflow */
	KUNIT_EXPECT_EQ(test, vroce_tbf_ns(1 << 20, 1000), 8388608ULL * 1000);
}

/* Back to back at the rate: each frame one frame's time after the last. */
static void tbf_steady(struct kunit *test)
{
	u64 next = 0, now = 10 * MS, cost = vroce_tbf_ns(1000, 8000);
	int i;

	for (i = 0; i < 10; i++) {
		KUNIT_EXPECT_LE(test, next, now);
		vroce_tbf_charge(&next, now, MS, cost);
		now = next;
	}
	/* 1000 bytes at 8 Mb/s: 1 ms each; the first took its ms of catch-up */
	KUNIT_EXPECT_EQ(test, next, 19 * MS);
}

/*
 * An idle sender, or a timer 50 ms late: the time not used counts only up
 * to the burst.  Frames that leave at once are at most burst / cost, plus
 * the one whose time has come.
 */
static void tbf_burst_bounded(struct kunit *test)
{
	u64 cost = vroce_tbf_ns(1024, 100000), burst = vroce_tbf_ns(65536, 100000);
	u64 next = 0, now = 1000 * MS;
	int sent = 0;

	vroce_tbf_charge(&next, now, burst, cost);
	sent++;
	while (next <= now) {
		vroce_tbf_charge(&next, now, burst, cost);
		sent++;
	}
	KUNIT_EXPECT_EQ(test, sent, 65);
	/* 50 ms late: the same 64 KiB, no more */
	now = next + 50 * MS;
	sent = 0;
	do {
		vroce_tbf_charge(&next, now, burst, cost);
		sent++;
	} while (next <= now);
	KUNIT_EXPECT_EQ(test, sent, 65);
}

/*
 * A timer that fires a little late each time, less than the burst: the
 * rate is kept exactly, whatever the lateness.
 */
static void tbf_late_timer_keeps_rate(struct kunit *test)
{
	u64 cost = vroce_tbf_ns(1500, 20000), burst = vroce_tbf_ns(65536, 20000);
	u64 next = 0, now = 0, start;
	int sent = 0, late;

	vroce_tbf_charge(&next, now, burst, cost);
	start = next;
	for (late = 0; sent < 1000; late = (late + 7) % 20) {
		/* the timer for next fires late ms late; all due frames go */
		now = next + late * MS;
		while (next <= now) {
			vroce_tbf_charge(&next, now, burst, cost);
			sent++;
		}
	}
	/* 1000 frames of 1500 bytes at 20 Mb/s: 600 ms, and no faster */
	KUNIT_EXPECT_EQ(test, next - start, (u64)sent * cost);
}

/* next_ns at 0 and a clock near 0: the catch-up does not wrap. */
static void tbf_early_clock(struct kunit *test)
{
	u64 next = 0;

	vroce_tbf_charge(&next, 5, MS, 100);
	KUNIT_EXPECT_EQ(test, next, 100ULL);
}

static struct kunit_case vroce_tbf_cases[] = {
	KUNIT_CASE(tbf_ns),
	KUNIT_CASE(tbf_steady),
	KUNIT_CASE(tbf_burst_bounded),
	KUNIT_CASE(tbf_late_timer_keeps_rate),
	KUNIT_CASE(tbf_early_clock),
	{}
};

static struct kunit_suite vroce_tbf_suite = {
	.name = "vroce_tbf",
	.test_cases = vroce_tbf_cases,
};

kunit_test_suites(&vroce_tbf_suite);
