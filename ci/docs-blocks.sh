#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ci/docs-blocks.sh OUTDIR FILE...: the commands shown in the documentation,
# one script per block, so that a test runs them and no example goes stale.
#
# Every fenced block whose info string is empty, sh, bash, shell or console
# is a block of commands, and the line before its opening fence says where
# it runs:
#   <!-- test: vm -->            in a test VM (scenario 26-docs), as root,
#                                with vroce loaded and vroce0 on eth0
#                                unless the block adds a device itself
#   <!-- test: host -->          on the host, from the repository's top
#                                directory (ci/docs-host.sh, in make check)
#   <!-- test: skip REASON -->   not run, for the REASON given
# Blocks of other languages (yaml, c ...) are not commands.  Indented code
# blocks are not allowed: they cannot carry the mark.
#
# Writes OUTDIR/NNN.KIND.sh (KIND vm, host or skip), each starting with a
# comment naming FILE:LINE, and exits 1 after naming every block of
# commands without a mark or with an unknown one.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 OUTDIR FILE..." >&2; exit 2; }
out=$1
shift
mkdir -p "$out"
awk -v out="$out" '
	FNR == 1 { mark = ""; infence = 0 }
	!infence && /^```/ {
		lang = substr($0, 4)
		sub(/[ \t].*/, "", lang)
		infence = 1
		cmds = (lang == "" || lang == "sh" || lang == "bash" ||
			lang == "shell" || lang == "console")
		if (!cmds) { mark = ""; next }
		kind = ""
		if (match(mark, /<!-- test: (vm|host|skip [^>]+) -->/)) {
			kind = substr(mark, RSTART + 11, RLENGTH - 15)
			sub(/ .*/, "", kind)
		}
		if (kind == "") {
			printf "%s:%d: a block of commands with no <!-- test: vm|host|skip REASON --> mark\n", FILENAME, FNR > "/dev/stderr"
			bad = 1
			cmds = 0
		} else {
			n++
			f = sprintf("%s/%03d.%s.sh", out, n, kind)
			printf "# %s:%d\n", FILENAME, FNR > f
		}
		mark = ""
		next
	}
	infence && /^```/ { infence = 0; if (cmds) close(f); cmds = 0; next }
	infence { if (cmds) print > f; next }
	/^    [^ ]/ && prev ~ /^[ \t]*$/ && !inlist {
		printf "%s:%d: an indented code block (use a fence with a test mark)\n", FILENAME, FNR > "/dev/stderr"
		bad = 1
	}
	$0 !~ /^[ \t]*$/ {
		mark = $0
		inlist = ($0 ~ /^[ \t]*([-*]|[0-9]+\.) / || (inlist && $0 ~ /^[ \t]+[^ \t]/))
	}
	{ prev = $0 }
	END { exit bad }
' "$@"
