// SPDX-License-Identifier: GPL-2.0
/*
 * test_kcs_sm.c - the KCS host state machine (kmod/kcs_sm.c) against the
 * simulated BMC of kcs_model.c: normal transactions, start errors,
 * SMS_ATN, every timeout and error-recovery path, aborts, the elapsed-time
 * accounting and the statistics. Every run is bounded by a step cap, so a
 * machine that hangs fails instead of spinning.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kcs_model.h"
#include "kcs_sm.h"

#define S_US	    1000000ULL
#define DEF_TIMEOUT (5 * S_US)
#define CAP	    400000u

static struct kcs_model m;
static struct kcs_sm sm;
static unsigned int wait_seen; /* 1 << enum kcs_wait of every KCS_WAIT */
static unsigned int waits;     /* KCS_WAIT answers in the last drive() */
static u8 res[KCS_MAX_RESPONSE + 16];
static unsigned int res_len;

static const u8 get_devid[] = { 0x18, 0x01 };
static const u8 devid_resp[] = {
	0x1c, 0x01, 0x00, 0x20, 0x81, 0x02, 0x10, 0x02, 0xbf,
	0x57, 0x01, 0x00, 0x34, 0x12, 0x01, 0x02, 0x03, 0x04,
};
#define DEVID_LEN ((unsigned int)sizeof(devid_resp))

static void setup(void)
{
	kcs_model_init(&m);
	kcs_sm_init(&sm, &kcs_model_ops, &m);
	wait_seen = 0;
	waits = 0;
	res_len = 0;
}

/*
 * Step until a final answer. Each KCS_WAIT lets @poll_us of simulated time
 * pass and reports it with the next call; KCS_CALL_AGAIN reports 0.
 */
static enum kcs_result drive_cap(u64 poll_us, unsigned int cap)
{
	u64 elapsed = 0;
	unsigned int i;

	waits = 0;
	for (i = 0; i < cap; i++) {
		enum kcs_result r = kcs_sm_event(&sm, elapsed);

		if (r == KCS_CALL_AGAIN) {
			elapsed = 0;
			continue;
		}
		if (r == KCS_WAIT) {
			ck_assert_int_ne(kcs_sm_wait_kind(&sm), KCS_WAIT_NONE);
			wait_seen |= 1u << kcs_sm_wait_kind(&sm);
			waits++;
			kcs_model_advance(&m, poll_us);
			elapsed = poll_us;
			continue;
		}
		ck_assert_int_eq(kcs_sm_wait_kind(&sm), KCS_WAIT_NONE);
		return r;
	}
	ck_abort_msg("state machine still busy after %u steps", cap);
	return KCS_WAIT;
}

static enum kcs_result drive(u64 poll_us)
{
	return drive_cap(poll_us, CAP);
}

/* Start @req, run it to the end, fetch the result into res/res_len. */
static enum kcs_result transact(const u8 *req, unsigned int len, u64 poll_us)
{
	enum kcs_result r;

	ck_assert_int_eq(kcs_sm_start(&sm, req, len), 0);
	ck_assert(!kcs_sm_idle(&sm));
	r = drive(poll_us);
	ck_assert(kcs_sm_idle(&sm));
	res_len = kcs_sm_get_result(&sm, res, sizeof(res));
	return r;
}

/* The machine never overran the BMC nor read an empty output register. */
static void assert_clean(void)
{
	ck_assert_uint_eq(m.st.violations, 0);
	ck_assert_uint_eq(m.st.empty_reads, 0);
}

static void assert_devid(enum kcs_result r)
{
	ck_assert_int_eq(r, KCS_DONE);
	ck_assert_uint_eq(res_len, DEVID_LEN);
	ck_assert_mem_eq(res, devid_resp, DEVID_LEN);
	ck_assert_uint_eq(m.last_req_len, 2);
	ck_assert_mem_eq(m.last_req, get_devid, 2);
	assert_clean();
}

static void assert_stats(u64 tr, u64 re, u64 to, u64 ho, u64 pe)
{
	ck_assert_uint_eq(sm.stats.transactions, tr);
	ck_assert_uint_eq(sm.stats.retries, re);
	ck_assert_uint_eq(sm.stats.timeouts, to);
	ck_assert_uint_eq(sm.stats.hosed, ho);
	ck_assert_uint_eq(sm.stats.protocol_errors, pe);
}

static u8 pat(unsigned int i)
{
	return (u8)(i * 7 + 3);
}

/* Answers netfn+1, cmd, 0, then pattern bytes up to *ctx bytes in all. */
static unsigned int sized_handler(void *ctx, const u8 *req, unsigned int len,
				  u8 *resp, unsigned int max)
{
	unsigned int n = *(unsigned int *)ctx, i;
	u8 head[3] = { (u8)(req[0] | 4), len > 1 ? req[1] : 0, 0 };

	for (i = 0; i < n && i < max; i++)
		resp[i] = i < 3 ? head[i] : pat(i);
	return i;
}

/* Answers netfn+1, cmd, 0, len low, len high, xor of the request. */
static unsigned int summary_handler(void *ctx, const u8 *req, unsigned int len,
				    u8 *resp, unsigned int max)
{
	unsigned int i;
	u8 x = 0;

	(void)ctx;
	ck_assert_uint_ge(max, 6);
	for (i = 0; i < len; i++)
		x ^= req[i];
	resp[0] = req[0] | 4;
	resp[1] = req[1];
	resp[2] = 0;
	resp[3] = (u8)len;
	resp[4] = (u8)(len >> 8);
	resp[5] = x;
	return 6;
}

static unsigned int want_len;

static void use_sized(unsigned int n)
{
	want_len = n;
	m.cfg.handler = sized_handler;
	m.cfg.handler_ctx = &want_len;
}

/* ---- normal operation ---------------------------------------------- */

START_TEST(test_init_defaults)
{
	ck_assert_uint_eq(sm.ibf_timeout_us, DEF_TIMEOUT);
	ck_assert_uint_eq(sm.obf_timeout_us, DEF_TIMEOUT);
	ck_assert_uint_eq(sm.max_retries, 10);
	ck_assert(kcs_sm_idle(&sm));
	ck_assert_int_eq(kcs_sm_wait_kind(&sm), KCS_WAIT_NONE);
	ck_assert_int_eq(kcs_sm_event(&sm, 0), KCS_IDLE);
	ck_assert_int_eq(kcs_sm_event(&sm, 123456789), KCS_IDLE);
	ck_assert_uint_eq(kcs_sm_get_result(&sm, res, sizeof(res)), 0);
	ck_assert_uint_eq(m.st.writes, 0); /* idle steps only look */
	assert_stats(0, 0, 0, 0, 0);
}
END_TEST

