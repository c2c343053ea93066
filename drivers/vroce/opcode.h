/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One entry per BTH opcode: what the packet is, which extension headers
 * follow the BTH and in which order.  Both the packet builder and the
 * parser are driven by this table.  Pure code (no ib_core types).
 */
#ifndef VROCE_OPCODE_H
#define VROCE_OPCODE_H

#include <linux/types.h>

/* Transport prefixes (BTH opcode bits 7..5). */
#define VROCE_OP_RC		0x00
#define VROCE_OP_UC		0x20
#define VROCE_OP_UD		0x60
#define VROCE_OP_CNP		0x81

/* Operations (BTH opcode bits 4..0). */
enum vroce_op {
	VROCE_SEND_FIRST		= 0x00,
	VROCE_SEND_MIDDLE		= 0x01,
	VROCE_SEND_LAST			= 0x02,
	VROCE_SEND_LAST_IMM		= 0x03,
	VROCE_SEND_ONLY			= 0x04,
	VROCE_SEND_ONLY_IMM		= 0x05,
	VROCE_WRITE_FIRST		= 0x06,
	VROCE_WRITE_MIDDLE		= 0x07,
	VROCE_WRITE_LAST		= 0x08,
	VROCE_WRITE_LAST_IMM		= 0x09,
	VROCE_WRITE_ONLY		= 0x0a,
	VROCE_WRITE_ONLY_IMM		= 0x0b,
	VROCE_READ_REQUEST		= 0x0c,
	VROCE_READ_RESP_FIRST		= 0x0d,
	VROCE_READ_RESP_MIDDLE		= 0x0e,
	VROCE_READ_RESP_LAST		= 0x0f,
	VROCE_READ_RESP_ONLY		= 0x10,
	VROCE_ACK			= 0x11,
	VROCE_ATOMIC_ACK		= 0x12,
	VROCE_CMP_SWAP			= 0x13,
	VROCE_FETCH_ADD			= 0x14,
	VROCE_SEND_LAST_INV		= 0x16,
	VROCE_SEND_ONLY_INV		= 0x17,
	VROCE_FLUSH			= 0x1c,
	VROCE_ATOMIC_WRITE		= 0x1d,
};

/* Extension headers, in the order they follow the BTH. */
enum vroce_ext {
	VROCE_EXT_DETH,
	VROCE_EXT_FETH,
	VROCE_EXT_RETH,
	VROCE_EXT_ATMETH,
	VROCE_EXT_AETH,
	VROCE_EXT_ATMACK,
	VROCE_EXT_IMMDT,
	VROCE_EXT_IETH,
	VROCE_EXT_COUNT,
};

/* Opcode properties. */
#define VROCE_F_VALID		BIT(0)
#define VROCE_F_REQ		BIT(1)	/* requester -> responder */
#define VROCE_F_RESP		BIT(2)	/* ACK, read response, atomic ACK */
#define VROCE_F_PAYLOAD		BIT(3)
#define VROCE_F_FIRST		BIT(4)
#define VROCE_F_MIDDLE		BIT(5)
#define VROCE_F_LAST		BIT(6)
#define VROCE_F_ONLY		(VROCE_F_FIRST | VROCE_F_LAST)
#define VROCE_F_SEND		BIT(7)
#define VROCE_F_WRITE		BIT(8)
#define VROCE_F_READ		BIT(9)
#define VROCE_F_ATOMIC		BIT(10)
#define VROCE_F_IMM		BIT(11)
#define VROCE_F_INV		BIT(12)
#define VROCE_F_FLUSH		BIT(13)
#define VROCE_F_ATOMIC_WRITE	BIT(14)
#define VROCE_F_COMP		BIT(15)	/* completes a message at the responder */
#define VROCE_F_CNP		BIT(16)
#define VROCE_F_EXT(e)		BIT(20 + (e))

/**
 * struct vroce_opcode_info - properties of one BTH opcode
 * @name: for traces, as in the IBTA tables
 * @flags: VROCE_F_*; VROCE_F_EXT(e) for each extension header present
 */
struct vroce_opcode_info {
	const char *name;
	u32 flags;
};

extern const struct vroce_opcode_info vroce_opcodes[256];

/* Byte length of each extension header. */
extern const u8 vroce_ext_len[VROCE_EXT_COUNT];

static inline bool vroce_opcode_valid(u8 opcode)
{
	return vroce_opcodes[opcode].flags & VROCE_F_VALID;
}

static inline bool vroce_opcode_has(u8 opcode, u32 flag)
{
	return (vroce_opcodes[opcode].flags & flag) == flag;
}

unsigned int vroce_opcode_hdr_len(u8 opcode);
int vroce_opcode_ext_offset(u8 opcode, enum vroce_ext ext);

#endif /* VROCE_OPCODE_H */
