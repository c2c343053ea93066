// SPDX-License-Identifier: GPL-2.0
/*
 * vroce_ktest: a kernel verbs consumer that checks a vroce device the way
 * kernel ULPs (ib_mad, rdma_cm, NVMe-oF, SRP) use it.
 *
 * As an ib_client it is called for every RDMA device; for each one whose
 * name starts with "prefix" (default "vroce") it creates, through the
 * kernel verbs API:
 *   - PDs (the local_dma_lkey DMA MR, and an unsafe-global-rkey DMA MR),
 *   - CQs of every poll context (direct, softirq, workqueue, and a legacy
 *     ib_create_cq one with notify / IB_CQ_REPORT_MISSED_EVENTS),
 *   - RC and UD QPs taken through INIT/RTR/RTS,
 *   - a fast-registration MR (ib_alloc_mr, ib_map_mr_sg, IB_WR_REG_MR,
 *     IB_WR_LOCAL_INV through the send queue; a REG_MR with a wrong key),
 *   - AHs with the IPv4 RoCE v2 GID (index 3, as on ConnectX), one of
 *     them created and destroyed in atomic context,
 * posts receives (DMA-mapped buffers under local_dma_lkey), moves the QP to
 * ERR and checks the flush completions (also for work posted in ERR),
 * then moves data through an RC QP connected to itself (SEND, RDMA WRITE
 * and READ through the global rkey and through a fast-registered MR, every
 * byte compared), then destroys everything.  One line reports the result:
 *   "vroce_ktest: PASS <dev>: N checks"  or
 *   "vroce_ktest: FAIL <dev>: N of M checks failed; first: ..."
 * preceded by a "vroce_ktest: check failed: ..." line per failure.
 * The data test's packets go over the device's loopback, not the wire.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

static char *prefix = "vroce";
module_param(prefix, charp, 0444);
MODULE_PARM_DESC(prefix, "test devices whose name starts with this");

#define KT_WAIT_MS	3000

/* Held while creating and destroying an AH, to prove they never sleep. */
static DEFINE_SPINLOCK(kt_atomic_lock);

struct kt {
	struct ib_device *dev;
	int checks;
	int fails;
	char first[160];
	u8 mac[ETH_ALEN];
	union ib_gid gid;
	u32 gid_index;
};

/* One outstanding work request and its completion. */
struct kt_wr {
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
	enum ib_wc_opcode opcode;
	u32 qp_num;
	u32 byte_len;
};

static __printf(3, 4) bool kt_check(struct kt *kt, bool ok, const char *fmt,
				    ...)
{
	char msg[160];
	va_list ap;

	kt->checks++;
	if (ok)
		return true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kt->fails++;
	if (kt->fails == 1)
		strscpy(kt->first, msg, sizeof(kt->first));
	pr_info("vroce_ktest: check failed: %s: %s\n", dev_name(&kt->dev->dev),
		msg);
	return false;
}

static void kt_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kt_wr *w = container_of(wc->wr_cqe, struct kt_wr, cqe);

	w->status = wc->status;
	w->opcode = wc->opcode;
	w->qp_num = wc->qp->qp_num;
	w->byte_len = wc->byte_len;
	complete(&w->done);
}

static void kt_wr_init(struct kt_wr *w)
{
	w->cqe.done = kt_done;
	init_completion(&w->done);
	w->status = -1;
}

/* Wait for @w's completion on @cq; direct CQs are polled here. */
static bool kt_wait(struct ib_cq *cq, struct kt_wr *w)
{
	unsigned long end = jiffies + msecs_to_jiffies(KT_WAIT_MS);

	if (cq->poll_ctx != IB_POLL_DIRECT)
		return wait_for_completion_timeout(&w->done,
				msecs_to_jiffies(KT_WAIT_MS)) > 0;
	do {
		ib_process_cq_direct(cq, 16);
		if (try_wait_for_completion(&w->done))
			return true;
		usleep_range(1000, 2000);
	} while (time_before(jiffies, end));
	return false;
}

static bool kt_expect(struct kt *kt, struct ib_cq *cq, struct kt_wr *w,
		      enum ib_wc_status st, int opcode, const char *what)
{
	if (!kt_check(kt, kt_wait(cq, w), "%s: no completion in %d ms", what,
		      KT_WAIT_MS))
		return false;
	if (!kt_check(kt, w->status == st, "%s: status %s, want %s", what,
		      ib_wc_status_msg(w->status), ib_wc_status_msg(st)))
		return false;
	if (st == IB_WC_SUCCESS && opcode >= 0)
		return kt_check(kt, w->opcode == opcode, "%s: opcode %d, want %d",
				what, w->opcode, opcode);
	return true;
}

