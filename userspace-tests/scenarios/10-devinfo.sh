#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A vroce device on eth0 is listed by ibv_devices, claimed by the stock rxe
# provider of rdma-core, and ibv_devinfo -v shows an active Ethernet port
# whose MTU follows the netdev.  sysfs shows the netdev under device/net/.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

vt_load_vroce
ip link set eth0 mtu 1500
vt_link_add vroce0 eth0

out=$(ibv_devices 2>&1) || vt_fail "ibv_devices: $out"
grep -qw vroce0 <<<"$out" || vt_fail "ibv_devices does not list vroce0: $out"

info=$(ibv_devinfo -v -d vroce0 2>&1) || vt_fail "ibv_devinfo failed: $info"
vt_log "$info"
grep -qi "couldn't load driver\|no userspace device-specific driver" <<<"$info" &&
	vt_fail "the rxe provider did not claim vroce0"
grep -q 'state:.*PORT_ACTIVE' <<<"$info" || vt_fail "port not PORT_ACTIVE"
grep -q 'link_layer:.*Ethernet' <<<"$info" || vt_fail "link_layer not Ethernet"
grep -q 'active_mtu:.*1024' <<<"$info" || vt_fail "active_mtu not 1024 at MTU 1500"
grep -q 'max_mtu:.*4096' <<<"$info" || vt_fail "max_mtu not 4096"
grep -q 'max_qp:.*65536' <<<"$info" || vt_fail "max_qp not reported"

# Node GUID: EUI-64 of the MAC (flip the U/L bit, insert ff:fe).
mac=$(cat /sys/class/net/eth0/address)
IFS=: read -r m0 m1 m2 m3 m4 m5 <<<"$mac"
want=$(printf '%02x%s:%sff:fe%s:%s%s' $((0x$m0 ^ 2)) "$m1" "$m2" "$m3" "$m4" "$m5")
vt_expect_eq node_guid "$(cat "$(vt_sys vroce0)/node_guid")" "$want"

# The netdev appears under the device, as for a PCI RoCE function.
[ -e "$(vt_sys vroce0)/device/net/eth0" ] || vt_fail "no device/net/eth0"
[ -e "$(vt_sys vroce0)/device/modalias" ] && vt_fail "parent has a modalias"
rdma link show vroce0/1 | grep 'state ACTIVE.*netdev eth0' >/dev/null ||
	vt_fail "rdma link show: $(rdma link show vroce0/1)"

# active_mtu follows the netdev MTU.
ip link set eth0 mtu 9000 || vt_skip "eth0 does not take MTU 9000"
vt_wait_for "ibv_devinfo -d vroce0 | grep 'active_mtu:.*4096' >/dev/null" 5 ||
	vt_fail "active_mtu not 4096 at MTU 9000"
ip link set eth0 mtu 1500

rdma link delete vroce0 || vt_fail "rdma link delete"
vt_pass "listed, claimed by librxe, PORT_ACTIVE, Ethernet, MTU follows netdev"
