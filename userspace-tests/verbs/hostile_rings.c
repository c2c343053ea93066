// SPDX-License-Identifier: GPL-2.0
/*
 * hostile_rings: treat the shared rings of a vroce device the way an
 * attacker would, and check that the kernel survives it.
 *
 * Objects are created through libibverbs/librxe; their rings (SQ, RQ, SRQ,
 * CQ) are found in /proc/self/maps and mapped a second time at the same
 * offset of the uverbs file, so that the program can write anything into
 * them (including after librxe has unmapped them or the object is gone).
 * Then it writes garbage producer/consumer indices, geometry fields
 * (log2_elem_size, index_mask), huge num_sge, overlapping, foreign and
 * random keys, kernel-only opcodes and random bytes into every slot, and
 * enters the kernel every way it can: the POST_SEND doorbell (also with
 * work requests attached), POST_RECV / POST_SRQ_RECV write commands,
 * modify_qp (random attributes), resize_cq, modify_srq, req_notify_cq,
 * destroy, exit and SIGKILL with everything open, a forked child that keeps
 * scribbling on inherited mappings, a thread scribbling while the kernel
 * works.
 *
 * Phases, each in its own child process (a crash there is user space's
 * business; a hang in the kernel is a failure):
 *   1. targeted: one check per known attack, with the outcome printed;
 *      a successful completion of a WQE that is invalid by construction,
 *      or a device that stops working afterwards, fails it;
 *   2. fuzz: children with consecutive seeds, each running random attacks
 *      for a bounded time, until the time budget (-t) is used;
 *   3. after: this (well-behaved) process opens the device, creates
 *      objects and checks that they work.
 * The scenario around it checks the kernel log and `rdma resource`.
 *
 * Usage: hostile_rings [-d DEV] [-t SECONDS] [-s SEED] [-n MAX_CHILDREN] [-v]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "common.h"

#define WAIT_MS		3000
#define NQP		6
#define MARK		0xC0DE000000000000ULL

/* Work request opcodes as the soft-RoCE ABI numbers them (IB_WR_*). */
enum {
	OP_RDMA_WRITE = 0, OP_RDMA_WRITE_IMM = 1, OP_SEND = 2,
	OP_SEND_IMM = 3, OP_RDMA_READ = 4, OP_CMP_SWP = 5, OP_FETCH_ADD = 6,
	OP_LOCAL_INV = 7, OP_BIND_MW = 8, OP_SEND_INV = 9, OP_TSO = 10,
	OP_DRIVER1 = 11, OP_MASKED_CMP_SWP = 12, OP_MASKED_FETCH_ADD = 13,
	OP_FLUSH = 14, OP_ATOMIC_WRITE = 15,
	OP_REG_MR = 0x20,	/* kernel-only: carries a kernel pointer */
	OP_REG_MR_INTEGRITY = 0x21,
};

struct ring {
	struct rxe_queue_buf *q;	/* our own mapping when @own */
	size_t len;
	unsigned long long off;
	uint32_t log2;			/* geometry at creation */
	uint32_t mask;
	bool own;
	bool valid;
};

struct env {
	struct vt_dev d;
	struct ibv_context *ctx2;	/* a second context of the device */
	struct ibv_pd *pd, *pd2, *pd3;
	char *buf;
	struct ibv_mr *mr, *mr2, *mr3;
	struct ibv_cq *cq, *cq2;
	struct ibv_srq *srq;
	struct ibv_qp *qp[NQP];
	struct ibv_ah *ah, *ah2;
	uint32_t ah_num, ah2_num;
	struct ibv_mw *mw1, *mw2;
	struct ring sq[NQP], rq[NQP], cqr, cq2r, srqr;
	uint64_t rng;
	uint64_t wr_id;
	int hist[32];			/* completion statuses seen */
	int db_err[4];			/* doorbell: ok, EINVAL, other, hang? */
	int remap_failed;
};

#define BUFSZ	(256 * 1024)

/* ------------------------------------------------- fault guard for writes */

static __thread sigjmp_buf guard_jb;
static __thread volatile sig_atomic_t guard_on;
static volatile int guard_hits;

static void guard_handler(int sig)
{
	if (guard_on) {
		guard_hits++;
		guard_on = 0;
		siglongjmp(guard_jb, sig);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = guard_handler;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

/* Run @stmt; a SIGSEGV/SIGBUS inside it (a mapping gone) is counted. */
#define GUARDED(stmt) do { \
	if (sigsetjmp(guard_jb, 1) == 0) { \
		guard_on = 1; \
		stmt; \
	} \
	guard_on = 0; \
} while (0)

/* ------------------------------------------------------------ randomness */

static uint32_t r32(struct env *e)
{
	return (uint32_t)vt_rand(&e->rng);
}

static uint64_t r64(struct env *e)
{
	return vt_rand(&e->rng);
}

static uint32_t rn(struct env *e, uint32_t n)
{
	return n ? r32(e) % n : 0;
}

static void rfill(struct env *e, void *p, size_t len)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (uint8_t)r32(e);
}

/* A number from the classes that break bounds checks. */
static uint32_t nasty32(struct env *e, uint32_t sane)
{
	static const uint32_t v[] = { 0, 1, 0x7fffffff, 0x80000000,
				      0xffffffff, 0xfffffffe, 0x10000,
				      0x1000, 1000, 65, 33, 32, 31, 28, 27 };

	switch (rn(e, 4)) {
	case 0:
		return sane;
	case 1:
		return sane + 1;
	case 2:
		return r32(e);
	default:
		return v[rn(e, VT_ARRAY_SIZE(v))];
	}
}

/* ---------------------------------------------------------------- rings */

static void ring_attach(struct env *e, struct ring *r, const struct vt_map *m)
{
	void *p;

	r->len = m->end - m->start;
	r->off = m->offset;
	p = vt_map_again(e->d.ctx->cmd_fd, m);
	if (!p) {
		/* Fall back to librxe's own mapping. */
		e->remap_failed++;
		r->q = (struct rxe_queue_buf *)m->start;
		r->own = false;
	} else {
		r->q = p;
		r->own = true;
	}
	r->log2 = r->q->log2_elem_size;
	r->mask = r->q->index_mask;
	r->valid = true;
}

static void ring_detach(struct ring *r)
{
	if (r->valid && r->own)
		munmap(r->q, r->len);
	r->valid = false;
}

static size_t ring_elem(const struct ring *r)
{
	return (size_t)1 << r->log2;
}

static void *ring_slot(const struct ring *r, uint32_t idx)
{
	return r->q->data + ((size_t)(idx & r->mask) << r->log2);
}

/* Put back geometry and masked indices so that librxe can use the ring. */
static void ring_sanitize(struct ring *r)
{
	if (!r->valid)
		return;
	GUARDED({
		r->q->log2_elem_size = r->log2;
		r->q->index_mask = r->mask;
		r->q->producer_index &= r->mask;
		r->q->consumer_index &= r->mask;
	});
}

/* Mappings created since @s: at most two (a QP's RQ and SQ). */
static int new_maps(struct vt_snap *s, struct vt_map *m)
{
	return vt_snap_new(s, m, 4);
}

/* Split a QP's new mappings into SQ and RQ by slot size. */
static void attach_qp_rings(struct env *e, int i, struct vt_map *m, int n)
{
	int k;

	for (k = 0; k < n; k++) {
		if (vt_map_is_sq(&m[k]))
			ring_attach(e, &e->sq[i], &m[k]);
		else
			ring_attach(e, &e->rq[i], &m[k]);
	}
}

/* ---------------------------------------------------- raw write commands */

static int raw_cmd(int fd, uint32_t command, const void *body, size_t blen)
{
	uint8_t msg[4096];
	struct ib_uverbs_cmd_hdr hdr = {
		.command = command,
		.in_words = (uint16_t)((sizeof(hdr) + blen) / 4),
		.out_words = 1,	/* every post response is one __u32 */
	};

	if (sizeof(hdr) + blen > sizeof(msg))
		return E2BIG;
	memcpy(msg, &hdr, sizeof(hdr));
	memcpy(msg + sizeof(hdr), body, blen);
	if (write(fd, msg, sizeof(hdr) + blen) < 0)
		return errno;
	return 0;
}

