#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# topology: pair
# timeout: 300
#
# PFC across the two-VM wire (issue 12: test PFC where its frames travel;
# 15-pfc-backpressure does it on a veth pair).  Both VMs run vroce on eth0
# with PFC on priority 3 (qos/pfc).  VM b is the slow receiver: fault
# injection holds everything it receives for 100 ms in its 2 MiB buffer.
# VM a's QPs run at priority 3 (traffic class 106) at 1 Gb/s (a pause of
# 0xffff quanta lasts 34 ms there: see 15 for why not 10 Gb/s), with the
# PFC watchdog at 1000 ms (b pauses a for 100 ms and more, legitimately).
# rc_integrity (a serves, b connects; four QPs, every byte checked) moves
# data both ways.  Pass: both ends pass; b sent PFC frames over the wire
# (tx_prio3_pause > 0) and its buffer dropped nothing (rx_buffer_drop,
# held_overflow 0); a received them and was paused (rx_prio3_pause and
# rx_prio3_pause_duration > 0).  The emulated wire itself loses frames
# when a VM falls behind (41-netem-integrity), so RC's recovery counters
# are logged here, not held to 0: 15 holds them on the veth pair.
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"
. "$VROCE_SRC/userspace-tests/lib/cc.sh"

BIN=$VROCE_SRC/userspace-tests/bin/rc_integrity
DEV=dev0
PORT=19878
FI=/sys/kernel/debug/vroce/$DEV
QOS=/sys/class/net/eth0/qos

[ -x "$BIN" ] || vt_skip "$BIN not built (make -C userspace-tests tests)"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
	vt_skip "no debugfs"

vt_load_vroce
vt_link_add "$DEV" eth0
vt_wait_for "[ \"\$(vt_port_state $DEV)\" = ACTIVE ]" 30 ||
	vt_fail "$DEV port not ACTIVE: $(vt_port_state "$DEV")"
vt_wait_for "vt_gid_index $DEV $VROCE_SELF_IP" 30 ||
	vt_fail "no RoCE v2 GID for $VROCE_SELF_IP"
gid=$(vt_gid_index "$DEV" "$VROCE_SELF_IP")
vt_knob_ok "$QOS/pfc" 0,0,0,1,0,0,0,0 0,0,0,1,0,0,0,0
if [ "$VROCE_ROLE" = a ]; then
	vt_knob_ok "$(vt_sys "$DEV")/tc/1/traffic_class" 106 "Global tclass=106"
	vt_knob_ok "$QOS/pfc_prevention_tout" 1000 1000
	vt_cc_set "$DEV" line_rate 1000
else
	[ -d "$FI" ] || vt_fail "no $FI"
	echo 100 >"$FI/delay_ms"
	echo 1000 >"$FI/rx_delay_permille"
	trap 'echo 0 >"$FI/rx_delay_permille" 2>/dev/null || true' EXIT
fi
declare -A c0 c1
vt_counters "$DEV" c0
d0=$(cat "$FI/counters/rx_buffer_drop")
vt_barrier ready || vt_fail "peer did not set up"

out=$VROCE_JOB/$VT_NAME.out.$VROCE_ROLE
rc=0
if [ "$VROCE_ROLE" = a ]; then
	vt_run_timeout 200 "$BIN" -d "$DEV" -g "$gid" -p "$PORT" >"$out" 2>&1 || rc=$?
else
	vt_run_timeout 200 "$BIN" -d "$DEV" -g "$gid" -p "$PORT" -q 4 -n 3 -D 8 \
		-s 65536 -t 20 "$VROCE_PEER_IP" >"$out" 2>&1 || rc=$?
fi
[ "$VROCE_ROLE" = a ] || echo 0 >"$FI/rx_delay_permille"
vt_counters "$DEV" c1
drops=$(($(cat "$FI/counters/rx_buffer_drop") - d0))
d() { echo $((c1[$1] - c0[$1])); }
recovery=
for c in out_of_sequence duplicate_request implied_nak_seq_err packet_seq_err \
	local_ack_timeout_err rx_resequenced; do
	[ "$(d $c)" = 0 ] || recovery="$recovery $c+$(d $c)"
done
vt_log "$VROCE_ROLE: tx_prio3_pause +$(d tx_prio3_pause), rx_prio3_pause +$(d rx_prio3_pause), paused $(d rx_prio3_pause_duration) us, rx_buffer_drop +$drops; recovery:${recovery:- none}"
vt_barrier "done" || true
[ "$rc" -eq 0 ] || vt_fail "rc_integrity ($VROCE_ROLE) exit $rc: $(grep -m3 FAIL "$out" || tail -3 "$out")"
grep -q "rc_integrity: PASS" "$out" || vt_fail "no PASS line from rc_integrity ($VROCE_ROLE)"

if [ "$VROCE_ROLE" = a ]; then
	[ "$(d rx_prio3_pause)" -gt 0 ] && [ "$(d rx_prio3_pause_duration)" -gt 0 ] ||
		vt_fail "a was not paused over the wire: rx_prio3_pause +$(d rx_prio3_pause), rx_prio3_pause_duration +$(d rx_prio3_pause_duration) us"
	vt_expect_eq "a: pfc_watchdog_events (+)" "$(d pfc_watchdog_events)" 0
	vt_pass "paused by b over the wire: $(d rx_prio3_pause) PFC frames, $(d rx_prio3_pause_duration) us"
else
	[ "$(d tx_prio3_pause)" -gt 0 ] || vt_fail "b sent no PFC frame (tx_prio3_pause +0)"
	vt_expect_eq "b: receive-buffer drops" "$drops" 0
	vt_expect_eq "b: held_overflow" "$(cat "$FI/counters/held_overflow")" 0
	vt_pass "$(d tx_prio3_pause) PFC frames sent over the wire, 0 receive-buffer drops; $(grep "rc_integrity: PASS" "$out" | cut -d: -f2-)"
fi
