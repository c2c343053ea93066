// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the DCQCN reaction point (cc/dcqcn.c), both flavours, against
 * trajectories the userspace reference model computed
 * (userspace-tests/cc-model/dcqcn_model.py, written from the
 * specification, not from this code): each step is one event and the
 * state it must leave.  The tables between the BEGIN and END lines are
 * that model's output (make -C userspace-tests/cc-model kunit); the
 * host-side check (make -C userspace-tests/cc-model check) fails when
 * they and the model disagree.  Rates kb/s, alpha 1/1024.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "cc/dcqcn.h"

enum dcqcn_ev { EV_CNP, EV_TIMER, EV_BYTES, EV_ALPHA };

/* One event (arg: CNP time in us, bytes, or alpha periods) and after it. */
struct dcqcn_step {
	enum dcqcn_ev ev;
	u64 arg;
	enum vroce_dcqcn_reason why;
	u32 rc;
	u32 rt;
	u32 alpha;
	bool limited;
};

/* A knob changed from the flavour's preset; VROCE_DCQCN_NR_KNOBS ends. */
struct dcqcn_knob_val {
	enum vroce_dcqcn_knob_id id;
	u32 val;
};

struct dcqcn_knob_range {
	enum vroce_dcqcn_knob_id id;
	const char *name;
	u32 min;
	u32 max;
	u32 def;
};

struct dcqcn_case {
	const char *name;
	enum vroce_dcqcn_flavour flavour;
	u32 line_rate;
	const struct dcqcn_knob_val *knobs;
	const struct dcqcn_step *steps;
	size_t nsteps;
};

#define CASE(n, fl, line) \
	{ #n, fl, line, n##_knobs, n##_steps, ARRAY_SIZE(n##_steps) }

/* BEGIN dcqcn_model.py kunit */

static const struct dcqcn_knob_range dcqcn_ranges[] = {
	{ VROCE_DCQCN_K_RP_CLAMP_TGT_RATE,
	  "rp_clamp_tgt_rate", 0, 1U, 0 },
	{ VROCE_DCQCN_K_RP_CLAMP_TGT_RATE_ATI,
	  "rp_clamp_tgt_rate_ati", 0, 1U, 1 },
	{ VROCE_DCQCN_K_RP_TIME_RESET,
	  "rp_time_reset", 1, 131071U, 300 },
	{ VROCE_DCQCN_K_RP_BYTE_RESET,
	  "rp_byte_reset", 0, 16777215U, 32767 },
	{ VROCE_DCQCN_K_RP_THRESHOLD,
	  "rp_threshold", 1, 31U, 1 },
	{ VROCE_DCQCN_K_RP_AI_RATE,
	  "rp_ai_rate", 1, 1600000U, 5 },
	{ VROCE_DCQCN_K_RP_MAX_RATE,
	  "rp_max_rate", 0, 1600000U, 0 },
	{ VROCE_DCQCN_K_RP_HAI_RATE,
	  "rp_hai_rate", 1, 1600000U, 50 },
	{ VROCE_DCQCN_K_RP_MIN_DEC_FAC,
	  "rp_min_dec_fac", 0, 100U, 50 },
	{ VROCE_DCQCN_K_RP_MIN_RATE,
	  "rp_min_rate", 1, 1600000U, 1 },
	{ VROCE_DCQCN_K_RP_RATE_TO_SET_ON_FIRST_CNP,
	  "rp_rate_to_set_on_first_cnp", 0, 1600000U, 0 },
	{ VROCE_DCQCN_K_RP_DCE_TCP_G,
	  "rp_dce_tcp_g", 0, 1023U, 1019 },
	{ VROCE_DCQCN_K_RP_DCE_TCP_RTT,
	  "rp_dce_tcp_rtt", 1, 131071U, 1 },
	{ VROCE_DCQCN_K_RP_RATE_REDUCE_MONITOR_PERIOD,
	  "rp_rate_reduce_monitor_period", 1, 4294967295U, 4 },
	{ VROCE_DCQCN_K_RP_INITIAL_ALPHA_VALUE,
	  "rp_initial_alpha_value", 0, 1023U, 1023 },
	{ VROCE_DCQCN_K_RP_GD,
	  "rp_gd", 0, 31U, 11 },
	{ VROCE_DCQCN_K_NP_MIN_TIME_BETWEEN_CNPS,
	  "np_min_time_between_cnps", 0, 4095U, 4 },
	{ VROCE_DCQCN_K_NP_CNP_DSCP,
	  "np_cnp_dscp", 0, 63U, 48 },
	{ VROCE_DCQCN_K_NP_CNP_PRIO_MODE,
	  "np_cnp_prio_mode", 0, 1U, 1 },
	{ VROCE_DCQCN_K_NP_CNP_PRIO,
	  "np_cnp_prio", 0, 7U, 6 },
};

static const struct dcqcn_knob_val nv_default_knobs[] = {
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_default_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20019532, 40000000, 1023, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_UP, 20019532, 40000000, 167, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 30009766, 40000000, 167, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 30009766, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 35004883, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 35004883, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 37502442, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 37502442, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 38751221, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 38751221, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39375611, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 39375611, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39687806, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 39687806, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39843903, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 39843903, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39921952, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 39921952, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39960976, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 39960976, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39980488, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 39980488, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39990244, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 39990244, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39995122, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 39995122, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39997561, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 39997561, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39998781, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 39998781, 40000000, 0, true },
};