/* POST_SEND / POST_RECV / POST_SRQ_RECV with real work requests attached. */
static int raw_post(struct env *e, int kind, uint32_t handle, bool ud,
		    uint32_t ah_handle)
{
	uint8_t body[2048];
	struct ib_uverbs_post_send ps;
	struct ib_uverbs_post_recv pr;
	uint32_t resp, nwr = 1 + rn(e, 3), nsge = 0, i;
	size_t off = 0;
	struct ib_uverbs_sge sge[8];

	memset(body, 0, sizeof(body));
	off = kind == 0 ? sizeof(ps) : sizeof(pr);
	for (i = 0; i < nwr; i++) {
		uint32_t ns = rn(e, 3);

		if (kind == 0) {
			struct ib_uverbs_send_wr w;

			memset(&w, 0, sizeof(w));
			w.wr_id = MARK | e->wr_id++;
			w.num_sge = ns;
			w.opcode = rn(e, 4) ? OP_SEND : rn(e, 16);
			w.send_flags = rn(e, 2) ? IBV_SEND_SIGNALED : r32(e);
			w.wr.rdma.remote_addr = r64(e);
			w.wr.rdma.rkey = r32(e);
			if (ud) {
				w.wr.ud.ah = ah_handle;
				w.wr.ud.remote_qpn = r32(e) & 0xffffff;
				w.wr.ud.remote_qkey = r32(e);
			}
			memcpy(body + off, &w, sizeof(w));
			off += sizeof(w);
		} else {
			struct ib_uverbs_recv_wr w = {
				.wr_id = MARK | e->wr_id++,
				.num_sge = ns,
			};

			memcpy(body + off, &w, sizeof(w));
			off += sizeof(w);
		}
		nsge += ns;
	}
	for (i = 0; i < nsge && i < 8; i++) {
		sge[i].addr = rn(e, 2) ? (uintptr_t)e->buf + rn(e, 4096) : r64(e);
		sge[i].length = rn(e, 2) ? 64 : r32(e);
		sge[i].lkey = rn(e, 2) ? e->mr->lkey :
			      rn(e, 2) ? e->mr2->lkey : r32(e);
		memcpy(body + off, &sge[i], sizeof(sge[i]));
		off += sizeof(sge[i]);
	}
	if (kind == 0) {
		memset(&ps, 0, sizeof(ps));
		ps.response = (uintptr_t)&resp;
		ps.qp_handle = handle;
		ps.wr_count = nwr;
		ps.sge_count = nsge;
		ps.wqe_size = sizeof(struct ib_uverbs_send_wr);
		memcpy(body, &ps, sizeof(ps));
		return raw_cmd(e->d.ctx->cmd_fd, IB_USER_VERBS_CMD_POST_SEND,
			       body, off);
	}
	memset(&pr, 0, sizeof(pr));
	pr.response = (uintptr_t)&resp;
	pr.qp_handle = handle;	/* srq_handle sits at the same offset */
	pr.wr_count = nwr;
	pr.sge_count = nsge;
	pr.wqe_size = sizeof(struct ib_uverbs_recv_wr);
	memcpy(body, &pr, sizeof(pr));
	return raw_cmd(e->d.ctx->cmd_fd,
		       kind == 1 ? IB_USER_VERBS_CMD_POST_RECV :
				   IB_USER_VERBS_CMD_POST_SRQ_RECV,
		       body, off);
}

static int doorbell(struct env *e, int i)
{
	int ret;

	if (!e->qp[i])
		return 0;
	ret = vt_cmd_post_send_db(e->qp[i]);
	e->db_err[ret == 0 ? 0 : ret == EINVAL ? 1 : 2]++;
	return ret;
}

/* ------------------------------------------------------------ set-up */

static uint32_t learn_ah_num(struct env *e, struct ibv_pd *pd,
			     struct ibv_ah *ah)
{
	struct vt_snap *s = malloc(sizeof(*s));
	struct vt_map m[4];
	struct ibv_qp *qp;
	struct ring sq = { 0 };
	uint64_t payload = 0;
	struct ibv_sge sge = { .addr = (uintptr_t)&payload, .length = 8 };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_INLINE,
	}, *bad;
	uint32_t num = 0;
	int n, k;

	if (!s)
		return 0;
	vt_snap_take(s);
	/* A UD QP left in RESET: librxe still writes the WQE. */
	qp = vt_create_qp(&e->d, pd, IBV_QPT_UD, e->cq, e->cq, NULL, 4, 1, 1);
	if (!qp)
		goto out;
	n = new_maps(s, m);
	for (k = 0; k < n; k++)
		if (vt_map_is_sq(&m[k]))
			ring_attach(e, &sq, &m[k]);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 1;
	wr.wr.ud.remote_qkey = 1;
	ibv_post_send(qp, &wr, &bad);
	if (sq.valid) {
		struct rxe_send_wqe *w = ring_slot(&sq, 0);

		num = w->wr.wr.ud.ah_num;
		ring_detach(&sq);
	}
	ibv_destroy_qp(qp);
out:
	free(s);
	return num;
}

static struct ibv_ah *mk_ah(struct env *e, struct ibv_pd *pd)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = e->d.gid,
			 .sgid_index = (uint8_t)e->d.gid_index,
			 .hop_limit = 64 },
	};

	return ibv_create_ah(pd, &aa);
}

/*
 * QPs: 0 RC in RTS (to itself), 1 UC in RTS, 2 UD in RTS, 3 RC on the SRQ
 * in RTS, 4 RC in INIT, 5 UD in RESET.
 */
static int env_setup(struct env *e, const char *dev, uint64_t seed)
{
	static const enum ibv_qp_type types[NQP] = {
		IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_RC, IBV_QPT_RC,
		IBV_QPT_UD,
	};
	struct ibv_srq_init_attr sia = {
		.attr = { .max_wr = 32, .max_sge = 2 },
	};
	struct vt_snap *s = malloc(sizeof(*s));
	struct vt_map m[4];
	struct ibv_device **list;
	int i, n, ret;

	memset(e, 0, sizeof(*e));
	e->rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	if (!s || vt_open(dev, -1, &e->d))
		return -1;
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]),
			    ibv_get_device_name(e->d.ctx->device)))
			e->ctx2 = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	e->buf = vt_alloc(BUFSZ);
	e->pd = ibv_alloc_pd(e->d.ctx);
	e->pd2 = ibv_alloc_pd(e->d.ctx);
	e->pd3 = e->ctx2 ? ibv_alloc_pd(e->ctx2) : NULL;
	if (!e->pd || !e->pd2 || !e->pd3)
		goto fail;
	e->mr = ibv_reg_mr(e->pd, e->buf, BUFSZ,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
			   IBV_ACCESS_MW_BIND);
	e->mr2 = ibv_reg_mr(e->pd2, e->buf, BUFSZ,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	e->mr3 = ibv_reg_mr(e->pd3, e->buf, BUFSZ, IBV_ACCESS_LOCAL_WRITE);
	if (!e->mr || !e->mr2 || !e->mr3)
		goto fail;

	vt_snap_take(s);
	e->cq = ibv_create_cq(e->d.ctx, 64, NULL, NULL, 0);
	if (!e->cq || new_maps(s, m) != 1)
		goto fail;
	ring_attach(e, &e->cqr, &m[0]);
	vt_snap_take(s);
	e->cq2 = ibv_create_cq(e->d.ctx, 8, NULL, NULL, 0);
	if (!e->cq2 || new_maps(s, m) != 1)
		goto fail;
	ring_attach(e, &e->cq2r, &m[0]);
	vt_snap_take(s);
	e->srq = ibv_create_srq(e->pd, &sia);
	if (!e->srq || new_maps(s, m) != 1)
		goto fail;
	ring_attach(e, &e->srqr, &m[0]);

	for (i = 0; i < NQP; i++) {
		vt_snap_take(s);
		e->qp[i] = vt_create_qp(&e->d, e->pd, types[i], e->cq,
					i == 3 || i == 4 ? e->cq2 : e->cq,
					i == 3 ? e->srq : NULL, 16, 2, 1);
		if (!e->qp[i])
			goto fail;
		n = new_maps(s, m);
		attach_qp_rings(e, i, m, n);
		if (i < 4)
			ret = vt_qp_to_rts(&e->d, e->qp[i], e->qp[i]->qp_num);
		else if (i == 4)
			ret = vt_qp_init(&e->d, e->qp[i]);
		else
			ret = 0;
		if (ret)
			goto fail;
	}
	e->ah = mk_ah(e, e->pd);
	e->ah2 = mk_ah(e, e->pd2);
	if (!e->ah || !e->ah2)
		goto fail;
	e->ah_num = learn_ah_num(e, e->pd, e->ah);
	e->ah2_num = learn_ah_num(e, e->pd2, e->ah2);
	e->mw1 = ibv_alloc_mw(e->pd, IBV_MW_TYPE_1);
	e->mw2 = ibv_alloc_mw(e->pd, IBV_MW_TYPE_2);
	if (!e->mw1 || !e->mw2)
		goto fail;
	free(s);
	return 0;
fail:
	vt_failf("hostile.setup", "%s", vt_errname(errno));
	free(s);
	return -1;
}

