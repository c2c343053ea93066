// SPDX-License-Identifier: GPL-2.0
/*
 * mem_protect: one process must never reach another's memory.
 *
 * Two processes on one device (loopback), joined by a socketpair:
 *
 *   V, the victim (child), owns PD_V with
 *     MR_A  remote read/write/atomic + MW bind, inside a larger buffer
 *           whose guard bytes around the MR hold the secret too
 *     MR_N  local access only          MR_R  remote read only
 *     MR_W  remote write only          MR_P  remote write ("public")
 *     MR_H  remote r/w/atomic at iova 2^64 - 4096 (ends at 2^64 - 1)
 *     MR_D  deregistered at the revoke step
 *     MW1a  type 1 on MR_A, unbound (zero-length bind) at the revoke step
 *     MW1b  type 1 on MR_A, read only, deallocated at the revoke step
 *     MW2a  type 2 on MR_A bound on QV0, LOCAL_INV at the revoke step
 *     MW2b  type 2 on MR_A bound on QV0, deallocated at the revoke step
 *   and responder QPs QV0, QV1 (all remote rights) and QV2 (none), which
 *   it resets and connects to the attacker's QP on request (an access
 *   error moves the responder to ERR).  It tells X every key it has.
 *
 *   X, the attacker (parent), owns PD_X, a local buffer and MR_X, and
 *   runs each attack on a freshly connected QP pair:
 *     - on V's QPs: keys without remote rights or without the right one,
 *       out-of-bounds addresses and lengths (also wrapping past 2^64),
 *       windows used outside their range, rights or QP, revoked windows,
 *       a deregistered MR, QV2 with a valid key, its own keys;
 *     - on its own QP pair (PD_X): V's valid keys (another PD);
 *     - key guessing on QV0: every other variant of MR_A's key, guessed
 *       variants of neighbouring indices and random keys (V's valid keys
 *       excluded).
 *   Every attack must complete with IBV_WC_REM_ACCESS_ERR (QV2, the QP
 *   without remote rights, may also answer REM_INV_REQ_ERR) and leave
 *   X's buffer untouched.  Positive controls (valid keys, exact bounds,
 *   MWs before revocation, a WRITE into MR_P, FETCH_ADD 0) must succeed
 *   with the expected bytes, so the attacks are known to reach the
 *   memory when allowed.  At the end V checks that all its memory holds
 *   exactly what it held (MR_P: plus the one allowed WRITE).
 *
 * Prints "mem_protect: N attacks, N REM_ACCESS_ERR, N data leaks" and
 * the usual summary line; exits 1 on any failure.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#define WAIT_MS		5000
#define MSG_MS		30000

#define PG		4096
#define A_BUF_LEN	(4 * PG)	/* MR_A lives inside, with guards */
#define A_OFF		1024		/* MR_A starts here in its buffer */
#define A_LEN		(2 * PG + 512)	/* ... and is this long */
#define SMALL_LEN	PG		/* MR_N, R, W, P, H, D */
#define LB_LEN		(8 * PG)	/* X's local buffer */
#define HIGH_IOVA	(~0ULL - PG + 1)	/* MR_H: [2^64 - 4096, 2^64) */

#define X_FILL		0x5a		/* X's local buffer before each try */

enum { R_A, R_N, R_R, R_W, R_P, R_H, R_D, R_X, R_NUM };

static const char *const region_name[R_NUM] = {
	"MR_A", "MR_N", "MR_R", "MR_W", "MR_P", "MR_H", "MR_D", "MR_X",
};

/* The secret: a byte per (region, offset) both processes can compute. */
static uint8_t secret(int region, size_t off)
{
	uint32_t v = (uint32_t)off * 2654435761u + (uint32_t)region * 40503u;

	return (uint8_t)((v >> 13) ^ (v >> 24) ^ 0xa7);
}

static void fill_secret(uint8_t *p, size_t len, int region)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = secret(region, i);
}

/* -------------------------------------------------------- the channel */

enum {
	CMD_CONNECT = 1,	/* arg: QV index, qpn: X's QP -> qpn: V's QP */
	CMD_REVOKE,		/* revoke windows and MR_D -> keys again */
	CMD_FINISH,		/* check memory -> val: bad bytes */
	CMD_KEYS,		/* V -> X after set-up (and after revoke) */
	CMD_ERROR,		/* V could not do what was asked */
};

#define QV_NUM 3		/* QV0, QV1: all remote rights; QV2: none */
#define MAX_VALID 16

struct keys {
	uint64_t addr[R_NUM];	/* iova of each region (MR_A: its start) */
	uint32_t rkey[R_NUM];
	uint32_t len[R_NUM];
	uint32_t mw1a_old, mw1a_now;	/* bound key; key after unbind */
	uint32_t mw1b, mw2a, mw2b;
	uint64_t mw1a_addr, mw1b_addr, mw2a_addr, mw2b_addr;
	uint32_t mw1a_len, mw1b_len, mw2a_len, mw2b_len;
	uint32_t nvalid;		/* keys X must not "guess" */
	uint32_t valid[MAX_VALID];
};

struct msg {
	uint32_t cmd;
	uint32_t arg;
	uint32_t qpn;
	uint32_t pad;
	uint64_t val;
	struct keys keys;
};

