// SPDX-License-Identifier: GPL-2.0
/*
 * Shared helpers of the vroce verbs test programs (see common.h).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "common.h"

int vt_n_ok, vt_n_fail, vt_n_skip;
int vt_verbose;

static void vt_line(const char *tag, const char *name, const char *fmt,
		   va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	printf("%-4s %s: %s\n", tag, name, buf);
	fflush(stdout);
}

void vt_ok(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vt_line("ok", name, fmt, ap);
	va_end(ap);
	vt_n_ok++;
}

void vt_failf(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vt_line("FAIL", name, fmt, ap);
	va_end(ap);
	vt_n_fail++;
}

void vt_skipf(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vt_line("skip", name, fmt, ap);
	va_end(ap);
	vt_n_skip++;
}

void vt_info(const char *fmt, ...)
{
	va_list ap;

	if (!vt_verbose)
		return;
	va_start(ap, fmt);
	printf("#    ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
}

int vt_summary(const char *prog)
{
	printf("%s: %d ok, %d failed, %d skipped\n", prog, vt_n_ok, vt_n_fail,
	       vt_n_skip);
	fflush(stdout);
	return vt_n_fail ? 1 : 0;
}

const char *vt_errname(int err)
{
	static __thread char buf[32];
	const char *s;

	if (!err)
		return "0";
	s = strerrorname_np(err);
	if (s)
		return s;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

const char *vt_wcname(enum ibv_wc_status st)
{
	static const char *const n[] = {
		[IBV_WC_SUCCESS] = "SUCCESS",
		[IBV_WC_LOC_LEN_ERR] = "LOC_LEN_ERR",
		[IBV_WC_LOC_QP_OP_ERR] = "LOC_QP_OP_ERR",
		[IBV_WC_LOC_EEC_OP_ERR] = "LOC_EEC_OP_ERR",
		[IBV_WC_LOC_PROT_ERR] = "LOC_PROT_ERR",
		[IBV_WC_WR_FLUSH_ERR] = "WR_FLUSH_ERR",
		[IBV_WC_MW_BIND_ERR] = "MW_BIND_ERR",
		[IBV_WC_BAD_RESP_ERR] = "BAD_RESP_ERR",
		[IBV_WC_LOC_ACCESS_ERR] = "LOC_ACCESS_ERR",
		[IBV_WC_REM_INV_REQ_ERR] = "REM_INV_REQ_ERR",
		[IBV_WC_REM_ACCESS_ERR] = "REM_ACCESS_ERR",
		[IBV_WC_REM_OP_ERR] = "REM_OP_ERR",
		[IBV_WC_RETRY_EXC_ERR] = "RETRY_EXC_ERR",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR_RETRY_EXC_ERR",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "LOC_RDD_VIOL_ERR",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "REM_INV_RD_REQ_ERR",
		[IBV_WC_REM_ABORT_ERR] = "REM_ABORT_ERR",
		[IBV_WC_INV_EECN_ERR] = "INV_EECN_ERR",
		[IBV_WC_INV_EEC_STATE_ERR] = "INV_EEC_STATE_ERR",
		[IBV_WC_FATAL_ERR] = "FATAL_ERR",
		[IBV_WC_RESP_TIMEOUT_ERR] = "RESP_TIMEOUT_ERR",
		[IBV_WC_GENERAL_ERR] = "GENERAL_ERR",
		[IBV_WC_TM_ERR] = "TM_ERR",
		[IBV_WC_TM_RNDV_INCOMPLETE] = "TM_RNDV_INCOMPLETE",
	};
	static __thread char buf[32];

	if ((unsigned int)st < VT_ARRAY_SIZE(n) && n[st])
		return n[st];
	snprintf(buf, sizeof(buf), "status %u", (unsigned int)st);
	return buf;
}

const char *vt_qpsname(enum ibv_qp_state st)
{
	static const char *const n[] = {
		[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
		[IBV_QPS_RTR] = "RTR", [IBV_QPS_RTS] = "RTS",
		[IBV_QPS_SQD] = "SQD", [IBV_QPS_SQE] = "SQE",
		[IBV_QPS_ERR] = "ERR",
	};

	if ((unsigned int)st < VT_ARRAY_SIZE(n) && n[st])
		return n[st];
	return "?";
}

const char *vt_eventname(enum ibv_event_type ev)
{
	return ibv_event_type_str(ev);
}

bool vt_expect_rc(const char *name, int got, int want)
{
	if (got == want) {
		vt_ok(name, "%s", want ? vt_errname(want) : "success");
		return true;
	}
	if (!want)
		vt_failf(name, "failed with %s, want success", vt_errname(got));
	else if (!got)
		vt_failf(name, "succeeded, want %s", vt_errname(want));
	else
		vt_failf(name, "got %s, want %s", vt_errname(got),
			 vt_errname(want));
	return false;
}

bool vt_expect_null(const char *name, void *obj, int err, int want,
		    void (*destroy)(void *))
{
	if (obj) {
		vt_failf(name, "succeeded, want %s", vt_errname(want));
		if (destroy)
			destroy(obj);
		return false;
	}
	if (err != want) {
		vt_failf(name, "got %s, want %s", vt_errname(err),
			 vt_errname(want));
		return false;
	}
	vt_ok(name, "%s", vt_errname(want));
	return true;
}

void vt_destroy_cq(void *p) { ibv_destroy_cq(p); }
void vt_destroy_qp(void *p) { ibv_destroy_qp(p); }
void vt_destroy_srq(void *p) { ibv_destroy_srq(p); }
void vt_destroy_ah(void *p) { ibv_destroy_ah(p); }
void vt_dereg_mr(void *p) { ibv_dereg_mr(p); }
void vt_destroy_pd(void *p) { ibv_dealloc_pd(p); }

/* ----------------------------------------------------------------- device */

