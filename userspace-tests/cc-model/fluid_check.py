#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare a QP's steady DCQCN rate with theory: the fluid model's fixed
point, and a discrete-event simulation of the same algorithm.

  fluid_check.py KNOBS TRACE --qpn N --p P --tau-us N_US --pkt-bytes B
                 [--tolerance 0.15] [--wire-bytes S --wire-secs T]

KNOBS is the reaction point's cc/ dump (as trace_check.py reads it), TRACE
ftrace text holding the QP's vroce:vroce_cc_rate lines and two
trace_marker lines, "fluid_start" and "fluid_end", that bound the window
the rate is averaged over.  The rate of the QP is a step function: the
rate of its last step before a time holds until the next step.  Its time
average over the window (rate kb/s weighted by the time it held) is the
measured steady rate.  Two theories for the same knobs, marking
probability P per packet, CNP interval tau = np_min_time_between_cnps of
the notification point (--tau-us: the receiver's knob), and packets of B
frame bytes (what the pacer counts):
  - fluid.py's fixed point (the paper's fluid model), reported;
  - marksim.py, the discrete flow: dcqcn_model's paper reaction point fed
    by packets at its own rate, each marked with probability P, a CNP for
    a mark at least tau after the last; the mean of SIM_SEEDS runs of
    SIM_SECS.  The measured rate must be within --tolerance of it.
Why not the fluid model alone: the discrete algorithm itself runs 10-30 %
above the fluid fixed point, at these knobs and at the paper's own (40
Gb/s, T 55 us), because the model's mean-field increase and cut terms
are not the mean of a flow that is cut by a random ~10 % at each CNP and
climbs back in steps (Documentation/congestion-control.md, experiment 3).
Neither theory has a byte counter stage nor hyper increase: the knobs
must have rp_byte_reset 0 (no byte counter, hence no hyper increase
either, which needs both stages past rp_threshold).

