// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the KCS host state machine, kmod/kcs_sm.c.
 *
 * The input drives one machine through a series of transactions against
 * one of two BMCs:
 *
 *  - model: the simulated BMC of tests/unit/helpers/kcs_model.c, its delays and
 *    fault knobs (stalls, errors, dropped and extra response bytes, bad
 *    aborts) and its response to each request taken from the input;
 *  - chaos: no BMC at all: every status and data register read returns
 *    the next input byte, whatever the machine wrote.
 *
 * Input layout: byte 0 flags (bit 0 chaos, bits 1-2 max_retries, bits
 * 3-6 the length - 1 of the replayed tail, see below), byte 1 the IBF
 * timeout and byte 2 the OBF timeout in us, in model mode 12 bytes of
 * model configuration; then per transaction a 2-byte request length
 * (mod 320, so 0, 1 and more than KCS_MAX_REQUEST happen), the request, in
 * model mode a 2-byte response length (mod 640) and the response, and one
 * byte per kcs_sm_event() call: the elapsed time to report, or (0xe0 and
 * up) an abort, SMS_ATN toggle, start while busy or a huge elapsed time.
 * Once the input is used up its last 1-16 bytes are replayed forever, so
 * that a short input can describe a BMC that misbehaves periodically.
 *
 * Checks (a trap when one fails, besides ASan/UBSan): kcs_sm_start()'s
 * answer for every length and state, every transaction ends (KCS_DONE or
 * KCS_HOSED; after an abort KCS_IDLE/KCS_ATTN/KCS_HOSED) within a bound
 * computed from the timeouts and retries, the machine's indices stay
 * inside its buffers after every event, register access only to the two
 * registers, the write sequence of each attempt (WRITE_START, request
 * bytes, WRITE_END before the last byte, READ after each response byte),
 * results within both buffers with the documented truncation and
 * synthesised completion codes, the model never sees a protocol violation
 * and a fault-free model's response arrives intact.
 * Seeds: tests/fuzz/corpus/kcs_sm/, dictionary: tests/fuzz/kcs_sm.dict.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kcs_model.h"
#include "kcs_sm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

#define REQ_LEN_MOD	320
#define RESP_LEN_MOD	640
#define MAX_ABORTS	4	/* per input; each restarts the bound */
#define MAX_XACTS	64
#define ENDLESS		(2 * KCS_MAX_RESPONSE)

/* The input as a byte stream; past its end, the tail again and again. */
struct src {
	const uint8_t *p;
	size_t n, pos, tail;
	bool wrapped;
};

static uint8_t next(struct src *s)
{
	if (s->n == 0)
		return 0;
	if (s->pos >= s->n) {
		s->wrapped = true;
		s->pos = s->n - (s->tail < s->n ? s->tail : s->n);
	}
	return s->p[s->pos++];
}

static unsigned int next16(struct src *s)
{
	unsigned int v = next(s);

	return v | (unsigned int)next(s) << 8;
}

/* What the host wrote during the current attempt, checked write by write. */
enum wphase { W_NONE, W_STARTED, W_END_SENT, W_WRITTEN, W_ERR1, W_ERR2 };

struct fz {
	struct src in;
	bool chaos;
	struct kcs_sm sm;
	struct kcs_model m;

	/* Chaos mode: the host's writes since the last WRITE_START. */
	enum wphase wp;
	unsigned int wpos;

	/* The transaction in flight, and every request started so far: a
	 * BMC left holding the last byte of a given-up request may execute
	 * it any time later. */
	const uint8_t *req;
	unsigned int req_len;
	u8 sent[MAX_XACTS][KCS_MAX_REQUEST];
	unsigned int sent_len[MAX_XACTS];
	unsigned int nsent;
	bool aborted;
	uint8_t resp[RESP_LEN_MOD];
	unsigned int resp_len;
	bool exact;		/* the model answers resp[] unchanged */
	unsigned int aborts;
};

/* ---- chaos BMC: registers read from the input ---- */

static u8 chaos_inb(void *ctx, unsigned int reg)
{
	struct fz *f = ctx;

	CHECK(reg == KCS_REG_STATUS || reg == KCS_REG_DATA);
	return next(&f->in);
}

