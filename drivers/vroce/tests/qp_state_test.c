// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: vroce's QP state machine (qp_state.c), run for real on a QP that
 * has no transport.  The file is compiled in here with the transport
 * hooks it calls (reset, kick, run, run lock, schedule, event) replaced
 * by stubs that count the calls, so each case drives vroce_modify_qp(),
 * vroce_query_qp() and vroce_qp_set_error() and checks against IBTA
 * written out here: the legal transitions and the attributes each one
 * requires (vol. 1 10.3 and 11.2.4), the width of each attribute's field,
 * and what entering each state does.  A refused modify_qp changes
 * nothing; an accepted one stores exactly its attributes.
 */
#include <kunit/test.h>

#include "../qp_state.c"

/* ----------------------------------------------- transport hook stubs */

static struct {
	int wq_reset, resp_reset, req_reset, cc_reset, kick, run, schedule;
	int event;
	u32 resp_psn, req_psn;
	enum ib_event_type last_event;
} hooks;

void vroce_wq_reset(struct vroce_qp *qp)
{
	hooks.wq_reset++;
}

void vroce_resp_reset(struct vroce_qp *qp, u32 rq_psn)
{
	hooks.resp_reset++;
	hooks.resp_psn = rq_psn;
}

void vroce_req_reset(struct vroce_qp *qp, u32 sq_psn)
{
	hooks.req_reset++;
	hooks.req_psn = sq_psn;
}

void vroce_cc_qp_reset(struct vroce_qp *qp)
{
	hooks.cc_reset++;
}

void vroce_req_kick(struct vroce_qp *qp)
{
	hooks.kick++;
}

void vroce_qp_run(struct vroce_qp *qp, bool may_sleep)
{
	hooks.run++;
}

void vroce_run_lock(struct vroce_qp *qp)
{
	spin_lock_bh(&qp->run_lock);
}

void vroce_run_unlock(struct vroce_qp *qp)
{
	spin_unlock_bh(&qp->run_lock);
}

void vroce_qp_schedule(struct vroce_qp *qp)
{
	hooks.schedule++;
}

void vroce_qp_event(struct vroce_qp *qp, enum ib_event_type type)
{
	hooks.event++;
	hooks.last_event = type;
}

/* ----------------------------------------------------------- fixture */

static const struct ib_gid_attr fake_sgid;

#define RQ_PSN		0x000100
#define SQ_PSN		0x000200

/* A device with a 4096-byte port MTU and one QP of @type in @state. */
static struct vroce_qp *new_qp(struct kunit *test, enum ib_qp_type type,
			       enum ib_qp_state state)
{
	struct vroce_dev *vdev = kunit_kzalloc(test, sizeof(*vdev), GFP_KERNEL);
	struct vroce_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, vdev);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	spin_lock_init(&vdev->port_lock);
	vdev->port_mtu = IB_MTU_4096;
	qp->vdev = vdev;
	qp->ibqp.device = &vdev->ibdev;
	qp->ibqp.qp_type = type;
	qp->ibqp.qp_num = 0x11;
	spin_lock_init(&qp->run_lock);
	spin_lock_init(&qp->state_lock);
	qp->state = state;
	qp->attr.qp_state = state;
	qp->attr.cur_qp_state = state;
	/* an SQD QP here has drained (sqd_to_sqd_once_drained: not yet) */
	qp->sq_draining = false;
	memset(&hooks, 0, sizeof(hooks));
	return qp;
}

/* Values in range for every attribute; @next is the target state. */
static void good_attr(struct ib_qp_attr *a, enum ib_qp_state next)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = next;
	a->pkey_index = 0;
	a->port_num = 1;
	a->qkey = 0x12345678;
	a->qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	a->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	a->ah_attr.port_num = 1;
	a->ah_attr.ah_flags = IB_AH_GRH;
	a->ah_attr.grh.sgid_index = 1;
	a->ah_attr.grh.sgid_attr = &fake_sgid;
	a->ah_attr.grh.hop_limit = 64;
	a->path_mtu = IB_MTU_1024;
	a->dest_qp_num = 0x22;
	a->rq_psn = RQ_PSN;
	a->sq_psn = SQ_PSN;
	a->max_dest_rd_atomic = 1;
	a->min_rnr_timer = 12;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->max_rd_atomic = 1;
}

