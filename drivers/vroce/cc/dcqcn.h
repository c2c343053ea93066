/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DCQCN reaction point arithmetic, in two flavours: NVIDIA ConnectX
 * firmware semantics (the knobs mlx5 exposes in debugfs cc_params/) and
 * the SIGCOMM 2015 paper.  Pure code: no ib_core, no locks, no clock, no
 * FPU.  The caller keeps one struct vroce_dcqcn_state per flow under its
 * own lock, runs the timers, passes the time, the bytes sent and the
 * events, and reads the rate back.
 *
 * Units and scales (Documentation/congestion-control.md):
 *  - rates in the state: kb/s (1000 bit/s), u32 (up to 4.29 Tb/s);
 *  - rate knobs (rp_*_rate): Mb/s, as mlx5 and the firmware take them;
 *  - alpha in the state: fixed point, 2^-20 (VROCE_DCQCN_A_ONE is 1.0):
 *    ten bits below the knobs' unit, because each decay truncates; at
 *    1/1024 that took one unit off every period, and with the paper's
 *    g = 1/256 held alpha near 0 under steady marking (0.004 instead of
 *    0.17 at 1 % marks), whatever the marks said;
 *  - rp_dce_tcp_g (the weight of the old alpha) and rp_initial_alpha_value:
 *    1/1024 (VROCE_DCQCN_ALPHA_ONE), as mlx5's knobs;
 *  - rp_byte_reset: units of VROCE_DCQCN_BYTE_UNIT (64) bytes;
 *  - times: microseconds.
 */
#ifndef VROCE_CC_DCQCN_H
#define VROCE_CC_DCQCN_H

#include <linux/bits.h>
#include <linux/types.h>

#define VROCE_DCQCN_ALPHA_SHIFT	10
#define VROCE_DCQCN_ALPHA_ONE	1024U	/* 1 << VROCE_DCQCN_ALPHA_SHIFT */
/* alpha in the state: a knob value << VROCE_DCQCN_KNOB_TO_A */
#define VROCE_DCQCN_A_SHIFT	20
#define VROCE_DCQCN_A_ONE	BIT(VROCE_DCQCN_A_SHIFT)
#define VROCE_DCQCN_KNOB_TO_A	(VROCE_DCQCN_A_SHIFT - VROCE_DCQCN_ALPHA_SHIFT)
/* rp_byte_reset counts in these. */
#define VROCE_DCQCN_BYTE_UNIT	64U
/* Upper bound of every rate knob, Mb/s (1.6 Tb/s). */
#define VROCE_DCQCN_RATE_MAX_MBPS	1600000U
#define VROCE_DCQCN_KBPS_PER_MBPS	1000U

/**
 * enum vroce_dcqcn_flavour - which reaction point semantics apply
 * @VROCE_DCQCN_NVIDIA: ConnectX firmware: alpha updated by a free-running
 *	timer, decreases at most once per monitor period, clamp rules.
 * @VROCE_DCQCN_PAPER: Zhu et al., SIGCOMM 2015: every CNP cuts and updates
 *	alpha, the alpha timer only decays.
 */
enum vroce_dcqcn_flavour {
	VROCE_DCQCN_NVIDIA,
	VROCE_DCQCN_PAPER,
};

