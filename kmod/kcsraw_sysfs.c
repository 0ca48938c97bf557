// SPDX-License-Identifier: GPL-2.0
/*
 * kcsraw_sysfs.c - per-interface attributes of /sys/class/misc/kcsrawN.
 */
#include <linux/device.h>
#include <linux/sysfs.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "kcsraw_priv.h"

static struct kcsraw_iface *kcsraw_dev_iface(struct device *dev)
{
	struct miscdevice *misc = dev_get_drvdata(dev);

	return container_of(misc, struct kcsraw_iface, misc);
}

#define KCSRAW_STAT_ATTR(field)						\
static ssize_t field##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct kcsraw_stats st;						\
									\
	kcsraw_get_stats(kcsraw_dev_iface(dev), &st);			\
	return sysfs_emit(buf, "%llu\n", (unsigned long long)st.field);	\
}									\
static struct device_attribute dev_attr_##field = {			\
	.attr = { .name = #field, .mode = 0444 },			\
	.show = field##_show,						\
}

KCSRAW_STAT_ATTR(transactions);
KCSRAW_STAT_ATTR(errors);
KCSRAW_STAT_ATTR(hosed);
KCSRAW_STAT_ATTR(cancelled);
KCSRAW_STAT_ATTR(retries);
KCSRAW_STAT_ATTR(timeouts);
KCSRAW_STAT_ATTR(spin_ns);
KCSRAW_STAT_ATTR(cpu_ns);
KCSRAW_STAT_ATTR(sleeps);
KCSRAW_STAT_ATTR(timer_wakeups);
KCSRAW_STAT_ATTR(irq_wakeups);
KCSRAW_STAT_ATTR(irqs);
KCSRAW_STAT_ATTR(latency_sum_ns);
KCSRAW_STAT_ATTR(latency_max_ns);
KCSRAW_STAT_ATTR(queue_sum_ns);
KCSRAW_STAT_ATTR(attn);
KCSRAW_STAT_ATTR(poller_runtime_ns);

/*
 * Counters of the interface read as they stand: the poller's wake-ups,
 * the requests their submitter started, and finished. @off: the u64's
 * offset in struct kcsraw_iface.
 */
static ssize_t kcsraw_ifc_u64_show(struct device *dev, char *buf, size_t off)
{
	const u64 *v = (const u64 *)((const char *)kcsraw_dev_iface(dev) + off);

	return sysfs_emit(buf, "%llu\n", (unsigned long long)READ_ONCE(*v));
}

#define KCSRAW_IFC_ATTR(field)						\
static ssize_t field##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	return kcsraw_ifc_u64_show(dev, buf,				\
				   offsetof(struct kcsraw_iface, field));\
}									\
static struct device_attribute dev_attr_##field = {			\
	.attr = { .name = #field, .mode = 0444 },			\
	.show = field##_show,						\
}

KCSRAW_IFC_ATTR(wakeups);
KCSRAW_IFC_ATTR(submit_starts);
KCSRAW_IFC_ATTR(submit_done);

/* The poller's wake-ups by cause (enum kcsraw_why). */
#define KCSRAW_WAKE_ATTR(name, why)					\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	struct kcsraw_iface *ifc = kcsraw_dev_iface(dev);		\
									\
	return sysfs_emit(buf, "%llu\n",					\
			  (unsigned long long)READ_ONCE(ifc->wake_by[why])); \
}									\
static DEVICE_ATTR_RO(name)

KCSRAW_WAKE_ATTR(wake_kick, KCSRAW_WHY_KICK);
KCSRAW_WAKE_ATTR(wake_timer, KCSRAW_WHY_TIMER);
KCSRAW_WAKE_ATTR(wake_irq, KCSRAW_WHY_IRQ);
KCSRAW_WAKE_ATTR(wake_other, KCSRAW_WHY_OTHER);

static ssize_t ports_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct kcsraw_iface *ifc = kcsraw_dev_iface(dev);

	return sysfs_emit(buf, "0x%lx 0x%lx\n", ifc->base,
			  ifc->base + ifc->spacing);
}
static DEVICE_ATTR_RO(ports);

static ssize_t irq_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%u\n", kcsraw_dev_iface(dev)->irq);
}
static DEVICE_ATTR_RO(irq);

