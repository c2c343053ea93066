#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# TIMELY built in (issue 26): the rate follows the round trip.  Two
# namespaces on a veth pair, congestion control on, vroceA's line rate
# 100 Mb/s and cc/algo timely, timely_t_low_us 10000 and timely_t_high_us
# 20000 (an emulated guest's RTT stays below 10 ms); one cc_qp pair,
# client on vroceA, 64 KiB WRITEs.
#   1. No added delay (RTTs of a few hundred us, below timely_t_low_us):
#      the flow runs TIMELY (cc_algo, an RTT sample in cc_timely_rtt_us)
#      and reaches the line rate (cc_rate_kbps 100000).
#   2. netem delays vtB's packets (the ACKs) by 30 ms: RTT above
#      timely_t_high_us, so the rate falls below the line rate and the
#      pacer holds the QP to it (cc_pace_kbps = cc_rate_kbps).
#   3. The delay removed: the rate climbs back to the line rate by
#      timely_add_mbps per sample.
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"
. "$VROCE_SRC/userspace-tests/lib/cc.sh"

LINE_MBPS=100

vt_cc_pair
vt_cc_set vroceA line_rate "$LINE_MBPS"
vt_cc_set vroceA algo timely
vt_cc_set vroceA timely_t_high_us 20000
vt_cc_set vroceA timely_t_low_us 10000
vt_ccqp_start t 19941
q=${CCQP_LQPN[t]}
attr() { vt_qp_attr vroceA "$q" "$1"; }
writes() {
	local i
	for ((i = 0; i < $1; i++)); do
		vt_ccqp_cmd t 120 w 0 65536 >/dev/null
	done
}

# at_line: one more WRITE, then is the flow at the line rate?  (A guest
# stall can make one sample long; the next ones bring the rate back.)
# shellcheck disable=SC2317
at_line() {
	vt_ccqp_cmd t 120 w 0 65536 >/dev/null
	[ "$(attr cc_rate_kbps)" = $((LINE_MBPS * 1000)) ]
}

# 1. no delay
writes 10
vt_expect_eq "flow's algorithm" "$(attr cc_algo)" timely
vt_wait_for at_line 120 ||
	vt_fail "rate $(attr cc_rate_kbps) kb/s without delay, RTT $(attr cc_timely_rtt_us) us"
rtt1=$(attr cc_timely_rtt_us)
[ "$rtt1" -gt 0 ] || vt_fail "no RTT sample"

# 2. 30 ms more on the way back
ip netns exec vtB tc qdisc add dev vtB root netem delay 30ms
writes 10
rtt2=$(attr cc_timely_rtt_us)
rate2=$(attr cc_rate_kbps)
[ "$rtt2" -gt 20000 ] || vt_fail "RTT sample $rtt2 us with 30 ms added"
[ "$rate2" -lt $((LINE_MBPS * 1000)) ] ||
	vt_fail "rate $rate2 kb/s with the RTT above timely_t_high_us"
vt_expect_eq "pacer's rate with the delay" "$(attr cc_pace_kbps)" "$rate2"

# 3. the delay removed
ip netns exec vtB tc qdisc del dev vtB root
vt_wait_for at_line 120 ||
	vt_fail "rate $(attr cc_rate_kbps) kb/s 120 s after the delay went"
vt_ccqp_stop t
vt_cc_set vroceA algo dcqcn
vt_pass "RTT $rtt1 us: line rate; RTT $rtt2 us: $rate2 kb/s, paced; back to the line rate after the delay"
