#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ci/run-tests.sh: run the scenarios of userspace-tests/scenarios in QEMU VMs
# booting the Debian test kernels.  See --help.
#
# Per kernel: one boot of a pair of VMs runs every "# topology: pair"
# scenario, and two boots of one VM run the single-VM scenarios (00-49:
# functions and tools; 50-99: robustness and congestion control), each in
# file-name order.  Boots run side by side (VROCE_JOBS VMs at once).
# Inside, ci/guest/stage2.sh runs each scenario under a timeout, checks the
# kernel log it produced and cleans up; this script reads the results back
# from the job directory, runs the host-side post-checks, prints everything
# and ends with one line "N passed, N failed, N skipped".
set -euo pipefail

# shellcheck source=ci/vm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/vm/lib.sh"

usage() {
	cat <<'EOT'
Usage: ci/run-tests.sh [--kernels "6.1 6.12"] [--filter REGEX] [--debug-set]

  --kernels LIST  kernels to test: 6.1, 6.12, debug (ci/debug-kernel.sh) or
                  cached releases (default 6.1 6.12)
  --filter REGEX  only scenarios whose name (NN-name) matches REGEX (grep -E)
  --debug-set     on the debug kernel, only the scenarios marked
                  "# debug: yes" (make check's robustness set); without it
                  the debug kernel runs every scenario
  -h, --help      this text

Scenarios: userspace-tests/scenarios/NN-name.sh, exit 0 pass, 77 skip, other
fail.  Header lines: "# timeout: N" (seconds, default 300), "# topology: pair"
(runs on two VMs a and b joined by a wire), "# pcap: yes" (pair only:
record the wire; the host cuts one capture per scenario), "# debug: yes"
(in the debug kernel's robustness set, see --debug-set).  An optional
NN-name.post.sh runs on the host after the VM(s) exit, with VROCE_PCAP set
to that capture, and can fail the scenario.  Job directories (logs, kernel
logs, consoles, captures) stay in $VROCE_CACHE/jobs for a day.
VROCE_BOOT_TIMEOUT=S replaces the host's limit for one boot (by default 240 s
plus every scenario's timeout + 30 s), after which the VM counts as hung.
On the debug kernel every scenario's timeout is multiplied by
VROCE_DEBUG_TIMEOUT_SCALE (default 4).
Exported VT_<NAME>_SECS and VT_<NAME>_SEED variables reach the scenarios
(VT_SOAK_SECS=600 runs the long soak of 54-soak, VT_FUZZ_SEED=N replays a
fuzzer run).

EOT
}

kernels="6.1 6.12" filter='' debug_set=''
while [ $# -gt 0 ]; do
	case $1 in
	--kernels) kernels=$2; shift 2 ;;
	--filter) filter=$2; shift 2 ;;
	--debug-set) debug_set=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

SCN_DIR=$VT_REPO/userspace-tests/scenarios
# shellcheck source=ci/guest/klog.sh
. "$VT_REPO/ci/guest/klog.sh"

# header FILE KEY DEFAULT: value of a "# KEY: value" line near the top (the
# same rule as the guest's runner).
header() {
	local v
	v=$(head -n 30 "$1" | sed -n "s/^# *$2: *\([^ ]*\).*/\1/p" | sed -n 1p)
	echo "${v:-$3}"
}

singles=() pairs=()
for f in "$SCN_DIR"/[0-9]*.sh; do
	[ -e "$f" ] || continue
	name=$(basename "$f" .sh)
	case $name in *.post) continue ;; esac
	if [ -n "$filter" ] && ! grep -qE -- "$filter" <<<"$name"; then
		continue
	fi
	if [ "$(header "$f" topology single)" = pair ]; then
		pairs+=("$f")
	else
		singles+=("$f")
	fi
done

