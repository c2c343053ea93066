// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the DCQCN reaction point (cc/dcqcn.c), both flavours, against
 * trajectories the userspace reference model computed
 * (userspace-tests/cc-model/dcqcn_model.py, written from the
 * specification, not from this code): each step is one event and the
 * state it must leave.  The tables between the BEGIN and END lines are
 * that model's output (make -C userspace-tests/cc-model kunit); the
 * host-side check (make -C userspace-tests/cc-model check) fails when
 * they and the model disagree.  Rates kb/s, alpha 2^-20.
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
	  "np_cnp_prio_mode", 0, 1U, 0 },
	{ VROCE_DCQCN_K_NP_CNP_PRIO,
	  "np_cnp_prio", 0, 7U, 6 },
};

static const struct dcqcn_knob_val nv_default_knobs[] = {
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_default_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20019532, 40000000, 1047552, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_UP, 20019532, 40000000, 242421, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 30009766, 40000000, 242421, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 30009766, 40000000, 55826, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 35004883, 40000000, 55826, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 35004883, 40000000, 12855, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 37502442, 40000000, 12855, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 37502442, 40000000, 2960, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 38751221, 40000000, 2960, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 38751221, 40000000, 681, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39375611, 40000000, 681, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 39375611, 40000000, 156, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39687806, 40000000, 156, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 39687806, 40000000, 35, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39843903, 40000000, 35, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 39843903, 40000000, 8, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39921952, 40000000, 8, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 39921952, 40000000, 1, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39960976, 40000000, 1, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 39960976, 40000000, 0, true },
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
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20019532, 40000000, 1047552, true },
	{ EV_CNP, 2, VROCE_DCQCN_CNP_COALESCED, 20019532, 40000000, 1047552, true },
	{ EV_CNP, 3, VROCE_DCQCN_CNP_COALESCED, 20019532, 40000000, 1047552, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_UP, 20019532, 40000000, 1047557, true },
	{ EV_CNP, 4, VROCE_DCQCN_CNP_CUT, 10019494, 40000000, 1047557, true },
	{ EV_CNP, 6, VROCE_DCQCN_CNP_COALESCED, 10019494, 40000000, 1047557, true },
	{ EV_ALPHA, 3, VROCE_DCQCN_ALPHA_UP, 10019494, 40000000, 1037355, true },
	{ EV_CNP, 20, VROCE_DCQCN_CNP_CUT, 5063358, 40000000, 1037355, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 22531679, 40000000, 1037355, true },
	{ EV_CNP, 21, VROCE_DCQCN_CNP_COALESCED, 22531679, 40000000, 1037355, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 31265840, 40000000, 1037355, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 35632920, 40000000, 1037355, true },
};

static const struct dcqcn_knob_val nv_ati_knobs[] = {
	{ VROCE_DCQCN_K_RP_BYTE_RESET, 16 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_ati_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20019532, 40000000, 1047552, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 20019532, 40000000, 1002410, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 30009766, 40000000, 1002410, true },
	{ EV_CNP, 100, VROCE_DCQCN_CNP_CUT, 15665508, 30009766, 1002410, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 15665508, 30009766, 959424, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_AI, 22840137, 30014766, 959424, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_AI, 26429952, 30019766, 959424, true },
	{ EV_CNP, 200, VROCE_DCQCN_CNP_CUT, 14338540, 30019766, 959424, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 14338540, 30019766, 918492, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 22181653, 30024766, 918492, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 26105710, 30029766, 918492, true },
	{ EV_CNP, 300, VROCE_DCQCN_CNP_CUT, 14672164, 26105710, 918492, true },
};

