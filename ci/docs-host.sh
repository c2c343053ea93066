#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ci/docs-host.sh: the documentation's host commands run as written (issue
# 13): every block of README.md and Documentation/*.md marked
# "<!-- test: host -->" (ci/docs-blocks.sh), each with bash from the
# repository's top directory, stopping at its first failing command; then
# ci/demo.sh, what README's `make demo` runs after the set-up and build
# this script's caller has done.  The blocks boot VMs with ci/vroce-vm
# (they are the vroce-vm guide's examples), so make check runs this
# before its VM lanes start.  Prints "docs-host: N blocks passed" or the
# failing block's place and output, and exits non-zero.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/vroce-docs.XXXXXX")
trap 'rm -rf "$out"' EXIT
cd "$SRC"
"$SRC/ci/docs-blocks.sh" "$out" README.md Documentation/*.md
n=0
for b in "$out"/*.host.sh; do
	[ -f "$b" ] || continue
	where=$(sed -n '1s/^# //p' "$b")
	echo "docs-host: $where"
	if ! bash -e "$b" >"$b.out" 2>&1; then
		sed 's/^/    /' "$b.out" >&2
		echo "docs-host: FAIL $where" >&2
		exit 1
	fi
	n=$((n + 1))
done
echo "docs-host: README's make demo (ci/demo.sh)"
if ! "$SRC/ci/demo.sh" >"$out/demo.out" 2>&1; then
	sed 's/^/    /' "$out/demo.out" >&2
	echo "docs-host: FAIL ci/demo.sh" >&2
	exit 1
fi
[ "$n" -ge 4 ] || { echo "docs-host: only $n host blocks: the extraction lost some" >&2; exit 1; }
echo "docs-host: $n blocks and the demo passed"
