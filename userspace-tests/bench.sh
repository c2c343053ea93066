#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What "make bench" runs inside the VM: vroce against rdma_rxe in this one
# boot.  The two cannot be loaded together, so each repetition loads rxe,
# measures, unloads it, then does the same with vroce (the order alternates
# between repetitions so neither always runs on a warmer guest).  Server and
# client share one device: both drivers' loopback path.  Prints every
# sample, then the medians, the ratios vroce/rxe and the targets.
#
# perftest waits for completions with events (-e), not by polling: the
# test VM's two vCPUs share one emulator thread, so a polling process holds
# its vCPU until the next timer tick, and polled latencies come out as one
# tick (4 ms) for any driver.  Events leave the vCPU to whoever has work.
#
# A vroce perftest that hangs (no exit within 60 s) or fails ends the run
# at once with exit status 1, its output and the kernel log's last lines:
# that is a vroce bug.  rdma_rxe's hangs and runs without numbers are
# missing samples ("-"), as are vroce's runs without numbers.
#
# With VROCE_KO_BASE (other builds of vroce.ko, space-separated, e.g.
# older commits': ci/bench.sh's VROCE_BENCH_BASE; PATH.ko:NAME=VALUE,...
# loads one with module parameters) each module is measured
# too, as driver "base1", "base2", ..., in the same rotation, and the
# report adds each one's median and the ratio vroce/baseN: a change's
# effect on the data path, or where between several commits it came, in
# one boot.
#
# Environment: VROCE_BENCH_REPS (repetitions, default 5), VROCE_KO_BASE.
set -euo pipefail

reps=${VROCE_BENCH_REPS:-5}
ko=${VROCE_KO:?VROCE_KO: the vroce.ko to measure}
read -r -a base_kos <<<"${VROCE_KO_BASE:-}"
drivers="rxe vroce"
for i in "${!base_kos[@]}"; do
	drivers="$drivers base$((i + 1))"
	echo "bench: base$((i + 1)) is ${base_kos[i]}" >&2
done
ip4=$(ip -4 -o addr show dev eth0 | awk '!done {split($4, a, "/"); print a[1]; done = 1}')
samples=$(mktemp)
failure=$(mktemp)
port=19000

