# SPDX-License-Identifier: GPL-2.0
"""Event sequences both check.py (model vs the kernel code in userspace)
and the KUnit tables (dcqcn_model.py kunit) are made of.

A scenario: name, flavour, knob preset, knob overrides, line rate (kb/s),
events [(event, arg)]; event is cnp (arg: time in us), timer, bytes (arg:
bytes) or alpha (arg: periods).
"""

import random

G40 = 40000000      # 40 Gb/s in kb/s
G1 = 1000000


def recover(periods, n):
    """n times: 'periods' alpha periods, then the rate increase timer."""
    ev = []
    for _ in range(n):
        ev += [("alpha", periods), ("timer", 0)]
    return ev


def sc(name, flavour, events, knobs=None, line=G40, preset=None):
    return {
        "name": name,
        "flavour": flavour,
        "preset": preset or ("paper" if flavour == "paper" else "mlx5"),
        "knobs": knobs or {},
        "line": line,
        "events": events,
    }


def fuzz(seed, flavour, knobs, n=1500, line=G40):
    r = random.Random(seed)
    t = 0
    ev = []
    for _ in range(n):
        x = r.random()
        if x < 0.12:
            t += r.choice([1, 2, 3, 5, 8, 50, 300])
            ev.append(("cnp", t))
        elif x < 0.45:
            t += 1
            ev.append(("timer", 0))
        elif x < 0.75:
            ev.append(("bytes", r.choice([64, 1024, 4096, 9000, 65536])))
        else:
            ev.append(("alpha", r.choice([0, 1, 1, 2, 7, 55, 300, 5000])))
    return sc("fuzz_%s_%d" % (flavour, seed), flavour, ev, knobs, line)


def all_scenarios():
    s = []
    # nvidia, mlx5 defaults: one CNP, recovery every rp_time_reset (300
    # alpha periods of 1 us each) until released.
    s.append(sc("nv_default", "nvidia",
                [("cnp", 0)] + recover(300, 40)))
    # Monitor period 4 us: CNPs at 0,2,3 coalesce; 4 cuts; 6 coalesces.
    s.append(sc("nv_monitor", "nvidia",
                [("cnp", 0), ("cnp", 2), ("cnp", 3), ("alpha", 1),
                 ("cnp", 4), ("cnp", 6), ("alpha", 3), ("cnp", 20),
                 ("timer", 0), ("cnp", 21), ("timer", 0), ("timer", 0)]))
    # Clamp rules: ati (default on) after a timer increase, not after a
    # byte counter one; rp_clamp_tgt_rate always.
    ati = [("cnp", 0), ("alpha", 10), ("timer", 0), ("cnp", 100),
           ("alpha", 10), ("bytes", 1024), ("bytes", 1024), ("cnp", 200),
           ("alpha", 10), ("timer", 0), ("timer", 0), ("cnp", 300)]
    s.append(sc("nv_ati", "nvidia", ati, {"rp_byte_reset": 16}))
    s.append(sc("nv_no_clamp", "nvidia", ati,
                {"rp_byte_reset": 16, "rp_clamp_tgt_rate_ati": 0}))
    s.append(sc("nv_clamp", "nvidia", ati,
                {"rp_byte_reset": 16, "rp_clamp_tgt_rate": 1,
                 "rp_clamp_tgt_rate_ati": 0}))
    # Stages: AI then HAI with a small byte counter (16 * 64 bytes).
    ev = [("cnp", 0)]
    for _ in range(6):
        ev += [("bytes", 600), ("bytes", 600), ("timer", 0), ("alpha", 300)]
    s.append(sc("nv_hai", "nvidia", ev,
                {"rp_byte_reset": 16, "rp_threshold": 2}))
    # First CNP sets 10 Gb/s; a later one cuts from there.
    s.append(sc("nv_first_set", "nvidia",
                [("cnp", 0), ("alpha", 300), ("timer", 0), ("cnp", 400),
                 ("alpha", 1), ("timer", 0)],
                {"rp_rate_to_set_on_first_cnp": 10000}))
    # A CNP every 10 us drives the rate to rp_min_rate (100 Mb/s).
    ev = []
    for i in range(40):
        ev += [("cnp", 10 * i), ("alpha", 10)]
    s.append(sc("nv_to_min", "nvidia", ev, {"rp_min_rate": 100}, line=G1))
    # Larger cut (gd 8) limited by min_dec_fac; min_dec_fac 100: no cut.
    s.append(sc("nv_gd8", "nvidia",
                [("cnp", 0), ("alpha", 5), ("cnp", 5), ("alpha", 5),
                 ("cnp", 10)], {"rp_gd": 8, "rp_min_dec_fac": 30}))
    s.append(sc("nv_no_dec", "nvidia",
                [("cnp", 0), ("alpha", 5), ("cnp", 5), ("timer", 0)],
                {"rp_min_dec_fac": 100}))
    # rp_max_rate below the line rate; line rate 0 = unknown.
    s.append(sc("nv_max_rate", "nvidia", [("cnp", 0)] + recover(300, 30),
                {"rp_max_rate": 10000, "rp_ai_rate": 500}))
    s.append(sc("nv_line0", "nvidia", [("cnp", 0)] + recover(1, 5),
                line=0))
    # Byte counter disabled.
    s.append(sc("nv_bytes_off", "nvidia",
                [("cnp", 0), ("bytes", 10**9), ("timer", 0)],
                {"rp_byte_reset": 0}))
    # Paper: one CNP from alpha = 1, recovery every T = K = 55 us.
    s.append(sc("paper_default", "paper", [("cnp", 0)] + recover(1, 40)))
    # Paper hyper increase: small B so both stages pass F = 5.
    ev = [("cnp", 0)]
    for _ in range(9):
        ev += [("bytes", 1024), ("timer", 0), ("alpha", 1)]
    s.append(sc("paper_hai", "paper", ev, {"rp_byte_reset": 16}))
    # Paper: repeated CNPs raise alpha towards 1; idle decay when not
    # limited.
    ev = [("cnp", 0), ("alpha", 1), ("cnp", 50), ("cnp", 100),
          ("alpha", 3), ("cnp", 300)] + recover(1, 40) + [("alpha", 2000),
                                                          ("cnp", 9000)]
    s.append(sc("paper_repeat", "paper", ev))
    s.append(sc("paper_mlx5_knobs", "paper", [("cnp", 0)] + recover(300, 8),
                preset="mlx5"))
    for seed in range(1, 5):
        s.append(fuzz(seed, "nvidia", {"rp_byte_reset": 64}))
        s.append(fuzz(seed, "paper", {"rp_byte_reset": 64}))
    s.append(fuzz(7, "nvidia", {"rp_clamp_tgt_rate": 1, "rp_gd": 9,
                                "rp_threshold": 3, "rp_byte_reset": 8,
                                "rp_min_rate": 50, "rp_max_rate": 25000},
                  line=G1 * 25))
    s.append(fuzz(8, "paper", {"rp_threshold": 2, "rp_byte_reset": 8,
                               "rp_hai_rate": 300, "rp_min_rate": 50},
                  line=G1 * 25))
    return s


