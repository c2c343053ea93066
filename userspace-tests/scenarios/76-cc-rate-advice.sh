#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# debug: yes
#
# Rate advice (issue 26; uapi/rdma/vroce-rate-advice.h): a CNP that carries
# a rate cap and an expiry, sent by tools/rate_advice.py from vtB playing
# the switch.  Two namespaces on a veth pair, congestion control on, one
# cc_qp pair (client on vroceA, RC, 64 KiB WRITEs, 8 in flight).
#   1. Unpaced, the QP moves R0 (vtA's tx_bytes over 2 s).
#   2. cc/rate_advice 0 (the default): a well-formed advice is a CNP
#      without BECN: rp_cnp_ignored +1, no cap.
#   3. cc/rate_advice 1; advice for the QP, CAP = R0 / 4 for 10 s: counted
#      rp_rate_advice_handled, the QP's cc_advice_kbps is CAP, and the
#      wire rate over 2 s is within 10 % of CAP.
#   4. It expires: cc_advice_kbps back to 0 and the rate above 2 CAP.
#   5. Malformed or forged advice, one each, changes nothing and counts
#      rp_rate_advice_ignored +1 (a QP that does not exist may count
#      rx_no_qp instead): version 2, an unknown flag, reserved bits, rate 0,
#      rate above 1,600,000 Mb/s, expiry 0, expiry above 60,000 ms, from an
#      address that is not the QP's peer, for every QP of a peer that has
#      none, a QPN nobody has.
#   6. Advice for every QP of a peer (--all) caps the QP as well.
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"
. "$VROCE_SRC/userspace-tests/lib/cc.sh"

ADVISE=$VROCE_SRC/userspace-tests/tools/rate_advice.py
A=192.168.77.1 B=192.168.77.2

vt_cc_pair
# the spoofed peer's replies go nowhere
ip -n vtA neigh replace 192.168.77.3 lladdr 02:00:00:77:00:03 dev vtA nud permanent
vt_ccqp_start t 19961
q=${CCQP_LQPN[t]}
vt_expect_eq "cc/rate_advice default" "$(vt_cc_get vroceA rate_advice)" 0

# wire SECS: stream WRITEs for SECS, print vtA's wire rate in kb/s
wire() {
	local b0 b1 out secs
	b0=$(ip netns exec vtA cat /sys/class/net/vtA/statistics/tx_bytes)
	out=$(vt_ccqp_cmd t 120 s 0 "$1" 65536 8)
	b1=$(ip netns exec vtA cat /sys/class/net/vtA/statistics/tx_bytes)
	secs=$(awk '{ print $6 }' <<<"$out")
	awk -v b=$((b1 - b0)) -v s="$secs" 'BEGIN { printf "%d\n", b * 8 / s / 1000 }'
}
declare -A c0 c1
# advise WHAT ARGS...: send one advice from vtB; log it
advise() {
	local what=$1 out
	shift
	out=$(ip netns exec vtB python3 "$ADVISE" "$@" 2>&1) ||
		vt_fail "$what: rate_advice.py: $out"
	vt_log "$what: $out"
}
# grew C N: counter C grew by N since c0 (vt_wait_for evals it)
# shellcheck disable=SC2317
grew() {
	vt_counters vroceA c1
	[ $((${c1[$1]} - ${c0[$1]})) -ge "$2" ]
}
delta() { echo $((${c1[$1]} - ${c0[$1]})); }
advice_kbps() { vt_qp_attr vroceA "$q" cc_advice_kbps; }

# 1. unpaced
r0=$(wire 2)
cap_mbps=$((r0 / 4000))
[ "$cap_mbps" -ge 1 ] || vt_fail "the QP moves only $r0 kb/s unpaced"
cap=$((cap_mbps * 1000))
vt_log "unpaced: $r0 kb/s; cap $cap kb/s"