/* Destroy everything; returns how many destroy verbs failed. */
static int env_teardown(struct env *e, const char *who)
{
	int i, bad = 0, r;

#define D1(call, what) do { \
	r = vt_rc(call); \
	if (r) { \
		char n_[96]; \
		snprintf(n_, sizeof(n_), "%s.destroy", who); \
		vt_failf(n_, "%s: %s", what, vt_errname(r)); \
		bad++; \
	} \
} while (0)
	for (i = 0; i < NQP; i++) {
		ring_detach(&e->sq[i]);
		ring_detach(&e->rq[i]);
	}
	ring_detach(&e->cqr);
	ring_detach(&e->cq2r);
	ring_detach(&e->srqr);
	if (e->mw1)
		D1(ibv_dealloc_mw(e->mw1), "mw type 1");
	if (e->mw2)
		D1(ibv_dealloc_mw(e->mw2), "mw type 2");
	for (i = 0; i < NQP; i++)
		if (e->qp[i])
			D1(ibv_destroy_qp(e->qp[i]), "qp");
	if (e->srq)
		D1(ibv_destroy_srq(e->srq), "srq");
	if (e->cq)
		D1(ibv_destroy_cq(e->cq), "cq");
	if (e->cq2)
		D1(ibv_destroy_cq(e->cq2), "cq2");
	if (e->ah)
		D1(ibv_destroy_ah(e->ah), "ah");
	if (e->ah2)
		D1(ibv_destroy_ah(e->ah2), "ah2");
	if (e->mr)
		D1(ibv_dereg_mr(e->mr), "mr");
	if (e->mr2)
		D1(ibv_dereg_mr(e->mr2), "mr2");
	if (e->mr3)
		D1(ibv_dereg_mr(e->mr3), "mr3");
	if (e->pd)
		D1(ibv_dealloc_pd(e->pd), "pd");
	if (e->pd2)
		D1(ibv_dealloc_pd(e->pd2), "pd2");
	if (e->pd3)
		D1(ibv_dealloc_pd(e->pd3), "pd3");
	if (e->ctx2)
		D1(ibv_close_device(e->ctx2), "second context");
	vt_close(&e->d);
#undef D1
	return bad;
}

/* --------------------------------------------------------- WQE builders */

static uint32_t pick_lkey(struct env *e)
{
	switch (rn(e, 6)) {
	case 0:
		return e->mr->lkey;
	case 1:
		return e->mr2->lkey;	/* other PD */
	case 2:
		return e->mr3->lkey;	/* other context */
	case 3:
		return 0;
	case 4:
		return e->mw2->rkey;	/* a window is not an lkey */
	default:
		return r32(e);
	}
}

static uint32_t pick_rkey(struct env *e)
{
	switch (rn(e, 5)) {
	case 0:
		return e->mr->rkey;
	case 1:
		return e->mw1->rkey;
	case 2:
		return e->mw2->rkey;
	case 3:
		return e->mr2->rkey;
	default:
		return r32(e);
	}
}

static void fill_sges(struct env *e, struct rxe_sge *sg, uint32_t n,
		      uint32_t *total)
{
	uint32_t i, sum = 0;
	uint64_t base = (uintptr_t)e->buf;

	for (i = 0; i < n; i++) {
		switch (rn(e, 6)) {
		case 0:	/* all the same range: overlapping SGEs */
			sg[i].addr = base;
			sg[i].length = 4096;
			sg[i].lkey = e->mr->lkey;
			break;
		case 1:	/* past the end of the MR */
			sg[i].addr = base + BUFSZ - 8;
			sg[i].length = 4096;
			sg[i].lkey = e->mr->lkey;
			break;
		case 2:	/* wrapping address */
			sg[i].addr = ~0ULL - 16;
			sg[i].length = 4096;
			sg[i].lkey = pick_lkey(e);
			break;
		case 3:
			sg[i].addr = r64(e);
			sg[i].length = r32(e);
			sg[i].lkey = pick_lkey(e);
			break;
		default:
			sg[i].addr = base + rn(e, BUFSZ / 2);
			sg[i].length = nasty32(e, 64);
			sg[i].lkey = pick_lkey(e);
			break;
		}
		sum += sg[i].length;
	}
	*total = sum;
}

/* Build a random send WQE in @w (a slot of @size bytes). */
static void gen_send_wqe(struct env *e, struct rxe_send_wqe *w, size_t size,
			 bool ud)
{
	uint32_t fit = (uint32_t)((size - sizeof(*w)) / sizeof(struct rxe_sge));
	uint32_t n, total = 0;
	int kind = (int)rn(e, 14);

	if (kind == 0) {
		rfill(e, w, size);
		return;
	}
	memset(w, 0, size);
	w->wr.wr_id = MARK | e->wr_id++;
	w->wr.send_flags = rn(e, 4) ? IBV_SEND_SIGNALED : r32(e);
	n = rn(e, 3) ? rn(e, fit + 1) : nasty32(e, fit);
	switch (kind) {
	case 1:
	case 2:
		w->wr.opcode = kind == 1 ? OP_SEND : (rn(e, 2) ? OP_SEND_IMM :
						      OP_SEND_INV);
		w->wr.ex.imm_data = r32(e);
		break;
	case 3:
		w->wr.opcode = rn(e, 3) ? OP_RDMA_WRITE :
			       rn(e, 2) ? OP_RDMA_READ : OP_RDMA_WRITE_IMM;
		w->wr.wr.rdma.remote_addr = rn(e, 2) ? (uintptr_t)e->buf :
						       r64(e);
		w->wr.wr.rdma.rkey = pick_rkey(e);
		w->iova = w->wr.wr.rdma.remote_addr;
		break;
	case 4:
		w->wr.opcode = rn(e, 2) ? OP_CMP_SWP : OP_FETCH_ADD;
		w->wr.wr.atomic.remote_addr = (uintptr_t)e->buf + rn(e, 64);
		w->wr.wr.atomic.rkey = pick_rkey(e);
		w->iova = w->wr.wr.atomic.remote_addr;
		break;
	case 5:
		w->wr.opcode = OP_BIND_MW;
		w->wr.wr.mw.mw_rkey = rn(e, 2) ? e->mw2->rkey : pick_rkey(e);
		w->wr.wr.mw.rkey = rn(e, 2) ? ibv_inc_rkey(w->wr.wr.mw.mw_rkey) :
					      r32(e);
		w->wr.wr.mw.mr_lkey = pick_lkey(e);
		w->wr.wr.mw.addr = rn(e, 2) ? (uintptr_t)e->buf : r64(e);
		w->wr.wr.mw.length = rn(e, 2) ? 4096 : r64(e);
		w->wr.wr.mw.access = rn(e, 2) ? IBV_ACCESS_REMOTE_READ : r32(e);
		n = rn(e, 4) ? 0 : n;
		break;
	case 6:
		w->wr.opcode = OP_LOCAL_INV;
		w->wr.ex.invalidate_rkey = pick_rkey(e);
		n = rn(e, 4) ? 0 : n;
		break;
	case 7:
		/* Kernel-only opcodes; the union looks like a kernel pointer. */
		w->wr.opcode = rn(e, 2) ? OP_REG_MR : OP_REG_MR_INTEGRITY;
		{
			uint64_t kp = 0xffff888000000000ULL | (r64(e) & 0xfffffff8);

			memcpy(&w->wr.wr, &kp, sizeof(kp));
			kp = r64(e);
			memcpy((uint8_t *)&w->wr.wr + 8, &kp, sizeof(kp));
		}
		break;
	case 8:
		w->wr.opcode = r32(e);
		rfill(e, &w->wr.wr, sizeof(w->wr.wr));
		break;
	case 9:
		w->wr.opcode = rn(e, 2) ? OP_SEND : OP_RDMA_WRITE;
		w->wr.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
		w->wr.wr.rdma.rkey = pick_rkey(e);
		w->dma.length = nasty32(e, (uint32_t)(size - sizeof(*w)));
		w->dma.resid = rn(e, 2) ? w->dma.length : r32(e);
		w->dma.num_sge = rn(e, 2) ? 0 : r32(e);
		rfill(e, w->dma.inline_data,
		      size - sizeof(*w) < 64 ? size - sizeof(*w) : 64);
		return;
	case 10:
		w->wr.opcode = rn(e, 2) ? OP_SEND : OP_SEND_IMM;
		switch (rn(e, 5)) {
		case 0:
			w->wr.wr.ud.ah_num = e->ah_num;
			break;
		case 1:
			w->wr.wr.ud.ah_num = e->ah2_num;	/* other PD */
			break;
		case 2:
			w->wr.wr.ud.ah_num = 0;
			break;
		case 3:
			w->wr.wr.ud.ah_num = e->ah_num + 1 + rn(e, 4);
			break;
		default:
			w->wr.wr.ud.ah_num = r32(e);
			break;
		}
		w->wr.wr.ud.remote_qpn = r32(e);
		w->wr.wr.ud.remote_qkey = r32(e);
		w->wr.wr.ud.pkey_index = (uint16_t)r32(e);
		rfill(e, &w->wr.wr.ud.av, sizeof(w->wr.wr.ud.av));
		break;
	case 11:
		w->wr.opcode = rn(e, 2) ? OP_ATOMIC_WRITE :
			       rn(e, 2) ? OP_FLUSH :
			       rn(e, 2) ? OP_MASKED_CMP_SWP : OP_MASKED_FETCH_ADD;
		w->wr.wr.atomic.remote_addr = r64(e);
		w->wr.wr.atomic.rkey = pick_rkey(e);
		break;
	case 12:
		w->wr.opcode = rn(e, 2) ? OP_TSO : OP_DRIVER1;
		rfill(e, &w->wr.wr, sizeof(w->wr.wr));
		break;
	default:
		/* A sane send whose DMA bookkeeping is garbage. */
		w->wr.opcode = OP_SEND;
		n = n > fit ? fit : n;
		break;
	}
	if (ud && kind != 10 && rn(e, 2))
		w->wr.wr.ud.ah_num = rn(e, 2) ? e->ah_num : r32(e);
	fill_sges(e, w->dma.sge, n < fit ? n : fit, &total);
	w->dma.num_sge = n;
	w->dma.length = rn(e, 4) ? total : r32(e);
	w->dma.resid = rn(e, 4) ? w->dma.length : r32(e);
	w->dma.cur_sge = rn(e, 4) ? 0 : r32(e);
	w->dma.sge_offset = rn(e, 4) ? 0 : r32(e);
	w->status = rn(e, 4) ? 0 : r32(e);
	w->state = rn(e, 4) ? 0 : r32(e);
	w->ssn = r32(e);
	if (!rn(e, 8))
		rfill(e, &w->mask, 24);
}

