// SPDX-License-Identifier: GPL-2.0
/*
 * rc_integrity: RC data integrity between two hosts, every byte checked.
 *
 * A server and a client (QP details exchanged over TCP, no rdma_cm) open
 * -q RC QPs each.  Both sides run the same schedule: in iteration i, on
 * every QP, a side
 *   - RDMA WRITEs one to three chunks of a pattern seeded by (side, qp, i)
 *     into a slot of the peer's write region,
 *   - RDMA READs a range of the peer's read region, which the peer filled
 *     once with its own seeded pattern, and checks every byte it got,
 *   - SENDs a message (header, checksum, seeded payload), which the peer
 *     checks on receipt together with the chunks written before it: RC
 *     places a QP's WRITEs before a later SEND completes.
 * Sizes run from 1 byte to -s (default 256 KiB) with MTU boundaries, and
 * -D iterations per QP are in flight at once, so several multi-packet WRs
 * share the wire and a lost packet falls inside a window.  The starting
 * PSNs sit just below the 24-bit wrap.  At the end each side overwrites
 * the peer's whole write region, and after a TCP handshake each side
 * checks what the peer wrote into it, and that its read region is intact.
 *
 * Any completion that is not SUCCESS, a completion out of posting order,
 * a wrong header or a byte mismatch prints the details and exits 1; a
 * stall (no completion for -S seconds) prints every QP's state and exits 1.
 * The last line on success:
 *   "rc_integrity: PASS ... write N B, read N B, send N B, final N B verified"
 *
 * Link-cut mode (-L, client): after the iterations above (the healthy
 * phase, keep -n small), the client creates -R FILE (the test script's cue
 * to cut the link) and keeps four WRITEs in flight on every QP.  Every QP
 * must then end with IBV_WC_RETRY_EXC_ERR (the rest WR_FLUSH_ERR) and be in
 * the ERR state; the time from its last successful completion to the error
 * must lie within [retry_cnt * T, (retry_cnt + 1) * T + slack], T being
 * max(4.096 us * 2^timeout, 100 ms) (vroce's shortest retransmit timeout).
 * The server side of -L waits for the TCP peer to go away, then exits 0.
 *
 * Usage: rc_integrity [options] [SERVER_IP]   (no SERVER_IP: be the server)
 *   -d DEV     RDMA device ($VROCE_DEV or the first one)
 *   -g IDX     GID index (default: the first IPv4-mapped RoCE v2 GID)
 *   -p PORT    TCP port (default 19875)
 *   -q N       QPs (default 4, at most 64)
 *   -n N       iterations (default 20)
 *   -s BYTES   largest message (default 262144, at least 4096)
 *   -D N       iterations in flight per QP (default 2, at most 8)
 *   -m MTU     path MTU bytes, 256..4096 (default 1024; capped by the port)
 *   -t T       QP timeout attribute (default 14)
 *   -r N       QP retry_cnt (default 7)
 *   -x SEED    pattern seed (default 1)
 *   -S SEC     stall limit (default 60)
 *   -L         link-cut mode (client side; the server adopts it)
 *   -R FILE    link-cut: file to create when the link may be cut
 *   -W SEC     link-cut: longest wait for the cut (default 120)
 *   -l MS      link-cut: slack added to the upper bound (default 1000)
 *   -v         verbose
 * The client sends -q -n -s -D -m -t -r -x -L to the server, which adopts
 * them.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <fcntl.h>

#include "common.h"

#define PROG		"rc_integrity"
#define MAX_QP		64
#define MAX_DEPTH	8
#define HDR_LEN		64
#define MSG_MAGIC	0x52434947u	/* "RCIG" */
#define CFG_MAGIC	0x52434943u
#define CFG_VERSION	1
#define SIG_RING	64		/* signaled WRs in flight per QP, max */
#define CUT_INFLIGHT	4
#define CUT_WRITE	(16 * 1024)

enum kind { K_WRITE = 1, K_READ, K_SEND, K_RECV, K_FINAL, K_CUT };
static const char *const kind_name[] = {
	[K_WRITE] = "WRITE", [K_READ] = "READ", [K_SEND] = "SEND",
	[K_RECV] = "RECV", [K_FINAL] = "final WRITE", [K_CUT] = "cut WRITE",
};

/* Seed domains: what a pattern belongs to. */
enum dom { D_WRITE = 1, D_READ, D_SEND, D_FINAL, D_PLAN };

/* What the client tells the server (all __be32 on the wire). */
struct cfg {
	uint32_t magic, version;
	uint32_t nqp, iters, maxsize, depth, mtu, timeout, retry_cnt;
	uint32_t seed, linkcut;
};

/* One QP's endpoint as the peer needs it (__be on the wire). */
struct ep {
	uint32_t qpn, psn;
	uint32_t wreg_rkey, rsrc_rkey;
	uint64_t wreg_addr, rsrc_addr;
};

struct msg_hdr {
	uint32_t magic, side, qp, iter, paylen, pad;
	uint64_t csum;
};

struct plan {
	int nw;
	uint32_t w_off[3], w_len[3];
	uint32_t r_off, r_len;
	uint32_t s_len;			/* payload, header excluded */
};

struct qpc {
	int idx;
	struct ibv_qp *qp;
	uint8_t *wreg, *rsrc, *rdst, *wsrc, *sbuf, *rbuf;
	struct ibv_mr *wreg_mr, *rsrc_mr, *rdst_mr, *wsrc_mr, *sbuf_mr;
	struct ibv_mr *rbuf_mr;
	struct ep local, remote;
	uint32_t next_iter;		/* own iterations started */
	uint32_t own_done;		/* own iterations completed */
	uint32_t peer_iter;		/* peer messages verified */
	uint64_t sig[SIG_RING];		/* signaled WRs, in posting order */
	unsigned int sig_head, sig_tail;
	/* link-cut phase */
	int cut_inflight;
	uint64_t cut_last_ok;
	uint64_t cut_err_at;
	enum ibv_wc_status cut_status;
	bool cut_failed;
};

