#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 480
#
# Congestion control, acceptance 1 of issue 10 (Documentation/congestion-
# control.md): CNP pacing at the notification point, the reaction point
# falling to rp_min_rate, counters against a capture.
#
# Two namespaces on a veth pair, vroceA (sender, reaction point) and
# vroceB (receiver, notification point), cc/enable=1 on both.  cc_qp
# streams RDMA WRITEs on one RC QP from vroceA to vroceB.  Rounds:
#   ce-N  (N = np_min_time_between_cnps in 100 and 4000 us; the
#         knob's maximum is 4095):
#         vroceB's ce_mark_permille = 1000 marks every packet it receives;
#   netem: no vroce marking; vtA's egress carries UDP 4791 through
#         "netem loss 100% ecn", which marks every ECT packet CE and drops
#         every other one (so data that is not ECT(0) stalls the round).
# vroceA's rp_min_rate is 100 Mb/s (about 9k packets/s of 1 KiB).  The NP
# sends at the first marked packet N or more after the mark of the last
# CNP, so CNPs come every N + (the wait for the next mark).  In a TCG guest
# packets arrive in bursts with gaps of hundreds of us, so the CNP rate is
# 0.8-0.9 x 1e6/N, not the 1e6/N of issue 10's acceptance 1 (a bound that
# only holds for marks that arrive evenly).  What is checked instead is
# the rule itself, replayed on the times of the marks (tracepoint
# vroce_ce_recv, the clock the NP compared): vroceB's CNPs are exactly the
# rule's, and never more than 1e6/N per second; the ratio is logged.
# rp_time_reset is the maximum and rp_byte_reset 0, so increases come
# only when no CNP came for 131 ms; the guest does stall that long now and
# then (a CI run saw a 170 ms gap, then timer_ai took the rate from the
# floor to (line rate + floor) / 2, since the nvidia flavour keeps the
# target at the line rate).  So rp_clamp_tgt_rate makes each cut set the
# target to the rate before it, and rp_threshold 31 keeps 31 timer stages
# (4 s) in fast recovery, which at the floor recovers to the floor: the
# rate sits there through any stall shorter than 4 s.  rp_dce_tcp_rtt is
# the maximum, so alpha stays near 1 and each CNP halves.
# Each round, in a 3 s window once vroceA's QP runs at rp_min_rate:
#   - CNPs/s <= 1e6 / N (np_cnp_sent of vroceB);
#   - the QP's cc_rate_kbps (rdma -dd resource show qp) is rp_min_rate;
# over the whole round (marking stops before the stream ends):
#   - vroceB's np_cnp_sent == vroceA's rp_cnp_handled == the CNPs in a
#     capture on vtB (UDP 4791, BTH opcode 0x81), each of them 74 bytes,
#     from 192.168.77.2, BECN set, destination QP vroceA's QP, DSCP
#     np_cnp_dscp; vroceA's rp_cnp_ignored unchanged;
#   - ce rounds: np_ecn_marked_roce_packets == the injector's ce_mark count;
#   - no data packet from vroceA on the wire without ECT(0) (ce rounds) or
#     without ECT(0)/CE (netem round);
#   - every mark's CNP decision (vroce_ce_recv) is the rule's, one event
#     per np_ecn_marked_roce_packets, the rule's CNPs = np_cnp_sent;
#   - tracepoints: one vroce_cnp_sent per np_cnp_sent, one vroce_cnp_recv
#     per CNP received, vroce_cc_rate of the QP reaching rp_min_rate.
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"
. "$VROCE_SRC/userspace-tests/lib/cc.sh"

MIN_MBPS=100
WIN=3
# long enough for the window: every rdma call takes up to a second in TCG,
# so the floor (<= 3 s), the window and the calls around it take up to 11 s
STREAM_S=$((16 * ${VROCE_TIME_SCALE:-1}))
command -v dumpcap >/dev/null || vt_fail "no dumpcap (tshark; ci/setup.sh installs it)"

vt_cc_pair
vt_cc_set vroceA rp_min_rate "$MIN_MBPS"
vt_cc_set vroceA rp_time_reset 131071
vt_cc_set vroceA rp_byte_reset 0
vt_cc_set vroceA rp_clamp_tgt_rate 1
vt_cc_set vroceA rp_threshold 31
# alpha: with the default 1 us period it decays to 0 between two CNPs
# N >= 1 ms apart, and then a CNP cuts nothing; with the longest period
# it stays near 1, so every CNP halves the rate (rp_min_dec_fac 50)
vt_cc_set vroceA rp_dce_tcp_rtt 131071
dscp=$(vt_cc_get vroceB np_cnp_dscp)

