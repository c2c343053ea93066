# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Congestion-control helpers (Documentation/congestion-control.md) for the
# 6x-cc-* scenarios; source after common.sh and vroce.sh.  Every helper
# fails the scenario (vt_fail) when the interface it uses is missing: the
# cc/ directory, a counter, a tracepoint, a QP attribute.

VT_TRACE=/sys/kernel/tracing
VT_CC_QP=$VROCE_SRC/userspace-tests/bin/cc_qp

# vt_cc_die MSG: vt_fail that also shows MSG on stderr (the log): the
# helpers below run inside $(...), where vt_fail's line would only land in
# the caller's variable.
vt_cc_die() {
	echo "FAIL: $VT_NAME: $*" >&2
	vt_fail "$*"
}

# vt_cc_dir DEV: the device's cc/ directory (a flat attribute group:
# the per-priority enables are the lists roce_np_enable and roce_rp_enable,
# e.g. 0,0,0,1,0,0,0,0 for priority 3 alone).
vt_cc_dir() { echo "$(vt_sys "$1")/cc"; }

# vt_cc_ecn NETDEV: mlx5's per-netdev ECN directory that vroce adds under
# the netdev of a device (roce_np/enable/<prio>, roce_rp/enable/<prio>);
# only in the netdev's own network namespace.
vt_cc_ecn() { echo "/sys/class/net/$1/ecn"; }

# vt_cc_set DEV FILE VALUE: write a cc/ file and check that it reads back
# exactly VALUE (roce_rp_enable: e.g. 1,0,1,1,1,1,1,1).
vt_cc_set() {
	local f v
	f=$(vt_cc_dir "$1")/$2
	[ -f "$f" ] || vt_fail "$1: no $f (cc/ sysfs missing)"
	echo "$3" >"$f" || vt_fail "$1: echo $3 > $f refused"
	v=$(cat "$f")
	[ "$v" = "$3" ] || vt_fail "$1: $f reads '$v' after writing $3"
}

# vt_cc_ns_set NS DEV FILE VALUE: write cc/FILE of DEV from inside network
# namespace NS (the device's own, as a user there configures it) and read
# it back there.
vt_cc_ns_set() {
	local f=/sys/class/infiniband/$2/cc/$3
	ip netns exec "$1" sh -c "echo $4 >$f" ||
		vt_fail "$1: echo $4 > $f refused"
	[ "$(ip netns exec "$1" cat "$f")" = "$4" ] ||
		vt_fail "$1: $f does not read $4"
}

# vt_cc_get DEV FILE
vt_cc_get() {
	local f
	f=$(vt_cc_dir "$1")/$2
	[ -f "$f" ] || vt_cc_die "$1: no $f (cc/ sysfs missing)"
	cat "$f"
}