static int modify(struct vroce_qp *qp, struct ib_qp_attr *a, int mask)
{
	return vroce_modify_qp(&qp->ibqp, a, mask, NULL);
}

/* ---------------------------------------------- IBTA transition table */

/* The attributes a transition must carry, beside IB_QP_STATE. */
struct qp_req {
	enum ib_qp_state cur, next;
	int rc, uc, ud;
};

static const struct qp_req legal[] = {
	{ IB_QPS_RESET, IB_QPS_INIT,
	  IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS,
	  IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS,
	  IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY },
	{ IB_QPS_INIT, IB_QPS_INIT, 0, 0, 0 },
	{ IB_QPS_INIT, IB_QPS_RTR,
	  IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
	  IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER,
	  IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN,
	  0 },
	{ IB_QPS_RTR, IB_QPS_RTS,
	  IB_QP_SQ_PSN | IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
	  IB_QP_MAX_QP_RD_ATOMIC,
	  IB_QP_SQ_PSN, IB_QP_SQ_PSN },
	{ IB_QPS_RTS, IB_QPS_RTS, 0, 0, 0 },
	{ IB_QPS_RTS, IB_QPS_SQD, 0, 0, 0 },
	{ IB_QPS_SQD, IB_QPS_RTS, 0, 0, 0 },
	{ IB_QPS_SQD, IB_QPS_SQD, 0, 0, 0 },
	{ IB_QPS_SQE, IB_QPS_RTS, 0, 0, 0 },
};

static int req_of(const struct qp_req *r, enum ib_qp_type type)
{
	return type == IB_QPT_RC ? r->rc : type == IB_QPT_UC ? r->uc : r->ud;
}

static const struct qp_req *find_legal(enum ib_qp_state cur,
				       enum ib_qp_state next)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(legal); i++)
		if (legal[i].cur == cur && legal[i].next == next)
			return &legal[i];
	return NULL;
}

static const enum ib_qp_type types[] = { IB_QPT_RC, IB_QPT_UC, IB_QPT_UD };

#define NSTATES		(IB_QPS_ERR + 1)

/*
 * One (type, current, next) triple through vroce_modify_qp(): a legal
 * transition with exactly its required attributes lands in @next; with
 * any one of them missing it is refused and the QP stays where it was;
 * an illegal one is refused.  Any state may go to RESET, any but RESET
 * to ERR (ib_core's table, which vroce applies, has no RESET->ERR: a QP
 * that never left RESET has nothing to flush).
 */
static void check_transition(struct kunit *test, enum ib_qp_type type,
			     enum ib_qp_state cur, enum ib_qp_state next)
{
	const struct qp_req *r = find_legal(cur, next);
	bool always = next == IB_QPS_RESET ||
		      (next == IB_QPS_ERR && cur != IB_QPS_RESET);
	int req = IB_QP_STATE, bit, b, err;
	struct ib_qp_attr a;
	struct vroce_qp *qp;

	if (r)
		req |= req_of(r, type);
	qp = new_qp(test, type, cur);
	good_attr(&a, next);
	err = modify(qp, &a, req);
	if (!r && !always) {
		KUNIT_EXPECT_EQ_MSG(test, err, -EINVAL, "type %d %s->%s", type,
				    vroce_qps_str(cur), vroce_qps_str(next));
		KUNIT_EXPECT_EQ(test, vroce_qp_state(qp), cur);
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, err, 0, "type %d %s->%s", type,
			    vroce_qps_str(cur), vroce_qps_str(next));
	KUNIT_EXPECT_EQ(test, vroce_qp_state(qp), next);

