// SPDX-License-Identifier: GPL-2.0
/*
 * kcsraw_io.c - port I/O register access and I/O region ownership, and
 * the fault injection tests use (fault_inject=1): a BMC that misbehaves
 * at the register level, and a device sharing its interrupt line, which
 * an emulated KCS cannot play.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/irq.h>
#include <linux/hrtimer.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/printk.h>
#include <linux/moduleparam.h>
#include <linux/uaccess.h>
#include "kcsraw_priv.h"
#include "kcsraw_compat.h"

static bool kcsraw_fault_inject;
module_param_named(fault_inject, kcsraw_fault_inject, bool, 0444);
MODULE_PARM_DESC(fault_inject, "Tests only: /sys/kernel/debug/kcsraw/faults makes the port I/O play a BMC that misbehaves (status 0xff, IBF stuck, no OBF, SMS_ATN stuck) (default 0)");

/*
 * The fault in force, on every interface. "ff": every register reads
 * 0xff and writes are dropped (nothing decodes the port); "ibf": status
 * reads with IBF set and writes are dropped (a BMC that stopped taking
 * bytes); "obf": the bytes are taken at once and the answer never comes
 * (the state the host's writes lead to, IBF and OBF clear, and nothing
 * reaches the real interface, whose answer would raise its interrupt);
 * "atn": status reads with SMS_ATN set (a flag the BMC never clears). It
 * ends when its time is up, or at the WRITE_START after the @tries it
 * covers (each try of a transaction writes one). @starts counts the
 * WRITE_STARTs and @hits the reads it changed since it was set.
 */
enum { KCSRAW_FAULT_NONE, KCSRAW_FAULT_FF, KCSRAW_FAULT_IBF,
	KCSRAW_FAULT_OBF, KCSRAW_FAULT_ATN };
static const char * const kcsraw_fault_names[] = { "none", "ff", "ibf", "obf",
						   "atn" };

static struct {
	raw_spinlock_t lock;
	int kind;			/* also read without the lock */
	ktime_t until;			/* 0: no time bound */
	unsigned int tries;		/* 0: no bound */
	unsigned int starts;
	unsigned long hits;
	u8 state;			/* "obf": KCS_STATE_* shown */
	u8 last;			/* ... the last control code */
} kcsraw_fault = { .lock = __RAW_SPIN_LOCK_UNLOCKED(kcsraw_fault.lock) };

static struct dentry *kcsraw_fault_dir;

/* The fault in force now; @start: a WRITE_START is being written. */
static int kcsraw_fault_now(bool start, bool hit)
{
	unsigned long flags;
	int kind;

	if (likely(READ_ONCE(kcsraw_fault.kind) == KCSRAW_FAULT_NONE))
		return KCSRAW_FAULT_NONE;
	raw_spin_lock_irqsave(&kcsraw_fault.lock, flags);
	if (kcsraw_fault.until && ktime_after(ktime_get(), kcsraw_fault.until))
		kcsraw_fault.kind = KCSRAW_FAULT_NONE;
	if (start && kcsraw_fault.kind &&
	    ++kcsraw_fault.starts > kcsraw_fault.tries && kcsraw_fault.tries)
		kcsraw_fault.kind = KCSRAW_FAULT_NONE;
	kind = kcsraw_fault.kind;
	if (kind && hit)
		kcsraw_fault.hits++;
	raw_spin_unlock_irqrestore(&kcsraw_fault.lock, flags);
	return kind;
}

static unsigned long kcsraw_reg_port(struct kcsraw_iface *ifc, unsigned int reg)
{
	return ifc->base + reg * ifc->spacing;
}

/*
 * "obf": the interface state a BMC that takes every byte shows: a control
 * code (WRITE_START, WRITE_END, GET_STATUS/ABORT) leads to WRITE, the
 * data byte after WRITE_END or GET_STATUS/ABORT to READ.
 */
