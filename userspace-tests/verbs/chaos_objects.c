// SPDX-License-Identifier: GPL-2.0
/*
 * chaos_objects: object churn and injected allocation failures, for the
 * chaos scenario (53-chaos).
 *
 * churn: -n QP create/destroy cycles (default 10000) on one PD and CQ.
 * Every -e-th cycle (default 16; 0: never) the QP goes RESET -> INIT ->
 * RTR -> RTS (connected to itself) with a receive posted before it is
 * destroyed; every third of those is a UD QP instead of RC.  Every verb
 * must succeed.  Prints "churn: N cycles (M to RTS) in T ms, R/s".
 *
 * alloc: needs -f DIR, the device's fault-injection directory
 * (/sys/kernel/debug/vroce/<dev>).  The objects
 *   PD, CQ, MR (PD), MW (PD), SRQ (PD), RC QP (PD, CQ), QP on the SRQ
 * are created in this order, each needing the ones in brackets.
 *  1. For each object: create the ones before it, set fail_alloc_next to
 *     1, create it: it must fail with ENOMEM, the knob must read 0 and
 *     counters/alloc_fail must have grown by one; the next try must
 *     succeed.  Then everything is destroyed.
 *  2. A rereg_mr that builds a new translation with fail_alloc_next = 1
 *     must fail with ENOMEM and leave the MR as it was (same keys, it
 *     still deregisters).
 *  3. For N = 1 .. -k (default 12): fail_alloc_next = N, then passes over
 *     the list try every object not yet created whose dependencies exist,
 *     until all exist.  Exactly N creations must have failed, each with
 *     ENOMEM, the knob must read 0 and alloc_fail must have grown by N.
 *     Then everything is destroyed.
 * Every destroy must succeed.  Ends with "chaos_objects: N ok, ...".
 *
 * Usage: chaos_objects [-d DEV] [-n N] [-e E] [-f DIR] [-k K] [-v] churn|alloc
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define PROG	"chaos_objects"
#define BUFSZ	(64 * 1024)

static const char *fdir;

/* ---------------------------------------------------------------- churn */

static int churn(struct vt_dev *d, int n, int every)
{
	struct ibv_pd *pd = ibv_alloc_pd(d->ctx);
	struct ibv_cq *cq = ibv_create_cq(d->ctx, 64, NULL, NULL, 0);
	char *buf = vt_alloc(4096);
	struct ibv_mr *mr = NULL;
	uint64_t t0, ms;
	int i, rts = 0, err = 0;

	if (pd)
		mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!pd || !cq || !mr) {
		vt_failf("churn setup", "PD/CQ/MR: %s", vt_errname(errno));
		return 1;
	}
	t0 = vt_now_ms();
	for (i = 0; i < n && !err; i++) {
		bool walk = every && i % every == 0;
		enum ibv_qp_type type = walk && (i / every) % 3 == 2 ?
					IBV_QPT_UD : IBV_QPT_RC;
		struct ibv_qp *qp;

		qp = vt_create_qp(d, pd, type, cq, cq, NULL, 8, 1, 1);
		if (!qp) {
			vt_failf("churn create_qp", "cycle %d: %s", i,
				 vt_errname(errno));
			break;
		}
		if (walk) {
			struct ibv_sge sge = { .addr = (uintptr_t)buf,
					       .length = 64,
					       .lkey = mr->lkey };
			struct ibv_recv_wr wr = { .wr_id = (uint64_t)i,
						  .sg_list = &sge,
						  .num_sge = 1 }, *bad;

			err = vt_qp_to_rts(d, qp, qp->qp_num);
			if (err)
				vt_failf("churn to RTS", "cycle %d (%s): %s",
					 i, type == IBV_QPT_UD ? "UD" : "RC",
					 vt_errname(err));
			else if ((err = ibv_post_recv(qp, &wr, &bad)))
				vt_failf("churn post_recv", "cycle %d: %s", i,
					 vt_errname(err));
			else
				rts++;
		}
		if ((err = vt_rc(ibv_destroy_qp(qp))) != 0)
			vt_failf("churn destroy_qp", "cycle %d: %s", i,
				 vt_errname(err));
	}
	ms = vt_now_ms() - t0;
	if (!err)
		vt_ok("churn", "%d cycles (%d to RTS) in %llu ms, %llu/s", i,
		      rts, (unsigned long long)ms,
		      (unsigned long long)(ms ? i * 1000ULL / ms : 0));
	{
		/* the flushed receives of the RTS QPs, then the rest */
		struct ibv_wc wc[64];

		while (ibv_poll_cq(cq, 64, wc) > 0)
			;
	}
	vt_expect_rc("churn dereg_mr", vt_rc(ibv_dereg_mr(mr)), 0);
	vt_expect_rc("churn destroy_cq", vt_rc(ibv_destroy_cq(cq)), 0);
	vt_expect_rc("churn dealloc_pd", vt_rc(ibv_dealloc_pd(pd)), 0);
	return 0;
}

