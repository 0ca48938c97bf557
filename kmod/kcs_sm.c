// SPDX-License-Identifier: GPL-2.0
/*
 * kcs_sm.c - IPMI v2.0 KCS host-side state machine (IPMI v2.0 section 9).
 *
 * The machine owns no I/O: it touches the two KCS registers through
 * sm->ops and is stepped by kcs_sm_event(). Every step reads the status
 * register once, does at most one "unit" of register work and says what
 * to do next. It builds unchanged in the kernel and in userspace.
 *
 * States (sm->state):
 *
 *   IDLE        No transaction. A step only reads status, drains a stray
 *               OBF byte and answers KCS_ATTN when SMS_ATN is set.
 *   START       Transaction accepted. Wait IBF=0, the interface must be in
 *               IDLE state; clear OBF, write WRITE_START to the command
 *               register.
 *   WRITE       Wait IBF=0, interface must be in WRITE state; clear OBF,
 *               then write the next request byte, or WRITE_END to the
 *               command register when only the last byte is left.
 *   WRITE_END   Wait IBF=0, WRITE state; clear OBF, write the last byte.
 *   READ        Wait IBF=0. In READ state wait OBF, read a response byte
 *               and write READ (0x68) to the data register. In IDLE state
 *               drain the dummy byte (if it came) and complete.
 *   ERR_ABORT   Error exit, step 1: wait IBF=0, clear OBF, write
 *               GET_STATUS/ABORT (0x60) to the command register.
 *   ERR_ZERO    Step 2: wait IBF=0, clear OBF, write 0x00 to data.
 *   ERR_STATUS  Step 3: wait IBF=0, must be READ state; wait OBF, read the
 *               BMC's status code, write READ.
 *   ERR_IDLE    Step 4: wait IBF=0, must be IDLE state; drain the dummy
 *               byte. Then restart the transaction from START, or go IDLE
 *               when the recovery was asked for by kcs_sm_abort().
 *
 * Any unexpected interface state, an IBF/OBF wait running out (measured
 * by the elapsed time the caller reports) or a response that never ends
 * starts the error exit again from ERR_ABORT. Each such start uses one of
 * max_retries; the failure after the last one gives up (KCS_HOSED). So a
 * transaction makes at most max_retries + 1 attempts and every wait is
 * bounded by its timeout: the machine cannot hang.
 *
 * Leniency: the final dummy byte is not waited for once the interface is
 * back in IDLE state (some BMCs never send it); a late one is drained by
 * the next step that clears OBF.
 */
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

#include "kcs_sm.h"

enum {
	SM_IDLE,
	SM_START,
	SM_WRITE,
	SM_WRITE_END,
	SM_READ,
	SM_ERR_ABORT,
	SM_ERR_ZERO,
	SM_ERR_STATUS,
	SM_ERR_IDLE,
};

/* sm->wait_cond: what the running timeout times. */
enum {
	WC_NONE,	/* a wait seen next starts at that call */
	WC_NEW,		/* a wait seen next started at the previous call */
	WC_IBF,
	WC_OBF,
};

#define KCS_DEFAULT_TIMEOUT_US	5000000ULL
#define KCS_DEFAULT_RETRIES	10

/* Response bytes read (kept + thrown away) before calling it endless. */
#define KCS_RESP_ENDLESS	(2 * KCS_MAX_RESPONSE)

static u8 read_status(struct kcs_sm *sm)
{
	return sm->ops->inb(sm->ctx, KCS_REG_STATUS);
}

static u8 read_data(struct kcs_sm *sm)
{
	return sm->ops->inb(sm->ctx, KCS_REG_DATA);
}

static void write_cmd(struct kcs_sm *sm, u8 val)
{
	sm->ops->outb(sm->ctx, KCS_REG_STATUS, val);
}

static void write_data(struct kcs_sm *sm, u8 val)
{
	sm->ops->outb(sm->ctx, KCS_REG_DATA, val);
}

static void clear_obf(struct kcs_sm *sm, u8 status)
{
	if (status & KCS_ST_OBF)
		read_data(sm);
}

/* Register work was done: the next wait starts now. */
static enum kcs_result progress(struct kcs_sm *sm, int next)
{
	sm->state = next;
	sm->wait_cond = WC_NEW;
	return KCS_CALL_AGAIN;
}

/* Build the 3-byte answer netfn+1, cmd, @cc for the current request. */
static void synth_result(struct kcs_sm *sm, u8 cc)
{
	sm->resp[0] = sm->req[0] | 0x04;
	sm->resp[1] = sm->req[1];
	sm->resp[2] = cc;
	sm->resp_len = 3;
}

static enum kcs_result give_up(struct kcs_sm *sm)
{
	sm->stats.hosed++;
	if (!sm->aborting) {
		synth_result(sm, sm->last_fail_timeout ? KCS_CC_TIMEOUT :
			     KCS_CC_UNSPECIFIED);
		sm->have_result = true;
	}
	sm->aborting = false;
	sm->state = SM_IDLE;
	sm->wait_cond = WC_NONE;
	return KCS_HOSED;
}

