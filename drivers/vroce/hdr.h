/* SPDX-License-Identifier: GPL-2.0 */
/*
 * InfiniBand transport headers as they appear on the wire (IBTA vol. 1,
 * chapter 9, and annex A17 for RoCEv2).  All multi-byte fields are
 * big-endian; bit fields are reached through the accessors below, so no
 * other file does byte-order or masking work on headers.  Pure code: no
 * ib_core types, so KUnit can test it directly.
 */
#ifndef VROCE_HDR_H
#define VROCE_HDR_H

#include <linux/build_bug.h>
#include <linux/types.h>
#include <asm/byteorder.h>

#define VROCE_PSN_MASK		0x00ffffffU
#define VROCE_QPN_MASK		0x00ffffffU
#define VROCE_ICRC_SIZE		4
#define VROCE_BTH_TVER		0

/**
 * struct vroce_bth - base transport header, 12 bytes
 * @opcode: transport (bits 7..5) and operation (bits 4..0)
 * @flags: solicited event (7), migration (6), pad count (5..4), tver (3..0)
 * @pkey: partition key
 * @qpn: reserved byte ("resv8a", masked in the ICRC) and destination QP
 * @apsn: AckReq (bit 31), reserved (30..24), PSN (23..0)
 */
struct vroce_bth {
	u8 opcode;
	u8 flags;
	__be16 pkey;
	__be32 qpn;
	__be32 apsn;
};

#define VROCE_BTH_SE		0x80
#define VROCE_BTH_MIG		0x40
#define VROCE_BTH_PAD_SHIFT	4
#define VROCE_BTH_PAD_MASK	0x30
#define VROCE_BTH_TVER_MASK	0x0f
#define VROCE_BTH_ACKREQ	0x80000000U
/* in the QPN word: explicit congestion notification bits */
#define VROCE_BTH_FECN		0x80000000U
#define VROCE_BTH_BECN		0x40000000U

/** struct vroce_reth - RDMA extended transport header, 16 bytes */
struct vroce_reth {
	__be64 va;
	__be32 rkey;
	__be32 len;
} __packed;

/** struct vroce_aeth - ACK extended transport header: syndrome, MSN */
struct vroce_aeth {
	__be32 smsn;
};

#define VROCE_AETH_SYN_SHIFT	24
#define VROCE_AETH_MSN_MASK	0x00ffffffU
/* Syndrome: bits 6..5 say ACK / RNR NAK / NAK, bits 4..0 the detail. */
#define VROCE_AETH_TYPE_MASK	0x60
#define VROCE_AETH_ACK		0x00
#define VROCE_AETH_RNR_NAK	0x20
#define VROCE_AETH_NAK		0x60
#define VROCE_AETH_CREDIT_MASK	0x1f
#define VROCE_NAK_PSN_SEQ_ERR	0x60
#define VROCE_NAK_INVALID_REQ	0x61
#define VROCE_NAK_REM_ACCESS	0x62
#define VROCE_NAK_REM_OP_ERR	0x63
#define VROCE_NAK_INVALID_RD_REQ 0x64

/** struct vroce_atmeth - atomic extended transport header, 28 bytes */
struct vroce_atmeth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;
	__be64 comp;
} __packed;

/** struct vroce_atmack - atomic ACK extended transport header */
struct vroce_atmack {
	__be64 orig;
} __packed;

/** struct vroce_deth - datagram extended transport header */
struct vroce_deth {
	__be32 qkey;
	__be32 sqp;
};

/** struct vroce_immdt - immediate data */
struct vroce_immdt {
	__be32 imm;
};

/** struct vroce_ieth - invalidate extended transport header */
struct vroce_ieth {
	__be32 rkey;
};

/** struct vroce_feth - FLUSH extended transport header: type and level */
struct vroce_feth {
	__be32 bits;
};

/* FETH: placement type (bits 3..0), selectivity level (bits 5..4). */
#define VROCE_FETH_PLT_MASK	0x0f
#define VROCE_FETH_SEL_SHIFT	4
#define VROCE_FETH_SEL_MASK	0x30
/* Placement types (bits), selectivity levels (IBTA 1.5 A19). */
#define VROCE_FETH_PLT_GLOBAL	0x1
#define VROCE_FETH_PLT_PERSIST	0x2
#define VROCE_FETH_SEL_RANGE	0
#define VROCE_FETH_SEL_MR	1

static_assert(sizeof(struct vroce_bth) == 12);
static_assert(sizeof(struct vroce_reth) == 16);
static_assert(sizeof(struct vroce_aeth) == 4);
static_assert(sizeof(struct vroce_atmeth) == 28);
static_assert(sizeof(struct vroce_atmack) == 8);
static_assert(sizeof(struct vroce_deth) == 8);
static_assert(sizeof(struct vroce_immdt) == 4);
static_assert(sizeof(struct vroce_ieth) == 4);
static_assert(sizeof(struct vroce_feth) == 4);

