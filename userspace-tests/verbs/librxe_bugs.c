// SPDX-License-Identifier: GPL-2.0
/*
 * The three bugs of Debian 12's librxe (rdma-core v44.0,
 * providers/rxe/rxe.c) driven through librxe's own extended verbs on one
 * device, RC QPs connected to each other (loopback):
 *
 *   librxe_bugs [-d DEV] [-v]
 *
 * 1. ibv_wr_set_sge_list() sums sg_list[0].length num_sge times (the loop
 *    never advances the pointer) and stores that, truncated to 32 bits,
 *    as the WQE's dma.length/resid; the SGEs themselves are copied right.
 *    Driven with SEND, RDMA WRITE and RDMA READ over the SGE lengths
 *    {100,200,300} (librxe says 300, the SGEs make 600), {300,100,100}
 *    (900 for 500), {0,256,256} (0 for 512) and {2^31,2^31} (0 for 4 GiB,
 *    far beyond the 56 KiB MR).  Correct: the message is what the SGE
 *    list describes (IBTA: the sum of the SGE lengths).  A SUCCESS must
 *    carry exactly the gathered bytes (receive byte_len and READ byte_len
 *    = the sum, scattered READ data in the right pieces); an error
 *    completion must leave every byte as it was; {2^31,2^31} can only be
 *    an error.  vroce recomputes the length from the SGEs, so the first
 *    three succeed with the SGE sum.
 *
 * 2. ibv_wr_set_inline_data_list() never adds to its running total: each
 *    buffer is checked alone against max_inline_data, so a list of many
 *    small buffers is copied on past the end of its slot into the next
 *    slots, and dma.length is always 0.  The kernel can only see a 0-byte
 *    inline WQE: correct is SUCCESS carrying 0 bytes (the receive
 *    completes with byte_len 0, no byte anywhere changes) or an error
 *    completion.  Cases: a list within the slot (SEND), a 0-byte RDMA
 *    WRITE, an overrun over the whole next slot into the one after within
 *    one batch whose two following WQEs (SEND with an SGE, RDMA WRITE with
 *    ordinary inline data) librxe builds on top of the scribble, and an
 *    overrun onto WQEs posted earlier and still pending (the SQ has
 *    wrapped; six SENDs wait on RNR NAKs, no receive is posted): the bytes
 *    that land on the oldest pending WQE's header form a hostile WQE
 *    (inline length 1 MiB, num_sge 65536, wr_id 0xbadbad).  The pending
 *    WQEs must complete as posted (the kernel took its copy at the
 *    doorbell) or with an error, never run the scribble; the neighbours
 *    must deliver their own data exactly.
 *
 * 3. The extended CQ poll: ibv_next_poll() that finds the CQ empty stores
 *    the consumer index, then ibv_end_poll() (which the API requires after
 *    it) advances it once more.  (a) When the kernel adds a CQE between
 *    the two, librxe skips it: the kernel must carry on (no CQ error, the
 *    next CQE is delivered).  (b) On an empty CQ the consumer index ends
 *    one past the producer: to the kernel the CQ is full.  Correct: the
 *    next completion is not written (ring bytes unchanged, producer index
 *    unchanged), IBV_EVENT_CQ_ERR is raised for that CQ, the WR itself
 *    still executes (the peer receives its bytes) and a new CQ and QP on
 *    the device work.  Completions are otherwise read the safe way for
 *    v44: ibv_start_poll() + ibv_end_poll(), one entry at a time.
 *
 * All memory the kernel may touch lies in two 64 KiB buffers filled with
 * a canary byte, of which only the middle 56 KiB are registered: after
 * every WR both buffers are compared byte for byte with what the WR may
 * have written.  After each case a well-formed SEND on the same QP must
 * deliver its bytes (positive control).  Ends with a line per bug
 * ("sge_list: N WRs, N success, N error, ...") and the usual summary.
 *
 * Each case also checks that librxe really did what v44 does (the WQE's
 * dma.length, the scribble in the next slots, the consumer index): a case
 * whose bug did not trigger fails, since it then tests nothing.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define BUF_LEN		0x10000
#define MR_OFF		0x1000		/* registered: [MR_OFF, MR_OFF+MR_LEN) */
#define MR_LEN		0xe000
#define CANARY		0xc5
#define WAIT_MS		10000

/* Offsets inside the registered part of L (requester) and R (peer). */
#define L_PIECE(i)	(0x1000 * ((i) + 1))	/* SGE pieces, 0x800 each */
#define L_STALL(i)	(0x6000 + 0x100 * (i))	/* sources of pending SENDs */
#define L_CTL		0x8000			/* positive control source */
#define L_NEIGH		0x9000			/* neighbour SEND source */
#define R_RECV(i)	(0x1000 + 0x400 * (i))	/* receive buffers */
#define R_RECV_LEN	0x400
#define R_WRITE		0x4000			/* RDMA WRITE target */
#define R_READ		0x6000			/* RDMA READ source */
#define R_CTL		0x8000			/* positive control receive */
#define R_NEIGH_WR	0xa000			/* neighbour WRITE target */
#define PIECE_MAX	0x800
#define CTL_LEN		512
#define STALL_LEN	64
#define BAD_WR_ID	0xbadbadULL

struct pair {
	struct ibv_cq *scq;		/* A's send CQ (legacy or from scqx) */
	struct ibv_cq_ex *scqx;		/* set: A's completions via cq_ex */
	struct ibv_cq *rcq;		/* B's CQ, and A's receive CQ */
	struct ibv_qp *qa, *qb;		/* A sends to B */
	struct ibv_qp_ex *xa;
	struct rxe_queue_buf *sq;	/* A's send ring as librxe maps it */
};

struct tally {
	int wrs, success, error, reproduced;
};

static struct vt_dev dev;
static struct ibv_pd *pd;
static struct ibv_mr *lmr, *rmr;
static uint8_t *lall, *rall, *lexp, *rexp;
static struct tally t_sge, t_inl, t_cq;
static int n_ctl, n_neigh, n_neigh_ok;

#define LB (lall + MR_OFF)
#define RB (rall + MR_OFF)

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 37 + i * 13 + (i >> 8) + 1);
}

static void canary_all(void)
{
	memset(lall, CANARY, BUF_LEN);
	memset(rall, CANARY, BUF_LEN);
}

/* What the buffers must look like after the WR, before its effects. */
static void expect_now(void)
{
	memcpy(lexp, lall, BUF_LEN);
	memcpy(rexp, rall, BUF_LEN);
}

