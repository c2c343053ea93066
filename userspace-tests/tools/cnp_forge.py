#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cnp_forge: send hand-made RoCEv2 CNPs (BTH opcode 0x81) on a raw socket.

  cnp_forge.py [options] SRC_IP DST_IP QPN

Builds IPv4 + UDP (destination port 4791) + BTH (opcode 0x81, P_Key
0xffff, BECN set, destination QP QPN, PSN 0) + 16 reserved zero bytes +
ICRC, as IBTA Annex A17 describes a CNP (74 bytes with Ethernet), with the
IP header written here (IP_HDRINCL) so that SRC_IP may be any address.  Run
it in the network namespace whose interface leads to DST_IP.  The ICRC is
CRC-32 (zlib's) over eight 0xff bytes, the IP header with TOS, TTL and
checksum set to ones, UDP with its checksum set to ones, the BTH with
byte 4 (FECN, BECN, reserved) set to ones, and the rest; little-endian.

Options:
  -n N           send N copies (default 1), 1 ms apart
  --truncate N   cut the packet after N bytes of UDP payload (the ICRC is
                 computed over what is left and appended, so only the
                 length is wrong)
  --bad-icrc     flip one bit of the ICRC
  --opcode X     another BTH opcode (default 0x81)
  --ecn X        the IP ECN bits (default 0)
  --dscp X       the IP DSCP (default 48, the np_cnp_dscp default)
Prints "cnp_forge: sent N packets of L bytes to DST_IP QPN 0x..".
"""

import argparse
import socket
import struct
import sys
import time
import zlib

ROCE_PORT = 4791


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def icrc(pkt):
    """pkt: IP header .. last byte before the ICRC."""
    h = bytearray(pkt)
    for i in (1, 8, 10, 11, 20 + 6, 20 + 7, 20 + 8 + 4):
        if i < len(h):
            h[i] = 0xff
    return zlib.crc32(b"\xff" * 8 + bytes(h)) & 0xffffffff


def build(src, dst, qpn, opcode=0x81, truncate=None, bad_icrc=False,
          ecn=0, dscp=48, sport=0xc123, ip_id=1, reserved=b"\0" * 16,
          becn=True):
    """reserved: the 16 bytes after the BTH (rate_advice.py fills them)."""
    bth = struct.pack("!BBHII", opcode, 0, 0xffff,
                      ((0x40 if becn else 0) << 24) | (qpn & 0xffffff), 0)
    payload = bth + reserved
    if truncate is not None:
        payload = payload[:truncate]
    total = 20 + 8 + len(payload) + 4
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, (dscp << 2) | ecn, total, ip_id,
                     0x4000, 64, socket.IPPROTO_UDP, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    udp = struct.pack("!HHHH", sport, ROCE_PORT, total - 20, 0)
    body = ip + udp + payload
    c = icrc(body)
    if bad_icrc:
        c ^= 1 << 7
    return body + struct.pack("<I", c)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("qpn", type=lambda s: int(s, 0))
    ap.add_argument("-n", type=int, default=1)
    ap.add_argument("--truncate", type=int)
    ap.add_argument("--bad-icrc", action="store_true")
    ap.add_argument("--opcode", type=lambda s: int(s, 0), default=0x81)
    ap.add_argument("--ecn", type=lambda s: int(s, 0), default=0)
    ap.add_argument("--dscp", type=lambda s: int(s, 0), default=48)
    a = ap.parse_args()
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    pkt = b""
    for i in range(a.n):
        pkt = build(a.src, a.dst, a.qpn, a.opcode, a.truncate, a.bad_icrc,
                    a.ecn, a.dscp, ip_id=1 + i)
        s.sendto(pkt, (a.dst, 0))
        time.sleep(0.001)
    print("cnp_forge: sent %d packets of %d bytes to %s QPN 0x%06x" %
          (a.n, len(pkt), a.dst, a.qpn))
    return 0


if __name__ == "__main__":
    sys.exit(main())
