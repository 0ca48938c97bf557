/* SPDX-License-Identifier: MIT */
/* VM-codec frame splitter: escapes, terminators, arbitrary chunking. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "vm_codec.h"

/* Collected frames from feeding a stream in chunks. */
struct got {
	size_t n;
	enum vm_frame_kind kind[32];
	uint8_t raw[32][VM_RAW_MAX];
	size_t raw_len[32];
	uint8_t data[32][VM_DATA_MAX];
	size_t data_len[32];
	bool truncated[32];
	bool bad_escape[32];
};

static void feed(struct vm_parser *p, const uint8_t *buf, size_t len,
		 struct got *g)
{
	size_t off = 0;

	while (off < len) {
		struct vm_frame f;
		size_t used = 0;
		bool done = vm_parser_next(p, buf + off, len - off, &used, &f);

		ck_assert_uint_gt(used, 0);
		ck_assert_uint_le(used, len - off);
		if (done) {
			ck_assert_uint_lt(g->n, 32);
			g->kind[g->n] = f.kind;
			memcpy(g->raw[g->n], f.raw, f.raw_len);
			g->raw_len[g->n] = f.raw_len;
			memcpy(g->data[g->n], f.data, f.data_len);
			g->data_len[g->n] = f.data_len;
			g->truncated[g->n] = f.truncated;
			g->bad_escape[g->n] = f.bad_escape;
			g->n++;
			/* the frame ends exactly at its terminator */
			ck_assert(buf[off + used - 1] == VM_MSG_END ||
				  buf[off + used - 1] == VM_CMD_END);
		} else {
			ck_assert_uint_eq(used, len - off);
		}
		off += used;
	}
}

/* Get Device ID request, seq 1: 01 18 01 e6 a0 */
START_TEST(get_device_id_request)
{
	uint8_t out[16];
	size_t n =
		vm_encode_msg(0x01, 0x06, 0, 0x01, NULL, 0, out, sizeof(out));
	const uint8_t want[] = { 0x01, 0x18, 0x01, 0xE6, 0xA0 };
	struct vm_msg_info mi;
	struct vm_parser p;
	struct got g = { 0 };

	ck_assert_uint_eq(n, sizeof(want));
	ck_assert_mem_eq(out, want, n);

	vm_parser_init(&p);
	feed(&p, out, n, &g);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_int_eq(g.kind[0], VM_FRAME_MSG);
	ck_assert_uint_eq(g.raw_len[0], n);
	ck_assert_mem_eq(g.raw[0], want, n);
	ck_assert_uint_eq(g.data_len[0], 4);
	ck_assert(vm_msg_parse(g.data[0], g.data_len[0], &mi));
	ck_assert_uint_eq(mi.seq, 1);
	ck_assert_uint_eq(mi.netfn, 6);
	ck_assert_uint_eq(mi.lun, 0);
	ck_assert_uint_eq(mi.cmd, 1);
	ck_assert(mi.checksum_ok);
	ck_assert_uint_eq(mi.payload_len, 0);
	ck_assert(!vm_parser_mid_frame(&p));
}
END_TEST

START_TEST(escapes_set_bit4_and_decode)
{
	const uint8_t data[] = { 0xA0, 0x00, 0xA1, 0xAA, 0xB0, 0x10 };
	const uint8_t want[] = { 0xAA, 0xB0, 0x00, 0xAA, 0xB1,
				 0xAA, 0xBA, 0xB0, 0x10, 0xA1 };
	uint8_t out[32];
	size_t n =
		vm_encode(VM_FRAME_CMD, data, sizeof(data), out, sizeof(out));
	struct vm_parser p;
	struct got g = { 0 };

	ck_assert_uint_eq(n, sizeof(want));
	ck_assert_mem_eq(out, want, n);
	vm_parser_init(&p);
	feed(&p, out, n, &g);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_int_eq(g.kind[0], VM_FRAME_CMD);
	ck_assert_uint_eq(g.data_len[0], sizeof(data));
	ck_assert_mem_eq(g.data[0], data, sizeof(data));
	ck_assert_mem_eq(g.raw[0], want, n);
	ck_assert(!g.bad_escape[0]);
}
END_TEST

START_TEST(encode_too_small)
{
	const uint8_t data[] = { 0xAA, 0x01 };
	uint8_t out[8];

	ck_assert_uint_eq(vm_encode(VM_FRAME_MSG, data, 2, out, 3), 0);
	ck_assert_uint_eq(vm_encode(VM_FRAME_MSG, data, 2, out, 4), 4);
	ck_assert_uint_eq(vm_encode(VM_FRAME_MSG, data, 0, out, 0), 0);
	ck_assert_uint_eq(vm_encode(VM_FRAME_MSG, data, 0, out, 1), 1);
	ck_assert_uint_eq(out[0], VM_MSG_END);
}
END_TEST

