#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# QoS settings where ConnectX users find them (issue 12; drivers/vroce/
# qos.c): the default traffic class /sys/class/infiniband/<dev>/tc/1/
# traffic_class, and under the netdev, from inside its namespace,
# qos/trust and qos/dscp2prio.  Two hosts in one VM (vroceA on vtA,
# vroceB on vtB, vt_vroce_netns_pair).
#   - each file starts at its default (no traffic class, trust dscp,
#     DSCP / 8), takes good values in every accepted spelling and reads
#     them back; bad values fail with EINVAL and keep the old one;
#   - the bytes on the wire: vroceA's reaction point is on for priority 3
#     only (cc/roce_rp_enable), so its data packets carry ECT(0) exactly
#     when the priority qos.c gives them is 3.  ibv_rc_pingpong sets no
#     traffic class; a capture on vtB reads DSCP and ECN of vroceA's data
#     packets in four rounds: no default (DSCP 0, Not-ECT), default 104
#     (DSCP 26 -> priority 3: DSCP 26, ECT(0)), DSCP 26 mapped to priority
#     5 (DSCP 26, Not-ECT), and back to 3 but trust pcp (SL 0 -> priority
#     0: DSCP 26, Not-ECT);
#   - rdma_cm QPs take their traffic class from rdma_cm: with configfs
#     default_roce_tos 32 on vroceA, rping's SENDs leave with DSCP 8
#     whatever traffic_class (104) says;
#   - a GID of a VLAN device (vtA.100, egress-qos-map 3:3) sends through
#     it: ibv_rc_pingpong between the two VLAN GIDs works, and vroceA's
#     data packets leave tagged VLAN 100 with PCP 3 (default traffic class
#     104: DSCP 26, priority 3), vroceB's answers tagged too; vroceB,
#     marking what it receives CE (fault injection), sends CNPs at
#     np_cnp_dscp, tagged with PCP 3 (np_cnp_prio 3 through the egress
#     map).
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

command -v dumpcap >/dev/null || vt_fail "no dumpcap (tshark; ci/setup.sh installs it)"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# shellcheck disable=SC2119 # no module parameters
vt_load_vroce
vt_vroce_netns_pair
TC=$(vt_sys vroceA)/tc/1/traffic_class
QOS=/sys/class/net/vtA/qos

rd() { vt_knob_rd "$1"; }
# wr_ok FILE VALUE WANT: the write succeeds and FILE then reads WANT (for
# dscp2prio: WANT is the line of the DSCP written)
wr_ok() {
	local err
	case $1 in
	*/dscp2prio)
		err=$(vt_knob_write "$1" "$2") || vt_fail "write \"$2\" to $1: $err"
		vt_expect_eq "$1 after writing \"$2\"" \
			"$(rd "$1" | grep -x "${3%% *} [0-9]*")" "$3"
		;;
	*) vt_knob_ok "$@" ;;
	esac
}
wr_bad() { vt_knob_bad "$@"; }

# --- the files and their defaults
[ -f "$TC" ] || vt_fail "no $TC"
vt_knob_at "$QOS" test -f "$QOS/trust" || vt_fail "no $QOS/trust in vtA"
vt_expect_eq "traffic_class at start" "$(rd "$TC")" "Global tclass=-1"
vt_expect_eq "trust at start" "$(rd "$QOS/trust")" dscp
want=$(for d in $(seq 0 63); do echo "$d $((d / 8))"; done)
[ "$(rd "$QOS/dscp2prio")" = "$want" ] ||
	vt_fail "dscp2prio at start is not DSCP / 8: $(rd "$QOS/dscp2prio" | tr '\n' ' ')"

# --- good and bad values
wr_ok "$TC" 106 "Global tclass=106"
wr_ok "$TC" tclass=104 "Global tclass=104"
for bad in 256 -2 abc "" tclass= tclass=300 "1 2"; do wr_bad "$TC" "$bad"; done
wr_ok "$TC" -1 "Global tclass=-1"
wr_ok "$QOS/trust" pcp pcp
for bad in foo "" 1 "pcp dscp"; do wr_bad "$QOS/trust" "$bad"; done
wr_ok "$QOS/trust" dscp dscp
wr_ok "$QOS/dscp2prio" "26 5" "26 5"
wr_ok "$QOS/dscp2prio" "set,26,3" "26 3"
for bad in "64 1" "26 8" 26 "26 3 4" "x 1" "" "set,26" "-1 2"; do
	wr_bad "$QOS/dscp2prio" "$bad"
done
vt_log "files: defaults, good and bad values as documented"

# --- the wire
echo 0,0,0,1,0,0,0,0 >"$(vt_sys vroceA)/cc/roce_rp_enable" ||
	vt_fail "cc/roce_rp_enable"