static int kt_modify(struct ib_qp *qp, enum ib_qp_state st, struct kt *kt)
{
	struct ib_qp_attr a = {};
	int mask = IB_QP_STATE;

	a.qp_state = st;
	switch (st) {
	case IB_QPS_INIT:
		a.pkey_index = 0;
		a.port_num = 1;
		mask |= IB_QP_PKEY_INDEX | IB_QP_PORT;
		if (qp->qp_type == IB_QPT_UD) {
			a.qkey = 0x11111111;
			mask |= IB_QP_QKEY;
		} else {
			a.qp_access_flags = IB_ACCESS_REMOTE_READ |
					    IB_ACCESS_REMOTE_WRITE;
			mask |= IB_QP_ACCESS_FLAGS;
		}
		break;
	case IB_QPS_RTR:
		if (qp->qp_type == IB_QPT_UD)
			break;
		a.ah_attr.type = rdma_ah_find_type(kt->dev, 1);
		rdma_ah_set_port_num(&a.ah_attr, 1);
		rdma_ah_set_grh(&a.ah_attr, &kt->gid, 0, kt->gid_index, 64, 0);
		memcpy(a.ah_attr.roce.dmac, kt->mac, ETH_ALEN);
		a.path_mtu = IB_MTU_1024;
		a.dest_qp_num = qp->qp_num;
		a.rq_psn = 0x1234;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
			IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
			IB_QP_MIN_RNR_TIMER;
		break;
	case IB_QPS_RTS:
		a.sq_psn = 0x1234;
		mask |= IB_QP_SQ_PSN;
		if (qp->qp_type == IB_QPT_UD)
			break;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC;
		break;
	default:
		break;
	}
	return ib_modify_qp(qp, &a, mask);
}

static int kt_to_rts(struct ib_qp *qp, struct kt *kt)
{
	int ret;

	ret = kt_modify(qp, IB_QPS_INIT, kt);
	if (!ret)
		ret = kt_modify(qp, IB_QPS_RTR, kt);
	if (!ret)
		ret = kt_modify(qp, IB_QPS_RTS, kt);
	return ret;
}

static struct ib_qp *kt_qp(struct ib_pd *pd, struct ib_cq *cq,
			   enum ib_qp_type type)
{
	struct ib_qp_init_attr ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = type,
	};

	return ib_create_qp(pd, &ia);
}

static int kt_post_recv(struct ib_qp *qp, struct kt_wr *w, u64 addr, u32 lkey)
{
	struct ib_sge sge = { .addr = addr, .length = 64, .lkey = lkey };
	struct ib_recv_wr wr = { .wr_cqe = &w->cqe, .sg_list = &sge,
				 .num_sge = 1 };

	kt_wr_init(w);
	return ib_post_recv(qp, &wr, NULL);
}

static int kt_post_send(struct ib_qp *qp, struct kt_wr *w, u64 addr, u32 lkey)
{
	struct ib_sge sge = { .addr = addr, .length = 64, .lkey = lkey };
	struct ib_send_wr wr = { .wr_cqe = &w->cqe, .sg_list = &sge,
				 .num_sge = 1, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };

	kt_wr_init(w);
	return ib_post_send(qp, &wr, NULL);
}

/* A signaled REG_MR of @mr under @key, local and remote read/write. */
static int kt_post_reg_mr(struct ib_qp *qp, struct kt_wr *w, struct ib_mr *mr,
			  u32 key)
{
	struct ib_reg_wr rw = {
		.wr = { .opcode = IB_WR_REG_MR, .wr_cqe = &w->cqe,
			.send_flags = IB_SEND_SIGNALED },
		.mr = mr,
		.key = key,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_WRITE,
	};

	kt_wr_init(w);
	return ib_post_send(qp, &rw.wr, NULL);
}

/* ------------------------------------------------------- legacy CQ notify */

struct kt_legacy {
	struct completion fired;
	atomic_t count;
};

static void kt_comp_handler(struct ib_cq *cq, void *ctx)
{
	struct kt_legacy *l = ctx;

	atomic_inc(&l->count);
	complete(&l->fired);
}

static void kt_cq_event(struct ib_event *ev, void *ctx)
{
	pr_info("vroce_ktest: CQ event %s\n", ib_event_msg(ev->event));
}

