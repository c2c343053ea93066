// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_objects: every verbs object of a vroce device, created through the
 * stock libibverbs + librxe stack, with its error paths and the exact errno
 * or completion status each must give.
 *
 * Only local operations are exercised: PD, MR (all access combinations,
 * IOVA and zero-based, rereg), MW type 1 and 2 with bind / local invalidate
 * through the send queue, CQ (resize, notify, overflow), SRQ (limit,
 * resize), RC/UC/UD QPs (caps, the state machine, flushing to ERR) and AHs.
 * Checks that need the requester engine (an SGE or AH of another PD in a
 * send) follow a probe UD send, which must complete.
 *
 * Where the expected status is the driver's choice, the values follow
 * drivers/vroce/mr.h: a bad BIND_MW completes with MW_BIND_ERR, a bad
 * LOCAL_INV with LOC_PROT_ERR.
 *
 * Usage: verbs_objects [-d DEV] [-g GID_INDEX] [-s SECTION] [-v]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

#define WAIT_MS		3000	/* completions and events (TCG VMs are slow) */
#define QUIET_MS	400	/* "nothing more arrives" */
#define BUFSZ		(64 * 1024)
#define IOVA		0x10000000ULL
#define IOVA2		0x20000000ULL
#define VROCE_MIN_TIMEOUT 15	/* drivers/vroce/req.h */

#define WC_BAD_BIND	IBV_WC_MW_BIND_ERR
#define WC_BAD_INV	IBV_WC_LOC_PROT_ERR

#define LW	IBV_ACCESS_LOCAL_WRITE
#define RW	IBV_ACCESS_REMOTE_WRITE
#define RR	IBV_ACCESS_REMOTE_READ
#define RA	IBV_ACCESS_REMOTE_ATOMIC
#define MWB	IBV_ACCESS_MW_BIND

static struct vt_dev D;
static struct ibv_pd *pd1, *pd2;
static char *buf, *buf2;
static int send_engine = -1;	/* -1 not probed, 0 absent, 1 present */

/* ------------------------------------------------------------- helpers */

/*
 * Check one completion: status, wr_id and (for a success) the opcode.
 * @got is what vt_poll / vt_post_wait returned.
 */
static bool expect_wc(const char *name, int got, const struct ibv_wc *wc,
		      enum ibv_wc_status st, int opcode, uint64_t wr_id)
{
	if (got < 0) {
		vt_failf(name, "post failed: %s", vt_errname(-got));
		return false;
	}
	if (got == 0) {
		vt_failf(name, "no completion within %d ms, want %s", WAIT_MS,
			 vt_wcname(st));
		return false;
	}
	if (wc->status != st) {
		vt_failf(name, "completion %s (vendor_err %u), want %s",
			 vt_wcname(wc->status), wc->vendor_err, vt_wcname(st));
		return false;
	}
	if (wc->wr_id != wr_id) {
		vt_failf(name, "wr_id %llu, want %llu",
			 (unsigned long long)wc->wr_id,
			 (unsigned long long)wr_id);
		return false;
	}
	if (st == IBV_WC_SUCCESS && opcode >= 0 && (int)wc->opcode != opcode) {
		vt_failf(name, "opcode %d, want %d", wc->opcode, opcode);
		return false;
	}
	vt_ok(name, "%s", vt_wcname(st));
	return true;
}

/* An RC QP in RTS connected to itself, with its own CQ. */
struct fq {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

static bool fq_make(struct fq *f, struct ibv_pd *pd, const char *name)
{
	f->qp = NULL;
	f->cq = ibv_create_cq(D.ctx, 32, NULL, NULL, 0);
	if (!f->cq) {
		vt_failf(name, "set-up: create_cq: %s", vt_errname(errno));
		return false;
	}
	f->qp = vt_rc_rts(&D, pd, f->cq);
	if (!f->qp) {
		vt_failf(name, "set-up: RC QP to RTS: %s", vt_errname(errno));
		ibv_destroy_cq(f->cq);
		f->cq = NULL;
		return false;
	}
	return true;
}

static void fq_free(struct fq *f)
{
	if (f->qp)
		ibv_destroy_qp(f->qp);
	if (f->cq)
		ibv_destroy_cq(f->cq);
	f->qp = NULL;
	f->cq = NULL;
}

/* Post @wr on a fresh RC QP of @pd and check the completion. */
static void op_fresh(const char *name, struct ibv_pd *pd,
		     struct ibv_send_wr *wr, enum ibv_wc_status st, int opcode)
{
	struct ibv_wc wc;
	struct fq f;

	if (!fq_make(&f, pd, name))
		return;
	expect_wc(name, vt_post_wait(f.qp, f.cq, wr, &wc, WAIT_MS), &wc, st,
		  opcode, wr->wr_id);
	fq_free(&f);
}

/*
 * Type 1 bind through ibv_bind_mw on @qp.  librxe bumps mw->rkey when it
 * posts; undo that when the bind did not succeed.
 */
static int bind1(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_mw *mw,
		 struct ibv_mr *mr, uint64_t addr, uint64_t len, int access,
		 uint64_t wr_id, bool signaled, struct ibv_wc *wc)
{
	struct ibv_mw_bind b = {
		.wr_id = wr_id,
		.send_flags = signaled ? IBV_SEND_SIGNALED : 0,
		.bind_info = {
			.mr = mr,
			.addr = addr,
			.length = len,
			.mw_access_flags = (unsigned int)access,
		},
	};
	uint32_t old = mw->rkey;
	int ret, got;

	ret = ibv_bind_mw(qp, mw, &b);
	if (ret)
		return -vt_rc(ret);
	if (!signaled)
		return 0;
	got = vt_poll(cq, wc, 1, WAIT_MS);
	if (got != 1 || wc->status != IBV_WC_SUCCESS)
		mw->rkey = old;
	return got;
}

static void bind1_fresh(const char *name, struct ibv_pd *pd, struct ibv_mw *mw,
			struct ibv_mr *mr, uint64_t addr, uint64_t len,
			int access, enum ibv_wc_status st)
{
	struct ibv_wc wc;
	struct fq f;

	if (!fq_make(&f, pd, name))
		return;
	expect_wc(name, bind1(f.qp, f.cq, mw, mr, addr, len, access, 77, true,
			      &wc),
		  &wc, st, IBV_WC_BIND_MW, 77);
	fq_free(&f);
}

static void wr_bind2(struct ibv_send_wr *wr, uint64_t wr_id, struct ibv_mw *mw,
		     uint32_t rkey, struct ibv_mr *mr, uint64_t addr,
		     uint64_t len, int access)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->opcode = IBV_WR_BIND_MW;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = rkey;
	wr->bind_mw.bind_info.mr = mr;
	wr->bind_mw.bind_info.addr = addr;
	wr->bind_mw.bind_info.length = len;
	wr->bind_mw.bind_info.mw_access_flags = (unsigned int)access;
}

static void wr_inv(struct ibv_send_wr *wr, uint64_t wr_id, uint32_t rkey)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->opcode = IBV_WR_LOCAL_INV;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->invalidate_rkey = rkey;
}

static int post_recvs(struct ibv_qp *qp, struct ibv_mr *mr, uint64_t wr_id0,
		      int n)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)mr->addr + (uint64_t)i * 64,
			.length = 64,
			.lkey = mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = wr_id0 + (uint64_t)i,
			.sg_list = &sge,
			.num_sge = 1,
		}, *bad;

		ret = ibv_post_recv(qp, &wr, &bad);
		if (ret)
			return vt_rc(ret);
	}
	return 0;
}

static int post_sends(struct ibv_qp *qp, struct ibv_mr *mr, uint64_t wr_id0,
		      int n)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)mr->addr,
			.length = 64,
			.lkey = mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = wr_id0 + (uint64_t)i,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		ret = ibv_post_send(qp, &wr, &bad);
		if (ret)
			return vt_rc(ret);
	}
	return 0;
}

/*
 * Check @n flush completions with consecutive wr_ids from @wr_id0 (in
 * order), all on @qpn.
 */
static bool check_flush(const char *name, struct ibv_wc *wc, int got, int n,
			uint64_t wr_id0, uint32_t qpn)
{
	int i;

	if (got != n) {
		vt_failf(name, "%d completions, want %d", got, n);
		return false;
	}
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_WR_FLUSH_ERR) {
			vt_failf(name, "entry %d: %s, want WR_FLUSH_ERR", i,
				 vt_wcname(wc[i].status));
			return false;
		}
		if (wc[i].wr_id != wr_id0 + (uint64_t)i) {
			vt_failf(name, "entry %d: wr_id %llu, want %llu", i,
				 (unsigned long long)wc[i].wr_id,
				 (unsigned long long)(wr_id0 + (uint64_t)i));
			return false;
		}
		if (wc[i].qp_num != qpn) {
			vt_failf(name, "entry %d: qp_num %u, want %u", i,
				 wc[i].qp_num, qpn);
			return false;
		}
	}
	vt_ok(name, "%d x WR_FLUSH_ERR in order", n);
	return true;
}

/* Find the ring mapped since @before that holds @want entries (ms). */
static bool wait_ring_count(const struct vt_map *m, uint32_t want, int ms)
{
	uint64_t end = vt_now_ms() + (uint64_t)ms;

	do {
		if (vt_q_count(vt_map_q(m)) == want)
			return true;
		usleep(2000);
	} while (vt_now_ms() < end);
	return false;
}

static struct ibv_mr *reg(struct ibv_pd *pd, void *addr, size_t len,
			  int access)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, addr, len, access);

	if (!mr)
		vt_info("reg_mr(access 0x%x): %s", access, vt_errname(errno));
	return mr;
}

/* ------------------------------------------------------------------- PD */

static void test_pd(void)
{
	struct ibv_pd *pd;
	struct ibv_mr *mr;

	pd = ibv_alloc_pd(D.ctx);
	if (!pd) {
		vt_failf("pd.alloc", "%s", vt_errname(errno));
		return;
	}
	vt_ok("pd.alloc", "handle %u", pd->handle);
	mr = reg(pd, buf, 4096, LW);
	if (!mr) {
		vt_failf("pd.busy", "set-up: reg_mr: %s", vt_errname(errno));
	} else {
		vt_expect_rc("pd.busy (dealloc with an MR)",
			     vt_rc(ibv_dealloc_pd(pd)), EBUSY);
		ibv_dereg_mr(mr);
	}
	vt_expect_rc("pd.dealloc", vt_rc(ibv_dealloc_pd(pd)), 0);
}

/* ------------------------------------------------------------------- MR */

