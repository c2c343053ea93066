#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1500
# debug: yes
#
# Chaos: vroce devices torn down under live RC traffic, processes killed
# mid-transfer, injected allocation failures, 10,000 QP create/destroy
# cycles; afterwards nothing is left.  Two namespaces on a veth pair, a
# vroce device in each, rc_integrity (server in vtA, client in vtB, four
# QPs, messages up to 256 KiB) as the traffic.
#  1. `rdma link delete vroceB` while traffic runs: the delete returns
#     without waiting for the client (disassociate_ucontext; 55-disassociate
#     checks what the process sees), the client is killed after it, the
#     device is gone and the server ends (an error completion, not a hang).
#  2. `ip link del` of the veth under traffic: the ports go down, both
#     programs fail (an error completion, or the side that only waits for
#     messages stops after -S 8 s without a completion), then both devices
#     go away and the delete, which waited for them, completes.
#  3. `rmmod vroce` under traffic is refused (the processes' ring
#     mappings pin the module) and the traffic goes on; once the programs
#     are killed rmmod succeeds and removes both devices.
#  4. SIGKILL of both sides mid-transfer (eight QPs, 1 MiB messages, 256
#     KiB on the debug kernel): their QPs disappear and a new
#     rc_integrity passes on the devices.
#  5. chaos_objects alloc: fail_alloc_next injected into PD, CQ, MR, MW,
#     SRQ and QP creation and a translating rereg_mr: every failure is
#     ENOMEM to the program, retries succeed, the counters add up.
#  6. chaos_objects churn: 10,000 QP create/destroy cycles (2,500 on the
#     debug kernel; one in 16 through INIT/RTR/RTS with a receive posted).
#  7. `rdma resource` of both devices is back to what they had when
#     created (ib_core's own MAD objects) and the devices delete.
# Throughout, the runner fails the scenario on any kernel splat, and on
# the debug kernel on any kmemleak suspect allocated during it.
set -Eeuo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

BIN=$VROCE_SRC/userspace-tests/bin/rc_integrity
OBJ=$VROCE_SRC/userspace-tests/bin/chaos_objects
PORT=19877
# The debug kernel (VROCE_TIME_SCALE > 1) runs 2,500 cycles: KASAN and
# kmemleak see a cycle's bugs in its first hundred, and 10,000 took 139 s
# there.
CHURN=10000
[ "${VROCE_TIME_SCALE:-1}" -le 1 ] || CHURN=2500
CHURN=${VT_CHAOS_CHURN:-$CHURN}

[ -x "$BIN" ] || vt_skip "$BIN not built (make -C userspace-tests tests)"
[ -x "$OBJ" ] || vt_skip "$OBJ not built (make -C userspace-tests tests)"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
	vt_skip "no debugfs"

# an unexpected failure (set -e) says where
trap 'vt_log "line $LINENO: \"$BASH_COMMAND\" failed"' ERR

summary=()
note() {
	vt_log "$*"
	summary+=("$*")
}

# counter DEV NAME: one hw counter of DEV (0 when the device is gone).
counter() {
	local v
	v=$(rdma statistic show link "$1/1" 2>/dev/null | tr ' ' '\n' |
		awk -v k="$2" 'f && !done { print; done = 1 } $0 == k { f = 1 }') || true
	echo "${v:-0}"
}

dev_gone() { [ ! -e "$(vt_sys "$1")" ]; }

# res DEV: "pd N cq N qp N ..." of `rdma resource show` for DEV.
res() {
	rdma resource show 2>/dev/null |
		awk -v d="$1:" '$2 == d { $1 = ""; $2 = ""; sub(/^ +/, ""); print }'
}

# pair_up: namespaces vtA/vtB on a veth, vroceA and vroceB ACTIVE.
pair_up() {
	ip netns del vtA 2>/dev/null || true
	ip netns del vtB 2>/dev/null || true
	vt_vroce_netns_pair
	vt_log "vroceA and vroceB up"
}

# kill_child PID...: SIGKILL the programs these timeout(1) processes (from
# ip netns exec) run; one may have ended already.
kill_child() {
	local p c
	for p in "$@"; do
		c=$(pgrep -P "$p" | sed -n 1p || true)
		[ -z "$c" ] || kill -KILL "$c" 2>/dev/null || true
	done
}