START_TEST(test_get_device_id)
{
	assert_devid(transact(get_devid, 2, 10));
	assert_stats(1, 0, 0, 0, 0);
	ck_assert(kcs_model_quiet(&m));
	/* WRITE_START, byte, WRITE_END, byte, then a READ per byte. */
	ck_assert_uint_eq(m.st.writes, 4 + DEVID_LEN);
	ck_assert_uint_eq(m.st.attempts, 1);
	ck_assert_uint_eq(m.st.aborts, 0);
	ck_assert_int_eq(kcs_sm_event(&sm, 0), KCS_IDLE);
	/* The result stays until the next start. */
	ck_assert_uint_eq(kcs_sm_get_result(&sm, res, sizeof(res)), DEVID_LEN);
	assert_devid(transact(get_devid, 2, 10));
	assert_stats(2, 0, 0, 0, 0);
}
END_TEST

static const unsigned int req_lens[] = { 2, 3, 4, 5, 16, 64, 200, 271, 272 };

START_TEST(test_request_lengths)
{
	unsigned int len = req_lens[_i], i;
	u8 req[KCS_MAX_REQUEST];
	u8 x = 0;

	m.cfg.handler = summary_handler;
	m.cfg.ibf_polls = 1;
	req[0] = 0x2c;
	req[1] = 0x42;
	for (i = 2; i < len; i++)
		req[i] = (u8)(i * 13 + 1);
	for (i = 0; i < len; i++)
		x ^= req[i];
	ck_assert_int_eq(transact(req, len, 5), KCS_DONE);
	ck_assert_uint_eq(m.last_req_len, len);
	ck_assert_mem_eq(m.last_req, req, len);
	ck_assert_uint_eq(res_len, 6);
	ck_assert_uint_eq(res[0], 0x2c | 4);
	ck_assert_uint_eq(res[1], 0x42);
	ck_assert_uint_eq(res[2], 0);
	ck_assert_uint_eq(res[3] | res[4] << 8, len);
	ck_assert_uint_eq(res[5], x);
	ck_assert_uint_eq(m.st.writes, len + 2 + 6);
	assert_clean();
	assert_stats(1, 0, 0, 0, 0);
}
END_TEST

static const unsigned int resp_lens[] = { 3, 4, 5, 100, 271, 272 };

START_TEST(test_response_lengths)
{
	unsigned int len = resp_lens[_i], i;
	static const u8 req[] = { 0x30, 0x55, 0x01 };

	use_sized(len);
	m.cfg.obf_us = 3;
	ck_assert_int_eq(transact(req, 3, 2), KCS_DONE);
	ck_assert_uint_eq(res_len, len);
	ck_assert_uint_eq(res[0], 0x34);
	ck_assert_uint_eq(res[1], 0x55);
	ck_assert_uint_eq(res[2], 0);
	for (i = 3; i < len; i++)
		ck_assert_uint_eq(res[i], pat(i));
	ck_assert(kcs_model_quiet(&m));
	assert_clean();
	assert_stats(1, 0, 0, 0, 0);
}
END_TEST

static const unsigned int long_lens[] = { 273, 300, 2 * KCS_MAX_RESPONSE };

START_TEST(test_response_too_long)
{
	unsigned int len = long_lens[_i], i;

	use_sized(len);
	ck_assert_int_eq(transact(get_devid, 2, 1), KCS_DONE);
	ck_assert_uint_eq(res_len, KCS_MAX_RESPONSE);
	ck_assert_uint_eq(res[0], 0x1c);
	ck_assert_uint_eq(res[1], 0x01);
	ck_assert_uint_eq(res[2], KCS_CC_TRUNCATED);
	for (i = 3; i < KCS_MAX_RESPONSE; i++)
		ck_assert_uint_eq(res[i], pat(i));
	/* The rest was drained: the BMC finished normally. */
	ck_assert(kcs_model_quiet(&m));
	ck_assert_uint_eq(m.st.data_reads, len + 1 + 3);
	assert_clean();
	assert_stats(1, 0, 0, 0, 0);
}
END_TEST

START_TEST(test_response_endless)
{
	use_sized(KCS_MODEL_BUF);
	sm.max_retries = 2;
	ck_assert_int_eq(transact(get_devid, 2, 1), KCS_HOSED);
	ck_assert_uint_eq(res_len, 3);
	ck_assert_uint_eq(res[0], 0x1c);
	ck_assert_uint_eq(res[1], 0x01);
	ck_assert_uint_eq(res[2], KCS_CC_UNSPECIFIED);
	assert_stats(1, 2, 0, 1, 3);
	ck_assert_uint_eq(m.st.attempts, 3);
	assert_clean();
	/* The BMC is left mid-response; the next transaction cleans up. */
	use_sized(10);
	ck_assert_int_eq(transact(get_devid, 2, 1), KCS_DONE);
	ck_assert_uint_eq(res_len, 10);
	ck_assert_uint_eq(res[2], 0);
	assert_stats(2, 3, 0, 1, 4);
}
END_TEST

START_TEST(test_response_too_short)
{
	static const u8 req[] = { 0x18, 0x22 };
	static const u8 want[] = { 0x1c, 0x22, 0xff };

	use_sized((unsigned int)_i); /* 0, 1 or 2 bytes */
	ck_assert_int_eq(transact(req, 2, 1), KCS_DONE);
	ck_assert_uint_eq(res_len, 3);
	ck_assert_mem_eq(res, want, 3);
	ck_assert(kcs_model_quiet(&m));
	assert_clean();
	assert_stats(1, 0, 0, 0, 0);
}
END_TEST

START_TEST(test_dropped_and_extra_bytes)
{
	static const u8 junk[] = { 0xa5, 0xa4, 0xa7 };

	m.cfg.drop_resp = 5;
	ck_assert_int_eq(transact(get_devid, 2, 1), KCS_DONE);
	ck_assert_uint_eq(res_len, DEVID_LEN - 5);
	ck_assert_mem_eq(res, devid_resp, DEVID_LEN - 5);

	m.cfg.drop_resp = 16; /* two bytes left: too short */
	ck_assert_int_eq(transact(get_devid, 2, 1), KCS_DONE);
	ck_assert_uint_eq(res_len, 3);
	ck_assert_uint_eq(res[2], KCS_CC_UNSPECIFIED);

	m.cfg.drop_resp = 0;
	m.cfg.extra_resp = 3;
	ck_assert_int_eq(transact(get_devid, 2, 1), KCS_DONE);
	ck_assert_uint_eq(res_len, DEVID_LEN + 3);
	ck_assert_mem_eq(res, devid_resp, DEVID_LEN);
	ck_assert_mem_eq(res + DEVID_LEN, junk, 3);
	assert_clean();
	assert_stats(3, 0, 0, 0, 0);
}
END_TEST

