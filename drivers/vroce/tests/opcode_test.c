// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the BTH opcode table (opcode.c) against the IBTA layout of each
 * opcode written out here as numbers, invariants of its flags, and a
 * header encode/decode round trip for every valid opcode through the
 * driver's offsets and accessors.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "hdr.h"
#include "opcode.h"

#define EXT(e)		VROCE_F_EXT(VROCE_EXT_##e)
#define POS_MASK	(VROCE_F_FIRST | VROCE_F_MIDDLE | VROCE_F_LAST)

static unsigned int op_of(unsigned int opcode)
{
	return opcode & 0x1f;
}

/* Invalid opcodes: no header length, no extension headers. */
static void invalid_opcodes_empty(struct kunit *test)
{
	unsigned int opc, e, n = 0;

	for (opc = 0; opc < 256; opc++) {
		if (vroce_opcode_valid(opc))
			continue;
		n++;
		KUNIT_EXPECT_EQ_MSG(test, vroce_opcode_hdr_len(opc), 0U,
				    "opcode %#x", opc);
		KUNIT_EXPECT_EQ_MSG(test, vroce_opcodes[opc].flags, 0U,
				    "opcode %#x", opc);
		for (e = 0; e < VROCE_EXT_COUNT; e++)
			KUNIT_EXPECT_EQ(test, vroce_opcode_ext_offset(opc, e),
					-1);
	}
	/* 25 RC, 12 UC, 2 UD opcodes and the CNP. */
	KUNIT_EXPECT_EQ(test, n, 256U - 25 - 12 - 2 - 1);
}

/*
 * The IBTA layout of every opcode vroce speaks, written out as numbers
 * (vol. 1 9.2-9.4 and table 38, the 1.5 memory placement extensions for
 * FLUSH and ATOMIC WRITE, RoCEv2 annex A17 for the CNP), independent of
 * opcode.c: the header length from the BTH to the payload, where each
 * extension header starts, whether a payload follows, the packet's place
 * in its message and its direction.  rdma_rxe's rxe_opcode.c gives the
 * same lengths and offsets.
 */
enum { PF = 1, PM, PL, PO };	/* first, middle, last, only */
enum { DRQ = 1, DRS };		/* requester -> responder, or back */

struct ibta_ext {
	u8 ext;		/* enum vroce_ext */
	u8 off;		/* from the BTH; 0: unused entry */
};

struct ibta_op {
	u8 opc;
	u8 len;
	bool payload;
	u8 pos, dir;
	struct ibta_ext e[2];
};

#define E(x, o)		{ VROCE_EXT_##x, o }

