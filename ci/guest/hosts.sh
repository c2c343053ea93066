# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The "command" job of ci/vroce-vm, seen from one of its hosts: sourced by
# ci/guest/stage2.sh, which calls host_run_command.  The host side wrote
# /job/job.env (VROCE_HOSTS, VROCE_ALL_HOSTS, VROCE_DEVICE, VROCE_MTU,
# VROCE_NETEM, VROCE_CC, VROCE_CWD, VROCE_CWD_SHARED, VROCE_MODULE) and
# /job/command; /job/on.ROLE.N hold the --on commands of host ROLE.
#
# Hosts are roles a, b, c ... (host 1, 2, 3 ...) at 10.0.0.1, .2, .3 on
# one wire; a single host is role "single" on its own user-mode network.
# Every file a host writes in /job carries its role (SFX), as the host
# side reads them: stdout, stderr, exit, and the barrier and ready marks.

# The roles of hosts 1 to 8, as ci/vm/lib.sh's VT_ROLES names them.
HOST_ROLES=abcdefgh

# host_index ROLE: 1 for a (and single), 2 for b ...
host_index() {
	local before
	[ "$1" != single ] || { echo 1; return; }
	before=${HOST_ROLES%%"$1"*}
	echo $((${#before} + 1))
}

# host_role K: the role of host K (a for 1 ...)
host_role() { echo "${HOST_ROLES:$1-1:1}"; }

# host_ip K: host K's address on the wire
host_ip() { echo "10.0.0.$1"; }

# hosts_barrier NAME TIMEOUT: wait until every host has reached NAME.
hosts_barrier() {
	local base=/job/barrier.vroce-vm.$1 deadline=$((SECONDS + $2)) k n
	[ "$VROCE_HOSTS" -gt 1 ] || return 0
	: >"$base.$ROLE"
	while :; do
		n=0
		for ((k = 1; k <= VROCE_HOSTS; k++)); do
			[ ! -e "$base.$(host_role "$k")" ] || n=$((n + 1))
		done
		[ "$n" -lt "$VROCE_HOSTS" ] || return 0
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}

# host_err MSG: a line on this host's stderr (the user sees it, prefixed).
host_err() { echo "vroce-vm: $*" >>"/job/stderr$SFX"; }

# host_network: eth0's MTU and netem; VROCE_SELF (the address stage2.sh
# gave eth0), VROCE_PEER (the next host's address, or this one's when
# alone), VROCE_PEERS (every other host's), VROCE_HOST, VROCE_HOSTS.
host_network() {
	local k
	VROCE_HOST=$(host_index "$ROLE")
	VROCE_SELF=$VROCE_SELF_IP VROCE_PEER=$VROCE_SELF_IP VROCE_PEERS=
	if [ "$ROLE" != single ]; then
		VROCE_PEER=$(host_ip $((VROCE_HOST % VROCE_HOSTS + 1)))
		for ((k = 1; k <= VROCE_HOSTS; k++)); do
			[ "$k" = "$VROCE_HOST" ] ||
				VROCE_PEERS="${VROCE_PEERS:+$VROCE_PEERS }$(host_ip "$k")"
		done
	fi
	export VROCE_HOST VROCE_HOSTS VROCE_SELF VROCE_PEER VROCE_PEERS
	if [ -n "${VROCE_MTU:-}" ]; then
		ip link set eth0 mtu "$VROCE_MTU" || { host_err "--mtu $VROCE_MTU refused by eth0"; return 1; }
	fi
	if [ -n "${VROCE_NETEM:-}" ]; then
		modprobe sch_netem 2>/dev/null
		# shellcheck disable=SC2086 # netem's arguments are words
		tc qdisc add dev eth0 root netem $VROCE_NETEM 2>>"/job/stderr$SFX" ||
			{ host_err "--netem '$VROCE_NETEM' refused"; return 1; }
	fi
}

# host_device: load vroce (VROCE_MODULE, else this kernel's build), add
# vroce0 on eth0 as a user does, wait for its port and for the IPv4 RoCE v2
# GID; VROCE_DEV and VROCE_GID_INDEX.  --cc dcqcn turns congestion control
# on (every priority, both roles); none turns it off.
host_device() {
	local ko=${VROCE_MODULE:-$VROCE_KO}
	modprobe -a ib_core ib_uverbs rdma_ucm udp_tunnel ip6_udp_tunnel ||
		{ host_err "modprobe of the RDMA core failed"; return 1; }
	if ! grep -q '^vroce ' /proc/modules; then
		[ -f "$ko" ] || { host_err "no module $ko (make modules-all)"; return 1; }
		insmod "$ko" 2>>"/job/stderr$SFX" || { host_err "insmod $ko failed"; return 1; }
	fi
	VROCE_DEV=vroce0
	rdma link add "$VROCE_DEV" type vroce netdev eth0 2>>"/job/stderr$SFX" ||
		{ host_err "rdma link add $VROCE_DEV type vroce netdev eth0 failed"; return 1; }
	export VROCE_DEV
	# shellcheck disable=SC2016 # vt_wait_for evaluates it, here
	if ! vt_wait_for 'VROCE_GID_INDEX=$(vt_gid_index "$VROCE_DEV" "$VROCE_SELF")' 30; then
		host_err "$VROCE_DEV has no RoCE v2 GID for $VROCE_SELF"
		return 1
	fi
	export VROCE_GID_INDEX
	case ${VROCE_CC:-} in
	'') ;;
	dcqcn) echo 1 >"/sys/class/infiniband/$VROCE_DEV/cc/enable" ;;
	none) echo 0 >"/sys/class/infiniband/$VROCE_DEV/cc/enable" ;;
	esac || { host_err "--cc $VROCE_CC: cc/enable refused"; return 1; }
}

