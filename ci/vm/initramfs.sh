#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ci/vm/initramfs.sh KERNEL: build $VROCE_CACHE/initramfs/<abi>.cpio.gz, the
# initramfs of the test VM for KERNEL (6.1, 6.12 or a cached release name).
#
# It holds busybox-static, /init (ci/vm/init) and the modules needed to mount
# the host root over virtio-9p with an overlay on top: virtio_pci, 9pnet_virtio,
# 9p and overlay with their dependencies, as kmod resolves them from the
# kernel's own module tree (the ones built into a kernel drop out).  Modules
# are stored uncompressed: busybox insmod hands the file to init_module(2),
# and 6.12 ships .ko.xz.
#
# Cached: rebuilt only when a hash over every input (this script, init,
# busybox, the module files) changes.  Prints the image's path.
set -euo pipefail

# shellcheck source=ci/vm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"


[ $# -eq 1 ] || vt_die "usage: $0 6.1|6.12|<abi>"
abi=$(vt_resolve_abi "$1")
kroot=$VT_CACHE/kernels/$abi/root
image=$VT_CACHE/initramfs/$abi.cpio.gz
busybox=$(command -v busybox) || vt_die "busybox not installed (busybox-static)"
# The dynamically linked busybox would need the host's libc in the initramfs.
! ldd "$busybox" >/dev/null 2>&1 ||
	vt_die "$busybox is not static: install busybox-static"

# Modules in load order, each once.
mapfile -t mods < <(
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		modprobe -d "$kroot" -S "$abi" --show-depends "$m" ||
			vt_die "module $m not found for $abi"
	done | awk '$1 == "insmod" && !seen[$2]++ {print $2}'
)

key=$(
	{
		# contents only: two clones of the tree share the image
		cat "${BASH_SOURCE[0]}" "$VT_REPO/ci/vm/init" "$busybox"
		[ "${#mods[@]}" -eq 0 ] || cat "${mods[@]}"
	} | sha256sum | cut -d' ' -f1
)
if [ -f "$image" ] && [ "$(cat "$image.key" 2>/dev/null)" = "$key" ]; then
	echo "$image"
	exit 0
fi

echo "initramfs: building $image" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/modules" "$tmp/dev" "$tmp/proc" "$tmp/sys"
cp "$busybox" "$tmp/bin/busybox"
ln -s busybox "$tmp/bin/sh"
install -m 0755 "$VT_REPO/ci/vm/init" "$tmp/init"
: >"$tmp/modules/order"
for m in "${mods[@]}"; do
	base=$(basename "$m")
	case $m in
	*.ko.xz) xz -dc "$m" >"$tmp/modules/${base%.xz}" ;;
	*.ko.zst) zstd -qdc "$m" >"$tmp/modules/${base%.zst}" ;;
	*.ko.gz) gzip -dc "$m" >"$tmp/modules/${base%.gz}" ;;
	*) cp "$m" "$tmp/modules/$base" ;;
	esac
	echo "${base%.ko*}.ko" >>"$tmp/modules/order"
done

mkdir -p "$(dirname "$image")"
# Built under a private name and renamed: runs in parallel never see half
# an image.
(cd "$tmp" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) |
	gzip -9n >"$image.$$.tmp"
mv "$image.$$.tmp" "$image"

echo "$key" >"$image.key"
echo "$image"
