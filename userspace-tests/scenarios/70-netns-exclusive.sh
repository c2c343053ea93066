#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 480
#
# ib_core's exclusive netns mode (`rdma system set netns exclusive`,
# Documentation/design.md "Network namespaces"): a device belongs to one
# namespace and only that namespace sees and uses it.
#  1. The mode is set before any namespace exists (ib_core refuses to
#     change it while one does: `rdma system set netns shared` fails
#     with the namespaces below); shared mode comes back at the end, also
#     when the scenario fails or is stopped (trap), for the scenarios
#     after this one.
#  2. vtA and vtB on a veth pair (vt_netns_pair), vroceA created from
#     inside vtA, vroceB from inside vtB: each namespace sees exactly its
#     own device in `rdma dev`, /sys/class/infiniband and ibv_devices, the
#     initial namespace neither.
#  3. Tools that take the first device, between the namespaces:
#     ibv_rc_pingpong without -d (data checked, -c; each side's local GID
#     is its own namespace's address), fi_pingpong -p verbs -e rdm
#     without -d and ucx_perftest without UCX_NET_DEVICES (rc_verbs with
#     ud_verbs for wire-up, as in 34-ucx-fabric) when installed.
#  4. `rdma dev set vroceB netns` to the initial namespace and back: it is
#     seen only where it was moved to.
#  5. vtA deleted under a long ibv_rc_pingpong: `ip netns del` only drops
#     the name (the server inside keeps the namespace and the traffic
#     alive); when the server is killed the namespace dies, its veth pair
#     with it, and both devices go: the client in vtB gets an error and
#     exits, neither device is left in any namespace, the module's
#     reference count falls to 0 and rmmod works.  The runner fails the
#     scenario on any kernel splat.
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

command -v ibv_rc_pingpong >/dev/null || vt_skip "ibv_rc_pingpong not installed"
rdma system show >/dev/null 2>&1 || vt_skip "this rdma tool has no 'system' command"

W=$(mktemp -d)
# fi_pingpong -e rdm with rxm's shared receive context: libfabric 1.17's
# teardown use-after-free otherwise (34-ucx-fabric)
export FI_OFI_RXM_USE_SRX=1
INIT_NAME=init70 # a name for the initial namespace, for rdma dev set
summary=()

# rdma_mode: "shared" or "exclusive"
rdma_mode() {
	local out
	out=$(rdma system show)
	sed -n 's/.*netns \([a-z]*\).*/\1/p' <<<"$out"
}

# set_mode MODE: ib_core refuses (EBUSY) while a namespace other than the
# initial one exists, also one still being torn down: retry for 20 s.
set_mode() {
	local i
	for ((i = 0; i < 100; i++)); do
		rdma system set netns "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	rdma system set netns "$1"
}

