// SPDX-License-Identifier: GPL-2.0
/*
 * kcsraw_smi.c - each interface as a system interface of ipmi_msghandler,
 * so that the kernel's own IPMI users (ipmi_watchdog, ipmi_poweroff,
 * acpi_ipmi, panic events, ipmi_devintf) keep working beside /dev/kcsrawN.
 *
 * The message handler keeps one message outstanding. sender() parks it in
 * a slot the poller thread serves before its FIFO (the kernel's lane, with
 * its own policy, sysfs smi_policy); every message comes back through
 * ipmi_smi_msg_received(), the thread's answer, an error made up here, or
 * poll()'s.
 *
 * poll(), flush_messages() and run-to-completion drive the state machine
 * themselves, for when the thread cannot run (panic and power-off stop the
 * other CPUs and run with interrupts off): they only trylock the raw
 * sm_lock, step the machine a bounded number of times with fixed udelay()
 * steps counted as elapsed time (no clock read), never sleep or allocate,
 * and never touch a file of /dev/kcsrawN. Taking the machine over bumps
 * sm_gen: the thread's run of that generation is over for it (kcsraw_step).
 * A FIFO transaction in flight is aborted (its file gets -ECANCELED from
 * the thread, if it ever runs again); the kernel's message in flight is
 * carried on.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/delay.h>
#include <linux/platform_device.h>
#include <linux/ipmi_smi.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <linux/acpi.h>
#include "kcsraw_priv.h"
#include "kcsraw_compat.h"

static_assert(IPMI_MAX_MSG_LENGTH == KCSRAW_MAX_MSG);

/* poll(): one 10 us step (as ipmi_si), at most this many machine calls. */
#define KCSRAW_POLL_US		10
#define KCSRAW_POLL_STEPS	64
/* flush: 250 us steps; the KCS timeouts end a transaction well before. */
#define KCSRAW_FLUSH_US		250
#define KCSRAW_FLUSH_MAX	(120 * USEC_PER_SEC / KCSRAW_FLUSH_US)

/* An answer made up here: the request's netfn|1, cmd, @cc. */
static void kcsraw_smi_error(struct ipmi_smi_msg *msg, u8 cc)
{
	msg->rsp[0] = (msg->data_size > 0 ? msg->data[0] : 0) | 0x04;
	msg->rsp[1] = msg->data_size > 1 ? msg->data[1] : 0;
	msg->rsp[2] = cc;
	msg->rsp_size = 3;
}

/* The machine's result into @msg; an error answer when it has none. */
static void kcsraw_smi_result(struct kcsraw_iface *ifc,
			      struct ipmi_smi_msg *msg)
{
	unsigned int n;

	n = kcs_sm_get_result(&ifc->sm, msg->rsp, IPMI_MAX_MSG_LENGTH);
	if (n < 3)
		kcsraw_smi_error(msg, KCS_CC_UNSPECIFIED);
	else
		msg->rsp_size = n;
}

/* The thread's transaction for smi_cur ended (called under sm_lock). */
void kcsraw_smi_fin_locked(struct kcsraw_iface *ifc, enum kcs_result r)
{
	struct ipmi_smi_msg *msg = ifc->smi_cur;

	if (!msg)
		return;
	if (r == KCS_DONE || r == KCS_HOSED)
		kcsraw_smi_result(ifc, msg);
	else
		kcsraw_smi_error(msg, KCS_CC_UNSPECIFIED);
	ifc->smi_cur = NULL;
	ifc->smi_fin = msg;
}

/* Hand @msg back; never with sm_lock held (it may call sender again). */
static void kcsraw_smi_deliver(struct kcsraw_iface *ifc,
			       struct ipmi_smi_msg *msg)
{
	WRITE_ONCE(ifc->smi_msgs, ifc->smi_msgs + 1);
	ipmi_smi_msg_received(ifc->intf, msg);
	/* shutdown() waits for the lane; not from panic (its lock). */
	if (!READ_ONCE(ifc->smi_rtc))
		wake_up(&ifc->smi_wq);
}

/*
 * The thread's pick: the kernel's waiting message, unless poll() owns the
 * machine or a message is still being returned. @gen: the generation the
 * pick was made at (kcsraw_run_start() checks it under sm_lock).
 */
struct kcsraw_req *kcsraw_smi_pick(struct kcsraw_iface *ifc, u32 *gen)
{
	struct kcsraw_req *req = ifc->smi_req;
	struct ipmi_smi_msg *msg;
	unsigned long flags;
	unsigned int len;

