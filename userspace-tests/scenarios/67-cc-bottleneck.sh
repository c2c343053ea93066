#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 420
#
# Congestion control, acceptance 4 of issue 10 (Documentation/congestion-
# control.md, "Experiment 4"): a real bottleneck.
#
#   vts1 (vroceS1 on veth vts1, 192.168.77.1) --+
#                                               +-- vtsw: bridge br0 --swr-- vtr (vroceR, .3)
#   vts2 (vroceS2 on veth vts2, 192.168.77.2) --+
#
# swr (the bridge's port toward the receiver) has the bottleneck as its
# egress qdisc: tbf at BN_MBIT (root), RoCE in its own class under it
# ("red ... ecn", bounded by RED_LIMIT bytes), other traffic in a FIFO
# class; no veth is tuned (no RPS).  Each sender runs RC ib_write_bw to
# its own server on vroceR (two ports).  Per-sender bytes are sampled every second at
# the bridge's ingress ports sw1 / sw2 (rx_bytes), the bottleneck's sent
# bytes and drops from "tc -s qdisc" on swr.
#   run "on":  cc/enable 1 on all three devices, each sender's line_rate
#              SND_MBIT (above the bottleneck, below what it can push):
#              utilisation (tbf bytes sent / (BN_MBIT * time), last half)
#              >= 90 %, Jain's index over the two senders' rates in the
#              last half >= 0.95, 0 drops at the bottleneck, 0
#              out_of_sequence on vroceR;
#   run "off": cc/enable 0 (no pacing, no reaction): the queue overflows,
#              drops > 0 (RC's go-back-N retransmits, the run completes).
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"
. "$VROCE_SRC/userspace-tests/lib/cc.sh"

# The debug kernel (KASAN, lockdep, kmemleak) moves only about 9.4 Mb/s
# through this topology in all (both senders unpaced, 4.8 Mb/s each), and
# its bridge dropped at a 20 Mb/s tbf that was sent 9.4: the CPU, not the
# tbf, was the bottleneck.  There the bottleneck is 3 Mb/s, the senders'
# line rate 4, and the reaction point's periods 7 times longer, so rates
# and time scale together (rp_ai_rate cannot go below 1 Mb/s).
if [ "${VROCE_TIME_SCALE:-1}" -eq 1 ]; then
	bn=20 snd=30 tstretch=1 on_s=40 off_s=20
else
	bn=3 snd=4 tstretch=7 on_s=80 off_s=30
fi
BN_MBIT=${VT_BN_MBIT:-$bn}
SND_MBIT=${VT_SND_MBIT:-$snd}
ON_S=${VT_BOTTLENECK_SECS:-$on_s}
OFF_S=${VT_BOTTLENECK_OFF_SECS:-$off_s}
RED_LIMIT=${VT_RED_LIMIT:-1000000}
RED_MIN=${VT_RED_MIN:-15000}
RED_MAX=${VT_RED_MAX:-60000}
RED_P=${VT_RED_P:-0.2}
MSG=${VT_MSG:-65536}
MODE=${VT_MODE:-both}

command -v ib_write_bw >/dev/null || vt_skip "no ib_write_bw (perftest)"
command -v tc >/dev/null || vt_fail "no tc"
for m in sch_tbf sch_prio sch_red cls_u32 bridge; do
	modprobe "$m" || vt_fail "no $m module"
done
vt_load_vroce

topo() {
	local i
	ip netns add vtsw && ip netns add vtr || return 1
	ip -n vtsw link add br0 type bridge || return 1
	ip -n vtsw link set br0 up
	for i in 1 2; do
		ip netns add vts$i || return 1
		ip link add vts$i netns vts$i type veth peer name sw$i netns vtsw || return 1
		ip -n vts$i addr add 192.168.77.$i/24 dev vts$i
		ip -n vts$i link set lo up && ip -n vts$i link set vts$i up
		ip -n vtsw link set sw$i master br0 && ip -n vtsw link set sw$i up
	done
	ip link add vtr netns vtr type veth peer name swr netns vtsw || return 1
	ip -n vtr addr add 192.168.77.3/24 dev vtr
	ip -n vtr link set lo up && ip -n vtr link set vtr up
	ip -n vtsw link set swr master br0 && ip -n vtsw link set swr up
}
topo || vt_fail "topology"

