#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# debug: yes
#
# Every verbs object of vroce0 through stock libibverbs + librxe, with the
# error paths and the exact errno or completion status of each
# (userspace-tests/verbs/verbs_objects.c): PD, MR access flags / IOVA /
# zero-based / rereg, MW type 1 and 2 with bind and local invalidate, CQ
# resize / notify / overflow, SRQ limit and resize, RC/UC/UD caps and the
# QP state machine, flushing to ERR, AHs over IPv4 and IPv6 GIDs.
# Afterwards `rdma resource show` is back where it started.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

bin=$VROCE_SRC/userspace-tests/bin/verbs_objects
[ -x "$bin" ] || vt_skip "$bin not built (make -C userspace-tests tests)"

vt_load_vroce
ip link set eth0 up
ip -6 addr add 2001:db8:77::20/64 dev eth0 nodad || vt_fail "IPv6 address"
vt_link_add vroce0 eth0
sys=$(vt_sys vroce0)/ports/1
vt_wait_for "grep -q ':ffff:' $sys/gids/3" 10 || vt_fail "no IPv4 GID at index 3"
vt_wait_for "grep -qx 2001:0db8:0077:0000:0000:0000:0000:0020 $sys/gids/*" 10 ||
	vt_fail "no GID for 2001:db8:77::20"

base=$(rdma resource show vroce0)
vt_log "resources before: $base"
vt_run_timeout 540 "$bin" -d vroce0 -v >out.txt 2>&1
rc=$?
cat out.txt >&2
[ "$rc" = 124 ] && vt_fail "verbs_objects timed out: last line: $(tail -n 1 out.txt)"
if [ "$rc" != 0 ]; then
	vt_fail "exit $rc, $(grep -c '^FAIL' out.txt) failed: $(grep '^FAIL' out.txt | sed -n 1,8p | cut -c1-160 | paste -sd '|')"
fi
vt_wait_for "[ \"\$(rdma resource show vroce0)\" = \"$base\" ]" 15 ||
	vt_fail "resources not back: '$(rdma resource show vroce0)', want '$base'"
rdma link delete vroce0 || vt_fail "rdma link delete"
vt_pass "$(tail -n 1 out.txt); resources back to '$base'"