/* A stream of mixed frames whose checksums and payloads need escaping,
 * split at every possible pair of cut points. */
static size_t build_stream(uint8_t *s, size_t cap, uint8_t data[][8],
			   size_t *dlen, enum vm_frame_kind *kinds)
{
	size_t n = 0, k = 0;
	const uint8_t pl1[] = { 0x00, 0xA0, 0xAA };
	uint8_t ver[] = { VM_CMD_VERSION, 0x01 };
	uint8_t attn[] = { VM_CMD_ATTN };
	size_t m;

	m = vm_encode_msg(0x05, 0x07, 0, 0x01, pl1, sizeof(pl1), s + n,
			  cap - n);
	ck_assert_uint_gt(m, 0);
	data[k][0] = 0x05;
	data[k][1] = 0x07 << 2;
	data[k][2] = 0x01;
	memcpy(&data[k][3], pl1, 3);
	data[k][6] = vm_checksum(data[k], 6);
	dlen[k] = 7;
	kinds[k++] = VM_FRAME_MSG;
	n += m;

	m = vm_encode(VM_FRAME_CMD, ver, 2, s + n, cap - n);
	memcpy(data[k], ver, 2);
	dlen[k] = 2;
	kinds[k++] = VM_FRAME_CMD;
	n += m;

	m = vm_encode(VM_FRAME_CMD, attn, 1, s + n, cap - n);
	memcpy(data[k], attn, 1);
	dlen[k] = 1;
	kinds[k++] = VM_FRAME_CMD;
	n += m;

	/* seq chosen so that the checksum itself is 0xA1 (escaped) */
	{
		uint8_t hdr[3] = { 0, 0x07 << 2, 0x01 };
		uint8_t cc = 0x00;
		uint8_t seq = (uint8_t)(-(0xA1 + hdr[1] + hdr[2] + cc));
		uint8_t msg[5] = { seq, hdr[1], hdr[2], cc, 0 };

		msg[4] = vm_checksum(msg, 4);
		ck_assert_uint_eq(msg[4], 0xA1);
		m = vm_encode(VM_FRAME_MSG, msg, 5, s + n, cap - n);
		memcpy(data[k], msg, 5);
		dlen[k] = 5;
		kinds[k++] = VM_FRAME_MSG;
		n += m;
	}
	return n;
}

START_TEST(every_two_cut_chunking)
{
	uint8_t s[128];
	uint8_t data[4][8];
	size_t dlen[4];
	enum vm_frame_kind kinds[4];
	size_t n = build_stream(s, sizeof(s), data, dlen, kinds);

	for (size_t a = 0; a <= n; a++) {
		for (size_t b = a; b <= n; b++) {
			struct vm_parser p;
			struct got g = { 0 };
			size_t raw_total = 0;

			vm_parser_init(&p);
			feed(&p, s, a, &g);
			feed(&p, s + a, b - a, &g);
			feed(&p, s + b, n - b, &g);
			ck_assert_uint_eq(g.n, 4);
			for (size_t i = 0; i < 4; i++) {
				ck_assert_int_eq(g.kind[i], kinds[i]);
				ck_assert_uint_eq(g.data_len[i], dlen[i]);
				ck_assert_mem_eq(g.data[i], data[i], dlen[i]);
				ck_assert_mem_eq(g.raw[i], s + raw_total,
						 g.raw_len[i]);
				raw_total += g.raw_len[i];
				ck_assert(!g.truncated[i]);
				ck_assert(!g.bad_escape[i]);
			}
			ck_assert_uint_eq(raw_total, n);
			ck_assert_uint_eq(p.bytes_in, n);
		}
	}
}
END_TEST

START_TEST(byte_at_a_time_and_mid_frame)
{
	uint8_t s[128];
	uint8_t data[4][8];
	size_t dlen[4];
	enum vm_frame_kind kinds[4];
	size_t n = build_stream(s, sizeof(s), data, dlen, kinds);
	struct vm_parser p;
	struct got g = { 0 };

	vm_parser_init(&p);
	for (size_t i = 0; i < n; i++) {
		size_t before = g.n;

		feed(&p, s + i, 1, &g);
		if (g.n == before)
			ck_assert(vm_parser_mid_frame(&p));
		else
			ck_assert(!vm_parser_mid_frame(&p));
	}
	ck_assert_uint_eq(g.n, 4);
	for (size_t i = 0; i < 4; i++)
		ck_assert_mem_eq(g.data[i], data[i], dlen[i]);
}
END_TEST

