// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: 24-bit PSN arithmetic across the wrap and the BTH/AETH/DETH
 * accessors of hdr.h, down to the bytes on the wire.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "hdr.h"

static void psn_add_wraps(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vroce_psn_add(0, 1), 1U);
	KUNIT_EXPECT_EQ(test, vroce_psn_add(0xffffff, 1), 0U);
	KUNIT_EXPECT_EQ(test, vroce_psn_add(0xfffffe, 5), 3U);
	KUNIT_EXPECT_EQ(test, vroce_psn_add(0x123456, 0x1000000), 0x123456U);
	KUNIT_EXPECT_EQ(test, vroce_psn_add(0x800000, 0x800000), 0U);
	/* A result never leaves the 24-bit space. */
	KUNIT_EXPECT_EQ(test, vroce_psn_add(0xffffff, 0xffffffff), 0xfffffeU);
}

static void psn_diff_signed(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vroce_psn_diff(5, 3), 2);
	KUNIT_EXPECT_EQ(test, vroce_psn_diff(3, 5), -2);
	KUNIT_EXPECT_EQ(test, vroce_psn_diff(0, 0xffffff), 1);
	KUNIT_EXPECT_EQ(test, vroce_psn_diff(0xffffff, 0), -1);
	KUNIT_EXPECT_EQ(test, vroce_psn_diff(2, 0xfffffe), 4);
	KUNIT_EXPECT_EQ(test, vroce_psn_diff(0xfffffe, 2), -4);
	/* The window edges: 2^23 - 1 ahead, 2^23 counts as behind. */
	KUNIT_EXPECT_EQ(test, vroce_psn_diff(0x7fffff, 0), 0x7fffff);
	KUNIT_EXPECT_EQ(test, vroce_psn_diff(0x800000, 0), -0x800000);
	KUNIT_EXPECT_EQ(test, vroce_psn_diff(0, 0x800001), 0x7fffff);
	/* Bits above the PSN (AckReq, reserved) do not count. */
	KUNIT_EXPECT_EQ(test, vroce_psn_diff(0x81000005, 5), 0);
	KUNIT_EXPECT_EQ(test, vroce_psn_diff(5, 0xff000004), 1);
}

/* diff(add(a, n), a) == n for every step inside the window, near the wrap. */
static void psn_add_diff_inverse(struct kunit *test)
{
	static const u32 bases[] = { 0, 1, 0x7fffff, 0x800000, 0xfffff0,
				     0xfffffe, 0xffffff };
	static const u32 steps[] = { 0, 1, 2, 15, 16, 0xffff, 0x400000,
				     0x7ffffe, 0x7fffff };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(bases); i++) {
		for (j = 0; j < ARRAY_SIZE(steps); j++) {
			u32 a = bases[i], n = steps[j];
			u32 b = vroce_psn_add(a, n);

			KUNIT_EXPECT_EQ_MSG(test, vroce_psn_diff(b, a), (s32)n,
					    "a=%#x n=%#x", a, n);
			KUNIT_EXPECT_EQ_MSG(test, vroce_psn_diff(a, b), -(s32)n,
					    "a=%#x n=%#x", a, n);
		}
	}
}

static void bth_wire_layout(struct kunit *test)
{
	struct vroce_bth bth;
	u8 *b = (u8 *)&bth;

	memset(&bth, 0xa5, sizeof(bth));
	vroce_bth_set(&bth, 0x64, true, 3, 0xffff, 0x123456, true, 0xabcdef);

	KUNIT_EXPECT_EQ(test, b[0], 0x64);
	/* SE, MigReq, pad 3, TVer 0 */
	KUNIT_EXPECT_EQ(test, b[1], 0xf0);
	KUNIT_EXPECT_EQ(test, b[2], 0xff);
	KUNIT_EXPECT_EQ(test, b[3], 0xff);
	KUNIT_EXPECT_EQ(test, b[4], 0x00);	/* resv8a */
	KUNIT_EXPECT_EQ(test, b[5], 0x12);
	KUNIT_EXPECT_EQ(test, b[6], 0x34);
	KUNIT_EXPECT_EQ(test, b[7], 0x56);
	KUNIT_EXPECT_EQ(test, b[8], 0x80);	/* AckReq, reserved 7 bits */
	KUNIT_EXPECT_EQ(test, b[9], 0xab);
	KUNIT_EXPECT_EQ(test, b[10], 0xcd);
	KUNIT_EXPECT_EQ(test, b[11], 0xef);
}

