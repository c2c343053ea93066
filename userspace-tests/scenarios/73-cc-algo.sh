#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# debug: yes
#
# The congestion-control algorithm interface (issue 26): the out-of-tree
# example (userspace-tests/cc-example/vroce_cc_example.ko: each CNP
# halves the rate, each period adds step/1024 of the line rate) loaded,
# selected, run and unloaded, and the built-in "none".
#
# Two namespaces on a veth pair, congestion control on, vroceA's line rate
# 10 Gb/s; one cc_qp pair, client on vroceA; CNPs made by
# tools/cnp_forge.py in vtB, so each one is counted.
#   1. cc/algos lists "dcqcn none timely", cc/algo is dcqcn.
#   2. The example loaded with a 100 s period (no increase while we look):
#      cc/algos adds it; vroceA chooses it, and rmmod is refused (the
#      device names it).  3 CNPs: the QP's flow runs the example
#      (cc_algo), which saw 3 CNPs and holds 1/8 of the line rate, and the
#      pacer holds the QP to exactly that (cc_pace_kbps 1250000).  Data
#      moves.
#   3. vroceA back to dcqcn: rmmod still refused (the flow holds the
#      example until its next event); one CNP starts the flow over with
#      dcqcn; now rmmod succeeds and cc/algos is "dcqcn none timely" again.
#   4. Per priority: cc/algo "dcqcn,none,dcqcn,..." and a second pair at
#      traffic class 32 (DSCP 8, priority 1): CNPs to it start "none",
#      the first QP stays with dcqcn.  Then "none" for all: a CNP is
#      handled and limits nothing (cc_pace_kbps 0).
#   5. Every event type reaches an algorithm: the probe (vroce_cc_probe.ko,
#      counts what it gets) chosen; writes with 5 % of vroceA's packets
#      dropped, then 2 CNPs: TX events (with their bytes), ACKs, RTT
#      samples and NACKs (sequence NAKs or timeouts) counted, exactly 2
#      CNPs.
#   6. The example again, 1 ms period, a whole line rate per step: after
#      one CNP the timer brings the rate back (cc_example_rate 2^20,
#      cc_pace_kbps 0).  The QP is destroyed with that flow running; then
#      rmmod succeeds: the destroyed QP let go of the module.
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"
. "$VROCE_SRC/userspace-tests/lib/cc.sh"

