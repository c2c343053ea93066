// SPDX-License-Identifier: GPL-2.0
/*
 * UD multicast: ibv_attach_mcast / ibv_detach_mcast and delivery to every
 * member of a group.
 *
 *   ud_mcast [-d DEV] selftest
 *	one process, one device: the errors (attach of a non-UD QP or a
 *	unicast GID, detach of what is not attached, destroy while
 *	attached, the per-group attach limit), and multicast loopback:
 *	a sender and several QPs of the same device, each member gets
 *	every message exactly once with its data, source QP and GRH; a QP
 *	of another group or with another Q_Key gets nothing, and each
 *	message the latter drops counts once in the port's qkey_viol_cntr
 *	(ibv_query_port); after detach a QP gets nothing; an IPv4-mapped
 *	and (if the device has an IPv6 GID) an IPv6 group.
 *
 *   ud_mcast [-d DEV] -G GROUP [-q QPS] [-n N] [-2] [-r FILE] [-x FILE] member
 *	QPS UD QPs attached to GROUP; touches FILE -r once they are
 *	attached and receiving; each must get messages 0..N-1 exactly
 *	once.  With -2 the last QP then detaches, touches FILE -x, and the
 *	others must get N..2N-1 while the detached one gets nothing.
 *
 *   ud_mcast [-d DEV] -G GROUP [-n N] [-S SEQ0] send
 *	N messages SEQ0.. to GROUP, each waited for (paced: UD may drop
 *	on a loaded host), from the device's IPv4 GID for an IPv4 group,
 *	its IPv6 GID (global, else link-local) for an IPv6 one.
 *
 * GROUP is an IPv4 multicast address (the MGID is ::ffff:GROUP) or an
 * IPv6 one.  Every message carries its sequence number, the sender's
 * QPN and GID, and a pattern derived from the sequence number, so that a
 * member checks what it got without knowing the sender.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define QKEY		0x11111111u
#define MCAST_QPN	0xffffffu
#define GRH_LEN		40
#define MSG_MAGIC	0x6d636173u

struct msg {
	uint32_t magic;
	uint32_t seq;
	uint32_t src_qpn;
	uint8_t sgid[16];
	uint8_t fill[];
};

static const char *opt_dev;
static int opt_size = 512;
static int opt_n = 100;
static int opt_qps = 2;
static int opt_phase2;
static unsigned int opt_seq0;
static int opt_timeout = 60;
static const char *opt_ready, *opt_detached;
static union ibv_gid opt_group;
static bool opt_group_set;

static struct vt_dev D;
static struct ibv_pd *pd;

static uint8_t fill_byte(uint32_t seq, unsigned int i)
{
	return (uint8_t)(seq * 7 + i * 13 + 1);
}

static bool gid_v4(const union ibv_gid *g)
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g->raw, pfx, sizeof(pfx));
}

static const char *gid_str(const union ibv_gid *g)
{
	static __thread char buf[4][INET6_ADDRSTRLEN];
	static __thread int i;
	char *b = buf[i++ & 3];

	if (gid_v4(g))
		inet_ntop(AF_INET, g->raw + 12, b, INET6_ADDRSTRLEN);
	else
		inet_ntop(AF_INET6, g->raw, b, INET6_ADDRSTRLEN);
	return b;
}

static int parse_group(const char *s, union ibv_gid *g)
{
	memset(g, 0, sizeof(*g));
	if (inet_pton(AF_INET, s, g->raw + 12) == 1) {
		g->raw[10] = g->raw[11] = 0xff;
		return 0;
	}
	return inet_pton(AF_INET6, s, g->raw) == 1 ? 0 : -1;
}

/* ------------------------------------------------------------- members */

struct member {
	char name[32];
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	int nslots;
	uint32_t slot_len;
	union ibv_gid group;
	uint32_t lo, hi;	/* expected sequence numbers [lo, hi) */
	uint8_t *seen;		/* per expected sequence number */
	uint32_t got;		/* distinct expected messages */
	uint32_t bad;		/* anything else: errors were printed */
	bool attached;
};

static int post_slot(struct member *m, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(m->buf + (size_t)i * m->slot_len),
		.length = m->slot_len,
		.lkey = m->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(m->qp, &wr, &bad);
}

