#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# Congestion control, acceptance 3 of issue 10: with a fixed marking
# probability p in {1 %, 5 %, 20 %} on the receiver (vroceB's
# ce_mark_permille 10, 50, 200), a backlogged RC sender's steady DCQCN rate
# (paper flavour) is within 15 % of theory.  Theory is the discrete flow
# (cc-model/marksim.py: the reference model's reaction point, packets at
# its rate marked with probability p, vroce's CNP rule), not the fluid
# model's fixed point (cc-model/fluid.py), which is reported beside it:
# the algorithm itself runs 10-30 % above the fluid fixed point, with
# these knobs and with the paper's (see fluid_check.py and
# Documentation/congestion-control.md, experiment 3).
#
# Two namespaces on a veth pair, vroceA (sender, reaction point) and
# vroceB (notification point), cc/enable=1, flavour paper on both.  The
# knobs are the paper's stretched from microseconds to milliseconds (an
# emulated guest's timers are ms-grained) with rates to match, so every
# fixed point sits far below what vroce moves here and the rate limiter,
# not the CPU, sets the rate:
#   vroceA: line_rate 400 Mb/s, rp_time_reset 8000 us, rp_dce_tcp_rtt
#           4000 us (the alpha period), rp_threshold 5, rp_dce_tcp_g 1020
#           (g = 1/256), rp_ai_rate 1 Mb/s, rp_byte_reset 0 (the model has
#           no byte counter and so no hyper increase);
#   vroceB: np_min_time_between_cnps 4000 us (the model's tau);
# on the debug kernel, path MTU 4096, both periods 8 times longer and
# rp_threshold 10 (why: at MTU below).
# Per p, a fresh QP pair (cc_qp, path MTU $MTU) streams 64 KiB RDMA WRITEs,
# 4 in flight, without a pause (a pause lets the increase timer lift the
# rate with no marks to answer): WARM_SECS to settle (alpha starts at 1),
# then MEASURE_SECS between the trace markers fluid_start and fluid_end,
# over which vtB's veth counts the frame bytes received.  fluid_check.py
# takes the time-weighted mean of the QP's vroce_cc_rate steps in that
# window and compares it with theory for 1082.25-byte frames (the pacer
# counts Ethernet header to ICRC: 58 bytes per 1024-byte packet plus the
# RETH of each message's first); it also fails when the wire carried less
# than 85 % of that rate (then the sender, not DCQCN, set the pace).  The
# knob dumps and traces stay in the job directory ($VT_NAME.p<permille>.*).
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"
. "$VROCE_SRC/userspace-tests/lib/cc.sh"

CHECK=$VROCE_SRC/userspace-tests/cc-model/fluid_check.py
TAU_US=4000
SIZE=65536
if [ "${VROCE_TIME_SCALE:-1}" -eq 1 ]; then
	MTU=1024 T_US=8000 K_US=4000 F=5 WARM_SECS=8 MEASURE_SECS=12
else
	# The debug kernel (KASAN, lockdep, kmemleak) moves about 7 Mb/s
	# through this path at MTU 1024 and 11-18 Mb/s at MTU 4096, below
	# p = 1 %'s fixed point of 33 Mb/s; a QP that cannot reach its rate
	# draws fewer marks than the model and runs above it (+28 % with the
	# fixed point at 15 Mb/s).  There: 4096-byte packets, both periods
	# 8 times longer and 10 fast-recovery steps, which puts the fixed
	# points at 11.9, 3.4 and 1.1 Mb/s (marksim.py --T-us 64000
	# --taup-us 32000 --F 10 --pkt-bytes 4155); the
	# warm-up grows with the alpha period, the window more: over 48 s
	# the simulation's own seeds spread from 3.1 to 3.9 Mb/s at p = 5 %
	# and one run measured -15.2 %.  (With 31 steps, fixed points 5.8
	# and 1.6 Mb/s, the QP ran 34 % and 19 % above the simulation while
	# backlogged: an open question.)
	MTU=4096 T_US=64000 K_US=32000 F=10 WARM_SECS=32 MEASURE_SECS=96
fi
# SIZE / MTU packets of 58 header bytes each, plus one RETH (16)
PKTS=$((SIZE / MTU))
FRAME_BYTES=$((SIZE + PKTS * 58 + 16))

# frame bytes vtB's veth received (vroceA's data packets; ACKs and CNPs
# go the other way)
rx_bytes() { ip netns exec vtB cat /sys/class/net/vtB/statistics/rx_bytes; }