static void test_mr(void)
{
	static const int bits[] = { LW, RW, RR, RA, MWB };
	struct ibv_mr *mrs[32];
	struct ibv_device_attr_ex ax;
	char name[64];
	int combo, i, j, n = 0, err;
	bool dup = false;
	void *p;
	struct ibv_mr *mr;

	for (combo = 0; combo < 32; combo++) {
		int acc = 0;
		bool valid;

		for (i = 0; i < 5; i++)
			if (combo & (1 << i))
				acc |= bits[i];
		valid = !((acc & (RW | RA)) && !(acc & LW));
		snprintf(name, sizeof(name), "mr.access.0x%02x%s", acc,
			 valid ? "" : " (remote write/atomic without local write)");
		errno = 0;
		mr = ibv_reg_mr(pd1, buf, BUFSZ, acc);
		err = errno;
		if (!valid) {
			vt_expect_null(name, mr, err, EINVAL, vt_dereg_mr);
			continue;
		}
		if (!mr) {
			vt_failf(name, "failed with %s, want success",
				 vt_errname(err));
			continue;
		}
		vt_ok(name, "lkey 0x%08x rkey 0x%08x", mr->lkey, mr->rkey);
		mrs[n++] = mr;
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (mrs[i]->lkey == mrs[j]->lkey)
				dup = true;
	if (dup)
		vt_failf("mr.keys_unique", "two live MRs share an lkey");
	else
		vt_ok("mr.keys_unique", "%d MRs, distinct lkeys", n);
	err = 0;
	for (i = 0; i < n; i++) {
		int r = vt_rc(ibv_dereg_mr(mrs[i]));

		if (r && !err)
			err = r;
	}
	vt_expect_rc("mr.dereg", err, 0);

	errno = 0;
	mr = ibv_reg_mr(pd1, buf, BUFSZ, LW | (1 << 12));
	vt_expect_null("mr.unknown_access_bit", mr, errno, EINVAL,
		       vt_dereg_mr);

	memset(&ax, 0, sizeof(ax));
	if (!ibv_query_device_ex(D.ctx, NULL, &ax) &&
	    (ax.odp_caps.general_caps & IBV_ODP_SUPPORT)) {
		vt_skipf("mr.on_demand", "device reports ODP");
	} else {
		/* ib_core decides: EINVAL up to 6.1, EOPNOTSUPP later. */
		errno = 0;
		mr = ibv_reg_mr(pd1, buf, BUFSZ, LW | IBV_ACCESS_ON_DEMAND);
		err = errno;
		vt_expect_null("mr.on_demand (no ODP)", mr, err,
			       err == EINVAL ? EINVAL : EOPNOTSUPP,
			       vt_dereg_mr);
	}

	p = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	errno = 0;
	mr = ibv_reg_mr(pd1, p, 8192, LW);
	vt_expect_null("mr.prot_none", mr, errno, EFAULT, vt_dereg_mr);
	munmap(p, 8192);

	p = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	errno = 0;
	mr = ibv_reg_mr(pd1, p, 8192, LW);
	vt_expect_null("mr.read_only_memory_local_write", mr, errno, EFAULT,
		       vt_dereg_mr);
	mr = ibv_reg_mr(pd1, p, 8192, 0);
	if (mr) {
		vt_ok("mr.read_only_memory_no_write", "lkey 0x%08x", mr->lkey);
		ibv_dereg_mr(mr);
	} else {
		vt_failf("mr.read_only_memory_no_write",
			 "failed with %s, want success", vt_errname(errno));
	}
	munmap(p, 8192);

	mr = ibv_reg_mr_iova(pd1, buf, BUFSZ, IOVA, LW | MWB);
	if (mr) {
		vt_ok("mr.iova", "iova 0x%llx", IOVA);
		ibv_dereg_mr(mr);
	} else {
		vt_failf("mr.iova", "failed with %s", vt_errname(errno));
	}
	mr = ibv_reg_mr_iova(pd1, buf, BUFSZ, 0, LW | MWB);
	if (mr) {
		vt_ok("mr.zero_based", "iova 0");
		ibv_dereg_mr(mr);
	} else {
		vt_failf("mr.zero_based", "failed with %s", vt_errname(errno));
	}
	errno = 0;
	mr = ibv_reg_mr_iova(pd1, buf, BUFSZ, IOVA + 0x123, LW);
	vt_expect_null("mr.iova_page_offset_differs", mr, errno, EINVAL,
		       vt_dereg_mr);
	vt_info("DMA MRs and REG_MR work requests are kernel-only: see vroce_ktest");
}

/* ------------------------------------------------------------------- MW */

static void test_mw(void)
{
	struct ibv_mr *mr_bind, *mr_nobind, *mr_nolw, *mr_pd2, *mr_iova, *mr_zb;
	struct ibv_mr *mr_lwb;
	struct ibv_mw *mw1, *mw2, *mw;
	struct ibv_send_wr wr;
	struct ibv_wc wc[4];
	struct fq f;
	uint32_t rk0, k1, k2;
	int got;

	mr_bind = reg(pd1, buf, BUFSZ, LW | RW | RR | MWB);
	mr_nobind = reg(pd1, buf, BUFSZ, LW | RR);
	mr_nolw = reg(pd1, buf, BUFSZ, RR | MWB);
	mr_pd2 = reg(pd2, buf, BUFSZ, LW | MWB);
	mr_iova = ibv_reg_mr_iova(pd1, buf, BUFSZ, IOVA, LW | RW | RR | MWB);
	mr_zb = ibv_reg_mr_iova(pd1, buf, BUFSZ, 0, LW | RW | RR | MWB);
	/* no remote right of its own: a window grants them (C10-74) */
	mr_lwb = reg(pd1, buf, BUFSZ, LW | MWB);
	if (!mr_bind || !mr_nobind || !mr_nolw || !mr_pd2 || !mr_iova ||
	    !mr_zb || !mr_lwb) {
		vt_failf("mw", "set-up: reg_mr failed: %s", vt_errname(errno));
		goto out_mr;
	}

	mw1 = ibv_alloc_mw(pd1, IBV_MW_TYPE_1);
	mw2 = ibv_alloc_mw(pd1, IBV_MW_TYPE_2);
	if (!mw1 || !mw2) {
		vt_failf("mw.alloc", "type %d failed: %s", mw1 ? 2 : 1,
			 vt_errname(errno));
		goto out_mr;
	}
	if (!mw1->rkey || !mw2->rkey || mw1->rkey == mw2->rkey ||
	    (mw1->rkey >> 8) == (mr_bind->lkey >> 8) ||
	    (mw2->rkey >> 8) == (mr_bind->lkey >> 8))
		vt_failf("mw.alloc", "rkeys 0x%x 0x%x not distinct (MR 0x%x)",
			 mw1->rkey, mw2->rkey, mr_bind->lkey);
	else
		vt_ok("mw.alloc", "type 1 rkey 0x%08x, type 2 rkey 0x%08x",
		      mw1->rkey, mw2->rkey);
	errno = 0;
	mw = ibv_alloc_mw(pd1, (enum ibv_mw_type)3);
	vt_expect_null("mw.alloc.bad_type", mw, errno, EINVAL, NULL);
	if (mw)
		ibv_dealloc_mw(mw);

	/* Type 1: bind, rebind, key generations. */
	if (fq_make(&f, pd1, "mw.bind1")) {
		rk0 = mw1->rkey;
		got = bind1(f.qp, f.cq, mw1, mr_bind, (uintptr_t)buf, 4096,
			    RR | RW, 101, true, wc);
		expect_wc("mw.bind1", got, wc, IBV_WC_SUCCESS, IBV_WC_BIND_MW,
			  101);
		got = bind1(f.qp, f.cq, mw1, mr_bind, (uintptr_t)buf + 4096,
			    8192, RR, 102, true, wc);
		expect_wc("mw.bind1.rebind", got, wc, IBV_WC_SUCCESS,
			  IBV_WC_BIND_MW, 102);
		if (mw1->rkey == ibv_inc_rkey(ibv_inc_rkey(rk0)))
			vt_ok("mw.bind1.rkey_generation",
			      "0x%08x -> 0x%08x: same index, key byte +2", rk0,
			      mw1->rkey);
		else
			vt_failf("mw.bind1.rkey_generation",
				 "0x%08x -> 0x%08x, want 0x%08x", rk0,
				 mw1->rkey, ibv_inc_rkey(ibv_inc_rkey(rk0)));
		fq_free(&f);
	}
	bind1_fresh("mw.bind1.mr_without_mw_bind", pd1, mw1, mr_nobind,
		    (uintptr_t)buf, 4096, RR, WC_BAD_BIND);
	bind1_fresh("mw.bind1.beyond_mr", pd1, mw1, mr_bind,
		    (uintptr_t)buf + BUFSZ - 4096, 8192, RR, WC_BAD_BIND);
	bind1_fresh("mw.bind1.remote_write_on_mr_without_local_write", pd1,
		    mw1, mr_nolw, (uintptr_t)buf, 4096, RW, WC_BAD_BIND);
	/*
	 * LOCAL_WRITE in a window's rights means nothing and is ignored, as
	 * by ConnectX and rdma_rxe (applications pass their MR's flags).
	 */
	bind1_fresh("mw.bind1.local_write_ignored", pd1, mw1, mr_lwb,
		    (uintptr_t)buf, 4096, RW | LW, IBV_WC_SUCCESS);
	bind1_fresh("mw.bind1.iova_mr", pd1, mw1, mr_iova, IOVA + 4096, 4096,
		    RR | RW, IBV_WC_SUCCESS);
	bind1_fresh("mw.bind1.iova_mr_at_va", pd1, mw1, mr_iova,
		    (uintptr_t)buf, 4096, RR, WC_BAD_BIND);
	bind1_fresh("mw.bind1.zero_based_mr", pd1, mw1, mr_zb, 0, 4096, RR,
		    IBV_WC_SUCCESS);
	bind1_fresh("mw.bind1.zero_based_mr_end", pd1, mw1, mr_zb,
		    BUFSZ - 4096, 4096, RR, IBV_WC_SUCCESS);
	bind1_fresh("mw.bind1.zero_based_mr_past_end", pd1, mw1, mr_zb, BUFSZ,
		    1, RR, WC_BAD_BIND);
	{
		struct ibv_mw_bind b = {
			.wr_id = 1,
			.send_flags = IBV_SEND_SIGNALED,
			.bind_info = { .mr = mr_pd2, .addr = (uintptr_t)buf,
				       .length = 4096, .mw_access_flags = RR },
		};

		if (fq_make(&f, pd1, "mw.bind1.other_pd (libibverbs)")) {
			vt_expect_rc("mw.bind1.other_pd (libibverbs)",
				     ibv_bind_mw(f.qp, mw1, &b), EPERM);
			fq_free(&f);
		}
	}

	/* Type 2: bind, invalidate, rebind with a new key, stale key. */
	if (fq_make(&f, pd1, "mw.bind2")) {
		k1 = ibv_inc_rkey(mw2->rkey);
		wr_bind2(&wr, 201, mw2, k1, mr_bind, (uintptr_t)buf, 4096,
			 RR | RW);
		expect_wc("mw.bind2", vt_post_wait(f.qp, f.cq, &wr, wc, WAIT_MS),
			  wc, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 201);
		mw2->rkey = k1;
		wr_inv(&wr, 202, k1);
		expect_wc("mw.inv2", vt_post_wait(f.qp, f.cq, &wr, wc, WAIT_MS),
			  wc, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV, 202);
		k2 = ibv_inc_rkey(k1);
		wr_bind2(&wr, 203, mw2, k2, mr_bind, (uintptr_t)buf, 4096, RR);
		expect_wc("mw.bind2.after_invalidate",
			  vt_post_wait(f.qp, f.cq, &wr, wc, WAIT_MS), wc,
			  IBV_WC_SUCCESS, IBV_WC_BIND_MW, 203);
		mw2->rkey = k2;
		wr_inv(&wr, 204, k1);
		expect_wc("mw.inv2.stale_generation",
			  vt_post_wait(f.qp, f.cq, &wr, wc, WAIT_MS), wc,
			  WC_BAD_INV, -1, 204);
		fq_free(&f);
	}
	mw = ibv_alloc_mw(pd1, IBV_MW_TYPE_2);
	if (mw && fq_make(&f, pd1, "mw.bind2.while_bound")) {
		k1 = ibv_inc_rkey(mw->rkey);
		wr_bind2(&wr, 211, mw, k1, mr_bind, (uintptr_t)buf, 4096, RR);
		got = vt_post_wait(f.qp, f.cq, &wr, wc, WAIT_MS);
		if (got == 1 && wc->status == IBV_WC_SUCCESS) {
			wr_bind2(&wr, 212, mw, ibv_inc_rkey(k1), mr_bind,
				 (uintptr_t)buf, 4096, RR);
			expect_wc("mw.bind2.while_bound",
				  vt_post_wait(f.qp, f.cq, &wr, wc, WAIT_MS),
				  wc, WC_BAD_BIND, -1, 212);
		} else {
			vt_failf("mw.bind2.while_bound",
				 "first bind: %s",
				 got == 1 ? vt_wcname(wc->status) :
					    "no completion");
		}
		fq_free(&f);
	}
	if (mw)
		ibv_dealloc_mw(mw);
	mw = ibv_alloc_mw(pd1, IBV_MW_TYPE_2);
	if (mw) {
		wr_bind2(&wr, 221, mw, mw->rkey ^ 0x100, mr_bind,
			 (uintptr_t)buf, 4096, RR);
		op_fresh("mw.bind2.key_of_other_index", pd1, &wr, WC_BAD_BIND,
			 -1);
		wr_bind2(&wr, 222, mw, ibv_inc_rkey(mw->rkey), mr_pd2,
			 (uintptr_t)buf, 4096, RR);
		op_fresh("mw.bind2.mr_of_other_pd", pd1, &wr, WC_BAD_BIND, -1);
		wr_bind2(&wr, 223, mw, ibv_inc_rkey(mw->rkey), mr_bind,
			 (uintptr_t)buf, 4096, RW);
		op_fresh("mw.bind2.remote_write_ok", pd1, &wr, IBV_WC_SUCCESS,
			 IBV_WC_BIND_MW);
		ibv_dealloc_mw(mw);
	} else {
		vt_failf("mw.bind2", "alloc_mw: %s", vt_errname(errno));
	}
	mw = ibv_alloc_mw(pd1, IBV_MW_TYPE_2);
	if (mw) {
		wr_bind2(&wr, 224, mw, ibv_inc_rkey(mw->rkey), mr_lwb,
			 (uintptr_t)buf, 4096, RW | LW);
		op_fresh("mw.bind2.local_write_ignored", pd1, &wr,
			 IBV_WC_SUCCESS, IBV_WC_BIND_MW);
		ibv_dealloc_mw(mw);
	} else {
		vt_failf("mw.bind2", "alloc_mw: %s", vt_errname(errno));
	}

	/* LOCAL_INV of things that cannot be invalidated this way. */
	wr_inv(&wr, 231, mw1->rkey);
	op_fresh("mw.inv.type1_window", pd1, &wr, WC_BAD_INV, -1);
	wr_inv(&wr, 232, mr_bind->lkey);
	op_fresh("mw.inv.user_mr", pd1, &wr, WC_BAD_INV, -1);
	wr_inv(&wr, 233, 0xdead0000 | (mr_bind->lkey & 0xff));
	op_fresh("mw.inv.unknown_key", pd1, &wr, WC_BAD_INV, -1);

	/* The same operations through the ibv_wr_* API. */
	{
		struct ibv_qp_init_attr_ex ia = {
			.qp_type = IBV_QPT_RC,
			.sq_sig_all = 0,
			.cap = { .max_send_wr = 8, .max_recv_wr = 8,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = pd1,
			.send_ops_flags = IBV_QP_EX_WITH_BIND_MW |
					  IBV_QP_EX_WITH_LOCAL_INV |
					  IBV_QP_EX_WITH_SEND,
		};
		struct ibv_qp_ex *qpx;
		struct ibv_mw_bind_info bi = {
			.mr = mr_bind, .addr = (uintptr_t)buf, .length = 4096,
			.mw_access_flags = RR,
		};

		mw = ibv_alloc_mw(pd1, IBV_MW_TYPE_2);
		f.cq = ibv_create_cq(D.ctx, 16, NULL, NULL, 0);
		ia.send_cq = ia.recv_cq = f.cq;
		f.qp = f.cq ? ibv_create_qp_ex(D.ctx, &ia) : NULL;
		if (!mw || !f.qp || vt_qp_to_rts(&D, f.qp, f.qp->qp_num)) {
			vt_failf("mw.wr_api", "set-up failed: %s",
				 vt_errname(errno));
		} else {
			qpx = ibv_qp_to_qp_ex(f.qp);
			k1 = ibv_inc_rkey(mw->rkey);
			ibv_wr_start(qpx);
			qpx->wr_id = 241;
			qpx->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_bind_mw(qpx, mw, k1, &bi);
			got = ibv_wr_complete(qpx);
			if (!got)
				got = vt_poll(f.cq, wc, 1, WAIT_MS);
			else
				got = -got;
			expect_wc("mw.wr_api.bind_mw", got, wc, IBV_WC_SUCCESS,
				  IBV_WC_BIND_MW, 241);
			ibv_wr_start(qpx);
			qpx->wr_id = 242;
			qpx->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_local_inv(qpx, k1);
			got = ibv_wr_complete(qpx);
			if (!got)
				got = vt_poll(f.cq, wc, 1, WAIT_MS);
			else
				got = -got;
			expect_wc("mw.wr_api.local_inv", got, wc,
				  IBV_WC_SUCCESS, IBV_WC_LOCAL_INV, 242);
			/* ibv_wr_bind_mw() leaves mw->rkey to the caller */
			mw->rkey = k1;
			bi.mr = mr_lwb;
			bi.mw_access_flags = RW | LW;
			ibv_wr_start(qpx);
			qpx->wr_id = 243;
			qpx->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_bind_mw(qpx, mw, ibv_inc_rkey(k1), &bi);
			got = ibv_wr_complete(qpx);
			if (!got)
				got = vt_poll(f.cq, wc, 1, WAIT_MS);
			else
				got = -got;
			expect_wc("mw.wr_api.bind_mw.local_write_ignored", got,
				  wc, IBV_WC_SUCCESS, IBV_WC_BIND_MW, 243);
		}
		fq_free(&f);
		if (mw)
			ibv_dealloc_mw(mw);
	}

	/* Unsignaled local operations complete silently. */
	f.cq = ibv_create_cq(D.ctx, 16, NULL, NULL, 0);
	f.qp = f.cq ? vt_create_qp(&D, pd1, IBV_QPT_RC, f.cq, f.cq, NULL, 8, 1,
				   0) : NULL;
	if (!f.qp || vt_qp_to_rts(&D, f.qp, f.qp->qp_num)) {
		vt_failf("mw.unsignaled", "set-up failed: %s",
			 vt_errname(errno));
	} else {
		got = bind1(f.qp, f.cq, mw1, mr_bind, (uintptr_t)buf, 4096, RR,
			    251, false, wc);
		if (got < 0) {
			vt_failf("mw.unsignaled", "bind: %s",
				 vt_errname(-got));
		} else {
			got = bind1(f.qp, f.cq, mw1, mr_bind, (uintptr_t)buf,
				    4096, RR, 252, true, wc);
			if (got == 1 && wc[0].wr_id == 252 &&
			    wc[0].status == IBV_WC_SUCCESS &&
			    vt_poll(f.cq, wc, 1, QUIET_MS) == 0)
				vt_ok("mw.unsignaled",
				      "only the signaled bind completed");
			else
				vt_failf("mw.unsignaled",
					 "got %d completion(s), first wr_id %llu %s, want only wr_id 252 SUCCESS",
					 got, (unsigned long long)wc[0].wr_id,
					 got > 0 ? vt_wcname(wc[0].status) : "");
		}
	}
	fq_free(&f);

	vt_expect_rc("mw.dealloc.bound_type1", vt_rc(ibv_dealloc_mw(mw1)), 0);
	vt_expect_rc("mw.dealloc.type2", vt_rc(ibv_dealloc_mw(mw2)), 0);
out_mr:
	if (mr_bind)
		vt_expect_rc("mw.dereg_mr_after_windows",
			     vt_rc(ibv_dereg_mr(mr_bind)), 0);
	if (mr_nobind)
		ibv_dereg_mr(mr_nobind);
	if (mr_nolw)
		ibv_dereg_mr(mr_nolw);
	if (mr_pd2)
		ibv_dereg_mr(mr_pd2);
	if (mr_iova)
		ibv_dereg_mr(mr_iova);
	if (mr_zb)
		ibv_dereg_mr(mr_zb);
	if (mr_lwb)
		ibv_dereg_mr(mr_lwb);
}

/* ---------------------------------------------------------------- rereg */

/* Bind a fresh type 1 window of @pd to @mr, then free it (and the binding). */
static void bind_check(const char *name, struct ibv_pd *pd, struct ibv_mr *mr,
		       uint64_t addr, uint64_t len, enum ibv_wc_status st)
{
	struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);

	if (!mw) {
		vt_failf(name, "set-up: alloc_mw: %s", vt_errname(errno));
		return;
	}
	bind1_fresh(name, pd, mw, mr, addr, len, RR, st);
	ibv_dealloc_mw(mw);
}

static void test_rereg(void)
{
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	uint64_t cur = (uintptr_t)buf;	/* the MR's IOVA */
	int ret;

	mr = reg(pd1, buf, BUFSZ, LW | RR | MWB);
	if (!mr) {
		vt_failf("rereg", "set-up failed: %s", vt_errname(errno));
		return;
	}

	vt_expect_rc("rereg.no_flags", vt_cmd_rereg_mr(mr, 0, buf, BUFSZ,
						       (uintptr_t)buf, NULL,
						       0), EINVAL);
	vt_expect_rc("rereg.unknown_flag",
		     vt_cmd_rereg_mr(mr, 8, buf, BUFSZ, (uintptr_t)buf, NULL,
				     0), EOPNOTSUPP);
	vt_expect_rc("rereg.trans_page_offset_differs",
		     vt_cmd_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, buf2,
				     BUFSZ, IOVA2 + 0x10, NULL, 0), EINVAL);
	vt_expect_rc("rereg.access_remote_write_without_local_write",
		     vt_cmd_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, 0,
				     0, NULL, RW | MWB), EINVAL);

	/* Translation: new buffer at a new IOVA. */
	ret = vt_cmd_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, buf2,
			      BUFSZ / 2, IOVA2, NULL, 0);
	if (vt_expect_rc("rereg.translation", ret, 0)) {
		cur = IOVA2;
		bind_check("rereg.translation.bind_new_range", pd1, mr,
			   IOVA2 + 4096, 4096, IBV_WC_SUCCESS);
		bind_check("rereg.translation.bind_past_new_length", pd1, mr,
			   IOVA2 + BUFSZ / 2, 4096, WC_BAD_BIND);
		bind_check("rereg.translation.bind_old_range", pd1, mr,
			   (uintptr_t)buf, 4096, WC_BAD_BIND);
	}

	/* Access: without MW_BIND, binds fail. */
	ret = vt_cmd_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, 0, 0, NULL,
			      LW | RR);
	if (vt_expect_rc("rereg.access", ret, 0))
		bind_check("rereg.access.bind_without_mw_bind", pd1, mr,
			   cur, 4096,
			   WC_BAD_BIND);
	ret = vt_cmd_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, 0, 0, NULL,
			      LW | RR | MWB);
	vt_expect_rc("rereg.access_back", ret, 0);

	/* PD: the MR moves to pd2. */
	ret = vt_cmd_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, NULL, 0, 0, pd2, 0);
	if (vt_expect_rc("rereg.pd", ret, 0)) {
		struct ibv_mw *mw2 = ibv_alloc_mw(pd1, IBV_MW_TYPE_2);
		struct ibv_send_wr wr;

		bind_check("rereg.pd.bind_from_new_pd", pd2, mr, cur, 4096,
			   IBV_WC_SUCCESS);
		/*
		 * A bind from the old PD: libibverbs refuses mw->pd != mr->pd
		 * itself, so post it as a type 2 bind WQE instead.
		 */
		if (mw2) {
			wr_bind2(&wr, 301, mw2, ibv_inc_rkey(mw2->rkey), mr,
				 cur, 4096, RR);
			op_fresh("rereg.pd.bind_from_old_pd", pd1, &wr,
				 WC_BAD_BIND, -1);
			ibv_dealloc_mw(mw2);
		}
	}

	/* A window bound to the MR keeps it from going away. */
	mw = ibv_alloc_mw(mr->pd, IBV_MW_TYPE_1);
	if (mw && mr) {
		struct ibv_wc wc;
		struct fq f;

		if (fq_make(&f, mr->pd, "mr.dereg_with_bound_window")) {
			if (bind1(f.qp, f.cq, mw, mr, cur, 4096, RR, 5, true,
				  &wc) == 1 && wc.status == IBV_WC_SUCCESS) {
				ret = vt_rc(ibv_dereg_mr(mr));
				vt_expect_rc("mr.dereg_with_bound_window", ret,
					     EBUSY);
				if (!ret)
					mr = NULL;
			} else {
				vt_failf("mr.dereg_with_bound_window",
					 "set-up: bind failed");
			}
			fq_free(&f);
		}
		ibv_dealloc_mw(mw);
	}
	if (mr)
		vt_expect_rc("rereg.dereg", vt_rc(ibv_dereg_mr(mr)), 0);
}

