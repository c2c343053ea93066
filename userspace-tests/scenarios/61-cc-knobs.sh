#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /sys/class/infiniband/<dev>/cc/: every file is there, root-writable
# (algos read-only), with its default; valid values read back; out-of-range values and garbage fail
# with EINVAL and keep the old value (each knob: below min, max + 1,
# "abc"); cc/enable sets and clears every roce_np/roce_rp priority, seen
# in cc/roce_{np,rp}_enable (lists, "0,0,0,1,0,0,0,0") and in mlx5's
# layout /sys/class/net/<netdev>/ecn/roce_{np,rp}/enable/<prio>, which
# goes with the device; the port's speed and width (sysfs rate,
# ibv_devinfo) follow cc/line_rate.
# The knob table below is this test's own; the rows of the cc/ table in
# Documentation/congestion-control.md must agree with it.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

# name min max default, as congestion-control.md documents them
KNOBS="
rp_clamp_tgt_rate 0 1 0
rp_clamp_tgt_rate_ati 0 1 1
rp_time_reset 1 131071 300
rp_byte_reset 0 16777215 32767
rp_threshold 1 31 1
rp_ai_rate 1 1600000 5
rp_max_rate 0 1600000 0
rp_hai_rate 1 1600000 50
rp_min_dec_fac 0 100 50
rp_min_rate 1 1600000 1
rp_rate_to_set_on_first_cnp 0 1600000 0
rp_dce_tcp_g 0 1023 1019
rp_dce_tcp_rtt 1 131071 1
rp_rate_reduce_monitor_period 1 4294967295 4
rp_initial_alpha_value 0 1023 1023
rp_gd 0 31 11
np_min_time_between_cnps 0 4095 4
np_cnp_dscp 0 63 48
np_cnp_prio_mode 0 1 0
np_cnp_prio 0 7 6
timely_t_low_us 1 50000 5000
timely_t_high_us 5000 4294967295 50000
timely_min_rtt_us 1 4294967295 2000
timely_add_mbps 1 1600000 10
timely_beta 0 1024 819
timely_ewma 1 1024 20
timely_hai_n 1 4294967295 5
rate_advice 0 1 0
"

# Files are read with $(<FILE), not cat: some 500 reads, each a fork and
# exec of cat, took most of a minute in TCG.

# write_ok FILE VALUE: the write succeeds and reads back as VALUE.
write_ok() {
	local err
	err=$({ printf '%s\n' "$2" >"$1"; } 2>&1) ||
		vt_fail "write '$2' to $1: $err"
	vt_expect_eq "$1 after writing '$2'" "$(<"$1")" "$2"
}

# write_einval FILE VALUE: the write fails with EINVAL, the value stays.
write_einval() {
	local err old
	old=$(<"$1")
	if err=$({ printf '%s\n' "$2" >"$1"; } 2>&1); then
		vt_fail "write '$2' to $1 succeeded"
	fi
	[[ $err == *"Invalid argument"* ]] ||
		vt_fail "write '$2' to $1: '$err', want Invalid argument"
	vt_expect_eq "$1 after a bad write of '$2'" "$(<"$1")" "$old"
}