static const struct dcqcn_knob_val nv_monitor_knobs[] = {
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_monitor_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20019532, 40000000, 1023, true },
	{ EV_CNP, 2, VROCE_DCQCN_CNP_COALESCED, 20019532, 40000000, 1023, true },
	{ EV_CNP, 3, VROCE_DCQCN_CNP_COALESCED, 20019532, 40000000, 1023, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_UP, 20019532, 40000000, 1023, true },
	{ EV_CNP, 4, VROCE_DCQCN_CNP_CUT, 10019542, 40000000, 1023, true },
	{ EV_CNP, 6, VROCE_DCQCN_CNP_COALESCED, 10019542, 40000000, 1023, true },
	{ EV_ALPHA, 3, VROCE_DCQCN_ALPHA_UP, 10019542, 40000000, 1013, true },
	{ EV_CNP, 20, VROCE_DCQCN_CNP_CUT, 5063587, 40000000, 1013, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 22531794, 40000000, 1013, true },
	{ EV_CNP, 21, VROCE_DCQCN_CNP_COALESCED, 22531794, 40000000, 1013, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 31265897, 40000000, 1013, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 35632949, 40000000, 1013, true },
};

static const struct dcqcn_knob_val nv_ati_knobs[] = {
	{ VROCE_DCQCN_K_RP_BYTE_RESET, 16 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_ati_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20019532, 40000000, 1023, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 20019532, 40000000, 978, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 30009766, 40000000, 978, true },
	{ EV_CNP, 100, VROCE_DCQCN_CNP_CUT, 15678931, 30009766, 978, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 15678931, 30009766, 933, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_AI, 22846849, 30014766, 933, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_AI, 26433308, 30019766, 933, true },
	{ EV_CNP, 200, VROCE_DCQCN_CNP_CUT, 14391181, 30019766, 933, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 14391181, 30019766, 888, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 22207974, 30024766, 888, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 26118870, 30029766, 888, true },
	{ EV_CNP, 300, VROCE_DCQCN_CNP_CUT, 14793892, 26118870, 888, true },
};

static const struct dcqcn_knob_val nv_no_clamp_knobs[] = {
	{ VROCE_DCQCN_K_RP_BYTE_RESET, 16 },
	{ VROCE_DCQCN_K_RP_CLAMP_TGT_RATE_ATI, 0 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_no_clamp_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20019532, 40000000, 1023, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 20019532, 40000000, 978, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 30009766, 40000000, 978, true },
	{ EV_CNP, 100, VROCE_DCQCN_CNP_CUT, 15678931, 40000000, 978, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 15678931, 40000000, 933, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_AI, 27839466, 40000000, 933, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_AI, 33919733, 40000000, 933, true },
	{ EV_CNP, 200, VROCE_DCQCN_CNP_CUT, 18467043, 40000000, 933, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 18467043, 40000000, 888, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 29233522, 40000000, 888, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 34616761, 40000000, 888, true },
	{ EV_CNP, 300, VROCE_DCQCN_CNP_CUT, 19607150, 40000000, 888, true },
};