/* Compare both buffers with the expected images; describe the first diff. */
static bool images_match(char *why, size_t wlen)
{
	const struct { const char *n; uint8_t *got, *want; } b[] = {
		{ "L", lall, lexp }, { "R", rall, rexp },
	};
	size_t i, k, ndiff;

	for (i = 0; i < 2; i++) {
		if (!memcmp(b[i].got, b[i].want, BUF_LEN))
			continue;
		for (k = 0; b[i].got[k] == b[i].want[k]; k++)
			;
		for (ndiff = 0; k + ndiff < BUF_LEN &&
		     b[i].got[k + ndiff] != b[i].want[k + ndiff]; ndiff++)
			;
		snprintf(why, wlen,
			 "%s byte %#zx (MR offset %ld%s) is %#x, want %#x (%zu differ in a row)",
			 b[i].n, k, (long)k - MR_OFF,
			 (k < MR_OFF || k >= MR_OFF + MR_LEN) ?
			 ", OUTSIDE the MR" : "", b[i].got[k], b[i].want[k],
			 ndiff);
		return false;
	}
	return true;
}

static struct rxe_send_wqe *sq_slot(struct pair *p, uint32_t idx)
{
	struct rxe_queue_buf *q = p->sq;

	return (struct rxe_send_wqe *)(q->data +
		((size_t)(idx & q->index_mask) << q->log2_elem_size));
}

static uint32_t ld(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static uint32_t sq_prod(struct pair *p)
{
	return ld(&p->sq->producer_index);
}

static uint32_t sq_cons(struct pair *p)
{
	return ld(&p->sq->consumer_index);
}

static int post_recv(struct pair *p, uint64_t id, size_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(RB + off), .length = len,
		.lkey = rmr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(p->qb, &wr, &bad);
}

/* One signaled SEND with one SGE from L at @off. */
static int post_send_sge(struct pair *p, uint64_t id, size_t off, uint32_t len)
{
	ibv_wr_start(p->xa);
	p->xa->wr_id = id;
	p->xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(p->xa);
	ibv_wr_set_sge(p->xa, lmr->lkey, (uintptr_t)(LB + off), len);
	return ibv_wr_complete(p->xa);
}

/*
 * One completion of A's send CQ.  Through a cq_ex only the pattern that
 * is safe with librxe v44: ibv_start_poll(), read, ibv_end_poll().
 */
static int poll_send(struct pair *p, struct ibv_wc *wc, int ms)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	uint64_t end = vt_now_ms() + (uint64_t)ms;
	int r;

	if (!p->scqx)
		return vt_poll(p->scq, wc, 1, ms);
	for (;;) {
		r = ibv_start_poll(p->scqx, &pa);
		if (r == 0) {
			memset(wc, 0, sizeof(*wc));
			wc->wr_id = p->scqx->wr_id;
			wc->status = p->scqx->status;
			wc->opcode = ibv_wc_read_opcode(p->scqx);
			wc->byte_len = ibv_wc_read_byte_len(p->scqx);
			ibv_end_poll(p->scqx);
			return 1;
		}
		if (r != ENOENT || vt_now_ms() >= end)
			return 0;
		usleep(1000);
	}
}

static void drain(struct ibv_cq *cq)
{
	struct ibv_wc wc[16];

	while (vt_poll(cq, wc, 16, 30) > 0)
		;
}

/* Back to a connected RTS pair after an error (A's CQs are emptied). */
static int reconnect(struct pair *p)
{
	struct ibv_wc wc;
	int err;

	vt_qp_set_state(p->qa, IBV_QPS_RESET);
	vt_qp_set_state(p->qb, IBV_QPS_RESET);
	if (p->scqx)
		while (poll_send(p, &wc, 30) > 0)
			;
	else
		drain(p->scq);
	drain(p->rcq);
	err = vt_qp_to_rts(&dev, p->qa, p->qb->qp_num);
	if (!err)
		err = vt_qp_to_rts(&dev, p->qb, p->qa->qp_num);
	if (err)
		vt_failf("reconnect", "QPs back to RTS: %s", vt_errname(err));
	return err;
}

static bool pair_in_rts(struct pair *p)
{
	return vt_qp_state(p->qa) == IBV_QPS_RTS &&
	       vt_qp_state(p->qb) == IBV_QPS_RTS;
}

/* A well-formed SEND on the same QP delivers exactly its bytes. */
static bool control(struct pair *p, const char *after)
{
	char name[96], why[256];
	struct ibv_wc wa, wb;
	int err;

	snprintf(name, sizeof(name), "control.%s", after);
	if (!pair_in_rts(p) && reconnect(p))
		return false;
	n_ctl++;
	fill(LB + L_CTL, CTL_LEN, 0x77 + n_ctl);
	memset(RB + R_CTL, CANARY, 0x1000);
	expect_now();
	memcpy(rexp + MR_OFF + R_CTL, LB + L_CTL, CTL_LEN);
	if (post_recv(p, 0xc0, R_CTL, 0x1000)) {
		vt_failf(name, "post_recv failed");
		return false;
	}
	err = post_send_sge(p, 0xc1, L_CTL, CTL_LEN);
	if (err) {
		vt_failf(name, "ibv_wr_complete: %s", vt_errname(err));
		return false;
	}
	if (poll_send(p, &wa, WAIT_MS) != 1 || vt_poll(p->rcq, &wb, 1,
						       WAIT_MS) != 1) {
		vt_failf(name, "no completion within %d ms", WAIT_MS);
		return false;
	}
	if (wa.wr_id != 0xc1 || wa.status != IBV_WC_SUCCESS ||
	    wb.wr_id != 0xc0 || wb.status != IBV_WC_SUCCESS ||
	    wb.byte_len != CTL_LEN) {
		vt_failf(name, "send %#llx %s, recv %#llx %s %u bytes; want SUCCESS, %u bytes",
			 (unsigned long long)wa.wr_id, vt_wcname(wa.status),
			 (unsigned long long)wb.wr_id, vt_wcname(wb.status),
			 wb.byte_len, CTL_LEN);
		return false;
	}
	if (!images_match(why, sizeof(why))) {
		vt_failf(name, "%s", why);
		return false;
	}
	vt_ok(name, "%u bytes delivered and verified", CTL_LEN);
	return true;
}

/*
 * Post controls until librxe's producer index of A's SQ is in [lo, hi]
 * (the SQ is idle: producer == consumer).
 */
