#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
# debug: yes
#
# A process treats its mapped SQ/RQ/SRQ/CQ rings as an attacker would
# (userspace-tests/verbs/hostile_rings.c): garbage indices and geometry,
# huge num_sge, overlapping / foreign / random keys, kernel-only opcodes,
# random bytes in every slot, doorbells with and without work requests,
# resizes, a thread scribbling while the kernel works, exit / SIGKILL /
# fork with everything open; first targeted attacks, then 30 s of random
# ones.  The kernel must not splat (the runner checks the log), must not
# hang, a well-behaved process must still work, and `rdma resource show`
# must come back to where it started.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

bin=$VROCE_SRC/userspace-tests/bin/hostile_rings
[ -x "$bin" ] || vt_skip "$bin not built (make -C userspace-tests tests)"

vt_vroce0_up

base=$(rdma resource show vroce0)
vt_log "resources before: $base"
vt_run_timeout 840 "$bin" -d vroce0 -t "${VT_HOSTILE_SECS:-30}" -v >out.txt 2>&1
rc=$?
cat out.txt >&2
[ "$rc" = 124 ] && vt_fail "hostile_rings timed out: last line: $(tail -n 1 out.txt)"
if [ "$rc" != 0 ]; then
	vt_fail "exit $rc, $(grep -c '^FAIL' out.txt) failed: $(grep '^FAIL' out.txt | sed -n 1,8p | cut -c1-160 | paste -sd '|')"
fi
vt_wait_for "[ \"\$(rdma resource show vroce0)\" = \"$base\" ]" 30 ||
	vt_fail "resources not back: '$(rdma resource show vroce0)', want '$base'"
[ "$(vt_port_state vroce0)" = ACTIVE ] || vt_fail "port $(vt_port_state vroce0)"
rdma link delete vroce0 || vt_fail "rdma link delete"
rmmod vroce || vt_fail "rmmod vroce after the attacks"
vt_pass "$(grep '^ok   hostile.fuzz' out.txt | cut -c6-120); $(tail -n 1 out.txt)"