# No veth is tuned (no RPS): the tbf dequeues on either CPU and the veth
# behind it queues each packet on that CPU's backlog, so a QP's packets
# can reach vroceR out of order; vroceR holds them until the gap fills
# (reseq.c) where an Ethernet switch would have kept the order.  How long
# a gap stays open here is the emulator's: the guest's two vCPUs take
# turns on one host thread (QEMU's round robin lets one run up to 100 ms),
# and with a second VM on the host a gap outlived the default 10 ms (103
# out_of_sequence in one run of five), so vroceR waits up to 100 ms.
echo 100000 >/sys/module/vroce/parameters/rx_reorder_us || vt_fail "rx_reorder_us=100000 refused"
# Little but RoCE crosses the bottleneck at all: perftest's TCP exchange
# negotiates ECN, neighbours are static (no ARP), IPv6 is off (no ND, no
# MLD); what remains goes to the FIFO class below.
for ns in vts1 vts2 vtr vtsw; do
	ip netns exec $ns sysctl -qw net.ipv4.tcp_ecn=1 net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 || vt_fail "sysctl in $ns"
done
hosts=(vts1 vts2 vtr)
for a in 0 1 2; do
	for b in 0 1 2; do
		[ $a = $b ] && continue
		hb=${hosts[b]}
		mac=$(ip netns exec "$hb" cat "/sys/class/net/$hb/address")
		ip -n "${hosts[a]}" neigh replace 192.168.77.$((b + 1)) lladdr "$mac" \
			dev "${hosts[a]}" nud permanent || vt_fail "static neighbour of $hb in ${hosts[a]}"
	done
done
# The bottleneck: tbf shapes everything to BN_MBIT; under it, as in a
# RoCE deployment, RoCE (UDP 4791) has a traffic class of its own: RED
# with ECN (harddrop off) holds its queue, bounded by RED_LIMIT bytes.
# The rest (perftest's TCP exchange, whose SYNs and pure ACKs are
# Not-ECT, which RED would drop early) goes to a plain FIFO class ahead
# of it: a few hundred bytes a second.
tc -n vtsw qdisc add dev swr root handle 1: tbf rate "${BN_MBIT}mbit" \
	burst 64kb latency 1s || vt_fail "tbf"
tc -n vtsw qdisc add dev swr parent 1:1 handle 10: prio bands 2 \
	priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 || vt_fail "prio"
tc -n vtsw qdisc add dev swr parent 10:1 handle 20: pfifo limit 1000 || vt_fail "pfifo"
tc -n vtsw qdisc add dev swr parent 10:2 handle 30: red limit "$RED_LIMIT" \
	min "$RED_MIN" max "$RED_MAX" avpkt 1100 burst $(((2 * RED_MIN + RED_MAX) / 3 / 1100 + 1)) \
	probability "$RED_P" bandwidth "${BN_MBIT}mbit" ecn || vt_fail "red"
tc -n vtsw filter add dev swr parent 10: protocol ip prio 1 u32 \
	match ip protocol 17 0xff match ip dport 4791 0xffff flowid 10:2 ||
	vt_fail "RoCE filter"
vt_log "bottleneck: $(tc -n vtsw qdisc show dev swr | tr '\n' ' ')"

vt_link_add vroceS1 vts1 vts1
vt_link_add vroceS2 vts2 vts2
vt_link_add vroceR vtr vtr
for d in vroceS1 vroceS2 vroceR; do
	vt_wait_for "[ \"\$(vt_port_state $d)\" = ACTIVE ]" 30 ||
		vt_fail "$d port not ACTIVE: $(vt_port_state "$d")"
done
vt_cc_require vroceS1 vroceS2 vroceR

cc_knobs() {
	local d
	for d in vroceS1 vroceS2; do
		vt_cc_set $d line_rate "$SND_MBIT"
		vt_cc_set $d rp_time_reset "${VT_RP_TIME_RESET:-$((5000 * tstretch))}"
		vt_cc_set $d rp_byte_reset "${VT_RP_BYTE_RESET:-0}"
		vt_cc_set $d rp_ai_rate "${VT_RP_AI:-1}"
		vt_cc_set $d rp_hai_rate "${VT_RP_HAI:-2}"
		vt_cc_set $d rp_dce_tcp_rtt "${VT_RP_RTT:-$((5000 * tstretch))}"
		vt_cc_set $d rp_rate_reduce_monitor_period "${VT_RP_MON:-$((20000 * tstretch))}"
		vt_cc_set $d rp_min_rate "${VT_RP_MIN:-1}"
		vt_cc_set $d rp_dce_tcp_g "${VT_RP_G:-960}"
	done
	vt_cc_set vroceR np_min_time_between_cnps "${VT_NP_N:-4000}"
}
cc_knobs