static void chaos_outb(void *ctx, unsigned int reg, u8 val)
{
	struct fz *f = ctx;

	CHECK(reg == KCS_REG_STATUS || reg == KCS_REG_DATA);
	if (reg == KCS_REG_STATUS) {
		switch (val) {
		case KCS_CC_WRITE_START:
			f->wp = W_STARTED;
			f->wpos = 0;
			break;
		case KCS_CC_WRITE_END:
			/* Only before the last byte. */
			CHECK(f->wp == W_STARTED && f->wpos + 1 == f->req_len);
			f->wp = W_END_SENT;
			break;
		case KCS_CC_GET_STATUS_ABORT:
			f->wp = W_ERR1;
			break;
		default:
			CHECK(0);	/* no other control code exists */
		}
		return;
	}
	switch (f->wp) {
	case W_STARTED:
		CHECK(f->wpos + 1 < f->req_len && val == f->req[f->wpos]);
		f->wpos++;
		break;
	case W_END_SENT:
		CHECK(f->wpos + 1 == f->req_len && val == f->req[f->wpos]);
		f->wp = W_WRITTEN;
		break;
	case W_WRITTEN:
		CHECK(val == KCS_CC_READ);
		break;
	case W_ERR1:
		CHECK(val == 0);	/* the abort's data byte */
		f->wp = W_ERR2;
		break;
	case W_ERR2:
		CHECK(val == KCS_CC_READ);	/* acknowledge the status */
		break;
	default:
		CHECK(0);	/* data before any WRITE_START */
	}
}

static const struct kcs_io_ops chaos_ops = {
	.inb = chaos_inb,
	.outb = chaos_outb,
};

/* ---- model BMC ---- */

static unsigned int model_handler(void *ctx, const u8 *req, unsigned int len,
				  u8 *resp, unsigned int max)
{
	struct fz *f = ctx;
	unsigned int n = f->resp_len < max ? f->resp_len : max, i;

	/* It executes what was sent, nothing else. */
	for (i = 0; i < f->nsent; i++)
		if (len == f->sent_len[i] && !memcmp(req, f->sent[i], len))
			break;
	CHECK(i < f->nsent);
	memcpy(resp, f->resp, n);
	return n;
}

static void model_setup(struct fz *f)
{
	struct kcs_model_cfg *c = &f->m.cfg;
	uint8_t b[12];
	size_t i;

	for (i = 0; i < sizeof(b); i++)
		b[i] = next(&f->in);
	kcs_model_init(&f->m);
	c->ibf_polls = b[0] & 3;
	c->resp_polls = (b[0] >> 2) & 7;
	c->dummy_on_write = !(b[0] & 0x20);
	c->no_final_dummy = b[0] & 0x40;
	c->ibf_us = b[1] & 0x3f;
	c->resp_us = b[2];
	c->obf_us = b[3] & 0x3f;
	c->fault_attempts = b[4] & 7;
	c->stall_ibf_at = b[5] & 0x0f;
	c->stall_ibf_us = (b[5] >> 4) * 40;
	c->stall_obf_at = b[6] & 0x1f;
	c->error_at_write = b[7] & 0x0f;
	c->error_at_read = b[7] >> 4;
	c->drop_resp = b[8] & 0x0f;
	c->extra_resp = b[9] & 0x80 ? (b[9] & 0x7f) * 8 : b[9] & 0x1f;
	c->abort_mode = (enum kcs_model_abort)(b[10] & 3);
	c->bad_aborts = (b[10] >> 2) & 3;
	c->handler = model_handler;
	c->handler_ctx = f;
	if (b[11] & 1)
		kcs_model_set_attn(&f->m, true);
	/* Only these change what a successful attempt delivers. */
	f->exact = !c->drop_resp && !c->extra_resp;
}

/* ---- driving the machine ---- */

/* Indices inside the machine's own arrays (ASan cannot see in a struct). */
static void check_sm(const struct kcs_sm *sm)
{
	CHECK(sm->req_len <= KCS_MAX_REQUEST);
	CHECK(sm->req_pos <= sm->req_len);
	CHECK(sm->resp_len <= ENDLESS + 1);
	CHECK(sm->retries_left <= sm->max_retries);
	if (sm->have_result)
		CHECK(sm->resp_len >= 3 && sm->resp_len <= KCS_MAX_RESPONSE);
}

/*
 * Events one transaction (or abort) may take. Per attempt: START, the
 * request, the response (up to the "endless" limit), its dummy byte and
 * the four recovery steps, each preceded by at most an IBF and an OBF
 * wait that time out after timeout + 1 events, as every KCS_WAIT reports
 * at least 1 us; max_retries + 1 attempts.
 */