START_TEST(reset_discards_partial)
{
	const uint8_t part[] = { 0x01, 0x18, 0xAA };
	const uint8_t full[] = { 0x01, 0x18, 0x01, 0xE6, 0xA0 };
	struct vm_parser p;
	struct got g = { 0 };

	vm_parser_init(&p);
	feed(&p, part, sizeof(part), &g);
	ck_assert(vm_parser_mid_frame(&p));
	vm_parser_reset(&p);
	ck_assert(!vm_parser_mid_frame(&p));
	feed(&p, full, sizeof(full), &g);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(g.data_len[0], 4);
	ck_assert_uint_eq(g.data[0][0], 0x01); /* escape state was cleared */
}
END_TEST

START_TEST(empty_frames_and_bad_escape)
{
	const uint8_t s[] = { 0xA0, 0xA1, 0x05, 0xAA, 0xA0, 0x07,
			      0xA1, 0xAA, 0xAA, 0xB1, 0xA1 };
	struct vm_parser p;
	struct got g = { 0 };

	vm_parser_init(&p);
	feed(&p, s, sizeof(s), &g);
	ck_assert_uint_eq(g.n, 5);
	ck_assert_uint_eq(g.data_len[0], 0);
	ck_assert_int_eq(g.kind[0], VM_FRAME_MSG);
	ck_assert_uint_eq(g.data_len[1], 0);
	ck_assert_int_eq(g.kind[1], VM_FRAME_CMD);
	/* escape directly before a terminator */
	ck_assert(g.bad_escape[2]);
	ck_assert_uint_eq(g.data_len[2], 1);
	ck_assert_uint_eq(g.raw_len[2], 3);
	/* escape state does not leak into the next frame */
	ck_assert(!g.bad_escape[3]);
	ck_assert_uint_eq(g.data[3][0], 0x07);
	/* a doubled escape stays one pending escape */
	ck_assert_uint_eq(g.data_len[4], 1);
	ck_assert_uint_eq(g.data[4][0], 0xA1);
	ck_assert_uint_eq(g.raw_len[4], 4);
}
END_TEST

START_TEST(overlong_frame_truncated)
{
	size_t n = VM_RAW_MAX + 100;
	uint8_t *s = malloc(n + 5);
	const uint8_t next[] = { 0x01, 0x18, 0x01, 0xE6, 0xA0 };
	struct vm_parser p;
	struct got g = { 0 };

	ck_assert_ptr_nonnull(s);
	memset(s, 0x42, n);
	s[n - 1] = VM_MSG_END;
	memcpy(s + n, next, sizeof(next));
	vm_parser_init(&p);
	feed(&p, s, n + sizeof(next), &g);
	ck_assert_uint_eq(g.n, 2);
	ck_assert(g.truncated[0]);
	ck_assert_uint_eq(g.raw_len[0], VM_RAW_MAX);
	ck_assert_uint_eq(g.data_len[0], VM_DATA_MAX);
	ck_assert(!g.truncated[1]);
	ck_assert_uint_eq(g.data_len[1], 4);
	free(s);
}
END_TEST

START_TEST(checksum_and_parse)
{
	const uint8_t rsp[] = { 0x01, 0x1C, 0x01, 0x00, 0x20 };
	uint8_t full[6];
	struct vm_msg_info mi;

	memcpy(full, rsp, 5);
	full[5] = vm_checksum(rsp, 5);
	ck_assert(vm_msg_parse(full, 6, &mi));
	ck_assert(mi.checksum_ok);
	ck_assert_uint_eq(mi.netfn, 7);
	ck_assert_uint_eq(mi.payload_len, 2);
	full[5] ^= 1;
	ck_assert(vm_msg_parse(full, 6, &mi));
	ck_assert(!mi.checksum_ok);
	ck_assert(!vm_msg_parse(full, 3, &mi));
	ck_assert_uint_eq(vm_checksum(NULL, 0), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("vm_codec");
	TCase *t = tcase_create("core");

	tcase_add_test(t, get_device_id_request);
	tcase_add_test(t, escapes_set_bit4_and_decode);
	tcase_add_test(t, encode_too_small);
	tcase_add_test(t, every_two_cut_chunking);
	tcase_add_test(t, byte_at_a_time_and_mid_frame);
	tcase_add_test(t, reset_discards_partial);
	tcase_add_test(t, empty_frames_and_bad_escape);
	tcase_add_test(t, overlong_frame_truncated);
	tcase_add_test(t, checksum_and_parse);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