START_TEST(test_dummy_byte_variants)
{
	/* No dummy bytes in the write phase. */
	m.cfg.dummy_on_write = false;
	assert_devid(transact(get_devid, 2, 1));
	/* No final dummy byte at all: tolerated, no timeout. */
	m.cfg.dummy_on_write = true;
	m.cfg.no_final_dummy = true;
	assert_devid(transact(get_devid, 2, 1));
	ck_assert(kcs_model_quiet(&m));
	assert_stats(2, 0, 0, 0, 0);
}
END_TEST

START_TEST(test_small_result_buffer)
{
	u8 buf[8];

	assert_devid(transact(get_devid, 2, 1));
	ck_assert_uint_eq(kcs_sm_get_result(&sm, buf, 2), 2);
	ck_assert_uint_eq(buf[0], 0x1c);
	ck_assert_uint_eq(buf[1], 0x01);
	ck_assert_uint_eq(kcs_sm_get_result(&sm, buf, 5), 5);
	ck_assert_uint_eq(buf[2], KCS_CC_TRUNCATED);
	ck_assert_mem_eq(buf + 3, devid_resp + 3, 2);
	/* A short copy does not spoil the stored result. */
	ck_assert_uint_eq(kcs_sm_get_result(&sm, res, sizeof(res)), DEVID_LEN);
	ck_assert_mem_eq(res, devid_resp, DEVID_LEN);
}
END_TEST

/* ---- kcs_sm_start() errors and SMS_ATN --------------------------------- */

START_TEST(test_start_errors)
{
	u8 big[KCS_MAX_REQUEST + 10];

	memset(big, 0x18, sizeof(big));
	ck_assert_int_eq(kcs_sm_start(&sm, big, 0), KCS_CC_REQ_TOO_SHORT);
	ck_assert_int_eq(kcs_sm_start(&sm, big, 1), KCS_CC_REQ_TOO_SHORT);
	ck_assert_int_eq(kcs_sm_start(&sm, big, KCS_MAX_REQUEST + 1),
			 KCS_CC_REQ_TOO_LONG);
	ck_assert_int_eq(kcs_sm_start(&sm, big, sizeof(big)),
			 KCS_CC_REQ_TOO_LONG);
	ck_assert(kcs_sm_idle(&sm));
	ck_assert_uint_eq(m.st.writes, 0);

	ck_assert_int_eq(kcs_sm_start(&sm, get_devid, 2), 0);
	ck_assert_int_eq(kcs_sm_event(&sm, 0), KCS_CALL_AGAIN);
	ck_assert_int_eq(kcs_sm_start(&sm, big, 2), KCS_CC_NOT_IN_STATE);
	ck_assert_int_eq(KCS_CC_NOT_IN_STATE, 0xd5);
	/* The refused start did not disturb the running one. */
	ck_assert_int_eq(drive(1), KCS_DONE);
	res_len = kcs_sm_get_result(&sm, res, sizeof(res));
	assert_devid(KCS_DONE);
	assert_stats(1, 0, 0, 0, 0);

	kcs_sm_abort(&sm);
	ck_assert_int_eq(kcs_sm_start(&sm, get_devid, 2), KCS_CC_NOT_IN_STATE);
	ck_assert_int_eq(drive(1), KCS_IDLE);
	ck_assert_int_eq(kcs_sm_start(&sm, get_devid, 2), 0);
}
END_TEST

START_TEST(test_sms_atn)
{
	ck_assert_int_eq(kcs_sm_event(&sm, 0), KCS_IDLE);
	kcs_model_set_attn(&m, true);
	ck_assert_int_eq(kcs_sm_event(&sm, 0), KCS_ATTN);
	ck_assert_int_eq(kcs_sm_event(&sm, 10), KCS_ATTN);
	/* A transaction is not disturbed by it; ATTN is reported after. */
	ck_assert_int_eq(kcs_sm_start(&sm, get_devid, 2), 0);
	ck_assert_int_eq(drive(1), KCS_DONE);
	res_len = kcs_sm_get_result(&sm, res, sizeof(res));
	assert_devid(KCS_DONE);
	ck_assert_int_eq(kcs_sm_event(&sm, 0), KCS_ATTN);
	kcs_model_set_attn(&m, false);
	ck_assert_int_eq(kcs_sm_event(&sm, 0), KCS_IDLE);
	/* A stray output byte while idle is drained. */
	m.odr = 0x77;
	m.status |= KCS_ST_OBF;
	ck_assert_int_eq(kcs_sm_event(&sm, 0), KCS_IDLE);
	ck_assert(!(m.status & KCS_ST_OBF));
	ck_assert_uint_eq(m.st.writes, 4 + DEVID_LEN);
}
END_TEST

/* A port whose registers read a fixed status (and 0xff data). */
static u8 fixed_status;
static u8 fixed_inb(void *ctx, unsigned int reg)
{
	(void)ctx;
	return reg == KCS_REG_STATUS ? fixed_status : 0xff;
}

static void fixed_outb(void *ctx, unsigned int reg, u8 val)
{
	(void)ctx;
	(void)reg;
	(void)val;
}

static const struct kcs_io_ops fixed_ops = { fixed_inb, fixed_outb };

/* Idle with the status reading 0xff (no BMC at the port): no SMS_ATN. */
START_TEST(test_status_ff_idle)
{
	kcs_sm_init(&sm, &fixed_ops, NULL);
	fixed_status = 0xff;
	ck_assert_int_eq(kcs_sm_event(&sm, 0), KCS_IDLE);
	ck_assert_int_eq(kcs_sm_event(&sm, 10), KCS_IDLE);
	/* IBF up alone hides SMS_ATN too; without it ATN is seen again. */
	fixed_status = KCS_ST_IBF | KCS_ST_SMS_ATN;
	ck_assert_int_eq(kcs_sm_event(&sm, 0), KCS_IDLE);
	fixed_status = KCS_ST_SMS_ATN;
	ck_assert_int_eq(kcs_sm_event(&sm, 0), KCS_ATTN);
}
END_TEST

/* Answers with the request's netfn + 3 (another function) or cmd + 1. */
static unsigned int wrong_how;
static unsigned int wrong_handler(void *ctx, const u8 *req, unsigned int len,
				  u8 *resp, unsigned int max)
{
	unsigned int n = kcs_model_default_handler(ctx, req, len, resp, max);

	if (wrong_how == 1)
		resp[1]++;
	else if (wrong_how == 2)
		resp[0] = (u8)(resp[0] + (2 << 2));
	return n;
}