# dumpcap_start NAME FILTER: capture on vtB into $W/NAME.pcap (capture
# filter FILTER); $cap is dumpcap's pid
dumpcap_start() {
	ip netns exec vtB dumpcap -q -i vtB -s 128 -f "$2" -w "$W/$1.pcap" \
		2>"$W/$1.pcap.log" &
	cap=$!
	vt_wait_for "grep -q 'Capturing on' '$W/$1.pcap.log'" 30 ||
		vt_fail "$1: dumpcap did not start: $(cat "$W/$1.pcap.log")"
}
# dumpcap_stop: end the capture dumpcap_start began, once the last
# packets are in
dumpcap_stop() {
	sleep 1
	kill -INT "$cap"
	wait "$cap" || true
}

# pingpong NAME FILTER GID_A GID_B ADDR_B: ibv_rc_pingpong from vroceA's
# GID_A to vroceB's GID_B at ADDR_B, under a capture on vtB (capture
# filter FILTER) that ends in $W/NAME.pcap
pingpong() {
	local name=$1 srv
	dumpcap_start "$name" "$2"
	ip netns exec vtB timeout -k 5 60 ibv_rc_pingpong -d vroceB -g "$4" -n 20 \
		>"$W/srv" 2>&1 &
	srv=$!
	vt_wait_for "ip netns exec vtB ss -ltn | grep -q ':18515 '" 30 ||
		vt_fail "$name: server not listening"
	ip netns exec vtA timeout -k 5 60 ibv_rc_pingpong -d vroceA -g "$3" -n 20 \
		"$5" >"$W/cli" 2>&1 ||
		vt_fail "$name: client: $(tail -3 "$W/cli") // server: $(tail -3 "$W/srv")"
	wait "$srv" || vt_fail "$name: server: $(tail -3 "$W/srv")"
	dumpcap_stop
}

# data_is NAME FROM FIELDS WANT: every data packet (not an ACK: BTH opcode
# 0x11) from FROM in NAME's capture has the tshark FIELDS WANT, and there
# are at least 20
data_is() {
	local name=$1 from=$2 want=$4 got f args=()
	for f in $3; do args+=(-e "$f"); done
	got=$(tshark -r "$W/$name.pcap" -Y "ip.src == $from && !(udp.payload[0:1] == 11)" \
		-T fields "${args[@]}" 2>/dev/null | sort | uniq -c)
	vt_log "$name: data packets from $from (count, $3): $(echo "$got" | xargs)"
	[ "$(echo "$got" | wc -l)" = 1 ] &&
		[ "$(echo "$got" | awk '{ $1 = ""; print substr($0, 2) }')" = "$want" ] ||
		vt_fail "$name: data packets from $from (count, $3): $(echo "$got" | xargs), want all \"$want\""
	[ "$(echo "$got" | awk '{ print $1 }')" -ge 20 ] ||
		vt_fail "$name: only $(echo "$got" | awk '{ print $1 }') data packets captured"
}

# round NAME WANT: vroceA's data packets carry DSCP and ECN WANT ("26 2")
round() {
	pingpong "$1" 'udp dst port 4791 and src host 192.168.77.1' 3 3 192.168.77.2
	data_is "$1" 192.168.77.1 "ip.dsfield.dscp ip.dsfield.ecn" "$2"
}

round plain "0 0"
wr_ok "$TC" 104 "Global tclass=104"
round default104 "26 2"
wr_ok "$QOS/dscp2prio" "26 5" "26 5"
round dscp26prio5 "26 0"
wr_ok "$QOS/dscp2prio" "26 3" "26 3"
wr_ok "$QOS/trust" pcp pcp
round trustpcp "26 0"
wr_ok "$QOS/trust" dscp dscp

# --- rdma_cm sets the traffic class of its QPs: default_roce_tos decides
modprobe rdma_ucm || vt_fail "modprobe rdma_ucm"
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config ||
	vt_fail "mount configfs"
CFS=/sys/kernel/config/rdma_cm/vroceA
mkdir "$CFS" && echo 32 >"$CFS/ports/1/default_roce_tos" ||
	vt_fail "configfs default_roce_tos of vroceA"
wr_ok "$TC" 104 "Global tclass=104"
dumpcap_start rdmacm 'udp dst port 4791 and src host 192.168.77.1'
ip netns exec vtB timeout -k 5 60 rping -s -a 192.168.77.2 -C 10 >"$W/srv" 2>&1 &
srv=$!
vt_wait_for "ip netns exec vtB rdma resource show cm_id | grep -q LISTEN" 30 ||
	vt_fail "rdmacm: rping server not listening"