static struct cfg cfg = {
	.nqp = 4, .iters = 20, .maxsize = 256 * 1024, .depth = 2,
	.mtu = 1024, .timeout = 14, .retry_cnt = 7, .seed = 1,
};

static const char *dev_name, *ready_file, *server;
static int gid_index = -1, port = 19875, stall_s = 60, cut_wait_s = 120;
static int cut_slack_ms = 1000;
static uint8_t qp_timeout;	/* the QPs' local ACK timeout (query_qp) */
static int side;			/* 0 server, 1 client */
static int sock = -1;

static struct vt_dev dev;
static struct ibv_pd *pd;
static struct ibv_comp_channel *chan;
static struct ibv_cq *scq, *rcq;
static struct qpc qps[MAX_QP];
static union ibv_gid remote_gid;
static uint32_t wslot, nslots, rsrc_len, nrecv;
static uint64_t bytes_write, bytes_read, bytes_send, bytes_final;
static uint64_t last_event_ms, t_start;

/* ----------------------------------------------------------- reporting */

static void die(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s (%s): ", PROG, side ? "client" : "server");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

static void note(const char *fmt, ...)
{
	va_list ap;

	printf("%s (%s): ", PROG, side ? "client" : "server");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void dump_state(const char *why)
{
	struct ibv_async_event ev;
	uint32_t i;

	note("%s; state after %" PRIu64 " ms:", why, vt_now_ms() - t_start);
	for (i = 0; i < cfg.nqp; i++) {
		struct qpc *c = &qps[i];
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;
		const char *st = "?";

		if (!ibv_query_qp(c->qp, &a, IBV_QP_STATE, &ia))
			st = vt_qpsname(a.qp_state);
		note("  qp %u (qpn 0x%x -> 0x%x) %s: started %u, completed %u, peer messages %u, signaled WRs pending %u, cut in flight %d",
		     i, c->local.qpn, c->remote.qpn, st, c->next_iter,
		     c->own_done, c->peer_iter, c->sig_tail - c->sig_head,
		     c->cut_inflight);
	}
	fcntl(dev.ctx->async_fd, F_SETFL,
	      fcntl(dev.ctx->async_fd, F_GETFL) | O_NONBLOCK);
	while (ibv_get_async_event(dev.ctx, &ev) == 0) {
		note("  async event %s", vt_eventname(ev.event_type));
		ibv_ack_async_event(&ev);
	}
}

/* ------------------------------------------------------------ patterns */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t seed_of(enum dom d, int s, uint32_t qp, uint32_t iter,
			uint32_t chunk)
{
	uint64_t x = mix64(cfg.seed);

	x = mix64(x ^ d);
	x = mix64(x ^ (uint64_t)s);
	x = mix64(x ^ qp);
	x = mix64(x ^ iter);
	return mix64(x ^ chunk);
}

/* Byte @pos of the pattern @seed: positions are absolute in a region. */
static inline uint8_t pat_byte(uint64_t seed, uint64_t pos)
{
	return (uint8_t)(mix64(seed + (pos >> 3) * 0x9e3779b97f4a7c15ULL) >>
			 ((pos & 7) * 8));
}

static void pat_fill(uint8_t *p, uint64_t seed, uint64_t pos, size_t len)
{
	uint64_t w = 0;
	size_t i;

	for (i = 0; i < len; i++, pos++) {
		if (i == 0 || !(pos & 7))
			w = mix64(seed + (pos >> 3) * 0x9e3779b97f4a7c15ULL);
		p[i] = (uint8_t)(w >> ((pos & 7) * 8));
	}
}

/*
 * Check @len bytes at @p against pattern @seed from position @pos; on a
 * mismatch print where, how many bytes differ and a few of them, and die.
 */
static void pat_check(const char *what, const uint8_t *p, uint64_t seed,
		      uint64_t pos, size_t len)
{
	size_t i, bad = 0, first = 0;
	uint64_t w = 0;

	for (i = 0; i < len; i++) {
		uint64_t q = pos + i;

		if (i == 0 || !(q & 7))
			w = mix64(seed + (q >> 3) * 0x9e3779b97f4a7c15ULL);
		if (p[i] != (uint8_t)(w >> ((q & 7) * 8))) {
			if (!bad++)
				first = i;
		}
	}
	if (!bad)
		return;
	printf("FAIL %s: %zu of %zu bytes differ, first at offset %zu (region position %" PRIu64 "):\n",
	       what, bad, len, first, pos + first);
	for (i = first; i < len && i < first + 16; i++)
		printf("  +%zu: got 0x%02x want 0x%02x\n", i, p[i],
		       pat_byte(seed, pos + i));
	die("data mismatch in %s", what);
}

static uint64_t checksum(const uint8_t *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* ---------------------------------------------------------------- plan */

static uint32_t pick_size(uint64_t *s, uint32_t max)
{
	uint64_t r = vt_rand(s);
	uint32_t v;

	switch (r % 8) {
	case 0:
		v = 1 + (r >> 8) % 64;
		break;
	case 1:
		v = 1 + (r >> 8) % 1024;
		break;
	case 2:		/* around a multiple of the MTU */
		v = cfg.mtu * (1 + (r >> 8) % 4) + (uint32_t)((r >> 16) % 3) - 1;
		break;
	case 3:
		v = 1 + (r >> 8) % 16384;
		break;
	case 4:
		v = 16384 + (r >> 8) % 49152;
		break;
	case 5:
		v = max > 65536 ? 65536 + (r >> 8) % (max - 65536) : max;
		break;
	case 6:
		v = max;
		break;
	default:
		v = 1 + (r >> 8) % 256;
		break;
	}
	return v < 1 ? 1 : v > max ? max : v;
}

static void make_plan(int s, uint32_t qp, uint32_t iter, struct plan *p)
{
	uint64_t st = seed_of(D_PLAN, s, qp, iter, 0) | 1;
	uint32_t off = 0;
	int i, n = 1 + (int)(vt_rand(&st) % 3);

	memset(p, 0, sizeof(*p));
	for (i = 0; i < n && off < wslot; i++) {
		uint32_t len = pick_size(&st, cfg.maxsize);

		off += (uint32_t)(vt_rand(&st) % 64);
		if (off >= wslot)
			break;
		if (len > wslot - off)
			len = wslot - off;
		p->w_off[p->nw] = off;
		p->w_len[p->nw] = len;
		p->nw++;
		off += len;
	}
	p->r_len = pick_size(&st, cfg.maxsize);
	p->r_off = (uint32_t)(vt_rand(&st) % (rsrc_len - p->r_len + 1));
	p->s_len = pick_size(&st, cfg.maxsize - HDR_LEN);
}

/* ----------------------------------------------------------------- TCP */

static void sock_io(void *buf, size_t len, bool out, int ms)
{
	uint64_t end = vt_now_ms() + (uint64_t)ms;
	uint8_t *p = buf;

	while (len) {
		struct pollfd pf = { .fd = sock, .events = out ? POLLOUT : POLLIN };
		uint64_t now = vt_now_ms();
		ssize_t n;

		if (now >= end)
			die("TCP %s timed out", out ? "send" : "receive");
		if (poll(&pf, 1, (int)(end - now)) <= 0)
			continue;
		n = out ? send(sock, p, len, MSG_NOSIGNAL) : recv(sock, p, len, 0);
		if (n == 0)
			die("TCP peer closed the connection");
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			die("TCP %s: %s", out ? "send" : "receive",
			    vt_errname(errno));
		}
		p += n;
		len -= (size_t)n;
	}
}

/* Both sides send @tag and expect the peer's same @tag. */
static void sync_tag(const char *tag, int ms)
{
	char got[8] = { 0 }, want[8] = { 0 };

	memcpy(want, tag, strnlen(tag, sizeof(want)));
	sock_io(want, sizeof(want), true, ms);
	sock_io(got, sizeof(got), false, ms);
	if (memcmp(got, want, sizeof(got)))
		die("TCP sync: got '%.8s', want '%.8s'", got, want);
}

static void tcp_connect(void)
{
	uint64_t end = vt_now_ms() + 60000;
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port) };
	int one = 1;

	if (inet_pton(AF_INET, server, &sa.sin_addr) != 1)
		die("bad server address %s", server);
	for (;;) {
		sock = socket(AF_INET, SOCK_STREAM, 0);
		if (sock < 0)
			die("socket: %s", vt_errname(errno));
		if (!connect(sock, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		close(sock);
		if (vt_now_ms() >= end)
			die("connect %s:%d: %s", server, port,
			    vt_errname(errno));
		usleep(200000);
	}
	setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void tcp_accept(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0);
	struct pollfd pf = { .events = POLLIN };

	if (ls < 0)
		die("socket: %s", vt_errname(errno));
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1))
		die("bind/listen on port %d: %s", port, vt_errname(errno));
	pf.fd = ls;
	if (poll(&pf, 1, 180000) <= 0)
		die("no client within 180 s on port %d", port);
	sock = accept(ls, NULL, NULL);
	if (sock < 0)
		die("accept: %s", vt_errname(errno));
	close(ls);
	setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void exchange_cfg(void)
{
	uint32_t w[sizeof(cfg) / 4], *v = (uint32_t *)&cfg;
	size_t i;

	if (side) {
		cfg.magic = CFG_MAGIC;
		cfg.version = CFG_VERSION;
		for (i = 0; i < VT_ARRAY_SIZE(w); i++)
			w[i] = htonl(v[i]);
		sock_io(w, sizeof(w), true, 30000);
		return;
	}
	sock_io(w, sizeof(w), false, 30000);
	for (i = 0; i < VT_ARRAY_SIZE(w); i++)
		v[i] = ntohl(w[i]);
	if (cfg.magic != CFG_MAGIC || cfg.version != CFG_VERSION)
		die("client speaks another protocol (magic 0x%x version %u)",
		    cfg.magic, cfg.version);
	if (!cfg.nqp || cfg.nqp > MAX_QP || !cfg.depth ||
	    cfg.depth > MAX_DEPTH || cfg.maxsize < 4096 ||
	    cfg.maxsize > 16 * 1024 * 1024 || cfg.mtu < 256 ||
	    cfg.mtu > 4096 || cfg.retry_cnt > 7 || cfg.timeout > 31)
		die("client's configuration out of range");
}

static void exchange_eps(void)
{
	struct ep w[MAX_QP];
	uint8_t gid[16];
	uint32_t i;

	for (i = 0; i < cfg.nqp; i++) {
		const struct ep *l = &qps[i].local;

		w[i].qpn = htonl(l->qpn);
		w[i].psn = htonl(l->psn);
		w[i].wreg_rkey = htonl(l->wreg_rkey);
		w[i].rsrc_rkey = htonl(l->rsrc_rkey);
		w[i].wreg_addr = htobe64(l->wreg_addr);
		w[i].rsrc_addr = htobe64(l->rsrc_addr);
	}
	memcpy(gid, dev.gid.raw, sizeof(gid));
	sock_io(gid, sizeof(gid), true, 30000);
	sock_io(w, sizeof(w[0]) * cfg.nqp, true, 30000);
	sock_io(remote_gid.raw, sizeof(remote_gid.raw), false, 30000);
	sock_io(w, sizeof(w[0]) * cfg.nqp, false, 30000);
	for (i = 0; i < cfg.nqp; i++) {
		struct ep *r = &qps[i].remote;

		r->qpn = ntohl(w[i].qpn);
		r->psn = ntohl(w[i].psn);
		r->wreg_rkey = ntohl(w[i].wreg_rkey);
		r->rsrc_rkey = ntohl(w[i].rsrc_rkey);
		r->wreg_addr = be64toh(w[i].wreg_addr);
		r->rsrc_addr = be64toh(w[i].rsrc_addr);
	}
}

/* ------------------------------------------------------------- set-up */

static uint64_t wrid(enum kind k, uint32_t qp, uint32_t idx, uint32_t iter)
{
	return (uint64_t)k << 56 | (uint64_t)qp << 48 |
	       (uint64_t)(idx & 0xffff) << 32 | iter;
}

static enum kind wr_kind(uint64_t id)
{
	return (enum kind)(id >> 56);
}

static uint32_t wr_qp(uint64_t id)
{
	return (uint32_t)(id >> 48) & 0xff;
}

static uint32_t wr_idx(uint64_t id)
{
	return (uint32_t)(id >> 32) & 0xffff;
}

static uint32_t wr_iter(uint64_t id)
{
	return (uint32_t)id;
}

static struct ibv_mr *reg(void *p, size_t len, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, p, len, access);

	if (!mr)
		die("ibv_reg_mr(%zu bytes): %s", len, vt_errname(errno));
	return mr;
}