static void kt_test_legacy_cq(struct kt *kt, struct ib_pd *pd, u64 addr)
{
	struct ib_cq_init_attr ca = { .cqe = 16 };
	struct kt_legacy l;
	struct kt_wr w[2];
	struct ib_wc wc[4];
	struct ib_cq *cq;
	struct ib_qp *qp;
	int ret, n, i;

	init_completion(&l.fired);
	atomic_set(&l.count, 0);
	cq = ib_create_cq(kt->dev, kt_comp_handler, kt_cq_event, &l, &ca);
	if (!kt_check(kt, !IS_ERR(cq), "ib_create_cq: %ld", PTR_ERR(cq)))
		return;
	qp = kt_qp(pd, cq, IB_QPT_RC);
	if (!kt_check(kt, !IS_ERR(qp), "legacy CQ: create QP: %ld",
		      PTR_ERR(qp)))
		goto out_cq;
	ret = kt_modify(qp, IB_QPS_INIT, kt);
	for (i = 0; i < 2 && !ret; i++)
		ret = kt_post_recv(qp, &w[i], addr, pd->local_dma_lkey);
	if (!kt_check(kt, !ret, "legacy CQ: INIT + post_recv: %d", ret))
		goto out_qp;
	ret = ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	kt_check(kt, ret == 0, "req_notify_cq(NEXT_COMP) on an empty CQ: %d",
		 ret);
	ret = kt_modify(qp, IB_QPS_ERR, kt);
	kt_check(kt, !ret, "legacy CQ: QP to ERR: %d", ret);
	kt_check(kt, wait_for_completion_timeout(&l.fired,
						 msecs_to_jiffies(KT_WAIT_MS)) > 0,
		 "comp_handler not called after a flush on an armed CQ");
	msleep(50);
	ret = ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
				   IB_CQ_REPORT_MISSED_EVENTS);
	kt_check(kt, ret > 0,
		 "req_notify_cq(REPORT_MISSED_EVENTS) with 2 entries waiting returned %d, want > 0",
		 ret);
	n = ib_poll_cq(cq, 4, wc);
	kt_check(kt, n == 2, "legacy CQ: polled %d, want 2", n);
	for (i = 0; i < n && i < 2; i++)
		kt_check(kt, wc[i].status == IB_WC_WR_FLUSH_ERR &&
			 wc[i].wr_cqe == &w[i].cqe,
			 "legacy CQ entry %d: %s, wr_cqe %s", i,
			 ib_wc_status_msg(wc[i].status),
			 wc[i].wr_cqe == &w[i].cqe ? "ok" : "wrong");
	ret = ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
				   IB_CQ_REPORT_MISSED_EVENTS);
	kt_check(kt, ret == 0,
		 "req_notify_cq(REPORT_MISSED_EVENTS) on an empty CQ returned %d, want 0",
		 ret);
out_qp:
	ret = ib_destroy_qp(qp);
	kt_check(kt, !ret, "legacy CQ: destroy QP: %d", ret);
out_cq:
	ret = ib_destroy_cq_user(cq, NULL);
	kt_check(kt, !ret, "ib_destroy_cq: %d", ret);
}

/* ---------------------------------------------------- softirq / workqueue */

static void kt_test_poll_ctx(struct kt *kt, struct ib_pd *pd, u64 addr,
			     enum ib_poll_context ctx, const char *what)
{
	struct kt_wr w;
	struct ib_cq *cq;
	struct ib_qp *qp;
	int ret;

	cq = ib_alloc_cq(kt->dev, NULL, 16, 0, ctx);
	if (!kt_check(kt, !IS_ERR(cq), "ib_alloc_cq(%s): %ld", what,
		      PTR_ERR(cq)))
		return;
	qp = kt_qp(pd, cq, IB_QPT_RC);
	if (kt_check(kt, !IS_ERR(qp), "%s: create QP: %ld", what,
		     PTR_ERR(qp))) {
		ret = kt_modify(qp, IB_QPS_INIT, kt);
		if (!ret)
			ret = kt_post_recv(qp, &w, addr, pd->local_dma_lkey);
		if (!ret)
			ret = kt_modify(qp, IB_QPS_ERR, kt);
		if (kt_check(kt, !ret, "%s: INIT/post_recv/ERR: %d", what, ret))
			kt_expect(kt, cq, &w, IB_WC_WR_FLUSH_ERR, -1, what);
		ret = ib_destroy_qp(qp);
		kt_check(kt, !ret, "%s: destroy QP: %d", what, ret);
	}
	ib_free_cq(cq);
}

/* ------------------------------------------------ data through a kernel QP */

/*
 * The layout of the data test's buffer: what is sent, written and read
 * lands in regions of its own, and the gaps between them must stay zero.
 */
#define KT_DATA_ORDER	3			/* 8 pages */
#define KT_DATA_BYTES	(PAGE_SIZE << KT_DATA_ORDER)
#define KT_SRC		0			/* the pattern */
#define KT_SEND_LEN	3000			/* 3 packets at MTU 1024 */
#define KT_RDMA_LEN	5000			/* 5 packets */
#define KT_RECV_AT	(KT_DATA_BYTES / 4)
#define KT_WRITE_AT	(KT_DATA_BYTES / 2)
#define KT_READ_AT	(3 * KT_DATA_BYTES / 4)

/* Byte @i of the pattern: no period shorter than the buffer. */
static u8 kt_pattern(u32 i)
{
	return (u8)((i * 2654435761U) >> 13) ^ (u8)(i >> 8);
}

/* The first byte of @len at @got that is not the pattern, or -1. */
static long kt_first_diff(const u8 *got, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (got[i] != kt_pattern(i))
			return i;
	return -1;
}

/* The first non-zero byte of [@from, @to) in @b, or -1. */
static long kt_first_nonzero(const u8 *b, u32 from, u32 to)
{
	for (; from < to; from++)
		if (b[from])
			return from;
	return -1;
}

