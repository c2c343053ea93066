// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the QP state transition table vroce enforces.  qp_state.c does
 * not keep a table of its own: it asks ib_core's ib_modify_qp_is_ok() for
 * each modify_qp.  These cases pin down what that answers for the three
 * QP types vroce implements, written out here from IBTA 10.3 / 11.2.4
 * (the legal transitions and the attributes each one requires), so a
 * kernel whose table disagrees fails here rather than in a verbs program.
 */
#include <kunit/test.h>
#include <rdma/ib_verbs.h>

#define NSTATES		(IB_QPS_ERR + 1)

/* The attributes a transition must carry, beside IB_QP_STATE. */
struct qp_req {
	enum ib_qp_state cur, next;
	enum ib_qp_attr_mask rc, uc, ud;
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

static enum ib_qp_attr_mask req_of(const struct qp_req *r, int type)
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

/* One (type, current, next) triple against the table above. */
static void check_transition(struct kunit *test, enum ib_qp_type type,
			     enum ib_qp_state cur, enum ib_qp_state next)
{
	const struct qp_req *r = find_legal(cur, next);
	int req = IB_QP_STATE, bit, b;
	bool ok;

	if (next == IB_QPS_RESET || (next == IB_QPS_ERR && cur != IB_QPS_RESET)) {
		ok = ib_modify_qp_is_ok(cur, next, type, req);
		KUNIT_EXPECT_TRUE_MSG(test, ok, "type %d %d->%d", type, cur,
				      next);
		return;
	}
	if (!r) {
		ok = ib_modify_qp_is_ok(cur, next, type, req);
		KUNIT_EXPECT_FALSE_MSG(test, ok, "type %d %d->%d", type, cur,
				       next);
		return;
	}
	req |= req_of(r, type);
	ok = ib_modify_qp_is_ok(cur, next, type, req);
	KUNIT_EXPECT_TRUE_MSG(test, ok, "type %d %d->%d", type, cur, next);
	for (bit = 0; bit < 31; bit++) {
		b = 1 << bit;
		if (b == IB_QP_STATE || !(req & b))
			continue;
		ok = ib_modify_qp_is_ok(cur, next, type, req & ~b);
		KUNIT_EXPECT_FALSE_MSG(test, ok, "type %d %d->%d without %#x",
				       type, cur, next, b);
	}
}

/*
 * Every (current, next) pair for every type: legal ones pass with exactly
 * their required attributes and fail with any one of them missing; the
 * others fail whatever the mask.  Any state may go to RESET, and any
 * but RESET to ERR (ib_core's table has no RESET->ERR: a QP that never
 * left RESET has nothing to flush).
 */
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
 * no path or PSN of the peer, RC and UC have no Q_Key, RESET->INIT takes
 * no PSN.
 */
static void foreign_attributes_refused(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_INIT, IB_QPS_RTR,
						    IB_QPT_UD,
						    IB_QP_STATE | IB_QP_AV));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RESET, IB_QPS_INIT,
						    IB_QPT_RC,
						    IB_QP_STATE |
						    IB_QP_PKEY_INDEX |
						    IB_QP_PORT |
						    IB_QP_ACCESS_FLAGS |
						    IB_QP_QKEY));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RESET, IB_QPS_INIT,
						    IB_QPT_UC,
						    IB_QP_STATE |
						    IB_QP_PKEY_INDEX |
						    IB_QP_PORT |
						    IB_QP_ACCESS_FLAGS |
						    IB_QP_SQ_PSN));
	/* RTS->RTS may change the timers but not the PSNs */
	KUNIT_EXPECT_TRUE(test, ib_modify_qp_is_ok(IB_QPS_RTS, IB_QPS_RTS,
						   IB_QPT_RC,
						   IB_QP_STATE |
						   IB_QP_MIN_RNR_TIMER));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RTS, IB_QPS_RTS,
						    IB_QPT_RC,
						    IB_QP_STATE |
						    IB_QP_SQ_PSN));
}

static struct kunit_case vroce_qp_state_cases[] = {
	KUNIT_CASE(transition_matrix),
	KUNIT_CASE(foreign_attributes_refused),
	{}
};

static struct kunit_suite vroce_qp_state_suite = {
	.name = "vroce_qp_state",
	.test_cases = vroce_qp_state_cases,
};

kunit_test_suites(&vroce_qp_state_suite);
