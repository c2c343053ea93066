// SPDX-License-Identifier: GPL-2.0
/*
 * DCQCN reaction point: the step functions of both flavours and the knob
 * table.  Integer arithmetic only (u64 intermediates, div_u64 for the one
 * division by a non-power of two), so it runs in softirq and, through a
 * small shim, in userspace (userspace-tests/cc-model/).
 *
 * Rounding, where the specification leaves it open:
 *  - alpha updates truncate: alpha = g * alpha >> 10 (+ 1024 - g), and n
 *    periods without a CNP alpha * (g / 1024)^n (Q32, by squaring), so
 *    an idle alpha decays to exactly 0;
 *  - cuts truncate the amount cut (the rate stays a little higher);
 *  - RC = (RC + RT) / 2 rounds up, so recovery reaches RT exactly and a
 *    flow at the maximum rate is released from the limiter.
 */
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/stddef.h>
#include <linux/types.h>

#include "dcqcn.h"

/*
 * Ranges: the firmware's documented ones where NVIDIA documents them,
 * else the field width or a bound that keeps the arithmetic exact
 * (Documentation/congestion-control.md says which is which).
 */
const struct vroce_dcqcn_knob vroce_dcqcn_knobs[VROCE_DCQCN_NR_KNOBS] = {
	[VROCE_DCQCN_K_RP_CLAMP_TGT_RATE] = {
		"rp_clamp_tgt_rate", "bool",
		offsetof(struct vroce_dcqcn_params, rp_clamp_tgt_rate),
		0, 1, 0, VROCE_DCQCN_F_NVIDIA },
	[VROCE_DCQCN_K_RP_CLAMP_TGT_RATE_ATI] = {
		"rp_clamp_tgt_rate_ati", "bool",
		offsetof(struct vroce_dcqcn_params, rp_clamp_tgt_rate_ati),
		0, 1, 1, VROCE_DCQCN_F_NVIDIA },
	[VROCE_DCQCN_K_RP_TIME_RESET] = {
		"rp_time_reset", "us",
		offsetof(struct vroce_dcqcn_params, rp_time_reset),
		1, 131071, 300, VROCE_DCQCN_F_BOTH },
	[VROCE_DCQCN_K_RP_BYTE_RESET] = {
		"rp_byte_reset", "64 bytes",
		offsetof(struct vroce_dcqcn_params, rp_byte_reset),
		0, 0xffffff, 32767, VROCE_DCQCN_F_BOTH },
	[VROCE_DCQCN_K_RP_THRESHOLD] = {
		"rp_threshold", "count",
		offsetof(struct vroce_dcqcn_params, rp_threshold),
		1, 31, 1, VROCE_DCQCN_F_BOTH },
	[VROCE_DCQCN_K_RP_AI_RATE] = {
		"rp_ai_rate", "Mb/s",
		offsetof(struct vroce_dcqcn_params, rp_ai_rate),
		1, VROCE_DCQCN_RATE_MAX_MBPS, 5, VROCE_DCQCN_F_BOTH },
	[VROCE_DCQCN_K_RP_MAX_RATE] = {
		"rp_max_rate", "Mb/s",
		offsetof(struct vroce_dcqcn_params, rp_max_rate),
		0, VROCE_DCQCN_RATE_MAX_MBPS, 0, VROCE_DCQCN_F_BOTH },
	[VROCE_DCQCN_K_RP_HAI_RATE] = {
		"rp_hai_rate", "Mb/s",
		offsetof(struct vroce_dcqcn_params, rp_hai_rate),
		1, VROCE_DCQCN_RATE_MAX_MBPS, 50, VROCE_DCQCN_F_BOTH },
	[VROCE_DCQCN_K_RP_MIN_DEC_FAC] = {
		"rp_min_dec_fac", "%",
		offsetof(struct vroce_dcqcn_params, rp_min_dec_fac),
		0, 100, 50, VROCE_DCQCN_F_NVIDIA },
	[VROCE_DCQCN_K_RP_MIN_RATE] = {
		"rp_min_rate", "Mb/s",
		offsetof(struct vroce_dcqcn_params, rp_min_rate),
		1, VROCE_DCQCN_RATE_MAX_MBPS, 1, VROCE_DCQCN_F_BOTH },
	[VROCE_DCQCN_K_RP_RATE_TO_SET_ON_FIRST_CNP] = {
		"rp_rate_to_set_on_first_cnp", "Mb/s",
		offsetof(struct vroce_dcqcn_params,
			 rp_rate_to_set_on_first_cnp),
		0, VROCE_DCQCN_RATE_MAX_MBPS, 0, VROCE_DCQCN_F_NVIDIA },
	[VROCE_DCQCN_K_RP_DCE_TCP_G] = {
		"rp_dce_tcp_g", "1/1024",
		offsetof(struct vroce_dcqcn_params, rp_dce_tcp_g),
		0, VROCE_DCQCN_ALPHA_ONE - 1, 1019, VROCE_DCQCN_F_BOTH },
	[VROCE_DCQCN_K_RP_DCE_TCP_RTT] = {
		"rp_dce_tcp_rtt", "us",
		offsetof(struct vroce_dcqcn_params, rp_dce_tcp_rtt),
		1, 131071, 1, VROCE_DCQCN_F_BOTH },
	[VROCE_DCQCN_K_RP_RATE_REDUCE_MONITOR_PERIOD] = {
		"rp_rate_reduce_monitor_period", "us",
		offsetof(struct vroce_dcqcn_params,
			 rp_rate_reduce_monitor_period),
		1, U32_MAX, 4, VROCE_DCQCN_F_NVIDIA },
	[VROCE_DCQCN_K_RP_INITIAL_ALPHA_VALUE] = {
		"rp_initial_alpha_value", "1/1024",
		offsetof(struct vroce_dcqcn_params, rp_initial_alpha_value),
		0, VROCE_DCQCN_ALPHA_ONE - 1, 1023, VROCE_DCQCN_F_NVIDIA },
	[VROCE_DCQCN_K_RP_GD] = {
		"rp_gd", "shift",
		offsetof(struct vroce_dcqcn_params, rp_gd),
		0, 31, 11, VROCE_DCQCN_F_NVIDIA },
	[VROCE_DCQCN_K_NP_MIN_TIME_BETWEEN_CNPS] = {
		"np_min_time_between_cnps", "us",
		offsetof(struct vroce_dcqcn_params, np_min_time_between_cnps),
		0, 4095, 4, VROCE_DCQCN_F_BOTH },
	[VROCE_DCQCN_K_NP_CNP_DSCP] = {
		"np_cnp_dscp", "DSCP",
		offsetof(struct vroce_dcqcn_params, np_cnp_dscp),
		0, 63, 48, VROCE_DCQCN_F_BOTH },
	[VROCE_DCQCN_K_NP_CNP_PRIO_MODE] = {
		"np_cnp_prio_mode", "bool",
		offsetof(struct vroce_dcqcn_params, np_cnp_prio_mode),
		0, 1, 0, VROCE_DCQCN_F_BOTH },
	[VROCE_DCQCN_K_NP_CNP_PRIO] = {
		"np_cnp_prio", "PCP",
		offsetof(struct vroce_dcqcn_params, np_cnp_prio),
		0, 7, 6, VROCE_DCQCN_F_BOTH },
};