	for (bit = 0; bit < 31; bit++) {
		b = 1 << bit;
		if (b == IB_QP_STATE || !(req & b))
			continue;
		qp = new_qp(test, type, cur);
		good_attr(&a, next);
		err = modify(qp, &a, req & ~b);
		KUNIT_EXPECT_EQ_MSG(test, err, -EINVAL,
				    "type %d %s->%s without %#x", type,
				    vroce_qps_str(cur), vroce_qps_str(next), b);
		KUNIT_EXPECT_EQ(test, vroce_qp_state(qp), cur);
	}
}

/* Every (current, next) pair for RC, UC and UD. */
static void transition_matrix(struct kunit *test)
{
	enum ib_qp_state cur, next;
	unsigned int t;

	for (t = 0; t < ARRAY_SIZE(types); t++)
		for (cur = 0; cur < NSTATES; cur++)
			for (next = 0; next < NSTATES; next++)
				check_transition(test, types[t], cur, next);
}

/*
 * Attributes that do not belong to a transition are refused: a UD QP has
 * no path of a peer, RC and UC have no Q_Key, RESET->INIT takes no PSN,
 * RTS->RTS may change the RNR timer but not the ACK timeout or the PSNs
 * (those change in SQD).
 */
static void foreign_attributes_refused(struct kunit *test)
{
	static const struct {
		enum ib_qp_type type;
		enum ib_qp_state cur, next;
		int mask;
		int err;
	} c[] = {
		{ IB_QPT_UD, IB_QPS_INIT, IB_QPS_RTR, IB_QP_AV, -EINVAL },
		{ IB_QPT_RC, IB_QPS_RESET, IB_QPS_INIT,
		  IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS |
		  IB_QP_QKEY, -EINVAL },
		{ IB_QPT_UC, IB_QPS_RESET, IB_QPS_INIT,
		  IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS |
		  IB_QP_SQ_PSN, -EINVAL },
		{ IB_QPT_RC, IB_QPS_RTS, IB_QPS_RTS, IB_QP_MIN_RNR_TIMER, 0 },
		{ IB_QPT_RC, IB_QPS_RTS, IB_QPS_RTS, IB_QP_TIMEOUT, -EINVAL },
		{ IB_QPT_RC, IB_QPS_RTS, IB_QPS_RTS, IB_QP_SQ_PSN, -EINVAL },
		{ IB_QPT_RC, IB_QPS_RTS, IB_QPS_RTS, IB_QP_RQ_PSN, -EINVAL },
	};
	struct ib_qp_attr a;
	struct vroce_qp *qp;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		qp = new_qp(test, c[i].type, c[i].cur);
		good_attr(&a, c[i].next);
		KUNIT_EXPECT_EQ_MSG(test, modify(qp, &a,
						 IB_QP_STATE | c[i].mask),
				    c[i].err, "case %u", i);
		KUNIT_EXPECT_EQ(test, vroce_qp_state(qp),
				c[i].err ? c[i].cur : c[i].next);
	}
}

/* ------------------------------------------------- attribute ranges */

/*
 * One attribute of an RC QP at its largest legal value and one past it,
 * on a transition that takes it (so the value is the only reason to
 * refuse).
 * The widths are IBTA's: PSNs and QPNs 24 bits, the local ACK timeout
 * and the RNR timer 5 bits, the retry counts 3 bits; one port, one P_Key.
 */
struct range_case {
	const char *name;
	enum ib_qp_state cur, next;
	int bit;
	void (*set)(struct ib_qp_attr *a, bool bad);
};

static void set_pkey(struct ib_qp_attr *a, bool bad)
{
	a->pkey_index = bad ? 1 : 0;
}

static void set_port(struct ib_qp_attr *a, bool bad)
{
	a->port_num = bad ? 2 : 1;
}

