#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Reference model of the DCQCN reaction point (RP), both flavours.

Written from ../../../shared/reference/dcqcn.md and the decisions recorded
in Documentation/congestion-control.md, not from drivers/vroce/cc/dcqcn.c:
plain Python integers, one class per flavour.  What it is for:

  trace    the fixed-point trajectory of one CNP and the recovery after
           it, on a timeline (CNP at t = 0, rate increase timer every
           rp_time_reset us, alpha timer every rp_dce_tcp_rtt us, bytes
           sent at the current rate); the acceptance scenario compares it
           with the vroce:* rate tracepoint
  run      replay an explicit event list (the format check.py feeds to
           the C harness) and print one line per event
  knobs    the knob table (name, unit, min, max, default, flavours)
  kunit    C tables for drivers/vroce/tests/dcqcn_test.c

Units: rates kb/s; knob rates Mb/s; alpha 2^-20 (the knobs rp_dce_tcp_g
and rp_initial_alpha_value are 1/1024, as mlx5's: alpha keeps ten more
bits, or truncation would take one unit off every decay and hold alpha
far below its value under steady marking); rp_byte_reset in 64-byte units;
times in microseconds.
"""

import argparse
import sys

ONE = 1024            # 1.0 in the knobs' unit (1/1024)
AONE = 1 << 20        # alpha 1.0
KNOB_TO_ALPHA = 10    # alpha = knob << KNOB_TO_ALPHA
BYTE_UNIT = 64        # rp_byte_reset unit
RATE_MAX = 1600000    # Mb/s, upper bound of rate knobs
U32 = 2**32 - 1

# name: (unit, min, max, default, flavours)
KNOBS = [
    ("rp_clamp_tgt_rate", "bool", 0, 1, 0, "nvidia"),
    ("rp_clamp_tgt_rate_ati", "bool", 0, 1, 1, "nvidia"),
    ("rp_time_reset", "us", 1, 131071, 300, "both"),
    ("rp_byte_reset", "64 bytes", 0, 2**24 - 1, 32767, "both"),
    ("rp_threshold", "count", 1, 31, 1, "both"),
    ("rp_ai_rate", "Mb/s", 1, RATE_MAX, 5, "both"),
    ("rp_max_rate", "Mb/s", 0, RATE_MAX, 0, "both"),
    ("rp_hai_rate", "Mb/s", 1, RATE_MAX, 50, "both"),
    ("rp_min_dec_fac", "%", 0, 100, 50, "nvidia"),
    ("rp_min_rate", "Mb/s", 1, RATE_MAX, 1, "both"),
    ("rp_rate_to_set_on_first_cnp", "Mb/s", 0, RATE_MAX, 0, "nvidia"),
    ("rp_dce_tcp_g", "1/1024", 0, 1023, 1019, "both"),
    ("rp_dce_tcp_rtt", "us", 1, 131071, 1, "both"),
    ("rp_rate_reduce_monitor_period", "us", 1, U32, 4, "nvidia"),
    ("rp_initial_alpha_value", "1/1024", 0, 1023, 1023, "nvidia"),
    ("rp_gd", "shift", 0, 31, 11, "nvidia"),
    ("np_min_time_between_cnps", "us", 0, 4095, 4, "both"),
    ("np_cnp_dscp", "DSCP", 0, 63, 48, "both"),
    ("np_cnp_prio_mode", "bool", 0, 1, 0, "both"),
    ("np_cnp_prio", "PCP", 0, 7, 6, "both"),
]

# The paper's values (SIGCOMM 2015, section 5 / table): F, T, B, g, R_AI,
# K, N.  The paper has no R_HAI.
PAPER = {
    "rp_threshold": 5,
    "rp_time_reset": 55,
    "rp_byte_reset": 10000000 // BYTE_UNIT,
    "rp_dce_tcp_g": 1024 - 1024 // 256,
    "rp_ai_rate": 40,
    "rp_dce_tcp_rtt": 55,
    "np_min_time_between_cnps": 50,
}


def defaults(preset="mlx5"):
    k = {n: d for (n, _u, _lo, _hi, d, _f) in KNOBS}
    if preset == "paper":
        k.update(PAPER)
    return k


def valid(name, val):
    for (n, _u, lo, hi, _d, _f) in KNOBS:
        if n == name:
            return lo <= val <= hi
    return False


class RP:
    """State shared by both flavours; rates kb/s."""

    def __init__(self, knobs, line_kbps):
        self.k = knobs
        self.line = line_kbps if line_kbps else U32
        self.top = self.line
        if knobs["rp_max_rate"]:
            self.top = min(self.line, knobs["rp_max_rate"] * 1000)
        self.floor = min(knobs["rp_min_rate"] * 1000, self.top)
        self.rc = self.top
        self.rt = self.top
        self.limited = False
        self.tstage = 0
        self.bstage = 0
        self.sent = 0

    def counters_reset(self):
        self.tstage = 0
        self.bstage = 0
        self.sent = 0

    # One increase; the caller has counted the stage.  'src' is "timer"
    # or "bytes".
    def raise_rate(self, src):
        F = self.k["rp_threshold"]
        both_above = self.tstage > F and self.bstage > F
        one_reached = self.tstage >= F or self.bstage >= F
        if both_above:
            phase = "hai"
            step = self.hai_step(min(self.tstage, self.bstage) - F)
        elif one_reached:
            phase = "ai"
            step = self.k["rp_ai_rate"] * 1000
        else:
            phase = "fr"
            step = 0
        self.rt = min(self.rt + step, self.top)
        # (RC + RT) / 2, rounded up so that RC reaches RT.
        s = self.rc + self.rt
        self.rc = s // 2 + s % 2
        if self.rc >= self.top:
            self.rc = self.top
            self.rt = self.top
            self.limited = False
            self.sent = 0
        return src + "_" + phase

    def timer(self):
        if not self.limited:
            return "none"
        self.tstage += 1
        self.on_timer_inc()
        return self.raise_rate("timer")

    def on_timer_inc(self):
        pass

    def bytes(self, n):
        period = self.k["rp_byte_reset"] * BYTE_UNIT
        if not self.limited or period == 0:
            return "none"
        self.sent += n
        if self.sent < period:
            return "none"
        self.sent -= period
        self.bstage += 1
        return self.raise_rate("bytes")


def decay(alpha, g):
    """alpha * g / 1024 (g: the knob), truncated."""
    return alpha * g // ONE


def decay_n(alpha, g, n):
    """n decays by g without a CNP: alpha * (g / 1024)^n, the power in Q32
    (2^32 = 1.0) by binary exponentiation, each product truncated."""
    result, base = 1 << 32, g << 22
    while n and result:
        if n & 1:
            result = (result * base) >> 32
        base = (base * base) >> 32
        n >>= 1
    return (alpha * result) >> 32


def gain(g):
    """1 - g, in alpha's unit."""
    return (ONE - g) << KNOB_TO_ALPHA


