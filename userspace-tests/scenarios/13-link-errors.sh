#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Device creation that must fail, with a clear errno and nothing left over:
# a second device on the same netdev, a VLAN device, a missing netdev, a
# non-Ethernet netdev.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

# expect_fail ERRTEXT CMD...: CMD fails and says ERRTEXT.
expect_fail() {
	local want=$1 out
	shift
	if out=$("$@" 2>&1); then
		vt_fail "'$*' succeeded"
	fi
	grep -qi "$want" <<<"$out" || vt_fail "'$*': '$out', want '$want'"
}

vt_load_vroce
vt_link_add vroce0 eth0
expect_fail "exists" rdma link add vroce1 type vroce netdev eth0
[ -e "$(vt_sys vroce1)" ] && vt_fail "second device on eth0 created"

ip link add link eth0 name eth0.7 type vlan id 7 || vt_fail "vlan"
expect_fail "not supported" rdma link add vroce2 type vroce netdev eth0.7
ip link del eth0.7

expect_fail "no such device" rdma link add vroce3 type vroce netdev vtnone0
expect_fail "invalid argument" rdma link add vroce4 type vroce netdev lo

n=$(rdma link show | grep -c vroce)
vt_expect_eq "devices after failures" "$n" 1

rdma link delete vroce0
vt_pass "EEXIST, EOPNOTSUPP (vlan), ENODEV, EINVAL (lo)"