static const struct dcqcn_knob_val nv_no_clamp_knobs[] = {
	{ VROCE_DCQCN_K_RP_BYTE_RESET, 16 },
	{ VROCE_DCQCN_K_RP_CLAMP_TGT_RATE_ATI, 0 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_no_clamp_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20019532, 40000000, 1047552, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 20019532, 40000000, 1002410, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 30009766, 40000000, 1002410, true },
	{ EV_CNP, 100, VROCE_DCQCN_CNP_CUT, 15665508, 40000000, 1002410, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 15665508, 40000000, 959424, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_AI, 27832754, 40000000, 959424, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_AI, 33916377, 40000000, 959424, true },
	{ EV_CNP, 200, VROCE_DCQCN_CNP_CUT, 18400008, 40000000, 959424, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 18400008, 40000000, 918492, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 29200004, 40000000, 918492, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 34600002, 40000000, 918492, true },
	{ EV_CNP, 300, VROCE_DCQCN_CNP_CUT, 19446201, 40000000, 918492, true },
};

static const struct dcqcn_knob_val nv_clamp_knobs[] = {
	{ VROCE_DCQCN_K_RP_BYTE_RESET, 16 },
	{ VROCE_DCQCN_K_RP_CLAMP_TGT_RATE, 1 },
	{ VROCE_DCQCN_K_RP_CLAMP_TGT_RATE_ATI, 0 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_clamp_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20019532, 40000000, 1047552, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 20019532, 40000000, 1002410, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 30009766, 40000000, 1002410, true },
	{ EV_CNP, 100, VROCE_DCQCN_CNP_CUT, 15665508, 30009766, 1002410, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 15665508, 30009766, 959424, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_AI, 22840137, 30014766, 959424, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_AI, 26429952, 30019766, 959424, true },
	{ EV_CNP, 200, VROCE_DCQCN_CNP_CUT, 14338540, 26429952, 959424, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 14338540, 26429952, 918492, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 20386746, 26434952, 918492, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 23413349, 26439952, 918492, true },
	{ EV_CNP, 300, VROCE_DCQCN_CNP_CUT, 13158979, 23413349, 918492, true },
};

static const struct dcqcn_knob_val nv_hai_knobs[] = {
	{ VROCE_DCQCN_K_RP_BYTE_RESET, 16 },
	{ VROCE_DCQCN_K_RP_THRESHOLD, 2 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_hai_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20019532, 40000000, 1047552, true },
	{ EV_BYTES, 600, VROCE_DCQCN_NONE, 20019532, 40000000, 1047552, true },
	{ EV_BYTES, 600, VROCE_DCQCN_BYTES_FR, 30009766, 40000000, 1047552, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 35004883, 40000000, 1047552, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_UP, 35004883, 40000000, 242421, true },
	{ EV_BYTES, 600, VROCE_DCQCN_NONE, 35004883, 40000000, 242421, true },
	{ EV_BYTES, 600, VROCE_DCQCN_BYTES_AI, 37502442, 40000000, 242421, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 38751221, 40000000, 242421, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 38751221, 40000000, 55826, true },
	{ EV_BYTES, 600, VROCE_DCQCN_NONE, 38751221, 40000000, 55826, true },
	{ EV_BYTES, 600, VROCE_DCQCN_BYTES_AI, 39375611, 40000000, 55826, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_HAI, 39687806, 40000000, 55826, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 39687806, 40000000, 12855, true },
	{ EV_BYTES, 600, VROCE_DCQCN_BYTES_HAI, 39843903, 40000000, 12855, true },
	{ EV_BYTES, 600, VROCE_DCQCN_NONE, 39843903, 40000000, 12855, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_HAI, 39921952, 40000000, 12855, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 39921952, 40000000, 2960, true },
	{ EV_BYTES, 600, VROCE_DCQCN_BYTES_HAI, 39960976, 40000000, 2960, true },
	{ EV_BYTES, 600, VROCE_DCQCN_NONE, 39960976, 40000000, 2960, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_HAI, 39980488, 40000000, 2960, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 39980488, 40000000, 681, true },
	{ EV_BYTES, 600, VROCE_DCQCN_BYTES_HAI, 39990244, 40000000, 681, true },
	{ EV_BYTES, 600, VROCE_DCQCN_BYTES_HAI, 39995122, 40000000, 681, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_HAI, 39997561, 40000000, 681, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 39997561, 40000000, 156, true },
};