static bool sq_position(struct pair *p, uint32_t lo, uint32_t hi,
			const char *why)
{
	uint32_t i;

	for (i = 0; i <= p->sq->index_mask + 1; i++) {
		if (sq_prod(p) >= lo && sq_prod(p) <= hi)
			return true;
		if (!control(p, why))
			return false;
	}
	vt_failf(why, "producer index stuck at %u", sq_prod(p));
	return false;
}

/* ------------------------------------------------ 1. wr_set_sge_list */

enum op { OP_SEND, OP_WRITE, OP_READ };
static const char *const op_name[] = { "send", "write", "read" };

static void sge_case(struct pair *p, enum op op, const char *pat, int n,
		     const uint32_t *len)
{
	uint8_t gather[4 * PIECE_MAX];
	struct ibv_sge sg[4];
	struct ibv_wc wa, wb;
	char name[96], why[256], what[160];
	uint32_t v44_len, wqe_len, pos, i;
	uint64_t sum = 0, id = 0x1000 + t_sge.wrs;
	bool fits = true, ok = true;
	int err, nb;

	snprintf(name, sizeof(name), "sge_list.%s.%s", op_name[op], pat);
	canary_all();
	for (i = 0; i < (uint32_t)n; i++) {
		sum += len[i];
		fits = fits && len[i] <= PIECE_MAX;
		sg[i].addr = (uintptr_t)(LB + L_PIECE(i));
		sg[i].length = len[i];
		sg[i].lkey = lmr->lkey;
		if (op != OP_READ && len[i] <= PIECE_MAX)
			fill(LB + L_PIECE(i), len[i], (uint32_t)id + i);
	}
	/* what v44 stores: sg_list[0].length, n times, in 32 bits */
	v44_len = (uint32_t)((uint64_t)n * len[0]);
	if (op == OP_READ)
		fill(RB + R_READ, sizeof(gather), (uint32_t)id);
	if (op == OP_SEND && post_recv(p, id, R_RECV(0), R_RECV_LEN)) {
		vt_failf(name, "post_recv failed");
		return;
	}
	expect_now();

	ibv_wr_start(p->xa);
	p->xa->wr_id = id;
	p->xa->wr_flags = IBV_SEND_SIGNALED;
	if (op == OP_SEND)
		ibv_wr_send(p->xa);
	else if (op == OP_WRITE)
		ibv_wr_rdma_write(p->xa, rmr->rkey, (uintptr_t)(RB + R_WRITE));
	else
		ibv_wr_rdma_read(p->xa, rmr->rkey, (uintptr_t)(RB + R_READ));
	ibv_wr_set_sge_list(p->xa, n, sg);
	err = ibv_wr_complete(p->xa);
	t_sge.wrs++;
	if (err) {
		vt_failf(name, "ibv_wr_complete: %s", vt_errname(err));
		return;
	}
	/* the kernel never writes a user SQ slot: this is librxe's WQE */
	wqe_len = sq_slot(p, sq_prod(p) - 1)->dma.length;
	if (wqe_len == v44_len && (uint64_t)v44_len != sum)
		t_sge.reproduced++;
	else
		vt_failf(name, "librxe wrote dma.length %u, v44 writes %u for SGEs summing to %llu: the bug did not trigger",
			 wqe_len, v44_len, (unsigned long long)sum);
	snprintf(what, sizeof(what), "librxe wrote dma.length %u for SGEs summing to %llu",
		 wqe_len, (unsigned long long)sum);

	if (poll_send(p, &wa, WAIT_MS) != 1) {
		vt_failf(name, "%s: no completion within %d ms", what, WAIT_MS);
		reconnect(p);
		return;
	}
	if (wa.wr_id != id) {
		vt_failf(name, "%s: completion for wr_id %#llx, want %#llx",
			 what, (unsigned long long)wa.wr_id,
			 (unsigned long long)id);
		ok = false;
	}
	if (wa.status == IBV_WC_SUCCESS) {
		t_sge.success++;
		if (!fits) {
			vt_failf(name, "%s: SUCCESS for SGEs beyond the MR",
				 what);
			reconnect(p);
			return;
		}
		for (pos = 0, i = 0; i < (uint32_t)n; pos += len[i], i++)
			if (op != OP_READ)
				memcpy(gather + pos, LB + L_PIECE(i), len[i]);
		if (op == OP_SEND)
			memcpy(rexp + MR_OFF + R_RECV(0), gather, sum);
		else if (op == OP_WRITE)
			memcpy(rexp + MR_OFF + R_WRITE, gather, sum);
		else
			for (pos = 0, i = 0; i < (uint32_t)n;
			     pos += len[i], i++)
				memcpy(lexp + MR_OFF + L_PIECE(i),
				       RB + R_READ + pos, len[i]);
		if (op == OP_READ && wa.byte_len != sum) {
			vt_failf(name, "%s: READ byte_len %u, want %llu", what,
				 wa.byte_len, (unsigned long long)sum);
			ok = false;
		}
		if (op == OP_SEND) {
			nb = vt_poll(p->rcq, &wb, 1, WAIT_MS);
			if (nb != 1 || wb.status != IBV_WC_SUCCESS ||
			    wb.byte_len != sum) {
				vt_failf(name, "%s: receive %s, %s %u bytes, want SUCCESS %llu",
					 what, nb == 1 ? "done" : "missing",
					 nb == 1 ? vt_wcname(wb.status) : "-",
					 nb == 1 ? wb.byte_len : 0,
					 (unsigned long long)sum);
				ok = false;
			}
		}
		if (!images_match(why, sizeof(why))) {
			vt_failf(name, "%s: SUCCESS but %s", what, why);
			ok = false;
		}
		if (ok)
			vt_ok(name, "%s: SUCCESS, %llu bytes verified where the SGEs say",
			      what, (unsigned long long)sum);
	} else {
		t_sge.error++;
		if (!images_match(why, sizeof(why))) {
			vt_failf(name, "%s: %s but %s", what,
				 vt_wcname(wa.status), why);
			ok = false;
		}
		if (ok)
			vt_ok(name, "%s: %s, no byte changed", what,
			      vt_wcname(wa.status));
		reconnect(p);
	}
	if (!pair_in_rts(p))
		reconnect(p);
	control(p, name);
}

