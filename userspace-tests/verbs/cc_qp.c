// SPDX-License-Identifier: GPL-2.0
/*
 * cc_qp: connected QPs between two hosts, held open and driven by commands
 * on stdin, for the congestion-control scenarios (62-cc-cnp, 63-cc-
 * trajectory, 64-cc-forged-cnp).  Unlike perftest it sends exactly what it
 * is told, when it is told, and keeps the QPs (and so their DCQCN state,
 * timers and tracepoints) alive until told to quit.
 *
 * A server and a client exchange their QPs over TCP (no rdma_cm).  Both
 * print, once connected, one line per QP and then "ready":
 *   "qp I LOCAL_QPN REMOTE_QPN"
 * The server then only answers (ACKs come from the device) and exits 0
 * when the client closes the TCP connection.  The client reads commands,
 * one per line, and answers each with one line, "ok ..." or "FAIL ...":
 *   w I SIZE            one signaled RDMA WRITE of SIZE bytes on QP I,
 *                       waits for its completion: "ok w I SIZE MS"
 *   s I SECS SIZE DEPTH RDMA WRITEs of SIZE bytes on QP I, DEPTH in
 *                       flight, for SECS seconds (fractions allowed):
 *                       "ok s I WRITES BYTES SECS"
 *   q                   close everything, exit 0
 * Any completion that is not SUCCESS, or none within -S seconds, prints
 * "FAIL ..." and exits 1.
 *
 * Usage: cc_qp [options] [SERVER_IP]   (no SERVER_IP: be the server)
 *   -d DEV     RDMA device ($VROCE_DEV or the first one)
 *   -g IDX     GID index (default: the first IPv4-mapped RoCE v2 GID)
 *   -p PORT    TCP port (default 19890)
 *   -q N       QPs (default 1, at most 16; the client's value counts)
 *   -u         UC instead of RC (the client's value counts)
 *   -T TCLASS  traffic class of the client's QPs (default 0); the server
 *              uses the same
 *   -m MTU     path MTU bytes, 256..4096 (default 1024)
 *   -S SEC     stall limit (default 30)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define PROG		"cc_qp"
#define MAX_QP		16
#define MAX_DEPTH	64
#define MAX_SIZE	(1u << 20)
#define CFG_MAGIC	0x43435150u	/* "CCQP" */

struct cfg {
	uint32_t magic;
	uint32_t nqp;
	uint32_t uc;
	uint32_t tclass;
	uint32_t mtu;
};

struct ep {
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint32_t pad;
	uint64_t addr;
};

static struct cfg cfg = { .nqp = 1, .mtu = 1024 };
static const char *dev_name, *server;
static int gid_index = -1, port = 19890, stall_s = 30;
static int sock = -1;
static struct vt_dev dev;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qps[MAX_QP];
static struct ep local[MAX_QP], remote[MAX_QP];
static union ibv_gid remote_gid;
static uint8_t *sbuf, *rbuf;
static struct ibv_mr *smr, *rmr;

__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s: ", PROG);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

	if (server) {
		cfg.magic = CFG_MAGIC;
		for (i = 0; i < VT_ARRAY_SIZE(w); i++)
			w[i] = htonl(v[i]);
		sock_io(w, sizeof(w), true, 30000);
		return;
	}
	sock_io(w, sizeof(w), false, 30000);
	for (i = 0; i < VT_ARRAY_SIZE(w); i++)
		v[i] = ntohl(w[i]);
	if (cfg.magic != CFG_MAGIC || !cfg.nqp || cfg.nqp > MAX_QP ||
	    cfg.tclass > 255 || cfg.mtu < 256 || cfg.mtu > 4096)
		die("client's configuration out of range");
}

static void exchange_eps(void)
{
	struct ep w[MAX_QP];
	uint32_t i;

	for (i = 0; i < cfg.nqp; i++) {
		w[i].qpn = htonl(local[i].qpn);
		w[i].psn = htonl(local[i].psn);
		w[i].rkey = htonl(local[i].rkey);
		w[i].pad = 0;
		w[i].addr = htobe64(local[i].addr);
	}
	sock_io(dev.gid.raw, sizeof(dev.gid.raw), true, 30000);
	sock_io(w, sizeof(w[0]) * cfg.nqp, true, 30000);
	sock_io(remote_gid.raw, sizeof(remote_gid.raw), false, 30000);
	sock_io(w, sizeof(w[0]) * cfg.nqp, false, 30000);
	for (i = 0; i < cfg.nqp; i++) {
		remote[i].qpn = ntohl(w[i].qpn);
		remote[i].psn = ntohl(w[i].psn);
		remote[i].rkey = ntohl(w[i].rkey);
		remote[i].addr = be64toh(w[i].addr);
	}
}