# traffic TAG [ARGS...]: start rc_integrity (server vroceA in vtA, client
# vroceB in vtB) and wait until vroceB has sent 2000 more packets.
# Sets SPID/CPID (the timeout processes) and SOUT/COUT.
traffic() {
	local tag=$1 tx0
	shift
	SOUT=$VROCE_JOB/$VT_NAME.$tag.server
	COUT=$VROCE_JOB/$VT_NAME.$tag.client
	tx0=$(counter vroceB tx_packets)
	ip netns exec vtA timeout -k 5 120 "$BIN" -d vroceA -p "$PORT" \
		>"$SOUT" 2>&1 &
	SPID=$!
	vt_wait_for "ip netns exec vtA ss -ltn | grep :$PORT >/dev/null" 20 ||
		vt_fail "$tag: rc_integrity server did not listen"
	ip netns exec vtB timeout -k 5 120 "$BIN" -d vroceB -p "$PORT" \
		-t 14 -r 7 -S 8 "$@" 192.168.77.1 >"$COUT" 2>&1 &
	CPID=$!
	vt_wait_for "[ \$(counter vroceB tx_packets) -gt $((tx0 + 2000)) ]" 60 ||
		vt_fail "$tag: no traffic: $(tail -2 "$COUT")"
	vt_log "$tag: traffic runs"
}

BIG=(-q 4 -n 100000 -D 4 -s 262144)

vt_load_vroce
pair_up

# --- 1. rdma link delete under traffic
traffic p1 "${BIG[@]}"
t0=$SECONDS
timeout 90 rdma link delete vroceB &
dpid=$!
if ! vt_wait_for "! kill -0 $dpid 2>/dev/null" 20; then
	vt_fail "1: rdma link delete vroceB still waits after 20 s (for the client?)"
fi
pending="returned after $((SECONDS - t0))s with the client running"
kill_child "$CPID"
drc=0
wait "$dpid" || drc=$?
[ "$drc" -eq 0 ] || vt_fail "1: rdma link delete vroceB exit $drc"
t1=$((SECONDS - t0))
vt_wait_for "dev_gone vroceB" 30 || vt_fail "1: vroceB still there"
crc=0 src=0
wait "$CPID" || crc=$?
wait "$SPID" || src=$?
[ "$src" -ne 124 ] && [ "$src" -ne 137 ] ||
	vt_fail "1: rc_integrity server hung (exit $src): $(tail -3 "$SOUT")"
note "1: rdma link delete under traffic: $pending, exit 0 (client exit $crc, killed if still running; device gone after ${t1}s); server exit $src: $(grep -m1 -E 'FAIL|error' "$SOUT" || tail -1 "$SOUT")"

# --- 2. ip link del of the veth under traffic
vt_link_add vroceB vtB vtB
vt_wait_for "[ \"\$(vt_port_state vroceB)\" = ACTIVE ]" 30 ||
	vt_fail "vroceB port not ACTIVE again"
traffic p2 "${BIG[@]}"
lrc=0 t0=$SECONDS
timeout 100 ip -n vtB link del vtB || lrc=$?
t1=$((SECONDS - t0))
[ "$lrc" -eq 0 ] || vt_fail "2: ip link del vtB exit $lrc"
crc=0 src=0
wait "$CPID" || crc=$?
wait "$SPID" || src=$?
for r in "$crc" "$src"; do
	[ "$r" -ne 0 ] && [ "$r" -ne 124 ] && [ "$r" -ne 137 ] ||
		vt_fail "2: rc_integrity exit $crc / $src (want an error, not a pass or a hang): $(tail -2 "$COUT")"
done
vt_wait_for "dev_gone vroceA && dev_gone vroceB" 30 ||
	vt_fail "2: devices still there after the veth went"
note "2: ip link del under traffic: exit 0 after ${t1}s; client exit $crc ($(grep -m1 FAIL "$COUT" || tail -1 "$COUT")), server exit $src; both devices gone"

# --- 3. rmmod under traffic
pair_up
traffic p3 "${BIG[@]}"
out=$(rmmod vroce 2>&1) && vt_fail "3: rmmod vroce succeeded with contexts open"
grep -q '^vroce ' /proc/modules || vt_fail "3: vroce gone after a refused rmmod"
tx0=$(counter vroceB tx_packets)
vt_wait_for "[ \$(counter vroceB tx_packets) -gt $((tx0 + 500)) ]" 30 ||
	vt_fail "3: traffic stopped after the refused rmmod"
kill_child "$CPID" "$SPID"
wait "$CPID" || true
wait "$SPID" || true
rmmod vroce || vt_fail "3: rmmod vroce after the programs were killed"
dev_gone vroceA && dev_gone vroceB || vt_fail "3: devices left after rmmod"
note "3: rmmod under traffic refused ($out), traffic went on; after SIGKILL rmmod removed both devices"