static unsigned long event_bound(const struct kcs_sm *sm)
{
	unsigned long steps = 1 + KCS_MAX_REQUEST + 1 + ENDLESS + 1 + 4;
	unsigned long t = sm->ibf_timeout_us + sm->obf_timeout_us + 4;

	return (sm->max_retries + 1UL) * steps * (t + 1) + 16;
}

/* The answer to one event byte: elapsed time, or an action first. */
static u64 event_input(struct fz *f, bool after_wait, bool busy)
{
	uint8_t c = next(&f->in);
	u64 elapsed;

	if (c < 0xe0) {
		elapsed = c & 0x7f;
		return after_wait && elapsed == 0 ? 1 : elapsed;
	}
	switch (c & 0x1f) {
	case 0:
		if (busy && f->aborts < MAX_ABORTS && !f->in.wrapped) {
			f->aborts++;
			f->aborted = true;
			kcs_sm_abort(&f->sm);
		}
		break;
	case 1:
		if (!f->chaos)
			kcs_model_set_attn(&f->m,
					   !(f->m.status & KCS_ST_SMS_ATN));
		break;
	case 2: {
		static const u8 again[] = { 0x18, 0x01 };

		/* A start while one runs is refused, changing nothing. */
		if (busy)
			CHECK(kcs_sm_start(&f->sm, again, sizeof(again)) ==
			      KCS_CC_NOT_IN_STATE);
		break;
	}
	case 3:
		return UINT64_MAX;
	case 4:
		return (u64)1 << 40;
	default:
		break;
	}
	return after_wait ? 1 : 0;
}

/* Step until a final answer; its value. */
static enum kcs_result drive(struct fz *f)
{
	unsigned long bound = event_bound(&f->sm), events = 0;
	bool after_wait = false;
	enum kcs_result r;
	u64 el;

	for (;;) {
		unsigned int was_aborts = f->aborts;

		el = event_input(f, after_wait, !kcs_sm_idle(&f->sm));
		if (f->aborts != was_aborts) {
			/* kcs_sm_abort(): now an abort to finish */
			events = 0;
			el = 0;
		}
		/* a huge elapsed must not wrap the model's clock */
		if (!f->chaos)
			kcs_model_advance(&f->m, el < (1u << 20) ? el :
					  (1u << 20));
		r = kcs_sm_event(&f->sm, el);
		check_sm(&f->sm);
		CHECK(++events <= bound);
		after_wait = r == KCS_WAIT;
		if (r == KCS_WAIT) {
			CHECK(kcs_sm_wait_kind(&f->sm) != KCS_WAIT_NONE);
			CHECK(!kcs_sm_idle(&f->sm));
			continue;
		}
		CHECK(kcs_sm_wait_kind(&f->sm) == KCS_WAIT_NONE);
		if (r == KCS_CALL_AGAIN) {
			CHECK(!kcs_sm_idle(&f->sm));
			continue;
		}
		CHECK(kcs_sm_idle(&f->sm));
		if (f->aborted) {
			/* Nothing to deliver after an abort. */
			CHECK(r == KCS_IDLE || r == KCS_ATTN || r == KCS_HOSED);
			CHECK(!f->sm.have_result);
		} else
			CHECK(r == KCS_DONE || r == KCS_HOSED);
		return r;
	}
}