static void sge_list_cases(struct pair *p)
{
	static const struct {
		const char *pat;
		int n;
		uint32_t len[4];
	} pats[] = {
		{ "short", 3, { 100, 200, 300 } },	/* v44: 300 of 600 */
		{ "long", 3, { 300, 100, 100 } },	/* v44: 900 of 500 */
		{ "zero_first", 3, { 0, 256, 256 } },	/* v44: 0 of 512 */
		{ "wrap", 2, { 0x80000000u, 0x80000000u } }, /* v44: 0 of 4G */
	};
	enum op op;
	size_t k;

	for (op = OP_SEND; op <= OP_READ; op++)
		for (k = 0; k < VT_ARRAY_SIZE(pats); k++)
			sge_case(p, op, pats[k].pat, pats[k].n, pats[k].len);
}

/* ------------------------------------------ 2. wr_set_inline_data_list */

/* @total bytes of @stream as a list of buffers of at most @chunk bytes. */
static size_t make_list(struct ibv_data_buf *bufs, size_t max, uint8_t *stream,
			size_t total, size_t chunk)
{
	size_t n = 0, off;

	for (off = 0; off < total && n < max; off += chunk, n++) {
		bufs[n].addr = stream + off;
		bufs[n].length = total - off < chunk ? total - off : chunk;
	}
	return n;
}

static size_t inline_off(void)
{
	return offsetof(struct rxe_send_wqe, dma) +
	       offsetof(struct rxe_dma_info, inline_data);
}

/*
 * Collect @n send completions (in posting order from @id0) and classify:
 * all SUCCESS (return 1), or the first failing and the rest flushed
 * (return 0 with the pair reconnected), or anything else (-1, reported).
 */
static int collect(struct pair *p, const char *name, uint64_t id0, int n,
		   struct ibv_wc *wc)
{
	int i, got = 0, first_err = -1;

	for (i = 0; i < n; i++) {
		if (poll_send(p, &wc[i], WAIT_MS) != 1)
			break;
		got++;
	}
	if (got != n) {
		vt_failf(name, "%d of %d completions within %d ms", got, n,
			 WAIT_MS);
		reconnect(p);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (wc[i].wr_id != id0 + (uint64_t)i) {
			vt_failf(name, "completion %d has wr_id %#llx (%s), want %#llx",
				 i, (unsigned long long)wc[i].wr_id,
				 vt_wcname(wc[i].status),
				 (unsigned long long)(id0 + (uint64_t)i));
			reconnect(p);
			return -1;
		}
		if (wc[i].status != IBV_WC_SUCCESS && first_err < 0)
			first_err = i;
		if (first_err >= 0 && i > first_err &&
		    wc[i].status == IBV_WC_SUCCESS) {
			vt_failf(name, "completion %d SUCCESS after an error", i);
			reconnect(p);
			return -1;
		}
	}
	if (first_err < 0)
		return 1;
	reconnect(p);
	return 0;
}

/* A 0-byte-by-the-WQE inline list, SEND or RDMA WRITE, within the slot. */
static void inline_simple(struct pair *p, bool write)
{
	const char *name = write ? "inline_list.write" : "inline_list.send";
	uint8_t data[160];
	struct ibv_data_buf bufs[3];
	struct ibv_wc wa, wb;
	uint64_t id = 0x2000 + t_inl.wrs;
	size_t nbuf;
	char why[256], what[128];
	uint32_t wqe_len;
	int err;

	canary_all();
	fill(data, sizeof(data), 0x21);
	nbuf = write ? make_list(bufs, 3, data, 100, 50) :
		       make_list(bufs, 3, data, 96, 32);
	if (!write && post_recv(p, id, R_RECV(0), R_RECV_LEN)) {
		vt_failf(name, "post_recv failed");
		return;
	}
	expect_now();
	ibv_wr_start(p->xa);
	p->xa->wr_id = id;
	p->xa->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	if (write)
		ibv_wr_rdma_write(p->xa, rmr->rkey, (uintptr_t)(RB + R_WRITE));
	else
		ibv_wr_send(p->xa);
	ibv_wr_set_inline_data_list(p->xa, nbuf, bufs);
	err = ibv_wr_complete(p->xa);
	t_inl.wrs++;
	if (err) {
		vt_failf(name, "ibv_wr_complete: %s", vt_errname(err));
		return;
	}
	wqe_len = sq_slot(p, sq_prod(p) - 1)->dma.length;
	if (wqe_len == 0)
		t_inl.reproduced++;
	else
		vt_failf(name, "librxe wrote dma.length %u, v44 writes 0: the bug did not trigger",
			 wqe_len);
	snprintf(what, sizeof(what), "librxe wrote dma.length %u for %zu buffers of %u bytes",
		 wqe_len, nbuf, write ? 100 : 96);
	if (poll_send(p, &wa, WAIT_MS) != 1 || wa.wr_id != id) {
		vt_failf(name, "%s: no completion for %#llx", what,
			 (unsigned long long)id);
		reconnect(p);
		return;
	}
	if (wa.status == IBV_WC_SUCCESS) {
		t_inl.success++;
		if (!write && (vt_poll(p->rcq, &wb, 1, WAIT_MS) != 1 ||
			       wb.status != IBV_WC_SUCCESS ||
			       wb.byte_len != wqe_len)) {
			vt_failf(name, "%s: SUCCESS but the receive is not a SUCCESS of %u bytes",
				 what, wqe_len);
			return;
		}
		if (!images_match(why, sizeof(why)))
			vt_failf(name, "%s: SUCCESS but %s", what, why);
		else
			vt_ok(name, "%s: SUCCESS carrying %u bytes, no byte changed",
			      what, wqe_len);
	} else {
		t_inl.error++;
		if (!images_match(why, sizeof(why)))
			vt_failf(name, "%s: %s but %s", what,
				 vt_wcname(wa.status), why);
		else
			vt_ok(name, "%s: %s, no byte changed", what,
			      vt_wcname(wa.status));
		reconnect(p);
	}
	control(p, name);
}

/*
 * One batch: an inline list that runs over the whole next slot into the
 * one after, then librxe builds two WQEs in those slots: a SEND with an
 * SGE and an RDMA WRITE with ordinary inline data.
 */
