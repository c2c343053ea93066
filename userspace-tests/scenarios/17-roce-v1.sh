#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 420
#
# RoCE v1 (issue 12): Ethertype 0x8915, a GRH in place of IP and UDP, on
# one L2 segment.  Two hosts in one VM (vroceA on vtA, vroceB on vtB,
# vt_vroce_netns_pair), configured as a ConnectX user would: the RoCE v1
# GID of the IPv4 address is index 2, found as show_gids finds it.
#   - hostile frames first: a frame shorter than a GRH, a GRH of version
#     4, one whose next header is not a BTH (0x1b), one whose payload
#     length runs past the frame, one too short for BTH and ICRC (each
#     rx_header_errors +1), and a well-formed one with a wrong ICRC
#     (rx_icrc_encapsulated +1), sent from vtA with a packet socket;
#   - RC ibv_rc_pingpong with data checks over the IPv4 RoCE v1 GIDs (2)
#     and over the link-local ones (0); ib_write_bw, ib_read_bw and UD
#     ib_send_bw over GID 2; RC ib_send_bw from vroceA to itself
#     (loopback, no wire); rping through rdma_cm with configfs
#     default_roce_mode "IB/RoCE v1" on both devices;
#   - on the wire (a capture on vtB): only RoCE v1 frames, no UDP 4791,
#     and every frame captured whole carries the ICRC that annex A16
#     gives (computed in Python); after the hostile frames, neither
#     device counted another header or ICRC error.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"
. "$VROCE_SRC/userspace-tests/lib/cc.sh"