static int msg_send(int fd, const struct msg *m)
{
	const char *p = (const char *)m;
	size_t done = 0;

	while (done < sizeof(*m)) {
		ssize_t n = write(fd, p + done, sizeof(*m) - done);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

static int msg_recv(int fd, struct msg *m, int ms)
{
	char *p = (char *)m;
	size_t done = 0;

	while (done < sizeof(*m)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, ms) <= 0)
			return -1;
		n = read(fd, p + done, sizeof(*m) - done);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

/* ------------------------------------------------------------ helpers */

/* RESET -> INIT with @access as the QP's remote rights -> RTR -> RTS. */
static int qp_connect(struct vt_dev *d, struct ibv_qp *qp, int access,
		      uint32_t dest)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = (unsigned int)access,
	};
	int ret;

	ret = vt_qp_set_state(qp, IBV_QPS_RESET);
	if (ret)
		return ret;
	ret = vt_rc(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
	if (ret)
		return ret;
	ret = vt_qp_rtr(d, qp, dest);
	if (ret)
		return ret;
	return vt_qp_rts(d, qp);
}

#define ALL_REMOTE (IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | \
		    IBV_ACCESS_REMOTE_ATOMIC)

static void drain_cq(struct ibv_cq *cq)
{
	struct ibv_wc wc[8];

	while (ibv_poll_cq(cq, 8, wc) > 0)
		;
}

/* ============================================================ victim V */

struct victim {
	struct vt_dev d;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qv[QV_NUM];
	struct ibv_qp *qloc;		/* loopback QP for binds and LOCAL_INV */
	uint8_t *buf[R_NUM];		/* R_A: the whole guarded buffer */
	size_t buf_len[R_NUM];
	struct ibv_mr *mr[R_NUM];
	struct ibv_mw *mw1a, *mw1b, *mw2a, *mw2b;
	struct keys k;
	uint8_t p_written[64];		/* what X may write at MR_P's start */
	bool p_write_seen;
};

static bool v_wait_ok(struct victim *v, const char *what)
{
	struct ibv_wc wc;

	if (vt_poll(v->cq, &wc, 1, WAIT_MS) != 1) {
		vt_failf("victim.setup", "%s: no completion", what);
		return false;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		vt_failf("victim.setup", "%s: %s", what,
			 vt_wcname(wc.status));
		return false;
	}
	return true;
}

static bool v_bind1(struct victim *v, struct ibv_mw *mw, uint64_t addr,
		    uint32_t len, int access, const char *what)
{
	struct ibv_mw_bind b = {
		.wr_id = 1,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = {
			.mr = v->mr[R_A],
			.addr = addr,
			.length = len,
			.mw_access_flags = (unsigned int)access,
		},
	};
	int ret = ibv_bind_mw(v->qloc, mw, &b);

	if (ret) {
		vt_failf("victim.setup", "%s: ibv_bind_mw: %s", what,
			 vt_errname(ret));
		return false;
	}
	return v_wait_ok(v, what);
}

static bool v_bind2(struct victim *v, struct ibv_mw *mw, uint32_t *key,
		    uint64_t addr, uint32_t len, int access, const char *what)
{
	struct ibv_send_wr wr, *bad;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 2;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info.mr = v->mr[R_A];
	wr.bind_mw.bind_info.addr = addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = (unsigned int)access;
	/* A type 2 window is bound to the QP that binds it: QV0. */
	ret = ibv_post_send(v->qv[0], &wr, &bad);
	if (ret) {
		vt_failf("victim.setup", "%s: post BIND_MW: %s", what,
			 vt_errname(ret));
		return false;
	}
	if (!v_wait_ok(v, what))
		return false;
	*key = wr.bind_mw.rkey;
	mw->rkey = *key;
	return true;
}

static void v_valid_keys(struct victim *v, bool revoked)
{
	struct keys *k = &v->k;
	int r;

	k->nvalid = 0;
	for (r = 0; r < R_NUM; r++)
		if (v->mr[r] && (r != R_D || !revoked))
			k->valid[k->nvalid++] = k->rkey[r];
	if (!revoked) {
		k->valid[k->nvalid++] = k->mw1a_old;
		k->valid[k->nvalid++] = k->mw1b;
		k->valid[k->nvalid++] = k->mw2a;
		k->valid[k->nvalid++] = k->mw2b;
	}
}

