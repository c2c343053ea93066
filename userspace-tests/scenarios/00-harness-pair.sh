#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness smoke test, two VMs: the wire carries traffic both ways, the
# barrier helper synchronises the VMs, and a file one VM writes in the shared
# job directory is seen, with its contents, by the other.  The host-side
# 00-harness-pair.post.sh checks the wire capture.
# topology: pair
# pcap: yes
# timeout: 120
# debug: yes
set -euo pipefail
. "$VROCE_SRC/userspace-tests/lib/common.sh"

token=$VROCE_JOB/token.$VROCE_SCENARIO.$VROCE_ROLE
head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$token"
vt_barrier up || vt_fail "peer never came up"

# The other VM's token must be there, complete, right after the barrier.
other=a
[ "$VROCE_ROLE" = a ] && other=b
[ "$(wc -c <"$VROCE_JOB/token.$VROCE_SCENARIO.$other")" -eq 32 ] ||
	vt_fail "peer's token not visible through the job directory"

# busybox's ping: iputils-ping is not among the host's packages.
busybox ping -c 3 -W 5 "$VROCE_PEER_IP" >&2 || vt_fail "ping $VROCE_PEER_IP"

vt_barrier pinged || vt_fail "peer did not finish pinging"

vt_pass "$VROCE_SELF_IP <-> $VROCE_PEER_IP"