static void inline_overrun_batch(struct pair *p)
{
	const char *name = "inline_list.overrun_batch";
	size_t slot = (size_t)1 << p->sq->log2_elem_size;
	size_t off = inline_off(), total = 2 * slot + 200, nbuf;
	uint32_t mask = p->sq->index_mask, p0;
	struct ibv_data_buf bufs[64];
	uint8_t *stream = malloc(total), inl[100];
	uint64_t id = 0x2100;
	struct ibv_wc wa[3], wb[2];
	char why[256];
	int r, nb;

	if (!stream)
		return;
	/* the batch's three slots are consecutive in memory */
	if (!sq_position(p, 0, mask - 2, name))
		goto out;
	p0 = sq_prod(p);
	canary_all();
	fill(stream, total, 0x31);
	fill(inl, sizeof(inl), 0x32);
	fill(LB + L_NEIGH, 256, 0x33);
	nbuf = make_list(bufs, VT_ARRAY_SIZE(bufs), stream, total, 64);
	if (post_recv(p, id, R_RECV(0), R_RECV_LEN) ||
	    post_recv(p, id + 1, R_RECV(1), R_RECV_LEN)) {
		vt_failf(name, "post_recv failed");
		goto out;
	}
	expect_now();

	ibv_wr_start(p->xa);
	p->xa->wr_id = id;
	p->xa->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_send(p->xa);
	ibv_wr_set_inline_data_list(p->xa, nbuf, bufs);
	p->xa->wr_id = id + 1;
	p->xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(p->xa);
	ibv_wr_set_sge(p->xa, lmr->lkey, (uintptr_t)(LB + L_NEIGH), 256);
	p->xa->wr_id = id + 2;
	p->xa->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_rdma_write(p->xa, rmr->rkey, (uintptr_t)(RB + R_NEIGH_WR));
	ibv_wr_set_inline_data(p->xa, inl, sizeof(inl));
	r = ibv_wr_complete(p->xa);
	t_inl.wrs++;
	n_neigh += 2;
	if (r) {
		vt_failf(name, "ibv_wr_complete: %s", vt_errname(r));
		goto out;
	}
	/* librxe's scribble shows in the tail of the next slot */
	if (sq_slot(p, p0)->dma.length == 0 &&
	    !memcmp((uint8_t *)sq_slot(p, p0 + 1) + slot - 16,
		    stream + 2 * slot - off - 16, 16))
		t_inl.reproduced++;
	else
		vt_failf(name, "no overrun into slot %u: the bug did not trigger",
			 (p0 + 1) & mask);

	r = collect(p, name, id, 3, wa);
	if (r < 0)
		goto out;
	if (r == 0) {
		t_inl.error++;
		if (!images_match(why, sizeof(why)))
			vt_failf(name, "%s then flushed, but %s",
				 vt_wcname(wa[0].status), why);
		else
			vt_ok(name, "%s, the two neighbours flushed, no byte changed",
			      vt_wcname(wa[0].status));
		goto ctl;
	}
	t_inl.success++;
	memcpy(rexp + MR_OFF + R_RECV(1), LB + L_NEIGH, 256);
	memcpy(rexp + MR_OFF + R_NEIGH_WR, inl, sizeof(inl));
	nb = vt_poll(p->rcq, wb, 2, WAIT_MS);
	if (nb != 2 || wb[0].wr_id != id || wb[0].status != IBV_WC_SUCCESS ||
	    wb[0].byte_len != 0 || wb[1].wr_id != id + 1 ||
	    wb[1].status != IBV_WC_SUCCESS || wb[1].byte_len != 256) {
		vt_failf(name, "receives: %d, byte_len %u and %u; want 2 SUCCESS of 0 and 256 bytes",
			 nb, nb > 0 ? wb[0].byte_len : 0,
			 nb > 1 ? wb[1].byte_len : 0);
		goto ctl;
	}
	if (!images_match(why, sizeof(why))) {
		vt_failf(name, "%s", why);
		goto ctl;
	}
	n_neigh_ok += 2;
	vt_ok(name, "%zu bytes in %zu buffers from slot %u over slot %u into %u: SUCCESS of 0 bytes; the SEND (256 bytes) and WRITE (100 inline bytes) built on the scribble delivered exactly",
	      total, nbuf, p0 & mask, (p0 + 1) & mask, (p0 + 2) & mask);
ctl:
	control(p, name);
out:
	free(stream);
}

/*
 * The SQ has wrapped and six SENDs wait (RNR: no receive posted) in the
 * slots after the free one that follows the producer: the inline list
 * runs over the free slot onto the oldest pending WQE and writes a
 * hostile WQE header there.
 */
