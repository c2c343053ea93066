# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # VT_* variables are used by the sourcing scripts
#
# Host-side pieces shared by ci/run-tests.sh and ci/vroce-vm: kernel lookup,
# job directories and QEMU command lines.  Sourced, not executed.
#
# A test VM boots a cached Debian kernel with ci/vm/initramfs.sh's initramfs
# and three virtio-9p shares: the host root (read-only; the guest sees every
# host program and this repository at its host path), the kernel's module
# tree and a writable job directory, mounted at /job.  The guest's init is
# ci/guest/stage2.sh; what it does is described by the job directory.

VT_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VT_CACHE=${VROCE_CACHE:-$HOME/.cache/vroce}
VT_MEM=${VROCE_VM_MEM:-2048}
# The roles of VMs on one wire, host 1 to 8 (a single VM's is "single").
VT_ROLES=abcdefgh
# Scenario time limits are multiplied by this on the debug kernel (KASAN,
# lockdep and kmemleak make fork, exec and every packet several times
# slower; 61-cc-knobs, ~700 small processes, needs over 300 s there).
VT_DEBUG_TIMEOUT_SCALE=${VROCE_DEBUG_TIMEOUT_SCALE:-4}

vt_die() {
	echo "${0##*/}: $*" >&2
	exit 2
}

# vt_resolve_abi SPEC: print the kernel release for 6.1, 6.12, debug (the
# kernel ci/debug-kernel.sh built) or a release name that is cached under
# $VT_CACHE/kernels.
vt_resolve_abi() {
	local abi=
	if [ -f "$VT_CACHE/kernels.env" ]; then
		case $1 in
		6.1) abi=$(sed -n 's/^VROCE_K61=//p' "$VT_CACHE/kernels.env") ;;
		6.12) abi=$(sed -n 's/^VROCE_K612=//p' "$VT_CACHE/kernels.env") ;;
		esac
	fi
	if [ "$1" = debug ]; then
		abi=$(sed -n 's/^VROCE_KDEBUG=//p' "$VT_CACHE/debug-kernel.env" 2>/dev/null)
		[ -n "$abi" ] || vt_die "no debug kernel: run ci/debug-kernel.sh"
	fi
	[ -n "$abi" ] || abi=$1
	[ -f "$VT_CACHE/kernels/$abi/root/boot/vmlinuz-$abi" ] ||
		vt_die "kernel '$1' is not cached in $VT_CACHE/kernels (run ci/setup.sh)"
	echo "$abi"
}

# vt_is_debug ABI: true for the kernel ci/debug-kernel.sh built.
vt_is_debug() {
	case $1 in *-vroce-debug) return 0 ;; esac
	return 1
}

# vt_series ABI: 6.1.0-57-amd64 -> 6.1, 6.12.117+deb12-amd64 -> 6.12
vt_series() {
	local IFS=.-+
	# shellcheck disable=SC2086
	set -- $1
	echo "$1.$2"
}

# vt_free_udp_ports N: print N distinct local UDP ports nobody listens on.
vt_free_udp_ports() {
	local n=$1 used p out=()
	used=" $(ss -Hlun 2>/dev/null | awk '{n = split($4, a, ":"); print a[n]}' | tr '\n' ' ') "
	while [ "${#out[@]}" -lt "$n" ]; do
		p=$((20000 + RANDOM % 40000))
		case "$used ${out[*]} " in *" $p "*) continue ;; esac
		out+=("$p")
	done
	echo "${out[@]}"
}

# vt_new_job NAME: create and print a fresh job directory.  Job trees older
# than a day are pruned (not younger ones: another run may be using them).
vt_new_job() {
	local root=$VT_CACHE/jobs dir
	mkdir -p "$root"
	find "$root" -mindepth 1 -maxdepth 1 -mmin +1440 -exec rm -rf {} + 2>/dev/null || true
	dir=$root/$(date +%Y%m%d-%H%M%S)-$$-$1
	mkdir -p "$dir"
	echo "$dir"
}

