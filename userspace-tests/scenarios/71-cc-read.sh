#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# Congestion control, acceptance 5 of issue 25: a READ under congestion
# (the responder slows, the CNPs come from the requester), and
# cc/cnp_delay_us on the wire's schedule.
#
# Two namespaces on a veth pair (vroceA in vtA, vroceB in vtB), every knob
# written from inside the device's namespace.  vroceA reads from vroceB
# with ib_read_bw (one RC QP, 64 KiB READs, SECS seconds a round): vroceB
# sends the data, so it is the reaction point, and vroceA, which receives
# it, the notification point.  vroceB holds a cut rate as 62-cc-cnp does
# (rp_min_rate MIN_MBPS, no timer or byte increases for 131 ms, each cut
# to the rate before it), so that while marks come the rate sits at the
# floor.  Rounds:
#   plain:  no marks: the READ bandwidth with congestion control idle.
#   marked: vroceA marks every packet it receives CE (fault knob
#           ce_mark_permille 1000), i.e. every READ response.  vroceA sends
#           CNPs (np_cnp_sent), vroceB handles every one of them
#           (rp_cnp_handled; but those that come after the server
#           destroyed its QP: rp_cnp_ignored, all after the last handled
#           one in the trace of vroce_cnp_recv), vroceB sends
#           none and vroceA handles none;
#           vroceB's QP is cut (vroce_cc_rate "cnp" events down to
#           MIN_MBPS); the READ bandwidth is at most 1.5 x MIN_MBPS and
#           below half the plain round's.
#   delay:  the same with vroceA's cc/cnp_delay_us DELAY_US: every CNP
#           (vroce_cnp_sent) leaves DELAY_US or more after the mark that
#           made it (vroce_ce_recv cnp=1 and its decision time t_ns; one
#           CNP at a time is pending, so the k-th CNP is the k-th
#           decision's), both on CLOCK_MONOTONIC; as many CNPs as
#           decisions (but the last, which may wait when the QP goes) and
#           as np_cnp_sent; the data still slows to the floor.
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"
. "$VROCE_SRC/userspace-tests/lib/cc.sh"

SECS=5
MSG=65536
MIN_MBPS=20
DELAY_US=20000
command -v ib_read_bw >/dev/null || vt_skip "no ib_read_bw (perftest)"

vt_load_vroce
vt_vroce_netns_pair

vt_cc_ns_set vtA vroceA enable 1
vt_cc_ns_set vtB vroceB enable 1
vt_cc_ns_set vtB vroceB rp_min_rate "$MIN_MBPS"
vt_cc_ns_set vtB vroceB rp_time_reset 131071
vt_cc_ns_set vtB vroceB rp_byte_reset 0
vt_cc_ns_set vtB vroceB rp_clamp_tgt_rate 1
vt_cc_ns_set vtB vroceB rp_threshold 31
vt_cc_ns_set vtB vroceB rp_dce_tcp_rtt 131071

C="np_cnp_sent rp_cnp_handled rp_cnp_ignored"
declare -A c0
snap() {
	local d c
	for d in vroceA vroceB; do
		for c in $C; do c0[$d.$c]=$(vt_counter "$d" "$c"); done
	done
}
# delta DEV COUNTER: its growth since snap
delta() { echo $(($(vt_counter "$1" "$2") - ${c0[$1.$2]})); }

# cnps_arrived NAME TRACE: every CNP vroceA sent (sent) reached vroceB,
# which handled it (handled) or, only after ib_read_bw's server destroyed
# its QP, ignored it (ignored: no such QP).  Those are the CNPs of READ
# responses still on their way then; how many depends on how far the
# guests' receive paths lag at that moment (0 to 25 on 6.1 guests, 109
# on 6.12 in a make check beside another VM), so no count bounds them:
# TRACE (vroce_cnp_recv) shows that none came before the last handled one.
cnps_arrived() {
	local order
	vt_expect_eq "$1: vroceB rp_cnp_handled + rp_cnp_ignored (+) vs vroceA np_cnp_sent (+)" \
		$((handled + ignored)) "$sent"
	# "H E I": CNPs handled, ignored ones before a handled one (none
	# may be), ignored ones after the last handled one
	order=$(awk '/ vroce_cnp_recv: / {
			if ($0 ~ /handled=1/) { h++; early += i; i = 0 } else i++
		} END { print h + 0, early + 0, i + 0 }' "$2")
	vt_expect_eq "$1: vroce_cnp_recv events: handled, ignored before a handled one, ignored at the end" \
		"$order" "$handled 0 $ignored"
}