static void inline_overrun_pending(struct pair *p)
{
	const char *name = "inline_list.overrun_pending";
	size_t slot = (size_t)1 << p->sq->log2_elem_size;
	size_t off = inline_off(), total, nbuf, at;
	uint32_t mask = p->sq->index_mask, nslots = mask + 1, k, np, i;
	struct ibv_data_buf bufs[64];
	struct rxe_send_wqe bad;
	struct ibv_wc wa[16], wb[16];
	uint64_t id = 0x2200;
	uint8_t *stream;
	char why[256];
	int r, nb;

	if (nslots < 4) {
		vt_skipf(name, "send queue of %u slots", nslots);
		return;
	}
	np = nslots - 2;		/* pending SENDs */
	at = 2 * slot - off;		/* where the oldest one's slot starts */
	total = at + sizeof(bad) + 64;
	stream = malloc(total);
	if (!stream)
		return;
	/* idle at k: pending in k..k+np-1, the list's slot is k-2, linear */
	if (!sq_position(p, 2, mask, name))
		goto out;
	k = sq_prod(p);
	canary_all();
	for (i = 0; i < np; i++)
		fill(LB + L_STALL(i), STALL_LEN, 0x40 + i);
	memset(stream, 0xa5, total);
	memset(&bad, 0, sizeof(bad));
	bad.wr.wr_id = BAD_WR_ID;
	bad.wr.opcode = IBV_WR_SEND;
	bad.wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	bad.dma.length = 0x100000;
	bad.dma.resid = 0x100000;
	bad.dma.num_sge = 0x10000;
	bad.dma.cur_sge = 0xffff;
	bad.dma.sge_offset = 0xfffffff0;
	memcpy(stream + at, &bad, sizeof(bad));
	nbuf = make_list(bufs, VT_ARRAY_SIZE(bufs), stream, total, 64);
	expect_now();

	ibv_wr_start(p->xa);
	for (i = 0; i < np; i++) {
		p->xa->wr_id = id + i;
		p->xa->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(p->xa);
		ibv_wr_set_sge(p->xa, lmr->lkey, (uintptr_t)(LB + L_STALL(i)),
			       STALL_LEN);
	}
	r = ibv_wr_complete(p->xa);
	if (r) {
		vt_failf(name, "posting %u SENDs: %s", np, vt_errname(r));
		goto out;
	}
	usleep(50000);
	if (vt_poll(p->scq, wa, 1, 0) != 0 || sq_cons(p) != k) {
		vt_failf(name, "the %u SENDs did not wait for receives (consumer index %u, want %u)",
			 np, sq_cons(p), k);
		reconnect(p);
		goto out;
	}

	ibv_wr_start(p->xa);
	p->xa->wr_id = id + np;
	p->xa->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_send(p->xa);
	ibv_wr_set_inline_data_list(p->xa, nbuf, bufs);
	r = ibv_wr_complete(p->xa);
	t_inl.wrs++;
	n_neigh += (int)np;
	if (r) {
		vt_failf(name, "ibv_wr_complete: %s", vt_errname(r));
		reconnect(p);
		goto out;
	}
	if (sq_slot(p, k)->wr.wr_id == BAD_WR_ID &&
	    sq_slot(p, k)->dma.num_sge == 0x10000)
		t_inl.reproduced++;
	else
		vt_failf(name, "pending slot %u not overwritten: the bug did not trigger",
			 k & mask);

	/* let them go: one receive each, and one for the inline SEND */
	for (i = 0; i <= np; i++)
		if (post_recv(p, id + i, R_RECV(i), R_RECV_LEN)) {
			vt_failf(name, "post_recv failed");
			reconnect(p);
			goto out;
		}
	r = collect(p, name, id, (int)np + 1, wa);
	if (r < 0)
		goto out;
	if (r == 0) {
		t_inl.error++;
		if (!images_match(why, sizeof(why)))
			vt_failf(name, "error completions, but %s", why);
		else
			vt_ok(name, "%s at WQE %#llx, the rest flushed, no byte changed",
			      vt_wcname(wa[0].status),
			      (unsigned long long)wa[0].wr_id);
		goto ctl;
	}
	t_inl.success++;
	for (i = 0; i < np; i++)
		memcpy(rexp + MR_OFF + R_RECV(i), LB + L_STALL(i), STALL_LEN);
	nb = vt_poll(p->rcq, wb, (int)np + 1, WAIT_MS);
	for (i = 0; i < (uint32_t)nb; i++)
		if (wb[i].wr_id != id + i || wb[i].status != IBV_WC_SUCCESS ||
		    wb[i].byte_len != (i < np ? STALL_LEN : 0))
			break;
	if (nb != (int)np + 1 || i != np + 1) {
		vt_failf(name, "receive %u of %d: wr_id %#llx %s %u bytes; want %u SUCCESS of %u bytes then 0",
			 i, nb, i < (uint32_t)nb ?
			 (unsigned long long)wb[i].wr_id : 0ULL,
			 i < (uint32_t)nb ? vt_wcname(wb[i].status) : "-",
			 i < (uint32_t)nb ? wb[i].byte_len : 0, np,
			 STALL_LEN);
		goto ctl;
	}
	if (!images_match(why, sizeof(why))) {
		vt_failf(name, "%s", why);
		goto ctl;
	}
	n_neigh_ok += (int)np;
	vt_ok(name, "%zu bytes from slot %u over slot %u onto pending slot %u (hostile header written): the %u pending SENDs delivered their own %u bytes each, the list SEND 0 bytes",
	      total, (k - 2) & mask, (k - 1) & mask, k & mask, np, STALL_LEN);
ctl:
	control(p, name);
out:
	free(stream);
}

/* ----------------------------------------------------- 3. cq_ex poll */

static struct ibv_cq_ex *create_cq_ex(int cqe)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = (uint32_t)cqe,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN,
	};

	return ibv_create_cq_ex(dev.ctx, &a);
}

static struct ibv_qp *create_qp_a(struct ibv_cq *scq, struct ibv_cq *rcq)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_RC,
		.send_cq = scq,
		.recv_cq = rcq,
		.cap = { .max_send_wr = 7, .max_recv_wr = 1,
			 .max_send_sge = 4, .max_recv_sge = 1,
			 .max_inline_data = 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ,
	};

	return ibv_create_qp_ex(dev.ctx, &a);
}

/* A (extended, with its SQ ring found) and B, connected.  Returns 0. */
static int pair_open(struct pair *p, struct ibv_cq *scq, struct ibv_cq *rcq,
		     bool new_b)
{
	struct vt_snap *s = malloc(sizeof(*s));
	struct vt_map m[4];
	int n, i, err;

	if (!s)
		return ENOMEM;
	vt_snap_take(s);
	p->scq = scq;
	p->rcq = rcq;
	p->qa = create_qp_a(scq, rcq);
	n = p->qa ? vt_snap_new(s, m, 4) : 0;
	free(s);
	if (!p->qa)
		return errno ? errno : EIO;
	p->sq = NULL;
	for (i = 0; i < n; i++)
		if (((size_t)1 << vt_map_q(&m[i])->log2_elem_size) >=
		    sizeof(struct rxe_send_wqe))
			p->sq = vt_map_q(&m[i]);
	p->xa = ibv_qp_to_qp_ex(p->qa);
	if (!p->sq || !p->xa)
		return ENOENT;
	if (new_b) {
		p->qb = vt_create_qp(&dev, pd, IBV_QPT_RC, rcq, rcq, NULL, 16,
				     1, 0);
		if (!p->qb)
			return errno ? errno : EIO;
	} else {
		vt_qp_set_state(p->qb, IBV_QPS_RESET);
		drain(rcq);
	}
	err = vt_qp_to_rts(&dev, p->qa, p->qb->qp_num);
	if (!err)
		err = vt_qp_to_rts(&dev, p->qb, p->qa->qp_num);
	return err;
}

static uint32_t cq_prod(struct rxe_queue_buf *q)
{
	return ld(&q->producer_index);
}

static uint32_t cq_cons(struct rxe_queue_buf *q)
{
	return ld(&q->consumer_index);
}

static bool wait_cq_prod(struct rxe_queue_buf *q, uint32_t want, int ms)
{
	uint64_t end = vt_now_ms() + (uint64_t)ms;

	while (cq_prod(q) != want) {
		if (vt_now_ms() >= end)
			return false;
		usleep(1000);
	}
	return true;
}

/* Wait for ibv_start_poll() to find an entry; leaves the poll open. */
static int start_poll_wait(struct ibv_cq_ex *cq, int ms)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	uint64_t end = vt_now_ms() + (uint64_t)ms;
	int r;

	for (;;) {
		r = ibv_start_poll(cq, &pa);
		if (r != ENOENT || vt_now_ms() >= end)
			return r;
		usleep(1000);
	}
}

