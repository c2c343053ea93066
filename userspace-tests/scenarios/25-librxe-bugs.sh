#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 180
#
# The three bugs of Debian 12's librxe (rdma-core v44) driven through
# librxe's own extended verbs (userspace-tests/verbs/librxe_bugs.c, whose
# header says what each bug does and what counts as correct):
# ibv_wr_set_sge_list() storing a wrong total length (SEND, RDMA WRITE,
# RDMA READ; shorter, longer, zero and 32-bit-wrapped totals),
# ibv_wr_set_inline_data_list() overrunning its slot into the next slots,
# also onto WQEs still pending on RNR, and the extended CQ poll moving the
# consumer index past a CQE and past the producer.  Each WR must end in an
# error completion or in a success carrying exactly what its WQE
# describes; no byte outside that (canaries around and inside the MRs)
# may change; the CQ the process made full must raise IBV_EVENT_CQ_ERR
# without a write; a well-formed SEND after every case delivers its
# bytes; no kernel splat (the runner checks); `rdma resource show` comes
# back to where it started.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

bin=$VROCE_SRC/userspace-tests/bin/librxe_bugs
[ -x "$bin" ] || vt_skip "$bin not built (make -C userspace-tests tests)"

vt_vroce0_up

base=$(rdma resource show vroce0)
vt_log "resources before: $base"
out=$VROCE_JOB/$VT_NAME.out
vt_run_timeout 150 "$bin" -d vroce0 -v >"$out" 2>&1
rc=$?
cat "$out" >&2
[ "$rc" = 124 ] && vt_fail "librxe_bugs timed out: last line: $(tail -n 1 "$out")"
if [ "$rc" != 0 ]; then
	vt_fail "exit $rc, $(grep -c '^FAIL' "$out") failed: $(grep '^FAIL' "$out" | head -n 6 | cut -c1-200 | paste -sd '|')"
fi
# a librxe without the bugs (not v44) still passes, but say so
missing=
for bug in sge_list inline_list cq_poll; do
	grep -Eq "^$bug: .*bug reproduced [1-9]" "$out" || missing+=" $bug"
done
[ -z "$missing" ] || vt_log "librxe did not show the bug of:$missing"
vt_wait_for "[ \"\$(rdma resource show vroce0)\" = \"$base\" ]" 30 ||
	vt_fail "resources not back: '$(rdma resource show vroce0)', want '$base'"
[ "$(vt_port_state vroce0)" = ACTIVE ] || vt_fail "port $(vt_port_state vroce0)"
rdma link delete vroce0 || vt_fail "rdma link delete"
rmmod vroce || vt_fail "rmmod vroce"
vt_pass "$(grep -E '^(sge_list|inline_list|cq_poll|controls):' "$out" | paste -sd ';')${missing:+; bugs not shown by this librxe:$missing}"