/* A UD QP in RTS with @qkey and @nslots receives posted (not attached). */
static int member_create(struct member *m, const char *name, int nslots,
			 uint32_t qkey)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = qkey,
	};
	int i, ret;

	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->nslots = nslots;
	m->slot_len = GRH_LEN + opt_size;
	m->cq = ibv_create_cq(D.ctx, nslots + 1, NULL, NULL, 0);
	if (!m->cq)
		return errno;
	m->qp = vt_create_qp(&D, pd, IBV_QPT_UD, m->cq, m->cq, NULL,
			     (uint32_t)nslots, 1, 1);
	if (!m->qp)
		return errno;
	m->buf = vt_alloc((size_t)nslots * m->slot_len);
	m->mr = ibv_reg_mr(pd, m->buf, (size_t)nslots * m->slot_len,
			   IBV_ACCESS_LOCAL_WRITE);
	if (!m->mr)
		return errno;
	ret = vt_rc(ibv_modify_qp(m->qp, &a, IBV_QP_STATE |
				  IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_QKEY));
	if (!ret)
		ret = vt_qp_rtr(&D, m->qp, 0);
	if (!ret)
		ret = vt_qp_rts(&D, m->qp);
	for (i = 0; !ret && i < nslots; i++)
		ret = post_slot(m, i);
	return ret;
}

static void member_expect(struct member *m, uint32_t lo, uint32_t hi)
{
	free(m->seen);
	m->lo = lo;
	m->hi = hi;
	m->seen = calloc(hi - lo + 1, 1);
	m->got = 0;
	m->bad = 0;
}

static int member_attach(struct member *m, const union ibv_gid *g)
{
	int ret = vt_rc(ibv_attach_mcast(m->qp, g, 0));

	if (!ret) {
		m->group = *g;
		m->attached = true;
	}
	return ret;
}

static int member_detach(struct member *m)
{
	int ret = vt_rc(ibv_detach_mcast(m->qp, &m->group, 0));

	if (!ret)
		m->attached = false;
	return ret;
}

static void member_bad(struct member *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void member_bad(struct member *m, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* the first few, then only the count (summarised by the caller) */
	if (m->bad++ < 5)
		vt_failf(m->name, "%s", buf);
	else
		vt_n_fail++;
}

/* Check one receive completion against the message format. */
static void member_check(struct member *m, const struct ibv_wc *wc)
{
	const uint8_t *p = m->buf + wc->wr_id * m->slot_len;
	const struct msg *msg = (const void *)(p + GRH_LEN);
	union ibv_gid sgid, dgid;
	uint32_t i, len;

	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_RECV) {
		member_bad(m, "completion %s opcode %d", vt_wcname(wc->status),
			   wc->opcode);
		return;
	}
	if (!(wc->wc_flags & IBV_WC_GRH)) {
		member_bad(m, "completion without IBV_WC_GRH");
		return;
	}
	if (wc->byte_len != (uint32_t)(GRH_LEN + opt_size)) {
		member_bad(m, "byte_len %u, want %d", wc->byte_len,
			   GRH_LEN + opt_size);
		return;
	}
	if (msg->magic != MSG_MAGIC) {
		member_bad(m, "bad magic %#x", msg->magic);
		return;
	}
	len = (uint32_t)opt_size - sizeof(*msg);
	for (i = 0; i < len; i++)
		if (msg->fill[i] != fill_byte(msg->seq, i)) {
			member_bad(m, "seq %u: data differs at byte %u",
				   msg->seq, i);
			return;
		}
	if (wc->src_qp != msg->src_qpn) {
		member_bad(m, "seq %u: src_qp %#x, sender says %#x", msg->seq,
			   wc->src_qp, msg->src_qpn);
		return;
	}

	/* GRH: the IPv6 header, or the IPv4 header in its last 20 bytes. */
	memset(&sgid, 0, sizeof(sgid));
	memset(&dgid, 0, sizeof(dgid));
	if (gid_v4(&m->group)) {
		const uint8_t *ip = p + 20;

		if ((ip[0] >> 4) != 4) {
			member_bad(m, "seq %u: GRH holds no IPv4 header",
				   msg->seq);
			return;
		}
		sgid.raw[10] = sgid.raw[11] = 0xff;
		dgid.raw[10] = dgid.raw[11] = 0xff;
		memcpy(sgid.raw + 12, ip + 12, 4);
		memcpy(dgid.raw + 12, ip + 16, 4);
	} else {
		if ((p[0] >> 4) != 6) {
			member_bad(m, "seq %u: GRH is no IPv6 header",
				   msg->seq);
			return;
		}
		memcpy(sgid.raw, p + 8, 16);
		memcpy(dgid.raw, p + 24, 16);
	}
	if (memcmp(&dgid, &m->group, sizeof(dgid))) {
		member_bad(m, "seq %u: GRH destination %s, want the group %s",
			   msg->seq, gid_str(&dgid), gid_str(&m->group));
		return;
	}
	if (memcmp(sgid.raw, msg->sgid, 16)) {
		member_bad(m, "seq %u: GRH source %s, sender says %s",
			   msg->seq, gid_str(&sgid),
			   gid_str((const void *)msg->sgid));
		return;
	}

	if (msg->seq < m->lo || msg->seq >= m->hi) {
		member_bad(m, "seq %u outside [%u, %u)%s", msg->seq, m->lo,
			   m->hi, m->attached ? "" : " after detach");
		return;
	}
	if (m->seen[msg->seq - m->lo]++) {
		member_bad(m, "seq %u delivered twice", msg->seq);
		return;
	}
	m->got++;
}

