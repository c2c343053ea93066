#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# Priority flow control (IEEE 802.1Qbb) and its watchdog, as a ConnectX
# port does them: the knobs under the netdev, from inside its namespace
# (qos/pfc, as mlnx_qos --pfc; qos/pfc_prevention_tout, as ethtool's
# pfc-prevention-tout tunable; qos/pfc_xoff and qos/pfc_xon), and the
# frames, sent by tools/pfc_frames.py from vtB to vroceA.  Two hosts in
# one VM (vroceA on vtA, vroceB on vtB, vt_vroce_netns_pair); traffic
# class 106 (tc/1/traffic_class: DSCP 26, priority 3) puts vroceA's QPs on
# priority 3, PFC is on for priority 3 only.
#   - knobs: each file starts at its default (all off, 100 ms, 262144 and
#     131072 bytes), takes good values (tout: 0, 80, 8000, "auto" = 100)
#     and reads them back; bad ones (lists of 7 or 9, a 2, letters, empty;
#     tout 79, 8001, -1, text; xon >= xoff) fail with EINVAL and keep the
#     old value; every new counter is in rdma statistic and hw_counters/;
#   - malformed frames: K each of too short (20 bytes), unknown opcode
#     0x0002, a unicast destination that is not vtA's, PFC for priority 5
#     alone (off): rx_pause_ignored +4K, no priority paused; then one PFC
#     frame for priority 3 to 01:80:c2:00:00:01 and one to vtA's MAC (each
#     rx_prio3_pause +1) and one 802.3x PAUSE (rx_prio3_pause +1, priority
#     0, PFC off, untouched), all with quanta 1;
#   - huge quanta: at cc/line_rate 10 Mb/s one frame of 0xffff quanta asks
#     for 3.4 s, sent while ibv_rc_pingpong at priority 3 runs; the
#     watchdog (100 ms) ends it: pfc_watchdog_events +1, the pause lasted
#     from 100 ms to less than the 3.4 s asked (read once 3.4 s have
#     passed), and the pingpong completes;
#   - a pause of priority 3 (the watchdog off) leaves priority 0 running:
#     a pingpong at priority 0 completes inside it;
#   - a storm: vtB sends PFC frames for priority 3 (0xffff quanta, 34 ms
#     at a line rate of 1 Gb/s) every 200 us until stopped.  The watchdog
#     takes priority 3 over and drops its packets: ib_write_bw at
#     priority 3 fails with retry exceeded (status 12), it does not hang
#     (pfc_watchdog_events >= 1, pfc_watchdog_discards > 0);
#     ibv_rc_pingpong at priority 0
#     (traffic class cleared) completes while the storm goes on; 1 s after
#     the storm, priority 3 is back: ibv_rc_pingpong at priority 3
#     completes with nothing discarded.
# No check holds anything to a wall-clock time: runs are only bounded by
# timeout.  The storm runs until stopped after the priority-0 pingpong;
# frames still arriving after the pingpong show that it outlasted it.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"
. "$VROCE_SRC/userspace-tests/lib/cc.sh"

PFC=$VROCE_SRC/userspace-tests/tools/pfc_frames.py
K=5
command -v ib_write_bw >/dev/null || vt_skip "no ib_write_bw (perftest)"
W=$(mktemp -d)
cleanup() {
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT

# shellcheck disable=SC2119 # no module parameters
vt_load_vroce
vt_vroce_netns_pair
vt_wait_for "vt_gid_index vroceA 192.168.77.1 && vt_gid_index vroceB 192.168.77.2" 30 ||
	vt_fail "no RoCE v2 GID for the IPv4 addresses"
vt_expect_eq "vroceA's IPv4 RoCE v2 GID" "$(vt_gid_index vroceA 192.168.77.1)" 3
vt_expect_eq "vroceB's IPv4 RoCE v2 GID" "$(vt_gid_index vroceB 192.168.77.2)" 3
TC=$(vt_sys vroceA)/tc/1/traffic_class
QOS=/sys/class/net/vtA/qos

rd() { vt_knob_rd "$1"; }
wr_ok() { vt_knob_ok "$@"; }
wr_bad() { vt_knob_bad "$@"; }

# vroceA's counters at snap and at the last look (one rdma call each)
declare -A before now
snap() { vt_counters vroceA before; }
look() { vt_counters vroceA now; }
delta() { echo $((${now[$1]} - ${before[$1]})); }
# want "C=N C>=N ...": at a fresh look, each counter C grew since snap by
# exactly N, or by N or more
want() {
	local kv
	look
	for kv in $1; do
		case $kv in
		*">="*) [ "$(delta "${kv%%>=*}")" -ge "${kv#*>=}" ] || return 1 ;;
		*) [ "$(delta "${kv%%=*}")" = "${kv#*=}" ] || return 1 ;;
		esac
	done
}
# shown "C=N ...": the counters' growth at the last look
shown() {
	local kv
	for kv in $1; do kv=${kv%%=*}; printf '%s +%s ' "${kv%>}" "$(delta "${kv%>}")"; done
}
# expect WHAT "C=N C>=N ..." [TIMEOUT]: want holds within TIMEOUT seconds
# (default 10) and still half a second later, else fail
expect() {
	vt_wait_for "want '$2'" "${3:-10}" ||
		vt_fail "$1: $(shown "$2"), want $2"
	sleep 0.5
	want "$2" || vt_fail "$1: $(shown "$2") half a second later, want $2"
}
# others_zero PRIO: "rx_prioN_pause=0" for every priority but PRIO
others_zero() {
	local p
	for p in 0 1 2 3 4 5 6 7; do
		[ "$p" = "$1" ] || printf 'rx_prio%s_pause=0 ' "$p"
	done
}

