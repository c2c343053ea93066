// SPDX-License-Identifier: GPL-2.0
/*
 * stress_objects: several processes create and destroy verbs objects at
 * the same time, and some die with objects open.
 *
 * Workers (-p, default 4) each run -n iterations (default 1000) of:
 * PD, CQ, MR, SRQ, AH, MW, a QP (every fourth one on the SRQ), every
 * eighth QP moved to RTS with receives and a bind posted, then everything
 * destroyed in reverse order; and one burst holding -b of each at once
 * (default 64) before destroying them.  Every verb must succeed.
 *
 * Meanwhile three more children create a burst of objects with work
 * posted and then: one is killed with SIGKILL, one calls exit() with
 * everything open, one closes the device context with everything open.
 *
 * The scenario compares `rdma resource show` and the module reference
 * count with their values before the run.
 *
 * Usage: stress_objects [-d DEV] [-p PROCS] [-n ITERATIONS] [-b BURST] [-v]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#define BUFSZ	(64 * 1024)

static const char *dev;
static int iterations = 1000, burst = 64;

struct counts {
	int created;
	int failures;
	char first[160];
};

static void note_fail(struct counts *c, const char *what, int err)
{
	if (!c->failures++)
		snprintf(c->first, sizeof(c->first), "%s: %s", what,
			 vt_errname(err));
}

#define TRY(c, ptr, what) do { \
	if (!(ptr)) \
		note_fail((c), (what), errno); \
	else \
		(c)->created++; \
} while (0)

#define DEST(c, call, what) do { \
	int r_ = vt_rc(call); \
	if (r_) \
		note_fail((c), (what), r_); \
} while (0)

static struct ibv_ah *mk_ah(struct vt_dev *d, struct ibv_pd *pd)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = d->gid, .sgid_index = (uint8_t)d->gid_index,
			 .hop_limit = 64 },
	};

	return ibv_create_ah(pd, &aa);
}

/* One create/use/destroy round; returns false after a failure. */
static bool one_round(struct vt_dev *d, char *buf, int i, struct counts *c)
{
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_srq *srq;
	struct ibv_ah *ah;
	struct ibv_mw *mw;
	struct ibv_qp *qp;
	int before = c->failures;

	pd = ibv_alloc_pd(d->ctx);
	TRY(c, pd, "alloc_pd");
	if (!pd)
		return false;
	cq = ibv_create_cq(d->ctx, 8 + (i % 32), NULL, NULL, 0);
	TRY(c, cq, "create_cq");
	mr = ibv_reg_mr(pd, buf + (i % 8) * 4096, 4096 * (1 + i % 4),
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND |
			(i & 1 ? IBV_ACCESS_REMOTE_WRITE : 0));
	TRY(c, mr, "reg_mr");
	srq = ibv_create_srq(pd, &sia);
	TRY(c, srq, "create_srq");
	ah = mk_ah(d, pd);
	TRY(c, ah, "create_ah");
	mw = ibv_alloc_mw(pd, i & 2 ? IBV_MW_TYPE_2 : IBV_MW_TYPE_1);
	TRY(c, mw, "alloc_mw");
	qp = cq ? vt_create_qp(d, pd, i % 3 == 2 ? IBV_QPT_UD : IBV_QPT_RC, cq,
			       cq, i % 4 == 0 ? srq : NULL, 4 + (i % 8), 1, 1) :
		  NULL;
	TRY(c, qp, "create_qp");
	if (qp && mr && i % 8 == 1) {
		struct ibv_sge sge = { .addr = (uintptr_t)mr->addr,
				       .length = 64, .lkey = mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &sge,
					   .num_sge = 1 }, *rbad;
		int r = vt_qp_to_rts(d, qp, qp->qp_num);

		if (r) {
			note_fail(c, "modify_qp to RTS", r);
		} else {
			r = ibv_post_recv(qp, &rwr, &rbad);
			if (r)
				note_fail(c, "post_recv", r);
		}
		if (!r && mw && qp->qp_type == IBV_QPT_RC &&
		    mw->type == IBV_MW_TYPE_1) {
			struct ibv_mw_bind b = {
				.wr_id = 2,
				.send_flags = IBV_SEND_SIGNALED,
				.bind_info = { .mr = mr,
					       .addr = (uintptr_t)mr->addr,
					       .length = 64,
					       .mw_access_flags =
						       IBV_ACCESS_REMOTE_READ },
			};

			r = ibv_bind_mw(qp, mw, &b);
			if (r)
				note_fail(c, "bind_mw", r);
		}
		/* Leave the work in flight: destroy must cope. */
	}
	if (mw)
		DEST(c, ibv_dealloc_mw(mw), "dealloc_mw");
	if (qp)
		DEST(c, ibv_destroy_qp(qp), "destroy_qp");
	if (ah)
		DEST(c, ibv_destroy_ah(ah), "destroy_ah");
	if (srq)
		DEST(c, ibv_destroy_srq(srq), "destroy_srq");
	if (mr)
		DEST(c, ibv_dereg_mr(mr), "dereg_mr");
	if (cq)
		DEST(c, ibv_destroy_cq(cq), "destroy_cq");
	DEST(c, ibv_dealloc_pd(pd), "dealloc_pd");
	return c->failures == before;
}