static bool v_setup(struct victim *v)
{
	static const int access[R_NUM] = {
		[R_A] = IBV_ACCESS_LOCAL_WRITE | ALL_REMOTE |
			IBV_ACCESS_MW_BIND,
		[R_N] = IBV_ACCESS_LOCAL_WRITE,
		[R_R] = IBV_ACCESS_REMOTE_READ,
		[R_W] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		[R_P] = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		[R_H] = IBV_ACCESS_LOCAL_WRITE | ALL_REMOTE,
		[R_D] = IBV_ACCESS_LOCAL_WRITE | ALL_REMOTE,
	};
	struct keys *k = &v->k;
	int r, i;

	v->pd = ibv_alloc_pd(v->d.ctx);
	v->cq = ibv_create_cq(v->d.ctx, 64, NULL, NULL, 0);
	if (!v->pd || !v->cq) {
		vt_failf("victim.setup", "PD/CQ: %s", vt_errname(errno));
		return false;
	}
	for (r = 0; r < R_NUM; r++) {
		if (r == R_X)
			continue;
		v->buf_len[r] = r == R_A ? A_BUF_LEN : SMALL_LEN;
		v->buf[r] = vt_alloc(v->buf_len[r]);
		fill_secret(v->buf[r], v->buf_len[r], r);
		if (r == R_A)
			v->mr[r] = ibv_reg_mr(v->pd, v->buf[r] + A_OFF, A_LEN,
					      access[r]);
		else if (r == R_H)
			v->mr[r] = ibv_reg_mr_iova(v->pd, v->buf[r], SMALL_LEN,
						   HIGH_IOVA, access[r]);
		else
			v->mr[r] = ibv_reg_mr(v->pd, v->buf[r], SMALL_LEN,
					      access[r]);
		if (!v->mr[r]) {
			vt_failf("victim.setup", "reg %s: %s", region_name[r],
				 vt_errname(errno));
			return false;
		}
		k->rkey[r] = v->mr[r]->rkey;
		k->addr[r] = r == R_H ? HIGH_IOVA :
			     (uintptr_t)v->mr[r]->addr;
		k->len[r] = (uint32_t)v->mr[r]->length;
	}

	for (i = 0; i < QV_NUM; i++) {
		v->qv[i] = vt_create_qp(&v->d, v->pd, IBV_QPT_RC, v->cq, v->cq,
					NULL, 8, 1, 0);
		if (!v->qv[i]) {
			vt_failf("victim.setup", "QV%d: %s", i,
				 vt_errname(errno));
			return false;
		}
	}
	v->qloc = vt_rc_rts(&v->d, v->pd, v->cq);
	if (!v->qloc || qp_connect(&v->d, v->qv[0], ALL_REMOTE,
				   v->qv[0]->qp_num)) {
		vt_failf("victim.setup", "loopback QPs: %s",
			 vt_errname(errno));
		return false;
	}

	v->mw1a = ibv_alloc_mw(v->pd, IBV_MW_TYPE_1);
	v->mw1b = ibv_alloc_mw(v->pd, IBV_MW_TYPE_1);
	v->mw2a = ibv_alloc_mw(v->pd, IBV_MW_TYPE_2);
	v->mw2b = ibv_alloc_mw(v->pd, IBV_MW_TYPE_2);
	if (!v->mw1a || !v->mw1b || !v->mw2a || !v->mw2b) {
		vt_failf("victim.setup", "alloc_mw: %s", vt_errname(errno));
		return false;
	}
	k->mw1a_addr = k->addr[R_A];
	k->mw1a_len = PG;
	k->mw1b_addr = k->addr[R_A] + PG;
	k->mw1b_len = 1024;
	k->mw2a_addr = k->addr[R_A] + 512;
	k->mw2a_len = 2048;
	k->mw2b_addr = k->addr[R_A];
	k->mw2b_len = 512;
	if (!v_bind1(v, v->mw1a, k->mw1a_addr, k->mw1a_len,
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE,
		     "bind MW1a") ||
	    !v_bind1(v, v->mw1b, k->mw1b_addr, k->mw1b_len,
		     IBV_ACCESS_REMOTE_READ, "bind MW1b") ||
	    !v_bind2(v, v->mw2a, &k->mw2a, k->mw2a_addr, k->mw2a_len,
		     ALL_REMOTE, "bind MW2a") ||
	    !v_bind2(v, v->mw2b, &k->mw2b, k->mw2b_addr, k->mw2b_len,
		     IBV_ACCESS_REMOTE_READ, "bind MW2b"))
		return false;
	k->mw1a_old = v->mw1a->rkey;
	k->mw1a_now = v->mw1a->rkey;
	k->mw1b = v->mw1b->rkey;
	v_valid_keys(v, false);
	vt_info("victim: MR_A %#x MR_N %#x MR_R %#x MR_W %#x MR_P %#x MR_H %#x MR_D %#x MW1a %#x MW1b %#x MW2a %#x MW2b %#x",
		k->rkey[R_A], k->rkey[R_N], k->rkey[R_R], k->rkey[R_W],
		k->rkey[R_P], k->rkey[R_H], k->rkey[R_D], k->mw1a_old,
		k->mw1b, k->mw2a, k->mw2b);
	return true;
}

static bool v_revoke(struct victim *v)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_mw_bind b = {
		.wr_id = 3,
		.send_flags = IBV_SEND_SIGNALED,
		/* librxe reads bind_info.mr even for a zero-length bind */
		.bind_info = { .mr = v->mr[R_A] },
	};
	int ret;

	/* Type 1: a zero-length bind unbinds, with a new key. */
	ret = ibv_bind_mw(v->qloc, v->mw1a, &b);
	if (ret) {
		vt_failf("victim.revoke", "unbind MW1a: %s", vt_errname(ret));
		return false;
	}
	if (!v_wait_ok(v, "unbind MW1a"))
		return false;
	v->k.mw1a_now = v->mw1a->rkey;

	/* Type 2: LOCAL_INV (on another QP of the PD). */
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 4;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = v->k.mw2a;
	ret = ibv_post_send(v->qloc, &wr, &bad);
	if (ret) {
		vt_failf("victim.revoke", "LOCAL_INV: %s", vt_errname(ret));
		return false;
	}
	if (!v_wait_ok(v, "LOCAL_INV MW2a"))
		return false;

	/* Bound windows deallocated, an MR deregistered. */
	ret = ibv_dealloc_mw(v->mw1b);
	if (!ret)
		ret = ibv_dealloc_mw(v->mw2b);
	if (!ret)
		ret = ibv_dereg_mr(v->mr[R_D]);
	if (ret) {
		vt_failf("victim.revoke", "dealloc/dereg: %s",
			 vt_errname(ret));
		return false;
	}
	v->mw1b = v->mw2b = NULL;
	v->mr[R_D] = NULL;
	v_valid_keys(v, true);
	return true;
}