static const struct dcqcn_knob_val nv_first_set_knobs[] = {
	{ VROCE_DCQCN_K_RP_RATE_TO_SET_ON_FIRST_CNP, 10000 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_first_set_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_FIRST_SET, 10000000, 10000000, 1047552, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_UP, 10000000, 10000000, 242421, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 10002500, 10005000, 242421, true },
	{ EV_CNP, 400, VROCE_DCQCN_CNP_CUT, 8846258, 10002500, 242421, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_UP, 8846258, 10002500, 246357, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 9426879, 10007500, 246357, true },
};

static const struct dcqcn_knob_val nv_to_min_knobs[] = {
	{ VROCE_DCQCN_K_RP_MIN_RATE, 100 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_to_min_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 500489, 1000000, 1047552, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 500489, 1000000, 1002410, true },
	{ EV_CNP, 10, VROCE_DCQCN_CNP_CUT, 261263, 1000000, 1002410, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 261263, 1000000, 959424, true },
	{ EV_CNP, 20, VROCE_DCQCN_CNP_CUT, 141739, 1000000, 959424, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 141739, 1000000, 918492, true },
	{ EV_CNP, 30, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 918492, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 879515, true },
	{ EV_CNP, 40, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 879515, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 842400, true },
	{ EV_CNP, 50, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 842400, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 807057, true },
	{ EV_CNP, 60, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 807057, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 773403, true },
	{ EV_CNP, 70, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 773403, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 741356, true },
	{ EV_CNP, 80, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 741356, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 710841, true },
	{ EV_CNP, 90, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 710841, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 681784, true },
	{ EV_CNP, 100, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 681784, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 654114, true },
	{ EV_CNP, 110, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 654114, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 627766, true },
	{ EV_CNP, 120, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 627766, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 602676, true },
	{ EV_CNP, 130, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 602676, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 578785, true },
	{ EV_CNP, 140, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 578785, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 556035, true },
	{ EV_CNP, 150, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 556035, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 534372, true },
	{ EV_CNP, 160, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 534372, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 513744, true },
	{ EV_CNP, 170, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 513744, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 494101, true },
	{ EV_CNP, 180, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 494101, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 475397, true },
	{ EV_CNP, 190, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 475397, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 457586, true },
	{ EV_CNP, 200, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 457586, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 440626, true },
	{ EV_CNP, 210, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 440626, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 424476, true },
	{ EV_CNP, 220, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 424476, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 409098, true },
	{ EV_CNP, 230, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 409098, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 394454, true },
	{ EV_CNP, 240, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 394454, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 380509, true },
	{ EV_CNP, 250, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 380509, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 367231, true },
	{ EV_CNP, 260, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 367231, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 354587, true },
	{ EV_CNP, 270, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 354587, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 342547, true },
	{ EV_CNP, 280, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 342547, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 331082, true },
	{ EV_CNP, 290, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 331082, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 320165, true },
	{ EV_CNP, 300, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 320165, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 309769, true },
	{ EV_CNP, 310, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 309769, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 299870, true },
	{ EV_CNP, 320, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 299870, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 290444, true },
	{ EV_CNP, 330, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 290444, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 281468, true },
	{ EV_CNP, 340, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 281468, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 272921, true },
	{ EV_CNP, 350, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 272921, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 264782, true },
	{ EV_CNP, 360, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 264782, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 257032, true },
	{ EV_CNP, 370, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 257032, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 249652, true },
	{ EV_CNP, 380, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 249652, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 242624, true },
	{ EV_CNP, 390, VROCE_DCQCN_CNP_CUT, 100000, 1000000, 242624, true },
	{ EV_ALPHA, 10, VROCE_DCQCN_ALPHA_UP, 100000, 1000000, 235933, true },
};