/* 1: another device holds the line too (kcsraw_irq.c). */
static ssize_t irq_shared_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct kcsraw_iface *ifc = kcsraw_dev_iface(dev);

	return sysfs_emit(buf, "%d\n", READ_ONCE(ifc->irq) && ifc->irq_shared);
}
static DEVICE_ATTR_RO(irq_shared);

/* Answer bytes the shared line's handler took off the data register. */
static ssize_t irq_taken_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", (unsigned long long)
			  READ_ONCE(kcsraw_dev_iface(dev)->irq_taken));
}
static DEVICE_ATTR_RO(irq_taken);

static ssize_t source_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  kcsraw_dev_iface(dev)->from_dmi ? "smbios" : "param");
}
static DEVICE_ATTR_RO(source);

static ssize_t poller_pid_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct kcsraw_iface *ifc = kcsraw_dev_iface(dev);

	return sysfs_emit(buf, "%d\n", ifc->thread ? task_pid_nr(ifc->thread) : 0);
}
static DEVICE_ATTR_RO(poller_pid);

static ssize_t policy_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct kcsraw_policy p;

	kcsraw_default_policy(kcsraw_dev_iface(dev), &p);
	return sysfs_emit(buf, "max_busy_us=%u poll_us=%u poll_max_us=%u backoff=%s irq=%u\n",
			  p.max_busy_us, p.poll_us, p.poll_max_us,
			  p.backoff == KCSRAW_BACKOFF_EXP ? "exp" : "fixed",
			  !!(p.flags & KCSRAW_POL_IRQ));
}
static DEVICE_ATTR_RO(policy);

/*
 * The kernel's lane (ipmi_msghandler, smi=1): its policy, in the format of
 * policy plus first_us; a write sets any of the keys, e.g.
 * "max_busy_us=200 backoff=fixed".
 */
static ssize_t smi_policy_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct kcsraw_iface *ifc = kcsraw_dev_iface(dev);
	struct kcsraw_policy p;
	unsigned long flags;

	spin_lock_irqsave(&ifc->lock, flags);
	p = ifc->smi_policy;
	spin_unlock_irqrestore(&ifc->lock, flags);
	return sysfs_emit(buf, "max_busy_us=%u poll_us=%u poll_max_us=%u %s%s irq=%u first_us=%u\n",
			  p.max_busy_us, p.poll_us, p.poll_max_us, "backoff=",
			  p.backoff == KCSRAW_BACKOFF_EXP ? "exp" : "fixed",
			  !!(p.flags & KCSRAW_POL_IRQ), p.first_us);
}

static int kcsraw_policy_key(struct kcsraw_policy *p, char *tok)
{
	char *val = strchr(tok, '=');
	unsigned int v;

	if (!val)
		return -EINVAL;
	*val++ = 0;
	if (!strcmp(tok, "backoff")) {
		if (!strcmp(val, "exp"))
			p->backoff = KCSRAW_BACKOFF_EXP;
		else if (!strcmp(val, "fixed"))
			p->backoff = KCSRAW_BACKOFF_FIXED;
		else
			return -EINVAL;
		return 0;
	}
	if (kstrtouint(val, 0, &v))
		return -EINVAL;
	if (!strcmp(tok, "max_busy_us"))
		p->max_busy_us = v;
	else if (!strcmp(tok, "poll_us"))
		p->poll_us = v;
	else if (!strcmp(tok, "poll_max_us"))
		p->poll_max_us = v;
	else if (!strcmp(tok, "first_us"))
		p->first_us = v;
	else if (!strcmp(tok, "irq") && v <= 1)
		p->flags = v ? p->flags | KCSRAW_POL_IRQ :
			   p->flags & ~KCSRAW_POL_IRQ;
	else
		return -EINVAL;
	return 0;
}