# vt_write_env JOBDIR ABI KIND [VAR=VALUE...]: the job description stage2
# sources.  Values are shell-quoted.  VROCE_BUILDDIR (default build/ in the
# repository) says where the module under test was built; the guest sees
# the host's files, except under /tmp.
vt_write_env() {
	local job=$1 abi=$2 kind=$3 kv
	shift 3
	{
		echo "VROCE_JOB_KIND=$kind"
		printf 'VROCE_SRC=%q\n' "$VT_REPO"
		printf 'VROCE_ABI=%q\n' "$abi"
		printf 'VROCE_KERNEL=%q\n' "$(vt_series "$abi")"
		printf 'VROCE_KO=%q\n' "${VROCE_BUILDDIR:-$VT_REPO/build}/$abi/vroce.ko"
		printf 'VT_DEBUG_TIMEOUT_SCALE=%q\n' "$VT_DEBUG_TIMEOUT_SCALE"
		for kv in "$@"; do
			printf '%s=%q\n' "${kv%%=*}" "${kv#*=}"
		done
	} >"$job/job.env"
}

# vt_qemu_start ABI JOBDIR ROLE NETDEV [PCAP]: boot one VM in the background;
# QEMU's pid is left in VT_QEMU_PID (no $(...): QEMU must stay our child).
# ROLE: single, a or b; NETDEV: the -netdev value for eth0 (id n0); PCAP:
# file to record eth0's frames to.  The serial console goes to
# JOBDIR/console[.ROLE].log.
vt_qemu_start() {
	local abi=$1 job=$2 role=$3 netdev=$4 pcap=${5:-} sfx='' mac
	local kdir=$VT_CACHE/kernels/$abi/root
	[ "$role" = single ] || sfx=.$role
	# single: ..:01; a, b, c ...: ..:0a, ..:0b, ..:0c ...
	case $role in
	single) mac=52:54:00:76:72:01 ;;
	*)
		local before=${VT_ROLES%%"$role"*}
		mac=$(printf '52:54:00:76:72:%02x' $((${#before} + 10)))
		;;
	esac
	# The debug kernel: every KASAN report, not only the first one.
	local debug_args=
	! vt_is_debug "$abi" || debug_args=" kasan_multi_shot"
	# Software emulation (the tested path): thread=single: live kernel
	# text patching (static keys, int3) races with multi-threaded TCG and
	# kills guests now and then ("Oops: int3" in hrtimer or sched_clock
	# code), so one host thread runs both vCPUs.  la57=off: with 5-level
	# paging, an interrupt while identify_cpu() has cleared the boot
	# CPU's feature bits sees 4-level address limits, and the debug
	# kernel's KASAN reports "wild-memory-access" in the IRQ handler at
	# 0.004 s (a make check under load, 2026-12-06).  VT_ACCEL=kvm (only
	# ci/vroce-vm sets it, after vt_kvm_usable) runs the host's CPU.
	# shellcheck disable=SC2054 # the commas are QEMU's
	local accel=(-accel tcg,thread=single -cpu max,la57=off)
	[ "${VT_ACCEL:-tcg}" != kvm ] || accel=(-accel kvm -cpu host)
	# shellcheck disable=SC2054 # the commas are QEMU's
	local args=(
		-machine q35 "${accel[@]}" -smp 2
		-m "$VT_MEM"
		-nodefaults -display none -no-reboot -monitor none
		-serial "file:$job/console$sfx.log"
		-kernel "$kdir/boot/vmlinuz-$abi"
		-initrd "$VT_CACHE/initramfs/$abi.cpio.gz"
		# loglevel=5: warnings and worse reach the (slow, emulated)
		# serial console, the harness's begin/end markers among them
		# (12-30 lines a boot), so a guest that dies leaves the WARN
		# before its panic and the scenario it came in (with quiet,
		# errors only, a panic of 7 Dec 2026 followed a WARN whose
		# text was lost with the guest's kmsg);
		# panic=-1 + -no-reboot: a panic ends QEMU at once;
		# clocksource=hpet tsc=unstable: a TCG guest's TSC is the
		# host's raw TSC, which leaps when the host (itself a VM) is
		# paused or restored, and every guest timeout would fire; the
		# HPET follows the host's CLOCK_MONOTONIC, and a TSC unstable
		# from boot leaves no watchdog to flip a static key later;
		# printk.devkmsg=on: the runner's log markers are never rate-limited;
		# log_buf_len: room for a scenario's whole kernel log;
		# mitigations=off: the page-table isolation is costly under TCG.
		-append "console=ttyS0 loglevel=5 panic=-1 clocksource=hpet tsc=unstable printk.devkmsg=on log_buf_len=8M mitigations=off vt_role=$role vt_stage2=$VT_REPO/ci/guest/stage2.sh$debug_args"
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$kdir/lib/modules,mount_tag=modules,security_model=none,readonly=on"
		-virtfs "local,path=$job,mount_tag=job,security_model=none"
		-netdev "$netdev,id=n0"
		-device "virtio-net-pci,netdev=n0,mac=$mac"
	)
	[ -z "$pcap" ] || args+=(-object "filter-dump,id=f0,netdev=n0,file=$pcap")
	# vroce-vm: the user's current directory, writable (mount tag cwd)
	[ -z "${VT_CWD_SHARE:-}" ] ||
		args+=(-virtfs "local,path=$VT_CWD_SHARE,mount_tag=cwd,security_model=none,multidevs=remap")
	qemu-system-x86_64 "${args[@]}" </dev/null >"$job/qemu$sfx.log" 2>&1 &
	VT_QEMU_PID=$!
}

# vt_pair_netdevs: print two -netdev values (VM a, VM b) for a UDP wire
# between two VMs on free local ports.
vt_pair_netdevs() {
	local pa pb
	read -r pa pb < <(vt_free_udp_ports 2)
	echo "socket,udp=127.0.0.1:$pb,localaddr=127.0.0.1:$pa"
	echo "socket,udp=127.0.0.1:$pa,localaddr=127.0.0.1:$pb"
}

# vt_hub_netdevs N: print N -netdev values for VMs on one virtual hub (a
# multicast group on the loopback interface: every VM sees every frame, as
# on a switch that floods).
vt_hub_netdevs() {
	local port i group=239.255.76.$((RANDOM % 250 + 1))
	read -r port < <(vt_free_udp_ports 1)
	for ((i = 0; i < $1; i++)); do
		echo "socket,mcast=$group:$port,localaddr=127.0.0.1"
	done
}

# vt_kvm_usable ABI: true when /dev/kvm is there, this user may open it and
# a kernel really runs under it.  The probe boots ABI's kernel with no root
# file system, which ends in a panic within seconds on a working KVM (and
# in "KVM internal error" where nested virtualisation cannot run it, as on
# this project's machines); the verdict is cached per QEMU and kernel.
vt_kvm_usable() {
	local abi=$1 key f out
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	key=$(qemu-system-x86_64 --version | head -1 | tr -c 'A-Za-z0-9.\n' _)-$abi
	f=$VT_CACHE/kvm-probe/$key
	if [ ! -f "$f" ]; then
		mkdir -p "$VT_CACHE/kvm-probe"
		out=$(timeout 20 qemu-system-x86_64 -accel kvm -machine q35 -cpu host \
			-m 256 -nodefaults -display none -no-reboot -monitor none \
			-serial stdio -kernel "$VT_CACHE/kernels/$abi/root/boot/vmlinuz-$abi" \
			-append "console=ttyS0 panic=-1" </dev/null 2>&1 || true)
		case $out in
		*"Kernel panic"*) echo yes >"$f" ;;
		*) echo no >"$f" ;;
		esac
	fi
	[ "$(cat "$f")" = yes ]
}

# The single VM's eth0: user-mode networking cut off from the outside world
# (the guest must not depend on or reach any network).
VT_SINGLE_NETDEV=user,restrict=on

# vt_alive PID...: true while any of the processes runs.
vt_alive() {
	local p
	for p in "$@"; do
		kill -0 "$p" 2>/dev/null && return 0
	done
	return 1
}

# vt_stop PID...: end QEMU processes: TERM, which QEMU answers with an
# orderly exit (closing its capture file), then KILL those still there after
# 10 s (a loaded host can take a while).
vt_stop() {
	local p i
	vt_alive "$@" || return 0
	kill -TERM "$@" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		vt_alive "$@" || break
		sleep 0.2
	done
	for p in "$@"; do
		kill -KILL "$p" 2>/dev/null || true
	done
	for p in "$@"; do
		wait "$p" 2>/dev/null || true
	done
	return 0
}
