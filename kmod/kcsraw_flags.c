// SPDX-License-Identifier: GPL-2.0
/*
 * kcsraw_flags.c - the message flags machine (smi=1, smi_async=1): the
 * kernel is the only reader of the BMC's message flags, receive queue and
 * event message buffer, as with ipmi_si, and gives what it reads to
 * ipmi_msghandler, which routes IPMB/LAN replies, incoming commands and
 * events to its users.
 *
 * On SMS_ATN (the poller's idle check) it sends Get Message Flags, then
 * for the bits set: Clear Message Flags (watchdog pre-timeout) and
 * ipmi_smi_watchdog_pretimeout(); Get Message until cc != 0; Read Event
 * Message Buffer until cc != 0 or an answer that is no event. On
 * request_events() it checks the BMC's global enables (a BMC that reset
 * itself lost them) and reads the event buffer. At most
 * KCSRAW_FLG_MAX_ROW fetches in a row: the run then ends and a
 * /dev/kcsrawN request goes first; the kernel's lane goes before every
 * step. One transaction per call, run by the poller thread only, with the
 * lane's policy: poll() and flush (panic, power-off) never run it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ipmi_smi.h>
#include <linux/ipmi_msgdefs.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include "kcsraw_priv.h"

/* Get Message Flags bits. */
#define KCSRAW_FLG_RECV_MSG	0x01
#define KCSRAW_FLG_EVT_BUF	0x02
#define KCSRAW_FLG_PRETIMEOUT	0x08
/* BMC global enables. */
#define KCSRAW_GE_RCV_INTR	0x01
#define KCSRAW_GE_EVT_INTR	0x02
#define KCSRAW_GE_EVT_BUF	0x04

#define KCSRAW_FLG_MAX_ROW	10
/* An event: netfn|1, cmd, cc and the 16 bytes of the record. */
#define KCSRAW_EVENT_LEN	19

enum kcsraw_flg_state {
	KCSRAW_FLG_IDLE,
	KCSRAW_FLG_GET_FLAGS,
	KCSRAW_FLG_CLEAR,
	KCSRAW_FLG_GET_MSG,
	KCSRAW_FLG_READ_EVENT,
	KCSRAW_FLG_CHECK_ENABLES,
	KCSRAW_FLG_SET_ENABLES,
};

/* One App request of the module's own; 0 and the answer in @resp. */
static int kcsraw_flags_xfer(struct kcsraw_iface *ifc, u8 cmd, int arg,
			     u8 *resp)
{
	u8 msg[3] = { IPMI_NETFN_APP_REQUEST << 2, cmd, arg };
	unsigned int len = 8;
	int ret;

	ret = kcsraw_xfer_sync(ifc, msg, arg < 0 ? 2 : 3, resp, &len);
	if (ret)
		return ret;
	/* Get answers the enables byte; Set only its completion code. */
	return len >= (arg < 0 ? 4 : 3) && !resp[2] ? 0 : -EIO;
}

/*
 * At registration, as ipmi_si's try_enable_event_buffer: the event
 * message buffer on (and its interrupt with an IRQ), checked by reading
 * the enables back. A BMC without one still gets its receive queue read.
 */
void kcsraw_flags_setup(struct kcsraw_iface *ifc)
{
	u8 resp[8], want;

	if (!kcsraw_smi_async_param)
		return;
	ifc->flg_enables = ifc->irq ? KCSRAW_GE_RCV_INTR : 0;
	if (kcsraw_flags_xfer(ifc, IPMI_GET_BMC_GLOBAL_ENABLES_CMD, -1, resp)) {
		pr_warn("%s: Get BMC Global Enables failed: no event buffer\n",
			ifc->name);
		goto out;
	}
	want = KCSRAW_GE_EVT_BUF | (ifc->irq ? KCSRAW_GE_EVT_INTR : 0);
	if ((resp[3] & want) != want &&
	    (kcsraw_flags_xfer(ifc, IPMI_SET_BMC_GLOBAL_ENABLES_CMD,
			       resp[3] | want, resp) ||
	     kcsraw_flags_xfer(ifc, IPMI_GET_BMC_GLOBAL_ENABLES_CMD, -1,
			       resp))) {
		pr_warn("%s: the BMC refused the event buffer\n", ifc->name);
		goto out;
	}
	ifc->flg_evbuf = resp[3] & KCSRAW_GE_EVT_BUF;
	ifc->flg_enables |= resp[3] & want;
out:
	pr_info("%s: message flags, receive queue and events in the kernel (event buffer %s)\n",
		ifc->name, ifc->flg_evbuf ? "on" : "off");
}