/* ---------------------------------------------------------------- alloc */

enum { O_PD, O_CQ, O_MR, O_MW, O_SRQ, O_QP, O_SRQ_QP, O_N };

static const char *const oname[O_N] = {
	"PD", "CQ", "MR", "MW", "SRQ", "RC QP", "SRQ QP",
};

/* What each object needs first (bit mask of O_*). */
static const unsigned int odeps[O_N] = {
	[O_MR] = 1u << O_PD,
	[O_MW] = 1u << O_PD,
	[O_SRQ] = 1u << O_PD,
	[O_QP] = 1u << O_PD | 1u << O_CQ,
	[O_SRQ_QP] = 1u << O_PD | 1u << O_CQ | 1u << O_SRQ,
};

struct objs {
	void *o[O_N];
	char *buf;
};

static long read_num(const char *file)
{
	char path[512];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fdir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static bool write_knob(long v)
{
	char path[512];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/fail_alloc_next", fdir);
	f = fopen(path, "w");
	if (!f)
		return false;
	ok = fprintf(f, "%ld\n", v) > 0;
	return (fclose(f) == 0) && ok;
}

/* Create object @i (its dependencies exist); NULL with errno on failure. */
static void *create(struct vt_dev *d, struct objs *s, int i)
{
	struct ibv_pd *pd = s->o[O_PD];
	struct ibv_cq *cq = s->o[O_CQ];
	struct ibv_srq_init_attr sia = {
		.attr = { .max_wr = 8, .max_sge = 1 },
	};

	errno = 0;
	switch (i) {
	case O_PD:
		return ibv_alloc_pd(d->ctx);
	case O_CQ:
		return ibv_create_cq(d->ctx, 16, NULL, NULL, 0);
	case O_MR:
		return ibv_reg_mr(pd, s->buf, BUFSZ,
				  IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_MW_BIND);
	case O_MW:
		return ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	case O_SRQ:
		return ibv_create_srq(pd, &sia);
	case O_QP:
		return vt_create_qp(d, pd, IBV_QPT_RC, cq, cq, NULL, 8, 1, 1);
	case O_SRQ_QP:
		return vt_create_qp(d, pd, IBV_QPT_RC, cq, cq, s->o[O_SRQ], 8,
				    1, 1);
	}
	errno = EINVAL;
	return NULL;
}

static int destroy_one(int i, void *o)
{
	switch (i) {
	case O_PD:
		return vt_rc(ibv_dealloc_pd(o));
	case O_CQ:
		return vt_rc(ibv_destroy_cq(o));
	case O_MR:
		return vt_rc(ibv_dereg_mr(o));
	case O_MW:
		return vt_rc(ibv_dealloc_mw(o));
	case O_SRQ:
		return vt_rc(ibv_destroy_srq(o));
	default:
		return vt_rc(ibv_destroy_qp(o));
	}
}

/* Destroy everything in reverse order; false if a destroy failed. */
static bool destroy_all(struct objs *s, const char *what)
{
	bool ok = true;
	int i, err;

	for (i = O_N - 1; i >= 0; i--) {
		if (!s->o[i])
			continue;
		err = destroy_one(i, s->o[i]);
		if (err) {
			vt_failf(what, "destroy %s: %s", oname[i],
				 vt_errname(err));
			ok = false;
		}
		s->o[i] = NULL;
	}
	return ok;
}

static bool deps_ok(const struct objs *s, int i)
{
	int j;

	for (j = 0; j < O_N; j++)
		if ((odeps[i] & (1u << j)) && !s->o[j])
			return false;
	return true;
}

/* Part 1: one injected failure on each object in turn. */
static void alloc_each(struct vt_dev *d, struct objs *s)
{
	char name[64];
	int i, j, err;

	for (i = 0; i < O_N; i++) {
		long before;
		void *o;

		snprintf(name, sizeof(name), "fail_alloc_next=1 on %s",
			 oname[i]);
		for (j = 0; j < i; j++) {
			if (!deps_ok(s, j))
				continue;
			s->o[j] = create(d, s, j);
			if (!s->o[j]) {
				vt_failf(name, "create %s: %s", oname[j],
					 vt_errname(errno));
				goto out;
			}
		}
		before = read_num("counters/alloc_fail");
		if (!write_knob(1)) {
			vt_failf(name, "cannot write %s/fail_alloc_next",
				 fdir);
			goto out;
		}
		o = create(d, s, i);
		err = errno;
		if (o) {
			s->o[i] = o;
			write_knob(0);
			vt_failf(name, "created, want ENOMEM");
			goto out;
		}
		if (err != ENOMEM) {
			write_knob(0);
			vt_failf(name, "got %s, want ENOMEM", vt_errname(err));
			goto out;
		}
		if (read_num("fail_alloc_next") != 0 ||
		    read_num("counters/alloc_fail") != before + 1) {
			vt_failf(name, "knob %ld (want 0), alloc_fail %ld -> %ld",
				 read_num("fail_alloc_next"), before,
				 read_num("counters/alloc_fail"));
			write_knob(0);
			goto out;
		}
		s->o[i] = create(d, s, i);
		if (!s->o[i]) {
			vt_failf(name, "retry: %s", vt_errname(errno));
			goto out;
		}
		vt_ok(name, "ENOMEM, then created");
out:
		destroy_all(s, name);
	}
}

/* Part 2: a translating rereg_mr that fails keeps the old MR. */
static void alloc_rereg(struct vt_dev *d, struct objs *s)
{
	const char *name = "fail_alloc_next=1 on rereg_mr";
	struct ibv_mr *mr;
	uint32_t lkey, rkey;
	int err;

	s->o[O_PD] = create(d, s, O_PD);
	s->o[O_MR] = s->o[O_PD] ? create(d, s, O_MR) : NULL;
	mr = s->o[O_MR];
	if (!mr) {
		vt_failf(name, "create PD/MR: %s", vt_errname(errno));
		destroy_all(s, name);
		return;
	}
	lkey = mr->lkey;
	rkey = mr->rkey;
	write_knob(1);
	err = vt_cmd_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION,
			      s->buf + 4096, 8192, (uintptr_t)s->buf + 4096,
			      NULL, 0);
	if (err != ENOMEM)
		vt_failf(name, "got %s, want ENOMEM", vt_errname(err));
	else if (read_num("fail_alloc_next") != 0)
		vt_failf(name, "knob reads %ld, want 0",
			 read_num("fail_alloc_next"));
	else if (mr->lkey != lkey || mr->rkey != rkey)
		vt_failf(name, "keys changed %#x/%#x -> %#x/%#x", lkey, rkey,
			 mr->lkey, mr->rkey);
	else
		vt_ok(name, "ENOMEM, MR kept its keys");
	write_knob(0);
	destroy_all(s, name);
}