# send ARGS...: tools/pfc_frames.py ARGS... vtB, in vtB
send() {
	local out
	out=$(ip netns exec vtB timeout -k 5 60 python3 "$PFC" "$@" vtB 2>&1) ||
		vt_fail "pfc_frames.py $*: $out"
	vt_log "$out ($*)"
}

# pingpong_start NAME N: ibv_rc_pingpong -n N between the IPv4 RoCE v2
# GIDs, the server on vroceB in vtB, then the client on vroceA in vtA, in
# the background; pingpong_end NAME: both must succeed; pingpong NAME N:
# the two
pingpong_start() {
	ip netns exec vtB timeout -k 5 60 ibv_rc_pingpong -d vroceB -g 3 -n "$2" \
		>"$W/$1.srv" 2>&1 &
	pp_srv=$!
	vt_wait_for "ip netns exec vtB ss -ltn | grep -q ':18515 '" 30 ||
		vt_fail "$1: pingpong server not listening: $(tail -3 "$W/$1.srv")"
	ip netns exec vtA timeout -k 5 60 ibv_rc_pingpong -d vroceA -g 3 -n "$2" \
		192.168.77.2 >"$W/$1.cli" 2>&1 &
	pp_cli=$!
}
pingpong_end() {
	wait "$pp_cli" ||
		vt_fail "$1: pingpong client: $(tail -3 "$W/$1.cli") // server: $(tail -3 "$W/$1.srv")"
	wait "$pp_srv" || vt_fail "$1: pingpong server: $(tail -3 "$W/$1.srv")"
	vt_log "$1: $(grep -m1 ' iters in ' "$W/$1.cli")"
}
pingpong() {
	pingpong_start "$1" "$2"
	pingpong_end "$1"
}

# --- knobs: defaults, good values, bad values
for f in pfc pfc_prevention_tout pfc_xoff pfc_xon; do
	vt_knob_at "$QOS" test -f "$QOS/$f" || vt_fail "no $QOS/$f in vtA"
done
vt_expect_eq "pfc at start" "$(rd "$QOS/pfc")" 0,0,0,0,0,0,0,0
vt_expect_eq "pfc_prevention_tout at start" "$(rd "$QOS/pfc_prevention_tout")" 100
vt_expect_eq "pfc_xoff at start" "$(rd "$QOS/pfc_xoff")" 262144
vt_expect_eq "pfc_xon at start" "$(rd "$QOS/pfc_xon")" 131072
wr_ok "$QOS/pfc" 0,0,0,1,0,0,0,0 0,0,0,1,0,0,0,0
wr_ok "$QOS/pfc" 1,1,1,1,1,1,1,1 1,1,1,1,1,1,1,1
for bad in 0,0,0,1,0,0,0 0,0,0,1,0,0,0,0,0 0,0,2,0,0,0,0,0 a,0,0,0,0,0,0,0 ""; do
	wr_bad "$QOS/pfc" "$bad"
done
wr_ok "$QOS/pfc" 0,0,0,0,0,0,0,0 0,0,0,0,0,0,0,0
T=$QOS/pfc_prevention_tout
wr_ok "$T" 0 0
wr_ok "$T" 80 80
wr_ok "$T" 8000 8000
wr_ok "$T" auto 100
wr_ok "$T" 250 250
for bad in 79 8001 -1 abc; do wr_bad "$T" "$bad"; done
wr_ok "$T" 100 100
wr_ok "$QOS/pfc_xoff" 524288 524288
wr_ok "$QOS/pfc_xon" 262144 262144
wr_bad "$QOS/pfc_xon" 524288
wr_bad "$QOS/pfc_xon" 600000
wr_bad "$QOS/pfc_xoff" 262144
wr_bad "$QOS/pfc_xoff" 100000
wr_bad "$QOS/pfc_xoff" abc
wr_bad "$QOS/pfc_xon" abc
wr_ok "$QOS/pfc_xon" 131072 131072
wr_ok "$QOS/pfc_xoff" 262144 262144
names="rx_pause_ignored pfc_watchdog_events pfc_watchdog_discards"
for p in 0 1 2 3 4 5 6 7; do
	names="$names rx_prio${p}_pause rx_prio${p}_pause_duration tx_prio${p}_pause"