# --- 4. SIGKILL mid-transfer
vt_load_vroce
pair_up
base_a=$(res vroceA)
base_b=$(res vroceB)
vt_log "resources of new devices: vroceA: $base_a; vroceB: $base_b"
# 1 MiB messages (256 KiB on the debug kernel, where registering and
# filling 32 MiB took 50 s and releasing it after the kill 80 s: the kill
# meets eight QPs' transfers in flight either way)
P4_SIZE=1048576
[ "${VROCE_TIME_SCALE:-1}" -le 1 ] || P4_SIZE=262144
traffic p4 -q 8 -n 100000 -D 4 -s "$P4_SIZE"
kill_child "$CPID" "$SPID"
wait "$CPID" || true
wait "$SPID" || true
vt_wait_for "[ \"\$(res vroceA)\" = \"$base_a\" ] && [ \"\$(res vroceB)\" = \"$base_b\" ]" 30 ||
	vt_fail "4: resources left after SIGKILL: vroceA: $(res vroceA); vroceB: $(res vroceB)"
ip netns exec vtA timeout -k 5 120 "$BIN" -d vroceA -p "$PORT" \
	>"$VROCE_JOB/$VT_NAME.p4b.server" 2>&1 &
spid=$!
vt_wait_for "ip netns exec vtA ss -ltn | grep :$PORT >/dev/null" 20 ||
	vt_fail "4: rc_integrity server did not listen"
crc=0 src=0
ip netns exec vtB timeout -k 5 120 "$BIN" -d vroceB -p "$PORT" -q 2 -n 6 \
	-D 2 -s 262144 192.168.77.1 >"$VROCE_JOB/$VT_NAME.p4b.client" 2>&1 ||
	crc=$?
wait "$spid" || src=$?
[ "$crc" -eq 0 ] && [ "$src" -eq 0 ] ||
	vt_fail "4: rc_integrity after the kill: exit $crc / $src: $(tail -2 "$VROCE_JOB/$VT_NAME.p4b.client")"
note "4: SIGKILL of both sides (8 QPs, $((P4_SIZE / 1024)) KiB): resources released; then $(grep -m1 'rc_integrity: PASS' "$VROCE_JOB/$VT_NAME.p4b.client" | cut -d: -f2-)"

# --- 5. injected allocation failures
FI=/sys/kernel/debug/vroce/vroceA
[ -d "$FI" ] || vt_fail "no $FI"
af0=$(cat "$FI/counters/alloc_fail")
orc=0
out=$(timeout 120 "$OBJ" -d vroceA -f "$FI" -k 12 alloc 2>&1) || orc=$?
echo "$out" >&2
[ "$orc" -eq 0 ] || vt_fail "5: chaos_objects alloc exit $orc: $(grep -m3 FAIL <<<"$out")"
vt_expect_eq "5: fail_alloc_next after" "$(cat "$FI/fail_alloc_next")" 0
note "5: fail_alloc_next: $(grep -c '^ok' <<<"$out") checks ok, $(($(cat "$FI/counters/alloc_fail") - af0)) creations failed with ENOMEM"

# --- 6. QP churn
orc=0
out=$(timeout 1000 "$OBJ" -d vroceA -n "$CHURN" -e 16 churn 2>&1) || orc=$?
echo "$out" >&2
[ "$orc" -eq 0 ] || vt_fail "6: chaos_objects churn exit $orc: $(grep -m3 FAIL <<<"$out")"
note "6: $(grep -m1 '^ok   churn' <<<"$out" | cut -d: -f2-)"

# --- 7. nothing left
[ "$(res vroceA)" = "$base_a" ] ||
	vt_fail "7: vroceA resources: $(res vroceA), want $base_a"
[ "$(res vroceB)" = "$base_b" ] ||
	vt_fail "7: vroceB resources: $(res vroceB), want $base_b"
rdma link delete vroceA || vt_fail "7: rdma link delete vroceA"
rdma link delete vroceB || vt_fail "7: rdma link delete vroceB"
left=$(rdma resource show | grep -E ': vroce' || true)
[ -z "$left" ] || vt_fail "7: rdma resource after delete: $left"
vt_expect_eq "7: module refcount" "$(vt_refcnt)" 0
note "7: rdma resource back to the new devices' ($base_a), empty after delete"

printf '%s\n' "${summary[@]}" >&2
vt_pass "$(printf '%s | ' "${summary[@]}")"
