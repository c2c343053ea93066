#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# debug: yes
#
# Kernel consumers.  ib_core's MAD layer brings up QP1 (GSI) on vroce0
# without an error in the log, ib_umad exposes the port, and
# `rdma resource` lists QP 1 in RTS.  Then vroce_ktest.ko (an ib_client,
# userspace-tests/kmod/) creates PDs, CQs of every poll context, RC and UD
# QPs, a fast-reg MR with REG_MR / LOCAL_INV, AHs (one in atomic context)
# through the kernel verbs API and checks the flush completions; it runs
# once for a device that exists when it loads and once for a device
# created while it is loaded.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

ko=$VROCE_SRC/userspace-tests/bin/kmod/$VROCE_ABI/vroce_ktest.ko

vt_load_vroce
modprobe ib_umad || vt_fail "modprobe ib_umad"
ip link set eth0 up
vt_klog_mark
vt_link_add vroce0 eth0
vt_wait_for "grep -q ':ffff:' $(vt_sys vroce0)/ports/1/gids/3" 10 ||
	vt_fail "no IPv4 GID at index 3"

# 1. The MAD agent on QP1.
vt_wait_for "rdma resource show qp link vroce0/1 lqpn 1 | grep 'type GSI.*state RTS' >/dev/null" 10 ||
	vt_fail "no GSI QP 1 in RTS: $(rdma resource show qp link vroce0/1 2>&1 | sed -n 1,5p)"
umad=
for d in /sys/class/infiniband_mad/umad*; do
	[ "$(cat "$d/ibdev" 2>/dev/null)" = vroce0 ] && umad=$(basename "$d")
done
[ -n "$umad" ] || vt_fail "ib_umad has no port for vroce0"
[ -c "/dev/infiniband/$umad" ] || vt_fail "/dev/infiniband/$umad missing"
sleep 1
bad=$(vt_klog_since_mark | grep -iE "ib_mad|couldn't|vroce.*(fail|error)")
[ -z "$bad" ] || vt_fail "kernel log after link add: $bad"

# 2. The kernel verbs consumer.
[ -f "$ko" ] || vt_skip "MAD ok; $ko not built (make -C userspace-tests tests)"
ktest() {
	local what=$1 line
	vt_wait_for "vt_klog_since_mark | grep 'vroce_ktest: \(PASS\|FAIL\) vroce0' >/dev/null" 120 ||
		vt_fail "vroce_ktest ($what): no result line: $(vt_klog_since_mark | tail -n 5)"
	vt_klog_since_mark | grep 'vroce_ktest:' >&2
	line=$(vt_klog_since_mark | grep -o 'vroce_ktest: \(PASS\|FAIL\) vroce0.*' | sed -n 1p)
	case $line in
	*PASS*) KT_RESULT=$line ;;
	*) vt_fail "$what: $line" ;;
	esac
}
vt_klog_mark
vt_run_timeout 180 insmod "$ko" || vt_fail "insmod vroce_ktest"
ktest "device present at load"
first=$KT_RESULT
rmmod vroce_ktest || vt_fail "rmmod vroce_ktest"

rdma link delete vroce0 || vt_fail "rdma link delete"
vt_run_timeout 60 insmod "$ko" || vt_fail "insmod vroce_ktest (no device)"
vt_klog_mark
vt_link_add vroce0 eth0
ktest "device added while loaded"
rmmod vroce_ktest || vt_fail "rmmod vroce_ktest (2)"

rdma link delete vroce0 || vt_fail "rdma link delete (2)"
vt_wait_for "[ \"\$(vt_refcnt)\" = 0 ]" 10 || vt_fail "refcnt $(vt_refcnt)"
rmmod vroce || vt_fail "rmmod vroce"
vt_pass "GSI QP1 in RTS, $umad, no MAD errors; ${first#vroce_ktest: }"
