// SPDX-License-Identifier: GPL-2.0
/*
 * kcs_model.c - a simulated KCS BMC implementing struct kcs_io_ops.
 * See kcs_model.h for the fault knobs and how writes/reads are numbered.
 */
#include <string.h>

#include "kcs_model.h"

#define ST_CD	      0x08 /* last host write went to the command reg */
#define ST_STATE_MASK 0xc0

/* GET_STATUS status codes (IPMI v2.0 table 9-5). */
#define ERR_NONE    0x00
#define ERR_ABORTED 0x01
#define ERR_ILLEGAL 0x02
#define ERR_LENGTH  0x06
#define ERR_UNSPEC  0xff

enum {
	PH_IDLE,      /* nothing going on (or the final dummy is on its way) */
	PH_WRITE,     /* taking request bytes */
	PH_WRITE_END, /* the next byte is the last */
	PH_READ,      /* response byte resp_pos on offer (or on its way) */
	PH_ERROR,     /* waiting for GET_STATUS/ABORT */
	PH_ABORT1,    /* abort taken, waiting for the 0x00 data byte */
	PH_ABORT2,    /* status code on offer, waiting for READ */
};

static bool faults_on(const struct kcs_model *m)
{
	return !m->cfg.fault_attempts ||
	       m->st.attempts <= m->cfg.fault_attempts;
}

static void set_state(struct kcs_model *m, unsigned int state)
{
	m->status = (u8)((m->status & ~ST_STATE_MASK) | (state << 6));
}

static void offer(struct kcs_model *m, u8 byte)
{
	m->odr = byte;
	m->status |= KCS_ST_OBF;
}

static void dummy(struct kcs_model *m)
{
	if (m->cfg.dummy_on_write)
		offer(m, 0);
}

static void enter_error(struct kcs_model *m, u8 code)
{
	m->phase = PH_ERROR;
	m->out_pending = false;
	m->error_code = code;
	set_state(m, KCS_STATE_ERROR);
	offer(m, 0);
}

static void schedule(struct kcs_model *m, u8 byte, unsigned int state,
		     u64 delay_us, unsigned int polls, unsigned int idx)
{
	m->out_pending = true;
	m->out_byte = byte;
	m->out_state = state;
	m->out_at = m->now_us + delay_us;
	m->out_mark = m->st.status_reads;
	m->out_polls = polls;
	m->out_idx = idx;
	m->out_fault = faults_on(m);
}

/* After response byte resp_pos was acknowledged (or none yet). */
static void schedule_next(struct kcs_model *m, u64 delay_us, unsigned int polls)
{
	if (m->resp_pos < m->resp_len) {
		schedule(m, m->resp[m->resp_pos], KCS_STATE_READ, delay_us,
			 polls, m->resp_pos + 1);
		return;
	}
	m->phase = PH_IDLE;
	if (m->cfg.no_final_dummy) {
		m->out_pending = false;
		set_state(m, KCS_STATE_IDLE);
		return;
	}
	schedule(m, 0, KCS_STATE_IDLE, delay_us, polls, m->resp_len + 1);
}

static void execute(struct kcs_model *m)
{
	kcs_model_handler h =
		m->cfg.handler ? m->cfg.handler : kcs_model_default_handler;
	unsigned int n, i;

	memcpy(m->last_req, m->req, m->req_len);
	m->last_req_len = m->req_len;
	m->st.requests++;
	n = h(m->cfg.handler_ctx, m->req, m->req_len, m->resp, KCS_MODEL_BUF);
	if (faults_on(m)) {
		n = m->cfg.drop_resp < n ? n - m->cfg.drop_resp : 0;
		for (i = 0; i < m->cfg.extra_resp && n < KCS_MODEL_BUF; i++)
			m->resp[n++] = (u8)(0xa5 ^ i);
	}
	m->resp_len = n;
	m->resp_pos = 0;
	m->phase = PH_READ;
	set_state(m, KCS_STATE_READ);
	schedule_next(m, m->cfg.resp_us, m->cfg.resp_polls);
}