done
snap
for c in $names; do
	[ -n "${before[$c]:-}" ] || vt_fail "no counter $c in rdma statistic of vroceA"
	[ -f "$(vt_sys vroceA)/ports/1/hw_counters/$c" ] ||
		vt_fail "no hw_counters/$c of vroceA"
done
vt_log "knobs: defaults, good and bad values as documented; $(wc -w <<<"$names") counters"

# --- malformed frames, then valid ones (quanta 1)
wr_ok "$QOS/pfc" 0,0,0,1,0,0,0,0 0,0,0,1,0,0,0,0
macA=$(rd /sys/class/net/vtA/address)
[ -n "$macA" ] || vt_fail "no MAC address of vtA"
other=02:00:00:00:00:99
[ "$other" != "$macA" ] || other=02:00:00:00:00:98
snap
send -n "$K" --len 20
send -n "$K" --opcode 0x0002
send -n "$K" --dst "$other"
send -n "$K" --prios 0x20
expect "malformed frames" "rx_pause_ignored=$((4 * K)) $(others_zero none)"
snap
send --quanta 1
expect "PFC frame for priority 3" "rx_prio3_pause=1 rx_pause_ignored=0 $(others_zero 3)"
snap
send --quanta 1 --dst "$macA"
expect "PFC frame for priority 3 to vtA's MAC" "rx_prio3_pause=1 rx_pause_ignored=0 $(others_zero 3)"
snap
send --pause --quanta 1
expect "PAUSE frame" "rx_prio3_pause=1 rx_pause_ignored=0 $(others_zero 3)"
vt_log "malformed frames: $((4 * K)) ignored; PFC and PAUSE frames honoured for priority 3 only"

# --- huge quanta, cut short by the watchdog
rate0=$(vt_cc_get vroceA line_rate)
vt_cc_set vroceA line_rate 10
wr_ok "$TC" 106 "Global tclass=106"
vt_klog_mark
snap
# the frame comes while the pingpong runs (1000 round trips of 4 KiB take
# 3.3 s at 10 Mb/s): its packets wait, then the watchdog drops what
# waited and RC retransmits it.  Without the watchdog the pause would
# outlast the QP's retries (7 x 67 ms).
pingpong_start huge-quanta 1000
vt_wait_for "rdma resource show qp link vroceA/1 | grep -q 'type RC.*state RTS'" 30 ||
	vt_fail "huge quanta: no RC QP of vroceA in RTS: $(tail -3 "$W/huge-quanta.cli")"
send
t0=$SECONDS
pingpong_end huge-quanta
expect "huge quanta" "rx_prio3_pause=1 pfc_watchdog_events=1 rx_pause_ignored=0"
# read the pause's duration once the 3.4 s it asked for have passed (t0
# was taken after the frame left)
sleep $((t0 + 5 - SECONDS > 0 ? t0 + 5 - SECONDS : 0))
look
dur=$(delta rx_prio3_pause_duration)
vt_log "huge quanta: paused ${dur} us, $(delta pfc_watchdog_discards) packets discarded; kernel log: $(vt_klog_since_mark | tail -3 | tr '\n' ' ')"
# 0xffff quanta of 512 bits at 10 bit/us
full=$((0xffff * 512 / 10))
[ "$dur" -ge 100000 ] && [ "$dur" -lt "$full" ] ||
	vt_fail "huge quanta: rx_prio3_pause_duration +$dur us, want from 100000 (the watchdog's timeout) to below $full (the pause asked for)"
vt_expect_eq "huge quanta: pfc_watchdog_events afterwards (+)" "$(delta pfc_watchdog_events)" 1

# --- priority 0 runs while priority 3 is paused: the watchdog off, one
# frame pauses priority 3 for 33.5 s (0xffff quanta at 1 Mb/s), a
# pingpong at priority 0 completes, a frame of quanta 0 resumes priority
# 3: the pause counted from the first frame to the second spans the
# pingpong
wr_ok "$QOS/pfc_prevention_tout" 0 0
vt_cc_set vroceA line_rate 1
wr_ok "$TC" -1 "Global tclass=-1"
snap
send
pingpong pause-prio0 5
send --quanta 0
expect "priority 0 during a pause of priority 3" \
	"rx_prio3_pause=2 rx_prio0_pause=0 pfc_watchdog_events=0 rx_pause_ignored=0"