static const struct dcqcn_knob_val nv_clamp_knobs[] = {
	{ VROCE_DCQCN_K_RP_BYTE_RESET, 16 },
	{ VROCE_DCQCN_K_RP_CLAMP_TGT_RATE, 1 },
	{ VROCE_DCQCN_K_RP_CLAMP_TGT_RATE_ATI, 0 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_clamp_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20019532, 40000000, 1023, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 20019532, 40000000, 978, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 30009766, 40000000, 978, true },
	{ EV_CNP, 100, VROCE_DCQCN_CNP_CUT, 15678931, 30009766, 978, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 15678931, 30009766, 933, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_AI, 22846849, 30014766, 933, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_AI, 26433308, 30019766, 933, true },
	{ EV_CNP, 200, VROCE_DCQCN_CNP_CUT, 14391181, 26433308, 933, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 14391181, 26433308, 888, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 20414745, 26438308, 888, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 23429027, 26443308, 888, true },
	{ EV_CNP, 300, VROCE_DCQCN_CNP_CUT, 13270348, 23429027, 888, true },
};

static const struct dcqcn_knob_val nv_hai_knobs[] = {
	{ VROCE_DCQCN_K_RP_BYTE_RESET, 16 },
	{ VROCE_DCQCN_K_RP_THRESHOLD, 2 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_hai_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20019532, 40000000, 1023, true },
	{ EV_BYTES, 600, VROCE_DCQCN_NONE, 20019532, 40000000, 1023, true },
	{ EV_BYTES, 600, VROCE_DCQCN_BYTES_FR, 30009766, 40000000, 1023, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 35004883, 40000000, 1023, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_UP, 35004883, 40000000, 167, true },
	{ EV_BYTES, 600, VROCE_DCQCN_NONE, 35004883, 40000000, 167, true },
	{ EV_BYTES, 600, VROCE_DCQCN_BYTES_AI, 37502442, 40000000, 167, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 38751221, 40000000, 167, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 38751221, 40000000, 0, true },
	{ EV_BYTES, 600, VROCE_DCQCN_NONE, 38751221, 40000000, 0, true },
	{ EV_BYTES, 600, VROCE_DCQCN_BYTES_AI, 39375611, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_HAI, 39687806, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 39687806, 40000000, 0, true },
	{ EV_BYTES, 600, VROCE_DCQCN_BYTES_HAI, 39843903, 40000000, 0, true },
	{ EV_BYTES, 600, VROCE_DCQCN_NONE, 39843903, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_HAI, 39921952, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 39921952, 40000000, 0, true },
	{ EV_BYTES, 600, VROCE_DCQCN_BYTES_HAI, 39960976, 40000000, 0, true },
	{ EV_BYTES, 600, VROCE_DCQCN_NONE, 39960976, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_HAI, 39980488, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 39980488, 40000000, 0, true },
	{ EV_BYTES, 600, VROCE_DCQCN_BYTES_HAI, 39990244, 40000000, 0, true },
	{ EV_BYTES, 600, VROCE_DCQCN_BYTES_HAI, 39995122, 40000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_HAI, 39997561, 40000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 39997561, 40000000, 0, true },
};

static const struct dcqcn_knob_val nv_first_set_knobs[] = {
	{ VROCE_DCQCN_K_RP_RATE_TO_SET_ON_FIRST_CNP, 10000 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_first_set_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_FIRST_SET, 10000000, 10000000, 1023, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_UP, 10000000, 10000000, 167, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 10002500, 10005000, 167, true },
	{ EV_CNP, 400, VROCE_DCQCN_CNP_CUT, 9186867, 10002500, 167, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_UP, 9186867, 10002500, 171, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 9597184, 10007500, 171, true },
};

