#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness smoke test, single VM: the guest has the RDMA stack and the host's
# tools, the stock soft-RoCE driver rdma_rxe works on eth0 and moves data
# (ibv_rc_pingpong on one device), the vt_netns_pair helper gives two
# namespaces that talk, and the guest keeps time by the HPET, not the TSC
# (Documentation/testing.md, "Known emulation quirks").  Runs first (00-)
# and leaves rdma_rxe unloaded: vroce and rdma_rxe must never be loaded
# together.
# timeout: 180
# debug: yes
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"

grep -q '^vroce ' /proc/modules && vt_fail "vroce is loaded before the harness test"

# Under TCG the guest's TSC is the host's raw TSC, which jumps when the host
# is itself a VM that is paused or restored: a CI run saw 12 700 s in one
# scenario, and every timeout fired at once.  QEMU's HPET follows the
# host's CLOCK_MONOTONIC (ci/vm/lib.sh boots with clocksource=hpet).
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
[ "$cs" = hpet ] || vt_fail "guest clocksource is $cs, not hpet"

modprobe rdma_rxe || vt_fail "modprobe rdma_rxe"
rdma link add rxe0 type rxe netdev eth0 || vt_fail "rdma link add rxe0"
vt_wait_for "ibv_devinfo -d rxe0 | grep PORT_ACTIVE >/dev/null" 30 ||
	vt_fail "rxe0 port never became active"
vt_log "rxe0 active on $(uname -r)"

# Traffic: an RC ping-pong between two processes on rxe0, over eth0's IPv4
# GID (index 1), through the loopback of the one device.
ibv_rc_pingpong -d rxe0 -g 1 -n 20 >server.log 2>&1 &
server=$!
sleep 1
vt_run_timeout 60 ibv_rc_pingpong -d rxe0 -g 1 -n 20 127.0.0.1 >client.log 2>&1 ||
	{ cat server.log client.log >&2; vt_fail "ibv_rc_pingpong client"; }
wait "$server" || { cat server.log >&2; vt_fail "ibv_rc_pingpong server"; }
grep -h 'iters in' client.log >&2

rdma link delete rxe0 || vt_fail "rdma link delete rxe0"
rmmod rdma_rxe || vt_fail "rmmod rdma_rxe"

# busybox's ping: iputils-ping is not among the host's packages.
vt_netns_pair A B
ip netns exec vtA busybox ping -c 2 -W 5 192.168.77.2 >&2 ||
	vt_fail "vtA cannot ping vtB"


vt_pass "clocksource $cs; rdma_rxe on eth0: PORT_ACTIVE, RC ping-pong; netns pair talks"