static int kt_post_rdma(struct ib_qp *qp, struct kt_wr *w,
			enum ib_wr_opcode op, u64 laddr, u32 lkey, u32 len,
			u64 raddr, u32 rkey)
{
	struct ib_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct ib_rdma_wr wr = {
		.wr = { .wr_cqe = &w->cqe, .sg_list = &sge, .num_sge = 1,
			.opcode = op, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = raddr,
		.rkey = rkey,
	};

	kt_wr_init(w);
	return ib_post_send(qp, &wr.wr, NULL);
}

/*
 * An RC QP connected to itself moves data as a ULP's would: a SEND of two
 * gather entries into a posted receive, an RDMA WRITE and an RDMA READ,
 * first through the PD's global rkey (DMA addresses), then through a
 * fast-registered MR (its iova).  Every byte is compared with the
 * pattern, and the bytes around each target must stay untouched.
 */
static void kt_test_rc_data(struct kt *kt, struct ib_pd *upd)
{
	struct ib_device *dev = kt->dev;
	u32 lkey = upd->local_dma_lkey;
	struct ib_mr *mr = NULL;
	struct scatterlist sg;
	bool sg_mapped = false;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct kt_wr w[2];
	u64 dma = 0;
	long at;
	u8 *b;
	int ret, i;

	b = (u8 *)__get_free_pages(GFP_KERNEL | __GFP_ZERO, KT_DATA_ORDER);
	if (!kt_check(kt, b, "data: out of memory"))
		return;
	for (i = 0; i < KT_RDMA_LEN; i++)
		b[KT_SRC + i] = kt_pattern(i);
	cq = ib_alloc_cq(dev, NULL, 16, 0, IB_POLL_SOFTIRQ);
	if (!kt_check(kt, !IS_ERR(cq), "data: ib_alloc_cq: %ld", PTR_ERR(cq)))
		goto out_buf;
	qp = kt_qp(upd, cq, IB_QPT_RC);
	if (!kt_check(kt, !IS_ERR(qp), "data: create QP: %ld", PTR_ERR(qp)))
		goto out_cq;
	ret = kt_to_rts(qp, kt);
	if (!kt_check(kt, !ret, "data: QP to RTS: %d", ret))
		goto out_qp;
	dma = ib_dma_map_single(dev, b, KT_DATA_BYTES, DMA_BIDIRECTIONAL);
	if (!kt_check(kt, !ib_dma_mapping_error(dev, dma), "data: dma map")) {
		dma = 0;
		goto out_qp;
	}

	/* SEND: two gather entries, one scatter entry. */
	{
		struct ib_sge rsge = { .addr = dma + KT_RECV_AT,
				       .length = KT_SEND_LEN, .lkey = lkey };
		struct ib_recv_wr rwr = { .wr_cqe = &w[0].cqe,
					  .sg_list = &rsge, .num_sge = 1 };
		struct ib_sge ssge[2] = {
			{ .addr = dma + KT_SRC, .length = 1000, .lkey = lkey },
			{ .addr = dma + KT_SRC + 1000,
			  .length = KT_SEND_LEN - 1000, .lkey = lkey },
		};
		struct ib_send_wr swr = { .wr_cqe = &w[1].cqe,
					  .sg_list = ssge, .num_sge = 2,
					  .opcode = IB_WR_SEND,
					  .send_flags = IB_SEND_SIGNALED };

		kt_wr_init(&w[0]);
		kt_wr_init(&w[1]);
		ret = ib_post_recv(qp, &rwr, NULL);
		if (kt_check(kt, !ret, "data: post_recv: %d", ret)) {
			ret = ib_post_send(qp, &swr, NULL);
			kt_check(kt, !ret, "data: post SEND: %d", ret);
		}
		if (!ret) {
			kt_expect(kt, cq, &w[1], IB_WC_SUCCESS, IB_WC_SEND,
				  "data: SEND");
			if (kt_expect(kt, cq, &w[0], IB_WC_SUCCESS, IB_WC_RECV,
				      "data: receive of the SEND"))
				kt_check(kt, w[0].byte_len == KT_SEND_LEN,
					 "data: receive byte_len %u, want %u",
					 w[0].byte_len, KT_SEND_LEN);
		}
	}
	ib_dma_sync_single_for_cpu(dev, dma, KT_DATA_BYTES, DMA_BIDIRECTIONAL);
	at = kt_first_diff(b + KT_RECV_AT, KT_SEND_LEN);
	kt_check(kt, at < 0, "data: SEND: byte %ld differs", at);

	/* WRITE and READ through the global rkey. */
	if (kt_check(kt, upd->unsafe_global_rkey, "data: no global rkey")) {
		ret = kt_post_rdma(qp, &w[0], IB_WR_RDMA_WRITE, dma + KT_SRC,
				   lkey, KT_RDMA_LEN, dma + KT_WRITE_AT,
				   upd->unsafe_global_rkey);
		if (kt_check(kt, !ret, "data: post WRITE: %d", ret))
			kt_expect(kt, cq, &w[0], IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
				  "data: WRITE");
		ret = kt_post_rdma(qp, &w[1], IB_WR_RDMA_READ,
				   dma + KT_READ_AT, lkey, KT_RDMA_LEN,
				   dma + KT_WRITE_AT, upd->unsafe_global_rkey);
		if (kt_check(kt, !ret, "data: post READ: %d", ret))
			kt_expect(kt, cq, &w[1], IB_WC_SUCCESS, IB_WC_RDMA_READ,
				  "data: READ");
		ib_dma_sync_single_for_cpu(dev, dma, KT_DATA_BYTES,
					   DMA_BIDIRECTIONAL);
		at = kt_first_diff(b + KT_WRITE_AT, KT_RDMA_LEN);
		kt_check(kt, at < 0, "data: WRITE: byte %ld differs", at);
		at = kt_first_diff(b + KT_READ_AT, KT_RDMA_LEN);
		kt_check(kt, at < 0, "data: READ: byte %ld differs", at);
	}

	/* The regions' surroundings: nothing wrote past a target. */
	at = kt_first_nonzero(b, KT_RDMA_LEN, KT_RECV_AT);
	if (at < 0)
		at = kt_first_nonzero(b, KT_RECV_AT + KT_SEND_LEN, KT_WRITE_AT);
	if (at < 0)
		at = kt_first_nonzero(b, KT_WRITE_AT + KT_RDMA_LEN, KT_READ_AT);
	if (at < 0)
		at = kt_first_nonzero(b, KT_READ_AT + KT_RDMA_LEN,
				      KT_DATA_BYTES);
	kt_check(kt, at < 0, "data: byte %ld outside every target changed", at);

	/*
	 * Through a fast-registered MR over the WRITE region: WRITE at its
	 * iova + 100, READ it back over the READ region.
	 */
	memset(b + KT_WRITE_AT, 0, KT_DATA_BYTES - KT_WRITE_AT);
	mr = ib_alloc_mr(upd, IB_MR_TYPE_MEM_REG, 2);
	if (!kt_check(kt, !IS_ERR(mr), "data: ib_alloc_mr: %ld", PTR_ERR(mr))) {
		mr = NULL;
		goto out_unmap;
	}
	sg_init_one(&sg, b + KT_WRITE_AT, 2 * PAGE_SIZE);
	sg_mapped = ib_dma_map_sg(dev, &sg, 1, DMA_BIDIRECTIONAL) == 1;
	if (!kt_check(kt, sg_mapped, "data: ib_dma_map_sg") ||
	    !kt_check(kt, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE) == 1,
		      "data: ib_map_mr_sg"))
		goto out_unmap;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	ret = kt_post_reg_mr(qp, &w[0], mr, mr->rkey);
	if (!kt_check(kt, !ret, "data: post REG_MR: %d", ret) ||
	    !kt_expect(kt, cq, &w[0], IB_WC_SUCCESS, IB_WC_REG_MR,
		       "data: REG_MR"))
		goto out_unmap;
	ret = kt_post_rdma(qp, &w[0], IB_WR_RDMA_WRITE, dma + KT_SRC, lkey,
			   KT_RDMA_LEN, mr->iova + 100, mr->rkey);
	if (kt_check(kt, !ret, "data: post WRITE to the MR: %d", ret))
		kt_expect(kt, cq, &w[0], IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
			  "data: WRITE to the MR");
	ret = kt_post_rdma(qp, &w[1], IB_WR_RDMA_READ, dma + KT_READ_AT, lkey,
			   KT_RDMA_LEN, mr->iova + 100, mr->rkey);
	if (kt_check(kt, !ret, "data: post READ from the MR: %d", ret))
		kt_expect(kt, cq, &w[1], IB_WC_SUCCESS, IB_WC_RDMA_READ,
			  "data: READ from the MR");
	ib_dma_sync_single_for_cpu(dev, dma, KT_DATA_BYTES, DMA_BIDIRECTIONAL);
	at = kt_first_diff(b + KT_WRITE_AT + 100, KT_RDMA_LEN);
	kt_check(kt, at < 0, "data: WRITE to the MR: byte %ld differs", at);
	at = kt_first_diff(b + KT_READ_AT, KT_RDMA_LEN);
	kt_check(kt, at < 0, "data: READ from the MR: byte %ld differs", at);
	at = kt_first_nonzero(b, KT_WRITE_AT, KT_WRITE_AT + 100);
	kt_check(kt, at < 0, "data: MR: byte %ld before the WRITE changed", at);

out_unmap:
	if (sg_mapped)
		ib_dma_unmap_sg(dev, &sg, 1, DMA_BIDIRECTIONAL);
	if (dma)
		ib_dma_unmap_single(dev, dma, KT_DATA_BYTES, DMA_BIDIRECTIONAL);
out_qp:
	ret = ib_destroy_qp(qp);
	kt_check(kt, !ret, "data: destroy QP: %d", ret);
	if (mr) {
		ret = ib_dereg_mr(mr);
		kt_check(kt, !ret, "data: dereg MR: %d", ret);
	}
out_cq:
	ib_free_cq(cq);
out_buf:
	free_pages((unsigned long)b, KT_DATA_ORDER);
}