static const struct dcqcn_knob_val nv_to_min_knobs[] = {
	{ VROCE_DCQCN_K_RP_MIN_RATE, 100 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_to_min_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 500489, 1000000, 1023, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 500489, 1000000, 978, true },
	{ EV_CNP, 10, VROCE_DCQCN_CNP_CUT, 261486, 1000000, 978, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 261486, 1000000, 933, true },
	{ EV_CNP, 20, VROCE_DCQCN_CNP_CUT, 142362, 1000000, 933, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 142362, 1000000, 888, true },
	{ EV_CNP, 30, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 888, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 843, true },
	{ EV_CNP, 40, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 843, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 802, true },
	{ EV_CNP, 50, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 802, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 767, true },
	{ EV_CNP, 60, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 767, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 732, true },
	{ EV_CNP, 70, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 732, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 697, true },
	{ EV_CNP, 80, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 697, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 662, true },
	{ EV_CNP, 90, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 662, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 627, true },
	{ EV_CNP, 100, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 627, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 597, true },
	{ EV_CNP, 110, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 597, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 572, true },
	{ EV_CNP, 120, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 572, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 547, true },
	{ EV_CNP, 130, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 547, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 522, true },
	{ EV_CNP, 140, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 522, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 497, true },
	{ EV_CNP, 150, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 497, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 472, true },
	{ EV_CNP, 160, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 472, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 447, true },
	{ EV_CNP, 170, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 447, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 422, true },
	{ EV_CNP, 180, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 422, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 401, true },
	{ EV_CNP, 190, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 401, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 386, true },
	{ EV_CNP, 200, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 386, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 371, true },
	{ EV_CNP, 210, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 371, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 356, true },
	{ EV_CNP, 220, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 356, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 341, true },
	{ EV_CNP, 230, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 341, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 326, true },
	{ EV_CNP, 240, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 326, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 311, true },
	{ EV_CNP, 250, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 311, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 296, true },
	{ EV_CNP, 260, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 296, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 281, true },
	{ EV_CNP, 270, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 281, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 266, true },
	{ EV_CNP, 280, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 266, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 251, true },
	{ EV_CNP, 290, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 251, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 236, true },
	{ EV_CNP, 300, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 236, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 221, true },
	{ EV_CNP, 310, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 221, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 206, true },
	{ EV_CNP, 320, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 206, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 197, true },
	{ EV_CNP, 330, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 197, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 192, true },
	{ EV_CNP, 340, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 192, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 187, true },
	{ EV_CNP, 350, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 187, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 182, true },
	{ EV_CNP, 360, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 182, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 177, true },
	{ EV_CNP, 370, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 177, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 172, true },
	{ EV_CNP, 380, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 172, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 167, true },
	{ EV_CNP, 390, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 167, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 162, true },
};

static const struct dcqcn_knob_val nv_gd8_knobs[] = {
	{ VROCE_DCQCN_K_RP_GD, 8 },
	{ VROCE_DCQCN_K_RP_MIN_DEC_FAC, 30 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_gd8_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 12000000, 40000000, 1023, true },
	{ EV_ALPHA, 5, VROCE_DCQCN_ALPHA_UP, 12000000, 40000000, 1003, true },
	{ EV_CNP, 5, VROCE_DCQCN_CNP_CUT, 3600000, 40000000, 1003, true },
	{ EV_ALPHA, 5, VROCE_DCQCN_ALPHA_UP, 3600000, 40000000, 983, true },
	{ EV_CNP, 10, VROCE_DCQCN_CNP_CUT, 1080000, 40000000, 983, true },
};

static const struct dcqcn_knob_val nv_no_dec_knobs[] = {
	{ VROCE_DCQCN_K_RP_MIN_DEC_FAC, 100 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_no_dec_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 40000000, 40000000, 1023, true },
	{ EV_ALPHA, 5, VROCE_DCQCN_ALPHA_UP, 40000000, 40000000, 1003, true },
	{ EV_CNP, 5, VROCE_DCQCN_CNP_CUT, 40000000, 40000000, 1003, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 40000000, 40000000, 1003, false },
};

static const struct dcqcn_knob_val nv_max_rate_knobs[] = {
	{ VROCE_DCQCN_K_RP_AI_RATE, 500 },
	{ VROCE_DCQCN_K_RP_MAX_RATE, 10000 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_max_rate_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 5004883, 10000000, 1023, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_UP, 5004883, 10000000, 167, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 7502442, 10000000, 167, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 7502442, 10000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 8751221, 10000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 8751221, 10000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 9375611, 10000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 9375611, 10000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 9687806, 10000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 9687806, 10000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 9843903, 10000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 9843903, 10000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 9921952, 10000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 9921952, 10000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 9960976, 10000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 9960976, 10000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 9980488, 10000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 9980488, 10000000, 0, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 9990244, 10000000, 0, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_NONE, 9990244, 10000000, 0, true },
};

