#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debug: yes
#
# Every way a device can go away: rdma link delete, deleting the netdev,
# and rmmod with devices present; devices in other network namespaces; a
# netdev rename followed by sysfs.  The module refcount returns to 0 and
# the runner fails the scenario on any kernel warning.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

# A netns goes away in the kernel's cleanup_net work, seconds later on the
# debug kernel (KASAN, lockdep) under emulation: the bound is 60 s.
gone() { vt_wait_for "[ ! -e $(vt_sys "$1") ]" 60 || vt_fail "$1 still present ($2)"; }
refcnt0() { vt_wait_for "[ \"\$(vt_refcnt)\" = 0 ]" 10 || vt_fail "refcnt $(vt_refcnt) after $1"; }

vt_load_vroce
refcnt0 "load"

# 1. rdma link delete, twice in a row on the same netdev.
for i in 1 2; do
	vt_link_add vroce0 eth0
	rdma link delete vroce0 || vt_fail "link delete ($i)"
	gone vroce0 "link delete"
done
refcnt0 "link delete"

# 2. Deleting the netdev takes the device with it.
ip link add vtx0 type veth peer name vtx1 || vt_fail "veth"
ip link set vtx0 up && ip link set vtx1 up
vt_link_add vroce1 vtx0
[ -e "$(vt_sys vroce1)/device/net/vtx0" ] || vt_fail "no device/net/vtx0"
# 6.1 refuses to rename an interface that is up.
ip link set vtx0 down
ip link set vtx0 name vtren0 || vt_fail "rename"
vt_wait_for "[ -e $(vt_sys vroce1)/device/net/vtren0 ]" 5 ||
	vt_fail "device/net does not follow the rename: $(ls "$(vt_sys vroce1)/device/net")"
ip link del vtren0 || vt_fail "ip link del"
gone vroce1 "netdev delete"
refcnt0 "netdev delete"

# 3. A device in another network namespace, removed with the namespace.
vt_netns_pair A B
vt_link_add vroceA vtA vtA
vt_link_add vroceB vtB vtB
ip netns exec vtA rdma link show vroceA/1 | grep 'netdev vtA' >/dev/null ||
	vt_fail "vroceA not on vtA: $(ip netns exec vtA rdma link show)"
ip netns del vtB
gone vroceB "netns delete"
vt_wait_for "[ ! -e $(vt_sys vroceA) ]" 10 || vt_fail "vroceA survives its peer's namespace"
ip netns del vtA 2>/dev/null
refcnt0 "netns delete"

# 4. rmmod with devices present.
ip link add vtx0 type veth peer name vtx1 && ip link set vtx0 up
vt_link_add vroce0 eth0
vt_link_add vroce1 vtx0
rmmod vroce || vt_fail "rmmod with devices present"
gone vroce0 "rmmod"
gone vroce1 "rmmod"
ip link del vtx0

# 5. Load again: nothing was left behind (sysfs root, port 4791).
insmod "$VROCE_KO" || vt_fail "reload after rmmod"
vt_link_add vroce0 eth0
rdma link delete vroce0
rmmod vroce || vt_fail "final rmmod"
[ -e /sys/devices/vroce ] && vt_fail "/sys/devices/vroce left after rmmod"
vt_pass "link delete, netdev delete/rename, netns delete, rmmod: clean, refcnt 0"