static bool gid_is_v4mapped(const union ibv_gid *g)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0xff, 0xff };

	return !memcmp(g->raw, pfx, sizeof(pfx));
}

static bool gid_is_linklocal(const union ibv_gid *g)
{
	return g->raw[0] == 0xfe && (g->raw[1] & 0xc0) == 0x80;
}

int vt_open(const char *name, int gid_index, struct vt_dev *d)
{
	struct ibv_device **list;
	struct ibv_gid_entry *ents = NULL;
	ssize_t n;
	int i, num, ret = -1;

	memset(d, 0, sizeof(*d));
	d->gid6_index = d->gid_ll_index = d->empty_gid_index = -1;
	if (!name)
		name = getenv("VROCE_DEV");
	list = ibv_get_device_list(&num);
	if (!list) {
		printf("FAIL open: ibv_get_device_list: %s\n",
		       vt_errname(errno));
		return -1;
	}
	for (i = 0; i < num; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (i == num) {
		printf("FAIL open: no RDMA device %s\n", name ? name : "at all");
		goto out;
	}
	d->ctx = ibv_open_device(list[i]);
	if (!d->ctx) {
		printf("FAIL open: ibv_open_device(%s): %s\n",
		       ibv_get_device_name(list[i]), vt_errname(errno));
		goto out;
	}
	if (ibv_query_device(d->ctx, &d->attr) ||
	    ibv_query_port(d->ctx, 1, &d->port)) {
		printf("FAIL open: query_device/query_port: %s\n",
		       vt_errname(errno));
		goto out_close;
	}

	ents = calloc(d->port.gid_tbl_len, sizeof(*ents));
	if (!ents)
		goto out_close;
	n = ibv_query_gid_table(d->ctx, ents, d->port.gid_tbl_len, 0);
	if (n < 0) {
		printf("FAIL open: ibv_query_gid_table: %s\n",
		       vt_errname((int)-n));
		goto out_close;
	}
	d->gid_index = -1;
	for (i = 0; i < n; i++) {
		const struct ibv_gid_entry *e = &ents[i];

		if (e->port_num != 1 || e->gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		if (gid_is_v4mapped(&e->gid)) {
			if (d->gid_index < 0 &&
			    (gid_index < 0 || (int)e->gid_index == gid_index)) {
				d->gid_index = e->gid_index;
				d->gid = e->gid;
			}
		} else if (gid_is_linklocal(&e->gid)) {
			if (d->gid_ll_index < 0) {
				d->gid_ll_index = e->gid_index;
				d->gid_ll = e->gid;
			}
		} else if (d->gid6_index < 0) {
			d->gid6_index = e->gid_index;
			d->gid6 = e->gid;
		}
	}
	for (i = 0; i < d->port.gid_tbl_len && i < 1024; i++) {
		ssize_t j;

		for (j = 0; j < n; j++)
			if ((int)ents[j].gid_index == i)
				break;
		if (j == n) {
			d->empty_gid_index = i;
			break;
		}
	}
	if (d->gid_index < 0) {
		printf("FAIL open: no IPv4-mapped RoCE v2 GID (wanted index %d)\n",
		       gid_index);
		goto out_close;
	}
	ret = 0;
	goto out;

out_close:
	ibv_close_device(d->ctx);
	d->ctx = NULL;
out:
	free(ents);
	ibv_free_device_list(list);
	return ret;
}

void vt_close(struct vt_dev *d)
{
	if (d->ctx)
		ibv_close_device(d->ctx);
	d->ctx = NULL;
}

/* -------------------------------------------------------------------- QPs */

struct ibv_qp *vt_create_qp(struct vt_dev *d, struct ibv_pd *pd,
			    enum ibv_qp_type type, struct ibv_cq *scq,
			    struct ibv_cq *rcq, struct ibv_srq *srq,
			    uint32_t max_wr, uint32_t max_sge, int sig_all)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = scq,
		.recv_cq = rcq,
		.srq = srq,
		.qp_type = type,
		.sq_sig_all = sig_all,
		.cap = {
			.max_send_wr = max_wr,
			.max_recv_wr = srq ? 0 : max_wr,
			.max_send_sge = max_sge,
			.max_recv_sge = srq ? 0 : max_sge,
		},
	};

	(void)d;
	return ibv_create_qp(pd, &ia);
}

