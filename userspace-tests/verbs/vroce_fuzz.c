// SPDX-License-Identifier: GPL-2.0
/*
 * vroce_fuzz: mutated RoCEv2 (and RoCE v1) packets at a live device.
 *
 * Sends IPv4/UDP/4791 packets, built byte by byte on a raw socket
 * (IPPROTO_RAW, so the program writes the IP header and thus knows every
 * byte the ICRC covers), at DST_IP for -t seconds; with -1, half of them
 * as RoCE v1 frames instead (Ethertype 0x8915, a GRH whose GIDs are the
 * IPv4-mapped addresses, the ICRC of IBTA annex A16) on a packet socket,
 * with malformed GRHs among the malformed class.  Then prints
 *   "vroce_fuzz: sent N packets in S s (P pkt/s): <per-class counts>"
 * Run it in the namespace that sends (the one holding the link to DST_IP).
 *
 * Packet classes:
 *   blind      well-formed packets, valid ICRC, every opcode, from
 *              addresses that are nobody's peer (192.168.77.3..254 style:
 *              DST's /24, never DST itself nor -X), at random QPNs, the low
 *              QPNs a fresh device hands out (where the real traffic's QPs
 *              are), the -q list and the victims below: the receiver must
 *              drop them (rx_no_qp, rx_addr_mismatch, qkey violations)
 *   garbage    any opcode byte (valid or not), random header bytes and
 *              lengths, valid ICRC over it all
 *   malformed  truncated headers, oversized payloads, wrong pad counts,
 *              UDP lengths shorter than the packet, bad tver
 *   bad-icrc   otherwise well-formed packets whose ICRC is wrong
 *   victim-req / victim-resp (with -d DEV, the device behind DST_IP)
 *              the program also owns QPs on DEV ("victims": two RC, one
 *              UC, one UD, in their own PD) whose path names the spoofed
 *              address -P as the peer, so packets "from" -P get past the
 *              address check into the responder and completer: requests
 *              at and around the expected PSN (SEND, WRITE, READ, atomics,
 *              FLUSH, ATOMIC WRITE, invalidate, immediate; multi-packet
 *              messages), with the victims' rkey, the rkey of an MR in a
 *              second PD, of an MR without remote access, neighbours of
 *              those (other processes' MRs), out-of-range addresses, huge
 *              READ lengths, misaligned atomics; and ACKs, NAKs, READ
 *              responses and atomic ACKs around the PSNs of the victims'
 *              own outstanding READ, SEND and atomic.  A victim that an
 *              error moved to ERR is reset and reconnected (new PSNs) every
 *              few dozen packets.  The victims' replies go to -P, which the
 *              caller points at an unused MAC (a static neighbour entry),
 *              so they leave the wire unanswered.
 *
 * Checks (exit 1 on failure):
 *   - self-test first: a valid SEND from -P at the expected PSN must land
 *     in a victim's receive buffer byte for byte, a copy with a bad ICRC
 *     must not; this proves the ICRC and header code before fuzzing
 *   - every victim receive buffer, READ/atomic target and the gaps between
 *     them are surrounded by canaries that must be intact at the end (a
 *     placement past an SGE would overwrite them)
 * Without -d only the blind, garbage, malformed and bad-icrc classes run.
 *
 * The RDMA device is opened by name: in rdma's default "shared" netns mode
 * every namespace sees every device, so one process can own QPs on DEV
 * (whose netdev lives elsewhere) and send from this namespace.
 *
 * Usage: vroce_fuzz [options] DST_IP
 *   -t SEC     how long to send (default 10)
 *   -d DEV     own victim QPs on DEV (the device at DST_IP)
 *   -P IP      the victims' peer address to spoof (default DST's .3)
 *   -X IP      an address never to spoof (the real traffic's peer;
 *              default DST's .2)
 *   -q LIST    comma-separated QPNs of the real traffic, aimed at as well
 *   -R PPS     at most PPS packets per second (default: as fast as it can)
 *   -s SEED    PRNG seed (default: time); printed, for replay
 *   -1 IF,MAC[,SRC]  also RoCE v1: frames out of interface IF to MAC
 *              (DST's), from SRC (default: IF's address; the victims
 *              answer RoCE v1 to the MAC it came from: point it where
 *              -P's replies go); the self-test also sends its valid SEND
 *              as RoCE v1
 *   -v         verbose
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define PROG		"vroce_fuzz"
#define ROCE_PORT	4791
#define MTU		1024		/* victims' path MTU */
#define MAX_PKT		1400		/* below the veth's 1500 */
#define IP_LEN		20
#define UDP_LEN		8
#define BTH_LEN		12
#define ICRC_LEN	4
#define MAX_QPNS	64
#define ETH_LEN		14
#define GRH_LEN		40
#define ETH_P_ROCE_V1	0x8915
#define GRH_NEXT_BTH	0x1b

/* Extension headers, in wire order after the BTH. */
enum {
	E_DETH = 1 << 0, E_FETH = 1 << 1, E_RETH = 1 << 2, E_ATMETH = 1 << 3,
	E_AETH = 1 << 4, E_ATMACK = 1 << 5, E_IMMDT = 1 << 6, E_IETH = 1 << 7,
};

static const uint8_t ext_len[8] = { 8, 4, 16, 28, 4, 8, 4, 4 };

/* Operation codes (BTH opcode bits 4..0) and transports (bits 7..5). */
enum {
	OP_SEND_FIRST, OP_SEND_MIDDLE, OP_SEND_LAST, OP_SEND_LAST_IMM,
	OP_SEND_ONLY, OP_SEND_ONLY_IMM, OP_WRITE_FIRST, OP_WRITE_MIDDLE,
	OP_WRITE_LAST, OP_WRITE_LAST_IMM, OP_WRITE_ONLY, OP_WRITE_ONLY_IMM,
	OP_READ_REQ, OP_RRESP_FIRST, OP_RRESP_MIDDLE, OP_RRESP_LAST,
	OP_RRESP_ONLY, OP_ACK, OP_ATOMIC_ACK, OP_CMP_SWAP, OP_FETCH_ADD,
	OP_SEND_LAST_INV = 0x16, OP_SEND_ONLY_INV = 0x17, OP_FLUSH = 0x1c,
	OP_ATOMIC_WRITE = 0x1d,
};
#define T_RC	0x00
#define T_UC	0x20
#define T_UD	0x60
#define OP_CNP	0x81

/* Extension headers of each valid opcode; -1: not a valid opcode. */
static int op_ext[256];

