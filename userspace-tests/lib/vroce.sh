# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vroce-specific helpers for scenarios; source after common.sh.

# vt_sys DEV: the device's sysfs directory.
vt_sys() { echo "/sys/class/infiniband/$1"; }

# vt_link_add NAME NETDEV [NETNS]: create a vroce device, waiting until
# ib_core shows it.  Fails the scenario on error.
vt_link_add() {
	local ns=()
	[ -n "${3:-}" ] && ns=(ip netns exec "$3")
	"${ns[@]}" rdma link add "$1" type vroce netdev "$2" ||
		vt_fail "rdma link add $1 type vroce netdev $2 ${3:+(netns $3)}"
	vt_wait_for "[ -d $(vt_sys "$1") ]" 10 || vt_fail "$1 did not appear"
}

# vt_port_state DEV: "ACTIVE", "DOWN", ... from sysfs ("4: ACTIVE").
vt_port_state() { sed 's/^[0-9]*: //' "$(vt_sys "$1")/ports/1/state"; }

# vt_vroce0_up: load vroce, create vroce0 on eth0 and wait for its IPv4
# RoCE v2 GID (index 3, as on ConnectX), as the loopback scenarios need.
# Fails the scenario otherwise.
vt_vroce0_up() {
	vt_load_vroce
	ip link set eth0 up
	vt_link_add vroce0 eth0
	vt_wait_for "grep -q ':ffff:' $(vt_sys vroce0)/ports/1/gids/3" 10 ||
		vt_fail "no IPv4 GID at index 3"
}

# vt_vroce_netns_pair: two hosts in one VM: namespaces vtA and vtB on a
# veth pair (192.168.77.1 and .2, vt_netns_pair), vroceA on vtA and vroceB
# on vtB, both ports ACTIVE.  Fails the scenario otherwise.
vt_vroce_netns_pair() {
	local d
	vt_netns_pair A B
	vt_link_add vroceA vtA vtA
	vt_link_add vroceB vtB vtB
	for d in vroceA vroceB; do
		vt_wait_for "[ \"\$(vt_port_state $d)\" = ACTIVE ]" 30 ||
			vt_fail "$d port not ACTIVE: $(vt_port_state "$d")"
	done
}

# vt_refcnt: vroce's module reference count ("" when not loaded).
vt_refcnt() { cat /sys/module/vroce/refcnt 2>/dev/null; }

# vt_expect_eq WHAT GOT WANT: fail unless GOT equals WANT.
vt_expect_eq() {
	[ "$2" = "$3" ] || vt_fail "$1: got '$2', want '$3'"
}

# vt_gid_of_ipv4 A.B.C.D: the IPv4-mapped GID as sysfs prints it.
vt_gid_of_ipv4() {
	local IFS=. a b c d
	read -r a b c d <<<"$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' \
		"$a" "$b" "$c" "$d"
}

# vt_gid_index DEV ADDR [TYPE]: the index of DEV's GID for IPv4 ADDR of
# TYPE ("RoCE v2", the default, or "IB/RoCE v1"), found as show_gids
# does: sysfs gids/ and gid_attrs/types/.  One grep reads the table (a cat
# per entry forked hundreds of times a poll: 40 s in TCG).  Returns 1 when
# there is none.
vt_gid_index() {
	local dir hex f t a b c d
	dir=$(vt_sys "$1")/ports/1
	IFS=. read -r a b c d <<<"$2"
	hex=$(printf '%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
	for f in $(grep -lx "0000:0000:0000:0000:0000:ffff:$hex" "$dir"/gids/* 2>/dev/null); do
		t=
		read -r t <"$dir/gid_attrs/types/${f##*/}" 2>/dev/null || true
		if [ "$t" = "${3:-RoCE v2}" ]; then
			echo "${f##*/}"
			return 0
		fi
	done
	return 1
}

# vt_eth0_ipv4: this VM's eth0 IPv4 address (no prefix).
vt_eth0_ipv4() {
	ip -4 -o addr show dev eth0 | awk '!done {split($4, a, "/"); print a[1]; done = 1}'
}

# vt_klog_mark / vt_klog_since_mark: kernel log lines printed after the
# mark (never clear the log: the runner reads it to catch warnings).
vt_klog_mark() {
	VT_KLOG_MARK="vroce-test-mark-$$-$RANDOM"
	echo "$VT_KLOG_MARK" >/dev/kmsg
}
vt_klog_since_mark() {
	dmesg | sed -n "/$VT_KLOG_MARK/,\$p" | tail -n +2
}

# vt_knob_at FILE CMD...: run CMD where FILE is seen: a netdev's file
# (/sys/class/net/IF/...) from inside the namespace named after IF, as
# vt_netns_pair names them and as a user there writes it, when there is
# one; a netdev of this namespace (a VM's eth0) and any other file (the
# ib device's, which ib_core shows only in the device's namespace) from
# here.
vt_knob_at() {
	local f=$1 ifname
	shift
	case $f in
	/sys/class/net/*)
		ifname=${f#/sys/class/net/}
		ifname=${ifname%%/*}
		if [ -e "/run/netns/$ifname" ]; then
			ip netns exec "$ifname" "$@"
		else
			"$@"
		fi
		;;
	*) "$@" ;;
	esac
}

# vt_knob_rd FILE: FILE's content, read where it is seen (vt_knob_at).
vt_knob_rd() { vt_knob_at "$1" cat "$1" 2>/dev/null; }

# vt_knob_write FILE VALUE: write VALUE and a newline to FILE with one
# write(2), where it is seen; prints the error and returns 1 on failure.
vt_knob_write() {
	vt_knob_at "$1" bash -c 'printf "%s\n" "$1" >"$2"' _ "$2" "$1" 2>&1 >/dev/null
}

# vt_knob_ok FILE VALUE WANT: the write succeeds and FILE then reads WANT.
vt_knob_ok() {
	local err
	err=$(vt_knob_write "$1" "$2") || vt_fail "write \"$2\" to $1: $err"
	vt_expect_eq "$1 after writing \"$2\"" "$(vt_knob_rd "$1")" "$3"
}

# vt_knob_bad FILE VALUE: the write fails with EINVAL and FILE is unchanged.
vt_knob_bad() {
	local before err
	before=$(vt_knob_rd "$1")
	if err=$(vt_knob_write "$1" "$2"); then
		vt_fail "write \"$2\" to $1 succeeded"
	fi
	grep -q "Invalid argument" <<<"$err" ||
		vt_fail "write \"$2\" to $1: $err, want Invalid argument"
	vt_expect_eq "$1 after the bad write \"$2\"" "$(vt_knob_rd "$1")" "$before"
}