/**
 * struct vroce_dcqcn_params - the knobs, named as mlx5's debugfs cc_params
 * @rp_clamp_tgt_rate: bool; on every cut the target takes the current rate
 * @rp_clamp_tgt_rate_ati: bool; same, if a timer increase came since the
 *	previous cut
 * @rp_time_reset: us between two rate increase timer events (T)
 * @rp_byte_reset: bytes between two byte counter events (B), in units of
 *	VROCE_DCQCN_BYTE_UNIT; 0 disables the byte counter
 * @rp_threshold: stage count F where fast recovery ends
 * @rp_ai_rate: Mb/s added to the target by an additive increase
 * @rp_max_rate: Mb/s cap of the rate, 0 for the line rate
 * @rp_hai_rate: Mb/s added to the target by a hyper increase (paper: per
 *	stage beyond F)
 * @rp_min_dec_fac: %; a cut leaves at least this share of the rate
 * @rp_min_rate: Mb/s floor of the rate
 * @rp_rate_to_set_on_first_cnp: Mb/s the first CNP sets (current and
 *	target), 0 to cut as usual
 * @rp_dce_tcp_g: 1/1024 weight of the old alpha at each update (1 - g)
 * @rp_dce_tcp_rtt: us period of the alpha timer (paper: K)
 * @rp_rate_reduce_monitor_period: us; at most one cut per period
 * @rp_initial_alpha_value: 1/1024 alpha the first CNP sets
 * @rp_gd: shift; a cut is rate * alpha >> rp_gd
 * @np_min_time_between_cnps: us between two CNPs a QP sends (N)
 * @np_cnp_dscp: DSCP of the CNPs sent
 * @np_cnp_prio_mode: bool; 0: CNPs take np_cnp_prio, 1: the priority of
 *	the packet that carried the CE mark (mlx5's meaning: writing its
 *	np_cnp_prio sets the firmware's cnp_prio_mode to 0)
 * @np_cnp_prio: 802.1p priority of the CNPs sent
 *
 * Which flavour reads which knob: see vroce_dcqcn_knobs[].  The np_*
 * knobs belong to the notification point (cc/cnp.c); they are here so
 * that one table validates every knob.
 */
struct vroce_dcqcn_params {
	u32 rp_clamp_tgt_rate;
	u32 rp_clamp_tgt_rate_ati;
	u32 rp_time_reset;
	u32 rp_byte_reset;
	u32 rp_threshold;
	u32 rp_ai_rate;
	u32 rp_max_rate;
	u32 rp_hai_rate;
	u32 rp_min_dec_fac;
	u32 rp_min_rate;
	u32 rp_rate_to_set_on_first_cnp;
	u32 rp_dce_tcp_g;
	u32 rp_dce_tcp_rtt;
	u32 rp_rate_reduce_monitor_period;
	u32 rp_initial_alpha_value;
	u32 rp_gd;
	u32 np_min_time_between_cnps;
	u32 np_cnp_dscp;
	u32 np_cnp_prio_mode;
	u32 np_cnp_prio;
};

/**
 * struct vroce_dcqcn_cfg - what a step reads besides the flow's state
 * @flavour: the semantics
 * @line_rate: kb/s, the port's (emulated) line rate; the rate never
 *	exceeds it
 * @p: the knobs, validated with vroce_dcqcn_params_validate()
 */
struct vroce_dcqcn_cfg {
	enum vroce_dcqcn_flavour flavour;
	u32 line_rate;
	struct vroce_dcqcn_params p;
};

/**
 * struct vroce_dcqcn_state - one flow's reaction point
 * @rc: kb/s, current rate (what the flow may send at while @limited)
 * @rt: kb/s, target rate
 * @alpha: 2^-20 (VROCE_DCQCN_A_ONE), congestion estimate
 * @bytes: bytes counted toward the next byte counter event
 * @last_cut_us: caller's time of the last cut (nvidia monitor period)
 * @t_stage: rate increase timer events since the last cut
 * @bc_stage: byte counter events since the last cut
 * @limited: a CNP came and the rate has not recovered to the maximum yet;
 *	when false the flow is not rate limited and no timer needs to run
 * @cnp_in_period: nvidia: a CNP came since the last alpha update
 * @timer_inc: nvidia: a timer increase came since the last cut
 *
 * Protected by the caller's per-flow lock; the functions below never
 * take one.
 */
struct vroce_dcqcn_state {
	u32 rc;
	u32 rt;
	u32 alpha;
	u64 bytes;
	u64 last_cut_us;
	u32 t_stage;
	u32 bc_stage;
	bool limited;
	bool cnp_in_period;
	bool timer_inc;
};

