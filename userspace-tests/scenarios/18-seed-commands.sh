#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# topology: pair
# timeout: 300
#
# The commands a RoCE guide gives ConnectX users, adapted only in the
# device name (issue 12, acceptance 1), between two VMs on the emulated
# wire: each VM creates vroce0 on eth0 with the defaults, finds its IPv4
# RoCE v2 GID as show_gids does (sysfs gids/ and gid_attrs/types/): it
# must be index 3, and the RoCE v1 one index 2; then
# `ib_write_bw -d vroce0 -F --report_gbits -x 3 <peer>` runs with each VM
# in turn as the server, and the same with -x 2 (RoCE v1); 200
# iterations (13 MB) instead of the default 5000, for the emulated wire's
# 0.1 Gb/s (1000 took 8-14 s a round and showed nothing more).  Pass: every
# client reports a result, and during the RoCE v1 rounds each VM received
# RoCE packets (rx_packets) but almost no UDP datagrams (/proc/net/snmp):
# they really were RoCE v1.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"
. "$VROCE_SRC/userspace-tests/lib/pair.sh"
. "$VROCE_SRC/userspace-tests/lib/cc.sh"

command -v ib_write_bw >/dev/null || vt_skip "no ib_write_bw (perftest)"

vt_load_vroce
vt_link_add vroce0 eth0
vt_wait_for "[ \"\$(vt_port_state vroce0)\" = ACTIVE ]" 30 ||
	vt_fail "vroce0 port not ACTIVE: $(vt_port_state vroce0)"
ip4=$VROCE_SELF_IP
vt_wait_for "vt_gid_index vroce0 $ip4 && vt_gid_index vroce0 $ip4 'IB/RoCE v1'" 10 ||
	vt_fail "no RoCE v2 and RoCE v1 GIDs for $ip4"
vt_expect_eq "show_gids: RoCE v2 GID of $ip4" "$(vt_gid_index vroce0 "$ip4")" 3
vt_expect_eq "show_gids: RoCE v1 GID of $ip4" \
	"$(vt_gid_index vroce0 "$ip4" 'IB/RoCE v1')" 2
vt_barrier up || vt_fail "peer did not come up"

# udp_in: UDP datagrams this VM received (RoCE v2 packets are among them)
udp_in() { awk '$1 == "Udp:" && $2 ~ /^[0-9]+$/ { print $2 }' /proc/net/snmp; }

run_pair write_bw_v2 18800 ib_write_bw -d vroce0 -F --report_gbits -x 3 -n 200
rx0=$(vt_counter vroce0 rx_packets)
udp0=$(udp_in)
run_pair write_bw_v1 18810 ib_write_bw -d vroce0 -F --report_gbits -x 2 -n 200
rx=$(($(vt_counter vroce0 rx_packets) - rx0))
udp=$(($(udp_in) - udp0))
vt_log "RoCE v1 rounds: $rx RoCE packets received, $udp UDP datagrams"
[ "$rx" -ge 100 ] || vt_fail "RoCE v1 rounds: only $rx RoCE packets received"
[ "$udp" -lt 10 ] ||
	vt_fail "RoCE v1 rounds: $udp UDP datagrams received: not RoCE v1"
vt_barrier "done" || true
vt_pass "GIDs 3 (RoCE v2) and 2 (RoCE v1) found as show_gids does; ib_write_bw -x 3 and -x 2 both ways"
