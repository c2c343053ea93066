# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A real bottleneck in one guest, for the incast scenarios (67-cc-
# bottleneck, 75-cc-timely-incast):
#
#   vts1 (vroceS1 on veth vts1, 192.168.77.1) --+
#   vts2 (vroceS2 on veth vts2, .2)           --+-- vtsw: bridge br0 --swr-- vtr (vroceR, .10)
#   ... up to vtsN (vroceSN, .N)              --+
#
# swr (the bridge's port toward the receiver) has the bottleneck as its
# egress qdisc: tbf at BN_MBIT (root), RoCE in its own class under it
# ("red ... ecn", bounded by RED_LIMIT bytes), other traffic in a FIFO
# class; no veth is tuned (no RPS).  Each sender runs RC ib_write_bw to
# its own server on vroceR.  Per-sender bytes are sampled every half
# second at the bridge's ingress ports sw1..swN (rx_bytes), the
# bottleneck's sent bytes and drops from "tc -s qdisc" on swr.
#
# Source after common.sh, vroce.sh and cc.sh.  The scenario sets BN_MBIT,
# MSG (ib_write_bw's size), RED_LIMIT, RED_MIN, RED_MAX and RED_P, then
# calls vt_incast_setup N; vt_incast_measure runs the flows.

INCAST_RCV_IP=192.168.77.10

# _incast_topo N: the namespaces, the bridge and the veths
_incast_topo() {
	local i
	ip netns add vtsw && ip netns add vtr || return 1
	ip -n vtsw link add br0 type bridge || return 1
	ip -n vtsw link set br0 up
	for ((i = 1; i <= $1; i++)); do
		ip netns add vts$i || return 1
		ip link add vts$i netns vts$i type veth peer name sw$i netns vtsw || return 1
		ip -n vts$i addr add 192.168.77.$i/24 dev vts$i
		ip -n vts$i link set lo up && ip -n vts$i link set vts$i up
		ip -n vtsw link set sw$i master br0 && ip -n vtsw link set sw$i up
	done
	ip link add vtr netns vtr type veth peer name swr netns vtsw || return 1
	ip -n vtr addr add $INCAST_RCV_IP/24 dev vtr
	ip -n vtr link set lo up && ip -n vtr link set vtr up
	ip -n vtsw link set swr master br0 && ip -n vtsw link set swr up
}

# vt_incast_setup N: N senders and the receiver, the bottleneck, a vroce
# device on each host (vroceS1..vroceSN, vroceR), every port ACTIVE and
# congestion control present; sets INCAST_NSND and INCAST_DEVS (the
# senders' devices, then vroceR).
vt_incast_setup() {
	local i a b hb mac ns hosts=() addrs=() d
	INCAST_NSND=$1
	command -v ib_write_bw >/dev/null || vt_skip "no ib_write_bw (perftest)"
	command -v tc >/dev/null || vt_fail "no tc"
	for d in sch_tbf sch_prio sch_red cls_u32 bridge; do
		modprobe "$d" || vt_fail "no $d module"
	done
	vt_load_vroce
	_incast_topo "$INCAST_NSND" || vt_fail "topology"

	# No veth is tuned (no RPS): the tbf dequeues on either CPU and the
	# veth behind it queues each packet on that CPU's backlog, so a QP's
	# packets can reach vroceR out of order; vroceR holds them until the
	# gap fills (reseq.c) where an Ethernet switch would have kept the
	# order.  How long a gap stays open here is the emulator's: the
	# guest's two vCPUs take turns on one host thread (QEMU's round robin
	# lets one run up to 100 ms), and with a second VM on the host a gap
	# outlived the default 10 ms (103 out_of_sequence in one run of five),
	# so vroceR waits up to 100 ms.
	echo 100000 >/sys/module/vroce/parameters/rx_reorder_us ||
		vt_fail "rx_reorder_us=100000 refused"
	# Little but RoCE crosses the bottleneck at all: perftest's TCP
	# exchange negotiates ECN, neighbours are static (no ARP), IPv6 is off
	# (no ND, no MLD); what remains goes to the FIFO class below.
	for ((i = 1; i <= INCAST_NSND; i++)); do
		hosts+=("vts$i") addrs+=("192.168.77.$i")
	done
	hosts+=(vtr) addrs+=("$INCAST_RCV_IP")
	for ns in "${hosts[@]}" vtsw; do
		ip netns exec $ns sysctl -qw net.ipv4.tcp_ecn=1 net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 || vt_fail "sysctl in $ns"
	done
	for a in "${!hosts[@]}"; do
		for b in "${!hosts[@]}"; do
			[ $a = $b ] && continue
			hb=${hosts[b]}
			mac=$(ip netns exec "$hb" cat "/sys/class/net/$hb/address")
			ip -n "${hosts[a]}" neigh replace "${addrs[b]}" lladdr "$mac" \
				dev "${hosts[a]}" nud permanent ||
				vt_fail "static neighbour of $hb in ${hosts[a]}"
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
		min "$RED_MIN" max "$RED_MAX" avpkt 1100 \
		burst $(((2 * RED_MIN + RED_MAX) / 3 / 1100 + 1)) \
		probability "$RED_P" bandwidth "${BN_MBIT}mbit" ecn || vt_fail "red"
	tc -n vtsw filter add dev swr parent 10: protocol ip prio 1 u32 \
		match ip protocol 17 0xff match ip dport 4791 0xffff flowid 10:2 ||
		vt_fail "RoCE filter"
	vt_log "bottleneck: $(tc -n vtsw qdisc show dev swr | tr '\n' ' ')"

	INCAST_DEVS=()
	for ((i = 1; i <= INCAST_NSND; i++)); do
		vt_link_add vroceS$i vts$i vts$i
		INCAST_DEVS+=("vroceS$i")
	done
	vt_link_add vroceR vtr vtr
	INCAST_DEVS+=(vroceR)
	for d in "${INCAST_DEVS[@]}"; do
		vt_wait_for "[ \"\$(vt_port_state $d)\" = ACTIVE ]" 30 ||
			vt_fail "$d port not ACTIVE: $(vt_port_state "$d")"
	done
	vt_cc_require "${INCAST_DEVS[@]}"
}

