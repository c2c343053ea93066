// SPDX-License-Identifier: GPL-2.0
/*
 * ATOMIC WRITE and FLUSH (IBTA 1.5 memory placement extensions) between
 * two RC QPs of one device connected to each other:
 *
 *   atomic_write_flush [-d DEV]
 *	the device advertises ATOMIC WRITE (device_cap_flags_ex bit 40) and
 *	FLUSH to global visibility (bit 38); ibv_wr_atomic_write() of 8
 *	bytes completes with IBV_WC_ATOMIC_WRITE and places exactly those 8
 *	bytes, twice in a row (the second overwrites the first); an
 *	unaligned address completes with IBV_WC_REM_INV_REQ_ERR and a
 *	target MR without remote write with IBV_WC_REM_ACCESS_ERR (each on
 *	a fresh pair, as the error moves the QP to ERR).
 *
 *	FLUSH: libibverbs v44 has no ibv_wr_flush(), so the program writes
 *	the WQE into the requester's send queue itself, as librxe's
 *	wr_flush() (rdma-core v45 and later) does, and rings the POST_SEND
 *	doorbell; the ring is found in /proc/self/maps and mapped again, as
 *	hostile_rings does.  The target MR has IBV_ACCESS_FLUSH_GLOBAL, the
 *	responder QP both flush rights (as ib_cm grants them to rdma_cm
 *	QPs).  A range FLUSH to global visibility after an unsignaled RDMA
 *	WRITE completes SUCCESS with the FLUSH completion opcode (8) and the
 *	written bytes are in place; one at the MR level (no address, no
 *	length) completes SUCCESS.  Each on a fresh pair: a PERSISTENT
 *	FLUSH, which the device does not advertise, completes with
 *	REM_INV_REQ_ERR (the responder refuses the placement type; the
 *	requester cannot know what its peer supports); one to an MR without
 *	the flush right, and one with a key naming no MR, with
 *	REM_ACCESS_ERR; placement type 0 and selectivity level 2 with
 *	LOC_QP_OP_ERR, and the device sends no packet for them.
 *
 * Exit status 77 when the kernel has neither operation (6.1), 1 on any
 * failure, 0 otherwise.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

/* ib_user_verbs.h device capabilities (not named by libibverbs v44). */
#define CAP_FLUSH_GLOBAL	(1ULL << 38)
#define CAP_ATOMIC_WRITE	(1ULL << 40)

/*
 * FLUSH as the 6.12 uapi headers (ib_user_verbs.h, ib_user_ioctl_verbs.h,
 * rdma_user_rxe.h) define it; libibverbs v44 and its copies of those
 * headers have none of it.  v44's ibv_reg_mr() and ibv_modify_qp() pass
 * access bits through unchanged; ib_core accepts the MR's flush right when
 * the device advertises the capability.
 */
#define WR_FLUSH		14		/* IB_UVERBS_WR_FLUSH */
#define WC_FLUSH		8		/* IB_UVERBS_WC_FLUSH */
#define ACCESS_FLUSH_GLOBAL	(1 << 8)	/* IB_UVERBS_ACCESS_FLUSH_ */
#define ACCESS_FLUSH_PERSISTENT	(1 << 9)
#define FLUSH_GLOBAL		1		/* placement type */
#define FLUSH_PERSISTENT	2
#define FLUSH_RANGE		0		/* selectivity level */
#define FLUSH_MR		1

/* rxe_send_wr.wr.flush of the 6.12 rdma_user_rxe.h. */
struct flush_wr {
	uint64_t remote_addr;
	uint32_t length;	/* librxe leaves it 0: dma.length has it */
	uint32_t rkey;
	uint8_t type;
	uint8_t level;
};

_Static_assert(sizeof(struct flush_wr) <=
	       sizeof(((struct rxe_send_wr *)0)->wr),
	       "wr.flush fits the union");

#define BUF_LEN		4096
#define WAIT_MS		10000

struct pair {
	struct ibv_cq *cq;
	struct ibv_qp *qa, *qb;	/* qa sends to qb */
	struct ibv_qp_ex *xa;
	struct rxe_queue_buf *sq;	/* qa's send queue, mapped again */
	size_t sq_len;
};