static const struct ibta_op ibta_ops[] = {
	/* RC */
	{ 0x00, 12, true, PF, DRQ },			/* SEND_FIRST */
	{ 0x01, 12, true, PM, DRQ },			/* SEND_MIDDLE */
	{ 0x02, 12, true, PL, DRQ },			/* SEND_LAST */
	{ 0x03, 16, true, PL, DRQ, { E(IMMDT, 12) } },	/* SEND_LAST_IMM */
	{ 0x04, 12, true, PO, DRQ },			/* SEND_ONLY */
	{ 0x05, 16, true, PO, DRQ, { E(IMMDT, 12) } },	/* SEND_ONLY_IMM */
	{ 0x06, 28, true, PF, DRQ, { E(RETH, 12) } },	/* WRITE_FIRST */
	{ 0x07, 12, true, PM, DRQ },			/* WRITE_MIDDLE */
	{ 0x08, 12, true, PL, DRQ },			/* WRITE_LAST */
	{ 0x09, 16, true, PL, DRQ, { E(IMMDT, 12) } },	/* WRITE_LAST_IMM */
	{ 0x0a, 28, true, PO, DRQ, { E(RETH, 12) } },	/* WRITE_ONLY */
	{ 0x0b, 32, true, PO, DRQ, { E(RETH, 12), E(IMMDT, 28) } },
	{ 0x0c, 28, false, PO, DRQ, { E(RETH, 12) } },	/* READ_REQUEST */
	{ 0x0d, 16, true, PF, DRS, { E(AETH, 12) } },	/* READ_RESP_FIRST */
	{ 0x0e, 12, true, PM, DRS },			/* READ_RESP_MIDDLE */
	{ 0x0f, 16, true, PL, DRS, { E(AETH, 12) } },	/* READ_RESP_LAST */
	{ 0x10, 16, true, PO, DRS, { E(AETH, 12) } },	/* READ_RESP_ONLY */
	{ 0x11, 16, false, PO, DRS, { E(AETH, 12) } },	/* ACKNOWLEDGE */
	{ 0x12, 24, false, PO, DRS, { E(AETH, 12), E(ATMACK, 16) } },
	{ 0x13, 40, false, PO, DRQ, { E(ATMETH, 12) } },	/* COMPARE_SWAP */
	{ 0x14, 40, false, PO, DRQ, { E(ATMETH, 12) } },	/* FETCH_ADD */
	{ 0x16, 16, true, PL, DRQ, { E(IETH, 12) } },	/* SEND_LAST_INV */
	{ 0x17, 16, true, PO, DRQ, { E(IETH, 12) } },	/* SEND_ONLY_INV */
	{ 0x1c, 32, false, PO, DRQ, { E(FETH, 12), E(RETH, 16) } }, /* FLUSH */
	{ 0x1d, 28, true, PO, DRQ, { E(RETH, 12) } },	/* ATOMIC_WRITE */
	/* UC */
	{ 0x20, 12, true, PF, DRQ },
	{ 0x21, 12, true, PM, DRQ },
	{ 0x22, 12, true, PL, DRQ },
	{ 0x23, 16, true, PL, DRQ, { E(IMMDT, 12) } },
	{ 0x24, 12, true, PO, DRQ },
	{ 0x25, 16, true, PO, DRQ, { E(IMMDT, 12) } },
	{ 0x26, 28, true, PF, DRQ, { E(RETH, 12) } },
	{ 0x27, 12, true, PM, DRQ },
	{ 0x28, 12, true, PL, DRQ },
	{ 0x29, 16, true, PL, DRQ, { E(IMMDT, 12) } },
	{ 0x2a, 28, true, PO, DRQ, { E(RETH, 12) } },
	{ 0x2b, 32, true, PO, DRQ, { E(RETH, 12), E(IMMDT, 28) } },
	/* UD */
	{ 0x64, 20, true, PO, DRQ, { E(DETH, 12) } },	/* SEND_ONLY */
	{ 0x65, 24, true, PO, DRQ, { E(DETH, 12), E(IMMDT, 20) } },
	/* CNP: the BTH and 16 reserved bytes */
	{ 0x81, 28, false, 0, 0 },
};

/* Extension header lengths, IBTA vol. 1 9.3-9.4 and the 1.5 FETH. */
static void ext_lengths_ibta(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct vroce_bth), 12);
	KUNIT_EXPECT_EQ(test, vroce_ext_len[VROCE_EXT_DETH], 8);
	KUNIT_EXPECT_EQ(test, vroce_ext_len[VROCE_EXT_FETH], 4);
	KUNIT_EXPECT_EQ(test, vroce_ext_len[VROCE_EXT_RETH], 16);
	KUNIT_EXPECT_EQ(test, vroce_ext_len[VROCE_EXT_ATMETH], 28);
	KUNIT_EXPECT_EQ(test, vroce_ext_len[VROCE_EXT_AETH], 4);
	KUNIT_EXPECT_EQ(test, vroce_ext_len[VROCE_EXT_ATMACK], 8);
	KUNIT_EXPECT_EQ(test, vroce_ext_len[VROCE_EXT_IMMDT], 4);
	KUNIT_EXPECT_EQ(test, vroce_ext_len[VROCE_EXT_IETH], 4);
}

static const struct ibta_op *ibta_find(unsigned int opc)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ibta_ops); i++)
		if (ibta_ops[i].opc == opc)
			return &ibta_ops[i];
	return NULL;
}

static int ibta_ext_off(const struct ibta_op *t, unsigned int ext)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t->e); i++)
		if (t->e[i].off && t->e[i].ext == ext)
			return t->e[i].off;
	return -1;
}

/*
 * All 256 opcodes against the table above: the listed ones are valid with
 * its header length, extension offsets, payload, position and direction;
 * every other opcode is invalid (no length, no extension header).
 */
