#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare a vroce:vroce_cc_rate tracepoint stream with the reference model.

  trace_check.py check KNOBS TRACE --qpn N [--single-cnp]
  trace_check.py selftest

KNOBS is a dump of /sys/class/infiniband/<dev>/cc/ ("name value" per line:
flavour, line_rate and every rp_*/np_* knob; other lines are ignored).
TRACE is ftrace text (/sys/kernel/tracing/trace); only vroce_cc_rate lines
of QP N count.  Each line is one step the kernel took; its reason says which
event it was, and the checker replays the same event on dcqcn_model.py's
model and compares old_rate, rate, target and alpha exactly:

  cnp, cnp_first_set, cnp_coalesced   model.cnp(t)   (t: trace time, us)
  timer_fr, timer_ai, timer_hai       model.timer()
  bytes_fr, bytes_ai, bytes_hai       model.bytes(what completes a period)
  alpha_up, alpha_down                model.alpha_timer(n)

The kernel catches the alpha timer up lazily, before each event; the
number of periods n it applied is the tracepoint's arg.  Without an arg
it is inferred as the smallest n for which the model reaches the traced
alpha with the traced reason (alpha strictly falls with each period until
0, so n is unique while alpha > 0).  The periods must never add up to
more than the time elapsed since the first CNP (+ one period + 50 us).