static void gen_recv_wqe(struct env *e, struct rxe_recv_wqe *w, size_t size)
{
	uint32_t fit = (uint32_t)((size - sizeof(*w)) / sizeof(struct rxe_sge));
	uint32_t n, total = 0;

	if (!rn(e, 8)) {
		rfill(e, w, size);
		return;
	}
	memset(w, 0, size);
	w->wr_id = MARK | e->wr_id++;
	n = rn(e, 3) ? rn(e, fit + 1) : nasty32(e, fit);
	fill_sges(e, w->dma.sge, n < fit ? n : fit, &total);
	w->dma.num_sge = n;
	w->dma.length = rn(e, 4) ? total : r32(e);
	w->dma.resid = rn(e, 4) ? w->dma.length : r32(e);
	w->dma.cur_sge = rn(e, 4) ? 0 : r32(e);
	w->dma.sge_offset = rn(e, 4) ? 0 : r32(e);
}

/* Write @k WQEs at the producer index and publish (maybe garbage) index. */
static void put_wqes(struct env *e, struct ring *r, int k, int type,
		     bool garbage_index)
{
	if (!r->valid)
		return;
	GUARDED({
		uint32_t p = r->q->producer_index;
		int j;

		for (j = 0; j < k; j++) {
			void *slot = ring_slot(r, p + (uint32_t)j);

			if (type == 0)
				gen_send_wqe(e, slot, ring_elem(r), false);
			else if (type == 1)
				gen_send_wqe(e, slot, ring_elem(r), true);
			else
				gen_recv_wqe(e, slot, ring_elem(r));
		}
		__atomic_store_n(&r->q->producer_index,
				 garbage_index ? nasty32(e, p + (uint32_t)k) :
						 (p + (uint32_t)k) & r->mask,
				 __ATOMIC_RELEASE);
	});
}

static void scribble_header(struct env *e, struct ring *r)
{
	if (!r->valid)
		return;
	GUARDED({
		switch (rn(e, 5)) {
		case 0:
			r->q->log2_elem_size = nasty32(e, r->log2);
			break;
		case 1:
			r->q->index_mask = nasty32(e, r->mask);
			break;
		case 2:
			r->q->producer_index = nasty32(e, r->q->producer_index);
			break;
		case 3:
			r->q->consumer_index = nasty32(e, r->q->consumer_index);
			break;
		default:
			rfill(e, r->q, 384);
			break;
		}
	});
}

static void scribble_all_slots(struct env *e, struct ring *r)
{
	if (!r->valid)
		return;
	GUARDED(rfill(e, r->q->data, (size_t)(r->mask + 1) << r->log2));
}

/* --------------------------------------------------------- kernel entries */

static struct ring *any_ring(struct env *e)
{
	uint32_t i = rn(e, 2 * NQP + 3);

	if (i < NQP)
		return &e->sq[i];
	if (i < 2 * NQP)
		return &e->rq[i - NQP];
	return i == 2 * NQP ? &e->cqr : i == 2 * NQP + 1 ? &e->cq2r : &e->srqr;
}

/* After librxe remapped a CQ/SRQ ring (resize), map the new one too. */
static void resize_cq(struct env *e, struct ibv_cq *cq, struct ring *r)
{
	static const int sizes[] = { 1, 2, 4, 8, 63, 64, 65, 4096, 0, -1,
				     0x7fffffff };
	struct vt_snap *s = malloc(sizeof(*s));
	struct vt_map m[4];
	int n;

	if (!s)
		return;
	vt_snap_take(s);
	if (ibv_resize_cq(cq, sizes[rn(e, VT_ARRAY_SIZE(sizes))]) == 0) {
		n = new_maps(s, m);
		if (n == 1) {
			ring_detach(r);
			ring_attach(e, r, &m[0]);
		}
	}
	free(s);
}

static void modify_srq(struct env *e, bool allow_resize)
{
	struct ibv_srq_attr a = {
		.max_wr = nasty32(e, 32),
		.srq_limit = nasty32(e, 4),
	};
	int mask = IBV_SRQ_LIMIT;
	struct vt_snap *s;
	struct vt_map m[4];

	if (allow_resize && rn(e, 2) &&
	    (e->d.attr.device_cap_flags & IBV_DEVICE_SRQ_RESIZE))
		mask |= IBV_SRQ_MAX_WR;
	if (!(mask & IBV_SRQ_MAX_WR)) {
		ibv_modify_srq(e->srq, &a, mask);
		return;
	}
	s = malloc(sizeof(*s));
	if (!s)
		return;
	vt_snap_take(s);
	if (ibv_modify_srq(e->srq, &a, mask) == 0 && new_maps(s, m) == 1) {
		ring_detach(&e->srqr);
		ring_attach(e, &e->srqr, &m[0]);
	}
	free(s);
}

static void fuzz_modify_qp(struct env *e, int i)
{
	struct ibv_qp_attr a;
	int mask;

	switch (rn(e, 4)) {
	case 0:
		vt_qp_set_state(e->qp[i], IBV_QPS_ERR);
		return;
	case 1:
		vt_qp_set_state(e->qp[i], IBV_QPS_RESET);
		if (rn(e, 2))
			vt_qp_to_rts(&e->d, e->qp[i], e->qp[i]->qp_num);
		return;
	default:
		rfill(e, &a, sizeof(a));
		a.qp_state = (enum ibv_qp_state)rn(e, 8);
		a.ah_attr.port_num = (uint8_t)(rn(e, 4) ? 1 : r32(e));
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.sgid_index = (uint8_t)(rn(e, 2) ? (uint32_t)e->d.gid_index :
						     r32(e));
		if (rn(e, 2))
			a.ah_attr.grh.dgid = e->d.gid;
		a.port_num = (uint8_t)(rn(e, 4) ? 1 : r32(e));
		mask = (int)(r32(e) & 0x1fffff);
		/* Rate limit (bit 25) and beyond are not for this device. */
		ibv_modify_qp(e->qp[i], &a, mask | IBV_QP_STATE);
		return;
	}
}

static void poll_tally(struct env *e, struct ibv_cq *cq, struct ring *r)
{
	struct ibv_wc wc[32];
	int n, k;

	ring_sanitize(r);
	n = ibv_poll_cq(cq, 32, wc);
	for (k = 0; k < n; k++)
		e->hist[wc[k].status < 31 ? wc[k].status : 31]++;
}

/* librxe posting a well-formed WQE on a sanitised SQ: the normal path. */
static void post_valid(struct env *e, int i)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf, .length = 64,
			       .lkey = e->mr->lkey };

	if (!e->sq[i].valid)
		return;
	ring_sanitize(&e->sq[i]);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = MARK | e->wr_id++;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (e->qp[i]->qp_type == IBV_QPT_UD) {
		wr.opcode = IBV_WR_SEND;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.wr.ud.ah = e->ah;
		wr.wr.ud.remote_qpn = e->qp[2]->qp_num;
		wr.wr.ud.remote_qkey = 0x11111111;
	} else if (rn(e, 2)) {
		wr.opcode = IBV_WR_BIND_MW;
		wr.bind_mw.mw = e->mw2;
		wr.bind_mw.rkey = ibv_inc_rkey(e->mw2->rkey);
		wr.bind_mw.bind_info.mr = e->mr;
		wr.bind_mw.bind_info.addr = (uintptr_t)e->buf;
		wr.bind_mw.bind_info.length = 4096;
		wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	} else {
		wr.opcode = IBV_WR_LOCAL_INV;
		wr.invalidate_rkey = e->mw2->rkey;
	}
	ibv_post_send(e->qp[i], &wr, &bad);
}