# prios SIDE: cc/roce_SIDE_enable as one string of eight digits, after
# checking that mlx5's ecn/roce_SIDE/enable/<prio> files agree with it.
prios() {
	local p l s='' e=''
	l=$(<"$CC/roce_$1_enable")
	s=${l//,/}
	for p in 0 1 2 3 4 5 6 7; do
		e+=$(<"$ECN/roce_$1/enable/$p")
	done
	vt_expect_eq "ecn/roce_$1/enable/* against cc/roce_$1_enable" "$e" "$s"
	echo "$s"
}

# port_rate: "25 Gb/sec (1X EDR)", as ib_core's sysfs prints query_port.
port_rate() { cat "$(vt_sys vroce0)/ports/1/rate"; }

vt_load_vroce
ip link set eth0 up
vt_link_add vroce0 eth0
CC=$(vt_sys vroce0)/cc
ECN=/sys/class/net/eth0/ecn
[ -d "$CC" ] || vt_fail "no $CC"
[ -d "$ECN" ] || vt_fail "no $ECN"

# The line rate starts at the netdev's speed, 0 when it has none.
speed=$(cat /sys/class/net/eth0/speed 2>/dev/null) || speed=-1
[ "${speed:--1}" -gt 0 ] 2>/dev/null || speed=0
rate0=$(port_rate)
vt_log "eth0 speed $speed Mb/s, port rate '$rate0'"

# --- every file, its mode and default ---
files="enable flavour line_rate cnp_delay_us"
while read -r name _ _ _; do
	[ -n "$name" ] && files+=" $name"
done <<<"$KNOBS"
files+=" roce_np_enable roce_rp_enable algo"
n=0
for f in $files; do
	[ -f "$CC/$f" ] || vt_fail "no cc/$f"
	vt_expect_eq "mode of cc/$f" "$(stat -c %a "$CC/$f")" 644
	n=$((n + 1))
done
[ -f "$CC/algos" ] || vt_fail "no cc/algos"
vt_expect_eq "mode of cc/algos" "$(stat -c %a "$CC/algos")" 444
n=$((n + 1))
got=$(cd "$CC" && find . -type f | wc -l)
vt_expect_eq "files under cc/" "$got" "$n"
got=$(cd "$CC" && find . -mindepth 1 -type d | wc -l)
vt_expect_eq "directories under cc/" "$got" 0
necn=0
for p in 0 1 2 3 4 5 6 7; do
	for f in roce_np/enable/$p roce_rp/enable/$p; do
		[ -f "$ECN/$f" ] || vt_fail "no ecn/$f"
		vt_expect_eq "mode of ecn/$f" "$(stat -c %a "$ECN/$f")" 644
		necn=$((necn + 1))
	done
done
got=$(cd "$ECN" && find . -type f | wc -l)
vt_expect_eq "files under ecn/" "$got" "$necn"

vt_expect_eq "cc/enable default" "$(<"$CC/enable")" 0
vt_expect_eq "cc/flavour default" "$(<"$CC/flavour")" nvidia
vt_expect_eq "cc/line_rate default" "$(<"$CC/line_rate")" "$speed"
vt_expect_eq "cc/cnp_delay_us default" "$(<"$CC/cnp_delay_us")" 0
vt_expect_eq "cc/algo default" "$(<"$CC/algo")" dcqcn
vt_expect_eq "cc/algos" "$(<"$CC/algos")" "dcqcn none timely"
vt_expect_eq "roce_np default" "$(prios np)" 00000000
vt_expect_eq "roce_rp default" "$(prios rp)" 00000000

# --- the documentation's table agrees with this one ---
DOC=$VROCE_SRC/Documentation/congestion-control.md
doc=$(sed -n '/^## The cc\/ directory/,/^## /p' "$DOC")
[ -n "$doc" ] || vt_fail "no '## The cc/ directory' in $DOC"

# --- each knob: default, valid values, bad values ---
while read -r name min max def; do
	[ -n "$name" ] || continue
	f=$CC/$name
	vt_expect_eq "cc/$name default" "$(<"$f")" "$def"
	row=$(grep -E "^\| *\`?$name\`? *\|" <<<"$doc") ||
		vt_fail "$name is not in the cc/ table of $DOC"
	IFS='|' read -r _ _ _ drange ddef _ <<<"$row"
	drange=$(tr -d ' ' <<<"$drange" | sed 's/–/-/')
	vt_expect_eq "documented range of $name" "${drange%%(*}" "$min-$max"
	vt_expect_eq "documented default of $name" "$(tr -d ' ' <<<"$ddef")" "$def"

	write_ok "$f" "$max"
	write_ok "$f" "$min"
	mid=$(((min + max) / 2))
	write_ok "$f" "$mid"
	write_einval "$f" $((max + 1))
	[ "$min" -gt 0 ] && write_einval "$f" $((min - 1))
	write_einval "$f" abc
	write_einval "$f" -1
	write_einval "$f" 99999999999999999999
	write_einval "$f" ""
	write_einval "$f" "1 2"
	vt_expect_eq "cc/$name after the bad writes" "$(<"$f")" "$mid"
	write_ok "$f" "$def"
done <<<"$KNOBS"

# --- flavour: a name; the knobs stay as they are ---
write_ok "$CC/rp_time_reset" 77
write_ok "$CC/flavour" paper
vt_expect_eq "rp_time_reset after flavour=paper" "$(<"$CC/rp_time_reset")" 77
write_einval "$CC/flavour" foo
write_einval "$CC/flavour" ""
write_einval "$CC/flavour" 1
write_ok "$CC/flavour" nvidia
write_ok "$CC/rp_time_reset" 300

# --- enable and the per-priority files ---
write_ok "$CC/enable" 1
vt_expect_eq "roce_np after enable=1" "$(prios np)" 11111111
vt_expect_eq "roce_rp after enable=1" "$(prios rp)" 11111111
write_ok "$CC/enable" 0
vt_expect_eq "roce_np after enable=0" "$(prios np)" 00000000
vt_expect_eq "roce_rp after enable=0" "$(prios rp)" 00000000
for bad in 2 abc -1 ""; do
	write_einval "$CC/enable" "$bad"
done
write_ok "$CC/roce_np_enable" 0,0,0,1,0,0,0,0
vt_expect_eq "roce_np with prio 3" "$(prios np)" 00010000
vt_expect_eq "roce_rp with np prio 3" "$(prios rp)" 00000000
vt_expect_eq "cc/enable with one np prio" "$(<"$CC/enable")" 1
write_ok "$ECN/roce_rp/enable/7" 1
vt_expect_eq "roce_rp with prio 7" "$(prios rp)" 00000001
for bad in 2 abc ""; do
	write_einval "$ECN/roce_np/enable/0" "$bad"
	write_einval "$ECN/roce_rp/enable/7" "$bad"
done
for bad in 0,0,0,0,0,0,0 0,0,0,0,0,0,0,0,0 0,0,0,0,0,0,0,2 00000000 \
	"0 0 0 0 0 0 0 0" "0,0,0,0,0,0,0,0," ",0,0,0,0,0,0,0,0" 1 abc ""; do
	write_einval "$CC/roce_np_enable" "$bad"
	write_einval "$CC/roce_rp_enable" "$bad"
done
write_ok "$ECN/roce_np/enable/3" 0
write_ok "$CC/roce_rp_enable" 0,0,0,0,0,0,0,0
vt_expect_eq "cc/enable with no prio" "$(<"$CC/enable")" 0
write_ok "$CC/enable" 1
write_ok "$ECN/roce_rp/enable/0" 0
vt_expect_eq "roce_rp after clearing prio 0" "$(prios rp)" 01111111
vt_expect_eq "cc/roce_rp_enable after clearing prio 0" \
	"$(<"$CC/roce_rp_enable")" 0,1,1,1,1,1,1,1
vt_expect_eq "cc/enable with some prios" "$(<"$CC/enable")" 1
write_ok "$CC/roce_rp_enable" 1,0,1,0,1,0,1,0
vt_expect_eq "roce_rp written as a list" "$(prios rp)" 10101010
write_ok "$CC/enable" 0

# --- cnp_delay_us ---
write_ok "$CC/cnp_delay_us" 1000000
write_ok "$CC/cnp_delay_us" 500
for bad in 1000001 abc -1 ""; do
	write_einval "$CC/cnp_delay_us" "$bad"
done
write_ok "$CC/cnp_delay_us" 0

# --- line_rate: query_port's speed and width follow it ---
# mbps sysfs-rate ibv_devinfo-speed ibv_devinfo-width
while read -r mbps rate ispeed iwidth; do
	[ -n "$mbps" ] || continue
	write_ok "$CC/line_rate" "$mbps"
	got=$(port_rate)
	vt_expect_eq "port rate at line_rate $mbps" "$got" "${rate//_/ }"
	info=$(ibv_devinfo -v -d vroce0 2>&1) || vt_fail "ibv_devinfo: $info"
	grep -qE "active_speed:[[:space:]]+$ispeed Gbps" <<<"$info" ||
		vt_fail "line_rate $mbps: $(grep active_speed <<<"$info"), want $ispeed Gbps"
	grep -qE "active_width:[[:space:]]+$iwidth " <<<"$info" ||
		vt_fail "line_rate $mbps: $(grep active_width <<<"$info"), want $iwidth"
	vt_log "line_rate $mbps: $got"
done <<'EOT'
1 2.5_Gb/sec_(1X_SDR) 2.5 1X
100 2.5_Gb/sec_(1X_SDR) 2.5 1X
1000 2.5_Gb/sec_(1X_SDR) 2.5 1X
10000 10_Gb/sec_(1X_FDR10) 10.0 1X
25000 25_Gb/sec_(1X_EDR) 25.0 1X
25001 40_Gb/sec_(4X_FDR10) 10.0 4X
100000 100_Gb/sec_(4X_EDR) 25.0 4X
400000 400_Gb/sec_(4X_NDR) 100.0 4X
EOT
for bad in 1600001 abc -1 ""; do
	write_einval "$CC/line_rate" "$bad"
done
write_ok "$CC/line_rate" 1600000
# Back to the default: the port reports what it did at creation.
write_ok "$CC/line_rate" "$speed"
vt_expect_eq "port rate after line_rate $speed" "$(port_rate)" "$rate0"

# --- settings do not outlive the device; writers race the removal ---
write_ok "$CC/rp_ai_rate" 9
(
	end=$((SECONDS + 5))
	while [ -e "$CC/rp_ai_rate" ] && [ $SECONDS -lt $end ]; do
		echo 7 2>/dev/null >"$CC/rp_ai_rate"
		cat 2>/dev/null "$CC/roce_np_enable" >/dev/null
		echo 1 2>/dev/null >"$ECN/roce_rp/enable/1"
	done
) &
writer=$!
sleep 0.2
rdma link delete vroce0 || vt_fail "rdma link delete"
wait "$writer"
[ -e "$CC" ] && vt_fail "cc/ outlived vroce0"
# dealloc_driver removes ecn/ from eth0; the deletion may still run
vt_wait_for "[ ! -e $ECN ]" 10 || vt_fail "ecn/ outlived vroce0"
vt_link_add vroce0 eth0
vt_expect_eq "rp_ai_rate of a new device" "$(<"$CC/rp_ai_rate")" 5
vt_expect_eq "ecn/roce_rp/enable/1 of a new device" \
	"$(<"$ECN/roce_rp/enable/1")" 0
rdma link delete vroce0 || vt_fail "rdma link delete"

# --- a netdev with a speed: veth says 10000 Mb/s ---
ip link add vtcc0 type veth peer name vtcc1 || vt_fail "veth"
ip link set vtcc0 up && ip link set vtcc1 up
vspeed=$(cat /sys/class/net/vtcc0/speed)
vt_link_add vroce1 vtcc0
vt_expect_eq "line_rate on veth" "$(<"$(vt_sys vroce1)/cc/line_rate")" "$vspeed"
vt_expect_eq "port rate on veth" "$(<"$(vt_sys vroce1)/ports/1/rate")" \
	"10 Gb/sec (1X FDR10)"
rdma link delete vroce1 || vt_fail "rdma link delete vroce1"
ip link del vtcc0

vt_pass "$n files in cc/, $necn in ecn/, defaults, ranges, EINVAL keeps values, enable, flavour, line_rate -> port speed"
