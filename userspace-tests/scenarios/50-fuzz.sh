#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
# debug: yes
#
# Packet fuzzer against a live device while real RC traffic runs.  Two
# namespaces on a veth pair, a vroce device in each.  vroce_fuzz (in vtB)
# sends VT_FUZZ_SECS (default 30, at most 600) seconds of mutated RoCEv2
# packets at vroceA (192.168.77.1): every opcode and invalid ones, truncated
# and oversized headers, wrong UDP lengths and pad counts, bad ICRCs and valid
# ICRCs over garbage, at random and real QPNs from addresses that are no
# QP's peer.  It also owns victim QPs on vroceA (RC, UC, UD) whose peer is
# 192.168.77.3, an address it spoofs, so its requests get past the address
# check: PSNs around the expected one, rkeys of another PD and of an MR
# without remote access, huge READ lengths, misaligned atomics, forged
# ACKs/NAKs/READ responses to the victims' own requests; it self-tests its
# ICRC first (a valid SEND lands intact, a bad-ICRC copy does not) and
# checks canaries around every victim buffer at the end.  Half of its
# packets go as RoCE v1 frames (-1: Ethertype 0x8915, a GRH, malformed GRHs
# among the malformed), self-tested the same way.  Meanwhile
# rc_integrity (server in vtA on vroceA, client in vtB on vroceB) runs
# round after round of WRITEs, READs and SENDs checking every byte.
# Pass: every round PASSes on both sides, vroce_fuzz exits 0 with its
# "sent N packets in S s (P pkt/s)" line, vroceA counted ICRC errors,
# header errors, packets for no QP and from non-peers, and refused remote
# accesses (the victims' responder saw the foreign rkeys), and one more
# rc_integrity round passes after the fuzzing (the device still works);
# the runner fails the scenario on any kernel splat.
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

BIN=$VROCE_SRC/userspace-tests/bin/rc_integrity
FUZZ=$VROCE_SRC/userspace-tests/bin/vroce_fuzz
PORT=19875
FUZZ_SECS=${VT_FUZZ_SECS:-30}
[ "$FUZZ_SECS" -le 600 ] || FUZZ_SECS=600
PEER=192.168.77.3	# the victims' peer, spoofed by the fuzzer
# VT_FUZZ_SEED replays a run: the fuzzer prints its seed first.
SEED_ARG=()
[ -z "${VT_FUZZ_SEED:-}" ] || SEED_ARG=(-s "$VT_FUZZ_SEED")

[ -x "$BIN" ] || vt_skip "$BIN not built (make -C userspace-tests tests)"
[ -x "$FUZZ" ] || vt_skip "$FUZZ not built (make -C userspace-tests tests)"

vt_load_vroce
vt_vroce_netns_pair
# The victims' replies to $PEER go to a MAC nobody has: vtB's stack drops
# them as another host's, so nothing answers them.
ip -n vtA neigh replace "$PEER" lladdr 02:00:00:77:00:03 dev vtA nud permanent

# counter NAME: one hw counter of vroceA.
counter() {
	rdma statistic show link vroceA/1 | tr ' ' '\n' |
		awk -v k="$1" 'f && !done { print; done = 1 } $0 == k { f = 1 }'
}
# Drops of each kind, and the other-PD / no-access rkeys refused.
CNTS="rx_icrc_encapsulated rx_header_errors rx_no_qp rx_addr_mismatch
resp_remote_access_errors"
declare -A before
for c in $CNTS; do before[$c]=$(counter "$c"); done

# round N: one rc_integrity run (server on vroceA, client on vroceB) on
# port PORT+N; fails the scenario unless both sides PASS.
round() {
	local p=$((PORT + $1)) srv=$VROCE_JOB/$VT_NAME.server.$1
	local cli=$VROCE_JOB/$VT_NAME.client.$1 spid crc=0 src=0
	ip netns exec vtA timeout -k 5 200 "$BIN" -d vroceA -p "$p" \
		>"$srv" 2>&1 &
	spid=$!
	vt_wait_for "ip netns exec vtA ss -ltn | grep :$p >/dev/null" 20 ||
		vt_fail "round $1: rc_integrity server did not listen"
	ip netns exec vtB timeout -k 5 200 "$BIN" -d vroceB -p "$p" -q 2 \
		-n 6 -D 4 -s 262144 -m 1024 -t 14 -r 7 -x "$1" \
		192.168.77.1 >"$cli" 2>&1 || crc=$?
	wait "$spid" || src=$?
	[ "$crc" -eq 0 ] || { cat "$cli" >&2; vt_fail "round $1: rc_integrity client exit $crc: $(grep -m3 FAIL "$cli" || tail -3 "$cli")"; }
	[ "$src" -eq 0 ] || { cat "$srv" >&2; vt_fail "round $1: rc_integrity server exit $src: $(grep -m3 FAIL "$srv" || tail -3 "$srv")"; }
	grep -q "rc_integrity: PASS" "$cli" || vt_fail "round $1: no PASS line from the client"
	grep -q "rc_integrity: PASS" "$srv" || vt_fail "round $1: no PASS line from the server"
	vt_log "round $1: $(grep "rc_integrity: PASS" "$cli")"
}

fout=$VROCE_JOB/$VT_NAME.fuzz
# RoCE v1 frames to vtA's MAC; from the MAC $PEER's replies go to, so
# the victims' RoCE v1 answers are dropped on the way too.
macA=$(ip -n vtA -br link show vtA | awk '{ print $3 }')
ip netns exec vtB timeout -k 5 $((FUZZ_SECS + 60)) "$FUZZ" -t "$FUZZ_SECS" \
	-d vroceA -P "$PEER" -X 192.168.77.2 -1 "vtB,$macA,02:00:00:77:00:03" \
	"${SEED_ARG[@]}" 192.168.77.1 >"$fout" 2>&1 &
fpid=$!

# Real traffic for as long as the fuzzer runs (at least one round).
n=0
while :; do
	n=$((n + 1))
	round "$n"
	kill -0 "$fpid" 2>/dev/null || break
done
frc=0
wait "$fpid" || frc=$?
cat "$fout" >&2
[ "$frc" -eq 0 ] || vt_fail "vroce_fuzz exit $frc: $(tail -3 "$fout")"
grep -q "vroce_fuzz: self-test ok" "$fout" || vt_fail "vroce_fuzz: no self-test line"
grep -q "vroce_fuzz: self-test ok: RoCE v1 too" "$fout" ||
	vt_fail "vroce_fuzz: no RoCE v1 self-test line"
line=$(grep -m1 'vroce_fuzz: sent' "$fout") || vt_fail "vroce_fuzz: no report line"

# The device still works once the storm is over.
round $((n + 1))

vt_log "vroceA counters after: $(rdma statistic show link vroceA/1)"
moved=
for c in $CNTS; do
	d=$(($(counter "$c") - ${before[$c]}))
	[ "$d" -gt 0 ] || vt_fail "vroceA's $c did not grow"
	moved="$moved $c +$d"
done
vt_pass "$n rounds of rc_integrity under fuzz verified, one after; ${line#vroce_fuzz: }; vroceA:$moved"