vt_cc_pair
if [ "$MTU" -gt 1024 ]; then
	for n in A B; do
		ip -n "vt$n" link set "vt$n" mtu 9000
	done
	vt_wait_for "ibv_devinfo -d vroceA | grep 'active_mtu:.*4096' >/dev/null" 10 ||
		vt_fail "vroceA's active MTU did not follow vtA's 9000"
fi
for d in vroceA vroceB; do
	vt_cc_set "$d" flavour paper
done
for kv in line_rate=400 rp_time_reset=$T_US rp_dce_tcp_rtt=$K_US \
	rp_threshold=$F rp_dce_tcp_g=1020 rp_ai_rate=1 rp_byte_reset=0 \
	rp_min_rate=1; do
	vt_cc_set vroceA "${kv%=*}" "${kv#*=}"
done
vt_cc_set vroceB np_min_time_between_cnps "$TAU_US"
vt_cc_set vroceB cnp_delay_us 0

port=19960
results='' failed=''
for pm in 10 50 200; do
	tag=p$pm
	port=$((port + 1))
	vt_ccqp_start "$tag" "$port" -m "$MTU" -S 60
	qpn=${CCQP_LQPN[$tag]}
	knobs=$VROCE_JOB/$VT_NAME.$tag.knobs
	trace=$VROCE_JOB/$VT_NAME.$tag.trace
	vt_cc_dump vroceA "$knobs"
	mark0=$(vt_counter vroceB np_ecn_marked_roce_packets)
	sent0=$(vt_counter vroceB np_cnp_sent)
	hand0=$(vt_counter vroceA rp_cnp_handled)

	vt_fault vroceB ce_mark_permille "$pm"
	vt_trace_start vroce_cc_rate
	n=$(vt_ccqp_answers "$tag")
	vt_ccqp_send_async "$tag" s 0 $((WARM_SECS + MEASURE_SECS + 2)) "$SIZE" 4
	sleep "$WARM_SECS"
	rx0=$(rx_bytes)
	t0=$EPOCHREALTIME
	echo fluid_start >"$VT_TRACE/trace_marker"
	sleep "$MEASURE_SECS"
	echo fluid_end >"$VT_TRACE/trace_marker"
	rx1=$(rx_bytes)
	t1=$EPOCHREALTIME
	ans=$(vt_ccqp_wait "$tag" "$n" 60)
	vt_trace_stop "$trace"
	vt_fault vroceB ce_mark_permille 0
	vt_log "$tag: $ans; vtB received $((rx1 - rx0)) bytes in the window"
	for d in vroceA vroceB; do
		vt_log "$tag: $d $(rdma statistic show link $d/1 | tr ' ' '\n' | awk '
			/^(local_ack_timeout_err|packet_seq_err|duplicate_request|out_of_sequence|rnr_nak_retry_err|tx_errors)$/ { k = $0; next }
			k { printf "%s %s ", k, $0; k = "" }')"
	done

	marked=$(($(vt_counter vroceB np_ecn_marked_roce_packets) - mark0))
	sent=$(($(vt_counter vroceB np_cnp_sent) - sent0))
	handled=$(($(vt_counter vroceA rp_cnp_handled) - hand0))
	[ "$marked" -gt 0 ] || vt_fail "$tag: vroceB counted no CE-marked packet"
	[ "$sent" -gt 0 ] || vt_fail "$tag: vroceB sent no CNP"
	[ "$handled" -gt 0 ] || vt_fail "$tag: vroceA handled no CNP"

	rc=0
	out=$(python3 "$CHECK" "$knobs" "$trace" --qpn "$qpn" \
		--p "$(awk -v m="$pm" 'BEGIN { print m / 1000 }')" \
		--tau-us "$TAU_US" \
		--pkt-bytes "$(awk -v f="$FRAME_BYTES" -v n="$PKTS" 'BEGIN { print f / n }')" \
		--wire-bytes $((rx1 - rx0)) \
		--wire-secs "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
		2>&1) || rc=$?
	echo "$out" >&2
	# every p runs, so a failure shows beside the other two results
	[ "$rc" = 0 ] || failed="$failed $tag"
	results="$results $(echo "$out" | tail -1 | sed 's/^fluid_check: \(PASS \)\{0,1\}//') [marks $marked, CNPs $sent/$handled];"
	vt_ccqp_stop "$tag"
done
[ -z "$failed" ] || vt_fail "off theory:$failed;$results"
vt_pass "steady rate = theory within 15 %:$results"
