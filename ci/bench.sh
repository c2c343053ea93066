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
# VROCE_BENCH_REPS (passed on).
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${VROCE_CACHE:-$HOME/.cache/vroce}
KERNEL=${VROCE_BENCH_KERNEL:-6.12}
report=$CACHE/bench/$(date +%Y%m%d-%H%M%S)-$KERNEL.txt
mkdir -p "$CACHE/bench"

env=''
[ -z "${VROCE_BENCH_REPS:-}" ] || env="VROCE_BENCH_REPS=$VROCE_BENCH_REPS "
# a vroce hang or failure makes bench.sh exit 1: say so and pass it on
rc=0
"$SRC/ci/vroce-vm" --kernel "$KERNEL" --timeout 3600 -- \
	"${env}$SRC/userspace-tests/bench.sh" | tee "$report" || rc=$?
echo "report: $report"
[ "$rc" -eq 0 ] || echo "make bench: FAILED (exit status $rc), see the report" >&2
exit "$rc"