/* An answer to another netfn/cmd: cc 0xff, counted, as stock's handler. */
START_TEST(test_answer_mismatch)
{
	static const u8 want[] = { 0x1c, 0x01, 0xff };

	m.cfg.handler = wrong_handler;
	for (wrong_how = 1; wrong_how <= 2; wrong_how++) {
		ck_assert_int_eq(transact(get_devid, 2, 1), KCS_DONE);
		ck_assert_uint_eq(res_len, 3);
		ck_assert_mem_eq(res, want, 3);
		ck_assert_uint_eq(sm.stats.mismatches, wrong_how);
	}
	ck_assert_uint_eq(sm.bad_netfn, 0x1c + (2 << 2));
	ck_assert_uint_eq(sm.bad_cmd, 0x01);
	/* A right answer passes, LUN bits included. */
	wrong_how = 0;
	assert_devid(transact(get_devid, 2, 1));
	ck_assert_uint_eq(sm.stats.mismatches, 2);
	assert_stats(3, 0, 0, 0, 0);
}
END_TEST

/* ---- timeouts ---------------------------------------------------------- */

/* Write numbers of Get Device ID: WRITE_START, 0x18, WRITE_END, 0x01. */
START_TEST(test_ibf_stall_hosed)
{
	unsigned int at = (unsigned int)_i; /* 1..4 */
	u64 ideal = 11 * DEF_TIMEOUT;

	m.cfg.stall_ibf_at = at;
	ck_assert_int_eq(transact(get_devid, 2, 1000), KCS_HOSED);
	ck_assert_uint_eq(res_len, 3);
	ck_assert_uint_eq(res[0], 0x1c);
	ck_assert_uint_eq(res[1], 0x01);
	ck_assert_uint_eq(res[2], KCS_CC_TIMEOUT);
	assert_stats(1, 10, 11, 1, 0);
	/* Eleven 5 s waits, each measured to within a poll or two. */
	ck_assert_uint_ge(m.now_us, ideal);
	ck_assert_uint_le(m.now_us, ideal + 11 * 2000);
	ck_assert(wait_seen &
		  (1u << (at == 4 ? KCS_WAIT_RESPONSE : KCS_WAIT_IBF)));
	ck_assert(wait_seen & (1u << KCS_WAIT_RECOVERY));
	ck_assert_uint_eq(m.st.writes, at); /* nothing written after it */
	assert_clean();
}
END_TEST

START_TEST(test_ibf_stall_then_recovers)
{
	m.cfg.stall_ibf_at = 1;
	m.cfg.stall_ibf_us = 12 * S_US; /* BMC busy for 12 s, once */
	m.cfg.fault_attempts = 1;
	assert_devid(transact(get_devid, 2, 1000));
	assert_stats(1, 2, 2, 0, 0);
	ck_assert_uint_eq(m.st.attempts, 2);
	ck_assert_uint_eq(m.st.aborts, 1);
	ck_assert_uint_ge(m.now_us, 12 * S_US);
	ck_assert_uint_le(m.now_us, 12 * S_US + 5000);
}
END_TEST

static const unsigned int hung_attempts[] = { 1, 3, 10 };

START_TEST(test_hung_first_k_attempts)
{
	unsigned int k = hung_attempts[_i];

	m.cfg.stall_obf_at = 1; /* never answers the request */
	m.cfg.fault_attempts = k;
	assert_devid(transact(get_devid, 2, 2000));
	assert_stats(1, k, k, 0, 0);
	ck_assert_uint_eq(m.st.attempts, k + 1);
	ck_assert_uint_eq(m.st.aborts, k);
	ck_assert(wait_seen & (1u << KCS_WAIT_RESPONSE));
}
END_TEST

START_TEST(test_hung_exhausts_retries)
{
	m.cfg.stall_obf_at = 1;
	m.cfg.fault_attempts = 11;
	ck_assert_int_eq(transact(get_devid, 2, 2000), KCS_HOSED);
	ck_assert_uint_eq(res[2], KCS_CC_TIMEOUT);
	assert_stats(1, 10, 11, 1, 0);
	ck_assert_uint_eq(m.st.attempts, 11);
	/* The BMC has come back: the next request works. */
	assert_devid(transact(get_devid, 2, 2000));
	assert_stats(2, 11, 11, 1, 1);
	ck_assert_uint_eq(m.st.attempts, 12);
}
END_TEST

/* Response byte 2, 10, the last (18) and the final dummy (19). */
static const unsigned int obf_stall_at[] = { 2, 10, 18, 19 };

START_TEST(test_obf_stall_mid_response)
{
	m.cfg.stall_obf_at = obf_stall_at[_i];
	m.cfg.fault_attempts = 1;
	assert_devid(transact(get_devid, 2, 1000));
	assert_stats(1, 1, 1, 0, 0);
	ck_assert(wait_seen & (1u << KCS_WAIT_OBF));
	ck_assert(kcs_model_quiet(&m));
}
END_TEST

START_TEST(test_obf_stall_hosed_bounded)
{
	m.cfg.stall_obf_at = 5;
	sm.max_retries = 3;
	ck_assert_int_eq(transact(get_devid, 2, 1000), KCS_HOSED);
	ck_assert_uint_eq(res[2], KCS_CC_TIMEOUT);
	assert_stats(1, 3, 4, 1, 0);
	ck_assert_uint_le(m.now_us, 4 * (DEF_TIMEOUT + 2000));
}
END_TEST

/*
 * A BMC whose IBF flickers while the host waits for OBF (found by
 * fuzz_kcs_sm): it takes every write at once, then shows READ with IBF
 * set on every other status read and never offers a byte. Only a host
 * write sets IBF, so the flicker must not restart the OBF timer: the
 * machine has to give up (hosed, cc 0xc3) within its timeouts and retries
 * instead of waiting forever (an error cc: 0xc3, or 0xff when the error
 * exit fails too).
 */
struct flap {
	bool writing, reading; /* the phase the host has driven it into */
	bool end_next;	       /* WRITE_END seen: the next data byte ends */
	unsigned int reads;
};

static u8 flap_inb(void *ctx, unsigned int reg)
{
	struct flap *f = ctx;

	if (reg == KCS_REG_DATA)
		return 0;
	if (f->reading)
		return (u8)(KCS_STATE_READ << 6 |
			    (f->reads++ & 1 ? KCS_ST_IBF : 0));
	return f->writing ? KCS_STATE_WRITE << 6 : KCS_STATE_IDLE << 6;
}

static void flap_outb(void *ctx, unsigned int reg, u8 val)
{
	struct flap *f = ctx;

	if (reg == KCS_REG_STATUS) {
		f->end_next = val == KCS_CC_WRITE_END;
		f->writing = val == KCS_CC_WRITE_START || f->end_next;
		f->reading = false;
		return;
	}
	if (f->end_next) {
		f->writing = false;
		f->reading = true;
	}
	f->end_next = false;
}