static const struct dcqcn_knob_val paper_default_knobs[] = {
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step paper_default_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20000000, 40000000, 1024, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 20000000, 40000000, 1020, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 30000000, 40000000, 1020, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 30000000, 40000000, 1016, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 35000000, 40000000, 1016, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 35000000, 40000000, 1012, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 37500000, 40000000, 1012, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 37500000, 40000000, 1008, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 38750000, 40000000, 1008, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 38750000, 40000000, 1004, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39375000, 40000000, 1004, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39375000, 40000000, 1000, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39687500, 40000000, 1000, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39687500, 40000000, 996, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39843750, 40000000, 996, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39843750, 40000000, 992, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39921875, 40000000, 992, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39921875, 40000000, 988, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39960938, 40000000, 988, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39960938, 40000000, 984, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39980469, 40000000, 984, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39980469, 40000000, 980, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39990235, 40000000, 980, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39990235, 40000000, 976, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39995118, 40000000, 976, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39995118, 40000000, 972, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39997559, 40000000, 972, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39997559, 40000000, 968, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39998780, 40000000, 968, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39998780, 40000000, 964, true },
};

static const struct dcqcn_knob_val paper_hai_knobs[] = {
	{ VROCE_DCQCN_K_RP_BYTE_RESET, 16 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step paper_hai_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20000000, 40000000, 1024, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_FR, 30000000, 40000000, 1024, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 35000000, 40000000, 1024, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 35000000, 40000000, 1020, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_FR, 37500000, 40000000, 1020, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 38750000, 40000000, 1020, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 38750000, 40000000, 1016, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_FR, 39375000, 40000000, 1016, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 39687500, 40000000, 1016, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39687500, 40000000, 1012, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_FR, 39843750, 40000000, 1012, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 39921875, 40000000, 1012, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39921875, 40000000, 1008, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_AI, 39960938, 40000000, 1008, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39980469, 40000000, 1008, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39980469, 40000000, 1004, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_AI, 39990235, 40000000, 1004, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_HAI, 39995118, 40000000, 1004, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39995118, 40000000, 1000, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_HAI, 39997559, 40000000, 1000, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_HAI, 39998780, 40000000, 1000, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39998780, 40000000, 996, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_HAI, 39999390, 40000000, 996, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_HAI, 39999695, 40000000, 996, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39999695, 40000000, 992, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_HAI, 39999848, 40000000, 992, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_HAI, 39999924, 40000000, 992, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39999924, 40000000, 988, true },
};