	if (!req || !READ_ONCE(ifc->smi_waiting))
		return NULL;
	raw_spin_lock_irqsave(&ifc->sm_lock, flags);
	msg = ifc->smi_waiting;
	/* sm_what: a request its submitter started has the machine. */
	if (!msg || ifc->poll_owned || ifc->smi_cur || ifc->smi_fin ||
	    ifc->sm_what != KCSRAW_SM_NONE) {
		raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
		return NULL;
	}
	ifc->smi_waiting = NULL;
	ifc->smi_cur = msg;
	*gen = ifc->sm_gen;
	len = clamp_t(int, msg->data_size, 0, KCSRAW_MAX_MSG);
	memcpy(req->req, msg->data, len);
	req->req_len = len;
	req->submitted = ifc->smi_submitted;
	raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);

	memset(&req->comp, 0, sizeof(req->comp));
	req->cancel = false;
	spin_lock_irqsave(&ifc->lock, flags);
	req->pol = ifc->smi_policy;
	spin_unlock_irqrestore(&ifc->lock, flags);
	return req;
}

/*
 * The thread's run for the kernel's message is over: return the message,
 * unless poll() took it over (it returns it).
 */
void kcsraw_smi_done(struct kcsraw_iface *ifc, struct kcsraw_req *req,
		     u32 gen)
{
	struct ipmi_smi_msg *msg;
	unsigned long flags;

	raw_spin_lock_irqsave(&ifc->sm_lock, flags);
	msg = ifc->smi_fin;
	ifc->smi_fin = NULL;
	if (!msg && gen == ifc->sm_gen && !ifc->poll_owned) {
		/* Never reached the machine's end: made-up answer. */
		msg = ifc->smi_cur;
		ifc->smi_cur = NULL;
		if (msg && req->comp.resp_len >= 3 && !req->comp.status) {
			memcpy(msg->rsp, req->comp.resp, req->comp.resp_len);
			msg->rsp_size = req->comp.resp_len;
		} else if (msg) {
			kcsraw_smi_error(msg, KCS_CC_UNSPECIFIED);
		}
	}
	raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
	if (msg)
		kcsraw_smi_deliver(ifc, msg);
}

/*
 * Drive the machine for poll()/flush, sm_lock held: take it over if there
 * is kernel work (or in run-to-completion, where the thread is dead),
 * abort a FIFO transaction, carry the kernel's message on or start the
 * waiting one. At most KCSRAW_POLL_STEPS machine calls; @us is the time
 * the caller waited since the last call. Returns a message to hand back
 * once sm_lock is dropped, or NULL.
 */
static struct ipmi_smi_msg *kcsraw_smi_advance(struct kcsraw_iface *ifc,
					       unsigned int us)
{
	struct ipmi_smi_msg *msg, *done = NULL;
	enum kcs_result r;
	int i, cc;

	if (!ifc->poll_owned) {
		if (!ifc->smi_rtc && !ifc->smi_waiting && !ifc->smi_cur &&
		    !ifc->smi_fin)
			return NULL;
		ifc->poll_owned = true;
		ifc->sm_gen++;
		if (ifc->sm_what == KCSRAW_SM_FILE) {
			kcs_sm_abort(&ifc->sm);
			ifc->sm_what = KCSRAW_SM_ABORT;
			ifc->smi_aborted++;
		}
	}
	/* Finished by the thread, which did not get to return it. */
	if (ifc->smi_fin) {
		done = ifc->smi_fin;
		ifc->smi_fin = NULL;
		goto out;
	}
	for (i = 0; i < KCSRAW_POLL_STEPS; i++) {
		if (ifc->sm_what == KCSRAW_SM_NONE) {
			msg = ifc->smi_cur;
			if (!msg) {
				msg = ifc->smi_waiting;
				if (!msg)
					break;
				ifc->smi_waiting = NULL;
				ifc->smi_cur = msg;
			}
			cc = kcs_sm_start(&ifc->sm, msg->data,
					  max(msg->data_size, 0));
			if (cc) {
				kcsraw_smi_error(msg, cc);
				ifc->smi_cur = NULL;
				done = msg;
				break;
			}
			ifc->sm_what = KCSRAW_SM_SMI;
			continue;
		}
		r = kcs_sm_event(&ifc->sm, us);
		us = 0;
		if (r == KCS_CALL_AGAIN)
			continue;
		if (r == KCS_WAIT)
			break;
		if (ifc->sm_what == KCSRAW_SM_SMI) {
			msg = ifc->smi_cur;
			ifc->smi_cur = NULL;
			ifc->sm_what = KCSRAW_SM_NONE;
			if (r == KCS_DONE || r == KCS_HOSED)
				kcsraw_smi_result(ifc, msg);
			else
				kcsraw_smi_error(msg, KCS_CC_UNSPECIFIED);
			ifc->smi_polled++;
			done = msg;
			break;
		}
		/* An abort's recovery (or a leftover) is over. */
		ifc->sm_what = KCSRAW_SM_NONE;
	}
out:
	/* Give the machine back to the thread once idle (not in panic). */
	if (!ifc->smi_rtc && ifc->sm_what == KCSRAW_SM_NONE &&
	    !ifc->smi_cur && !ifc->smi_waiting && !ifc->smi_fin)
		ifc->poll_owned = false;
	return done;
}