# qd FIELD: the red child's / tbf's counters on swr
qstat() { tc -n vtsw -s qdisc show dev swr; }
# tbf line: "Sent B bytes P pkt (dropped D, overlimits O requeues R)"
tbf_sent() { qstat | awk '/^qdisc tbf/ { f = 1 } f && /Sent/ && !done { print $2; done = 1 }'; }
# the tbf line counts its child's drops too: count that one only
drops() { qstat | awk '/^qdisc tbf/ { f = 1 } f && /Sent/ && !done { gsub(",", "", $7); print $7 + 0; done = 1 }'; }
rxb() { ip netns exec vtsw cat /sys/class/net/sw$1/statistics/rx_bytes; }

# run NAME SECS: both ib_write_bw pairs for SECS, sampled each second
# into $VROCE_JOB/$VT_NAME.NAME.samples: t tbf_sent s1_rx s2_rx
run() {
	local name=$1 secs=$2 i port srv=() cli=() out=$VROCE_JOB/$VT_NAME.$1 end
	for i in 1 2; do
		port=$((18600 + i))
		ip netns exec vtr timeout -k 5 $((secs + 120)) ib_write_bw -d vroceR -x 3 -F \
			-p $port -s "$MSG" -D "$secs" --report_gbits >"$out.srv$i" 2>&1 &
		srv+=($!)
	done
	for i in 1 2; do
		vt_wait_for "ip netns exec vtr ss -ltn | grep :$((18600 + i)) >/dev/null" 30 ||
			vt_fail "$name: server $i did not listen: $(cat "$out.srv$i")"
	done
	for i in 1 2; do
		ip netns exec vts$i timeout -k 5 $((secs + 120)) ib_write_bw -d vroceS$i -x 3 -F \
			-p $((18600 + i)) -s "$MSG" -D "$secs" --report_gbits 192.168.77.3 \
			>"$out.cli$i" 2>&1 &
		cli+=($!)
	done
	# one sampler inside vtsw, bash builtins only (a process per sample
	# takes seconds in a loaded TCG guest): time, swr tx (= what the
	# bottleneck sent), sw1 rx, sw2 rx every half second
	ip netns exec vtsw timeout $((secs + 90)) bash -c '
		d=/sys/class/net
		exec {z}<> <(:)
		while :; do
			read -r q <$d/swr/statistics/tx_bytes
			read -r a <$d/sw1/statistics/rx_bytes
			read -r b <$d/sw2/statistics/rx_bytes
			echo "$EPOCHREALTIME $q $a $b"
			read -r -t 0.5 -u $z || :
		done' >"$out.samples" 2>&1 &
	local smp=$!
	end=$((SECONDS + secs + 60))
	while kill -0 "${cli[0]}" 2>/dev/null || kill -0 "${cli[1]}" 2>/dev/null; do
		[ $SECONDS -lt $end ] || break
		sleep 1
	done
	kill "$smp" 2>/dev/null || :
	wait "$smp" 2>/dev/null || :
	for i in 0 1; do
		wait "${cli[$i]}" || vt_fail "$name: client $((i + 1)) failed: $(tail -5 "$out.cli$((i + 1))")"
		wait "${srv[$i]}" || vt_fail "$name: server $((i + 1)) failed: $(tail -5 "$out.srv$((i + 1))")"
	done
	qstat >"$out.tc"
}

# analyse NAME: from the samples, over the span where both clients were
# sending (rx grew on both ports), its last half: "util jain r1 r2 bn"
# (Mb/s)
analyse() {
	# "moved": a sixth of a fair share's half second (100 kB at 20 Mb/s)
	awk -v bn="$BN_MBIT" -v mv=$((BN_MBIT * 5000)) '
		{ t[n] = $1; q[n] = $2; a[n] = $3; b[n] = $4; n++ }
		END {
			# active span: from the first sample after both ports moved
			# to the last one where either still moved
			s = -1; e = -1
			for (i = 1; i < n; i++) {
				if (a[i] > a[i-1] + mv && b[i] > b[i-1] + mv) { if (s < 0) s = i - 1; e = i }
			}
			if (s < 0 || e - s < 4) { print "nodata"; exit }
			m = s + int((e - s) / 2)
			dt = t[e] - t[m]
			r1 = (a[e] - a[m]) * 8 / dt / 1e6; r2 = (b[e] - b[m]) * 8 / dt / 1e6
			rq = (q[e] - q[m]) * 8 / dt / 1e6
			j = (r1 + r2) ^ 2 / (2 * (r1 * r1 + r2 * r2))
			printf "%.3f %.4f %.1f %.1f %.1f %.1f\n", rq / bn, j, r1, r2, rq, dt
		}' "$VROCE_JOB/$VT_NAME.$1.samples"
}