/* Compare every byte V owns with what it must hold; returns bad bytes. */
static uint64_t v_check(struct victim *v)
{
	uint64_t bad_total = 0;
	int r;

	for (r = 0; r < R_NUM; r++) {
		uint64_t bad = 0;
		size_t i, first = 0;

		if (!v->buf[r])
			continue;
		for (i = 0; i < v->buf_len[r]; i++) {
			uint8_t want = secret(r, i);

			if (r == R_P && i < sizeof(v->p_written))
				want = v->p_written[i];
			if (v->buf[r][i] != want && !bad++)
				first = i;
		}
		if (bad)
			vt_failf("victim.memory", "%s: %llu bytes changed, first at offset %zu%s",
				 region_name[r], (unsigned long long)bad, first,
				 r == R_A ? " of the guarded buffer" : "");
		bad_total += bad;
	}
	if (!bad_total)
		vt_ok("victim.memory", "MR_A (with %d guard bytes), MR_N, MR_R, MR_W, MR_H, MR_D and MR_P (but the allowed 64-byte WRITE) unchanged",
		      A_BUF_LEN - A_LEN);
	return bad_total;
}

static int victim_main(int fd)
{
	struct victim v;
	struct msg m;

	memset(&v, 0, sizeof(v));
	memset(&m, 0, sizeof(m));
	/* X writes these bytes into MR_P as its positive WRITE control. */
	memset(v.p_written, 0x3c, sizeof(v.p_written));
	if (vt_open(NULL, -1, &v.d) || !v_setup(&v)) {
		m.cmd = CMD_ERROR;
		msg_send(fd, &m);
		return 1;
	}
	m.cmd = CMD_KEYS;
	m.keys = v.k;
	if (msg_send(fd, &m))
		return 1;

	for (;;) {
		if (msg_recv(fd, &m, 10 * MSG_MS)) {
			vt_failf("victim", "attacker went away");
			return 1;
		}
		switch (m.cmd) {
		case CMD_CONNECT: {
			struct ibv_qp *qp;
			int ret;

			if (m.arg >= QV_NUM)
				goto bad;
			qp = v.qv[m.arg];
			drain_cq(v.cq);
			vt_drain_async(v.d.ctx);
			ret = qp_connect(&v.d, qp, m.arg == 2 ? 0 : ALL_REMOTE,
					 m.qpn);
			if (ret) {
				vt_failf("victim.connect", "QV%u: %s", m.arg,
					 vt_errname(ret));
				goto bad;
			}
			m.qpn = qp->qp_num;
			break;
		}
		case CMD_REVOKE:
			if (!v_revoke(&v))
				goto bad;
			m.keys = v.k;
			break;
		case CMD_FINISH:
			m.val = v_check(&v);
			msg_send(fd, &m);
			return vt_n_fail ? 1 : 0;
		default:
			goto bad;
		}
		if (msg_send(fd, &m))
			return 1;
		continue;
bad:
		m.cmd = CMD_ERROR;
		if (msg_send(fd, &m))
			return 1;
	}
}

/* ========================================================== attacker X */

enum op { OP_READ, OP_WRITE, OP_CAS, OP_FADD, OP_NUM };

static const char *const op_name[OP_NUM] = {
	"READ", "WRITE", "CAS", "FADD",
};

#define TGT_SELF (-1)		/* X's own responder QP in PD_X */

struct attacker {
	struct vt_dev d;
	int fd;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qx;		/* the requester */
	struct ibv_qp *qxr;		/* X's own responder */
	uint8_t *lb;
	struct ibv_mr *lmr;
	uint8_t *xbuf;
	struct ibv_mr *xmr;		/* MR_X, remote read/write/atomic */
	struct keys k;

	int attacks, rem_access, inv_req, leaks, other;
	int controls, controls_ok;
	int class_attacks, class_fail;	/* per class, for its ok/FAIL line */
	bool broken;			/* the channel or a set-up step died */
};

/* Ask V to connect QV@idx to our requester; returns V's QPN or 0. */
static uint32_t x_connect_v(struct attacker *x, int idx)
{
	struct msg m;

	memset(&m, 0, sizeof(m));
	m.cmd = CMD_CONNECT;
	m.arg = (uint32_t)idx;
	m.qpn = x->qx->qp_num;
	if (msg_send(x->fd, &m) || msg_recv(x->fd, &m, MSG_MS) ||
	    m.cmd != CMD_CONNECT) {
		x->broken = true;
		return 0;
	}
	return m.qpn;
}

/*
 * Post one operation on a fresh connection to @tgt and wait for it.
 * Returns the completion status, or -1 when nothing completed (set-up,
 * posting or timeout; x->broken for the channel).
 */
static int x_run(struct attacker *x, int tgt, enum op op, uint32_t rkey,
		 uint64_t addr, uint32_t len, uint64_t cmp_add,
		 uint64_t swap)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)x->lb,
		.length = op >= OP_CAS ? 8 : len,
		.lkey = x->lmr->lkey,
	};
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;
	uint32_t dest;
	int ret;

	drain_cq(x->cq);
	if (tgt == TGT_SELF) {
		if (qp_connect(&x->d, x->qxr, ALL_REMOTE, x->qx->qp_num))
			return -1;
		dest = x->qxr->qp_num;
	} else {
		/* X's QP first goes to RESET: V's old one may still talk. */
		if (vt_qp_set_state(x->qx, IBV_QPS_RESET))
			return -1;
		dest = x_connect_v(x, tgt);
		if (!dest)
			return -1;
	}
	if (qp_connect(&x->d, x->qx, ALL_REMOTE, dest))
		return -1;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 7;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	switch (op) {
	case OP_READ:
	case OP_WRITE:
		wr.opcode = op == OP_READ ? IBV_WR_RDMA_READ :
					    IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = addr;
		wr.wr.rdma.rkey = rkey;
		break;
	default:
		wr.opcode = op == OP_CAS ? IBV_WR_ATOMIC_CMP_AND_SWP :
					   IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = addr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = cmp_add;
		wr.wr.atomic.swap = swap;
		break;
	}
	ret = ibv_post_send(x->qx, &wr, &bad);
	if (ret) {
		vt_info("post %s: %s", op_name[op], vt_errname(ret));
		return -1;
	}
	if (vt_poll(x->cq, &wc, 1, WAIT_MS) != 1)
		return -1;
	return wc.status;
}