static const struct dcqcn_knob_val nv_gd8_knobs[] = {
	{ VROCE_DCQCN_K_RP_GD, 8 },
	{ VROCE_DCQCN_K_RP_MIN_DEC_FAC, 30 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_gd8_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 12000000, 40000000, 1047552, true },
	{ EV_ALPHA, 5, VROCE_DCQCN_ALPHA_UP, 12000000, 40000000, 1027246, true },
	{ EV_CNP, 5, VROCE_DCQCN_CNP_CUT, 3600000, 40000000, 1027246, true },
	{ EV_ALPHA, 5, VROCE_DCQCN_ALPHA_UP, 3600000, 40000000, 1007431, true },
	{ EV_CNP, 10, VROCE_DCQCN_CNP_CUT, 1080000, 40000000, 1007431, true },
};

static const struct dcqcn_knob_val nv_no_dec_knobs[] = {
	{ VROCE_DCQCN_K_RP_MIN_DEC_FAC, 100 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_no_dec_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 40000000, 40000000, 1047552, true },
	{ EV_ALPHA, 5, VROCE_DCQCN_ALPHA_UP, 40000000, 40000000, 1027246, true },
	{ EV_CNP, 5, VROCE_DCQCN_CNP_CUT, 40000000, 40000000, 1027246, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 40000000, 40000000, 1027246, false },
};

static const struct dcqcn_knob_val nv_max_rate_knobs[] = {
	{ VROCE_DCQCN_K_RP_AI_RATE, 500 },
	{ VROCE_DCQCN_K_RP_MAX_RATE, 10000 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step nv_max_rate_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 5004883, 10000000, 1047552, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_UP, 5004883, 10000000, 242421, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 7502442, 10000000, 242421, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 7502442, 10000000, 55826, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 8751221, 10000000, 55826, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 8751221, 10000000, 12855, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 9375611, 10000000, 12855, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 9375611, 10000000, 2960, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 9687806, 10000000, 2960, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 9687806, 10000000, 681, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 9843903, 10000000, 681, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 9843903, 10000000, 156, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 9921952, 10000000, 156, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 9921952, 10000000, 35, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 9960976, 10000000, 35, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 9960976, 10000000, 8, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 9980488, 10000000, 8, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 9980488, 10000000, 1, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 9990244, 10000000, 1, true },
	{ EV_ALPHA, 300, VROCE_DCQCN_ALPHA_DOWN, 9990244, 10000000, 0, true },
};

static const struct dcqcn_knob_val paper_default_knobs[] = {
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step paper_default_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20000000, 40000000, 1048576, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 20000000, 40000000, 1044480, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 30000000, 40000000, 1044480, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 30000000, 40000000, 1040400, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 35000000, 40000000, 1040400, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 35000000, 40000000, 1036335, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 37500000, 40000000, 1036335, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 37500000, 40000000, 1032286, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 38750000, 40000000, 1032286, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 38750000, 40000000, 1028253, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39375000, 40000000, 1028253, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39375000, 40000000, 1024236, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39687500, 40000000, 1024236, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39687500, 40000000, 1020235, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39843750, 40000000, 1020235, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39843750, 40000000, 1016249, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39921875, 40000000, 1016249, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39921875, 40000000, 1012279, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39960938, 40000000, 1012279, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39960938, 40000000, 1008324, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39980469, 40000000, 1008324, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39980469, 40000000, 1004385, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39990235, 40000000, 1004385, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39990235, 40000000, 1000461, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39995118, 40000000, 1000461, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39995118, 40000000, 996552, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39997559, 40000000, 996552, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39997559, 40000000, 992659, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39998780, 40000000, 992659, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39998780, 40000000, 988781, true },
};