ooo() { vt_counter vroceR out_of_sequence; }

# where else packets can be lost: the softnet backlogs (column 2 of
# /proc/net/softnet_stat), every veth's rx/tx drops, the senders' tx_err
# (the IP stack refused a packet), the receiver's header/ICRC drops
kdrops() {
	local n=0 d ns dev f
	while read -r _ d _; do n=$((n + 0x$d)); done </proc/net/softnet_stat
	echo -n "softnet $n"
	for ns in vts1 vts2 vtsw vtr; do
		for dev in $(ip netns exec $ns ls /sys/class/net); do
			[ "$dev" = lo ] && continue
			for f in rx_dropped tx_dropped; do
				d=$(ip netns exec $ns cat /sys/class/net/$dev/statistics/$f)
				[ "$d" = 0 ] || echo -n " $ns/$dev/$f $d"
			done
		done
	done
	for d in vroceS1 vroceS2; do echo -n " $d/tx_errors $(vt_counter $d tx_errors)"; done
	for f in rx_header_errors rx_icrc_encapsulated duplicate_request; do echo -n " vroceR/$f $(vt_counter vroceR $f)"; done
	echo
}

res=
if [ "$MODE" != off ]; then
	for d in vroceS1 vroceS2 vroceR; do vt_cc_set $d enable 1; done
	d0=$(drops); o0=$(ooo)
	vt_log "on, before: $(kdrops)"
	run on "$ON_S"
	d1=$(drops); o1=$(ooo)
	vt_log "on, after: $(kdrops)"
	for d in vroceS1 vroceS2 vroceR; do rdma statistic show link $d/1 >>"$VROCE_JOB/$VT_NAME.on.counters"; done
	read -r util jain r1 r2 rq dt < <(analyse on)
	cnp=$(vt_counter vroceR np_cnp_sent); h1=$(vt_counter vroceS1 rp_cnp_handled); h2=$(vt_counter vroceS2 rp_cnp_handled)
	mk=$(vt_counter vroceR np_ecn_marked_roce_packets)
	vt_log "on: util $util jain $jain s1 $r1 s2 $r2 bottleneck $rq Mb/s over $dt s; drops $((d1 - d0)) ooo $((o1 - o0)) marked $mk cnp $cnp handled $h1/$h2"
	vt_log "on: perftest $(grep -hE '^ *[0-9]+ +[0-9]+ ' "$VROCE_JOB/$VT_NAME".on.cli? | awk '{print $4}' | tr '\n' ' ')Gb/s"
	res="on: util $util jain $jain drops $((d1 - d0)) ooo $((o1 - o0)) (s1 $r1 s2 $r2 Mb/s, cnp $cnp)"
fi
if [ "$MODE" != on ]; then
	for d in vroceS1 vroceS2 vroceR; do vt_cc_set $d enable 0; done
	d2=$(drops); o2=$(ooo)
	vt_log "off, before: $(kdrops)"
	run off "$OFF_S"
	d3=$(drops); o3=$(ooo)
	vt_log "off, after: $(kdrops)"
	read -r uoff joff q1 q2 qq qdt < <(analyse off)
	vt_log "off: util $uoff jain $joff s1 $q1 s2 $q2 bottleneck $qq Mb/s over $qdt s; drops $((d3 - d2)) ooo $((o3 - o2))"
	res="$res; off: util $uoff drops $((d3 - d2)) ooo $((o3 - o2))"
fi
echo "RESULT: $res"
if [ "$MODE" = both ]; then
	awk -v u="$util" 'BEGIN { exit !(u >= 0.90) }' || vt_fail "utilisation $util < 0.90 ($res)"
	awk -v j="$jain" 'BEGIN { exit !(j >= 0.95) }' || vt_fail "Jain $jain < 0.95 ($res)"
	[ $((d1 - d0)) = 0 ] || vt_fail "DCQCN on: $((d1 - d0)) drops at the bottleneck ($res)"
	[ $((o1 - o0)) = 0 ] || vt_fail "DCQCN on: out_of_sequence $((o1 - o0)) ($res)"
	[ $((d3 - d2)) -gt 0 ] || vt_fail "DCQCN off: no drops at the bottleneck ($res)"
	vt_pass "$res"
fi
vt_pass "mode $MODE: $res"