/* ------------------------------------------------------------------- CQ */

/* An RC QP in INIT on @rcq with @n receives posted (wr_ids from @id0). */
static struct ibv_qp *qp_with_recvs(struct ibv_cq *rcq, struct ibv_cq *scq,
				    struct ibv_mr *mr, uint64_t id0, int n,
				    const char *name)
{
	struct ibv_qp *qp;
	int ret;

	qp = vt_create_qp(&D, pd1, IBV_QPT_RC, scq, rcq, NULL,
			  (uint32_t)(n < 8 ? 8 : n), 1, 1);
	if (!qp) {
		vt_failf(name, "set-up: create_qp: %s", vt_errname(errno));
		return NULL;
	}
	ret = vt_qp_init(&D, qp);
	if (!ret)
		ret = post_recvs(qp, mr, id0, n);
	if (ret) {
		vt_failf(name, "set-up: init/post_recv: %s", vt_errname(ret));
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

static void test_cq(void)
{
	struct ibv_cq *cq, *scq = NULL, *small = NULL;
	struct ibv_comp_channel *ch = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_mr *mr;
	struct ibv_wc wc[64];
	struct vt_snap *snap = malloc(sizeof(*snap));
	struct vt_map m[4];
	struct ibv_async_event ev;
	struct ibv_cq *evcq;
	int n, got, ret, cap;

	mr = reg(pd1, buf, BUFSZ, LW);
	if (!snap || !mr) {
		vt_failf("cq", "set-up failed");
		goto out;
	}

	errno = 0;
	cq = ibv_create_cq(D.ctx, D.attr.max_cqe + 1, NULL, NULL, 0);
	vt_expect_null("cq.create.above_max_cqe", cq, errno, EINVAL,
		       vt_destroy_cq);
	errno = 0;
	cq = ibv_create_cq(D.ctx, -1, NULL, NULL, 0);
	vt_expect_null("cq.create.negative", cq, errno, EINVAL, vt_destroy_cq);
	/* completion work does not follow comp_vector: vroce says it has 1 */
	if (D.ctx->num_comp_vectors == 1)
		vt_ok("cq.num_comp_vectors", "1");
	else
		vt_failf("cq.num_comp_vectors", "%d, want 1 (comp_vector is not honoured)",
			 D.ctx->num_comp_vectors);
	errno = 0;
	cq = ibv_create_cq(D.ctx, 16, NULL, NULL, D.ctx->num_comp_vectors);
	vt_expect_null("cq.create.bad_comp_vector", cq, errno, EINVAL,
		       vt_destroy_cq);

	scq = ibv_create_cq(D.ctx, 16, NULL, NULL, 0);
	vt_snap_take(snap);
	cq = ibv_create_cq(D.ctx, 16, NULL, NULL, 0);
	if (!cq || !scq) {
		vt_failf("cq.create", "%s", vt_errname(errno));
		goto out;
	}
	if (cq->cqe < 16)
		vt_failf("cq.create", "cqe %d, want >= 16", cq->cqe);
	else
		vt_ok("cq.create", "cqe 16 -> %d", cq->cqe);
	n = vt_snap_new(snap, m, 4);
	if (n != 1) {
		vt_failf("cq.ring", "%d new uverbs mappings, want 1", n);
		goto out;
	} else {
		struct rxe_queue_buf *q = vt_map_q(&m[0]);
		uint32_t slots = q->index_mask + 1;

		if ((1U << q->log2_elem_size) < sizeof(struct ib_uverbs_wc) ||
		    q->index_mask < (uint32_t)cq->cqe ||
		    (slots & (slots - 1)) ||
		    sizeof(*q) + ((size_t)slots << q->log2_elem_size) >
			    m[0].end - m[0].start)
			vt_failf("cq.ring",
				 "elem %u bytes, %u slots, %lu bytes mapped for cqe %d",
				 1U << q->log2_elem_size, slots,
				 (unsigned long)(m[0].end - m[0].start),
				 cq->cqe);
		else
			vt_ok("cq.ring", "%u slots of %u bytes", slots,
			      1U << q->log2_elem_size);
	}

	/* Eight flushed receives stay queued across resizes. */
	qp = qp_with_recvs(cq, scq, mr, 1000, 8, "cq.resize");
	if (!qp)
		goto out;
	ret = vt_qp_set_state(qp, IBV_QPS_ERR);
	if (ret || !wait_ring_count(&m[0], 8, WAIT_MS)) {
		vt_failf("cq.resize", "set-up: %s, %u entries queued, want 8",
			 vt_errname(ret), vt_q_count(vt_map_q(&m[0])));
		goto out;
	}
	cap = cq->cqe;
	vt_expect_rc("cq.resize.below_queued (2 < 8)",
		     vt_rc(ibv_resize_cq(cq, 2)), EINVAL);
	if (cq->cqe != cap)
		vt_failf("cq.resize.below_queued.cqe", "cqe %d, want %d",
			 cq->cqe, cap);
	ret = vt_rc(ibv_resize_cq(cq, 64));
	if (vt_expect_rc("cq.resize.up (64)", ret, 0)) {
		if (cq->cqe < 64)
			vt_failf("cq.resize.up.cqe", "cqe %d, want >= 64",
				 cq->cqe);
		got = vt_poll(cq, wc, 9, QUIET_MS);
		check_flush("cq.resize.up.keeps_entries", wc, got, 8, 1000,
			    qp->qp_num);
	}
	ibv_destroy_qp(qp);
	qp = qp_with_recvs(cq, scq, mr, 1100, 8, "cq.resize.down");
	if (qp) {
		vt_qp_set_state(qp, IBV_QPS_ERR);
		usleep(200000);
		ret = vt_rc(ibv_resize_cq(cq, 9));
		if (vt_expect_rc("cq.resize.down (64 -> 9, 8 queued)", ret,
				 0)) {
			got = vt_poll(cq, wc, 9, WAIT_MS);
			check_flush("cq.resize.down.keeps_entries", wc, got, 8,
				    1100, qp->qp_num);
		}
		ibv_destroy_qp(qp);
		qp = NULL;
	}

	/* Destroying a CQ that a QP uses. */
	qp = vt_create_qp(&D, pd1, IBV_QPT_RC, scq, cq, NULL, 4, 1, 1);
	if (qp) {
		vt_expect_rc("cq.destroy.busy", vt_rc(ibv_destroy_cq(cq)),
			     EBUSY);
		ibv_destroy_qp(qp);
		qp = NULL;
	}
	vt_expect_rc("cq.destroy", vt_rc(ibv_destroy_cq(cq)), 0);

	/* Overflow: more flushed receives than the CQ holds. */
	small = ibv_create_cq(D.ctx, 4, NULL, NULL, 0);
	if (small) {
		int extra = small->cqe + 4;

		vt_drain_async(D.ctx);
		qp = qp_with_recvs(small, scq, mr, 1200, extra, "cq.overflow");
		if (qp) {
			vt_qp_set_state(qp, IBV_QPS_ERR);
			if (vt_wait_async(D.ctx, IBV_EVENT_CQ_ERR, WAIT_MS,
					  &ev) &&
			    ev.element.cq == small)
				vt_ok("cq.overflow.event", "IBV_EVENT_CQ_ERR");
			else
				vt_failf("cq.overflow.event",
					 "no IBV_EVENT_CQ_ERR for the CQ within %d ms (%d receives flushed into %d entries)",
					 WAIT_MS, extra, small->cqe);
			got = vt_poll(small, wc, extra, QUIET_MS);
			if (got > small->cqe || got < 1)
				vt_failf("cq.overflow.entries",
					 "%d entries from a CQ of %d", got,
					 small->cqe);
			else
				check_flush("cq.overflow.entries", wc, got, got,
					    1200, qp->qp_num);
			vt_expect_rc("cq.overflow.destroy_qp",
				     vt_rc(ibv_destroy_qp(qp)), 0);
			qp = NULL;
		}
		vt_expect_rc("cq.overflow.destroy_cq",
			     vt_rc(ibv_destroy_cq(small)), 0);
		small = NULL;
	}

	/* Completion channel: armed, disarmed, solicited. */
	ch = ibv_create_comp_channel(D.ctx);
	cq = ch ? ibv_create_cq(D.ctx, 16, NULL, ch, 0) : NULL;
	if (!cq) {
		vt_failf("cq.notify", "set-up: %s", vt_errname(errno));
		goto out;
	}
	vt_expect_rc("cq.notify.arm", vt_rc(ibv_req_notify_cq(cq, 0)), 0);
	qp = qp_with_recvs(cq, scq, mr, 1300, 1, "cq.notify");
	if (qp) {
		vt_qp_set_state(qp, IBV_QPS_ERR);
		if (vt_wait_cq_event(ch, WAIT_MS, &evcq) && evcq == cq)
			vt_ok("cq.notify.event_after_flush",
			      "ibv_get_cq_event returned the CQ");
		else
			vt_failf("cq.notify.event_after_flush",
				 "no completion event within %d ms", WAIT_MS);
		got = vt_poll(cq, wc, 1, WAIT_MS);
		check_flush("cq.notify.entry", wc, got, 1, 1300, qp->qp_num);
		ibv_destroy_qp(qp);
	}
	qp = qp_with_recvs(cq, scq, mr, 1400, 1, "cq.notify.disarmed");
	if (qp) {
		vt_qp_set_state(qp, IBV_QPS_ERR);
		if (vt_wait_cq_event(ch, QUIET_MS, &evcq))
			vt_failf("cq.notify.disarmed",
				 "event without ibv_req_notify_cq");
		else
			vt_ok("cq.notify.disarmed", "no event");
		vt_poll(cq, wc, 1, WAIT_MS);
		ibv_destroy_qp(qp);
	}
	vt_expect_rc("cq.notify.arm_solicited",
		     vt_rc(ibv_req_notify_cq(cq, 1)), 0);
	qp = qp_with_recvs(cq, scq, mr, 1500, 1, "cq.notify.solicited");
	if (qp) {
		vt_qp_set_state(qp, IBV_QPS_ERR);
		if (vt_wait_cq_event(ch, WAIT_MS, &evcq) && evcq == cq)
			vt_ok("cq.notify.solicited_error_completion",
			      "an error completion fires a solicited arm");
		else
			vt_failf("cq.notify.solicited_error_completion",
				 "no event within %d ms", WAIT_MS);
		vt_poll(cq, wc, 1, WAIT_MS);
		ibv_destroy_qp(qp);
	}
	qp = NULL;
	vt_expect_rc("cq.notify.destroy_cq", vt_rc(ibv_destroy_cq(cq)), 0);
	vt_expect_rc("cq.notify.destroy_channel",
		     vt_rc(ibv_destroy_comp_channel(ch)), 0);
	ch = NULL;
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (scq)
		ibv_destroy_cq(scq);
	if (mr)
		ibv_dereg_mr(mr);
	free(snap);
}

/* ------------------------------------------------------------------ SRQ */

static void test_srq(void)
{
	struct ibv_srq_init_attr ia = {
		.attr = { .max_wr = 16, .max_sge = 2, .srq_limit = 0 },
	};
	struct ibv_srq_attr sa;
	struct ibv_srq *srq;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_mr *mr;
	struct vt_snap *snap = malloc(sizeof(*snap));
	struct vt_map m[4];
	struct ibv_async_event ev;
	int n, i, ret;

	mr = reg(pd1, buf, BUFSZ, LW);
	cq = ibv_create_cq(D.ctx, 16, NULL, NULL, 0);
	if (!snap || !mr || !cq) {
		vt_failf("srq", "set-up failed");
		goto out;
	}

	{
		struct ibv_srq_init_attr bad = ia;

		bad.attr.max_wr = D.attr.max_srq_wr + 1;
		errno = 0;
		srq = ibv_create_srq(pd1, &bad);
		vt_expect_null("srq.create.above_max_srq_wr", srq, errno,
			       EINVAL, vt_destroy_srq);
		bad = ia;
		bad.attr.max_sge = (uint32_t)D.attr.max_srq_sge + 1;
		errno = 0;
		srq = ibv_create_srq(pd1, &bad);
		vt_expect_null("srq.create.above_max_srq_sge", srq, errno,
			       EINVAL, vt_destroy_srq);
	}

	vt_snap_take(snap);
	srq = ibv_create_srq(pd1, &ia);
	if (!srq) {
		vt_failf("srq.create", "%s", vt_errname(errno));
		goto out;
	}
	if (ia.attr.max_wr < 16 || ia.attr.max_sge < 2)
		vt_failf("srq.create", "max_wr %u max_sge %u, want >= 16, >= 2",
			 ia.attr.max_wr, ia.attr.max_sge);
	else
		vt_ok("srq.create", "max_wr 16 -> %u, max_sge 2 -> %u",
		      ia.attr.max_wr, ia.attr.max_sge);
	n = vt_snap_new(snap, m, 4);
	if (n != 1) {
		vt_failf("srq.ring", "%d new uverbs mappings, want 1", n);
		goto out_srq;
	} else {
		struct rxe_queue_buf *q = vt_map_q(&m[0]);

		if (q->index_mask < ia.attr.max_wr ||
		    (1U << q->log2_elem_size) <
			    sizeof(struct rxe_recv_wqe) +
				    ia.attr.max_sge * sizeof(struct rxe_sge))
			vt_failf("srq.ring", "%u slots of %u bytes for max_wr %u max_sge %u",
				 q->index_mask + 1, 1U << q->log2_elem_size,
				 ia.attr.max_wr, ia.attr.max_sge);
		else
			vt_ok("srq.ring", "%u slots of %u bytes",
			      q->index_mask + 1, 1U << q->log2_elem_size);
	}

	memset(&sa, 0xff, sizeof(sa));
	ret = vt_rc(ibv_query_srq(srq, &sa));
	if (ret || sa.max_wr != ia.attr.max_wr || sa.max_sge != ia.attr.max_sge ||
	    sa.srq_limit != 0)
		vt_failf("srq.query", "%s: max_wr %u max_sge %u limit %u, want %u %u 0",
			 vt_errname(ret), sa.max_wr, sa.max_sge, sa.srq_limit,
			 ia.attr.max_wr, ia.attr.max_sge);
	else
		vt_ok("srq.query", "max_wr %u max_sge %u limit 0", sa.max_wr,
		      sa.max_sge);

	sa.srq_limit = 4;
	ret = vt_rc(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT));
	if (vt_expect_rc("srq.limit", ret, 0)) {
		memset(&sa, 0, sizeof(sa));
		ibv_query_srq(srq, &sa);
		if (sa.srq_limit != 4)
			vt_failf("srq.limit.query", "limit %u, want 4",
				 sa.srq_limit);
		else
			vt_ok("srq.limit.query", "limit 4");
	}
	sa.srq_limit = ia.attr.max_wr + 1;
	vt_expect_rc("srq.limit.above_max_wr",
		     vt_rc(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT)), EINVAL);

	for (i = 0; i < 10; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64,
				       .lkey = mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = 2000 + (uint64_t)i,
					  .sg_list = &sge, .num_sge = 1 }, *bad;

		ret = vt_rc(ibv_post_srq_recv(srq, &wr, &bad));
		if (ret)
			break;
	}
	if (ret || vt_q_count(vt_map_q(&m[0])) != 10)
		vt_failf("srq.post", "%s, %u queued, want 10", vt_errname(ret),
			 vt_q_count(vt_map_q(&m[0])));
	else
		vt_ok("srq.post", "10 receives queued");

	if (!(D.attr.device_cap_flags & IBV_DEVICE_SRQ_RESIZE)) {
		vt_skipf("srq.resize", "device does not report SRQ_RESIZE");
	} else {
		sa.max_wr = 4;
		vt_expect_rc("srq.resize.below_queued (4 < 10)",
			     vt_rc(ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR)),
			     EINVAL);
		vt_snap_take(snap);
		sa.max_wr = 64;
		ret = vt_rc(ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR));
		if (vt_expect_rc("srq.resize (64)", ret, 0)) {
			memset(&sa, 0, sizeof(sa));
			ibv_query_srq(srq, &sa);
			n = vt_snap_new(snap, m, 4);
			if (sa.max_wr < 64)
				vt_failf("srq.resize.query", "max_wr %u, want >= 64",
					 sa.max_wr);
			else if (n != 1)
				vt_failf("srq.resize.ring",
					 "%d new mappings, want 1", n);
			else if (vt_q_count(vt_map_q(&m[0])) != 10)
				vt_failf("srq.resize.keeps_entries",
					 "%u queued after resize, want 10",
					 vt_q_count(vt_map_q(&m[0])));
			else
				vt_ok("srq.resize.keeps_entries",
				      "max_wr %u, 10 receives still queued",
				      sa.max_wr);
		}
	}

	/*
	 * The limit event needs receives to be consumed (traffic); a device
	 * may also raise it when armed below the current level.
	 */
	vt_drain_async(D.ctx);
	sa.srq_limit = 12;
	ret = vt_rc(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT));
	if (ret)
		vt_failf("srq.limit_event", "arm limit 12: %s",
			 vt_errname(ret));
	else if (vt_wait_async(D.ctx, IBV_EVENT_SRQ_LIMIT_REACHED, 1000, &ev))
		vt_ok("srq.limit_event", "SRQ_LIMIT_REACHED when armed above the queued count");
	else
		vt_info("srq.limit_event: no event when armed above the queued count (allowed; srq.limit_event_traffic checks the event)");

	qp = vt_create_qp(&D, pd1, IBV_QPT_RC, cq, cq, srq, 8, 1, 1);
	if (!qp) {
		vt_failf("srq.qp", "create RC QP on the SRQ: %s",
			 vt_errname(errno));
	} else {
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr qa;

		memset(&qa, 0, sizeof(qa));
		ret = vt_rc(ibv_query_qp(qp, &a, IBV_QP_CAP, &qa));
		if (ret || qa.srq != srq || qa.cap.max_recv_wr != 0)
			vt_failf("srq.qp", "query: %s, srq %p (want %p), max_recv_wr %u",
				 vt_errname(ret), (void *)qa.srq, (void *)srq,
				 qa.cap.max_recv_wr);
		else
			vt_ok("srq.qp", "QP on the SRQ, no RQ");
		vt_expect_rc("srq.destroy.busy", vt_rc(ibv_destroy_srq(srq)),
			     EBUSY);
		ibv_destroy_qp(qp);
		qp = NULL;
	}
