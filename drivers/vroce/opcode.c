// SPDX-License-Identifier: GPL-2.0
/*
 * The BTH opcode table (IBTA vol. 1, table 38, plus FLUSH and ATOMIC WRITE
 * of the 1.5 memory placement extensions, and the RoCEv2 CNP).
 */
#include <linux/bits.h>
#include <linux/export.h>

#include "hdr.h"
#include "opcode.h"

const u8 vroce_ext_len[VROCE_EXT_COUNT] = {
	[VROCE_EXT_DETH] = sizeof(struct vroce_deth),
	[VROCE_EXT_FETH] = sizeof(struct vroce_feth),
	[VROCE_EXT_RETH] = sizeof(struct vroce_reth),
	[VROCE_EXT_ATMETH] = sizeof(struct vroce_atmeth),
	[VROCE_EXT_AETH] = sizeof(struct vroce_aeth),
	[VROCE_EXT_ATMACK] = sizeof(struct vroce_atmack),
	[VROCE_EXT_IMMDT] = sizeof(struct vroce_immdt),
	[VROCE_EXT_IETH] = sizeof(struct vroce_ieth),
};

#define V		VROCE_F_VALID
#define RQ		(V | VROCE_F_REQ)
#define RS		(V | VROCE_F_RESP)
#define P		VROCE_F_PAYLOAD
#define X(e)		VROCE_F_EXT(VROCE_EXT_##e)

/* Per-operation properties shared by the RC, UC and UD variants. */
#define SEND_F		(RQ | P | VROCE_F_SEND)
#define WRITE_F		(RQ | P | VROCE_F_WRITE)
#define RRESP_F		(RS | P | VROCE_F_READ)

