#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: boot a disposable VM on the 6.12 kernel with the freshly built
# vroce.ko, create a device on eth0 and run real verbs programs on it
# (userspace-tests/demo.sh), printing their output here.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${VROCE_CACHE:-$HOME/.cache/vroce}
# shellcheck source=/dev/null
. "$CACHE/kernels.env"
KERNEL=${VROCE_DEMO_KERNEL:-6.12}
case $KERNEL in
6.1) abi=$VROCE_K61 ;;
6.12) abi=$VROCE_K612 ;;
*) abi=$KERNEL ;;
esac

exec "$SRC/ci/vroce-vm" --kernel "$KERNEL" --no-device \
	--module "$SRC/build/$abi/vroce.ko" -- \
	"$SRC/userspace-tests/demo.sh"
