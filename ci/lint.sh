#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks of the module: checkpatch --strict (from the unpacked
# linux-source that ci/setup.sh caches), then W=1 and sparse builds against
# both supported kernels.  Fails on any finding.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${VROCE_CACHE:-$HOME/.cache/vroce}
CHECKPATCH=$CACHE/linux-source-6.12/scripts/checkpatch.pl

cd "$SRC"
mapfile -t files < <(git ls-files 'drivers/*.c' 'drivers/*.h' 'uapi/*.h' \
	'userspace-tests/kmod/*.c' 'userspace-tests/cc-example/*.c' | grep -v '/trace\.h$')
"$CHECKPATCH" --strict --no-tree --quiet --show-types \
	--ignore SPDX_LICENSE_TAG -f "${files[@]}"
# Tracepoint headers: TRACE_EVENT()'s own layout (as in the kernel's).
mapfile -t files < <(git ls-files 'drivers/*/trace.h')
"$CHECKPATCH" --strict --no-tree --quiet --show-types \
	--ignore SPDX_LICENSE_TAG,PARENTHESIS_ALIGNMENT,OPEN_ENDED_LINE \
	-f "${files[@]}"

# shellcheck source=/dev/null
. "$CACHE/kernels.env"
for k in "$VROCE_K61" "$VROCE_K612"; do
	rm -rf "build/$k"
	log=$(make --no-print-directory modules KDIR="/usr/src/linux-headers-$k" \
		W=1 C=1 2>&1)
	if echo "$log" | grep -E 'warning:|error:|: (sparse: )?(warning|error)'; then
		echo "lint: $k: compiler or sparse findings" >&2
		exit 1
	fi
done
echo "lint: clean"
