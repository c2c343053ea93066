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
. "$VROCE_SRC/userspace-tests/lib/pair.sh"

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

run_pair rc_pingpong 18515 ibv_rc_pingpong -d dev0 -g $gid -c -n 100
port=18600
for op in send write read; do
	run_pair "ib_${op}_bw" $port "ib_${op}_bw" -d dev0 -x $gid -F -s 65536 -n 100
	run_pair "ib_${op}_lat" $((port + 2)) "ib_${op}_lat" -d dev0 -x $gid -F -s 64 -n 100
	port=$((port + 10))
done
run_pair ib_atomic_bw 18900 ib_atomic_bw -d dev0 -x $gid -F -n 100
run_pair ib_atomic_lat 18910 ib_atomic_lat -d dev0 -x $gid -F -n 100
vt_barrier "done" || true
vt_pass "$(rdma statistic show link dev0/1 | cut -c1-120)"