KO=$VROCE_SRC/userspace-tests/bin/kmod/$VROCE_ABI/cc-example/vroce_cc_example.ko
PROBE=${KO%/*}/vroce_cc_probe.ko
FORGE=$VROCE_SRC/userspace-tests/tools/cnp_forge.py
LINE_MBPS=10000
LINE=1048576	# VROCE_CC_RATE_LINE
[ -f "$KO" ] && [ -f "$PROBE" ] || vt_fail "$KO or $PROBE not built (make -C userspace-tests kmod)"

vt_cc_pair
vt_cc_set vroceA line_rate "$LINE_MBPS"
vt_expect_eq "cc/algos" "$(vt_cc_get vroceA algos)" "dcqcn none timely"
vt_expect_eq "cc/algo" "$(vt_cc_get vroceA algo)" dcqcn

vt_ccqp_start cc 19931
vt_ccqp_cmd cc 30 w 0 4096 >/dev/null
q=${CCQP_LQPN[cc]}
attr() { vt_qp_attr vroceA "$q" "$1"; }

# cnps N [QPN]: send N CNPs to the client's QP (or QPN); wait until all
# N are handled.
declare -A before now
cnps() {
	local out
	vt_counters vroceA before
	out=$(ip netns exec vtB python3 "$FORGE" -n "$1" 192.168.77.2 192.168.77.1 "${2:-$q}" 2>&1) ||
		vt_fail "cnp_forge: $out"
	vt_wait_for "vt_counters vroceA now &&
		[ \$((\${now[rp_cnp_handled]} - \${before[rp_cnp_handled]})) -ge $1 ]" 10 ||
		vt_fail "$1 CNPs not handled: rp_cnp_handled ${before[rp_cnp_handled]} -> ${now[rp_cnp_handled]}, rp_cnp_ignored ${before[rp_cnp_ignored]} -> ${now[rp_cnp_ignored]}"
}

# 2. the example, chosen
insmod "$KO" period_us=100000000 || vt_fail "insmod $KO"
vt_expect_eq "cc/algos with the example" "$(vt_cc_get vroceA algos)" "dcqcn none timely example"
vt_cc_set vroceA algo example
rmmod vroce_cc_example 2>/dev/null && vt_fail "rmmod succeeded while vroceA names the example"
cnps 3
vt_expect_eq "flow's algorithm" "$(attr cc_algo)" example
vt_expect_eq "example: CNPs seen" "$(attr cc_example_cnps)" 3
vt_expect_eq "example: rate after 3 halvings" "$(attr cc_example_rate)" $((LINE / 8))
vt_expect_eq "pacer's rate (kb/s)" "$(attr cc_pace_kbps)" $((LINE_MBPS * 1000 / 8))
vt_ccqp_cmd cc 60 w 0 65536 >/dev/null

# 3. back to dcqcn
vt_cc_set vroceA algo dcqcn
rmmod vroce_cc_example 2>/dev/null && vt_fail "rmmod succeeded while a flow runs the example"
cnps 1
vt_expect_eq "flow's algorithm after the switch" "$(attr cc_algo)" dcqcn
rmmod vroce_cc_example || vt_fail "rmmod refused with no user left"
vt_expect_eq "cc/algos after rmmod" "$(vt_cc_get vroceA algos)" "dcqcn none timely"

# 4. per priority, then none for all
vt_ccqp_start p1 19932 -T 32
q1=${CCQP_LQPN[p1]}
vt_ccqp_cmd p1 30 w 0 4096 >/dev/null
vt_cc_set vroceA algo dcqcn,none,dcqcn,dcqcn,dcqcn,dcqcn,dcqcn,dcqcn
cnps 2 "$q1"
vt_expect_eq "priority 1's flow" "$(vt_qp_attr vroceA "$q1" cc_algo)" none
vt_expect_eq "priority 1's pacer rate" "$(vt_qp_attr vroceA "$q1" cc_pace_kbps)" 0
cnps 1
vt_expect_eq "priority 0's flow" "$(attr cc_algo)" dcqcn
vt_ccqp_stop p1
vt_cc_set vroceA algo none
cnps 2
vt_expect_eq "flow's algorithm" "$(attr cc_algo)" none
vt_expect_eq "none: pacer's rate" "$(attr cc_pace_kbps)" 0

# 5. every event type: the probe
insmod "$PROBE" || vt_fail "insmod $PROBE"
vt_cc_set vroceA algo probe
vt_fault vroceA tx_drop_permille 50
for _ in 1 2 3 4 5 6 7 8; do
	vt_ccqp_cmd cc 120 w 0 65536 >/dev/null
done
vt_fault vroceA tx_drop_permille 0
cnps 2
vt_expect_eq "flow's algorithm" "$(attr cc_algo)" probe
probe=
for e in tx tx_bytes ack rtt last_rtt_us nack nack_kinds; do
	v=$(attr "cc_probe_$e")
	[ "$v" -gt 0 ] || vt_fail "the probe saw no $e: cc_probe_$e $v"
	probe+=" $e $v"
done
vt_expect_eq "probe: CNPs" "$(attr cc_probe_cnp)" 2
vt_expect_eq "probe: timer events (it asks for none)" "$(attr cc_probe_timer)" 0

# 6. the example's timer, and a QP destroyed with its flow running
insmod "$KO" period_us=1000 step=1024 || vt_fail "insmod $KO (again)"
vt_cc_set vroceA algo example
cnps 1
vt_expect_eq "flow's algorithm" "$(attr cc_algo)" example
rmmod vroce_cc_probe || vt_fail "rmmod of the probe refused after its flow moved on"
# shellcheck disable=SC2317
back_at_line() { [ "$(attr cc_example_rate)" = "$LINE" ]; }
vt_wait_for back_at_line 10 ||
	vt_fail "the example's timer did not bring the rate back: cc_example_rate $(attr cc_example_rate)"
vt_expect_eq "recovered: pacer's rate" "$(attr cc_pace_kbps)" 0
vt_ccqp_cmd cc 60 w 0 65536 >/dev/null
vt_ccqp_stop cc
vt_cc_set vroceA algo dcqcn
rmmod vroce_cc_example || vt_fail "rmmod refused after the QP running the example was destroyed"
vt_pass "example loaded, chosen, 3 CNPs -> 1/8 line rate paced at $((LINE_MBPS * 125)) kb/s, switched to dcqcn and none at the next event, per priority, probe:$probe, timer recovery, unloaded after its last user"