static enum ibv_mtu mtu_enum(uint32_t b)
{
	return b >= 4096 ? IBV_MTU_4096 : b >= 2048 ? IBV_MTU_2048 :
	       b >= 1024 ? IBV_MTU_1024 : b >= 512 ? IBV_MTU_512 :
	       IBV_MTU_256;
}

static void setup(void)
{
	size_t blen = (size_t)MAX_SIZE * MAX_QP;
	uint32_t i;

	pd = ibv_alloc_pd(dev.ctx);
	cq = ibv_create_cq(dev.ctx, MAX_QP * (MAX_DEPTH + 4), NULL, NULL, 0);
	sbuf = vt_alloc(MAX_SIZE);
	rbuf = vt_alloc(blen);
	if (!pd || !cq || !sbuf || !rbuf)
		die("PD/CQ/buffers: %s", vt_errname(errno));
	smr = ibv_reg_mr(pd, sbuf, MAX_SIZE, 0);
	rmr = ibv_reg_mr(pd, rbuf, blen,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!smr || !rmr)
		die("ibv_reg_mr: %s", vt_errname(errno));
	for (i = 0; i < cfg.nqp; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = cq,
			.recv_cq = cq,
			.qp_type = cfg.uc ? IBV_QPT_UC : IBV_QPT_RC,
			.cap = {
				.max_send_wr = MAX_DEPTH + 4,
				.max_recv_wr = 4,
				.max_send_sge = 1,
				.max_recv_sge = 1,
			},
		};

		qps[i] = ibv_create_qp(pd, &ia);
		if (!qps[i])
			die("ibv_create_qp: %s", vt_errname(errno));
		local[i].qpn = qps[i]->qp_num;
		local[i].psn = (uint32_t)lrand48() & 0xffffff;
		local[i].rkey = rmr->rkey;
		local[i].addr = (uintptr_t)(rbuf + (size_t)i * MAX_SIZE);
		if (vt_qp_init(&dev, qps[i]))
			die("qp %u: to INIT: %s", i, vt_errname(errno));
	}
}

static void connect_qp(uint32_t i)
{
	uint32_t rd = dev.attr.max_qp_rd_atom, rd_in = dev.attr.max_qp_init_rd_atom;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu_enum(cfg.mtu),
		.dest_qp_num = remote[i].qpn,
		.rq_psn = remote[i].psn,
		.max_dest_rd_atomic = (uint8_t)(rd < 16 ? rd : 16),
		.min_rnr_timer = 1,
		.ah_attr = {
			.is_global = 1,
			.port_num = 1,
			.grh = {
				.dgid = remote_gid,
				.sgid_index = (uint8_t)dev.gid_index,
				.hop_limit = 64,
				.traffic_class = (uint8_t)cfg.tclass,
			},
		},
	};
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	int ret;

	if (!cfg.uc)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	ret = ibv_modify_qp(qps[i], &a, mask);
	if (ret)
		die("qp %u: to RTR: %s", i, vt_errname(vt_rc(ret)));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = local[i].psn;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (!cfg.uc) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = (uint8_t)(rd_in < 16 ? rd_in : 16);
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	ret = ibv_modify_qp(qps[i], &a, mask);
	if (ret)
		die("qp %u: to RTS: %s", i, vt_errname(vt_rc(ret)));
}

static void post_write(uint32_t i, uint32_t size, uint64_t id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)sbuf,
		.length = size,
		.lkey = smr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = remote[i].addr,
			     .rkey = remote[i].rkey },
	}, *bad;
	int ret = ibv_post_send(qps[i], &wr, &bad);

	if (ret)
		die("qp %u: ibv_post_send: %s", i, vt_errname(vt_rc(ret)));
}

/* Wait for one completion of a WRITE; dies on error or stall. */
static void reap(uint32_t i)
{
	struct ibv_wc wc;

	if (vt_poll(cq, &wc, 1, stall_s * 1000) != 1)
		die("qp %u: no completion within %d s", i, stall_s);
	if (wc.status != IBV_WC_SUCCESS)
		die("qp %u: completion %s (vendor err %u)", i,
		    vt_wcname(wc.status), wc.vendor_err);
}