/* The next operation for the flags still set (ipmi_si's handle_flags). */
static void kcsraw_flags_next(struct kcsraw_iface *ifc)
{
	u8 f = ifc->flg_flags;

	if (ifc->flg_row >= KCSRAW_FLG_MAX_ROW)
		ifc->flg_state = KCSRAW_FLG_IDLE;	/* the next ATN */
	else if (f & KCSRAW_FLG_PRETIMEOUT)
		ifc->flg_state = KCSRAW_FLG_CLEAR;
	else if (f & KCSRAW_FLG_RECV_MSG)
		ifc->flg_state = KCSRAW_FLG_GET_MSG;
	else if (f & KCSRAW_FLG_EVT_BUF)
		ifc->flg_state = KCSRAW_FLG_READ_EVENT;
	else
		ifc->flg_state = KCSRAW_FLG_IDLE;
}

/* After the enables: the event buffer, if there is one. */
static void kcsraw_flags_events(struct kcsraw_iface *ifc)
{
	ifc->flg_flags = ifc->flg_evbuf ? KCSRAW_FLG_EVT_BUF : 0;
	kcsraw_flags_next(ifc);
}

/* The request for the current state; the message to deliver, if any. */
static bool kcsraw_flags_req(struct kcsraw_iface *ifc, struct kcsraw_req *req,
			     struct ipmi_smi_msg **msg)
{
	req->req[0] = IPMI_NETFN_APP_REQUEST << 2;
	req->req_len = 2;
	switch (ifc->flg_state) {
	case KCSRAW_FLG_GET_FLAGS:
		req->req[1] = IPMI_GET_MSG_FLAGS_CMD;
		return true;
	case KCSRAW_FLG_CLEAR:
		req->req[1] = IPMI_CLEAR_MSG_FLAGS_CMD;
		req->req[2] = KCSRAW_FLG_PRETIMEOUT;
		req->req_len = 3;
		return true;
	case KCSRAW_FLG_CHECK_ENABLES:
		req->req[1] = IPMI_GET_BMC_GLOBAL_ENABLES_CMD;
		return true;
	case KCSRAW_FLG_SET_ENABLES:
		req->req[1] = IPMI_SET_BMC_GLOBAL_ENABLES_CMD;
		req->req[2] = ifc->flg_set;
		req->req_len = 3;
		return true;
	case KCSRAW_FLG_GET_MSG:
	case KCSRAW_FLG_READ_EVENT:
		/* Before the fetch: what it takes out must not be lost. */
		*msg = ipmi_alloc_smi_msg();
		if (!*msg)
			return false;
		req->req[1] = ifc->flg_state == KCSRAW_FLG_GET_MSG ?
			      IPMI_GET_MSG_CMD : IPMI_READ_EVENT_MSG_BUFFER_CMD;
		return true;
	default:
		return false;
	}
}

/* Fill @msg with the fetch's request and answer, for the handler. */
static void kcsraw_flags_fill(struct ipmi_smi_msg *msg,
			      const struct kcsraw_req *req)
{
	msg->data[0] = req->req[0];
	msg->data[1] = req->req[1];
	msg->data_size = 2;
	memcpy(msg->rsp, req->comp.resp, req->comp.resp_len);
	msg->rsp_size = req->comp.resp_len;
}