static struct vt_dev dev;
static struct ibv_pd *pd;

static void pair_destroy(struct pair *p)
{
	if (p->sq)
		munmap(p->sq, p->sq_len);
	if (p->qa)
		ibv_destroy_qp(p->qa);
	if (p->qb)
		ibv_destroy_qp(p->qb);
	if (p->cq)
		ibv_destroy_cq(p->cq);
	memset(p, 0, sizeof(*p));
}

static struct ibv_qp *create_qp_ex(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_RC,
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE |
				  IBV_QP_EX_WITH_RDMA_WRITE,
		.sq_sig_all = 0,
	};

	return ibv_create_qp_ex(dev.ctx, &a);
}

/*
 * Map qa's send queue again from the mappings its creation added (@snap:
 * before it): exactly one of them must be a send queue.
 */
static int map_sq(struct pair *p, const struct vt_snap *snap)
{
	struct vt_map m[4];
	int n, k, found = -1;

	n = vt_snap_new(snap, m, VT_ARRAY_SIZE(m));
	for (k = 0; k < n; k++) {
		if (!vt_map_is_sq(&m[k]))
			continue;
		if (found >= 0)
			return EEXIST;
		found = k;
	}
	if (found < 0)
		return ENOENT;
	p->sq = vt_map_again(dev.ctx->cmd_fd, &m[found]);
	if (!p->sq)
		return errno ? errno : EIO;
	p->sq_len = m[found].end - m[found].start;
	return 0;
}

/*
 * The responder's rights: vt_qp_init()'s, and both flush rights, as ib_cm
 * grants them to every rdma_cm QP of a device with a FLUSH capability: the
 * checks are the MR's and the device's, not the QP's.  Read back, as a
 * right silently dropped would make the FLUSH cases test something else.
 */
static int grant_flush(struct ibv_qp *qp)
{
	const unsigned int want = IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ |
				  IBV_ACCESS_REMOTE_ATOMIC |
				  ACCESS_FLUSH_GLOBAL | ACCESS_FLUSH_PERSISTENT;
	struct ibv_qp_attr a = { .qp_access_flags = want };
	struct ibv_qp_init_attr ia;
	int err;

	err = vt_rc(ibv_modify_qp(qp, &a, IBV_QP_ACCESS_FLAGS));
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	if (ibv_query_qp(qp, &a, IBV_QP_ACCESS_FLAGS, &ia))
		return errno ? errno : EIO;
	return a.qp_access_flags == want ? 0 : EPROTO;
}

static int pair_create(struct pair *p)
{
	struct vt_snap *snap = malloc(sizeof(*snap));
	int err;

	memset(p, 0, sizeof(*p));
	if (!snap)
		return ENOMEM;
	p->cq = ibv_create_cq(dev.ctx, 64, NULL, NULL, 0);
	if (!p->cq) {
		free(snap);
		return errno ? errno : EIO;
	}
	vt_snap_take(snap);
	p->qa = create_qp_ex(p->cq);
	err = p->qa ? map_sq(p, snap) : errno ? errno : EIO;
	free(snap);
	if (err) {
		pair_destroy(p);
		return err;
	}
	p->qb = vt_create_qp(&dev, pd, IBV_QPT_RC, p->cq, p->cq, NULL, 16, 1,
			     0);
	if (!p->qb) {
		err = errno ? errno : EIO;
		pair_destroy(p);
		return err;
	}
	err = vt_qp_to_rts(&dev, p->qa, p->qb->qp_num);
	if (!err)
		err = vt_qp_to_rts(&dev, p->qb, p->qa->qp_num);
	if (!err)
		err = grant_flush(p->qb);
	if (err) {
		pair_destroy(p);
		return err;
	}
	p->xa = ibv_qp_to_qp_ex(p->qa);
	return p->xa ? 0 : EOPNOTSUPP;
}