# vt_cc_dump DEV OUT: "name value" for every file directly in cc/, the
# knob dump userspace-tests/cc-model/trace_check.py reads.
vt_cc_dump() {
	local d f
	d=$(vt_cc_dir "$1")
	[ -d "$d" ] || vt_fail "$1: no $d"
	: >"$2"
	for f in "$d"/*; do
		[ -f "$f" ] && [ -r "$f" ] && echo "$(basename "$f") $(cat "$f")" >>"$2"
	done
}

# vt_counter DEV NAME: one rdma statistic counter of DEV's port 1; fails
# the scenario if DEV has no such counter.
vt_counter() {
	local -A vt_counter_all
	vt_counters "$1" vt_counter_all
	[ -n "${vt_counter_all[$2]:-}" ] ||
		vt_cc_die "$1: no counter $2 in rdma statistic"
	echo "${vt_counter_all[$2]}"
}

# vt_counters DEV ARRAY: every counter of DEV's port 1 into the associative
# array named ARRAY (declared by the caller), from one rdma call: a
# scenario that compares many counters at once forks once, not per
# counter.  The one reader of rdma statistic's output (vt_counter too).
vt_counters() {
	local -n vt_counters_out=$2
	local k v
	vt_counters_out=()
	while read -r k v; do
		vt_counters_out[$k]=$v
	done < <(rdma statistic show link "$1/1" | tr ' ' '\n' |
		awk -v self="$1/1" '$0 == "" || $0 == "link" || $0 == self { next }
			k == "" { k = $0; next } { print k, $0; k = "" }')
	[ "${#vt_counters_out[@]}" -gt 0 ] ||
		vt_cc_die "$1: no counters in rdma statistic"
}

# vt_cc_pair: vroce loaded, the netns pair (vroceA in vtA, vroceB in
# vtB) with congestion control on both devices.
vt_cc_pair() {
	local d
	vt_load_vroce
	vt_vroce_netns_pair
	vt_cc_require vroceA vroceB
	for d in vroceA vroceB; do
		vt_cc_set "$d" enable 1
	done
}

# vt_qp_attr DEV QPN NAME: a driver attribute (rdma -dd resource show qp)
# of QP QPN on DEV: cc_rp_active (0 until the QP's first CNP), then also
# cc_limited, cc_rate_kbps, cc_target_kbps, cc_alpha (rdma prints them
# with a drv_ prefix).
vt_qp_attr() {
	local v
	v=$(rdma -dd resource show qp link "$1/1" lqpn "$2" | tr ' ' '\n' |
		awk -v k="$3" 'f && !done { print; done = 1 } $0 == k || $0 == "drv_" k { f = 1 }')
	[ -n "$v" ] || vt_cc_die "$1: QP $2 has no driver attribute $3: $(rdma -dd resource show qp link "$1/1" lqpn "$2")"
	echo "$v"
}

# vt_fault DEV KNOB [VALUE]: read or write a debugfs fault knob.
vt_fault() {
	local f=/sys/kernel/debug/vroce/$1/$2
	[ -e "$f" ] || vt_cc_die "no $f"
	if [ $# -ge 3 ]; then echo "$3" >"$f" || vt_cc_die "echo $3 > $f"; else cat "$f"; fi
}

# vt_trace_start EVENT...: clear the trace buffer (8 MiB per CPU) and
# enable the vroce:EVENTs, nothing else.
vt_trace_start() {
	local e
	[ -d "$VT_TRACE/events" ] || vt_fail "no tracefs at $VT_TRACE"
	echo 0 >"$VT_TRACE/tracing_on"
	echo 0 >"$VT_TRACE/events/enable"
	echo 8192 >"$VT_TRACE/buffer_size_kb"
	: >"$VT_TRACE/trace"
	for e in "$@"; do
		[ -d "$VT_TRACE/events/vroce/$e" ] ||
			vt_fail "no tracepoint vroce:$e: $(find "$VT_TRACE/events/vroce" -maxdepth 1 -mindepth 1 -printf "%f " 2>&1)"
		echo 1 >"$VT_TRACE/events/vroce/$e/enable"
	done
	echo 1 >"$VT_TRACE/tracing_on"
}

# vt_trace_stop OUT: stop tracing, save the buffer to OUT; fails if the
# buffer overran (lost events would make every count wrong).
vt_trace_stop() {
	local lost
	echo 0 >"$VT_TRACE/tracing_on"
	cat "$VT_TRACE/trace" >"$1"
	echo 0 >"$VT_TRACE/events/enable"
	lost=$(cat "$VT_TRACE"/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	[ "$lost" = 0 ] || vt_fail "trace buffer overran: $lost events lost"
}

# vt_ccqp_start TAG PORT [CLIENT OPTIONS...]: a cc_qp server on vroceB
# (namespace vtB) and a client on vroceA (vtA) connected to it, which
# reads commands from a FIFO; kept in globals:
#   CCQP_OUT[TAG]  the client's output file;  CCQP_FD[TAG]  its command fd
#   CCQP_PID[TAG], CCQP_SPID[TAG]  client and server pids
#   CCQP_LQPN[TAG] the client's (vroceA's) QPN of QP 0, CCQP_RQPN[TAG] the
#   server's (vroceB's)
# Both live at most 600 s times VROCE_TIME_SCALE: one pair may serve every
# round of a scenario, and rounds are sized by the time scale too (62's
# four ran 803 s on the debug kernel).
declare -A CCQP_OUT CCQP_FD CCQP_PID CCQP_SPID CCQP_LQPN CCQP_RQPN
vt_ccqp_start() {
	local tag=$1 port=$2 fifo fd life=$((600 * ${VROCE_TIME_SCALE:-1}))
	shift 2
	[ -x "$VT_CC_QP" ] || vt_fail "$VT_CC_QP not built (make -C userspace-tests tests)"
	# not in $VROCE_JOB: 9p has no FIFOs
	fifo=${TMPDIR:-/tmp}/$VT_NAME.$tag.fifo
	rm -f "$fifo"
	mkfifo "$fifo" || vt_fail "mkfifo $fifo"
	CCQP_OUT[$tag]=$VROCE_JOB/$VT_NAME.$tag.client
	ip netns exec vtB timeout -k 5 "$life" "$VT_CC_QP" -d vroceB -p "$port" \
		>"$VROCE_JOB/$VT_NAME.$tag.server" 2>&1 &
	CCQP_SPID[$tag]=$!
	vt_wait_for "ip netns exec vtB ss -ltn | grep :$port >/dev/null" 20 ||
		vt_fail "cc_qp $tag: server did not listen: $(cat "$VROCE_JOB/$VT_NAME.$tag.server")"
	exec {fd}<>"$fifo" || vt_fail "open $fifo"
	CCQP_FD[$tag]=$fd
	ip netns exec vtA timeout -k 5 "$life" "$VT_CC_QP" -d vroceA -p "$port" "$@" \
		192.168.77.2 <&"$fd" >"${CCQP_OUT[$tag]}" 2>&1 &
	CCQP_PID[$tag]=$!
	vt_wait_for "grep -q '^ready' ${CCQP_OUT[$tag]}" 30 ||
		vt_fail "cc_qp $tag: no connection: $(cat "${CCQP_OUT[$tag]}")"
	CCQP_LQPN[$tag]=$(awk '$1 == "qp" && $2 == 0 { print $3 }' "${CCQP_OUT[$tag]}")
	CCQP_RQPN[$tag]=$(awk '$1 == "qp" && $2 == 0 { print $4 }' "${CCQP_OUT[$tag]}")
	vt_log "cc_qp $tag: vroceA QP ${CCQP_LQPN[$tag]} <-> vroceB QP ${CCQP_RQPN[$tag]}"
}

# vt_ccqp_cmd TAG TIMEOUT CMD...: send a command, wait for its answer
# ("ok ..." printed on stdout, returned; "FAIL" fails the scenario).
vt_ccqp_cmd() {
	local tag=$1 tmo=$2 n
	shift 2
	n=$(vt_ccqp_answers "$tag")
	echo "$*" >&"${CCQP_FD[$tag]}"
	vt_ccqp_wait "$tag" "$n" "$tmo"
}

# vt_ccqp_answers TAG: how many answers the client gave so far.
vt_ccqp_answers() { grep -c '^ok \|^FAIL' "${CCQP_OUT[$1]}" || true; }

# vt_ccqp_send_async TAG CMD...: send a command without waiting; wait for
# its answer later with vt_ccqp_wait TAG N TIMEOUT, N being
# vt_ccqp_answers before sending.
vt_ccqp_send_async() {
	local tag=$1
	shift
	echo "$*" >&"${CCQP_FD[$tag]}"
}

# vt_ccqp_wait TAG N TIMEOUT: wait for answer N + 1; print it.
vt_ccqp_wait() {
	vt_wait_for "[ \$(vt_ccqp_answers $1) -gt $2 ]" "$3" ||
		vt_cc_die "cc_qp $1: no answer in $3 s: $(tail -3 "${CCQP_OUT[$1]}")"
	grep -q '^FAIL' "${CCQP_OUT[$1]}" &&
		vt_cc_die "cc_qp $1: $(grep '^FAIL' "${CCQP_OUT[$1]}")"
	grep '^ok ' "${CCQP_OUT[$1]}" | tail -1
}

# vt_ccqp_stop TAG: quit the client, wait for both sides.
vt_ccqp_stop() {
	local tag=$1 rc=0 fd=${CCQP_FD[$1]}
	echo q >&"$fd"
	wait "${CCQP_PID[$tag]}" || rc=$?
	[ "$rc" = 0 ] || vt_fail "cc_qp $tag client exit $rc: $(tail -3 "${CCQP_OUT[$tag]}")"
	wait "${CCQP_SPID[$tag]}" || rc=$?
	[ "$rc" = 0 ] || vt_fail "cc_qp $tag server exit $rc: $(tail -3 "$VROCE_JOB/$VT_NAME.$tag.server")"
	exec {fd}>&-
}

# vt_cc_require DEV...: the cc/ directory, the CC counters and tracepoints
# exist (issue 10's interface); fails loudly, naming what is missing.
vt_cc_require() {
	local d c missing=
	for d in "$@"; do
		[ -d "$(vt_cc_dir "$d")" ] || missing="$missing $d:cc/"
		for c in np_ecn_marked_roce_packets np_cnp_sent rp_cnp_handled rp_cnp_ignored; do
			rdma statistic show link "$d/1" | tr ' ' '\n' | grep -x "$c" >/dev/null ||
				missing="$missing $d:$c"
		done
	done
	for c in vroce_cc_rate vroce_cnp_sent vroce_cnp_recv; do
		[ -d "$VT_TRACE/events/vroce/$c" ] || missing="$missing vroce:$c"
	done
	[ -z "$missing" ] || vt_fail "congestion control interface missing:$missing"
}
