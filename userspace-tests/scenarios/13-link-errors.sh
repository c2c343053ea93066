#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Device creation that must fail, with a clear errno, one kernel log line
# that says why and what to do instead (rdma link add passes no extack,
# so the log is the only place for it), and nothing left over: a second
# device on the same netdev, a VLAN device, a missing netdev, lo, and a
# non-Ethernet netdev (a tun device, where the kernel has tun).
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

# expect_fail ERRTEXT LOGTEXT CMD...: CMD fails and says ERRTEXT (the
# errno's text); the kernel logs exactly one vroce line with LOGTEXT
# (none when LOGTEXT is empty: ib_core refuses before vroce sees it).
expect_fail() {
	local want=$1 log=$2 out lines n
	shift 2
	vt_klog_mark
	if out=$("$@" 2>&1); then
		vt_fail "'$*' succeeded"
	fi
	grep -qi "$want" <<<"$out" || vt_fail "'$*': '$out', want '$want'"
	lines=$(vt_klog_since_mark | grep 'vroce: ')
	n=$(grep -c . <<<"$lines")
	if [ -z "$log" ]; then
		vt_expect_eq "vroce log lines after '$*'" "$n" 0
		return
	fi
	[ "$n" = 1 ] || vt_fail "'$*': $n vroce log lines, want 1: '$lines'"
	grep -qF "$log" <<<"$lines" ||
		vt_fail "'$*': log line '$lines', want '$log'"
	vt_log "$* -> $out; log: ${lines#*] }"
}

vt_load_vroce
vt_link_add vroce0 eth0
expect_fail "exists" \
	"vroce: eth0 already has the RDMA device vroce0: one per netdev" \
	rdma link add vroce1 type vroce netdev eth0
[ -e "$(vt_sys vroce1)" ] && vt_fail "second device on eth0 created"

ip link add link eth0 name eth0.7 type vlan id 7 || vt_fail "vlan"
expect_fail "not supported" \
	"vroce: eth0.7 is a VLAN device: add the vroce device on eth0" \
	rdma link add vroce2 type vroce netdev eth0.7
ip link del eth0.7

expect_fail "no such device" "" rdma link add vroce3 type vroce netdev vtnone0
expect_fail "invalid argument" "vroce: lo is the loopback device" \
	rdma link add vroce4 type vroce netdev lo

# (no udev in the guest: /dev/net/tun appears when the module loads)
tun="no tun in this kernel"
if modprobe tun 2>/dev/null && ip tuntap add dev vttun0 mode tun; then
	# ARPHRD_NONE (65534): an IP tunnel without link-layer addresses
	expect_fail "invalid argument" \
		"vroce: vttun0 is not an Ethernet device (ARPHRD type 65534)" \
		rdma link add vroce5 type vroce netdev vttun0
	ip tuntap del dev vttun0 mode tun
	tun="EINVAL (tun)"
fi

n=$(rdma link show | grep -c vroce)
vt_expect_eq "devices after failures" "$n" 1

rdma link delete vroce0
vt_pass "EEXIST, EOPNOTSUPP (vlan), ENODEV, EINVAL (lo), $tun; one log line each"
