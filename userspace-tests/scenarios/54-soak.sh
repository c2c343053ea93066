#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
#
# Soak: RC integrity under 1 % injected loss for VT_SOAK_SECS seconds
# (default 60 in `make check`; the long version is
# `VT_SOAK_SECS=600 ci/run-tests.sh --filter 54-soak`, at most 780).  Two
# namespaces on a veth pair, a vroce device in each; both devices drop 1 %
# of the packets they send (debugfs tx_drop_permille = 10), so every
# message of any length loses packets now and then, ACKs and READ
# responses included.  rc_integrity runs back to back with a new pattern
# seed each time (4 QPs, up to 4 iterations in flight per QP, messages of
# 1 B to 256 KiB) until the time is up.  Pass: every run verified every
# byte (a corrupted or lost byte fails the run), none stalled (-S: no
# completion for 60 s is a hang and fails), the drops happened, and the
# totals are printed: duration, runs, bytes verified.
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

BIN=$VROCE_SRC/userspace-tests/bin/rc_integrity
PORT=19877
SECS=${VT_SOAK_SECS:-60}
[ "$SECS" -le 780 ] || SECS=780

[ -x "$BIN" ] || vt_skip "$BIN not built (make -C userspace-tests tests)"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
	vt_skip "no debugfs"

vt_load_vroce
vt_vroce_netns_pair
for d in vroceA vroceB; do
	echo 10 >"/sys/kernel/debug/vroce/$d/tx_drop_permille"
done
trap 'for d in vroceA vroceB; do echo 0 >"/sys/kernel/debug/vroce/$d/tx_drop_permille"; done 2>/dev/null || true' EXIT

srv=$VROCE_JOB/$VT_NAME.server
cli=$VROCE_JOB/$VT_NAME.client
# sum FIELD FILE: the byte count before "FIELD" in rc_integrity's PASS line
# ("write N B, read N B, send N B, final N B verified").
sum_field() {
	sed -n "s/.*rc_integrity: PASS.* $1 \([0-9]*\) B.*/\1/p" "$2"
}

runs=0 bytes=0 start=$SECONDS
while [ $((SECONDS - start)) -lt "$SECS" ]; do
	runs=$((runs + 1))
	ip netns exec vtA timeout -k 5 300 "$BIN" -d vroceA -p "$PORT" -S 60 \
		>"$srv" 2>&1 &
	spid=$!
	vt_wait_for "ip netns exec vtA ss -ltn | grep ':$PORT ' >/dev/null" 20 ||
		vt_fail "run $runs: rc_integrity server did not listen: $(tail -3 "$srv")"
	crc=0 src=0
	ip netns exec vtB timeout -k 5 300 "$BIN" -d vroceB -p "$PORT" -q 4 \
		-n 48 -D 4 -s 262144 -t 14 -r 7 -S 60 -x "$runs" \
		192.168.77.1 >"$cli" 2>&1 || crc=$?
	wait "$spid" || src=$?
	[ "$crc" -eq 0 ] || vt_fail "run $runs (seed $runs) client exit $crc after $((SECONDS - start)) s: $(grep -m3 FAIL "$cli" || tail -3 "$cli")"
	[ "$src" -eq 0 ] || vt_fail "run $runs (seed $runs) server exit $src: $(grep -m3 FAIL "$srv" || tail -3 "$srv")"
	for f in write read send final; do
		n=$(sum_field "$f" "$cli")
		[ -n "$n" ] || vt_fail "run $runs: no PASS line: $(tail -2 "$cli")"
		bytes=$((bytes + n))
	done
	vt_log "run $runs: $(grep -o 'PASS.*' "$cli")"
done
elapsed=$((SECONDS - start))

drops=0
for d in vroceA vroceB; do
	drops=$((drops + $(cat "/sys/kernel/debug/vroce/$d/counters/tx_drop")))
done
[ "$drops" -gt 0 ] || vt_fail "no packet was dropped"
vt_pass "soak ${elapsed} s at 1 % loss: $runs runs, $bytes B verified by the client, 0 bad bytes, $drops packets dropped"
