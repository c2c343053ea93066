#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ci/vm/selftest.sh: unit tests of the harness's pure-shell parts, on the
# host, in a second, no VM: the kernel-log window and patterns the guest
# runner fails scenarios on, and kernel-name parsing.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=ci/guest/klog.sh
. ci/guest/klog.sh
# shellcheck source=ci/vm/lib.sh
. ci/vm/lib.sh

fails=0
check() { # NAME EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then
		echo "ok   $1"
	else
		echo "FAIL $1: expected [$2], got [$3]"
		fails=$((fails + 1))
	fi
}

log='[    1.0] WARNING: CPU: 0 PID: 1 at boot.c:1 before_the_window
[    2.0] vroce-harness: begin 1 01-a
[    2.1] vroce: device vroce0 created
[    2.2] ------------[ cut here ]------------
[    2.3] WARNING: CPU: 1 PID: 42 at drivers/vroce/qp.c:10 vroce_qp_destroy+0x1/0x2
[    2.4] vroce-harness: end 1 01-a
[    3.0] vroce-harness: begin 2 02-b
[    3.1] infiniband vroce0: set active
[    3.2] vroce-harness: end 2 02-b
[    4.0] BUG: KASAN: slab-use-after-free in after_the_window'

w1=$(klog_window "vroce-harness: begin 1 01-a" "vroce-harness: end 1 01-a" <<<"$log")
check "window holds the scenario's lines" 3 "$(wc -l <<<"$w1")"
check "WARNING in the window fails" \
	"[    2.3] WARNING: CPU: 1 PID: 42 at drivers/vroce/qp.c:10 vroce_qp_destroy+0x1/0x2" \
	"$(klog_bad <<<"$w1")"
w2=$(klog_window "vroce-harness: begin 2 02-b" "vroce-harness: end 2 02-b" <<<"$log")
check "clean window passes" 1 "$(klog_bad <<<"$w2" >/dev/null && echo 0 || echo 1)"
# Begin marker lost from the ring buffer: everything up to the end counts.
w3=$(klog_window "vroce-harness: begin 9 09-x" "vroce-harness: end 2 02-b" <<<"$log")
check "lost begin marker over-reports" 2 "$(klog_bad <<<"$w3" | wc -l)"

for line in \
	"BUG: unable to handle page fault for address: 0000" \
	"Oops: 0000 [#1] PREEMPT SMP NOPTI" \
	"BUG: KASAN: slab-out-of-bounds in vroce_rx" \
	"UBSAN: array-index-out-of-bounds in drivers/vroce/x.c:1:2" \
	"WARNING: possible circular locking dependency detected" \
	"WARNING: possible recursive locking detected" \
	"WARNING: inconsistent lock state" \
	"WARNING: suspicious RCU usage" \
	"general protection fault, probably for non-canonical address" \
	"kmemleak: 2 new suspected memory leaks" \
	"Kernel panic - not syncing: Fatal exception" \
	"unreferenced object 0xffff888 (size 64):" \
	"BUG: scheduling while atomic: kworker/0:1/12/0x00000002" \
	"BUG: sleeping function called from invalid context at mm/slab.h:1" \
	"INFO: task ibv_rc_pingpong:123 blocked for more than 120 seconds." \
	"refcount_t: underflow; use-after-free." \
	"list_add corruption. next->prev should be prev" \
	"list_del corruption, ffff888 ->next is LIST_POISON1" \
	"hung_task: blocked tasks" \
	"infiniband vroce0: destroy of QP 17 still waits for 1 references after 10000 ms" \
	"kernel BUG at mm/slub.c:432!" \
	"invalid opcode: 0000 [#1] PREEMPT SMP NOPTI" \
	"rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:" \
	"rcu: INFO: rcu_preempt self-detected stall on CPU" \
	"kworker/0:1: page allocation failure: order:4, mode:0x40cc0(GFP_KERNEL|__GFP_COMP)"; do
	check "pattern: $line" "[ 1.0] $line" "$(klog_bad <<<"[ 1.0] $line" || true)"