static const char * const vroce_dcqcn_reason_names[VROCE_DCQCN_NR_REASONS] = {
	[VROCE_DCQCN_NONE] = "none",
	[VROCE_DCQCN_CNP_CUT] = "cnp",
	[VROCE_DCQCN_CNP_FIRST_SET] = "cnp_first_set",
	[VROCE_DCQCN_CNP_COALESCED] = "cnp_coalesced",
	[VROCE_DCQCN_TIMER_FR] = "timer_fr",
	[VROCE_DCQCN_TIMER_AI] = "timer_ai",
	[VROCE_DCQCN_TIMER_HAI] = "timer_hai",
	[VROCE_DCQCN_BYTES_FR] = "bytes_fr",
	[VROCE_DCQCN_BYTES_AI] = "bytes_ai",
	[VROCE_DCQCN_BYTES_HAI] = "bytes_hai",
	[VROCE_DCQCN_ALPHA_UP] = "alpha_up",
	[VROCE_DCQCN_ALPHA_DOWN] = "alpha_down",
};

static u32 *knob_ptr(struct vroce_dcqcn_params *p, enum vroce_dcqcn_knob_id id)
{
	return (u32 *)((u8 *)p + vroce_dcqcn_knobs[id].offset);
}

/**
 * vroce_dcqcn_knob_validate() - range check of one knob's new value
 * @id: the knob
 * @val: the value a user asks for, in the knob's unit
 *
 * Only the knob's own range: a future sysfs layer calls this on write and
 * keeps the old value on error.  Cross-knob relations (rp_min_rate above
 * rp_max_rate, rates above the line rate) are not errors: the step
 * functions clamp to the port's line rate and to the maximum.
 *
 * Return: 0 if @val is valid for @id, -EINVAL if not (or @id is unknown).
 */
