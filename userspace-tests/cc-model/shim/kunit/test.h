/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stand-in for <kunit/test.h>, just what drivers/vroce/tests/dcqcn_test.c
 * uses, so that kunit_host.c runs that suite on the host.  Not KUnit: no
 * KTAP, no resources; a failed expectation prints and counts.
 */
#ifndef VROCE_SHIM_KUNIT_H
#define VROCE_SHIM_KUNIT_H

#include <stdio.h>
#include <string.h>

#include "../vroce_shim.h"

#define KUNIT_PARAM_DESC_SIZE	128

struct kunit {
	const void *param_value;
	int failures;
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	const void *(*generate_params)(const void *prev, char *desc);
};

struct kunit_suite {
	const char *name;
	struct kunit_case *test_cases;
};

#define KUNIT_CASE(f)		{ .run_case = f, .name = #f }
#define KUNIT_CASE_PARAM(f, g)	{ .run_case = f, .name = #f, \
				  .generate_params = g }
#define kunit_test_suites(s)	struct kunit_suite *host_suite = (s)

#define HOST_FAIL(t, what, a, b) do { \
	(t)->failures++; \
	fprintf(stderr, "%s:%d: expected %s (%lld vs %lld)\n", __FILE__, \
		__LINE__, what, (long long)(a), (long long)(b)); \
} while (0)

#define KUNIT_EXPECT_EQ(t, a, b) do { \
	if (!((a) == (b))) \
		HOST_FAIL(t, #a " == " #b, a, b); \
} while (0)
#define KUNIT_EXPECT_NE(t, a, b) do { \
	if (!((a) != (b))) \
		HOST_FAIL(t, #a " != " #b, a, b); \
} while (0)
#define KUNIT_EXPECT_GT(t, a, b) do { \
	if (!((a) > (b))) \
		HOST_FAIL(t, #a " > " #b, a, b); \
} while (0)
#define KUNIT_EXPECT_LE(t, a, b) do { \
	if (!((a) <= (b))) \
		HOST_FAIL(t, #a " <= " #b, a, b); \
} while (0)
#define KUNIT_EXPECT_GE_MSG(t, a, b, fmt, ...) do { \
	if (!((a) >= (b))) { \
		HOST_FAIL(t, #a " >= " #b, a, b); \
		fprintf(stderr, "  " fmt "\n", ##__VA_ARGS__); \
	} \
} while (0)
#define KUNIT_EXPECT_LE_MSG(t, a, b, fmt, ...) do { \
	if (!((a) <= (b))) { \
		HOST_FAIL(t, #a " <= " #b, a, b); \
		fprintf(stderr, "  " fmt "\n", ##__VA_ARGS__); \
	} \
} while (0)
#define KUNIT_EXPECT_FALSE(t, a)	KUNIT_EXPECT_EQ(t, !!(a), 0)
#define KUNIT_EXPECT_TRUE(t, a)		KUNIT_EXPECT_EQ(t, !!(a), 1)
#define KUNIT_EXPECT_EQ_MSG(t, a, b, fmt, ...) do { \
	if (!((a) == (b))) { \
		HOST_FAIL(t, #a " == " #b, a, b); \
		fprintf(stderr, "  " fmt "\n", ##__VA_ARGS__); \
	} \
} while (0)
#define KUNIT_EXPECT_STREQ(t, a, b) do { \
	if (strcmp(a, b)) { \
		(t)->failures++; \
		fprintf(stderr, "%s:%d: \"%s\" != \"%s\"\n", __FILE__, \
			__LINE__, a, b); \
	} \
} while (0)
#define KUNIT_ASSERT_EQ(t, a, b) do { \
	if (!((a) == (b))) { \
		HOST_FAIL(t, #a " == " #b, a, b); \
		return; \
	} \
} while (0)

#endif