out_srq:
	vt_expect_rc("srq.destroy", vt_rc(ibv_destroy_srq(srq)), 0);
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	if (mr)
		ibv_dereg_mr(mr);
	free(snap);
}

/* ------------------------------------------------------------- QP caps */

static const char *qpt_name(enum ibv_qp_type t)
{
	return t == IBV_QPT_RC ? "rc" : t == IBV_QPT_UC ? "uc" : "ud";
}

static void test_qp_caps(void)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC,
						  IBV_QPT_UD };
	struct ibv_cq *cq = ibv_create_cq(D.ctx, 64, NULL, NULL, 0);
	struct vt_snap *snap = malloc(sizeof(*snap));
	struct ibv_qp_init_attr ia;
	struct ibv_qp *qp;
	char name[64];
	unsigned int t;
	int ret;

	if (!cq || !snap) {
		vt_failf("qp.caps", "set-up failed");
		goto out;
	}
	for (t = 0; t < VT_ARRAY_SIZE(types); t++) {
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr qa;
		struct vt_map m[4];
		struct rxe_queue_buf *sq = NULL, *rq = NULL;
		int n, i;

		memset(&ia, 0, sizeof(ia));
		ia.send_cq = ia.recv_cq = cq;
		ia.qp_type = types[t];
		ia.cap.max_send_wr = 10;
		ia.cap.max_recv_wr = 10;
		ia.cap.max_send_sge = 3;
		ia.cap.max_recv_sge = 2;
		ia.cap.max_inline_data = 64;
		snprintf(name, sizeof(name), "qp.create.%s", qpt_name(types[t]));
		vt_snap_take(snap);
		qp = ibv_create_qp(pd1, &ia);
		if (!qp) {
			vt_failf(name, "%s", vt_errname(errno));
			continue;
		}
		if (ia.cap.max_send_wr < 10 || ia.cap.max_recv_wr < 10 ||
		    ia.cap.max_send_sge < 3 || ia.cap.max_recv_sge < 2 ||
		    ia.cap.max_inline_data < 64)
			vt_failf(name, "caps wr %u/%u sge %u/%u inline %u below the request 10/10 3/2 64",
				 ia.cap.max_send_wr, ia.cap.max_recv_wr,
				 ia.cap.max_send_sge, ia.cap.max_recv_sge,
				 ia.cap.max_inline_data);
		else
			vt_ok(name, "caps wr 10/10 -> %u/%u, sge 3/2 -> %u/%u, inline 64 -> %u",
			      ia.cap.max_send_wr, ia.cap.max_recv_wr,
			      ia.cap.max_send_sge, ia.cap.max_recv_sge,
			      ia.cap.max_inline_data);

		snprintf(name, sizeof(name), "qp.query_caps.%s",
			 qpt_name(types[t]));
		memset(&qa, 0, sizeof(qa));
		ret = vt_rc(ibv_query_qp(qp, &a, IBV_QP_CAP, &qa));
		if (ret || memcmp(&qa.cap, &ia.cap, sizeof(ia.cap)) ||
		    qa.qp_type != types[t] || qa.send_cq != cq ||
		    qa.recv_cq != cq)
			vt_failf(name, "%s: wr %u/%u sge %u/%u inline %u type %d",
				 vt_errname(ret), qa.cap.max_send_wr,
				 qa.cap.max_recv_wr, qa.cap.max_send_sge,
				 qa.cap.max_recv_sge, qa.cap.max_inline_data,
				 qa.qp_type);
		else
			vt_ok(name, "query_qp returns the created caps");

		snprintf(name, sizeof(name), "qp.rings.%s", qpt_name(types[t]));
		n = vt_snap_new(snap, m, 4);
		for (i = 0; i < n; i++) {
			struct rxe_queue_buf *q = vt_map_q(&m[i]);

			if ((1U << q->log2_elem_size) >= sizeof(struct rxe_send_wqe))
				sq = q;
			else
				rq = q;
		}
		if (n != 2 || !sq || !rq) {
			vt_failf(name, "%d new mappings, want an SQ and an RQ",
				 n);
		} else {
			uint32_t sq_need = sizeof(struct rxe_send_wqe) +
				(ia.cap.max_send_sge * sizeof(struct rxe_sge) >
					 ia.cap.max_inline_data ?
				 ia.cap.max_send_sge * sizeof(struct rxe_sge) :
				 ia.cap.max_inline_data);
			uint32_t rq_need = sizeof(struct rxe_recv_wqe) +
				ia.cap.max_recv_sge * sizeof(struct rxe_sge);

			if ((1U << sq->log2_elem_size) < sq_need ||
			    sq->index_mask < ia.cap.max_send_wr ||
			    (1U << rq->log2_elem_size) < rq_need ||
			    rq->index_mask < ia.cap.max_recv_wr)
				vt_failf(name, "SQ %u x %u bytes (need %u x %u), RQ %u x %u (need %u x %u)",
					 sq->index_mask + 1,
					 1U << sq->log2_elem_size,
					 ia.cap.max_send_wr + 1, sq_need,
					 rq->index_mask + 1,
					 1U << rq->log2_elem_size,
					 ia.cap.max_recv_wr + 1, rq_need);
			else
				vt_ok(name, "SQ %u x %u bytes, RQ %u x %u bytes back the caps",
				      sq->index_mask + 1,
				      1U << sq->log2_elem_size,
				      rq->index_mask + 1,
				      1U << rq->log2_elem_size);
		}
		ibv_destroy_qp(qp);
	}

	{
		static const struct {
			const char *name;
			int field;
		} bad[] = {
			{ "qp.create.above_max_qp_wr", 0 },
			{ "qp.create.above_max_sge (send)", 1 },
			{ "qp.create.above_max_sge (recv)", 2 },
			{ "qp.create.inline_4096", 3 },
		};

		for (t = 0; t < VT_ARRAY_SIZE(bad); t++) {
			memset(&ia, 0, sizeof(ia));
			ia.send_cq = ia.recv_cq = cq;
			ia.qp_type = IBV_QPT_RC;
			ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
			ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
			switch (bad[t].field) {
			case 0:
				ia.cap.max_send_wr = (uint32_t)D.attr.max_qp_wr + 1;
				break;
			case 1:
				ia.cap.max_send_sge = (uint32_t)D.attr.max_sge + 1;
				break;
			case 2:
				ia.cap.max_recv_sge = (uint32_t)D.attr.max_sge + 1;
				break;
			default:
				ia.cap.max_inline_data = 4096;
				break;
			}
			errno = 0;
			qp = ibv_create_qp(pd1, &ia);
			vt_expect_null(bad[t].name, qp, errno, EINVAL,
				       vt_destroy_qp);
		}
		memset(&ia, 0, sizeof(ia));
		ia.send_cq = ia.recv_cq = cq;
		ia.qp_type = IBV_QPT_RAW_PACKET;
		ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
		ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
		errno = 0;
		qp = ibv_create_qp(pd1, &ia);
		vt_expect_null("qp.create.raw_packet", qp, errno, EOPNOTSUPP,
			       vt_destroy_qp);
	}

	qp = vt_create_qp(&D, pd1, IBV_QPT_RC, cq, cq, NULL, 4, 1, 1);
	if (qp) {
		struct ibv_pd *pd = qp->pd;

		vt_expect_rc("qp.pd_busy (dealloc_pd with a QP)",
			     vt_rc(ibv_dealloc_pd(pd)), EBUSY);
		vt_expect_rc("qp.destroy", vt_rc(ibv_destroy_qp(qp)), 0);
	}