/* Take every completion there is; returns how many. */
static int member_drain(struct member *m)
{
	struct ibv_wc wc[16];
	int n, i, total = 0;

	while ((n = ibv_poll_cq(m->cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			member_check(m, &wc[i]);
			if (post_slot(m, (int)wc[i].wr_id))
				member_bad(m, "re-posting a receive failed");
		}
		total += n;
	}
	if (n < 0)
		member_bad(m, "ibv_poll_cq: %d", n);
	return total;
}

/*
 * Poll @m[0..k) until each has all it expects or @ms pass; then @quiet_ms
 * more to catch duplicates and deliveries to QPs that expect nothing.
 */
static void members_wait(struct member *m, int k, int ms, int quiet_ms)
{
	uint64_t deadline = vt_now_ms() + (uint64_t)ms, quiet = 0;
	int i;

	for (;;) {
		bool done = true;

		for (i = 0; i < k; i++) {
			member_drain(&m[i]);
			if (m[i].got < m[i].hi - m[i].lo)
				done = false;
		}
		if (done && !quiet)
			quiet = vt_now_ms() + (uint64_t)quiet_ms;
		if ((quiet && vt_now_ms() >= quiet) || vt_now_ms() >= deadline)
			break;
		usleep(1000);
	}
}

static void member_report(struct member *m, const char *what)
{
	uint32_t want = m->hi - m->lo;
	char name[96];

	snprintf(name, sizeof(name), "%s %s", m->name, what);
	if (m->got == want && !m->bad)
		vt_ok(name, "%u of %u messages, each once, data/src_qp/GRH ok",
		      m->got, want);
	else
		vt_failf(name, "%u of %u messages, %u bad", m->got, want,
			 m->bad);
}

static void member_destroy(struct member *m)
{
	if (m->attached)
		member_detach(m);
	if (m->qp)
		ibv_destroy_qp(m->qp);
	if (m->mr)
		ibv_dereg_mr(m->mr);
	if (m->cq)
		ibv_destroy_cq(m->cq);
	free(m->seen);
	memset(m, 0, sizeof(*m));
}

/* -------------------------------------------------------------- sender */

struct sender {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	uint8_t *buf;
	union ibv_gid sgid;
};

static int sender_create(struct sender *s)
{
	memset(s, 0, sizeof(*s));
	s->cq = ibv_create_cq(D.ctx, 4, NULL, NULL, 0);
	if (!s->cq)
		return errno;
	s->qp = vt_create_qp(&D, pd, IBV_QPT_UD, s->cq, s->cq, NULL, 4, 1, 1);
	if (!s->qp)
		return errno;
	s->buf = vt_alloc((size_t)opt_size);
	s->mr = ibv_reg_mr(pd, s->buf, (size_t)opt_size, 0);
	if (!s->mr)
		return errno;
	return vt_qp_to_rts(&D, s->qp, 0);
}

/* The AH for @group, from the GID of the same family. */
static int sender_target(struct sender *s, const union ibv_gid *group)
{
	struct ibv_ah_attr a = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = *group, .hop_limit = 64 },
	};
	int idx;

	if (s->ah)
		ibv_destroy_ah(s->ah);
	s->ah = NULL;
	if (gid_v4(group)) {
		idx = D.gid_index;
		s->sgid = D.gid;
	} else if (D.gid6_index >= 0) {
		idx = D.gid6_index;
		s->sgid = D.gid6;
	} else if (D.gid_ll_index >= 0) {
		idx = D.gid_ll_index;
		s->sgid = D.gid_ll;
	} else {
		return ENOENT;
	}
	a.grh.sgid_index = (uint8_t)idx;
	s->ah = ibv_create_ah(pd, &a);
	return s->ah ? 0 : errno;
}