/* Expect @len bytes from L at @loff in R_RECV(@ri). */
static void expect_recv(size_t loff, int ri, uint32_t len)
{
	memcpy(rexp + MR_OFF + R_RECV(ri), LB + loff, len);
}

/*
 * B's next receive completion is @id, a SUCCESS of @len bytes, and both
 * buffers are as expected (expect_recv() for every receive done so far).
 */
static bool recv_verified(struct pair *p, const char *name, uint64_t id,
			  uint32_t len)
{
	struct ibv_wc wb;
	char why[256];

	if (vt_poll(p->rcq, &wb, 1, WAIT_MS) != 1 || wb.wr_id != id ||
	    wb.status != IBV_WC_SUCCESS || wb.byte_len != len) {
		vt_failf(name, "receive %#llx missing or not a SUCCESS of %u bytes",
			 (unsigned long long)id, len);
		return false;
	}
	if (!images_match(why, sizeof(why))) {
		vt_failf(name, "receive %#llx: %s", (unsigned long long)id,
			 why);
		return false;
	}
	return true;
}

static void cq_cases(struct ibv_cq *cqd)
{
	struct pair c = { 0 };
	struct ibv_cq_ex *x = NULL;
	struct rxe_queue_buf *q = NULL;
	struct ibv_async_event ev;
	struct vt_snap *s = malloc(sizeof(*s));
	struct vt_map m[4];
	struct ibv_wc wa;
	uint8_t *copy = NULL;
	size_t mlen = 0;
	uint32_t prod0, mask;
	const char *name;
	int r, i;

	if (!s)
		return;
	vt_snap_take(s);
	x = create_cq_ex(8);
	if (!x) {
		vt_failf("cq_poll.setup", "ibv_create_cq_ex: %s",
			 vt_errname(errno));
		free(s);
		return;
	}
	if (vt_snap_new(s, m, 4) == 1) {
		q = vt_map_q(&m[0]);
		mlen = m[0].end - m[0].start;
	}
	free(s);
	c.scqx = x;
	r = q ? pair_open(&c, ibv_cq_ex_to_cq(x), cqd, true) : ENOENT;
	if (r) {
		vt_failf("cq_poll.setup", "CQ ring or QP pair: %s",
			 vt_errname(r));
		goto out;
	}
	mask = q->index_mask;
	vt_drain_async(dev.ctx);
	canary_all();
	for (i = 0; i < 6; i++)
		fill(LB + L_STALL(i), STALL_LEN, 0x50 + i);
	expect_now();

	/* (a) a CQE added between next_poll's ENOENT and end_poll */
	name = "cq_poll.skip";
	for (i = 0; i < 3; i++)
		if (post_recv(&c, 0x3000 + i, R_RECV(i), R_RECV_LEN))
			goto fail_post;
	if (post_send_sge(&c, 0x3100, L_STALL(0), STALL_LEN))
		goto fail_post;
	t_cq.wrs++;
	if (start_poll_wait(x, WAIT_MS) != 0 || x->wr_id != 0x3100 ||
	    x->status != IBV_WC_SUCCESS) {
		vt_failf(name, "first completion missing or wrong");
		goto out;
	}
	if (ibv_next_poll(x) != ENOENT) {
		vt_failf(name, "a second completion appeared");
		ibv_end_poll(x);
		goto out;
	}
	prod0 = cq_prod(q);
	if (post_send_sge(&c, 0x3101, L_STALL(1), STALL_LEN)) {
		ibv_end_poll(x);
		goto fail_post;
	}
	t_cq.wrs++;
	if (!wait_cq_prod(q, (prod0 + 1) & mask, WAIT_MS)) {
		ibv_end_poll(x);
		vt_failf(name, "the kernel did not add the second CQE");
		goto out;
	}
	ibv_end_poll(x);
	if (cq_cons(q) == cq_prod(q))
		t_cq.reproduced++;
	else
		vt_failf(name, "consumer %u, producer %u: librxe did not step over the CQE, the bug did not trigger",
			 cq_cons(q), cq_prod(q));
	if (vt_wait_async(dev.ctx, IBV_EVENT_CQ_ERR, 200, NULL)) {
		vt_failf(name, "IBV_EVENT_CQ_ERR for a CQ that is not full");
		goto out;
	}
	if (post_send_sge(&c, 0x3102, L_STALL(2), STALL_LEN))
		goto fail_post;
	t_cq.wrs++;
	memset(&wa, 0, sizeof(wa));
	if (poll_send(&c, &wa, WAIT_MS) != 1 || wa.wr_id != 0x3102 ||
	    wa.status != IBV_WC_SUCCESS) {
		vt_failf(name, "after the skipped CQE: got %#llx %s, want 0x3102 SUCCESS",
			 (unsigned long long)wa.wr_id, vt_wcname(wa.status));
		goto out;
	}
	/* WR3's completion means all three were received */
	for (i = 0; i < 3; i++)
		expect_recv(L_STALL(i), i, STALL_LEN);
	if (!recv_verified(&c, name, 0x3000, STALL_LEN) ||
	    !recv_verified(&c, name, 0x3001, STALL_LEN) ||
	    !recv_verified(&c, name, 0x3002, STALL_LEN))
		goto out;
	t_cq.success++;
	vt_ok(name, "librxe stepped over the CQE the kernel added between next_poll and end_poll (consumer = producer = %u); no CQ error, the next CQE came, all 3 SENDs delivered",
	      cq_cons(q));

	/* (b) next_poll to ENOENT, end_poll: consumer one past the producer */
	name = "cq_poll.overrun";
	for (i = 3; i < 5; i++)
		if (post_recv(&c, 0x3000 + i, R_RECV(i), R_RECV_LEN))
			goto fail_post;
	if (post_send_sge(&c, 0x3103, L_STALL(3), STALL_LEN))
		goto fail_post;
	t_cq.wrs++;
	if (start_poll_wait(x, WAIT_MS) != 0 || x->wr_id != 0x3103) {
		vt_failf(name, "completion of 0x3103 missing");
		goto out;
	}
	if (ibv_next_poll(x) != ENOENT) {
		vt_failf(name, "a second completion appeared");
		ibv_end_poll(x);
		goto out;
	}
	ibv_end_poll(x);
	prod0 = cq_prod(q);
	if (cq_cons(q) == ((prod0 + 1) & mask)) {
		t_cq.reproduced++;
	} else {
		vt_failf(name, "consumer %u, producer %u: librxe did not overrun, the bug did not trigger",
			 cq_cons(q), prod0);
		goto out;
	}
	expect_recv(L_STALL(3), 3, STALL_LEN);
	if (!recv_verified(&c, name, 0x3003, STALL_LEN))
		goto out;
	copy = malloc(mlen);
	if (!copy)
		goto out;
	memcpy(copy, q, mlen);
	if (post_send_sge(&c, 0x3104, L_STALL(4), STALL_LEN))
		goto fail_post;
	t_cq.wrs++;
	if (!vt_wait_async(dev.ctx, IBV_EVENT_CQ_ERR, WAIT_MS, &ev)) {
		vt_failf(name, "no IBV_EVENT_CQ_ERR within %d ms for a CQ the process made full (consumer %u, producer %u)",
			 WAIT_MS, cq_cons(q), cq_prod(q));
		goto out;
	}
	if (ev.element.cq != ibv_cq_ex_to_cq(x)) {
		vt_failf(name, "IBV_EVENT_CQ_ERR for another CQ");
		goto out;
	}
	/* the WR itself ran: the peer has its bytes */
	expect_recv(L_STALL(4), 4, STALL_LEN);
	if (!recv_verified(&c, name, 0x3004, STALL_LEN))
		goto out;
	if (memcmp(copy, q, mlen)) {
		for (i = 0; ((uint8_t *)q)[i] == copy[i]; i++)
			;
		vt_failf(name, "the kernel wrote into the full CQ ring (byte %#x; producer %u, was %u)",
			 i, cq_prod(q), prod0);
		goto out;
	}
	t_cq.error++;
	vt_ok(name, "consumer %u one past producer %u: IBV_EVENT_CQ_ERR, the CQE not written (ring unchanged), the SEND delivered; QP now %s",
	      cq_cons(q), prod0, vt_qpsname(vt_qp_state(c.qa)));

	/* a new CQ and QP, with the same peer, work */
	ibv_destroy_qp(c.qa);
	c.qa = NULL;
	ibv_destroy_cq(ibv_cq_ex_to_cq(x));
	x = create_cq_ex(8);
	c.scqx = x;
	r = x ? pair_open(&c, ibv_cq_ex_to_cq(x), cqd, false) : ENOMEM;
	if (r) {
		vt_failf("cq_poll.control", "new CQ and QP: %s", vt_errname(r));
		goto out;
	}
	for (i = 0; i < 3; i++)
		control(&c, "cq_poll.overrun");
	goto out;

fail_post:
	vt_failf(name, "posting failed");
out:
	free(copy);
	if (c.qa)
		ibv_destroy_qp(c.qa);
	if (c.qb)
		ibv_destroy_qp(c.qb);
	if (x)
		ibv_destroy_cq(ibv_cq_ex_to_cq(x));
}