/* pair_create(), the failure reported as check @name's; 0 or -1. */
static int pair_open(const char *name, struct pair *p)
{
	int err = pair_create(p);

	if (err)
		vt_failf(name, "QP pair: %s", vt_errname(err));
	return err ? -1 : 0;
}

/* Post one signaled ATOMIC WRITE and wait for its completion. */
static int atomic_write(struct pair *p, uint64_t wr_id, uint32_t rkey,
			uint64_t addr, uint64_t value, struct ibv_wc *wc)
{
	int err;

	ibv_wr_start(p->xa);
	p->xa->wr_id = wr_id;
	p->xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(p->xa, rkey, addr, &value);
	err = ibv_wr_complete(p->xa);
	if (err)
		return -err;
	return vt_poll(p->cq, wc, 1, WAIT_MS);
}

/*
 * Post one signaled FLUSH on qa the way librxe's wr_flush() does: the WQE
 * at the producer index (the range's length in dma.length, not in
 * wr.flush.length), the index published, the doorbell rung.  Only this
 * thread uses the QP, and ibv_wr_start() reads the producer index again,
 * so librxe's own posts on it stay in step.  Returns as vt_poll(), or
 * -errno when it could not post.
 */
static int flush(struct pair *p, uint64_t wr_id, uint32_t rkey, uint64_t addr,
		 uint32_t len, uint8_t type, uint8_t level, struct ibv_wc *wc)
{
	struct rxe_queue_buf *q = p->sq;
	uint32_t mask = q->index_mask;
	uint32_t prod = __atomic_load_n(&q->producer_index, __ATOMIC_RELAXED);
	uint32_t cons = __atomic_load_n(&q->consumer_index, __ATOMIC_ACQUIRE);
	struct rxe_send_wqe *w;
	struct flush_wr *f;
	int err;

	prod &= mask;
	if (((prod + 1) & mask) == (cons & mask))
		return -ENOSPC;
	w = (struct rxe_send_wqe *)(q->data +
				    ((size_t)prod << q->log2_elem_size));
	memset(w, 0, sizeof(*w));
	w->wr.wr_id = wr_id;
	w->wr.opcode = WR_FLUSH;
	w->wr.send_flags = IBV_SEND_SIGNALED;
	f = (struct flush_wr *)&w->wr.wr;
	f->remote_addr = addr;
	f->rkey = rkey;
	f->type = type;
	f->level = level;
	w->dma.length = len;
	w->dma.resid = len;
	w->iova = addr;
	__atomic_store_n(&q->producer_index, (prod + 1) & mask,
			 __ATOMIC_RELEASE);
	err = vt_cmd_post_send_db(p->qa);
	if (err)
		return -err;
	return vt_poll(p->cq, wc, 1, WAIT_MS);
}

/* @opcode: the completion opcode wanted on SUCCESS. */
static void check_wc(const char *name, int n, const struct ibv_wc *wc,
		     uint64_t wr_id, enum ibv_wc_status status, int opcode)
{
	if (n != 1) {
		vt_failf(name, "%s", n < 0 ? "post failed" :
			 "no completion within the deadline");
		return;
	}
	if (wc->wr_id != wr_id || wc->status != status ||
	    (status == IBV_WC_SUCCESS && (int)wc->opcode != opcode)) {
		vt_failf(name, "wr_id %llu status %s opcode %d, want %llu %s %d",
			 (unsigned long long)wc->wr_id,
			 vt_wcname(wc->status), wc->opcode,
			 (unsigned long long)wr_id, vt_wcname(status), opcode);
		return;
	}
	if (status == IBV_WC_SUCCESS)
		vt_ok(name, "%s, opcode %d", vt_wcname(wc->status), opcode);
	else
		vt_ok(name, "%s", vt_wcname(wc->status));
}