struct held {
	struct ibv_pd *pd;
	struct ibv_cq **cq;
	struct ibv_mr **mr;
	struct ibv_qp **qp;
	struct ibv_srq *srq;
	struct ibv_ah **ah;
	struct ibv_mw **mw;
	int n;
};

/*
 * Create @n of each object and keep them; QPs go to RTS (RC to itself)
 * with receives posted when @with_work.
 */
static void burst_create(struct vt_dev *d, char *buf, struct held *h, int n,
			 bool with_work, struct counts *c)
{
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 64, .max_sge = 1 } };
	int i;

	memset(h, 0, sizeof(*h));
	h->cq = calloc((size_t)n, sizeof(*h->cq));
	h->mr = calloc((size_t)n, sizeof(*h->mr));
	h->qp = calloc((size_t)n, sizeof(*h->qp));
	h->ah = calloc((size_t)n, sizeof(*h->ah));
	h->mw = calloc((size_t)n, sizeof(*h->mw));
	h->pd = ibv_alloc_pd(d->ctx);
	TRY(c, h->pd, "burst alloc_pd");
	if (!h->pd || !h->cq || !h->mr || !h->qp || !h->ah || !h->mw)
		return;
	h->srq = ibv_create_srq(h->pd, &sia);
	TRY(c, h->srq, "burst create_srq");
	h->n = n;
	for (i = 0; i < n; i++) {
		h->cq[i] = ibv_create_cq(d->ctx, 16, NULL, NULL, 0);
		TRY(c, h->cq[i], "burst create_cq");
		h->mr[i] = ibv_reg_mr(h->pd, buf + (i % 16) * 4096, 4096,
				      IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_MW_BIND);
		TRY(c, h->mr[i], "burst reg_mr");
		h->ah[i] = mk_ah(d, h->pd);
		TRY(c, h->ah[i], "burst create_ah");
		h->mw[i] = ibv_alloc_mw(h->pd, IBV_MW_TYPE_1);
		TRY(c, h->mw[i], "burst alloc_mw");
		if (!h->cq[i])
			continue;
		h->qp[i] = vt_create_qp(d, h->pd, IBV_QPT_RC, h->cq[i],
					h->cq[i], i % 2 ? h->srq : NULL, 8, 1,
					1);
		TRY(c, h->qp[i], "burst create_qp");
		if (with_work && h->qp[i] && h->mr[i]) {
			struct ibv_sge sge = { .addr = (uintptr_t)h->mr[i]->addr,
					       .length = 64,
					       .lkey = h->mr[i]->lkey };
			struct ibv_recv_wr rwr = { .sg_list = &sge,
						   .num_sge = 1 }, *rb;
			struct ibv_send_wr swr = { .sg_list = &sge,
						   .num_sge = 1,
						   .opcode = IBV_WR_SEND,
						   .send_flags =
							   IBV_SEND_SIGNALED },
					   *sb;

			if (vt_qp_to_rts(d, h->qp[i], 0xfedcb))
				continue;
			if (i % 2)
				ibv_post_srq_recv(h->srq, &rwr, &rb);
			else
				ibv_post_recv(h->qp[i], &rwr, &rb);
			ibv_post_send(h->qp[i], &swr, &sb);
			if (h->mw[i]) {
				struct ibv_mw_bind b = {
					.bind_info = {
						.mr = h->mr[i],
						.addr = (uintptr_t)h->mr[i]->addr,
						.length = 64,
						.mw_access_flags =
							IBV_ACCESS_REMOTE_READ },
				};

				ibv_bind_mw(h->qp[i], h->mw[i], &b);
			}
		}
	}
}

static void burst_destroy(struct held *h, struct counts *c)
{
	int i;

	for (i = 0; i < h->n; i++) {
		if (h->mw[i])
			DEST(c, ibv_dealloc_mw(h->mw[i]), "burst dealloc_mw");
		if (h->qp[i])
			DEST(c, ibv_destroy_qp(h->qp[i]), "burst destroy_qp");
	}
	for (i = 0; i < h->n; i++) {
		if (h->cq[i])
			DEST(c, ibv_destroy_cq(h->cq[i]), "burst destroy_cq");
		if (h->mr[i])
			DEST(c, ibv_dereg_mr(h->mr[i]), "burst dereg_mr");
		if (h->ah[i])
			DEST(c, ibv_destroy_ah(h->ah[i]), "burst destroy_ah");
	}
	if (h->srq)
		DEST(c, ibv_destroy_srq(h->srq), "burst destroy_srq");
	if (h->pd)
		DEST(c, ibv_dealloc_pd(h->pd), "burst dealloc_pd");
	free(h->cq);
	free(h->mr);
	free(h->qp);
	free(h->ah);
	free(h->mw);
}

