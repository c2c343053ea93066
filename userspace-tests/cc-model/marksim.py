#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Discrete-event simulation of one backlogged DCQCN flow (paper flavour)
under a fixed per-packet marking probability: what a faithful
implementation of the reaction point (dcqcn_model.Paper, the kernel's own
fixed-point steps) and of vroce's notification point (a CNP for a marked
packet at least tau after the last CNP's mark) does, with nothing of
the fluid model's approximations.  The fluid model (fluid.py) assumes the
increase timer and byte counter restart at every marked packet and CNPs
come as "any mark in a window of tau"; with few packets per tau the
minimum gap between CNPs lets more increase steps through than that.

  marksim.py --p 0.01 --tau-us 4000 [--T-us 4000 --taup-us 4000 ...]
  marksim.py --scan     the simulation against fluid.py's fixed point
                        for p = 1, 5, 20 % over 96 knob sets (T, K 0.5-8
                        ms, tau 0-1 ms, R_AI 1-2 Mb/s), closest first

Packets leave back to back at the current rate (no pacing jitter); the
rate increase timer fires every T after the last CNP, the alpha timer's
periods count from the last CNP, as in drivers/vroce/cc/dcqcn_algo.c.  Prints the
time-weighted mean rate over the second half of the run, Mb/s.
"""

import argparse
import random

import dcqcn_model as model
import fluid


def simulate(p, knobs, line_kbps, tau_us, pkt_bytes, secs, seed=1):
    rp = model.make_rp("paper", knobs, line_kbps)
    rnd = random.Random(seed)
    T, K = knobs["rp_time_reset"], knobs["rp_dce_tcp_rtt"]
    t = 0.0                    # us
    last_cnp = -1e18           # time of the last CNP's mark
    next_timer = None          # next rate increase timer event
    alpha_epoch = 0.0
    end = secs * 1e6
    half = end / 2
    area = 0.0
    while t < end:
        rate = rp.rc if rp.limited else rp.top
        dt = pkt_bytes * 8 * 1000.0 / rate     # us per packet
        # events due before this packet leaves
        while next_timer is not None and next_timer <= t + dt:
            n = int((next_timer - alpha_epoch) // K)
            if n:
                rp.alpha_timer(n)
                alpha_epoch += n * K
            rp.timer()
            next_timer = next_timer + T if rp.limited else None
        rate = rp.rc if rp.limited else rp.top
        dt = pkt_bytes * 8 * 1000.0 / rate
        if t + dt > half:
            area += rate * (t + dt - max(t, half))
        t += dt
        if rnd.random() < p and t - last_cnp >= tau_us:
            last_cnp = t
            n = int((t - alpha_epoch) // K)
            if n:
                rp.alpha_timer(n)
            rp.cnp(int(t))
            alpha_epoch = t
            next_timer = t + T
    return area / (end - half) / 1000.0


def scan(line_mbps, pkt_bytes):
    """Worst |simulation / fluid - 1| over p of each knob set, sorted."""
    to_pps = 1000.0 / (8 * pkt_bytes)           # kb/s -> packets/s
    rows = []
    for T in (1000, 2000, 4000, 8000):
        for K in (500, 1000, 2000, 4000):
            for tau in (0, 100, 1000):
                for ai in (1, 2):
                    k = model.defaults("paper")
                    k.update(rp_time_reset=T, rp_dce_tcp_rtt=K,
                             rp_ai_rate=ai, rp_byte_reset=0, rp_min_rate=1)
                    fk = {"C": line_mbps * 1000 * to_pps, "F": 5,
                          "T": T * 1e-6, "B": 1e18,
                          "R_AI": ai * 1000 * to_pps, "g": 4 / 1024,
                          "tau": max(tau, 1) * 1e-6, "taup": K * 1e-6}
                    pairs = []
                    for p in (0.01, 0.05, 0.2):
                        f = fluid.fixed_point(p, fk)[0] / to_pps / 1000
                        sim = sum(simulate(p, k, line_mbps * 1000, tau,
                                           pkt_bytes, 12, seed)
                                  for seed in (1, 2)) / 2
                        pairs.append((f, sim))
                    worst = max(abs(sim / f - 1) for f, sim in pairs)
                    rows.append((worst, T, K, tau, ai, pairs))
    for worst, T, K, tau, ai, pairs in sorted(rows):
        print("T %d K %d tau %d R_AI %d: worst %+.1f %%; fluid/simulation "
              "Mb/s %s" % (T, K, tau, ai, 100 * worst,
                           " ".join("%.1f/%.1f" % x for x in pairs)))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--p", type=float, nargs="+", default=[0.01, 0.05, 0.2])
    ap.add_argument("--tau-us", type=float, default=4000)
    ap.add_argument("--T-us", type=int, default=4000)
    ap.add_argument("--taup-us", type=int, default=4000)
    ap.add_argument("--ai-mbps", type=int, default=1)
    ap.add_argument("--g", type=int, default=1020, help="rp_dce_tcp_g")
    ap.add_argument("--F", type=int, default=5)
    ap.add_argument("--line-mbps", type=int, default=400)
    ap.add_argument("--pkt-bytes", type=float, default=1082.25)
    ap.add_argument("--secs", type=float, default=20)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--scan", action="store_true")
    a = ap.parse_args()
    if a.scan:
        scan(a.line_mbps, a.pkt_bytes)
        return
    k = model.defaults("paper")
    k.update(rp_time_reset=a.T_us, rp_dce_tcp_rtt=a.taup_us,
             rp_ai_rate=a.ai_mbps, rp_dce_tcp_g=a.g, rp_threshold=a.F,
             rp_byte_reset=0, rp_min_rate=1)
    for p in a.p:
        r = [simulate(p, k, a.line_mbps * 1000, a.tau_us, a.pkt_bytes,
                      a.secs, s) for s in range(1, a.seeds + 1)]
        print("p %.3f tau %g us: mean rate %s Mb/s" %
              (p, a.tau_us, " ".join("%.1f" % x for x in r)))


if __name__ == "__main__":
    main()
