// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the RoCEv2 ICRC (icrc.c) against packets rdma_rxe put on the wire
 * (captured by the interop scenario, 40-interop-rxe) and an IPv6 packet
 * whose ICRC was computed independently (zlib.crc32 over the masked packet,
 * IBTA annex A17.3.3); the same Python check agreed with all 76466 RoCEv2
 * packets of that capture.  A RoCE v1 packet (annex A16: the GRH in the
 * IP header's place, no UDP header) computed the same way.  Each vector
 * runs from the IP header (or GRH) to the ICRC, which is its last 4 bytes.
 */
#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/string.h>
#include <linux/udp.h>

#include "hdr.h"
#include "icrc.h"

/* RC ACKNOWLEDGE from rdma_rxe (Linux 6.1), IPv4, ICRC 0x2e914835 */
static const u8 vec_rxe_ack[] = {
	0x45, 0x00, 0x00, 0x30, 0x27, 0x4f, 0x40, 0x00,
	0x40, 0x11, 0xff, 0x6b, 0x0a, 0x00, 0x00, 0x02,
	0x0a, 0x00, 0x00, 0x01, 0xc1, 0x10, 0x12, 0xb7,
	0x00, 0x1c, 0x00, 0x00, 0x11, 0x00, 0xff, 0xff,
	0x00, 0x00, 0x00, 0x10, 0x00, 0x5b, 0x6a, 0x89,
	0x1f, 0x00, 0x00, 0x01, 0x35, 0x48, 0x91, 0x2e,
};

/* RC RDMA READ REQUEST from rdma_rxe (Linux 6.1), IPv4, ICRC 0x517dfc34 */
static const u8 vec_rxe_read_req[] = {
	0x45, 0x00, 0x00, 0x3c, 0x97, 0xee, 0x40, 0x00,
	0x40, 0x11, 0x8e, 0xc0, 0x0a, 0x00, 0x00, 0x02,
	0x0a, 0x00, 0x00, 0x01, 0xc2, 0xbe, 0x12, 0xb7,
	0x00, 0x28, 0x00, 0x00, 0x0c, 0x00, 0xff, 0xff,
	0x00, 0x00, 0x00, 0x1a, 0x80, 0x22, 0xb2, 0x21,
	0x00, 0x00, 0x55, 0x72, 0x32, 0x5a, 0x20, 0x00,
	0x00, 0x00, 0x0c, 0xcb, 0x00, 0x01, 0x00, 0x00,
	0x34, 0xfc, 0x7d, 0x51,
};

/* RC FETCH_ADD from rdma_rxe (Linux 6.1), IPv4, ICRC 0x0275bba8 */
static const u8 vec_rxe_fetch_add[] = {
	0x45, 0x00, 0x00, 0x48, 0xdd, 0x77, 0x40, 0x00,
	0x40, 0x11, 0x49, 0x2b, 0x0a, 0x00, 0x00, 0x02,
	0x0a, 0x00, 0x00, 0x01, 0xc3, 0xa2, 0x12, 0xb7,
	0x00, 0x34, 0x00, 0x00, 0x14, 0x00, 0xff, 0xff,
	0x00, 0x00, 0x00, 0x1e, 0x80, 0x49, 0xd1, 0x10,
	0x00, 0x00, 0x56, 0x23, 0x66, 0xf9, 0xe0, 0x00,
	0x00, 0x00, 0x10, 0x8c, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0xa8, 0xbb, 0x75, 0x02,
};

/* RC SEND ONLY, 44 bytes payload from rdma_rxe (Linux 6.1), IPv4, ICRC 0x8cf2fd88 */
static const u8 vec_rxe_send_only[] = {
	0x45, 0x00, 0x00, 0x6c, 0x4e, 0xdb, 0x40, 0x00,
	0x40, 0x11, 0xd7, 0xa3, 0x0a, 0x00, 0x00, 0x02,
	0x0a, 0x00, 0x00, 0x01, 0xc1, 0xa4, 0x12, 0xb7,
	0x00, 0x58, 0x00, 0x00, 0x04, 0x00, 0xff, 0xff,
	0x00, 0x00, 0x00, 0x14, 0x80, 0x5c, 0xe2, 0x06,
	0xf1, 0xdc, 0x25, 0xb7, 0x96, 0x02, 0x45, 0xc2,
	0xdc, 0x6c, 0xf7, 0xc9, 0xdf, 0x14, 0x16, 0xd3,
	0x9d, 0x0e, 0x2a, 0x76, 0x00, 0xd6, 0xc1, 0x91,
	0x44, 0xb0, 0x90, 0x56, 0xad, 0xe0, 0x20, 0x9e,
	0xbd, 0x46, 0x55, 0x53, 0x48, 0x9a, 0x15, 0x24,
	0x06, 0x0c, 0xed, 0xe6, 0x20, 0x03, 0xb9, 0xbe,
	0x11, 0xe3, 0x34, 0x11, 0xb9, 0xf5, 0xa3, 0xfe,
	0xa5, 0x33, 0x54, 0x53, 0x13, 0x74, 0xf1, 0xd0,
	0x88, 0xfd, 0xf2, 0x8c,
};

/*
 * UD SEND ONLY WITH IMMEDIATE over IPv6, pad 2: ICRC 0x2801fc4d
 * computed in Python (zlib.crc32 over the masked packet)
 */
static const u8 vec_v6_ud[] = {
	0x6a, 0x12, 0x34, 0x56, 0x00, 0x2c, 0x11, 0x40,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0xc0, 0x00, 0x12, 0xb7, 0x00, 0x2c, 0x12, 0x34,
	0x65, 0xe0, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,
	0x80, 0x12, 0x34, 0x56, 0x80, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x0a, 0xbc, 0xde, 0xad, 0xbe, 0xef,
	0x76, 0x72, 0x6f, 0x63, 0x65, 0x21, 0x00, 0x00,
	0x4d, 0xfc, 0x01, 0x28,
};

/*
 * The same UD SEND as a RoCE v1 packet: GRH (next header 0x1b, the BTH)
 * and no UDP header; ICRC 0xccd4bd3d computed in Python the same way
 */
static const u8 vec_v1_ud[] = {
	0x6a, 0x12, 0x34, 0x56, 0x00, 0x24, 0x1b, 0x40,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x65, 0xe0, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,
	0x80, 0x12, 0x34, 0x56, 0x80, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x0a, 0xbc, 0xde, 0xad, 0xbe, 0xef,
	0x76, 0x72, 0x6f, 0x63, 0x65, 0x21, 0x00, 0x00,
	0x3d, 0xbd, 0xd4, 0xcc,
};

struct icrc_vec {
	const char *name;
	const u8 *pkt;
	size_t len;
	enum vroce_wire wire;
};

#define VEC(n, w)	{ #n, vec_##n, sizeof(vec_##n), VROCE_WIRE_##w }

static const struct icrc_vec icrc_vecs[] = {
	VEC(rxe_ack, V2_IPV4),
	VEC(rxe_read_req, V2_IPV4),
	VEC(rxe_fetch_add, V2_IPV4),
	VEC(rxe_send_only, V2_IPV4),
	VEC(v6_ud, V2_IPV6),
	VEC(v1_ud, V1),
};

/* IPv6 or GRH: the same layout, and the same variant fields. */
static bool ip6_layout(const struct icrc_vec *v)
{
	return v->wire != VROCE_WIRE_V2_IPV4;
}

/* Bytes of IP (or GRH) and UDP header before the BTH. */
static size_t l3_len(const struct icrc_vec *v)
{
	size_t l3 = ip6_layout(v) ? sizeof(struct ipv6hdr) :
				    sizeof(struct iphdr);

	return v->wire == VROCE_WIRE_V1 ? l3 : l3 + sizeof(struct udphdr);
}

static const void *icrc_vec_gen(const void *prev, char *desc)
{
	const struct icrc_vec *v = prev ? (const struct icrc_vec *)prev + 1 :
					  icrc_vecs;

	if (v >= icrc_vecs + ARRAY_SIZE(icrc_vecs))
		return NULL;
	strscpy(desc, v->name, KUNIT_PARAM_DESC_SIZE);
	return v;
}

static size_t hdrs_len(const struct icrc_vec *v)
{
	return l3_len(v) + sizeof(struct vroce_bth);
}

/* The ICRC field: the CRC's low byte first. */
static u32 wire_icrc(const u8 *pkt, size_t len)
{
	const u8 *p = pkt + len - VROCE_ICRC_SIZE;

	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

/* A private copy: KASAN sees any read beyond the packet. */
static u8 *vec_copy(struct kunit *test, const struct icrc_vec *v)
{
	u8 *p = kunit_kmalloc(test, v->len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	memcpy(p, v->pkt, v->len);
	return p;
}

static u32 pkt_icrc(const struct icrc_vec *v, const u8 *p)
{
	return vroce_icrc_packet(p, v->wire, v->len - VROCE_ICRC_SIZE);
}

static void icrc_matches_vector(struct kunit *test)
{
	const struct icrc_vec *v = test->param_value;
	u8 *p = vec_copy(test, v);

	KUNIT_EXPECT_EQ(test, pkt_icrc(v, p), wire_icrc(p, v->len));
}

/* Headers first, then the rest in pieces of every size: the same CRC. */
static void icrc_incremental(struct kunit *test)
{
	const struct icrc_vec *v = test->param_value;
	size_t hdr = hdrs_len(v), end = v->len - VROCE_ICRC_SIZE, step, at;
	u8 *p = vec_copy(test, v);

	for (step = 1; step <= end - hdr; step++) {
		u32 crc = vroce_icrc_start(p, v->wire);

		for (at = hdr; at < end; at += step)
			crc = vroce_icrc_update(crc, p + at,
						min(step, end - at));
		KUNIT_EXPECT_EQ_MSG(test, vroce_icrc_final(crc),
				    wire_icrc(p, v->len), "step %zu", step);
	}
}

/* Fields a router may rewrite are masked: changing them keeps the ICRC. */
static void icrc_ignores_variant_fields(struct kunit *test)
{
	const struct icrc_vec *v = test->param_value;
	size_t l3 = l3_len(v);
	u32 want = wire_icrc(v->pkt, v->len);
	u8 *p = vec_copy(test, v);

	if (ip6_layout(v)) {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)p;

		ip6->priority ^= 0xf;
		ip6->flow_lbl[0] ^= 0x0f;
		ip6->flow_lbl[1] ^= 0xff;
		ip6->flow_lbl[2] ^= 0x5a;
		ip6->hop_limit = 1;
		/* The traffic class's low nibble lives in flow_lbl[0]. */
		ip6->flow_lbl[0] ^= 0xf0;
	} else {
		struct iphdr *ip4 = (struct iphdr *)p;

		ip4->tos ^= 0xff;
		ip4->ttl = 1;
		p[offsetof(struct iphdr, check)] ^= 0x12;
	}
	if (v->wire != VROCE_WIRE_V1) {
		p[l3 - sizeof(struct udphdr) +
		  offsetof(struct udphdr, check)] ^= 0xbe;
		p[l3 - sizeof(struct udphdr) +
		  offsetof(struct udphdr, check) + 1] ^= 0xef;
	}
	p[l3 + 4] ^= 0xff;	/* BTH resv8a */
	KUNIT_EXPECT_EQ(test, pkt_icrc(v, p), want);
}

/* Every other byte is covered: flipping one bit changes the ICRC. */
static void icrc_covers_invariant_bytes(struct kunit *test)
{
	const struct icrc_vec *v = test->param_value;
	size_t l3 = l3_len(v);
	u32 want = wire_icrc(v->pkt, v->len);
	size_t i, checked = 0;
	u8 *p = vec_copy(test, v);

	for (i = 0; i < v->len - VROCE_ICRC_SIZE; i++) {
		bool variant;
		u8 bit;

		if (ip6_layout(v))
			variant = i < 4 || i == 7;
		else
			variant = i == 1 || i == 8 || i == 10 || i == 11;
		/* the UDP checksum, and the BTH's resv8a */
		if (v->wire != VROCE_WIRE_V1)
			variant |= i == l3 - 2 || i == l3 - 1;
		variant |= i == l3 + 4;
		/* Byte 0 of IPv6: only its low nibble is traffic class. */
		bit = ip6_layout(v) && i == 0 ? 0x10 : 0x01;
		if (variant && bit == 0x01)
			continue;
		p[i] ^= bit;
		KUNIT_EXPECT_NE_MSG(test, pkt_icrc(v, p), want, "byte %zu", i);
		p[i] ^= bit;
		checked++;
	}
	KUNIT_EXPECT_EQ(test, pkt_icrc(v, p), want);
	KUNIT_EXPECT_GT(test, checked, 0U);
}

/* A length that does not cover the headers yields 0, reads nothing more. */
static void icrc_short_packet(struct kunit *test)
{
	const struct icrc_vec *v = test->param_value;
	u8 *p = vec_copy(test, v);

	KUNIT_EXPECT_EQ(test, vroce_icrc_packet(p, v->wire, hdrs_len(v) - 1),
			0U);
}

static struct kunit_case vroce_icrc_cases[] = {
	KUNIT_CASE_PARAM(icrc_matches_vector, icrc_vec_gen),
	KUNIT_CASE_PARAM(icrc_incremental, icrc_vec_gen),
	KUNIT_CASE_PARAM(icrc_ignores_variant_fields, icrc_vec_gen),
	KUNIT_CASE_PARAM(icrc_covers_invariant_bytes, icrc_vec_gen),
	KUNIT_CASE_PARAM(icrc_short_packet, icrc_vec_gen),
	{}
};

static struct kunit_suite vroce_icrc_suite = {
	.name = "vroce_icrc",
	.test_cases = vroce_icrc_cases,
};

kunit_test_suites(&vroce_icrc_suite);