const struct vroce_opcode_info vroce_opcodes[256] = {
	[VROCE_OP_RC | VROCE_SEND_FIRST] = { "RC_SEND_FIRST",
		SEND_F | VROCE_F_FIRST },
	[VROCE_OP_RC | VROCE_SEND_MIDDLE] = { "RC_SEND_MIDDLE",
		SEND_F | VROCE_F_MIDDLE },
	[VROCE_OP_RC | VROCE_SEND_LAST] = { "RC_SEND_LAST",
		SEND_F | VROCE_F_LAST | VROCE_F_COMP },
	[VROCE_OP_RC | VROCE_SEND_LAST_IMM] = { "RC_SEND_LAST_WITH_IMMEDIATE",
		SEND_F | VROCE_F_LAST | VROCE_F_COMP | VROCE_F_IMM |
		X(IMMDT) },
	[VROCE_OP_RC | VROCE_SEND_ONLY] = { "RC_SEND_ONLY",
		SEND_F | VROCE_F_ONLY | VROCE_F_COMP },
	[VROCE_OP_RC | VROCE_SEND_ONLY_IMM] = { "RC_SEND_ONLY_WITH_IMMEDIATE",
		SEND_F | VROCE_F_ONLY | VROCE_F_COMP | VROCE_F_IMM |
		X(IMMDT) },
	[VROCE_OP_RC | VROCE_WRITE_FIRST] = { "RC_RDMA_WRITE_FIRST",
		WRITE_F | VROCE_F_FIRST | X(RETH) },
	[VROCE_OP_RC | VROCE_WRITE_MIDDLE] = { "RC_RDMA_WRITE_MIDDLE",
		WRITE_F | VROCE_F_MIDDLE },
	[VROCE_OP_RC | VROCE_WRITE_LAST] = { "RC_RDMA_WRITE_LAST",
		WRITE_F | VROCE_F_LAST },
	[VROCE_OP_RC | VROCE_WRITE_LAST_IMM] = { "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
		WRITE_F | VROCE_F_LAST | VROCE_F_COMP | VROCE_F_IMM |
		X(IMMDT) },
	[VROCE_OP_RC | VROCE_WRITE_ONLY] = { "RC_RDMA_WRITE_ONLY",
		WRITE_F | VROCE_F_ONLY | X(RETH) },
	[VROCE_OP_RC | VROCE_WRITE_ONLY_IMM] = { "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
		WRITE_F | VROCE_F_ONLY | VROCE_F_COMP | VROCE_F_IMM |
		X(RETH) | X(IMMDT) },
	[VROCE_OP_RC | VROCE_READ_REQUEST] = { "RC_RDMA_READ_REQUEST",
		RQ | VROCE_F_READ | VROCE_F_ONLY | X(RETH) },
	[VROCE_OP_RC | VROCE_READ_RESP_FIRST] = { "RC_RDMA_READ_RESPONSE_FIRST",
		RRESP_F | VROCE_F_FIRST | X(AETH) },
	[VROCE_OP_RC | VROCE_READ_RESP_MIDDLE] = { "RC_RDMA_READ_RESPONSE_MIDDLE",
		RRESP_F | VROCE_F_MIDDLE },
	[VROCE_OP_RC | VROCE_READ_RESP_LAST] = { "RC_RDMA_READ_RESPONSE_LAST",
		RRESP_F | VROCE_F_LAST | X(AETH) },
	[VROCE_OP_RC | VROCE_READ_RESP_ONLY] = { "RC_RDMA_READ_RESPONSE_ONLY",
		RRESP_F | VROCE_F_ONLY | X(AETH) },
	[VROCE_OP_RC | VROCE_ACK] = { "RC_ACKNOWLEDGE",
		RS | VROCE_F_ONLY | X(AETH) },
	[VROCE_OP_RC | VROCE_ATOMIC_ACK] = { "RC_ATOMIC_ACKNOWLEDGE",
		RS | VROCE_F_ATOMIC | VROCE_F_ONLY | X(AETH) | X(ATMACK) },
	[VROCE_OP_RC | VROCE_CMP_SWAP] = { "RC_COMPARE_SWAP",
		RQ | VROCE_F_ATOMIC | VROCE_F_ONLY | X(ATMETH) },
	[VROCE_OP_RC | VROCE_FETCH_ADD] = { "RC_FETCH_ADD",
		RQ | VROCE_F_ATOMIC | VROCE_F_ONLY | X(ATMETH) },
	[VROCE_OP_RC | VROCE_SEND_LAST_INV] = { "RC_SEND_LAST_WITH_INVALIDATE",
		SEND_F | VROCE_F_LAST | VROCE_F_COMP | VROCE_F_INV | X(IETH) },
	[VROCE_OP_RC | VROCE_SEND_ONLY_INV] = { "RC_SEND_ONLY_WITH_INVALIDATE",
		SEND_F | VROCE_F_ONLY | VROCE_F_COMP | VROCE_F_INV | X(IETH) },
	[VROCE_OP_RC | VROCE_FLUSH] = { "RC_FLUSH",
		RQ | VROCE_F_FLUSH | VROCE_F_ONLY | X(FETH) | X(RETH) },
	[VROCE_OP_RC | VROCE_ATOMIC_WRITE] = { "RC_ATOMIC_WRITE",
		RQ | P | VROCE_F_ATOMIC_WRITE | VROCE_F_ONLY | X(RETH) },

	[VROCE_OP_UC | VROCE_SEND_FIRST] = { "UC_SEND_FIRST",
		SEND_F | VROCE_F_FIRST },
	[VROCE_OP_UC | VROCE_SEND_MIDDLE] = { "UC_SEND_MIDDLE",
		SEND_F | VROCE_F_MIDDLE },
	[VROCE_OP_UC | VROCE_SEND_LAST] = { "UC_SEND_LAST",
		SEND_F | VROCE_F_LAST | VROCE_F_COMP },
	[VROCE_OP_UC | VROCE_SEND_LAST_IMM] = { "UC_SEND_LAST_WITH_IMMEDIATE",
		SEND_F | VROCE_F_LAST | VROCE_F_COMP | VROCE_F_IMM |
		X(IMMDT) },
	[VROCE_OP_UC | VROCE_SEND_ONLY] = { "UC_SEND_ONLY",
		SEND_F | VROCE_F_ONLY | VROCE_F_COMP },
	[VROCE_OP_UC | VROCE_SEND_ONLY_IMM] = { "UC_SEND_ONLY_WITH_IMMEDIATE",
		SEND_F | VROCE_F_ONLY | VROCE_F_COMP | VROCE_F_IMM |
		X(IMMDT) },
	[VROCE_OP_UC | VROCE_WRITE_FIRST] = { "UC_RDMA_WRITE_FIRST",
		WRITE_F | VROCE_F_FIRST | X(RETH) },
	[VROCE_OP_UC | VROCE_WRITE_MIDDLE] = { "UC_RDMA_WRITE_MIDDLE",
		WRITE_F | VROCE_F_MIDDLE },
	[VROCE_OP_UC | VROCE_WRITE_LAST] = { "UC_RDMA_WRITE_LAST",
		WRITE_F | VROCE_F_LAST },
	[VROCE_OP_UC | VROCE_WRITE_LAST_IMM] = { "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
		WRITE_F | VROCE_F_LAST | VROCE_F_COMP | VROCE_F_IMM |
		X(IMMDT) },
	[VROCE_OP_UC | VROCE_WRITE_ONLY] = { "UC_RDMA_WRITE_ONLY",
		WRITE_F | VROCE_F_ONLY | X(RETH) },
	[VROCE_OP_UC | VROCE_WRITE_ONLY_IMM] = { "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
		WRITE_F | VROCE_F_ONLY | VROCE_F_COMP | VROCE_F_IMM |
		X(RETH) | X(IMMDT) },

	[VROCE_OP_UD | VROCE_SEND_ONLY] = { "UD_SEND_ONLY",
		SEND_F | VROCE_F_ONLY | VROCE_F_COMP | X(DETH) },
	[VROCE_OP_UD | VROCE_SEND_ONLY_IMM] = { "UD_SEND_ONLY_WITH_IMMEDIATE",
		SEND_F | VROCE_F_ONLY | VROCE_F_COMP | VROCE_F_IMM | X(DETH) |
		X(IMMDT) },

	/* RoCEv2 congestion notification: BTH and 16 reserved bytes. */
	[VROCE_OP_CNP] = { "CNP", V | VROCE_F_CNP },
};

