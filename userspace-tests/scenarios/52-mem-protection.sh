#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# debug: yes
#
# Memory protection between processes (userspace-tests/verbs/mem_protect.c):
# a victim process and an attacker process on one vroce device (loopback
# on eth0).  The victim publishes every key it has; the attacker tries
# them all where they must not work, each on a freshly connected RC QP
# pair, with RDMA READ, WRITE, CMP_SWAP and FETCH_ADD:
#   - an MR without remote access, MRs without the right one;
#   - out-of-bounds addresses and lengths: before, across and past the
#     MR's ends (the bytes around it are the victim's too), address 0,
#     +2^63, longer than the MR, addr+len wrapping past 2^64 (also on an
#     MR registered at iova 2^64-4096);
#   - memory windows beyond their rights or range, a type 2 window on a
#     QP other than the one it is bound to; a type 1 window after a
#     zero-length bind (old and new key) and after dealloc, a type 2
#     window after LOCAL_INV and after dealloc; a deregistered MR;
#   - the victim's valid keys on the attacker's own QPs (another PD), the
#     attacker's key on the victim's QP;
#   - a valid key on a victim QP whose qp_access_flags grant nothing;
#   - guessing: every other 8-bit variant of a valid key, variants of
#     neighbouring key indices, random keys.
# Every attack must complete with IBV_WC_REM_ACCESS_ERR (the QP without
# rights may answer REM_INV_REQ_ERR instead) and bring no byte into the
# attacker's buffer; afterwards every byte of the victim is unchanged.
# Positive controls (valid keys at the exact bounds, each window before
# its revocation, FETCH_ADD 0 / failing CMP_SWAP returning the secret, a
# WRITE into a public MR) must succeed with verified bytes, so the test
# does see data when access is allowed.  The device's
# resp_remote_access_errors counter must count the rejected requests.
# Not covered: zero-based windows (librxe refuses IBV_ACCESS_ZERO_BASED
# binds) and fast-reg MRs (REG_MR is kernel-only); SEND_WITH_INV of the
# victim's keys is a right of the connected peer, not an attack.
set -uo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

bin=$VROCE_SRC/userspace-tests/bin/mem_protect
[ -x "$bin" ] || vt_skip "$bin not built (make -C userspace-tests tests)"

vt_vroce0_up
vt_wait_for "[ \"\$(vt_port_state vroce0)\" = ACTIVE ]" 30 ||
	vt_fail "vroce0 port not ACTIVE: $(vt_port_state vroce0)"

# counter NAME: one hw counter of vroce0 port 1.
counter() {
	rdma statistic show link vroce0/1 | tr ' ' '\n' |
		awk -v n="$1" 'k && !done { print; done = 1 } $0 == n { k = 1 }'
}
base=$(rdma resource show vroce0)
acc0=$(counter resp_remote_access_errors)
[ -n "$acc0" ] || vt_fail "no resp_remote_access_errors counter"

out=$VROCE_JOB/$VT_NAME.out
vt_run_timeout 240 "$bin" -d vroce0 >"$out" 2>&1
rc=$?
cat "$out" >&2
[ "$rc" = 124 ] && vt_fail "mem_protect timed out: last line: $(tail -n 1 "$out")"
line=$(grep '^mem_protect: [0-9]* attacks' "$out")
if [ "$rc" != 0 ]; then
	vt_fail "exit $rc: ${line:-no summary}; $(grep '^FAIL' "$out" | sed -n 1,6p | cut -c1-200 | paste -sd '|')"
fi
read -r attacks rejected leaks < <(sed -n \
	's/^mem_protect: \([0-9]*\) attacks, \([0-9]*\) REM_ACCESS_ERR, \([0-9]*\) data leaks.*/\1 \2 \3/p' \
	<<<"$line")
[ -n "${attacks:-}" ] || vt_fail "no summary line"
inv=$(sed -n 's/.*(\([0-9]*\) REM_INV_REQ_ERR.*/\1/p' <<<"$line")
[ "$leaks" = 0 ] || vt_fail "$leaks data leaks: $line"
[ "$((rejected + inv))" = "$attacks" ] ||
	vt_fail "only $rejected + $inv of $attacks attacks rejected: $line"
[ "$attacks" -ge 400 ] || vt_fail "only $attacks attacks ran"
grep -q '^ok   victim.memory' "$out" || vt_fail "the victim did not check its memory"

# Every REM_ACCESS_ERR the attacker saw is a request vroce refused.
acc1=$(counter resp_remote_access_errors)
[ "$((acc1 - acc0))" -ge "$rejected" ] ||
	vt_fail "resp_remote_access_errors moved by $((acc1 - acc0)), want >= $rejected"

vt_wait_for "[ \"\$(rdma resource show vroce0)\" = \"$base\" ]" 30 ||
	vt_fail "resources not back: '$(rdma resource show vroce0)', want '$base'"
vt_pass "$line; resp_remote_access_errors +$((acc1 - acc0))"