/*
 * sm_lock for poll() and flush: only tried. In run-to-completion (panic)
 * a CPU stopped while holding it will never release it nor touch the
 * machine again, so, as ipmi_si does with its lock, go on without it.
 */
static bool kcsraw_smi_lock(struct kcsraw_iface *ifc, unsigned long *flags,
			    bool *locked)
{
	*locked = raw_spin_trylock_irqsave(&ifc->sm_lock, *flags);
	if (*locked)
		return true;
	if (!READ_ONCE(ifc->smi_rtc))
		return false;
	local_irq_save(*flags);
	return true;
}

static void kcsraw_smi_unlock(struct kcsraw_iface *ifc, unsigned long flags,
			      bool locked)
{
	if (locked)
		raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
	else
		local_irq_restore(flags);
}

static void kcsraw_smi_poll(void *send_info)
{
	struct kcsraw_iface *ifc = send_info;
	struct ipmi_smi_msg *done;
	unsigned long flags;
	bool locked;

	udelay(KCSRAW_POLL_US);
	if (!kcsraw_smi_lock(ifc, &flags, &locked))
		return;
	done = kcsraw_smi_advance(ifc, KCSRAW_POLL_US);
	kcsraw_smi_unlock(ifc, flags, locked);
	if (done)
		kcsraw_smi_deliver(ifc, done);
}

/* Drive everything waiting to its end, in bounded udelay() steps. */
static void kcsraw_smi_flush(void *send_info)
{
	struct kcsraw_iface *ifc = send_info;
	struct ipmi_smi_msg *done;
	unsigned long flags;
	unsigned int i;
	bool busy, locked;

	for (i = 0; i < KCSRAW_FLUSH_MAX; i++) {
		if (kcsraw_smi_lock(ifc, &flags, &locked)) {
			done = kcsraw_smi_advance(ifc, KCSRAW_FLUSH_US);
			busy = ifc->sm_what != KCSRAW_SM_NONE ||
			       ifc->smi_cur || ifc->smi_waiting ||
			       ifc->smi_fin;
			kcsraw_smi_unlock(ifc, flags, locked);
			if (done)
				kcsraw_smi_deliver(ifc, done);
			else if (!busy)
				return;
		}
		udelay(KCSRAW_FLUSH_US);
	}
}

static void kcsraw_smi_set_rtc(void *send_info, bool rtc)
{
	struct kcsraw_iface *ifc = send_info;

	WRITE_ONCE(ifc->smi_rtc, rtc);
	if (rtc)
		kcsraw_smi_flush(ifc);
}

static KCSRAW_SENDER_RET kcsraw_smi_sender(void *send_info,
					   struct ipmi_smi_msg *msg)
{
	struct kcsraw_iface *ifc = send_info;
	unsigned long flags;
	bool refuse;

	if (READ_ONCE(ifc->smi_rtc)) {
		/*
		 * Panic: the other CPUs are stopped, one of them may hold
		 * any lock; poll() and flush run the message.
		 */
		ifc->smi_waiting = msg;
		return KCSRAW_SENDER_OK;
	}
	raw_spin_lock_irqsave(&ifc->sm_lock, flags);
	refuse = ifc->smi_down || ifc->smi_waiting;
	if (!refuse) {
		ifc->smi_waiting = msg;
		ifc->smi_submitted = ktime_get();
	}
	raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
	if (refuse) {
		/* Never lost: answered at once (shutting down, or a second
		 * message while one waits, which the handler never sends).
		 */
		kcsraw_smi_error(msg, ifc->smi_down ? KCS_CC_UNSPECIFIED :
				 KCS_CC_NODE_BUSY);
		kcsraw_smi_deliver(ifc, msg);
		return KCSRAW_SENDER_OK;
	}
	kcsraw_wake(ifc, KCSRAW_WHY_KICK);
	return KCSRAW_SENDER_OK;
}