static const struct dcqcn_knob_val paper_hai_knobs[] = {
	{ VROCE_DCQCN_K_RP_BYTE_RESET, 16 },
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step paper_hai_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20000000, 40000000, 1048576, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_FR, 30000000, 40000000, 1048576, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 35000000, 40000000, 1048576, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 35000000, 40000000, 1044480, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_FR, 37500000, 40000000, 1044480, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 38750000, 40000000, 1044480, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 38750000, 40000000, 1040400, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_FR, 39375000, 40000000, 1040400, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 39687500, 40000000, 1040400, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39687500, 40000000, 1036335, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_FR, 39843750, 40000000, 1036335, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 39921875, 40000000, 1036335, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39921875, 40000000, 1032286, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_AI, 39960938, 40000000, 1032286, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 39980469, 40000000, 1032286, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39980469, 40000000, 1028253, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_AI, 39990235, 40000000, 1028253, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_HAI, 39995118, 40000000, 1028253, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39995118, 40000000, 1024236, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_HAI, 39997559, 40000000, 1024236, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_HAI, 39998780, 40000000, 1024236, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39998780, 40000000, 1020235, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_HAI, 39999390, 40000000, 1020235, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_HAI, 39999695, 40000000, 1020235, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39999695, 40000000, 1016249, true },
	{ EV_BYTES, 1024, VROCE_DCQCN_BYTES_HAI, 39999848, 40000000, 1016249, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_HAI, 39999924, 40000000, 1016249, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 39999924, 40000000, 1012279, true },
};

static const struct dcqcn_knob_val paper_repeat_knobs[] = {
	{ VROCE_DCQCN_NR_KNOBS, 0 }
};

