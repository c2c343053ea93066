#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# rdma_cm over a vroce device: connection management MADs travel on the
# kernel's GSI QP (QP1), then user QPs carry the data.  rping with data
# verification, ucmatose (RC) and udaddy (UD), server and client on one
# device.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

vt_load_vroce
modprobe rdma_ucm || vt_fail "modprobe rdma_ucm"
vt_link_add vroce0 eth0
ip4=$(vt_eth0_ipv4)

# cm NAME SERVER_CMD CLIENT_CMD: run a server in the background, then the
# client; both must succeed.  The client's output goes to the job
# directory whole, its error lines (stderr, unbuffered, which come before
# the buffered stdout in a merged capture) to the log.
cm() {
	local name=$1 srv_cmd=$2 cli_cmd=$3 out rc=0 err=$VROCE_JOB/$VT_NAME.$1.client.err
	bash -c "$srv_cmd" >"$VROCE_JOB/srv.$$" 2>&1 &
	local srv=$!
	sleep 2
	out=$(vt_run_timeout 120 bash -c "$cli_cmd" 2>"$err") || rc=$?
	printf '%s\n' "$out" >"$VROCE_JOB/$VT_NAME.$1.client.out"
	if [ "$rc" -ne 0 ]; then
		kill "$srv" 2>/dev/null
		vt_fail "$name client: exit status $rc, stderr: $(tail -5 "$err" | tr '\n' ' ')// stdout: $(tail -2 <<<"$out") // server: $(tail -5 "$VROCE_JOB/srv.$$")"
	fi
	vt_run_timeout 60 tail --pid="$srv" -f /dev/null ||
		vt_fail "$name: server did not finish"
	wait "$srv" || vt_fail "$name server: $(tail -5 "$VROCE_JOB/srv.$$")"
	vt_log "$name: $(tail -1 <<<"$out")"
}

cm rping "rping -s -a $ip4 -C 100 -v" "rping -c -a $ip4 -C 100 -v -V"
cm ucmatose "ucmatose -b $ip4" "ucmatose -s $ip4"
cm udaddy "udaddy -b $ip4" "udaddy -s $ip4"
rdma link delete vroce0
vt_pass "rping -C 100 with verification, ucmatose, udaddy over rdma_cm"
