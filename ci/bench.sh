#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: boot one VM and measure vroce against rdma_rxe in that boot
# (userspace-tests/bench.sh: loopback bandwidth, small-message rate and
# latency, interleaved repetitions, medians, ratios).  Not part of make
# check: the numbers are reported, never asserted.  The report is also kept
# in $CACHE/bench/.
#
# Environment: VROCE_BENCH_KERNEL (6.12 by default, or 6.1),
# VROCE_BENCH_REPS (passed on), VROCE_BENCH_BASE (git revisions, space-
# separated: each one's vroce.ko is built in $CACHE/bench/base-<commit> and
# measured in the same boot as driver "base1", "base2", ..., for a
# before/after of a change, or to find where between commits a cost came;
# REV:NAME=VALUE,... loads that one with module parameters, e.g.
# "HEAD:tx_flow_cpu=2" for the cost of a setting).
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${VROCE_CACHE:-$HOME/.cache/vroce}
KERNEL=${VROCE_BENCH_KERNEL:-6.12}
report=$CACHE/bench/$(date +%Y%m%d-%H%M%S)-$KERNEL.txt
mkdir -p "$CACHE/bench"

env=''
[ -z "${VROCE_BENCH_REPS:-}" ] || env="VROCE_BENCH_REPS=$VROCE_BENCH_REPS "
if [ -n "${VROCE_BENCH_BASE:-}" ]; then
	. "$CACHE/kernels.env"
	case $KERNEL in
	6.1) rel=$VROCE_K61 ;;
	6.12) rel=$VROCE_K612 ;;
	*) echo "bench: VROCE_BENCH_BASE needs VROCE_BENCH_KERNEL 6.1 or 6.12" >&2; exit 2 ;;
	esac
	kos=
	for item in $VROCE_BENCH_BASE; do
		rev=${item%%:*} params=
		[ "$rev" = "$item" ] || params=:${item#*:}
		commit=$(git -C "$SRC" rev-parse --verify "$rev^{commit}")
		base=$CACHE/bench/base-$commit
		if [ ! -f "$base/build/$rel/vroce.ko" ]; then
			echo "bench: building vroce.ko of $rev ($commit) for $rel"
			rm -rf "$base" && mkdir -p "$base"
			git -C "$SRC" archive "$commit" | tar -x -C "$base"
			make -C "$base" --no-print-directory modules \
				KDIR="/usr/src/linux-headers-$rel" >"$base.log" 2>&1 ||
				{ tail -20 "$base.log" >&2; exit 1; }
		fi
		kos="$kos${kos:+ }$base/build/$rel/vroce.ko$params"
	done
	env="${env}VROCE_KO_BASE='$kos' "
fi
# a vroce hang or failure makes bench.sh exit 1: say so and pass it on
rc=0
"$SRC/ci/vroce-vm" --kernel "$KERNEL" --no-device --timeout 3600 -- \
	"${env}$SRC/userspace-tests/bench.sh" | tee "$report" || rc=$?
echo "report: $report"
[ "$rc" -eq 0 ] || echo "make bench: FAILED (exit status $rc), see the report" >&2
exit "$rc"
