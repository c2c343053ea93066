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
 *	a fresh pair, as the error moves the QP to ERR).  FLUSH needs
 *	ibv_wr_flush(), which libibverbs v44 lacks: reported as skipped
 *	there.
 *
 * Exit status 77 when the kernel has neither operation (6.1), 1 on any
 * failure, 0 otherwise.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* ib_user_verbs.h device capabilities (not named by libibverbs v44). */
#define CAP_FLUSH_GLOBAL	(1ULL << 38)
#define CAP_ATOMIC_WRITE	(1ULL << 40)

#define BUF_LEN		4096
#define WAIT_MS		10000

struct pair {
	struct ibv_cq *cq;
	struct ibv_qp *qa, *qb;	/* qa sends to qb */
	struct ibv_qp_ex *xa;
};

static struct vt_dev dev;
static struct ibv_pd *pd;

static void pair_destroy(struct pair *p)
{
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

static int pair_create(struct pair *p)
{
	int err;

	memset(p, 0, sizeof(*p));
	p->cq = ibv_create_cq(dev.ctx, 64, NULL, NULL, 0);
	if (!p->cq)
		return errno ? errno : EIO;
	p->qa = create_qp_ex(p->cq);
	if (!p->qa) {
		err = errno ? errno : EIO;
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
	if (err) {
		pair_destroy(p);
		return err;
	}
	p->xa = ibv_qp_to_qp_ex(p->qa);
	return p->xa ? 0 : EOPNOTSUPP;
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

static void check_wc(const char *name, int n, const struct ibv_wc *wc,
		     uint64_t wr_id, enum ibv_wc_status status)
{
	if (n != 1) {
		vt_failf(name, "%s", n < 0 ? "post failed" :
			 "no completion within the deadline");
		return;
	}
	if (wc->wr_id != wr_id || wc->status != status ||
	    (status == IBV_WC_SUCCESS &&
	     wc->opcode != IBV_WC_ATOMIC_WRITE)) {
		vt_failf(name, "wr_id %llu status %s opcode %d, want %llu %s %d",
			 (unsigned long long)wc->wr_id,
			 vt_wcname(wc->status), wc->opcode,
			 (unsigned long long)wr_id, vt_wcname(status),
			 IBV_WC_ATOMIC_WRITE);
		return;
	}
	vt_ok(name, "%s", vt_wcname(wc->status));
}

static void test_atomic_write(uint8_t *buf, struct ibv_mr *mr)
{
	uint64_t *target = (uint64_t *)(buf + 64);
	const uint64_t v1 = 0x0123456789abcdefULL, v2 = 0xfedcba9876543210ULL;
	struct ibv_wc wc;
	struct pair p;
	bool intact = true;
	int n, err, i;

	err = pair_create(&p);
	if (err) {
		vt_failf("aw-setup", "QP pair: %s", vt_errname(err));
		return;
	}
	memset(buf, 0x5a, BUF_LEN);
	n = atomic_write(&p, 1, mr->rkey, (uintptr_t)target, v1, &wc);
	check_wc("aw-complete", n, &wc, 1, IBV_WC_SUCCESS);
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
	check_wc("aw-again", n, &wc, 2, IBV_WC_SUCCESS);
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
	int n, err;

	err = pair_create(&p);
	if (err) {
		vt_failf(name, "QP pair: %s", vt_errname(err));
		return;
	}
	n = atomic_write(&p, 7, mr->rkey, addr, 0x1111111111111111ULL, &wc);
	check_wc(name, n, &wc, 7, status);
	if (*word != before)
		vt_failf(name, "target changed to 0x%016llx",
			 (unsigned long long)*word);
	pair_destroy(&p);
}

int main(int argc, char **argv)
{
	struct ibv_device_attr_ex ax = {};
	const char *dname = NULL;
	struct ibv_mr *mr, *mr_ro;
	uint8_t *buf, *buf_ro;
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
	if (ax.device_cap_flags_ex & CAP_FLUSH_GLOBAL)
		vt_ok("caps-flush", "FLUSH (global visibility) advertised");
	else
		vt_failf("caps-flush", "FLUSH_GLOBAL not advertised");

	pd = ibv_alloc_pd(dev.ctx);
	buf = vt_alloc(BUF_LEN);
	buf_ro = vt_alloc(BUF_LEN);
	mr = pd ? ibv_reg_mr(pd, buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE) : NULL;
	mr_ro = pd ? ibv_reg_mr(pd, buf_ro, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_READ) : NULL;
	if (!mr || !mr_ro) {
		vt_failf("setup", "PD or MR: %s", vt_errname(errno));
		return vt_summary("atomic_write_flush");
	}

	test_atomic_write(buf, mr);
	test_atomic_write_err("aw-unaligned", mr, (uintptr_t)buf + 68,
			      IBV_WC_REM_INV_REQ_ERR);
	test_atomic_write_err("aw-no-remote-write", mr_ro,
			      (uintptr_t)buf_ro + 64, IBV_WC_REM_ACCESS_ERR);
	vt_skipf("flush", "libibverbs v44 has no ibv_wr_flush()");

	ibv_dereg_mr(mr);
	ibv_dereg_mr(mr_ro);
	ibv_dealloc_pd(pd);
	vt_close(&dev);
	return vt_summary("atomic_write_flush");
}
