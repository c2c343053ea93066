#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# topology: pair
# timeout: 300
#
# RC data integrity on a faulty wire: both VMs run vroce and put netem on
# eth0 (1 % loss, 1 % duplicates, 5 % reordered, 1 % corrupted, 1 ms
# delay), then rc_integrity (VM a serves, VM b connects) writes, reads and
# sends seeded patterns on four QPs and checks every byte.  Afterwards the
# recovery counters of both devices, summed, must show each kind of
# recovery: NAKs for PSN sequence errors, out-of-sequence and duplicate
# requests seen by the responder, requests held ahead of a gap and run
# once netem's delayed packet filled it (rx_resequenced), retransmit
# timeouts, and corrupted packets dropped by the ICRC check.  Besides netem's faults the emulated
# wire itself drops bursts (a VM that falls behind overflows the host's UDP
# socket buffer between the QEMUs: a fifth to a third of the frames here),
# and the QPs run with perftest's timeout 14 (raised to vroce's floor, 15:
# 134 ms per try) and retry_cnt 7: recovery must keep up with both.
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

BIN=$VROCE_SRC/userspace-tests/bin/rc_integrity
DEV=dev0
PORT=19875
# limit: room for every QP's window (the default 1000 packets would add
# tail drops to the configured loss)
NETEM="limit 10000 loss 1% duplicate 1% reorder 5% 50% corrupt 1% delay 1ms"
# the recovery counters, and the minimum the pair's sum must reach
WANT="packet_seq_err out_of_sequence duplicate_request rx_resequenced local_ack_timeout_err rx_icrc_encapsulated"

[ -x "$BIN" ] || vt_skip "$BIN not built (make -C userspace-tests tests)"
command -v tc >/dev/null || vt_skip "no tc in the guest"
modprobe sch_netem 2>/dev/null || vt_skip "no sch_netem module for $VROCE_ABI"

vt_load_vroce
vt_link_add "$DEV" eth0
vt_wait_for "[ \"\$(vt_port_state $DEV)\" = ACTIVE ]" 30 ||
	vt_fail "$DEV port not ACTIVE: $(vt_port_state "$DEV")"

# counters NAME...: "name value" lines of the device's hw counters.
counters() {
	rdma statistic show link "$DEV/1" | tr ' ' '\n' |
		awk 'NF { if (k) { print k, $0; k = "" } else k = $0 }' |
		grep -E '^[a-z_]+ [0-9]+$'
	# what left and reached eth0, to tell the wire's own drops
	echo "eth0_tx_packets $(cat /sys/class/net/eth0/statistics/tx_packets)"
	echo "eth0_rx_packets $(cat /sys/class/net/eth0/statistics/rx_packets)"
}

trap 'tc qdisc del dev eth0 root 2>/dev/null || true' EXIT
# shellcheck disable=SC2086 # NETEM is a list of arguments
tc qdisc add dev eth0 root netem $NETEM ||
	vt_skip "tc qdisc add netem failed (netem options not supported?)"
vt_log "netem on eth0: $(tc qdisc show dev eth0 | sed -n 1p)"
before=$(counters)

vt_barrier netem || vt_fail "peer did not set netem up"

out=$VROCE_JOB/$VT_NAME.out.$VROCE_ROLE
args=(-d "$DEV" -p "$PORT")
rc=0
if [ "$VROCE_ROLE" = a ]; then
	vt_run_timeout 220 "$BIN" "${args[@]}" >"$out" 2>&1 || rc=$?
else
	vt_run_timeout 220 "$BIN" "${args[@]}" -q 4 -n 12 -D 2 -s 262144 -t 14 -r 7 \
		"$VROCE_PEER_IP" >"$out" 2>&1 || rc=$?
fi
cat "$out" >&2
tc -s qdisc show dev eth0 >&2

# the counters' deltas, published for the peer
after=$(counters)
delta=$VROCE_JOB/$VT_NAME.delta.$VROCE_ROLE
join <(sort <<<"$before") <(sort <<<"$after") |
	awk '{ print $1, $3 - $2 }' >"$delta.tmp"
mv "$delta.tmp" "$delta"
vt_log "counter deltas ($VROCE_ROLE): $(grep -v ' 0$' "$delta" | tr '\n' ' ')"

if ! vt_barrier counted; then
	[ "$rc" -eq 0 ] || vt_fail "rc_integrity ($VROCE_ROLE) exit $rc: $(grep -m3 FAIL "$out" || tail -3 "$out")"
	vt_fail "peer did not finish"
fi
other=a
[ "$VROCE_ROLE" = a ] && other=b
sum=$(cat "$delta" "$VROCE_JOB/$VT_NAME.delta.$other" |
	awk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }' | sort)
vt_log "counter deltas, both devices: $(grep -v ' 0$' <<<"$sum" | tr '\n' ' ')"
# frames the peer's eth0 sent that never reached ours: lost between the
# VMs (the emulated wire, netem's corruption of Ethernet headers), beyond
# netem's own loss, which its qdisc counts on the sending side
val() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
vt_log "wire $other -> $VROCE_ROLE: $(val "$VROCE_JOB/$VT_NAME.delta.$other" eth0_tx_packets) frames sent, $(val "$delta" eth0_rx_packets) received"
[ "$rc" -eq 0 ] || vt_fail "rc_integrity ($VROCE_ROLE) exit $rc: $(grep -m3 FAIL "$out" || tail -3 "$out")"
grep -q "rc_integrity: PASS" "$out" || vt_fail "no PASS line from rc_integrity"

missing=
for c in $WANT; do
	v=$(awk -v k="$c" '$1 == k { print $2 }' <<<"$sum")
	[ "${v:-0}" -gt 0 ] || missing="$missing $c"
done
[ -z "$missing" ] || vt_fail "recovery counters that did not move:$missing"

vt_pass "$(grep "rc_integrity: PASS" "$out" | cut -d: -f2-); recovery: $(grep -E "^($(tr ' ' '|' <<<"$WANT")) " <<<"$sum" | tr '\n' ' ')"
