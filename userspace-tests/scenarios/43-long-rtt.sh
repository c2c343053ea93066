#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 400
#
# A round trip longer than the local ACK timeout.  Two namespaces on a
# veth pair, a vroce device in each, netem delaying vtB's egress by 250 ms,
# so every round trip takes longer than the QPs' timeout (14, raised to
# vroce's floor 15: 134 ms).  A NIC with a fixed timeout fires while
# nothing is lost and resends what arrives anyway; vroce waits at least
# its measured round trip (srtt + 4 rttvar), a timeout resends one packet,
# and ACKs of what it rewound complete that without a resend.
# rc_integrity runs 2 RC QPs of WRITEs, READs and SENDs of up to 256 KiB,
# every byte checked; each QP is a requester and a responder, so vroceB's
# requests and vroceA's ACKs are the late ones.
# Pass: both sides PASS; summed over both devices, at most 12 retransmit
# timeouts per QP (the first messages go out before any round trip is
# measured; READ re-requests; times VROCE_TIME_SCALE on the debug kernel,
# 48 measured there with a second VM running) and duplicate requests at
# most 20 % of the packets received.  Measured: 15-20 timeouts and 4.5-9.4 %
# duplicates (6.1, 6.12); without the round-trip estimate and the timeout
# recovery (at 561ee27) 158 timeouts and 36 % on 6.12.  The runner fails
# the scenario on any kernel splat.
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"
. "$VROCE_SRC/userspace-tests/lib/cc.sh"

BIN=$VROCE_SRC/userspace-tests/bin/rc_integrity
PORT=19883
QPS=2
[ -x "$BIN" ] || vt_skip "$BIN not built (make -C userspace-tests tests)"
command -v tc >/dev/null || vt_skip "no tc in the guest"
modprobe sch_netem 2>/dev/null || vt_skip "no sch_netem module for $VROCE_ABI"

# sum NAME: the counter summed over both devices
sum() { echo $(($(vt_counter vroceA "$1") + $(vt_counter vroceB "$1"))); }

# shellcheck disable=SC2119
vt_load_vroce
vt_vroce_netns_pair
ip netns exec vtB tc qdisc add dev vtB root netem limit 10000 delay 250ms ||
	vt_fail "netem on vtB"
to0=$(sum local_ack_timeout_err)
dup0=$(sum duplicate_request)
rx0=$(sum rx_packets)

srv=$VROCE_JOB/$VT_NAME.server
cli=$VROCE_JOB/$VT_NAME.client
ip netns exec vtA timeout -k 5 300 "$BIN" -d vroceA -p $PORT >"$srv" 2>&1 &
spid=$!
vt_wait_for "ip netns exec vtA ss -ltn | grep :$PORT >/dev/null" 20 ||
	vt_fail "rc_integrity server did not listen"
crc=0 src=0
ip netns exec vtB timeout -k 5 300 "$BIN" -d vroceB -p $PORT -q $QPS -n 4 \
	-D 2 -s 262144 -t 14 192.168.77.1 >"$cli" 2>&1 || crc=$?
wait "$spid" || src=$?
[ "$crc" -eq 0 ] || { cat "$cli" >&2; vt_fail "rc_integrity client exit $crc"; }
[ "$src" -eq 0 ] || { cat "$srv" >&2; vt_fail "rc_integrity server exit $src"; }
grep -q "rc_integrity: PASS" "$cli" || vt_fail "no PASS line from the client"

to=$(($(sum local_ack_timeout_err) - to0))
dup=$(($(sum duplicate_request) - dup0))
rx=$(($(sum rx_packets) - rx0))
vt_log "$to retransmit timeouts, $dup duplicate requests in $rx packets received"
for d in vroceA vroceB; do
	vt_log "$d: $(rdma statistic show link $d/1 | tr -s ' \n' ' ')"
done
# the debug kernel's slower, burstier processing adds round-trip noise
maxto=$((12 * 2 * QPS * ${VROCE_TIME_SCALE:-1}))
[ "$to" -le "$maxto" ] ||
	vt_fail "$to retransmit timeouts for $QPS QPs a side over a 250 ms path, want <= $maxto"
[ $((dup * 100)) -le $((rx * 20)) ] ||
	vt_fail "$dup duplicate requests in $rx packets, want <= 20 %"
vt_pass "250 ms one-way delay, timeout 134 ms: $(grep "rc_integrity: PASS" "$cli" | sed 's/.*PASS //'); $to retransmit timeouts, $dup duplicate requests in $rx packets"