/* Send messages [seq0, seq0 + n), each waited for; 0 or an errno. */
static int sender_send(struct sender *s, uint32_t seq0, int n, uint32_t qkey)
{
	struct msg *msg = (struct msg *)s->buf;
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf,
		.length = (uint32_t)opt_size,
		.lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;
	uint32_t i, seq;
	int ret;

	wr.wr.ud.ah = s->ah;
	wr.wr.ud.remote_qpn = MCAST_QPN;
	wr.wr.ud.remote_qkey = qkey;
	for (seq = seq0; seq < seq0 + (uint32_t)n; seq++) {
		msg->magic = MSG_MAGIC;
		msg->seq = seq;
		msg->src_qpn = s->qp->qp_num;
		memcpy(msg->sgid, s->sgid.raw, 16);
		for (i = 0; i < (uint32_t)opt_size - sizeof(*msg); i++)
			msg->fill[i] = fill_byte(seq, i);
		wr.wr_id = seq;
		ret = vt_post_wait(s->qp, s->cq, &wr, &wc, 10000);
		if (ret < 0)
			return -ret;
		if (ret == 0)
			return ETIMEDOUT;
		if (wc.status != IBV_WC_SUCCESS) {
			vt_info("send %u: %s", seq, vt_wcname(wc.status));
			return EIO;
		}
	}
	return 0;
}

static void sender_destroy(struct sender *s)
{
	if (s->ah)
		ibv_destroy_ah(s->ah);
	if (s->qp)
		ibv_destroy_qp(s->qp);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	memset(s, 0, sizeof(*s));
}

/* ------------------------------------------------------------ selftest */

static void test_errors(void)
{
	union ibv_gid g1, g2;
	struct ibv_cq *cq;
	struct ibv_qp *rc;
	struct member m;
	int ret;

	parse_group("239.1.2.3", &g1);
	parse_group("239.1.2.4", &g2);
	cq = ibv_create_cq(D.ctx, 8, NULL, NULL, 0);
	rc = cq ? vt_create_qp(&D, pd, IBV_QPT_RC, cq, cq, NULL, 4, 1, 1) :
		  NULL;
	if (!rc) {
		vt_failf("errors setup", "RC QP: %s", vt_errname(errno));
		return;
	}
	vt_expect_rc("attach RC QP", vt_rc(ibv_attach_mcast(rc, &g1, 0)),
		     EINVAL);
	ibv_destroy_qp(rc);
	ibv_destroy_cq(cq);

	ret = member_create(&m, "errors", 4, QKEY);
	if (ret) {
		vt_failf("errors setup", "UD QP: %s", vt_errname(ret));
		member_destroy(&m);
		return;
	}
	vt_expect_rc("attach unicast GID", vt_rc(ibv_attach_mcast(m.qp, &D.gid,
								 0)),
		     EINVAL);
	vt_expect_rc("detach never attached",
		     vt_rc(ibv_detach_mcast(m.qp, &g1, 0)), EINVAL);
	vt_expect_rc("attach", member_attach(&m, &g1), 0);
	vt_expect_rc("attach again (uverbs: no-op)",
		     vt_rc(ibv_attach_mcast(m.qp, &g1, 0)), 0);
	vt_expect_rc("detach other group",
		     vt_rc(ibv_detach_mcast(m.qp, &g2, 0)), EINVAL);
	vt_expect_rc("destroy attached QP", vt_rc(ibv_destroy_qp(m.qp)), EBUSY);
	vt_expect_rc("detach", member_detach(&m), 0);
	vt_expect_rc("detach twice", vt_rc(ibv_detach_mcast(m.qp, &g1, 0)),
		     EINVAL);
	vt_expect_rc("destroy detached QP", vt_rc(ibv_destroy_qp(m.qp)), 0);
	m.qp = NULL;
	member_destroy(&m);
}