int vroce_dcqcn_knob_validate(enum vroce_dcqcn_knob_id id, u32 val)
{
	const struct vroce_dcqcn_knob *k;

	if ((unsigned int)id >= VROCE_DCQCN_NR_KNOBS)
		return -EINVAL;
	k = &vroce_dcqcn_knobs[id];
	if (val < k->min || val > k->max)
		return -EINVAL;
	return 0;
}

/**
 * vroce_dcqcn_knob_set() - validate and store one knob
 * @p: the parameter set to change
 * @id: the knob
 * @val: the new value, in the knob's unit
 *
 * Return: 0 and @p updated, or -EINVAL and @p untouched.
 */
int vroce_dcqcn_knob_set(struct vroce_dcqcn_params *p,
			 enum vroce_dcqcn_knob_id id, u32 val)
{
	int ret = vroce_dcqcn_knob_validate(id, val);

	if (!ret)
		*knob_ptr(p, id) = val;
	return ret;
}

/**
 * vroce_dcqcn_knob_get() - read one knob
 * @p: the parameter set
 * @id: the knob; must be below VROCE_DCQCN_NR_KNOBS
 *
 * Return: the knob's value in its unit.
 */
u32 vroce_dcqcn_knob_get(const struct vroce_dcqcn_params *p,
			 enum vroce_dcqcn_knob_id id)
{
	return *knob_ptr((struct vroce_dcqcn_params *)p, id);
}

/**
 * vroce_dcqcn_params_validate() - range check of every knob
 * @p: the parameter set
 *
 * Return: 0 if every knob is within its range, else -EINVAL.
 */
int vroce_dcqcn_params_validate(const struct vroce_dcqcn_params *p)
{
	unsigned int i;

	for (i = 0; i < VROCE_DCQCN_NR_KNOBS; i++)
		if (vroce_dcqcn_knob_validate(i, vroce_dcqcn_knob_get(p, i)))
			return -EINVAL;
	return 0;
}

/**
 * vroce_dcqcn_params_default() - mlx5's / the firmware's defaults
 * @p: filled with each knob's default of vroce_dcqcn_knobs[]
 */
void vroce_dcqcn_params_default(struct vroce_dcqcn_params *p)
{
	unsigned int i;

	for (i = 0; i < VROCE_DCQCN_NR_KNOBS; i++)
		*knob_ptr(p, i) = vroce_dcqcn_knobs[i].def;
}

/**
 * vroce_dcqcn_params_paper() - the SIGCOMM 2015 paper's values
 * @p: filled with the defaults, then the paper's F = 5, T = 55 us,
 *	B = 10 MB, g = 1/256, R_AI = 40 Mb/s, K = 55 us, N = 50 us
 *
 * The paper gives no R_HAI; rp_hai_rate keeps mlx5's default.
 */