# the red child's and the tbf's counters on swr
_incast_qstat() { tc -n vtsw -s qdisc show dev swr; }
# the bottleneck's drops: the tbf line ("Sent B bytes P pkt (dropped D,
# overlimits O requeues R)") counts its child's drops too; count that one
# only, reading the whole output (an early exit would kill tc with SIGPIPE)
_incast_drops() {
	_incast_qstat | awk '/^qdisc tbf/ { f = 1 }
		f && /Sent/ && !done { gsub(",", "", $7); print $7 + 0; done = 1 }'
}

# _incast_run NAME SECS K: senders 1..K each run ib_write_bw to its own
# server on vroceR for SECS, sampled every half second into
# $VROCE_JOB/$VT_NAME.NAME.samples: t tbf_sent s1_rx .. sK_rx
_incast_run() {
	local name=$1 secs=$2 k=$3 i port srv=() cli=() out=$VROCE_JOB/$VT_NAME.$1 end smp
	for ((i = 1; i <= k; i++)); do
		port=$((18600 + i))
		ip netns exec vtr timeout -k 5 $((secs + 120)) ib_write_bw -d vroceR -x 3 -F \
			-p $port -s "$MSG" -D "$secs" --report_gbits >"$out.srv$i" 2>&1 &
		srv+=($!)
	done
	for ((i = 1; i <= k; i++)); do
		vt_wait_for "ip netns exec vtr ss -ltn | grep :$((18600 + i)) >/dev/null" 30 ||
			vt_fail "$name: server $i did not listen: $(cat "$out.srv$i")"
	done
	for ((i = 1; i <= k; i++)); do
		ip netns exec vts$i timeout -k 5 $((secs + 120)) ib_write_bw -d vroceS$i -x 3 -F \
			-p $((18600 + i)) -s "$MSG" -D "$secs" --report_gbits $INCAST_RCV_IP \
			>"$out.cli$i" 2>&1 &
		cli+=($!)
	done
	# one sampler inside vtsw, bash builtins only (a process per sample
	# takes seconds in a loaded TCG guest): time, swr tx (= what the
	# bottleneck sent), sw1..swK rx every half second
	ip netns exec vtsw timeout $((secs + 90)) bash -c '
		d=/sys/class/net
		exec {z}<> <(:)
		while :; do
			read -r q <$d/swr/statistics/tx_bytes
			l="$EPOCHREALTIME $q"
			for ((i = 1; i <= '"$k"'; i++)); do
				read -r a <$d/sw$i/statistics/rx_bytes
				l="$l $a"
			done
			echo "$l"
			read -r -t 0.5 -u $z || :
		done' >"$out.samples" 2>&1 &
	smp=$!
	end=$((SECONDS + secs + 60))
	while [ $SECONDS -lt $end ]; do
		for i in "${cli[@]}"; do kill -0 "$i" 2>/dev/null && break; i=; done
		[ -n "$i" ] || break
		sleep 1
	done
	kill "$smp" 2>/dev/null || :
	wait "$smp" 2>/dev/null || :
	for ((i = 0; i < k; i++)); do
		wait "${cli[$i]}" || vt_fail "$name: client $((i + 1)) failed: $(tail -5 "$out.cli$((i + 1))")"
		wait "${srv[$i]}" || vt_fail "$name: server $((i + 1)) failed: $(tail -5 "$out.srv$((i + 1))")"
	done
	_incast_qstat >"$out.tc"
}