command -v dumpcap >/dev/null || vt_fail "no dumpcap (tshark; ci/setup.sh installs it)"
W=$(mktemp -d)
CFS=/sys/kernel/config/rdma_cm
cleanup() {
	rmdir "$CFS/vroceA" "$CFS/vroceB" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT

# shellcheck disable=SC2119 # no module parameters
vt_load_vroce
vt_vroce_netns_pair
vt_wait_for "vt_gid_index vroceA 192.168.77.1 'IB/RoCE v1' &&
	vt_gid_index vroceB 192.168.77.2 'IB/RoCE v1'" 30 ||
	vt_fail "no RoCE v1 GID for the IPv4 addresses"
vt_expect_eq "vroceA's IPv4 RoCE v1 GID" \
	"$(vt_gid_index vroceA 192.168.77.1 'IB/RoCE v1')" 2
vt_expect_eq "vroceB's IPv4 RoCE v1 GID" \
	"$(vt_gid_index vroceB 192.168.77.2 'IB/RoCE v1')" 2
vt_expect_eq "vroceA gid 0 type" \
	"$(cat "$(vt_sys vroceA)/ports/1/gid_attrs/types/0")" "IB/RoCE v1"

# errs DEV: "header_errors icrc_errors" of DEV
errs() {
	local -A c
	vt_counters "$1" c
	echo "${c[rx_header_errors]} ${c[rx_icrc_encapsulated]}"
}

# --- hostile frames to vroceB
macB=$(ip -n vtB -br link show vtB | awk '{ print $3 }')
before=$(errs vroceB)
ip netns exec vtA python3 - "$macB" <<'EOF' || vt_fail "hostile frames: the sender failed"
import socket, struct, sys, zlib

dst = bytes.fromhex(sys.argv[1].replace(':', ''))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(('vtA', 0))
src = s.getsockname()[4]
eth = dst + src + b'\x89\x15'

def grh(paylen, ver=6, nxt=0x1b):
    gid = b'\0' * 10 + b'\xff\xff'
    return (struct.pack('>IHBB', ver << 28, paylen, nxt, 64) +
            gid + bytes([192, 168, 77, 1]) + gid + bytes([192, 168, 77, 2]))

# RC SEND ONLY to QP 0x11 (none), PSN 0, 8 bytes of payload, and the ICRC
bth = struct.pack('>BBHII', 0x04, 0, 0xffff, 0x11, 0) + b'vroce v1'
good = len(bth) + 4
def icrc(g, b):
    m = bytearray(g)
    m[0] |= 0x0f
    m[1:4] = b'\xff\xff\xff'
    m[7] = 0xff
    mb = bytearray(b)
    mb[4] = 0xff
    return struct.pack('<I', zlib.crc32(b'\xff' * 8 + bytes(m) + bytes(mb)))

g = grh(good)
for frame in (
        b'\x60\0\0\0\0\x10',                  # shorter than a GRH
        grh(good, ver=4) + bth + b'\0' * 4,   # not version 6
        grh(good, nxt=0x11) + bth + b'\0' * 4, # next header UDP
        grh(good + 2000) + bth + b'\0' * 4,   # payload past the frame
        grh(8) + bth[:8],                     # no room for BTH and ICRC
        g + bth + b'\xde\xad\xbe\xef'):       # wrong ICRC
    s.send(eth + frame)
# the right ICRC: counted as a packet for no QP, not an error
s.send(eth + g + bth + icrc(g, bth))
EOF
want="$((${before% *} + 5)) $((${before#* } + 1))"
vt_wait_for "[ \"\$(errs vroceB)\" = \"$want\" ]" 10 ||
	vt_fail "hostile frames: vroceB's rx_header_errors and rx_icrc_encapsulated went from $before to $(errs vroceB), want $want"
vt_log "hostile frames: errors $before -> $(errs vroceB), rx_no_qp $(vt_counter vroceB rx_no_qp)"
errsA=$(errs vroceA)
errsB=$(errs vroceB)

# --- traffic over RoCE v1, under a capture on vtB
ip netns exec vtB dumpcap -q -P -i vtB -s 128 -f 'ether proto 0x8915 or udp port 4791' \
	-w "$W/v1.pcap" 2>"$W/cap.log" &
cap=$!
vt_wait_for "grep -q 'Capturing on' '$W/cap.log'" 30 ||
	vt_fail "dumpcap did not start: $(cat "$W/cap.log")"

# pair NAME PORT SERVER_CMD CLIENT_CMD: SERVER_CMD in vtB, CLIENT_CMD
# (to 192.168.77.2) in vtA once the server listens on TCP PORT
pair() {
	local name=$1 port=$2 srv
	# shellcheck disable=SC2086 # the commands are word lists
	ip netns exec vtB timeout -k 5 120 $3 >"$W/$name.srv" 2>&1 &
	srv=$!
	vt_wait_for "ip netns exec vtB ss -ltn | grep -q ':$port '" 30 ||
		vt_fail "$name: server not listening: $(tail -3 "$W/$name.srv")"
	# shellcheck disable=SC2086
	ip netns exec vtA timeout -k 5 120 $4 192.168.77.2 >"$W/$name.cli" 2>&1 ||
		vt_fail "$name: client: $(tail -3 "$W/$name.cli") // server: $(tail -3 "$W/$name.srv")"
	wait "$srv" || vt_fail "$name: server: $(tail -3 "$W/$name.srv")"
	vt_log "$name: $(grep -m1 -E ' iters in |^ *[0-9]+ +[0-9]+ ' "$W/$name.cli")"
}
pp="ibv_rc_pingpong -c -n 200 -s 4096"
pair pingpong-gid2 18515 "$pp -d vroceB -g 2" "$pp -d vroceA -g 2"
# 200 round trips of 4096 bytes: it counts both ways
grep -q '^1638400 bytes in ' "$W/pingpong-gid2.cli" ||
	vt_fail "pingpong-gid2: $(tail -2 "$W/pingpong-gid2.cli")"
pair pingpong-gid0 18515 "$pp -d vroceB -g 0" "$pp -d vroceA -g 0"
pt="-x 2 -F -n 200 -p 18600"
pair write_bw 18600 "ib_write_bw -d vroceB $pt -s 65536" "ib_write_bw -d vroceA $pt -s 65536"
pair read_bw 18600 "ib_read_bw -d vroceB $pt -s 65536" "ib_read_bw -d vroceA $pt -s 65536"
pair ud_send_bw 18600 "ib_send_bw -d vroceB $pt -c UD -s 1024" "ib_send_bw -d vroceA $pt -c UD -s 1024"

# loopback: vroceA to itself
ip netns exec vtA timeout -k 5 120 ib_send_bw -d vroceA $pt -s 65536 >"$W/lo.srv" 2>&1 &
srv=$!
vt_wait_for "ip netns exec vtA ss -ltn | grep -q ':18600 '" 30 ||
	vt_fail "loopback: server not listening"
# shellcheck disable=SC2086
ip netns exec vtA timeout -k 5 120 ib_send_bw -d vroceA $pt -s 65536 192.168.77.1 \
	>"$W/lo.cli" 2>&1 || vt_fail "loopback: client: $(tail -3 "$W/lo.cli")"
wait "$srv" || vt_fail "loopback: server: $(tail -3 "$W/lo.srv")"

# rdma_cm, told to use RoCE v1
modprobe rdma_ucm || vt_fail "modprobe rdma_ucm"
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config ||
	vt_fail "mount configfs"
for d in vroceA vroceB; do
	mkdir "$CFS/$d" && echo "IB/RoCE v1" >"$CFS/$d/ports/1/default_roce_mode" ||
		vt_fail "configfs default_roce_mode of $d"
done
ip netns exec vtB timeout -k 5 60 rping -s -a 192.168.77.2 -C 10 -V >"$W/rping.srv" 2>&1 &
srv=$!
vt_wait_for "ip netns exec vtB rdma resource show cm_id | grep -q LISTEN" 30 ||
	vt_fail "rping: server not listening"
ip netns exec vtA timeout -k 5 60 rping -c -a 192.168.77.2 -C 10 -V >"$W/rping.cli" 2>&1 ||
	vt_fail "rping: client: $(tail -3 "$W/rping.cli") // server: $(tail -3 "$W/rping.srv")"
wait "$srv" || vt_fail "rping: server: $(tail -3 "$W/rping.srv")"

sleep 1
kill -INT "$cap"
wait "$cap" || true

# --- the wire: every frame captured whole has the ICRC of IBTA annex A16
# (computed here in Python, the KUnit suite's reference)
read -r n_v1 n_v2 n_whole bad < <(python3 - "$W/v1.pcap" <<'EOF'
import struct, sys, zlib

d = open(sys.argv[1], 'rb').read()
if struct.unpack('<I', d[:4])[0] != 0xa1b2c3d4:
    sys.exit('not a microsecond pcap')
off, v1, v2, whole, bad = 24, 0, 0, 0, 0
while off + 16 <= len(d):
    incl, orig = struct.unpack('<II', d[off + 8:off + 16])
    f = d[off + 16:off + 16 + incl]
    off += 16 + incl
    et = struct.unpack('>H', f[12:14])[0]
    if et != 0x8915:
        v2 += 1
        continue
    v1 += 1
    if incl != orig:
        continue
    whole += 1
    p = f[14:]
    pkt = p[:40 + struct.unpack('>H', p[4:6])[0]]
    g = bytearray(pkt[:40])
    g[0] |= 0x0f
    g[1:4] = b'\xff\xff\xff'
    g[7] = 0xff
    b = bytearray(pkt[40:-4])
    b[4] = 0xff
    if struct.pack('<I', zlib.crc32(b'\xff' * 8 + bytes(g) + bytes(b))) != pkt[-4:]:
        bad += 1
print(v1, v2, whole, bad)
EOF
)
vt_log "wire: $n_v1 RoCE v1 frames ($n_whole captured whole, $bad of them with a wrong ICRC), $n_v2 RoCE v2 packets"
[ "${n_v1:-0}" -ge 1000 ] || vt_fail "only ${n_v1:-none} RoCE v1 frames on the wire"
[ "$n_v2" = 0 ] || vt_fail "$n_v2 RoCE v2 packets on the wire: something did not use RoCE v1"
[ "$n_whole" -ge 200 ] || vt_fail "only $n_whole RoCE v1 frames captured whole"
[ "$bad" = 0 ] || vt_fail "$bad RoCE v1 frames with a wrong ICRC"
vt_expect_eq "vroceA's header and ICRC errors" "$(errs vroceA)" "$errsA"
vt_expect_eq "vroceB's header and ICRC errors" "$(errs vroceB)" "$errsB"
vt_pass "hostile frames counted; RC (IPv4 and link-local GIDs), WRITE, READ, UD, loopback and rdma_cm over RoCE v1: $n_v1 frames, ICRC good, no RoCE v2"