static void bth_round_trip(struct kunit *test)
{
	static const u32 psns[] = { 0, 1, 0x7fffff, 0x800000, 0xffffff };
	unsigned int pad, i, k;
	struct vroce_bth bth;

	for (i = 0; i < ARRAY_SIZE(psns); i++) {
		for (pad = 0; pad < 4; pad++) {
			for (k = 0; k < 4; k++) {
				bool se = k & 1, ackreq = k & 2;
				u32 qpn = 0xffffff - i;

				vroce_bth_set(&bth, 0x0a, se, pad, 0x8001 + i,
					      qpn, ackreq, psns[i]);
				KUNIT_EXPECT_EQ(test, bth.opcode, 0x0a);
				KUNIT_EXPECT_EQ(test, vroce_bth_psn(&bth),
						psns[i]);
				KUNIT_EXPECT_EQ(test, vroce_bth_qpn(&bth), qpn);
				KUNIT_EXPECT_EQ(test, vroce_bth_pad(&bth), pad);
				KUNIT_EXPECT_EQ(test, vroce_bth_se(&bth), se);
				KUNIT_EXPECT_EQ(test, vroce_bth_ackreq(&bth),
						ackreq);
				KUNIT_EXPECT_EQ(test, vroce_bth_tver(&bth),
						VROCE_BTH_TVER);
				KUNIT_EXPECT_EQ(test, be16_to_cpu(bth.pkey),
						0x8001 + i);
			}
		}
	}
}

/* Out-of-range values are masked, never spill into neighbouring fields. */
static void bth_masks_inputs(struct kunit *test)
{
	struct vroce_bth bth;

	vroce_bth_set(&bth, 0x04, false, 0xff, 0, 0xff000001, false,
		      0xff000002);
	KUNIT_EXPECT_EQ(test, vroce_bth_qpn(&bth), 1U);
	KUNIT_EXPECT_EQ(test, ((u8 *)&bth)[4], 0);
	KUNIT_EXPECT_EQ(test, vroce_bth_psn(&bth), 2U);
	KUNIT_EXPECT_FALSE(test, vroce_bth_ackreq(&bth));
	KUNIT_EXPECT_EQ(test, vroce_bth_pad(&bth), 3U);
	KUNIT_EXPECT_FALSE(test, vroce_bth_se(&bth));
	KUNIT_EXPECT_EQ(test, vroce_bth_tver(&bth), VROCE_BTH_TVER);
}

static void aeth_round_trip(struct kunit *test)
{
	static const u8 syns[] = { VROCE_AETH_ACK | 0x1f,
				   VROCE_AETH_RNR_NAK | 0x0e,
				   VROCE_NAK_PSN_SEQ_ERR,
				   VROCE_NAK_REM_ACCESS, 0xff };
	struct vroce_aeth aeth;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(syns); i++) {
		vroce_aeth_set(&aeth, syns[i], 0xfffffe + i);
		KUNIT_EXPECT_EQ(test, vroce_aeth_syndrome(&aeth), syns[i]);
		KUNIT_EXPECT_EQ(test, vroce_aeth_msn(&aeth),
				(0xfffffe + i) & VROCE_AETH_MSN_MASK);
		KUNIT_EXPECT_EQ(test, ((u8 *)&aeth)[0], syns[i]);
	}
	KUNIT_EXPECT_EQ(test, VROCE_NAK_PSN_SEQ_ERR & VROCE_AETH_TYPE_MASK,
			VROCE_AETH_NAK);
	KUNIT_EXPECT_EQ(test, VROCE_NAK_INVALID_RD_REQ & VROCE_AETH_TYPE_MASK,
			VROCE_AETH_NAK);
}

static void deth_sqp_masked(struct kunit *test)
{
	struct vroce_deth deth = { .sqp = cpu_to_be32(0xff000001) };

	KUNIT_EXPECT_EQ(test, vroce_deth_sqp(&deth), 1U);
}

static struct kunit_case vroce_hdr_cases[] = {
	KUNIT_CASE(psn_add_wraps),
	KUNIT_CASE(psn_diff_signed),
	KUNIT_CASE(psn_add_diff_inverse),
	KUNIT_CASE(bth_wire_layout),
	KUNIT_CASE(bth_round_trip),
	KUNIT_CASE(bth_masks_inputs),
	KUNIT_CASE(aeth_round_trip),
	KUNIT_CASE(deth_sqp_masked),
	{}
};

static struct kunit_suite vroce_hdr_suite = {
	.name = "vroce_hdr",
	.test_cases = vroce_hdr_cases,
};

kunit_test_suites(&vroce_hdr_suite);
