// SPDX-License-Identifier: GPL-2.0
/*
 * kcsraw_irq.c - the interface interrupt: its handler, setup and release.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/interrupt.h>
#include <linux/sched.h>
#include <linux/printk.h>
#include "kcsraw_priv.h"
#include "kcsraw_poll.h"

/*
 * The KCS interrupt is level-triggered (QEMU's isa-ipmi-kcs holds it while
 * OBF or an SMS_ATN interrupt is pending, and its SMBIOS record says
 * level) and the cause is cleared only by reading the data register (OBF)
 * or the status register (SMS_ATN). ipmi_si clears it in its handler by
 * running its state machine there, under its lock. Here the state machine
 * belongs to the poller thread (per-transaction policy and cost
 * accounting), so the handler cannot consume an OBF byte: it disables the
 * line, marks the interrupt pending and wakes the poller, which enables the
 * line again just before its next interrupt sleep, after the step that
 * consumed the cause.
 *
 * The handler and the poller run on different CPUs: the "disabled by us"
 * flag and the line's disable depth must change together, so both happen
 * under irq_lock. (With only an atomic flag, the poller could see the
 * flag the handler had just set and enable_irq() before the handler's
 * disable_irq_nosync(): "Unbalanced enable", then the line stayed disabled
 * with the flag clear, for good.)
 *
 * kcsraw_irq_wake(): count the interrupt, mask the line if @mask, wake
 * the poller.
 */
static irqreturn_t kcsraw_irq_wake(struct kcsraw_iface *ifc, int irq,
				   bool mask)
{
	spin_lock(&ifc->irq_lock);
	if (mask && !ifc->irq_masked) {
		ifc->irq_masked = true;
		disable_irq_nosync(irq);
	}
	ifc->irqs++;
	spin_unlock(&ifc->irq_lock);
	atomic_set(&ifc->irq_pending, 1);
	/* Pairs with set_current_state() in kcsraw_sleep(). */
	smp_mb();
	/*
	 * Not for what a submitter's writes raise (QEMU's dummy OBF), nor
	 * while a started request whose policy ignores the IRQ waits.
	 * irq_wait is set only while the thread sleeps, and the poller's
	 * stop waits for this handler (synchronize_irq()) before it lets
	 * go of ifc->thread.
	 */
	if (READ_ONCE(ifc->irq_wait) && !READ_ONCE(ifc->irq_mute))
		kcsraw_wake(ifc, KCSRAW_WHY_IRQ);
	return IRQ_HANDLED;
}

static irqreturn_t kcsraw_irq(int irq, void *data)
{
	struct kcsraw_iface *ifc = data;

	/*
	 * A request its submitter started waits in its armed sleep: nobody
	 * touches the registers until the thread takes it. An interrupt
	 * whose cause is gone (no OBF, no SMS_ATN) is then a late one of the
	 * submitter's writes (QEMU's dummy OBF, drained before the next
	 * write), handled on another CPU after the submitter was done: it
	 * is no answer, and taking it for one ended the armed sleep early
	 * (an IRQ policy slept twice a transaction at 2 vCPUs). The level
	 * line is low: leave it enabled and wake nobody.
	 */
	if (READ_ONCE(ifc->hand_state) == KCSRAW_HAND_READY &&
	    !(kcsraw_io_status(ifc) & (KCS_ST_OBF | KCS_ST_SMS_ATN))) {
		spin_lock(&ifc->irq_lock);
		ifc->irqs++;
		spin_unlock(&ifc->irq_lock);
		return IRQ_HANDLED;
	}
	return kcsraw_irq_wake(ifc, irq, true);
}

/*
 * A line another device shares: disabling it until the poller has run
 * would silence that device too, and an interrupt that is not the KCS's
 * must be left to its owner. So the line is never disabled here. The
 * handler takes the answer's byte out of the data register itself, which
 * drops the KCS's request, and keeps it in obf_stash, where the state
 * machine's next data read finds it (kcsraw_io.c). The machine is only
 * touched under sm_lock: when a step on another CPU holds it, the handler
 * waits for that one step (every holder has interrupts off, so it never
 * waits for its own CPU). SMS_ATN is the KCS's interrupt only when it
 * came up since kcsraw last read the status (that read, and this one,
 * clear its cause: QEMU's KCS drops the line; a BMC that signals it with
 * a dummy OBF byte is the case above). Anything else, SMS_ATN already
 * known among it, is another device's: IRQ_NONE.
 */
static irqreturn_t kcsraw_irq_shared(int irq, void *data)
{
	struct kcsraw_iface *ifc = data;
	unsigned long flags;
	bool took = false, atn_new;
	u8 st;

	raw_spin_lock_irqsave(&ifc->sm_lock, flags);
	atn_new = !ifc->atn_seen;
	/* With a byte still held, OBF is that byte's: only SMS_ATN is new. */
	st = kcsraw_io_status(ifc);
	atn_new = atn_new && (st & KCS_ST_SMS_ATN);
	if ((st & KCS_ST_OBF) && ifc->obf_stash < 0) {
		ifc->obf_stash = kcsraw_port_ops.inb(ifc, KCS_REG_DATA);
		WRITE_ONCE(ifc->irq_taken, ifc->irq_taken + 1);
		took = true;
	}
	raw_spin_unlock_irqrestore(&ifc->sm_lock, flags);
	if (!took && !atn_new)
		return IRQ_NONE;
	return kcsraw_irq_wake(ifc, irq, false);
}