ip netns exec vtA timeout -k 5 60 rping -c -a 192.168.77.2 -C 10 >"$W/cli" 2>&1 ||
	vt_fail "rdmacm: rping client: $(tail -3 "$W/cli") // server: $(tail -3 "$W/srv")"
wait "$srv" || vt_fail "rdmacm: rping server: $(tail -3 "$W/srv")"
dumpcap_stop
rmdir "$CFS"
# vroceA's requests (SENDs: BTH opcodes 0-5); its READ responses echo
# the requester's DSCP
got=$(tshark -r "$W/rdmacm.pcap" -Y 'udp.payload[0:1] <= 5' -T fields \
	-e ip.dsfield.dscp 2>/dev/null | sort | uniq -c)
vt_log "rdmacm: SENDs of vroceA (count, DSCP): $(echo "$got" | xargs)"
[ "$(echo "$got" | wc -l)" = 1 ] && [ "$(echo "$got" | awk '{ print $2 }')" = 8 ] ||
	vt_fail "rdmacm: SENDs of vroceA (count DSCP): $(echo "$got" | xargs), want all DSCP 8 (default_roce_tos 32 over traffic_class 104)"

# --- a VLAN's GID: tagged, its PCP from the VLAN's egress map
for x in A:1 B:2; do
	vns=vt${x%:*}
	ip -n "$vns" link add link "$vns" name "$vns.100" type vlan id 100 \
		egress-qos-map 3:3 &&
		ip -n "$vns" addr add "192.168.78.${x#*:}/24" dev "$vns.100" &&
		ip -n "$vns" link set "$vns.100" up || vt_fail "VLAN 100 on $vns"
done
vt_wait_for "vt_gid_index vroceA 192.168.78.1 && vt_gid_index vroceB 192.168.78.2" 30 ||
	vt_fail "no GID for the VLAN addresses"
ga=$(vt_gid_index vroceA 192.168.78.1)
gb=$(vt_gid_index vroceB 192.168.78.2)
vt_expect_eq "VLAN GID's netdev" "$(cat "$(vt_sys vroceA)/ports/1/gid_attrs/ndevs/$ga")" vtA.100
# vroceB marks what it receives CE (fault injection) and answers with
# CNPs at np_cnp_prio 3, which its VLAN's egress map puts in the PCP bits
FB=/sys/kernel/debug/vroce/vroceB
[ -d "$FB" ] || vt_fail "no $FB (debugfs)"
echo 1,1,1,1,1,1,1,1 >"$(vt_sys vroceB)/cc/roce_np_enable" ||
	vt_fail "vroceB cc/roce_np_enable"
echo 3 >"$(vt_sys vroceB)/cc/np_cnp_prio" || vt_fail "vroceB cc/np_cnp_prio"
cnp_dscp=$(cat "$(vt_sys vroceB)/cc/np_cnp_dscp")
echo 1000 >"$FB/ce_mark_permille"
pingpong vlan 'vlan and udp dst port 4791' "$ga" "$gb" 192.168.78.2
echo 0 >"$FB/ce_mark_permille"
echo 0,0,0,0,0,0,0,0 >"$(vt_sys vroceB)/cc/roce_np_enable"
data_is vlan 192.168.78.1 "vlan.id vlan.priority ip.dsfield.dscp" "100 3 26"
n=$(tshark -r "$W/vlan.pcap" -Y 'ip.src == 192.168.78.2' 2>/dev/null | wc -l)
[ "$n" -ge 20 ] || vt_fail "vlan: only $n packets of vroceB tagged"
got=$(tshark -r "$W/vlan.pcap" -Y 'ip.src == 192.168.78.2 && udp.payload[0:1] == 81' \
	-T fields -e vlan.id -e vlan.priority -e ip.dsfield.dscp 2>/dev/null | sort | uniq -c)
vt_log "vlan: CNPs of vroceB (count, VLAN, PCP, DSCP): $(echo "$got" | xargs)"
[ -n "$got" ] || vt_fail "vlan: no CNP of vroceB captured"
[ "$(echo "$got" | wc -l)" = 1 ] &&
	[ "$(echo "$got" | awk '{ print $2, $3, $4 }')" = "100 3 $cnp_dscp" ] ||
	vt_fail "vlan: CNPs of vroceB (count, VLAN, PCP, DSCP): $(echo "$got" | xargs), want all \"100 3 $cnp_dscp\" (np_cnp_prio 3, np_cnp_dscp)"

wr_ok "$TC" -1 "Global tclass=-1"
vt_pass "traffic_class, trust, dscp2prio: defaults, bad values refused and kept; on the wire: default traffic class applied, ECT(0) exactly on the reaction point's priority through the map and the trust mode"