static void layout_matches_ibta(struct kunit *test)
{
	static const u32 pos_flag[] = {
		[PF] = VROCE_F_FIRST, [PM] = VROCE_F_MIDDLE,
		[PL] = VROCE_F_LAST, [PO] = VROCE_F_ONLY,
	};
	unsigned int opc, e, nvalid = 0;

	for (opc = 0; opc < 256; opc++) {
		const struct ibta_op *t = ibta_find(opc);
		u32 f = vroce_opcodes[opc].flags;

		if (!t) {
			KUNIT_EXPECT_FALSE_MSG(test, vroce_opcode_valid(opc),
					       "opcode %#x is not IBTA's", opc);
			KUNIT_EXPECT_EQ_MSG(test, vroce_opcode_hdr_len(opc), 0U,
					    "opcode %#x", opc);
			for (e = 0; e < VROCE_EXT_COUNT; e++)
				KUNIT_EXPECT_EQ_MSG(test,
						    vroce_opcode_ext_offset(opc, e),
						    -1, "opcode %#x ext %u",
						    opc, e);
			continue;
		}
		nvalid++;
		KUNIT_EXPECT_TRUE_MSG(test, vroce_opcode_valid(opc),
				      "opcode %#x", opc);
		KUNIT_EXPECT_EQ_MSG(test, vroce_opcode_hdr_len(opc),
				    (unsigned int)t->len, "opcode %#x", opc);
		for (e = 0; e < VROCE_EXT_COUNT; e++)
			KUNIT_EXPECT_EQ_MSG(test, vroce_opcode_ext_offset(opc, e),
					    ibta_ext_off(t, e),
					    "opcode %#x ext %u", opc, e);
		KUNIT_EXPECT_EQ_MSG(test, !!(f & VROCE_F_PAYLOAD), t->payload,
				    "opcode %#x payload", opc);
		if (!t->pos) {
			KUNIT_EXPECT_TRUE(test, f & VROCE_F_CNP);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, f & POS_MASK, pos_flag[t->pos],
				    "opcode %#x position", opc);
		KUNIT_EXPECT_EQ_MSG(test, !!(f & VROCE_F_REQ), t->dir == DRQ,
				    "opcode %#x direction", opc);
		KUNIT_EXPECT_EQ_MSG(test, !!(f & VROCE_F_RESP), t->dir == DRS,
				    "opcode %#x direction", opc);
	}
	/* 25 RC, 12 UC, 2 UD opcodes and the CNP */
	KUNIT_EXPECT_EQ(test, nvalid, 40U);
}

/* Each packet is FIRST, MIDDLE, LAST or ONLY (= FIRST | LAST). */
static void position_flags_consistent(struct kunit *test)
{
	unsigned int opc;

	for (opc = 0; opc < 256; opc++) {
		u32 f = vroce_opcodes[opc].flags;
		u32 pos = f & POS_MASK;
		const char *name = vroce_opcodes[opc].name;

		if (!(f & VROCE_F_VALID) || (f & VROCE_F_CNP))
			continue;
		KUNIT_EXPECT_TRUE_MSG(test, pos == VROCE_F_FIRST ||
				      pos == VROCE_F_MIDDLE ||
				      pos == VROCE_F_LAST ||
				      pos == VROCE_F_ONLY, "%s", name);
		/* Exactly one direction. */
		KUNIT_EXPECT_TRUE_MSG(test, !(f & VROCE_F_REQ) !=
				      !(f & VROCE_F_RESP), "%s", name);
		/* A message completes at the responder on its last packet. */
		if (f & VROCE_F_COMP)
			KUNIT_EXPECT_TRUE_MSG(test, (f & VROCE_F_LAST) &&
					      (f & VROCE_F_REQ), "%s", name);
		/* Middle packets carry payload and nothing but the BTH. */
		if (pos == VROCE_F_MIDDLE) {
			KUNIT_EXPECT_TRUE(test, f & VROCE_F_PAYLOAD);
			KUNIT_EXPECT_EQ(test, vroce_opcode_hdr_len(opc),
					sizeof(struct vroce_bth));
		}
		/* Sends and writes with immediate complete a message. */
		if ((f & VROCE_F_IMM) || (f & VROCE_F_INV))
			KUNIT_EXPECT_TRUE(test, f & VROCE_F_COMP);
	}
}

