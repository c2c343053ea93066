#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""DCQCN fluid model (Zhu et al., SIGCOMM 2015, section 5; the equations
as ../../../shared/reference/dcqcn.md writes them), paper flavour: the
steady-state rate of one flow whose packets are CE-marked with a fixed
probability p (acceptance scenario 3, vroce's ce_mark_permille on the
receiver).  Floating point: this is the theory side, not the driver.

Rates in packets/s inside the model (R = RC), times in s:
  a = 1 - (1-p)^(tau R)                 P(a CNP in a CNP interval)
  b = p / ((1-p)^-B - 1)                byte counter events per packet
  c = b (1-p)^(F B)                     ... past fast recovery
  d = p / ((1-p)^-(T R) - 1)            timer events per packet
  e = d (1-p)^(F T R)
  dRC/dt    = -RC alpha a / (2 tau) + (RT - RC)/2 R (b + d)
  dRT/dt    = -(RT - RC) a / tau + R_AI R (c + e)
  dalpha/dt = g / tau' ((1 - (1-p)^(tau' R)) - alpha)
At the fixed point alpha = 1 - (1-p)^(tau' R), RT - RC = tau R_AI R (c+e)/a,
and RC solves  f(R) = alpha a^2 - tau^2 R_AI R (c+e)(b+d) = 0, found by
bisection on (0, line rate]; f < 0 all the way means the increase wins
and the flow runs at the line rate.  The model has no hyper increase.
The result is checked by integrating the three equations from the line
rate until they settle.
"""

import argparse
import math


def terms(p, R, k):
    """a, b, c, d, e, alpha* at rate R (packets/s)."""
    lq = math.log1p(-p)                 # log(1 - p) < 0

    def per_event(n):                   # p / ((1-p)^-n - 1)
        x = -n * lq
        return 0.0 if x > 700 else p / math.expm1(x)

    a = -math.expm1(k["tau"] * R * lq)
    b = per_event(k["B"])
    c = b * math.exp(k["F"] * k["B"] * lq)
    d = per_event(k["T"] * R)
    e = d * math.exp(k["F"] * k["T"] * R * lq)
    alpha = -math.expm1(k["taup"] * R * lq)
    return a, b, c, d, e, alpha


def f(p, R, k):
    a, b, c, d, e, alpha = terms(p, R, k)
    return alpha * a * a - k["tau"] ** 2 * k["R_AI"] * R * (c + e) * (b + d)


def fixed_point(p, k):
    """(RC, RT, alpha) in packets/s at the fixed point."""
    C = k["C"]
    if f(p, C, k) <= 0:
        R = C
    else:
        lo, hi = C * 1e-9, C
        for _ in range(200):
            mid = math.sqrt(lo * hi)    # rates span decades
            if f(p, mid, k) > 0:
                hi = mid
            else:
                lo = mid
        R = math.sqrt(lo * hi)
    a, b, c, d, e, alpha = terms(p, R, k)
    RT = min(R + k["tau"] * k["R_AI"] * R * (c + e) / a, C)
    return R, RT, alpha


def integrate(p, k, seconds=2.0):
    """The ODE from RC = RT = C, alpha = 1; (RC, RT, alpha) at the end."""
    C = k["C"]
    rc, rt, al = C, C, 1.0
    dt = 1e-6
    for _ in range(int(seconds / dt)):
        a, b, c, d, e, astar = terms(p, rc, k)
        drc = -rc * al * a / (2 * k["tau"]) + (rt - rc) / 2 * rc * (b + d)
        drt = -(rt - rc) * a / k["tau"] + k["R_AI"] * rc * (c + e)
        dal = k["g"] / k["taup"] * (astar - al)
        rc = min(max(rc + drc * dt, 1.0), C)
        rt = min(max(rt + drt * dt, rc), C)
        al = min(max(al + dal * dt, 0.0), 1.0)
    return rc, rt, al


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--line-mbps", type=float, default=40000)
    ap.add_argument("--pkt-bytes", type=int, default=1000,
                    help="bytes per packet the rates count")
    ap.add_argument("--F", type=int, default=5, help="rp_threshold")
    ap.add_argument("--T-us", type=float, default=55, help="rp_time_reset")
    ap.add_argument("--B-bytes", type=float, default=10e6,
                    help="rp_byte_reset * 64")
    ap.add_argument("--ai-mbps", type=float, default=40, help="rp_ai_rate")
    ap.add_argument("--g", type=float, default=1 / 256,
                    help="1 - rp_dce_tcp_g / 1024")
    ap.add_argument("--tau-us", type=float, default=50,
                    help="CNP interval, np_min_time_between_cnps")
    ap.add_argument("--taup-us", type=float, default=55,
                    help="alpha timer, rp_dce_tcp_rtt (K)")
    ap.add_argument("--p", type=float, nargs="*", default=[0.01, 0.05, 0.20])
    ap.add_argument("--no-ode", action="store_true",
                    help="skip the (slow) integration check")
    a = ap.parse_args()

    to_pps = 1e6 / (8 * a.pkt_bytes)    # Mb/s -> packets/s
    k = {
        "C": a.line_mbps * to_pps,
        "F": a.F,
        "T": a.T_us * 1e-6,
        "B": a.B_bytes / a.pkt_bytes,
        "R_AI": a.ai_mbps * to_pps,
        "g": a.g,
        "tau": a.tau_us * 1e-6,
        "taup": a.taup_us * 1e-6,
    }
    print("# DCQCN fluid model, paper flavour: line %.0f Mb/s, %d-byte "
          "packets, F %d, T %g us, B %g bytes, R_AI %g Mb/s, g %g, "
          "tau %g us, tau' %g us" %
          (a.line_mbps, a.pkt_bytes, a.F, a.T_us, a.B_bytes, a.ai_mbps,
           a.g, a.tau_us, a.taup_us))
    print("# p  rate_mbps  target_mbps  alpha  ode_rate_mbps  "
          "small_p_rate_mbps")
    for p in a.p:
        R, RT, al = fixed_point(p, k)
        # Small-p closed form: p^3 = R_AI (1/B + 1/(T R))^2 / (tau' R^2)
        lo, hi = k["C"] * 1e-9, k["C"] * 1e3
        for _ in range(200):
            mid = math.sqrt(lo * hi)
            rhs = k["R_AI"] * (1 / k["B"] + 1 / (k["T"] * mid)) ** 2 / \
                (k["taup"] * mid * mid)
            if rhs > p ** 3:
                lo = mid
            else:
                hi = mid
        small = min(mid, k["C"]) / to_pps
        if a.no_ode:
            ode = float("nan")
        else:
            ode = integrate(p, k)[0] / to_pps
        print("%.2f %.1f %.1f %.4f %.1f %.1f" %
              (p, R / to_pps, RT / to_pps, al, ode, small))


if __name__ == "__main__":
    main()