/* The answer to the current state's request; the message to deliver. */
static struct ipmi_smi_msg *kcsraw_flags_answer(struct kcsraw_iface *ifc,
						const struct kcsraw_req *req,
						struct ipmi_smi_msg *msg)
{
	const struct kcsraw_completion *c = &req->comp;
	const u8 *rsp = c->resp;
	bool ok;

	ok = !c->status && !(c->flags & KCSRAW_DONE_SYNTH) &&
	     c->resp_len >= 3 && !rsp[2];
	switch (ifc->flg_state) {
	case KCSRAW_FLG_GET_FLAGS:
		ifc->flg_flags = ok && c->resp_len >= 4 ? rsp[3] : 0;
		kcsraw_flags_next(ifc);
		return NULL;
	case KCSRAW_FLG_CLEAR:
		ifc->flg_flags &= ~KCSRAW_FLG_PRETIMEOUT;
		ifc->flg_pretimeouts++;
		ifc->flg_got = true;
		ipmi_smi_watchdog_pretimeout(ifc->intf);
		kcsraw_flags_next(ifc);
		return NULL;
	case KCSRAW_FLG_GET_MSG:
	case KCSRAW_FLG_READ_EVENT:
		if (!ok || (ifc->flg_state == KCSRAW_FLG_READ_EVENT &&
			    c->resp_len != KCSRAW_EVENT_LEN)) {
			ifc->flg_flags &= ifc->flg_state == KCSRAW_FLG_GET_MSG ?
					  ~KCSRAW_FLG_RECV_MSG :
					  ~KCSRAW_FLG_EVT_BUF;
			kcsraw_flags_next(ifc);
			ipmi_free_smi_msg(msg);
			return NULL;
		}
		if (ifc->flg_state == KCSRAW_FLG_GET_MSG)
			ifc->flg_msgs++;
		else
			ifc->flg_events++;
		ifc->flg_row++;
		ifc->flg_got = true;
		kcsraw_flags_next(ifc);
		kcsraw_flags_fill(msg, req);
		return msg;
	case KCSRAW_FLG_CHECK_ENABLES:
		if (ok && c->resp_len >= 4 &&
		    (rsp[3] & ifc->flg_enables) != ifc->flg_enables) {
			ifc->flg_set = rsp[3] | ifc->flg_enables;
			ifc->flg_state = KCSRAW_FLG_SET_ENABLES;
			return NULL;
		}
		kcsraw_flags_events(ifc);
		return NULL;
	default:
		kcsraw_flags_events(ifc);
		return NULL;
	}
}

/* Start a run when the machine is idle and something asked for one. */
static bool kcsraw_flags_kicked(struct kcsraw_iface *ifc)
{
	if (ifc->flg_state != KCSRAW_FLG_IDLE)
		return true;
	/* Only a run SMS_ATN started can find SMS_ATN empty. */
	if (test_and_clear_bit(KCSRAW_KICK_ATN, &ifc->flg_kick)) {
		ifc->flg_state = KCSRAW_FLG_GET_FLAGS;
		ifc->flg_got = false;
	} else if (test_and_clear_bit(KCSRAW_KICK_EVENTS, &ifc->flg_kick)) {
		ifc->flg_state = KCSRAW_FLG_CHECK_ENABLES;
		ifc->flg_got = true;
	} else {
		return false;
	}
	ifc->flg_row = 0;
	return true;
}

/* May the machine run (registered, not shutting down)? Marks it busy. */
/*
 * Take the machine for one step: -ENODEV when the interface is not (or no
 * longer) registered, -EBUSY while a request its submitter started has it
 * (kcsraw_poll.c; the thread sleeps until that one ends). flg_busy keeps
 * submitters off it until kcsraw_flags_leave().
 */
static int kcsraw_flags_enter(struct kcsraw_iface *ifc)
{
	unsigned long flags;
	int rv = 0;

	raw_spin_lock_irqsave(&ifc->sm_lock, flags);
	if (!ifc->intf || ifc->smi_down || ifc->smi_rtc)
		rv = -ENODEV;
	else if (ifc->sm_what != KCSRAW_SM_NONE)
		rv = -EBUSY;
	ifc->flg_busy = !rv;
	raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
	return rv;
}