/* max_mcast_qp_attach QPs in one group, and one more that is refused. */
static void test_limit(void)
{
	int max = D.attr.max_mcast_qp_attach, i, ok = 0, ret;
	struct ibv_qp **qps;
	struct ibv_cq *cq;
	union ibv_gid g;

	if (max <= 0 || max > 1024) {
		vt_failf("attach limit", "max_mcast_qp_attach %d", max);
		return;
	}
	parse_group("239.9.9.9", &g);
	qps = calloc((size_t)max + 1, sizeof(*qps));
	cq = ibv_create_cq(D.ctx, 4, NULL, NULL, 0);
	for (i = 0; cq && i <= max; i++) {
		qps[i] = vt_create_qp(&D, pd, IBV_QPT_UD, cq, cq, NULL, 1, 1, 0);
		if (!qps[i]) {
			vt_failf("attach limit", "UD QP %d: %s", i,
				 vt_errname(errno));
			goto out;
		}
		ret = vt_rc(ibv_attach_mcast(qps[i], &g, 0));
		if (i < max && ret) {
			vt_failf("attach limit", "QP %d of %d: %s", i, max,
				 vt_errname(ret));
			goto out;
		}
		if (!ret)
			ok++;
		if (i == max)
			vt_expect_rc("attach past max_mcast_qp_attach", ret,
				     ENOMEM);
	}
	vt_ok("attach limit", "%d QPs attached to one group", max);
out:
	for (i = 0; i <= max; i++) {
		if (!qps[i])
			continue;
		if (i < ok && ibv_detach_mcast(qps[i], &g, 0))
			vt_failf("attach limit", "detach QP %d failed", i);
		ibv_destroy_qp(qps[i]);
	}
	if (cq)
		ibv_destroy_cq(cq);
	free(qps);
}

/*
 * The port's Q_Key violation counter (ibv_query_port) grows by exactly
 * @want from @before: poll until it gets there or 5 s pass (delivery to
 * the QPs may lag behind the send completion), then compare.
 */
static void expect_qkey_violations(const char *group_str, uint32_t before,
				   uint32_t want)
{
	uint64_t deadline = vt_now_ms() + 5000;
	struct ibv_port_attr pa;
	char name[96];
	uint32_t got;

	snprintf(name, sizeof(name), "%s qkey_viol_cntr", group_str);
	for (;;) {
		memset(&pa, 0, sizeof(pa));
		if (ibv_query_port(D.ctx, 1, &pa)) {
			vt_failf(name, "ibv_query_port: %s", vt_errname(errno));
			return;
		}
		got = pa.qkey_viol_cntr - before;
		if (got >= want || vt_now_ms() >= deadline)
			break;
		usleep(10000);
	}
	if (got == want)
		vt_ok(name, "+%u, one per message the QP with another Q_Key dropped",
		      got);
	else
		vt_failf(name, "+%u (now %u), want +%u: one per message the QP with another Q_Key dropped",
			 got, pa.qkey_viol_cntr, want);
}

/* The port's qkey_viol_cntr now (0 if the query fails: checked later). */
static uint32_t qkey_violations(void)
{
	struct ibv_port_attr pa;

	memset(&pa, 0, sizeof(pa));
	if (ibv_query_port(D.ctx, 1, &pa))
		return 0;
	return pa.qkey_viol_cntr;
}