static void post_recv(struct qpc *c, uint32_t i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->rbuf + (size_t)i * cfg.maxsize),
		.length = cfg.maxsize,
		.lkey = c->rbuf_mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wrid(K_RECV, c->idx, i, 0),
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;
	int ret = ibv_post_recv(c->qp, &wr, &bad);

	if (ret)
		die("qp %d: ibv_post_recv: %s", c->idx, vt_errname(vt_rc(ret)));
}

static enum ibv_mtu mtu_enum(uint32_t b)
{
	return b >= 4096 ? IBV_MTU_4096 : b >= 2048 ? IBV_MTU_2048 :
	       b >= 1024 ? IBV_MTU_1024 : b >= 512 ? IBV_MTU_512 :
	       IBV_MTU_256;
}

static void setup_qp(struct qpc *c, uint32_t i)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = scq,
		.recv_cq = rcq,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = 8 * MAX_DEPTH + 16,
			.max_recv_wr = 2 * MAX_DEPTH + 4,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	size_t msgs = (size_t)cfg.depth * cfg.maxsize;
	uint32_t j;

	c->idx = (int)i;
	c->wreg = vt_alloc((size_t)nslots * wslot);
	c->rsrc = vt_alloc(rsrc_len);
	c->rdst = vt_alloc(msgs);
	c->wsrc = vt_alloc(msgs);
	c->sbuf = vt_alloc(msgs);
	c->rbuf = vt_alloc((size_t)nrecv * cfg.maxsize);
	if (!c->wreg || !c->rsrc || !c->rdst || !c->wsrc || !c->sbuf || !c->rbuf)
		die("out of memory");
	pat_fill(c->rsrc, seed_of(D_READ, side, i, 0, 0), 0, rsrc_len);
	c->wreg_mr = reg(c->wreg, (size_t)nslots * wslot,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	c->rsrc_mr = reg(c->rsrc, rsrc_len, IBV_ACCESS_REMOTE_READ);
	c->rdst_mr = reg(c->rdst, msgs, IBV_ACCESS_LOCAL_WRITE);
	c->wsrc_mr = reg(c->wsrc, msgs, 0);
	c->sbuf_mr = reg(c->sbuf, msgs, 0);
	c->rbuf_mr = reg(c->rbuf, (size_t)nrecv * cfg.maxsize,
			 IBV_ACCESS_LOCAL_WRITE);

	c->qp = ibv_create_qp(pd, &ia);
	if (!c->qp)
		die("ibv_create_qp: %s", vt_errname(errno));
	c->local.qpn = c->qp->qp_num;
	/* just below the 24-bit wrap: the first messages cross it */
	c->local.psn = (0xffffff - 40 - (uint32_t)(lrand48() % 200)) &
		       0xffffff;
	c->local.wreg_addr = (uintptr_t)c->wreg;
	c->local.wreg_rkey = c->wreg_mr->rkey;
	c->local.rsrc_addr = (uintptr_t)c->rsrc;
	c->local.rsrc_rkey = c->rsrc_mr->rkey;
	if (vt_qp_init(&dev, c->qp))
		die("qp %u: to INIT: %s", i, vt_errname(errno));
	for (j = 0; j < nrecv; j++)
		post_recv(c, j);
}