look
dur0=$(delta rx_prio3_pause_duration)
[ "$dur0" -gt 0 ] && [ "$dur0" -lt $((0xffff * 512)) ] ||
	vt_fail "priority 0 during a pause: rx_prio3_pause_duration +$dur0 us, want above 0 and below the 33.5 s asked"
vt_log "priority 0 during a pause of priority 3: the pingpong ran inside a pause of $dur0 us"
wr_ok "$QOS/pfc_prevention_tout" 100 100
wr_ok "$TC" 106 "Global tclass=106"

# --- a storm on priority 3, at a line rate of 1 Gb/s: 0xffff quanta are
# 34 ms, so that a frame late by a few ms (a stalled emulator) still finds
# priority 3 paused
vt_cc_set vroceA line_rate 1000
vt_log "storm: line_rate 1000 Mb/s, PFC frames for priority 3 every 200 us until stopped"
snap
ip netns exec vtB timeout -k 5 200 python3 "$PFC" --duration 180 --interval-us 200 vtB \
	>"$W/storm.log" 2>&1 &
storm=$!
expect "storm: the watchdog takes priority 3 over" "pfc_watchdog_events>=1" 20
ip netns exec vtB timeout -k 5 60 ib_write_bw -d vroceB -x 3 -D 10 -p 18600 \
	>"$W/bw.srv" 2>&1 &
srv=$!
vt_wait_for "ip netns exec vtB ss -ltn | grep -q ':18600 '" 30 ||
	vt_fail "storm: ib_write_bw server not listening: $(tail -3 "$W/bw.srv")"
rc=0
ip netns exec vtA timeout -k 5 60 ib_write_bw -d vroceA -x 3 -D 10 -p 18600 \
	192.168.77.2 >"$W/bw.cli" 2>&1 || rc=$?
kill "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
case $rc in
0) vt_fail "storm: ib_write_bw at priority 3 succeeded: $(tail -3 "$W/bw.cli")" ;;
124 | 137) vt_fail "storm: ib_write_bw at priority 3 hung (timeout killed it after 60 s): $(tail -3 "$W/bw.cli")" ;;
esac
grep -q "Failed status 12" "$W/bw.cli" ||
	vt_fail "storm: ib_write_bw failed ($rc), not with retry exceeded (status 12): $(tail -5 "$W/bw.cli")"
expect "storm: priority 3's packets dropped" \
	"pfc_watchdog_events>=1 pfc_watchdog_discards>=1 $(others_zero 3)"
vt_log "storm: ib_write_bw failed: $(grep -m1 'Failed status' "$W/bw.cli" | sed 's/^ *//'); $(shown "pfc_watchdog_events pfc_watchdog_discards rx_pause_ignored rx_prio3_pause")"

# priority 0 goes on while the storm does: frames still come after the
# pingpong
wr_ok "$TC" -1 "Global tclass=-1"
pingpong storm-prio0 100
snap
vt_wait_for "look && [ \$((\$(delta rx_pause_ignored) + \$(delta rx_prio3_pause))) -ge 1 ]" 5 ||
	vt_fail "storm: no frame came after the priority-0 pingpong (the storm ended too soon): $(cat "$W/storm.log")"
# the storm stops: the tool ends (SIGTERM), its last frames drain
kill "$storm" 2>/dev/null
wait "$storm" || true
vt_log "storm stopped: $(cat "$W/storm.log")"

# one second after the storm, priority 3 is back
sleep 1
wr_ok "$TC" 106 "Global tclass=106"
snap
pingpong after-storm 20
look
vt_expect_eq "after the storm: pfc_watchdog_discards (+)" "$(delta pfc_watchdog_discards)" 0
vt_expect_eq "after the storm: pfc_watchdog_events (+)" "$(delta pfc_watchdog_events)" 0

wr_ok "$TC" -1 "Global tclass=-1"
wr_ok "$QOS/pfc" 0,0,0,0,0,0,0,0 0,0,0,0,0,0,0,0
vt_cc_set vroceA line_rate "$rate0"
vt_pass "PFC knobs: defaults, EINVAL keeps values; $((4 * K)) malformed frames ignored, PFC and PAUSE honoured for priority 3 alone; 3.4 s pause cut by the watchdog after ${dur} us; a storm on priority 3: ib_write_bw fails with retry exceeded, priority 0 runs, priority 3 back after the storm"