# boot_scenarios ABI KIND PART: the scenario files one boot runs, one per
# line.  KIND pair: every pair scenario; KIND single, PART lo: 00-49, hi:
# 50-99.  On the debug kernel with --debug-set, only "# debug: yes" ones.
boot_scenarios() {
	local abi=$1 kind=$2 part=$3 f n
	local -a list
	if [ "$kind" = pair ]; then
		list=("${pairs[@]}")
	else
		list=("${singles[@]}")
	fi
	for f in "${list[@]}"; do
		n=$(basename "$f")
		n=${n%%-*}
		case $part in
		lo) [ "$((10#$n))" -lt 50 ] || continue ;;
		hi) [ "$((10#$n))" -ge 50 ] || continue ;;
		esac
		if vt_is_debug "$abi" && [ -n "$debug_set" ] &&
			[ "$(header "$f" debug no)" != yes ]; then
			continue
		fi
		echo "$f"
	done
}

n_pass=0 n_fail=0 n_skip=0
trap 'exit 130' INT TERM

# report SERIES JOB NAME STATUS TIME REASON SUFFIX...: print one result line
# and, for a failure, the scenario's logs and offending kernel lines.  The
# SUFFIXes name the VMs' files: "" for a single VM, .a and .b for a pair.
report() {
	local series=$1 job=$2 name=$3 status=$4 time=$5 reason=$6 s
	shift 6
	case $status in
	PASS) n_pass=$((n_pass + 1)) ;;
	SKIP) n_skip=$((n_skip + 1)) ;;
	*) status=FAIL n_fail=$((n_fail + 1)) ;;
	esac
	echo "$status [$series] $name ($time s)${reason:+: $reason}"
	[ ! -s "$job/$name.pcap-note" ] || echo "  note: $(cat "$job/$name.pcap-note")"
	[ "$status" = FAIL ] || return 0
	for s in "$@"; do
		if [ -s "$job/$name$s.log" ]; then
			echo "----- log of $name${s:+ (VM ${s#.})} (last 100 lines) -----"
			tail -n 100 "$job/$name$s.log"
		fi
		if [ -s "$job/$name$s.kbad" ]; then
			echo "----- kernel log lines that failed $name${s:+ (VM ${s#.})} -----"
			head -n 50 "$job/$name$s.kbad"
		fi
		if [ -s "$job/$name$s.kmemleak" ]; then
			echo "----- kmemleak after $name${s:+ (VM ${s#.})} (first 60 lines) -----"
			head -n 60 "$job/$name$s.kmemleak"
		fi
	done
	if [ -s "$job/$name.post.log" ]; then
		echo "----- post-check of $name (last 50 lines) -----"
		tail -n 50 "$job/$name.post.log"
	fi
	echo "----- end of $name -----"
}

# stream_results SERIES JOB: report the single VM's results that came
# since the last call (those without a host-side post-check: that can only
# run once the VM is gone).  A second line for a scenario already reported
# is a later verdict on it (kmemleak's scan at the end of the boot pins a
# leak on the scenario that made it): it takes the first one's place in
# the totals.  Uses the caller's printed, done_names and shown.
stream_results() {
	local line st name tm reason
	[ -f "$2/results" ] || return 0
	while [ "$printed" -lt "$(wc -l <"$2/results")" ]; do
		printed=$((printed + 1))
		line=$(sed -n "${printed}p" "$2/results")
		read -r st name tm reason <<<"$line"
		[ ! -f "$SCN_DIR/$name.post.sh" ] || continue
		case ${shown[$name]:-} in
		PASS) n_pass=$((n_pass - 1)) ;;
		SKIP) n_skip=$((n_skip - 1)) ;;
		?*) n_fail=$((n_fail - 1)) ;;
		esac
		report "$1" "$2" "$name" "$st" "${tm%s}" "$reason" ""
		shown[$name]=$st
		done_names+="$name "
	done
}

# result_of FILE NAME: the guest's line "STATUS NAME 1.2s [reason]" for NAME.
result_of() {
	[ -f "$1" ] && awk -v n="$2" '$2 == n' "$1" | tail -n 1
	return 0
}