static bool lb_untouched(const struct attacker *x)
{
	size_t i;

	for (i = 0; i < LB_LEN; i++)
		if (x->lb[i] != X_FILL)
			return false;
	return true;
}

/*
 * One attack: must complete with REM_ACCESS_ERR (@inv_ok: or
 * REM_INV_REQ_ERR) and leave the local buffer as it was.
 */
static void attack(struct attacker *x, const char *what, int tgt, enum op op,
		   uint32_t rkey, uint64_t addr, uint32_t len, bool inv_ok)
{
	int st;

	if (x->broken)
		return;
	/* For a WRITE, these bytes are also what X tries to write. */
	memset(x->lb, X_FILL, LB_LEN);
	st = x_run(x, tgt, op, rkey, addr, len, 0x5a5a5a5a5a5a5a5aULL,
		   0x0101010101010101ULL);
	x->attacks++;
	x->class_attacks++;
	if (st == IBV_WC_REM_ACCESS_ERR) {
		x->rem_access++;
	} else if (st == IBV_WC_REM_INV_REQ_ERR && inv_ok) {
		x->inv_req++;
	} else {
		x->class_fail++;
		if (st == IBV_WC_SUCCESS) {
			x->leaks++;
			vt_failf("attack", "%s: %s rkey %#x addr %#llx len %u on %s%d: SUCCESS (access granted)",
				 what, op_name[op], rkey,
				 (unsigned long long)addr, len,
				 tgt == TGT_SELF ? "QX" : "QV",
				 tgt == TGT_SELF ? 1 : tgt);
		} else {
			if (++x->other >= 8)
				x->broken = true;	/* do not wait 5 s per try */
			vt_failf("attack", "%s: %s rkey %#x addr %#llx len %u: %s, want REM_ACCESS_ERR",
				 what, op_name[op], rkey,
				 (unsigned long long)addr, len,
				 st < 0 ? "no completion" :
				 vt_wcname((enum ibv_wc_status)st));
		}
		return;
	}
	if (!lb_untouched(x)) {
		x->leaks++;
		x->class_fail++;
		vt_failf("attack", "%s: %s rkey %#x: the local buffer changed after %s",
			 what, op_name[op], rkey,
			 vt_wcname((enum ibv_wc_status)st));
	}
}

/* The four operations against one key and address (atomics: aligned). */
static void attack4(struct attacker *x, const char *what, int tgt,
		    uint32_t rkey, uint64_t addr, uint32_t len, bool inv_ok)
{
	int op;

	for (op = 0; op < OP_NUM; op++)
		attack(x, what, tgt, (enum op)op, rkey,
		       op >= OP_CAS ? addr & ~7ULL : addr, len, inv_ok);
}

static void class_begin(struct attacker *x)
{
	x->class_attacks = 0;
	x->class_fail = 0;
}

static void class_end(struct attacker *x, const char *name, const char *what)
{
	if (x->broken)
		return;
	if (!x->class_fail)
		vt_ok(name, "%d attacks rejected: %s", x->class_attacks, what);
	else
		vt_failf(name, "%d of %d attacks not rejected (%s)",
			 x->class_fail, x->class_attacks, what);
}

/*
 * A positive control: must succeed; READ/atomics must bring @want
 * (@len bytes; atomics: the 8 bytes of the old value).
 */
static void control(struct attacker *x, const char *name, int tgt, enum op op,
		    uint32_t rkey, uint64_t addr, uint32_t len,
		    const uint8_t *want)
{
	uint64_t cmp = 0, add = 0;
	int st;

	if (x->broken)
		return;
	x->controls++;
	memset(x->lb, X_FILL, LB_LEN);
	if (op == OP_WRITE)
		memset(x->lb, 0x3c, len);
	if (op == OP_CAS)
		cmp = ~0ULL;	/* (the secret never is all ones: no swap) */
	st = x_run(x, tgt, op, rkey, addr, len, op == OP_CAS ? cmp : add,
		   ~0ULL);
	if (st != IBV_WC_SUCCESS) {
		vt_failf(name, "%s rkey %#x addr %#llx len %u: %s, want SUCCESS",
			 op_name[op], rkey, (unsigned long long)addr, len,
			 st < 0 ? "no completion" :
			 vt_wcname((enum ibv_wc_status)st));
		return;
	}
	if (want && memcmp(x->lb, want, op >= OP_CAS ? 8 : len)) {
		vt_failf(name, "%s rkey %#x: SUCCESS but the data is wrong",
			 op_name[op], rkey);
		return;
	}
	x->controls_ok++;
	vt_ok(name, "%s of %u bytes at %#llx succeeded%s", op_name[op],
	      op >= OP_CAS ? 8 : len, (unsigned long long)addr,
	      want ? ", bytes verified" : "");
}

/* The expected bytes of a V region (MR_A: from its start). */
static const uint8_t *sec(int region, size_t off, size_t len)
{
	static uint8_t bufs[8][PG];
	static int next;
	uint8_t *p = bufs[next++ % 8];
	size_t i, base = region == R_A ? A_OFF : 0;

	for (i = 0; i < len && i < PG; i++)
		p[i] = secret(region, base + off + i);
	return p;
}

