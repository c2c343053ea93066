#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ci/debug-kernel.sh [--print-kdir|--print-release]: build and install the
# vroce debug kernel (KUnit, KASAN, lockdep, UBSAN, kmemleak, debug objects)
# from Debian's linux-source-6.12 (unpacked by ci/setup.sh).
#
# Config: `allnoconfig` + ci/debug-kernel.config, then `olddefconfig`.
# Build tree: $VROCE_CACHE/debug-<key>, where <key> hashes the fragment, the
# kernel source version and the compiler, so a run with nothing changed
# only prints where things are; a changed fragment builds a new tree (older
# trees are removed once the new one is installed).  The build tree is also
# the KDIR for out-of-tree modules: make modules KDIR=$(ci/debug-kernel.sh
# --print-kdir).
#
# Installed like the cached Debian kernels (ci/vm/lib.sh boots it as the
# kernel named "debug"): $VROCE_CACHE/kernels/<release>/root/boot/vmlinuz-*
# and root/lib/modules/<release>; $VROCE_CACHE/debug-kernel.env names the
# release (VROCE_KDEBUG) and the build tree (VROCE_KDEBUG_DIR).
#
# The build runs under nice -n 19 with VROCE_JOBS (default 2) jobs.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${VROCE_CACHE:-$HOME/.cache/vroce}
KSRC=${VROCE_KSRC:-$CACHE/linux-source-6.12}
FRAG=$REPO/ci/debug-kernel.config
JOBS=${VROCE_JOBS:-2}
# Bump when what this script does to the tree changes (not for comments).
FORMAT=1

log() { echo "debug-kernel: $*" >&2; }
die() {
	log "$*"
	exit 1
}

mode=build
case ${1:-} in
'') ;;
--print-kdir) mode=kdir ;;
--print-release) mode=release ;;
-h | --help)
	sed -n '3,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
	exit 0
	;;
*) die "usage: $0 [--print-kdir|--print-release]" ;;
esac

[ -f "$KSRC/Makefile" ] && [ -f "$KSRC/.done" ] ||
	die "no kernel source in $KSRC (run ci/setup.sh)"

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null ||
	sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = //p' "$KSRC/Makefile" |
	tr '\n' .)
key=$(
	{
		echo "format $FORMAT"
		echo "source $srcver"
		gcc --version | sed -n 1p
		grep -v '^[[:space:]]*\(#.*\)\{0,1\}$' "$FRAG" | grep . || true
		grep '^# CONFIG_' "$FRAG" || true
	} | sha256sum | cut -c1-12
)
OUT=$CACHE/debug-$key
ENV=$CACHE/debug-kernel.env

installed() {
	[ -f "$OUT/.vroce-installed" ] && [ -f "$ENV" ] &&
		grep -qx "VROCE_KDEBUG_DIR=$OUT" "$ENV" && {
		rel=$(sed -n 's/^VROCE_KDEBUG=//p' "$ENV")
		[ -f "$CACHE/kernels/$rel/root/boot/vmlinuz-$rel" ]
	}
}

case $mode in
kdir | release)
	installed || die "debug kernel for this config not built: run $0"
	if [ "$mode" = kdir ]; then echo "$OUT"; else echo "$rel"; fi
	exit 0
	;;
esac

mkdir -p "$CACHE"
exec 9>"$CACHE/debug-kernel.lock"
flock 9
if installed; then
	log "up to date: $rel in $OUT"
	exit 0
fi

kmake() {
	nice -n 19 make -C "$KSRC" O="$OUT" -j"$JOBS" "$@"
}

# check_config: every line of the fragment must be what .config says.
check_config() {
	local line sym want got bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) sym=${line%%=*} want=${line#*=} ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			want=n
			;;
		*) continue ;;
		esac
		got=$(sed -n "s/^$sym=//p" "$OUT/.config")
		[ -n "$got" ] || got=n
		if [ "$got" != "$want" ]; then
			log "$sym: wanted $want, .config has $got"
			bad=1
		fi
	done <"$FRAG"
	return $bad
}

start=$(date +%s)
if [ ! -f "$OUT/.vroce-configured" ]; then
	log "configuring $OUT"
	rm -rf "$OUT"
	mkdir -p "$OUT"
	kmake -s allnoconfig
	"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$OUT" \
		"$OUT/.config" "$FRAG" >"$OUT/merge.log"
	kmake -s olddefconfig
	check_config || die "the fragment does not apply (see above)"
	touch "$OUT/.vroce-configured"
fi
log "building in $OUT ($(grep -c '=[ym]$' "$OUT/.config") options on," \
	"$JOBS jobs), log: $OUT/build.log"
if ! kmake bzImage modules >"$OUT/build.log" 2>&1; then
	tail -n 30 "$OUT/build.log" >&2
	die "build failed, see $OUT/build.log"
fi

rel=$(kmake -s kernelrelease)
root=$CACHE/kernels/$rel/root
rm -rf "$CACHE/kernels/$rel"
mkdir -p "$root/boot"
cp "$OUT/arch/x86/boot/bzImage" "$root/boot/vmlinuz-$rel"
cp "$OUT/System.map" "$root/boot/System.map-$rel"
cp "$OUT/.config" "$root/boot/config-$rel"
kmake -s INSTALL_MOD_PATH="$root" DEPMOD=/bin/true modules_install \
	>>"$OUT/build.log" 2>&1
depmod -b "$root" "$rel"
touch "$CACHE/kernels/$rel/.done"
{
	echo "VROCE_KDEBUG=$rel"
	echo "VROCE_KDEBUG_DIR=$OUT"
} >"$ENV.tmp"
mv "$ENV.tmp" "$ENV"
secs=$(($(date +%s) - start))
echo "$secs" >"$OUT/.vroce-build-seconds"
touch "$OUT/.vroce-installed"

# Older trees of other configs: gigabytes each.
for d in "$CACHE"/debug-*/; do
	d=${d%/}
	[ "$d" = "$OUT" ] || [ ! -f "$d/.vroce-configured" ] || rm -rf "$d"
done
log "installed $rel (built in $((secs / 60)) min $((secs % 60)) s)," \
	"KDIR=$OUT"
