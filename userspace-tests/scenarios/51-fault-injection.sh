#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# debug: yes
#
# Fault injection through debugfs (Documentation/fault-injection.md).  Two
# namespaces on a veth pair, a vroce device in each.  First fail_alloc_next
# = 1 on vroceA: the next object creation (ibv_rc_pingpong's PD) fails
# cleanly, the counter says so, the knob is back at 0.  Then vroceA drops,
# duplicates, reorders and corrupts 1-2 % of what it sends and receives
# while rc_integrity (every byte checked) runs between the two devices:
# its QPs are created fine, it must pass, and every injection counter used
# must have moved.
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

BIN=$VROCE_SRC/userspace-tests/bin/rc_integrity
PORT=19876
FI=/sys/kernel/debug/vroce/vroceA

[ -x "$BIN" ] || vt_skip "$BIN not built (make -C userspace-tests tests)"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
	vt_skip "no debugfs"

vt_load_vroce
vt_vroce_netns_pair
[ -d "$FI" ] || vt_fail "no $FI"

# fail_alloc_next: the next creation fails, nothing is left behind
echo 1 >"$FI/fail_alloc_next"
rc=0
out=$(ip netns exec vtA timeout 20 ibv_rc_pingpong -d vroceA -g 3 2>&1) || rc=$?
vt_log "ibv_rc_pingpong with fail_alloc_next=1: exit $rc: $out"
[ "$rc" -ne 0 ] || vt_fail "ibv_rc_pingpong succeeded with fail_alloc_next=1"
vt_expect_eq "alloc_fail counter" "$(cat "$FI/counters/alloc_fail")" 1
vt_expect_eq "fail_alloc_next after" "$(cat "$FI/fail_alloc_next")" 0

knobs="tx_drop_permille=10 tx_dup_permille=10 tx_reorder_permille=20
tx_corrupt_permille=10 rx_drop_permille=10 rx_dup_permille=10
rx_reorder_permille=20 rx_corrupt_permille=10"
for kv in $knobs; do
	echo "${kv#*=}" >"$FI/${kv%=*}"
done
trap 'for kv in $knobs; do echo 0 >"$FI/${kv%=*}"; done 2>/dev/null || true' EXIT

srv=$VROCE_JOB/$VT_NAME.server
cli=$VROCE_JOB/$VT_NAME.client
ip netns exec vtA timeout -k 5 240 "$BIN" -d vroceA -p "$PORT" \
	>"$srv" 2>&1 &
spid=$!
crc=0 src=0
ip netns exec vtB timeout -k 5 240 "$BIN" -d vroceB -p "$PORT" -q 2 -n 12 \
	-D 2 -s 262144 -t 14 -r 7 192.168.77.1 >"$cli" 2>&1 || crc=$?
wait "$spid" || src=$?
cat "$cli" >&2
[ "$crc" -eq 0 ] || vt_fail "rc_integrity client exit $crc: $(grep -m3 FAIL "$cli" || tail -3 "$cli")"
[ "$src" -eq 0 ] || vt_fail "rc_integrity server exit $src: $(grep -m3 FAIL "$srv" || tail -3 "$srv")"
grep -q "rc_integrity: PASS" "$cli" || vt_fail "no PASS line from the client"

moved=
for c in tx_drop tx_dup tx_reorder tx_corrupt rx_drop rx_dup rx_reorder rx_corrupt; do
	v=$(cat "$FI/counters/$c")
	[ "$v" -gt 0 ] || vt_fail "injection counter $c did not move"
	moved="$moved $c=$v"
done
vt_pass "$(grep "rc_integrity: PASS" "$cli" | cut -d: -f2-); injected:$moved; fail_alloc_next failed one PD"