static bool x_keys(struct attacker *x, int cmd)
{
	struct msg m;

	memset(&m, 0, sizeof(m));
	if (cmd && (m.cmd = (uint32_t)cmd, msg_send(x->fd, &m))) {
		x->broken = true;
		return false;
	}
	if (msg_recv(x->fd, &m, MSG_MS) ||
	    m.cmd != (uint32_t)(cmd ? cmd : CMD_KEYS)) {
		x->broken = true;
		return false;
	}
	x->k = m.keys;
	return true;
}

static bool x_is_valid(const struct attacker *x, uint32_t key)
{
	uint32_t i;

	for (i = 0; i < x->k.nvalid && i < MAX_VALID; i++)
		if (x->k.valid[i] == key)
			return true;
	return false;
}

static bool x_setup(struct attacker *x)
{
	x->pd = ibv_alloc_pd(x->d.ctx);
	x->cq = ibv_create_cq(x->d.ctx, 16, NULL, NULL, 0);
	if (!x->pd || !x->cq)
		return false;
	x->qx = vt_create_qp(&x->d, x->pd, IBV_QPT_RC, x->cq, x->cq, NULL, 4,
			     1, 0);
	x->qxr = vt_create_qp(&x->d, x->pd, IBV_QPT_RC, x->cq, x->cq, NULL, 4,
			      1, 0);
	x->lb = vt_alloc(LB_LEN);
	x->xbuf = vt_alloc(PG);
	fill_secret(x->xbuf, PG, R_X);
	x->lmr = ibv_reg_mr(x->pd, x->lb, LB_LEN, IBV_ACCESS_LOCAL_WRITE);
	x->xmr = ibv_reg_mr(x->pd, x->xbuf, PG,
			    IBV_ACCESS_LOCAL_WRITE | ALL_REMOTE);
	return x->qx && x->qxr && x->lmr && x->xmr;
}

