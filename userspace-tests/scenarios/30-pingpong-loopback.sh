#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# The ibverbs-utils ping-pong programs between two processes on one vroce
# device (loopback: the packets never leave the device), with the received
# data validated (-c): RC, UC, UD, SRQ, and RC driven by CQ events; and RC
# over an IPv6 GID (a ULA added to eth0).
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

vt_load_vroce
vt_link_add vroce0 eth0
ip4=$(vt_eth0_ipv4)
gidx=1	# the IPv4-mapped GID

# pingpong NAME ARGS...: server and client of one program; both must succeed.
pingpong() {
	local prog=$1 port=$((18000 + RANDOM % 1000)) out
	shift
	"$prog" -d vroce0 -g "$gidx" -p "$port" "$@" >"$VROCE_JOB/srv.$$" 2>&1 &
	local srv=$!
	# the server listens once it has set up: don't race it on a busy host
	vt_wait_for "ss -ltn | grep ':$port ' >/dev/null" 30 ||
		vt_fail "$prog: server did not start: $(cat "$VROCE_JOB/srv.$$")"
	if ! out=$(vt_run_timeout 60 "$prog" -d vroce0 -g "$gidx" -p "$port" "$@" \
		"$ip4" 2>&1); then
		kill "$srv" 2>/dev/null
		vt_fail "$prog $*: client: $out / server: $(cat "$VROCE_JOB/srv.$$")"
	fi
	wait "$srv" || vt_fail "$prog $*: server: $(cat "$VROCE_JOB/srv.$$")"
	vt_log "$prog $*: $(grep -m1 'bytes in' <<<"$out")"
	rm -f "$VROCE_JOB/srv.$$"
}

pingpong ibv_rc_pingpong -c -n 200
ip link set eth0 mtu 9000
pingpong ibv_rc_pingpong -c -n 100 -s 65536 -m 4096
ip link set eth0 mtu 1500
pingpong ibv_rc_pingpong -c -n 100 -e
pingpong ibv_uc_pingpong -c -n 200
pingpong ibv_ud_pingpong -c -n 200 -s 1024
pingpong ibv_srq_pingpong -c -n 100 -q 4

# RC over IPv6: the RoCE v2 GID of an address added to eth0 (the TCP
# exchange of the ping-pong still uses IPv4).
ip6=fd00::15
gid6=fd00:0000:0000:0000:0000:0000:0000:0015
ip -6 addr add "$ip6/64" dev eth0 nodad || vt_fail "ip -6 addr add"
gids=/sys/class/infiniband/vroce0/ports/1/gids
# One grep over the GID table: a process per entry takes minutes under
# emulation with a debug kernel.
find_gid6() {
	local g
	for g in $(grep -lx "$gid6" "$gids"/* 2>/dev/null); do
		[ "$(cat "$gids/../gid_attrs/types/${g##*/}" 2>/dev/null)" = \
			"RoCE v2" ] || continue
		echo "${g##*/}"
		return 0
	done
	return 1
}
vt_wait_for find_gid6 30 || vt_fail "no RoCE v2 GID for $ip6"
gidx=$(find_gid6)
vt_log "IPv6 GID $gid6 at index $gidx"
pingpong ibv_rc_pingpong -c -n 200
gidx=1
ip -6 addr del "$ip6/64" dev eth0
rdma link delete vroce0
vt_pass "rc, rc 64K/4096, rc events, uc, ud, srq ping-pong with data checks; rc over IPv6 GID"