def knobs_of(model, s):
    k = model.defaults(s["preset"])
    k.update(s["knobs"])
    return k


def harness_input(model, s):
    """The scenario in the C harness's stdin format."""
    out = ["flavour " + s["flavour"], "line %d" % s["line"]]
    for (n, v) in sorted(knobs_of(model, s).items()):
        out.append("knob %s %d" % (n, v))
    for (ev, arg) in s["events"]:
        out.append("event %s %d" % (ev, arg))
    out.append("end")
    return "\n".join(out) + "\n"


# The scenarios the KUnit suite carries, and how many steps of each.
KUNIT = [("nv_default", 30), ("nv_monitor", 99), ("nv_ati", 99),
         ("nv_no_clamp", 99), ("nv_clamp", 99), ("nv_hai", 99),
         ("nv_first_set", 99), ("nv_to_min", 99), ("nv_gd8", 99),
         ("nv_no_dec", 99), ("nv_max_rate", 20), ("paper_default", 30),
         ("paper_hai", 99), ("paper_repeat", 99)]

EV_C = {"cnp": "EV_CNP", "timer": "EV_TIMER", "bytes": "EV_BYTES",
        "alpha": "EV_ALPHA"}


def reason_c(why):
    special = {"cnp": "CNP_CUT"}
    return "VROCE_DCQCN_" + special.get(why, why.upper())


def emit_kunit(model):
    byname = {s["name"]: s for s in all_scenarios()}
    print("/* BEGIN dcqcn_model.py kunit */")
    print()
    print("static const struct dcqcn_knob_range dcqcn_ranges[] = {")
    for (n, _u, lo, hi, d, _f) in model.KNOBS:
        print("\t{ VROCE_DCQCN_K_%s,\n\t  \"%s\", %d, %dU, %d }," %
              (n.upper(), n, lo, hi, d))
    print("};")
    names = []
    for (name, n) in KUNIT:
        s = byname[name]
        k = knobs_of(model, s)
        # The test starts from the flavour's preset.
        assert s["preset"] == ("paper" if s["flavour"] == "paper" else "mlx5")
        base = model.defaults(s["preset"])
        events = s["events"][:n]
        rows = model.run(s["flavour"], k, s["line"], events)
        cname = name
        print()
        print("static const struct dcqcn_knob_val %s_knobs[] = {" % cname)
        for (kn, v) in sorted(k.items()):
            if base[kn] != v:
                print("\t{ VROCE_DCQCN_K_%s, %d }," % (kn.upper(), v))
        print("\t{ VROCE_DCQCN_NR_KNOBS, 0 }")
        print("};")
        print()
        print("static const struct dcqcn_step %s_steps[] = {" % cname)
        for row in rows:
            ev, arg, why, rc, rt, alpha, lim = row.split()
            print("\t{ %s, %s, %s, %s, %s, %s, %s }," %
                  (EV_C[ev], arg, reason_c(why), rc, rt, alpha,
                   "true" if lim == "1" else "false"))
        print("};")
        names.append((cname, s))
    print()
    print("static const struct dcqcn_case dcqcn_cases[] = {")
    for (cname, s) in names:
        fl = "VROCE_DCQCN_PAPER" if s["flavour"] == "paper" else \
            "VROCE_DCQCN_NVIDIA"
        print("\tCASE(%s, %s, %d)," % (cname, fl, s["line"]))
    print("};")
    print()
    print("/* END dcqcn_model.py kunit */")
