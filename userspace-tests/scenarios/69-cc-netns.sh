#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 180
#
# Congestion-control knobs from inside a network namespace (issue 25).  In
# ib_core's shared netns mode /sys/class/infiniband/<dev> seen from another
# namespace is ib_core's compat device, which carries the driver's
# attribute group (cc/) but no hand-made kobject.  Two namespaces, vtA and
# vtB, a vroce device in each (vt_vroce_netns_pair).  From inside each
# namespace (one ip netns exec bash per namespace, shell builtins only):
#   - every file of cc/ takes a valid value other than its current one and
#     reads it back; out of range, garbage ("abc", "-1") and empty writes
#     fail with EINVAL and keep the value; the old value is restored; no
#     file of cc/ is left untested; cc/algo takes another algorithm of
#     the read-only cc/algos, for every priority or one per priority,
#     refuses unknown names and lists of other than 8 with EINVAL;
#   - cc/roce_{np,rp}_enable ("0,0,0,1,0,0,0,0") and mlx5's layout under
#     the device's netdev, /sys/class/net/<netdev>/ecn/roce_{np,rp}/
#     enable/<prio>, every priority written through one layout and read
#     through the other; bad lists (7 or 9 entries, a 2, no commas, a
#     trailing comma, garbage, empty) and bad priority values fail with
#     EINVAL and keep the old value; cc/enable sets and clears both;
#   - rdma statistic shows the device's counters (np_cnp_sent,
#     out_of_sequence).
# Then: what vtA writes, the init namespace and vtB read (one device), and
# the other way round; the netdev's ecn/ is only in the netdev's
# namespace; moving the netdev to another namespace (vroceA goes) and
# deleting it (vroceB goes) leave no ecn/ behind (the runner fails the
# scenario on any kernel splat).
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"
. "$VROCE_SRC/userspace-tests/lib/cc.sh"

# cc/'s numeric files: name min max (the knobs as in 61-cc-knobs)
export KNOBS="
enable 0 1
line_rate 0 1600000
cnp_delay_us 0 1000000
rate_advice 0 1
rp_clamp_tgt_rate 0 1
rp_clamp_tgt_rate_ati 0 1
rp_time_reset 1 131071
rp_byte_reset 0 16777215
rp_threshold 1 31
rp_ai_rate 1 1600000
rp_max_rate 0 1600000
rp_hai_rate 1 1600000
rp_min_dec_fac 0 100
rp_min_rate 1 1600000
rp_rate_to_set_on_first_cnp 0 1600000
rp_dce_tcp_g 0 1023
rp_dce_tcp_rtt 1 131071
rp_rate_reduce_monitor_period 1 4294967295
rp_initial_alpha_value 0 1023
rp_gd 0 31
np_min_time_between_cnps 0 4095
np_cnp_dscp 0 63
np_cnp_prio_mode 0 1
np_cnp_prio 0 7
timely_t_low_us 1 50000
timely_t_high_us 5000 4294967295
timely_min_rtt_us 1 4294967295
timely_add_mbps 1 1600000
timely_beta 0 1024
timely_ewma 1 1024
timely_hai_n 1 4294967295
"

# INNER DEV NETDEV NS: run inside namespace NS; prints "ok N" (N checks)
# or one "FAIL: ..." line.  Builtins only, but for one mktemp.
# shellcheck disable=SC2016
INNER='
dev=$1 nd=$2 ns=$3
cc=/sys/class/infiniband/$dev/cc ecn=/sys/class/net/$nd/ecn
E=$(mktemp) || exit 1
trap "rm -f $E" EXIT
n=0
declare -A tested
fail() { echo "FAIL: $dev in $ns: $*"; exit 1; }
rd() { read -r v <"$1" || fail "cannot read $1"; }
wr_ok() {
	printf "%s\n" "$2" 2>"$E" >"$1" || { read -r m <"$E"; fail "write $2 to $1: $m"; }
	rd "$1"
	[ "$v" = "$2" ] || fail "$1 reads $v after writing $2"
	n=$((n + 1))
}
wr_bad() {
	local old m
	rd "$1"
	old=$v
	if printf "%s\n" "$2" 2>"$E" >"$1"; then fail "write \"$2\" to $1 succeeded"; fi
	read -r m <"$E"
	[[ $m == *"Invalid argument"* ]] || fail "write \"$2\" to $1: \"$m\", want Invalid argument"
	rd "$1"
	[ "$v" = "$old" ] || fail "$1 reads $v after the bad write \"$2\", was $old"
	n=$((n + 1))
}
# mk P: lst = the list with priority P alone set (P = -1, 8: none, all)
mk() {
	local q
	lst=
	for q in 0 1 2 3 4 5 6 7; do
		lst+=${lst:+,}$(( q == $1 || $1 == 8 ))
	done
}
# ecn_is SIDE LIST: ecn/roce_SIDE/enable/<prio> read as LIST says
ecn_is() {
	local q e=
	for q in 0 1 2 3 4 5 6 7; do
		rd "$ecn/roce_$1/enable/$q"
		e+=${e:+,}$v
	done
	[ "$e" = "$2" ] || fail "ecn/roce_$1/enable/* read $e, cc/roce_$1_enable $2"
	n=$((n + 1))
}

