#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side check of 40-interop-rxe: the wire carried RoCEv2 both ways and
# tshark dissects every packet without a malformed-packet or error report.
set -euo pipefail

[ -s "${VROCE_PCAP:-}" ] || { echo "no capture at '${VROCE_PCAP:-}'"; exit 1; }
# SEND payloads are test patterns: keep tshark from guessing RPC-over-RDMA
# in them (a heuristic dissector that then reports "malformed").
count() {
	tshark --disable-protocol rpcordma -r "$VROCE_PCAP" -Y "$1" 2>/dev/null |
		wc -l
}
from_a=$(count 'udp.dstport == 4791 && ip.src == 10.0.0.1')
from_b=$(count 'udp.dstport == 4791 && ip.src == 10.0.0.2')
bad=$(count 'udp.port == 4791 && (_ws.malformed || _ws.expert.severity >= error)')
echo "RoCEv2 packets: vroce->rxe $from_a, rxe->vroce $from_b, malformed/errors $bad"
[ "$from_a" -gt 100 ] && [ "$from_b" -gt 100 ] || { echo "FAIL: too little RoCEv2 traffic"; exit 1; }
[ "$bad" -eq 0 ] || { echo "FAIL: malformed packets"; exit 1; }
echo "PASS: wire dissects cleanly"