out:
	if (cq)
		ibv_destroy_cq(cq);
	free(snap);
}

/* ------------------------------------------------------ state machine */

#define ALL_QP_MASK (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | \
		     IBV_QP_ACCESS_FLAGS | IBV_QP_QKEY | IBV_QP_AV | \
		     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | \
		     IBV_QP_SQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | \
		     IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER | \
		     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | \
		     IBV_QP_CAP)

static void modify_expect(const char *type, const char *what,
			  struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
			  int want)
{
	char name[128];

	snprintf(name, sizeof(name), "qp.sm.%s.%s", type, what);
	vt_expect_rc(name, vt_rc(ibv_modify_qp(qp, a, mask)), want);
}

static void expect_state(const char *type, struct ibv_qp *qp,
			 enum ibv_qp_state want)
{
	char name[64];
	enum ibv_qp_state st = vt_qp_state(qp);

	snprintf(name, sizeof(name), "qp.sm.%s.state_%s", type,
		 vt_qpsname(want));
	if (st == want)
		vt_ok(name, "query_qp says %s", vt_qpsname(st));
	else
		vt_failf(name, "query_qp says %s, want %s", vt_qpsname(st),
			 vt_qpsname(want));
}

/* Compare the fields of @want selected by @mask with query_qp's answer. */
static void expect_query(const char *type, const char *when, struct ibv_qp *qp,
			 const struct ibv_qp_attr *want, int mask)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	char name[96], diff[512] = "";
	size_t l = 0;
	int ret;

	snprintf(name, sizeof(name), "qp.query.%s.%s", type, when);
	memset(&a, 0, sizeof(a));
	ret = vt_rc(ibv_query_qp(qp, &a, ALL_QP_MASK, &ia));
	if (ret) {
		vt_failf(name, "query_qp: %s", vt_errname(ret));
		return;
	}
#define CMPF(m, f) do { \
	if ((mask & (m)) && a.f != want->f) \
		l += (size_t)snprintf(diff + l, sizeof(diff) - l, \
				      " " #f " %llu (want %llu)", \
				      (unsigned long long)a.f, \
				      (unsigned long long)want->f); \
	} while (0)
	CMPF(IBV_QP_STATE, qp_state);
	CMPF(IBV_QP_PKEY_INDEX, pkey_index);
	CMPF(IBV_QP_PORT, port_num);
	CMPF(IBV_QP_ACCESS_FLAGS, qp_access_flags);
	CMPF(IBV_QP_QKEY, qkey);
	CMPF(IBV_QP_PATH_MTU, path_mtu);
	CMPF(IBV_QP_DEST_QPN, dest_qp_num);
	CMPF(IBV_QP_RQ_PSN, rq_psn);
	CMPF(IBV_QP_SQ_PSN, sq_psn);
	CMPF(IBV_QP_MAX_DEST_RD_ATOMIC, max_dest_rd_atomic);
	CMPF(IBV_QP_MAX_QP_RD_ATOMIC, max_rd_atomic);
	CMPF(IBV_QP_MIN_RNR_TIMER, min_rnr_timer);
	CMPF(IBV_QP_TIMEOUT, timeout);
	CMPF(IBV_QP_RETRY_CNT, retry_cnt);
	CMPF(IBV_QP_RNR_RETRY, rnr_retry);
	CMPF(IBV_QP_AV, ah_attr.is_global);
	CMPF(IBV_QP_AV, ah_attr.port_num);
	CMPF(IBV_QP_AV, ah_attr.grh.sgid_index);
	CMPF(IBV_QP_AV, ah_attr.grh.hop_limit);
	CMPF(IBV_QP_AV, ah_attr.grh.traffic_class);
	CMPF(IBV_QP_AV, ah_attr.grh.flow_label);