static int kcsraw_smi_start(void *send_info, struct ipmi_smi *intf)
{
	struct kcsraw_iface *ifc = send_info;

	ifc->intf = intf;
	return 0;
}

#ifdef CONFIG_ACPI
/* Does @adev's _CRS hold an I/O range starting at @base? */
static bool kcsraw_acpi_has_port(struct acpi_device *adev, unsigned long base)
{
	struct resource_entry *rentry;
	LIST_HEAD(res);
	bool found = false;

	if (acpi_dev_get_resources(adev, &res, NULL, NULL) < 0)
		return false;
	resource_list_for_each_entry(rentry, &res) {
		if (resource_type(rentry->res) == IORESOURCE_IO &&
		    rentry->res->start == base)
			found = true;
	}
	acpi_dev_free_resource_list(&res);
	return found;
}

/*
 * The firmware's description of this KCS (an IPI0001 device whose
 * resources start at our data port): acpi_ipmi binds only to an interface
 * that reports SI_ACPI with its handle.
 */
static void kcsraw_smi_find_acpi(struct kcsraw_iface *ifc)
{
	struct acpi_device *adev;

	for_each_acpi_dev_match(adev, "IPI0001", NULL, -1) {
		if (kcsraw_acpi_has_port(adev, ifc->base)) {
			ifc->acpi_handle = adev->handle;
			pr_info("%s: described by ACPI %s\n", ifc->name,
				dev_name(&adev->dev));
			acpi_dev_put(adev);
			return;
		}
	}
}

static bool kcsraw_smi_acpi_info(struct kcsraw_iface *ifc,
				 struct ipmi_smi_info *data)
{
	if (!ifc->acpi_handle)
		return false;
	data->addr_src = SI_ACPI;
	data->addr_info.acpi_info.acpi_handle = ifc->acpi_handle;
	return true;
}
#else
static void kcsraw_smi_find_acpi(struct kcsraw_iface *ifc)
{
}

static bool kcsraw_smi_acpi_info(struct kcsraw_iface *ifc,
				 struct ipmi_smi_info *data)
{
	return false;
}
#endif

static int kcsraw_smi_get_info(void *send_info, struct ipmi_smi_info *data)
{
	struct kcsraw_iface *ifc = send_info;

	if (!kcsraw_smi_acpi_info(ifc, data))
		data->addr_src = ifc->from_dmi ? SI_SMBIOS : SI_HARDCODED;
	data->dev = get_device(&ifc->pdev->dev);
	return 0;
}

/*
 * About once a second while a user waits for events: the flags machine
 * checks the global enables and reads the event buffer (smi_async=1;
 * otherwise the daemon's ATN machine reads it).
 */
static void kcsraw_smi_request_events(void *send_info)
{
	struct kcsraw_iface *ifc = send_info;

	if (!READ_ONCE(ifc->smi_async) || READ_ONCE(ifc->smi_rtc))
		return;
	kcsraw_flags_kick(ifc, KCSRAW_KICK_EVENTS);
	wake_up_process(ifc->thread);
}

/* While set, the idle SMS_ATN check runs at least every 10 ms. */
static void kcsraw_smi_set_need_watch(void *send_info, unsigned int mask)
{
	struct kcsraw_iface *ifc = send_info;

	WRITE_ONCE(ifc->smi_watch, mask);
	if (mask && READ_ONCE(ifc->smi_async) && !READ_ONCE(ifc->smi_rtc))
		wake_up_process(ifc->thread);
}

static void kcsraw_smi_set_maint(void *send_info, bool enable)
{
	struct kcsraw_iface *ifc = send_info;

	WRITE_ONCE(ifc->smi_maint, enable);
}

static bool kcsraw_smi_lane_empty(struct kcsraw_iface *ifc)
{
	unsigned long flags;
	bool empty;

	raw_spin_lock_irqsave(&ifc->sm_lock, flags);
	empty = !ifc->smi_waiting && !ifc->smi_cur && !ifc->smi_fin &&
		!ifc->flg_busy;
	raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
	return empty;
}