static const struct kcs_io_ops flap_ops = { flap_inb, flap_outb };

START_TEST(test_ibf_flap_while_reading)
{
	struct flap f = { 0 };
	enum kcs_result r = KCS_CALL_AGAIN;
	u64 elapsed = 0, now = 0;
	unsigned int i;

	kcs_sm_init(&sm, &flap_ops, &f);
	sm.max_retries = 2;
	sm.obf_timeout_us = 5000;
	sm.ibf_timeout_us = 5000;
	ck_assert_int_eq(kcs_sm_start(&sm, get_devid, 2), 0);
	for (i = 0; i < 100000; i++) {
		r = kcs_sm_event(&sm, elapsed);
		if (r != KCS_CALL_AGAIN && r != KCS_WAIT)
			break;
		elapsed = r == KCS_WAIT ? 100 : 0;
		now += elapsed;
	}
	ck_assert_msg(r == KCS_HOSED, "no end after %u steps (%llu us)", i,
		      (unsigned long long)now);
	res_len = kcs_sm_get_result(&sm, res, sizeof(res));
	ck_assert_uint_ge(res_len, 3);
	/* a timeout, or the error exit failing against this BMC */
	ck_assert(res[2] == KCS_CC_TIMEOUT || res[2] == KCS_CC_UNSPECIFIED);
	/* each of the 3 attempts waits at most about one OBF timeout */
	ck_assert_uint_le(now, 3 * (5000 + 5000) + 1000);
}
END_TEST

START_TEST(test_timeout_many_small_steps)
{
	enum kcs_result r = KCS_CALL_AGAIN;
	unsigned int n = 0, i;

	m.cfg.stall_obf_at = 1;
	sm.max_retries = 0;
	sm.obf_timeout_us = 1000;
	ck_assert_int_eq(kcs_sm_start(&sm, get_devid, 2), 0);
	/* 1 us per call, also on the calls that make progress. */
	for (i = 0; i < 5000; i++) {
		r = kcs_sm_event(&sm, 1);
		kcs_model_advance(&m, 1);
		if (r == KCS_WAIT) {
			ck_assert_int_eq(kcs_sm_wait_kind(&sm),
					 KCS_WAIT_RESPONSE);
			n++;
		} else if (r != KCS_CALL_AGAIN) {
			break;
		}
	}
	/* 999 waits charge 999 us; the 1000th call reaches 1000 us. */
	ck_assert_int_eq(r, KCS_HOSED);
	ck_assert_uint_eq(n, 999);
	assert_stats(1, 0, 1, 1, 0);
}
END_TEST

START_TEST(test_timeout_default_in_ms_steps)
{
	m.cfg.stall_obf_at = 1;
	sm.max_retries = 0;
	ck_assert_int_eq(transact(get_devid, 2, 1000), KCS_HOSED);
	/* First wait charges the 0 us of the call after the last write. */
	ck_assert_uint_eq(waits, 5000);
	assert_stats(1, 0, 1, 1, 0);
}
END_TEST

static void run_to_first_wait(void)
{
	unsigned int i;

	for (i = 0; i < 100; i++) {
		enum kcs_result r = kcs_sm_event(&sm, 0);

		if (r == KCS_WAIT)
			return;
		ck_assert_int_eq(r, KCS_CALL_AGAIN);
	}
	ck_abort_msg("no wait");
}

START_TEST(test_timeout_one_big_step)
{
	static const u64 big[] = { DEF_TIMEOUT, DEF_TIMEOUT + 1, UINT64_MAX };
	unsigned int i;

	sm.max_retries = 0;
	for (i = 0; i < 3; i++) {
		/* A fresh hung BMC each time (no retries to clean up). */
		kcs_model_init(&m);
		m.cfg.stall_obf_at = 1;
		ck_assert_int_eq(kcs_sm_start(&sm, get_devid, 2), 0);
		run_to_first_wait();
		ck_assert_int_eq(kcs_sm_event(&sm, DEF_TIMEOUT - 1), KCS_WAIT);
		ck_assert_int_eq(kcs_sm_event(&sm, 1), KCS_HOSED);

		kcs_model_init(&m);
		m.cfg.stall_obf_at = 1;
		ck_assert_int_eq(kcs_sm_start(&sm, get_devid, 2), 0);
		run_to_first_wait();
		ck_assert_int_eq(kcs_sm_event(&sm, big[i]), KCS_HOSED);
		ck_assert_uint_eq(kcs_sm_get_result(&sm, res, sizeof(res)), 3);
		ck_assert_uint_eq(res[2], KCS_CC_TIMEOUT);
	}
	assert_stats(6, 0, 6, 6, 0);
}
END_TEST

START_TEST(test_idle_time_not_charged)
{
	/* Leave IBF stuck with the BMC, so a new start has to wait. */
	m.cfg.stall_ibf_at = 1;
	sm.max_retries = 0;
	ck_assert_int_eq(transact(get_devid, 2, 1000), KCS_HOSED);
	ck_assert(m.status & KCS_ST_IBF);

	ck_assert_int_eq(kcs_sm_start(&sm, get_devid, 2), 0);
	/* Ten idle seconds before the first call are not waiting time. */
	ck_assert_int_eq(kcs_sm_event(&sm, 10 * S_US), KCS_WAIT);
	ck_assert_int_eq(kcs_sm_wait_kind(&sm), KCS_WAIT_IBF);
	ck_assert_int_eq(kcs_sm_event(&sm, DEF_TIMEOUT - 1), KCS_WAIT);
	ck_assert_int_eq(kcs_sm_event(&sm, 1), KCS_HOSED);
	assert_stats(2, 0, 2, 2, 0);

	/* The same after kcs_sm_abort(). */
	kcs_sm_abort(&sm);
	ck_assert_int_eq(kcs_sm_event(&sm, 10 * S_US), KCS_WAIT);
	ck_assert_int_eq(kcs_sm_wait_kind(&sm), KCS_WAIT_RECOVERY);
	ck_assert_int_eq(kcs_sm_event(&sm, DEF_TIMEOUT - 1), KCS_WAIT);
	ck_assert_int_eq(kcs_sm_event(&sm, 1), KCS_HOSED);
}
END_TEST