static void x_phase1(struct attacker *x)
{
	const struct keys *k = &x->k;
	uint64_t a = k->addr[R_A], a_end = a + k->len[R_A];
	int op;

	/* Positive controls: the attacks can see data when allowed. */
	control(x, "control.mr_a", 0, OP_READ, k->rkey[R_A], a, 64,
		sec(R_A, 0, 64));
	control(x, "control.mr_a_last", 0, OP_READ, k->rkey[R_A], a_end - 64,
		64, sec(R_A, k->len[R_A] - 64, 64));
	control(x, "control.mr_a_fadd0", 0, OP_FADD, k->rkey[R_A], a + 8, 8,
		sec(R_A, 8, 8));
	control(x, "control.mr_a_cas", 1, OP_CAS, k->rkey[R_A], a_end - 8, 8,
		sec(R_A, k->len[R_A] - 8, 8));
	control(x, "control.mr_r", 0, OP_READ, k->rkey[R_R], k->addr[R_R], 64,
		sec(R_R, 0, 64));
	control(x, "control.mr_h_top", 0, OP_READ, k->rkey[R_H],
		~0ULL - 63, 64, sec(R_H, PG - 64, 64));
	control(x, "control.mr_p_write", 0, OP_WRITE, k->rkey[R_P],
		k->addr[R_P], 64, NULL);
	control(x, "control.mw1a", 1, OP_READ, k->mw1a_old, k->mw1a_addr, 64,
		sec(R_A, k->mw1a_addr - a, 64));
	control(x, "control.mw1b", 0, OP_READ, k->mw1b,
		k->mw1b_addr + k->mw1b_len - 64, 64,
		sec(R_A, k->mw1b_addr - a + k->mw1b_len - 64, 64));
	control(x, "control.mw2a", 0, OP_READ, k->mw2a, k->mw2a_addr, 64,
		sec(R_A, k->mw2a_addr - a, 64));
	control(x, "control.mw2b", 0, OP_READ, k->mw2b, k->mw2b_addr, 64,
		sec(R_A, k->mw2b_addr - a, 64));
	control(x, "control.own_mr", TGT_SELF, OP_READ, x->xmr->rkey,
		(uintptr_t)x->xbuf, 64, x->xbuf);

	class_begin(x);
	attack4(x, "MR_N", 0, k->rkey[R_N], k->addr[R_N], 64, false);
	for (op = OP_WRITE; op < OP_NUM; op++)
		attack(x, "MR_R", 0, (enum op)op, k->rkey[R_R], k->addr[R_R],
		       64, false);
	attack(x, "MR_W", 0, OP_READ, k->rkey[R_W], k->addr[R_W], 64, false);
	attack(x, "MR_W", 0, OP_CAS, k->rkey[R_W], k->addr[R_W], 8, false);
	attack(x, "MR_W", 0, OP_FADD, k->rkey[R_W], k->addr[R_W], 8, false);
	class_end(x, "attack.rights", "MR without remote access (4 ops), remote read only (WRITE, CAS, FADD), remote write only (READ, CAS, FADD)");

	class_begin(x);
	attack4(x, "before MR_A", 0, k->rkey[R_A], a - 64, 64, false);
	attack4(x, "8 bytes before MR_A", 0, k->rkey[R_A], a - 8, 8, false);
	attack(x, "across MR_A's end", 0, OP_READ, k->rkey[R_A], a_end - 32,
	       64, false);
	attack(x, "across MR_A's end", 0, OP_WRITE, k->rkey[R_A], a_end - 32,
	       64, false);
	attack4(x, "just past MR_A", 0, k->rkey[R_A], a_end, 8, false);
	attack4(x, "address 0", 0, k->rkey[R_A], 0, 64, false);
	attack4(x, "MR_A + 2^63", 0, k->rkey[R_A], a + (1ULL << 63), 64,
		false);
	attack(x, "longer than MR_A", 0, OP_READ, k->rkey[R_A], a,
	       k->len[R_A] + 64, false);
	attack(x, "longer than MR_A", 0, OP_WRITE, k->rkey[R_A], a,
	       k->len[R_A] + 64, false);
	attack(x, "MR_A, addr+len wraps", 0, OP_READ, k->rkey[R_A],
	       ~0ULL - 31, 64, false);
	attack(x, "MR_A, addr+len wraps", 0, OP_WRITE, k->rkey[R_A],
	       ~0ULL - 31, 64, false);
	attack(x, "MR_H, addr+len wraps", 0, OP_READ, k->rkey[R_H],
	       ~0ULL - 31, 64, false);
	attack(x, "MR_H, addr+len wraps", 0, OP_WRITE, k->rkey[R_H],
	       ~0ULL - 31, 64, false);
	attack4(x, "before MR_H", 0, k->rkey[R_H], HIGH_IOVA - 64, 64, false);
	attack4(x, "MR_H at 0 (after the wrap)", 0, k->rkey[R_H], 0, 8, false);
	class_end(x, "attack.bounds", "before, across and past MR_A's ends, address 0, +2^63, longer than the MR, addr+len wrapping 2^64 on MR_A and on MR_H (iova 2^64-4096)");

	class_begin(x);
	attack(x, "MW1b read-only, WRITE", 0, OP_WRITE, k->mw1b, k->mw1b_addr,
	       64, false);
	attack(x, "MW1b read-only, FADD", 0, OP_FADD, k->mw1b, k->mw1b_addr,
	       8, false);
	attack(x, "MW1b, MR_A outside the window", 0, OP_READ, k->mw1b,
	       k->mw1b_addr - 64, 64, false);
	attack(x, "MW1b, across the window's end", 0, OP_READ, k->mw1b,
	       k->mw1b_addr + k->mw1b_len - 32, 64, false);
	attack4(x, "MW2a on QV1 (bound to QV0)", 1, k->mw2a, k->mw2a_addr, 64,
		false);
	attack(x, "MW2a, past the window", 0, OP_READ, k->mw2a,
	       k->mw2a_addr + k->mw2a_len, 64, false);
	attack(x, "MW2a, before the window", 0, OP_READ, k->mw2a,
	       k->mw2a_addr - 64, 64, false);
	attack(x, "MW2b read-only, WRITE", 0, OP_WRITE, k->mw2b,
	       k->mw2b_addr, 64, false);
	class_end(x, "attack.windows", "MWs beyond their rights, outside their range, type 2 on another QP");

	class_begin(x);
	attack4(x, "V's MR_A from PD_X", TGT_SELF, k->rkey[R_A], a, 64, false);
	attack4(x, "V's MR_H from PD_X", TGT_SELF, k->rkey[R_H], ~0ULL - 63,
		64, false);
	attack(x, "V's MR_R from PD_X", TGT_SELF, OP_READ, k->rkey[R_R],
	       k->addr[R_R], 64, false);
	attack4(x, "V's MW2a from PD_X", TGT_SELF, k->mw2a, k->mw2a_addr, 64,
		false);
	attack(x, "V's MW1a from PD_X", TGT_SELF, OP_READ, k->mw1a_old,
	       k->mw1a_addr, 64, false);
	attack(x, "V's MW1b from PD_X", TGT_SELF, OP_READ, k->mw1b,
	       k->mw1b_addr, 64, false);
	attack4(x, "X's MR_X on V's QP", 0, x->xmr->rkey, (uintptr_t)x->xbuf,
		64, false);
	class_end(x, "attack.other_pd", "valid keys of V on X's own QPs (PD_X), X's key on V's QP (PD_V)");
}