/**
 * enum vroce_dcqcn_reason - what a step did, for the rate tracepoint
 * @VROCE_DCQCN_NONE: nothing changed
 * @VROCE_DCQCN_CNP_CUT: CNP: rate cut
 * @VROCE_DCQCN_CNP_FIRST_SET: first CNP: rate set to
 *	rp_rate_to_set_on_first_cnp
 * @VROCE_DCQCN_CNP_COALESCED: nvidia: CNP within the monitor period of the
 *	last cut: counted for alpha, increases restart, no cut
 * @VROCE_DCQCN_TIMER_FR: rate increase timer, fast recovery
 * @VROCE_DCQCN_TIMER_AI: rate increase timer, additive increase
 * @VROCE_DCQCN_TIMER_HAI: rate increase timer, hyper increase
 * @VROCE_DCQCN_BYTES_FR: byte counter, fast recovery
 * @VROCE_DCQCN_BYTES_AI: byte counter, additive increase
 * @VROCE_DCQCN_BYTES_HAI: byte counter, hyper increase
 * @VROCE_DCQCN_ALPHA_UP: alpha timer, with a CNP in the period (nvidia)
 * @VROCE_DCQCN_ALPHA_DOWN: alpha timer, no CNP in the period
 * @VROCE_DCQCN_NR_REASONS: number of reasons
 */
enum vroce_dcqcn_reason {
	VROCE_DCQCN_NONE,
	VROCE_DCQCN_CNP_CUT,
	VROCE_DCQCN_CNP_FIRST_SET,
	VROCE_DCQCN_CNP_COALESCED,
	VROCE_DCQCN_TIMER_FR,
	VROCE_DCQCN_TIMER_AI,
	VROCE_DCQCN_TIMER_HAI,
	VROCE_DCQCN_BYTES_FR,
	VROCE_DCQCN_BYTES_AI,
	VROCE_DCQCN_BYTES_HAI,
	VROCE_DCQCN_ALPHA_UP,
	VROCE_DCQCN_ALPHA_DOWN,
	VROCE_DCQCN_NR_REASONS,
};

/**
 * enum vroce_dcqcn_knob_id - index of a knob in vroce_dcqcn_knobs[]
 * @VROCE_DCQCN_K_RP_CLAMP_TGT_RATE: rp_clamp_tgt_rate
 * @VROCE_DCQCN_K_RP_CLAMP_TGT_RATE_ATI: rp_clamp_tgt_rate_ati
 * @VROCE_DCQCN_K_RP_TIME_RESET: rp_time_reset
 * @VROCE_DCQCN_K_RP_BYTE_RESET: rp_byte_reset
 * @VROCE_DCQCN_K_RP_THRESHOLD: rp_threshold
 * @VROCE_DCQCN_K_RP_AI_RATE: rp_ai_rate
 * @VROCE_DCQCN_K_RP_MAX_RATE: rp_max_rate
 * @VROCE_DCQCN_K_RP_HAI_RATE: rp_hai_rate
 * @VROCE_DCQCN_K_RP_MIN_DEC_FAC: rp_min_dec_fac
 * @VROCE_DCQCN_K_RP_MIN_RATE: rp_min_rate
 * @VROCE_DCQCN_K_RP_RATE_TO_SET_ON_FIRST_CNP: rp_rate_to_set_on_first_cnp
 * @VROCE_DCQCN_K_RP_DCE_TCP_G: rp_dce_tcp_g
 * @VROCE_DCQCN_K_RP_DCE_TCP_RTT: rp_dce_tcp_rtt
 * @VROCE_DCQCN_K_RP_RATE_REDUCE_MONITOR_PERIOD: rp_rate_reduce_monitor_period
 * @VROCE_DCQCN_K_RP_INITIAL_ALPHA_VALUE: rp_initial_alpha_value
 * @VROCE_DCQCN_K_RP_GD: rp_gd
 * @VROCE_DCQCN_K_NP_MIN_TIME_BETWEEN_CNPS: np_min_time_between_cnps
 * @VROCE_DCQCN_K_NP_CNP_DSCP: np_cnp_dscp
 * @VROCE_DCQCN_K_NP_CNP_PRIO_MODE: np_cnp_prio_mode
 * @VROCE_DCQCN_K_NP_CNP_PRIO: np_cnp_prio
 * @VROCE_DCQCN_NR_KNOBS: number of knobs
 */
