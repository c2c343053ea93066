#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The GID table follows the netdev's addresses (RoCE v2 GIDs), and the port
# state follows the link, with the matching async events.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

vt_load_vroce
ip link set eth0 up
vt_link_add vroce0 eth0
sys=$(vt_sys vroce0)/ports/1

ip4=$(vt_eth0_ipv4)
[ -n "$ip4" ] || vt_fail "eth0 has no IPv4 address"
want=$(vt_gid_of_ipv4 "$ip4")
vt_wait_for "grep -qx $want $sys/gids/1" 5 ||
	vt_fail "gids/1 is $(cat $sys/gids/1), want $want"
vt_expect_eq "gid 1 type" "$(cat $sys/gid_attrs/types/1)" "RoCE v2"
vt_expect_eq "gid 1 ndev" "$(cat $sys/gid_attrs/ndevs/1)" "eth0"
case $(cat $sys/gids/0) in
fe80:*) ;;
*) vt_fail "gids/0 is not the link-local GID: $(cat $sys/gids/0)" ;;
esac

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
vt_pass "gids/1=$want RoCE v2, IPv6 GID added/removed, port DOWN/ACTIVE with events"