static void poke(struct env *e, bool scribbling)
{
	int i = (int)rn(e, NQP);

	switch (rn(e, 12)) {
	case 0:
	case 1:
	case 2:
		doorbell(e, i);
		break;
	case 3:
		ibv_req_notify_cq(rn(e, 2) ? e->cq : e->cq2, (int)rn(e, 2));
		break;
	case 4:
		fuzz_modify_qp(e, i);
		break;
	case 5:
		if (!scribbling) {
			if (rn(e, 2))
				resize_cq(e, e->cq, &e->cqr);
			else
				resize_cq(e, e->cq2, &e->cq2r);
		}
		break;
	case 6:
		modify_srq(e, !scribbling);
		break;
	case 7:
		if (!scribbling) {
			poll_tally(e, e->cq, &e->cqr);
			poll_tally(e, e->cq2, &e->cq2r);
		}
		break;
	case 8:
		{
			int kind = (int)rn(e, 3);

			raw_post(e, kind,
				 kind == 2 ? e->srq->handle : e->qp[i]->handle,
				 e->qp[i]->qp_type == IBV_QPT_UD,
				 rn(e, 4) ? e->ah->handle : r32(e));
		}
		break;
	case 9:
		if (!scribbling)
			post_valid(e, i);
		break;
	case 10:
		vt_qp_state(e->qp[i]);
		break;
	default:
		{
			struct ibv_srq_attr sa;

			ibv_query_srq(e->srq, &sa);
		}
		break;
	}
}

/* ---------------------------------------------------------------- attacks */

struct scribbler {
	struct env *e;
	volatile int stop;
	uint64_t rng;
};

static void *scribble_thread(void *arg)
{
	struct scribbler *s = arg;
	struct env *e = s->e;
	volatile uint64_t n = 0;

	while (!s->stop) {
		struct ring *volatile r;
		uint64_t x = vt_rand(&s->rng);
		uint32_t i = (uint32_t)(x % (2 * NQP + 3));

		r = i < NQP ? &e->sq[i] : i < 2 * NQP ? &e->rq[i - NQP] :
		    i == 2 * NQP ? &e->cqr : i == 2 * NQP + 1 ? &e->cq2r :
		    &e->srqr;
		if (!r->valid)
			continue;
		GUARDED({
			volatile uint32_t *w = (volatile uint32_t *)r->q;
			size_t words = r->len / 4;
			size_t at = (size_t)(x >> 16) % words;

			/* Mostly the header words, sometimes the slots. */
			if (x & 1)
				at = (x >> 8) & 1 ? 32 : 64;
			else if (x & 2)
				at = (x >> 8) % 2;
			w[at] = (uint32_t)vt_rand(&s->rng);
		});
		if (!(++n & 255))
			sched_yield();
	}
	return NULL;
}

static void atk_scribbler(struct env *e)
{
	struct scribbler s = { .e = e, .stop = 0, .rng = r64(e) | 1 };
	pthread_t th;
	uint64_t end = vt_now_ms() + 150 + rn(e, 250);

	if (pthread_create(&th, NULL, scribble_thread, &s))
		return;
	while (vt_now_ms() < end)
		poke(e, true);
	s.stop = 1;
	pthread_join(th, NULL);
}

static void attack(struct env *e)
{
	int i = (int)rn(e, NQP);

	switch (rn(e, 11)) {
	case 0:
	case 1:
	case 2:
		put_wqes(e, &e->sq[i], 1 + (int)rn(e, 8),
			 e->qp[i]->qp_type == IBV_QPT_UD, !rn(e, 4));
		doorbell(e, i);
		break;
	case 3:
		put_wqes(e, &e->rq[i], 1 + (int)rn(e, 8), 2, !rn(e, 4));
		if (rn(e, 2))
			vt_qp_set_state(e->qp[i], IBV_QPS_ERR);
		break;
	case 4:
		put_wqes(e, &e->srqr, 1 + (int)rn(e, 16), 2, !rn(e, 4));
		if (rn(e, 2))
			vt_qp_set_state(e->qp[3], IBV_QPS_ERR);
		else
			modify_srq(e, true);
		break;
	case 5:
		scribble_header(e, any_ring(e));
		break;
	case 6:
		scribble_all_slots(e, any_ring(e));
		break;
	case 7:
		atk_scribbler(e);
		break;
	case 8:
		/* Overflow a CQ: receives flushed into the 8-entry CQ. */
		vt_qp_set_state(e->qp[4], IBV_QPS_RESET);
		vt_qp_init(&e->d, e->qp[4]);
		ring_sanitize(&e->rq[4]);
		{
			struct ibv_sge sge = { .addr = (uintptr_t)e->buf,
					       .length = 64,
					       .lkey = e->mr->lkey };
			struct ibv_recv_wr wr = { .sg_list = &sge,
						  .num_sge = 1 }, *bad;
			int k;

			for (k = 0; k < 16; k++) {
				wr.wr_id = MARK | e->wr_id++;
				if (ibv_post_recv(e->qp[4], &wr, &bad))
					break;
			}
		}
		vt_qp_set_state(e->qp[4], IBV_QPS_ERR);
		break;
	case 9:
		{
			/* mmap games on the uverbs file. */
			struct ring *r = any_ring(e);
			void *p;
			off_t off;

			if (!r->valid)
				break;
			p = mmap(NULL, r->len + 4096 * (1 + rn(e, 4)),
				 PROT_READ | PROT_WRITE, MAP_SHARED,
				 e->d.ctx->cmd_fd, (off_t)r->off);
			if (p != MAP_FAILED)
				munmap(p, r->len + 4096);
			off = rn(e, 2) ? (off_t)((r64(e) & 0xffffff) << 12) :
					 (off_t)(r->off + 4096);
			p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
				 e->d.ctx->cmd_fd, off);
			if (p != MAP_FAILED)
				munmap(p, 4096);
			p = mmap(NULL, r->len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE, e->d.ctx->cmd_fd, (off_t)r->off);
			if (p != MAP_FAILED) {
				GUARDED(memset(p, 0xa5, 64));
				munmap(p, r->len);
			}
			if (r->own) {
				p = mremap(r->q, r->len, r->len + 4096, 0);
				if (p != MAP_FAILED)
					r->len += 4096;
			}
		}
		break;
	default:
		poke(e, false);
		break;
	}
	if (rn(e, 2))
		poke(e, false);
}

/* ---------------------------------------------------------------- health */

/*
 * The device still works for this process: on a fresh QP and CQ a type 2
 * bind and its LOCAL_INV complete successfully.
 */
static bool health(struct env *e, const char **why)
{
	struct ibv_cq *cq = ibv_create_cq(e->d.ctx, 8, NULL, NULL, 0);
	struct ibv_qp *qp = cq ? vt_rc_rts(&e->d, e->pd, cq) : NULL;
	struct ibv_mw *mw = ibv_alloc_mw(e->pd, IBV_MW_TYPE_2);
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	bool ok = false;
	uint32_t k;

	*why = "set-up failed";
	if (!qp || !mw)
		goto out;
	memset(&wr, 0, sizeof(wr));
	k = ibv_inc_rkey(mw->rkey);
	wr.opcode = IBV_WR_BIND_MW;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = k;
	wr.bind_mw.bind_info.mr = e->mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)e->buf;
	wr.bind_mw.bind_info.length = 4096;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	if (vt_post_wait(qp, cq, &wr, &wc, WAIT_MS) != 1 ||
	    wc.status != IBV_WC_SUCCESS) {
		*why = "bind did not complete successfully";
		goto out;
	}
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.invalidate_rkey = k;
	if (vt_post_wait(qp, cq, &wr, &wc, WAIT_MS) != 1 ||
	    wc.status != IBV_WC_SUCCESS) {
		*why = "local invalidate did not complete successfully";
		goto out;
	}
	ok = true;
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (mw)
		ibv_dealloc_mw(mw);
	if (cq)
		ibv_destroy_cq(cq);
	return ok;
}

/* -------------------------------------------------------------- targeted */

struct outcome {
	int db;			/* doorbell errno */
	int n;			/* completions seen (ours) */
	int success;		/* ... with IBV_WC_SUCCESS */
	char statuses[160];
};

static void collect(struct env *e, struct ibv_cq *cq, struct ring *r,
		    struct outcome *o, int ms)
{
	uint64_t end = vt_now_ms() + (uint64_t)ms;
	struct ibv_wc wc[16];
	size_t l = strlen(o->statuses);
	int n, k;