static const struct dcqcn_knob_val paper_repeat_knobs[] = {
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step paper_repeat_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20000000, 40000000, 1024, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 20000000, 40000000, 1020, true },
	{ EV_CNP, 50, VROCE_DCQCN_CNP_CUT, 10039063, 20000000, 1020, true },
	{ EV_CNP, 100, VROCE_DCQCN_CNP_CUT, 5039140, 10039063, 1020, true },
	{ EV_ALPHA, 3, VROCE_DCQCN_ALPHA_DOWN, 5039140, 10039063, 1008, true },
	{ EV_CNP, 300, VROCE_DCQCN_CNP_CUT, 2558939, 5039140, 1008, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 2558939, 5039140, 1004, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 3799040, 5039140, 1004, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 3799040, 5039140, 1000, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 4419090, 5039140, 1000, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 4419090, 5039140, 996, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 4729115, 5039140, 996, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 4729115, 5039140, 992, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 4884128, 5039140, 992, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 4884128, 5039140, 988, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 4981634, 5079140, 988, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 4981634, 5079140, 984, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5050387, 5119140, 984, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5050387, 5119140, 980, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5104764, 5159140, 980, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5104764, 5159140, 976, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5151952, 5199140, 976, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5151952, 5199140, 972, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5195546, 5239140, 972, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5195546, 5239140, 968, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5237343, 5279140, 968, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5237343, 5279140, 964, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5278242, 5319140, 964, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5278242, 5319140, 960, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5318691, 5359140, 960, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5318691, 5359140, 956, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5358916, 5399140, 956, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5358916, 5399140, 952, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5399028, 5439140, 952, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5399028, 5439140, 948, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5439084, 5479140, 948, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5439084, 5479140, 944, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5479112, 5519140, 944, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5479112, 5519140, 940, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5519126, 5559140, 940, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5519126, 5559140, 936, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5559133, 5599140, 936, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5559133, 5599140, 932, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5599137, 5639140, 932, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5599137, 5639140, 928, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5639139, 5679140, 928, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5639139, 5679140, 924, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5679140, 5719140, 924, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5679140, 5719140, 920, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5719140, 5759140, 920, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5719140, 5759140, 916, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5759140, 5799140, 916, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5759140, 5799140, 912, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5799140, 5839140, 912, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5799140, 5839140, 908, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5839140, 5879140, 908, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5839140, 5879140, 904, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5879140, 5919140, 904, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5879140, 5919140, 900, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5919140, 5959140, 900, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5919140, 5959140, 896, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5959140, 5999140, 896, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5959140, 5999140, 892, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5999140, 6039140, 892, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5999140, 6039140, 888, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6039140, 6079140, 888, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6039140, 6079140, 884, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6079140, 6119140, 884, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6079140, 6119140, 880, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6119140, 6159140, 880, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6119140, 6159140, 876, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6159140, 6199140, 876, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6159140, 6199140, 872, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6199140, 6239140, 872, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6199140, 6239140, 868, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6239140, 6279140, 868, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6239140, 6279140, 864, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6279140, 6319140, 864, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6279140, 6319140, 860, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6319140, 6359140, 860, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6319140, 6359140, 856, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6359140, 6399140, 856, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6359140, 6399140, 852, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6399140, 6439140, 852, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6399140, 6439140, 848, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6439140, 6479140, 848, true },
	{ EV_ALPHA, 2000, VROCE_DCQCN_ALPHA_DOWN, 6439140, 6479140, 0, true },
	{ EV_CNP, 9000, VROCE_DCQCN_CNP_CUT, 6439140, 6439140, 4, true },
};

static const struct dcqcn_case dcqcn_cases[] = {
	CASE(nv_default, VROCE_DCQCN_NVIDIA, 40000000),
	CASE(nv_monitor, VROCE_DCQCN_NVIDIA, 40000000),
	CASE(nv_ati, VROCE_DCQCN_NVIDIA, 40000000),
	CASE(nv_no_clamp, VROCE_DCQCN_NVIDIA, 40000000),
	CASE(nv_clamp, VROCE_DCQCN_NVIDIA, 40000000),
	CASE(nv_hai, VROCE_DCQCN_NVIDIA, 40000000),
	CASE(nv_first_set, VROCE_DCQCN_NVIDIA, 40000000),
	CASE(nv_to_min, VROCE_DCQCN_NVIDIA, 1000000),
	CASE(nv_gd8, VROCE_DCQCN_NVIDIA, 40000000),
	CASE(nv_no_dec, VROCE_DCQCN_NVIDIA, 40000000),
	CASE(nv_max_rate, VROCE_DCQCN_NVIDIA, 40000000),
	CASE(paper_default, VROCE_DCQCN_PAPER, 40000000),
	CASE(paper_hai, VROCE_DCQCN_PAPER, 40000000),
	CASE(paper_repeat, VROCE_DCQCN_PAPER, 40000000),
};

/* END dcqcn_model.py kunit */

static const void *dcqcn_case_gen(const void *prev, char *desc)
{
	const struct dcqcn_case *c = prev ? (const struct dcqcn_case *)prev + 1 :
					    dcqcn_cases;

	if (c >= dcqcn_cases + ARRAY_SIZE(dcqcn_cases))
		return NULL;
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
	return c;
}

static void dcqcn_cfg_of(struct kunit *test, const struct dcqcn_case *c,
			 struct vroce_dcqcn_cfg *cfg)
{
	const struct dcqcn_knob_val *k;

