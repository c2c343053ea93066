#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pfc_frames: send MAC control frames (Ethertype 0x8808) on a packet socket.

  pfc_frames.py [options] IFACE

Builds an IEEE 802.1Qbb PFC frame: destination 01:80:c2:00:00:01, source
IFACE's MAC (/sys/class/net/IFACE/address), Ethertype 0x8808, opcode
0x0101, the 16-bit class-enable vector (priority bitmask in the low
byte), eight 16-bit pause times in quanta (512 bit times), priority 0
first, each QUANTA where the vector's bit is set and 0 elsewhere; zero
padding to 60 bytes (the minimum frame without FCS, which the NIC or
veth adds or never checks).  With --pause an IEEE 802.3x PAUSE frame
instead: opcode 0x0001, one 16-bit pause time, padded the same.  All
fields big-endian.  Run it in the network namespace of IFACE.

Options:
  --prios MASK       class-enable vector (default 0x08: priority 3); bits
                     above 7 go on the wire but get no pause time
  --quanta Q         pause time of every priority in MASK (default 0xffff)
  --pause            an 802.3x PAUSE frame (pause time Q; --prios unused)
  --opcode X         another opcode (e.g. 0x0002, unknown), same body
  --dst MAC          another destination
  --len N            cut the finished frame to N bytes (at least 14), no
                     padding (veth passes short frames as they are);
                     above 60, zeros are added
  -n N               send N frames (default 1)
  --interval-us U    gap between frames in microseconds (default 1000); a
                     late frame does not make the next ones go early
  --duration S       send for S seconds instead of N frames (a storm)
SIGTERM stops it early, as if the frames or the time had run out.
Prints "pfc_frames: sent N frames of L bytes on IFACE".
"""

import argparse
import signal
import socket
import struct
import sys
import time

PFC_DST = "01:80:c2:00:00:01"
ETH_P_MAC_CONTROL = 0x8808
OP_PAUSE = 0x0001
OP_PFC = 0x0101
MIN_FRAME = 60


def mac(s):
    """"aa:bb:cc:dd:ee:ff" -> 6 bytes."""
    b = bytes.fromhex(s.replace(":", ""))
    if len(b) != 6 or s.count(":") != 5:
        raise ValueError("not a MAC address: %r" % s)
    return b


def u16(s):
    v = int(s, 0)
    if not 0 <= v <= 0xffff:
        raise ValueError("%s: not a 16-bit value" % s)
    return v


def build(src, dst=PFC_DST, prios=0x08, quanta=0xffff, pause=False,
          opcode=None, length=None):
    """The frame, without FCS: src and dst are MAC strings."""
    if pause:
        body = struct.pack("!HH", OP_PAUSE if opcode is None else opcode,
                           quanta)
    else:
        times = [quanta if prios & (1 << p) else 0 for p in range(8)]
        body = struct.pack("!HH8H", OP_PFC if opcode is None else opcode,
                           prios, *times)
    frame = mac(dst) + mac(src) + struct.pack("!H", ETH_P_MAC_CONTROL) + body
    frame = frame.ljust(MIN_FRAME, b"\0")
    if length is not None:
        frame = frame[:length].ljust(length, b"\0")
    return frame


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("iface")
    ap.add_argument("--prios", type=u16, default=0x08)
    ap.add_argument("--quanta", type=u16, default=0xffff)
    ap.add_argument("--pause", action="store_true")
    ap.add_argument("--opcode", type=u16)
    ap.add_argument("--dst", default=PFC_DST)
    ap.add_argument("--len", type=int, dest="length")
    ap.add_argument("-n", type=int, default=1)
    ap.add_argument("--interval-us", type=int, default=1000)
    ap.add_argument("--duration", type=float)
    a = ap.parse_args()
    if a.length is not None and not 14 <= a.length <= 1514:
        ap.error("--len %d: 14 to 1514 (the kernel wants an Ethernet header)"
                 % a.length)
    if a.n < 0 or a.interval_us < 0 or (a.duration or 0) < 0:
        ap.error("-n, --interval-us and --duration cannot be negative")
    try:
        with open("/sys/class/net/%s/address" % a.iface) as f:
            src = f.read().strip()
        frame = build(src, a.dst, a.prios, a.quanta, a.pause, a.opcode,
                      a.length)
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((a.iface, 0))
        stop = []
        signal.signal(signal.SIGTERM, lambda signum, _: stop.append(signum))
        gap = a.interval_us / 1e6
        now = time.monotonic()
        end = now + a.duration if a.duration is not None else None
        nxt = now
        sent = 0
        while not stop and ((now < end) if end is not None else (sent < a.n)):
            s.send(frame)
            sent += 1
            nxt += gap
            now = time.monotonic()
            if end is None and sent == a.n:
                break
            if nxt > now:
                time.sleep(nxt - now)
                now = time.monotonic()
            else:
                nxt = now
    except (OSError, ValueError) as e:
        sys.exit("pfc_frames: %s: %s" % (a.iface, e))
    print("pfc_frames: sent %d frames of %d bytes on %s" %
          (sent, len(frame), a.iface))
    return 0


if __name__ == "__main__":
    sys.exit(main())