/* ---------------------------------------------------------------- main */

static void tally_line(const char *bug, const struct tally *t,
		       const char *extra)
{
	printf("%s: %d WRs, %d success, %d error, bug reproduced %d%s\n", bug,
	       t->wrs, t->success, t->error, t->reproduced, extra);
}

int main(int argc, char **argv)
{
	const char *devname = NULL;
	struct ibv_cq *cqa = NULL, *cqb = NULL, *cqd = NULL;
	struct pair ab = { 0 };
	char extra[96];
	int opt, err;

	while ((opt = getopt(argc, argv, "d:v")) != -1) {
		switch (opt) {
		case 'd':
			devname = optarg;
			break;
		case 'v':
			vt_verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-v]\n", argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (vt_open(devname, -1, &dev))
		return 1;
	pd = ibv_alloc_pd(dev.ctx);
	lall = vt_alloc(BUF_LEN);
	rall = vt_alloc(BUF_LEN);
	lexp = vt_alloc(BUF_LEN);
	rexp = vt_alloc(BUF_LEN);
	canary_all();
	lmr = pd ? ibv_reg_mr(pd, LB, MR_LEN, IBV_ACCESS_LOCAL_WRITE) : NULL;
	rmr = pd ? ibv_reg_mr(pd, RB, MR_LEN, IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_WRITE |
			      IBV_ACCESS_REMOTE_READ) : NULL;
	cqa = ibv_create_cq(dev.ctx, 64, NULL, NULL, 0);
	cqb = ibv_create_cq(dev.ctx, 64, NULL, NULL, 0);
	cqd = ibv_create_cq(dev.ctx, 64, NULL, NULL, 0);
	if (!lmr || !rmr || !cqa || !cqb || !cqd) {
		vt_failf("setup", "PD, MRs or CQs: %s", vt_errname(errno));
		goto out;
	}
	err = pair_open(&ab, cqa, cqb, true);
	if (err) {
		vt_failf("setup", "QP pair: %s", vt_errname(err));
		goto out;
	}
	vt_info("A's send ring: %u slots of %u bytes, inline data at %zu",
		ab.sq->index_mask + 1, 1u << ab.sq->log2_elem_size,
		inline_off());
	control(&ab, "setup");

	sge_list_cases(&ab);
	inline_simple(&ab, false);
	inline_simple(&ab, true);
	inline_overrun_batch(&ab);
	inline_overrun_pending(&ab);
	cq_cases(cqd);
	control(&ab, "end");

	tally_line("sge_list", &t_sge, "");
	snprintf(extra, sizeof(extra), ", neighbour WQEs intact %d/%d",
		 n_neigh_ok, n_neigh);
	tally_line("inline_list", &t_inl, extra);
	printf("cq_poll: %d WRs, CQE skipped by librxe and the kernel carried on %d, consumer index overrun answered by IBV_EVENT_CQ_ERR %d, bug reproduced %d\n",
	       t_cq.wrs, t_cq.success, t_cq.error, t_cq.reproduced);
	printf("controls: %d well-formed SENDs\n", n_ctl);
out:
	if (ab.qa)
		ibv_destroy_qp(ab.qa);
	if (ab.qb)
		ibv_destroy_qp(ab.qb);
	if (cqa)
		ibv_destroy_cq(cqa);
	if (cqb)
		ibv_destroy_cq(cqb);
	if (cqd)
		ibv_destroy_cq(cqd);
	if (lmr)
		ibv_dereg_mr(lmr);
	if (rmr)
		ibv_dereg_mr(rmr);
	if (pd)
		ibv_dealloc_pd(pd);
	vt_close(&dev);
	return vt_summary("librxe_bugs");
}