	memset(cfg, 0, sizeof(*cfg));
	cfg->flavour = c->flavour;
	cfg->line_rate = c->line_rate;
	if (c->flavour == VROCE_DCQCN_PAPER)
		vroce_dcqcn_params_paper(&cfg->p);
	else
		vroce_dcqcn_params_default(&cfg->p);
	for (k = c->knobs; k->id != VROCE_DCQCN_NR_KNOBS; k++)
		KUNIT_ASSERT_EQ(test, vroce_dcqcn_knob_set(&cfg->p, k->id,
							   k->val), 0);
	KUNIT_ASSERT_EQ(test, vroce_dcqcn_params_validate(&cfg->p), 0);
}

static enum vroce_dcqcn_reason dcqcn_apply(const struct vroce_dcqcn_cfg *cfg,
					   struct vroce_dcqcn_state *s,
					   const struct dcqcn_step *st)
{
	switch (st->ev) {
	case EV_CNP:
		return vroce_dcqcn_on_cnp(cfg, s, st->arg);
	case EV_TIMER:
		return vroce_dcqcn_on_timer(cfg, s);
	case EV_BYTES:
		return vroce_dcqcn_on_bytes(cfg, s, st->arg);
	case EV_ALPHA:
		return vroce_dcqcn_on_alpha_timer(cfg, s, st->arg);
	}
	return VROCE_DCQCN_NR_REASONS;
}

/* Every step of the model's trajectory, in order, exactly. */
static void dcqcn_trajectory(struct kunit *test)
{
	const struct dcqcn_case *c = test->param_value;
	struct vroce_dcqcn_state s;
	struct vroce_dcqcn_cfg cfg;
	size_t i;

	dcqcn_cfg_of(test, c, &cfg);
	vroce_dcqcn_init(&cfg, &s);
	KUNIT_EXPECT_FALSE(test, s.limited);
	for (i = 0; i < c->nsteps; i++) {
		const struct dcqcn_step *st = &c->steps[i];
		enum vroce_dcqcn_reason why = dcqcn_apply(&cfg, &s, st);

		KUNIT_EXPECT_EQ_MSG(test, why, st->why, "step %zu: %s", i,
				    vroce_dcqcn_reason_name(why));
		KUNIT_EXPECT_EQ_MSG(test, s.rc, st->rc, "step %zu", i);
		KUNIT_EXPECT_EQ_MSG(test, s.rt, st->rt, "step %zu", i);
		KUNIT_EXPECT_EQ_MSG(test, s.alpha, st->alpha, "step %zu", i);
		KUNIT_EXPECT_EQ_MSG(test, s.limited, st->limited, "step %zu", i);
	}
}

/* The knob table: names, ranges and defaults as the model has them. */
static void dcqcn_knob_table(struct kunit *test)
{
	struct vroce_dcqcn_params p;
	size_t i;

	KUNIT_ASSERT_EQ(test, ARRAY_SIZE(dcqcn_ranges),
			(size_t)VROCE_DCQCN_NR_KNOBS);
	vroce_dcqcn_params_default(&p);
	KUNIT_EXPECT_EQ(test, vroce_dcqcn_params_validate(&p), 0);
	for (i = 0; i < ARRAY_SIZE(dcqcn_ranges); i++) {
		const struct dcqcn_knob_range *r = &dcqcn_ranges[i];
		const struct vroce_dcqcn_knob *k = &vroce_dcqcn_knobs[r->id];

		KUNIT_EXPECT_STREQ(test, k->name, r->name);
		KUNIT_EXPECT_EQ_MSG(test, k->min, r->min, "%s", r->name);
		KUNIT_EXPECT_EQ_MSG(test, k->max, r->max, "%s", r->name);
		KUNIT_EXPECT_EQ_MSG(test, k->def, r->def, "%s", r->name);
		KUNIT_EXPECT_EQ_MSG(test, vroce_dcqcn_knob_get(&p, r->id),
				    r->def, "%s", r->name);
	}
	vroce_dcqcn_params_paper(&p);
	KUNIT_EXPECT_EQ(test, vroce_dcqcn_params_validate(&p), 0);
}