# split_pcap JOB NAME...: cut JOB/wire.pcap into JOB/NAME.pcap for the
# scenarios NAME... (in the order they ran) at the marker frames VM a sends
# before and after each scenario (UDP to port 9, payload "vroce-mark
# begin|end NAME", see wire_mark in ci/guest/stage2.sh); the markers are left
# out.  A lost marker must not lose the capture: without its begin marker a
# scenario's capture starts at the last marker of an earlier scenario (else
# at the start of the capture), without its end marker it stops at the first
# marker of a later one (else at the end); JOB/NAME.pcap-note says so.
split_pcap() {
	local job=$1 f num hex text tag kind name i j m lo hi note
	shift
	local -A first=() last=()
	local names=()
	[ -s "$job/wire.pcap" ] || return 0
	for f in "$@"; do names+=("$(basename "$f" .sh)"); done
	while read -r num hex; do
		# hex to text with printf alone (xxd is not always installed)
		# shellcheck disable=SC2001 # sed edits every byte pair
		text=$(printf '%b' "$(sed 's/../\\x&/g' <<<"$hex")" | tr -d '\n')
		read -r tag kind name _ <<<"$text"
		[ "$tag" = vroce-mark ] || continue
		case $kind in
		begin) [ -n "${first[$name]:-}" ] || first[$name]=$num ;;
		end) last[$name]=$num ;;
		esac
	done < <(tshark -r "$job/wire.pcap" -Y 'udp.dstport == 9 && data && !icmp' \
		-T fields -e frame.number -e data.data 2>/dev/null |
		grep -v '^$' || true)
	for i in "${!names[@]}"; do
		name=${names[$i]} note=
		lo=${first[$name]:-}
		if [ -z "$lo" ]; then
			lo=0
			for ((j = 0; j < i; j++)); do
				for m in "${first[${names[$j]}]:-}" "${last[${names[$j]}]:-}"; do
					[ -z "$m" ] || [ "$m" -le "$lo" ] || lo=$m
				done
			done
			if [ "$lo" = 0 ]; then
				note="no begin marker on the wire: capture from its start"
			else
				note="no begin marker on the wire: capture from frame $lo"
			fi
		fi
		hi=${last[$name]:-}
		if [ -z "$hi" ]; then
			for ((j = i + 1; j < ${#names[@]}; j++)); do
				for m in "${first[${names[$j]}]:-}" "${last[${names[$j]}]:-}"; do
					[ -z "$m" ] || { [ -n "$hi" ] && [ "$m" -ge "$hi" ]; } || hi=$m
				done
			done
			note="${note:+$note; }no end marker on the wire: capture to"
			if [ -z "$hi" ]; then
				note+=" its end"
			else
				note+=" frame $hi"
			fi
		fi
		rm -f "$job/$name.pcap-note"
		[ -z "$note" ] || echo "$note (wire.pcap)" >"$job/$name.pcap-note"
		tshark -r "$job/wire.pcap" -w "$job/$name.pcap" -Y \
			"frame.number > $lo && frame.number < ${hi:-999999999} && !(udp.dstport == 9 && data.data contains \"vroce-mark\")" \
			2>/dev/null || true
	done
}

# post_check JOB NAME ABI: run NAME.post.sh on the host if there is one.
# Prints nothing and succeeds when there is none; else prints its status.
post_check() {
	local job=$1 name=$2 abi=$3 post=$SCN_DIR/$2.post.sh rc=0 pcap=
	[ -f "$post" ] || return 0
	[ -f "$job/$name.pcap" ] && pcap=$job/$name.pcap
	: >"$job/$name.post.log"
	[ ! -s "$job/$name.pcap-note" ] ||
		echo "harness note: $(cat "$job/$name.pcap-note")" >"$job/$name.post.log"
	(
		cd "$job" &&
			VROCE_PCAP=$pcap VROCE_JOB=$job VROCE_SRC=$VT_REPO \
				VROCE_ABI=$abi VROCE_KERNEL=$(vt_series "$abi") \
				VROCE_SCENARIO=$name timeout -k 5 120 bash "$post"
	) >>"$job/$name.post.log" 2>&1 </dev/null || rc=$?
	echo "$rc"
}

# combine STATUS...: FAIL if any failed, else SKIP if any skipped, else PASS.
combine() {
	case " $* " in
	*" FAIL "*) echo FAIL ;;
	*" SKIP "*) echo SKIP ;;
	*) echo PASS ;;
	esac
}