[ -d "$cc" ] || fail "no $cc"
[ -d "$ecn" ] || fail "no $ecn"

# numeric files
while read -r name min max; do
	[ -n "$name" ] || continue
	f=$cc/$name
	rd "$f"
	old=$v
	if [ "$old" != "$min" ]; then alt=$min; else alt=$max; fi
	wr_ok "$f" "$alt"
	wr_bad "$f" $((max + 1))
	[ "$min" -gt 0 ] && wr_bad "$f" $((min - 1))
	for bad in abc -1 "" "1 2"; do wr_bad "$f" "$bad"; done
	wr_ok "$f" "$old"
	tested[$name]=1
done <<<"$KNOBS"

# flavour
rd "$cc/flavour"
old=$v
[ "$old" = nvidia ] && alt=paper || alt=nvidia
wr_ok "$cc/flavour" "$alt"
for bad in foo "" 1; do wr_bad "$cc/flavour" "$bad"; done
wr_ok "$cc/flavour" "$old"
tested[flavour]=1

# the per-priority enables, both layouts
for side in np rp; do
	L=$cc/roce_${side}_enable
	D=$ecn/roce_$side/enable
	rd "$L"
	oldl=$v
	for p in 0 1 2 3 4 5 6 7; do
		mk "$p"
		wr_ok "$L" "$lst"
		ecn_is "$side" "$lst"
	done
	mk -1
	wr_ok "$L" "$lst"
	for p in 0 1 2 3 4 5 6 7; do
		wr_ok "$D/$p" 1
		mk "$p"
		rd "$L"
		[ "$v" = "$lst" ] || fail "$L reads $v after ecn/roce_$side/enable/$p = 1"
		wr_ok "$D/$p" 0
	done
	wr_ok "$L" 0,1,0,0,0,0,0,1
	for bad in 0,0,0,0,0,0,0 0,0,0,0,0,0,0,0,0 0,0,0,2,0,0,0,0 00000000 \
		"0 0 0 0 0 0 0 0" "0,0,0,0,0,0,0,0," ",0,0,0,0,0,0,0,0" 0,,0,0,0,0,0,0 \
		1 abc ""; do
		wr_bad "$L" "$bad"
	done
	for bad in 2 abc -1 ""; do
		wr_bad "$D/0" "$bad"
		wr_bad "$D/7" "$bad"
	done
	ecn_is "$side" 0,1,0,0,0,0,0,1
	wr_ok "$L" "$oldl"
	tested[roce_${side}_enable]=1
done

# the algorithm: any of algos (read-only), nothing else
rd "$cc/algos"
algos=$v
[[ " $algos " == *" dcqcn "* && " $algos " == *" none "* ]] ||
	fail "cc/algos reads \"$algos\", want dcqcn and none among them"
if printf "x\n" 2>/dev/null >"$cc/algos"; then fail "cc/algos is writable"; fi
rd "$cc/algo"
old=$v
[ "$old" = dcqcn ] && alt=none || alt=dcqcn
wr_ok "$cc/algo" "$alt"
for bad in nosuch "" "dcqcn none" DCQCN dcqcnx "dcqcn," ",dcqcn" \
	dcqcn,none,dcqcn,dcqcn,dcqcn,dcqcn,dcqcn \
	dcqcn,none,dcqcn,dcqcn,dcqcn,dcqcn,dcqcn,dcqcn,dcqcn \
	dcqcn,none,dcqcn,dcqcn,nosuch,dcqcn,dcqcn,dcqcn \
	dcqcn,none,dcqcn,dcqcn,,dcqcn,dcqcn,dcqcn; do
	wr_bad "$cc/algo" "$bad"
done
# per priority, read back as written; eight alike read as one name
wr_ok "$cc/algo" none,dcqcn,dcqcn,dcqcn,dcqcn,dcqcn,dcqcn,none
wr_ok "$cc/algo" "$alt"
printf "%s\n" "$old,$old,$old,$old,$old,$old,$old,$old" >"$cc/algo" ||
	fail "eight times $old refused"
rd "$cc/algo"
[ "$v" = "$old" ] || fail "cc/algo reads $v after eight times $old"
n=$((n + 1))
tested[algo]=1 tested[algos]=1

# cc/enable sets and clears both roles on every priority
rd "$cc/enable"
olde=$v
wr_ok "$cc/enable" 1
mk 8
for side in np rp; do
	rd "$cc/roce_${side}_enable"
	[ "$v" = "$lst" ] || fail "roce_${side}_enable reads $v after enable=1"
	ecn_is "$side" "$lst"
done
wr_ok "$cc/enable" 0
mk -1
for side in np rp; do
	rd "$cc/roce_${side}_enable"
	[ "$v" = "$lst" ] || fail "roce_${side}_enable reads $v after enable=0"
	ecn_is "$side" "$lst"