START_TEST(test_timer_restarts_on_progress)
{
	/* 4 s to answer, 3 s per further byte: 58 s, never 5 s at once. */
	m.cfg.resp_us = 4 * S_US;
	m.cfg.obf_us = 3 * S_US;
	assert_devid(transact(get_devid, 2, 100000));
	assert_stats(1, 0, 0, 0, 0);
	ck_assert_uint_ge(m.now_us, 4 * S_US + 18 * 3 * S_US);

	/* A BMC taking 4.9 s per request byte is slow but fine ... */
	m.cfg.resp_us = 0;
	m.cfg.obf_us = 0;
	m.cfg.ibf_us = 4900000;
	assert_devid(transact(get_devid, 2, 100000));
	assert_stats(2, 0, 0, 0, 0);

	/* ... at 5.1 s it is not. */
	m.cfg.ibf_us = 5100000;
	sm.max_retries = 0;
	ck_assert_int_eq(transact(get_devid, 2, 100000), KCS_HOSED);
	ck_assert_uint_eq(res[2], KCS_CC_TIMEOUT);
	assert_stats(3, 0, 1, 1, 0);
}
END_TEST

START_TEST(test_short_timeouts_tunable)
{
	sm.ibf_timeout_us = 300;
	sm.obf_timeout_us = 700;
	sm.max_retries = 1;
	m.cfg.stall_obf_at = 1;
	ck_assert_int_eq(transact(get_devid, 2, 10), KCS_HOSED);
	ck_assert_uint_eq(waits, 2 * 70);
	kcs_model_init(&m);
	m.cfg.stall_ibf_at = 2;
	ck_assert_int_eq(transact(get_devid, 2, 10), KCS_HOSED);
	ck_assert_uint_eq(waits, 2 * 30);
	assert_stats(2, 2, 4, 2, 0);
}
END_TEST

/* ---- error state and the abort sequence -------------------------------- */

START_TEST(test_error_mid_write)
{
	unsigned int w = (unsigned int)_i; /* 1..7 for a 5-byte request */
	static const u8 req[] = { 0x18, 0x01, 0x11, 0x22, 0x33 };

	m.cfg.handler = summary_handler;
	m.cfg.error_at_write = w;
	m.cfg.fault_attempts = 1;
	ck_assert_int_eq(transact(req, 5, 1), KCS_DONE);
	ck_assert_uint_eq(res_len, 6);
	ck_assert_uint_eq(res[2], 0);
	ck_assert_uint_eq(res[3], 5);
	ck_assert_uint_eq(m.last_req_len, 5);
	ck_assert_mem_eq(m.last_req, req, 5);
	ck_assert_uint_eq(m.st.requests, 1);
	ck_assert_uint_eq(m.st.attempts, 2);
	ck_assert_uint_eq(m.st.aborts, 1);
	/* Nothing written after the failing write but the abort sequence
	 * (3 writes) and the retry (7 writes, 6 READs). */
	ck_assert_uint_eq(m.st.writes, w + 3 + 7 + 6);
	assert_stats(1, 1, 0, 0, 1);
	assert_clean();
	ck_assert(kcs_model_quiet(&m));
}
END_TEST

/* READ 1, 2, 9 and the READ after the last byte (18). */
static const unsigned int read_err_at[] = { 1, 2, 9, 18 };

START_TEST(test_error_mid_read)
{
	m.cfg.error_at_read = read_err_at[_i];
	m.cfg.fault_attempts = 1;
	assert_devid(transact(get_devid, 2, 1));
	ck_assert_uint_eq(m.st.writes, 4 + read_err_at[_i] + 3 + 4 + DEVID_LEN);
	ck_assert_uint_eq(m.st.requests, 2);
	ck_assert_uint_eq(m.st.aborts, 1);
	assert_stats(1, 1, 0, 0, 1);
	ck_assert(kcs_model_quiet(&m));
}
END_TEST

START_TEST(test_error_every_attempt)
{
	m.cfg.error_at_write = 2;
	sm.max_retries = 4;
	ck_assert_int_eq(transact(get_devid, 2, 1), KCS_HOSED);
	ck_assert_uint_eq(res_len, 3);
	ck_assert_uint_eq(res[2], KCS_CC_UNSPECIFIED);
	assert_stats(1, 4, 0, 1, 5);
	ck_assert_uint_eq(m.st.attempts, 5);
	ck_assert_uint_eq(m.st.aborts, 4);
	assert_clean();
}
END_TEST

START_TEST(test_not_idle_at_start)
{
	kcs_model_force_error(&m);
	assert_devid(transact(get_devid, 2, 1));
	assert_stats(1, 1, 0, 0, 1);
	ck_assert_uint_eq(m.st.attempts, 1); /* recovered before starting */
	ck_assert_uint_eq(m.st.aborts, 1);
}
END_TEST

START_TEST(test_abort_ignored_twice)
{
	m.cfg.error_at_write = 2;
	m.cfg.fault_attempts = 1;
	m.cfg.abort_mode = KCS_MODEL_ABORT_IGNORE;
	m.cfg.bad_aborts = 2;
	assert_devid(transact(get_devid, 2, 1));
	assert_stats(1, 3, 0, 0, 3);
	ck_assert_uint_eq(m.st.aborts, 3);
	/* Each ignored abort is given up as soon as the state is not READ:
	 * 2 writes for attempt 1, 2 + 2 for the ignored aborts, 3 for the
	 * good one, 4 + 18 for attempt 2. */
	ck_assert_uint_eq(m.st.writes, 2 + 4 + 3 + 4 + DEVID_LEN);
}
END_TEST

START_TEST(test_abort_without_status)
{
	m.cfg.error_at_write = 2;
	m.cfg.fault_attempts = 1;
	m.cfg.abort_mode = KCS_MODEL_ABORT_NO_STATUS;
	m.cfg.bad_aborts = 1;
	assert_devid(transact(get_devid, 2, 1000));
	assert_stats(1, 2, 1, 0, 1);
	ck_assert_uint_eq(m.st.aborts, 2);
}
END_TEST

START_TEST(test_abort_stays_in_read)
{
	m.cfg.error_at_write = 2;
	m.cfg.fault_attempts = 1;
	m.cfg.abort_mode = KCS_MODEL_ABORT_STAY_READ;
	m.cfg.bad_aborts = 1;
	assert_devid(transact(get_devid, 2, 1));
	assert_stats(1, 2, 0, 0, 2);
}
END_TEST

START_TEST(test_abort_never_answered)
{
	m.cfg.error_at_write = 2;
	m.cfg.abort_mode = (enum kcs_model_abort)(1 + _i);
	sm.max_retries = 3;
	ck_assert_int_eq(transact(get_devid, 2, 1000), KCS_HOSED);
	ck_assert_uint_eq(res_len, 3);
	ck_assert_uint_eq(res[2],
			  m.cfg.abort_mode == KCS_MODEL_ABORT_NO_STATUS ?
				  KCS_CC_TIMEOUT :
				  KCS_CC_UNSPECIFIED);
	ck_assert_uint_eq(sm.stats.retries, 3);
	ck_assert_uint_eq(sm.stats.hosed, 1);
	ck_assert_uint_eq(sm.stats.timeouts + sm.stats.protocol_errors, 4);
	assert_clean();
}
END_TEST