# listening: the TCP ports and RDMA CM IDs listening now, one per line.
listening() {
	ss -Hltn 2>/dev/null | awk '{print "tcp", $4}'
	rdma resource show cm_id 2>/dev/null | awk '/LISTEN/ {print "cm", $0}'
}

# host_start_on: start this host's --on commands in the background (their
# PIDs in ON_PIDS) and return once each listens (a new TCP socket or RDMA
# CM ID in LISTEN), has ended, or 120 s passed: then host 1 may start.
ON_PIDS=()
host_start_on() {
	local f before pid i
	for f in /job/on."$ROLE".*; do
		[ -f "$f" ] || continue
		before=$(listening | sort)
		bash -c "$(cat "$f")" >>"/job/stdout$SFX" 2>>"/job/stderr$SFX" </dev/null &
		pid=$!
		ON_PIDS+=("$pid")
		for ((i = 0; i < 600; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			[ -z "$(comm -13 <(echo "$before") <(listening | sort))" ] || break
			sleep 0.2
		done
		[ "$i" -lt 600 ] || host_err "host $VROCE_HOST: '$(cat "$f")' did not listen in 120 s; going on"
	done
	: >"/job/ready$SFX"
}

# host_stop_on: give the --on commands 10 s to end once host 1's command
# has, then end them.  Return: 1 if one ended on its own with an error.
host_stop_on() {
	local pid i rc=0 st
	for ((i = 0; i < 50; i++)); do
		for pid in "${ON_PIDS[@]}"; do
			kill -0 "$pid" 2>/dev/null && break
			pid=
		done
		[ -n "${pid:-}" ] || break
		sleep 0.2
	done
	for pid in "${ON_PIDS[@]}"; do
		if kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
		else
			wait "$pid"
			st=$?
			[ "$st" -eq 0 ] || rc=$st
		fi
	done
	return "$rc"
}

# host_wait_ready: host 1 waits for every other host's --on commands.
host_wait_ready() {
	local k deadline=$((SECONDS + 300))
	for ((k = 2; k <= VROCE_HOSTS; k++)); do
		until [ -e "/job/ready.$(host_role "$k")" ]; do
			if [ "$SECONDS" -ge "$deadline" ]; then
				host_err "host $k never got ready"
				return 1
			fi
			sleep 0.2
		done
	done
}

# host_run_command: set this host up, run its part, write /job/exit.ROLE.
# Host 1 (or every host with --pair) runs /job/command in the directory the
# user ran vroce-vm in, once every other host's --on commands listen; the
# others run their --on commands until host 1's command is done.  The
# status: the command's, else that of an --on command that failed on its
# own, 125 when the host could not be set up.
host_run_command() {
	local rc=0 st runs_cmd=0
	export VROCE_SCENARIO=command
	if [ "${VROCE_CWD_SHARED:-0}" = 1 ] && ! { mkdir -p "$VROCE_CWD" &&
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 cwd "$VROCE_CWD"; }; then
		host_err "cannot mount $VROCE_CWD"
		rc=125
	fi
	[ "$rc" -ne 0 ] || host_network || rc=125
	if [ "$rc" -eq 0 ] && [ "${VROCE_DEVICE:-0}" = 1 ]; then
		host_device || rc=125
	elif [ "$rc" -eq 0 ] && [ -n "${VROCE_MODULE:-}" ]; then
		{ modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel &&
			insmod "$VROCE_MODULE" 2>>"/job/stderr$SFX"; } ||
			{ host_err "insmod $VROCE_MODULE failed"; rc=125; }
	fi
	# Every host up (the last may boot many seconds after the first on a
	# loaded machine) before any command: nothing is sent into the void.
	# A host that failed its set-up arrives too, so that no other waits
	# for it in vain.
	if ! hosts_barrier start 600 && [ "$rc" -eq 0 ]; then
		host_err "host $VROCE_HOST: not every host came up"
		rc=125
	fi
	if [ "$VROCE_HOST" = 1 ] || [ "${VROCE_ALL_HOSTS:-0}" = 1 ]; then
		runs_cmd=1
	fi
	cd "${VROCE_CWD:-/}" 2>/dev/null || cd "$VROCE_SRC" || cd /
	if [ "$rc" -ne 0 ]; then
		: >"/job/ready$SFX"
	elif [ "$runs_cmd" = 1 ]; then
		host_start_on
		if host_wait_ready; then
			bash -c "$(cat /job/command)" >>"/job/stdout$SFX" \
				2>>"/job/stderr$SFX" </dev/null
			rc=$?
		else
			rc=125
		fi
		host_stop_on
		st=$?
		[ "$rc" -ne 0 ] || rc=$st
	else
		host_start_on
		until [ -e /job/exit.a ]; do sleep 0.2; done
		host_stop_on
		rc=$?
	fi
	# Written last and renamed into place: the host side waits for this.
	echo "$rc" >"/job/exit$SFX.tmp" && mv "/job/exit$SFX.tmp" "/job/exit$SFX"
	# Stay on the wire until every host is done (the host side stops this
	# VM should another one die instead).
	hosts_barrier finished 3600
}