static void kcsraw_fault_obf_write(unsigned int reg, u8 val)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&kcsraw_fault.lock, flags);
	if (reg == KCS_REG_STATUS) {
		kcsraw_fault.state = KCS_STATE_WRITE;
		kcsraw_fault.last = val;
	} else if (kcsraw_fault.last == KCS_CC_WRITE_END ||
		   kcsraw_fault.last == KCS_CC_GET_STATUS_ABORT) {
		kcsraw_fault.state = KCS_STATE_READ;
		kcsraw_fault.last = 0;
	}
	raw_spin_unlock_irqrestore(&kcsraw_fault.lock, flags);
}

static u8 kcsraw_inb_fault(struct kcsraw_iface *ifc, unsigned int reg)
{
	bool st = reg == KCS_REG_STATUS;
	int kind;
	u8 v;

	/* The byte a shared line's handler took: OBF until it is read. */
	if (unlikely(ifc->obf_stash >= 0)) {
		if (!st) {
			v = ifc->obf_stash;
			ifc->obf_stash = -1;
			return v;
		}
		return inb(kcsraw_reg_port(ifc, reg)) | KCS_ST_OBF;
	}
	kind = kcsraw_fault_now(false, st);
	if (kind == KCSRAW_FAULT_FF)
		return 0xff;
	if (kind == KCSRAW_FAULT_OBF)
		return st ? READ_ONCE(kcsraw_fault.state) << 6 : 0;
	v = inb(kcsraw_reg_port(ifc, reg));
	if (kind == KCSRAW_FAULT_IBF && st)
		v |= KCS_ST_IBF;
	if (kind == KCSRAW_FAULT_ATN && st)
		v |= KCS_ST_SMS_ATN;
	return v;
}

/*
 * A register read; a status read also notes whether it showed SMS_ATN,
 * for the shared line's handler (kcsraw_irq.c).
 */
static u8 kcsraw_inb(void *ctx, unsigned int reg)
{
	struct kcsraw_iface *ifc = ctx;
	u8 v = kcsraw_inb_fault(ifc, reg);

	if (reg == KCS_REG_STATUS)
		WRITE_ONCE(ifc->atn_seen, !!(v & KCS_ST_SMS_ATN));
	return v;
}

static void kcsraw_outb(void *ctx, unsigned int reg, u8 val)
{
	int kind = kcsraw_fault_now(reg == KCS_REG_STATUS &&
				    val == KCS_CC_WRITE_START, false);

	if (kind == KCSRAW_FAULT_OBF)
		kcsraw_fault_obf_write(reg, val);
	if (kind != KCSRAW_FAULT_NONE)
		return;
	outb(val, kcsraw_reg_port(ctx, reg));
}

/*
 * fault_lost_delay_ms: the thread, having found the BMC gone, waits this
 * long before it queues the probe, so that a test can time rmmod into
 * that window. Said in the log at its start and end.
 */
static unsigned int kcsraw_fault_lost_ms;
module_param_named(fault_lost_delay_ms, kcsraw_fault_lost_ms, uint, 0644);
MODULE_PARM_DESC(fault_lost_delay_ms, "Tests only, with fault_inject=1: wait this long between finding the BMC gone and queueing its probe (default 0)");

void kcsraw_fault_lost_delay(struct kcsraw_iface *ifc)
{
	unsigned int ms = READ_ONCE(kcsraw_fault_lost_ms);

	if (!kcsraw_fault_inject || !ms)
		return;
	pr_info("%s: fault: %u ms before the probe is queued\n", ifc->name,
		ms);
	msleep(ms);
	pr_info("%s: fault: queueing the probe, unloading=%d\n", ifc->name,
		READ_ONCE(ifc->probe_stop));
}

/*
 * fault_irq_sharer=1: a handler that shares the interface's line before
 * kcsraw asks for it, as another device's driver does on boards that wire
 * the BMC to a shared line. It claims no interrupt and counts the calls:
 * each of the KCS's interrupts must reach it (the line stays enabled).
 * Every millisecond it samples whether the line is disabled (the longest
 * run of such samples is how long the other device's interrupts would
 * have waited, to within a sample), and a write of "fire N" plays N
 * interrupts of the other device: kcsraw's handler, called as the kernel
 * calls every handler of a shared line, must not claim them.
 */