static void x_phase2(struct attacker *x)
{
	const struct keys *k = &x->k;
	uint64_t a = k->addr[R_A], seed = 0x6d656d70726f74ULL;
	uint32_t idx = k->rkey[R_A] >> 8, v, key;
	int i, j, n, op, before;

	class_begin(x);
	attack4(x, "MW1a after unbind, old key", 0, k->mw1a_old, k->mw1a_addr,
		64, false);
	attack4(x, "MW1a after unbind, new key", 0, k->mw1a_now, k->mw1a_addr,
		64, false);
	attack4(x, "MW1b after dealloc", 0, k->mw1b, k->mw1b_addr, 64, false);
	attack4(x, "MW2a after LOCAL_INV", 0, k->mw2a, k->mw2a_addr, 64,
		false);
	attack4(x, "MW2b after dealloc", 0, k->mw2b, k->mw2b_addr, 64, false);
	attack4(x, "MR_D after dereg", 0, k->rkey[R_D], k->addr[R_D], 64,
		false);
	class_end(x, "attack.revoked", "MW1a unbound (old and new key), MW1b and MW2b deallocated, MW2a after LOCAL_INV, MR_D deregistered");

	/* Controls after revocation: the device still serves valid keys. */
	control(x, "control.mr_a_after", 0, OP_READ, k->rkey[R_A], a + 128,
		64, sec(R_A, 128, 64));
	control(x, "control.mr_a_after_big", 1, OP_READ, k->rkey[R_A], a,
		k->len[R_A], NULL);
	if (!x->broken && memcmp(x->lb, sec(R_A, 0, PG), PG))
		vt_failf("control.mr_a_after_big", "first page differs");

	/*
	 * Guessing (a fixed number of tries whatever the key values): every
	 * other variant of MR_A's index, each 16th also with WRITE, CAS and
	 * FADD.
	 */
	class_begin(x);
	before = x->attacks;
	n = 0;
	for (v = 0; v < 256; v++) {
		key = (idx << 8) | v;
		if (key == k->rkey[R_A])
			continue;
		attack(x, "MR_A index, other variant", 0, OP_READ, key, a, 64,
		       false);
		if (n++ % 16 == 0)
			for (op = OP_WRITE; op < OP_NUM; op++)
				attack(x, "MR_A index, other variant", 0,
				       (enum op)op, key, a, 64, false);
	}
	/*
	 * 8 random variants of each of 12 neighbouring indices (V's and X's
	 * objects are there): idx-6..idx+6, or further up near index 0.
	 */
	for (i = -6; i <= 6; i++) {
		uint32_t ni = (int64_t)idx + i >= 1 ? idx + (uint32_t)i :
			      idx + (uint32_t)(6 - i);

		if (!i)
			continue;
		for (j = 0; j < 8; j++) {
			do
				key = (ni << 8) |
				      (uint32_t)(vt_rand(&seed) & 0xff);
			while (x_is_valid(x, key));
			attack(x, "neighbour index", 0, OP_READ, key, a, 64,
			       false);
		}
	}
	/* The valid keys' indices with another variant. */
	for (i = 0; i < (int)k->nvalid && i < MAX_VALID; i++) {
		key = (k->valid[i] & ~0xffU) | (k->rkey[R_A] & 0xff);
		if (x_is_valid(x, key))
			key ^= 0x80;
		attack(x, "valid index, another variant", 0, OP_READ, key, a,
		       64, false);
	}
	/* Random keys. */
	for (i = 0; i < 48; i++) {
		do
			key = (uint32_t)vt_rand(&seed);
		while (x_is_valid(x, key));
		attack(x, "random key", 0, i % 2 ? OP_WRITE : OP_READ, key, a,
		       64, false);
	}
	class_end(x, "attack.guess", "all 255 other variants of MR_A's key (16 of them also WRITE, CAS, FADD), 8 variants of 12 neighbouring indices, each valid key's index with another variant, 48 random keys");
	vt_info("guessing: %d attacks", x->attacks - before);

	/*
	 * Last, as a failure here writes into MR_A: a QP without remote
	 * rights grants no access, even with a valid key.
	 */
	class_begin(x);
	attack4(x, "QV2 without remote rights", 2, k->rkey[R_A], a, 64, true);
	class_end(x, "attack.qp_rights", "valid MR_A key on a QP whose qp_access_flags grant nothing");
}

static int attacker_main(int fd, pid_t vpid)
{
	struct attacker x;
	struct msg m;
	int status = 0, vrc;
	uint64_t vbad = ~0ULL;

	memset(&x, 0, sizeof(x));
	x.fd = fd;
	if (vt_open(NULL, -1, &x.d))
		return 1;
	if (!x_setup(&x)) {
		vt_failf("attacker.setup", "%s", vt_errname(errno));
		return 1;
	}
	if (!x_keys(&x, 0)) {
		vt_failf("attacker", "no keys from the victim");
		goto out;
	}

	x_phase1(&x);
	if (!x.broken && !x_keys(&x, CMD_REVOKE))
		vt_failf("attacker", "the victim could not revoke");
	if (!x.broken)
		x_phase2(&x);

	memset(&m, 0, sizeof(m));
	m.cmd = CMD_FINISH;
	if (msg_send(fd, &m) || msg_recv(fd, &m, MSG_MS) ||
	    m.cmd != CMD_FINISH)
		x.broken = true;
	else
		vbad = m.val;
out:
	if (x.broken)
		vt_failf("attacker", "lost the victim (channel or QP set-up failed) after %d attacks",
			 x.attacks);
	if (waitpid(vpid, &status, 0) != vpid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		vt_failf("victim", "exited with status %#x", status);
	vrc = vbad == ~0ULL ? -1 : (int)(vbad > 0);
	if (vrc > 0)
		x.leaks++;
	if (x.controls_ok != x.controls)
		vt_failf("controls", "%d of %d positive controls failed",
			 x.controls - x.controls_ok, x.controls);
	if (x.other)
		vt_failf("attacks", "%d attacks ended otherwise (no completion or another status)",
			 x.other);
	printf("mem_protect: %d attacks, %d REM_ACCESS_ERR, %d data leaks (%d REM_INV_REQ_ERR on the QP without rights, %d other; %d/%d controls ok; victim memory: %s)\n",
	       x.attacks, x.rem_access, x.leaks, x.inv_req, x.other,
	       x.controls_ok, x.controls,
	       vrc < 0 ? "not checked" : vrc ? "CHANGED" : "intact");
	return vt_summary("mem_protect");
}

static void usage(void)
{
	fprintf(stderr,
		"usage: mem_protect [-d DEV] [-v]\n"
		"  a victim and an attacker process on DEV (loopback)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int sv[2], c;
	pid_t pid;

	while ((c = getopt(argc, argv, "d:v")) != -1) {
		switch (c) {
		case 'd':
			setenv("VROCE_DEV", optarg, 1);
			break;
		case 'v':
			vt_verbose = 1;
			break;
		default:
			usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("socketpair");
		return 1;
	}
	/* Fork before any verbs object exists: two independent processes. */
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		close(sv[0]);
		_exit(victim_main(sv[1]));
	}
	close(sv[1]);
	return attacker_main(sv[0], pid);
}