static bool parse_qp(const char *s, uint32_t *i)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*end || v >= cfg.nqp)
		return false;
	*i = (uint32_t)v;
	return true;
}

static void cmd_loop(void)
{
	char line[256];

	while (fgets(line, sizeof(line), stdin)) {
		char *w[6] = { 0 };
		int n = 0;
		uint32_t i, size, depth, k, inflight;
		uint64_t writes = 0;
		double t0, secs;
		char *save = NULL, *tok;

		for (tok = strtok_r(line, " \t\n", &save); tok && n < 6;
		     tok = strtok_r(NULL, " \t\n", &save))
			w[n++] = tok;
		if (!n)
			continue;
		if (!strcmp(w[0], "q"))
			return;
		if (!strcmp(w[0], "w") && n == 3 && parse_qp(w[1], &i)) {
			size = (uint32_t)strtoul(w[2], NULL, 0);
			if (size > MAX_SIZE)
				die("size %u above %u", size, MAX_SIZE);
			t0 = now_s();
			post_write(i, size, 1);
			reap(i);
			printf("ok w %u %u %.3f\n", i, size,
			       (now_s() - t0) * 1e3);
		} else if (!strcmp(w[0], "s") && n == 5 && parse_qp(w[1], &i)) {
			secs = strtod(w[2], NULL);
			size = (uint32_t)strtoul(w[3], NULL, 0);
			depth = (uint32_t)strtoul(w[4], NULL, 0);
			if (size > MAX_SIZE || !depth || depth > MAX_DEPTH ||
			    secs <= 0 || secs > 3600)
				die("bad stream command");
			t0 = now_s();
			for (k = 0; k < depth; k++)
				post_write(i, size, k);
			inflight = depth;
			while (inflight) {
				reap(i);
				inflight--;
				writes++;
				if (now_s() - t0 < secs) {
					post_write(i, size, writes);
					inflight++;
				}
			}
			printf("ok s %u %llu %llu %.3f\n", i,
			       (unsigned long long)writes,
			       (unsigned long long)(writes * size),
			       now_s() - t0);
		} else {
			die("bad command '%s'", w[0]);
		}
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	uint32_t i;
	char c;
	int o;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((o = getopt(argc, argv, "d:g:p:q:uT:m:S:")) != -1) {
		switch (o) {
		case 'd': dev_name = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 'p': port = atoi(optarg); break;
		case 'q': cfg.nqp = (uint32_t)atoi(optarg); break;
		case 'u': cfg.uc = 1; break;
		case 'T': cfg.tclass = (uint32_t)atoi(optarg); break;
		case 'm': cfg.mtu = (uint32_t)atoi(optarg); break;
		case 'S': stall_s = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: see the comment at the top of cc_qp.c\n");
			return 2;
		}
	}
	if (optind < argc)
		server = argv[optind];
	if (!cfg.nqp || cfg.nqp > MAX_QP || cfg.tclass > 255)
		die("-q 1..%d, -T 0..255", MAX_QP);
	srand48((long)getpid() ^ (long)time(NULL));
	if (vt_open(dev_name, gid_index, &dev))
		return 1;
	if (dev.gid_index < 0)
		die("no IPv4 RoCE v2 GID");
	if (server)
		tcp_connect();
	else
		tcp_accept();
	exchange_cfg();
	setup();
	exchange_eps();
	for (i = 0; i < cfg.nqp; i++) {
		connect_qp(i);
		printf("qp %u %u %u\n", i, local[i].qpn, remote[i].qpn);
	}
	/* Both sides in RTS before the client may send. */
	c = 'R';
	sock_io(&c, 1, true, 30000);
	sock_io(&c, 1, false, 30000);
	printf("ready\n");
	if (server) {
		cmd_loop();
	} else {
		/* Until the client closes the connection. */
		for (;;) {
			struct pollfd pf = { .fd = sock, .events = POLLIN };

			if (poll(&pf, 1, -1) > 0 && recv(sock, &c, 1, 0) <= 0)
				break;
		}
	}
	for (i = 0; i < cfg.nqp; i++)
		ibv_destroy_qp(qps[i]);
	ibv_destroy_cq(cq);
	ibv_dereg_mr(smr);
	ibv_dereg_mr(rmr);
	ibv_dealloc_pd(pd);
	vt_close(&dev);
	printf("done\n");
	return 0;
}
