#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1200
# debug: yes
#
# Four processes each create and destroy 1000 rounds (400 on the debug
# kernel) of PD, CQ, MR, SRQ, AH, MW and QP (some in RTS with work
# posted) plus a burst of 64 of each held at once, while three more die
# holding objects: SIGKILL, exit(), and ibv_close_device
# (userspace-tests/verbs/stress_objects.c).  Afterwards
# `rdma resource show` is back to its starting counts, the module
# reference count is back to its value before, and rmmod works.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

bin=$VROCE_SRC/userspace-tests/bin/stress_objects
[ -x "$bin" ] || vt_skip "$bin not built (make -C userspace-tests tests)"

vt_vroce0_up

base=$(rdma resource show vroce0)
ref0=$(vt_refcnt)
vt_log "before: $base; refcnt $ref0"
# The debug kernel (VROCE_TIME_SCALE > 1) runs 400 rounds a process:
# KASAN, lockdep and kmemleak see a round's bugs in its first hundred, and
# 1,000 took 133 s there; the Debian kernels run all 1,000.
iters=1000
[ "${VROCE_TIME_SCALE:-1}" -le 1 ] || iters=400
vt_run_timeout 1100 "$bin" -d vroce0 -p "${VT_STRESS_PROCS:-4}" \
	-n "${VT_STRESS_ITERS:-$iters}" -b 64 -v >out.txt 2>&1
rc=$?
cat out.txt >&2
[ "$rc" = 124 ] && vt_fail "stress_objects timed out: last line: $(tail -n 1 out.txt)"
if [ "$rc" != 0 ]; then
	vt_fail "exit $rc: $(grep '^FAIL' out.txt | sed -n 1,8p | cut -c1-160 | paste -sd '|')"
fi
vt_wait_for "[ \"\$(rdma resource show vroce0)\" = \"$base\" ]" 30 ||
	vt_fail "resources not back: '$(rdma resource show vroce0)', want '$base'"
for t in qp cq mr pd; do
	n=$(rdma resource show "$t" dev vroce0 2>/dev/null | grep -c .)
	vt_log "rdma resource show $t: $n"
done
vt_wait_for "[ \"\$(vt_refcnt)\" = \"$ref0\" ]" 10 ||
	vt_fail "module refcnt $(vt_refcnt), was $ref0 before"
rdma link delete vroce0 || vt_fail "rdma link delete"
vt_wait_for "[ \"\$(vt_refcnt)\" = 0 ]" 10 || vt_fail "refcnt $(vt_refcnt) after link delete"
rmmod vroce || vt_fail "rmmod vroce"
vt_pass "$(grep -c '^ok   stress.worker' out.txt) workers ok, 3 victims cleaned up; resources '$base', refcnt $ref0 -> 0, rmmod ok"