static void set_access(struct ib_qp_attr *a, bool bad)
{
	a->qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			     IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC;
	if (bad)
		a->qp_access_flags |= IB_ACCESS_MW_BIND;
}

static void set_mtu_max(struct ib_qp_attr *a, bool bad)
{
	a->path_mtu = bad ? IB_MTU_4096 + 1 : IB_MTU_4096;
}

static void set_mtu_min(struct ib_qp_attr *a, bool bad)
{
	a->path_mtu = bad ? 0 : IB_MTU_256;
}

static void set_dest_qpn(struct ib_qp_attr *a, bool bad)
{
	a->dest_qp_num = bad ? 0x1000000 : 0xffffff;
}

static void set_rq_psn(struct ib_qp_attr *a, bool bad)
{
	a->rq_psn = bad ? 0x1000000 : 0xffffff;
}

static void set_dest_rd_atomic(struct ib_qp_attr *a, bool bad)
{
	a->max_dest_rd_atomic = VROCE_MAX_QP_RD_ATOM + bad;
}

static void set_rnr_timer(struct ib_qp_attr *a, bool bad)
{
	a->min_rnr_timer = bad ? 32 : 31;
}

static void set_av_type(struct ib_qp_attr *a, bool bad)
{
	if (bad)
		a->ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
}

static void set_av_port(struct ib_qp_attr *a, bool bad)
{
	a->ah_attr.port_num = bad ? 2 : 1;
}

static void set_av_grh(struct ib_qp_attr *a, bool bad)
{
	if (bad)
		a->ah_attr.ah_flags = 0;
}

static void set_av_sgid(struct ib_qp_attr *a, bool bad)
{
	if (bad)
		a->ah_attr.grh.sgid_attr = NULL;
}

static void set_sq_psn(struct ib_qp_attr *a, bool bad)
{
	a->sq_psn = bad ? 0x1000000 : 0xffffff;
}

static void set_timeout(struct ib_qp_attr *a, bool bad)
{
	a->timeout = bad ? 32 : 31;
}

static void set_retry(struct ib_qp_attr *a, bool bad)
{
	a->retry_cnt = bad ? 8 : 7;
}

static void set_rnr_retry(struct ib_qp_attr *a, bool bad)
{
	a->rnr_retry = bad ? 8 : 7;
}

static void set_rd_atomic(struct ib_qp_attr *a, bool bad)
{
	a->max_rd_atomic = VROCE_MAX_QP_RD_ATOM + bad;
}

static const struct range_case ranges[] = {
	{ "pkey_index", IB_QPS_RESET, IB_QPS_INIT, IB_QP_PKEY_INDEX, set_pkey },
	{ "port_num", IB_QPS_RESET, IB_QPS_INIT, IB_QP_PORT, set_port },
	{ "qp_access_flags", IB_QPS_RESET, IB_QPS_INIT, IB_QP_ACCESS_FLAGS, set_access },
	{ "path_mtu max", IB_QPS_INIT, IB_QPS_RTR, IB_QP_PATH_MTU, set_mtu_max },
	{ "path_mtu min", IB_QPS_INIT, IB_QPS_RTR, IB_QP_PATH_MTU, set_mtu_min },
	{ "dest_qp_num", IB_QPS_INIT, IB_QPS_RTR, IB_QP_DEST_QPN, set_dest_qpn },
	{ "rq_psn", IB_QPS_INIT, IB_QPS_RTR, IB_QP_RQ_PSN, set_rq_psn },
	{ "max_dest_rd_atomic", IB_QPS_INIT, IB_QPS_RTR, IB_QP_MAX_DEST_RD_ATOMIC,
	  set_dest_rd_atomic },
	{ "min_rnr_timer", IB_QPS_INIT, IB_QPS_RTR, IB_QP_MIN_RNR_TIMER, set_rnr_timer },
	{ "ah type", IB_QPS_INIT, IB_QPS_RTR, IB_QP_AV, set_av_type },
	{ "ah port", IB_QPS_INIT, IB_QPS_RTR, IB_QP_AV, set_av_port },
	{ "ah without GRH", IB_QPS_INIT, IB_QPS_RTR, IB_QP_AV, set_av_grh },
	{ "ah without source GID", IB_QPS_INIT, IB_QPS_RTR, IB_QP_AV, set_av_sgid },
	{ "sq_psn", IB_QPS_RTR, IB_QPS_RTS, IB_QP_SQ_PSN, set_sq_psn },
	{ "timeout", IB_QPS_RTR, IB_QPS_RTS, IB_QP_TIMEOUT, set_timeout },
	{ "retry_cnt", IB_QPS_RTR, IB_QPS_RTS, IB_QP_RETRY_CNT, set_retry },
	{ "rnr_retry", IB_QPS_RTR, IB_QPS_RTS, IB_QP_RNR_RETRY, set_rnr_retry },
	{ "max_rd_atomic", IB_QPS_RTR, IB_QPS_RTS, IB_QP_MAX_QP_RD_ATOMIC, set_rd_atomic },
};