class Paper(RP):
    def __init__(self, knobs, line_kbps):
        super().__init__(knobs, line_kbps)
        self.alpha = AONE           # the paper starts at alpha = 1

    def hai_step(self, i):
        return i * self.k["rp_hai_rate"] * 1000

    def cnp(self, now):
        g = self.k["rp_dce_tcp_g"]
        # RT = RC; RC = RC (1 - alpha/2); alpha = (1-g) alpha + g
        self.rt = min(self.rc, self.top)
        cut = self.rt * self.alpha // (2 * AONE)
        self.rc = max(self.rt - cut, self.floor)
        self.alpha = decay(self.alpha, g) + gain(g)
        self.limited = True
        self.counters_reset()
        return "cnp"

    def alpha_timer(self, periods):
        # K us without a CNP: alpha = (1-g) alpha, limited or not.
        before = self.alpha
        self.alpha = decay_n(self.alpha, self.k["rp_dce_tcp_g"], periods)
        return "alpha_down" if self.alpha != before else "none"


class Nvidia(RP):
    def __init__(self, knobs, line_kbps):
        super().__init__(knobs, line_kbps)
        self.alpha = knobs["rp_initial_alpha_value"] << KNOB_TO_ALPHA
        self.cnp_seen = False       # a CNP since the last alpha update
        self.timer_raised = False   # a timer increase since the last cut
        self.cut_at = 0

    def hai_step(self, _i):
        return self.k["rp_hai_rate"] * 1000

    def on_timer_inc(self):
        self.timer_raised = True

    def counters_reset(self):
        super().counters_reset()
        self.timer_raised = False

    def cnp(self, now):
        k = self.k
        self.cnp_seen = True
        if not self.limited:
            # First CNP: alpha from the knob; RC and RT from the maximum.
            self.alpha = k["rp_initial_alpha_value"] << KNOB_TO_ALPHA
            self.rc = self.rt = self.top
            first = k["rp_rate_to_set_on_first_cnp"] * 1000
            if first:
                r = min(max(first, self.floor), self.top)
                self.rc = self.rt = r
                self.limited = True
                self.cut_at = now
                self.counters_reset()
                return "cnp_first_set"
        else:
            if now - self.cut_at < k["rp_rate_reduce_monitor_period"]:
                # Batched: no second cut within the period; increases
                # start over.
                self.counters_reset()
                return "cnp_coalesced"
            if k["rp_clamp_tgt_rate"] or (k["rp_clamp_tgt_rate_ati"] and
                                          self.timer_raised):
                self.rt = self.rc
        self.rt = min(self.rt, self.top)
        rc = min(self.rc, self.top)
        by_alpha = (rc * self.alpha) >> (k["rp_gd"] + KNOB_TO_ALPHA)
        at_most = rc * (100 - k["rp_min_dec_fac"]) // 100
        self.rc = max(rc - min(by_alpha, at_most), self.floor)
        self.limited = True
        self.cut_at = now
        self.counters_reset()
        return "cnp"

    def alpha_timer(self, periods):
        if not self.limited or periods == 0:
            return "none"
        g = self.k["rp_dce_tcp_g"]
        before = self.alpha
        why = None
        if self.cnp_seen:
            self.cnp_seen = False
            self.alpha = decay(self.alpha, g) + gain(g)
            why = "alpha_up"
            periods -= 1
        self.alpha = decay_n(self.alpha, g, periods)
        if why:
            return why
        return "alpha_down" if self.alpha != before else "none"