/* ---- kcs_sm_abort() ---------------------------------------------------- */

START_TEST(test_abort_mid_transaction)
{
	unsigned int k = (unsigned int)_i, i;
	u64 elapsed = 0;

	m.cfg.ibf_polls = 1;
	m.cfg.resp_polls = 2;
	ck_assert_int_eq(kcs_sm_start(&sm, get_devid, 2), 0);
	for (i = 0; i < k; i++) {
		enum kcs_result r = kcs_sm_event(&sm, elapsed);

		elapsed = r == KCS_WAIT ? 7 : 0;
		kcs_model_advance(&m, elapsed);
		if (r != KCS_CALL_AGAIN && r != KCS_WAIT)
			break;
	}
	kcs_sm_abort(&sm);
	ck_assert(!kcs_sm_idle(&sm));
	ck_assert_int_eq(drive(7), KCS_IDLE);
	ck_assert(kcs_sm_idle(&sm));
	ck_assert_uint_eq(kcs_sm_get_result(&sm, res, sizeof(res)), 0);
	ck_assert(kcs_model_quiet(&m));
	ck_assert_uint_eq(m.st.aborts, 1);
	ck_assert_uint_eq(sm.stats.aborts, 1);
	ck_assert_uint_eq(sm.stats.retries, 0);
	ck_assert_int_eq(kcs_sm_event(&sm, 0), KCS_IDLE);

	assert_devid(transact(get_devid, 2, 7));
	ck_assert_uint_eq(sm.stats.transactions, 2);
	ck_assert_uint_eq(sm.stats.retries, 0);
}
END_TEST

START_TEST(test_abort_when_idle)
{
	kcs_sm_abort(&sm);
	ck_assert(!kcs_sm_idle(&sm));
	ck_assert_int_eq(drive(1), KCS_IDLE);
	ck_assert_uint_eq(m.st.aborts, 1);
	ck_assert(kcs_model_quiet(&m));

	kcs_model_set_attn(&m, true);
	kcs_sm_abort(&sm);
	ck_assert_int_eq(drive(1), KCS_ATTN);
	ck_assert_uint_eq(m.st.aborts, 2);
	ck_assert_uint_eq(sm.stats.aborts, 2);
	assert_clean();
}
END_TEST

START_TEST(test_abort_sequence_checks_states)
{
	/* The BMC stays in READ after the first abort: kcs_sm_abort() must
	 * not call the interface idle before it really is. */
	m.cfg.abort_mode = KCS_MODEL_ABORT_STAY_READ;
	m.cfg.bad_aborts = 1;
	kcs_sm_abort(&sm);
	ck_assert_int_eq(drive(1), KCS_IDLE);
	ck_assert(kcs_model_quiet(&m));
	ck_assert_uint_eq(m.st.aborts, 2);
	assert_stats(0, 1, 0, 0, 1);

	/* It ignores the first abort (stays in ERROR state). */
	kcs_model_init(&m);
	m.cfg.abort_mode = KCS_MODEL_ABORT_IGNORE;
	m.cfg.bad_aborts = 1;
	kcs_sm_abort(&sm);
	ck_assert_int_eq(drive(1), KCS_IDLE);
	ck_assert(kcs_model_quiet(&m));
	ck_assert_uint_eq(m.st.aborts, 2);
	ck_assert_uint_eq(m.st.writes, 2 + 3);
	assert_stats(0, 2, 0, 0, 2);
	assert_clean();
}
END_TEST

START_TEST(test_abort_drops_result)
{
	assert_devid(transact(get_devid, 2, 1));
	kcs_sm_abort(&sm);
	ck_assert_uint_eq(kcs_sm_get_result(&sm, res, sizeof(res)), 0);
	ck_assert_int_eq(drive(1), KCS_IDLE);
	ck_assert_uint_eq(kcs_sm_get_result(&sm, res, sizeof(res)), 0);
}
END_TEST

START_TEST(test_abort_hung_bmc)
{
	m.cfg.stall_ibf_at = 2;
	sm.max_retries = 2;
	ck_assert_int_eq(kcs_sm_start(&sm, get_devid, 2), 0);
	run_to_first_wait();
	kcs_sm_abort(&sm);
	ck_assert_int_eq(drive(1000), KCS_HOSED);
	ck_assert(kcs_sm_idle(&sm));
	ck_assert_uint_eq(kcs_sm_get_result(&sm, res, sizeof(res)), 0);
	assert_stats(1, 2, 3, 1, 0);
	ck_assert_uint_eq(sm.stats.aborts, 1);
	/* Once the BMC lets go, the interface is usable again. */
	m.cfg.stall_ibf_at = 0;
	assert_devid(transact(get_devid, 2, 1000));
}
END_TEST

/* ---- wait kinds, statistics, randomised faults -------------------------- */

START_TEST(test_wait_kinds)
{
	m.cfg.ibf_us = 50;
	m.cfg.resp_us = 500;
	m.cfg.obf_us = 50;
	m.cfg.error_at_read = 3;
	m.cfg.fault_attempts = 1;
	assert_devid(transact(get_devid, 2, 10));
	ck_assert(wait_seen & (1u << KCS_WAIT_IBF));
	ck_assert(wait_seen & (1u << KCS_WAIT_RESPONSE));
	ck_assert(wait_seen & (1u << KCS_WAIT_OBF));
	ck_assert(wait_seen & (1u << KCS_WAIT_RECOVERY));
	ck_assert_int_eq(kcs_sm_wait_kind(&sm), KCS_WAIT_NONE);
}
END_TEST

START_TEST(test_stats_sequence)
{
	assert_devid(transact(get_devid, 2, 1));
	assert_stats(1, 0, 0, 0, 0);

	m.cfg.error_at_write = 3;
	m.cfg.fault_attempts = 2; /* attempt 2 is this one's first */
	assert_devid(transact(get_devid, 2, 1));
	assert_stats(2, 1, 0, 0, 1);

	m.cfg.error_at_write = 0;
	m.cfg.fault_attempts = 0;
	m.cfg.stall_obf_at = 1;
	sm.max_retries = 1;
	ck_assert_int_eq(transact(get_devid, 2, 1000), KCS_HOSED);
	assert_stats(3, 2, 2, 1, 1);

	m.cfg.stall_obf_at = 0;
	kcs_sm_abort(&sm);
	ck_assert_int_eq(drive(1), KCS_IDLE);
	assert_stats(3, 2, 2, 1, 1);
	ck_assert_uint_eq(sm.stats.aborts, 1);

	ck_assert_int_eq(kcs_sm_start(&sm, get_devid, 1), KCS_CC_REQ_TOO_SHORT);
	assert_stats(3, 2, 2, 1, 1);
}
END_TEST