static void attribute_ranges(struct kunit *test)
{
	const struct range_case *c;
	struct ib_qp_attr a;
	struct vroce_qp *qp;
	unsigned int i;
	int mask;

	for (i = 0; i < ARRAY_SIZE(ranges); i++) {
		c = &ranges[i];
		mask = IB_QP_STATE | req_of(find_legal(c->cur, c->next),
					    IB_QPT_RC) | c->bit;

		qp = new_qp(test, IB_QPT_RC, c->cur);
		good_attr(&a, c->next);
		c->set(&a, false);
		KUNIT_EXPECT_EQ_MSG(test, modify(qp, &a, mask), 0,
				    "%s at its limit", c->name);
		KUNIT_EXPECT_EQ(test, vroce_qp_state(qp), c->next);

		qp = new_qp(test, IB_QPT_RC, c->cur);
		good_attr(&a, c->next);
		c->set(&a, true);
		KUNIT_EXPECT_EQ_MSG(test, modify(qp, &a, mask), -EINVAL,
				    "%s past its limit", c->name);
		KUNIT_EXPECT_EQ(test, vroce_qp_state(qp), c->cur);
		KUNIT_EXPECT_EQ(test, hooks.resp_reset + hooks.req_reset +
				hooks.kick, 0);
	}
}

/* A path MTU above the port's (its netdev's MTU) is refused. */
static void path_mtu_above_port(struct kunit *test)
{
	struct vroce_qp *qp = new_qp(test, IB_QPT_RC, IB_QPS_INIT);
	int mask = IB_QP_STATE | req_of(find_legal(IB_QPS_INIT, IB_QPS_RTR), IB_QPT_RC);
	struct ib_qp_attr a;

	qp->vdev->port_mtu = IB_MTU_1024;
	good_attr(&a, IB_QPS_RTR);
	a.path_mtu = IB_MTU_2048;
	KUNIT_EXPECT_EQ(test, modify(qp, &a, mask), -EINVAL);
	a.path_mtu = IB_MTU_1024;
	KUNIT_EXPECT_EQ(test, modify(qp, &a, mask), 0);
	KUNIT_EXPECT_EQ(test, qp->attr.path_mtu, IB_MTU_1024);
}

/*
 * No alternate path on RoCE, no attribute bit outside the standard ones,
 * and a cur_qp_state that is not the QP's state: all refused.
 */