done
wr_ok "$cc/enable" "$olde"

# nothing in cc/ was left out
for f in "$cc"/*; do
	[ -n "${tested[${f##*/}]:-}" ] || fail "cc/${f##*/} not tested"
done
echo "ok $n"
'

# inside NS DEV NETDEV: run INNER in namespace NS; fail on its FAIL.
inside() {
	local out
	out=$(ip netns exec "$1" bash -c "$INNER" inner "$2" "$3" "$1" 2>&1)
	[[ $out == "ok "* ]] || vt_fail "inside $1: ${out:-no output}"
	vt_log "inside $1: $2 and ecn/ of $3: ${out#ok } checks"
	checks=$((checks + ${out#ok }))
}

# nsread NS FILE: FILE as namespace NS reads it
nsread() { ip netns exec "$1" cat "$2" || vt_fail "ip netns exec $1 cat $2"; }

# shellcheck disable=SC2119
vt_load_vroce
mode=$(rdma system show) || vt_fail "rdma system show"
[[ $mode == *"netns shared"* ]] ||
	vt_skip "RDMA netns mode is not shared ($mode): no compat devices"
vt_vroce_netns_pair

checks=0
inside vtA vroceA vtA
inside vtB vroceB vtB

# the counters, from inside a namespace
for ns in vtA vtB; do
	d=vroce${ns#vt}
	st=$(ip netns exec "$ns" rdma statistic show link "$d/1") ||
		vt_fail "ip netns exec $ns rdma statistic show link $d/1"
	for c in np_cnp_sent out_of_sequence; do
		[[ " $st " == *" $c "* ]] || vt_fail "$ns: no $c in: $st"
	done
done

# one device, whatever namespace looks at it
A=$(vt_sys vroceA)/cc
B=$(vt_sys vroceB)/cc
ip netns exec vtA bash -c "
	echo 77 >$A/rp_ai_rate && echo 0,0,1,0,0,0,0,0 >$A/roce_np_enable &&
	echo 1 >/sys/class/net/vtA/ecn/roce_rp/enable/6 && echo paper >$A/flavour" ||
	vt_fail "writes inside vtA"
vt_expect_eq "init reads vroceA rp_ai_rate" "$(cat "$A/rp_ai_rate")" 77
vt_expect_eq "init reads vroceA roce_np_enable" "$(cat "$A/roce_np_enable")" 0,0,1,0,0,0,0,0
vt_expect_eq "init reads vroceA roce_rp_enable" "$(cat "$A/roce_rp_enable")" 0,0,0,0,0,0,1,0
vt_expect_eq "init reads vroceA flavour" "$(cat "$A/flavour")" paper
vt_expect_eq "vtB reads vroceA rp_ai_rate" "$(nsread vtB "$A/rp_ai_rate")" 77
vt_expect_eq "vroceB rp_ai_rate untouched" "$(cat "$B/rp_ai_rate")" 5
vt_expect_eq "vroceB roce_np_enable untouched" "$(cat "$B/roce_np_enable")" 0,0,0,0,0,0,0,0
{ echo 5 >"$A/rp_ai_rate" && echo 0,0,0,0,0,0,0,0 >"$A/roce_np_enable" &&
	echo 0,0,0,0,0,0,0,0 >"$A/roce_rp_enable" && echo nvidia >"$A/flavour"; } ||
	vt_fail "writes in the init namespace"
vt_expect_eq "vtA reads rp_ai_rate" "$(nsread vtA "$A/rp_ai_rate")" 5
vt_expect_eq "vtA reads its ecn/roce_rp/enable/6" \
	"$(nsread vtA /sys/class/net/vtA/ecn/roce_rp/enable/6)" 0
vt_expect_eq "vtA reads flavour" "$(nsread vtA "$A/flavour")" nvidia

# ecn/ lives with the netdev, in the netdev's namespace only
[ -e /sys/class/net/vtA ] && vt_fail "vtA's netdev is visible in the init namespace"
ip netns exec vtA test -e /sys/class/net/vtB/ecn && vt_fail "vtB's ecn/ is visible in vtA"

# the netdev leaves for the init namespace: vroceA goes, ecn/ with it
ip -n vtA link set vtA netns 1 || vt_fail "ip -n vtA link set vtA netns 1"
vt_wait_for "[ ! -e $(vt_sys vroceA) ]" 20 || vt_fail "vroceA outlived its netdev's move"
[ -e /sys/class/net/vtA ] || vt_fail "vtA did not arrive in the init namespace"
[ -e /sys/class/net/vtA/ecn ] && vt_fail "ecn/ followed vtA to the init namespace"
# the netdev goes (and its veth peer with it): vroceB goes
ip link del vtA || vt_fail "ip link del vtA"
vt_wait_for "[ ! -e $(vt_sys vroceB) ]" 20 || vt_fail "vroceB outlived its netdev"

vt_pass "$checks checks inside vtA and vtB (cc/ and ecn/), counters from inside, one device seen from three namespaces, ecn/ gone with a netdev's move and deletion"