/* ------------------------------------------------------------------ main */

/*
 * The first IPv4-mapped RoCE v2 GID of port 1 and its index, referenced
 * (rdma_put_gid_attr()), as a kernel ULP finds the GID of an address.
 */
static const struct ib_gid_attr *kt_ipv4_gid(struct ib_device *dev, u32 *index)
{
	const struct ib_gid_attr *ga;
	u32 i;

	for (i = 0; i < 16; i++) {
		ga = rdma_get_gid_attr(dev, 1, i);
		if (IS_ERR(ga))
			continue;
		if (ga->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((const struct in6_addr *)ga->gid.raw)) {
			*index = i;
			return ga;
		}
		rdma_put_gid_attr(ga);
	}
	return ERR_PTR(-ENOENT);
}

static void kt_run(struct kt *kt)
{
	struct ib_device *dev = kt->dev;
	const struct ib_gid_attr *ga;
	struct net_device *ndev;
	struct ib_pd *pd = NULL, *upd = NULL;
	struct ib_cq *cq = NULL;
	struct ib_qp *qp = NULL, *qp2 = NULL, *ud = NULL;
	struct ib_mr *frmr = NULL;
	struct ib_ah *ah = NULL, *ah_atomic;
	struct rdma_ah_attr aa = {};
	struct kt_wr w[4];
	struct scatterlist sg;
	struct ib_qp_attr qa;
	struct ib_qp_init_attr qia;
	unsigned long flags;
	long cerr;
	void *buf = NULL, *fbuf = NULL;
	u64 dma = 0;
	bool sg_mapped = false;
	int ret, n;

	/* Registration fills the GID table; give it a moment when racing. */
	for (n = 0; n < 20; n++) {
		ga = kt_ipv4_gid(dev, &kt->gid_index);
		if (!IS_ERR(ga))
			break;
		msleep(100);
	}
	if (!kt_check(kt, !IS_ERR(ga), "no IPv4 RoCE v2 GID: %ld",
		      PTR_ERR(ga)))
		return;
	kt->gid = ga->gid;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(ga);
	if (!IS_ERR(ndev))
		ether_addr_copy(kt->mac, ndev->dev_addr);
	rcu_read_unlock();
	rdma_put_gid_attr(ga);
	kt_check(kt, !IS_ERR(ndev), "GID %u has no netdev", kt->gid_index);
	kt_check(kt, kt->gid_index == 3,
		 "the IPv4 RoCE v2 GID is at index %u, not 3", kt->gid_index);

	/* PDs: the local DMA lkey, and a DMA MR with a global rkey. */
	pd = ib_alloc_pd(dev, 0);
	if (!kt_check(kt, !IS_ERR(pd), "ib_alloc_pd: %ld", PTR_ERR(pd))) {
		pd = NULL;
		goto out;
	}
	upd = ib_alloc_pd(dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (kt_check(kt, !IS_ERR(upd), "ib_alloc_pd(UNSAFE_GLOBAL_RKEY): %ld",
		     PTR_ERR(upd)))
		kt_check(kt, upd->unsafe_global_rkey != 0 ||
			 upd->__internal_mr,
			 "no global rkey DMA MR");
	else
		upd = NULL;

	buf = kzalloc(4096, GFP_KERNEL);
	fbuf = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO, 1);
	if (!kt_check(kt, buf && fbuf, "out of memory"))
		goto out;
	dma = ib_dma_map_single(dev, buf, 4096, DMA_BIDIRECTIONAL);
	if (!kt_check(kt, !ib_dma_mapping_error(dev, dma), "dma map failed")) {
		dma = 0;
		goto out;
	}

	cq = ib_alloc_cq(dev, kt, 64, 0, IB_POLL_DIRECT);
	if (!kt_check(kt, !IS_ERR(cq), "ib_alloc_cq(DIRECT): %ld",
		      PTR_ERR(cq))) {
		cq = NULL;
		goto out;
	}

	/* RC QP through INIT/RTR/RTS, connected to itself. */
	qp = kt_qp(pd, cq, IB_QPT_RC);
	if (!kt_check(kt, !IS_ERR(qp), "ib_create_qp(RC): %ld", PTR_ERR(qp))) {
		qp = NULL;
		goto out;
	}
	ret = ib_query_qp(qp, &qa, IB_QP_CAP, &qia);
	kt_check(kt, !ret && qia.cap.max_send_wr >= 8 &&
		 qia.cap.max_recv_wr >= 8 && qia.cap.max_send_sge >= 2 &&
		 qia.cap.max_recv_sge >= 2,
		 "query_qp caps: %d, %u/%u %u/%u", ret, qia.cap.max_send_wr,
		 qia.cap.max_recv_wr, qia.cap.max_send_sge,
		 qia.cap.max_recv_sge);
	ret = kt_to_rts(qp, kt);
	if (!kt_check(kt, !ret, "RC QP to RTS: %d", ret))
		goto out;
	ret = ib_query_qp(qp, &qa, IB_QP_STATE | IB_QP_DEST_QPN, &qia);
	kt_check(kt, !ret && qa.qp_state == IB_QPS_RTS &&
		 qa.dest_qp_num == qp->qp_num,
		 "query_qp after RTS: %d, state %d", ret, qa.qp_state);
	ret = kt_post_recv(qp, &w[0], dma, pd->local_dma_lkey);
	kt_check(kt, !ret, "post_recv with local_dma_lkey: %d", ret);

	/* Fast registration through the send queue. */
	frmr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
	if (kt_check(kt, !IS_ERR(frmr), "ib_alloc_mr(MEM_REG): %ld",
		     PTR_ERR(frmr))) {
		struct ib_send_wr iw = {};

		sg_init_one(&sg, fbuf, 2 * PAGE_SIZE);
		sg_mapped = ib_dma_map_sg(dev, &sg, 1, DMA_BIDIRECTIONAL) == 1;
		kt_check(kt, sg_mapped, "ib_dma_map_sg failed");
		n = sg_mapped ? ib_map_mr_sg(frmr, &sg, 1, NULL, PAGE_SIZE) : 0;
		kt_check(kt, n == 1 && frmr->length == 2 * PAGE_SIZE,
			 "ib_map_mr_sg: %d, length %llu", n, frmr->length);
		ib_update_fast_reg_key(frmr, ib_inc_rkey(frmr->rkey));
		ret = kt_post_reg_mr(qp, &w[1], frmr, frmr->rkey);
		if (kt_check(kt, !ret, "post REG_MR: %d", ret))
			kt_expect(kt, cq, &w[1], IB_WC_SUCCESS, IB_WC_REG_MR,
				  "REG_MR");
		kt_wr_init(&w[2]);
		iw.opcode = IB_WR_LOCAL_INV;
		iw.wr_cqe = &w[2].cqe;
		iw.send_flags = IB_SEND_SIGNALED;
		iw.ex.invalidate_rkey = frmr->rkey;
		ret = ib_post_send(qp, &iw, NULL);
		if (kt_check(kt, !ret, "post LOCAL_INV: %d", ret))
			kt_expect(kt, cq, &w[2], IB_WC_SUCCESS,
				  IB_WC_LOCAL_INV, "LOCAL_INV");

		/* A REG_MR whose key names another MR fails (on its own QP). */
		qp2 = kt_qp(pd, cq, IB_QPT_RC);
		if (!IS_ERR(qp2) && !kt_to_rts(qp2, kt)) {
			ret = kt_post_reg_mr(qp2, &w[3], frmr,
					     frmr->rkey ^ 0x100);
			if (!ret) {
				kt_check(kt, kt_wait(cq, &w[3]),
					 "REG_MR with a wrong key: no completion");
				kt_check(kt, w[3].status != IB_WC_SUCCESS,
					 "REG_MR with a wrong key completed successfully");
			}
		}
		if (IS_ERR(qp2))
			qp2 = NULL;
	} else {
		frmr = NULL;
	}

	/* AHs: sleepable, and in atomic context. */
	aa.type = rdma_ah_find_type(dev, 1);
	rdma_ah_set_port_num(&aa, 1);
	rdma_ah_set_grh(&aa, &kt->gid, 0, kt->gid_index, 64, 0);
	memcpy(aa.roce.dmac, kt->mac, ETH_ALEN);
	ah = rdma_create_ah(pd, &aa, RDMA_CREATE_AH_SLEEPABLE);
	if (!kt_check(kt, !IS_ERR(ah), "rdma_create_ah: %ld", PTR_ERR(ah)))
		ah = NULL;
	spin_lock_irqsave(&kt_atomic_lock, flags);
	ah_atomic = rdma_create_ah(pd, &aa, 0);
	cerr = IS_ERR(ah_atomic) ? PTR_ERR(ah_atomic) : 0;
	ret = cerr ? 0 : rdma_destroy_ah_user(ah_atomic, 0, NULL);
	spin_unlock_irqrestore(&kt_atomic_lock, flags);
	kt_check(kt, !cerr, "rdma_create_ah in atomic context: %ld", cerr);
	kt_check(kt, !ret, "rdma_destroy_ah in atomic context: %d", ret);

	/* UD QP through its states. */
	ud = kt_qp(pd, cq, IB_QPT_UD);
	if (kt_check(kt, !IS_ERR(ud), "ib_create_qp(UD): %ld", PTR_ERR(ud))) {
		ret = kt_to_rts(ud, kt);
		kt_check(kt, !ret, "UD QP to RTS: %d", ret);
	} else {
		ud = NULL;
	}

	/* ERR flushes the posted receive, and work posted afterwards. */
	ret = kt_modify(qp, IB_QPS_ERR, kt);
	if (kt_check(kt, !ret, "RC QP to ERR: %d", ret)) {
		kt_expect(kt, cq, &w[0], IB_WC_WR_FLUSH_ERR, -1,
			  "receive flushed by ERR");
		kt_check(kt, w[0].qp_num == qp->qp_num,
			 "flush completion qp_num %u, want %u", w[0].qp_num,
			 qp->qp_num);
		ret = kt_post_recv(qp, &w[1], dma, pd->local_dma_lkey);
		if (kt_check(kt, !ret, "post_recv in ERR: %d", ret))
			kt_expect(kt, cq, &w[1], IB_WC_WR_FLUSH_ERR, -1,
				  "receive posted in ERR");
		ret = kt_post_send(qp, &w[2], dma, pd->local_dma_lkey);
		if (kt_check(kt, !ret, "post_send in ERR: %d", ret))
			kt_expect(kt, cq, &w[2], IB_WC_WR_FLUSH_ERR, -1,
				  "send posted in ERR");
		ret = ib_query_qp(qp, &qa, IB_QP_STATE, &qia);
		kt_check(kt, !ret && qa.qp_state == IB_QPS_ERR,
			 "query_qp in ERR: %d, state %d", ret, qa.qp_state);
	}

	kt_test_legacy_cq(kt, pd, dma);
	kt_test_poll_ctx(kt, pd, dma, IB_POLL_SOFTIRQ, "softirq CQ");
	kt_test_poll_ctx(kt, pd, dma, IB_POLL_WORKQUEUE, "workqueue CQ");
	if (upd)
		kt_test_rc_data(kt, upd);

out:
	if (ud) {
		ret = ib_destroy_qp(ud);
		kt_check(kt, !ret, "destroy UD QP: %d", ret);
	}
	if (qp2) {
		ret = ib_destroy_qp(qp2);
		kt_check(kt, !ret, "destroy QP 2: %d", ret);
	}
	if (qp) {
		ret = ib_destroy_qp(qp);
		kt_check(kt, !ret, "destroy RC QP: %d", ret);
	}
	if (cq) {
		/* Drain anything left so that no stale wr_cqe survives. */
		ib_process_cq_direct(cq, -1);
		ib_free_cq(cq);
	}
	if (ah) {
		ret = rdma_destroy_ah_user(ah, RDMA_DESTROY_AH_SLEEPABLE, NULL);
		kt_check(kt, !ret, "rdma_destroy_ah: %d", ret);
	}
	if (frmr) {
		ret = ib_dereg_mr(frmr);
		kt_check(kt, !ret, "dereg fast-reg MR: %d", ret);
	}
	if (sg_mapped)
		ib_dma_unmap_sg(dev, &sg, 1, DMA_BIDIRECTIONAL);
	if (dma)
		ib_dma_unmap_single(dev, dma, 4096, DMA_BIDIRECTIONAL);
	if (upd) {
		ret = ib_dealloc_pd_user(upd, NULL);
		kt_check(kt, !ret, "dealloc unsafe PD: %d", ret);
	}
	if (pd) {
		ret = ib_dealloc_pd_user(pd, NULL);
		kt_check(kt, !ret, "dealloc PD: %d", ret);
	}
	kfree(buf);
	if (fbuf)
		free_pages((unsigned long)fbuf, 1);
}