static void connect_qp(struct qpc *c)
{
	uint32_t rd = dev.attr.max_qp_rd_atom, rd_in = dev.attr.max_qp_init_rd_atom;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu_enum(cfg.mtu),
		.dest_qp_num = c->remote.qpn,
		.rq_psn = c->remote.psn,
		.max_dest_rd_atomic = (uint8_t)(rd < 16 ? rd : 16),
		.min_rnr_timer = 1,
		.ah_attr = {
			.is_global = 1,
			.port_num = 1,
			.grh = {
				.dgid = remote_gid,
				.sgid_index = (uint8_t)dev.gid_index,
				.hop_limit = 64,
			},
		},
	};
	int ret;

	ret = ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (ret)
		die("qp %d: to RTR: %s", c->idx, vt_errname(vt_rc(ret)));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = (uint8_t)cfg.timeout;
	a.retry_cnt = (uint8_t)cfg.retry_cnt;
	a.rnr_retry = 7;
	a.sq_psn = c->local.psn;
	a.max_rd_atomic = (uint8_t)(rd_in < 16 ? rd_in : 16);
	ret = ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		die("qp %d: to RTS: %s", c->idx, vt_errname(vt_rc(ret)));
	/*
	 * The timeout the QP uses: a device may raise a short one (vroce
	 * does, to 15), and query_qp says so.
	 */
	ret = ibv_query_qp(c->qp, &a, IBV_QP_TIMEOUT, &ia);
	if (ret)
		die("qp %d: query_qp: %s", c->idx, vt_errname(vt_rc(ret)));
	if (a.timeout < cfg.timeout)
		die("qp %d: query_qp says timeout %u, below the %u set",
		    c->idx, a.timeout, cfg.timeout);
	qp_timeout = a.timeout;
}