/* The result into a buffer of fuzzer-chosen size, exactly allocated. */
static void check_result(struct fz *f, enum kcs_result r)
{
	unsigned int blen = next16(&f->in) % (KCS_MAX_RESPONSE + 8);
	unsigned int n, full;
	u8 *buf = malloc(blen ? blen : 1);
	u8 whole[KCS_MAX_RESPONSE];

	if (buf == NULL)
		return;
	full = kcs_sm_get_result(&f->sm, whole, sizeof(whole));
	n = kcs_sm_get_result(&f->sm, buf, blen);
	if (f->aborted) {
		CHECK(full == 0 && n == 0);
		free(buf);
		return;
	}
	CHECK(full >= 3 && full <= KCS_MAX_RESPONSE);
	CHECK(n == (blen < full ? blen : full));
	if (n)
		CHECK(memcmp(buf, whole, n < 2 ? n : 2) == 0);
	if (n > 3)
		CHECK(memcmp(buf + 3, whole + 3, n - 3) == 0);
	if (n >= 3)
		CHECK(buf[2] == (n < full ? KCS_CC_TRUNCATED : whole[2]));
	free(buf);

	if (r == KCS_HOSED) {
		CHECK(full == 3 && whole[0] == (f->req[0] | 4) &&
		      whole[1] == f->req[1]);
		CHECK(whole[2] == KCS_CC_TIMEOUT ||
		      whole[2] == KCS_CC_UNSPECIFIED);
		return;
	}
	if (f->chaos || !f->exact)
		return;
	/* A fault-free model: what the BMC answered, as documented. */
	if (f->resp_len < 3) {
		CHECK(full == 3 && whole[0] == (f->req[0] | 4) &&
		      whole[1] == f->req[1] && whole[2] == KCS_CC_UNSPECIFIED);
	} else if ((f->resp[0] >> 2) != ((f->req[0] >> 2) | 1) ||
		   f->resp[1] != f->req[1]) {
		/* an answer to another netfn or cmd: replaced, as stock does */
		CHECK(full == 3 && whole[0] == (f->req[0] | 4) &&
		      whole[1] == f->req[1] && whole[2] == KCS_CC_UNSPECIFIED);
	} else if (f->resp_len > KCS_MAX_RESPONSE) {
		CHECK(f->resp_len <= ENDLESS);
		CHECK(full == KCS_MAX_RESPONSE && whole[2] == KCS_CC_TRUNCATED);
		CHECK(memcmp(whole, f->resp, 2) == 0 &&
		      memcmp(whole + 3, f->resp + 3, full - 3) == 0);
	} else {
		CHECK(full == f->resp_len &&
		      memcmp(whole, f->resp, full) == 0);
	}
}

static void transaction(struct fz *f)
{
	unsigned int len = next16(&f->in) % REQ_LEN_MOD, i;
	u8 *req = malloc(len ? len : 1);
	enum kcs_result r;
	int rv;

	if (req == NULL)
		return;
	for (i = 0; i < len; i++)
		req[i] = next(&f->in);
	if (!f->chaos) {
		f->resp_len = next16(&f->in) % RESP_LEN_MOD;
		for (i = 0; i < f->resp_len; i++)
			f->resp[i] = next(&f->in);
		f->exact = !f->m.cfg.drop_resp && !f->m.cfg.extra_resp;
	}
	CHECK(kcs_sm_idle(&f->sm));
	rv = kcs_sm_start(&f->sm, req, len);
	if (len < 2)
		CHECK(rv == KCS_CC_REQ_TOO_SHORT);
	else if (len > KCS_MAX_REQUEST)
		CHECK(rv == KCS_CC_REQ_TOO_LONG);
	else
		CHECK(rv == 0);
	if (rv != 0) {
		free(req);
		return;
	}
	f->req = req;
	f->req_len = len;
	memcpy(f->sent[f->nsent], req, len);
	f->sent_len[f->nsent++] = len;
	f->aborted = false;
	f->wp = W_NONE;
	r = drive(f);
	check_result(f, r);
	if (!f->chaos)
		CHECK(f->m.st.violations == 0);
	f->req = NULL;
	f->req_len = 0;
	free(req);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz *f;
	unsigned int x;
	uint8_t flags;

	if (size < 3)
		return 0;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return 0;
	flags = data[0];
	f->in = (struct src){ .p = data + 3, .n = size - 3,
			      .tail = ((flags >> 3) & 0x0f) + 1u };
	f->chaos = flags & 1;
	if (f->chaos)
		kcs_sm_init(&f->sm, &chaos_ops, f);
	else {
		model_setup(f);
		kcs_sm_init(&f->sm, &kcs_model_ops, &f->m);
	}
	/* Few retries and byte-sized timeouts keep event_bound() small. */
	f->sm.max_retries = (flags >> 1) & 3;
	f->sm.ibf_timeout_us = data[1];
	f->sm.obf_timeout_us = data[2];

	/* Between transactions the machine only watches the interface. */
	for (x = 0; x < MAX_XACTS && !f->in.wrapped; x++) {
		enum kcs_result r = kcs_sm_event(&f->sm, next(&f->in));

		check_sm(&f->sm);
		CHECK(r == KCS_IDLE || r == KCS_ATTN);
		CHECK(kcs_sm_idle(&f->sm));
		transaction(f);
	}
	free(f);
	return 0;
}