done
for line in \
	"vroce-harness: begin 3 03-BUG:-in-name" \
	"infiniband vroce0: set active" \
	"rdma_rxe: loaded" \
	"rcu: 	RCU lockdep checking is enabled." \
	"kmemleak: Kernel memory leak detector initialized (mem pool available: 11822)" \
	"(NULL ib_device): destroy of MR 3 still waits for 1 references after 50 ms" \
	"traps: ib_atomic_lat[439] general protection fault ip:7f08 sp:7ffd error:0 in librdmacm.so.1[a472,7f08+15000]"; do
	check "harmless: $line" "" "$(klog_bad <<<"[ 1.0] $line" || true)"
done

log_out='[    1.0] WARNING: at boot
[    2.0] vroce-harness: begin 1 01-a
[    2.1] WARNING: in 01-a
[    2.2] vroce-harness: end 1 01-a
[    3.0] BUG: between
[    4.0] vroce-harness: begin 2 02-b
[    4.1] ok
[    4.2] vroce-harness: end 2 02-b
[    5.0] Oops: at power-off'
check "outside the windows: boot, between, after" \
	"[    1.0] WARNING: at boot|[    3.0] BUG: between|[    5.0] Oops: at power-off" \
	"$(klog_outside <<<"$log_out" | klog_bad | paste -sd '|')"

# kmemleak suspects pinned on the scenario that allocated them
kml_dir=$(mktemp -d)
printf '%s\n' "4294900000 01-a" "4294900500 02-b" >"$kml_dir/windows"
kml_report='unreferenced object 0xffff888000000001 (size 64):
  comm "modprobe", pid 90, jiffies 4294899000
  backtrace (crc 1):
    kmalloc_trace+0x1/0x2
unreferenced object 0xffff888000000002 (size 32):
  comm "jiffies 4294900600", pid 101, jiffies 4294900100
  backtrace (crc 2):
    vroce_qp_create+0x1/0x2
unreferenced object 0xffff888000000003 (size 32):
  comm "ibv_rc_pingpong", pid 102, jiffies 4294900500
  backtrace (crc 3):
    vroce_mr_alloc+0x1/0x2
unreferenced object 0xffff888000000004 (size 16):
  comm "rmmod", pid 103, jiffies 4294901000
  backtrace (crc 4):
    vroce_cq_create+0x1/0x2'
check "kmemleak: suspects per scenario" "01-a 1|02-b 2|kernel-log 1" \
	"$(kmemleak_split "$kml_dir/windows" "$kml_dir" .a <<<"$kml_report" | sort | paste -sd '|')"
# kml_objects FILE: the objects and vroce frames of a report, one line
kml_objects() { grep -o '0xffff[0-9a-f]*\|vroce_[a-z_]*' "$1" | paste -sd '|'; }
check "kmemleak: 01-a's report" "0xffff888000000002|vroce_qp_create" \
	"$(kml_objects "$kml_dir/01-a.a.kmemleak")"
check "kmemleak: 02-b's report (from its first jiffy, unload included)" \
	"0xffff888000000003|vroce_mr_alloc|0xffff888000000004|vroce_cq_create" \
	"$(kml_objects "$kml_dir/02-b.a.kmemleak")"
check "kmemleak: boot's suspect" 4 "$(wc -l <"$kml_dir/kernel-log.a.kmemleak")"
check "kmemleak: no windows, all boot's" "kernel-log 4" \
	"$(kmemleak_split "$kml_dir/none" "$kml_dir" .b <<<"$kml_report")"
rm -rf "$kml_dir"

check "series 6.1" 6.1 "$(vt_series 6.1.0-57-amd64)"
check "series 6.12" 6.12 "$(vt_series 6.12.117+deb12-amd64)"
read -r p1 p2 < <(vt_free_udp_ports 2)
check "two distinct ports" 1 "$([ "$p1" != "$p2" ] && echo 1 || echo 0)"

[ "$fails" -eq 0 ] && echo "selftest: all passed" || echo "selftest: $fails failed"
[ "$fails" -eq 0 ]
