#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Idempotent set-up for building and testing vroce on Debian 12.
#
# Installs every Debian package the build and the QEMU harness need and
# caches the two test kernels (newest 6.1 and 6.12 from the registry)
# outside the repository, in $VROCE_CACHE (default ~/.cache/vroce).
# A second run with everything present only re-resolves package names.
#
# Prints nothing but progress; exits non-zero on any failure.
# --kernels-only: only the kernels, nothing installed (what ci/vroce-vm
# runs on its first use; works as a normal user).
set -euo pipefail

kernels_only=0
[ "${1:-}" != --kernels-only ] || kernels_only=1

CACHE=${VROCE_CACHE:-$HOME/.cache/vroce}
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

log() { echo "setup: $*" >&2; }

# Newest package matching a regex; the security suite moves the ABI number.
newest() {
	apt-cache search --names-only "$1" | awk '{print $1}' | sort -V | tail -1
}

TOOLS="qemu-system-x86 busybox-static rdma-core ibverbs-utils perftest
rdmacm-utils libibverbs-dev librdmacm-dev ibverbs-providers iproute2 tshark
kmod cpio xz-utils zstd sparse bc bison flex libelf-dev libssl-dev
dwarves rsync ethtool ucx-utils openmpi-bin libopenmpi-dev libfabric-bin
qperf"

missing_pkgs() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep '^install ok installed' >/dev/null || echo "$p"
	done
}

resolve_kernels() {
	K61_IMG=$(newest '^linux-image-6\.1\.0-[0-9]+-amd64$')
	K612_IMG=$(newest '^linux-image-6\.12\.[0-9]+\+deb12-amd64$')
	if [ -z "$K61_IMG" ] || [ -z "$K612_IMG" ]; then
		log "apt lists stale, updating"
		$SUDO apt-get update -qq
		K61_IMG=$(newest '^linux-image-6\.1\.0-[0-9]+-amd64$')
		K612_IMG=$(newest '^linux-image-6\.12\.[0-9]+\+deb12-amd64$')
	fi
	K61=${K61_IMG#linux-image-}
	K612=${K612_IMG#linux-image-}
}

resolve_kernels
if [ -z "$K61" ] || [ -z "$K612" ]; then
	log "no linux-image-6.1/6.12 in the apt lists (apt-get update)"
	exit 1
fi
need=
# shellcheck disable=SC2086
[ "$kernels_only" = 1 ] || need=$(missing_pkgs $TOOLS "linux-headers-$K61" "linux-headers-$K612" \
	linux-source-6.12)
if [ -n "$need" ]; then
	log "installing:" $need
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null ||
		{ $SUDO apt-get update -qq &&
		  $SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null; }
fi

# Kernel images (and their modules) are unpacked, not installed: the host
# runs its own kernel, the VM boots these.
mkdir -p "$CACHE/kernels"
for abi in "$K61" "$K612"; do
	dir="$CACHE/kernels/$abi"
	[ -f "$dir/.done" ] && continue
	size=$(apt-cache show --no-all-versions "linux-image-$abi" 2>/dev/null |
		awk '/^Size:/ { printf "%.0f MB", $2 / 1e6; exit }')
	log "fetching kernel $abi (${size:-size unknown}), then unpacking it"
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp"
	(cd "$dir.tmp" && apt-get download -qq "linux-image-$abi" >/dev/null 2>&1)
	dpkg-deb -x "$dir.tmp/linux-image-${abi}"_*.deb "$dir.tmp/root"
	rm -f "$dir.tmp"/*.deb
	depmod -b "$dir.tmp/root" "$abi"
	touch "$dir.tmp/.done"
	mv "$dir.tmp" "$dir"
done

# Unpack linux-source once: checkpatch.pl and the reference sources.
src=
[ "$kernels_only" = 1 ] ||
	src=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | sed -n 1p || true)
if [ -n "$src" ] && [ ! -f "$CACHE/linux-source-6.12/.done" ]; then
	log "unpacking linux-source-6.12"
	rm -rf "$CACHE/linux-source-6.12"
	mkdir -p "$CACHE/linux-source-6.12"
	tar -xaf "$src" -C "$CACHE/linux-source-6.12" --strip-components=1
	touch "$CACHE/linux-source-6.12/.done"
fi

# Record what was resolved for the harness.
cat >"$CACHE/kernels.env" <<EOT
VROCE_K61=$K61
VROCE_K612=$K612
EOT
log "ready: kernels $K61 $K612 in $CACHE"