# run_boot ABI KIND SCENARIO...: one boot (KIND single: one VM; pair: two)
# running all the given scenarios.
run_boot() {
	local abi=$1 kind=$2 series job budget f pcap='' roles sfxs s label
	shift 2
	series=$(vt_series "$abi")
	# results say [6.1], [6.12] or [debug]; the boot's own lines its part
	! vt_is_debug "$abi" || series=debug
	label=${BOOT_LABEL:-$series $kind}
	# two boots of one kernel may start in the same second: the job
	# directory's name carries the part too
	job=$(vt_new_job "$series-$kind${BOOT_PART:+-$BOOT_PART}")
	printf '%s\n' "$@" >"$job/scenarios"

	# Host-side limit for the whole boot: the guest enforces every
	# scenario's timeout, so this only catches a hung kernel.
	budget=240
	local scale=1
	! vt_is_debug "$abi" || scale=$VT_DEBUG_TIMEOUT_SCALE
	for f in "$@"; do
		budget=$((budget + $(header "$f" timeout 300) * scale + 30))
		[ "$(header "$f" pcap no)" != yes ] || pcap=1
	done
	budget=${VROCE_BOOT_TIMEOUT:-$budget}

	local nets=() extra=()
	if [ "$kind" = pair ]; then
		roles=(a b) sfxs=(.a .b)
		mapfile -t nets < <(vt_pair_netdevs)
		[ -z "$pcap" ] || extra+=(VROCE_PCAP_DIR=/job)
	else
		roles=(single) sfxs=("")
		nets=("$VT_SINGLE_NETDEV")
	fi
	# Scenario durations and seeds the caller exported (VT_SOAK_SECS=600
	# for the long soak, VT_FUZZ_SEED...) reach the guest.
	local v
	for v in $(compgen -e | grep -E '^VT_[A-Z0-9_]+_(SECS|SEED)$'); do
		extra+=("$v=${!v}")
	done
	vt_write_env "$job" "$abi" scenarios "${extra[@]}"
	echo "== [$label] boot: $# scenario(s), job $job"

	local start=$SECONDS i p
	PIDS=()
	for i in "${!roles[@]}"; do
		p=
		[ "$i" -ne 0 ] || p=${pcap:+$job/wire.pcap}
		vt_qemu_start "$abi" "$job" "${roles[$i]}" "${nets[$i]}" "$p"
		PIDS+=("$VT_QEMU_PID")
	done

	# Wait, printing single-VM results as they come (stream_results).
	local done_names=" " printed=0 line name st tm reason deadline=$((SECONDS + budget))
	local -A shown=()
	local died=0 grace=
	while vt_alive "${PIDS[@]}"; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "!! [$label] boot: no end after ${budget}s, stopping the VM(s)"
			died=1
			break
		fi
		# A pair VM gone early (panic) leaves its peer waiting on
		# barriers: give the peer one minute, then stop it.
		if [ "$kind" = pair ] && [ -z "$grace" ] &&
			{ ! vt_alive "${PIDS[0]}" || ! vt_alive "${PIDS[1]}"; }; then
			grace=$((SECONDS + 60))
		fi
		if [ -n "$grace" ] && [ "$SECONDS" -ge "$grace" ]; then
			echo "!! [$series] one VM of the pair ended, the other did not follow: stopping it"
			break
		fi
		[ "$kind" != single ] || stream_results "$series" "$job"
		sleep 1
	done
	vt_stop "${PIDS[@]}"
	PIDS=()
	# the VMs' host threads are free: the next boot may start while this
	# one's captures are cut and its post-checks run
	[ -z "${VMS_DONE_FILE:-}" ] || : >"$VMS_DONE_FILE"
	# what came after the last look (kmemleak's verdicts at the end)
	[ "$kind" != single ] || stream_results "$series" "$job"
	echo "== [$label] boot ended after $((SECONDS - start)) s"

	[ -z "$pcap" ] || split_pcap "$job" "$@"

	local rc t r sts missing=0 lost="VM died"
	[ "$died" = 0 ] || lost="VM hung (stopped after ${budget}s)"
	for f in "$@"; do
		name=$(basename "$f" .sh)
		case $done_names in *" $name "*) continue ;; esac
		sts=() reason='' tm=0

		for s in "${sfxs[@]}"; do
			line=$(result_of "$job/results$s" "$name")
			if [ -z "$line" ]; then
				sts+=(FAIL) missing=1
				reason="${reason:+$reason; }$lost${s:+ (VM ${s#.})}"

				continue
			fi
			read -r st _ t r <<<"$line"
			sts+=("$st")
			t=${t%s}
			# The slower VM's time is the scenario's time.
			if awk -v a="$t" -v b="$tm" 'BEGIN { exit !(a > b) }'; then tm=$t; fi
			[ -z "$r" ] || reason="${reason:+$reason; }${s:+${s#.}: }$r"
		done
		[ "${#sts[@]}" -gt 0 ] || { sts=(FAIL) reason=$lost missing=1; }

		st=$(combine "${sts[@]}")
		if [ "$st" != FAIL ] || [ "$missing" = 0 ]; then
			rc=$(post_check "$job" "$name" "$abi")
			case $rc in
			"" | 0) ;;
			77) [ "$st" = FAIL ] || st=SKIP ;;
			*) st=FAIL reason="${reason:+$reason; }post-check exit status $rc" ;;
			esac
		fi
		report "$series" "$job" "$name" "$st" "$tm" "$reason" "${sfxs[@]}"
		missing=0
	done

	# The kernel log outside every scenario's window: the boot, between
	# scenarios, and what the console caught after the guest's last dump
	# (module unload, power-off).  Its own result, "kernel-log".
	local kl_st=PASS kl_sfx=() ts
	for s in "${sfxs[@]}"; do
		[ -f "$job/dmesg$s.txt" ] || continue
		ts=$(tail -n 1 "$job/dmesg$s.txt" | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p')
		{
			klog_outside <"$job/dmesg$s.txt" | klog_bad || true
			awk -v t="${ts:-0}" 'match($0, /^\[ *[0-9.]+\]/) {
				v = substr($0, 2, RLENGTH - 2) + 0; if (v > t) print }' \
				"$job/console$s.log" 2>/dev/null | klog_bad || true
		} >"$job/kernel-log$s.kbad"
		if [ -s "$job/kernel-log$s.kbad" ]; then
			kl_st=FAIL
			kl_sfx+=("$s")
		else
			rm -f "$job/kernel-log$s.kbad"
		fi
	done
	if [ -f "$job/dmesg${sfxs[0]}.txt" ]; then
		report "$series" "$job" kernel-log "$kl_st" 0 \
			"${kl_sfx:+a kernel report outside the scenarios}" "${kl_sfx[@]}"
	fi

	# A VM that did not finish: show how it ended.
	for s in "${sfxs[@]}"; do
		if [ "$died" = 1 ] || [ ! -f "$job/dmesg$s.txt" ]; then
			echo "----- serial console of the $kind VM${s:+ ${s#.}} (last 40 lines) -----"
			tail -n 40 "$job/console$s.log" 2>/dev/null || true
			echo "----- end of console -----"
		fi
	done

}