/* Something went wrong: run the error exit, or give up. */
static enum kcs_result fail(struct kcs_sm *sm, bool timeout)
{
	sm->last_fail_timeout = timeout;
	if (!sm->retries_left)
		return give_up(sm);
	sm->retries_left--;
	sm->stats.retries++;
	return progress(sm, SM_ERR_ABORT);
}

static enum kcs_result protocol_error(struct kcs_sm *sm)
{
	sm->stats.protocol_errors++;
	return fail(sm, false);
}

/*
 * The BMC has not done what we wait for (@cond) yet. Charge @elapsed_us
 * to the wait's timeout, or start timing a wait that just began.
 */
static enum kcs_result wait_for(struct kcs_sm *sm, int cond,
				enum kcs_wait kind, u64 elapsed_us)
{
	/*
	 * Only a host write sets IBF. IBF showing again while this step
	 * already waits for OBF (nothing written since) is the BMC's noise,
	 * not a new wait: the OBF wait's timer keeps running, or a BMC that
	 * flaps IBF would restart it forever and the machine would hang.
	 */
	if (cond == WC_IBF && sm->wait_cond == WC_OBF)
		cond = WC_OBF;
	if (sm->wait_cond != cond) {
		if (sm->wait_cond != WC_NEW)
			elapsed_us = 0;
		sm->wait_cond = cond;
		sm->timeout_left_us = cond == WC_IBF ? sm->ibf_timeout_us :
						       sm->obf_timeout_us;
	}
	if (elapsed_us >= sm->timeout_left_us) {
		sm->stats.timeouts++;
		return fail(sm, true);
	}
	sm->timeout_left_us -= elapsed_us;
	sm->wait = kind;
	return KCS_WAIT;
}

static enum kcs_wait ibf_wait_kind(const struct kcs_sm *sm)
{
	switch (sm->state) {
	case SM_READ:
		return sm->resp_len ? KCS_WAIT_OBF : KCS_WAIT_RESPONSE;
	case SM_ERR_ABORT:
	case SM_ERR_ZERO:
	case SM_ERR_STATUS:
	case SM_ERR_IDLE:
		return KCS_WAIT_RECOVERY;
	default:
		return KCS_WAIT_IBF;
	}
}

static enum kcs_result finish(struct kcs_sm *sm)
{
	if (sm->resp_len < 3) {
		synth_result(sm, KCS_CC_UNSPECIFIED);
	} else if ((sm->resp[0] >> 2) != ((sm->req[0] >> 2) | 1) ||
		   sm->resp[1] != sm->req[1]) {
		sm->stats.mismatches++;
		sm->bad_netfn = sm->resp[0];
		sm->bad_cmd = sm->resp[1];
		synth_result(sm, KCS_CC_UNSPECIFIED);
	} else if (sm->resp_len > KCS_MAX_RESPONSE) {
		sm->resp_len = KCS_MAX_RESPONSE;
		sm->resp[2] = KCS_CC_TRUNCATED;
	}
	sm->have_result = true;
	sm->state = SM_IDLE;
	sm->wait_cond = WC_NONE;
	return KCS_DONE;
}

static enum kcs_result idle_answer(u8 status)
{
	if (status & KCS_ST_IBF)
		return KCS_IDLE;
	return (status & KCS_ST_SMS_ATN) ? KCS_ATTN : KCS_IDLE;
}

static enum kcs_result write_step(struct kcs_sm *sm, u8 status,
				  unsigned int st)
{
	if (st != KCS_STATE_WRITE)
		return protocol_error(sm);
	clear_obf(sm, status);
	if (sm->state == SM_WRITE_END) {
		write_data(sm, sm->req[sm->req_pos++]);
		return progress(sm, SM_READ);
	}
	if (sm->req_pos + 1 == sm->req_len) {
		write_cmd(sm, KCS_CC_WRITE_END);
		return progress(sm, SM_WRITE_END);
	}
	write_data(sm, sm->req[sm->req_pos++]);
	return progress(sm, SM_WRITE);
}

static enum kcs_result read_step(struct kcs_sm *sm, u8 status,
				 unsigned int st, u64 elapsed_us)
{
	u8 byte;

	if (st == KCS_STATE_IDLE) {
		clear_obf(sm, status);
		return finish(sm);
	}
	if (st != KCS_STATE_READ)
		return protocol_error(sm);
	if (!(status & KCS_ST_OBF))
		return wait_for(sm, WC_OBF, sm->resp_len ? KCS_WAIT_OBF :
				KCS_WAIT_RESPONSE, elapsed_us);
	byte = read_data(sm);
	if (sm->resp_len < KCS_MAX_RESPONSE)
		sm->resp[sm->resp_len] = byte;
	sm->resp_len++;
	if (sm->resp_len > KCS_RESP_ENDLESS)
		return protocol_error(sm);
	write_data(sm, KCS_CC_READ);
	return progress(sm, SM_READ);
}

static enum kcs_result recovery_done(struct kcs_sm *sm, u8 status)
{
	if (sm->aborting) {
		sm->aborting = false;
		sm->state = SM_IDLE;
		sm->wait_cond = WC_NONE;
		return idle_answer(status);
	}
	sm->req_pos = 0;
	sm->resp_len = 0;
	return progress(sm, SM_START);
}