static void take_cmd(struct kcs_model *m, u8 v)
{
	switch (v) {
	case KCS_CC_WRITE_START:
		m->phase = PH_WRITE;
		m->req_len = 0;
		m->out_pending = false;
		m->error_code = ERR_NONE;
		set_state(m, KCS_STATE_WRITE);
		dummy(m);
		break;
	case KCS_CC_WRITE_END:
		if (m->phase != PH_WRITE || !m->req_len) {
			enter_error(m, ERR_ILLEGAL);
			break;
		}
		m->phase = PH_WRITE_END;
		set_state(m, KCS_STATE_WRITE);
		dummy(m);
		break;
	case KCS_CC_GET_STATUS_ABORT:
		m->st.aborts++;
		m->out_pending = false;
		if (m->error_code == ERR_NONE)
			m->error_code = ERR_ABORTED;
		m->abort_now = KCS_MODEL_ABORT_OK;
		if (!m->cfg.bad_aborts || m->st.aborts <= m->cfg.bad_aborts)
			m->abort_now = m->cfg.abort_mode;
		if (m->abort_now == KCS_MODEL_ABORT_IGNORE) {
			enter_error(m, m->error_code);
			break;
		}
		m->phase = PH_ABORT1;
		set_state(m, KCS_STATE_WRITE);
		dummy(m);
		break;
	default:
		enter_error(m, ERR_ILLEGAL);
		break;
	}
}

static void take_read(struct kcs_model *m, u8 v, bool fault)
{
	if (m->out_pending || v != KCS_CC_READ) {
		enter_error(m, ERR_ILLEGAL);
		return;
	}
	m->ridx++;
	if (fault && m->ridx == m->cfg.error_at_read) {
		enter_error(m, ERR_UNSPEC);
		return;
	}
	m->resp_pos++;
	schedule_next(m, m->cfg.obf_us, 0);
}

static void take_data(struct kcs_model *m, u8 v, bool fault)
{
	switch (m->phase) {
	case PH_WRITE:
	case PH_WRITE_END:
		if (m->req_len >= KCS_MODEL_BUF) {
			enter_error(m, ERR_LENGTH);
			break;
		}
		m->req[m->req_len++] = v;
		if (m->phase == PH_WRITE_END) {
			execute(m);
			break;
		}
		set_state(m, KCS_STATE_WRITE);
		dummy(m);
		break;
	case PH_READ:
		take_read(m, v, fault);
		break;
	case PH_ABORT1:
		m->phase = PH_ABORT2;
		set_state(m, KCS_STATE_READ);
		if (m->abort_now != KCS_MODEL_ABORT_NO_STATUS)
			offer(m, m->error_code);
		break;
	case PH_ABORT2:
		offer(m, 0);
		if (m->abort_now == KCS_MODEL_ABORT_STAY_READ) {
			m->phase = PH_ERROR;
			break;
		}
		m->phase = PH_IDLE;
		m->error_code = ERR_NONE;
		set_state(m, KCS_STATE_IDLE);
		break;
	default:
		enter_error(m, ERR_ILLEGAL);
		break;
	}
}

static bool input_ready(const struct kcs_model *m)
{
	const struct kcs_model_cfg *c = &m->cfg;

	if (m->st.status_reads - m->in_mark <= c->ibf_polls)
		return false;
	if (m->now_us - m->in_at < c->ibf_us)
		return false;
	if (m->in_fault && m->in_widx && m->in_widx == c->stall_ibf_at)
		return c->stall_ibf_us &&
		       m->now_us - m->in_at >= c->stall_ibf_us;
	return true;
}

static bool output_ready(const struct kcs_model *m)
{
	if (m->st.status_reads - m->out_mark < m->out_polls)
		return false;
	if (m->now_us < m->out_at)
		return false;
	return !(m->out_fault && m->out_idx &&
		 m->out_idx == m->cfg.stall_obf_at);
}

static void take_input(struct kcs_model *m)
{
	bool cmd = m->status & ST_CD;

	m->status &= (u8) ~(KCS_ST_IBF | ST_CD);
	if (m->in_fault && m->in_widx && m->in_widx == m->cfg.error_at_write) {
		enter_error(m, ERR_UNSPEC);
		return;
	}
	if (cmd)
		take_cmd(m, m->idr);
	else
		take_data(m, m->idr, m->in_fault);
}