vt_ccqp_start s 19890
qpn=${CCQP_LQPN[s]}
rqpn=${CCQP_RQPN[s]}

now() { date +%s.%N; }
# rate_f A B SECS: (B - A) / SECS
rate_f() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { printf "%.1f", (b - a) / t }'; }

# round NAME N MODE: one round, MODE ce or netem.
results=
round() {
	local name=$1 n=$2 mode=$3 pcap=${TMPDIR:-/tmp}/$VT_NAME.$1.pcap
	local trace=$VROCE_JOB/$VT_NAME.$1.trace cap_pid filt
	local sent0 hand0 ign0 mark0 inj0 sent1 hand1 ign1 mark1 inj1
	local ws wm wt0 wt1 we wme t dt cnps marked want lim rate_kbps
	local pc bad nans pcnp pbad

	vt_cc_set vroceB np_min_time_between_cnps "$n"
	# CNPs, and data from vroceA that is neither ECT(0) nor (netem) CE
	if [ "$mode" = ce ]; then
		filt='udp dst port 4791 and (udp[8] = 0x81 or (src host 192.168.77.1 and (ip[1] & 3) != 2))'
	else
		filt='udp dst port 4791 and (udp[8] = 0x81 or (src host 192.168.77.1 and (ip[1] & 3) < 2))'
	fi
	# 128 bytes of each frame and a 32 MiB buffer: packets are copied
	# into the ring in blocks sized by the snapshot length, and a full
	# ring drops.  With the defaults (2 MiB, whole frames) the debug
	# kernel's capture lost 103 CNPs in one second while dumpcap stalled.
	ip netns exec vtB dumpcap -q -i vtB -s 128 -B 32 -f "$filt" -w "$pcap" \
		2>"$pcap.log" &
	cap_pid=$!
	vt_wait_for "grep -q 'Capturing on' $pcap.log" 30 ||
		vt_fail "$name: dumpcap did not start: $(cat "$pcap.log")"
	vt_trace_start vroce_cc_rate vroce_cnp_sent vroce_cnp_recv vroce_ce_recv

	sent0=$(vt_counter vroceB np_cnp_sent)
	mark0=$(vt_counter vroceB np_ecn_marked_roce_packets)
	hand0=$(vt_counter vroceA rp_cnp_handled)
	ign0=$(vt_counter vroceA rp_cnp_ignored)
	inj0=$(cat /sys/kernel/debug/vroce/vroceB/counters/ce_mark)
	if [ "$mode" = ce ]; then
		vt_fault vroceB ce_mark_permille 1000
	else
		tc -n vtA qdisc add dev vtA root handle 1: prio bands 3 \
			priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 ||
			vt_fail "tc prio"
		tc -n vtA qdisc add dev vtA parent 1:3 handle 30: netem \
			loss 100% ecn || vt_fail "tc netem loss 100% ecn"
		tc -n vtA filter add dev vtA parent 1: protocol ip u32 \
			match ip protocol 17 0xff match ip dport 4791 0xffff \
			flowid 1:3 || vt_fail "tc filter"
	fi
	t=$(now)
	nans=$(vt_ccqp_answers s)
	vt_ccqp_send_async s s 0 "$STREAM_S" 65536 8
	# the rate reaches the floor within 2 s
	vt_wait_for "[ \"\$(vt_qp_attr vroceA $qpn cc_rate_kbps)\" = $((MIN_MBPS * 1000)) ]" 3 ||
		vt_fail "$name: vroceA QP $qpn at $(vt_qp_attr vroceA "$qpn" cc_rate_kbps) kb/s after 3 s of CE marks, want rp_min_rate $((MIN_MBPS * 1000)); CNPs sent $(($(vt_counter vroceB np_cnp_sent) - sent0)), handled $(($(vt_counter vroceA rp_cnp_handled) - hand0))"
	vt_log "$name: at rp_min_rate after $(rate_f "$t" "$(now)" 1) s"
	sleep 0.3
	# wtb: before the first reading, so that [wtb, wt1] holds both
	# readings however long each rdma call takes (the never-faster bound)
	wtb=$(now)
	ws=$(vt_counter vroceB np_cnp_sent)
	wm=$(vt_counter vroceB np_ecn_marked_roce_packets)
	wt0=$(now)
	sleep "$WIN"
	we=$(vt_counter vroceB np_cnp_sent)
	wme=$(vt_counter vroceB np_ecn_marked_roce_packets)
	wt1=$(now)
	rate_kbps=$(vt_qp_attr vroceA "$qpn" cc_rate_kbps)
	[ "$(vt_ccqp_answers s)" = "$nans" ] ||
		vt_fail "$name: the stream ended inside the measurement window: $(tail -2 "${CCQP_OUT[s]}")"
	if [ "$mode" = ce ]; then
		vt_fault vroceB ce_mark_permille 0
	else
		tc -n vtA qdisc del dev vtA root || vt_fail "tc qdisc del"
	fi
	vt_log "$name: stream: $(vt_ccqp_wait s "$nans" $((STREAM_S + 30)))"
	sleep 0.5
	sent1=$(vt_counter vroceB np_cnp_sent)
	mark1=$(vt_counter vroceB np_ecn_marked_roce_packets)
	hand1=$(vt_counter vroceA rp_cnp_handled)
	ign1=$(vt_counter vroceA rp_cnp_ignored)
	inj1=$(cat /sys/kernel/debug/vroce/vroceB/counters/ce_mark)
	vt_trace_stop "$trace"
	kill -INT "$cap_pid"
	wait "$cap_pid" || true
	cp "$pcap" "$VROCE_JOB/" || true

	dt=$(awk -v a="$wt0" -v b="$wt1" 'BEGIN { print b - a }')
	cnps=$(rate_f "$ws" "$we" "$dt")
	marked=$(rate_f "$wm" "$wme" "$dt")
	lim=$(awk -v n="$n" 'BEGIN { printf "%.1f", 1e6 / n }')
	want=$(awk -v m="$marked" -v l="$lim" 'BEGIN { print (m < l ? m : l) }')
	vt_log "$name: window ${dt}s: marked $marked/s, CNPs $cnps/s = $(awk -v c="$cnps" -v w="$want" 'BEGIN { printf "%.2f", c / w }') x min(marked, 1e6/N = $lim/s); rate $rate_kbps kb/s"
	# The rule, replayed on the marks' own times (vroce_ce_recv's t_ns,
	# the clock the NP compared): a CNP at a mark N us or more after the
	# mark of the last CNP.  The CNPs vroceB made must be exactly those.
	rule=$(grep ' vroce_ce_recv:' "$trace" | grep -E "qpn=${rqpn} " | python3 -c '
import re, sys
gap = int(sys.argv[1]) * 1000
ev = sorted((int(m.group(1)), int(m.group(2))) for m in
            (re.search(r"t_ns=(\d+) cnp=(\d)", ln) for ln in sys.stdin) if m)
last, want, got, diff = None, 0, 0, 0
for t, cnp in ev:
    due = last is None or t - last >= gap
    if due:
        last = t
    want += due
    got += cnp
    diff += due != cnp
print(len(ev), want, got, diff)' "$n")
	read -r rmarks rwant rgot rdiff <<<"$rule"
	vt_log "$name: $rmarks marks traced; the rule makes $rwant CNPs, vroceB made $rgot, $rdiff decisions differ"
	vt_expect_eq "$name: marks traced vs np_ecn_marked_roce_packets (+)" "$rmarks" $((mark1 - mark0))
	vt_expect_eq "$name: mark decisions that differ from the rule" "$rdiff" 0
	vt_expect_eq "$name: CNPs by the rule vs np_cnp_sent (+)" "$rwant" $((sent1 - sent0))
	# and never faster than one per N, over the longest the two readings
	# can be apart (the first CNP of the window may follow a CNP just
	# before it)
	dtmax=$(awk -v a="$wtb" -v b="$wt1" 'BEGIN { print b - a }')
	cnpsmax=$(rate_f "$ws" "$we" "$dtmax")
	awk -v c="$cnpsmax" -v l="$lim" -v dt="$dtmax" 'BEGIN { exit !(c <= l + 1 / dt) }' ||
		vt_fail "$name: $cnpsmax CNPs/s (over ${dtmax}s, both readings in it), more than 1e6/N = $lim/s"
	vt_expect_eq "$name: cc_rate_kbps in the window" "$rate_kbps" $((MIN_MBPS * 1000))

	# counters over the round
	vt_expect_eq "$name: vroceA rp_cnp_handled (+) vs vroceB np_cnp_sent (+)" \
		$((hand1 - hand0)) $((sent1 - sent0))
	vt_expect_eq "$name: vroceA rp_cnp_ignored (+)" $((ign1 - ign0)) 0
	[ $((sent1 - sent0)) -gt 0 ] || vt_fail "$name: no CNP sent"
	if [ "$mode" = ce ]; then
		vt_expect_eq "$name: np_ecn_marked_roce_packets (+) vs ce_mark injected (+)" \
			$((mark1 - mark0)) $((inj1 - inj0))
	else
		vt_expect_eq "$name: ce_mark injected (+)" $((inj1 - inj0)) 0
		[ $((mark1 - mark0)) -gt 0 ] || vt_fail "$name: netem marked nothing vroceB saw"
	fi

	# the capture, read once (tshark takes seconds to start in TCG): the
	# CNPs (BTH opcode 0x81), and data packets from vroceA, which the
	# capture filter kept only when not ECT(0) (netem round: nor CE)
	pc=$(tshark -r "$pcap" -Y 'udp.dstport == 4791' \
		-T fields -e ip.src -e ip.dsfield.dscp -e frame.len -e udp.payload 2>/dev/null |
		python3 -c '
import sys
q, dscp = int(sys.argv[1]), sys.argv[2]
n = bad = data = 0
for ln in sys.stdin:
    src, ds, flen, pl = ln.split()
    b = bytes.fromhex(pl)
    if b[0] != 0x81:
        data += src == "192.168.77.1"
        continue
    n += 1
    if (src != "192.168.77.2" or ds != dscp or flen != "74" or len(b) != 32 or
            int.from_bytes(b[5:8], "big") != q or not b[4] & 0x40 or
            b[12:28] != bytes(16)):
        if not bad:
            print("bad CNP: " + ln.strip(), file=sys.stderr)
        bad += 1
print(n, bad, data)' "$qpn" "$dscp")
	read -r pcnp pbad bad <<<"$pc"
	# dumpcap's last words: "Packets received/dropped on interface
	# 'vtB': R/D (...)"; a lossy capture cannot be compared with counters
	grep -Eq "dropped on interface '[^']*': [0-9]+/0 " "$pcap.log" ||
		vt_fail "$name: the capture itself lost packets: $(grep -m1 dropped "$pcap.log")"
	vt_expect_eq "$name: CNPs in the capture vs np_cnp_sent (+)" "$pcnp" $((sent1 - sent0))
	vt_expect_eq "$name: malformed CNPs in the capture (want: 74 B, DSCP $dscp, BECN, dest QP $qpn, zero reserved bytes)" "$pbad" 0
	vt_expect_eq "$name: data packets from vroceA without ECT(0)$([ "$mode" = ce ] || echo "/CE")" "$bad" 0

	# the tracepoints
	vt_expect_eq "$name: vroce_cnp_sent events vs np_cnp_sent (+)" \
		"$(grep -c ' vroce_cnp_sent:' "$trace" || true)" $((sent1 - sent0))
	vt_expect_eq "$name: vroce_cnp_sent events of QP $rqpn to QP $qpn" \
		"$(grep ' vroce_cnp_sent:' "$trace" | grep -cE "qpn=${rqpn}[ ,].*dqpn=${qpn}([ ,]|\$)" || true)" $((sent1 - sent0))
	vt_expect_eq "$name: vroce_cnp_recv events vs CNPs vroceA counted (+)" \
		"$(grep -c ' vroce_cnp_recv:' "$trace" || true)" $((hand1 - hand0 + ign1 - ign0))
	grep -Eq " vroce_cc_rate: qpn=${qpn} .* rate=$((MIN_MBPS * 1000))[ ,]" "$trace" ||
		vt_fail "$name: no vroce_cc_rate event of QP $qpn at rate $((MIN_MBPS * 1000)): $(grep -m3 ' vroce_cc_rate:' "$trace")"
	results="$results $name: CNPs $cnps/s (marked $marked/s, 1e6/N $lim), $((sent1 - sent0)) CNPs = pcap = handled;"
}

# the shortest and the longest gap (a middle one proves nothing more)
for n in 100 4000; do
	round "ce-$n" "$n" ce
done
round netem-4000 4000 netem
vt_ccqp_stop s
vt_pass "rp_min_rate $MIN_MBPS Mb/s reached every round;$results"