static bool kcsraw_fault_sharer;
module_param_named(fault_irq_sharer, kcsraw_fault_sharer, bool, 0444);
MODULE_PARM_DESC(fault_irq_sharer, "Tests only, with fault_inject=1: another handler shares the interface IRQ, registered before kcsraw's (default 0)");

#define KCSRAW_SHARER_SAMPLE_NS	NSEC_PER_MSEC

static struct {
	unsigned int irq;
	atomic_long_t calls;
	irq_handler_t handler;		/* kcsraw's, for "fire" */
	void *dev;
	struct hrtimer sampler;
	spinlock_t lock;		/* the counts below */
	unsigned long samples, disabled, run, longest;
	unsigned long fired, claimed;
} kcsraw_sharer;

static irqreturn_t kcsraw_sharer_irq(int irq, void *data)
{
	atomic_long_inc(&kcsraw_sharer.calls);
	return IRQ_NONE;
}

static enum hrtimer_restart kcsraw_sharer_sample(struct hrtimer *t)
{
	bool off = irqd_irq_disabled(irq_get_irq_data(kcsraw_sharer.irq));
	unsigned long flags;

	spin_lock_irqsave(&kcsraw_sharer.lock, flags);
	kcsraw_sharer.samples++;
	kcsraw_sharer.run = off ? kcsraw_sharer.run + 1 : 0;
	kcsraw_sharer.disabled += off;
	kcsraw_sharer.longest = max(kcsraw_sharer.longest, kcsraw_sharer.run);
	spin_unlock_irqrestore(&kcsraw_sharer.lock, flags);
	hrtimer_forward_now(t, ns_to_ktime(KCSRAW_SHARER_SAMPLE_NS));
	return HRTIMER_RESTART;
}

void kcsraw_fault_share_irq(unsigned int irq, irq_handler_t handler,
			    void *dev)
{
	if (!kcsraw_fault_inject || !kcsraw_fault_sharer || kcsraw_sharer.irq)
		return;
	if (request_irq(irq, kcsraw_sharer_irq, IRQF_SHARED,
			KCSRAW_NAME "-sharer", &kcsraw_sharer)) {
		pr_warn("fault_irq_sharer: cannot share irq %u\n", irq);
		return;
	}
	spin_lock_init(&kcsraw_sharer.lock);
	kcsraw_sharer.handler = handler;
	kcsraw_sharer.dev = dev;
	kcsraw_sharer.irq = irq;
	kcsraw_hrtimer_setup(&kcsraw_sharer.sampler, kcsraw_sharer_sample);
	hrtimer_start(&kcsraw_sharer.sampler,
		      ns_to_ktime(KCSRAW_SHARER_SAMPLE_NS), HRTIMER_MODE_REL);
}

void kcsraw_fault_unshare_irq(void)
{
	if (!kcsraw_sharer.irq)
		return;
	hrtimer_cancel(&kcsraw_sharer.sampler);
	free_irq(kcsraw_sharer.irq, &kcsraw_sharer);
	kcsraw_sharer.irq = 0;
}

/* The other device's interrupt, @n times; kcsraw's handler is asked too. */
static void kcsraw_sharer_fire(unsigned int n)
{
	unsigned long flags, claimed = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		local_irq_save(flags);
		kcsraw_sharer_irq(kcsraw_sharer.irq, &kcsraw_sharer);
		if (kcsraw_sharer.handler(kcsraw_sharer.irq,
					  kcsraw_sharer.dev) != IRQ_NONE)
			claimed++;
		local_irq_restore(flags);
	}
	spin_lock_irqsave(&kcsraw_sharer.lock, flags);
	kcsraw_sharer.fired += n;
	kcsraw_sharer.claimed += claimed;
	spin_unlock_irqrestore(&kcsraw_sharer.lock, flags);
}

/*
 * Read: "irq=N calls=N samples=N disabled=N longest_ms=N fired=N
 * claimed=N".
 */