static void setup(void)
{
	uint32_t i, port_mtu;

	if (vt_open(dev_name, gid_index, &dev))
		die("no device");
	port_mtu = 128u << dev.port.active_mtu;
	if (cfg.mtu > port_mtu)
		cfg.mtu = port_mtu;
	cfg.mtu = 128u << mtu_enum(cfg.mtu);	/* a power of two */
	wslot = cfg.maxsize;
	nslots = 2 * cfg.depth;
	rsrc_len = 2 * cfg.maxsize;
	nrecv = 2 * cfg.depth + 2;
	pd = ibv_alloc_pd(dev.ctx);
	chan = ibv_create_comp_channel(dev.ctx);
	if (!pd || !chan)
		die("alloc_pd / create_comp_channel: %s", vt_errname(errno));
	fcntl(chan->fd, F_SETFL, fcntl(chan->fd, F_GETFL) | O_NONBLOCK);
	scq = ibv_create_cq(dev.ctx, 1024, NULL, chan, 0);
	rcq = ibv_create_cq(dev.ctx, 1024, NULL, chan, 0);
	if (!scq || !rcq)
		die("ibv_create_cq: %s", vt_errname(errno));
	for (i = 0; i < cfg.nqp; i++)
		setup_qp(&qps[i], i);
}

/* -------------------------------------------------------------- posting */

static void sig_push(struct qpc *c, uint64_t id)
{
	if (c->sig_tail - c->sig_head >= SIG_RING)
		die("qp %d: signaled ring overflow", c->idx);
	c->sig[c->sig_tail++ % SIG_RING] = id;
}

static void post(struct qpc *c, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	int ret;

	if (wr->send_flags & IBV_SEND_SIGNALED)
		sig_push(c, wr->wr_id);
	ret = ibv_post_send(c->qp, wr, &bad);
	if (ret)
		die("qp %d: ibv_post_send %s: %s", c->idx,
		    kind_name[wr_kind(wr->wr_id)], vt_errname(vt_rc(ret)));
}

static void post_rdma(struct qpc *c, enum kind k, enum ibv_wr_opcode op,
		      uint32_t iter, uint32_t idx, void *laddr, uint32_t lkey,
		      uint32_t len, uint64_t raddr, uint32_t rkey, bool sig)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)laddr, .length = len, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wrid(k, c->idx, idx, iter),
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = sig ? IBV_SEND_SIGNALED : 0,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	};

	post(c, &wr);
}

/*
 * Iteration @it on @c: the WRITE chunks (unsignaled), the READ and the
 * SEND (both signaled).  The chunks are built in the write source at
 * their offsets in the peer's slot; the message in the send buffer.
 */
static void start_iter(struct qpc *c)
{
	uint32_t it = c->next_iter++, q = (uint32_t)c->idx;
	uint32_t slot = it % nslots, m = it % cfg.depth;
	uint8_t *ws = c->wsrc + (size_t)m * wslot;
	uint8_t *msg = c->sbuf + (size_t)m * cfg.maxsize;
	uint8_t *rd = c->rdst + (size_t)m * cfg.maxsize;
	uint64_t slot_addr = c->remote.wreg_addr + (uint64_t)slot * wslot;
	struct msg_hdr h = { 0 };
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	struct plan p;
	int i;

	make_plan(side, q, it, &p);
	for (i = 0; i < p.nw; i++) {
		pat_fill(ws + p.w_off[i], seed_of(D_WRITE, side, q, it, i),
			 p.w_off[i], p.w_len[i]);
		post_rdma(c, K_WRITE, IBV_WR_RDMA_WRITE, it, i,
			  ws + p.w_off[i], c->wsrc_mr->lkey, p.w_len[i],
			  slot_addr + p.w_off[i], c->remote.wreg_rkey, false);
	}

	/* what a READ does not overwrite must not pass as data */
	memset(rd, 0xa5, p.r_len);
	post_rdma(c, K_READ, IBV_WR_RDMA_READ, it, 0, rd, c->rdst_mr->lkey,
		  p.r_len, c->remote.rsrc_addr + p.r_off, c->remote.rsrc_rkey,
		  true);

	pat_fill(msg + HDR_LEN, seed_of(D_SEND, side, q, it, 0), 0, p.s_len);
	h.magic = MSG_MAGIC;
	h.side = (uint32_t)side;
	h.qp = q;
	h.iter = it;
	h.paylen = p.s_len;
	h.csum = checksum(msg + HDR_LEN, p.s_len);
	memcpy(msg, &h, sizeof(h));
	sge = (struct ibv_sge){ .addr = (uintptr_t)msg,
				.length = HDR_LEN + p.s_len,
				.lkey = c->sbuf_mr->lkey };
	wr = (struct ibv_send_wr){ .wr_id = wrid(K_SEND, q, 0, it),
				   .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED };
	post(c, &wr);
}

static bool can_start(const struct qpc *c)
{
	uint32_t i = c->next_iter;

	if (i >= cfg.iters || i - c->own_done >= cfg.depth)
		return false;
	/* the peer's message i - depth proves it checked our slot i - 2D */
	return i < cfg.depth || c->peer_iter >= i - cfg.depth + 1;
}

/* ---------------------------------------------------------- completions */

static void wc_fail(const struct ibv_wc *wc, const char *why)
{
	uint64_t id = wc->wr_id;
	enum kind k = wr_kind(id);

	dump_state(why);
	die("qp %u %s iter %u: %s: status %s (%d), vendor_err 0x%x, opcode %d, byte_len %u, qp_num 0x%x",
	    wr_qp(id), k < VT_ARRAY_SIZE(kind_name) && kind_name[k] ?
	    kind_name[k] : "?", wr_iter(id), why, vt_wcname(wc->status),
	    wc->status, wc->vendor_err, wc->opcode, wc->byte_len, wc->qp_num);
}

static struct qpc *wc_qp(const struct ibv_wc *wc)
{
	uint32_t q = wr_qp(wc->wr_id);

	if (q >= cfg.nqp || qps[q].qp->qp_num != wc->qp_num)
		wc_fail(wc, "completion for an unknown QP");
	return &qps[q];
}

static void verify_read(struct qpc *c, uint32_t it)
{
	uint8_t *rd = c->rdst + (size_t)(it % cfg.depth) * cfg.maxsize;
	char what[96];
	struct plan p;

	make_plan(side, (uint32_t)c->idx, it, &p);
	snprintf(what, sizeof(what), "qp %d iter %u READ of %u bytes at %u",
		 c->idx, it, p.r_len, p.r_off);
	pat_check(what, rd, seed_of(D_READ, !side, c->idx, 0, 0), p.r_off,
		  p.r_len);
	bytes_read += p.r_len;
}