/*
 * Loopback on one device: @nm members of @group, a QP of another group
 * and one of the group with another Q_Key; the sender is not attached.
 * The other-Q_Key QP drops each of the 2n messages as a Q_Key violation.
 */
static void test_loopback(const char *group_str)
{
	enum { NM = 3 };
	struct member m[NM + 2];
	union ibv_gid g, other;
	struct sender s;
	char name[64];
	int i, ret, n = opt_n;
	uint32_t qv0;

	parse_group(group_str, &g);
	parse_group(gid_v4(&g) ? "239.1.2.99" : "ff0e::db8:99", &other);
	memset(m, 0, sizeof(m));
	ret = sender_create(&s);
	if (!ret)
		ret = sender_target(&s, &g);
	if (ret == ENOENT) {
		vt_skipf(group_str, "the device has no IPv6 GID");
		sender_destroy(&s);
		return;
	}
	for (i = 0; !ret && i < NM + 2; i++) {
		snprintf(name, sizeof(name), "%s %s", group_str,
			 i < NM ? "member" : i == NM ? "other-group" :
			 "other-qkey");
		if (i < NM)
			snprintf(name + strlen(name),
				 sizeof(name) - strlen(name), " %d", i);
		ret = member_create(&m[i], name, 2 * n,
				    i == NM + 1 ? QKEY + 1 : QKEY);
		if (!ret)
			ret = member_attach(&m[i], i == NM ? &other : &g);
	}
	if (ret) {
		vt_failf(group_str, "setup: %s", vt_errname(ret));
		goto out;
	}

	/* Everyone in the group gets 0..n-1; the last two nothing. */
	for (i = 0; i < NM + 2; i++)
		member_expect(&m[i], 0, i < NM ? (uint32_t)n : 0);
	qv0 = qkey_violations();
	ret = sender_send(&s, 0, n, QKEY);
	if (ret)
		vt_failf(group_str, "send: %s", vt_errname(ret));
	members_wait(m, NM + 2, 20000, 300);
	for (i = 0; i < NM + 2; i++)
		member_report(&m[i], "(attached)");

	/* Member NM-1 leaves: it gets nothing more, the others n..2n-1. */
	vt_expect_rc("detach", member_detach(&m[NM - 1]), 0);
	for (i = 0; i < NM + 2; i++)
		member_expect(&m[i], (uint32_t)n,
			      i < NM - 1 ? 2 * (uint32_t)n : (uint32_t)n);
	ret = sender_send(&s, (uint32_t)n, n, QKEY);
	if (ret)
		vt_failf(group_str, "send: %s", vt_errname(ret));
	members_wait(m, NM + 2, 20000, 300);
	for (i = 0; i < NM + 2; i++)
		member_report(&m[i], i == NM - 1 ? "(detached)" : "(phase 2)");
	/* the other-Q_Key QP (m[NM + 1]) was attached in both phases */
	expect_qkey_violations(group_str, qv0, 2 * (uint32_t)n);

	/* The sender sends to the group with nobody attached: no error. */
	for (i = 0; i < NM + 2; i++)
		if (m[i].attached)
			member_detach(&m[i]);
	ret = sender_send(&s, 2 * (uint32_t)n, 3, QKEY);
	vt_expect_rc("send to a group without members", ret, 0);
out:
	for (i = 0; i < NM + 2; i++)
		member_destroy(&m[i]);
	sender_destroy(&s);
}

static int selftest(void)
{
	test_errors();
	test_limit();
	test_loopback("239.1.2.3");
	test_loopback("ff0e::db8:1");
	return vt_summary("ud_mcast selftest");
}

/* ------------------------------------------------------ member / send */

static void touch(const char *path)
{
	int fd;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
}