static const struct dcqcn_step paper_repeat_steps[] = {
	{ EV_CNP, 0, VROCE_DCQCN_CNP_CUT, 20000000, 40000000, 1048576, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 20000000, 40000000, 1044480, true },
	{ EV_CNP, 50, VROCE_DCQCN_CNP_CUT, 10039063, 20000000, 1044496, true },
	{ EV_CNP, 100, VROCE_DCQCN_CNP_CUT, 5039063, 10039063, 1044511, true },
	{ EV_ALPHA, 3, VROCE_DCQCN_ALPHA_DOWN, 5039063, 10039063, 1032318, true },
	{ EV_CNP, 300, VROCE_DCQCN_CNP_CUT, 2558597, 5039063, 1032381, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 2558597, 5039063, 1028348, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 3798830, 5039063, 1028348, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 3798830, 5039063, 1024331, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 4418947, 5039063, 1024331, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 4418947, 5039063, 1020329, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 4729005, 5039063, 1020329, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 4729005, 5039063, 1016343, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_FR, 4884034, 5039063, 1016343, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 4884034, 5039063, 1012372, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 4981549, 5079063, 1012372, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 4981549, 5079063, 1008417, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5050306, 5119063, 1008417, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5050306, 5119063, 1004477, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5104685, 5159063, 1004477, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5104685, 5159063, 1000553, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5151874, 5199063, 1000553, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5151874, 5199063, 996644, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5195469, 5239063, 996644, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5195469, 5239063, 992750, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5237266, 5279063, 992750, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5237266, 5279063, 988872, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5278165, 5319063, 988872, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5278165, 5319063, 985009, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5318614, 5359063, 985009, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5318614, 5359063, 981161, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5358839, 5399063, 981161, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5358839, 5399063, 977328, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5398951, 5439063, 977328, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5398951, 5439063, 973510, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5439007, 5479063, 973510, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5439007, 5479063, 969707, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5479035, 5519063, 969707, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5479035, 5519063, 965919, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5519049, 5559063, 965919, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5519049, 5559063, 962145, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5559056, 5599063, 962145, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5559056, 5599063, 958386, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5599060, 5639063, 958386, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5599060, 5639063, 954642, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5639062, 5679063, 954642, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5639062, 5679063, 950912, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5679063, 5719063, 950912, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5679063, 5719063, 947197, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5719063, 5759063, 947197, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5719063, 5759063, 943497, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5759063, 5799063, 943497, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5759063, 5799063, 939811, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5799063, 5839063, 939811, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5799063, 5839063, 936139, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5839063, 5879063, 936139, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5839063, 5879063, 932482, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5879063, 5919063, 932482, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5879063, 5919063, 928839, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5919063, 5959063, 928839, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5919063, 5959063, 925210, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5959063, 5999063, 925210, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5959063, 5999063, 921595, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 5999063, 6039063, 921595, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 5999063, 6039063, 917995, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6039063, 6079063, 917995, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6039063, 6079063, 914409, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6079063, 6119063, 914409, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6079063, 6119063, 910837, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6119063, 6159063, 910837, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6119063, 6159063, 907279, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6159063, 6199063, 907279, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6159063, 6199063, 903734, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6199063, 6239063, 903734, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6199063, 6239063, 900203, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6239063, 6279063, 900203, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6239063, 6279063, 896686, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6279063, 6319063, 896686, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6279063, 6319063, 893183, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6319063, 6359063, 893183, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6319063, 6359063, 889694, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6359063, 6399063, 889694, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6359063, 6399063, 886218, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6399063, 6439063, 886218, true },
	{ EV_ALPHA, 1, VROCE_DCQCN_ALPHA_DOWN, 6399063, 6439063, 882756, true },
	{ EV_TIMER, 0, VROCE_DCQCN_TIMER_AI, 6439063, 6479063, 882756, true },
	{ EV_ALPHA, 2000, VROCE_DCQCN_ALPHA_DOWN, 6439063, 6479063, 351, true },
	{ EV_CNP, 9000, VROCE_DCQCN_CNP_CUT, 6437986, 6439063, 4445, true },
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
 * n alpha periods at once against n single ones: one period is exactly
 * g * alpha >> 10; n at once truncate less, so they end at or above the
 * single steps, by less than one unit per period (and never above the
 * start).
 */
static void dcqcn_alpha_periods_at_once(struct kunit *test)
{
	static const u32 gs[] = { 0, 512, 960, 1019, 1023 };
	static const u32 ns[] = { 1, 2, 3, 7, 300, 5000 };
	struct vroce_dcqcn_state once, step;
	struct vroce_dcqcn_cfg cfg;
	size_t i, j;
	u32 k;

	memset(&cfg, 0, sizeof(cfg));
	cfg.flavour = VROCE_DCQCN_PAPER;
	cfg.line_rate = 25000000;
	vroce_dcqcn_params_default(&cfg.p);
	for (i = 0; i < ARRAY_SIZE(gs); i++) {
		cfg.p.rp_dce_tcp_g = gs[i];
		for (j = 0; j < ARRAY_SIZE(ns); j++) {
			vroce_dcqcn_init(&cfg, &once);
			step = once;
			vroce_dcqcn_on_alpha_timer(&cfg, &once, ns[j]);
			for (k = 0; k < ns[j]; k++)
				vroce_dcqcn_on_alpha_timer(&cfg, &step, 1);
			KUNIT_EXPECT_GE_MSG(test, once.alpha, step.alpha,
					    "g %u n %u", gs[i], ns[j]);
			KUNIT_EXPECT_LE_MSG(test, once.alpha - step.alpha,
					    ns[j], "g %u n %u", gs[i], ns[j]);
			KUNIT_EXPECT_LE(test, once.alpha, VROCE_DCQCN_A_ONE);
			if (ns[j] == 1)
				KUNIT_EXPECT_EQ(test, once.alpha,
						(u32)(((u64)gs[i] *
						       VROCE_DCQCN_A_ONE) >> 10));
		}
	}
}

/*
 * An alpha timer that was not run for a long time: any number of periods
 * ends with alpha 0 (one multiplication by (g/1024)^n), in both flavours.
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
	KUNIT_CASE(dcqcn_alpha_periods_at_once),
	KUNIT_CASE(dcqcn_alpha_long_idle),
	KUNIT_CASE(dcqcn_reason_names),
	{}
};

static struct kunit_suite vroce_dcqcn_suite = {
	.name = "vroce_dcqcn",
	.test_cases = vroce_dcqcn_cases,
};

kunit_test_suites(&vroce_dcqcn_suite);
