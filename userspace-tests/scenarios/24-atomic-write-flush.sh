#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# ATOMIC WRITE and FLUSH (IBTA 1.5 memory placement), with
# userspace-tests/bin/atomic_write_flush on one device, two RC QPs
# connected to each other: the capabilities are advertised, an 8-byte
# ATOMIC WRITE places its data (twice), an unaligned one completes with
# REM_INV_REQ_ERR, one to an MR without remote write with REM_ACCESS_ERR.
# FLUSH WQEs are written into the send queue by the program itself
# (libibverbs v44 has no ibv_wr_flush()) and the doorbell rung: a range
# FLUSH after an RDMA WRITE and an MR-level one complete with the FLUSH
# opcode and the data is in place; a PERSISTENT one completes with
# REM_INV_REQ_ERR, one to an MR without the flush right or with a bad key
# with REM_ACCESS_ERR, type 0 and level 2 with LOC_QP_OP_ERR and no packet
# sent.  Skips on a kernel without the operations (6.1).
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

AWF=$VROCE_SRC/userspace-tests/bin/atomic_write_flush
[ -x "$AWF" ] || vt_skip "$AWF not built (make -C userspace-tests verbs)"

vt_load_vroce
vt_link_add vroce0 eth0

rc=0
out=$(vt_run_timeout 120 "$AWF" -d vroce0 2>&1) || rc=$?
printf '%s\n' "$out" >&2
case $rc in
0) ;;
77) vt_skip "$(grep -m1 '^skip' <<<"$out")" ;;
*) vt_fail "$(grep -v '^ok' <<<"$out")" ;;
esac
rdma link delete vroce0
vt_pass "$(tail -n1 <<<"$out")"