static void test_atomic_write(uint8_t *buf, struct ibv_mr *mr)
{
	uint64_t *target = (uint64_t *)(buf + 64);
	const uint64_t v1 = 0x0123456789abcdefULL, v2 = 0xfedcba9876543210ULL;
	struct ibv_wc wc;
	struct pair p;
	bool intact = true;
	int n, i;

	if (pair_open("aw-setup", &p))
		return;
	memset(buf, 0x5a, BUF_LEN);
	n = atomic_write(&p, 1, mr->rkey, (uintptr_t)target, v1, &wc);
	check_wc("aw-complete", n, &wc, 1, IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE);
	if (n == 1 && wc.status == IBV_WC_SUCCESS && wc.byte_len != 8)
		vt_failf("aw-byte-len", "%u, want 8", wc.byte_len);
	if (*(volatile uint64_t *)target == v1)
		vt_ok("aw-data", "0x%016llx placed", (unsigned long long)v1);
	else
		vt_failf("aw-data", "0x%016llx, want 0x%016llx",
			 (unsigned long long)*target, (unsigned long long)v1);
	for (i = 0; i < BUF_LEN; i++)
		if ((i < 64 || i >= 72) && buf[i] != 0x5a)
			intact = false;
	if (intact)
		vt_ok("aw-neighbours", "the other bytes are untouched");
	else
		vt_failf("aw-neighbours", "bytes outside the 8 changed");

	n = atomic_write(&p, 2, mr->rkey, (uintptr_t)target, v2, &wc);
	check_wc("aw-again", n, &wc, 2, IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE);
	if (*(volatile uint64_t *)target == v2)
		vt_ok("aw-data-again", "overwritten with 0x%016llx",
		      (unsigned long long)v2);
	else
		vt_failf("aw-data-again", "0x%016llx, want 0x%016llx",
			 (unsigned long long)*target, (unsigned long long)v2);
	pair_destroy(&p);
}

/* An ATOMIC WRITE that must fail with @status, the target left as is. */
static void test_atomic_write_err(const char *name, struct ibv_mr *mr,
				  uint64_t addr, enum ibv_wc_status status)
{
	volatile uint64_t *word = (uint64_t *)(addr & ~7ULL);
	uint64_t before = *word;
	struct ibv_wc wc;
	struct pair p;
	int n;

	if (pair_open(name, &p))
		return;
	n = atomic_write(&p, 7, mr->rkey, addr, 0x1111111111111111ULL, &wc);
	check_wc(name, n, &wc, 7, status, IBV_WC_ATOMIC_WRITE);
	if (*word != before)
		vt_failf(name, "target changed to 0x%016llx",
			 (unsigned long long)*word);
	pair_destroy(&p);
}

/* The device's count of @counter (its port's hw_counters), or -1. */
static long long port_counter(const char *counter)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
		 ibv_get_device_name(dev.ctx->device), counter);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/*
 * FLUSH to global visibility of a range just written by an unsignaled
 * RDMA WRITE on the same QP: the FLUSH's completion is the only one, and
 * by then the bytes must be there.  Then the whole MR, on the same pair.
 */
static void test_flush(uint8_t *dst, struct ibv_mr *mr_dst, uint8_t *src,
		       struct ibv_mr *mr_src)
{
	const uint32_t len = 256;
	long long tx0, tx1;
	struct ibv_wc wc;
	struct pair p;
	uint32_t i;
	int n, err;

	if (pair_open("flush-setup", &p))
		return;
	memset(dst, 0x5a, BUF_LEN);
	for (i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 7 + 1);

	ibv_wr_start(p.xa);
	p.xa->wr_id = 20;
	p.xa->wr_flags = 0;
	ibv_wr_rdma_write(p.xa, mr_dst->rkey, (uintptr_t)dst);
	ibv_wr_set_sge(p.xa, mr_src->lkey, (uintptr_t)src, len);
	err = ibv_wr_complete(p.xa);
	if (err) {
		vt_failf("flush-after-write", "RDMA WRITE: %s",
			 vt_errname(err));
		pair_destroy(&p);
		return;
	}
	n = flush(&p, 21, mr_dst->rkey, (uintptr_t)dst, len, FLUSH_GLOBAL,
		  FLUSH_RANGE, &wc);
	check_wc("flush-after-write", n, &wc, 21, IBV_WC_SUCCESS, WC_FLUSH);
	if (!memcmp((const void *)dst, src, len))
		vt_ok("flush-data", "the %u written bytes are in place", len);
	else
		vt_failf("flush-data", "the written bytes are not in place");
	if (n == 1 && wc.status == IBV_WC_SUCCESS) {
		/* nothing else may come: the WRITE was unsignaled */
		n = vt_poll(p.cq, &wc, 1, 200);
		if (n)
			vt_failf("flush-one-completion",
				 "another completion: wr_id %llu %s",
				 (unsigned long long)wc.wr_id,
				 vt_wcname(wc.status));
	}

