#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# debug: yes
#
# Device removal never waits on a process (disassociate_ucontext).  A
# process (bin/disassociate) keeps the device open with RC WRITEs in
# flight on a QP connected to itself; once its traffic runs, the device
# is removed under it three ways:
#  1. `rdma link delete vroce0`;
#  2. `ip link del` of the device's netdev (a veth end);
#  3. `ip netns del` of the namespace that holds the netdev (the process
#     runs outside it: one inside would keep the namespace alive).
# Each time the removal completes while the process still runs (within
# 20 s; without disassociate it waits until the process exits), and the
# process then passes its own checks: it saw IBV_EVENT_DEVICE_FATAL or
# EIO, later verbs fail with EIO, its CQ polls empty, its ring mappings
# still read (no SIGBUS) and its destroys and close succeed.  Afterwards
# the module's reference count is 0 and rmmod succeeds (no mapping kept
# a reference).  The runner fails the scenario on any kernel splat, and
# on the debug kernel on any kmemleak suspect allocated during it.
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

BIN=$VROCE_SRC/userspace-tests/bin/disassociate
[ -x "$BIN" ] || vt_skip "$BIN not built (make -C userspace-tests tests)"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
	vt_skip "no debugfs"

summary=()

# remove_under TAG DEV CMD...: start the program on DEV, run CMD (the
# removal) once its traffic runs, and check both ends as described above.
remove_under() {
	local tag=$1 dev=$2 out=$VROCE_JOB/$VT_NAME.$1.out
	local ready=$VROCE_JOB/$VT_NAME.$1.ready done=$VROCE_JOB/$VT_NAME.$1.done
	local pid t0 t1 rc=0 prc=0
	shift 2
	rm -f "$ready" "$done"
	timeout -k 5 150 "$BIN" -d "$dev" -r "$ready" -x "$done" -t 90 \
		>"$out" 2>&1 &
	pid=$!
	vt_wait_for "[ -e $ready ]" 60 ||
		vt_fail "$tag: no traffic on $dev: $(tail -5 "$out")"
	t0=$SECONDS
	timeout 60 "$@" || rc=$?
	t1=$((SECONDS - t0))
	[ "$rc" -eq 0 ] || vt_fail "$tag: '$*' exit $rc after ${t1}s"
	vt_wait_for "[ ! -e $(vt_sys "$dev") ]" 20 ||
		vt_fail "$tag: $dev still there 20 s after '$*'"
	t1=$((SECONDS - t0))
	# it holds the device open until told to go
	kill -0 "$pid" 2>/dev/null ||
		vt_fail "$tag: the process ended before the removal completed: $(tail -5 "$out")"
	: >"$done"
	wait "$pid" || prc=$?
	cat "$out" >&2
	[ "$prc" -eq 0 ] ||
		vt_fail "$tag: disassociate exit $prc: $(grep -m3 -E '^(not ok|FAIL)' "$out" || tail -3 "$out")"
	summary+=("$tag: $dev gone ${t1}s after '$*' with the process running; $(grep -m1 'removal' "$out" | sed 's/^[^:]*: *//')")
}

vt_vroce0_up
remove_under link-delete vroce0 rdma link delete vroce0

ip link add vtd0 type veth peer name vtd1 || vt_fail "veth"
ip addr add 192.168.79.1/24 dev vtd0
ip link set vtd1 up
ip link set vtd0 up
vt_link_add vroced vtd0
vt_wait_for "[ \"\$(vt_port_state vroced)\" = ACTIVE ]" 30 ||
	vt_fail "vroced port not ACTIVE"
remove_under netdev-delete vroced ip link del vtd0

vt_vroce_netns_pair
remove_under netns-delete vroceB ip netns del vtB
ip netns del vtA
vt_wait_for "[ ! -e $(vt_sys vroceA) ]" 20 || vt_fail "vroceA left after its netns went"

vt_expect_eq "module refcount" "$(vt_refcnt)" 0
rmmod vroce || vt_fail "rmmod vroce after the removals"
vt_pass "$(printf '%s | ' "${summary[@]}")refcount 0, rmmod ok"