/* Part 3: N failures spread over passes of creations. */
static void alloc_multi(struct vt_dev *d, struct objs *s, int k)
{
	char name[64], seen[256];
	int n, i, pass;

	for (n = 1; n <= k; n++) {
		long before = read_num("counters/alloc_fail");
		int fails = 0, left = O_N;
		size_t off = 0;
		bool bad = false;

		snprintf(name, sizeof(name), "fail_alloc_next=%d", n);
		seen[0] = 0;
		if (!write_knob(n)) {
			vt_failf(name, "cannot write the knob");
			return;
		}
		for (pass = 0; left && pass < k + O_N && !bad; pass++) {
			for (i = 0; i < O_N && !bad; i++) {
				int err;

				if (s->o[i] || !deps_ok(s, i))
					continue;
				s->o[i] = create(d, s, i);
				err = errno;
				if (s->o[i]) {
					left--;
					continue;
				}
				if (err != ENOMEM) {
					vt_failf(name, "%s: %s, want ENOMEM",
						 oname[i], vt_errname(err));
					bad = true;
				}
				fails++;
				if (off < sizeof(seen) - 16)
					off += (size_t)snprintf(seen + off,
						sizeof(seen) - off, "%s%s",
						off ? "," : "", oname[i]);
			}
		}
		if (bad) {
			write_knob(0);
		} else if (left) {
			vt_failf(name, "%d objects never created", left);
			write_knob(0);
		} else if (fails != n ||
			   read_num("fail_alloc_next") != 0 ||
			   read_num("counters/alloc_fail") != before + n) {
			vt_failf(name, "%d failures (%s), knob %ld, alloc_fail %ld -> %ld",
				 fails, seen, read_num("fail_alloc_next"),
				 before, read_num("counters/alloc_fail"));
			write_knob(0);
		} else {
			vt_ok(name, "%d ENOMEM (%s), all created", fails,
			      seen);
		}
		destroy_all(s, name);
	}
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *mode;
	int n = 10000, every = 16, k = 12, c;
	struct objs s = { 0 };
	struct vt_dev d;

	while ((c = getopt(argc, argv, "d:n:e:f:k:v")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'e': every = atoi(optarg); break;
		case 'f': fdir = optarg; break;
		case 'k': k = atoi(optarg); break;
		case 'v': vt_verbose = 1; break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-n N] [-e E] [-f DIR] [-k K] [-v] churn|alloc\n",
				argv[0]);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s: churn or alloc?\n", PROG);
		return 2;
	}
	mode = argv[optind];
	if (vt_open(dev, -1, &d))
		return 1;
	if (!strcmp(mode, "churn")) {
		churn(&d, n, every);
	} else if (!strcmp(mode, "alloc") && fdir) {
		s.buf = vt_alloc(BUFSZ);
		alloc_each(&d, &s);
		alloc_rereg(&d, &s);
		alloc_multi(&d, &s, k);
	} else {
		fprintf(stderr, "%s: unknown mode %s (alloc needs -f)\n", PROG,
			mode);
		vt_close(&d);
		return 2;
	}
	vt_close(&d);
	return vt_summary(PROG);
}