static void bmc_run(struct kcs_model *m)
{
	if ((m->status & KCS_ST_IBF) && input_ready(m))
		take_input(m);
	if (m->out_pending && output_ready(m)) {
		m->out_pending = false;
		set_state(m, m->out_state);
		offer(m, m->out_byte);
	}
}

static u8 model_inb(void *ctx, unsigned int reg)
{
	struct kcs_model *m = ctx;

	if (reg == KCS_REG_STATUS) {
		m->st.status_reads++;
		bmc_run(m);
		return m->status;
	}
	m->st.data_reads++;
	if (!(m->status & KCS_ST_OBF))
		m->st.empty_reads++;
	m->status &= (u8)~KCS_ST_OBF;
	return m->odr;
}

static void model_outb(void *ctx, unsigned int reg, u8 val)
{
	struct kcs_model *m = ctx;
	bool cmd = reg == KCS_REG_STATUS;

	m->st.writes++;
	if (m->status & KCS_ST_IBF)
		m->st.violations++; /* overran a byte the BMC never took */
	if (!cmd && m->phase == PH_READ && (m->status & KCS_ST_OBF))
		m->st.violations++; /* READ before reading the byte */

	m->in_widx = 0;
	if (cmd && val == KCS_CC_WRITE_START) {
		m->st.attempts++;
		m->widx = 0;
		m->ridx = 0;
		m->in_widx = ++m->widx;
	} else if ((m->phase == PH_WRITE || m->phase == PH_WRITE_END) &&
		   !(cmd && val == KCS_CC_GET_STATUS_ABORT)) {
		m->in_widx = ++m->widx;
	}
	m->in_fault = faults_on(m);
	m->in_at = m->now_us;
	m->in_mark = m->st.status_reads;
	m->idr = val;
	m->status |= KCS_ST_IBF;
	if (cmd)
		m->status |= ST_CD;
	else
		m->status &= (u8)~ST_CD;
}

const struct kcs_io_ops kcs_model_ops = {
	.inb = model_inb,
	.outb = model_outb,
};

void kcs_model_init(struct kcs_model *m)
{
	memset(m, 0, sizeof(*m));
	m->cfg.dummy_on_write = true;
	m->phase = PH_IDLE;
}

void kcs_model_advance(struct kcs_model *m, u64 us)
{
	m->now_us += us;
}

void kcs_model_set_attn(struct kcs_model *m, bool on)
{
	if (on)
		m->status |= KCS_ST_SMS_ATN;
	else
		m->status &= (u8)~KCS_ST_SMS_ATN;
}

void kcs_model_force_error(struct kcs_model *m)
{
	enter_error(m, ERR_UNSPEC);
}

bool kcs_model_quiet(const struct kcs_model *m)
{
	return m->phase == PH_IDLE && !m->out_pending &&
	       !(m->status & (KCS_ST_IBF | KCS_ST_OBF)) &&
	       KCS_ST_STATE(m->status) == KCS_STATE_IDLE;
}

unsigned int kcs_model_default_handler(void *ctx, const u8 *req,
				       unsigned int len, u8 *resp,
				       unsigned int max)
{
	static const u8 devid[] = {
		0x20, 0x81, 0x02, 0x10, 0x02, 0xbf, /* id, rev, fw, IPMI 2.0 */
		0x57, 0x01, 0x00, 0x34, 0x12,	    /* mfg, product */
		0x01, 0x02, 0x03, 0x04,		    /* aux fw revision */
	};
	unsigned int n = 3;

	(void)ctx;
	if (max < 3 + sizeof(devid))
		return 0;
	resp[0] = req[0] | 0x04;
	resp[1] = len > 1 ? req[1] : 0;
	resp[2] = 0xc1;
	if ((req[0] >> 2) == 0x06 && len >= 2 && req[1] == 0x01) {
		resp[2] = 0;
		memcpy(resp + 3, devid, sizeof(devid));
		n += sizeof(devid);
	} else if ((req[0] >> 2) == 0x06 && len >= 2 && req[1] == 0x04) {
		resp[2] = 0;
		resp[3] = 0x55;
		resp[4] = 0x00;
		n = 5;
	}
	return n;
}
