#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# topology: pair
# timeout: 240
# debug: yes
#
# Retry exhaustion when the link is cut: rc_integrity -L runs a short
# healthy phase between VM b (client) and VM a (server), then keeps RDMA
# WRITEs in flight on every QP while VM a takes eth0 down.  Every client QP
# must end with IBV_WC_RETRY_EXC_ERR within (retry_cnt + 1) * timeout plus
# slack of its last successful completion (and no sooner than retry_cnt
# timeouts), and be in the ERR state; the client's local_ack_timeout_err
# must count the retries.  VM a brings the link back up at the end.
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

BIN=$VROCE_SRC/userspace-tests/bin/rc_integrity
DEV=dev0
PORT=19876
QPS=2
# perftest's defaults: 4.096 us * 2^14 = 67 ms, which vroce raises to its
# floor of 100 ms per try; seven retries ride out the lossy emulated wire
# in the healthy phase
TIMEOUT=14
RETRY=7
READY=$VROCE_JOB/$VT_NAME.ready
DONE=$VROCE_JOB/$VT_NAME.done

[ -x "$BIN" ] || vt_skip "$BIN not built (make -C userspace-tests tests)"

# nothing of an earlier scenario may still shape the wire
tc qdisc del dev eth0 root 2>/dev/null || true
ip link set eth0 up
vt_load_vroce
vt_link_add "$DEV" eth0
vt_wait_for "[ \"\$(vt_port_state $DEV)\" = ACTIVE ]" 30 ||
	vt_fail "$DEV port not ACTIVE: $(vt_port_state "$DEV")"

# counter NAME: one hw counter of the device.
counter() {
	rdma statistic show link "$DEV/1" | tr ' ' '\n' |
		awk -v k="$1" 'f && !done { print; done = 1 } $0 == k { f = 1 }'
}

vt_barrier up || vt_fail "peer did not come up"
out=$VROCE_JOB/$VT_NAME.out.$VROCE_ROLE

if [ "$VROCE_ROLE" = a ]; then
	trap 'ip link set eth0 up' EXIT
	"$BIN" -d "$DEV" -p "$PORT" >"$out" 2>&1 &
	pid=$!
	vt_wait_for "[ -e $READY ] || [ -e $DONE ] || ! kill -0 $pid" 150 ||
		vt_fail "the client never reached the cut"
	[ -e "$READY" ] || vt_fail "no cue to cut: $(cat "$out" "$out.b" 2>/dev/null | grep FAIL | sed -n 1,3p)"
	ip link set eth0 down
	vt_log "eth0 down (link cut)"
	vt_wait_for "[ -e $DONE ]" 150 || vt_fail "the client did not finish"
	ip link set eth0 up
	vt_log "eth0 up again"
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	cat "$out" >&2
	grep -q "rc_integrity: PASS (server)" "$out" ||
		vt_fail "server's healthy phase: $(grep -m3 FAIL "$out" || tail -3 "$out")"
	vt_wait_for "[ \"\$(vt_port_state $DEV)\" = ACTIVE ]" 30 ||
		vt_fail "$DEV port not ACTIVE after the link came back"
	vt_barrier end || vt_fail "client did not finish"
	vt_pass "link cut and restored; see the client for the timing"
fi

t0=$(counter local_ack_timeout_err)
rc=0
vt_run_timeout 200 "$BIN" -d "$DEV" -p "$PORT" -q "$QPS" -n 3 -s 65536 \
	-t "$TIMEOUT" -r "$RETRY" -L -R "$READY" -W 120 "$VROCE_PEER_IP" \
	>"$out" 2>&1 || rc=$?
: >"$DONE"
cat "$out" >&2
t1=$(counter local_ack_timeout_err)
vt_log "local_ack_timeout_err: $t0 -> $t1"
vt_barrier end || true
[ "$rc" -eq 0 ] || vt_fail "rc_integrity -L exit $rc: $(grep -m3 FAIL "$out" || tail -3 "$out")"
grep -q "link-cut: PASS" "$out" || vt_fail "no link-cut PASS line"
[ $((t1 - t0)) -ge $((QPS * RETRY)) ] ||
	vt_fail "local_ack_timeout_err moved by $((t1 - t0)), want >= $((QPS * RETRY))"
vt_pass "$(grep -E '^ok +qp' "$out" | sed 's/^ok *//' | tr '\n' ';') local_ack_timeout_err +$((t1 - t0))"