static void kcsraw_flags_leave(struct kcsraw_iface *ifc)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&ifc->sm_lock, flags);
	ifc->flg_busy = false;
	raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
	/* shutdown() waits for the machine to leave. */
	wake_up(&ifc->smi_wq);
}

/*
 * The poller thread's turn for the machine, between the kernel's lane and
 * the FIFO: one transaction. false when there was nothing to do.
 */
bool kcsraw_flags_step(struct kcsraw_iface *ifc)
{
	struct kcsraw_req *req = ifc->flg_req;
	struct ipmi_smi_msg *msg = NULL, *deliver;
	unsigned long flags;
	int rv;

	if (!req || !READ_ONCE(ifc->smi_async) || !kcsraw_flags_kicked(ifc))
		return false;
	rv = kcsraw_flags_enter(ifc);
	if (rv == -EBUSY)
		return false;
	if (rv) {
		/* Not (or no longer) registered: nothing to start again. */
		ifc->flg_state = KCSRAW_FLG_IDLE;
		clear_bit(KCSRAW_KICK_ATN, &ifc->flg_kick);
		clear_bit(KCSRAW_KICK_EVENTS, &ifc->flg_kick);
		return false;
	}
	if (!kcsraw_flags_req(ifc, req, &msg)) {
		pr_warn_ratelimited("%s: no message for the flags machine\n",
				    ifc->name);
		ifc->flg_state = KCSRAW_FLG_IDLE;
		kcsraw_flags_leave(ifc);
		return false;
	}
	memset(&req->comp, 0, sizeof(req->comp));
	req->cancel = false;
	spin_lock_irqsave(&ifc->lock, flags);
	req->pol = ifc->smi_policy;
	spin_unlock_irqrestore(&ifc->lock, flags);
	req->submitted = ktime_get();
	kcsraw_run_req(ifc, req, 0);
	spin_lock_irqsave(&ifc->lock, flags);
	kcsraw_account(ifc, req);
	spin_unlock_irqrestore(&ifc->lock, flags);
	ifc->flg_ops++;

	deliver = kcsraw_flags_answer(ifc, req, msg);
	/* A run that found nothing: see kcsraw_flags_atn(). */
	if (ifc->flg_state == KCSRAW_FLG_IDLE && !ifc->flg_got)
		ifc->flg_empty_at = ktime_get();
	if (deliver)
		ipmi_smi_msg_received(ifc->intf, deliver);
	kcsraw_flags_leave(ifc);
	return true;
}

void kcsraw_flags_kick(struct kcsraw_iface *ifc, int what)
{
	set_bit(what, &ifc->flg_kick);
}

/*
 * SMS_ATN seen by the idle check. A BMC that keeps it up with nothing to
 * fetch (no flag set, or a flag whose fetch answers empty, as ipmi_sim
 * after a long run) would have the thread run the machine back to back:
 * after a run that found nothing, SMS_ATN starts the next only once
 * @quiet_ms have passed (the idle check's own pace). false: ignored.
 */
bool kcsraw_flags_atn(struct kcsraw_iface *ifc, unsigned int quiet_ms)
{
	/* Before start_processing() and from shutdown() on: nobody's. */
	if (!READ_ONCE(ifc->intf) || READ_ONCE(ifc->smi_down))
		return false;
	if (ifc->flg_empty_at &&
	    ktime_ms_delta(ktime_get(), ifc->flg_empty_at) < quiet_ms)
		return false;
	ifc->flg_empty_at = 0;
	kcsraw_flags_kick(ifc, KCSRAW_KICK_ATN);
	return true;
}

int kcsraw_flags_init(struct kcsraw_iface *ifc)
{
	ifc->flg_req = kzalloc(sizeof(*ifc->flg_req), GFP_KERNEL);
	return ifc->flg_req ? 0 : -ENOMEM;
}

void kcsraw_flags_exit(struct kcsraw_iface *ifc)
{
	kfree(ifc->flg_req);
	ifc->flg_req = NULL;
}