static enum kcs_result recovery_step(struct kcs_sm *sm, u8 status,
				     unsigned int st, u64 elapsed_us)
{
	switch (sm->state) {
	case SM_ERR_ABORT:
		clear_obf(sm, status);
		write_cmd(sm, KCS_CC_GET_STATUS_ABORT);
		return progress(sm, SM_ERR_ZERO);
	case SM_ERR_ZERO:
		clear_obf(sm, status);
		write_data(sm, 0);
		return progress(sm, SM_ERR_STATUS);
	case SM_ERR_STATUS:
		if (st != KCS_STATE_READ)
			return protocol_error(sm);
		if (!(status & KCS_ST_OBF))
			return wait_for(sm, WC_OBF, KCS_WAIT_RECOVERY,
					elapsed_us);
		sm->bmc_error = read_data(sm);
		write_data(sm, KCS_CC_READ);
		return progress(sm, SM_ERR_IDLE);
	default:	/* SM_ERR_IDLE */
		if (st != KCS_STATE_IDLE)
			return protocol_error(sm);
		clear_obf(sm, status);
		return recovery_done(sm, status);
	}
}

void kcs_sm_init(struct kcs_sm *sm, const struct kcs_io_ops *ops, void *ctx)
{
	memset(sm, 0, sizeof(*sm));
	sm->ops = ops;
	sm->ctx = ctx;
	sm->ibf_timeout_us = KCS_DEFAULT_TIMEOUT_US;
	sm->obf_timeout_us = KCS_DEFAULT_TIMEOUT_US;
	sm->max_retries = KCS_DEFAULT_RETRIES;
	sm->state = SM_IDLE;
	sm->wait = KCS_WAIT_NONE;
	sm->wait_cond = WC_NONE;
}

int kcs_sm_start(struct kcs_sm *sm, const u8 *req, unsigned int len)
{
	if (len < 2)
		return KCS_CC_REQ_TOO_SHORT;
	if (len > KCS_MAX_REQUEST)
		return KCS_CC_REQ_TOO_LONG;
	if (sm->state != SM_IDLE)
		return KCS_CC_NOT_IN_STATE;

	memcpy(sm->req, req, len);
	sm->req_len = len;
	sm->req_pos = 0;
	sm->resp_len = 0;
	sm->have_result = false;
	sm->aborting = false;
	sm->last_fail_timeout = false;
	sm->retries_left = sm->max_retries;
	sm->wait = KCS_WAIT_NONE;
	sm->wait_cond = WC_NONE;
	sm->state = SM_START;
	sm->stats.transactions++;
	return 0;
}

enum kcs_result kcs_sm_event(struct kcs_sm *sm, u64 elapsed_us)
{
	u8 status = read_status(sm);
	unsigned int st = KCS_ST_STATE(status);

	sm->wait = KCS_WAIT_NONE;
	if (sm->state == SM_IDLE) {
		clear_obf(sm, status);
		return idle_answer(status);
	}

	/* Every step starts by waiting for the BMC to take the last write. */
	if (status & KCS_ST_IBF)
		return wait_for(sm, WC_IBF, ibf_wait_kind(sm), elapsed_us);

	switch (sm->state) {
	case SM_START:
		if (st != KCS_STATE_IDLE)
			return protocol_error(sm);
		clear_obf(sm, status);
		write_cmd(sm, KCS_CC_WRITE_START);
		return progress(sm, SM_WRITE);
	case SM_WRITE:
	case SM_WRITE_END:
		return write_step(sm, status, st);
	case SM_READ:
		return read_step(sm, status, st, elapsed_us);
	default:
		return recovery_step(sm, status, st, elapsed_us);
	}
}

enum kcs_wait kcs_sm_wait_kind(const struct kcs_sm *sm)
{
	return sm->wait;
}

unsigned int kcs_sm_get_result(struct kcs_sm *sm, u8 *buf, unsigned int len)
{
	unsigned int n;

	if (!sm->have_result)
		return 0;
	n = sm->resp_len;
	if (len < n) {
		n = len;
		memcpy(buf, sm->resp, n);
		if (n >= 3)
			buf[2] = KCS_CC_TRUNCATED;
		return n;
	}
	memcpy(buf, sm->resp, n);
	return n;
}

void kcs_sm_abort(struct kcs_sm *sm)
{
	sm->stats.aborts++;
	sm->have_result = false;
	sm->aborting = true;
	sm->last_fail_timeout = false;
	sm->retries_left = sm->max_retries;
	sm->req_pos = 0;
	sm->resp_len = 0;
	sm->wait = KCS_WAIT_NONE;
	sm->wait_cond = WC_NONE;
	sm->state = SM_ERR_ABORT;
}

bool kcs_sm_idle(const struct kcs_sm *sm)
{
	return sm->state == SM_IDLE;
}

bool kcs_sm_request_written(const struct kcs_sm *sm)
{
	return sm->req_len && sm->req_pos == sm->req_len;
}