static u32 rng_state;

static u32 rnd(u32 n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return n ? rng_state % n : 0;
}

static void random_faults(struct kcs_model_cfg *c)
{
	c->ibf_polls = rnd(3);
	c->ibf_us = rnd(4) ? rnd(300) : rnd(3000);
	c->resp_polls = rnd(4);
	c->resp_us = rnd(3000);
	c->obf_us = rnd(200);
	c->dummy_on_write = rnd(2);
	c->no_final_dummy = !rnd(4);
	c->fault_attempts = rnd(5);
	c->stall_ibf_at = rnd(2) ? 0 : 1 + rnd(8);
	c->stall_ibf_us = rnd(2) ? 0 : rnd(6000);
	c->stall_obf_at = rnd(2) ? 0 : 1 + rnd(12);
	c->error_at_write = rnd(2) ? 0 : 1 + rnd(8);
	c->error_at_read = rnd(2) ? 0 : 1 + rnd(12);
	c->drop_resp = rnd(3) ? 0 : rnd(12);
	c->extra_resp = rnd(3) ? 0 : rnd(2) ? rnd(20) : rnd(700);
	c->abort_mode = (enum kcs_model_abort)rnd(4);
	c->bad_aborts = rnd(3);
}

START_TEST(test_random_faults_always_end)
{
	unsigned int seed, i, len;
	u8 req[KCS_MAX_REQUEST];
	enum kcs_result r;

	for (seed = 1; seed <= 400; seed++) {
		setup();
		rng_state = seed * 2654435761u;
		random_faults(&m.cfg);
		use_sized(rnd(2) ? 3 + rnd(20) : rnd(300));
		sm.ibf_timeout_us = 2000;
		sm.obf_timeout_us = 4000;
		sm.max_retries = 1 + rnd(3);
		len = 2 + rnd(20);
		for (i = 0; i < len; i++)
			req[i] = (u8)rnd(256);
		req[0] &= 0xfc;
		r = transact(req, len, 1 + rnd(400));
		ck_assert_msg(r == KCS_DONE || r == KCS_HOSED,
			      "seed %u: answer %d", seed, r);
		ck_assert_uint_ge(res_len, 3);
		ck_assert_uint_le(res_len, KCS_MAX_RESPONSE);
		ck_assert_uint_eq(res[0], req[0] | 4);
		if (r == KCS_HOSED)
			ck_assert(res[2] == KCS_CC_TIMEOUT ||
				  res[2] == KCS_CC_UNSPECIFIED);
		ck_assert_uint_le(sm.stats.retries, sm.max_retries);
		ck_assert_uint_eq(sm.stats.hosed, r == KCS_HOSED);
		ck_assert_uint_eq(m.st.violations, 0);

		/* Whatever state the BMC was left in, a healthy one works. */
		memset(&m.cfg, 0, sizeof(m.cfg));
		m.cfg.dummy_on_write = true;
		assert_devid(transact(get_devid, 2, 50));
		ck_assert(kcs_model_quiet(&m));
	}
}
END_TEST

static Suite *kcs_sm_suite(void)
{
	Suite *s = suite_create("kcs_sm");
	TCase *tc;

	tc = tcase_create("normal");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_init_defaults);
	tcase_add_test(tc, test_get_device_id);
	tcase_add_loop_test(tc, test_request_lengths, 0,
			    sizeof(req_lens) / sizeof(req_lens[0]));
	tcase_add_loop_test(tc, test_response_lengths, 0,
			    sizeof(resp_lens) / sizeof(resp_lens[0]));
	tcase_add_loop_test(tc, test_response_too_long, 0,
			    sizeof(long_lens) / sizeof(long_lens[0]));
	tcase_add_test(tc, test_response_endless);
	tcase_add_loop_test(tc, test_response_too_short, 0, 3);
	tcase_add_test(tc, test_dropped_and_extra_bytes);
	tcase_add_test(tc, test_dummy_byte_variants);
	tcase_add_test(tc, test_small_result_buffer);
	tcase_add_test(tc, test_start_errors);
	tcase_add_test(tc, test_sms_atn);
	tcase_add_test(tc, test_status_ff_idle);
	tcase_add_test(tc, test_answer_mismatch);
	suite_add_tcase(s, tc);

	tc = tcase_create("timeouts");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_loop_test(tc, test_ibf_stall_hosed, 1, 5);
	tcase_add_test(tc, test_ibf_stall_then_recovers);
	tcase_add_loop_test(tc, test_hung_first_k_attempts, 0,
			    sizeof(hung_attempts) / sizeof(hung_attempts[0]));
	tcase_add_test(tc, test_hung_exhausts_retries);
	tcase_add_loop_test(tc, test_obf_stall_mid_response, 0,
			    sizeof(obf_stall_at) / sizeof(obf_stall_at[0]));
	tcase_add_test(tc, test_obf_stall_hosed_bounded);
	tcase_add_test(tc, test_timeout_many_small_steps);
	tcase_add_test(tc, test_ibf_flap_while_reading);
	tcase_add_test(tc, test_timeout_default_in_ms_steps);
	tcase_add_test(tc, test_timeout_one_big_step);
	tcase_add_test(tc, test_idle_time_not_charged);
	tcase_add_test(tc, test_timer_restarts_on_progress);
	tcase_add_test(tc, test_short_timeouts_tunable);
	suite_add_tcase(s, tc);

	tc = tcase_create("recovery");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_loop_test(tc, test_error_mid_write, 1, 8);
	tcase_add_loop_test(tc, test_error_mid_read, 0,
			    sizeof(read_err_at) / sizeof(read_err_at[0]));
	tcase_add_test(tc, test_error_every_attempt);
	tcase_add_test(tc, test_not_idle_at_start);
	tcase_add_test(tc, test_abort_ignored_twice);
	tcase_add_test(tc, test_abort_without_status);
	tcase_add_test(tc, test_abort_stays_in_read);
	tcase_add_loop_test(tc, test_abort_never_answered, 0, 3);
	suite_add_tcase(s, tc);

	tc = tcase_create("abort");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_loop_test(tc, test_abort_mid_transaction, 0, 70);
	tcase_add_test(tc, test_abort_when_idle);
	tcase_add_test(tc, test_abort_sequence_checks_states);
	tcase_add_test(tc, test_abort_drops_result);
	tcase_add_test(tc, test_abort_hung_bmc);
	suite_add_tcase(s, tc);

	tc = tcase_create("accounting");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_wait_kinds);
	tcase_add_test(tc, test_stats_sequence);
	tcase_add_test(tc, test_random_faults_always_end);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kcs_sm_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