#undef CMPF
	if ((mask & IBV_QP_AV) &&
	    memcmp(a.ah_attr.grh.dgid.raw, want->ah_attr.grh.dgid.raw, 16))
		l += (size_t)snprintf(diff + l, sizeof(diff) - l,
				      " dgid differs");
	(void)l;
	if (diff[0])
		vt_failf(name, "%s", diff);
	else
		vt_ok(name, "query_qp returns what was set");
}

static void test_qp_sm_type(enum ibv_qp_type type, struct ibv_cq *cq)
{
	const char *tn = qpt_name(type);
	bool rc = type == IBV_QPT_RC, conn = type != IBV_QPT_UD;
	struct ibv_qp_attr a, set, qa = { 0 };
	struct ibv_qp_init_attr qia;
	struct ibv_qp *qp;
	struct ibv_async_event ev;
	int init_mask, rtr_mask, rts_mask, set_mask = 0;
	char name[96];

	qp = vt_create_qp(&D, pd1, type, cq, cq, NULL, 8, 1, 1);
	if (!qp) {
		snprintf(name, sizeof(name), "qp.sm.%s", tn);
		vt_failf(name, "create: %s", vt_errname(errno));
		return;
	}
	expect_state(tn, qp, IBV_QPS_RESET);

	memset(&set, 0, sizeof(set));
	set.pkey_index = 0;
	set.port_num = 1;
	set.qp_access_flags = rc ? (IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ) :
				   IBV_ACCESS_REMOTE_WRITE;
	set.qkey = 0x1234567;
	set.path_mtu = IBV_MTU_1024;
	set.dest_qp_num = qp->qp_num;
	set.rq_psn = 0x123456;
	set.sq_psn = 0xabcdef;
	set.max_dest_rd_atomic = 4;
	set.max_rd_atomic = 2;
	set.min_rnr_timer = 12;
	set.timeout = 14;
	set.retry_cnt = 6;
	set.rnr_retry = 5;
	set.ah_attr.is_global = 1;
	set.ah_attr.port_num = 1;
	set.ah_attr.grh.dgid = D.gid;
	set.ah_attr.grh.sgid_index = (uint8_t)D.gid_index;
	set.ah_attr.grh.hop_limit = 64;
	set.ah_attr.grh.traffic_class = 0;

	init_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		    (conn ? IBV_QP_ACCESS_FLAGS : IBV_QP_QKEY);
	rtr_mask = IBV_QP_STATE;
	if (conn)
		rtr_mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN;
	if (rc)
		rtr_mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	rts_mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (rc)
		rts_mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;

	/* From RESET. */
	a = set;
	a.qp_state = IBV_QPS_RTR;
	modify_expect(tn, "illegal_reset_to_rtr", qp, &a, rtr_mask, EINVAL);
	a.qp_state = IBV_QPS_RTS;
	modify_expect(tn, "illegal_reset_to_rts", qp, &a, rts_mask, EINVAL);
	a.qp_state = IBV_QPS_SQD;
	modify_expect(tn, "illegal_reset_to_sqd", qp, &a, IBV_QP_STATE, EINVAL);
	a.qp_state = IBV_QPS_RTS;
	a.cur_qp_state = IBV_QPS_RTR;
	modify_expect(tn, "illegal_reset_to_rts_claiming_cur_state_rtr", qp,
		      &a, rts_mask | IBV_QP_CUR_STATE, EINVAL);
	a.qp_state = IBV_QPS_INIT;
	modify_expect(tn, "init_missing_port", qp, &a,
		      init_mask & ~IBV_QP_PORT, EINVAL);
	modify_expect(tn, "init_missing_pkey_index", qp, &a,
		      init_mask & ~IBV_QP_PKEY_INDEX, EINVAL);
	modify_expect(tn, conn ? "init_missing_access_flags" :
				 "init_missing_qkey",
		      qp, &a, init_mask & ~(conn ? IBV_QP_ACCESS_FLAGS :
					    IBV_QP_QKEY), EINVAL);
	modify_expect(tn, "init_with_sq_psn_not_allowed", qp, &a,
		      init_mask | IBV_QP_SQ_PSN, EINVAL);
	a.port_num = 2;
	modify_expect(tn, "init_port_2", qp, &a, init_mask, EINVAL);
	a.port_num = 1;
	a.pkey_index = 1;
	modify_expect(tn, "init_pkey_index_1", qp, &a, init_mask, EINVAL);
	a.pkey_index = 0;
	expect_state(tn, qp, IBV_QPS_RESET);
	modify_expect(tn, "reset_to_init", qp, &a, init_mask, 0);
	set.qp_state = IBV_QPS_INIT;
	set_mask = init_mask;
	expect_query(tn, "init", qp, &set, set_mask);

	/* From INIT. */
	a = set;
	a.qp_state = IBV_QPS_RTS;
	modify_expect(tn, "illegal_init_to_rts", qp, &a, rts_mask, EINVAL);
	a.qp_state = IBV_QPS_RTR;
	if (conn) {
		modify_expect(tn, "rtr_missing_dest_qpn", qp, &a,
			      rtr_mask & ~IBV_QP_DEST_QPN, EINVAL);
		modify_expect(tn, "rtr_missing_av", qp, &a,
			      rtr_mask & ~IBV_QP_AV, EINVAL);
		modify_expect(tn, "rtr_missing_rq_psn", qp, &a,
			      rtr_mask & ~IBV_QP_RQ_PSN, EINVAL);
		a.ah_attr.grh.sgid_index = (uint8_t)D.empty_gid_index;
		if (D.empty_gid_index >= 0 && D.empty_gid_index < 256)
			modify_expect(tn, "rtr_av_empty_sgid_index", qp, &a,
				      rtr_mask, ENODATA);
		a.ah_attr.grh.sgid_index = (uint8_t)D.gid_index;
	} else {
		modify_expect(tn, "rtr_with_dest_qpn_not_allowed", qp, &a,
			      rtr_mask | IBV_QP_DEST_QPN, EINVAL);
	}
	if (rc) {
		modify_expect(tn, "rtr_missing_min_rnr_timer", qp, &a,
			      rtr_mask & ~IBV_QP_MIN_RNR_TIMER, EINVAL);
		if (D.attr.max_qp_rd_atom < 255) {
			a.max_dest_rd_atomic =
				(uint8_t)(D.attr.max_qp_rd_atom + 1);
			modify_expect(tn, "rtr_max_dest_rd_atomic_above_max",
				      qp, &a, rtr_mask, EINVAL);
			a.max_dest_rd_atomic = set.max_dest_rd_atomic;
		}
	}
	expect_state(tn, qp, IBV_QPS_INIT);
	modify_expect(tn, "init_to_rtr", qp, &a, rtr_mask, 0);
	set.qp_state = IBV_QPS_RTR;
	set_mask |= rtr_mask;
	expect_query(tn, "rtr", qp, &set, set_mask);

	/* From RTR. */
	a = set;
	a.qp_state = IBV_QPS_RTS;
	modify_expect(tn, "rts_missing_sq_psn", qp, &a,
		      rts_mask & ~IBV_QP_SQ_PSN, EINVAL);
	if (rc) {
		modify_expect(tn, "rts_missing_timeout", qp, &a,
			      rts_mask & ~IBV_QP_TIMEOUT, EINVAL);
		if (D.attr.max_qp_rd_atom < 255) {
			a.max_rd_atomic = (uint8_t)(D.attr.max_qp_rd_atom + 1);
			modify_expect(tn, "rts_max_rd_atomic_above_max", qp,
				      &a, rts_mask, EINVAL);
			a.max_rd_atomic = set.max_rd_atomic;
		}
	}
	a.qp_state = IBV_QPS_INIT;
	modify_expect(tn, "illegal_rtr_to_init", qp, &a, IBV_QP_STATE, EINVAL);
	a.qp_state = IBV_QPS_RTS;
	modify_expect(tn, "rtr_to_rts", qp, &a, rts_mask, 0);
	set.qp_state = IBV_QPS_RTS;
	set_mask |= rts_mask;
	if (rc) {
		/*
		 * 14 (67 ms) is below vroce's shortest local ACK timeout, 15
		 * (drivers/vroce/req.h): the QP uses 15, and says so.
		 */
		set.timeout = VROCE_MIN_TIMEOUT;
		snprintf(name, sizeof(name), "qp.sm.%s.timeout_raised", tn);
		if (!ibv_query_qp(qp, &qa, IBV_QP_TIMEOUT, &qia) &&
		    qa.timeout == VROCE_MIN_TIMEOUT)
			vt_ok(name, "timeout 14 set, 15 in use and reported");
		else
			vt_failf(name, "query_qp says timeout %u, want %u",
				 qa.timeout, VROCE_MIN_TIMEOUT);
	}
	expect_query(tn, "rts", qp, &set, set_mask);

	/* From RTS. */
	a = set;
	a.qp_state = IBV_QPS_RTR;
	modify_expect(tn, "illegal_rts_to_rtr", qp, &a, IBV_QP_STATE, EINVAL);
	a.qp_state = IBV_QPS_SQE;
	modify_expect(tn, "illegal_rts_to_sqe", qp, &a, IBV_QP_STATE, EINVAL);
	a.qp_state = IBV_QPS_RTS;
	if (rc) {
		a.min_rnr_timer = 14;
		modify_expect(tn, "rts_to_rts_min_rnr_timer", qp, &a,
			      IBV_QP_STATE | IBV_QP_MIN_RNR_TIMER, 0);
		set.min_rnr_timer = 14;
	} else if (!conn) {
		a.qkey = 0x7654321;
		modify_expect(tn, "rts_to_rts_qkey", qp, &a,
			      IBV_QP_STATE | IBV_QP_QKEY, 0);
		set.qkey = 0x7654321;
	} else {
		modify_expect(tn, "rts_to_rts", qp, &a, IBV_QP_STATE, 0);
	}
	expect_query(tn, "rts_to_rts", qp, &set, set_mask);
	modify_expect(tn, "rts_to_rts_with_dest_qpn_not_allowed", qp, &a,
		      IBV_QP_STATE | IBV_QP_DEST_QPN, EINVAL);

	vt_drain_async(D.ctx);
	a.qp_state = IBV_QPS_SQD;
	a.en_sqd_async_notify = 1;
	modify_expect(tn, "rts_to_sqd", qp, &a,
		      IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY, 0);
	snprintf(name, sizeof(name), "qp.sm.%s.sq_drained_event", tn);
	if (vt_wait_async(D.ctx, IBV_EVENT_SQ_DRAINED, WAIT_MS, &ev) &&
	    ev.element.qp == qp)
		vt_ok(name, "IBV_EVENT_SQ_DRAINED");
	else
		vt_failf(name, "no IBV_EVENT_SQ_DRAINED for the QP within %d ms",
			 WAIT_MS);
	expect_state(tn, qp, IBV_QPS_SQD);
	a.qp_state = IBV_QPS_RTS;
	modify_expect(tn, "sqd_to_rts", qp, &a, IBV_QP_STATE, 0);
	expect_state(tn, qp, IBV_QPS_RTS);

	a.qp_state = IBV_QPS_ERR;
	modify_expect(tn, "rts_to_err", qp, &a, IBV_QP_STATE, 0);
	expect_state(tn, qp, IBV_QPS_ERR);
	a.qp_state = IBV_QPS_RTS;
	modify_expect(tn, "illegal_err_to_rts", qp, &a, rts_mask, EINVAL);
	a.qp_state = IBV_QPS_INIT;
	modify_expect(tn, "illegal_err_to_init", qp, &a, init_mask, EINVAL);
	a.qp_state = IBV_QPS_RESET;
	modify_expect(tn, "err_to_reset", qp, &a, IBV_QP_STATE, 0);
	expect_state(tn, qp, IBV_QPS_RESET);
	a = set;
	a.qp_state = IBV_QPS_INIT;
	modify_expect(tn, "reset_to_init_again", qp, &a, init_mask, 0);
	a.qp_state = IBV_QPS_RESET;
	modify_expect(tn, "init_to_reset", qp, &a, IBV_QP_STATE, 0);

	snprintf(name, sizeof(name), "qp.sm.%s.destroy", tn);
	vt_expect_rc(name, vt_rc(ibv_destroy_qp(qp)), 0);
}

static void test_qp_sm(void)
{
	struct ibv_cq *cq = ibv_create_cq(D.ctx, 64, NULL, NULL, 0);

	if (!cq) {
		vt_failf("qp.sm", "create_cq: %s", vt_errname(errno));
		return;
	}
	test_qp_sm_type(IBV_QPT_RC, cq);
	test_qp_sm_type(IBV_QPT_UC, cq);
	test_qp_sm_type(IBV_QPT_UD, cq);
	ibv_destroy_cq(cq);
}