# restore: whatever happened, leave no namespace of ours and shared mode.
# shellcheck disable=SC2317 # the EXIT trap runs it
restore() {
	local ns pids
	set +e
	ip netns del "$INIT_NAME" 2>/dev/null
	for ns in vtA vtB; do
		pids=$(ip netns pids "$ns" 2>/dev/null)
		# shellcheck disable=SC2086 # one pid per word
		[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	if [ "$(rdma_mode)" != shared ] && ! set_mode shared; then
		echo "[$VT_NAME] could not restore the shared netns mode" >&2
	fi
	rm -rf "$W"
}
trap restore EXIT
trap 'exit 143' TERM INT

# {rdma,sysfs,verbs}_devs NS: the RDMA devices namespace NS sees, sorted,
# on one line, by the three ways tools look: ib_core's netlink,
# /sys/class/infiniband, libibverbs
rdma_devs() {
	local out
	if ! out=$(vt_in_ns "$1" rdma -j dev show 2>&1); then
		echo "rdma failed: $out"
		return
	fi
	{ grep -o '"ifname":"[^"]*"' <<<"$out" || true; } |
		cut -d'"' -f4 | sort | xargs
}
# shellcheck disable=SC2317 # called as ${what}_devs
sysfs_devs() {
	vt_in_ns "$1" sh -c 'ls /sys/class/infiniband 2>/dev/null' | sort | xargs
}
# shellcheck disable=SC2317 # called as ${what}_devs
verbs_devs() {
	local out
	out=$(vt_in_ns "$1" ibv_devices 2>&1) || out="x x ibv_devices failed: $out"
	awk 'NR > 2 && NF { print $1 }' <<<"$out" | sort | xargs
}
# expect_devs NS LIST: NS sees exactly LIST, all three ways
expect_devs() {
	local ns=$1 want=$2 what
	for what in rdma sysfs verbs; do
		vt_expect_eq "${ns:-init_net}: $what devices" \
			"$("${what}_devs" "$ns")" "$want"
	done
}

# wait_listen NS: until a TCP socket listens in NS (a server is up)
wait_listen() {
	vt_wait_for "[ -n \"\$(ip netns exec $1 ss -Hltn)\" ]" 30 ||
		vt_fail "no server listening in $1"
}

# pair NAME SERVER_CMD CLIENT_CMD PATTERN [SERVER_PATTERN]: server in
# vtA, client in vtB (the client's command gets vtA's address appended);
# both must exit 0 and the client's output match the extended regex
# PATTERN, the server's SERVER_PATTERN if given.  The outputs are left in
# $W/NAME.srv and $W/NAME.cli.
pair() {
	local name=$1 scmd=$2 ccmd=$3 pat=$4 spat=${5:-} srv rc=0
	local so=$W/$name.srv co=$W/$name.cli
	ip netns exec vtA timeout -k 5 90 bash -c "$scmd" >"$so" 2>&1 &
	srv=$!
	wait_listen vtA
	ip netns exec vtB timeout -k 5 90 bash -c "$ccmd 192.168.77.1" \
		>"$co" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		kill "$srv" 2>/dev/null || true
		wait "$srv" || true
		cp "$co" "$VROCE_JOB/$VT_NAME.$name.client.txt"
		cp "$so" "$VROCE_JOB/$VT_NAME.$name.server.txt"
		vt_fail "$name client exit $rc: $(tail -4 "$co") // server: $(tail -4 "$so")"
	fi
	wait "$srv" || vt_fail "$name server: $(tail -4 "$so")"
	grep -E "$pat" "$co" >/dev/null ||
		vt_fail "$name client: no result: $(tail -4 "$co")"
	[ -z "$spat" ] || grep -E "$spat" "$so" >/dev/null ||
		vt_fail "$name server: no result: $(tail -4 "$so")"
}

# --- 1. the mode, before any namespace
# shellcheck disable=SC2119 # no module parameters
vt_load_vroce
[ "$(rdma_mode)" = shared ] || vt_fail "netns mode $(rdma_mode) at the start, want shared"
set_mode exclusive || vt_fail "rdma system set netns exclusive: refused (other namespaces: $(ip netns list | xargs))"
vt_expect_eq "netns mode" "$(rdma_mode)" exclusive

# --- 2. a device per namespace, each created from inside it
vt_netns_pair A B
if rdma system set netns shared 2>"$W/err"; then
	vt_fail "rdma system set netns shared accepted while namespaces exist"
fi
vt_log "shared mode with namespaces: $(cat "$W/err")"
vt_expect_eq "netns mode after the refusal" "$(rdma_mode)" exclusive
for x in A B; do
	ip netns exec vt$x rdma link add vroce$x type vroce netdev vt$x ||
		vt_fail "rdma link add vroce$x in vt$x"
	vt_wait_for "ip netns exec vt$x grep -x '4: ACTIVE' /sys/class/infiniband/vroce$x/ports/1/state" 30 ||
		vt_fail "vroce$x not ACTIVE in vt$x"
	vt_wait_for "ip netns exec vt$x grep ':ffff:' /sys/class/infiniband/vroce$x/ports/1/gids/3" 10 ||
		vt_fail "vroce$x: no IPv4 GID at index 3"
done
expect_devs vtA vroceA
expect_devs vtB vroceB
expect_devs "" ""
summary+=("each namespace sees its own device only (rdma, sysfs, ibv_devices), init_net none")

# --- 3. the first device
pair rc_pingpong "ibv_rc_pingpong -g 3 -c -n 1000 -s 4096" \
	"ibv_rc_pingpong -g 3 -c -n 1000 -s 4096" '^8192000 bytes in ' \
	'^8192000 bytes in '
grep -E 'local address: .*GID ::ffff:192\.168\.77\.2$' "$W/rc_pingpong.cli" >/dev/null ||
	vt_fail "rc_pingpong client: not on vtB's address: $(grep address "$W/rc_pingpong.cli")"
grep -E 'local address: .*GID ::ffff:192\.168\.77\.1$' "$W/rc_pingpong.srv" >/dev/null ||
	vt_fail "rc_pingpong server: not on vtA's address: $(grep address "$W/rc_pingpong.srv")"
summary+=("ibv_rc_pingpong without -d: $(grep -m1 'bytes in' "$W/rc_pingpong.cli")")

if command -v fi_pingpong >/dev/null; then
	pair fi_pingpong "fi_pingpong -p verbs -e rdm -I 100 -S 4096 -c" \
		"fi_pingpong -p verbs -e rdm -I 100 -S 4096 -c" '^4k +100 +=100 ' \
		'^4k +100 +=100 '
	summary+=("fi_pingpong -e rdm without -d: $(grep -E -m1 '^4k ' "$W/fi_pingpong.cli" | tr -s ' ')")
else
	summary+=("fi_pingpong not installed")
fi

if command -v ucx_perftest >/dev/null; then
	export UCX_WARN_UNUSED_ENV_VARS=n UCX_TLS=rc_verbs,ud_verbs:aux
	unset UCX_NET_DEVICES
	for t in tag_lat ucp_put_bw; do
		pair "ucx_$t" "ucx_perftest -n 100 -w 10 -s 64 -t $t" \
			"ucx_perftest -n 100 -w 10 -s 64 -t $t" '^Final: +100 '
		summary+=("ucx_perftest $t without UCX_NET_DEVICES: $(grep -E -m1 '^Final:' "$W/ucx_$t.cli" | tr -s ' ')")
	done
	unset UCX_TLS
else
	summary+=("ucx_perftest not installed")
fi

# --- 4. rdma dev set: to the initial namespace and back
ip netns attach "$INIT_NAME" 1 || vt_fail "ip netns attach $INIT_NAME 1"
ip netns exec vtB rdma dev set vroceB netns "$INIT_NAME" ||
	vt_fail "rdma dev set vroceB netns (initial namespace)"
ip netns del "$INIT_NAME"
expect_devs "" vroceB
expect_devs vtB ""
rdma dev set vroceB netns vtB || vt_fail "rdma dev set vroceB netns vtB"
expect_devs "" ""
expect_devs vtB vroceB
summary+=("rdma dev set netns: seen where it was moved only")

# --- 5. the namespace deleted under traffic
cnt=/sys/class/infiniband/vroceB/ports/1/hw_counters/rx_packets
rx() { ip netns exec vtB cat "$cnt"; }
rx0=$(rx)
# line-buffered: the output is a file, and the client never ends well;
# events (-e): after its device went, a busy poll would see an empty CQ
# forever, while waiting for an event fails
ip netns exec vtA timeout -k 5 300 stdbuf -oL ibv_rc_pingpong -e -g 3 \
	-n 1000000 -s 4096 >"$W/long.srv" 2>&1 &
srv=$!
wait_listen vtA
ip netns exec vtB timeout -k 5 300 stdbuf -oL ibv_rc_pingpong -e -g 3 \
	-n 1000000 -s 4096 192.168.77.1 >"$W/long.cli" 2>&1 &
cli=$!
vt_wait_for "[ \$(rx) -gt $((rx0 + 1000)) ]" 30 ||
	vt_fail "long run: no traffic (vroceB rx_packets $rx0 -> $(rx)): $(tail -3 "$W/long.cli")"
rx1=$(rx)
sleep 2
rx2=$(rx)
[ "$rx2" -gt "$rx1" ] || vt_fail "long run: traffic stopped: rx_packets $rx1 -> $rx2"

pids=$(ip netns pids vtA)
ip netns del vtA || vt_fail "ip netns del vtA"
# the name is gone, the namespace lives on with the server in it
sleep 2
rx3=$(rx)
[ "$rx3" -gt "$rx2" ] ||
	vt_fail "traffic stopped at 'ip netns del' with the server still inside: rx_packets $rx2 -> $rx3"
kill -0 "$cli" 2>/dev/null || vt_fail "client ended early: $(tail -3 "$W/long.cli")"
t0=$SECONDS
# shellcheck disable=SC2086 # one pid per word
kill -KILL $pids
# the namespace dies: its veth pair goes, and with it both devices
vt_wait_for "! ip netns exec vtB ip link show vtB" 30 ||
	vt_fail "vtB's veth still there 30 s after vtA died"
crc=0
vt_wait_for "! kill -0 $cli" 30 || vt_fail "client still running 30 s after its device went"
wait "$cli" || crc=$?
wait "$srv" 2>/dev/null || true
[ "$crc" -ne 0 ] ||
	vt_fail "client exit 0 although its peer and device went: $(tail -3 "$W/long.cli")"
vt_wait_for "[ -z \"\$(rdma_devs '')\" ] && [ -z \"\$(rdma_devs vtB)\" ]" 30 ||
	vt_fail "devices left: init_net '$(rdma_devs '')', vtB '$(rdma_devs vtB)'"
expect_devs "" ""
expect_devs vtB ""
t1=$((SECONDS - t0))
summary+=("vtA deleted under traffic (client exit $crc: $(grep -v '^ *\(local\|remote\) address' "$W/long.cli" | tail -1)); both devices gone in ${t1}s")

ip netns del vtB
vt_wait_for "[ \"\$(vt_refcnt)\" = 0 ]" 20 || vt_fail "module refcount $(vt_refcnt) after the devices went"
rmmod vroce || vt_fail "rmmod vroce after the namespace deletion"
vt_pass "$(printf '%s | ' "${summary[@]}")refcount 0, rmmod ok"