# The boots to make: "ABI KIND PART" (KIND single or pair; PART all, lo
# or hi, see boot_scenarios), each with its scenario list in boot_list.
# Started in this order: the pair boots first (they need every VM slot,
# and would leave a slot idle if they waited for the single boots), then
# the single boots longest first, so that no long one starts last and
# leaves a VM slot idle at the end: as long as the last full run's boots
# took (BOOT_TIMES, written below), else 50-99 before 00-49, the debug
# kernel's first in each.
abis=()
for k in $kernels; do
	abi=$(vt_resolve_abi "$k")
	"$VT_REPO/ci/vm/initramfs.sh" "$abi" >/dev/null
	abis+=("$abi")
done
boots=()
declare -A boot_list=()
add_boot() {
	local l
	l=$(boot_scenarios "$@")
	[ -z "$l" ] || { boot_list[${#boots[@]}]=$l; boots+=("$*"); }
}
for abi in "${abis[@]}"; do add_boot "$abi" pair all; done
for part in hi lo; do
	for abi in "${abis[@]}"; do
		! vt_is_debug "$abi" || add_boot "$abi" single "$part"
	done
	for abi in "${abis[@]}"; do
		vt_is_debug "$abi" || add_boot "$abi" single "$part"
	done
done

# BOOT_TIMES: "SECONDS BOOT NAME" of the last run of every scenario (no
# --filter) with the same --debug-set choice; only the order uses it.
BOOT_TIMES=$VT_CACHE/boot-times${debug_set:+-debug-set}
order_boots() {
	local i n t name
	local -a keyed=()
	[ -z "$filter" ] && [ -s "$BOOT_TIMES" ] || return 0
	for i in "${!boots[@]}"; do
		name=$(boot_name "$i")
		t=$(awk -v n="$name" '{ t = $1; sub(/^[0-9]+ /, "") } $0 == n { print t }' "$BOOT_TIMES")
		# pairs first whatever they took; boots never timed last
		case ${boots[$i]} in *" pair "*) t=999999 ;; esac
		keyed+=("${t:-0} $i")
	done
	local -a ob=() ol=()
	while read -r _ n; do
		ob+=("${boots[$n]}")
		ol+=("${boot_list[$n]}")
	done < <(printf '%s\n' "${keyed[@]}" | sort -s -k1,1nr)
	boots=("${ob[@]}")
	boot_list=()
	for i in "${!ol[@]}"; do boot_list[$i]=${ol[$i]}; done
}

# idle_cpus: the host's CPUs less those busy with other work, at least 1,
# from /proc/stat over two seconds.  Each VM is one host thread and the
# scenarios that measure rates need theirs: with another VM beside a make
# check on 2 CPUs, three guests shared two, and 62, 63 and 67 failed for
# want of CPU (2026-12-06).
# cpu_ticks: the host's busy ticks (user nice system irq softirq steal)
# and all its ticks, from /proc/stat.
cpu_ticks() {
	awk '/^cpu / { b = $2 + $3 + $4 + $7 + $8 + $9; print b, b + $5 + $6 }' /proc/stat
}

idle_cpus() {
	local n b0 t0 b1 t1 busy
	n=$(nproc)
	read -r b0 t0 < <(cpu_ticks)
	sleep 2
	read -r b1 t1 < <(cpu_ticks)
	busy=0
	[ "$t1" -le "$t0" ] || busy=$(((2 * n * (b1 - b0) + t1 - t0) / (2 * (t1 - t0))))
	echo $((n - busy > 0 ? n - busy : 1))
}

# Boots run side by side, as many VMs at once as VROCE_JOBS (default: the
# host's idle CPUs; each VM is one host thread).  A boot that alone needs
# more runs when nothing else does.  Each boot's report goes to its own
# file, printed whole when the boot ends, so the results of two boots
# never interleave; the counts come back the same way.
if [ -n "${VROCE_JOBS:-}" ]; then
	max_vms=$VROCE_JOBS
else
	max_vms=$(idle_cpus)
	[ "$max_vms" -eq "$(nproc)" ] ||
		echo "== $(nproc) CPUs, $(($(nproc) - max_vms)) busy with other work: $max_vms VM(s) at once"
fi
case $max_vms in '' | *[!0-9]* | 0) vt_die "VROCE_JOBS must be a positive number" ;; esac
out_dir=$(mktemp -d "${TMPDIR:-/tmp}/vroce-run.XXXXXX")
declare -A boot_pid=()
total_start=$SECONDS
BOOT_PIDS=()
trap '[ "${#BOOT_PIDS[@]}" -eq 0 ] || kill -TERM "${BOOT_PIDS[@]}" 2>/dev/null; wait; rm -rf "$out_dir"' EXIT

# vms_of I: how many VMs boot I runs.
vms_of() {
	case ${boots[$1]} in
	*" single "*) echo 1 ;;
	*) echo 2 ;;
	esac
}