def make_rp(flavour, knobs, line_kbps):
    return (Paper if flavour == "paper" else Nvidia)(knobs, line_kbps)


def line_of(rp, ev, arg, why):
    return "%s %d %s %d %d %d %d" % (ev, arg, why, rp.rc, rp.rt, rp.alpha,
                                     1 if rp.limited else 0)


def apply(rp, ev, arg):
    if ev == "cnp":
        return rp.cnp(arg)
    if ev == "timer":
        return rp.timer()
    if ev == "bytes":
        return rp.bytes(arg)
    if ev == "alpha":
        return rp.alpha_timer(arg)
    raise ValueError("unknown event " + ev)


def run(flavour, knobs, line_kbps, events):
    """events: [(name, arg)]; returns the output lines."""
    rp = make_rp(flavour, knobs, line_kbps)
    return [line_of(rp, ev, arg, apply(rp, ev, arg)) for (ev, arg) in events]


def timeline(flavour, knobs, line_kbps, steps, pkt_bytes=0):
    """One CNP at t = 0, then 'steps' rate increase timer periods.

    Between two timer events the alpha timer's periods elapse (one call
    with their count, just before the timer event at the same instant)
    and, if pkt_bytes > 0, the flow sends at its current rate in packets
    of pkt_bytes.  Returns [(t_us, event, arg, why, rc, rt, alpha)] for
    every event that changed something.
    """
    rp = make_rp(flavour, knobs, line_kbps)
    out = []

    def note(t, ev, arg):
        why = apply(rp, ev, arg)
        if why != "none":
            out.append((t, ev, arg, why, rp.rc, rp.rt, rp.alpha))

    note(0, "cnp", 0)
    T = knobs["rp_time_reset"]
    K = knobs["rp_dce_tcp_rtt"]
    millibits = 0       # sent but not yet a whole packet, 1e-3 bit
    for step in range(1, steps + 1):
        t = step * T
        if pkt_bytes:
            # rc kb/s for T us is rc * T millibits
            millibits += rp.rc * T
            pkts, millibits = divmod(millibits, pkt_bytes * 8000)
            for _ in range(pkts):
                if not rp.limited:
                    break
                note(t, "bytes", pkt_bytes)
        periods = (t // K) - ((t - T) // K)
        note(t, "alpha", periods)
        note(t, "timer", 0)
        if not rp.limited:
            break
    return out


def parse_knobs(pairs, preset):
    k = defaults(preset)
    for p in pairs or []:
        n, v = p.split("=", 1)
        if n not in k:
            sys.exit("unknown knob " + n)
        v = int(v, 0)
        if not valid(n, v):
            sys.exit("%s=%d out of range" % (n, v))
        k[n] = v
    return k


def read_events(f):
    """The harness format: flavour/line/knob/event lines, 'end'."""
    flavour, line, knobs, events = "nvidia", 0, defaults(), []
    for raw in f:
        w = raw.split()
        if not w or w[0].startswith("#"):
            continue
        if w[0] == "flavour":
            flavour = w[1]
        elif w[0] == "line":
            line = int(w[1])
        elif w[0] == "knob":
            knobs[w[1]] = int(w[2])
        elif w[0] == "event":
            events.append((w[1], int(w[2]) if len(w) > 2 else 0))
        elif w[0] == "end":
            break
    return flavour, knobs, line, events


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("trace", help="one CNP and the recovery after it")
    t.add_argument("--flavour", choices=["nvidia", "paper"], default="nvidia")
    t.add_argument("--preset", choices=["mlx5", "paper"],
                   help="knob defaults (default: the flavour's)")
    t.add_argument("--line-mbps", type=int, default=40000)
    t.add_argument("--steps", type=int, default=30)
    t.add_argument("--pkt-bytes", type=int, default=0,
                   help="also count bytes sent at the current rate")
    t.add_argument("knob", nargs="*", help="name=value")
    sub.add_parser("run", help="replay harness-format events on stdin")
    sub.add_parser("knobs", help="the knob table")
    sub.add_parser("kunit", help="C tables for tests/dcqcn_test.c")
    a = ap.parse_args()

    if a.cmd == "trace":
        preset = a.preset or ("paper" if a.flavour == "paper" else "mlx5")
        knobs = parse_knobs(a.knob, preset)
        print("# flavour=%s line=%d kb/s %s" % (a.flavour, a.line_mbps * 1000,
              " ".join("%s=%d" % kv for kv in sorted(knobs.items()))))
        print("# t_us event arg reason rc_kbps rt_kbps alpha (2^-20)")
        for row in timeline(a.flavour, knobs, a.line_mbps * 1000, a.steps,
                            a.pkt_bytes):
            print("%d %s %d %s %d %d %d" % row)
    elif a.cmd == "run":
        flavour, knobs, line, events = read_events(sys.stdin)
        for ln in run(flavour, knobs, line, events):
            print(ln)
    elif a.cmd == "knobs":
        for (n, u, lo, hi, d, f) in KNOBS:
            print("%s|%s|%d|%d|%d|%s" % (n, u, lo, hi, d, f))
    elif a.cmd == "kunit":
        import scenarios
        scenarios.emit_kunit(sys.modules[__name__])


if __name__ == "__main__":
    main()