/* ---------------------------------------------------------------- flush */

static void test_flush(void)
{
	struct ibv_cq *cq = ibv_create_cq(D.ctx, 64, NULL, NULL, 0);
	struct ibv_mr *mr = reg(pd1, buf, BUFSZ, LW);
	struct ibv_qp *qp = NULL;
	struct ibv_wc wc[32];
	const char *how = NULL;
	int got, ret, i, nr, ns;

	if (!cq || !mr) {
		vt_failf("flush", "set-up failed");
		goto out;
	}
	/* Connected to a QPN that does not exist: nothing can complete. */
	qp = vt_create_qp(&D, pd1, IBV_QPT_RC, cq, cq, NULL, 16, 2, 1);
	ret = qp ? vt_qp_to_rts(&D, qp, 0xfedcb) : vt_rc(-1);
	if (ret) {
		vt_failf("flush", "set-up: RC QP to RTS: %s", vt_errname(ret));
		goto out;
	}
	ret = post_recvs(qp, mr, 3000, 4);
	if (!ret)
		ret = post_sends(qp, mr, 4000, 4);
	vt_expect_rc("flush.post_in_rts", ret, 0);
	got = vt_poll(cq, wc, 8, 200);
	vt_expect_rc("flush.to_err", vt_qp_set_state(qp, IBV_QPS_ERR), 0);
	got += vt_poll(cq, wc + got, 8 - got, WAIT_MS);
	got += vt_poll(cq, wc + got, 9 - got, QUIET_MS);
	{
		struct ibv_wc r[8], s[8];

		for (i = nr = ns = 0; i < got; i++) {
			if (wc[i].wr_id >= 4000 && ns < 8)
				s[ns++] = wc[i];
			else if (nr < 8)
				r[nr++] = wc[i];
		}
		check_flush("flush.receives", r, nr, 4, 3000, qp->qp_num);
		check_flush("flush.sends", s, ns, 4, 4000, qp->qp_num);
	}

	/* Posted while in ERR. */
	ret = post_sends(qp, mr, 4100, 2);
	got = ret ? 0 : vt_poll(cq, wc, 2, WAIT_MS);
	if (ret)
		vt_failf("flush.sends_posted_in_err", "post: %s",
			 vt_errname(ret));
	else
		check_flush("flush.sends_posted_in_err", wc, got, 2, 4100,
			    qp->qp_num);
	ret = post_recvs(qp, mr, 3100, 2);
	if (ret) {
		vt_failf("flush.receives_posted_in_err", "post: %s",
			 vt_errname(ret));
	} else {
		/*
		 * post_recv never enters the kernel: the flush happens at the
		 * next kernel entry for the QP or its CQ.
		 */
		got = vt_poll(cq, wc, 2, QUIET_MS);
		if (got == 2) {
			how = "without a kernel entry";
		} else {
			ibv_req_notify_cq(cq, 0);
			got += vt_poll(cq, wc + got, 2 - got, WAIT_MS);
			if (got == 2)
				how = "after ibv_req_notify_cq";
		}
		if (got < 2) {
			ret = post_sends(qp, mr, 4200, 1);
			got += vt_poll(cq, wc + got, 3 - got, WAIT_MS);
			how = "after a send doorbell";
			/* Keep only the receives. */
			for (i = nr = 0; i < got; i++)
				if (wc[i].wr_id < 4000)
					wc[nr++] = wc[i];
			got = nr;
		}
		if (check_flush("flush.receives_posted_in_err", wc, got, 2, 3100,
				qp->qp_num))
			vt_info("receives posted in ERR were flushed %s", how);
	}
	vt_expect_rc("flush.destroy", vt_rc(ibv_destroy_qp(qp)), 0);

	/* Destroy with work outstanding. */
	qp = vt_create_qp(&D, pd1, IBV_QPT_RC, cq, cq, NULL, 16, 2, 1);
	ret = qp ? vt_qp_to_rts(&D, qp, 0xfedcb) : vt_rc(-1);
	if (!ret)
		ret = post_recvs(qp, mr, 3200, 8);
	if (!ret)
		ret = post_sends(qp, mr, 4300, 8);
	if (ret) {
		vt_failf("flush.destroy_in_flight", "set-up: %s",
			 vt_errname(ret));
	} else {
		vt_expect_rc("flush.destroy_in_flight",
			     vt_rc(ibv_destroy_qp(qp)), 0);
		qp = NULL;
		vt_poll(cq, wc, 32, QUIET_MS);
	}

	/* Too many SGEs: librxe refuses before the ring. */
	qp = vt_create_qp(&D, pd1, IBV_QPT_RC, cq, cq, NULL, 8, 1, 1);
	if (qp && !vt_qp_init(&D, qp)) {
		struct ibv_sge sge[64];
		struct ibv_send_wr swr = { .sg_list = sge, .opcode = IBV_WR_SEND },
				   *sbad = NULL;
		struct ibv_recv_wr rwr = { .sg_list = sge }, *rbad = NULL;
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qia;

		ibv_query_qp(qp, &qa, IBV_QP_CAP, &qia);
		for (i = 0; i < 64; i++) {
			sge[i].addr = (uintptr_t)buf;
			sge[i].length = 8;
			sge[i].lkey = mr->lkey;
		}
		swr.num_sge = (int)qia.cap.max_send_sge + 1;
		rwr.num_sge = (int)qia.cap.max_recv_sge + 1;
		ret = vt_rc(ibv_post_recv(qp, &rwr, &rbad));
		if (vt_expect_rc("qp.recv_too_many_sge", ret, EINVAL) &&
		    rbad != &rwr)
			vt_failf("qp.recv_too_many_sge.bad_wr", "bad_wr not set");
		vt_qp_rtr(&D, qp, qp->qp_num);
		vt_qp_rts(&D, qp);
		ret = vt_rc(ibv_post_send(qp, &swr, &sbad));
		if (vt_expect_rc("qp.send_too_many_sge", ret, EINVAL) &&
		    sbad != &swr)
			vt_failf("qp.send_too_many_sge.bad_wr", "bad_wr not set");
	}
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	if (mr)
		ibv_dereg_mr(mr);
}

/*
 * A destroyed QP's completions that were never polled stay in a user CQ,
 * as on rdma_rxe: the process owns the consumer index, and libfabric's
 * verbs provider drains the CQ after destroying a QP and keeps the
 * successful entries it finds (drivers/vroce/cq.c: vroce_cq_forget_qp();
 * a kernel CQ loses them, as on a ConnectX).  Every entry comes out once,
 * SUCCESS, with its wr_id and qp_num; another QP's entries are untouched.
 */
static void test_destroy_cqes(void)
{
	struct ibv_cq *cq = NULL;
	struct ibv_mr *mr = reg(pd1, buf, BUFSZ, LW);
	struct vt_snap *snap = malloc(sizeof(*snap));
	struct ibv_qp *a = NULL, *b = NULL;
	uint32_t bqpn = 0;
	struct vt_map m[4];
	struct ibv_wc wc[8];
	int got, i, ret, bad = 0, na = 0, nb = 0;

	if (!snap || !mr) {
		vt_failf("destroy_cqes", "set-up failed");
		goto out;
	}
	vt_snap_take(snap);
	cq = ibv_create_cq(D.ctx, 16, NULL, NULL, 0);
	if (!cq || vt_snap_new(snap, m, 4) != 1) {
		vt_failf("destroy_cqes", "set-up: CQ or its ring not found");
		goto out;
	}
	a = vt_create_qp(&D, pd1, IBV_QPT_RC, cq, cq, NULL, 8, 1, 1);
	b = vt_create_qp(&D, pd1, IBV_QPT_RC, cq, cq, NULL, 8, 1, 1);
	ret = a && b ? vt_qp_to_rts(&D, a, b->qp_num) : vt_rc(-1);
	if (!ret)
		ret = vt_qp_to_rts(&D, b, a->qp_num);
	/* a -> b twice, b -> a once: six successful entries in the CQ */
	if (!ret)
		ret = post_recvs(b, mr, 5000, 2);
	if (!ret)
		ret = post_recvs(a, mr, 5100, 1);
	if (!ret)
		ret = post_sends(a, mr, 6000, 2);
	if (!ret)
		ret = post_sends(b, mr, 6100, 1);
	if (ret || !wait_ring_count(&m[0], 6, WAIT_MS)) {
		vt_failf("destroy_cqes", "set-up: %s, %u entries queued, want 6",
			 vt_errname(ret), vt_q_count(vt_map_q(&m[0])));
		goto out;
	}
	bqpn = b->qp_num;
	vt_expect_rc("destroy_cqes.destroy", vt_rc(ibv_destroy_qp(b)), 0);
	b = NULL;
	got = vt_poll(cq, wc, 7, QUIET_MS);
	for (i = 0; i < got; i++) {
		bool of_b = wc[i].qp_num == bqpn;
		uint64_t id = wc[i].wr_id;
		bool id_ok = of_b ? (id == 5000 || id == 5001 || id == 6100) :
				    (id == 6000 || id == 6001 || id == 5100);

		if (wc[i].status != IBV_WC_SUCCESS || !id_ok ||
		    (!of_b && wc[i].qp_num != a->qp_num)) {
			vt_failf("destroy_cqes.entry", "qp %u wr_id %llu: %s",
				 wc[i].qp_num, (unsigned long long)id,
				 vt_wcname(wc[i].status));
			bad++;
		}
		if (of_b)
			nb++;
		else
			na++;
	}
	if (got != 6 || na != 3 || nb != 3)
		vt_failf("destroy_cqes", "%d entries (%d of the live QP, %d of the destroyed one), want 3 + 3",
			 got, na, nb);
	else if (!bad)
		vt_ok("destroy_cqes", "the destroyed QP's 3 entries and the live QP's 3 polled, SUCCESS");
out:
	if (b)
		ibv_destroy_qp(b);
	if (a)
		ibv_destroy_qp(a);
	if (cq)
		ibv_destroy_cq(cq);
	if (mr)
		ibv_dereg_mr(mr);
	free(snap);
}

/* ------------------------------------------------------------------ AH */

static struct ibv_ah *make_ah(struct ibv_pd *pd, int sgid, const union ibv_gid *dgid,
			      int port, int global)
{
	struct ibv_ah_attr aa = {
		.is_global = (uint8_t)global,
		.port_num = (uint8_t)port,
		.grh = { .dgid = *dgid, .sgid_index = (uint8_t)sgid,
			 .hop_limit = 64 },
	};

	return ibv_create_ah(pd, &aa);
}

static void test_ah(void)
{
	struct ibv_ah *ah;
	struct ibv_pd *pd;

	ah = make_ah(pd1, D.gid_index, &D.gid, 1, 1);
	if (ah) {
		vt_ok("ah.ipv4", "sgid index %d (IPv4-mapped)", D.gid_index);
		pd = ibv_alloc_pd(D.ctx);
		if (pd) {
			struct ibv_ah *ah2 = make_ah(pd, D.gid_index, &D.gid,
						     1, 1);

			vt_expect_rc("ah.pd_busy",
				     vt_rc(ibv_dealloc_pd(pd)),
				     ah2 ? EBUSY : -1);
			if (ah2)
				ibv_destroy_ah(ah2);
			ibv_dealloc_pd(pd);
		}
		vt_expect_rc("ah.destroy", vt_rc(ibv_destroy_ah(ah)), 0);
	} else {
		vt_failf("ah.ipv4", "%s", vt_errname(errno));
	}
	if (D.gid_ll_index >= 0) {
		ah = make_ah(pd1, D.gid_ll_index, &D.gid_ll, 1, 1);
		if (ah) {
			vt_ok("ah.ipv6_link_local", "sgid index %d",
			      D.gid_ll_index);
			ibv_destroy_ah(ah);
		} else {
			vt_failf("ah.ipv6_link_local", "%s", vt_errname(errno));
		}
	} else {
		vt_skipf("ah.ipv6_link_local", "no link-local GID");
	}
	if (D.gid6_index >= 0) {
		ah = make_ah(pd1, D.gid6_index, &D.gid6, 1, 1);
		if (ah) {
			vt_ok("ah.ipv6_global", "sgid index %d", D.gid6_index);
			ibv_destroy_ah(ah);
		} else {
			vt_failf("ah.ipv6_global", "%s", vt_errname(errno));
		}
	} else {
		vt_skipf("ah.ipv6_global",
			 "no global IPv6 GID (add an IPv6 address to the netdev)");
	}
	errno = 0;
	ah = make_ah(pd1, D.gid_index, &D.gid, 1, 0);
	vt_expect_null("ah.no_grh_on_roce", ah, errno, EINVAL, vt_destroy_ah);
	errno = 0;
	ah = make_ah(pd1, D.gid_index, &D.gid, 2, 1);
	vt_expect_null("ah.port_2", ah, errno, EINVAL, vt_destroy_ah);
	if (D.empty_gid_index >= 0 && D.empty_gid_index < 256) {
		errno = 0;
		ah = make_ah(pd1, D.empty_gid_index, &D.gid, 1, 1);
		vt_expect_null("ah.empty_sgid_index", ah, errno, ENODATA,
			       vt_destroy_ah);
	}
}