# _incast_analyse NAME: from the samples, over the span where every sender
# was sending (rx grew on each port), its last half: "util jain bn dt r1
# .. rK" (rates in Mb/s)
_incast_analyse() {
	# "moved": a sixth of a fair share's half second (100 kB at 20 Mb/s)
	awk -v bn="$BN_MBIT" -v mv=$((BN_MBIT * 5000)) '
		{ t[n] = $1; q[n] = $2; for (c = 3; c <= NF; c++) r[n, c] = $c; k = NF; n++ }
		END {
			# active span: from the first sample after every port moved
			# to the last one where all still moved
			s = -1; e = -1
			for (i = 1; i < n; i++) {
				all = 1
				for (c = 3; c <= k; c++) if (r[i, c] <= r[i-1, c] + mv) all = 0
				if (all) { if (s < 0) s = i - 1; e = i }
			}
			if (s < 0 || e - s < 4) { print "nodata"; exit }
			m = s + int((e - s) / 2)
			dt = t[e] - t[m]
			sum = 0; sq = 0; out = ""
			for (c = 3; c <= k; c++) {
				x = (r[e, c] - r[m, c]) * 8 / dt / 1e6
				sum += x; sq += x * x; out = out sprintf(" %.1f", x)
			}
			rq = (q[e] - q[m]) * 8 / dt / 1e6
			printf "%.3f %.4f %.1f %.1f%s\n", rq / bn, sum * sum / ((k - 2) * sq), rq, dt, out
		}' "$VROCE_JOB/$VT_NAME.$1.samples"
}

# where else packets can be lost: the softnet backlogs (column 2 of
# /proc/net/softnet_stat), every veth's rx/tx drops, the senders' tx_err
# (the IP stack refused a packet), the receiver's header/ICRC drops
_incast_kdrops() {
	local n=0 d ns dev f i
	while read -r _ d _; do n=$((n + 0x$d)); done </proc/net/softnet_stat
	echo -n "softnet $n"
	for ns in $(ip netns list | awk '/^vt(s[0-9]+|sw|r)( |$)/ { print $1 }'); do
		for dev in $(ip netns exec "$ns" ls /sys/class/net); do
			[ "$dev" = lo ] && continue
			for f in rx_dropped tx_dropped; do
				d=$(ip netns exec "$ns" cat /sys/class/net/$dev/statistics/$f)
				[ "$d" = 0 ] || echo -n " $ns/$dev/$f $d"
			done
		done
	done
	for ((i = 1; i <= INCAST_NSND; i++)); do
		echo -n " vroceS$i/tx_errors $(vt_counter vroceS$i tx_errors)"
	done
	for f in rx_header_errors rx_icrc_encapsulated duplicate_request; do
		echo -n " vroceR/$f $(vt_counter vroceR $f)"
	done
	echo
}

# _incast_resent K: what the senders 1..K sent again (sequence NAKs,
# timeouts, implied NAKs they received)
_incast_resent() {
	local -A c
	local i n=0 f
	for ((i = 1; i <= $1; i++)); do
		vt_counters vroceS$i c
		for f in packet_seq_err local_ack_timeout_err implied_nak_seq_err; do
			n=$((n + ${c[$f]}))
		done
	done
	echo $n
}

# vt_incast_measure NAME SECS K: run NAME with senders 1..K, then in
# M_UTIL, M_JAIN, M_DROPS, M_OOO, M_RESENT what the bottleneck and vroceR
# saw, and the summary in M_RES.
vt_incast_measure() {
	local d0 o0 x0 d1 o1 x1 rq dt rates d
	d0=$(_incast_drops) o0=$(vt_counter vroceR out_of_sequence) x0=$(_incast_resent "$3")
	vt_log "$1, before: $(_incast_kdrops)"
	_incast_run "$1" "$2" "$3"
	d1=$(_incast_drops) o1=$(vt_counter vroceR out_of_sequence) x1=$(_incast_resent "$3")
	vt_log "$1, after: $(_incast_kdrops)"
	for d in "${INCAST_DEVS[@]}"; do
		rdma statistic show link $d/1 >>"$VROCE_JOB/$VT_NAME.$1.counters"
	done
	read -r M_UTIL M_JAIN rq dt rates < <(_incast_analyse "$1")
	M_DROPS=$((d1 - d0)) M_OOO=$((o1 - o0)) M_RESENT=$((x1 - x0))
	M_RES="$1: util $M_UTIL jain $M_JAIN drops $M_DROPS ooo $M_OOO resent $M_RESENT (senders $rates Mb/s, bottleneck $rq over $dt s; marked $(vt_counter vroceR np_ecn_marked_roce_packets), cnp $(vt_counter vroceR np_cnp_sent))"
	vt_log "$M_RES"
	vt_log "$1: perftest $(grep -hE '^ *[0-9]+ +[0-9]+ ' "$VROCE_JOB/$VT_NAME.$1".cli? | awk '{print $4}' | tr '\n' ' ')Gb/s"
}
