#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""N:1 incast through one bottleneck, packet by packet: what DCQCN's
reaction point (dcqcn_model, the kernel's fixed-point steps, nvidia
flavour by default) and vroce's notification point do against a tbf and
a Linux RED queue with ECN, as scenario 67-cc-bottleneck builds them.

  incast.py --senders 2 4 [--bn-mbps 20 --snd-mbps 20 --window 256 knob=value ...]

Each sender is backlogged and paced at its current rate; packets join one
FIFO drained at the bottleneck's rate.  RED (Linux's: the average queue
per arriving packet with the weight tc derives from min, burst and avpkt;
marking between min and max with probability rising to p, every packet
above max) marks at enqueue, and the bytes past the limit are dropped.
A marked packet reaches the receiver after its queueing delay and the
base delay; the receiver sends a CNP for it unless it sent one for that
flow less than np_min_time_between_cnps before; the CNP reaches the
sender a base delay later.  Timers as drivers/vroce/cc/dcqcn_algo.c runs them:
the rate increase timer every rp_time_reset after the last CNP, the
alpha timer's periods counted from it.  Each sender has at most
--window packets unacknowledged (vroce's RC window, 256), each
acknowledged a base round trip after it leaves the queue: the window,
not only the rate, bounds the queue.  A dropped packet only costs its
bytes here (no go-back-N: it frees its window slot at once), so drops
show as a count, not as a stall.

Prints per sender count: utilisation and Jain's index over the second
half, drops, the largest queue, and each flow's mean rate.  --window
100000 leaves RC's window out: whether DCQCN alone holds the queue (with
the window, a queue the rates did not hold can still stay under the
limit, as two senders' windows do under a 1 MB one).
"""

import argparse
import heapq
import random

import dcqcn_model as model


def red_wlog(qmin, burst, avpkt):
    """tc's choice of RED's EWMA weight 2^-wlog for min, burst, avpkt."""
    w = 0.5
    a = burst + 1 - qmin / avpkt
    for wlog in range(1, 32):
        if a <= (1 - (1 - w) ** burst) / w:
            return wlog
        w /= 2
    return 31


def simulate(n, knobs, a, flavour):
    C = a.bn_mbps * 1e6 / 8 / 1e6        # bytes per us
    pkt = a.pkt_bytes
    wq = 2.0 ** -red_wlog(a.red_min, a.red_burst, pkt)
    rps = [model.make_rp(flavour, knobs, a.snd_mbps * 1000) for _ in range(n)]
    T, K = knobs["rp_time_reset"], knobs["rp_dce_tcp_rtt"]
    np_gap = knobs["np_min_time_between_cnps"]
    end = a.secs * 1e6
    half = end / 2
    ev = []                 # (time, seq, kind, flow)
    seq = 0

    def push(t, kind, f):
        nonlocal seq
        seq += 1
        heapq.heappush(ev, (t, seq, kind, f))

    for f in range(n):
        push(f * 7.0, "send", f)       # a few us apart, as processes start
    timer_at = [None] * n
    alpha_epoch = [0.0] * n
    last_cnp = [-1e18] * n
    inflight = [0] * n
    blocked = [False] * n
    q = 0.0                 # bytes queued
    q_free = 0.0            # when the queue is empty again (us)
    avg = 0.0
    drops = 0
    qmax = 0.0
    sent_half = [0.0] * n   # bytes of each flow dequeued in the second half
    rnd = random.Random(1)
    while ev:
        t, _, kind, f = heapq.heappop(ev)
        if t > end:
            break
        rp = rps[f]
        if kind == "ack":
            inflight[f] -= 1
            if blocked[f]:
                blocked[f] = False
                push(t, "send", f)
            continue
        if kind == "send" and inflight[f] >= a.window:
            blocked[f] = True
            continue
        if kind == "send":
            # the queue as this packet arrives
            q = max(0.0, (q_free - t) * C)
            avg = (1 - wq) * avg + wq * q
            if q + pkt > a.red_limit:
                drops += 1
            else:
                inflight[f] += 1
                if avg >= a.red_max:
                    mark = True
                elif avg > a.red_min:
                    mark = rnd.random() < a.red_p * (avg - a.red_min) / (a.red_max - a.red_min)
                else:
                    mark = False
                start = max(t, q_free)
                q_free = start + pkt / C
                qmax = max(qmax, q + pkt)
                if half < q_free <= end:
                    sent_half[f] += pkt * min(1.0, (q_free - half) / (pkt / C))
                if mark:
                    push(q_free + a.base_us, "mark", f)
                push(q_free + 2 * a.base_us, "ack", f)
            rate = rp.rc if rp.limited else rp.top          # kb/s
            push(t + pkt * 8 * 1000.0 / rate, "send", f)
        elif kind == "mark":
            if t - last_cnp[f] >= np_gap:
                last_cnp[f] = t
                push(t + a.base_us, "cnp", f)
        elif kind == "cnp":
            k = int((t - alpha_epoch[f]) // K)
            if k:
                rp.alpha_timer(k)
            rp.cnp(int(t))
            alpha_epoch[f] = t
            timer_at[f] = t + T
            push(timer_at[f], "timer", f)
        elif kind == "timer":
            if timer_at[f] != t:
                continue        # superseded by a later CNP
            k = int((t - alpha_epoch[f]) // K)
            if k:
                rp.alpha_timer(k)
                alpha_epoch[f] += k * K
            rp.timer()
            if rp.limited:
                timer_at[f] = t + T
                push(timer_at[f], "timer", f)
    rates = [b * 8 / (end - half) for b in sent_half]      # Mb/s
    util = sum(rates) / a.bn_mbps
    jain = sum(rates) ** 2 / (n * sum(r * r for r in rates))
    return util, jain, drops, qmax, rates


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--senders", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--bn-mbps", type=float, default=20)
    ap.add_argument("--snd-mbps", type=int, default=20)
    ap.add_argument("--pkt-bytes", type=float, default=1100)
    ap.add_argument("--base-us", type=float, default=500,
                    help="one-way delay outside the queue")
    ap.add_argument("--red-min", type=float, default=15000)
    ap.add_argument("--red-max", type=float, default=60000)
    ap.add_argument("--red-p", type=float, default=0.2)
    ap.add_argument("--red-burst", type=int, default=37)
    ap.add_argument("--red-limit", type=float, default=1000000)
    ap.add_argument("--secs", type=float, default=40)
    ap.add_argument("--window", type=int, default=256,
                    help="packets a sender may have unacknowledged")
    ap.add_argument("--flavour", default="nvidia")
    ap.add_argument("knobs", nargs="*", help="knob=value (67's small-rate set by default)")
    a = ap.parse_args()
    k = model.defaults("mlx5")
    # scenario 67's knobs for small line rates (congestion-control.md)
    k.update(rp_time_reset=15000, rp_threshold=8, rp_byte_reset=0,
             rp_ai_rate=1, rp_hai_rate=2, rp_dce_tcp_rtt=5000,
             rp_rate_reduce_monitor_period=20000, rp_min_rate=1,
             rp_dce_tcp_g=960, np_min_time_between_cnps=1000)
    for kv in a.knobs:
        name, val = kv.split("=")
        k[name] = int(val)
    for n in a.senders:
        util, jain, drops, qmax, rates = simulate(n, k, a, a.flavour)
        print("%d:1  utilisation %.3f  Jain %.3f  drops %d  max queue %.0f kB  rates %s Mb/s"
              % (n, util, jain, drops, qmax / 1000,
                 " ".join("%.1f" % r for r in rates)))


if __name__ == "__main__":
    main()