/* --------------------------------------------- send-engine dependent */

/* UD QP of @pd in RTS on @cq. */
static struct ibv_qp *ud_rts(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp *qp = vt_create_qp(&D, pd, IBV_QPT_UD, cq, cq, NULL, 8,
					 2, 1);

	if (qp && vt_qp_to_rts(&D, qp, 0)) {
		ibv_destroy_qp(qp);
		qp = NULL;
	}
	return qp;
}

static void probe_send_engine(void)
{
	struct ibv_cq *cq = ibv_create_cq(D.ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp = cq ? ud_rts(pd1, cq) : NULL;
	struct ibv_ah *ah = make_ah(pd1, D.gid_index, &D.gid, 1, 1);
	uint64_t payload = 0x1122334455667788ULL;
	struct ibv_sge sge = { .addr = (uintptr_t)&payload, .length = 8 };
	struct ibv_send_wr wr = {
		.wr_id = 9,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_INLINE,
	};
	struct ibv_wc wc;
	int got;

	send_engine = 0;
	if (!qp || !ah) {
		vt_failf("send_engine.probe", "set-up failed: %s",
			 vt_errname(errno));
		goto out;
	}
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 0xabc;
	wr.wr.ud.remote_qkey = 0x11111111;
	got = vt_post_wait(qp, cq, &wr, &wc, WAIT_MS);
	send_engine = got == 1;
	/* the transport exists: a send that does not complete is a bug */
	if (got == 1)
		vt_info("send-engine probe: %s", vt_wcname(wc.status));
	else
		vt_failf("send_engine.probe", "UD send: %s",
			 got == 0 ? "no completion" : vt_errname(-got));
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (ah)
		ibv_destroy_ah(ah);
	if (cq)
		ibv_destroy_cq(cq);
}

static void expect_engine_wc(const char *name, int got, struct ibv_wc *wc,
			     enum ibv_wc_status st, uint64_t wr_id)
{
	expect_wc(name, got, wc, st, -1, wr_id);
}

static void test_wrong_pd(void)
{
	struct ibv_cq *cq = ibv_create_cq(D.ctx, 16, NULL, NULL, 0);
	struct ibv_mr *mr2 = reg(pd2, buf, BUFSZ, LW);
	struct ibv_ah *ah2 = make_ah(pd2, D.gid_index, &D.gid, 1, 1);
	struct ibv_ah *ah1 = make_ah(pd1, D.gid_index, &D.gid, 1, 1);
	struct ibv_qp *qp = NULL;
	uint64_t payload = 42;
	struct ibv_sge sge = { .addr = (uintptr_t)&payload, .length = 8 };
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	int got;

	probe_send_engine();
	if (!cq || !mr2 || !ah1 || !ah2) {
		vt_failf("wrong_pd", "set-up failed: %s", vt_errname(errno));
		goto out;
	}

	/* UD send through an AH of another PD. */
	qp = ud_rts(pd1, cq);
	if (qp) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 501;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_INLINE;
		wr.wr.ud.ah = ah2;
		wr.wr.ud.remote_qpn = 0xabc;
		wr.wr.ud.remote_qkey = 0x11111111;
		got = vt_post_wait(qp, cq, &wr, &wc, WAIT_MS);
		expect_engine_wc("wrong_pd.ud_ah_of_other_pd", got, &wc,
				 IBV_WC_LOC_QP_OP_ERR, 501);
		ibv_destroy_qp(qp);
	}

	/* UD send gathering from an MR of another PD. */
	qp = ud_rts(pd1, cq);
	if (qp) {
		struct ibv_sge s2 = { .addr = (uintptr_t)buf, .length = 64,
				      .lkey = mr2->lkey };

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 502;
		wr.sg_list = &s2;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.wr.ud.ah = ah1;
		wr.wr.ud.remote_qpn = 0xabc;
		wr.wr.ud.remote_qkey = 0x11111111;
		got = vt_post_wait(qp, cq, &wr, &wc, WAIT_MS);
		expect_engine_wc("wrong_pd.ud_sge_mr_of_other_pd", got, &wc,
				 IBV_WC_LOC_PROT_ERR, 502);
		ibv_destroy_qp(qp);
	}

	/* RC send gathering from an MR of another PD. */
	qp = vt_create_qp(&D, pd1, IBV_QPT_RC, cq, cq, NULL, 8, 1, 1);
	if (qp && !vt_qp_to_rts(&D, qp, 0xfedcb)) {
		struct ibv_sge s2 = { .addr = (uintptr_t)buf, .length = 64,
				      .lkey = mr2->lkey };

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 503;
		wr.sg_list = &s2;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		got = vt_post_wait(qp, cq, &wr, &wc, WAIT_MS);
		expect_engine_wc("wrong_pd.rc_sge_mr_of_other_pd", got, &wc,
				 IBV_WC_LOC_PROT_ERR, 503);
	}
	if (qp)
		ibv_destroy_qp(qp);

	/*
	 * Opcodes user space may not use: REG_MR is kernel-only (its WQE
	 * carries a kernel pointer), 0x55 does not exist.
	 */
	{
		static const struct {
			const char *name;
			unsigned int op;
		} bad[] = {
			{ "local_ops.user_reg_mr_opcode", 0x20 },
			{ "local_ops.unknown_opcode", 0x55 },
		};
		unsigned int i;

		for (i = 0; i < VT_ARRAY_SIZE(bad); i++) {
			struct fq f;

			if (!fq_make(&f, pd1, bad[i].name))
				continue;
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = 510 + i;
			wr.opcode = (enum ibv_wr_opcode)bad[i].op;
			got = vt_post_wait(f.qp, f.cq, &wr, &wc, WAIT_MS);
			if (got < 0)
				vt_ok(bad[i].name, "refused at post: %s",
				      vt_errname(-got));
			else if (got == 0)
				vt_failf(bad[i].name,
					 "no completion within %d ms, want an error completion",
					 WAIT_MS);
			else if (wc.status == IBV_WC_SUCCESS)
				vt_failf(bad[i].name,
					 "completed with SUCCESS, want an error");
			else if (wc.status != IBV_WC_LOC_QP_OP_ERR)
				vt_failf(bad[i].name, "%s, want LOC_QP_OP_ERR",
					 vt_wcname(wc.status));
			else
				vt_ok(bad[i].name, "LOC_QP_OP_ERR");
			fq_free(&f);
		}
	}
out:
	if (ah1)
		ibv_destroy_ah(ah1);
	if (ah2)
		ibv_destroy_ah(ah2);
	if (mr2)
		ibv_dereg_mr(mr2);
	if (cq)
		ibv_destroy_cq(cq);
}

/*
 * The SRQ limit event needs receives consumed, i.e. traffic: UD sends from
 * one QP to another on the same port, run only once the requester engine
 * completes sends.
 */
static void test_srq_event(void)
{
	struct ibv_srq_init_attr sia = {
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ibv_cq *cq = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qa = NULL, *qb = NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_srq_attr sa = { .srq_limit = 6 };
	struct ibv_async_event ev;
	struct ibv_wc wc[8];
	int i, ret, got;

	if (send_engine < 0)
		probe_send_engine();
	cq = ibv_create_cq(D.ctx, 64, NULL, NULL, 0);
	srq = ibv_create_srq(pd1, &sia);
	mr = reg(pd1, buf, BUFSZ, LW);
	ah = make_ah(pd1, D.gid_index, &D.gid, 1, 1);
	if (cq && srq) {
		qa = vt_create_qp(&D, pd1, IBV_QPT_UD, cq, cq, srq, 8, 1, 1);
		qb = vt_create_qp(&D, pd1, IBV_QPT_UD, cq, cq, NULL, 8, 1, 1);
	}
	if (!qa || !qb || !mr || !ah || vt_qp_to_rts(&D, qa, 0) ||
	    vt_qp_to_rts(&D, qb, 0)) {
		vt_failf("srq.limit_event_traffic", "set-up failed: %s",
			 vt_errname(errno));
		goto out;
	}
	for (i = 0; i < 8; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)buf + (uint64_t)i * 128,
				       .length = 128, .lkey = mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = 600 + (uint64_t)i,
					  .sg_list = &sge, .num_sge = 1 }, *bad;

		ibv_post_srq_recv(srq, &wr, &bad);
	}
	ret = vt_rc(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT));
	vt_drain_async(D.ctx);
	for (i = 0; i < 3 && !ret; i++) {
		uint64_t payload = (uint64_t)i;
		struct ibv_sge sge = { .addr = (uintptr_t)&payload,
				       .length = 8 };
		struct ibv_send_wr wr = {
			.wr_id = 700 + (uint64_t)i, .sg_list = &sge,
			.num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED,
		}, *bad;

		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = qa->qp_num;
		wr.wr.ud.remote_qkey = 0x11111111;
		ret = vt_rc(ibv_post_send(qb, &wr, &bad));
	}
	got = ret ? 0 : vt_poll(cq, wc, 6, WAIT_MS);
	for (i = 0; i < got; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			break;
	if (ret || got != 6 || i != got) {
		vt_failf("srq.limit_event_traffic",
			 "arm/post: %s; %d of 6 completions (3 sends, 3 receives), first bad: %s",
			 vt_errname(ret), got,
			 i < got ? vt_wcname(wc[i].status) : "-");
	} else if (vt_wait_async(D.ctx, IBV_EVENT_SRQ_LIMIT_REACHED, WAIT_MS,
				 &ev) && ev.element.srq == srq) {
		memset(&sa, 0xff, sizeof(sa));
		ibv_query_srq(srq, &sa);
		if (sa.srq_limit != 0)
			vt_failf("srq.limit_event_traffic",
				 "event came but the limit is still armed (%u)",
				 sa.srq_limit);
		else
			vt_ok("srq.limit_event_traffic",
			      "SRQ_LIMIT_REACHED after 3 of 8 receives consumed (limit 6), limit disarmed");
	} else {
		vt_failf("srq.limit_event_traffic",
			 "no IBV_EVENT_SRQ_LIMIT_REACHED within %d ms", WAIT_MS);
	}
out:
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	if (ah)
		ibv_destroy_ah(ah);
	if (srq)
		ibv_destroy_srq(srq);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
}

/* ----------------------------------------------------------------- main */

static const struct {
	const char *name;
	void (*fn)(void);
} sections[] = {
	{ "pd", test_pd },
	{ "mr", test_mr },
	{ "mw", test_mw },
	{ "rereg", test_rereg },
	{ "cq", test_cq },
	{ "srq", test_srq },
	{ "qp_caps", test_qp_caps },
	{ "qp_sm", test_qp_sm },
	{ "flush", test_flush },
	{ "destroy_cqes", test_destroy_cqes },
	{ "ah", test_ah },
	{ "wrong_pd", test_wrong_pd },
	{ "srq_event", test_srq_event },
};

static void usage(void)
{
	unsigned int i;

	fprintf(stderr, "usage: verbs_objects [-d DEV] [-g GID_INDEX] [-s SECTION]... [-v]\nsections:");
	for (i = 0; i < VT_ARRAY_SIZE(sections); i++)
		fprintf(stderr, " %s", sections[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *only[16];
	int gid = -1, nonly = 0, c;
	unsigned int i;
	int j;

	while ((c = getopt(argc, argv, "d:g:s:vh")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'g':
			gid = atoi(optarg);
			break;
		case 's':
			if (nonly < 16)
				only[nonly++] = optarg;
			break;
		case 'v':
			vt_verbose = 1;
			break;
		default:
			usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (vt_open(dev, gid, &D))
		return 1;
	vt_ok("open", "%s, gid %d, max_qp %d, max_cqe %d, max_sge %d",
	      ibv_get_device_name(D.ctx->device), D.gid_index, D.attr.max_qp,
	      D.attr.max_cqe, D.attr.max_sge);
	buf = vt_alloc(BUFSZ);
	buf2 = vt_alloc(BUFSZ);
	pd1 = ibv_alloc_pd(D.ctx);
	pd2 = ibv_alloc_pd(D.ctx);
	if (!pd1 || !pd2) {
		vt_failf("set-up", "alloc_pd: %s", vt_errname(errno));
		return vt_summary("verbs_objects");
	}
	for (i = 0; i < VT_ARRAY_SIZE(sections); i++) {
		bool run = !nonly;

		for (j = 0; j < nonly; j++)
			if (!strcmp(only[j], sections[i].name))
				run = true;
		if (run)
			sections[i].fn();
	}
	vt_drain_async(D.ctx);
	vt_expect_rc("teardown.dealloc_pd", vt_rc(ibv_dealloc_pd(pd1)), 0);
	vt_expect_rc("teardown.dealloc_pd2", vt_rc(ibv_dealloc_pd(pd2)), 0);
	vt_close(&D);
	return vt_summary("verbs_objects");
}