/*
 * Unregistering: refuse new messages and let the thread return the one in
 * the lane and finish the flags machine's step (its KCS timeouts bound
 * the wait): ipmi_unregister_smi() then waits for nothing, and nothing is
 * delivered after it.
 */
static void kcsraw_smi_shutdown(void *send_info)
{
	struct kcsraw_iface *ifc = send_info;
	unsigned long flags;

	raw_spin_lock_irqsave(&ifc->sm_lock, flags);
	ifc->smi_down = true;
	raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
	wait_event(ifc->smi_wq, kcsraw_smi_lane_empty(ifc));
}

static const struct ipmi_smi_handlers kcsraw_smi_handlers = {
	.owner			= THIS_MODULE,
	.start_processing	= kcsraw_smi_start,
	.shutdown		= kcsraw_smi_shutdown,
	.get_smi_info		= kcsraw_smi_get_info,
	.sender			= kcsraw_smi_sender,
	.request_events		= kcsraw_smi_request_events,
	.set_need_watch		= kcsraw_smi_set_need_watch,
	.flush_messages		= kcsraw_smi_flush,
	.set_run_to_completion	= kcsraw_smi_set_rtc,
	.poll			= kcsraw_smi_poll,
	.set_maintenance_mode	= kcsraw_smi_set_maint,
};

/* Before the poller starts: the lane's request and policy. */
int kcsraw_smi_init(struct kcsraw_iface *ifc)
{
	init_waitqueue_head(&ifc->smi_wq);
	ifc->smi_req = kzalloc(sizeof(*ifc->smi_req), GFP_KERNEL);
	if (!ifc->smi_req)
		return -ENOMEM;
	ifc->smi_req->smi = true;
	/* The module's defaults; the IRQ when the interface has one. */
	kcsraw_default_policy(ifc, &ifc->smi_policy);
	return kcsraw_flags_init(ifc);
}

void kcsraw_smi_exit(struct kcsraw_iface *ifc)
{
	kcsraw_flags_exit(ifc);
	kfree(ifc->smi_req);
	ifc->smi_req = NULL;
}

/*
 * With smi=1: a platform device for the interface (the handler links the
 * BMC's sysfs device to it), then ipmi_add_smi(), which sends Get Device
 * ID and scans the channels through the running poller. A failure leaves
 * /dev/kcsrawN working and is only reported.
 */
int kcsraw_smi_register(struct kcsraw_iface *ifc)
{
	struct platform_device *pdev;
	unsigned long flags;
	int ret;

	if (!kcsraw_smi_param)
		return 0;
	pdev = platform_device_register_simple(KCSRAW_NAME, ifc->index, NULL, 0);
	if (IS_ERR(pdev)) {
		pr_warn("%s: no platform device (%ld): not an IPMI interface\n",
			ifc->name, PTR_ERR(pdev));
		return PTR_ERR(pdev);
	}
	ifc->pdev = pdev;
	kcsraw_smi_find_acpi(ifc);
	/* Before the handler's first message: the flags are the kernel's. */
	kcsraw_flags_setup(ifc);
	WRITE_ONCE(ifc->smi_async, kcsraw_smi_async_param);
	ret = ipmi_add_smi(THIS_MODULE, &kcsraw_smi_handlers, ifc, &pdev->dev,
			   0);
	if (ret) {
		pr_warn("%s: ipmi_add_smi failed (%d): kernel IPMI users will not see it\n",
			ifc->name, ret);
		ifc->intf = NULL;
		WRITE_ONCE(ifc->smi_async, false);
		raw_spin_lock_irqsave(&ifc->sm_lock, flags);
		ifc->smi_down = false;
		raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
		platform_device_unregister(pdev);
		ifc->pdev = NULL;
		return ret;
	}
	pr_info("%s: registered with ipmi_msghandler\n", ifc->name);
	return 0;
}

/* Needs the poller: shutdown() waits for the lane's message. */
void kcsraw_smi_unregister(struct kcsraw_iface *ifc)
{
	if (ifc->intf) {
		ipmi_unregister_smi(ifc->intf);
		ifc->intf = NULL;
		/* /dev/kcsrawN files get SMS_ATN again. */
		WRITE_ONCE(ifc->smi_async, false);
	}
	if (ifc->pdev) {
		platform_device_unregister(ifc->pdev);
		ifc->pdev = NULL;
	}
}
