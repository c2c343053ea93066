#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 480
#
# Congestion control, acceptance 4 of issue 10 (Documentation/congestion-
# control.md, "Experiment 4"), and the incasts of issue 25: a real
# bottleneck.
#
# The topology and the measurement are lib/incast.sh's: up to four
# senders, a bridge as the switch, tbf at BN_MBIT on its port toward the
# receiver with RoCE in a "red ... ecn" class; no veth tuned.  Knobs:
# the documented setting for small line rates (congestion-control.md,
# "DCQCN at small line rates"), each sender's line_rate the bottleneck's
# (as the rig: each NIC as fast as the bottleneck).
#   run "on":  2:1, cc/enable 1 on every device: utilisation (tbf bytes
#              sent / (BN_MBIT * time), last half) >= 90 %, Jain's index
#              over the senders' rates in the last half >= 0.95, 0 drops
#              at the bottleneck, 0 out_of_sequence on vroceR, nothing
#              sent again (sequence NAKs, timeouts, implied NAKs);
#   run "on4": the same with four senders, Jain >= 0.90 (on the debug
#              kernel's smaller scale only measured: see below);
#   run "off": 2:1, cc/enable 0 (no pacing, no reaction): the queue
#              overflows, drops > 0 (RC's go-back-N retransmits, the run
#              completes).
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"
. "$VROCE_SRC/userspace-tests/lib/cc.sh"
. "$VROCE_SRC/userspace-tests/lib/incast.sh"

# The debug kernel (KASAN, lockdep, kmemleak) moves only about 9.4 Mb/s
# through this topology in all (both senders unpaced, 4.8 Mb/s each), and
# its bridge dropped at a 20 Mb/s tbf that was sent 9.4: the CPU, not the
# tbf, was the bottleneck.  There the bottleneck and the senders' line
# rate are 3 Mb/s, and the reaction point's periods 7 times longer (the
# CNP gap at the knob's top, 4095 us), so rates and time scale together
# (rp_ai_rate cannot go below 1 Mb/s).  Not re-measured there since the
# knobs for small line rates (7 Dec 2026).
if [ "${VROCE_TIME_SCALE:-1}" -eq 1 ]; then
	bn=20 tstretch=1 on_s=40 off_s=20
else
	bn=3 tstretch=7 on_s=80 off_s=30
fi
BN_MBIT=${VT_BN_MBIT:-$bn}
SND_MBIT=${VT_SND_MBIT:-$BN_MBIT}
ON_S=${VT_BOTTLENECK_SECS:-$on_s}
OFF_S=${VT_BOTTLENECK_OFF_SECS:-$off_s}
RED_LIMIT=${VT_RED_LIMIT:-1000000}
RED_MIN=${VT_RED_MIN:-15000}
RED_MAX=${VT_RED_MAX:-60000}
RED_P=${VT_RED_P:-0.2}
MSG=${VT_MSG:-65536}
MODE=${VT_MODE:-both}

vt_incast_setup 4

cc_knobs() {
	local d n
	for d in vroceS1 vroceS2 vroceS3 vroceS4; do
		vt_cc_set $d line_rate "$SND_MBIT"
		vt_cc_set $d rp_time_reset "${VT_RP_TIME_RESET:-$((15000 * tstretch))}"
		vt_cc_set $d rp_threshold "${VT_RP_TH:-8}"
		vt_cc_set $d rp_byte_reset "${VT_RP_BYTE_RESET:-0}"
		vt_cc_set $d rp_ai_rate "${VT_RP_AI:-1}"
		vt_cc_set $d rp_hai_rate "${VT_RP_HAI:-2}"
		vt_cc_set $d rp_dce_tcp_rtt "${VT_RP_RTT:-$((5000 * tstretch))}"
		vt_cc_set $d rp_rate_reduce_monitor_period "${VT_RP_MON:-$((20000 * tstretch))}"
		vt_cc_set $d rp_min_rate "${VT_RP_MIN:-1}"
		vt_cc_set $d rp_dce_tcp_g "${VT_RP_G:-960}"
	done
	# (4095 us is the knob's top, mlx5's too)
	n=$((1000 * tstretch))
	vt_cc_set vroceR np_min_time_between_cnps "${VT_NP_N:-$((n < 4095 ? n : 4095))}"
}
cc_knobs

# ok_on NAME JAIN_MIN: DCQCN held the bottleneck: utilisation >= 0.90,
# Jain >= JAIN_MIN, nothing dropped, reordered or sent again.
ok_on() {
	awk -v u="$M_UTIL" 'BEGIN { exit !(u >= 0.90) }' || vt_fail "$1: utilisation $M_UTIL < 0.90 ($M_RES)"
	awk -v j="$M_JAIN" -v m="$2" 'BEGIN { exit !(j >= m) }' || vt_fail "$1: Jain $M_JAIN < $2 ($M_RES)"
	[ "$M_DROPS" = 0 ] || vt_fail "$1: $M_DROPS drops at the bottleneck ($M_RES)"
	[ "$M_OOO" = 0 ] || vt_fail "$1: out_of_sequence $M_OOO ($M_RES)"
	[ "$M_RESENT" = 0 ] || vt_fail "$1: $M_RESENT packets sent again ($M_RES)"
}

res=
if [ "$MODE" != off ]; then
	for d in "${INCAST_DEVS[@]}"; do vt_cc_set $d enable 1; done
	vt_incast_measure on "$ON_S" 2
	[ "$MODE" != both ] || ok_on on 0.95
	res=$M_RES
	if [ "$MODE" = both ] || [ "$MODE" = on4 ]; then
		vt_incast_measure on4 "$ON_S" 4
		# at the debug kernel's 3 Mb/s a fair share (0.75) is below
		# rp_min_rate's floor of 1 Mb/s: four senders cannot fit
		# (incast.py --bn-mbps 3: 6,597 drops); measured, not held
		[ "$MODE" != both ] || [ "$tstretch" != 1 ] || ok_on on4 0.90
		res="$res; $M_RES"
	fi
fi
if [ "$MODE" = both ] || [ "$MODE" = off ]; then
	for d in "${INCAST_DEVS[@]}"; do vt_cc_set $d enable 0; done
	vt_incast_measure off "$OFF_S" 2
	res="$res; $M_RES"
	[ "$MODE" != both ] || [ "$M_DROPS" -gt 0 ] || vt_fail "DCQCN off: no drops at the bottleneck ($res)"
fi
echo "RESULT: $res"
vt_pass "mode $MODE: $res"