int vt_qp_init(struct vt_dev *d, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	(void)d;
	switch (qp->qp_type) {
	case IBV_QPT_RC:
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
		mask |= IBV_QP_ACCESS_FLAGS;
		break;
	case IBV_QPT_UC:
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		mask |= IBV_QP_ACCESS_FLAGS;
		break;
	default:
		a.qkey = 0x11111111;
		mask |= IBV_QP_QKEY;
		break;
	}
	return vt_rc(ibv_modify_qp(qp, &a, mask));
}

int vt_qp_rtr(struct vt_dev *d, struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = dest_qpn,
		.rq_psn = 0,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1,
			.port_num = 1,
			.grh = {
				.dgid = d->gid,
				.sgid_index = (uint8_t)d->gid_index,
				.hop_limit = 64,
			},
		},
	};
	int mask = IBV_QP_STATE;

	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			IBV_QP_MIN_RNR_TIMER;
	else if (qp->qp_type == IBV_QPT_UC)
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
	return vt_rc(ibv_modify_qp(qp, &a, mask));
}

int vt_qp_rts(struct vt_dev *d, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.sq_psn = 0,
		.max_rd_atomic = 1,
	};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	(void)d;
	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	return vt_rc(ibv_modify_qp(qp, &a, mask));
}

int vt_qp_to_rts(struct vt_dev *d, struct ibv_qp *qp, uint32_t dest_qpn)
{
	int ret;

	ret = vt_qp_init(d, qp);
	if (ret) {
		vt_info("qp %u: RESET->INIT: %s", qp->qp_num, vt_errname(ret));
		return ret;
	}
	ret = vt_qp_rtr(d, qp, dest_qpn);
	if (ret) {
		vt_info("qp %u: INIT->RTR: %s", qp->qp_num, vt_errname(ret));
		return ret;
	}
	ret = vt_qp_rts(d, qp);
	if (ret)
		vt_info("qp %u: RTR->RTS: %s", qp->qp_num, vt_errname(ret));
	return ret;
}

int vt_qp_set_state(struct ibv_qp *qp, enum ibv_qp_state st)
{
	struct ibv_qp_attr a = { .qp_state = st };

	return vt_rc(ibv_modify_qp(qp, &a, IBV_QP_STATE));
}

enum ibv_qp_state vt_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	memset(&a, 0, sizeof(a));
	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return (enum ibv_qp_state)-1;
	return a.qp_state;
}

struct ibv_qp *vt_rc_rts(struct vt_dev *d, struct ibv_pd *pd,
			 struct ibv_cq *cq)
{
	struct ibv_qp *qp;
	int ret;

	qp = vt_create_qp(d, pd, IBV_QPT_RC, cq, cq, NULL, 16, 2, 1);
	if (!qp) {
		vt_info("create RC QP: %s", vt_errname(errno));
		return NULL;
	}
	ret = vt_qp_to_rts(d, qp, qp->qp_num);
	if (ret) {
		ibv_destroy_qp(qp);
		errno = ret;
		return NULL;
	}
	return qp;
}

/* ------------------------------------------------------------ completions */

uint64_t vt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int vt_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms)
{
	uint64_t end = vt_now_ms() + (uint64_t)ms;
	int got = 0, r;

	for (;;) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r > 0)
			got += r;
		if (got >= n || vt_now_ms() >= end)
			return got;
		if (r <= 0)
			usleep(1000);
	}
}

int vt_post_wait(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_send_wr *wr,
		 struct ibv_wc *wc, int ms)
{
	struct ibv_send_wr *bad = NULL;
	int ret;

	wr->send_flags |= IBV_SEND_SIGNALED;
	ret = ibv_post_send(qp, wr, &bad);
	if (ret)
		return -vt_rc(ret);
	return vt_poll(cq, wc, 1, ms);
}

static void vt_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int vt_wait_async(struct ibv_context *ctx, enum ibv_event_type type, int ms,
		  struct ibv_async_event *out)
{
	uint64_t end = vt_now_ms() + (uint64_t)ms;
	struct ibv_async_event ev;

