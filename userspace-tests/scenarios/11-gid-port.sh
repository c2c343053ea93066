#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The GID table follows the netdev's addresses with a RoCE v1 and a RoCE v2
# entry per address, in ConnectX's layout (link-local at 0 and 1, the
# first IPv4 address at 2 and 3), ibv_devinfo -v agrees with sysfs; with the module parameter roce_v1=0 a new device has
# rdma_rxe's RoCE v2-only layout.  The port state follows the link, with
# the matching async events.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

vt_load_vroce
ip link set eth0 up
vt_link_add vroce0 eth0
sys=$(vt_sys vroce0)/ports/1

ip4=$(vt_eth0_ipv4)
[ -n "$ip4" ] || vt_fail "eth0 has no IPv4 address"
want=$(vt_gid_of_ipv4 "$ip4")
vt_wait_for "grep -qx $want $sys/gids/3" 5 ||
	vt_fail "gids/3 is $(cat $sys/gids/3), want $want"
# entry INDEX GID TYPE: sysfs shows GID (a glob) of TYPE on eth0 there
entry() {
	local g
	g=$(cat "$sys/gids/$1")
	# shellcheck disable=SC2053 # $2 is a pattern
	[[ $g == $2 ]] || vt_fail "gids/$1 is $g, want $2"
	vt_expect_eq "gid $1 type" "$(cat "$sys/gid_attrs/types/$1")" "$3"
	vt_expect_eq "gid $1 ndev" "$(cat "$sys/gid_attrs/ndevs/$1")" eth0
}
entry 0 "fe80:*" "IB/RoCE v1"
entry 1 "$(cat "$sys/gids/0")" "RoCE v2"
entry 2 "$want" "IB/RoCE v1"
entry 3 "$want" "RoCE v2"
vt_expect_eq "the IPv4 RoCE v2 GID found as show_gids does" \
	"$(vt_gid_index vroce0 "$ip4")" 3
vt_expect_eq "the IPv4 RoCE v1 GID found as show_gids does" \
	"$(vt_gid_index vroce0 "$ip4" "IB/RoCE v1")" 2
# ibv_devinfo -v: "GID[  3]:  ::ffff:10.0.2.15, RoCE v2"; a RoCE v1 GID
# it prints as sysfs does ("GID[  2]:  0000:...:ffff:0a00:020f, RoCE v1")
dv=$(ibv_devinfo -v -d vroce0)
grep -Eq "GID\[ *2\]:[[:space:]]*$want, RoCE v1\$" <<<"$dv" ||
	vt_fail "ibv_devinfo -v has no RoCE v1 GID[2] for $ip4: $(grep GID <<<"$dv" | xargs)"
grep -Eq "GID\[ *3\]:.*$ip4, RoCE v2\$" <<<"$dv" ||
	vt_fail "ibv_devinfo -v has no RoCE v2 GID[3] for $ip4: $(grep GID <<<"$dv" | xargs)"
# rdma_rxe's layout on request: a device created with roce_v1=0
echo 0 >/sys/module/vroce/parameters/roce_v1 || vt_fail "roce_v1=0"
ip link add vtgid0 type dummy && ip addr add 192.168.79.1/24 dev vtgid0 &&
	ip link set vtgid0 up || vt_fail "dummy netdev"
vt_link_add vroce9 vtgid0
echo 1 >/sys/module/vroce/parameters/roce_v1 || vt_fail "roce_v1=1"
vt_wait_for "grep -q ':ffff:' $(vt_sys vroce9)/ports/1/gids/1" 10 ||
	vt_fail "roce_v1=0: no IPv4 GID at index 1: $(cat "$(vt_sys vroce9)"/ports/1/gids/1)"
vt_expect_eq "roce_v1=0: gid 1 type" \
	"$(cat "$(vt_sys vroce9)/ports/1/gid_attrs/types/1")" "RoCE v2"
vt_expect_eq "roce_v1=0: gid 0 type" \
	"$(cat "$(vt_sys vroce9)/ports/1/gid_attrs/types/0")" "RoCE v2"
rdma link delete vroce9 || vt_fail "rdma link delete vroce9"
ip link del vtgid0

# A new IPv6 address adds a GID.
ip -6 addr add 2001:db8:77::15/64 dev eth0 nodad ||
	vt_fail "cannot add an IPv6 address"
vt_wait_for "grep -qx 2001:0db8:0077:0000:0000:0000:0000:0015 $sys/gids/*" 5 ||
	vt_fail "no GID for 2001:db8:77::15: $(cat $sys/gids/[0-4])"
ip -6 addr del 2001:db8:77::15/64 dev eth0
vt_wait_for "! grep -qx 2001:0db8:0077:0000:0000:0000:0000:0015 $sys/gids/*" 5 ||
	vt_fail "GID stays after the IPv6 address is removed"

# Port state follows the link, with PORT_ERR / PORT_ACTIVE events.
events_file=$VROCE_JOB/asyncwatch.$$
stdbuf -oL ibv_asyncwatch -d vroce0 >"$events_file" 2>&1 &
watch=$!
# It prints its FD once it listens; events before that would be missed.
vt_wait_for "grep -q 'async event FD' $events_file" 20 ||
	vt_fail "ibv_asyncwatch did not start"
ip link set eth0 down
vt_wait_for "[ \$(vt_port_state vroce0) = DOWN ]" 5 ||
	vt_fail "port is $(vt_port_state vroce0) after link down"
grep -q 'PORT_DOWN\|DISABLED' <<<"$(ibv_devinfo -d vroce0)" ||
	vt_fail "ibv_devinfo does not show the port down"
ip link set eth0 up
vt_wait_for "[ \$(vt_port_state vroce0) = ACTIVE ]" 5 ||
	vt_fail "port is $(vt_port_state vroce0) after link up"
vt_wait_for "grep -q PORT_ACTIVE $events_file" 20
kill "$watch" 2>/dev/null
wait "$watch" 2>/dev/null
events=$(cat "$events_file")
rm -f "$events_file"
vt_log "events: $events"
grep -q 'PORT_ERR' <<<"$events" || vt_fail "no IBV_EVENT_PORT_ERR: $events"
grep -q 'PORT_ACTIVE' <<<"$events" || vt_fail "no IBV_EVENT_PORT_ACTIVE: $events"

ip -4 addr show dev eth0 | grep "$ip4" >/dev/null || ip addr add "$ip4/24" dev eth0
rdma link delete vroce0
vt_pass "gids/0-3 link-local and $want, RoCE v1 then v2 (ibv_devinfo agrees), roce_v1=0 gives RoCE v2 only, IPv6 GID added/removed, port DOWN/ACTIVE with events"