# boot_name I: boot I as the report names it ("6.1 single 50-99").
boot_name() {
	local abi kind part
	read -r abi kind part <<<"${boots[$1]}"
	case $part in
	lo) part=" 00-49" ;;
	hi) part=" 50-99" ;;
	*) part= ;;
	esac
	if vt_is_debug "$abi"; then
		echo "debug $kind$part"
	else
		echo "$(vt_series "$abi") $kind$part"
	fi
}

# start_boot I: run boot I in the background, its output in $out_dir/I.log
# and its counts in $out_dir/I.counts.
start_boot() {
	local i=$1 abi kind part list
	read -r abi kind part <<<"${boots[$i]}"
	mapfile -t list <<<"${boot_list[$i]}"
	echo "== [$(boot_name "$i")] boot starting ($(date +%T))"
	(
		# this boot's VMs are stopped when it is (traps are not inherited)
		PIDS=()
		trap '[ "${#PIDS[@]}" -eq 0 ] || vt_stop "${PIDS[@]}"' EXIT
		trap 'exit 130' INT TERM
		# shellcheck disable=SC2030 # counted here, summed by finish_boot
		n_pass=0 n_fail=0 n_skip=0
		BOOT_LABEL=$(boot_name "$i")
		BOOT_PART=${part#all}
		VMS_DONE_FILE=$out_dir/$i.vms-done
		run_boot "$abi" "$kind" "${list[@]}"
		echo "$n_pass $n_fail $n_skip" >"$out_dir/$i.counts"
	) >"$out_dir/$i.log" 2>&1 </dev/null &
	boot_pid[$i]=$!
	BOOT_PIDS+=("$!")
}

# finish_boot I: print boot I's report and add up its counts.
finish_boot() {
	local i=$1 p f s
	wait "${boot_pid[$i]}" || true
	cat "$out_dir/$i.log"
	if [ -s "$out_dir/$i.counts" ] && read -r p f s <"$out_dir/$i.counts"; then
		# shellcheck disable=SC2031 # the parent's own counts
		n_pass=$((n_pass + p)) n_fail=$((n_fail + f)) n_skip=$((n_skip + s))
	else
		echo "!! boot $(boot_name "$i") ended without its counts"
		n_fail=$((n_fail + 1))
	fi
	unset "boot_pid[$i]"
}

# running_scenario LOG: the scenario a boot (its report so far in LOG) is
# running: the first of its job's scenarios without a result.
running_scenario() {
	local job f name
	job=$(sed -n 's/.* boot: .* job \(.*\)$/\1/p' "$1")
	[ -n "$job" ] || { echo "(not booted yet)"; return 0; }
	while read -r f; do
		name=$(basename "$f" .sh)
		if ! cat "$job"/results* 2>/dev/null | awk -v n="$name" '$2 == n { found = 1 } END { exit !found }'; then
			echo "$name"
			return 0
		fi
	done <"$job/scenarios"
	echo "(all scenarios done)"
}

# (boot_name above, so only now)
order_boots

# An overall deadline, so that a run that would outlast CI's limit fails
# loudly, naming what was still running, instead of being killed silently.
deadline=$((SECONDS + ${VROCE_DEADLINE_SECS:-4500})) deadline_hit=
running_vms=0
declare -A started=() boot_secs=() boot_start=() released=()
# release I: boot I's VMs no longer hold host threads (they stopped, or the
# boot ended), once.
release() {
	[ -z "${released[$1]:-}" ] || return 0
	released[$1]=1
	running_vms=$((running_vms - $(vms_of "$1")))
}
while [ "${#started[@]}" -lt "${#boots[@]}" ] || [ "${#boot_pid[@]}" -gt 0 ]; do
	for i in "${!boots[@]}"; do
		[ -z "${started[$i]:-}" ] || continue
		need=$(vms_of "$i")
		if [ "$running_vms" -eq 0 ] || [ $((running_vms + need)) -le "$max_vms" ]; then
			start_boot "$i"
			started[$i]=1 boot_start[$i]=$SECONDS
			running_vms=$((running_vms + need))
		fi
	done
	sleep 2
	if [ -z "$deadline_hit" ] && [ "$SECONDS" -ge "$deadline" ]; then
		deadline_hit=1
		for i in "${!boot_pid[@]}"; do
			echo "!! deadline (VROCE_DEADLINE_SECS=${VROCE_DEADLINE_SECS:-4500}) reached: stopping the $(boot_name "$i") boot, running $(running_scenario "$out_dir/$i.log")"
			kill -TERM "${boot_pid[$i]}" 2>/dev/null || true
		done
		for i in "${!boots[@]}"; do
			if [ -z "${started[$i]:-}" ]; then
				echo "!! deadline reached: the $(boot_name "$i") boot never started"
				n_fail=$((n_fail + 1))
				started[$i]=1
			fi
		done
	fi
	for i in "${!boot_pid[@]}"; do
		[ ! -e "$out_dir/$i.vms-done" ] || release "$i"
		if ! kill -0 "${boot_pid[$i]}" 2>/dev/null; then
			release "$i"
			boot_secs[$i]=$((SECONDS - ${boot_start[$i]}))
			finish_boot "$i"
		fi
	done
done
BOOT_PIDS=()

# the next run's order (an unfiltered run's only: a filtered boot is
# shorter); boots this run did not make (another --kernels) keep theirs
if [ -z "$filter" ] && [ -z "$deadline_hit" ]; then
	for i in "${!boots[@]}"; do
		[ -z "${boot_secs[$i]:-}" ] || echo "${boot_secs[$i]} $(boot_name "$i")"
	done >"$BOOT_TIMES.new"
	touch "$BOOT_TIMES"
	awk 'NR == FNR { sub(/^[0-9]+ /, ""); made[$0] = 1; next }
		{ l = $0; sub(/^[0-9]+ /, "") } !made[$0] { print l }' \
		"$BOOT_TIMES.new" "$BOOT_TIMES" >"$BOOT_TIMES.new.old"
	cat "$BOOT_TIMES.new" "$BOOT_TIMES.new.old" >"$BOOT_TIMES.tmp" &&
		mv "$BOOT_TIMES.tmp" "$BOOT_TIMES"
	rm -f "$BOOT_TIMES.new" "$BOOT_TIMES.new.old"
fi

# Where the time went: the parts before this script (ci/check.sh records
# them in VROCE_TIMES_FILE), each boot, and the whole.
echo "== times"
if [ -n "${VROCE_TIMES_FILE:-}" ] && [ -s "$VROCE_TIMES_FILE" ]; then
	sed 's/^/   /' "$VROCE_TIMES_FILE"
fi
for i in "${!boots[@]}"; do
	printf '   %-28s %5s s\n' "boot $(boot_name "$i")" "${boot_secs[$i]:-?}"
done
printf '   %-28s %5s s\n' "boots (side by side)" "$((SECONDS - total_start))"
if [ -n "${VROCE_CHECK_START:-}" ]; then
	printf '   %-28s %5s s\n' "make check in all" "$(($(date +%s) - VROCE_CHECK_START))"
fi
echo "$n_pass passed, $n_fail failed, $n_skip skipped"
[ "$n_fail" -eq 0 ]
