#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side check of 00-harness-pair: the wire capture of the scenario holds
# the ICMP echo requests and replies of both VMs' pings (3 each way), and none
# of the harness's own marker frames.
set -euo pipefail

[ -s "${VROCE_PCAP:-}" ] || { echo "no capture at '${VROCE_PCAP:-}'"; exit 1; }
count() { tshark -r "$VROCE_PCAP" -Y "$1" 2>/dev/null | wc -l; }
req_a=$(count 'icmp.type == 8 && ip.src == 10.0.0.1')
req_b=$(count 'icmp.type == 8 && ip.src == 10.0.0.2')
rep_a=$(count 'icmp.type == 0 && ip.src == 10.0.0.1')
rep_b=$(count 'icmp.type == 0 && ip.src == 10.0.0.2')
marks=$(count 'udp.port == 9')
echo "echo requests a->b $req_a b->a $req_b, replies $rep_b / $rep_a, markers $marks"
if [ "$req_a" -lt 3 ] || [ "$req_b" -lt 3 ] || [ "$rep_a" -lt 3 ] || [ "$rep_b" -lt 3 ]; then
	echo "FAIL: missing ICMP frames"
	exit 1
fi

[ "$marks" -eq 0 ] || { echo "FAIL: marker frames in the capture"; exit 1; }
echo "PASS: wire capture holds both pings"
