#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ci/check.sh: what `make check` does, part by part, each part timed: the
# set-up, the harness's own self-test (its kernel-log patterns), the module
# for both kernels, the congestion-control model's tests, the user-space
# tests, the documentation's host commands (ci/docs-host.sh), the debug kernel (ci/debug-kernel.sh, cached) with the module and
# vroce_ktest.ko built against it, then every scenario on both Debian
# kernels and the robustness set ("# debug: yes") on the debug kernel
# (ci/run-tests.sh, which prints the parts' times before its last line
# "N passed, N failed, N skipped").  VROCE_CHECK_DEBUG=0 leaves the debug
# kernel out (a quicker local run; CI always has it).
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VROCE_CHECK_START=$(date +%s)
VROCE_TIMES_FILE=$(mktemp "${TMPDIR:-/tmp}/vroce-times.XXXXXX")
export VROCE_CHECK_START VROCE_TIMES_FILE
trap 'rm -f "$VROCE_TIMES_FILE"' EXIT

# part NAME CMD...: run CMD, record how long it took.
part() {
	local name=$1 start=$SECONDS
	shift
	"$@"
	printf '%-28s %5s s\n' "$name" "$((SECONDS - start))" >>"$VROCE_TIMES_FILE"
}

part "set-up" "$SRC/ci/setup.sh"
part "harness self-test" "$SRC/ci/vm/selftest.sh"
part "module, both kernels" make --no-print-directory -C "$SRC" modules-all
part "cc-model tests" make --no-print-directory -C "$SRC/userspace-tests/cc-model" check
part "user-space tests build" make --no-print-directory -C "$SRC/userspace-tests" tests
# The documentation's host commands (vroce-vm's examples, make demo): VMs of
# their own, so before the lanes start.
part "docs test (host)" "$SRC/ci/docs-host.sh"
kernels="6.1 6.12"
if [ "${VROCE_CHECK_DEBUG:-1}" != 0 ]; then
	# Built once per configuration and cached (a fresh machine pays
	# 10-15 minutes); the module and vroce_ktest.ko against its tree.
	part "debug kernel" "$SRC/ci/debug-kernel.sh"
	kdbg=$("$SRC/ci/debug-kernel.sh" --print-kdir)
	part "module, debug kernel" make --no-print-directory -C "$SRC" \
		modules KDIR="$kdbg"
	part "kernel test module, debug" make --no-print-directory \
		-C "$SRC/userspace-tests" kmod KDIRS="$kdbg"
	kernels="$kernels debug"
fi
"$SRC/ci/run-tests.sh" --kernels "$kernels" --debug-set "$@"