static ssize_t kcsraw_sharer_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	unsigned long flags;
	char buf[192];
	int n;

	spin_lock_irqsave(&kcsraw_sharer.lock, flags);
	n = scnprintf(buf, sizeof(buf),
		      "irq=%u calls=%ld samples=%lu disabled=%lu longest_ms=%lu fired=%lu claimed=%lu\n",
		      kcsraw_sharer.irq, atomic_long_read(&kcsraw_sharer.calls),
		      kcsraw_sharer.samples, kcsraw_sharer.disabled,
		      kcsraw_sharer.longest, kcsraw_sharer.fired,
		      kcsraw_sharer.claimed);
	spin_unlock_irqrestore(&kcsraw_sharer.lock, flags);
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

/* Write: "reset" (the samples and the fired counts) or "fire N". */
static ssize_t kcsraw_sharer_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	unsigned long flags;
	unsigned int n;
	char buf[32];

	if (!kcsraw_sharer.irq)
		return -ENODEV;
	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "fire %u", &n) == 1 && n <= 100000) {
		kcsraw_sharer_fire(n);
		return count;
	}
	if (strcmp(strim(buf), "reset"))
		return -EINVAL;
	spin_lock_irqsave(&kcsraw_sharer.lock, flags);
	kcsraw_sharer.samples = 0;
	kcsraw_sharer.disabled = 0;
	kcsraw_sharer.run = 0;
	kcsraw_sharer.longest = 0;
	kcsraw_sharer.fired = 0;
	kcsraw_sharer.claimed = 0;
	spin_unlock_irqrestore(&kcsraw_sharer.lock, flags);
	return count;
}

static const struct file_operations kcsraw_sharer_fops = {
	.owner = THIS_MODULE,
	.read = kcsraw_sharer_read,
	.write = kcsraw_sharer_write,
};

/* Read: "KIND left_ms=N tries=N starts=N hits=N". */
static ssize_t kcsraw_fault_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	unsigned long flags;
	s64 left = 0;
	char buf[128];
	int kind, n;

	kind = kcsraw_fault_now(false, false);
	raw_spin_lock_irqsave(&kcsraw_fault.lock, flags);
	if (kind && kcsraw_fault.until)
		left = ktime_ms_delta(kcsraw_fault.until, ktime_get());
	n = scnprintf(buf, sizeof(buf), "%s left_ms=%lld tries=%u starts=%u hits=%lu\n",
		      kcsraw_fault_names[kind], max_t(s64, left, 0),
		      kcsraw_fault.tries, kcsraw_fault.starts,
		      kcsraw_fault.hits);
	raw_spin_unlock_irqrestore(&kcsraw_fault.lock, flags);
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

/* Write: "KIND MS [TRIES]" (MS 0: until TRIES), or "none". */
static ssize_t kcsraw_fault_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	unsigned int ms = 0, tries = 0;
	unsigned long flags;
	char buf[64], word[8];
	int kind, n;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	n = sscanf(buf, "%7s %u %u", word, &ms, &tries);
	if (n < 1)
		return -EINVAL;
	for (kind = 0; kind < ARRAY_SIZE(kcsraw_fault_names); kind++)
		if (!strcmp(word, kcsraw_fault_names[kind]))
			break;
	if (kind == ARRAY_SIZE(kcsraw_fault_names) ||
	    (kind && !ms && !tries))
		return -EINVAL;
	raw_spin_lock_irqsave(&kcsraw_fault.lock, flags);
	kcsraw_fault.until = ms ? ktime_add_ms(ktime_get(), ms) : 0;
	kcsraw_fault.tries = tries;
	kcsraw_fault.starts = 0;
	kcsraw_fault.hits = 0;
	kcsraw_fault.state = KCS_STATE_IDLE;
	kcsraw_fault.last = 0;
	WRITE_ONCE(kcsraw_fault.kind, kind);
	raw_spin_unlock_irqrestore(&kcsraw_fault.lock, flags);
	return count;
}