static void send_wc(const struct ibv_wc *wc)
{
	struct qpc *c = wc_qp(wc);
	uint64_t want;

	if (c->sig_head == c->sig_tail)
		wc_fail(wc, "completion nothing signaled waits for");
	want = c->sig[c->sig_head % SIG_RING];
	if (wc->status != IBV_WC_SUCCESS)
		wc_fail(wc, "error completion");
	if (wc->wr_id != want)
		wc_fail(wc, "completion out of posting order");
	c->sig_head++;
	switch (wr_kind(wc->wr_id)) {
	case K_READ:
		if (wc->opcode != IBV_WC_RDMA_READ)
			wc_fail(wc, "READ completion with a wrong opcode");
		verify_read(c, wr_iter(wc->wr_id));
		break;
	case K_SEND:
		if (wc->opcode != IBV_WC_SEND)
			wc_fail(wc, "SEND completion with a wrong opcode");
		if (wr_iter(wc->wr_id) != c->own_done)
			wc_fail(wc, "iteration completed out of order");
		c->own_done++;
		break;
	case K_FINAL:
		c->own_done++;
		break;
	default:
		wc_fail(wc, "unexpected signaled completion");
	}
}

/* The peer's message @it arrived: check it and the chunks before it. */
static void recv_wc(const struct ibv_wc *wc)
{
	struct qpc *c = wc_qp(wc);
	uint32_t bi = wr_idx(wc->wr_id), it = c->peer_iter, i;
	uint8_t *msg = c->rbuf + (size_t)bi * cfg.maxsize;
	uint8_t *slot = c->wreg + (size_t)(it % nslots) * wslot;
	struct msg_hdr h;
	struct plan p;
	char what[96];

	if (wc->status != IBV_WC_SUCCESS)
		wc_fail(wc, "error completion");
	if (wc->opcode != IBV_WC_RECV || bi >= nrecv)
		wc_fail(wc, "receive completion with a wrong opcode or wr_id");
	if (it >= cfg.iters)
		wc_fail(wc, "more messages than iterations");
	make_plan(!side, (uint32_t)c->idx, it, &p);
	if (wc->byte_len != HDR_LEN + p.s_len)
		wc_fail(wc, "message length differs from the plan");
	memcpy(&h, msg, sizeof(h));
	if (h.magic != MSG_MAGIC || h.side != (uint32_t)!side ||
	    h.qp != (uint32_t)c->idx || h.iter != it || h.paylen != p.s_len)
		die("qp %d: message %u header: magic 0x%x side %u qp %u iter %u paylen %u, want side %d qp %d iter %u paylen %u",
		    c->idx, it, h.magic, h.side, h.qp, h.iter, h.paylen, !side,
		    c->idx, it, p.s_len);
	snprintf(what, sizeof(what), "qp %d iter %u SEND payload of %u bytes",
		 c->idx, it, p.s_len);
	pat_check(what, msg + HDR_LEN, seed_of(D_SEND, !side, c->idx, it, 0),
		  0, p.s_len);
	if (checksum(msg + HDR_LEN, p.s_len) != h.csum)
		die("qp %d message %u: checksum in the header differs, payload matches",
		    c->idx, it);
	bytes_send += p.s_len;
	for (i = 0; i < (uint32_t)p.nw; i++) {
		snprintf(what, sizeof(what),
			 "qp %d iter %u WRITE chunk %u of %u bytes at %u",
			 c->idx, it, i, p.w_len[i], p.w_off[i]);
		pat_check(what, slot + p.w_off[i],
			  seed_of(D_WRITE, !side, c->idx, it, i), p.w_off[i],
			  p.w_len[i]);
		bytes_write += p.w_len[i];
	}
	c->peer_iter++;
	post_recv(c, bi);
}

static void cut_wc(const struct ibv_wc *wc);
static bool cut_phase;

/* Poll both CQs dry; returns how many completions there were. */
static int drain(void)
{
	struct ibv_wc wc[32];
	int n, i, total = 0;

	while ((n = ibv_poll_cq(scq, 32, wc)) > 0) {
		for (i = 0; i < n; i++) {
			if (wr_kind(wc[i].wr_id) == K_CUT)
				cut_wc(&wc[i]);
			else
				send_wc(&wc[i]);
		}
		total += n;
	}
	if (n < 0)
		die("ibv_poll_cq(send): %d", n);
	while ((n = ibv_poll_cq(rcq, 32, wc)) > 0) {
		for (i = 0; i < n; i++) {
			/* a QP in ERR flushes its receives */
			if (cut_phase && wc[i].status == IBV_WC_WR_FLUSH_ERR)
				continue;
			recv_wc(&wc[i]);
		}
		total += n;
	}
	if (n < 0)
		die("ibv_poll_cq(recv): %d", n);
	if (total)
		last_event_ms = vt_now_ms();
	return total;
}

/*
 * Nothing to do: sleep on the completion channel (at most @ms).  The TCP
 * connection is silent meanwhile, so anything on it means the peer is
 * gone (it failed: its own log says why).
 */
