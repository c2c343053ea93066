#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# Congestion control, acceptance 2 of issue 10: one CE mark produces, in
# the vroce:vroce_cc_rate tracepoint stream, exactly the fixed-point
# trajectory of the reference model (userspace-tests/cc-model/
# dcqcn_model.py) for the same knobs: the cut, then each recovery step at
# rp_time_reset, until the rate is back at the line rate; both flavours.
#
# Two namespaces on a veth pair, vroceA (sender, reaction point) and
# vroceB (receiver, notification point), cc/enable=1 on both.  Per
# flavour, a fresh RC QP pair (cc_qp); vroceB's ce_mark_permille is 1000
# for exactly one one-packet RDMA WRITE from vroceA, then 0.  Checks:
#   - one packet marked (the injector's ce_mark count and vroceB's
#     np_ecn_marked_roce_packets each +1), one CNP (np_cnp_sent +1,
#     vroceA's rp_cnp_handled +1, one vroce_cnp_sent of vroceB's QP to
#     vroceA's, one vroce_cnp_recv of vroceA's QP);
#   - vroceA's QP had seen no CNP before (cc_rp_active 0), and is back at
#     the line rate within 10 s (cc_limited 0, cc_rate_kbps);
#   - trace_check.py --single-cnp: every vroce_cc_rate step of the QP
#     equals the model's (rate, target, alpha, reason), the CNP and timer
#     steps equal the model's timeline step for step, the k-th timer step
#     comes no earlier than k * rp_time_reset after the CNP, alpha periods
#     add up to the time elapsed (see trace_check.py).
# Knobs (vroceA): line_rate 10000 Mb/s, rp_time_reset 5000 us, and
#   nvidia: rp_dce_tcp_rtt 1000, rp_threshold 3, rp_ai_rate 200,
#           rp_hai_rate 1000, the rest mlx5's defaults;
#   paper:  rp_dce_tcp_rtt 2000, rp_threshold 5, rp_dce_tcp_g 1020,
#           rp_ai_rate 40 (the paper's F, g, R_AI).
# The knob dump and the trace of each flavour stay in the job directory
# ($VT_NAME.<flavour>.knobs/.trace); trace_check.py's report is logged.
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"
. "$VROCE_SRC/userspace-tests/lib/cc.sh"

CHECK=$VROCE_SRC/userspace-tests/cc-model/trace_check.py
LINE_MBPS=10000

vt_cc_pair
vt_cc_set vroceA line_rate "$LINE_MBPS"
vt_cc_set vroceA rp_time_reset 5000
vt_cc_set vroceB np_min_time_between_cnps 4095
vt_cc_set vroceB cnp_delay_us 0

port=19900
results=
for fl in nvidia paper; do
	vt_cc_set vroceA flavour "$fl"
	vt_cc_set vroceB flavour "$fl"
	if [ "$fl" = nvidia ]; then
		kv="rp_dce_tcp_rtt=1000 rp_threshold=3 rp_ai_rate=200 rp_hai_rate=1000"
	else
		kv="rp_dce_tcp_rtt=2000 rp_threshold=5 rp_dce_tcp_g=1020 rp_ai_rate=40"
	fi
	for x in $kv; do
		vt_cc_set vroceA "${x%=*}" "${x#*=}"
	done
	port=$((port + 1))
	vt_ccqp_start "$fl" "$port"
	qpn=${CCQP_LQPN[$fl]}
	rqpn=${CCQP_RQPN[$fl]}
	# a packet through, unmarked: the QP works and has seen no CNP
	vt_ccqp_cmd "$fl" 30 w 0 64 >/dev/null
	vt_expect_eq "$fl: cc_rp_active before the CE mark" \
		"$(vt_qp_attr vroceA "$qpn" cc_rp_active)" 0

	knobs=$VROCE_JOB/$VT_NAME.$fl.knobs
	trace=$VROCE_JOB/$VT_NAME.$fl.trace
	vt_cc_dump vroceA "$knobs"
	inj0=$(cat /sys/kernel/debug/vroce/vroceB/counters/ce_mark)
	mark0=$(vt_counter vroceB np_ecn_marked_roce_packets)
	sent0=$(vt_counter vroceB np_cnp_sent)
	hand0=$(vt_counter vroceA rp_cnp_handled)
	vt_trace_start vroce_cc_rate vroce_cnp_sent vroce_cnp_recv
	vt_fault vroceB ce_mark_permille 1000
	vt_ccqp_cmd "$fl" 30 w 0 64 >/dev/null
	vt_fault vroceB ce_mark_permille 0
	vt_wait_for "[ \"\$(vt_qp_attr vroceA $qpn cc_limited)\" = 0 ]" 10 ||
		vt_fail "$fl: vroceA QP $qpn still limited at $(vt_qp_attr vroceA "$qpn" cc_rate_kbps) kb/s 10 s after one CNP"
	vt_expect_eq "$fl: cc_rate_kbps after the recovery" \
		"$(vt_qp_attr vroceA "$qpn" cc_rate_kbps)" $((LINE_MBPS * 1000))
	sleep 0.5
	vt_trace_stop "$trace"
	vt_expect_eq "$fl: packets CE-marked by the injector" \
		$(($(cat /sys/kernel/debug/vroce/vroceB/counters/ce_mark) - inj0)) 1
	vt_expect_eq "$fl: vroceB np_ecn_marked_roce_packets (+)" \
		$(($(vt_counter vroceB np_ecn_marked_roce_packets) - mark0)) 1
	vt_expect_eq "$fl: vroceB np_cnp_sent (+)" $(($(vt_counter vroceB np_cnp_sent) - sent0)) 1
	vt_expect_eq "$fl: vroceA rp_cnp_handled (+)" $(($(vt_counter vroceA rp_cnp_handled) - hand0)) 1
	vt_expect_eq "$fl: vroce_cnp_sent events of QP $rqpn to QP $qpn" \
		"$(grep ' vroce_cnp_sent:' "$trace" | grep -cE "qpn=${rqpn}[ ,].*dqpn=${qpn}([ ,]|\$)" || true)" 1
	vt_expect_eq "$fl: vroce_cnp_sent events" "$(grep -c ' vroce_cnp_sent:' "$trace" || true)" 1
	vt_expect_eq "$fl: vroce_cnp_recv events of QP $qpn" \
		"$(grep ' vroce_cnp_recv:' "$trace" | grep -cE "qpn=${qpn}([ ,]|\$)" || true)" 1

	rc=0
	out=$(python3 "$CHECK" check "$knobs" "$trace" --qpn "$qpn" --single-cnp 2>&1) || rc=$?
	echo "$out" >&2
	[ "$rc" = 0 ] || vt_fail "$fl: $(echo "$out" | grep '^FAIL' | sed -n 1,3p | tr '\n' ' ') $(echo "$out" | tail -1)"
	results="$results $fl: $(echo "$out" | tail -1 | sed 's/^trace_check: PASS //');"
	vt_ccqp_stop "$fl"
done
vt_pass "one CE mark, trajectory = model:$results"
