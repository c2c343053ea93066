# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for two-VM ("# topology: pair") scenarios that run one program
# as a server on one VM and as its client on the other; source after
# common.sh.

# why OUT: a failed program's error lines (perftest's stdout is buffered and
# comes after them), else its last lines
why() {
	local e

	e=$(grep -iE "error|fail|couldn't|unable|wrong" <<<"$1" | tail -5)
	if [ -n "$e" ]; then
		printf '%s\n' "$e"
	else
		tail -3 <<<"$1"
	fi
}
# result NAME OUT: the client's result line: ibv_rc_pingpong's "N iters
# in", perftest's first numeric row under its "#bytes" header
result() {
	if [ "$1" = rc_pingpong ]; then
		grep -m1 ' iters in ' <<<"$2"
	else
		awk '/#bytes/ { hdr = 1; next }
		     hdr && $1 ~ /^[0-9]+$/ { print; exit }' <<<"$2"
	fi
}
# run_pair NAME PORT CMD...: role a serves first, then role b; the client
# waits for the server's port to open.  Any non-zero exit fails, and so
# does a client without a result line.  perftest runs with -F: its CPU
# clock fit fails now and then on a loaded emulated host, and without -F
# it then exits 1 ("Can't produce a report") after a transfer that
# worked; with -F it reports, the figures are just not meaningful.
vt_pair_step=0
run_pair() {
	local name=$1 port=$2 out server rc try row
	shift 2
	for server in a b; do
		vt_pair_step=$((vt_pair_step + 1))
		vt_barrier "s$vt_pair_step" || vt_fail "$name: peer lost"
		if [ "$VROCE_ROLE" = "$server" ]; then
			rc=0
			out=$(vt_run_timeout 120 "$@" -p "$port" 2>&1) || rc=$?
			[ "$rc" -eq 0 ] ||
				vt_fail "$name server ($server): exit $rc: $(why "$out")"
			vt_log "$name (server $server): $(tail -2 <<<"$out" | sed -n 1p)"
		else
			# the server on the other VM may not listen yet
			for try in 1 2 3 4 5 6 7 8 9 10; do
				sleep 2
				rc=0
				out=$(vt_run_timeout 120 "$@" -p "$port" \
					"$VROCE_PEER_IP" 2>&1) || rc=$?
				[ "$rc" -ne 0 ] || break
				grep -qi "couldn't connect\|unable to init the socket" \
					<<<"$out" || break
			done
			[ "$rc" -eq 0 ] ||
				vt_fail "$name client (server $server, try $try): exit $rc: $(why "$out")"
			row=$(result "$name" "$out")
			[ -n "$row" ] ||
				vt_fail "$name client (server $server): exit 0 without a result line: $(tail -3 <<<"$out")"
			vt_log "$name (server $server): $row"
		fi
		port=$((port + 1))
	done
}
