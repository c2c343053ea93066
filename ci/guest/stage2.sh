#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stage 2 of the vroce test VM, PID 1 after switch_root (see ci/vm/init).
# The root is the host's root (read-only 9p) under a tmpfs overlay, so every
# host program is here; nothing of systemd runs: this script is init.
#
# It sets the system up, runs the job the host left in /job, saves the
# kernel log and powers off.  /job/job.env (written by ci/vm/lib.sh) holds
# VROCE_JOB_KIND=scenarios|command, VROCE_SRC, VROCE_ABI, VROCE_KERNEL,
# VROCE_KO, for the pcap option VROCE_PCAP_DIR, and VT_*_SECS / VT_*_SEED values.
#   scenarios: /job/scenarios lists scenario scripts (one path per line);
#              results go to /job/results[.ROLE], logs to /job/NAME[.ROLE].log
#   command:   ci/vroce-vm's job (ci/guest/hosts.sh): /job/command is run
#              with bash -c; its output goes to /job/stdout.ROLE and
#              /job/stderr.ROLE, its status to /job/exit.ROLE.
# ROLE (kernel command line vt_role=) is single, or a / b (c ... for
# vroce-vm's hosts 3 and up) for VMs on one wire.

set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb

# PID 1 must never exit (that is a panic): power off on every way out.
# sysrq works without any userspace; busybox's poweroff -f is the fallback
# (the host's /sbin/poweroff is systemctl).
# shellcheck disable=SC2317 # called from the trap
power_off() {
	sync
	echo o >/proc/sysrq-trigger
	sleep 10
	busybox poweroff -f
}
trap power_off EXIT

mount -t proc proc /proc
mount -t sysfs sysfs /sys