up() {
	local b params
	case $1 in
	rxe)
		modprobe rdma_rxe
		rdma link add bench0 type rxe netdev eth0
		;;
	vroce | base*)
		# what vroce.ko links against (removing rxe may unload them)
		modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel
		if [ "$1" = vroce ]; then
			insmod "$ko"
		else
			# PATH.ko or PATH.ko:NAME=VALUE,NAME=VALUE
			b=${base_kos[${1#base} - 1]}
			params=
			[ "${b%%:*}" = "$b" ] || params=${b#*:}
			# shellcheck disable=SC2086 # one word per parameter
			insmod "${b%%:*}" ${params//,/ }
		fi
		rdma link add bench0 type vroce netdev eth0
		;;
	esac
}

down() {
	rdma link delete bench0
	case $1 in
	rxe) modprobe -r rdma_rxe ;;
	vroce | base*) rmmod vroce ;;
	esac
}

# ipv4_gid: bench0's IPv4 RoCE v2 GID index, as show_gids finds it: 3 on
# vroce (RoCE v1 and v2 GIDs, as ConnectX), 1 on rdma_rxe and on a vroce
# built before RoCE v1 (a base module)
ipv4_gid() {
	local d=/sys/class/infiniband/bench0/ports/1 f t
	for f in $(grep -l ':ffff:' "$d"/gids/* 2>/dev/null); do
		t=
		read -r t <"$d/gid_attrs/types/${f##*/}" 2>/dev/null || true
		if [ "$t" = "RoCE v2" ]; then
			echo "${f##*/}"
			return
		fi
	done
	echo 1
}

# listening PORT: wait (up to 20 s) until a server listens on TCP PORT
listening() {
	local _

	for _ in $(seq 1 100); do
		[ -z "$(ss -Hltn "sport = :$1")" ] || return 0
		sleep 0.2
	done
	return 1
}

# perftest DRIVER PROG ARGS...: server and client on bench0; prints the
# client's first result line (the numbers under perftest's "#bytes"
# header).  A run without numbers is retried once, then counts as a
# missing sample ("- - - - -"): perftest cannot always fit the guest's
# clock (TCG), and with -F it then reports zeros.  On rdma_rxe a hang is
# a missing sample too (its event mode hangs now and then: the reply
# overtakes the ACK, see resp.c's vroce_resp_signal()).  On vroce a
# program that hangs (no exit within 60 s) or fails is a bug: say so and
# return 1, which ends the run.
perftest() {
	local drv=$1 prog=$2 out srv rc src gid _
	shift 2
	gid=$(ipv4_gid)
	for _ in 1 2; do
		port=$((port + 1))
		timeout -k 5 60 "$prog" -d bench0 -x "$gid" -F -e -p "$port" "$@" \
			>/dev/null 2>&1 &
		srv=$!
		listening "$port" ||
			echo "bench: $prog server not listening on $port after 20 s" >&2
		rc=0
		out=$(timeout -k 5 60 "$prog" -d bench0 -x "$gid" -F -e -p "$port" \
			"$@" "$ip4" 2>&1) || rc=$?
		src=0
		wait "$srv" || src=$?
		if [ "$drv" != rxe ] && [ "$rc$src" != 00 ]; then
			vroce_failed "$prog $*" "$rc" "$src" "$out"
			return 1
		fi
		out=$(awk '/#bytes/ { hdr = 1; next }
			   hdr && $1 ~ /^[0-9]+$/ && $4 + 0 > 0 { print; exit }' \
			<<<"$out")
		if [ -n "$out" ]; then
			echo "$out"
			return 0
		fi
	done
	echo "bench: $drv: $prog $* produced no result" >&2
	echo "- - - - -"
}

# status RC: what a timeout(1) exit status means
status() {
	case $1 in
	124 | 137) echo "hung (killed after 60 s)" ;;
	*) echo "exit $1" ;;
	esac
}

# vroce_failed WHAT CLIENT_RC SERVER_RC OUT: what went wrong, into
# $failure (perftest() runs in a command substitution: the main loop
# prints it)
vroce_failed() {
	{
		echo "bench: FAIL: vroce: $1: client $(status "$2"), server $(status "$3")"
		echo "bench: client output (last lines):"
		tail -n 8 <<<"$4" | sed 's/^/    /'
		echo "bench: kernel log (last lines):"
		dmesg | tail -n 20 | sed 's/^/    /'
	} >"$failure"
}

# sample DRIVER REP: one measurement of each metric, appended to
# $samples; returns 1 when vroce failed (perftest() said how)
sample() {
	local drv=$1 rep=$2 line
	line=$(perftest "$drv" ib_send_bw -s 65536 -n 2000) || return 1
	# columns: bytes iterations BW-peak BW-average(MB/s) MsgRate(Mpps)
	echo "$drv bw_MBps $rep $(awk '{print $4}' <<<"$line")" >>"$samples"
	line=$(perftest "$drv" ib_send_bw -s 64 -n 20000) || return 1
	echo "$drv rate_Mpps $rep $(awk '{print $5}' <<<"$line")" >>"$samples"
	line=$(perftest "$drv" ib_send_lat -s 8 -n 1000) || return 1
	# columns: bytes iterations t_min t_max t_typical(us) ...
	echo "$drv lat_us $rep $(awk '{print $5}' <<<"$line")" >>"$samples"
}

modprobe -a ib_core ib_uverbs
if lsmod | grep '^vroce ' >/dev/null; then
	rmmod vroce
fi
for rep in $(seq 1 "$reps"); do
	# rotate the order, so that no driver always runs first, and
	# reverse it every other repetition, so that no driver always runs
	# right after the same one: with a rotation alone "vroce" always
	# followed rdma_rxe's unload, and measured 9 % below the same
	# vroce.ko loaded as a base in that boot (7 Dec 2026)
	order=$drivers
	for _ in $(seq 2 "$rep"); do order="${order#* } ${order%% *}"; done
	if [ $((rep % 2)) = 0 ]; then
		order=$(tr ' ' '\n' <<<"$order" | tac | tr '\n' ' ')
	fi
	for drv in $order; do
		up "$drv"
		if ! sample "$drv" "$rep"; then
			cat "$failure"
			echo "samples so far (driver metric repetition value):"
			cat "$samples"
			echo "bench: FAIL: $drv (vroce) hung or failed in repetition $rep of $reps: a bug, not a missing sample; no report"
			exit 1
		fi
		down "$drv"
	done
	echo "bench: repetition $rep of $reps done" >&2
done

echo "samples (driver metric repetition value):"
cat "$samples"
echo
# medians, ratio vroce/rxe, and the target of each metric (latency: lower
# is better, so its target is a ratio at most 0.7)
awk '
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
$4 != "-" { v[$1, $2] = v[$1, $2] " " $4; seen[$1] = 1 }
END {
	split("bw_MBps rate_Mpps lat_us", m, " ")
	target["bw_MBps"] = ">= 3"
	target["rate_Mpps"] = ">= 2"
	target["lat_us"] = "<= 0.7"
	for (nb = 0; ("base" (nb + 1)) in seen; nb++)
		;
	printf "%-10s %12s %12s %8s %8s", "metric", "rxe", "vroce", "ratio", "target"
	for (k = 1; k <= nb; k++)
		printf " %12s %12s", "base" k, "vroce/base" k
	printf "\n"
	for (i = 1; i <= 3; i++) {
		if (!(("rxe", m[i]) in v) || !(("vroce", m[i]) in v)) {
			printf "%-10s %12s %12s %8s %8s", m[i], "-", "-", "-", target[m[i]]
		} else {
			r = median(v["rxe", m[i]]); o = median(v["vroce", m[i]])
			printf "%-10s %12.3f %12.3f %8.2f %8s", m[i], r, o, r ? o / r : 0, target[m[i]]
		}
		for (k = 1; k <= nb; k++) {
			if ((("base" k), m[i]) in v && ("vroce", m[i]) in v) {
				b = median(v["base" k, m[i]]); o = median(v["vroce", m[i]])
				printf " %12.3f %12.2f", b, b ? o / b : 0
			} else {
				printf " %12s %12s", "-", "-"
			}
		}
		printf "\n"
	}
}' "$samples"
rm -f "$samples" "$failure"