/* Undo the handler's disable_irq_nosync(), if it did one. */
void kcsraw_irq_unmask(struct kcsraw_iface *ifc, unsigned int irq)
{
	unsigned long flags;

	if (!irq)
		return;
	spin_lock_irqsave(&ifc->irq_lock, flags);
	if (ifc->irq_masked) {
		ifc->irq_masked = false;
		enable_irq(irq);
	}
	spin_unlock_irqrestore(&ifc->irq_lock, flags);
}

/* IPMI App commands used to switch the BMC's interrupt on. */
#define IPMI_NETFN_APP_REQ		(0x06 << 2)
#define IPMI_SET_BMC_GLOBAL_ENABLES	0x2e
#define IPMI_GET_BMC_GLOBAL_ENABLES	0x2f
#define IPMI_BMC_RCV_MSG_INTR		0x01

static int kcsraw_set_enables(struct kcsraw_iface *ifc, u8 val)
{
	u8 msg[3] = { IPMI_NETFN_APP_REQ, IPMI_SET_BMC_GLOBAL_ENABLES, val };
	u8 resp[8];
	unsigned int len = sizeof(resp);
	int ret;

	ret = kcsraw_xfer_sync(ifc, msg, sizeof(msg), resp, &len);
	if (ret)
		return ret;
	return len >= 3 && resp[2] == 0 ? 0 : -EIO;
}

/*
 * Request the interface IRQ and have the BMC raise it (receive message
 * queue interrupt enable): QEMU's KCS only interrupts once the host has
 * enabled that through Set BMC Global Enables. Any failure leaves the
 * interface polled.
 */
int kcsraw_irq_setup(struct kcsraw_iface *ifc)
{
	u8 msg[2] = { IPMI_NETFN_APP_REQ, IPMI_GET_BMC_GLOBAL_ENABLES };
	u8 resp[8];
	unsigned int len = sizeof(resp);
	int ret;

	if (!ifc->cfg_irq)
		return 0;
	kcsraw_fault_share_irq(ifc->cfg_irq, kcsraw_irq_shared, ifc);
	ret = -EBUSY;
	if (!kcsraw_share_irq)
		ret = request_irq(ifc->cfg_irq, kcsraw_irq, IRQF_PROBE_SHARED,
				  ifc->name, ifc);
	/* sysfs irq_shared shows it only while ifc->irq is set */
	ifc->irq_shared = ret == -EBUSY;
	if (ifc->irq_shared)
		ret = request_irq(ifc->cfg_irq, kcsraw_irq_shared, IRQF_SHARED,
				  ifc->name, ifc);
	if (ret) {
		pr_warn("%s: cannot request irq %u (%d); polling only\n",
			ifc->name, ifc->cfg_irq, ret);
		return 0;
	}
	if (ifc->irq_shared)
		pr_info("%s: irq %u is shared with another device\n",
			ifc->name, ifc->cfg_irq);
	ret = kcsraw_xfer_sync(ifc, msg, sizeof(msg), resp, &len);
	if (ret || len < 4 || resp[2]) {
		pr_warn("%s: Get BMC Global Enables failed; polling only\n",
			ifc->name);
		goto fail;
	}
	ifc->orig_global_enables = resp[3];
	if (!(resp[3] & IPMI_BMC_RCV_MSG_INTR)) {
		ret = kcsraw_set_enables(ifc, resp[3] | IPMI_BMC_RCV_MSG_INTR);
		if (ret) {
			pr_warn("%s: the BMC refused the interrupt enable; polling only\n",
				ifc->name);
			goto fail;
		}
		ifc->irq_enabled_bmc = true;
	}
	WRITE_ONCE(ifc->irq, ifc->cfg_irq);
	pr_info("%s: using irq %u\n", ifc->name, ifc->irq);
	return 0;
fail:
	/* ifc->irq is 0: the poller never enables the line. */
	kcsraw_irq_unmask(ifc, ifc->cfg_irq);
	free_irq(ifc->cfg_irq, ifc);
	return 0;
}

/* Give the BMC back its interrupt enables; needs the poller running. */
void kcsraw_irq_restore(struct kcsraw_iface *ifc)
{
	if (!ifc->irq || !ifc->irq_enabled_bmc)
		return;
	if (kcsraw_set_enables(ifc, ifc->orig_global_enables))
		pr_warn("%s: could not restore the BMC global enables\n",
			ifc->name);
	ifc->irq_enabled_bmc = false;
}

/*
 * Release the IRQ. Only once the poller has stopped: until then it may
 * enable_irq() the line before a sleep.
 */
void kcsraw_irq_free(struct kcsraw_iface *ifc)
{
	unsigned int irq = ifc->irq;

	WARN_ON_ONCE(ifc->thread);
	if (!irq)
		return;
	WRITE_ONCE(ifc->irq, 0);
	kcsraw_irq_unmask(ifc, irq);
	free_irq(irq, ifc);
}
