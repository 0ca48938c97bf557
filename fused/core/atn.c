// SPDX-License-Identifier: GPL-2.0
/*
 * atn - the SMS_ATN flag machine and the classification of what it
 * fetches. See atn.h. Pure logic.
 */
#include "core/atn.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include <linux/ipmi.h>
#include <linux/ipmi_msgdefs.h>

#include "util/log.h"

void atn_init(struct atn *a)
{
	memset(a, 0, sizeof(*a));
}

static uint64_t atn_now(const struct atn *a)
{
	struct timespec ts;

	if (a->clock_ns)
		return a->clock_ns();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool atn_paused(const struct atn *a)
{
	return a->paused_until_ns && atn_now(a) < a->paused_until_ns;
}

void atn_after_send(struct atn *a)
{
	a->send_owed = true;
}

/* Progress (something fetched, or the flags went down): no episode. */
static void not_stuck(struct atn *a)
{
	a->empty_runs = 0;
	a->run_empty = 0;
	a->paused_until_ns = 0;
	a->stuck = false;
}

/* The first fetch of a bit the BMC's flags answer set failed. */
static void fetch_empty(struct atn *a, uint8_t bit, uint8_t cc)
{
	if (!(a->bmc_flags & bit) || a->in_a_row != 0)
		return;
	a->run_empty = bit;
	a->empty_cc = cc;
}

/*
 * A run ended with an empty fetch and nothing fetched: one more empty run;
 * a pause after ATN_EMPTY_MAX of them close together. Once paused (until
 * something is fetched), every empty run pauses again at once, however
 * long after the pause it came.
 */
static void run_empty(struct atn *a)
{
	uint64_t now = atn_now(a);
	uint8_t bit = a->run_empty;

	a->run_empty = 0;
	if (!a->stuck && a->empty_runs &&
	    now - a->empty_at_ns > ATN_EMPTY_GAP_NS)
		a->empty_runs = 0; /* not a loop: a stray one */
	a->empty_at_ns = now;
	if (++a->empty_runs < ATN_EMPTY_MAX && !a->stuck)
		return;
	a->paused_until_ns = now + ATN_PAUSE_NS;
	a->pauses++;
	if (a->stuck)
		return;
	a->stuck = true;
	log_warn("atn: the BMC keeps flag %#x up but answers %s with cc %#x, "
		 "%u times in a row: SMS_ATN ignored for %llu ms at a time "
		 "until something is fetched",
		 bit,
		 bit == ATN_FLAG_RECV_MSG ? "Get Message" :
					    "Read Event Message Buffer",
		 a->empty_cc, a->empty_runs,
		 (unsigned long long)(ATN_PAUSE_NS / 1000000));
}

/* an App request without data, or with one data byte (arg >= 0) */
static int app_req(uint8_t *req, size_t cap, uint8_t cmd, int arg)
{
	if (!req || cap < ATN_REQ_MAX)
		return -ENOSPC;
	req[0] = IPMI_NETFN_APP_REQUEST << 2;
	req[1] = cmd;
	if (arg < 0)
		return 2;
	req[2] = (uint8_t)arg;
	return 3;
}

/* start fetching (messages or events); the counter restarts on a switch */
static int fetch(struct atn *a, enum atn_state st, uint8_t cmd, uint8_t *req,
		 size_t cap)
{
	if (a->state != st)
		a->in_a_row = 0;
	a->state = st;
	return app_req(req, cap, cmd, -1);
}

/* handle_flags: the next request for the remaining bits, or end the run */
static int next(struct atn *a, uint8_t *req, size_t cap)
{
	if (a->flags & ATN_FLAG_WDT_PRETIMEOUT) {
		a->flags &= (uint8_t)~ATN_FLAG_WDT_PRETIMEOUT;
		a->state = ATN_CLEARING_FLAGS;
		return app_req(req, cap, IPMI_CLEAR_MSG_FLAGS_CMD,
			       ATN_FLAG_WDT_PRETIMEOUT);
	}
	if (a->flags & ATN_FLAG_RECV_MSG)
		return fetch(a, ATN_GETTING_MSG, IPMI_GET_MSG_CMD, req, cap);
	if (a->flags & ATN_FLAG_EVT_BUF_FULL)
		return fetch(a, ATN_GETTING_EVENT,
			     IPMI_READ_EVENT_MSG_BUFFER_CMD, req, cap);

	/* run over (remaining OEM bits are ignored) */
	a->flags = 0;
	a->bmc_flags = 0;
	if (a->run_empty)
		run_empty(a);
	if (a->attn_pending && atn_paused(a) && !a->send_owed) {
		a->attn_pending = false;
		a->ignored++;
	}
	if (a->attn_pending) {
		a->attn_pending = false;
		a->send_owed = false;
		a->state = ATN_GETTING_FLAGS;
		return app_req(req, cap, IPMI_GET_MSG_FLAGS_CMD, -1);
	}
	if (a->events_pending) {
		a->events_pending = false;
		a->flags = ATN_FLAG_EVT_BUF_FULL;
		a->in_a_row = 0; /* a new run */
		return fetch(a, ATN_GETTING_EVENT,
			     IPMI_READ_EVENT_MSG_BUFFER_CMD, req, cap);
	}
	a->state = ATN_IDLE;
	return 0;
}

int atn_attention(struct atn *a, uint8_t *req, size_t cap)
{
	if (!req || cap < ATN_REQ_MAX)
		return -ENOSPC;
	if (a->state != ATN_IDLE) {
		a->attn_pending = true;
		return 0;
	}
	if (atn_paused(a) && !a->send_owed) {
		a->ignored++;
		return 0;
	}
	a->send_owed = false;
	a->flags = 0;
	a->bmc_flags = 0;
	a->state = ATN_GETTING_FLAGS;
	return app_req(req, cap, IPMI_GET_MSG_FLAGS_CMD, -1);
}

int atn_poll_events(struct atn *a, uint8_t *req, size_t cap)
{
	if (!req || cap < ATN_REQ_MAX)
		return -ENOSPC;
	if (a->state != ATN_IDLE) {
		a->events_pending = true;
		return 0;
	}
	a->flags = ATN_FLAG_EVT_BUF_FULL;
	return fetch(a, ATN_GETTING_EVENT, IPMI_READ_EVENT_MSG_BUFFER_CMD, req,
		     cap);
}

static uint8_t expected_cmd(enum atn_state st)
{
	switch (st) {
	case ATN_GETTING_FLAGS:
		return IPMI_GET_MSG_FLAGS_CMD;
	case ATN_CLEARING_FLAGS:
		return IPMI_CLEAR_MSG_FLAGS_CMD;
	case ATN_GETTING_MSG:
		return IPMI_GET_MSG_CMD;
	default:
		return IPMI_READ_EVENT_MSG_BUFFER_CMD;
	}
}

/* a successful fetch: count it, give up on the bit after too many */
static void fetched(struct atn *a, uint8_t bit)
{
	if (++a->in_a_row > ATN_MAX_IN_A_ROW)
		a->flags &= (uint8_t)~bit;
}

int atn_response(struct atn *a, const uint8_t *rsp, size_t len,
		 struct atn_result *res, uint8_t *req, size_t cap)
{
	uint8_t cc;

	if (!req || cap < ATN_REQ_MAX)
		return -ENOSPC;
	if (a->state == ATN_IDLE)
		return -EINVAL;
	memset(res, 0, offsetof(struct atn_result, msg));
	res->kind = ATN_NOTHING;
	if (!rsp || len < 3 || (rsp[0] >> 2) != IPMI_NETFN_APP_RESPONSE ||
	    rsp[1] != expected_cmd(a->state))
		cc = IPMI_ERR_UNSPECIFIED;
	else
		cc = rsp[2];
	res->cc = cc;

	switch (a->state) {
	case ATN_GETTING_FLAGS:
		if (cc != 0 || len < 4)
			break; /* no flags: the run ends */
		res->flags = rsp[3];
		a->flags = rsp[3];
		if (a->flags & a->oem_as_msg & ATN_FLAG_OEM)
			a->flags = (uint8_t)((a->flags & ~ATN_FLAG_OEM) |
					     ATN_FLAG_RECV_MSG);
		a->bmc_flags =
			a->flags & (ATN_FLAG_RECV_MSG | ATN_FLAG_EVT_BUF_FULL);
		if (!a->bmc_flags)
			not_stuck(a); /* the flags went down */
		if (a->flags & ATN_FLAG_WDT_PRETIMEOUT)
			res->kind = ATN_WATCHDOG;
		break;
	case ATN_CLEARING_FLAGS:
		break; /* an error is only worth a log line */
	case ATN_GETTING_MSG:
		if (cc != 0) {
			fetch_empty(a, ATN_FLAG_RECV_MSG, cc);
			a->flags &= (uint8_t)~ATN_FLAG_RECV_MSG;
			break;
		}
		not_stuck(a);
		fetched(a, ATN_FLAG_RECV_MSG);
		atn_classify_msg(rsp, len, a->media, res);
		break;
	case ATN_GETTING_EVENT:
		if (cc != 0 || atn_event_msg(rsp, len, &res->msg) < 0) {
			fetch_empty(a, ATN_FLAG_EVT_BUF_FULL, cc);
			a->flags &= (uint8_t)~ATN_FLAG_EVT_BUF_FULL;
			break;
		}
		not_stuck(a);
		fetched(a, ATN_FLAG_EVT_BUF_FULL);
		res->kind = ATN_EVENT;
		break;
	default:
		break;
	}
	return next(a, req, cap);
}

bool atn_busy(const struct atn *a)
{
	return a->state != ATN_IDLE;
}

bool atn_bridge_can_send(const struct atn *a)
{
	return a->state != ATN_GETTING_FLAGS && !a->attn_pending &&
	       !(a->flags & ATN_FLAG_RECV_MSG);
}

int atn_event_msg(const uint8_t *rsp, size_t len, struct ipmb_user_msg *out)
{
	if (len != 19 || rsp[2] != 0)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->recv_type = IPMI_ASYNC_EVENT_RECV_TYPE;
	out->addr.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE;
	out->addr.channel = IPMI_BMC_CHANNEL;
	out->addr.lun = rsp[0] & 3;
	out->msgid = 0;
	out->netfn = rsp[0] >> 2;
	out->cmd = rsp[1];
	out->data_len = 16;
	memcpy(out->data, rsp + 3, 16);
	return 0;
}

/* handle_oem_get_msg_cmd: the whole Get Message answer, uninterpreted */
static void oem_msg(const uint8_t *rsp, size_t len, struct ipmb_user_msg *out)
{
	memset(out, 0, offsetof(struct ipmb_user_msg, data));
	out->recv_type = IPMI_OEM_RECV_TYPE;
	out->addr.addr_type = IPMI_SYSTEM_INTERFACE_ADDR_TYPE;
	out->addr.channel = IPMI_BMC_CHANNEL;
	out->addr.lun = rsp[0] & 3;
	out->netfn = rsp[0] >> 2;
	out->cmd = rsp[1];
	if (len > ABI_MAX_MSG_LENGTH)
		len = ABI_MAX_MSG_LENGTH;
	out->data_len = (uint16_t)(len - 4);
	memcpy(out->data, rsp + 4, len - 4);
}

enum atn_kind atn_classify_msg(const uint8_t *rsp, size_t len,
			       const uint8_t *media, struct atn_result *res)
{
	uint8_t chan, m;

	res->kind = ATN_INVALID;
	if (len < 4 || rsp[2] != 0)
		return res->kind;
	chan = rsp[3] & 0x0f;
	res->rx.channel = chan;
	m = media ? media[chan] : IPMI_CHANNEL_MEDIUM_IPMB;

	if (m == IPMI_CHANNEL_MEDIUM_8023LAN ||
	    m == IPMI_CHANNEL_MEDIUM_ASYNC) {
		res->kind = ATN_LAN;
	} else if (m >= IPMI_CHANNEL_MEDIUM_OEM_MIN &&
		   m <= IPMI_CHANNEL_MEDIUM_OEM_MAX) {
		oem_msg(rsp, len, &res->msg);
		res->kind = ATN_OEM;
	} else if (m == IPMI_CHANNEL_MEDIUM_IPMB) {
		/* Like the stock driver, checksums are not held against a
		 * frame: ipmi_sim 2.0.33 sends forwarded responses with a
		 * wrong first checksum, and real BMCs have checked them on
		 * the bus already. */
		int rv = ipmb_parse_get_msg(rsp, len, -1, &res->rx);

		if (rv == 0 || rv == -EBADMSG)
			res->kind = res->rx.is_response ? ATN_IPMB_RESPONSE :
							  ATN_IPMB_COMMAND;
	}
	return res->kind;
}

uint8_t atn_global_enables(bool evbuf, bool irq)
{
	uint8_t e = 0;

	if (evbuf)
		e |= ATN_GE_EVT_MSG_BUFF;
	if (irq)
		e |= ATN_GE_RCV_MSG_INTR;
	if (evbuf && irq)
		e |= ATN_GE_EVT_MSG_INTR;
	return e;
}

int atn_enables_fix(const uint8_t *rsp, size_t len, uint8_t want)
{
	if (!rsp || len < 4 || (rsp[0] >> 2) != IPMI_NETFN_APP_RESPONSE ||
	    rsp[1] != IPMI_GET_BMC_GLOBAL_ENABLES_CMD || rsp[2] != 0)
		return -EIO;
	if ((rsp[3] & ATN_GE_MASK) == (want & ATN_GE_MASK))
		return -EALREADY;
	return (want & ATN_GE_MASK) | (rsp[3] & ~ATN_GE_MASK);
}

int atn_channel_medium(const uint8_t *rsp, size_t len, uint8_t *medium)
{
	if (!rsp || len < 3 || (rsp[0] >> 2) != IPMI_NETFN_APP_RESPONSE ||
	    rsp[1] != IPMI_GET_CHANNEL_INFO_CMD)
		return -EIO;
	if (rsp[2] == IPMI_INVALID_COMMAND_ERR)
		return -ENOSYS;
	/* cc, channel, medium, protocol, ...: the handler wants 4 data
	 * bytes (cc included) */
	if (rsp[2] != 0 || len < 6)
		return -EIO;
	*medium = rsp[4] & 0x7f;
	return 0;
}