static void idle(int ms)
{
	struct pollfd pf[2] = { { .fd = chan->fd, .events = POLLIN },
				{ .fd = sock, .events = POLLIN } };
	static bool peer_spoke;
	bool watch = !cut_phase && !peer_spoke;
	struct ibv_cq *cq;
	void *ctx;
	ssize_t n;
	char b;

	if (ibv_req_notify_cq(scq, 0) || ibv_req_notify_cq(rcq, 0))
		die("ibv_req_notify_cq: %s", vt_errname(errno));
	if (drain())
		return;
	poll(pf, watch ? 2 : 1, ms);
	while (ibv_get_cq_event(chan, &cq, &ctx) == 0)
		ibv_ack_cq_events(cq, 1);
	if (!watch || !(pf[1].revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	n = recv(sock, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n > 0) {
		/* its next sync message: it is done, not gone */
		peer_spoke = true;
		return;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	dump_state("the peer closed the TCP connection");
	die("the peer is gone (see its log for why)");
}

static void check_stall(const char *phase)
{
	static uint64_t last_report;
	uint64_t now = vt_now_ms();

	if (now - last_event_ms > (uint64_t)stall_s * 1000) {
		char why[96];

		snprintf(why, sizeof(why), "%s: no completion for %d s", phase,
			 stall_s);
		dump_state(why);
		die("%s stalled", phase);
	}
	if (vt_verbose && now - last_report > 10000) {
		last_report = now;
		dump_state("progress");
	}
}

/* ------------------------------------------------------------- phases */

static void run_iterations(void)
{
	uint32_t i, done;

	last_event_ms = vt_now_ms();
	for (;;) {
		bool posted = false;

		for (i = 0, done = 0; i < cfg.nqp; i++) {
			struct qpc *c = &qps[i];

			while (can_start(c)) {
				start_iter(c);
				posted = true;
			}
			if (c->own_done == cfg.iters && c->peer_iter == cfg.iters)
				done++;
		}
		if (done == cfg.nqp)
			break;
		if (!drain() && !posted)
			idle(200);
		check_stall("iterations");
	}
}

/*
 * Overwrite the peer's whole write region (slot-sized WRITEs, the last
 * signaled), wait until both sides are done, then check our own.
 */
static void run_final(void)
{
	size_t len = (size_t)nslots * wslot;
	uint32_t i, s, done;

	for (i = 0; i < cfg.nqp; i++) {
		struct qpc *c = &qps[i];
		uint8_t *src = vt_alloc(len);
		struct ibv_mr *mr;

		if (!src)
			die("out of memory");
		mr = reg(src, len, 0);
		pat_fill(src, seed_of(D_FINAL, side, i, 0, 0), 0, len);
		c->own_done = 0;
		for (s = 0; s < nslots; s++)
			post_rdma(c, K_FINAL, IBV_WR_RDMA_WRITE, s, s,
				  src + (size_t)s * wslot, mr->lkey, wslot,
				  c->remote.wreg_addr + (uint64_t)s * wslot,
				  c->remote.wreg_rkey, s == nslots - 1);
	}
	last_event_ms = vt_now_ms();
	for (;;) {
		for (i = 0, done = 0; i < cfg.nqp; i++)
			done += qps[i].own_done == 1;
		if (done == cfg.nqp)
			break;
		if (!drain())
			idle(200);
		check_stall("final writes");
	}
	sync_tag("final", 600000);
	for (i = 0; i < cfg.nqp; i++) {
		char what[64];

		snprintf(what, sizeof(what), "qp %u final write region", i);
		pat_check(what, qps[i].wreg, seed_of(D_FINAL, !side, i, 0, 0),
			  0, len);
		snprintf(what, sizeof(what), "qp %u read region (intact)", i);
		pat_check(what, qps[i].rsrc, seed_of(D_READ, side, i, 0, 0), 0,
			  rsrc_len);
		bytes_final += len;
	}
}

/* One retransmit timeout, in ms: the QP's, as query_qp reports it. */
static uint64_t per_try_ms(void)
{
	uint64_t us = (4096ULL << qp_timeout) / 1000;

	return (us + 999) / 1000;
}

static uint8_t *cut_src;
static struct ibv_mr *cut_mr;
static uint32_t cut_seq;

static void cut_post(struct qpc *c)
{
	post_rdma(c, K_CUT, IBV_WR_RDMA_WRITE, cut_seq++, 0, cut_src,
		  cut_mr->lkey, CUT_WRITE, c->remote.wreg_addr,
		  c->remote.wreg_rkey, true);
	c->cut_inflight++;
}

static void cut_wc(const struct ibv_wc *wc)
{
	struct qpc *c = wc_qp(wc);
	uint64_t now = vt_now_ms();

	c->cut_inflight--;
	c->sig_head++;
	if (wc->status == IBV_WC_SUCCESS && !c->cut_err_at) {
		c->cut_last_ok = now;
		return;
	}
	if (c->cut_err_at) {
		/* after the error, the rest are flushed */
		if (wc->status != IBV_WC_WR_FLUSH_ERR) {
			printf("FAIL qp %d: after %s, a WR completed with %s (want WR_FLUSH_ERR)\n",
			       c->idx, vt_wcname(c->cut_status),
			       vt_wcname(wc->status));
			c->cut_failed = true;
		}
		return;
	}
	c->cut_err_at = now;
	c->cut_status = wc->status;
}

static void run_cut(void)
{
	uint64_t t = per_try_ms();
	uint64_t lo = cfg.retry_cnt * t;
	uint64_t hi = (cfg.retry_cnt + 1) * t + (uint64_t)cut_slack_ms;
	uint64_t end, now;
	uint32_t i, n_err;
	bool fail = false;

	if (!side) {
		/* server: stay up until the client is gone (or killed) */
		char b;

		sync_tag("cut", 60000);
		note("link-cut: healthy phase done, waiting for the client");
		{
			struct pollfd pf = { .fd = sock, .events = POLLIN };

			poll(&pf, 1, (cut_wait_s + 60) * 1000);
			if (recv(sock, &b, 1, MSG_DONTWAIT) == 0)
				note("link-cut: client closed the connection");
		}
		return;
	}
	sync_tag("cut", 60000);
	cut_phase = true;
	cut_src = vt_alloc(CUT_WRITE);
	if (!cut_src)
		die("out of memory");
	cut_mr = reg(cut_src, CUT_WRITE, 0);
	for (i = 0; i < cfg.nqp; i++) {
		qps[i].cut_last_ok = vt_now_ms();
		while (qps[i].cut_inflight < CUT_INFLIGHT)
			cut_post(&qps[i]);
	}
	if (ready_file) {
		FILE *f = fopen(ready_file, "w");

		if (!f || fclose(f))
			die("cannot create %s: %s", ready_file,
			    vt_errname(errno));
	}
	note("link-cut: healthy phase done, posting until the link is cut (per try %" PRIu64 " ms, retry_cnt %u: bound [%" PRIu64 ", %" PRIu64 "] ms)",
	     t, cfg.retry_cnt, lo, hi);
	end = vt_now_ms() + (uint64_t)cut_wait_s * 1000 + hi;
	for (;;) {
		for (i = 0, n_err = 0; i < cfg.nqp; i++) {
			struct qpc *c = &qps[i];

			if (c->cut_err_at) {
				n_err += !c->cut_inflight;
				continue;
			}
			while (c->cut_inflight < CUT_INFLIGHT)
				cut_post(c);
		}
		if (n_err == cfg.nqp)
			break;
		if (!drain())
			idle(20);
		now = vt_now_ms();
		if (now > end) {
			dump_state("link-cut: no error completion");
			die("link-cut: not every QP ended with an error within %d s of the cue",
			    cut_wait_s);
		}
	}
	for (i = 0; i < cfg.nqp; i++) {
		struct qpc *c = &qps[i];
		uint64_t dt = c->cut_err_at - c->cut_last_ok;
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;
		bool ok = c->cut_status == IBV_WC_RETRY_EXC_ERR && dt >= lo &&
			  dt <= hi && !c->cut_failed;

		if (ibv_query_qp(c->qp, &a, IBV_QP_STATE, &ia))
			die("ibv_query_qp: %s", vt_errname(errno));
		if (a.qp_state != IBV_QPS_ERR)
			ok = false;
		printf("%s qp %u: %s %" PRIu64 " ms after the last success (bound [%" PRIu64 ", %" PRIu64 "] ms), QP %s\n",
		       ok ? "ok  " : "FAIL", i, vt_wcname(c->cut_status), dt, lo,
		       hi, vt_qpsname(a.qp_state));
		fail |= !ok;
	}
	if (fail)
		die("link-cut: see above");
	note("link-cut: PASS: every QP ended with RETRY_EXC_ERR within the bound and is in ERR");
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *f)
{
	fprintf(f, "Usage: %s [-d DEV] [-g GID_INDEX] [-p PORT] [-q QPS] [-n ITERS] [-s MAX_BYTES]\n"
		"       [-D DEPTH] [-m MTU] [-t TIMEOUT] [-r RETRY_CNT] [-x SEED] [-S STALL_S]\n"
		"       [-L [-R READY_FILE] [-W CUT_WAIT_S] [-l SLACK_MS]] [-v] [SERVER_IP]\n",
		PROG);
}

static uint32_t num(const char *s, uint32_t lo, uint32_t hi, char opt)
{
	char *e;
	unsigned long v = strtoul(s, &e, 0);

	if (*e || v < lo || v > hi) {
		fprintf(stderr, "-%c: %s is not in %u..%u\n", opt, s, lo, hi);
		exit(2);
	}
	return (uint32_t)v;
}

int main(int argc, char **argv)
{
	int o;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((o = getopt(argc, argv, "d:g:p:q:n:s:D:m:t:r:x:S:LR:W:l:vh")) != -1) {
		switch (o) {
		case 'd':
			dev_name = optarg;
			break;
		case 'g':
			gid_index = (int)num(optarg, 0, 1023, 'g');
			break;
		case 'p':
			port = (int)num(optarg, 1, 65535, 'p');
			break;
		case 'q':
			cfg.nqp = num(optarg, 1, MAX_QP, 'q');
			break;
		case 'n':
			cfg.iters = num(optarg, 1, 1u << 30, 'n');
			break;
		case 's':
			cfg.maxsize = num(optarg, 4096, 16u << 20, 's');
			break;
		case 'D':
			cfg.depth = num(optarg, 1, MAX_DEPTH, 'D');
			break;
		case 'm':
			cfg.mtu = num(optarg, 256, 4096, 'm');
			break;
		case 't':
			cfg.timeout = num(optarg, 0, 31, 't');
			break;
		case 'r':
			cfg.retry_cnt = num(optarg, 0, 7, 'r');
			break;
		case 'x':
			cfg.seed = num(optarg, 0, UINT32_MAX, 'x');
			break;
		case 'S':
			stall_s = (int)num(optarg, 1, 3600, 'S');
			break;
		case 'L':
			cfg.linkcut = 1;
			break;
		case 'R':
			ready_file = optarg;
			break;
		case 'W':
			cut_wait_s = (int)num(optarg, 1, 3600, 'W');
			break;
		case 'l':
			cut_slack_ms = (int)num(optarg, 0, 600000, 'l');
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
	if (optind < argc)
		server = argv[optind++];
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	side = server ? 1 : 0;
	if (cfg.linkcut && !cfg.timeout)
		die("-L needs a finite timeout (-t 1..31)");
	srand48((long)getpid() ^ (long)vt_now_ms());
	t_start = vt_now_ms();

	if (side)
		tcp_connect();
	else
		tcp_accept();
	exchange_cfg();
	setup();
	exchange_eps();
	for (o = 0; o < (int)cfg.nqp; o++)
		connect_qp(&qps[o]);
	sync_tag("rts", 60000);
	note("%u QPs connected (mtu %u, up to %u bytes, %u iterations, %u in flight per QP, timeout %u, retry_cnt %u, seed %u)",
	     cfg.nqp, cfg.mtu, cfg.maxsize, cfg.iters, cfg.depth, cfg.timeout,
	     cfg.retry_cnt, cfg.seed);

	run_iterations();
	sync_tag("iters", 600000);
	run_final();
	printf("%s: PASS (%s) %u QPs x %u iterations in %.1f s: write %" PRIu64 " B, read %" PRIu64 " B, send %" PRIu64 " B, final %" PRIu64 " B verified\n",
	       PROG, side ? "client" : "server", cfg.nqp, cfg.iters,
	       (double)(vt_now_ms() - t_start) / 1000.0, bytes_write,
	       bytes_read, bytes_send, bytes_final);
	if (cfg.linkcut)
		run_cut();
	return 0;
}