/* BTH accessors */
static inline u32 vroce_bth_psn(const struct vroce_bth *bth)
{
	return be32_to_cpu(bth->apsn) & VROCE_PSN_MASK;
}

static inline bool vroce_bth_ackreq(const struct vroce_bth *bth)
{
	return be32_to_cpu(bth->apsn) & VROCE_BTH_ACKREQ;
}

static inline u32 vroce_bth_qpn(const struct vroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & VROCE_QPN_MASK;
}

static inline unsigned int vroce_bth_pad(const struct vroce_bth *bth)
{
	return (bth->flags & VROCE_BTH_PAD_MASK) >> VROCE_BTH_PAD_SHIFT;
}

static inline bool vroce_bth_becn(const struct vroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & VROCE_BTH_BECN;
}

static inline bool vroce_bth_se(const struct vroce_bth *bth)
{
	return bth->flags & VROCE_BTH_SE;
}

static inline unsigned int vroce_bth_tver(const struct vroce_bth *bth)
{
	return bth->flags & VROCE_BTH_TVER_MASK;
}

/**
 * vroce_bth_set() - fill a BTH
 * @bth: the header
 * @opcode: BTH opcode
 * @se: solicited event
 * @pad: pad count, 0..3
 * @pkey: partition key
 * @qpn: destination QP (24 bits)
 * @ackreq: ask the responder for an ACK
 * @psn: packet sequence number (24 bits)
 */
static inline void vroce_bth_set(struct vroce_bth *bth, u8 opcode, bool se,
				 unsigned int pad, u16 pkey, u32 qpn,
				 bool ackreq, u32 psn)
{
	bth->opcode = opcode;
	bth->flags = (se ? VROCE_BTH_SE : 0) | VROCE_BTH_MIG |
		     ((pad << VROCE_BTH_PAD_SHIFT) & VROCE_BTH_PAD_MASK) |
		     VROCE_BTH_TVER;
	bth->pkey = cpu_to_be16(pkey);
	bth->qpn = cpu_to_be32(qpn & VROCE_QPN_MASK);
	bth->apsn = cpu_to_be32((ackreq ? VROCE_BTH_ACKREQ : 0) |
				(psn & VROCE_PSN_MASK));
}

/* AETH accessors */
static inline u8 vroce_aeth_syndrome(const struct vroce_aeth *aeth)
{
	return be32_to_cpu(aeth->smsn) >> VROCE_AETH_SYN_SHIFT;
}

static inline u32 vroce_aeth_msn(const struct vroce_aeth *aeth)
{
	return be32_to_cpu(aeth->smsn) & VROCE_AETH_MSN_MASK;
}

static inline void vroce_aeth_set(struct vroce_aeth *aeth, u8 syndrome,
				  u32 msn)
{
	aeth->smsn = cpu_to_be32((u32)syndrome << VROCE_AETH_SYN_SHIFT |
				 (msn & VROCE_AETH_MSN_MASK));
}

/* DETH: the source QP is 24 bits behind a reserved byte. */
static inline u32 vroce_deth_sqp(const struct vroce_deth *deth)
{
	return be32_to_cpu(deth->sqp) & VROCE_QPN_MASK;
}

/* FETH accessors: placement type and selectivity level of a FLUSH. */
static inline void vroce_feth_set(struct vroce_feth *feth, u8 type, u8 level)
{
	feth->bits = cpu_to_be32((type & VROCE_FETH_PLT_MASK) |
				 ((level << VROCE_FETH_SEL_SHIFT) &
				  VROCE_FETH_SEL_MASK));
}

static inline u8 vroce_feth_plt(const struct vroce_feth *feth)
{
	return be32_to_cpu(feth->bits) & VROCE_FETH_PLT_MASK;
}

static inline u8 vroce_feth_sel(const struct vroce_feth *feth)
{
	return (be32_to_cpu(feth->bits) & VROCE_FETH_SEL_MASK) >>
	       VROCE_FETH_SEL_SHIFT;
}

/*
 * 24-bit PSN arithmetic.  PSNs wrap; "a before b" means b is reached from
 * a within half the PSN space, as IBTA's window rules assume.
 */
static inline u32 vroce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & VROCE_PSN_MASK;
}

/**
 * vroce_psn_diff() - signed distance from @b to @a in PSN space
 * @a: a PSN
 * @b: a PSN
 *
 * Return: a - b in [-2^23, 2^23).
 */
static inline s32 vroce_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << 8) >> 8;
}

#endif /* VROCE_HDR_H */
