# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for vroce test scenarios (userspace-tests/scenarios/NN-name.sh).
# Source it from a scenario:
#
#     . "$VROCE_SRC/userspace-tests/lib/common.sh"
#
# The runner (ci/guest/stage2.sh) gives every scenario:
#   VROCE_KO        this kernel's vroce.ko (build/<abi>/vroce.ko in the repo)
#   VROCE_ABI       kernel release, e.g. 6.12.117+deb12-amd64
#   VROCE_KERNEL    kernel series, 6.1 or 6.12
#   VROCE_SRC       repository root;   VROCE_JOB  shared job directory (/job)
#   VROCE_SCENARIO  scenario name (file name without .sh)
#   VROCE_ROLE      single, or a / b in a two-VM ("# topology: pair") scenario
#   VROCE_SELF_IP   this VM's eth0 address;  VROCE_PEER_IP  the other VM's
#   VROCE_PCAP      pair scenarios with "# pcap: yes": where the scenario's
#                   wire capture will be (/job/NN-name.pcap).  The host cuts
#                   it from the whole capture after the VMs exit, so check it
#                   in NN-name.post.sh, which the host runs with VROCE_PCAP
#                   set to the same file's host path.

# Exit status: 0 pass, 77 skip, anything else fail.  Any kernel BUG/WARNING/
# lockdep/... line printed while the scenario runs also fails it.

VT_NAME=${VROCE_SCENARIO:-$(basename "$0" .sh)}

# vt_log MSG...: progress line on stderr (goes to the scenario's log),
# stamped with the seconds since the scenario started (where minutes go).
vt_log() { echo "[$VT_NAME +${SECONDS}s] $*" >&2; }

# vt_in_ns NS CMD...: CMD in network namespace NS ("" for this one).
vt_in_ns() {
	local netns=$1
	shift
	if [ -n "$netns" ]; then
		ip netns exec "$netns" "$@"
	else
		"$@"
	fi
}

# vt_pass MSG / vt_fail MSG / vt_skip MSG: one result line, then exit.
vt_pass() { echo "PASS: $VT_NAME: $*"; exit 0; }
vt_fail() { echo "FAIL: $VT_NAME: $*"; exit 1; }
vt_skip() { echo "SKIP: $VT_NAME: $*"; exit 77; }

# vt_load_vroce [PARAM=VALUE...]: load the RDMA core and this kernel's
# vroce.ko.  Skips the scenario if the module has not been built.
vt_load_vroce() {
	[ -f "${VROCE_KO:-}" ] || vt_skip "no module at ${VROCE_KO:-?} (not built)"
	modprobe ib_core || vt_fail "modprobe ib_core"
	modprobe ib_uverbs || vt_fail "modprobe ib_uverbs"
	# insmod resolves no dependencies: vroce's UDP tunnel helpers.
	modprobe -a udp_tunnel ip6_udp_tunnel || vt_fail "modprobe udp_tunnel"
	if ! grep -q '^vroce ' /proc/modules; then
		insmod "$VROCE_KO" "$@" || vt_fail "insmod $VROCE_KO"
	fi
}

# vt_run_timeout SECONDS CMD...: run CMD, killing it (TERM, then KILL 5 s
# later) after SECONDS; returns CMD's status, 124 on timeout.
vt_run_timeout() {
	local t=$1
	shift
	timeout -k 5 "$t" "$@"
}

# vt_wait_for CMD TIMEOUT: evaluate the shell command CMD every 0.2 s until
# it succeeds (return 0) or TIMEOUT seconds pass (return 1).
vt_wait_for() {
	local cmd=$1 deadline=$((SECONDS + $2))
	until eval "$cmd" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}

# vt_netns_pair NS1 NS2: network namespaces vtNS1 and vtNS2 joined by a veth
# pair (interfaces vtNS1 in vtNS1, vtNS2 in vtNS2), addresses 192.168.77.1/24
# and 192.168.77.2/24, both up: a plain veth, nothing tuned, as a user
# sets it up (how far vroce keeps a QP's packets in order over it is its
# tx_flow_cpu, 68-tx-order).
# Two RDMA devices must sit in different namespaces to talk over a veth:
# within one namespace the kernel routes local addresses over loopback.  Run commands inside with
# "ip netns exec vtNS1 CMD".  The runner deletes vt* namespaces afterwards.
vt_netns_pair() {
	local a=vt$1 b=vt$2
	if ! { ip netns add "$a" && ip netns add "$b" &&
		ip link add "$a" netns "$a" type veth peer name "$b" netns "$b" &&
		ip -n "$a" addr add 192.168.77.1/24 dev "$a" &&
		ip -n "$b" addr add 192.168.77.2/24 dev "$b" &&
		ip -n "$a" link set lo up && ip -n "$b" link set lo up &&
		ip -n "$a" link set "$a" up && ip -n "$b" link set "$b" up; }; then
		vt_fail "vt_netns_pair $1 $2"
	fi
}

# vt_barrier NAME [TIMEOUT]: in a pair scenario, wait until the other VM
# reaches the barrier of the same NAME (default timeout 120 s; returns 1 on
# timeout).  Works through files $VROCE_JOB/barrier.<scenario>.NAME.<role>
# in the job directory both VMs share (9p without caching, so a file the
# other VM creates is seen at once).  Each NAME is used once per scenario.
# A no-op in single-VM scenarios.
vt_barrier() {
	local name=$1 deadline=$((SECONDS + ${2:-120})) other
	case ${VROCE_ROLE:-single} in
	a) other=b ;;
	b) other=a ;;
	*) return 0 ;;
	esac
	local base=$VROCE_JOB/barrier.$VT_NAME.$name
	: >"$base.$VROCE_ROLE"
	until [ -e "$base.$other" ]; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			vt_log "barrier $name: role $other did not arrive"
			return 1
		fi
		sleep 0.1
	done
}