/* Which extension headers go with which operations (IBTA table 38). */
static void extensions_match_operations(struct kunit *test)
{
	unsigned int opc;

	for (opc = 0; opc < 256; opc++) {
		u32 f = vroce_opcodes[opc].flags;
		const char *name = vroce_opcodes[opc].name;
		unsigned int op = op_of(opc);
		bool reth;

		if (!(f & VROCE_F_VALID) || (f & VROCE_F_CNP))
			continue;
		KUNIT_EXPECT_EQ_MSG(test, !!(f & VROCE_F_IMM), !!(f & EXT(IMMDT)),
				    "%s", name);
		KUNIT_EXPECT_EQ_MSG(test, !!(f & VROCE_F_INV), !!(f & EXT(IETH)),
				    "%s", name);
		KUNIT_EXPECT_EQ_MSG(test, !!(f & VROCE_F_FLUSH),
				    !!(f & EXT(FETH)), "%s", name);
		KUNIT_EXPECT_EQ_MSG(test, (opc & 0xe0) == VROCE_OP_UD,
				    !!(f & EXT(DETH)), "%s", name);
		KUNIT_EXPECT_EQ_MSG(test, op == VROCE_CMP_SWAP ||
				    op == VROCE_FETCH_ADD, !!(f & EXT(ATMETH)),
				    "%s", name);
		KUNIT_EXPECT_EQ_MSG(test, op == VROCE_ATOMIC_ACK,
				    !!(f & EXT(ATMACK)), "%s", name);
		/* AETH: every response but the middle of a read response. */
		KUNIT_EXPECT_EQ_MSG(test, (f & VROCE_F_RESP) &&
				    op != VROCE_READ_RESP_MIDDLE,
				    !!(f & EXT(AETH)), "%s", name);
		/* RETH: first packet of a write, read, flush, atomic write. */
		reth = ((f & VROCE_F_WRITE) && (f & VROCE_F_FIRST)) ||
		       op == VROCE_READ_REQUEST || op == VROCE_FLUSH ||
		       op == VROCE_ATOMIC_WRITE;
		KUNIT_EXPECT_EQ_MSG(test, reth, !!(f & EXT(RETH)), "%s", name);
		/* A read request carries no payload, atomics neither. */
		if (op == VROCE_READ_REQUEST || op == VROCE_CMP_SWAP ||
		    op == VROCE_FETCH_ADD || op == VROCE_ACK ||
		    op == VROCE_ATOMIC_ACK || op == VROCE_FLUSH)
			KUNIT_EXPECT_FALSE_MSG(test, f & VROCE_F_PAYLOAD,
					       "%s", name);
	}
}

/* UC: sends and writes only; UD: SEND_ONLY with and without immediate. */
static void transports_restricted(struct kunit *test)
{
	unsigned int opc;

	for (opc = 0; opc < 256; opc++) {
		u32 f = vroce_opcodes[opc].flags;
		u8 tr = opc & 0xe0;

		if (!(f & VROCE_F_VALID))
			continue;
		if (opc == VROCE_OP_CNP) {
			KUNIT_EXPECT_EQ(test, f, (u32)(VROCE_F_VALID |
						       VROCE_F_CNP));
			continue;
		}
		KUNIT_EXPECT_TRUE_MSG(test, tr == VROCE_OP_RC ||
				      tr == VROCE_OP_UC || tr == VROCE_OP_UD,
				      "opcode %#x", opc);
		if (tr == VROCE_OP_UC)
			KUNIT_EXPECT_TRUE_MSG(test, f & (VROCE_F_SEND |
							 VROCE_F_WRITE),
					      "opcode %#x", opc);
		if (tr == VROCE_OP_UD)
			KUNIT_EXPECT_TRUE(test, op_of(opc) == VROCE_SEND_ONLY ||
					  op_of(opc) == VROCE_SEND_ONLY_IMM);
		/* The same operation has the same properties on RC and UC. */
		if (tr == VROCE_OP_UC)
			KUNIT_EXPECT_EQ_MSG(test, f,
					    vroce_opcodes[op_of(opc)].flags,
					    "opcode %#x", opc);
	}
}

/* ------------------------------------------------ encode/decode round trip */