enum vroce_dcqcn_knob_id {
	VROCE_DCQCN_K_RP_CLAMP_TGT_RATE,
	VROCE_DCQCN_K_RP_CLAMP_TGT_RATE_ATI,
	VROCE_DCQCN_K_RP_TIME_RESET,
	VROCE_DCQCN_K_RP_BYTE_RESET,
	VROCE_DCQCN_K_RP_THRESHOLD,
	VROCE_DCQCN_K_RP_AI_RATE,
	VROCE_DCQCN_K_RP_MAX_RATE,
	VROCE_DCQCN_K_RP_HAI_RATE,
	VROCE_DCQCN_K_RP_MIN_DEC_FAC,
	VROCE_DCQCN_K_RP_MIN_RATE,
	VROCE_DCQCN_K_RP_RATE_TO_SET_ON_FIRST_CNP,
	VROCE_DCQCN_K_RP_DCE_TCP_G,
	VROCE_DCQCN_K_RP_DCE_TCP_RTT,
	VROCE_DCQCN_K_RP_RATE_REDUCE_MONITOR_PERIOD,
	VROCE_DCQCN_K_RP_INITIAL_ALPHA_VALUE,
	VROCE_DCQCN_K_RP_GD,
	VROCE_DCQCN_K_NP_MIN_TIME_BETWEEN_CNPS,
	VROCE_DCQCN_K_NP_CNP_DSCP,
	VROCE_DCQCN_K_NP_CNP_PRIO_MODE,
	VROCE_DCQCN_K_NP_CNP_PRIO,
	VROCE_DCQCN_NR_KNOBS,
};

/* Which flavours read a knob (struct vroce_dcqcn_knob.flavours). */
#define VROCE_DCQCN_F_NVIDIA	BIT(VROCE_DCQCN_NVIDIA)
#define VROCE_DCQCN_F_PAPER	BIT(VROCE_DCQCN_PAPER)
#define VROCE_DCQCN_F_BOTH	(VROCE_DCQCN_F_NVIDIA | VROCE_DCQCN_F_PAPER)

/**
 * struct vroce_dcqcn_knob - one knob: its name, range and default
 * @name: the mlx5 debugfs name, also the sysfs file name
 * @unit: unit, for documentation and error messages
 * @offset: offset of the u32 in struct vroce_dcqcn_params
 * @min: smallest valid value
 * @max: largest valid value
 * @def: default (mlx5's / the firmware's)
 * @flavours: VROCE_DCQCN_F_* of the flavours that read it
 */
struct vroce_dcqcn_knob {
	const char *name;
	const char *unit;
	size_t offset;
	u32 min;
	u32 max;
	u32 def;
	u8 flavours;
};

extern const struct vroce_dcqcn_knob vroce_dcqcn_knobs[VROCE_DCQCN_NR_KNOBS];

int vroce_dcqcn_knob_validate(enum vroce_dcqcn_knob_id id, u32 val);
int vroce_dcqcn_knob_set(struct vroce_dcqcn_params *p,
			 enum vroce_dcqcn_knob_id id, u32 val);
u32 vroce_dcqcn_knob_get(const struct vroce_dcqcn_params *p,
			 enum vroce_dcqcn_knob_id id);
int vroce_dcqcn_params_validate(const struct vroce_dcqcn_params *p);
void vroce_dcqcn_params_default(struct vroce_dcqcn_params *p);
void vroce_dcqcn_params_paper(struct vroce_dcqcn_params *p);

const char *vroce_dcqcn_reason_name(enum vroce_dcqcn_reason why);
u32 vroce_dcqcn_max_rate(const struct vroce_dcqcn_cfg *cfg);
void vroce_dcqcn_init(const struct vroce_dcqcn_cfg *cfg,
		      struct vroce_dcqcn_state *s);

enum vroce_dcqcn_reason vroce_dcqcn_on_cnp(const struct vroce_dcqcn_cfg *cfg,
					   struct vroce_dcqcn_state *s,
					   u64 now_us);
enum vroce_dcqcn_reason vroce_dcqcn_on_timer(const struct vroce_dcqcn_cfg *cfg,
					     struct vroce_dcqcn_state *s);
enum vroce_dcqcn_reason vroce_dcqcn_on_bytes(const struct vroce_dcqcn_cfg *cfg,
					     struct vroce_dcqcn_state *s,
					     u32 bytes);
enum vroce_dcqcn_reason vroce_dcqcn_on_alpha_timer(const struct vroce_dcqcn_cfg *cfg,
						   struct vroce_dcqcn_state *s,
						   u32 periods);

#endif /* VROCE_CC_DCQCN_H */
