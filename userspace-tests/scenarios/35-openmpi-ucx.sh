#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# Open MPI 4.1 over UCX (pml ucx) on vroce, with userspace-tests/bin/
# mpi_check: an allreduce and a 4 MiB ping-pong, every element checked.
#  1. two ranks on one device (loopback).
#  2. two ranks on two devices in two namespaces, mpirun reaching the second
#     "host" through a plm_rsh_agent that runs its command there with
#     ip netns exec.
# UCX is held to vroce (UCX_TLS=rc_verbs,ud_verbs:aux: no shared memory, no
# TCP), each rank to its namespace's device.  See
# Documentation/ucx-mpi-libfabric.md.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

MPI_CHECK=$VROCE_SRC/userspace-tests/bin/mpi_check
command -v mpirun >/dev/null || vt_skip "mpirun not installed (ci/setup.sh)"
[ -x "$MPI_CHECK" ] || vt_skip "$MPI_CHECK not built (make -C userspace-tests mpi)"

vt_vroce0_up
vt_vroce_netns_pair

DIR=$(mktemp -d)
# plm_rsh_agent HOST CMD...: the "remote shell" is a namespace switch.
cat >"$DIR/rsh" <<'X'
#!/bin/sh
h=$1
shift
exec ip netns exec "$h" sh -c "$*"
X
# The rank's device: its namespace's one.
cat >"$DIR/env" <<'X'
#!/bin/sh
case $(ip netns identify) in
vtA) UCX_NET_DEVICES=vroceA:1 ;;
vtB) UCX_NET_DEVICES=vroceB:1 ;;
*) UCX_NET_DEVICES=vroce0:1 ;;
esac
export UCX_NET_DEVICES
exec "$@"
X
chmod +x "$DIR/rsh" "$DIR/env"

MPIRUN=(mpirun --allow-run-as-root --oversubscribe -np 2
	--mca pml ucx --mca btl self --mca osc ^ucx
	-x "UCX_TLS=rc_verbs,ud_verbs:aux" -x UCX_WARN_UNUSED_ENV_VARS=n)

run() {
	local name=$1 out
	shift
	out=$(vt_run_timeout 150 "$@" 2>&1) ||
		vt_fail "$name: $(tail -6 <<<"$out")"
	grep -q '^mpi_check: ok' <<<"$out" ||
		vt_fail "$name: no result: $(tail -6 <<<"$out")"
	vt_log "$name: $(grep '^mpi_check: ok' <<<"$out")"
}

# rx DEV: the device's rx_packets counter.
rx() {
	rdma statistic show link "$1/1" | tr ' ' '\n' |
		awk '!done && $0 == "rx_packets" { getline; print; done = 1 }'
}

# 3 x 2 x 4 MiB went over vroce, not over some other transport.
before=$(rx vroce0)
run loopback "${MPIRUN[@]}" "$DIR/env" "$MPI_CHECK" 3
after=$(rx vroce0)
[ "$((after - before))" -gt 4000 ] ||
	vt_fail "loopback: vroce0 received only $((after - before)) packets"
before=$(rx vroceB)
run netns ip netns exec vtA "${MPIRUN[@]}" --host vtA,vtB \
	--mca plm_rsh_agent "$DIR/rsh" --mca plm_rsh_no_tree_spawn 1 \
	--mca oob_tcp_if_include 192.168.77.0/24 "$DIR/env" "$MPI_CHECK" 3
after=$(rx vroceB)
[ "$((after - before))" -gt 4000 ] ||
	vt_fail "netns: vroceB received only $((after - before)) packets"

rm -rf "$DIR"
vt_pass "Open MPI pml ucx: allreduce + 4 MiB ping-pong checked, loopback and two namespaces"