	/* the MR level: the address and length are not looked at */
	n = flush(&p, 22, mr_dst->rkey, 0, 0, FLUSH_GLOBAL, FLUSH_MR, &wc);
	check_wc("flush-mr", n, &wc, 22, IBV_WC_SUCCESS, WC_FLUSH);

	/* nothing is outstanding now: a completed FLUSH is not resent */
	tx0 = port_counter("tx_packets");
	usleep(500 * 1000);
	tx1 = port_counter("tx_packets");
	if (tx0 < 0 || tx1 < 0)
		vt_failf("flush-idle", "tx_packets unreadable");
	else if (tx1 != tx0)
		vt_failf("flush-idle", "%lld packets sent by an idle pair",
			 tx1 - tx0);
	else
		vt_ok("flush-idle", "nothing sent in 500 ms once complete");
	pair_destroy(&p);
}

/*
 * The device's tx_packets once it stayed the same for 300 ms (the pairs
 * before may still have a packet on its way), or -1: unreadable, or never
 * quiet within 5 s.  *@late: how many it sent meanwhile.
 */
static long long tx_quiet(long long *late)
{
	long long a = port_counter("tx_packets"), b, first = a;
	int i;

	for (i = 0; i < 16 && a >= 0; i++) {
		usleep(300 * 1000);
		b = port_counter("tx_packets");
		if (b == a) {
			*late = a - first;
			return a;
		}
		a = b;
	}
	return -1;
}

/*
 * A FLUSH that must complete with @status, on a fresh pair.  @local: the
 * requester refuses it, so the device must not send a packet for it.
 */
static void test_flush_err(const char *name, uint32_t rkey, uint64_t addr,
			   uint32_t len, uint8_t type, uint8_t level,
			   enum ibv_wc_status status, bool local)
{
	long long tx0, tx1, late = 0;
	struct ibv_wc wc;
	struct pair p;
	int n;

	if (pair_open(name, &p))
		return;
	tx0 = local ? tx_quiet(&late) : 0;
	n = flush(&p, 30, rkey, addr, len, type, level, &wc);
	check_wc(name, n, &wc, 30, status, WC_FLUSH);
	if (local) {
		/* a packet sent in error would be on its way by now */
		usleep(200 * 1000);
		tx1 = port_counter("tx_packets");
		if (tx0 < 0 || tx1 < 0)
			vt_failf(name, "tx_packets unreadable or never quiet");
		else if (tx1 != tx0)
			vt_failf(name, "%lld packets sent, want none",
				 tx1 - tx0);
		else
			vt_ok(name, "no packet sent (%lld before, while it went quiet)",
			      late);
	}
	pair_destroy(&p);
}

/*
 * A key naming none of @mrs: @key with its low bits changed, by a
 * different pattern each try (toggling one pattern would come back to
 * @key on the second try and loop forever).
 */
static uint32_t foreign_key(uint32_t key, struct ibv_mr **mrs, int n)
{
	uint32_t step, k;
	int i;

	for (step = 1;; step++) {
		k = key ^ (0x5aU * step);
		for (i = 0; i < n; i++)
			if (mrs[i]->rkey == k || mrs[i]->lkey == k)
				break;
		if (i == n)
			return k;
	}
}