# rbw NAME: ib_read_bw from vroceA (client, the requester) to vroceB for
# SECS; sets BW to the client's average Gb/s
BW=
rbw() {
	local name=$1 out=$VROCE_JOB/$VT_NAME.$1 spid rc=0
	ip netns exec vtB timeout -k 5 $((SECS + 120)) ib_read_bw -d vroceB \
		-x 3 -F -p 18711 -s $MSG -D "$SECS" --report_gbits \
		>"$out.srv" 2>&1 &
	spid=$!
	vt_wait_for "ip netns exec vtB ss -ltn | grep :18711 >/dev/null" 30 ||
		vt_fail "$name: ib_read_bw server did not listen: $(cat "$out.srv")"
	ip netns exec vtA timeout -k 5 $((SECS + 120)) ib_read_bw -d vroceA \
		-x 3 -F -p 18711 -s $MSG -D "$SECS" --report_gbits 192.168.77.2 \
		>"$out.cli" 2>&1 || rc=$?
	wait "$spid" || rc=$((rc ? rc : $?))
	[ "$rc" -eq 0 ] ||
		vt_fail "$name: ib_read_bw failed (exit $rc): $(tail -n 3 "$out.cli" "$out.srv")"
	# result row: bytes iterations peak average msg_rate
	BW=$(awk -v s=$MSG '$1 == s && NF >= 5 { v = $4 } END { print v }' "$out.cli")
	[ -n "$BW" ] || vt_fail "$name: no result row: $(tail -n 3 "$out.cli")"
	vt_log "$name: READ $BW Gb/s"
}

# --- plain
rbw plain
plain=$BW

# --- marked: the requester is the notification point
snap
vt_trace_start vroce_cc_rate vroce_cnp_recv
vt_fault vroceA ce_mark_permille 1000
rbw marked
vt_fault vroceA ce_mark_permille 0
sleep 0.5
trace=$VROCE_JOB/$VT_NAME.marked.trace
vt_trace_stop "$trace"
sent=$(delta vroceA np_cnp_sent)
handled=$(delta vroceB rp_cnp_handled)
ignored=$(delta vroceB rp_cnp_ignored)
vt_log "marked: vroceA sent $sent CNPs, vroceB handled $handled, ignored $ignored"
[ "$sent" -gt 0 ] || vt_fail "marked: the requester sent no CNP"
cnps_arrived marked "$trace"
vt_expect_eq "marked: vroceB np_cnp_sent (+)" "$(delta vroceB np_cnp_sent)" 0
vt_expect_eq "marked: vroceA rp_cnp_handled (+)" "$(delta vroceA rp_cnp_handled)" 0
# only vroceB handles CNPs, so every cnp cut is its QP's
grep -Eq " vroce_cc_rate: .* rate=$((MIN_MBPS * 1000))[ ,].*reason=cnp" "$trace" ||
	vt_fail "marked: no vroce_cc_rate cnp cut to $((MIN_MBPS * 1000)) kb/s: $(grep -m3 ' vroce_cc_rate:' "$trace")"
awk -v b="$BW" -v m="$MIN_MBPS" -v p="$plain" \
	'BEGIN { exit !(b * 1000 <= 1.5 * m && b < p / 2) }' ||
	vt_fail "marked: READ at $BW Gb/s, want <= 1.5 x $MIN_MBPS Mb/s and < 1/2 of the plain $plain Gb/s"