/**
 * vroce_opcode_ext_offset() - where an extension header starts
 * @opcode: BTH opcode
 * @ext: the extension header
 *
 * Return: byte offset from the start of the BTH, or -1 when @opcode
 * carries no @ext.
 */
int vroce_opcode_ext_offset(u8 opcode, enum vroce_ext ext)
{
	u32 flags = vroce_opcodes[opcode].flags;
	unsigned int off = sizeof(struct vroce_bth);
	int e;

	if (!(flags & VROCE_F_EXT(ext)))
		return -1;
	for (e = 0; e < ext; e++)
		if (flags & VROCE_F_EXT(e))
			off += vroce_ext_len[e];
	return off;
}

/**
 * vroce_opcode_hdr_len() - bytes from the BTH to the payload
 * @opcode: BTH opcode
 *
 * Return: BTH plus every extension header of @opcode (a CNP carries 16
 * reserved bytes instead); 0 for an invalid opcode.
 */
unsigned int vroce_opcode_hdr_len(u8 opcode)
{
	u32 flags = vroce_opcodes[opcode].flags;
	unsigned int len = sizeof(struct vroce_bth);
	int e;

	if (!(flags & VROCE_F_VALID))
		return 0;
	if (flags & VROCE_F_CNP)
		return len + 16;
	for (e = 0; e < VROCE_EXT_COUNT; e++)
		if (flags & VROCE_F_EXT(e))
			len += vroce_ext_len[e];
	return len;
}
