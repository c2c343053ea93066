#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# The documentation's commands run as written (issue 13): every block of
# README.md and Documentation/*.md marked "<!-- test: vm -->"
# (ci/docs-blocks.sh, which also fails on a block of commands without a
# mark).  Each block runs as a user types it: bash, as root, stopping at
# the first failing command, with vroce loaded and, unless the block
# makes one itself, vroce0 on eth0; every device is deleted after it.
# Then counters.md's table against the counters a device has.  The
# host's blocks ("test: host") run in ci/docs-host.sh.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

blocks=$PWD/blocks
"$VROCE_SRC/ci/docs-blocks.sh" "$blocks" "$VROCE_SRC/README.md" \
	"$VROCE_SRC"/Documentation/*.md || vt_fail "ci/docs-blocks.sh: unmarked or malformed blocks"
vt_load_vroce
n=0
for b in "$blocks"/*.vm.sh; do
	[ -f "$b" ] || continue
	where=$(sed -n '1s/^# //p' "$b")
	if ! grep -q 'rdma link add' "$b"; then
		vt_link_add vroce0 eth0
	fi
	vt_log "$where"
	(cd "$PWD" && bash -e "$b") >"$b.out" 2>&1
	rc=$?
	sed 's/^/    /' "$b.out" >&2
	[ "$rc" -eq 0 ] || vt_fail "$where: exit status $rc"
	for d in $(rdma -j link show | grep -o '"ifname":"[^"]*"' | cut -d'"' -f4 | sort -u); do
		rdma link delete "$d" || vt_fail "$where: rdma link delete $d"
	done
	n=$((n + 1))
done
[ "$n" -ge 3 ] || vt_fail "only $n blocks marked vm: the extraction lost some"

# counters.md's table names exactly the counters a device has (N: 0-7)
vt_link_add vroce0 eth0
have=$(for f in "$(vt_sys vroce0)"/ports/1/hw_counters/*; do
	[ "${f##*/}" = lifespan ] || echo "${f##*/}"
done | sort)
doc=$(awk -F'|' '/^## / { in_counters = ($0 == "## Counters") }
	in_counters && /^\| `[a-z_N0-9]+` \|/ { gsub(/[ `]/, "", $2); print $2 }' \
	"$VROCE_SRC/Documentation/counters.md" |
	while read -r c; do
		case $c in
		*N*) for p in 0 1 2 3 4 5 6 7; do echo "${c/N/$p}"; done ;;
		*) echo "$c" ;;
		esac
	done | sort)
[ "$have" = "$doc" ] || vt_fail "counters.md and the device differ: $(diff <(echo "$doc") <(echo "$have") | grep '^[<>]' | tr '\n' ' ')"
vt_pass "$n documented command blocks ran; counters.md lists the device's $(wc -l <<<"$have") counters"
