# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Kernel-log checks shared by the guest runner (ci/guest/stage2.sh) and the
# host-side self-test (ci/vm/selftest.sh).  Sourced, not executed.

# A kernel log line matching this extended regex fails the scenario during
# which it was printed.  Kept on one line so that grep -E sees one pattern.
# "vroceN: destroy of ... still waits" is vroce's own: a destroy verb
# waiting on a leaked reference (drivers/vroce/release.c).  RCU stalls
# count: the guests keep time by the HPET, so a stall is a real one (a CPU
# held by a loop), not the host's clock leaping.  A page allocation
# failure counts whoever allocated: the guests have memory to spare.
VT_KLOG_BAD='vroce[^ ]*: destroy of .* still waits for|BUG:|WARNING:|Oops|KASAN|UBSAN|possible circular locking|possible recursive locking|lockdep|inconsistent lock state|suspicious RCU usage|general protection fault|kmemleak|Kernel panic|unreferenced object|scheduling while atomic|sleeping function called from invalid context|hung_task|blocked for more than|refcount_t:|list_add corruption|list_del corruption|kernel BUG at|invalid opcode:|rcu: INFO: .* detected stalls|self-detected stall on CPU|page allocation failure'

# The runner brackets every scenario with two lines of its own in the kernel
# log (written to /dev/kmsg); they start with this tag.
VT_KLOG_TAG='vroce-harness:'

# klog_window BEGIN END: from a kernel log on stdin, print the lines after
# the line containing BEGIN and before the line containing END.  If BEGIN was
# lost (ring buffer wrapped), everything before END is printed: better to
# over-report than to miss a splat.
klog_window() {
	awk -v b="$1" -v e="$2" '
		index($0, e) { stop = 1 }
		stop { next }
		index($0, b) { n = 0; found = 1; next }
		{ buf[n++] = $0 }
		END { for (i = 0; i < n; i++) print buf[i] }'
}

# A user-space process's own fault, reported by the kernel ("traps: comm[pid]
# general protection fault ip:... in libfoo.so"): the program's bug, not a
# kernel report.  Scenarios see the program's failure themselves.
VT_KLOG_USER_FAULT='traps: [^ ]+\[[0-9]+\] general protection fault ip:'

# klog_outside: from a kernel log on stdin, print the lines outside every
# scenario's begin/end markers (boot, between scenarios, after the last).
klog_outside() {
	awk -v t="$VT_KLOG_TAG" '
		index($0, t " begin ") { inside = 1; next }
		index($0, t " end ") { inside = 0; next }
		!inside'
}

# What the debug kernel says at every boot, matching the patterns above by
# name only: the detectors announcing themselves.
VT_KLOG_BENIGN='RCU lockdep checking is enabled|kmemleak: Kernel memory leak detector initialized|kmemleak: Automatic memory scanning thread (started|ended)'

# klog_bad: print the offending lines of a kernel log on stdin (the runner's
# own marker lines, user-space faults and the detectors' greetings
# excluded); exit status 0 if there was any, 1 if none.
klog_bad() {
	grep -v -F "$VT_KLOG_TAG" | grep -v -E -- "$VT_KLOG_USER_FAULT" |
		grep -v -E -- "$VT_KLOG_BENIGN" | grep -E -- "$VT_KLOG_BAD"
}

# kmemleak_split WINDOWS DIR SFX: from a kmemleak report on stdin, write
# each suspect to DIR/NAME$SFX.kmemleak of the scenario that allocated it,
# and print "NAME COUNT" for each such scenario.  kmemleak stamps an object
# with the jiffies of its allocation ('comm "x", pid 1, jiffies N'), and
# WINDOWS holds one "JIFFIES NAME" line per scenario, taken as it started,
# in the order they ran: an object is the last started scenario's (its
# cleanup and module unload included).  One older than every scenario is
# boot's: NAME "kernel-log" (the host's result for the log outside the
# scenarios, which fails too, on kmemleak's own line).  So a boot is
# scanned once, at its end, yet each leak is pinned on its maker.
kmemleak_split() {
	awk -v win="$1" -v dir="$2" -v sfx="$3" '
		BEGIN {
			while ((getline line < win) > 0) {
				split(line, f, " ")
				n++; start[n] = f[1] + 0; name[n] = f[2]
			}
		}
		/^unreferenced object/ { file = ""; head = $0; next }
		file == "" && match($0, /, jiffies [0-9]+$/) {
			j = substr($0, RSTART + 10) + 0
			owner = "kernel-log"
			for (i = 1; i <= n; i++)
				if (j >= start[i])
					owner = name[i]
			file = dir "/" owner sfx ".kmemleak"
			count[owner]++
			print head > file
		}
		file != "" { print > file }
		END { for (o in count) print o, count[o] }'
}