static int run_member(void)
{
	struct member *m = calloc((size_t)opt_qps, sizeof(*m));
	char name[64];
	int i, ret = 0;

	for (i = 0; !ret && i < opt_qps; i++) {
		snprintf(name, sizeof(name), "%s qp%d", gid_str(&opt_group), i);
		ret = member_create(&m[i], name, 2 * opt_n + 8, QKEY);
		if (!ret)
			ret = member_attach(&m[i], &opt_group);
		member_expect(&m[i], opt_seq0, opt_seq0 + (uint32_t)opt_n);
	}
	if (ret) {
		vt_failf("member setup", "%s", vt_errname(ret));
		goto out;
	}
	vt_info("%d QPs attached to %s, first QPN %#x", opt_qps,
		gid_str(&opt_group), m[0].qp->qp_num);
	touch(opt_ready);
	members_wait(m, opt_qps, opt_timeout * 1000, 300);
	for (i = 0; i < opt_qps; i++)
		member_report(&m[i], "(attached)");
	if (!opt_phase2)
		goto out;

	i = opt_qps - 1;
	vt_expect_rc("detach last QP", member_detach(&m[i]), 0);
	for (i = 0; i < opt_qps; i++) {
		uint32_t lo = opt_seq0 + (uint32_t)opt_n;

		member_expect(&m[i], lo,
			      i < opt_qps - 1 ? lo + (uint32_t)opt_n : lo);
	}
	touch(opt_detached);
	members_wait(m, opt_qps, opt_timeout * 1000, 300);
	for (i = 0; i < opt_qps; i++)
		member_report(&m[i], i == opt_qps - 1 ? "(detached)" :
							"(phase 2)");
out:
	for (i = 0; i < opt_qps; i++)
		member_destroy(&m[i]);
	free(m);
	return vt_summary("ud_mcast member");
}

static int run_send(void)
{
	struct sender s;
	int ret;

	ret = sender_create(&s);
	if (!ret)
		ret = sender_target(&s, &opt_group);
	if (!ret)
		ret = sender_send(&s, opt_seq0, opt_n, QKEY);
	if (ret)
		vt_failf("send", "%s: %s", gid_str(&opt_group),
			 vt_errname(ret));
	else
		vt_ok("send", "%d messages %u.. to %s from %s QPN %#x", opt_n,
		      opt_seq0, gid_str(&opt_group), gid_str(&s.sgid),
		      s.qp->qp_num);
	sender_destroy(&s);
	return vt_summary("ud_mcast send");
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ud_mcast [-v] [-d DEV] selftest\n"
		"       ud_mcast [-v] [-d DEV] -G GROUP [-n N] [-s SIZE] [-q QPS] [-2]\n"
		"                [-S SEQ0] [-t SECONDS] [-r READY] [-x DETACHED] member\n"
		"       ud_mcast [-v] [-d DEV] -G GROUP [-n N] [-s SIZE] [-S SEQ0] send\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode;
	int c, ret;

	while ((c = getopt(argc, argv, "d:G:n:s:q:2S:t:r:x:v")) != -1) {
		switch (c) {
		case 'd': opt_dev = optarg; break;
		case 'G':
			if (parse_group(optarg, &opt_group))
				usage();
			opt_group_set = true;
			break;
		case 'n': opt_n = atoi(optarg); break;
		case 's': opt_size = atoi(optarg); break;
		case 'q': opt_qps = atoi(optarg); break;
		case '2': opt_phase2 = 1; break;
		case 'S': opt_seq0 = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 't': opt_timeout = atoi(optarg); break;
		case 'r': opt_ready = optarg; break;
		case 'x': opt_detached = optarg; break;
		case 'v': vt_verbose = 1; break;
		default: usage();
		}
	}
	if (optind != argc - 1 || opt_n < 1 || opt_n > 4096 || opt_qps < 1 ||
	    opt_qps > 64 || opt_size < (int)sizeof(struct msg) ||
	    opt_size > 1024)
		usage();
	mode = argv[optind];
	if (strcmp(mode, "selftest") && !opt_group_set)
		usage();

	if (vt_open(opt_dev, -1, &D))
		return 1;
	pd = ibv_alloc_pd(D.ctx);
	if (!pd) {
		printf("FAIL setup: ibv_alloc_pd: %s\n", vt_errname(errno));
		return 1;
	}
	if (!strcmp(mode, "selftest"))
		ret = selftest();
	else if (!strcmp(mode, "member"))
		ret = run_member();
	else if (!strcmp(mode, "send"))
		ret = run_send();
	else
		usage();
	ibv_dealloc_pd(pd);
	vt_close(&D);
	return ret;
}