void vroce_dcqcn_params_paper(struct vroce_dcqcn_params *p)
{
	vroce_dcqcn_params_default(p);
	p->rp_threshold = 5;
	p->rp_time_reset = 55;
	p->rp_byte_reset = 10000000 / VROCE_DCQCN_BYTE_UNIT;
	p->rp_dce_tcp_g = VROCE_DCQCN_ALPHA_ONE - VROCE_DCQCN_ALPHA_ONE / 256;
	p->rp_ai_rate = 40;
	p->rp_dce_tcp_rtt = 55;
	p->np_min_time_between_cnps = 50;
}

/**
 * vroce_dcqcn_reason_name() - short name of a reason, for tracepoints
 * @why: a reason a step function returned
 *
 * Return: a static string ("cnp", "timer_fr", ...), "?" if unknown.
 */
const char *vroce_dcqcn_reason_name(enum vroce_dcqcn_reason why)
{
	if ((unsigned int)why >= VROCE_DCQCN_NR_REASONS)
		return "?";
	return vroce_dcqcn_reason_names[why];
}

static u32 mbps_to_kbps(u32 mbps)
{
	u64 r = (u64)mbps * VROCE_DCQCN_KBPS_PER_MBPS;

	return min_t(u64, r, U32_MAX);
}

/**
 * vroce_dcqcn_max_rate() - the rate a flow recovers to
 * @cfg: the configuration
 *
 * Return: kb/s: the line rate (U32_MAX for a line rate of 0, "unknown"),
 * lowered to rp_max_rate when that is set.
 */
u32 vroce_dcqcn_max_rate(const struct vroce_dcqcn_cfg *cfg)
{
	u32 line = cfg->line_rate ? cfg->line_rate : U32_MAX;

	if (cfg->p.rp_max_rate)
		return min(line, mbps_to_kbps(cfg->p.rp_max_rate));
	return line;
}

static u32 min_rate(const struct vroce_dcqcn_cfg *cfg)
{
	return min(mbps_to_kbps(cfg->p.rp_min_rate), vroce_dcqcn_max_rate(cfg));
}

/* rp_initial_alpha_value in the state's unit, at most 1.0 */
static u32 initial_alpha(const struct vroce_dcqcn_cfg *cfg)
{
	return min(cfg->p.rp_initial_alpha_value, VROCE_DCQCN_ALPHA_ONE) <<
	       VROCE_DCQCN_KNOB_TO_A;
}

/**
 * vroce_dcqcn_init() - a flow that has seen no CNP
 * @cfg: the configuration
 * @s: set to not limited, at the maximum rate
 *
 * Alpha starts at 1.0 in the paper flavour (the paper's initial value) and
 * at rp_initial_alpha_value in the nvidia flavour (where the first CNP
 * sets it again anyway).
 */
void vroce_dcqcn_init(const struct vroce_dcqcn_cfg *cfg,
		      struct vroce_dcqcn_state *s)
{
	u32 max = vroce_dcqcn_max_rate(cfg);

	*s = (struct vroce_dcqcn_state) {
		.rc = max,
		.rt = max,
		.alpha = cfg->flavour == VROCE_DCQCN_PAPER ?
			 VROCE_DCQCN_A_ONE : initial_alpha(cfg),
	};
}

/* After a cut: the increase stages and the byte counter start again. */
static void restart_increase(struct vroce_dcqcn_state *s, u64 now_us)
{
	s->limited = true;
	s->last_cut_us = now_us;
	s->t_stage = 0;
	s->bc_stage = 0;
	s->bytes = 0;
	s->timer_inc = false;
}

/*
 * alpha <- g * alpha + 1 - g, a period with a CNP; alpha 2^-20 (at most
 * 1.0), g the knob (1/1024, below 1.0).
 */
static u32 alpha_raise(u32 alpha, u32 g)
{
	u32 a = (u32)(((u64)g * alpha) >> VROCE_DCQCN_ALPHA_SHIFT);

	return a + ((VROCE_DCQCN_ALPHA_ONE - g) << VROCE_DCQCN_KNOB_TO_A);
}