	vt_nonblock(ctx->async_fd);
	for (;;) {
		struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
		uint64_t now = vt_now_ms();

		if (ibv_get_async_event(ctx, &ev) == 0) {
			bool match = ev.event_type == type;

			if (match && out)
				*out = ev;
			if (!match)
				vt_info("async event %s (waiting for %s)",
					vt_eventname(ev.event_type),
					vt_eventname(type));
			ibv_ack_async_event(&ev);
			if (match)
				return 1;
			continue;
		}
		if (now >= end)
			return 0;
		poll(&p, 1, (int)(end - now));
	}
}

void vt_drain_async(struct ibv_context *ctx)
{
	struct ibv_async_event ev;

	vt_nonblock(ctx->async_fd);
	while (ibv_get_async_event(ctx, &ev) == 0) {
		vt_info("async event %s (dropped)",
			vt_eventname(ev.event_type));
		ibv_ack_async_event(&ev);
	}
}

int vt_wait_cq_event(struct ibv_comp_channel *ch, int ms, struct ibv_cq **cq)
{
	uint64_t end = vt_now_ms() + (uint64_t)ms;
	void *cq_ctx;

	vt_nonblock(ch->fd);
	for (;;) {
		struct pollfd p = { .fd = ch->fd, .events = POLLIN };
		uint64_t now = vt_now_ms();

		if (ibv_get_cq_event(ch, cq, &cq_ctx) == 0) {
			ibv_ack_cq_events(*cq, 1);
			return 1;
		}
		if (now >= end)
			return 0;
		poll(&p, 1, (int)(end - now));
	}
}

/* ------------------------------------------------------------------ rings */

void vt_snap_take(struct vt_snap *s)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];

	s->n = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && s->n < VT_MAX_MAPS) {
		unsigned long start, end;
		unsigned long long off;
		char perms[8];

		if (!strstr(line, "/dev/infiniband/uverbs"))
			continue;
		if (sscanf(line, "%lx-%lx %7s %llx", &start, &end, perms,
			   &off) != 4)
			continue;
		s->m[s->n].start = start;
		s->m[s->n].end = end;
		s->m[s->n].offset = off;
		s->n++;
	}
	fclose(f);
}

int vt_snap_new(const struct vt_snap *before, struct vt_map *out, int max)
{
	struct vt_snap *now = malloc(sizeof(*now));
	int i, j, n = 0;

	if (!now)
		return 0;
	vt_snap_take(now);
	for (i = 0; i < now->n && n < max; i++) {
		for (j = 0; j < before->n; j++)
			if (before->m[j].start == now->m[i].start &&
			    before->m[j].end == now->m[i].end &&
			    before->m[j].offset == now->m[i].offset)
				break;
		if (j == before->n)
			out[n++] = now->m[i];
	}
	free(now);
	return n;
}

struct rxe_queue_buf *vt_map_again(int fd, const struct vt_map *m)
{
	void *p = mmap(NULL, m->end - m->start, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, (off_t)m->offset);

	return p == MAP_FAILED ? NULL : p;
}

/* ------------------------------------------------------- raw uverbs cmds */

int vt_cmd_post_send_db(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} c;
	struct ib_uverbs_post_send_resp resp;

	memset(&c, 0, sizeof(c));
	c.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	c.hdr.in_words = sizeof(c) / 4;
	c.hdr.out_words = sizeof(resp) / 4;
	c.cmd.response = (uintptr_t)&resp;
	c.cmd.qp_handle = qp->handle;
	c.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (write(qp->context->cmd_fd, &c, sizeof(c)) != (ssize_t)sizeof(c))
		return errno ? errno : EIO;
	return 0;
}

int vt_cmd_rereg_mr(struct ibv_mr *mr, uint32_t flags, void *addr,
		    size_t len, uint64_t iova, struct ibv_pd *pd, int access)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_rereg_mr cmd;
	} c;
	struct ib_uverbs_rereg_mr_resp resp;

	memset(&c, 0, sizeof(c));
	memset(&resp, 0, sizeof(resp));
	c.hdr.command = IB_USER_VERBS_CMD_REREG_MR;
	c.hdr.in_words = sizeof(c) / 4;
	c.hdr.out_words = sizeof(resp) / 4;
	c.cmd.response = (uintptr_t)&resp;
	c.cmd.mr_handle = mr->handle;
	c.cmd.flags = flags;
	c.cmd.start = (uintptr_t)addr;
	c.cmd.length = len;
	c.cmd.hca_va = iova;
	c.cmd.pd_handle = pd ? pd->handle : 0;
	c.cmd.access_flags = (uint32_t)access;
	if (write(mr->context->cmd_fd, &c, sizeof(c)) != (ssize_t)sizeof(c))
		return errno ? errno : EIO;
	mr->lkey = resp.lkey;
	mr->rkey = resp.rkey;
	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->pd = pd;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		mr->addr = addr;
		mr->length = len;
	}
	return 0;
}

/* ------------------------------------------------------------------- misc */

void *vt_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}