# The repository may live under a directory the guest replaces with its
# own tmpfs (CI clones into /tmp): keep it visible at the same path.
src_dir=$(cd "$(dirname "$0")/../.." && pwd)
case $src_dir in
/tmp/* | /run/* | /dev/shm/*)
	mkdir -p /.vroce-src
	mount --bind "$src_dir" /.vroce-src
	;;
*) src_dir= ;;
esac
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t configfs configfs /sys/kernel/config 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mkdir -p /run/netns /run/lock
if [ -n "$src_dir" ]; then
	mkdir -p "$src_dir"
	mount --bind /.vroce-src "$src_dir"
fi
# Interactive helpers (ip netns exec, ibv_* tools) expect these.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr

ROLE=single
# shellcheck disable=SC2013 # the command line is words, not lines
for arg in $(cat /proc/cmdline); do
	case $arg in
	vt_role=*) ROLE=${arg#vt_role=} ;;
	esac
done

# shellcheck source=/dev/null
. /job/job.env
export VROCE_SRC VROCE_ABI VROCE_KERNEL VROCE_KO
# Scenario durations and seeds passed through by ci/run-tests.sh
# (VT_SOAK_SECS, VT_FUZZ_SEED...).
for v in $(compgen -v | grep -E '^VT_[A-Z0-9_]+_(SECS|SEED)$'); do
	export "${v?}"
done
export VROCE_JOB=/job VROCE_ROLE=$ROLE
# shellcheck source=ci/guest/klog.sh
. "$VROCE_SRC/ci/guest/klog.sh"
# shellcheck source=userspace-tests/lib/common.sh
. "$VROCE_SRC/userspace-tests/lib/common.sh"
# shellcheck source=userspace-tests/lib/vroce.sh
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"
# shellcheck source=ci/guest/hosts.sh
. "$VROCE_SRC/ci/guest/hosts.sh"

# File name suffix: the two VMs of a pair write to the same job directory.
SFX=
[ "$ROLE" = single ] || SFX=.$ROLE

# Boot progress with the guest's uptime, to see where boot time goes.
step() {
	local up
	read -r up _ </proc/uptime
	echo "$up $*" >>"/job/stage2$SFX.log"
}
step "stage 2 started"

hostname "vroce-$ROLE"
echo "127.0.1.1 vroce-$ROLE" >>/etc/hosts

# Network: lo, and eth0 (virtio-net; no udev here, so load it by hand).
ip link set lo up
modprobe virtio_net
case $ROLE in
single) VROCE_SELF_IP=10.0.2.15 VROCE_PEER_IP= ;;
a) VROCE_SELF_IP=10.0.0.1 VROCE_PEER_IP=10.0.0.2 ;;
b) VROCE_SELF_IP=10.0.0.2 VROCE_PEER_IP=10.0.0.1 ;;
*) VROCE_SELF_IP=$(host_ip "$(host_index "$ROLE")") VROCE_PEER_IP= ;;
esac
export VROCE_SELF_IP VROCE_PEER_IP
ip addr add "$VROCE_SELF_IP/24" dev eth0
ip link set eth0 up

step "network up"
for m in ib_core ib_uverbs rdma_ucm; do
	modprobe "$m" 2>/dev/null || echo "stage2: modprobe $m failed" >&2
done

# ---------------------------------------------------------------- scenarios

# header FILE KEY DEFAULT: value of a "# KEY: value" line near the top.
header() {
	local v
	v=$(head -n 30 "$1" | sed -n "s/^# *$2: *\([^ ]*\).*/\1/p" | sed -n 1p)
	echo "${v:-$3}"
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# kill_strays: kill every user process but init (this shell): daemons a
# scenario started with setsid have left its process group.  Nothing else
# runs in the VM.  Kernel threads are the children of kthreadd (pid 2).
kill_strays() {
	local d pid st
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		[ "$pid" -gt 2 ] || continue
		read -r st <"$d/stat" 2>/dev/null || continue
		st=${st##*) } # "STATE PPID ...": the command name may hold spaces
		st=${st#* }
		[ "${st%% *}" != 2 ] || continue
		kill -KILL "$pid" 2>/dev/null
	done
}

# Put the kernel back into a neutral state after a scenario, whatever it
# left behind.  vroce and rdma_rxe may never be loaded together, so rxe is
# unloaded as well.  UNLOAD_FAILED: the modules that would not unload.
cleanup() {
	local pgid=$1 dev ns l
	kill -KILL -- "-$pgid" 2>/dev/null
	kill_strays

	for dev in $(rdma -j link show 2>/dev/null | grep -o '"ifname":"[^"]*"' | cut -d'"' -f4 | sort -u); do
		rdma link delete "$dev" 2>/dev/null
	done
	for ns in $(ip netns list | awk '/^vt/ {print $1}'); do
		ip netns pids "$ns" | xargs -r kill -KILL 2>/dev/null
		ip netns delete "$ns"
	done
	for l in $(ip -o link show | awk -F': ' '$2 ~ /^vt/ {sub(/@.*/, "", $2); print $2}'); do
		ip link delete "$l" 2>/dev/null
	done
	# ib_core's exclusive netns mode (70-netns-exclusive restores shared
	# itself, unless it was killed): back to shared once no namespace
	# is left, which ib_core waits for (EBUSY)
	case $(rdma system show 2>/dev/null) in
	*"netns exclusive"*)
		for l in $(seq 75); do
			rdma system set netns shared 2>/dev/null && break
			sleep 0.2
		done
		;;
	esac
	UNLOAD_FAILED=
	for m in vroce rdma_rxe; do
		grep -q "^$m " /proc/modules || continue
		# a deleted namespace's devices go away after "ip netns delete"
		# returns: wait (15 s at most) for the last user to let go
		for l in $(seq 75); do
			[ "$(cat "/sys/module/$m/refcnt" 2>/dev/null || echo 0)" != 0 ] || break
			sleep 0.2
		done
		rmmod "$m" || UNLOAD_FAILED="$UNLOAD_FAILED $m"
	done
	rm -rf "/tmp/vt-$2"
}

# Send a marker frame onto the wire (pair + pcap only): the host cuts the
# capture into one file per scenario at these frames (UDP to port 9, payload
# "vroce-mark begin|end NAME").  The frame goes to an address nobody owns
# through a permanent neighbour entry made for it: no ARP, so it is sent even
# when the peer VM is not up yet (a marker to the peer would wait for an ARP
# reply and be dropped, and the scenario would have no capture), and no
# ICMP error comes back.  The peer's NIC ignores the foreign MAC.  The entry
# is there only while the marker is sent, so scenarios never see it.  Then
# wait (at most 2 s) until the NIC reports the frame sent, i.e. QEMU and its
# filter-dump have taken it, before anything of the scenario can happen.
VT_MARK_IP=10.0.0.254 VT_MARK_MAC=52:54:00:76:72:fe
wire_mark() {
	[ "$ROLE" = a ] && [ -n "${VROCE_PCAP_DIR:-}" ] || return 0
	local stats=/sys/class/net/eth0/statistics/tx_packets tx0 tx i
	ip neigh replace "$VT_MARK_IP" lladdr "$VT_MARK_MAC" nud permanent \
		dev eth0 2>/dev/null
	read -r tx0 <"$stats" || tx0=0
	if echo "vroce-mark $1" >"/dev/udp/$VT_MARK_IP/9" 2>/dev/null; then
		for ((i = 0; i < 20; i++)); do
			read -r tx <"$stats" || break
			[ "$tx" = "$tx0" ] || break
			sleep 0.1
		done
		[ "$i" -lt 20 ] || step "wire marker '$1': no tx completion seen"
	else
		step "wire marker '$1' could not be sent (the host falls back)"
	fi
	ip neigh del "$VT_MARK_IP" dev eth0 2>/dev/null
	return 0
}

result() { echo "$*" >>"/job/results$SFX"; }

# kmemleak (the debug kernel only): one scan at the end of the boot, each
# suspect pinned on the scenario that allocated it (kmemleak_split in
# ci/guest/klog.sh): /job/NAME.kmemleak, and that scenario fails.  A scan
# takes 7-8 s on the debug kernel and needs a second one: at every
# scenario's end that was half a minute each.  Suspects older than every
# scenario are boot's: /job/kernel-log.kmemleak (the host's kernel-log
# result fails on kmemleak's line outside the scenarios).  The
# debug kernel scans only on request (no automatic scans), so nothing is
# reported half-way; scenarios leave the scanning to this.
KMEMLEAK=/sys/kernel/debug/kmemleak
KMEMLEAK_WINDOWS=/run/vt-kmemleak-windows

# kmemleak_mark NAME: note the kernel's jiffies (the clock kmemleak stamps
# objects with) as scenario NAME starts.
kmemleak_mark() {
	[ -w "$KMEMLEAK" ] || return 0
	awk -v n="$1" '$1 == "jiffies:" { print $2, n; exit }' \
		/proc/timer_list >>"$KMEMLEAK_WINDOWS"
}

# kmemleak_final: scan, pin each suspect on its scenario and fail that
# scenario (a second result line for it).  kmemleak reports only objects
# older than 5 s, and only those whose contents did not change since the
# scan before: hence the wait and the second scan.
kmemleak_final() {
	local all=/job/kmemleak-all$SFX.txt res=/job/results$SFX name n line t r
	[ -w "$KMEMLEAK" ] || return 0
	sleep 5
	echo scan >"$KMEMLEAK" && echo scan >"$KMEMLEAK" && cat "$KMEMLEAK" >"$all"
	[ -s "$all" ] || { rm -f "$all"; return 0; }
	while read -r name n; do
		if [ "$name" = kernel-log ]; then
			step "kmemleak: boot left $n suspect(s) (kernel-log$SFX.kmemleak)"
			continue
		fi
		step "kmemleak: $n suspect(s) allocated during $name"
		# a second verdict, which the host takes over the first
		line=$(awk -v s="$name" '$2 == s { l = $0 } END { print l }' "$res")
		read -r _ _ t r <<<"$line"
		result "FAIL $name ${t:-0.0s} ${r:+$r, }kmemleak: $n suspected leak(s)"
	done < <(kmemleak_split "$KMEMLEAK_WINDOWS" /job "$SFX" <"$all")
}

run_scenario() {
	local path=$1 seq=$2 name tmo log start ms rc status reason pid
	name=$(basename "$path" .sh)
	tmo=$(header "$path" timeout 300)
	# the debug kernel (KASAN, lockdep, kmemleak) runs everything, above
	# all fork and exec, several times slower: same work, longer limit
	VROCE_TIME_SCALE=1
	case $(uname -r) in
	*-vroce-debug) VROCE_TIME_SCALE=${VT_DEBUG_TIMEOUT_SCALE:-1} ;;
	esac
	tmo=$((tmo * VROCE_TIME_SCALE))
	# scenarios that size a traffic phase by time scale it by this too
	export VROCE_TIME_SCALE
	log=/job/$name$SFX.log
	export VROCE_SCENARIO=$name VROCE_PCAP=
	[ -n "${VROCE_PCAP_DIR:-}" ] && VROCE_PCAP=$VROCE_PCAP_DIR/$name.pcap

	step "scenario $name"
	if [ "$ROLE" != single ]; then
		wire_mark "begin $name"

		if ! VT_NAME=$name vt_barrier runner-pre 300; then
			result "FAIL $name 0.0s peer VM never reached the scenario"
			return 1
		fi
	fi

	kmemleak_mark "$name"
	echo "$VT_KLOG_TAG begin $seq $name" >/dev/kmsg
	mkdir -p "/tmp/vt-$name"
	start=$(now_ms)
	# timeout makes itself a process group leader: everything the scenario
	# starts shares that group, so it can all be killed afterwards.
	if [ -x "$path" ]; then
		(cd "/tmp/vt-$name" && exec timeout -k 10 "$tmo" "$path") \
			>"$log" 2>&1 </dev/null &
	else
		(cd "/tmp/vt-$name" && exec timeout -k 10 "$tmo" bash "$path") \
			>"$log" 2>&1 </dev/null &
	fi
	pid=$!
	wait "$pid"
	rc=$?
	ms=$(($(now_ms) - start))
	# Cleanup belongs inside the kernel-log window: a splat on rmmod is the
	# scenario's fault.
	cleanup "$pid" "$name" >>"$log" 2>&1
	echo "$VT_KLOG_TAG end $seq $name" >/dev/kmsg

	dmesg | klog_window "$VT_KLOG_TAG begin $seq $name" \
		"$VT_KLOG_TAG end $seq $name" >"/job/$name$SFX.kmsg"
	reason=
	case $rc in
	0) status=PASS ;;
	77) status=SKIP ;;
	124 | 137) status=FAIL reason="timeout after ${tmo}s" ;;
	*) status=FAIL reason="exit status $rc" ;;
	esac
	# a module the scenario left in use is the scenario's leak
	[ -z "$UNLOAD_FAILED" ] ||
		status=FAIL reason="${reason:+$reason, }module$UNLOAD_FAILED would not unload"
	if klog_bad <"/job/$name$SFX.kmsg" >"/job/$name$SFX.kbad"; then
		status=FAIL reason="${reason:+$reason, }kernel log"
	else
		rm -f "/job/$name$SFX.kbad"
	fi

	if [ "$ROLE" != single ]; then
		VT_NAME=$name vt_barrier runner-post $((tmo + 120)) ||
			reason="${reason:+$reason, }peer VM did not finish"
		wire_mark "end $name"
	fi
	result "$status $name $((ms / 1000)).$((ms % 1000 / 100))s${reason:+ $reason}"
}

run_scenarios() {
	local seq=0 path
	: >"/job/results$SFX"
	while read -r path; do
		[ -n "$path" ] || continue
		seq=$((seq + 1))
		# A lost peer makes every later pair scenario wait for nothing.
		run_scenario "$path" "$seq" || break
	done </job/scenarios
	kmemleak_final
}

step "RDMA core loaded, starting the job"
case ${VROCE_JOB_KIND:-} in
scenarios) run_scenarios ;;
command) host_run_command ;;
*) echo "stage2: unknown job kind '${VROCE_JOB_KIND:-}'" >&2 ;;
esac

step "job done"
dmesg >"/job/dmesg$SFX.txt"

exit 0