	do {
		ring_sanitize(r);
		n = ibv_poll_cq(cq, 16, wc);
		for (k = 0; k < n; k++) {
			o->n++;
			if (wc[k].status == IBV_WC_SUCCESS)
				o->success++;
			if (l < sizeof(o->statuses) - 24)
				l += (size_t)snprintf(o->statuses + l,
						      sizeof(o->statuses) - l,
						      "%s%s", l ? "," : "",
						      vt_wcname(wc[k].status));
		}
		if (n <= 0)
			usleep(5000);
	} while (vt_now_ms() < end);
	(void)e;
}

/* librxe posts @n receives on QP @qi after its RQ is made sane again. */
static void post_recvs_sane(struct env *e, int qi, int n)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf, .length = 64,
			       .lkey = e->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int k;

	ring_sanitize(&e->rq[qi]);
	for (k = 0; k < n; k++) {
		wr.wr_id = MARK | e->wr_id++;
		if (ibv_post_recv(e->qp[qi], &wr, &bad))
			break;
	}
}

typedef void (*sq_builder)(struct env *e, struct rxe_send_wqe *w, size_t size);

static void b_num_sge_huge(struct env *e, struct rxe_send_wqe *w, size_t size)
{
	uint32_t t;

	memset(w, 0, size);
	w->wr.wr_id = MARK | 1;
	w->wr.opcode = OP_SEND;
	w->wr.send_flags = IBV_SEND_SIGNALED;
	fill_sges(e, w->dma.sge, 1, &t);
	w->dma.sge[0].addr = (uintptr_t)e->buf;
	w->dma.sge[0].length = 64;
	w->dma.sge[0].lkey = e->mr->lkey;
	w->dma.num_sge = 0xffffffff;
	w->dma.length = w->dma.resid = 64;
}

static void b_num_sge_over_slot(struct env *e, struct rxe_send_wqe *w,
				size_t size)
{
	b_num_sge_huge(e, w, size);
	w->dma.num_sge = (uint32_t)((size - sizeof(*w)) / sizeof(struct rxe_sge)) + 1;
}

static void b_overlap(struct env *e, struct rxe_send_wqe *w, size_t size)
{
	uint32_t i, fit = (uint32_t)((size - sizeof(*w)) / sizeof(struct rxe_sge));

	b_num_sge_huge(e, w, size);
	fit = fit > 4 ? 4 : fit;
	for (i = 0; i < fit; i++) {
		w->dma.sge[i].addr = (uintptr_t)e->buf;
		w->dma.sge[i].length = 4096;
		w->dma.sge[i].lkey = e->mr->lkey;
	}
	w->dma.num_sge = fit;
	w->dma.length = w->dma.resid = 4096 * fit;
}

static void b_foreign_lkey(struct env *e, struct rxe_send_wqe *w, size_t size)
{
	b_num_sge_huge(e, w, size);
	w->dma.num_sge = 1;
	w->dma.sge[0].lkey = e->mr2->lkey;
}

static void b_other_context_lkey(struct env *e, struct rxe_send_wqe *w,
				 size_t size)
{
	b_num_sge_huge(e, w, size);
	w->dma.num_sge = 1;
	w->dma.sge[0].lkey = e->mr3->lkey;
}

static void b_reg_mr(struct env *e, struct rxe_send_wqe *w, size_t size)
{
	uint64_t kp = 0xffff888000001000ULL;

	memset(w, 0, size);
	w->wr.wr_id = MARK | 1;
	w->wr.opcode = OP_REG_MR;
	w->wr.send_flags = IBV_SEND_SIGNALED;
	memcpy(&w->wr.wr, &kp, sizeof(kp));
	kp = ((uint64_t)IBV_ACCESS_REMOTE_WRITE << 32) | e->mr->lkey;
	memcpy((uint8_t *)&w->wr.wr + 8, &kp, sizeof(kp));
}

static void b_bind_foreign_mr(struct env *e, struct rxe_send_wqe *w,
			      size_t size)
{
	memset(w, 0, size);
	w->wr.wr_id = MARK | 1;
	w->wr.opcode = OP_BIND_MW;
	w->wr.send_flags = IBV_SEND_SIGNALED;
	w->wr.wr.mw.mw_rkey = e->mw2->rkey;
	w->wr.wr.mw.rkey = ibv_inc_rkey(e->mw2->rkey);
	w->wr.wr.mw.mr_lkey = e->mr2->lkey;
	w->wr.wr.mw.addr = (uintptr_t)e->buf;
	w->wr.wr.mw.length = 4096;
	w->wr.wr.mw.access = IBV_ACCESS_REMOTE_READ;
}

static void b_bind_wrap(struct env *e, struct rxe_send_wqe *w, size_t size)
{
	b_bind_foreign_mr(e, w, size);
	w->wr.wr.mw.mr_lkey = e->mr->lkey;
	w->wr.wr.mw.addr = ~0ULL - 100;
	w->wr.wr.mw.length = 4096;
}

static void b_bind_type1_by_wqe(struct env *e, struct rxe_send_wqe *w,
				size_t size)
{
	b_bind_foreign_mr(e, w, size);
	w->wr.wr.mw.mr_lkey = e->mr->lkey;
	w->wr.wr.mw.mw_rkey = e->mw1->rkey;
	w->wr.wr.mw.rkey = ibv_inc_rkey(e->mw1->rkey);
	w->wr.wr.mw.addr = (uintptr_t)e->buf;
	w->wr.wr.mw.length = 1ULL << 40;
}

static void b_inline_huge(struct env *e, struct rxe_send_wqe *w, size_t size)
{
	memset(w, 0, size);
	(void)e;
	w->wr.wr_id = MARK | 1;
	w->wr.opcode = OP_SEND;
	w->wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	w->dma.length = w->dma.resid = 0xfffffff0;
}

static void b_dma_state(struct env *e, struct rxe_send_wqe *w, size_t size)
{
	b_num_sge_huge(e, w, size);
	w->dma.num_sge = 1;
	w->dma.cur_sge = 0x7fffffff;
	w->dma.sge_offset = 0xfffff000;
	w->dma.resid = 0xffffffff;
	w->dma.length = 0x10;
	w->state = 0xffffffff;
	w->status = 0xffffffff;
}

static void b_opcode_garbage(struct env *e, struct rxe_send_wqe *w,
			     size_t size)
{
	b_num_sge_huge(e, w, size);
	w->dma.num_sge = 1;
	w->wr.opcode = 0xdeadbeef;
}

static void b_atomic_unaligned(struct env *e, struct rxe_send_wqe *w,
			       size_t size)
{
	b_num_sge_huge(e, w, size);
	w->dma.num_sge = 1;
	w->dma.sge[0].length = 8;
	w->wr.opcode = OP_CMP_SWP;
	w->wr.wr.atomic.remote_addr = (uintptr_t)e->buf + 3;
	w->wr.wr.atomic.rkey = e->mr->rkey;
	w->iova = w->wr.wr.atomic.remote_addr;
}

static void b_ud_ah_other_pd(struct env *e, struct rxe_send_wqe *w,
			     size_t size)
{
	b_num_sge_huge(e, w, size);
	w->dma.num_sge = 1;
	w->wr.wr.ud.ah_num = e->ah2_num;
	w->wr.wr.ud.remote_qpn = 0xabc;
	w->wr.wr.ud.remote_qkey = 0x11111111;
}

static void b_ud_ah_garbage(struct env *e, struct rxe_send_wqe *w,
			    size_t size)
{
	b_ud_ah_other_pd(e, w, size);
	w->wr.wr.ud.ah_num = 0xfffffff0;
	rfill(e, &w->wr.wr.ud.av, sizeof(w->wr.wr.ud.av));
}

static const struct {
	const char *name;
	int qp;			/* index in env.qp */
	sq_builder b;
	bool must_fail;		/* a SUCCESS completion is a failure */
} sq_cases[] = {
	{ "sq.num_sge_0xffffffff", 0, b_num_sge_huge, true },
	{ "sq.num_sge_one_past_the_slot", 0, b_num_sge_over_slot, true },
	{ "sq.overlapping_sges", 0, b_overlap, false },
	{ "sq.lkey_of_other_pd", 0, b_foreign_lkey, true },
	{ "sq.lkey_of_other_context", 0, b_other_context_lkey, true },
	{ "sq.user_reg_mr_with_kernel_pointer", 0, b_reg_mr, true },
	{ "sq.bind_mr_of_other_pd", 0, b_bind_foreign_mr, true },
	{ "sq.bind_wrapping_range", 0, b_bind_wrap, true },
	{ "sq.bind_type1_window_by_wqe_1tb", 0, b_bind_type1_by_wqe, true },
	{ "sq.inline_length_4g", 0, b_inline_huge, true },
	{ "sq.dma_state_garbage", 0, b_dma_state, false },
	{ "sq.opcode_0xdeadbeef", 0, b_opcode_garbage, true },
	{ "sq.atomic_unaligned", 0, b_atomic_unaligned, true },
	{ "sq.uc_opcode_0xdeadbeef", 1, b_opcode_garbage, true },
	{ "sq.ud_ah_of_other_pd", 2, b_ud_ah_other_pd, true },
	{ "sq.ud_ah_num_garbage", 2, b_ud_ah_garbage, true },
};