# 2. not taken by default: a CNP without BECN
vt_counters vroceA c0
advise "rate_advice 0" "$B" "$A" "$q" "$cap_mbps" 10000
vt_wait_for "grew rp_cnp_ignored 1" 10 || vt_fail "advice with rate_advice 0: rp_cnp_ignored +$(delta rp_cnp_ignored)"
vt_expect_eq "rate_advice 0: rp_rate_advice_handled (+)" "$(delta rp_rate_advice_handled)" 0
vt_expect_eq "rate_advice 0: cc_advice_kbps" "$(advice_kbps)" 0

# 3. taken: the cap holds
vt_cc_set vroceA rate_advice 1
vt_counters vroceA c0
advise "advice" "$B" "$A" "$q" "$cap_mbps" 10000
vt_wait_for "grew rp_rate_advice_handled 1" 10 || vt_fail "advice not handled: rp_rate_advice_ignored +$(delta rp_rate_advice_ignored)"
vt_expect_eq "cc_advice_kbps under advice" "$(advice_kbps)" "$cap"
r1=$(wire 2)
vt_expect_eq "cc_advice_kbps after the stream" "$(advice_kbps)" "$cap"
[ "$r1" -le $((cap * 11 / 10)) ] && [ "$r1" -ge $((cap * 9 / 10)) ] ||
	vt_fail "rate under advice $r1 kb/s, cap $cap kb/s (unpaced $r0)"

# 4. expiry
vt_wait_for "[ \"\$(advice_kbps)\" = 0 ]" 30 || vt_fail "advice did not expire: cc_advice_kbps $(advice_kbps)"
r2=$(wire 2)
[ "$r2" -gt $((2 * cap)) ] || vt_fail "rate after the advice expired $r2 kb/s, cap was $cap kb/s"

# 5. malformed or forged: ignored
bad() {
	local what=$1 ok
	shift
	vt_counters vroceA c0
	advise "$what" "$@"
	ok="grew rp_rate_advice_ignored 1"
	[ "$what" != "unknown QPN" ] || ok="$ok || grew rx_no_qp 1"
	vt_wait_for "$ok" 10 ||
		vt_fail "$what: rp_rate_advice_ignored +$(delta rp_rate_advice_ignored)"
	vt_expect_eq "$what: rp_rate_advice_handled (+)" "$(delta rp_rate_advice_handled)" 0
	vt_expect_eq "$what: rp_cnp_handled (+)" "$(delta rp_cnp_handled)" 0
	vt_expect_eq "$what: cc_advice_kbps" "$(advice_kbps)" 0
}
bad "version 2" "$B" "$A" "$q" "$cap_mbps" 10000 --version 2
bad "unknown flag" "$B" "$A" "$q" "$cap_mbps" 10000 --flags 0x80
bad "reserved bits" "$B" "$A" "$q" "$cap_mbps" 10000 --reserved 1
bad "rate 0" "$B" "$A" "$q" 0 10000
bad "rate too high" "$B" "$A" "$q" 1600001 10000
bad "expiry 0" "$B" "$A" "$q" "$cap_mbps" 0
bad "expiry too long" "$B" "$A" "$q" "$cap_mbps" 60001
bad "not the peer" 192.168.77.3 "$A" "$q" "$cap_mbps" 10000
bad "all of a peer with none" 192.168.77.3 "$A" 0 "$cap_mbps" 10000 --all
bad "unknown QPN" "$B" "$A" 0xabcdef "$cap_mbps" 10000

# 6. every QP of the peer
vt_counters vroceA c0
advise "advice for all" "$B" "$A" 0 "$cap_mbps" 10000 --all
vt_wait_for "grew rp_rate_advice_handled 1" 10 || vt_fail "advice for all not handled"
vt_expect_eq "cc_advice_kbps under advice for all" "$(advice_kbps)" "$cap"
vt_ccqp_stop t
vt_pass "unpaced $r0 kb/s; advice $cap kb/s: $r1 kb/s; expired: $r2 kb/s; 10 malformed or forged ignored"
