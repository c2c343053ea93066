#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# topology: pair
# pcap: yes
# timeout: 400
#
# Interoperability with another RoCEv2 implementation: VM a runs vroce, VM b
# the stock rdma_rxe, joined by a wire.  ibv_rc_pingpong with data checks
# and the perftest set (SEND, WRITE, READ bandwidth and latency, atomics),
# each side in turn as server.  The emulated wire drops packets when a VM
# falls behind, so this also exercises recovery against another
# implementation.  The post-check dissects the wire capture
# (40-interop-rxe.post.sh).
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

# Each side names its own IPv4 RoCE v2 GID: index 3 on vroce (RoCE v1 and
# v2 GIDs, as ConnectX), 1 on rdma_rxe (RoCE v2 only).
if [ "$VROCE_ROLE" = a ]; then
	vt_load_vroce
	vt_link_add dev0 eth0
	gid=3
else
	modprobe rdma_rxe || vt_skip "no rdma_rxe"
	rdma link add dev0 type rxe netdev eth0 || vt_fail "rxe link"
	gid=1
fi
vt_barrier up || vt_fail "peer did not come up"

# why OUT: a failed program's error lines (perftest's stdout is buffered and
# comes after them), else its last lines
why() {
	local e

	e=$(grep -iE "error|fail|couldn't|unable|wrong" <<<"$1" | tail -5)
	if [ -n "$e" ]; then
		printf '%s\n' "$e"
	else
		tail -3 <<<"$1"
	fi
}
# result NAME OUT: the client's result line: ibv_rc_pingpong's "N iters
# in", perftest's first numeric row under its "#bytes" header
result() {
	if [ "$1" = rc_pingpong ]; then
		grep -m1 ' iters in ' <<<"$2"
	else
		awk '/#bytes/ { hdr = 1; next }
		     hdr && $1 ~ /^[0-9]+$/ { print; exit }' <<<"$2"
	fi
}
# run_pair NAME PORT CMD...: role a serves first, then role b; the client
# waits for the server's port to open.  Any non-zero exit fails, and so
# does a client without a result line.  perftest runs with -F: its CPU
# clock fit fails now and then on a loaded emulated host, and without -F
# it then exits 1 ("Can't produce a report") after a transfer that
# worked; with -F it reports, the figures are just not meaningful.
step=0
run_pair() {
	local name=$1 port=$2 out server rc try row
	shift 2
	for server in a b; do
		step=$((step + 1))
		vt_barrier "s$step" || vt_fail "$name: peer lost"
		if [ "$VROCE_ROLE" = "$server" ]; then
			rc=0
			out=$(vt_run_timeout 120 "$@" -p "$port" 2>&1) || rc=$?
			[ "$rc" -eq 0 ] ||
				vt_fail "$name server ($server): exit $rc: $(why "$out")"
			vt_log "$name (server $server): $(tail -2 <<<"$out" | sed -n 1p)"
		else
			# the server on the other VM may not listen yet
			for try in 1 2 3 4 5 6 7 8 9 10; do
				sleep 2
				rc=0
				out=$(vt_run_timeout 120 "$@" -p "$port" \
					"$VROCE_PEER_IP" 2>&1) || rc=$?
				[ "$rc" -ne 0 ] || break
				grep -qi "couldn't connect\|unable to init the socket" \
					<<<"$out" || break
			done
			[ "$rc" -eq 0 ] ||
				vt_fail "$name client (server $server, try $try): exit $rc: $(why "$out")"
			row=$(result "$name" "$out")
			[ -n "$row" ] ||
				vt_fail "$name client (server $server): exit 0 without a result line: $(tail -3 <<<"$out")"
			vt_log "$name (server $server): $row"
		fi
		port=$((port + 1))
	done
}

run_pair rc_pingpong 18515 ibv_rc_pingpong -d dev0 -g $gid -c -n 100
port=18600
for op in send write read; do
	run_pair "ib_${op}_bw" $port "ib_${op}_bw" -d dev0 -x $gid -F -s 65536 -n 100
	run_pair "ib_${op}_lat" $((port + 2)) "ib_${op}_lat" -d dev0 -x $gid -F -s 64 -n 100
	port=$((port + 10))
done
run_pair ib_atomic_bw 18900 ib_atomic_bw -d dev0 -x $gid -F -n 100
run_pair ib_atomic_lat 18910 ib_atomic_lat -d dev0 -x $gid -F -n 100
vt_barrier done || true
vt_pass "$(rdma statistic show link dev0/1 | cut -c1-120)"