marked=$BW

# --- delay: the requester's CNPs leave DELAY_US after their marks
vt_cc_ns_set vtA vroceA cnp_delay_us "$DELAY_US"
snap
# The trace's clock is CLOCK_MONOTONIC, the clock of vroce_ce_recv's t_ns
# (when the notification point decided) and of the CNP's timer; the
# default clock ("local") runs ~10 ms apart from it in the guest, and the
# event itself may be written milliseconds after the decision (a vCPU
# that waits its turn: 3.5 ms once, which made a CNP look early).
trap 'echo local >"$VT_TRACE/trace_clock" 2>/dev/null' EXIT
echo mono >"$VT_TRACE/trace_clock" || vt_fail "trace_clock mono refused"
vt_trace_start vroce_ce_recv vroce_cnp_sent vroce_cnp_recv
vt_fault vroceA ce_mark_permille 1000
rbw delay
vt_fault vroceA ce_mark_permille 0
# a CNP decided at the last mark leaves DELAY_US later
sleep 0.5
trace=$VROCE_JOB/$VT_NAME.delay.trace
vt_trace_stop "$trace"
vt_cc_ns_set vtA vroceA cnp_delay_us 0
sent=$(delta vroceA np_cnp_sent)
dec=$(grep -c ' vroce_ce_recv: .* cnp=1' "$trace" || true)
cnps=$(grep -c ' vroce_cnp_sent: ' "$trace" || true)
# the k-th decision (ce_recv cnp=1, its t_ns) against the k-th CNP (its
# trace time, the same clock): microseconds from mark to CNP, sorted
delays=$(awk '
	/ vroce_cnp_sent: / {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) {
				c[nc++] = substr($i, 1, length($i) - 1)
				break
			}
	}
	/ vroce_ce_recv: .* cnp=1/ && match($0, /t_ns=[0-9]+/) {
		d[nd++] = substr($0, RSTART + 5, RLENGTH - 5) / 1e9
	}
	END {
		for (k = 0; k < nd && k < nc; k++)
			printf "%.0f\n", (c[k] - d[k]) * 1e6
	}' "$trace" | sort -n)
n=$(grep -c . <<<"$delays" || true)
# (the trace prints microseconds: one of rounding)
short=$(awk -v l=$((DELAY_US - 1)) '$1 < l' <<<"$delays" | grep -c . || true)
dmin=$(sed -n 1p <<<"$delays")
dmed=$(sed -n "$(((n + 1) / 2))p" <<<"$delays")
vt_log "delay: $dec CNP decisions, $cnps CNPs sent (np_cnp_sent +$sent); mark to CNP: min $dmin us, median $dmed us"
[ "$cnps" -gt 0 ] || vt_fail "delay: no CNP sent"
# the last decision's CNP may still wait when ib_read_bw destroys its QP
[ "$dec" -ge "$cnps" ] && [ "$dec" -le $((cnps + 1)) ] ||
	vt_fail "delay: $cnps CNPs sent for $dec decisions"
vt_expect_eq "delay: vroce_cnp_sent events vs np_cnp_sent (+)" "$cnps" "$sent"
vt_expect_eq "delay: CNPs sooner than ${DELAY_US} us after their mark" "$short" 0
handled=$(delta vroceB rp_cnp_handled)
ignored=$(delta vroceB rp_cnp_ignored)
cnps_arrived delay "$trace"
awk -v b="$BW" -v m="$MIN_MBPS" 'BEGIN { exit !(b * 1000 <= 1.5 * m) }' ||
	vt_fail "delay: READ at $BW Gb/s, want <= 1.5 x $MIN_MBPS Mb/s"

vt_pass "READ: plain $plain Gb/s, marked $marked Gb/s (rp_min_rate $MIN_MBPS Mb/s), CNPs from the requester all handled by the responder; cnp_delay_us $DELAY_US: $cnps CNPs, mark to CNP min $dmin us, median $dmed us"
