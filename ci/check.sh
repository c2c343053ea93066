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

# install_staged: make install into a staging directory, as a packager
# does, and check that the module, vroce-vm (with the vroce.ko files it
# boots), vroce-up, the man page and the systemd unit are there and that
# the installed vroce-vm runs.
install_staged() {
	local d f
	d=$(mktemp -d "${TMPDIR:-/tmp}/vroce-install.XXXXXX")
	if ! make --no-print-directory -C "$SRC" install DESTDIR="$d" PREFIX=/usr \
		>"$d.log" 2>&1; then
		tail -20 "$d.log" >&2
		return 1
	fi
	for f in usr/bin/vroce-vm usr/bin/vroce-up usr/share/man/man1/vroce-vm.1 \
		usr/lib/systemd/system/vroce-up@.service usr/lib/vroce/ci/guest/stage2.sh; do
		[ -e "$d/$f" ] || { echo "make install: no $f" >&2; return 1; }
	done
	compgen -G "$d/lib/modules/*/extra/vroce.ko*" >/dev/null ||
		{ echo "make install: no lib/modules/*/extra/vroce.ko" >&2; return 1; }
	compgen -G "$d/usr/lib/vroce/build/*/vroce.ko" >/dev/null ||
		{ echo "make install: vroce-vm has no vroce.ko" >&2; return 1; }
	"$d/usr/bin/vroce-vm" --help | grep -q -- '--hosts' ||
		{ echo "make install: the installed vroce-vm does not run" >&2; return 1; }
	rm -rf "$d" "$d.log"
}

part "set-up" "$SRC/ci/setup.sh"
part "harness self-test" "$SRC/ci/vm/selftest.sh"
part "module, both kernels" make --no-print-directory -C "$SRC" modules-all
part "cc-model tests" make --no-print-directory -C "$SRC/userspace-tests/cc-model" check
part "user-space tests build" make --no-print-directory -C "$SRC/userspace-tests" tests
part "make install (staged)" install_staged
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