static int kt_add(struct ib_device *dev)
{
	struct kt *kt;

	if (strncmp(dev_name(&dev->dev), prefix, strlen(prefix)))
		return -EOPNOTSUPP;
	kt = kzalloc(sizeof(*kt), GFP_KERNEL);
	if (!kt)
		return -ENOMEM;
	kt->dev = dev;
	kt_run(kt);
	if (kt->fails)
		pr_info("vroce_ktest: FAIL %s: %d of %d checks failed; first: %s\n",
			dev_name(&dev->dev), kt->fails, kt->checks, kt->first);
	else
		pr_info("vroce_ktest: PASS %s: %d checks\n",
			dev_name(&dev->dev), kt->checks);
	kfree(kt);
	return 0;
}

static void kt_remove(struct ib_device *dev, void *client_data)
{
}

static struct ib_client kt_client = {
	.name = "vroce_ktest",
	.add = kt_add,
	.remove = kt_remove,
};

static int __init kt_init(void)
{
	return ib_register_client(&kt_client);
}

static void __exit kt_exit(void)
{
	ib_unregister_client(&kt_client);
}

module_init(kt_init);
module_exit(kt_exit);
MODULE_DESCRIPTION("Kernel verbs checks for vroce devices");
MODULE_LICENSE("GPL");