--single-cnp (acceptance 2: one CE mark) also requires the stream to be
exactly one CNP step, then rate increase timer steps (and alpha steps)
until the rate is back at the maximum, and:
  - the (reason, rate, target, alpha) sequence of all steps equals the
    model's own timeline (dcqcn_model.timeline: the CNP at t = 0, a timer
    event every rp_time_reset, the alpha periods that ended by then just
    before it) step for step, including where the flow is released: the
    kernel steps each timer as of its due time, however late it fires;
  - no timer step comes more than SKEW_US (10 ms: the CNP's timestamp
    lags the kernel's clock read) before CNP + k * rp_time_reset, and the
    steps are not systematically later than the earliest (median
    lateness below --slack-us), and the median gap between timer
    steps is below rp_time_reset + --slack-us (default 2000).

Prints one line per step and a last line "trace_check: PASS ..." or
"trace_check: FAIL ..."; exits 0 or 1.
"""

import argparse
import copy
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import dcqcn_model as model  # noqa: E402

# VROCE_CC_UNLIMITED_KBPS: the maximum rate of a port without a line rate.
UNLIMITED_KBPS = 400000000
# Alpha (2^-20) falls by at least 1 per period while above 0: with g at
# most 1023/1024 about 8200 periods reach 0.
MAX_ALPHA_PERIODS = 9000
# How far the CNP's trace timestamp may run behind the clock read the
# kernel started the increase timer from (5 ms seen in a loaded TCG guest).
SKEW_US = 10000

LINE_RE = re.compile(r"\s(?P<ts>\d+\.\d+):\s+vroce_cc_rate:\s+(?P<rest>.*)$")
KV_RE = re.compile(r"(\w+)[=:]\s*\"?([^\s,\"]+)\"?")
FIELDS = ("qpn", "old_rate", "rate", "target", "alpha", "reason")


def parse_knobs(lines):
    """(flavour, line_kbps, knobs) from a cc/ dump."""
    vals = {}
    for raw in lines:
        w = raw.split(None, 1)
        if len(w) == 2:
            vals[w[0].strip().rstrip(":")] = w[1].strip()
    fl = vals.get("flavour", "")
    m = re.search(r"\[(\w+)\]", fl)
    fl = m.group(1) if m else fl
    if fl not in ("nvidia", "paper"):
        raise ValueError("knob dump: flavour %r" % vals.get("flavour"))
    if "line_rate" not in vals:
        raise ValueError("knob dump: no line_rate")
    line_mbps = int(vals["line_rate"], 0)
    knobs = {}
    for (name, _u, _lo, _hi, _d, _f) in model.KNOBS:
        if name not in vals:
            raise ValueError("knob dump: no %s" % name)
        knobs[name] = int(vals[name], 0)
    return fl, (line_mbps * 1000 if line_mbps else UNLIMITED_KBPS), knobs


def parse_trace(lines, qpn):
    """[(t_us, fields)] of the vroce_cc_rate lines of QP qpn."""
    out = []
    for raw in lines:
        m = LINE_RE.search(raw)
        if not m:
            continue
        f = dict(KV_RE.findall(m.group("rest")))
        missing = [k for k in FIELDS if k not in f]
        if missing:
            raise ValueError("trace line without %s: %s" %
                             (",".join(missing), raw.strip()))
        if int(f["qpn"], 0) != qpn:
            continue
        ts = m.group("ts")
        sec, frac = ts.split(".")
        t_us = int(sec) * 1000000 + int((frac + "000000")[:6])
        row = {k: int(f[k], 0) for k in FIELDS if k != "reason"}
        row["reason"] = f["reason"]
        row["arg"] = int(f["arg"], 0) if "arg" in f else None
        out.append((t_us, row))
    return out


def infer_alpha(rp, reason, alpha):
    """Smallest n: rp.alpha_timer(n) gives (reason, alpha); None if none."""
    for n in range(1, MAX_ALPHA_PERIODS + 1):
        c = copy.deepcopy(rp)
        if c.alpha_timer(n) == reason and c.alpha == alpha:
            return n, c
    return None, None


def check(flavour, line_kbps, knobs, rows, single_cnp=False, slack_us=2000):
    """Returns (ok, [message lines])."""
    msgs = []
    fail = []
    rp = model.make_rp(flavour, knobs, line_kbps)
    K = knobs["rp_dce_tcp_rtt"]
    T = knobs["rp_time_reset"]
    t_cnp = None
    periods = 0
    timer_ts = []
    steps = []          # (reason, rc, rt, alpha) of every step
    ncnp = 0
    if not rows:
        return False, ["no vroce_cc_rate line for the QP"]
    for i, (t, r) in enumerate(rows):
        why = r["reason"]
        note = ""
        if r["old_rate"] != rp.rc:
            fail.append("step %d (%s): old_rate %d, model's rate before %d" %
                        (i, why, r["old_rate"], rp.rc))
        if why.startswith("cnp"):
            if t_cnp is None:
                t_cnp = t
            ncnp += 1
            got = rp.cnp(t)
        elif why.startswith("timer_"):
            got = rp.timer()
            timer_ts.append(t)
        elif why.startswith("bytes_"):
            period = knobs["rp_byte_reset"] * model.BYTE_UNIT
            got = rp.bytes(max(period - rp.sent, 0))
        elif why in ("alpha_up", "alpha_down"):
            if r.get("arg"):
                # the kernel says how many periods it applied
                n, c = r["arg"], copy.deepcopy(rp)
                c.alpha_timer(n)
            else:
                n, c = infer_alpha(rp, why, r["alpha"])
            if n is None:
                fail.append("step %d (%s): no number of alpha periods "
                            "takes the model's alpha %d to %d" %
                            (i, why, rp.alpha, r["alpha"]))
                got = rp.alpha_timer(1)
            else:
                rp = c
                got = why
                periods += n
                note = " (%d periods, %d in all)" % (n, periods)
                if t_cnp is not None and not single_cnp:
                    # (--single-cnp checks the periods exactly, against
                    # the timeline)
                    el = t - t_cnp
                    if periods * K > el + K + SKEW_US:
                        fail.append("step %d (%s): %d alpha periods of %d us "
                                    "= %d us, but only %d us since the CNP" %
                                    (i, why, periods, K, periods * K, el))
        else:
            fail.append("step %d: unknown reason %r" % (i, why))
            continue
        if got != why:
            fail.append("step %d: reason %s, model's %s" % (i, why, got))
        for k, mv in (("rate", rp.rc), ("target", rp.rt), ("alpha", rp.alpha)):
            if r[k] != mv:
                fail.append("step %d (%s): %s %d, model's %d" %
                            (i, why, k, r[k], mv))
        steps.append((why, r["rate"], r["target"], r["alpha"]))
        msgs.append("%4d %+10d us %-13s rate %10d target %10d alpha %4d%s" %
                    (i, t - (t_cnp if t_cnp is not None else t), why,
                     r["rate"], r["target"], r["alpha"], note))

    if single_cnp:
        if ncnp != 1 or not rows[0][1]["reason"].startswith("cnp") and \
                not rows[0][1]["reason"].startswith("alpha"):
            fail.append("single CNP: %d CNP steps (want 1, first)" % ncnp)
        # the kernel applies the alpha periods that ended by each timer
        # step's scheduled time (k * rp_time_reset after the CNP), as the
        # timeline does: the whole sequence, alpha steps included, is the
        # model's
        want = [(w, rc, rt, al) for (_t, _ev, _a, w, rc, rt, al) in
                model.timeline(flavour, knobs, line_kbps, len(timer_ts) + 5)]
        if steps != want:
            for j in range(max(len(steps), len(want))):
                a = steps[j] if j < len(steps) else None
                b = want[j] if j < len(want) else None
                if a != b:
                    fail.append("timeline step %d: kernel %s, model %s" %
                                (j, a, b))
                    break
            fail.append("timeline: %d steps, model %d" %
                        (len(steps), len(want)))
        if rp.limited:
            fail.append("the trace ends with the flow still limited at %d "
                        "(max %d)" % (rp.rc, rp.top))
        # The kernel steps each timer as of its due time (CNP + k T),
        # whenever it fires; firing late is load, not error.  The CNP's
        # own timestamp can lag the clock read the timer was started from
        # by milliseconds in a loaded TCG guest.  So: o_k = t_k - t_cnp -
        # k T; no step more than SKEW_US early (min o_k), and the steps
        # not systematically late (median of o_k - min o_k).
        offs = [t - t_cnp - k * T for k, t in enumerate(timer_ts, 1)] \
            if t_cnp is not None else []
        if offs:
            base = min(offs)
            late = statistics.median(o - base for o in offs)
            msgs.append("timer steps: earliest %+d us from CNP + k T, median "
                        "lateness %d us beyond that" % (base, late))
            if base < -SKEW_US:
                k = offs.index(base) + 1
                fail.append("timer step %d at %d us after the CNP, %d us "
                            "before %d x rp_time_reset" %
                            (k, timer_ts[k - 1] - t_cnp, -base, k))
            if late > slack_us:
                fail.append("timer steps %d us late (median) beyond the "
                            "earliest: not every rp_time_reset" % late)
        gaps = [b - a for a, b in zip([t_cnp] + timer_ts, timer_ts)]
        if gaps:
            med = statistics.median(gaps)
            msgs.append("timer gaps: median %d us, min %d, max %d "
                        "(rp_time_reset %d)" % (med, min(gaps), max(gaps), T))
            if med > T + slack_us:
                fail.append("median gap between timer steps %d us > "
                            "rp_time_reset %d + %d" % (med, T, slack_us))
    msgs.extend("FAIL " + f for f in fail)
    summary = "%s flavour, %d steps (%d CNP, %d timer), final rate %d" % (
        flavour, len(rows), ncnp, len(timer_ts), rows[-1][1]["rate"])
    if fail:
        msgs.append("trace_check: FAIL %s: %d mismatches" % (summary,
                                                             len(fail)))
        return False, msgs
    msgs.append("trace_check: PASS %s" % summary)
    return True, msgs


# ------------------------------------------------------------ self-test

def fmt_line(t_us, qpn, old, rate, target, alpha, why, arg=0):
    return ("          cc_qp-321     [001] b..2.  %d.%06d: vroce_cc_rate: "
            "qpn=%d old_rate=%d rate=%d target=%d alpha=%d reason=%s arg=%d" %
            (t_us // 1000000, t_us % 1000000, qpn, old, rate, target, alpha,
             why, arg))


def synth(flavour, knobs, line_kbps, qpn=17, t0=100000000, late_us=0):
    """The trace the kernel writes for one CNP at t0 (cc/dcqcn_algo.c): the rate
    increase timer is due every rp_time_reset after the CNP and fires
    late_us late, but steps as of its due time, after catching the alpha
    timer up to that time (arg: the periods applied)."""
    rp = model.make_rp(flavour, knobs, line_kbps)
    T, K = knobs["rp_time_reset"], knobs["rp_dce_tcp_rtt"]
    out = ["# tracer: nop", "#"]

    def step(t, why_fn, arg=0):
        old = rp.rc
        why = why_fn()
        if why != "none":
            out.append(fmt_line(t, qpn, old, rp.rc, rp.rt, rp.alpha, why,
                                arg))

    step(t0, lambda: rp.cnp(0))
    at, done = t0, 0
    while rp.limited:
        at += T
        n = (at - t0) // K - done
        done += n
        step(at + late_us, lambda: rp.alpha_timer(n), n)
        step(at + late_us, rp.timer)
    return out


def knob_dump(flavour, line_mbps, knobs):
    lines = ["enable 1", "flavour %s" % flavour, "line_rate %d" % line_mbps,
             "cnp_delay_us 0"]
    lines += ["%s %d" % kv for kv in sorted(knobs.items())]
    return lines


def selftest():
    cases = 0
    bad = []

    def expect(name, want_ok, dump, trace, qpn=17, **kw):
        nonlocal cases
        cases += 1
        fl, line, k = parse_knobs(dump)
        ok, msgs = check(fl, line, k, parse_trace(trace, qpn), **kw)
        print("%s %-40s %s" % ("ok  " if ok == want_ok else "FAIL", name,
                               msgs[-1]))
        if ok != want_ok:
            bad.append(name)
            for m in msgs[-8:]:
                print("     " + m)

    nv = model.defaults("mlx5")
    nv.update(rp_time_reset=5000, rp_dce_tcp_rtt=1000, rp_threshold=3,
              rp_ai_rate=200, rp_hai_rate=1000)
    pa = model.defaults("paper")
    pa.update(rp_time_reset=5000, rp_dce_tcp_rtt=2000)
    for fl, k, mbps in (("nvidia", nv, 10000), ("paper", pa, 10000),
                        ("nvidia", model.defaults("mlx5"), 0)):
        line = mbps * 1000 if mbps else UNLIMITED_KBPS
        if fl == "nvidia" and not mbps:
            k = dict(k, rp_time_reset=2000, rp_dce_tcp_rtt=500)
        dump = knob_dump(fl, mbps, k)
        tag = "%s line %d" % (fl, mbps)
        good = synth(fl, k, line)
        expect(tag + ": the model's own trace", True, dump, good,
               single_cnp=True)
        expect(tag + ": timers 300 us late", True, dump,
               synth(fl, k, line, late_us=300), single_cnp=True)
        # other QPs' lines and other events are ignored
        noise = []
        for ln in good:
            noise.append(ln)
            noise.append(ln.replace("qpn=17 ", "qpn=18 "))
            noise.append("   <idle>-0  [000] d.h2. 1.000000: vroce_cnp_recv: "
                         "qpn=17 handled=1")
        expect(tag + ": interleaved with QP 18", True, dump, noise,
               single_cnp=True)
        # a rate one off
        i = max(j for j, ln in enumerate(good) if "timer_" in ln)
        mut = list(good)
        mut[i] = re.sub(r" rate=(\d+)",
                        lambda m: " rate=%d" % (int(m.group(1)) - 1), mut[i])
        expect(tag + ": last timer rate - 1", False, dump, mut,
               single_cnp=True)
        # a timer step missing
        j = [n for n, ln in enumerate(good) if "timer_" in ln][2]
        expect(tag + ": third timer step missing", False, dump,
               good[:j] + good[j + 1:], single_cnp=True)
        # alpha one off
        j = [n for n, ln in enumerate(good) if "alpha=" in ln][-1]
        mut = list(good)
        mut[j] = re.sub(r"alpha=(\d+)",
                        lambda m: "alpha=%d" % (int(m.group(1)) + 1), mut[j])
        expect(tag + ": last alpha + 1", False, dump, mut, single_cnp=True)
        # target off
        j = [n for n, ln in enumerate(good) if "timer_" in ln][0]
        mut = list(good)
        mut[j] = re.sub(r"target=(\d+)",
                        lambda m: "target=%d" % (int(m.group(1)) + 1000),
                        mut[j])
        expect(tag + ": first target + 1 Mb/s", False, dump, mut,
               single_cnp=True)
        # reason renamed
        mut = [ln.replace("reason=timer_", "reason=bytes_", 1) for ln in good]
        expect(tag + ": timer steps as byte steps", False, dump, mut,
               single_cnp=True)
        # a timer step too early: the whole recovery at T / 2
        mut = []
        t_first = None
        for ln in good:
            m = LINE_RE.search(ln)
            if not m:
                mut.append(ln)
                continue
            sec, frac = m.group("ts").split(".")
            t = int(sec) * 1000000 + int(frac)
            t_first = t if t_first is None else t_first
            mut.append(ln.replace(m.group("ts"), "%d.%06d" % (
                divmod(t_first + (t - t_first) // 2, 1000000))))
        expect(tag + ": recovery twice as fast", False, dump, mut,
               single_cnp=True)
        # a second CNP where one was expected
        cnp = [ln for ln in good if "reason=cnp" in ln][0]
        expect(tag + ": two CNPs", False, dump, [cnp] + good,
               single_cnp=True)
        # knobs the kernel did not use
        k2 = dict(k, rp_gd=k["rp_gd"] - 1) if fl == "nvidia" else \
            dict(k, rp_threshold=k["rp_threshold"] - 1)
        expect(tag + ": trace of other knobs", False,
               knob_dump(fl, mbps, k2), synth(fl, k, line), single_cnp=True)
        # stopped early: still limited
        last_t = [n for n, ln in enumerate(good) if "timer_" in ln][-1]
        expect(tag + ": ends before release", False, dump, good[:last_t],
               single_cnp=True)
        expect(tag + ": no lines for the QP", False, dump, good, qpn=99,
               single_cnp=True)
    canned = os.path.join(HERE, "testdata")
    if os.path.isdir(canned):
        for name in sorted(os.listdir(canned)):
            if not name.endswith(".trace"):
                continue
            base = os.path.join(canned, name[:-len(".trace")])
            with open(base + ".knobs") as f:
                dump = f.read().splitlines()
            with open(base + ".trace") as f:
                trace = f.read().splitlines()
            with open(base + ".qpn") as f:
                qpn = int(f.read().split()[0], 0)
            expect("canned " + name, True, dump, trace, qpn=qpn,
                   single_cnp=True)
    print("trace_check selftest: %d cases, %d failed" % (cases, len(bad)))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("knobs")
    c.add_argument("trace")
    c.add_argument("--qpn", type=lambda s: int(s, 0), required=True)
    c.add_argument("--single-cnp", action="store_true")
    c.add_argument("--slack-us", type=int, default=2000)
    sub.add_parser("selftest")
    a = ap.parse_args()
    if a.cmd == "selftest":
        return selftest()
    with open(a.knobs) as f:
        fl, line, knobs = parse_knobs(f.read().splitlines())
    with open(a.trace) as f:
        rows = parse_trace(f.read().splitlines(), a.qpn)
    ok, msgs = check(fl, line, knobs, rows, a.single_cnp, a.slack_us)
    print("# flavour %s, max rate %d kb/s, %s" % (
        fl, model.make_rp(fl, knobs, line).top,
        " ".join("%s=%d" % kv for kv in sorted(knobs.items())
                 if kv[0].startswith("rp_"))))
    for m in msgs:
        print(m)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