static ssize_t smi_policy_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t count)
{
	struct kcsraw_iface *ifc = kcsraw_dev_iface(dev);
	struct kcsraw_policy p;
	unsigned long flags;
	char *s, *cur, *tok;
	int ret = 0;

	s = kstrndup(buf, count, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	spin_lock_irqsave(&ifc->lock, flags);
	p = ifc->smi_policy;
	spin_unlock_irqrestore(&ifc->lock, flags);
	cur = strim(s);
	while (!ret && (tok = strsep(&cur, " \t\n")))
		if (*tok)
			ret = kcsraw_policy_key(&p, tok);
	kfree(s);
	if (!ret)
		ret = kcsraw_policy_check(&p);
	if (ret)
		return ret;
	spin_lock_irqsave(&ifc->lock, flags);
	ifc->smi_policy = p;
	spin_unlock_irqrestore(&ifc->lock, flags);
	return count;
}
static DEVICE_ATTR_RW(smi_policy);

/* The kernel's lane: registered, and what went through it. */
static ssize_t smi_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	struct kcsraw_iface *ifc = kcsraw_dev_iface(dev);
	int n;

	n = sysfs_emit(buf, "registered=%u messages=%llu polled=%llu aborted=%llu",
		       !!READ_ONCE(ifc->intf),
		       (unsigned long long)READ_ONCE(ifc->smi_msgs),
		       (unsigned long long)READ_ONCE(ifc->smi_polled),
		       (unsigned long long)READ_ONCE(ifc->smi_aborted));
	/* The message flags machine (smi_async). */
	n += sysfs_emit_at(buf, n, " async=%u flag_ops=%llu received=%llu",
			   READ_ONCE(ifc->smi_async),
			   (unsigned long long)READ_ONCE(ifc->flg_ops),
			   (unsigned long long)READ_ONCE(ifc->flg_msgs));
	return n + sysfs_emit_at(buf, n, " events=%llu pretimeouts=%llu\n",
				 (unsigned long long)READ_ONCE(ifc->flg_events),
				 (unsigned long long)READ_ONCE(ifc->flg_pretimeouts));
}
static DEVICE_ATTR_RO(smi);

/*
 * Whether the BMC answers: "up", "waiting" (not since the load) or "lost"
 * (a transaction gave up); the failed probes and the requests answered
 * at once meanwhile; answers to another netfn/cmd, made cc 0xff.
 */
static ssize_t bmc_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	static const char * const names[] = {
		[KCSRAW_BMC_UP] = "up",
		[KCSRAW_BMC_WAIT] = "waiting",
		[KCSRAW_BMC_LOST] = "lost",
	};
	struct kcsraw_iface *ifc = kcsraw_dev_iface(dev);
	int b = READ_ONCE(ifc->bmc);

	return sysfs_emit(buf, "%s probes=%llu failed_at_once=%llu mismatches=%llu\n",
			  b >= 0 && b < ARRAY_SIZE(names) ? names[b] : "?",
			  (unsigned long long)READ_ONCE(ifc->probes),
			  (unsigned long long)READ_ONCE(ifc->nobmc),
			  (unsigned long long)READ_ONCE(ifc->sm.stats.mismatches));
}
static DEVICE_ATTR_RO(bmc);

static struct attribute *kcsraw_attrs[] = {
	&dev_attr_transactions.attr,
	&dev_attr_errors.attr,
	&dev_attr_hosed.attr,
	&dev_attr_cancelled.attr,
	&dev_attr_retries.attr,
	&dev_attr_timeouts.attr,
	&dev_attr_spin_ns.attr,
	&dev_attr_cpu_ns.attr,
	&dev_attr_sleeps.attr,
	&dev_attr_timer_wakeups.attr,
	&dev_attr_irq_wakeups.attr,
	&dev_attr_irqs.attr,
	&dev_attr_latency_sum_ns.attr,
	&dev_attr_latency_max_ns.attr,
	&dev_attr_queue_sum_ns.attr,
	&dev_attr_attn.attr,
	&dev_attr_poller_runtime_ns.attr,
	&dev_attr_wakeups.attr,
	&dev_attr_wake_kick.attr,
	&dev_attr_wake_timer.attr,
	&dev_attr_wake_irq.attr,
	&dev_attr_wake_other.attr,
	&dev_attr_submit_starts.attr,
	&dev_attr_submit_done.attr,
	&dev_attr_ports.attr,
	&dev_attr_irq.attr,
	&dev_attr_irq_shared.attr,
	&dev_attr_irq_taken.attr,
	&dev_attr_source.attr,
	&dev_attr_poller_pid.attr,
	&dev_attr_policy.attr,
	&dev_attr_smi_policy.attr,
	&dev_attr_smi.attr,
	&dev_attr_bmc.attr,
	NULL,
};

static const struct attribute_group kcsraw_group = {
	.attrs = kcsraw_attrs,
};

const struct attribute_group *kcsraw_groups[] = {
	&kcsraw_group,
	NULL,
};
