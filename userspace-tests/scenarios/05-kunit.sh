#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# KUnit suites of the driver's pure logic (drivers/vroce/tests/: PSN
# arithmetic, header accessors, the opcode table, encode/decode round trips,
# the ICRC against captured packets, ring index arithmetic with hostile user
# indices, the QP state transition table, the DCQCN and TIMELY step
# functions, the bounded wait for released references, the RTT/RTO
# estimator).  Loading vroce_test.ko runs them; the KTAP results are read
# from debugfs (kunit/<suite>/results), or from the kernel log where KUnit
# has no debugfs, and copied to the job directory (05-kunit.ktap).  Fails
# on any "not ok"; a KASAN, UBSAN or lockdep report fails it through the
# runner's kernel-log check.  Needs a kernel with CONFIG_KUNIT
# (ci/debug-kernel.sh, run-tests.sh --kernels debug): skipped on the Debian
# kernels, which have none.
# timeout: 300
# debug: yes
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

[ -d /sys/module/kunit ] ||
	vt_skip "kernel $(uname -r) has no KUnit (CONFIG_KUNIT); use --kernels debug"
ko=$(dirname "${VROCE_KO:-?}")/vroce_test.ko
[ -f "$ko" ] || vt_fail "no $ko: build with make modules KDIR=<debug kernel tree>"
grep -q '^vroce_test ' /proc/modules && vt_fail "vroce_test already loaded"

kdir=/sys/kernel/debug/kunit
ktap=$VROCE_JOB/$VT_NAME.ktap
before=$(ls "$kdir" 2>/dev/null || true)
# The ring code and the QP state table tests use ib_core.
modprobe ib_core || vt_fail "modprobe ib_core"
vt_klog_mark
# The suites run inside insmod (module load notifier): when it returns,
# the results are complete.
vt_run_timeout 240 insmod "$ko" || vt_fail "insmod vroce_test.ko"

suites=()
if [ -d "$kdir" ]; then
	for d in "$kdir"/vroce_*; do
		[ -f "$d/results" ] || continue
		grep -qx "$(basename "$d")" <<<"$before" && continue
		suites+=("$(basename "$d")")
		cat "$d/results"
	done >"$ktap"
else
	vt_log "no $kdir (CONFIG_KUNIT_DEBUGFS): reading the kernel log"
	vt_klog_since_mark | sed 's/^\[[^]]*\] //' >"$ktap"
	mapfile -t suites < <(sed -n 's/^ *# Subtest: \(vroce_[a-z0-9_]*\)$/\1/p' "$ktap")
fi
rmmod vroce_test || vt_fail "rmmod vroce_test"

[ "${#suites[@]}" -gt 0 ] || vt_fail "no vroce_* KUnit suite ran"
# Every suite in drivers/vroce/tests/ (grep -h '\.name = "vroce_' there):
# one that stops running fails here.
for s in vroce_hdr vroce_opcode vroce_icrc vroce_queue vroce_qp_state vroce_dcqcn \
	vroce_release vroce_rtt vroce_tbf vroce_pfc vroce_timely; do
	grep -qE "^ *ok [0-9]+ $s\$" "$ktap" ||
		vt_fail "suite $s did not pass: $(grep -E "^ *(not )?ok [0-9]+ $s" "$ktap" || echo missing)"
done
if grep -qE '^ *not ok ' "$ktap"; then
	grep -E -B 8 '^ *not ok ' "$ktap" >&2
	vt_fail "failed KUnit tests: $(grep -cE '^ *not ok ' "$ktap") (see $VT_NAME.ktap)"
fi

pass=$(grep -cE '^ *ok [0-9]+ ' "$ktap" || true)
skip=$(grep -cE '^ *ok [0-9]+ .*# SKIP' "$ktap" || true)
vt_pass "${#suites[@]} suites (${suites[*]}), $pass ok lines (cases, parameters and suites), $skip skipped"