static void op_table_init(void)
{
	static const struct { uint8_t op; int ext; } rc[] = {
		{ OP_SEND_FIRST, 0 }, { OP_SEND_MIDDLE, 0 },
		{ OP_SEND_LAST, 0 }, { OP_SEND_LAST_IMM, E_IMMDT },
		{ OP_SEND_ONLY, 0 }, { OP_SEND_ONLY_IMM, E_IMMDT },
		{ OP_WRITE_FIRST, E_RETH }, { OP_WRITE_MIDDLE, 0 },
		{ OP_WRITE_LAST, 0 }, { OP_WRITE_LAST_IMM, E_IMMDT },
		{ OP_WRITE_ONLY, E_RETH },
		{ OP_WRITE_ONLY_IMM, E_RETH | E_IMMDT },
		{ OP_READ_REQ, E_RETH }, { OP_RRESP_FIRST, E_AETH },
		{ OP_RRESP_MIDDLE, 0 }, { OP_RRESP_LAST, E_AETH },
		{ OP_RRESP_ONLY, E_AETH }, { OP_ACK, E_AETH },
		{ OP_ATOMIC_ACK, E_AETH | E_ATMACK },
		{ OP_CMP_SWAP, E_ATMETH }, { OP_FETCH_ADD, E_ATMETH },
		{ OP_SEND_LAST_INV, E_IETH }, { OP_SEND_ONLY_INV, E_IETH },
		{ OP_FLUSH, E_FETH | E_RETH }, { OP_ATOMIC_WRITE, E_RETH },
	};
	size_t i;

	for (i = 0; i < 256; i++)
		op_ext[i] = -1;
	for (i = 0; i < VT_ARRAY_SIZE(rc); i++) {
		op_ext[T_RC | rc[i].op] = rc[i].ext;
		/* UC: the SEND and WRITE operations only */
		if (rc[i].op <= OP_WRITE_ONLY_IMM)
			op_ext[T_UC | rc[i].op] = rc[i].ext;
	}
	op_ext[T_UD | OP_SEND_ONLY] = E_DETH;
	op_ext[T_UD | OP_SEND_ONLY_IMM] = E_DETH | E_IMMDT;
	op_ext[OP_CNP] = 0;
}

static unsigned int hdr_len_of(int ext)
{
	unsigned int len = BTH_LEN, e;

	for (e = 0; e < 8; e++)
		if (ext & (1 << e))
			len += ext_len[e];
	return len;
}

static int ext_off(int ext, int which)
{
	int off = BTH_LEN, e;

	for (e = 0; (1 << e) != which; e++)
		if (ext & (1 << e))
			off += ext_len[e];
	return off;
}

/* ---------------------------------------------------------------- ICRC */

static uint32_t crc_table[256];

