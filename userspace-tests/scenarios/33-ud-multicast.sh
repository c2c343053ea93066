#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# debug: yes
#
# UD multicast (ibv_attach_mcast / ibv_detach_mcast), with
# userspace-tests/bin/ud_mcast:
#  1. selftest on one device: the errors, the attach limit, loopback
#     delivery to several QPs (IPv4-mapped and IPv6 groups), nothing after
#     detach, nothing for another group or Q_Key, and every message the
#     other Q_Key's QP drops counted once in ibv_query_port's
#     qkey_viol_cntr.
#  2. one device, three processes: two member processes (two QPs each)
#     and a sender; the interface joins the group while QPs are attached
#     (ip maddr) and leaves it after.
#  3. two devices on a veth pair in two namespaces: members on both
#     "hosts", the sender on one of them (its members by loopback, the
#     others over the wire), an IPv4 group from A and an IPv6 group from B.
#  4. the namespaces are deleted and vroce unloads (a route kept for the
#     received multicast packets once kept them alive forever).
# In 2 and 3 every member QP gets every message exactly once with its
# data, source QP and GRH; after the last QP of a process detaches, it
# gets nothing while the others get the second batch.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

UDM=$VROCE_SRC/userspace-tests/bin/ud_mcast
[ -x "$UDM" ] || vt_skip "$UDM not built (make -C userspace-tests verbs)"
N=100
DIR=$(mktemp -d)

vt_load_vroce
vt_link_add vroce0 eth0

# 1.
if ! out=$(vt_run_timeout 240 "$UDM" -d vroce0 selftest 2>&1); then
	vt_fail "selftest: $(grep -v '^ok' <<<"$out")"
fi
printf '%s\n' "$out" >&2

# member TAG NS DEV GROUP: a member process (2 QPs, two batches).
PIDS=()
TAGS=()
member() {
	local tag=$1 netns=$2 dev=$3 group=$4
	vt_in_ns "$netns" "$UDM" -d "$dev" -G "$group" -q 2 -n "$N" -2 -t 120 \
		-r "$DIR/ready.$tag" -x "$DIR/detached.$tag" member \
		>"$DIR/out.$tag" 2>&1 &
	PIDS+=($!)
	TAGS+=("$tag")
}

# await WHAT: wait until every member has written $DIR/WHAT.TAG.
await() {
	local t
	for t in "${TAGS[@]}"; do
		vt_wait_for "[ -e $DIR/$1.$t ]" 120 ||
			vt_fail "member $t not $1: $(cat "$DIR/out.$t")"
	done
}

# send NS DEV GROUP SEQ0: one batch of N messages.
send() {
	local out
	out=$(vt_in_ns "$1" timeout -k 5 120 "$UDM" -d "$2" -G "$3" -n "$N" \
		-S "$4" send 2>&1) || vt_fail "send to $3 from $2: $out"
	vt_log "$(grep '^ok' <<<"$out")"
}

# finish: every member exits 0; their results go to the log.
finish() {
	local i
	for i in "${!PIDS[@]}"; do
		if ! wait "${PIDS[$i]}"; then
			vt_fail "member ${TAGS[$i]}: $(grep -v '^ok' \
				"$DIR/out.${TAGS[$i]}")"
		fi
		vt_log "member ${TAGS[$i]}: $(tail -1 "$DIR/out.${TAGS[$i]}")"
	done
	PIDS=()
	TAGS=()
	rm -f "$DIR"/*
}

# 2.
G4=239.1.2.3
ip maddr show dev eth0 | grep "$G4" >/dev/null &&
	vt_fail "eth0 is in $G4 before any QP attached"
member p1 "" vroce0 "$G4"
member p2 "" vroce0 "$G4"
await ready
ip maddr show dev eth0 | grep "inet  *$G4" >/dev/null ||
	vt_fail "eth0 did not join $G4: $(ip maddr show dev eth0)"
send "" vroce0 "$G4" 0
await detached
send "" vroce0 "$G4" "$N"
finish
vt_wait_for "! ip maddr show dev eth0 | grep $G4 >/dev/null" 10 ||
	vt_fail "eth0 still in $G4 after every QP left: $(ip maddr show dev eth0)"

# 3.
vt_netns_pair A B
ip -n vtA addr add fd00:77::1/64 dev vtA nodad || vt_fail "IPv6 on vtA"
ip -n vtB addr add fd00:77::2/64 dev vtB nodad || vt_fail "IPv6 on vtB"
vt_link_add vroceA vtA vtA
vt_link_add vroceB vtB vtB
# the IPv6 GIDs appear once ib_core has seen the addresses
for d in vroceA vroceB; do
	vt_wait_for "grep -qi '^fd00' $(vt_sys $d)/ports/1/gids/*" 20 ||
		vt_fail "$d has no fd00:77:: GID"
done

member a1 vtA vroceA "$G4"
member b1 vtB vroceB "$G4"
member b2 vtB vroceB "$G4"
await ready
send vtA vroceA "$G4" 0
await detached
send vtA vroceA "$G4" "$N"
finish

G6=ff0e::db8:5
member a1 vtA vroceA "$G6"
member b1 vtB vroceB "$G6"
await ready
ip -n vtA maddr show dev vtA | grep "$G6" >/dev/null ||
	vt_fail "vtA did not join $G6: $(ip -n vtA maddr show dev vtA)"
send vtB vroceB "$G6" 0
await detached
send vtB vroceB "$G6" "$N"
finish

rdma link delete vroceA
rdma link delete vroceB
rdma link delete vroce0
rmdir "$DIR"

# 4. The namespaces die (nothing of the multicast traffic holds their
# devices), which rmmod waits for.
ip netns del vtA
ip netns del vtB
rmmod vroce &
vt_wait_for "! grep -q '^vroce ' /proc/modules" 90 ||
	vt_fail "rmmod waits for the namespaces: $(dmesg | grep 'waiting for' | sed -n 1,3p)"
vt_pass "selftest; 2 processes x 2 QPs on one device; 3 processes on two namespaces, IPv4 and IPv6 groups: every message once, nothing after detach; namespaces and module go"