/*
 * (g / 1024)^n in Q32 (2^32 is 1.0), g the knob: binary exponentiation,
 * every product truncated to Q32, at most 32 rounds whatever n is.  Each
 * factor is below 2^32 and the result at most 2^32, so no product
 * overflows 64 bits.
 */
static u64 decay_q32(u32 g, u32 n)
{
	u64 result = 1ULL << 32;
	u64 base = (u64)g << (32 - VROCE_DCQCN_ALPHA_SHIFT);

	while (n && result) {
		if (n & 1)
			result = (result * base) >> 32;
		base = (base * base) >> 32;
		n >>= 1;
	}
	return result;
}

/* alpha after @n decays by g, no CNP: alpha * (g / 1024)^n, truncated. */
static u32 alpha_decay(u32 alpha, u32 g, u32 n)
{
	return (u32)(((u64)alpha * decay_q32(g, n)) >> 32);
}

static u32 dcqcn_g(const struct vroce_dcqcn_cfg *cfg)
{
	return min(cfg->p.rp_dce_tcp_g, VROCE_DCQCN_ALPHA_ONE - 1);
}

/* RC after a cut from @rc; the caller has decided on the target. */
static u32 cut_rate(const struct vroce_dcqcn_cfg *cfg, u32 rc, u32 alpha)
{
	u64 cut;

	if (cfg->flavour == VROCE_DCQCN_PAPER) {
		/* RC * (1 - alpha / 2) */
		cut = ((u64)rc * alpha) >> (VROCE_DCQCN_A_SHIFT + 1);
	} else {
		u32 keep = min(cfg->p.rp_min_dec_fac, 100U);
		u64 most = div_u64((u64)rc * (100 - keep), 100);

		/* rp_gd counts for an alpha of 1/1024 */
		cut = ((u64)rc * alpha) >>
		      min(cfg->p.rp_gd + VROCE_DCQCN_KNOB_TO_A, 63U);
		cut = min(cut, most);
	}
	cut = min_t(u64, cut, rc);
	return max(rc - (u32)cut, min_rate(cfg));
}

/**
 * vroce_dcqcn_on_cnp() - a CNP for the flow arrived
 * @cfg: the configuration
 * @s: the flow's state, updated
 * @now_us: the caller's clock, us (only the nvidia flavour reads it, for
 *	rp_rate_reduce_monitor_period)
 *
 * Paper: RT = RC, RC = RC * (1 - alpha / 2), alpha = (1 - g) alpha + g.
 * Nvidia: the first CNP of a flow that is not limited sets alpha to
 * rp_initial_alpha_value, then cuts (or sets rp_rate_to_set_on_first_cnp);
 * later CNPs cut RC by min(RC * alpha >> rp_gd, RC * (100 -
 * rp_min_dec_fac) / 100), at most once per rp_rate_reduce_monitor_period;
 * RT = RC first if rp_clamp_tgt_rate, or if rp_clamp_tgt_rate_ati and a
 * timer increase came since the last cut; alpha is left to the alpha
 * timer.  In both flavours RC stays at or above rp_min_rate (or the
 * maximum rate, if lower).
 *
 * After a return other than VROCE_DCQCN_NONE the caller restarts its
 * rp_time_reset timer (and, paper flavour, its alpha timer, which fires
 * only after rp_dce_tcp_rtt without a CNP).
 *
 * Return: VROCE_DCQCN_CNP_CUT, VROCE_DCQCN_CNP_FIRST_SET or (nvidia, within
 * the monitor period) VROCE_DCQCN_CNP_COALESCED.
 */