/* Worker: exit status 0 when every verb succeeded. */
static int worker(int id, int out_fd)
{
	struct vt_dev d;
	struct counts c = { 0 };
	struct held h;
	char *buf, line[256];
	int i, n;
	uint64_t t0 = vt_now_ms();

	if (vt_open(dev, -1, &d))
		return 2;
	buf = vt_alloc(BUFSZ);
	for (i = 0; i < iterations; i++) {
		one_round(&d, buf, i + id, &c);
		if (i == iterations / 2) {
			burst_create(&d, buf, &h, burst, false, &c);
			burst_destroy(&h, &c);
		}
	}
	vt_close(&d);
	n = snprintf(line, sizeof(line),
		     "%d %d %d %llu %s\n", id, c.created, c.failures,
		     (unsigned long long)(vt_now_ms() - t0),
		     c.failures ? c.first : "-");
	if (write(out_fd, line, (size_t)n) != n)
		return 2;
	return c.failures ? 1 : 0;
}

/*
 * Victim: holds a burst of objects with work posted, says "ready" on
 * @ready_fd, then ends as @how says: 0 wait to be killed, 1 exit(),
 * 2 close the device with everything open, then exit.
 */
static int victim(int how, int ready_fd)
{
	struct vt_dev d;
	struct counts c = { 0 };
	struct held h;
	char *buf;

	if (vt_open(dev, -1, &d))
		return 2;
	buf = vt_alloc(BUFSZ);
	burst_create(&d, buf, &h, burst, true, &c);
	if (write(ready_fd, "r", 1) != 1)
		return 2;
	switch (how) {
	case 0:
		for (;;)
			pause();
	case 1:
		exit(0);
	default:
		ibv_close_device(d.ctx);
		return 0;
	}
}

int main(int argc, char **argv)
{
	int procs = 4, c, i, status, fails = 0;
	int out[2], ready[2];
	pid_t *pids, victims[3];
	char buf[4096];
	ssize_t n;
	FILE *f;

	while ((c = getopt(argc, argv, "d:p:n:b:vh")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'p':
			procs = atoi(optarg);
			break;
		case 'n':
			iterations = atoi(optarg);
			break;
		case 'b':
			burst = atoi(optarg);
			break;
		case 'v':
			vt_verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: stress_objects [-d DEV] [-p PROCS] [-n ITERATIONS] [-b BURST] [-v]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe(out) || pipe(ready))
		return 2;
	pids = calloc((size_t)procs, sizeof(*pids));
	if (!pids)
		return 2;

	fflush(stdout);
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(out[0]);
			_exit(worker(i, out[1]));
		}
	}
	for (i = 0; i < 3; i++) {
		victims[i] = fork();
		if (victims[i] == 0)
			_exit(victim(i, ready[1]));
	}
	close(out[1]);
	close(ready[1]);

	/* Kill the first victim once it holds its objects. */
	n = read(ready[0], buf, 1);
	for (i = 1; i < 3 && n == 1; i++)
		n = read(ready[0], buf, 1);
	if (n != 1)
		vt_failf("stress.victims", "a victim did not get ready");
	kill(victims[0], SIGKILL);
	for (i = 0; i < 3; i++) {
		static const char *const how[] = {
			"killed with SIGKILL", "exit() with objects open",
			"closed the device with objects open",
		};
		char name[64];

		snprintf(name, sizeof(name), "stress.victim%d", i);
		waitpid(victims[i], &status, 0);
		if (i == 0 ? (WIFSIGNALED(status) &&
			      WTERMSIG(status) == SIGKILL) :
			     (WIFEXITED(status) && !WEXITSTATUS(status)))
			vt_ok(name, "%s (%d of each object, work posted)",
			      how[i], burst);
		else
			vt_failf(name, "%s: wait status 0x%x", how[i], status);
	}

	f = fdopen(out[0], "r");
	while (f && fgets(buf, sizeof(buf), f)) {
		int id, created, failures;
		unsigned long long ms;
		char first[200];
		char name[64];

		if (sscanf(buf, "%d %d %d %llu %199[^\n]", &id, &created,
			   &failures, &ms, first) != 5)
			continue;
		snprintf(name, sizeof(name), "stress.worker%d", id);
		if (failures)
			vt_failf(name, "%d failures, first: %s", failures,
				 first);
		else
			vt_ok(name, "%d iterations + burst of %d: %d objects created and destroyed in %llu ms",
			      iterations, burst, created, ms);
	}
	for (i = 0; i < procs; i++) {
		waitpid(pids[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) == 2) {
			fails++;
			vt_failf("stress.worker", "worker %d: wait status 0x%x",
				 i, status);
		}
	}
	(void)fails;
	return vt_summary("stress_objects");
}