static void targeted_sq(struct env *e, unsigned int c)
{
	struct ring *r = &e->sq[sq_cases[c].qp];
	struct outcome o = { 0 };
	const char *why;

	if (!r->valid) {
		vt_failf(sq_cases[c].name, "no SQ mapping");
		return;
	}
	GUARDED({
		uint32_t p = r->q->producer_index & r->mask;

		sq_cases[c].b(e, ring_slot(r, p), ring_elem(r));
		__atomic_store_n(&r->q->producer_index, (p + 1) & r->mask,
				 __ATOMIC_RELEASE);
	});
	o.db = doorbell(e, sq_cases[c].qp);
	collect(e, e->cq, &e->cqr, &o, 1000);
	if (sq_cases[c].must_fail && o.success)
		vt_failf(sq_cases[c].name,
			 "an invalid WQE completed with SUCCESS (doorbell %s, completions %s)",
			 vt_errname(o.db), o.statuses);
	else if (!health(e, &why))
		vt_failf(sq_cases[c].name, "device broken afterwards: %s", why);
	else
		vt_ok(sq_cases[c].name, "doorbell %s, completions [%s], QP %s; device fine",
		      vt_errname(o.db), o.statuses,
		      vt_qpsname(vt_qp_state(e->qp[sq_cases[c].qp])));
}

static void targeted_other(struct env *e, int c, const char **name)
{
	static const char *const names[] = {
		"sq.producer_0xdeadbeef_random_slots",
		"sq.geometry_garbage_log2_31_mask_ffffffff",
		"rq.num_sge_huge_then_flush",
		"rq.producer_garbage_then_flush",
		"srq.producer_garbage_then_resize_and_limit",
		"cq.consumer_garbage_then_flush_and_resize",
		"cq.geometry_garbage_then_flush_notify_resize",
		"cmd.post_send_with_work_requests_on_user_qp",
		"cmd.post_recv_with_work_requests_on_user_qp",
		"cmd.post_srq_recv_with_work_requests",
		"mmap.beyond_the_ring",
		"mmap.ring_outlives_its_qp",
		"modify_qp.random_attributes_x200",
		"destroy.everything_with_garbage_rings",
	};
	struct outcome o = { 0 };
	const char *why;
	char info[200] = "";
	volatile int i;
	int ret;

	*name = c < (int)VT_ARRAY_SIZE(names) ? names[c] : NULL;
	if (!*name)
		return;
	switch (c) {
	case 0:
		scribble_all_slots(e, &e->sq[0]);
		GUARDED(e->sq[0].q->producer_index = 0xdeadbeef);
		o.db = doorbell(e, 0);
		collect(e, e->cq, &e->cqr, &o, 500);
		snprintf(info, sizeof(info), "doorbell %s, %d completions",
			 vt_errname(o.db), o.n);
		break;
	case 1:
		put_wqes(e, &e->sq[0], 4, 0, false);
		GUARDED({
			e->sq[0].q->log2_elem_size = 31;
			e->sq[0].q->index_mask = 0xffffffff;
			e->sq[0].q->consumer_index = 0x7fffffff;
		});
		o.db = doorbell(e, 0);
		collect(e, e->cq, &e->cqr, &o, 500);
		snprintf(info, sizeof(info), "doorbell %s, %d completions",
			 vt_errname(o.db), o.n);
		break;
	case 2:
	case 3:
		GUARDED({
			struct ring *r = &e->rq[0];
			uint32_t p = r->q->producer_index & r->mask;
			struct rxe_recv_wqe *w = ring_slot(r, p);

			memset(w, 0, ring_elem(r));
			w->wr_id = MARK | 2;
			w->dma.num_sge = 0xffffffff;
			w->dma.sge[0].lkey = e->mr2->lkey;
			w->dma.sge[0].length = 0xffffffff;
			r->q->producer_index = c == 2 ? (p + 1) & r->mask :
							0xfffffff7;
		});
		ret = vt_qp_set_state(e->qp[0], IBV_QPS_ERR);
		collect(e, e->cq, &e->cqr, &o, 500);
		snprintf(info, sizeof(info), "to ERR %s, completions [%s]",
			 vt_errname(ret), o.statuses);
		break;
	case 4:
		put_wqes(e, &e->srqr, 8, 2, false);
		GUARDED(e->srqr.q->producer_index = 0x80000003);
		modify_srq(e, true);
		modify_srq(e, true);
		vt_qp_set_state(e->qp[3], IBV_QPS_ERR);
		snprintf(info, sizeof(info), "resize/limit/flush survived");
		break;
	case 5:
	case 6:
		post_recvs_sane(e, 0, 4);
		GUARDED({
			if (c == 5) {
				e->cqr.q->consumer_index = 0xfffffff0;
			} else {
				e->cqr.q->log2_elem_size = 30;
				e->cqr.q->index_mask = 0xffffffff;
				e->cqr.q->producer_index = 0x12345678;
			}
		});
		vt_qp_set_state(e->qp[0], IBV_QPS_ERR);
		ibv_req_notify_cq(e->cq, 0);
		for (i = 0; i < 3; i++)
			resize_cq(e, e->cq, &e->cqr);
		collect(e, e->cq, &e->cqr, &o, 300);
		snprintf(info, sizeof(info), "%d completions after resizes", o.n);
		break;
	case 7:
	case 8:
	case 9:
		for (i = 0; i < 20; i++) {
			int q = i % 3;

			ret = raw_post(e, c - 7,
				       c == 9 ? e->srq->handle : e->qp[q]->handle,
				       q == 2, e->ah->handle);
			if (i == 0)
				snprintf(info, sizeof(info), "first: %s",
					 vt_errname(ret));
		}
		collect(e, e->cq, &e->cqr, &o, 300);
		break;
	case 10:
		{
			struct ring *r = &e->sq[0];
			void *p = mmap(NULL, r->len + 4096,
				       PROT_READ | PROT_WRITE, MAP_SHARED,
				       e->d.ctx->cmd_fd, (off_t)r->off);
			void *p2 = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					MAP_SHARED, e->d.ctx->cmd_fd,
					(off_t)(r->off + r->len));
			int e1 = p == MAP_FAILED ? errno : 0;

			if (p != MAP_FAILED) {
				vt_failf(*name, "mapping %zu bytes of a %zu-byte ring succeeded",
					 r->len + 4096, r->len);
				munmap(p, r->len + 4096);
				*name = NULL;
				return;
			}
			snprintf(info, sizeof(info),
				 "oversized map refused (%s), next offset %s",
				 vt_errname(e1),
				 p2 == MAP_FAILED ? "refused" : "maps another object");
			if (p2 != MAP_FAILED)
				munmap(p2, 4096);
		}
		break;
	case 11:
		{
			struct ring keep = e->sq[1];

			/* Our mapping stays; the QP goes away. */
			e->sq[1].valid = false;
			ret = vt_rc(ibv_destroy_qp(e->qp[1]));
			e->qp[1] = NULL;
			for (i = 0; i < 50; i++) {
				keep.valid = true;
				scribble_all_slots(e, &keep);
				scribble_header(e, &keep);
			}
			ring_detach(&keep);
			snprintf(info, sizeof(info),
				 "destroy %s, %d faults writing the stale mapping",
				 vt_errname(ret), guard_hits);
		}
		break;
	case 12:
		for (i = 0; i < 200; i++)
			fuzz_modify_qp(e, (int)rn(e, NQP) % 5);
		snprintf(info, sizeof(info), "done");
		break;
	case 13:
		for (i = 0; i < 2 * NQP + 3; i++) {
			struct ring *volatile r = i < NQP ? &e->sq[i] :
					 i < 2 * NQP ? &e->rq[i - NQP] :
					 i == 2 * NQP ? &e->cqr :
					 i == 2 * NQP + 1 ? &e->cq2r : &e->srqr;

			scribble_all_slots(e, r);
			GUARDED(rfill(e, r->q, 384));
		}
		snprintf(info, sizeof(info), "see destroy lines");
		break;
	}
	if (c == 13)
		return;	/* judged by env_teardown */
	if (!health(e, &why))
		vt_failf(*name, "device broken afterwards: %s (%s)", why, info);
	else
		vt_ok(*name, "%s; device fine", info);
	*name = NULL;
}

/* Result counts of the targeted child, read by the parent. */
static int *child_counts;

