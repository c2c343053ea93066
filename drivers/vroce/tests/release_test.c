// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: vroce_wait_released() (release.c).  A reference dropped in time
 * ends the wait silently; one dropped only after the bound is logged and
 * still waited for, so the caller never frees an object in use.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/workqueue.h>

#include "release.h"

struct late_put {
	struct delayed_work work;
	refcount_t ref;
	struct completion released;
	bool put;
};

static void late_put_fn(struct work_struct *w)
{
	struct late_put *lp = container_of(to_delayed_work(w),
					   struct late_put, work);

	WRITE_ONCE(lp->put, true);
	if (refcount_dec_and_test(&lp->ref))
		complete(&lp->released);
}

static void late_put_init(struct late_put *lp, unsigned int delay_ms)
{
	INIT_DELAYED_WORK_ONSTACK(&lp->work, late_put_fn);
	refcount_set(&lp->ref, 1);
	init_completion(&lp->released);
	lp->put = false;
	schedule_delayed_work(&lp->work, msecs_to_jiffies(delay_ms));
}

/* The work may still be returning from complete(): wait for it. */
static void late_put_done(struct late_put *lp)
{
	flush_delayed_work(&lp->work);
	destroy_delayed_work_on_stack(&lp->work);
}

static void released_in_time(struct kunit *test)
{
	struct late_put lp;

	late_put_init(&lp, 0);
	KUNIT_EXPECT_FALSE(test, vroce_wait_released(NULL, &lp.released,
						     &lp.ref, "QP", 17,
						     2000));
	KUNIT_EXPECT_TRUE(test, READ_ONCE(lp.put));
	KUNIT_EXPECT_EQ(test, refcount_read(&lp.ref), 0U);
	late_put_done(&lp);
}

static void released_late_is_logged_and_awaited(struct kunit *test)
{
	struct late_put lp;

	late_put_init(&lp, 300);
	KUNIT_EXPECT_TRUE(test, vroce_wait_released(NULL, &lp.released,
						    &lp.ref, "MR", 3, 50));
	/* it returned only after the reference was dropped */
	KUNIT_EXPECT_TRUE(test, READ_ONCE(lp.put));
	KUNIT_EXPECT_EQ(test, refcount_read(&lp.ref), 0U);
	late_put_done(&lp);
}

static struct kunit_case vroce_release_cases[] = {
	KUNIT_CASE(released_in_time),
	KUNIT_CASE(released_late_is_logged_and_awaited),
	{}
};

static struct kunit_suite vroce_release_suite = {
	.name = "vroce_release",
	.test_cases = vroce_release_cases,
};

kunit_test_suites(&vroce_release_suite);
