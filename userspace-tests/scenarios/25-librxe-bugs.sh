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
# back to where it started.  Each bug must have been triggered: librxe
# must have written the v44 WQE or moved the consumer index the v44 way
# in every case (the program fails a case where it did not, and the
# tallies must show every WR of every bug reproduced and ended in a
# success or an error completion); a librxe other than v44 skips.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

bin=$VROCE_SRC/userspace-tests/bin/librxe_bugs
[ -x "$bin" ] || vt_skip "$bin not built (make -C userspace-tests tests)"
# the bugs driven here are those of rdma-core v44's librxe (Debian 12)
ver=$(dpkg-query -W -f='${Version}' ibverbs-providers 2>/dev/null)
case $ver in
44.*) ;;
*) vt_skip "librxe from ibverbs-providers '$ver', not v44: its bugs are not the ones this drives" ;;
esac

vt_vroce0_up

base=$(rdma resource show vroce0)
vt_log "resources before: $base"
out=$VROCE_JOB/$VT_NAME.out
vt_run_timeout 150 "$bin" -d vroce0 -v >"$out" 2>&1
rc=$?
cat "$out" >&2
[ "$rc" = 124 ] && vt_fail "librxe_bugs timed out: last line: $(tail -n 1 "$out")"
if [ "$rc" != 0 ]; then
	vt_fail "exit $rc, $(grep -c '^FAIL' "$out") failed: $(grep '^FAIL' "$out" | sed -n 1,6p | cut -c1-200 | paste -sd '|')"
fi
# tally BUG: the program's closing line for BUG
tally() { grep -m1 "^$1: " "$out"; }
# triggered and contained: every WR reproduced the bug, and each ended in
# a verified success or a verified error completion (the program printed
# FAIL otherwise, checked above)
re='^([a-z_]+): ([0-9]+) WRs, ([0-9]+) success, ([0-9]+) error, bug reproduced ([0-9]+)'
for bug in "sge_list 12" "inline_list 4"; do
	read -r name want <<<"$bug"
	line=$(tally "$name")
	[[ $line =~ $re ]] || vt_fail "$name: tally line '$line'"
	wrs=${BASH_REMATCH[2]} ok=${BASH_REMATCH[3]} err=${BASH_REMATCH[4]}
	rep=${BASH_REMATCH[5]}
	[ "$wrs" = "$want" ] || vt_fail "$name: $wrs WRs, want $want: '$line'"
	[ "$rep" = "$wrs" ] ||
		vt_fail "$name: the bug triggered in $rep of $wrs WRs: '$line'"
	[ $((ok + err)) = "$wrs" ] ||
		vt_fail "$name: $ok success + $err error of $wrs WRs: '$line'"
done
line=$(tally cq_poll)
re='carried on ([0-9]+), .* IBV_EVENT_CQ_ERR ([0-9]+), bug reproduced ([0-9]+)$'
[[ $line =~ $re ]] || vt_fail "cq_poll: tally line '$line'"
[ "${BASH_REMATCH[1]}/${BASH_REMATCH[2]}/${BASH_REMATCH[3]}" = 1/1/2 ] ||
	vt_fail "cq_poll: want the skipped CQE carried on 1, the overrun answered by CQ_ERR 1, the bug reproduced 2: '$line'"
vt_wait_for "[ \"\$(rdma resource show vroce0)\" = \"$base\" ]" 30 ||
	vt_fail "resources not back: '$(rdma resource show vroce0)', want '$base'"
[ "$(vt_port_state vroce0)" = ACTIVE ] || vt_fail "port $(vt_port_state vroce0)"
rdma link delete vroce0 || vt_fail "rdma link delete"
rmmod vroce || vt_fail "rmmod vroce"
vt_pass "$(grep -E '^(sge_list|inline_list|cq_poll|controls):' "$out" | paste -sd ';')"