static const void *valid_opcode_gen(const void *prev, char *desc)
{
	const struct vroce_opcode_info *p = prev;
	unsigned int opc = p ? p - vroce_opcodes + 1 : 0;

	for (; opc < 256; opc++) {
		if (vroce_opcodes[opc].flags & VROCE_F_VALID) {
			strscpy(desc, vroce_opcodes[opc].name,
				KUNIT_PARAM_DESC_SIZE);
			return &vroce_opcodes[opc];
		}
	}
	return NULL;
}

/* Distinct per-field values, derived from the opcode. */
#define RT_VA(o)	(0x0123456789abcdefULL ^ (o))
#define RT_RKEY(o)	(0xfeed0000U | (o))
#define RT_LEN(o)	(0x00100000U + (o))

/*
 * Build a BTH and every extension header of the opcode into a buffer of
 * exactly the header length (KASAN sees any write past it), then read all
 * fields back through the table's offsets: any overlap between two
 * headers, or a wrong offset, changes a value.
 */
static void hdr_round_trip(struct kunit *test)
{
	const struct vroce_opcode_info *info = test->param_value;
	u8 opc = info - vroce_opcodes;
	unsigned int len = vroce_opcode_hdr_len(opc);
	u32 psn = 0xfffff0 + (opc & 0xf), qpn = 0x800000 | opc;
	struct vroce_bth *bth;
	int off;
	u8 *buf;

	KUNIT_ASSERT_GE(test, len, sizeof(*bth));
	buf = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	bth = (struct vroce_bth *)buf;

	vroce_bth_set(bth, opc, opc & 1, opc & 3, 0xffff, qpn, opc & 2, psn);
	off = vroce_opcode_ext_offset(opc, VROCE_EXT_DETH);
	if (off >= 0) {
		struct vroce_deth *d = (void *)(buf + off);

		d->qkey = cpu_to_be32(0x80010000 | opc);
		d->sqp = cpu_to_be32(0x00abcd00 | opc);
	}
	off = vroce_opcode_ext_offset(opc, VROCE_EXT_FETH);
	if (off >= 0)
		((struct vroce_feth *)(buf + off))->bits = cpu_to_be32(0x11);
	off = vroce_opcode_ext_offset(opc, VROCE_EXT_RETH);
	if (off >= 0) {
		struct vroce_reth *r = (void *)(buf + off);

		r->va = cpu_to_be64(RT_VA(opc));
		r->rkey = cpu_to_be32(RT_RKEY(opc));
		r->len = cpu_to_be32(RT_LEN(opc));
	}
	off = vroce_opcode_ext_offset(opc, VROCE_EXT_ATMETH);
	if (off >= 0) {
		struct vroce_atmeth *a = (void *)(buf + off);

		a->va = cpu_to_be64(RT_VA(opc));
		a->rkey = cpu_to_be32(RT_RKEY(opc));
		a->swap_add = cpu_to_be64(0x1111222233334444ULL);
		a->comp = cpu_to_be64(0x5555666677778888ULL);
	}
	off = vroce_opcode_ext_offset(opc, VROCE_EXT_AETH);
	if (off >= 0)
		vroce_aeth_set((void *)(buf + off), VROCE_NAK_REM_ACCESS,
			       0xfffffe);
	off = vroce_opcode_ext_offset(opc, VROCE_EXT_ATMACK);
	if (off >= 0)
		((struct vroce_atmack *)(buf + off))->orig =
			cpu_to_be64(0x99aabbccddeeff00ULL);
	off = vroce_opcode_ext_offset(opc, VROCE_EXT_IMMDT);
	if (off >= 0)
		((struct vroce_immdt *)(buf + off))->imm =
			cpu_to_be32(0xc0de0000 | opc);
	off = vroce_opcode_ext_offset(opc, VROCE_EXT_IETH);
	if (off >= 0)
		((struct vroce_ieth *)(buf + off))->rkey =
			cpu_to_be32(0x1e7f0000 | opc);

	/* Decode. */
	KUNIT_EXPECT_EQ(test, bth->opcode, opc);
	KUNIT_EXPECT_EQ(test, vroce_bth_psn(bth), psn);
	KUNIT_EXPECT_EQ(test, vroce_bth_qpn(bth), qpn);
	KUNIT_EXPECT_EQ(test, vroce_bth_pad(bth), opc & 3U);
	KUNIT_EXPECT_EQ(test, vroce_bth_se(bth), !!(opc & 1));
	KUNIT_EXPECT_EQ(test, vroce_bth_ackreq(bth), !!(opc & 2));
	KUNIT_EXPECT_EQ(test, be16_to_cpu(bth->pkey), 0xffff);
	KUNIT_EXPECT_EQ(test, vroce_bth_tver(bth), VROCE_BTH_TVER);

	off = vroce_opcode_ext_offset(opc, VROCE_EXT_DETH);
	if (off >= 0) {
		struct vroce_deth *d = (void *)(buf + off);

		KUNIT_EXPECT_EQ(test, be32_to_cpu(d->qkey), 0x80010000U | opc);
		KUNIT_EXPECT_EQ(test, vroce_deth_sqp(d), 0x00abcd00U | opc);
	}
	off = vroce_opcode_ext_offset(opc, VROCE_EXT_FETH);
	if (off >= 0)
		KUNIT_EXPECT_EQ(test,
				be32_to_cpu(((struct vroce_feth *)(buf + off))->bits),
				0x11U);
	off = vroce_opcode_ext_offset(opc, VROCE_EXT_RETH);
	if (off >= 0) {
		struct vroce_reth *r = (void *)(buf + off);

		KUNIT_EXPECT_EQ(test, be64_to_cpu(r->va), RT_VA(opc));
		KUNIT_EXPECT_EQ(test, be32_to_cpu(r->rkey),
				RT_RKEY(opc));
		KUNIT_EXPECT_EQ(test, be32_to_cpu(r->len),
				RT_LEN(opc));
	}
	off = vroce_opcode_ext_offset(opc, VROCE_EXT_ATMETH);
	if (off >= 0) {
		struct vroce_atmeth *a = (void *)(buf + off);

		KUNIT_EXPECT_EQ(test, be64_to_cpu(a->va), RT_VA(opc));
		KUNIT_EXPECT_EQ(test, be32_to_cpu(a->rkey),
				RT_RKEY(opc));
		KUNIT_EXPECT_EQ(test, be64_to_cpu(a->swap_add),
				0x1111222233334444ULL);
		KUNIT_EXPECT_EQ(test, be64_to_cpu(a->comp),
				0x5555666677778888ULL);
	}
	off = vroce_opcode_ext_offset(opc, VROCE_EXT_AETH);
	if (off >= 0) {
		struct vroce_aeth *a = (void *)(buf + off);

		KUNIT_EXPECT_EQ(test, vroce_aeth_syndrome(a),
				VROCE_NAK_REM_ACCESS);
		KUNIT_EXPECT_EQ(test, vroce_aeth_msn(a), 0xfffffeU);
	}
	off = vroce_opcode_ext_offset(opc, VROCE_EXT_ATMACK);
	if (off >= 0)
		KUNIT_EXPECT_EQ(test,
				be64_to_cpu(((struct vroce_atmack *)
						     (buf + off))->orig),
				0x99aabbccddeeff00ULL);
	off = vroce_opcode_ext_offset(opc, VROCE_EXT_IMMDT);
	if (off >= 0)
		KUNIT_EXPECT_EQ(test,
				be32_to_cpu(((struct vroce_immdt *)
					     (buf + off))->imm),
				0xc0de0000U | opc);
	off = vroce_opcode_ext_offset(opc, VROCE_EXT_IETH);
	if (off >= 0)
		KUNIT_EXPECT_EQ(test,
				be32_to_cpu(((struct vroce_ieth *)
					     (buf + off))->rkey),
				0x1e7f0000U | opc);
}

static struct kunit_case vroce_opcode_cases[] = {
	KUNIT_CASE(invalid_opcodes_empty),
	KUNIT_CASE(ext_lengths_ibta),
	KUNIT_CASE(layout_matches_ibta),
	KUNIT_CASE(position_flags_consistent),
	KUNIT_CASE(extensions_match_operations),
	KUNIT_CASE(transports_restricted),
	KUNIT_CASE_PARAM(hdr_round_trip, valid_opcode_gen),
	{}
};

static struct kunit_suite vroce_opcode_suite = {
	.name = "vroce_opcode",
	.test_cases = vroce_opcode_cases,
};

kunit_test_suites(&vroce_opcode_suite);