static void odd_masks_refused(struct kunit *test)
{
	struct vroce_qp *qp = new_qp(test, IB_QPT_RC, IB_QPS_RTR);
	int mask = IB_QP_STATE | req_of(find_legal(IB_QPS_RTR, IB_QPS_RTS), IB_QPT_RC);
	struct ib_qp_attr a;

	good_attr(&a, IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, modify(qp, &a, mask | IB_QP_ALT_PATH), -EINVAL);
	KUNIT_EXPECT_EQ(test, modify(qp, &a, mask | IB_QP_RATE_LIMIT),
			-EOPNOTSUPP);
	a.cur_qp_state = IB_QPS_INIT;
	KUNIT_EXPECT_EQ(test, modify(qp, &a, mask | IB_QP_CUR_STATE), -EINVAL);
	KUNIT_EXPECT_EQ(test, vroce_qp_state(qp), IB_QPS_RTR);
	a.cur_qp_state = IB_QPS_RTR;
	KUNIT_EXPECT_EQ(test, modify(qp, &a, mask | IB_QP_CUR_STATE), 0);
	KUNIT_EXPECT_EQ(test, vroce_qp_state(qp), IB_QPS_RTS);
}

/* ------------------------------------------------ effects of a state */

/*
 * What entering each state does: INIT->RTR starts the responder at
 * rq_psn, RTR->RTS the requester at sq_psn; RTS (from anything but RTS)
 * wakes the send path; SQD, SQE and ERR run the QP (in the caller for a
 * user QP, on the workqueue for a kernel one); RESET empties everything
 * and restarts both engines at PSN 0.
 */