int main(int argc, char **argv)
{
	struct ibv_device_attr_ex ax = {};
	const char *dname = NULL;
	struct ibv_mr *mr, *mr_ro, *mr_fl, *mr_src;
	uint8_t *buf, *buf_ro, *buf_fl, *buf_src;
	bool flush_cap;
	int c;

	while ((c = getopt(argc, argv, "d:v")) != -1) {
		if (c == 'd')
			dname = optarg;
		else if (c == 'v')
			vt_verbose = 1;
		else
			return 2;
	}
	if (vt_open(dname, -1, &dev))
		return 1;
	if (ibv_query_device_ex(dev.ctx, NULL, &ax)) {
		vt_failf("caps", "ibv_query_device_ex failed");
		return vt_summary("atomic_write_flush");
	}
	if (!(ax.device_cap_flags_ex & CAP_ATOMIC_WRITE)) {
		vt_skipf("caps", "no ATOMIC WRITE (kernel without it)");
		vt_summary("atomic_write_flush");
		return 77;
	}
	vt_ok("caps", "ATOMIC WRITE advertised");
	flush_cap = ax.device_cap_flags_ex & CAP_FLUSH_GLOBAL;
	if (flush_cap)
		vt_ok("caps-flush", "FLUSH (global visibility) advertised");
	else
		vt_failf("caps-flush", "FLUSH_GLOBAL not advertised");

	pd = ibv_alloc_pd(dev.ctx);
	buf = vt_alloc(BUF_LEN);
	buf_ro = vt_alloc(BUF_LEN);
	buf_fl = vt_alloc(BUF_LEN);
	buf_src = vt_alloc(BUF_LEN);
	mr = pd ? ibv_reg_mr(pd, buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE) : NULL;
	mr_ro = pd ? ibv_reg_mr(pd, buf_ro, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_READ) : NULL;
	mr_src = pd ? ibv_reg_mr(pd, buf_src, BUF_LEN,
				 IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!mr || !mr_ro || !mr_src) {
		vt_failf("setup", "PD or MR: %s", vt_errname(errno));
		return vt_summary("atomic_write_flush");
	}
	mr_fl = NULL;
	if (flush_cap) {
		mr_fl = ibv_reg_mr(pd, buf_fl, BUF_LEN,
				   IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   ACCESS_FLUSH_GLOBAL);
		if (!mr_fl)
			vt_failf("flush-mr-reg", "MR with the flush right: %s",
				 vt_errname(errno));
	}

	test_atomic_write(buf, mr);
	test_atomic_write_err("aw-unaligned", mr, (uintptr_t)buf + 68,
			      IBV_WC_REM_INV_REQ_ERR);
	test_atomic_write_err("aw-no-remote-write", mr_ro,
			      (uintptr_t)buf_ro + 64, IBV_WC_REM_ACCESS_ERR);
	if (mr_fl) {
		struct ibv_mr *all[] = { mr, mr_ro, mr_fl, mr_src };
		uint64_t at = (uintptr_t)buf_fl;

		test_flush(buf_fl, mr_fl, buf_src, mr_src);
		test_flush_err("flush-persistent", mr_fl->rkey, at, 64,
			       FLUSH_PERSISTENT, FLUSH_RANGE,
			       IBV_WC_REM_INV_REQ_ERR, false);
		test_flush_err("flush-no-flush-right", mr->rkey,
			       (uintptr_t)buf, 64, FLUSH_GLOBAL, FLUSH_RANGE,
			       IBV_WC_REM_ACCESS_ERR, false);
		test_flush_err("flush-bad-rkey",
			       foreign_key(mr_fl->rkey, all, 4), at, 64,
			       FLUSH_GLOBAL, FLUSH_RANGE,
			       IBV_WC_REM_ACCESS_ERR, false);
		test_flush_err("flush-type-0", mr_fl->rkey, at, 64, 0,
			       FLUSH_RANGE, IBV_WC_LOC_QP_OP_ERR, true);
		test_flush_err("flush-level-2", mr_fl->rkey, at, 64,
			       FLUSH_GLOBAL, 2, IBV_WC_LOC_QP_OP_ERR, true);
		ibv_dereg_mr(mr_fl);
	}

	ibv_dereg_mr(mr);
	ibv_dereg_mr(mr_ro);
	ibv_dereg_mr(mr_src);
	ibv_dealloc_pd(pd);
	vt_close(&dev);
	return vt_summary("atomic_write_flush");
}