enum vroce_dcqcn_reason vroce_dcqcn_on_cnp(const struct vroce_dcqcn_cfg *cfg,
					   struct vroce_dcqcn_state *s,
					   u64 now_us)
{
	const struct vroce_dcqcn_params *p = &cfg->p;
	u32 max = vroce_dcqcn_max_rate(cfg);

	if (cfg->flavour == VROCE_DCQCN_PAPER) {
		s->rt = min(s->rc, max);
		s->rc = cut_rate(cfg, s->rt, s->alpha);
		s->alpha = alpha_raise(min(s->alpha, VROCE_DCQCN_A_ONE),
				       dcqcn_g(cfg));
		restart_increase(s, now_us);
		return VROCE_DCQCN_CNP_CUT;
	}

	s->cnp_in_period = true;
	if (!s->limited) {
		s->rc = max;
		s->rt = max;
		s->alpha = initial_alpha(cfg);
		if (p->rp_rate_to_set_on_first_cnp) {
			u32 r = mbps_to_kbps(p->rp_rate_to_set_on_first_cnp);

			r = clamp(r, min_rate(cfg), max);
			s->rc = r;
			s->rt = r;
			restart_increase(s, now_us);
			return VROCE_DCQCN_CNP_FIRST_SET;
		}
	} else if (now_us - s->last_cut_us <
		   p->rp_rate_reduce_monitor_period) {
		/* No second cut this period; the increases start over. */
		restart_increase(s, s->last_cut_us);
		return VROCE_DCQCN_CNP_COALESCED;
	} else if (p->rp_clamp_tgt_rate ||
		   (p->rp_clamp_tgt_rate_ati && s->timer_inc)) {
		s->rt = s->rc;
	}
	s->rt = min(s->rt, max);
	s->rc = cut_rate(cfg, min(s->rc, max), s->alpha);
	restart_increase(s, now_us);
	return VROCE_DCQCN_CNP_CUT;
}

/* One increase event of either source; the stage is already counted. */
static enum vroce_dcqcn_reason increase(const struct vroce_dcqcn_cfg *cfg,
					struct vroce_dcqcn_state *s,
					enum vroce_dcqcn_reason fr)
{
	const struct vroce_dcqcn_params *p = &cfg->p;
	u32 lo = min(s->t_stage, s->bc_stage);
	u32 hi = max(s->t_stage, s->bc_stage);
	u32 max = vroce_dcqcn_max_rate(cfg);
	enum vroce_dcqcn_reason why;
	u64 inc, rt;

	if (lo > p->rp_threshold) {
		/* Hyper increase; paper: R_HAI per stage beyond F. */
		why = fr + (VROCE_DCQCN_TIMER_HAI - VROCE_DCQCN_TIMER_FR);
		inc = (u64)p->rp_hai_rate * VROCE_DCQCN_KBPS_PER_MBPS;
		if (cfg->flavour == VROCE_DCQCN_PAPER)
			inc *= lo - p->rp_threshold;
	} else if (hi >= p->rp_threshold) {
		why = fr + (VROCE_DCQCN_TIMER_AI - VROCE_DCQCN_TIMER_FR);
		inc = (u64)p->rp_ai_rate * VROCE_DCQCN_KBPS_PER_MBPS;
	} else {
		why = fr;
		inc = 0;
	}
	rt = min_t(u64, (u64)s->rt + inc, max);
	s->rt = (u32)rt;
	s->rc = (u32)(((u64)s->rc + rt + 1) >> 1);
	if (s->rc >= max) {
		/* Recovered: the limiter is released until the next CNP. */
		s->rc = max;
		s->rt = max;
		s->limited = false;
		s->bytes = 0;
	}
	return why;
}

static void stage_inc(u32 *stage)
{
	if (*stage < U32_MAX)
		(*stage)++;
}

/**
 * vroce_dcqcn_on_timer() - the rate increase timer (rp_time_reset) fired
 * @cfg: the configuration
 * @s: the flow's state, updated
 *
 * Counts a timer stage, then one increase: hyper when both stages are
 * above rp_threshold, additive when one has reached it, else fast
 * recovery; RT grows (capped at the maximum rate), RC = (RC + RT) / 2.
 * A flow that reaches the maximum rate is no longer limited: the caller
 * stops its timers.
 *
 * Return: VROCE_DCQCN_TIMER_FR/_AI/_HAI, or VROCE_DCQCN_NONE if the flow
 * is not limited.
 */
