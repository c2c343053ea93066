#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rate_advice: play the switch, tell a sender a rate (vroce's rate advice).

  rate_advice.py [options] SRC_IP DST_IP QPN RATE_MBPS EXPIRY_MS

Sends a RoCEv2 CNP whose 16 reserved bytes carry struct vroce_rate_advice
(uapi/rdma/vroce-rate-advice.h, big-endian): magic "VRRA", version 1,
flags, a reserved 16-bit 0, the cap in Mb/s and how long it holds in ms.
A vroce device with cc/rate_advice 1 caps QP QPN (or, with --all, every
QP whose peer is SRC_IP) to RATE_MBPS for EXPIRY_MS.  The packet is
cnp_forge.py's (raw socket, IP header written here, ICRC computed), so
run it in the network namespace whose interface leads to DST_IP, as root;
SRC_IP must be the QPs' peer address for vroce to take it.

Options:
  --all          advice for every QP that sends to SRC_IP (QPN ignored)
  --becn         set the BTH's BECN bit: a NIC without rate advice then
                 takes it as a plain CNP (by default it ignores it)
  -n N           send N copies, 1 ms apart (default 1)
  --version N    the format's version (default 1; others are malformed)
  --flags X      raw flags byte (overrides --all)
  --reserved X   the reserved 16-bit field (default 0)
  --magic X      the magic (default 0x56525241)
Prints "rate_advice: sent N of L bytes to DST_IP QPN 0x..: R Mb/s for E ms".
"""

import argparse
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cnp_forge  # noqa: E402

MAGIC = 0x56525241
F_ALL = 0x01


def advice(rate_mbps, expiry_ms, flags=0, version=1, reserved=0, magic=MAGIC):
    """The 16 bytes of struct vroce_rate_advice."""
    return struct.pack("!IBBHII", magic, version, flags, reserved,
                       rate_mbps & 0xffffffff, expiry_ms & 0xffffffff)


def main():
    num = lambda s: int(s, 0)  # noqa: E731
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("qpn", type=num)
    ap.add_argument("rate_mbps", type=num)
    ap.add_argument("expiry_ms", type=num)
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--becn", action="store_true")
    ap.add_argument("-n", type=int, default=1)
    ap.add_argument("--version", type=num, default=1)
    ap.add_argument("--flags", type=num)
    ap.add_argument("--reserved", type=num, default=0)
    ap.add_argument("--magic", type=num, default=MAGIC)
    a = ap.parse_args()
    flags = a.flags if a.flags is not None else (F_ALL if a.all else 0)
    body = advice(a.rate_mbps, a.expiry_ms, flags, a.version, a.reserved,
                  a.magic)
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    pkt = b""
    for i in range(a.n):
        pkt = cnp_forge.build(a.src, a.dst, a.qpn, ip_id=1 + i,
                              reserved=body, becn=a.becn)
        s.sendto(pkt, (a.dst, 0))
        time.sleep(0.001)
    print("rate_advice: sent %d of %d bytes to %s QPN 0x%06x: %d Mb/s for %d ms"
          % (a.n, len(pkt), a.dst, a.qpn, a.rate_mbps, a.expiry_ms))
    return 0


if __name__ == "__main__":
    sys.exit(main())