static void state_effects(struct kunit *test)
{
	struct vroce_qp *qp = new_qp(test, IB_QPT_RC, IB_QPS_RESET);
	struct ib_qp_attr a;

	good_attr(&a, IB_QPS_INIT);
	KUNIT_ASSERT_EQ(test, modify(qp, &a, IB_QP_STATE |
				     req_of(find_legal(IB_QPS_RESET, IB_QPS_INIT), IB_QPT_RC)), 0);
	KUNIT_EXPECT_EQ(test, hooks.resp_reset + hooks.req_reset +
			hooks.kick + hooks.run + hooks.schedule +
			hooks.wq_reset, 0);

	good_attr(&a, IB_QPS_RTR);
	KUNIT_ASSERT_EQ(test, modify(qp, &a, IB_QP_STATE |
				     req_of(find_legal(IB_QPS_INIT, IB_QPS_RTR), IB_QPT_RC)), 0);
	KUNIT_EXPECT_EQ(test, hooks.resp_reset, 1);
	KUNIT_EXPECT_EQ(test, hooks.resp_psn, (u32)RQ_PSN);
	KUNIT_EXPECT_EQ(test, hooks.req_reset + hooks.kick, 0);

	good_attr(&a, IB_QPS_RTS);
	KUNIT_ASSERT_EQ(test, modify(qp, &a, IB_QP_STATE |
				     req_of(find_legal(IB_QPS_RTR, IB_QPS_RTS), IB_QPT_RC)), 0);
	KUNIT_EXPECT_EQ(test, hooks.req_reset, 1);
	KUNIT_EXPECT_EQ(test, hooks.req_psn, (u32)SQ_PSN);
	KUNIT_EXPECT_EQ(test, hooks.kick, 1);
	KUNIT_EXPECT_EQ(test, hooks.resp_reset, 1);

	/* RTS->RTS: nothing new to send */
	a.qp_state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, modify(qp, &a, IB_QP_STATE | IB_QP_MIN_RNR_TIMER),
			0);
	KUNIT_EXPECT_EQ(test, hooks.kick, 1);

	/* RTS->SQD drains: the runner checks it, here on the workqueue */
	a.qp_state = IB_QPS_SQD;
	KUNIT_ASSERT_EQ(test, modify(qp, &a, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, hooks.schedule, 1);
	KUNIT_EXPECT_EQ(test, hooks.run, 0);
	KUNIT_EXPECT_TRUE(test, qp->sq_draining);

	/* SQD->RTS resumes the send path */
	a.qp_state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, modify(qp, &a, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, hooks.kick, 2);
	KUNIT_EXPECT_FALSE(test, qp->sq_draining);
	KUNIT_EXPECT_EQ(test, hooks.req_reset, 1);

	/* ERR flushes, in the caller's context for a user QP */
	qp->is_user = true;
	a.qp_state = IB_QPS_ERR;
	KUNIT_ASSERT_EQ(test, modify(qp, &a, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, hooks.run, 1);
	KUNIT_EXPECT_EQ(test, hooks.schedule, 1);

	/* RESET: rings emptied, both engines back to PSN 0, rates forgotten */
	a.qp_state = IB_QPS_RESET;
	KUNIT_ASSERT_EQ(test, modify(qp, &a, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, hooks.wq_reset, 1);
	KUNIT_EXPECT_EQ(test, hooks.resp_reset, 2);
	KUNIT_EXPECT_EQ(test, hooks.resp_psn, 0U);
	KUNIT_EXPECT_EQ(test, hooks.req_reset, 2);
	KUNIT_EXPECT_EQ(test, hooks.req_psn, 0U);
	KUNIT_EXPECT_EQ(test, hooks.cc_reset, 1);
	KUNIT_EXPECT_EQ(test, hooks.event, 0);
}

/*
 * SQD->SQD (changing attributes) only once the send queue has drained
 * (IBTA 10.3.1.3), which the runner records by clearing sq_draining.
 */
static void sqd_to_sqd_once_drained(struct kunit *test)
{
	struct vroce_qp *qp = new_qp(test, IB_QPT_RC, IB_QPS_RTS);
	struct ib_qp_attr a;

	good_attr(&a, IB_QPS_SQD);
	KUNIT_ASSERT_EQ(test, modify(qp, &a, IB_QP_STATE), 0);
	KUNIT_ASSERT_TRUE(test, qp->sq_draining);
	a.timeout = 20;
	KUNIT_EXPECT_EQ(test, modify(qp, &a, IB_QP_STATE | IB_QP_TIMEOUT),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, qp->attr.timeout, 0);
	qp->sq_draining = false;
	KUNIT_EXPECT_EQ(test, modify(qp, &a, IB_QP_STATE | IB_QP_TIMEOUT), 0);
	KUNIT_EXPECT_EQ(test, qp->attr.timeout, 20);
	KUNIT_EXPECT_EQ(test, vroce_qp_state(qp), IB_QPS_SQD);
}

/* ------------------------------------------------- stored attributes */

/*
 * An accepted modify stores exactly the attributes in its mask, which
 * query_qp returns (the path without its GID entry, which ib_core
 * holds); a refused one stores none of them.
 */
static void attributes_stored(struct kunit *test)
{
	struct vroce_qp *qp = new_qp(test, IB_QPT_RC, IB_QPS_INIT);
	struct ib_qp_init_attr init;
	struct ib_qp_attr a, q;
	int mask = IB_QP_STATE | req_of(find_legal(IB_QPS_INIT, IB_QPS_RTR), IB_QPT_RC);

	/* refused (no dest QPN): nothing of it stays */
	good_attr(&a, IB_QPS_RTR);
	KUNIT_ASSERT_EQ(test, modify(qp, &a, mask & ~IB_QP_DEST_QPN), -EINVAL);
	KUNIT_EXPECT_EQ(test, qp->attr.rq_psn, 0U);
	KUNIT_EXPECT_EQ(test, qp->attr.path_mtu, 0);
	KUNIT_EXPECT_EQ(test, hooks.resp_reset, 0);

	KUNIT_ASSERT_EQ(test, modify(qp, &a, mask), 0);
	KUNIT_ASSERT_EQ(test, vroce_query_qp(&qp->ibqp, &q, 0, &init), 0);
	KUNIT_EXPECT_EQ(test, q.qp_state, IB_QPS_RTR);
	KUNIT_EXPECT_EQ(test, q.cur_qp_state, IB_QPS_RTR);
	KUNIT_EXPECT_EQ(test, q.rq_psn, (u32)RQ_PSN);
	KUNIT_EXPECT_EQ(test, q.dest_qp_num, 0x22U);
	KUNIT_EXPECT_EQ(test, q.path_mtu, IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, q.max_dest_rd_atomic, 1);
	KUNIT_EXPECT_EQ(test, q.min_rnr_timer, 12);
	KUNIT_EXPECT_EQ(test, q.ah_attr.grh.sgid_index, 1);
	KUNIT_EXPECT_PTR_EQ(test, q.ah_attr.grh.sgid_attr,
			    (const struct ib_gid_attr *)NULL);
	/* not in the mask: not stored */
	KUNIT_EXPECT_EQ(test, q.sq_psn, 0U);
	KUNIT_EXPECT_EQ(test, q.timeout, 0);
	KUNIT_EXPECT_EQ(test, q.qkey, 0U);
	KUNIT_EXPECT_FALSE(test, q.sq_draining);
	KUNIT_EXPECT_EQ(test, init.qp_type, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, init.port_num, 1);
}

/* ---------------------------------------------- errors of the data path */

/*
 * vroce_qp_set_error() moves any state but RESET and ERR to ERR (and
 * ends a drain); vroce_qp_error() also raises IB_EVENT_QP_FATAL and
 * schedules the flush, once.
 */
static void data_path_errors(struct kunit *test)
{
	static const enum ib_qp_state moves[] = {
		IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS, IB_QPS_SQD, IB_QPS_SQE,
	};
	struct vroce_qp *qp;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(moves); i++) {
		qp = new_qp(test, IB_QPT_RC, moves[i]);
		qp->sq_draining = moves[i] == IB_QPS_SQD;
		KUNIT_EXPECT_TRUE_MSG(test, vroce_qp_set_error(qp), "from %s",
				      vroce_qps_str(moves[i]));
		KUNIT_EXPECT_EQ(test, vroce_qp_state(qp), IB_QPS_ERR);
		KUNIT_EXPECT_FALSE(test, qp->sq_draining);
		KUNIT_EXPECT_EQ(test, qp->attr.qp_state, IB_QPS_ERR);
	}
	qp = new_qp(test, IB_QPT_RC, IB_QPS_RESET);
	KUNIT_EXPECT_FALSE(test, vroce_qp_set_error(qp));
	KUNIT_EXPECT_EQ(test, vroce_qp_state(qp), IB_QPS_RESET);
	qp = new_qp(test, IB_QPT_RC, IB_QPS_ERR);
	KUNIT_EXPECT_FALSE(test, vroce_qp_set_error(qp));

	qp = new_qp(test, IB_QPT_RC, IB_QPS_RTS);
	vroce_qp_error(qp);
	vroce_qp_error(qp);
	KUNIT_EXPECT_EQ(test, vroce_qp_state(qp), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, hooks.event, 1);
	KUNIT_EXPECT_EQ(test, hooks.last_event, IB_EVENT_QP_FATAL);
	KUNIT_EXPECT_EQ(test, hooks.schedule, 1);
	qp = new_qp(test, IB_QPT_RC, IB_QPS_RESET);
	vroce_qp_error(qp);
	KUNIT_EXPECT_EQ(test, hooks.event + hooks.schedule, 0);
}

static struct kunit_case vroce_qp_state_cases[] = {
	KUNIT_CASE(transition_matrix),
	KUNIT_CASE(foreign_attributes_refused),
	KUNIT_CASE(attribute_ranges),
	KUNIT_CASE(path_mtu_above_port),
	KUNIT_CASE(odd_masks_refused),
	KUNIT_CASE(state_effects),
	KUNIT_CASE(sqd_to_sqd_once_drained),
	KUNIT_CASE(attributes_stored),
	KUNIT_CASE(data_path_errors),
	{}
};

static struct kunit_suite vroce_qp_state_suite = {
	.name = "vroce_qp_state",
	.test_cases = vroce_qp_state_cases,
};

kunit_test_suites(&vroce_qp_state_suite);