enum vroce_dcqcn_reason vroce_dcqcn_on_timer(const struct vroce_dcqcn_cfg *cfg,
					     struct vroce_dcqcn_state *s)
{
	if (!s->limited)
		return VROCE_DCQCN_NONE;
	stage_inc(&s->t_stage);
	s->timer_inc = true;
	return increase(cfg, s, VROCE_DCQCN_TIMER_FR);
}

/**
 * vroce_dcqcn_on_bytes() - the flow sent some bytes
 * @cfg: the configuration
 * @s: the flow's state, updated
 * @bytes: bytes sent since the previous call (wire bytes of the data
 *	packets; the caller decides what it counts, consistently)
 *
 * Every rp_byte_reset * VROCE_DCQCN_BYTE_UNIT bytes of a limited flow are
 * one byte counter event: a byte stage, then an increase as for the
 * timer.  One event per call at most: if the counter still holds a full
 * period, call again with @bytes = 0.  rp_byte_reset = 0 disables it.
 *
 * Return: VROCE_DCQCN_BYTES_FR/_AI/_HAI, or VROCE_DCQCN_NONE if no event.
 */
enum vroce_dcqcn_reason vroce_dcqcn_on_bytes(const struct vroce_dcqcn_cfg *cfg,
					     struct vroce_dcqcn_state *s,
					     u32 bytes)
{
	u64 period = (u64)cfg->p.rp_byte_reset * VROCE_DCQCN_BYTE_UNIT;

	if (!s->limited || !period)
		return VROCE_DCQCN_NONE;
	s->bytes += bytes;
	if (s->bytes < period)
		return VROCE_DCQCN_NONE;
	s->bytes -= period;
	stage_inc(&s->bc_stage);
	return increase(cfg, s, VROCE_DCQCN_BYTES_FR);
}

/**
 * vroce_dcqcn_on_alpha_timer() - alpha timer periods elapsed
 * @cfg: the configuration
 * @s: the flow's state, updated
 * @periods: how many rp_dce_tcp_rtt periods passed (a caller whose timer
 *	is coarser than rp_dce_tcp_rtt passes several)
 *
 * Nvidia: the first period raises alpha = g * alpha + (1 - g) if a CNP
 * came since the last update, else decays it, alpha = g * alpha; the
 * others decay it.  Nothing happens while the flow is not limited (its
 * first CNP sets alpha).  Paper: every period decays alpha, limited or
 * not; the caller restarts this timer at each CNP.  The decays of all
 * the periods are one multiplication by (g / 1024)^periods, computed in
 * Q32 by squaring (at most 32 rounds): the cost of an event does not grow
 * with the time since the last one.  One period gives exactly
 * g * alpha >> 10; several lose less to truncation than as many single
 * steps would.
 *
 * Return: VROCE_DCQCN_ALPHA_UP, VROCE_DCQCN_ALPHA_DOWN, or
 * VROCE_DCQCN_NONE if alpha did not change.
 */
enum vroce_dcqcn_reason vroce_dcqcn_on_alpha_timer(const struct vroce_dcqcn_cfg *cfg,
						   struct vroce_dcqcn_state *s,
						   u32 periods)
{
	enum vroce_dcqcn_reason why = VROCE_DCQCN_NONE;
	u32 g = dcqcn_g(cfg);
	u32 old = s->alpha;

	if (!periods)
		return VROCE_DCQCN_NONE;
	if (cfg->flavour == VROCE_DCQCN_NVIDIA) {
		if (!s->limited)
			return VROCE_DCQCN_NONE;
		if (s->cnp_in_period) {
			s->cnp_in_period = false;
			s->alpha = alpha_raise(min(s->alpha, VROCE_DCQCN_A_ONE),
					       g);
			why = VROCE_DCQCN_ALPHA_UP;
			periods--;
		}
	}
	s->alpha = alpha_decay(s->alpha, g, periods);
	if (why == VROCE_DCQCN_NONE && s->alpha != old)
		why = VROCE_DCQCN_ALPHA_DOWN;
	return why;
}