/* Each range's edges: inside accepted, outside -EINVAL, old value kept. */
static void dcqcn_knob_validate(struct kunit *test)
{
	struct vroce_dcqcn_params p;
	size_t i;

	vroce_dcqcn_params_default(&p);
	for (i = 0; i < ARRAY_SIZE(dcqcn_ranges); i++) {
		const struct dcqcn_knob_range *r = &dcqcn_ranges[i];

		KUNIT_EXPECT_EQ(test, vroce_dcqcn_knob_validate(r->id, r->min), 0);
		KUNIT_EXPECT_EQ(test, vroce_dcqcn_knob_validate(r->id, r->max), 0);
		KUNIT_EXPECT_EQ(test, vroce_dcqcn_knob_set(&p, r->id, r->max), 0);
		if (r->min > 0)
			KUNIT_EXPECT_EQ_MSG(test,
					    vroce_dcqcn_knob_set(&p, r->id,
								 r->min - 1),
					    -EINVAL, "%s", r->name);
		if (r->max < U32_MAX)
			KUNIT_EXPECT_EQ_MSG(test,
					    vroce_dcqcn_knob_set(&p, r->id,
								 r->max + 1),
					    -EINVAL, "%s", r->name);
		KUNIT_EXPECT_EQ_MSG(test, vroce_dcqcn_knob_get(&p, r->id),
				    r->max, "%s", r->name);
		KUNIT_EXPECT_EQ(test, vroce_dcqcn_knob_set(&p, r->id, r->def), 0);
	}
	KUNIT_EXPECT_EQ(test, vroce_dcqcn_knob_validate(VROCE_DCQCN_NR_KNOBS, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_dcqcn_knob_set(&p, VROCE_DCQCN_NR_KNOBS, 0),
			-EINVAL);
	/* Out of range as a whole set, too. */
	p.rp_dce_tcp_g = 1024;
	KUNIT_EXPECT_EQ(test, vroce_dcqcn_params_validate(&p), -EINVAL);
}

/*
 * An alpha timer that was not run for a long time: any number of periods
 * ends (at most 1024 decays) with alpha 0, in both flavours.
 */
static void dcqcn_alpha_long_idle(struct kunit *test)
{
	static const enum vroce_dcqcn_flavour fl[] = {
		VROCE_DCQCN_NVIDIA, VROCE_DCQCN_PAPER,
	};
	struct vroce_dcqcn_state s;
	struct vroce_dcqcn_cfg cfg;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fl); i++) {
		memset(&cfg, 0, sizeof(cfg));
		cfg.flavour = fl[i];
		cfg.line_rate = 25000000;
		vroce_dcqcn_params_default(&cfg.p);
		cfg.p.rp_dce_tcp_g = 1023;
		vroce_dcqcn_init(&cfg, &s);
		vroce_dcqcn_on_cnp(&cfg, &s, 0);
		KUNIT_EXPECT_NE(test, s.alpha, 0U);
		KUNIT_EXPECT_NE(test, vroce_dcqcn_on_alpha_timer(&cfg, &s, U32_MAX),
				VROCE_DCQCN_NONE);
		KUNIT_EXPECT_EQ(test, s.alpha, 0U);
		KUNIT_EXPECT_EQ(test, vroce_dcqcn_on_alpha_timer(&cfg, &s, U32_MAX),
				VROCE_DCQCN_NONE);
	}
}

/* Every reason has a name for the tracepoint; unknown ones get "?". */
static void dcqcn_reason_names(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < VROCE_DCQCN_NR_REASONS; i++)
		KUNIT_EXPECT_NE(test, vroce_dcqcn_reason_name(i)[0], '?');
	KUNIT_EXPECT_STREQ(test, vroce_dcqcn_reason_name(VROCE_DCQCN_NR_REASONS),
			   "?");
}

static struct kunit_case vroce_dcqcn_cases[] = {
	KUNIT_CASE_PARAM(dcqcn_trajectory, dcqcn_case_gen),
	KUNIT_CASE(dcqcn_knob_table),
	KUNIT_CASE(dcqcn_knob_validate),
	KUNIT_CASE(dcqcn_alpha_long_idle),
	KUNIT_CASE(dcqcn_reason_names),
	{}
};

static struct kunit_suite vroce_dcqcn_suite = {
	.name = "vroce_dcqcn",
	.test_cases = vroce_dcqcn_cases,
};

kunit_test_suites(&vroce_dcqcn_suite);