static int run_targeted(const char *dev, uint64_t seed)
{
	unsigned int c;
	const char *name;
	struct env *e = malloc(sizeof(*e));
	int bad;

	if (!e)
		return 1;
	guard_install();
	for (c = 0; c < VT_ARRAY_SIZE(sq_cases); c++) {
		if (env_setup(e, dev, seed + c))
			return 1;
		targeted_sq(e, c);
		env_teardown(e, "hostile.targeted");
	}
	for (c = 0;; c++) {
		if (env_setup(e, dev, seed + 100 + c))
			return 1;
		targeted_other(e, (int)c, &name);
		if (!name && c >= 14) {
			env_teardown(e, "hostile.targeted");
			break;
		}
		bad = env_teardown(e, "hostile.targeted");
		if (name) {
			if (bad)
				vt_failf(name, "%d destroy verbs failed", bad);
			else
				vt_ok(name, "every destroy verb succeeded");
		}
	}
	if (e->remap_failed)
		vt_info("could not map rings a second time (%d): used librxe's mappings",
			e->remap_failed);
	free(e);
	child_counts[0] = vt_n_ok;
	child_counts[1] = vt_n_fail;
	return vt_n_fail ? 1 : 0;
}

/* ------------------------------------------------------------------ fuzz */

static int run_fuzz_child(const char *dev, uint64_t seed, int ms, int mode)
{
	struct env *e = malloc(sizeof(*e));
	uint64_t end;
	int n = 0, bad, k, total;
	pid_t gc;

	if (!e)
		return 2;
	guard_install();
	if (env_setup(e, dev, seed))
		return 2;
	end = vt_now_ms() + (uint64_t)ms;
	while (vt_now_ms() < end) {
		attack(e);
		n++;
	}
	for (k = 0, total = 0; k < 32; k++)
		total += e->hist[k];
	vt_info("seed %llu: %d attacks, doorbells ok %d EINVAL %d other %d, completions: success %d flush %d other %d",
		(unsigned long long)seed, n, e->db_err[0], e->db_err[1],
		e->db_err[2], e->hist[IBV_WC_SUCCESS],
		e->hist[IBV_WC_WR_FLUSH_ERR],
		total - e->hist[IBV_WC_SUCCESS] - e->hist[IBV_WC_WR_FLUSH_ERR]);
	switch (mode) {
	case 1:
		/* Exit with everything open. */
		_exit(0);
	case 2:
		/* Killed with everything open. */
		raise(SIGKILL);
		break;
	case 3:
		/* A child keeps writing on inherited mappings meanwhile. */
		gc = fork();
		if (gc == 0) {
			uint64_t stop = vt_now_ms() + 300;

			guard_install();
			while (vt_now_ms() < stop)
				for (k = 0; k < 2 * NQP + 3; k++)
					scribble_header(e, any_ring(e));
			_exit(0);
		}
		bad = env_teardown(e, "hostile.fuzz");
		if (gc > 0)
			waitpid(gc, NULL, 0);
		return bad ? 1 : 0;
	default:
		break;
	}
	bad = env_teardown(e, "hostile.fuzz");
	return bad ? 1 : 0;
}

/* -------------------------------------------------------------- children */

/*
 * Wait for @pid up to @ms.  Returns its wait status, or -1 if it could not
 * be reaped even after SIGKILL (stuck in the kernel).
 */
static int reap(pid_t pid, int ms, bool *killed)
{
	uint64_t end = vt_now_ms() + (uint64_t)ms;
	int st;

	*killed = false;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		if (vt_now_ms() >= end) {
			if (*killed)
				return -1;
			kill(pid, SIGKILL);
			*killed = true;
			end = vt_now_ms() + 15000;
		}
		usleep(20000);
	}
}

static void dump_stuck(pid_t pid)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	f = fopen(path, "r");
	printf("#    process %d does not die; kernel stack:\n", (int)pid);
	while (f && fgets(line, sizeof(line), f))
		printf("#      %s", line);
	if (f)
		fclose(f);
}

/* ------------------------------------------------------------------ after */

static void after_check(const char *dev)
{
	struct env *e = malloc(sizeof(*e));
	const char *why;
	struct ibv_wc wc[8];
	int got, ret;

	if (!e || env_setup(e, dev, 1)) {
		vt_failf("hostile.after", "a new process cannot set up objects");
		free(e);
		return;
	}
	if (!health(e, &why)) {
		vt_failf("hostile.after", "%s", why);
	} else {
		/* Receives posted, QP to ERR: four flush completions. */
		struct ibv_sge sge = { .addr = (uintptr_t)e->buf, .length = 64,
				       .lkey = e->mr->lkey };
		struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
		int k;

		for (k = 0; k < 4; k++) {
			wr.wr_id = 100 + (uint64_t)k;
			ibv_post_recv(e->qp[0], &wr, &bad);
		}
		ret = vt_qp_set_state(e->qp[0], IBV_QPS_ERR);
		got = vt_poll(e->cq, wc, 4, WAIT_MS);
		if (ret || got != 4 || wc[0].status != IBV_WC_WR_FLUSH_ERR ||
		    wc[0].wr_id != 100 || wc[3].wr_id != 103)
			vt_failf("hostile.after",
				 "flush: modify %s, %d completions (want 4 WR_FLUSH_ERR)",
				 vt_errname(ret), got);
		else
			vt_ok("hostile.after",
			      "a well-behaved process creates objects, binds, flushes");
	}
	if (env_teardown(e, "hostile.after"))
		vt_n_fail++;
	free(e);
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	int secs = 30, max_children = 1000, c, children = 0, bad = 0;
	int sig_deaths = 0, child_ms = 2500;
	uint64_t seed = 1, end;
	bool killed;
	pid_t pid;
	int st;

	while ((c = getopt(argc, argv, "d:t:s:n:c:vh")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 't':
			secs = atoi(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			max_children = atoi(optarg);
			break;
		case 'c':
			child_ms = atoi(optarg);
			break;
		case 'v':
			vt_verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: hostile_rings [-d DEV] [-t SECONDS] [-s SEED] [-n MAX_CHILDREN] [-c CHILD_MS] [-v]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* Phase 1: targeted attacks. */
	child_counts = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (child_counts == MAP_FAILED)
		return 2;
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(run_targeted(dev, seed));
	st = reap(pid, 600000, &killed);
	if (st == -1) {
		dump_stuck(pid);
		vt_failf("hostile.targeted", "process stuck in the kernel after SIGKILL");
		return vt_summary("hostile_rings");
	}
	if (WIFSIGNALED(st))
		vt_failf("hostile.targeted", "died by signal %d%s",
			 WTERMSIG(st), killed ? " (timeout)" : "");
	else if (WEXITSTATUS(st))
		vt_failf("hostile.targeted", "exit status %d (see FAIL lines above)",
			 WEXITSTATUS(st));
	else
		vt_ok("hostile.targeted", "%d targeted attacks survived",
		      child_counts[0]);
	vt_n_ok += child_counts[0];
	vt_n_fail += child_counts[1];

	/* Phase 2: random attacks until the time budget is used. */
	end = vt_now_ms() + (uint64_t)secs * 1000;
	while (vt_now_ms() < end && children < max_children) {
		uint64_t s = seed + (uint64_t)children;
		int mode = (int)(s % 4);

		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(run_fuzz_child(dev, s, child_ms, mode));
		children++;
		st = reap(pid, child_ms + 60000, &killed);
		if (st == -1) {
			dump_stuck(pid);
			vt_failf("hostile.fuzz", "seed %llu: process stuck in the kernel after SIGKILL",
				 (unsigned long long)s);
			return vt_summary("hostile_rings");
		}
		if (killed) {
			vt_failf("hostile.fuzz", "seed %llu: hung for %d ms (killed)",
				 (unsigned long long)s, child_ms + 60000);
			bad++;
		} else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL &&
			   mode == 2) {
			/* expected */
		} else if (WIFSIGNALED(st)) {
			/* librxe tripping over our garbage: user space only. */
			sig_deaths++;
			vt_info("seed %llu: died by signal %d (user space)",
				(unsigned long long)s, WTERMSIG(st));
		} else if (WEXITSTATUS(st) == 2) {
			vt_failf("hostile.fuzz", "seed %llu: could not set up objects",
				 (unsigned long long)s);
			bad++;
		} else if (WEXITSTATUS(st)) {
			bad++;
		}
	}
	if (bad)
		vt_failf("hostile.fuzz", "%d of %d children failed", bad,
			 children);
	else
		vt_ok("hostile.fuzz",
		      "%d children (seeds %llu..%llu, %d ms each, exits: destroy/exit/SIGKILL/fork), %d died in user space",
		      children, (unsigned long long)seed,
		      (unsigned long long)(seed + (uint64_t)children - 1),
		      child_ms, sig_deaths);

	/* Phase 3: a well-behaved process. */
	after_check(dev);
	return vt_summary("hostile_rings");
}
