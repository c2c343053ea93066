#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vroce and rdma_rxe share the soft-RoCE ABI and driver id: whichever comes
# second must refuse to load, saying why in one log line.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

modinfo rdma_rxe >/dev/null 2>&1 || vt_skip "rdma_rxe not available"
vt_load_vroce
vt_klog_mark
modprobe rdma_rxe 2>/dev/null && vt_fail "rdma_rxe loaded beside vroce"
grep -q '^rdma_rxe ' /proc/modules && vt_fail "rdma_rxe in /proc/modules"
n=$(vt_klog_since_mark | grep -c 'vroce: refusing to load rdma_rxe')
vt_expect_eq "log lines (rxe after vroce)" "$n" 1

rmmod vroce || vt_fail "rmmod vroce"
modprobe rdma_rxe || vt_fail "modprobe rdma_rxe"
vt_klog_mark
insmod "$VROCE_KO" 2>/dev/null && vt_fail "vroce loaded beside rdma_rxe"
n=$(vt_klog_since_mark | grep -c 'vroce: .*cannot run beside rdma_rxe')
vt_expect_eq "log lines (vroce after rxe)" "$n" 1
rmmod rdma_rxe || vt_fail "rmmod rdma_rxe"

vt_load_vroce
vt_link_add vroce0 eth0
rdma link delete vroce0
rmmod vroce
vt_pass "each refuses the other with one log line"