static void crc_init(void)
{
	uint32_t c, i, k;

	for (i = 0; i < 256; i++) {
		for (c = i, k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

/* Reflected CRC-32 without pre- or post-inversion. */
static uint32_t crc_raw(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

/*
 * ICRC of an IPv4 RoCEv2 packet of @len bytes (IP header to the last pad
 * byte): CRC-32 as zlib computes it over eight 0xff bytes, the IP header
 * with TOS, TTL and checksum set to ones, UDP with its checksum set to
 * ones, the BTH with its reserved byte 4 set to ones, and the rest.
 */
static uint32_t icrc(const uint8_t *pkt, size_t len)
{
	static const uint8_t lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	/* masked bytes: TOS, TTL, IP checksum, UDP checksum, BTH resv8a */
	static const size_t ones[] = { 1, 8, 10, 11, IP_LEN + 6, IP_LEN + 7,
				       IP_LEN + UDP_LEN + 4 };
	uint8_t h[IP_LEN + UDP_LEN + BTH_LEN];
	size_t n = len < sizeof(h) ? len : sizeof(h), i;
	uint32_t c;

	memcpy(h, pkt, n);
	for (i = 0; i < VT_ARRAY_SIZE(ones); i++)
		if (ones[i] < n)
			h[ones[i]] = 0xff;
	c = crc_raw(0xffffffffu, lrh, sizeof(lrh));
	c = crc_raw(c, h, n);
	c = crc_raw(c, pkt + n, len - n);
	return ~c;
}

/*
 * The RoCE v1 ICRC (IBTA annex A16): as above with the GRH in the IP
 * header's place (traffic class, flow label and hop limit masked, as for
 * IPv6) and no UDP header.  @pkt starts at the GRH.
 */
static uint32_t icrc_v1(const uint8_t *pkt, size_t len)
{
	static const uint8_t lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t h[GRH_LEN + BTH_LEN];
	size_t n = len < sizeof(h) ? len : sizeof(h);
	uint32_t c;

	memcpy(h, pkt, n);
	h[0] |= 0x0f;
	h[1] = h[2] = h[3] = 0xff;
	h[7] = 0xff;
	if (n > GRH_LEN + 4)
		h[GRH_LEN + 4] = 0xff;
	c = crc_raw(0xffffffffu, lrh, sizeof(lrh));
	c = crc_raw(c, h, n);
	c = crc_raw(c, pkt + n, len - n);
	return ~c;
}

/* ------------------------------------------------------------- globals */

static uint64_t rng;
static int raw_fd;
static struct sockaddr_in dst_sa;
static uint32_t dst_ip, peer_ip, excl_ip;	/* host order */
static uint16_t ip_id = 1;

static uint32_t rnd(void)
{
	return (uint32_t)(vt_rand(&rng) >> 32);
}

/* Uniform in [0, n) (n > 0). */
static uint32_t below(uint32_t n)
{
	return (uint32_t)(((uint64_t)rnd() * n) >> 32);
}

static int chance(unsigned int pct)
{
	return below(100) < pct;
}

enum cls {
	C_BLIND, C_REALQP, C_VICTIM_REQ, C_VICTIM_RESP, C_GARBAGE,
	C_MALFORMED, C_BADICRC, C_COUNT
};
static const char *const cls_name[C_COUNT] = {
	"blind", "real-qp", "victim-req", "victim-resp", "garbage",
	"malformed", "bad-icrc",
};
static uint64_t n_cls[C_COUNT], n_sent, n_send_err, n_v1;

/* RoCE v1 (-1): the packet socket, where frames go, and when */
static int v1_fd = -1;
static struct sockaddr_ll v1_sa;
static uint8_t v1_dmac[6], v1_smac[6];
static int v1_force;		/* the next packet goes as RoCE v1 */

static void be16put(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = v; }

static void be32put(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

static void be64put(uint8_t *p, uint64_t v)
{
	be32put(p, v >> 32);
	be32put(p + 4, (uint32_t)v);
}

/* --------------------------------------------------------- packet build */

/*
 * One packet under construction: the fields a generator chooses, turned
 * into bytes by pkt_emit().  Extension header fields not set stay zero.
 */
struct pkt {
	uint32_t saddr;			/* host order */
	uint8_t opcode;
	int ext;			/* extension headers present */
	uint8_t flags;			/* BTH byte 1 (SE, M, pad, tver) */
	uint16_t pkey;
	uint32_t qpn, psn;
	int ackreq;
	uint64_t va;
	uint32_t rkey, dlen;		/* RETH / ATMETH / IETH */
	uint64_t swap_add, comp;
	uint32_t aeth, imm, qkey, sqp, feth;
	uint64_t orig;
	uint32_t paylen;
	int pad;			/* -1: the right one */
	uint8_t fill;			/* payload byte pattern seed */
	const uint8_t *payload;		/* NULL: pattern from @fill */
	/* mutations applied after the headers are written */
	int cut;			/* >0: send only this many bytes after UDP */
	int udp_short;			/* UDP length this much too small */
	int flip;			/* random bytes to overwrite after BTH */
	int bad_icrc;
	int raw_hdr;			/* random bytes for every header */
};

static void pkt_init(struct pkt *p, uint32_t saddr, uint8_t opcode,
		     uint32_t qpn, uint32_t psn)
{
	memset(p, 0, sizeof(*p));
	p->saddr = saddr;
	p->opcode = opcode;
	p->ext = op_ext[opcode] < 0 ? 0 : op_ext[opcode];
	p->flags = 0x40;		/* MigReq, tver 0 */
	p->pkey = 0xffff;
	p->qpn = qpn;
	p->psn = psn;
	p->pad = -1;
	p->fill = (uint8_t)rnd();
}

/*
 * Send one packet of class @c and count it; a full socket buffer is
 * counted as a send error, any other failure ends the program.
 * Return: 0 when sent.
 */
static int send_out(int fd, const void *buf, size_t len,
		    const struct sockaddr *sa, socklen_t salen, enum cls c)
{
	if (sendto(fd, buf, len, 0, sa, salen) < 0) {
		if (errno != ENOBUFS && errno != EAGAIN) {
			fprintf(stderr, "%s: sendto: %s\n", PROG,
				strerror(errno));
			exit(1);
		}
		n_send_err++;
		return -1;
	}
	n_sent++;
	n_cls[c]++;
	return 0;
}

/*
 * @p as a RoCE v1 frame: @bth's @blen bytes (BTH to pad) after an Ethernet
 * header and a GRH.  A UDP length too short becomes a GRH payload length
 * too short; a malformed packet may also get a GRH of another version or
 * next header.
 */
static void send_v1(const struct pkt *p, enum cls c, const uint8_t *bth,
		    unsigned int blen)
{
	static uint8_t f[ETH_LEN + GRH_LEN + 2048];
	uint8_t *g = f + ETH_LEN, tclass = (uint8_t)rnd();
	unsigned int paylen = blen + ICRC_LEN - (unsigned int)p->udp_short;
	uint32_t flow = rnd() & 0xfffff, crc;
	unsigned int i;

	memcpy(f, v1_dmac, 6);
	memcpy(f + 6, v1_smac, 6);
	be16put(f + 12, ETH_P_ROCE_V1);
	be32put(g, 6u << 28 | (uint32_t)tclass << 20 | flow);
	be16put(g + 4, (uint16_t)paylen);
	g[6] = GRH_NEXT_BTH;
	g[7] = 64;
	memset(g + 8, 0, 32);
	g[18] = g[19] = g[34] = g[35] = 0xff;
	be32put(g + 20, p->saddr);
	be32put(g + 36, dst_ip);
	memcpy(g + GRH_LEN, bth, blen);
	crc = icrc_v1(g, GRH_LEN + blen - (unsigned int)p->udp_short);
	if (p->bad_icrc)
		crc ^= 1u << below(32);
	for (i = 0; i < 4; i++)
		g[GRH_LEN + blen - (unsigned int)p->udp_short + i] =
			(uint8_t)(crc >> (8 * i));
	if (c == C_MALFORMED && chance(30)) {
		if (chance(50))
			g[0] = (uint8_t)((g[0] & 0x0f) | (below(16) << 4));
		else
			g[6] = (uint8_t)rnd();
	}
	if (!send_out(v1_fd, f, ETH_LEN + GRH_LEN + blen + ICRC_LEN,
		      (struct sockaddr *)&v1_sa, sizeof(v1_sa), c))
		n_v1++;
}

static void pkt_send(struct pkt *p, enum cls c)
{
	static uint8_t b[2048];
	unsigned int hl = hdr_len_of(p->ext), i, pad, len, l4, room;
	uint8_t *bth = b + IP_LEN + UDP_LEN;
	uint32_t crc;

	/*
	 * The bytes after the headers are the payload and its natural pad;
	 * the BTH pad count may say otherwise (p->pad).
	 */
	room = MAX_PKT - (IP_LEN + UDP_LEN + hl + 3 + ICRC_LEN);
	if (p->paylen > room)		/* compared alone: a sum could wrap */
		p->paylen = room;
	pad = (4 - (p->paylen & 3)) & 3;
	len = IP_LEN + UDP_LEN + hl + p->paylen + pad;
	if (p->pad >= 0)
		pad = (unsigned int)p->pad & 3;

	memset(b, 0, len + ICRC_LEN);
	/* IPv4: no options, DF, a nonzero ID (zero would be filled in) */
	b[0] = 0x45;
	b[1] = (uint8_t)rnd();
	b[6] = 0x40;
	b[8] = 64;
	b[9] = IPPROTO_UDP;
	if (++ip_id == 0)
		ip_id = 1;
	be16put(b + 4, ip_id);
	be32put(b + 12, p->saddr);
	be32put(b + 16, dst_ip);
	/* UDP, checksum 0 (none) */
	be16put(b + IP_LEN, (uint16_t)(0xc000 | (rnd() & 0x3fff)));
	be16put(b + IP_LEN + 2, ROCE_PORT);

	bth[0] = p->opcode;
	bth[1] = (uint8_t)((p->flags & ~0x30) | (pad << 4));
	be16put(bth + 2, p->pkey);
	be32put(bth + 4, p->qpn & 0xffffff);
	be32put(bth + 8, (p->ackreq ? 0x80000000u : 0) | (p->psn & 0xffffff));
	if (p->ext & E_DETH) {
		be32put(bth + ext_off(p->ext, E_DETH), p->qkey);
		be32put(bth + ext_off(p->ext, E_DETH) + 4, p->sqp);
	}
	if (p->ext & E_FETH)
		be32put(bth + ext_off(p->ext, E_FETH), p->feth);
	if (p->ext & E_RETH) {
		uint8_t *r = bth + ext_off(p->ext, E_RETH);

		be64put(r, p->va);
		be32put(r + 8, p->rkey);
		be32put(r + 12, p->dlen);
	}
	if (p->ext & E_ATMETH) {
		uint8_t *a = bth + ext_off(p->ext, E_ATMETH);

		be64put(a, p->va);
		be32put(a + 8, p->rkey);
		be64put(a + 12, p->swap_add);
		be64put(a + 20, p->comp);
	}
	if (p->ext & E_AETH)
		be32put(bth + ext_off(p->ext, E_AETH), p->aeth);
	if (p->ext & E_ATMACK)
		be64put(bth + ext_off(p->ext, E_ATMACK), p->orig);
	if (p->ext & E_IMMDT)
		be32put(bth + ext_off(p->ext, E_IMMDT), p->imm);
	if (p->ext & E_IETH)
		be32put(bth + ext_off(p->ext, E_IETH), p->rkey);
	if (p->raw_hdr)
		for (i = 1; i < hl; i++)
			bth[i] = (uint8_t)rnd();
	if (p->payload)
		memcpy(bth + hl, p->payload, p->paylen);
	else
		for (i = 0; i < p->paylen; i++)
			bth[hl + i] = (uint8_t)(p->fill + i * 7);
	for (i = 0; i < (unsigned int)p->flip; i++) {
		unsigned int at = 1 + below(len - IP_LEN - UDP_LEN - 1);

		bth[at] = (uint8_t)rnd();
	}

	if (p->cut > 0 && (unsigned int)p->cut < len - IP_LEN - UDP_LEN)
		len = IP_LEN + UDP_LEN + (unsigned int)p->cut;
	if ((unsigned int)p->udp_short > len - IP_LEN - UDP_LEN)
		p->udp_short = (int)(len - IP_LEN - UDP_LEN);
	l4 = len + ICRC_LEN - IP_LEN;
	be16put(b + 2, (uint16_t)(len + ICRC_LEN));
	be16put(b + IP_LEN + 4, (uint16_t)(l4 - (unsigned int)p->udp_short));
	if (v1_fd >= 0 && (v1_force || chance(50))) {
		send_v1(p, c, bth, len - IP_LEN - UDP_LEN);
		return;
	}
	/* the ICRC ends where the UDP length says (the receiver trims) */
	crc = icrc(b, len - (unsigned int)p->udp_short);
	if (p->bad_icrc)
		crc ^= 1u << below(32);
	for (i = 0; i < 4; i++)
		b[len - (unsigned int)p->udp_short + i] = (uint8_t)(crc >> (8 * i));

	send_out(raw_fd, b, len + ICRC_LEN, (struct sockaddr *)&dst_sa,
		 sizeof(dst_sa), c);
}

/* ------------------------------------------------------------- victims */

#define NVICTIM		4
#define RQ_DEPTH	32
#define RBUF		2048		/* one receive buffer */
#define GAP		64		/* canary between buffers */
#define MR1_LEN		65536		/* remote-accessible target */
#define LBUF		8192		/* victim's own READ/atomic target */
#define CANARY		0xa5

struct victim {
	struct ibv_qp *qp;
	enum ibv_qp_type type;
	uint8_t *rbuf;			/* RQ_DEPTH buffers with gaps */
	uint8_t *lbuf;			/* READ target, atomic result */
	uint32_t rq_psn, sq_psn, epsn;	/* epsn: our guess of the responder's */
	int left;			/* packets before the next reset */
	int msg;			/* 0, OP_SEND_FIRST or OP_WRITE_FIRST */
	uint32_t msg_left;		/* bytes still to send in @msg */
	uint64_t msg_va;
};

static struct vt_dev dev;
static struct ibv_pd *pd, *pd2;
static struct ibv_mr *mr1, *mr_local, *mr_other, *mr_noacc;
static struct ibv_cq *cq;
static struct victim vic[NVICTIM];
static uint8_t *mr1_buf;
static uint64_t n_resets, n_wc_ok, n_wc_err;
/* reconnects that a fuzz packet still in flight moved to ERR midway */
static uint64_t reconnect_races;
static uint32_t qkey = 0x11111111;
static uint32_t fake_peer_qpn = 0xfedcba;	/* nobody's */
static int have_dev;
static int sends_on;		/* after the self-test: victims send too */

static void *slab;
static size_t slab_len;

static uint8_t *rbuf_at(struct victim *v, int i)
{
	return v->rbuf + GAP + (size_t)i * (RBUF + GAP);
}

static void poll_cq(void)
{
	struct ibv_wc wc[64];
	int n, i;

	while ((n = ibv_poll_cq(cq, 64, wc)) > 0)
		for (i = 0; i < n; i++) {
			if (wc[i].status == IBV_WC_SUCCESS)
				n_wc_ok++;
			else
				n_wc_err++;
		}
}

static int post_recvs(struct victim *v)
{
	int i;

	for (i = 0; i < RQ_DEPTH; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)rbuf_at(v, i),
			.length = RBUF,
			.lkey = mr_local->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		if (ibv_post_recv(v->qp, &wr, &bad))
			return -1;
	}
	return 0;
}

/* The victim's own requests, whose responses the fuzzer forges. */
static void post_sends(struct victim *v)
{
	struct ibv_sge sge = { .lkey = mr_local->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (v->type == IBV_QPT_UD)
		return;
	sge.addr = (uintptr_t)v->lbuf;
	sge.length = 100;
	wr.opcode = IBV_WR_SEND;
	ibv_post_send(v->qp, &wr, &bad);
	if (v->type != IBV_QPT_RC)
		return;
	sge.length = 3000;		/* three response packets */
	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = 0x10000;
	wr.wr.rdma.rkey = 0x1234;
	ibv_post_send(v->qp, &wr, &bad);
	sge.addr = (uintptr_t)v->lbuf + 4096;
	sge.length = 8;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = 0x20000;
	wr.wr.atomic.rkey = 0x1234;
	wr.wr.atomic.compare_add = 1;
	ibv_post_send(v->qp, &wr, &bad);
}

/* RESET -> INIT -> RTR -> RTS with fresh PSNs; 0 or an errno. */
static int victim_connect(struct victim *v)
{
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RESET;
	ret = ibv_modify_qp(v->qp, &a, IBV_QP_STATE);
	if (ret)
		return vt_rc(ret);
	poll_cq();
	vt_drain_async(dev.ctx);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	if (v->type == IBV_QPT_UD) {
		a.qkey = qkey;
		ret = ibv_modify_qp(v->qp, &a, IBV_QP_STATE |
				    IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				    IBV_QP_QKEY);
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
			(v->type == IBV_QPT_RC ? IBV_ACCESS_REMOTE_READ |
			 IBV_ACCESS_REMOTE_ATOMIC : 0);
		ret = ibv_modify_qp(v->qp, &a, IBV_QP_STATE |
				    IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				    IBV_QP_ACCESS_FLAGS);
	}
	if (ret)
		return vt_rc(ret);

	/* PSNs anywhere, often just below the 24-bit wrap */
	v->rq_psn = chance(30) ? 0xffffff - below(8) : rnd() & 0xffffff;
	v->sq_psn = chance(30) ? 0xffffff - below(8) : rnd() & 0xffffff;
	v->epsn = v->rq_psn;
	v->msg = 0;
	v->left = 16 + (int)below(96);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (v->type == IBV_QPT_UD) {
		ret = ibv_modify_qp(v->qp, &a, IBV_QP_STATE);
	} else {
		int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;

		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = fake_peer_qpn;
		a.rq_psn = v->rq_psn;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.grh.sgid_index = (uint8_t)dev.gid_index;
		memset(a.ah_attr.grh.dgid.raw + 10, 0xff, 2);
		be32put(a.ah_attr.grh.dgid.raw + 12, peer_ip);
		if (v->type == IBV_QPT_RC) {
			a.max_dest_rd_atomic = 16;
			a.min_rnr_timer = 1;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
		}
		ret = ibv_modify_qp(v->qp, &a, mask);
	}
	if (ret)
		return vt_rc(ret);
	if (post_recvs(v))
		return EIO;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = v->sq_psn;
	if (v->type == IBV_QPT_RC) {
		a.timeout = 10;
		a.retry_cnt = 1;
		a.rnr_retry = 1;
		a.max_rd_atomic = 4;
		ret = ibv_modify_qp(v->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				    IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	} else {
		ret = ibv_modify_qp(v->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	}
	if (ret)
		return vt_rc(ret);
	if (sends_on)
		post_sends(v);
	n_resets++;
	return 0;
}

/* The victim's state now, or -1. */
static int victim_state(struct victim *v)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(v->qp, &a, IBV_QP_STATE, &init))
		return -1;
	return a.qp_state;
}

/*
 * victim_connect(), again when it failed because the victim was in ERR:
 * a fuzz packet sent before the reset can still be on its way (in the
 * receive backlog) and move the victim to ERR between two of the
 * transitions, which then fails with EINVAL.  Anything else is a failure.
 */
static int victim_reconnect(struct victim *v)
{
	int tries, err = 0;

	for (tries = 0; tries < 5; tries++) {
		err = victim_connect(v);
		if (err != EINVAL || victim_state(v) != IBV_QPS_ERR)
			return err;
		reconnect_races++;
	}
	return err;
}

static void fill_canaries(void)
{
	memset(slab, CANARY, slab_len);
}

/* Bytes of the slab outside every buffer a victim may legally touch. */
static int check_canaries(void)
{
	size_t bad = 0, first = 0;
	uint8_t *s = slab;
	int v, i;

	for (v = 0; v < NVICTIM; v++) {
		for (i = 0; i <= RQ_DEPTH; i++) {
			uint8_t *g = vic[v].rbuf + (size_t)i * (RBUF + GAP);
			size_t k;

			for (k = 0; k < GAP; k++)
				if (g[k] != CANARY && !bad++)
					first = (size_t)(g + k - s);
		}
		/* lbuf: [0, 3000) READ, [4096, 4104) atomic */
		for (i = 3000; i < LBUF; i++) {
			if (i >= 4096 && i < 4104)
				continue;
			if (vic[v].lbuf[i] != CANARY && !bad++)
				first = (size_t)(vic[v].lbuf + i - s);
		}
	}
	if (bad)
		fprintf(stderr, "%s: FAIL: %zu canary bytes overwritten, first at slab offset %zu\n",
			PROG, bad, first);
	return bad ? -1 : 0;
}

static int victims_setup(const char *name)
{
	size_t per = GAP + (size_t)RQ_DEPTH * (RBUF + GAP) + LBUF;
	static const enum ibv_qp_type types[NVICTIM] = {
		IBV_QPT_RC, IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };
	int remote = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	void *other;
	int i, ret;

	if (vt_open(name, -1, &dev))
		return -1;
	pd = ibv_alloc_pd(dev.ctx);
	pd2 = ibv_alloc_pd(dev.ctx);
	cq = ibv_create_cq(dev.ctx, 4096, NULL, NULL, 0);
	if (!pd || !pd2 || !cq) {
		fprintf(stderr, "%s: PD/CQ: %s\n", PROG, strerror(errno));
		return -1;
	}
	slab_len = per * NVICTIM;
	slab = vt_alloc(slab_len);
	mr1_buf = vt_alloc(MR1_LEN);
	other = vt_alloc(MR1_LEN);
	fill_canaries();
	mr_local = ibv_reg_mr(pd, slab, slab_len, IBV_ACCESS_LOCAL_WRITE);
	mr1 = ibv_reg_mr(pd, mr1_buf, MR1_LEN, remote);
	/* an MR of another PD, and one without remote access */
	mr_other = ibv_reg_mr(pd2, other, MR1_LEN, remote);
	mr_noacc = ibv_reg_mr(pd, other, MR1_LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!mr_local || !mr1 || !mr_other || !mr_noacc) {
		fprintf(stderr, "%s: reg_mr: %s\n", PROG, strerror(errno));
		return -1;
	}
	for (i = 0; i < NVICTIM; i++) {
		struct victim *v = &vic[i];

		v->type = types[i];
		v->rbuf = (uint8_t *)slab + per * (size_t)i;
		v->lbuf = v->rbuf + GAP + (size_t)RQ_DEPTH * (RBUF + GAP);
		v->qp = vt_create_qp(&dev, pd, v->type, cq, cq, NULL,
				     RQ_DEPTH, 1, 1);
		if (!v->qp) {
			fprintf(stderr, "%s: create_qp: %s\n", PROG,
				strerror(errno));
			return -1;
		}
		ret = victim_connect(v);
		if (ret) {
			fprintf(stderr, "%s: victim %d connect: %s\n", PROG, i,
				strerror(ret));
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ generators */

/* A source that is nobody's peer (or the victims' peer, for real QPNs). */
static uint32_t stranger(int allow_peer)
{
	for (;;) {
		uint32_t a = (dst_ip & 0xffffff00u) | (2 + below(253));

		if (a != dst_ip && a != excl_ip && (allow_peer || a != peer_ip))
			return a;
	}
}

static uint8_t any_valid_opcode(void)
{
	for (;;) {
		uint8_t op = (uint8_t)rnd();

		if (op_ext[op] >= 0)
			return op;
	}
}

/* Fill the extension headers of @p with plausible random values. */
static void random_exts(struct pkt *p)
{
	p->va = chance(50) ? (uint64_t)rnd() << 32 | rnd() : 0x1000 * below(64);
	p->rkey = rnd();
	p->dlen = chance(50) ? below(8192) : rnd();
	p->swap_add = rnd();
	p->comp = rnd();
	p->aeth = rnd();
	p->imm = rnd();
	p->qkey = chance(50) ? qkey : rnd();
	p->sqp = rnd() & 0xffffff;
	p->feth = rnd() & 0x3f;
	p->paylen = chance(60) ? below(MTU + 1) : below(MAX_PKT);
	p->ackreq = chance(50);
}

static uint32_t real_qpns[MAX_QPNS];
static int n_real_qpns;

static uint32_t pick_qpn(void)
{
	uint32_t r = below(100);

	if (r < 35)
		return 16 + below(512);		/* where fresh devices allocate */
	if (r < 55 && n_real_qpns)
		return real_qpns[below((uint32_t)n_real_qpns)];
	if (r < 70 && have_dev)
		return vic[below(NVICTIM)].qp->qp_num;
	if (r < 75)
		return chance(50) ? 0xffffff : below(16);	/* mcast, GSI */
	return rnd() & 0xffffff;
}

/* Well-formed packet from a stranger: must be dropped. */
static void gen_blind(void)
{
	struct pkt p;
	uint32_t qpn = pick_qpn();
	int real = qpn >= 16 && qpn < 16 + 512, i;

	for (i = 0; i < n_real_qpns; i++)
		real |= qpn == real_qpns[i];
	for (i = 0; have_dev && i < NVICTIM; i++)
		if (qpn == vic[i].qp->qp_num)
			real = 0;

	pkt_init(&p, stranger(1), any_valid_opcode(), qpn, rnd());
	random_exts(&p);
	pkt_send(&p, real ? C_REALQP : C_BLIND);
}

/* Any opcode byte, random headers, valid ICRC. */
static void gen_garbage(void)
{
	struct pkt p;
	uint32_t src = have_dev && chance(50) ? peer_ip : stranger(0);
	uint32_t qpn = have_dev && src == peer_ip ?
		       vic[below(NVICTIM)].qp->qp_num : pick_qpn();

	pkt_init(&p, src, (uint8_t)rnd(), qpn, rnd());
	random_exts(&p);
	if (op_ext[p.opcode] < 0 || chance(30))
		p.ext = (int)(rnd() & 0xff);
	if (chance(50))
		p.raw_hdr = 1;
	else
		p.flip = 1 + (int)below(8);
	if (chance(20))
		p.flags = (uint8_t)rnd();
	pkt_send(&p, C_GARBAGE);
}

/* Lengths that do not add up. */
static void gen_malformed(void)
{
	struct pkt p;
	uint32_t src = have_dev && chance(60) ? peer_ip : stranger(0);
	uint32_t qpn = have_dev && src == peer_ip ?
		       vic[below(NVICTIM)].qp->qp_num : pick_qpn();
	struct victim *v = NULL;
	int i;

	for (i = 0; have_dev && i < NVICTIM; i++)
		if (vic[i].qp->qp_num == qpn)
			v = &vic[i];
	pkt_init(&p, src, any_valid_opcode(), qpn,
		 v ? v->epsn : rnd());
	random_exts(&p);
	if (v && v->type == IBV_QPT_UD)
		p.qkey = qkey;
	switch (below(6)) {
	case 0:		/* truncated: stop inside the headers */
		p.cut = (int)below(hdr_len_of(p.ext) + 4);
		if (p.cut < 1)
			p.cut = 1;
		break;
	case 1:		/* pad count that does not fit the payload */
		p.pad = (int)below(4);
		p.paylen = below(8);
		break;
	case 2:		/* UDP length shorter than the packet */
		p.udp_short = 1 + (int)below(40);
		break;
	case 3:		/* oversized payload (beyond the path MTU) */
		p.paylen = MTU + 1 + below(MAX_PKT - MTU - 100);
		break;
	case 4:		/* transport version other than 0 */
		p.flags = (uint8_t)(0x40 | (1 + below(15)));
		break;
	default:	/* a header-only opcode with payload, or the reverse */
		p.paylen = chance(50) ? 0 : 1 + below(64);
		p.pad = chance(50) ? -1 : (int)below(4);
		break;
	}
	pkt_send(&p, C_MALFORMED);
}

static void gen_bad_icrc(void)
{
	struct pkt p;
	uint32_t src = have_dev && chance(50) ? peer_ip : stranger(0);
	uint32_t qpn = have_dev && src == peer_ip ?
		       vic[below(NVICTIM)].qp->qp_num : pick_qpn();

	pkt_init(&p, src, any_valid_opcode(), qpn, rnd());
	random_exts(&p);
	p.bad_icrc = 1;
	pkt_send(&p, C_BADICRC);
}

/* An rkey the victims' responder must refuse, or sometimes the right one. */
static uint32_t some_rkey(void)
{
	switch (below(8)) {
	case 0:
		return mr_other->rkey;			/* another PD */
	case 1:
		return mr_noacc->rkey;			/* no remote access */
	case 2:		/* neighbours: other processes' MRs, stale keys */
		return mr1->rkey + 0x100 * (1 + below(8));
	case 3:
		return mr1->rkey ^ (1 + below(255));
	case 4:
		return rnd();
	case 5:
		return 0;
	default:
		return mr1->rkey;
	}
}

/* A request for victim @v: mostly well-formed, at the PSN it expects. */
static void gen_victim_req(struct victim *v)
{
	uint8_t t = v->type == IBV_QPT_RC ? T_RC :
		    v->type == IBV_QPT_UC ? T_UC : T_UD;
	int bad = chance(25);
	uint32_t psn = v->epsn;
	uint64_t base = (uintptr_t)mr1_buf;
	struct pkt p;
	uint8_t op;

	if (chance(15))
		psn = (psn + 0x1000000 - 8 + below(17)) & 0xffffff;
	if (v->type == IBV_QPT_UD) {
		op = t | (chance(50) ? OP_SEND_ONLY : OP_SEND_ONLY_IMM);
	} else if (v->msg && !bad) {
		op = t | (v->msg == OP_SEND_FIRST ?
			  (v->msg_left > MTU ? OP_SEND_MIDDLE :
			   chance(50) ? OP_SEND_LAST : OP_SEND_LAST_IMM) :
			  (v->msg_left > MTU ? OP_WRITE_MIDDLE :
			   chance(50) ? OP_WRITE_LAST : OP_WRITE_LAST_IMM));
	} else {
		static const uint8_t rc_ops[] = {
			OP_SEND_ONLY, OP_SEND_ONLY_IMM, OP_SEND_FIRST,
			OP_WRITE_ONLY, OP_WRITE_ONLY_IMM, OP_WRITE_FIRST,
			OP_READ_REQ, OP_READ_REQ, OP_CMP_SWAP, OP_FETCH_ADD,
			OP_SEND_ONLY_INV, OP_FLUSH, OP_ATOMIC_WRITE,
			OP_SEND_MIDDLE, OP_WRITE_LAST, OP_SEND_LAST_INV,
		};
		/* UC: SEND and WRITE only; the others are wrong for it */
		do
			op = rc_ops[below(VT_ARRAY_SIZE(rc_ops))];
		while (t == T_UC && op > OP_WRITE_ONLY_IMM && !bad);
		op |= t;
		if (op_ext[op] < 0)
			op = T_RC | (op & 0x1f);	/* RC opcode at a UC QP */
	}

	pkt_init(&p, peer_ip, op, v->qp->qp_num, psn);
	p.ackreq = chance(30);
	p.imm = rnd();
	p.rkey = mr1->rkey;
	p.qkey = qkey;
	p.sqp = fake_peer_qpn;
	switch (op & 0x1f) {
	case OP_SEND_ONLY: case OP_SEND_ONLY_IMM: case OP_SEND_ONLY_INV:
		p.paylen = below(v->type == IBV_QPT_UD ? MTU - 40 : MTU + 1);
		if (bad)
			p.paylen = MTU + 1 + below(300);
		if ((op & 0x1f) == OP_SEND_ONLY_INV)
			p.rkey = chance(50) ? some_rkey() : mr1->rkey;
		break;
	case OP_SEND_FIRST: case OP_WRITE_FIRST:
		p.paylen = MTU;
		v->msg = op & 0x1f;
		v->msg_left = MTU + 1 + below(3 * MTU);
		if (v->msg == OP_SEND_FIRST && v->msg_left > RBUF - MTU)
			v->msg_left = RBUF - MTU;	/* fits the buffer */
		v->msg_va = base + 0x1000 * below(8);
		p.va = v->msg_va;
		p.dlen = MTU + v->msg_left;
		if (bad && chance(50))
			p.dlen = rnd();
		break;
	case OP_SEND_MIDDLE: case OP_WRITE_MIDDLE:
		p.paylen = MTU;
		break;
	case OP_SEND_LAST: case OP_SEND_LAST_IMM: case OP_SEND_LAST_INV:
	case OP_WRITE_LAST: case OP_WRITE_LAST_IMM:
		p.paylen = v->msg ? v->msg_left : 1 + below(MTU);
		if ((op & 0x1f) == OP_SEND_LAST_INV)
			p.rkey = some_rkey();
		break;
	case OP_WRITE_ONLY: case OP_WRITE_ONLY_IMM:
		p.paylen = below(MTU + 1);
		p.va = base + below(MR1_LEN - MTU);
		p.dlen = p.paylen;
		break;
	case OP_READ_REQ:
		p.va = base + below(MR1_LEN / 2);
		p.dlen = below(MR1_LEN / 2);
		break;
	case OP_CMP_SWAP: case OP_FETCH_ADD:
		p.va = base + 8 * below(MR1_LEN / 8);
		p.swap_add = rnd();
		p.comp = rnd();
		break;
	case OP_FLUSH:
		p.feth = chance(80) ? 0x11 : rnd() & 0x3f;
		p.va = base + below(MR1_LEN / 2);
		p.dlen = below(MR1_LEN / 2);
		break;
	case OP_ATOMIC_WRITE:
		p.va = base + 8 * below(MR1_LEN / 8);
		p.dlen = 8;
		p.paylen = 8;
		break;
	}
	if (bad) {
		switch (below(8)) {
		case 0: case 1:
			p.rkey = some_rkey();
			break;
		case 2:		/* huge READ / RETH lengths */
			p.dlen = chance(50) ? 0xffffffffu :
				 0x80000000u + below(0x10000);
			break;
		case 3:		/* out of range, or wrapping past 2^64 */
			p.va = chance(50) ? base + MR1_LEN - below(64) :
			       0xffffffffffffffffull - below(4096);
			break;
		case 4:		/* misaligned atomics */
			p.va = base + 1 + below(7);
			break;
		case 5:
			p.paylen = below(MAX_PKT);
			p.pad = chance(50) ? -1 : (int)below(4);
			break;
		case 6:
			p.flip = 1 + (int)below(4);
			break;
		default:
			p.opcode = t | (uint8_t)below(0x20);
			if (op_ext[p.opcode] >= 0)
				p.ext = op_ext[p.opcode];
			break;
		}
	}
	pkt_send(&p, C_VICTIM_REQ);

	/* Our guess: accepted, and a started message goes on. */
	if (psn == v->epsn) {
		v->epsn = (v->epsn + 1) & 0xffffff;
		switch (op & 0x1f) {
		case OP_SEND_MIDDLE: case OP_WRITE_MIDDLE:
			/*
			 * A "bad" MIDDLE can come with no more than an MTU
			 * left: the message is then as good as ended.
			 */
			if (v->msg && v->msg_left > MTU)
				v->msg_left -= MTU;
			else
				v->msg = 0;
			break;
		case OP_SEND_FIRST: case OP_WRITE_FIRST:
			break;
		default:
			v->msg = 0;
		}
		if (bad && chance(50))
			v->msg = 0;
	}
}

/* A response to the victim's own READ, SEND and atomic (RC only). */
static void gen_victim_resp(struct victim *v)
{
	static const uint8_t ops[] = {
		OP_ACK, OP_ACK, OP_RRESP_FIRST, OP_RRESP_MIDDLE,
		OP_RRESP_LAST, OP_RRESP_ONLY, OP_ATOMIC_ACK,
	};
	static const uint8_t syn[] = {
		0x1f, 0x00, 0x20, 0x21, 0x3f, 0x60, 0x61, 0x62, 0x63, 0x64,
		0x65, 0x7f, 0x40, 0x9f,
	};
	uint8_t op = ops[below(VT_ARRAY_SIZE(ops))];
	struct pkt p;
	uint32_t psn = (v->sq_psn + 0x1000000 - 2 + below(8)) & 0xffffff;

	if (v->type != IBV_QPT_RC && chance(80)) {
		gen_victim_req(v);
		return;
	}
	pkt_init(&p, peer_ip, T_RC | op, v->qp->qp_num, psn);
	p.aeth = (uint32_t)syn[below(VT_ARRAY_SIZE(syn))] << 24 |
		 (chance(70) ? below(4) : rnd() & 0xffffff);
	p.orig = rnd();
	switch (op) {
	case OP_RRESP_FIRST: case OP_RRESP_MIDDLE:
		p.paylen = chance(80) ? MTU : below(MAX_PKT);
		break;
	case OP_RRESP_LAST: case OP_RRESP_ONLY:
		p.paylen = chance(70) ? below(3000 - 2 * MTU + 1) :
			   below(MAX_PKT);
		break;
	}
	if (chance(10))
		p.pad = (int)below(4);
	pkt_send(&p, C_VICTIM_RESP);
}

/* ------------------------------------------------------------ self-test */

/*
 * A valid SEND from the peer lands byte for byte; the same with a bad
 * ICRC does not.  Proves the ICRC and header code against the receiver.
 */
/* The same valid SEND as a RoCE v1 frame: it must land intact too. */
static int self_test_v1(struct victim *v, const uint8_t *msg, size_t len)
{
	struct ibv_wc wc;
	struct pkt p;
	uint64_t end;
	int got = 0;

	pkt_init(&p, peer_ip, T_RC | OP_SEND_ONLY, v->qp->qp_num, v->epsn);
	p.payload = msg;
	p.paylen = (uint32_t)len;
	v1_force = 1;
	pkt_send(&p, C_VICTIM_REQ);
	v1_force = 0;
	for (end = vt_now_ms() + 5000; !got && vt_now_ms() < end; ) {
		if (ibv_poll_cq(cq, 1, &wc) != 1) {
			usleep(1000);
			continue;
		}
		got = wc.opcode == IBV_WC_RECV && wc.qp_num == v->qp->qp_num;
	}
	if (!got || wc.status != IBV_WC_SUCCESS || wc.byte_len != len ||
	    memcmp(rbuf_at(v, (int)wc.wr_id), msg, len)) {
		fprintf(stderr, "%s: self-test FAIL: a valid RoCE v1 SEND from the peer did not arrive intact (%s, status %s, %u bytes)\n",
			PROG, got ? "completed" : "no completion",
			got ? vt_wcname(wc.status) : "-", got ? wc.byte_len : 0);
		return -1;
	}
	v->epsn = (v->epsn + 1) & 0xffffff;
	printf("%s: self-test ok: RoCE v1 too\n", PROG);
	return 0;
}

/*
 * -1 IF,MAC[,SRC]: a packet socket on IF, frames to MAC from SRC (IF's
 * own address by default).  Return: 0, or -1 (said why).
 */
static int v1_open(const char *arg)
{
	char ifname[IF_NAMESIZE] = "";
	unsigned int m[6], sm[6];
	const char *src;
	struct ifreq ifr;
	const char *comma = strchr(arg, ',');
	int i;

	if (!comma || (size_t)(comma - arg) >= sizeof(ifname) ||
	    sscanf(comma + 1, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2],
		   &m[3], &m[4], &m[5]) != 6) {
		fprintf(stderr, "%s: -1 wants IF,MAC\n", PROG);
		return -1;
	}
	memcpy(ifname, arg, (size_t)(comma - arg));
	for (i = 0; i < 6; i++)
		v1_dmac[i] = (uint8_t)m[i];
	v1_fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (v1_fd < 0) {
		fprintf(stderr, "%s: packet socket: %s\n", PROG, strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, sizeof(ifname));
	if (ioctl(v1_fd, SIOCGIFHWADDR, &ifr) < 0) {
		fprintf(stderr, "%s: %s: %s\n", PROG, ifname, strerror(errno));
		return -1;
	}
	memcpy(v1_smac, ifr.ifr_hwaddr.sa_data, 6);
	src = strchr(comma + 1, ',');
	if (src) {
		if (sscanf(src + 1, "%x:%x:%x:%x:%x:%x", &sm[0], &sm[1],
			   &sm[2], &sm[3], &sm[4], &sm[5]) != 6) {
			fprintf(stderr, "%s: -1: bad SRC MAC\n", PROG);
			return -1;
		}
		for (i = 0; i < 6; i++)
			v1_smac[i] = (uint8_t)sm[i];
	}
	memset(&v1_sa, 0, sizeof(v1_sa));
	v1_sa.sll_family = AF_PACKET;
	v1_sa.sll_ifindex = (int)if_nametoindex(ifname);
	v1_sa.sll_halen = 6;
	memcpy(v1_sa.sll_addr, v1_dmac, 6);
	return v1_sa.sll_ifindex ? 0 : -1;
}

static int self_test(void)
{
	struct victim *v = &vic[0];
	uint8_t msg[77];
	struct ibv_wc wc;
	struct pkt p;
	uint64_t end;
	size_t i;
	int got = 0;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 13 + 5);
	pkt_init(&p, peer_ip, T_RC | OP_SEND_ONLY, v->qp->qp_num, v->epsn);
	p.payload = msg;
	p.paylen = sizeof(msg);
	p.bad_icrc = 1;
	pkt_send(&p, C_BADICRC);
	usleep(300000);
	/* the victims' own requests may complete (in error) meanwhile */
	while (ibv_poll_cq(cq, 1, &wc) == 1)
		if (wc.opcode == IBV_WC_RECV && wc.qp_num == v->qp->qp_num) {
			fprintf(stderr, "%s: self-test FAIL: a SEND with a bad ICRC completed (status %s)\n",
				PROG, vt_wcname(wc.status));
			return -1;
		}

	p.bad_icrc = 0;
	pkt_send(&p, C_VICTIM_REQ);
	for (end = vt_now_ms() + 5000; !got && vt_now_ms() < end; ) {
		if (ibv_poll_cq(cq, 1, &wc) != 1) {
			usleep(1000);
			continue;
		}
		got = wc.opcode == IBV_WC_RECV && wc.qp_num == v->qp->qp_num;
	}
	if (!got || wc.status != IBV_WC_SUCCESS ||
	    wc.byte_len != sizeof(msg) ||
	    memcmp(rbuf_at(v, (int)wc.wr_id), msg, sizeof(msg))) {
		fprintf(stderr, "%s: self-test FAIL: a valid SEND from the peer did not arrive intact (%s, status %s, %u bytes)\n",
			PROG, got ? "completed" : "no completion",
			got ? vt_wcname(wc.status) : "-", got ? wc.byte_len : 0);
		return -1;
	}
	v->epsn = (v->epsn + 1) & 0xffffff;
	printf("%s: self-test ok: a valid ICRC is accepted and the SEND placed intact, a bad ICRC dropped\n",
	       PROG);
	return v1_fd >= 0 ? self_test_v1(v, msg, sizeof(msg)) : 0;
}

/* ----------------------------------------------------------------- main */

static void usage(FILE *f)
{
	fprintf(f, "usage: %s [-t SEC] [-d DEV] [-P PEER_IP] [-X IP] [-q QPN,...] [-R PPS] [-s SEED] [-1 IF,MAC[,SRC]] [-v] DST_IP\n",
		PROG);
}

static uint32_t parse_ip(const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1) {
		fprintf(stderr, "%s: bad IPv4 address %s\n", PROG, s);
		exit(2);
	}
	return ntohl(a.s_addr);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *dev_name = NULL, *peer_s = NULL, *excl_s = NULL;
	const char *v1_arg = NULL;
	double secs = 10, rate = 0, t0, t;
	uint64_t seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 20;
	char *e, *tok;
	int o, i, c, ret = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((o = getopt(argc, argv, "t:d:P:X:q:R:s:1:vh")) != -1) {
		switch (o) {
		case 't':
			secs = strtod(optarg, &e);
			if (*e || secs <= 0) {
				usage(stderr);
				return 2;
			}
			break;
		case 'd':
			dev_name = optarg;
			break;
		case 'P':
			peer_s = optarg;
			break;
		case 'X':
			excl_s = optarg;
			break;
		case 'q':
			for (tok = strtok(optarg, ","); tok && n_real_qpns < MAX_QPNS;
			     tok = strtok(NULL, ","))
				real_qpns[n_real_qpns++] =
					(uint32_t)strtoul(tok, NULL, 0) & 0xffffff;
			break;
		case 'R':
			rate = strtod(optarg, &e);
			if (*e || rate < 0) {
				usage(stderr);
				return 2;
			}
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case '1':
			v1_arg = optarg;
			break;
		case 'v':
			vt_verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	dst_ip = parse_ip(argv[optind]);
	peer_ip = peer_s ? parse_ip(peer_s) : (dst_ip & 0xffffff00u) | 3;
	excl_ip = excl_s ? parse_ip(excl_s) : (dst_ip & 0xffffff00u) | 2;
	if (peer_ip == excl_ip || peer_ip == dst_ip) {
		fprintf(stderr, "%s: -P must differ from DST_IP and -X\n", PROG);
		return 2;
	}
	rng = seed ? seed : 1;
	printf("%s: seed %" PRIu64 "\n", PROG, seed);
	op_table_init();
	crc_init();

	raw_fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (raw_fd < 0) {
		fprintf(stderr, "%s: raw socket: %s\n", PROG, strerror(errno));
		return 1;
	}
	dst_sa.sin_family = AF_INET;
	dst_sa.sin_addr.s_addr = htonl(dst_ip);
	if (v1_arg && v1_open(v1_arg))
		return 1;

	if (dev_name) {
		if (victims_setup(dev_name))
			return 1;
		have_dev = 1;
		if (self_test())
			return 1;
		sends_on = 1;
		for (i = 0; i < NVICTIM; i++)
			post_sends(&vic[i]);
	}

	t0 = now_s();
	for (t = t0; t - t0 < secs; ) {
		for (i = 0; i < 64; i++) {
			struct victim *v = &vic[below(NVICTIM)];

			/* without victims: blind, garbage, malformed, bad ICRC */
			c = (int)below(100);
			if (!have_dev && c >= 20 && c < 57)
				c = 57 + (int)below(43);
			if (c < 20)
				gen_blind();
			else if (c < 45)
				gen_victim_req(v);
			else if (c < 57)
				gen_victim_resp(v);
			else if (c < 70)
				gen_garbage();
			else if (c < 85)
				gen_malformed();
			else
				gen_bad_icrc();
			if (have_dev && --v->left <= 0) {
				int err = victim_reconnect(v);

				if (err) {
					fprintf(stderr, "%s: victim reconnect: %s\n",
						PROG, strerror(err));
					return 1;
				}
			}
		}
		if (have_dev)
			poll_cq();
		t = now_s();
		if (rate > 0) {
			double ahead = (double)n_sent / rate - (t - t0);

			if (ahead > 0.001)
				usleep((useconds_t)(ahead * 1e6));
		}
	}
	t = now_s() - t0;

	if (have_dev) {
		usleep(200000);
		poll_cq();
		if (check_canaries())
			ret = 1;
		for (i = 0; i < NVICTIM; i++)
			ibv_destroy_qp(vic[i].qp);
		poll_cq();
		vt_drain_async(dev.ctx);
	}
	printf("%s: sent %" PRIu64 " packets in %.1f s (%.0f pkt/s):", PROG,
	       n_sent, t, (double)n_sent / t);
	for (c = 0; c < C_COUNT; c++)
		printf(" %s %" PRIu64 ",", cls_name[c], n_cls[c]);
	printf(" send errors %" PRIu64 ", RoCE v1 %" PRIu64, n_send_err, n_v1);
	if (have_dev)
		printf("; victim resets %" PRIu64 " (%" PRIu64
		       " raced by a packet in flight), completions %" PRIu64
		       " ok %" PRIu64 " error", n_resets, reconnect_races,
		       n_wc_ok, n_wc_err);
	printf("; seed %" PRIu64 "\n", seed);
	if (ret)
		printf("%s: FAIL\n", PROG);
	return ret;
}