With --wire-bytes/--wire-secs (the frame bytes the sender put on the
wire in the window, e.g. the receiving veth's rx_bytes), also reports
what the QP actually sent, and fails when it is below 85 % of the average
rate: a sender that cannot fill its rate is not the experiment (it sees
fewer marks than its rate makes, and its rate climbs).

Prints the numbers and a last line "fluid_check: PASS ..." or
"fluid_check: FAIL ..."; exits 0 or 1.
"""

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import fluid  # noqa: E402
import marksim  # noqa: E402
import trace_check  # noqa: E402

MARK_RE = re.compile(r"\s(\d+)\.(\d+):\s+tracing_mark_write:\s+(fluid_\w+)")
# What a sender must move of its average rate to count as backlogged.
MIN_FILL = 0.85
# The simulation: its runs (seeds 1..SIM_SEEDS) and their length, s (the
# mean is over each run's second half).
SIM_SEEDS = 4
SIM_SECS = 30


def markers(lines):
    """{name: t_us} of the fluid_* trace_marker lines."""
    out = {}
    for raw in lines:
        m = MARK_RE.search(raw)
        if m:
            out[m.group(3)] = int(m.group(1)) * 1000000 + \
                int((m.group(2) + "000000")[:6])
    return out


def mean_rate(rows, t0, t1):
    """Time-weighted mean of the step function rows over [t0, t1], kb/s,
    and the number of steps inside the window."""
    rate = None
    for t, r in rows:
        if t > t0:
            break
        rate = r["rate"]
    if rate is None:
        raise ValueError("no vroce_cc_rate step before fluid_start")
    area, at, steps = 0, t0, 0
    for t, r in rows:
        if t <= t0:
            continue
        if t >= t1:
            break
        area += rate * (t - at)
        at, rate = t, r["rate"]
        steps += 1
    area += rate * (t1 - at)
    return area / (t1 - t0), steps


def model_knobs(knobs, line_kbps, tau_us, pkt_bytes):
    """fluid.py's parameter set (packets/s, s) for the kernel's knobs."""
    to_pps = 1000.0 / (8 * pkt_bytes)           # kb/s -> packets/s
    return {
        "C": line_kbps * to_pps,
        "F": knobs["rp_threshold"],
        "T": knobs["rp_time_reset"] * 1e-6,
        "B": 1e18,
        "R_AI": knobs["rp_ai_rate"] * 1000 * to_pps,
        "g": 1 - knobs["rp_dce_tcp_g"] / 1024.0,
        "tau": tau_us * 1e-6,
        "taup": knobs["rp_dce_tcp_rtt"] * 1e-6,
    }, to_pps


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("knobs")
    ap.add_argument("trace")
    ap.add_argument("--qpn", type=lambda s: int(s, 0), required=True)
    ap.add_argument("--p", type=float, required=True)
    ap.add_argument("--tau-us", type=float, required=True)
    ap.add_argument("--pkt-bytes", type=float, required=True)
    ap.add_argument("--tolerance", type=float, default=0.15)
    ap.add_argument("--wire-bytes", type=float)
    ap.add_argument("--wire-secs", type=float)
    a = ap.parse_args()

    with open(a.knobs) as f:
        flavour, line_kbps, knobs = trace_check.parse_knobs(f)
    with open(a.trace) as f:
        lines = f.readlines()
    fails = []
    if flavour != "paper":
        fails.append("flavour %s: the fluid model is the paper's" % flavour)
    if knobs["rp_byte_reset"] != 0:
        fails.append("rp_byte_reset %d: the model has no byte counter" %
                     knobs["rp_byte_reset"])
    mk = markers(lines)
    if "fluid_start" not in mk or "fluid_end" not in mk:
        print("fluid_check: FAIL no fluid_start/fluid_end markers in %s" %
              a.trace)
        return 1
    t0, t1 = mk["fluid_start"], mk["fluid_end"]
    rows = trace_check.parse_trace(lines, a.qpn)
    measured, steps = mean_rate(rows, t0, t1)

    k, to_pps = model_knobs(knobs, line_kbps, a.tau_us, a.pkt_bytes)
    rc, rt, alpha = fluid.fixed_point(a.p, k)
    fluid_kbps = rc / to_pps
    runs = [marksim.simulate(a.p, knobs, line_kbps, a.tau_us, a.pkt_bytes,
                             SIM_SECS, seed) * 1000
            for seed in range(1, SIM_SEEDS + 1)]
    sim_kbps = sum(runs) / len(runs)
    err = measured / sim_kbps - 1
    ferr = measured / fluid_kbps - 1
    print("window %.3f s, %d rate steps of QP %d" %
          ((t1 - t0) / 1e6, steps, a.qpn))
    print("p %.3f: mean rate %.0f kb/s; simulation %.0f kb/s (runs %s): "
          "%+.1f %%; fluid model %.0f kb/s (target %.0f, alpha %.4f): "
          "%+.1f %%" %
          (a.p, measured, sim_kbps, " ".join("%.0f" % r for r in runs),
           100 * err, fluid_kbps, rt / to_pps, alpha, 100 * ferr))
    if steps < 20:
        fails.append("%d rate steps in the window: not a steady state" %
                     steps)
    if abs(err) > a.tolerance:
        fails.append("mean rate %.0f kb/s is %+.1f %% off the simulation's "
                     "%.0f (fluid model %.0f)" %
                     (measured, 100 * err, sim_kbps, fluid_kbps))
    sent = ""
    if a.wire_bytes is not None and a.wire_secs:
        wire = a.wire_bytes * 8 / a.wire_secs / 1000
        sent = ", sent %.0f kb/s (%.2f of the rate)" % (wire,
                                                       wire / measured)
        print("sent on the wire: %.0f kb/s, %.2f of the mean rate" %
              (wire, wire / measured))
        if wire < MIN_FILL * measured:
            fails.append("the QP sent %.0f kb/s, below %d %% of its rate: "
                         "not backlogged" % (wire, 100 * MIN_FILL))
    if fails:
        print("fluid_check: FAIL " + "; ".join(fails))
        return 1
    print("fluid_check: PASS p %.2f rate %.0f kb/s, simulation %.0f "
          "(%+.1f %%), fluid model %.0f (%+.1f %%)%s" %
          (a.p, measured, sim_kbps, 100 * err, fluid_kbps, 100 * ferr,
           sent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