static const struct file_operations kcsraw_fault_fops = {
	.owner = THIS_MODULE,
	.read = kcsraw_fault_read,
	.write = kcsraw_fault_write,
};

/* With fault_inject=1: /sys/kernel/debug/kcsraw/faults. */
void kcsraw_fault_init(void)
{
	if (!kcsraw_fault_inject)
		return;
	kcsraw_fault_dir = debugfs_create_dir(KCSRAW_NAME, NULL);
	debugfs_create_file("faults", 0600, kcsraw_fault_dir, NULL,
			    &kcsraw_fault_fops);
	debugfs_create_file("sharer", 0600, kcsraw_fault_dir, NULL,
			    &kcsraw_sharer_fops);
	pr_warn("fault injection on (fault_inject=1): for tests only\n");
}

void kcsraw_fault_exit(void)
{
	debugfs_remove_recursive(kcsraw_fault_dir);
	kcsraw_fault_dir = NULL;
	WRITE_ONCE(kcsraw_fault.kind, KCSRAW_FAULT_NONE);
}

const struct kcs_io_ops kcsraw_port_ops = {
	.inb = kcsraw_inb,
	.outb = kcsraw_outb,
};

u8 kcsraw_io_status(struct kcsraw_iface *ifc)
{
	return kcsraw_inb(ifc, KCS_REG_STATUS);
}

/*
 * Name the innermost resource that covers @port, for the error message.
 * The resource tree may only be walked under resource_lock, which is not
 * exported to modules; /proc/ioports prints the tree under that lock, so
 * read it there (lines "  0ca2-0ca2 : ipmi_si", indented by depth). Done
 * once, on a failed load, in the context of the process loading the
 * module; "another driver" when /proc is not there.
 */
#define KCSRAW_IOPORTS_MAX	(64 * 1024)

static void kcsraw_port_holder(unsigned long port, char *buf, size_t len)
{
	unsigned long start, end;
	int depth, best = -1, n;
	struct file *f;
	char *text, *line, *next, *name;
	loff_t pos = 0;
	ssize_t got;

	strscpy(buf, "another driver", len);
	text = kvmalloc(KCSRAW_IOPORTS_MAX, GFP_KERNEL);
	if (!text)
		return;
	f = filp_open("/proc/ioports", O_RDONLY, 0);
	if (IS_ERR(f))
		goto out;
	got = kernel_read(f, text, KCSRAW_IOPORTS_MAX - 1, &pos);
	filp_close(f, NULL);
	if (got <= 0)
		goto out;
	text[got] = '\0';
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		depth = strspn(line, " ");
		if (sscanf(line + depth, "%lx-%lx : %n", &start, &end, &n) != 2 ||
		    port < start || port > end || depth <= best)
			continue;
		name = strim(line + depth + n);
		if (*name) {
			strscpy(buf, name, len);
			best = depth;
		}
	}
out:
	kvfree(text);
}

void kcsraw_io_release(struct kcsraw_iface *ifc)
{
	while (ifc->regions > 0) {
		ifc->regions--;
		release_region(kcsraw_reg_port(ifc, ifc->regions), 1);
	}
}

/*
 * Claim the data and status/command registers (one byte each, like the
 * stock driver, so that register spacing is honoured). -EBUSY with a
 * message naming the holder when another driver owns them.
 */
int kcsraw_io_claim(struct kcsraw_iface *ifc)
{
	char holder[64];
	unsigned long port;

	for (ifc->regions = 0; ifc->regions < 2; ifc->regions++) {
		port = kcsraw_reg_port(ifc, ifc->regions);
		if (request_region(port, 1, KCSRAW_NAME))
			continue;
		kcsraw_port_holder(port, holder, sizeof(holder));
		pr_err("I/O port 0x%lx of the KCS interface at 0x%lx is in use by \"%s\"; release it first (rmmod ipmi_si, or keep ipmi_si off this interface with ipmi_si.ports=/trydmi=0/tryacpi=0 in /etc/modprobe.d)\n",
		       port, ifc->base, holder);
		kcsraw_io_release(ifc);
		return -EBUSY;
	}
	return 0;
}
